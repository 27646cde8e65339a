"""Real Yosys + nextpnr runs of small designs: one per architecture family that the default
test run can afford (the quickstart sweep in test_cli.py covers `iterative`)."""

import json
from pathlib import Path

import pytest
from amaranth.back import rtlil

from aesdse.experiment import make_point
from aesdse.flow.nextpnr import place_and_route
from aesdse.flow.tools import tool_versions
from aesdse.flow.yosys import SynthOptions, synthesize
from aesdse.experiment import FlowOptions, Target
from aesdse.sweep import run_point

pytestmark = pytest.mark.flow


def test_compact_8_bit_core_through_the_whole_point_pipeline(tmp_path):
    # Issue 4: one real flow run of the 8-bit core in the default test run.
    point = make_point("compact", {"datapath_width": 8, "sbox": "composite",
                                   "shared_memory": True},
                       flow=FlowOptions(freq_mhz=100, nowidelut=True))
    row = run_point(point, "test", str(tmp_path), tool_versions())
    assert row.status == "ok", row.reason
    assert row.cycles_per_block == 176  # measured: 11 steps x 16 byte-cycles
    assert 200 < row.luts < 2000 and row.ffs > 128 and row.brams == 0
    assert row.fmax_mhz > 20
    assert row.throughput_mbps == pytest.approx(128 * row.fmax_mhz / 176)
    resources = json.loads((Path(row.artifacts) / "manifest.json").read_text())["resources"]
    assert resources["datapath_sbox_instances"] == 1


def test_reduced_round_unrolled_core_places_and_routes(tmp_path):
    # Issue 5: a full unrolled AES takes ~10 minutes of flow; this TEST CONFIGURATION (2 round
    # units, 2 rounds: not AES, never used in experiments) keeps the family's flow path tested.
    from archs.unrolled import Unrolled
    core = Unrolled(round_units=2, rounds=2, sbox="lut", target="ecp5")
    (tmp_path / "design.il").write_text(rtlil.convert(core, name="top", emit_src=False))
    synth = synthesize("design.il", "top", tmp_path, SynthOptions())
    assert synth.ok, synth.reason
    pnr = place_and_route(synth.netlist, tmp_path, Target(), freq_mhz=150)
    assert pnr.ok, pnr.reason
    assert pnr.utilization["TRELLIS_COMB"] > 1000
    assert pnr.fmax_mhz["clk"] > 30
