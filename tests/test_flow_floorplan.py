"""aesdse.flow.floorplan: block RAMs fixed to sites, and the ``floorplan`` flow option."""

import json
import re
from collections import Counter

import pytest
from amaranth.back import rtlil

import archs
from archs.floorplans import FLOORPLAN_CELLS
from aesdse.experiment import ExperimentError, load_experiment, make_point
from aesdse.flow.floorplan import (FLOORPLANS, FloorplanError, apply_floorplan,
                                   block_ram_sites, floorplan_devices, lane_rows)
from aesdse.flow.families.ecp5 import PARTS
from aesdse.flow.nextpnr import place_and_route
from aesdse.flow.yosys import SynthOptions, synthesize
from aesdse.spec.schema import FlowOptions, Target

DEVICE = "LFE5U-85F"
#: The floorplannable cells the unrolled core declares.
CELLS = FLOORPLAN_CELLS["unrolled"]


def _names(lanes, bram_rounds, units=10, boxes=8, key_boxes=2, prefix=True):
    """Block-RAM cell names as Yosys flattens them from archs.unrolled in archs.lanes."""
    names = []
    for lane in range(lanes):
        head = f"lane{lane}." if prefix else ""
        for unit in range(units):
            if unit < bram_rounds:
                names += [f"{head}u{unit}_sbox{k}.bram" for k in range(boxes)]
            names += [f"{head}u{unit}_ksbox{k}.bram" for k in range(key_boxes)]
    return names


def _where(site):
    x, y, _ = site.split("/")
    return int(x[1:]), int(y[1:])


def test_the_site_table_has_the_devices_block_rams():
    rows = block_ram_sites(DEVICE)
    sites = [s for row in rows for s in row]
    # Every DP16KD of the part (the datasheet's count, aesdse.flow.families.ecp5), once.
    assert len(rows) == 4 and len(sites) == len(set(sites)) == PARTS[DEVICE].brams
    assert rows[0][:4] == ["X4/Y22/EBR0", "X6/Y22/EBR1", "X8/Y22/EBR2", "X10/Y22/EBR3"]
    with pytest.raises(FloorplanError, match=r"^no block-RAM site table for LFE5U-25F; "
                                             r"floorplans exist for LFE5U-85F$"):
        block_ram_sites("LFE5U-25F")
    assert floorplan_devices() == (DEVICE,)


def test_lane_rows_gives_each_lane_a_band_and_each_bram_round_a_row():
    # The one-chip record: three lanes, four block-RAM rounds, every key step in block RAM.
    names = _names(3, 4)
    sites = lane_rows(names, DEVICE, CELLS)
    assert sorted(sites) == sorted(names) and len(set(sites.values())) == 156
    rows = [int(row[0].split("/")[1][1:]) for row in block_ram_sites(DEVICE)]
    columns = sorted({_where(s)[0] for row in block_ram_sites(DEVICE) for s in row})
    bands = [columns[0:17], columns[17:34], columns[34:52]]
    for name, site in sites.items():
        lane, unit = (int(n) for n in re.match(r"lane(\d+)\.u(\d+)_", name).groups())
        x, y = _where(site)
        assert x in bands[lane], (name, site)
        if unit < 4:  # a block-RAM round and its key step: the round's row
            assert y == rows[unit], (name, site)
    # A key step of a logic round keeps its two blocks in one row, and no row of a band holds
    # more than its columns.
    for lane in range(3):
        for unit in range(4, 10):
            ys = {_where(sites[f"lane{lane}.u{unit}_ksbox{k}.bram"])[1] for k in range(2)}
            assert len(ys) == 1
        per_row = Counter(_where(s)[1] for n, s in sites.items() if n.startswith(f"lane{lane}."))
        assert max(per_row.values()) <= len(bands[lane])
    # A round's eight blocks side by side.
    xs = sorted(columns.index(_where(sites[f"lane1.u2_sbox{k}.bram"])[0]) for k in range(8))
    assert xs == list(range(xs[0], xs[0] + 8))


def test_lane_rows_of_one_core_takes_the_whole_width():
    sites = lane_rows(_names(1, 2, prefix=False), DEVICE, CELLS)
    assert len(sites) == 2 * 8 + 10 * 2
    xs = sorted(_where(s)[0] for s in sites.values())
    assert xs[0] > 30 and xs[-1] < 95  # centred in the 4..120 columns


