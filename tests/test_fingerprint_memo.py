"""The generator fingerprint keeps the imports it read by the digest of each source: the same
answer as parsing, an edit never finds an old entry, and a damaged or unwritable memo costs only
the parse."""

import json
from pathlib import Path

import pytest

from aesdse import fingerprint

FAMILY = "archs.compact"


@pytest.fixture
def memo_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fingerprint.generator_fingerprint.cache_clear()
    yield tmp_path / "aesdse" / "imports"
    fingerprint.generator_fingerprint.cache_clear()


def _parsed(name):
    path = fingerprint._module_path(name)
    return fingerprint._parse_imports(name, path, path.read_bytes())


def test_the_memo_gives_what_parsing_gives_for_every_source(memo_home):
    sources = fingerprint.generator_sources(FAMILY, ("archs.lanes",))
    root = Path(fingerprint.__file__).resolve().parent.parent
    names = {}
    for path in sources:
        parts = path.resolve().relative_to(root).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for entry in memo_home.glob("*.json"):  # those generator_sources wrote
        entry.unlink()
    for name, path in names.items():
        first = fingerprint._imports(name, path)  # parsed, then written
        again = fingerprint._imports(name, path)  # read back
        assert first == again == _parsed(name)
    assert len(list(memo_home.glob("*.json"))) == len(names)
    assert "archs.compact.datapath" in fingerprint._imports("archs.compact", names["archs.compact"])
    assert "archs.prims.gf" in fingerprint._imports("archs.compact.datapath",
                                                    names["archs.compact.datapath"])


def test_an_edited_source_is_parsed_again(memo_home, monkeypatch):
    path = fingerprint._module_path(FAMILY)
    before = fingerprint._imports(FAMILY, path)
    original = fingerprint.read_source
    monkeypatch.setattr(fingerprint, "read_source",
                        lambda p: original(p) + (b"\nimport archs.prims.tbox\n" if p == path
                                                 else b""))
    after = fingerprint._imports(FAMILY, path)
    assert after == before | {"archs.prims.tbox"}


def test_a_damaged_memo_is_ignored_and_an_unwritable_one_costs_the_parse(memo_home):
    path = fingerprint._module_path(FAMILY)
    expected = _parsed(FAMILY)
    fingerprint._imports(FAMILY, path)
    (entry,) = memo_home.glob("*.json")
    for damage in ("{not json", json.dumps({"a": 1}), json.dumps([1, 2])):
        entry.write_text(damage)
        assert fingerprint._imports(FAMILY, path) == expected
    for entry in memo_home.glob("*.json"):
        entry.unlink()
    memo_home.chmod(0o500)
    try:
        assert fingerprint._imports(FAMILY, path) == expected
    finally:
        memo_home.chmod(0o700)


def test_the_fingerprint_is_the_same_with_and_without_the_memo(memo_home):
    first = fingerprint.generator_fingerprint("compact")
    fingerprint.generator_fingerprint.cache_clear()
    assert fingerprint.generator_fingerprint("compact") == first  # now from the memo
