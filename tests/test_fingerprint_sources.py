"""The generator fingerprint covers every source of test vectors: each module of the
:mod:`aesdse.verify.vectors` package (one per source: the standards, the oracle, CCM, CAVP, the
Monte Carlo test, what a verify run checks), listed or not, and an edit of any of them changes
the fingerprint of every family."""

from pathlib import Path

import pytest

import archs
from aesdse import fingerprint
from aesdse.verify import vectors

VECTOR_SOURCES = sorted(Path(vectors.__file__).parent.glob("*.py"))


def test_the_vectors_package_holds_the_vector_sources():
    assert {p.stem for p in VECTOR_SOURCES} >= {
        "__init__", "standards", "oracle", "ccm", "cavp", "monte_carlo", "selection"}


@pytest.mark.parametrize("family", ["compact", "unrolled", "multimode"])
def test_every_module_of_the_vectors_package_is_a_generator_source(family):
    fam = archs.family(family)
    sources = fingerprint.generator_sources(fam.module, fam.wrappers)
    assert set(VECTOR_SOURCES) <= set(sources)
    assert all(f"aesdse.verify.vectors.{p.stem}" in fingerprint.generator_modules()
               for p in VECTOR_SOURCES if p.stem != "__init__")


@pytest.mark.parametrize("filename", ["monte_carlo.py", "selection.py"])
def test_an_edit_of_a_vector_source_changes_every_fingerprint(filename, monkeypatch):
    families = ("compact", "unrolled")
    fingerprint.generator_fingerprint.cache_clear()
    before = {f: fingerprint.generator_fingerprint(f) for f in families}
    original = fingerprint.read_source
    monkeypatch.setattr(fingerprint, "read_source", lambda p: original(p) + (
        b"\n# edited\n" if p.parent.name == "vectors" and p.name == filename else b""))
    fingerprint.generator_fingerprint.cache_clear()
    try:
        after = {f: fingerprint.generator_fingerprint(f) for f in families}
    finally:
        fingerprint.generator_fingerprint.cache_clear()
    assert all(after[f] != before[f] for f in families)
