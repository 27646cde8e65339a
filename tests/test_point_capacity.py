"""aesdse.engine.point: a point that cannot fit its device is stored as ``does-not-fit`` before any tool
runs (issue 14), on lower bounds only (issue 22), or after synthesis, before place and route."""

import dataclasses

import pytest

from aesdse.flow import families
from aesdse.experiment import make_point
from aesdse.spec.schema import FlowOptions, Target
import archs
from aesdse.generate import logic_sbox_count
from aesdse.engine.point import (
    SBOX_LUT4_LOWER_BOUND, capacity_before_synthesis, rtlil_flip_flops, run_point,
)
from archs.prims.circuits import CIRCUITS
from archs.prims.sbox import SharedSBox


def test_flip_flops_of_an_rtlil_netlist():
    text = ("module \\top\n  cell $dff $1\n    parameter \\WIDTH 8\n  end\n"
            "  cell $and $2\n    parameter \\WIDTH 5\n  end\n"
            "  cell $adff $3\n    parameter \\WIDTH 3\n  end\nend\n")
    assert rtlil_flip_flops(text) == 11


def test_flip_flops_of_the_rtlil_do_not_refuse_a_design_before_synthesis(monkeypatch):
    # Synthesis merges registers (whole key pipelines of lanes fed the same key), so the
    # RTLIL's flip-flops are no lower bound: only the LUT4 bound of the logic S-boxes refuses a
    # design before synthesis (issue 22: three fully pipelined lanes count 93,705 FF in RTLIL
    # against the 85F's 83,640, and keep fewer after synthesis).
    tiny = dataclasses.replace(families.DEVICES["iCE40UP5K"], ffs=10, luts=600)
    monkeypatch.setitem(families.DEVICES, "iCE40UP5K", tiny)
    assert capacity_before_synthesis("iCE40UP5K", {"logic_sboxes": 0}) is None
    assert capacity_before_synthesis("iCE40UP5K", {"logic_sboxes": 18}) is None    # 576 LUT4
    assert capacity_before_synthesis("iCE40UP5K", {"logic_sboxes": 20}) == (
        "does not fit iCE40UP5K: 640 LUT4 > 600 (32 LUT4 per logic S-box, a lower bound, "
        "before synthesis; no tool was run)")


@pytest.mark.flow
def test_point_with_too_many_flip_flops_is_refused_after_synthesis(tmp_path, monkeypatch):
    # A UP5K with room for 10 flip-flops only: the harnessed S-box keeps 32 after synthesis, so
    # Yosys runs (the RTLIL's count refuses nothing) and nextpnr does not.
    tiny = dataclasses.replace(families.DEVICES["iCE40UP5K"], ffs=10)
    monkeypatch.setitem(families.DEVICES, "iCE40UP5K", tiny)
    point = make_point("sbox", {"sbox": "lut"}, target=Target("iCE40UP5K", "sg48", None),
                       flow=FlowOptions(freq_mhz=50))
    row = run_point(point, "test", str(tmp_path), {}, key="k")
    assert row.status == "does-not-fit", row.reason
    assert row.reason.startswith("does not fit iCE40UP5K: ")
    assert row.reason.endswith(" FF > 10 (after synthesis; nextpnr was not run)")
    assert row.synth_seconds is not None and row.pnr_seconds is None
    assert not (tmp_path / "runs" / "k" / "nextpnr.log").exists()


@pytest.mark.parametrize("params, sboxes", [
    ({"sbox": "composite"}, 20),    # 16 in the rounds, 4 in the key schedule
    ({"sbox": "bram"}, 0),          # ROMs: no LUT4 bound
    ({"sbox": "lut"}, 0),           # a ROM too (iCE40 maps it to RAM4K)
    ({"sbox": "bp113"}, 20),        # a published circuit is logic too
])
def test_logic_sboxes_of_a_design(params, sboxes):
    assert logic_sbox_count(archs.family("iterative").build(**params)) == sboxes
    # Shared enc/dec S-boxes count by their inverter, whatever wraps the core.
    multimode = archs.family("multimode").build(sbox=params["sbox"], fifo_depth=2) \
        if params["sbox"] in ("lut", "composite", "tower") else None
    if multimode is not None:
        assert logic_sbox_count(multimode) == sboxes


@pytest.mark.parametrize("family", sorted(CIRCUITS))
def test_shared_circuit_sbox_is_one_logic_sbox(family):
    assert logic_sbox_count(SharedSBox(family)) == 1


def test_point_with_more_logic_sboxes_than_the_device_has_lut4_runs_no_tool(tmp_path,
                                                                             monkeypatch):
    # The iterative core's 20 composite S-boxes need at least 20 x 32 = 640 LUT4: a part with
    # 600 cannot hold it, whatever synthesis would do (the fully pipelined core's 200 S-boxes on
    # a real UP5K, 6,400 > 5,280, the same way).
    assert SBOX_LUT4_LOWER_BOUND == 32
    small = dataclasses.replace(families.DEVICES["iCE40UP5K"], luts=600)
    monkeypatch.setitem(families.DEVICES, "iCE40UP5K", small)
    point = make_point("iterative", {"sbox": "composite"},
                       target=Target("iCE40UP5K", "sg48", None), flow=FlowOptions(freq_mhz=50))
    row = run_point(point, "test", str(tmp_path), {}, key="k")
    assert row.status == "does-not-fit", row.reason
    assert row.reason.startswith("does not fit iCE40UP5K: 640 LUT4 > 600")
    assert row.synth_seconds is None
    assert not list((tmp_path / "runs" / "k").glob("*.log"))


@pytest.mark.flow
@pytest.mark.parametrize("target", [Target("LCMXO2-1200HC", "SG32", 6),
                                    Target("GW1NR-LV9", "QN88P", 6),
                                    Target("CCGM1A1", "FBGA324", None)],
                         ids=lambda t: t.device)
def test_point_too_big_after_synthesis_runs_no_place_and_route(tmp_path, monkeypatch, target):
    # A part with room for 40 LUT4 only: the flip-flops and the lower bound of one logic S-box
    # (32 LUT4) fit, so Yosys runs; the synthesized LUT4 (carry cells counted as two; GateMate
    # LUT-trees) do not, so nextpnr does not run.
    tiny = dataclasses.replace(families.DEVICES[target.device], luts=40)
    monkeypatch.setitem(families.DEVICES, target.device, tiny)
    point = make_point("sbox", {"sbox": "composite"}, target=target,
                       flow=FlowOptions(freq_mhz=50))
    row = run_point(point, "test", str(tmp_path), {}, key="k")
    assert row.status == "does-not-fit", row.reason
    assert row.reason.startswith(f"does not fit {target.device}: ")
    assert row.reason.endswith(" LUT4 > 40 (after synthesis; nextpnr was not run)")
    assert row.synth_seconds is not None and row.pnr_seconds is None
    assert not (tmp_path / "runs" / "k" / "nextpnr.log").exists()
