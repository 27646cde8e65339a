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
from aesdse.spec.schema import FlowOptions, Target, VerifyOptions
from aesdse.engine.point import run_point

from conftest import marked_processes

pytestmark = pytest.mark.flow


def test_compact_8_bit_core_through_the_whole_point_pipeline(tmp_path):
    # Issue 4: one real flow run of the 8-bit core in the default test run. The verify stage
    # sends the standard vectors and 4 random ones and measures 4 blocks (amaranth.sim's
    # defaults, 32 and 12, took twice as long as synthesis; the core's own checks are
    # tests/test_archs_compact.py's).
    point = make_point("compact", {"datapath_width": 8, "sbox": "composite",
                                   "shared_memory": True},
                       flow=FlowOptions(freq_mhz=100, nowidelut=True),
                       verify=VerifyOptions(random_vectors=4, measure_blocks=4))
    row = run_point(point, "test", str(tmp_path), tool_versions())
    assert row.status == "ok", row.reason
    assert row.cycles_per_block == 176  # measured: 11 steps x 16 byte-cycles
    assert 200 < row.luts < 2000 and row.ffs > 128 and row.brams == 0
    assert row.fmax_mhz > 20
    assert row.throughput_mbps == pytest.approx(128 * row.fmax_mhz / 176)
    resources = json.loads((Path(row.artifacts) / "manifest.json").read_text())["resources"]
    assert resources["datapath_sbox_instances"] == 1
    # Issue 15: where the time goes, with cell types and fanouts from the real netlist.
    [path] = row.details["critical_paths"]
    assert path["clock"] == "clk"
    assert path["total_ns"] == pytest.approx(1000 / row.fmax_by_clock["clk"], rel=1e-4)
    # Registers and the state's distributed RAM (no block RAM in this core); nextpnr splits a
    # TRELLIS_DPR16X4 into cells named after it ("state0.0.1$DPRAM_COMB3"), typed by that name.
    assert {path["start_type"], path["end_type"]} <= {"TRELLIS_FF", "TRELLIS_DPR16X4"}
    assert path["logic_levels"] >= 1 and "?" not in path["logic_by_type"]
    assert sum(path["logic_by_type"].values()) == path["logic_levels"]
    assert path["highest_fanout_route"]["fanout"] >= path["longest_route"]["fanout"] >= 1
    assert json.loads((Path(row.artifacts) / "critical_paths.json").read_text()) == [path]


def test_reduced_round_unrolled_core_places_and_routes(tmp_path):
    # Issue 5: a full unrolled AES takes ~10 minutes of flow; this TEST CONFIGURATION (2 round
    # units, 2 rounds: not AES, never used in experiments) keeps the family's flow path tested.
    # Issue 15: with two copies of the S-box output registers (sbox_output_copies), both
    # copies survive synthesis as separate flip-flops (Yosys merges registers that have the
    # same input, clock and reset; the second copy has no reset so that it is not merged).
    from archs.unrolled import Unrolled
    core = Unrolled(round_units=2, rounds=2, sbox="composite", sbox_stages=6,
                    sbox_output_copies=2, device_family="ecp5")
    (tmp_path / "design.il").write_text(rtlil.convert(core, name="top", emit_src=False))
    synth = synthesize("design.il", "top", tmp_path, SynthOptions())
    assert synth.ok, synth.reason
    nets = json.loads((tmp_path / synth.netlist).read_text())["modules"]["top"]["netnames"]
    for n in range(16):  # round unit 0 has MixColumns (unit 1 is the last round)
        first, second = (set(nets[f"u0_sbox{n}_out{k}"]["bits"]) for k in (0, 1))
        assert len(first) == len(second) == 8 and not first & second
    pnr = place_and_route(synth.netlist, tmp_path, Target(), freq_mhz=150)
    assert pnr.ok, pnr.reason
    assert pnr.utilization["TRELLIS_COMB"] > 1000
    assert pnr.fmax_mhz["clk"] > 30


# --- other device families (issue 14) -----------------------------------------------------------

def _installed(tool: str) -> bool:
    from aesdse.flow.tools import ToolNotFound, find_tool
    try:
        find_tool(tool)
        return True
    except ToolNotFound:
        return False


@pytest.mark.skipif(not _installed("nextpnr-ice40"),
                    reason='nextpnr-ice40 is not installed: pip install "aesdse[ice40]"')
