"""The command line is built without the architectures, the tools or the renderers: each
command imports what it calls when it runs (issue 46, "a quick CLI"). bench/cli_startup.py
measures the time; this test holds the property that makes it short."""

import json
import subprocess
import sys

from click.testing import CliRunner

from aesdse.cli import main

#: What building the command line must not import: the hardware and its HDL, the engine and the
#: stages, the report kinds and their renderers, the plotting and statistics libraries.
HEAVY = ("archs", "amaranth", "aesdse.engine", "aesdse.experiment", "aesdse.generate",
         "aesdse.verify", "aesdse.report.table", "aesdse.report.metrics",
         "aesdse.report.formats", "aesdse.report.front", "aesdse.report.plot", "matplotlib",
         "scipy", "numpy")


def _imported_by(code: str) -> list:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                          "print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def _heavy(modules) -> list:
    return [m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_building_the_command_line_imports_nothing_heavy():
    modules = _imported_by("from aesdse.cli import main")
    assert "aesdse.cli.sweep" in modules and "aesdse.cli.db" in modules
    assert _heavy(modules) == []


def test_the_top_level_help_imports_nothing_heavy():
    code = ("from aesdse.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass")
    assert _heavy(_imported_by(code)) == []


def test_generate_still_lists_the_families_it_takes():
    import archs
    result = CliRunner().invoke(main, ["generate", "--help"])
    assert result.exit_code == 0
    for name in archs.FAMILIES:
        assert name in result.output
    bad = CliRunner().invoke(main, ["generate", "no_such_family"])
    assert bad.exit_code == 2 and "'no_such_family' is not one of" in bad.output
    assert "'iterative'" in bad.output


def test_a_re_run_that_finds_every_point_stored_starts_no_executor(tmp_path):
    # The cached re-run (bench/cli_startup.py's second command) plans, finds each row and
    # prints the summary: no pool, no worker, no stage runner is imported for it.
    code = f"""
from aesdse.experiment import load_experiment
from aesdse.engine.sweep import sweep
from aesdse.flow.tools import tool_versions
from aesdse.store.database import Row, Store
experiment = load_experiment("experiments/quickstart.yaml")
with Store({str(tmp_path / "db.sqlite")!r}) as store:
    for point in experiment.points:
        store.put(Row(key=point.key(tool_versions()), experiment="quickstart", arch=point.arch,
                      params=dict(point.params), target="LFE5U-85F-8CABGA381", flow={{}},
                      seed=1, freq_mhz=100.0, status="ok"))
    summary = sweep(experiment, store, {str(tmp_path / "results")!r}, echo=None)
assert summary.cached == summary.total == len(experiment.points) > 0, summary
"""
    modules = _imported_by(code)
    assert "aesdse.engine.sweep" in modules
    assert [m for m in modules if m in ("aesdse.engine.executors", "aesdse.engine.point",
                                        "concurrent.futures.process")] == []
