"""The command line, end to end with the real Yosys and nextpnr (the walking skeleton)."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse.cli import main

ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The README's quickstart, run once in a fresh directory (an absolute /tmp path, which the
    YoWASP sandbox cannot see unless every tool runs with relative paths)."""
    cwd = tmp_path_factory.mktemp("quickstart")
    shutil.copytree(ROOT / "experiments", cwd / "experiments")
    runner = CliRunner()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(cwd)
        result = runner.invoke(main, ["sweep", "experiments/quickstart.yaml", "--jobs", "1"])
        yield runner, cwd, result


@pytest.mark.flow
def test_quickstart_sweep_gives_a_verified_measured_row(swept):
    runner, cwd, result = swept
    assert result.exit_code == 0, result.output
    assert "1 run, 0 cached, 0 failed" in result.output
    report = runner.invoke(main, ["report", "experiments/quickstart.yaml", "--format", "json"])
    assert report.exit_code == 0, report.output
    rows = json.loads(report.stdout)
    assert len(rows) == 1
    row = rows[0]
    for key in ("arch", "params", "target", "status", "luts", "ffs", "brams", "slices",
                "fmax_mhz", "latency_cycles", "cycles_per_block", "throughput_mbps",
                "mbps_per_lut", "mbps_per_slice", "seed"):
        assert key in row
    assert row["status"] == "ok" and row["arch"] == "iterative"
    assert row["luts"] > 1000 and row["ffs"] > 256 and row["fmax_mhz"] > 0
    assert row["cycles_per_block"] == 10  # measured in simulation
    assert row["throughput_mbps"] == pytest.approx(128 * row["fmax_mhz"] / 10)
    assert row["mbps_per_slice"] == pytest.approx(row["throughput_mbps"] / row["slices"])
    # Artifacts a user can open.
    run = Path(row["artifacts"])
    for name in ("design.il", "manifest.json", "yosys.log", "nextpnr.log", "report.json",
                 "iterative_sbox_lut_sbox_stages_0.v"):
        assert (run / name).exists(), name
    assert not list((cwd / "results" / "runs").glob(".tmp-*"))


@pytest.mark.flow
def test_second_sweep_skips_finished_points(swept):
    runner, cwd, _ = swept
    logs = sorted((cwd / "results").rglob("*.log"))
    before = {p: p.stat().st_mtime_ns for p in logs}
    again = runner.invoke(main, ["sweep", "experiments/quickstart.yaml", "--json"])
    assert again.exit_code == 0, again.output
    summary = json.loads(again.stdout)
    assert summary["ran"] == 0 and summary["cached"] == 1 and summary["failed"] == []
    # Nothing ran again: no tool wrote a log, none was added.
    assert sorted((cwd / "results").rglob("*.log")) == logs
    assert {p: p.stat().st_mtime_ns for p in logs} == before


@pytest.mark.flow
def test_markdown_report(swept):
    runner, _, _ = swept
    report = runner.invoke(main, ["report", "experiments/quickstart.yaml"])
    assert report.exit_code == 0
    lines = report.stdout.splitlines()
    assert lines[0] == "## quickstart"
    assert lines[2].startswith("| Target | LUT4 | FF | BRAM | Slices | Fmax (MHz) |")
    assert lines[4].startswith("| LFE5U-85F-8CABGA381 | ")


def test_yaml_error_exits_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\narchitectures:\n  - arch: iterative\n    params: {sbox: lutt}\n")
    result = CliRunner().invoke(main, ["sweep", str(bad)])
    assert result.exit_code == 1
    assert f"Error: {bad}:4: sbox: 'lutt' is not one of: " in result.output


@pytest.mark.flow
def test_generate_writes_deterministic_verilog_and_manifest(tmp_path):
    runner = CliRunner()
    outputs = []
    for n in range(2):
        out = tmp_path / f"out{n}"
        result = runner.invoke(main, ["generate", "iterative", "--param", "sbox=lut",
                                      "-o", str(out)])
        assert result.exit_code == 0, result.output
        outputs.append(out)
    verilog = (outputs[0] / "iterative_sbox_lut_sbox_stages_0.v").read_text()
    assert "module iterative_sbox_lut_sbox_stages_0(" in verilog
    assert verilog == (outputs[1] / "iterative_sbox_lut_sbox_stages_0.v").read_text()
    manifest = json.loads((outputs[0] / "iterative_sbox_lut_sbox_stages_0.json").read_text())
    assert manifest["arch"] == "iterative"
    assert manifest["params"] == {"sbox": "lut", "sbox_stages": 0}
    assert manifest["key_sizes"] == [128] and manifest["directions"] == ["encrypt"]
    ports = {p["name"]: p for p in manifest["ports"]}
    assert ports["i__payload"] == {"name": "i__payload", "direction": "input", "width": 128,
                                   "fields": [{"name": "data", "offset": 0, "width": 128}]}
    assert ports["o__ready"] == {"name": "o__ready", "direction": "input", "width": 1}
    assert ports["clk"] == {"name": "clk", "direction": "input", "width": 1}
    assert manifest["byte_order"].startswith("big-endian")