def test_abc_area_maps_a_logic_sbox_to_fewer_lut4_and_places(tmp_path):
    # Issue 15: the area-oriented ABC script (flow option abc_area) against synth_ecp5's ABC9,
    # on the smallest published circuit, then place and route of the area netlist.
    from archs.sbox_standalone import StandaloneSBox
    (tmp_path / "design.il").write_text(
        rtlil.convert(StandaloneSBox(sbox="rm_combined"), name="top", emit_src=False))
    luts = {}
    for area in (False, True):
        synth = synthesize("design.il", "top", tmp_path,
                           SynthOptions(nowidelut=True, abc_area=area))
        assert synth.ok, synth.reason
        luts[area] = synth.cells["LUT4"]
        assert synth.cells["TRELLIS_FF"] == 16
    assert luts[True] <= 55 < luts[False]
    pnr = place_and_route(synth.netlist, tmp_path, Target(), freq_mhz=100)
    assert pnr.ok, pnr.reason
    assert luts[True] <= pnr.utilization["TRELLIS_COMB"] <= 55  # nextpnr may add a constant


def test_sbox_on_ice40_inside_the_measurement_harness(tmp_path):
    # The core goes through the harness (iCE40 has no out-of-context mode); the harness alone is
    # routed too and subtracted; the family's own names are kept with the row.
    point = make_point("sbox", {"sbox": "composite"},
                       target=Target("iCE40UP5K", "sg48", None), flow=FlowOptions(freq_mhz=50))
    row = run_point(point, "test", str(tmp_path), tool_versions())
    assert row.status == "ok", row.reason
    assert row.target == "iCE40UP5K-sg48"
    resources = row.details["resources"]
    assert resources["family"] == "ice40"
    whole, harness = resources["pnr"]["ICESTORM_LC"], resources["harness"]["pnr"]["ICESTORM_LC"]
    assert row.slices == whole - harness > 0  # logic cells of the core alone
    assert resources["harness"]["common"]["ffs"] >= 16  # the 8-bit chain and the 8-bit fold
    assert row.luts == resources["synth"]["SB_LUT4"] - resources["harness"]["synth"].get(
        "SB_LUT4", 0)
    assert 20 < row.luts < 400 and row.brams == 0
    assert row.fmax_mhz > 20
    manifest = json.loads((Path(row.artifacts) / "manifest.json").read_text())
    assert manifest["harness"]["pins"] == 2 + 8 and manifest["ports"][0]["name"] == "i"


@pytest.mark.skipif(not _installed("nextpnr-machxo2"),
                    reason='nextpnr-machxo2 is not installed: pip install "aesdse[machxo2]"')