def test_lane_rows_refuses_what_it_cannot_place():
    with pytest.raises(FloorplanError, match=r"^lane_rows: block RAM 'sbox.rom.bram' is not a "
                                             r"round unit's S-box"):
        lane_rows(["sbox.rom.bram"], DEVICE, CELLS)
    with pytest.raises(FloorplanError, match=r"^lane_rows: lane 0 has 5 block-RAM rounds; "
                                             r"LFE5U-85F has 4 block-RAM rows$"):
        lane_rows(_names(1, 5), DEVICE, CELLS)
    # Three lanes with one S-box per DP16KD: 16 per round do not fit a band of 17 columns
    # beside the key steps.
    with pytest.raises(FloorplanError, match=r"^lane_rows: lane 0 has 104 block RAMs; its band "
                                             r"of 17 columns in 4 rows holds \d+ of them"):
        lane_rows(_names(3, 4, boxes=16, key_boxes=4), DEVICE, CELLS)


def _netlist(names):
    cells = {n: {"type": "DP16KD", "attributes": {}} for n in names}
    cells["other"] = {"type": "TRELLIS_FF", "attributes": {}}
    return {"modules": {"top": {"attributes": {"top": "00000000000000000000000000000001"},
                                "cells": cells}}}


def test_apply_floorplan_sets_nextpnrs_bel_attribute():
    netlist = _netlist(_names(2, 1))
    sites = apply_floorplan(netlist, "lane_rows", DEVICE, CELLS)
    cells = netlist["modules"]["top"]["cells"]
    assert {n: c["attributes"]["BEL"] for n, c in cells.items() if c["type"] == "DP16KD"} \
        == sites
    assert "BEL" not in cells["other"]["attributes"]
    untouched = _netlist(_names(2, 1))
    assert apply_floorplan(untouched, "none", DEVICE, CELLS) == {}
    assert untouched == _netlist(_names(2, 1))
    with pytest.raises(FloorplanError, match=r"^lane_rows: the netlist has no DP16KD to place$"):
        apply_floorplan(_netlist([]), "lane_rows", DEVICE, CELLS)
    with pytest.raises(FloorplanError, match=r"^floorplan must be one of none, lane_rows"):
        apply_floorplan(_netlist([]), "rows", DEVICE, CELLS)


def test_the_floorplan_flow_option(tmp_path):
    # The default stays out of the flow's plain data, so earlier rows keep their keys.
    assert "floorplan" not in FlowOptions().as_dict()
    assert FlowOptions(floorplan="lane_rows").as_dict()["floorplan"] == "lane_rows"
    assert make_point("unrolled").key != make_point(
        "unrolled", flow=FlowOptions(floorplan="lane_rows")).key

    def experiment(flow, device=DEVICE, arch="unrolled\n    params: {bram_rounds: 4}"):
        path = tmp_path / "x.yaml"
        path.write_text(f"name: x\narchitectures:\n  - arch: {arch}\n"
                        f"targets:\n  - {{device: {device}, package: CABGA381, speed: 8}}\n"
                        f"flow:\n  freq_mhz: 100\n  floorplan: {flow}\n")
        return load_experiment(path)
    assert [p.flow.floorplan for p in experiment("[none, lane_rows]").points] == list(FLOORPLANS)
    with pytest.raises(ExperimentError, match=r"x.yaml:9: floorplan: 'rows' is not one of: "
                                              r"none, lane_rows"):
        experiment("rows")
    with pytest.raises(ExperimentError, match=r"x.yaml:9: floorplan: no block-RAM site table "
                                              r"for LFE5U-25F"):
        experiment("lane_rows", device="LFE5U-25F")
    # A point the floorplan would refuse at place and route is an error at its arch line.
    for arch, rounds in (("unrolled\n    params: {bram_rounds: 5}", 5), ("unrolled", 0),
                         ("iterative", 0)):
        with pytest.raises(ExperimentError, match=r"x.yaml:3: \w+: floorplan lane_rows places "
                                                  r"the block-RAM rounds of arch unrolled, 1 to "
                                                  rf"4 .*with bram_rounds {rounds}$"):
            experiment("lane_rows", arch=arch)
    assert experiment("none", arch="iterative").points
    assert experiment("none", device="LFE5U-25F").points