def test_generate_rejects_bad_parameter(tmp_path):
    result = CliRunner().invoke(main, ["generate", "iterative", "--param", "sbox=nope",
                                       "-o", str(tmp_path)])
    assert result.exit_code == 1
    assert "Error: sbox: 'nope' is not one of: " in result.output


def test_list_archs():
    result = CliRunner().invoke(main, ["list", "archs"])
    assert result.exit_code == 0
    assert "iterative: AES-128 encryption" in result.output
    # parameters by group where the family groups them, each with its allowed values
    assert "  sboxes:\n    sbox                   {lut" in result.output
    data = json.loads(CliRunner().invoke(main, ["list", "archs", "--json"]).output)
    assert "lut" in data["iterative"]["params"]["sbox"]["choices"]


@pytest.mark.parametrize("command", [[], ["sweep"], ["explore"], ["report"], ["generate"], ["list"],
                                     ["list", "archs"]])
def test_every_command_has_help_with_an_example(command):
    result = CliRunner().invoke(main, command + ["--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output
    if command and command != ["list"]:
        assert "Example:" in result.output


@pytest.mark.parametrize("command", ["sweep", "explore"])
def test_the_commands_that_run_points_share_the_executor_options(command):
    from aesdse.cli.common import EXECUTOR_CHOICES
    from aesdse.engine.executors import EXECUTORS
    assert EXECUTOR_CHOICES == EXECUTORS
    options = {p.name: p for p in main.commands[command].params}
    assert list(options["executor"].type.choices) == list(EXECUTORS)
    assert (options["jobs"].opts, options["results_dir"].default) == (["-j", "--jobs"],
                                                                     Path("results"))
    assert options["scheduler"].metavar == "ADDRESS"


_GRID = """\
name: dry
architectures:
  - arch: iterative
    params: {sbox: [lut, composite]}
flow: {seeds: 2}
"""


def test_sweep_dry_run_lists_points_and_what_is_stored(tmp_path):
    from aesdse.experiment import load_experiment
    from aesdse.flow.tools import tool_versions
    from aesdse.store.database import Row, Store
    experiment = tmp_path / "dry.yaml"
    experiment.write_text(_GRID)
    db = tmp_path / "results.sqlite"
    result = CliRunner().invoke(main, ["sweep", str(experiment), "--dry-run", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert result.output.count("\nrun ") + result.output.startswith("run ") == 4
    assert f"dry: 4 design points, 0 stored in {db}, 4 to run" in result.output
    assert not db.exists()  # nothing written, not even an empty database
    # One point stored under its current key, one only under its configuration (older code).
    points = load_experiment(experiment).points
    with Store(db) as store:
        for point, key in ((points[0], points[0].key(tool_versions())), (points[1], "old")):
            store.put(Row(key=key, experiment="dry", arch=point.arch, params=point.params_dict,
                          target=point.target.label, flow=point.flow.as_dict(),
                          seed=point.flow.seed, freq_mhz=point.flow.freq_mhz,
                          status="failed-flow", reason="test"))
    result = CliRunner().invoke(main, ["sweep", str(experiment), "--dry-run", "--db", str(db),
                                       "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert (summary["points"], summary["stored"], summary["to_run"]) == (4, 1, 3)
    assert [(p["stored"], p["older_stored"]) for p in summary["list"]] == [
        (True, False), (False, True), (False, False), (False, False)]


def test_sweep_dry_run_refuses_a_bad_experiment(tmp_path):
    experiment = tmp_path / "bad.yaml"
    experiment.write_text(_GRID.replace("seeds: 2", "seeds: 1000000000"))
    result = CliRunner().invoke(main, ["sweep", str(experiment), "--dry-run"])
    assert result.exit_code == 1
    assert f"{experiment}:5: seeds: 1000000000 must be at least 1 and at most 100" in result.output


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1e9", "soon"])
def test_timeouts_must_be_finite_and_bounded(tmp_path, value):
    experiment = tmp_path / "x.yaml"
    experiment.write_text(_GRID)
    result = CliRunner().invoke(main, ["sweep", str(experiment), "--dry-run",
                                       "--timeout-synth", value])
    assert result.exit_code == 2
    assert "Invalid value for '--timeout-synth'" in result.output


@pytest.mark.parametrize("param, message", [
    ("shared_memory=1", "shared_memory: 1 is not one of: false, true"),
    ("sbox_stages=1.0", "sbox_stages: 1.0 is not one of: 0, 1"),
    ("datapath_width=8.0", "datapath_width: 8.0 is not one of: 8, 32, 64"),
    ("datapath_width=[8]", "datapath_width: [8] is not one of"),
    ("sbox=lut\x07", "character #x0007 is not allowed"),
])
def test_generate_params_are_typed_as_in_experiment_files(tmp_path, param, message):
    result = CliRunner().invoke(main, ["generate", "compact", "--param", param,
                                       "-o", str(tmp_path)])
    assert result.exit_code in (1, 2)
    assert message in result.output, result.output