def test_sbox_on_machxo2_inside_the_measurement_harness(tmp_path):
    # nextpnr-machxo2 has no out-of-context mode either: harness, harness alone subtracted; the
    # nextpnr device name carries speed grade and package (LCMXO2-1200HC-4TG144C).
    point = make_point("sbox", {"sbox": "composite"},
                       target=Target("LCMXO2-1200HC", "TG144", 4), flow=FlowOptions(freq_mhz=50))
    row = run_point(point, "test", str(tmp_path), tool_versions())
    assert row.status == "ok", row.reason
    assert row.target == "LCMXO2-1200HC-4TG144"
    resources = row.details["resources"]
    assert resources["family"] == "machxo2"
    whole, harness = resources["pnr"]["TRELLIS_COMB"], resources["harness"]["pnr"]["TRELLIS_COMB"]
    assert row.luts == whole - harness and 20 < row.luts < 400
    assert row.ffs == resources["pnr"]["TRELLIS_FF"] - resources["harness"]["pnr"]["TRELLIS_FF"]
    assert row.ffs >= 8 and row.slices == max(-(-row.luts // 2), -(-row.ffs // 2))
    assert resources["pnr"]["TRELLIS_IO"] == 12  # sin, shift, 8 fold pins, clk, rst
    assert row.brams == 0 and row.fmax_mhz > 20


@pytest.mark.skipif(not _installed("nextpnr-nexus"),
                    reason='nextpnr-nexus is not installed: pip install "aesdse[nexus]"')
def test_sbox_on_nexus_with_every_pin_constrained(tmp_path):
    # nextpnr-nexus refuses unconstrained I/O: the PDC file places every harness port (clk on
    # a primary clock pin); harness alone subtracted as on iCE40.
    point = make_point("sbox", {"sbox": "composite"}, target=Target("LIFCL-40", "BG400", 9),
                       flow=FlowOptions(freq_mhz=50, nowidelut=True))
    row = run_point(point, "test", str(tmp_path), tool_versions())
    assert row.status == "ok", row.reason
    assert row.target == "LIFCL-40-9BG400"
    resources = row.details["resources"]
    assert resources["family"] == "nexus"
    assert row.luts == resources["pnr"]["OXIDE_COMB"] - resources["harness"]["pnr"]["OXIDE_COMB"]
    assert 20 < row.luts < 400 and row.ffs >= 8 and row.brams == 0
    assert resources["pnr"]["SEIO33_CORE"] == 12  # sin, shift, 8 fold pins, clk, rst
    pdc = (Path(row.artifacts) / "constraints.pdc").read_text().splitlines()
    assert pdc[0] == "ldc_set_location -site {J2} [get_ports {clk}]" and len(pdc) == 12
    assert row.fmax_mhz > 20


@pytest.mark.skipif(not _installed("nextpnr-himbaechel-gowin"),
                    reason='nextpnr-himbaechel-gowin is not installed: '
                           'pip install "aesdse[gowin]"')
def test_sbox_on_gowin_with_every_pin_constrained(tmp_path):
    # nextpnr-himbaechel-gowin refuses unconstrained I/O: a CST file places every harness port
    # (clk on the Tang Nano 9K's clock pin 52); harness alone subtracted; synth_gowin -nowidelut.
    point = make_point("sbox", {"sbox": "composite"}, target=Target("GW1NR-LV9", "QN88P", 6),
                       flow=FlowOptions(freq_mhz=50))
    row = run_point(point, "test", str(tmp_path), tool_versions())
    assert row.status == "ok", row.reason
    assert row.target == "GW1NR-LV9-6QN88P"
    resources = row.details["resources"]
    assert resources["family"] == "gowin"
    pnr, harness = resources["pnr"], resources["harness"]["pnr"]
    assert row.luts == pnr["LUT4"] + pnr["ALU"] - harness["LUT4"] - harness["ALU"]
    assert 20 < row.luts < 400 and row.ffs == pnr["DFF"] - harness["DFF"] >= 8
    assert not any(cell.startswith("MUX2_LUT") for cell in resources["synth"])  # -nowidelut
    assert row.slices == max(-(-row.luts // 2), -(-row.ffs // 2)) and row.brams == 0
    assert pnr["IOB"] == 12  # sin, shift, 8 fold pins, clk, rst
    cst = (Path(row.artifacts) / "constraints.cst").read_text().splitlines()
    assert cst[0] == 'IO_LOC "clk" 52;' and len(cst) == 12
    assert row.fmax_mhz > 20


@pytest.mark.skipif(not _installed("nextpnr-himbaechel-gatemate"),
                    reason='nextpnr-himbaechel-gatemate is not installed: '
                           'pip install "aesdse[gatemate]"')
def test_sbox_on_gatemate_inside_the_measurement_harness(tmp_path):
    # GateMate: harness, pins left to nextpnr, harness alone subtracted; LUT-tree halves and
    # flip-flops from nextpnr (CPE_LT, CPE_FF), the family's own names kept.
    point = make_point("sbox", {"sbox": "composite"}, target=Target("CCGM1A1", "FBGA324", None),
                       flow=FlowOptions(freq_mhz=50))
    row = run_point(point, "test", str(tmp_path), tool_versions())
    assert row.status == "ok", row.reason
    assert row.target == "CCGM1A1-FBGA324"
    resources = row.details["resources"]
    assert resources["family"] == "gatemate"
    pnr, harness = resources["pnr"], resources["harness"]["pnr"]
    assert row.luts == pnr["CPE_LT"] - harness["CPE_LT"] and 20 < row.luts < 400
    assert row.ffs == pnr["CPE_FF"] - harness["CPE_FF"] >= 8
    assert "CC_LUT4" not in resources["synth"] and resources["synth"]["CC_L2T4"] > 0  # -luttree
    assert row.slices == max(-(-row.luts // 2), -(-row.ffs // 2)) and row.brams == 0
    assert pnr["GPIO"] == 12
    assert row.fmax_mhz > 20


def test_sbox_asic_estimate_through_a_sweep_and_a_report(tmp_path, monkeypatch):
    # The asic target: verified, synthesized to the GE library, no place and route; the sweep's
    # progress line and the report show it without a clock in MHz.
    from click.testing import CliRunner

    from aesdse.cli import main
    (tmp_path / "asic.yaml").write_text(
        "name: asic\narchitectures:\n  - arch: sbox\n    params: {sbox: composite}\n"
        "targets:\n  - {device: asic}\nverify: {random_vectors: 4}\n")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["sweep", "asic.yaml", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "GE (estimate), 16 FF, depth" in result.output
    report = runner.invoke(main, ["report", "asic.yaml", "--format", "json"])
    assert report.exit_code == 0, report.output
    [row] = json.loads(report.stdout)
    assert row["status"] == "ok" and row["target"] == "asic"
    assert row["fmax_mhz"] is None and row["throughput_mbps"] is None and row["ffs"] == 16
    assert not (Path(row["artifacts"]) / "nextpnr.log").exists()
    from aesdse.store.database import Store
    with Store(tmp_path / "results" / "aesdse.sqlite", readonly=True) as store:
        [stored] = store.rows()
    asic = stored.details["asic"]
    assert 200 < asic["area_ge"] < 700 and asic["sequential_ge"] == pytest.approx(16 * 4.67)
    assert "without place and route" in asic["note"]


# --- the sweep engine against the real tools (issue 13) ----------------------------------------

SMALL_SBOX_EXPERIMENT = """\
name: small-sbox
architectures:
  - arch: sbox
    params: {sbox: [lut, composite, tower], sbox_stages: 0, direction: encrypt}
targets:
  - {device: LFE5U-25F, package: CABGA256, speed: 6}
flow: {freq_mhz: 100, nowidelut: true}
verify: {random_vectors: 4}
"""


def test_real_tools_killed_sweep_leaves_nothing_running_and_resumes(tmp_path):
    # Issue 13 with the real YoWASP Yosys and nextpnr: `kill -9` of a --jobs 1 sweep while a tool
    # runs leaves no tool process; the next sweep finishes the rest without redoing the stored
    # points; a corrupted stage-cache entry is detected, not used, and replaced.
    import os
    import signal
    import subprocess
    import sys
    import time
    import uuid

    from aesdse.experiment import load_experiment
    from aesdse.store.database import Store, StoreError
    from aesdse.engine.sweep import sweep

    exp_path = tmp_path / "small.yaml"
    exp_path.write_text(SMALL_SBOX_EXPERIMENT)
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    marker = f"AESDSE_TEST_MARKER_{uuid.uuid4().hex}"
    env = dict(os.environ, AESDSE_TEST_MARKER=marker)
    with open(tmp_path / "killed.log", "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "aesdse", "sweep", str(exp_path),
                                 "--db", str(db), "--results-dir", str(results), "--jobs", "1",
                                 "--quiet"], env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            # Wait for a point to be stored and the next point's tool to be running, so the kill
            # lands mid-sweep with a real tool as the sweep's child.
            deadline = time.monotonic() + 600
            while time.monotonic() < deadline:
                assert proc.poll() is None, (tmp_path / "killed.log").read_text()
                stored = 0
                try:
                    with Store(db, readonly=True) as store:
                        stored = len(store.rows())
                except StoreError:  # not created yet, or the sweep is creating its tables
                    pass
                tools_running = [p for p in marked_processes(marker)
                                 if p[0] != proc.pid and "yowasp" in p[1]]
                if stored >= 1 and tools_running:
                    break
                time.sleep(0.05)
            else:
                pytest.fail("no tool ran after the first stored point")
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            proc.kill()
    left = marked_processes(marker)
    for _ in range(100):
        if not left:
            break
        time.sleep(0.1)
        left = marked_processes(marker)
    assert left == [], f"tools outlived the killed sweep: {left}"

    exp = load_experiment(exp_path)
    with Store(db) as store:
        before = {r.key for r in store.rows()}
        assert 1 <= len(before) < 3
        resumed = sweep(exp, store, results, jobs=1, echo=None)
        assert resumed.done == 3 - len(before) and resumed.failed == []
        rows = store.rows()
        assert len(rows) == 3 and before < {r.key for r in rows}
        assert all(r.status == "ok" and r.luts > 0 and r.fmax_mhz > 0 for r in rows)

        # Corrupt the routed result of one point in the stage cache: forced again, that point's
        # place and route runs again instead of using the entry, and the entry is replaced.
        pnr_entries = sorted((results / "cache" / "pnr").iterdir())
        assert len(pnr_entries) == 3
        report = next(p for p in pnr_entries[0].iterdir() if p.name.endswith(".json")
                      and p.name != "meta.json")
        report.chmod(0o644)
        report.write_bytes(b'{"fmax": {"clk": 999.0}}')
        forced = sweep(exp, store, results, jobs=1, force=True, echo=None)
    assert forced.done == 3 and forced.stage_hits["pnr"] == 2
    assert any("corrupted stage cache entries were not used and were replaced" in w
               for w in forced.warnings)
    assert b"999.0" not in report.read_bytes()
    assert json.loads(report.read_text())  # a real report again
