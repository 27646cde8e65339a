"""aesdse.generate: the manifest of ``aesdse generate`` describes the built core, not its family.

For a default point of every family and three points whose parameters narrow what the family
takes, the manifest's ports are compared with those of the Verilog that ``write_verilog`` wrote,
and its key sizes, directions and modes with the payload fields of those ports and with what the
verify stage checks the core in."""

import gc
import re
import warnings

import pytest
from amaranth.hdl import UnusedElaboratable

import archs
from aesdse.experiment import make_point
from aesdse.generate import build_component, generate, write_verilog
from aesdse.verify.blocks import core_directions

#: Points whose parameters narrow the family's key sizes (the family lists say otherwise).
NARROWED = [
    ("gcm_unrolled", {"key_bits": 192}, [192]),
    ("multimode", {"key_sizes": 128}, [128]),
    ("unrolled", {"key_bits": 256, "round_units": 14}, [256]),
]

CASES = [(name, {}) for name in archs.FAMILIES] + [(n, p) for n, p, _ in NARROWED]

_DECLARATION = re.compile(r"^  (input|output|inout) (?:\[(\d+):(\d+)\] )?\\?(\S+?) ?;$")


def verilog_ports(verilog: str, top: str) -> tuple[list[str], set]:
    """(names in the port list of module ``top``, its ``input``/``output`` declarations as
    ``(name, direction, width)``)."""
    start = verilog.index(f"\nmodule {top}(")
    body = verilog[start + 1:verilog.index("\nendmodule", start)]
    header, *lines = body.split("\n")
    names = [n.strip().lstrip("\\") for n in header[header.index("(") + 1:header.rindex(")")]
             .split(",")]
    declared = set()
    for line in lines:
        match = _DECLARATION.match(line)
        if match:
            direction, high, low, name = match.groups()
            declared.add((name, direction, int(high) - int(low) + 1 if high else 1))
    return names, declared


def _fields(manifest, port):
    return {f["name"]: f for p in manifest["ports"] if p["name"] == port for f in p["fields"]}


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"{c[0]}-{c[1]}" if c[1] else c[0])
def written(request, tmp_path_factory):
    name, params = request.param
    point = make_point(name, params)
    design = generate(point, target="generic")
    verilog = write_verilog(design, tmp_path_factory.mktemp(name)).read_text()
    return point, params, design.manifest, verilog


@pytest.mark.flow
def test_the_manifest_ports_are_the_verilog_ports(written):
    point, _, manifest, verilog = written
    names, declared = verilog_ports(verilog, point.top_name)
    assert sorted(names) == sorted(n for n, _, _ in declared)
    assert {(p["name"], p["direction"], p["width"]) for p in manifest["ports"]} == declared
    # The clock of every core is listed, as an input of one bit.
    assert ("clk", "input", 1) in declared
    for port in manifest["ports"]:
        if "fields" in port:   # the fields tile the payload, in order
            ends = [0] + [f["offset"] + f["width"] for f in port["fields"]]
            assert [f["offset"] for f in port["fields"]] == ends[:-1]
            assert ends[-1] == port["width"]


@pytest.mark.flow
def test_the_manifest_facts_are_those_of_the_built_core(written):
    point, params, manifest, _ = written
    fam = archs.family(point.arch)
    if fam.kind != "cipher":
        assert manifest["key_sizes"] == [] and "key__payload" not in {
            p["name"] for p in manifest["ports"]}
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)   # only its signature is read
        component = build_component(point)
        key_sizes, directions = core_directions(component, fam.key_sizes, fam.directions)
        in_flight = component.signature.blocks_in_flight
        del component
        gc.collect()
    assert manifest["key_sizes"] == list(key_sizes)
    assert manifest["directions"] == list(directions)
    assert manifest["blocks_in_flight"] == in_flight
    key, block = _fields(manifest, "key__payload"), _fields(manifest, "i__payload")
    if manifest["port_width"] == 128:
        # The key port is as wide as the largest key the core takes; a size field only when it
        # takes more than one.
        assert key["key"]["width"] == max(manifest["key_sizes"])
        assert ("key_bits" in key) == (len(manifest["key_sizes"]) > 1)
    assert ("decrypt" in block) == ("decrypt" in manifest["directions"])
    modes = manifest["modes"]
    if "mode" in block:
        assert set(block["mode"]["values"]) == set(modes) and len(modes) > 1
    else:
        assert len(modes) == 1
    assert ("phase" in block) == (modes == ["gcm"])
    for name, narrowing, key_sizes in NARROWED:
        if (point.arch, params) == (name, narrowing):
            assert manifest["key_sizes"] == key_sizes != list(fam.key_sizes)
            assert {p["name"]: p["width"] for p in manifest["ports"]}["key__payload"] == \
                key_sizes[0]