@pytest.mark.flow
def test_every_site_of_the_table_takes_a_dp16kd_in_nextpnr(tmp_path):
    # Real Yosys and nextpnr: one DP16KD of a table S-box, copied to every site of the table
    # (outputs left open), each fixed by its BEL attribute; nextpnr places each where it is
    # told (NEXTPNR_BEL of the placed netlist). A wrong site name fails nextpnr.
    core = archs.family("sbox").build(sbox="bram", device_family="ecp5")
    (tmp_path / "design.il").write_text(rtlil.convert(core, name="top", emit_src=False))
    synth = synthesize("design.il", "top", tmp_path, SynthOptions())
    assert synth.ok, synth.reason
    netlist = json.loads((tmp_path / synth.netlist).read_text())
    cells = netlist["modules"]["top"]["cells"]
    [(name, block)] = [(n, c) for n, c in cells.items() if c["type"] == "DP16KD"]
    sites = [s for row in block_ram_sites(DEVICE) for s in row]
    wanted = {name: sites[0]}
    free_bit = 1 << 24
    for n, site in enumerate(sites[1:], 1):
        copy = json.loads(json.dumps(block))
        for port, direction in copy["port_directions"].items():
            if direction == "output":
                width = len(copy["connections"][port])
                copy["connections"][port] = list(range(free_bit, free_bit + width))
                free_bit += width
        cells[f"{name}_{n}"] = copy
        wanted[f"{name}_{n}"] = site
    for cell, site in wanted.items():
        cells[cell]["attributes"]["BEL"] = site
    (tmp_path / "fixed.json").write_text(json.dumps(netlist))
    pnr = place_and_route("fixed.json", tmp_path, Target(), freq_mhz=100,
                          extra_args=("--write", "placed.json"))
    assert pnr.ok, pnr.reason
    placed = json.loads((tmp_path / "placed.json").read_text())["modules"]["top"]["cells"]
    assert {n: c["attributes"]["NEXTPNR_BEL"] for n, c in placed.items()
            if c["type"] == "DP16KD"} == wanted


def test_labels_tell_points_apart_by_their_flow_choices(tmp_path):
    # Two points of one design, frequency and seed that differ by a flow choice have labels
    # that say which is which (sweep progress, dry run, stored rows).
    from click.testing import CliRunner
    from aesdse.cli import main
    from aesdse.spec.schema import flow_choices
    assert flow_choices(FlowOptions().as_dict()) == ""
    assert flow_choices({"nowidelut": True, "floorplan": "lane_rows", "router": "router2",
                         "freq_mhz": 100.0}) == " (nowidelut, router=router2, floorplan=lane_rows)"
    path = tmp_path / "x.yaml"
    path.write_text("name: x\narchitectures:\n  - arch: unrolled\n    params: {bram_rounds: 4}\n"
                    "flow: {freq_mhz: 100, floorplan: [none, lane_rows]}\n")
    result = CliRunner().invoke(main, ["sweep", str(path), "--dry-run", "--db",
                                       str(tmp_path / "db.sqlite")])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("run")]
    assert [line.endswith("@100MHz seed=1") for line in lines] == [True, False]
    assert lines[1].endswith("@100MHz seed=1 (floorplan=lane_rows)")


def test_lane_rows_reads_the_names_yosys_gives_the_unrolled_cores_block_rams(tmp_path):
    # The names lane_rows reads come from archs.lanes (lane<n>) and archs.unrolled
    # (u<unit>_sbox<k>, u<unit>_ksbox<k>) through Yosys's flatten: a rename there must fail
    # here, not at place and route. One-round TEST CONFIGURATION (not AES), two lanes.
    from aesdse.flow.tools import find_tool, run_tool
    core = archs.family("unrolled").build(round_units=1, rounds=1, sbox="composite",
                                          bram_rounds=1, bram_read_ports=2, parallel_lanes=2,
                                          device_family="ecp5")
    (tmp_path / "design.il").write_text(rtlil.convert(core, name="top", emit_src=False))
    script = "read_rtlil design.il; hierarchy -top top; proc; flatten; write_json flat.json"
    run = run_tool(find_tool("yosys"), ["-q", "-p", script], tmp_path, "yosys.log", 300)
    assert run.returncode == 0, (tmp_path / "yosys.log").read_text()[-2000:]
    netlist = json.loads((tmp_path / "flat.json").read_text())
    sites = apply_floorplan(netlist, "lane_rows", DEVICE, CELLS)
    # Per lane: the round's 16 S-boxes on 8 DP16KD; one key step (the last round's) in 2.
    assert sorted(sites) == sorted(f"lane{lane}.u0_{kind}sbox{k}.bram" for lane in range(2)
                                   for kind, count in (("", 8), ("k", 2)) for k in range(count))
