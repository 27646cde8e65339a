# amaranth: UnusedElaboratable=no
"""A transient crash is not a final verdict (issue 45): a tool that dies of a signal aesdse did
not send runs once more, twice is stored as transient and the next sweep runs the point again
(the netlist stage too); ``aesdse sweep --retry-failed``; ``aesdse db delete``.

The sweeps use the fake tools of tests/test_sweep.py; the fake Yosys dies of a signal on
request (``FAKE_YOSYS_SIGNAL``).
"""

import json
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.engine.netlist_check import VERIFICATION_KEY
from aesdse.engine.sweep import sweep
from aesdse.flow import tools
from aesdse.flow.tools import TRANSIENT, Tool, kill_tool_processes, run_tool
from aesdse.store.database import Store

from conftest import fixture_rows
from test_sweep import _yaml, experiment, fake_tools  # noqa: F401  (fake_tools: a fixture)


def _rows(db: Path) -> list:
    with Store(db) as store:
        return store.rows()


# --- a tool that dies of a signal -----------------------------------------------------------


def test_a_tool_that_dies_of_a_signal_once_runs_again_and_the_point_passes(tmp_path, fake_tools,
                                                                          monkeypatch):
    monkeypatch.setenv("FAKE_YOSYS_SIGNAL", "synth:SIGBUS:1")
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(experiment(), store, tmp_path / "results", echo=None)
        row, = store.rows()
    assert summary.ok and row.status == "ok"
    assert len(fake_tools("yosys")) == 2   # the crashed run and its retry, in a fresh process
    log = (Path(row.artifacts) / "yosys.log").read_text()
    assert "dying of SIGBUS" in log and "died of SIGBUS; running it once more" in log


def test_a_tool_that_dies_twice_is_stored_transient_and_the_next_sweep_runs_it(
        tmp_path, fake_tools, monkeypatch):
    monkeypatch.setenv("FAKE_YOSYS_SIGNAL", "synth:SIGBUS:2")
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    with Store(db) as store:
        sweep(experiment(), store, results, echo=None)
    row, = _rows(db)
    assert row.status == "failed-flow"
    assert row.reason.startswith(f"yosys: yosys died of SIGBUS twice; {TRANSIENT}\n")
    assert len(fake_tools("yosys")) == 2
    # The tool no longer dies (the fake dies only twice): the stored failure is not kept.
    with Store(db) as store:
        summary = sweep(experiment(), store, results, echo=None)
    row, = _rows(db)
    assert (summary.done, summary.cached, row.status) == (1, 0, "ok")
    assert len(fake_tools("yosys")) == 3
    with Store(db) as store:
        assert sweep(experiment(), store, results, echo=None).done == 0   # ok now: stays


def test_a_tool_error_exit_is_not_retried(tmp_path, fake_tools, monkeypatch):
    monkeypatch.setenv("FAKE_YOSYS_CRASH", "synth_ecp5")   # exit 3: the tool's own verdict
    with Store(tmp_path / "db.sqlite") as store:
        sweep(experiment(), store, tmp_path / "results", echo=None)
        row, = store.rows()
        assert sweep(experiment(), store, tmp_path / "results", echo=None).done == 0
    assert row.reason.startswith("yosys: yosys exited with 3") and TRANSIENT not in row.reason
    assert len(fake_tools("yosys")) == 1


def test_aesdse_own_kill_is_not_retried(tmp_path):
    runs = tmp_path / "runs.log"
    script = tmp_path / "sleeper"
    script.write_text(f"#!/bin/sh\necho run >> {runs}\nexec sleep 60\n")
    script.chmod(0o755)
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault(
        "run", run_tool(Tool("yosys", (str(script),), "test"), [], tmp_path, "t.log", 60)))
    worker.start()
    deadline = time.monotonic() + 30
    while not runs.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert kill_tool_processes() == 1
    worker.join(30)
    run = out["run"]
    assert run.returncode == -9 and run.crashes == () and run.died_of is None
    assert runs.read_text() == "run\n" and tools._KILLED == set()


# --- the netlist stage -----------------------------------------------------------------------


def test_a_netlist_check_stopped_by_a_tool_crash_is_done_by_the_next_sweep(tmp_path, fake_tools,
                                                                          monkeypatch):
    monkeypatch.setenv("FAKE_YOSYS_SIGNAL", "netlist:SIGSEGV:2")
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    with Store(db) as store:
        sweep(experiment(), store, results, echo=None, netlist_verify=True)
    row, = _rows(db)
    checked = row.details[VERIFICATION_KEY]["netlist_verified"]
    assert row.status == "ok" and checked.startswith(
        f"not checked: yosys died of SIGSEGV twice; {TRANSIENT} (reading the netlist")
    # Not kept in the stage cache either: the next sweep runs the point and checks again (the
    # fake Yosys then writes no model: the fake tools' usual "not checked").
    with Store(db) as store:
        summary = sweep(experiment(), store, results, echo=None, netlist_verify=True)
    row, = _rows(db)
    assert summary.done == 1 and summary.stage_hits["synth"] == 1
    assert row.details[VERIFICATION_KEY]["netlist_verified"].startswith(
        "not checked: yosys did not turn the netlist into a model")
    with Store(db) as store:
        assert sweep(experiment(), store, results, echo=None, netlist_verify=True).done == 0


# --- aesdse sweep --retry-failed -------------------------------------------------------------


def test_retry_failed_runs_the_failed_points_again_and_leaves_ok_rows(tmp_path, fake_tools,
                                                                     monkeypatch):
    monkeypatch.setenv("FAKE_YOSYS_CRASH", "-nowidelut")
    exp = _yaml(tmp_path / "exp.yaml", freqs=(50, 60), nowidelut=[False, True])
    args = ["sweep", str(exp), "--db", str(tmp_path / "db.sqlite"), "--results-dir",
            str(tmp_path / "results"), "-j", "1", "--json"]
    first = json.loads(CliRunner().invoke(main, args).output)
    assert first["ran"] == 4 and len(first["failed"]) == 2
    ok_rows = {r.key: r.created_at for r in _rows(tmp_path / "db.sqlite") if r.status == "ok"}
    monkeypatch.delenv("FAKE_YOSYS_CRASH")
    again = json.loads(CliRunner().invoke(main, args).output)
    assert (again["ran"], again["cached"]) == (0, 4)   # a plain resume keeps the failures
    retried = CliRunner().invoke(main, args + ["--retry-failed"])
    assert retried.exit_code == 0, retried.output
    doc = json.loads(retried.output)
    assert (doc["ran"], doc["cached"], doc["failed"]) == (2, 2, [])
    rows = _rows(tmp_path / "db.sqlite")
    assert {r.status for r in rows} == {"ok"} and len(rows) == 4
    assert {r.key: r.created_at for r in rows if r.key in ok_rows} == ok_rows   # untouched


# --- aesdse db delete ------------------------------------------------------------------------


def _delete(fixture_db, *args):
    return CliRunner().invoke(main, ["db", "delete", "--db", str(fixture_db), *args])


def test_db_delete_refuses_to_delete_everything_without_a_condition(fixture_db):
    result = _delete(fixture_db)
    assert result.exit_code == 1
    assert result.output == ("Error: db delete needs --where CONDITION or an EXPERIMENT to "
                             "choose the rows, or --all to delete every row\n")
    assert len(_rows(fixture_db)) == len(fixture_rows())
    everything = _delete(fixture_db, "--all", "--json")
    assert json.loads(everything.output)["removed"] == len(fixture_rows())
    assert _rows(fixture_db) == []


def test_db_delete_where_dry_run_counts_then_deletes(fixture_db):
    where = ["--where", "arch = 'compact' AND datapath_width = 8"]
    dry = _delete(fixture_db, *where, "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert dry.output.splitlines()[-1] == "3 rows would be deleted"
    assert sum(line.startswith("would delete k-c8-") for line in dry.output.splitlines()) == 3
    assert len(_rows(fixture_db)) == len(fixture_rows())   # a dry run deletes nothing
    done = json.loads(_delete(fixture_db, *where, "--json").output)
    assert done == {"dry_run": False, "count": 3, "rows": ["k-c8-1", "k-c8-2", "k-c8-3"],
                    "removed": 3}
    assert {r.key for r in _rows(fixture_db)} == {r.key for r in fixture_rows()} - set(done["rows"])
    assert _delete(fixture_db, *where).output == "0 rows deleted\n"


def test_db_delete_of_an_experiment_and_a_condition_keeps_artifacts(tmp_path, fake_tools):
    exp = _yaml(tmp_path / "exp.yaml", freqs=(50, 60))
    db = tmp_path / "db.sqlite"
    CliRunner().invoke(main, ["sweep", str(exp), "--db", str(db), "--results-dir",
                              str(tmp_path / "results"), "-j", "1", "-q"])
    other = _yaml(tmp_path / "other.yaml", name="other", freqs=(70,))
    CliRunner().invoke(main, ["sweep", str(other), "--db", str(db), "--results-dir",
                              str(tmp_path / "results"), "-j", "1", "-q"])
    assert len(_rows(db)) == 3
    result = _delete(db, str(exp), "--where", "freq_mhz = 60")
    assert result.output.splitlines()[-1] == "1 rows deleted"
    left = _rows(db)
    assert sorted(r.freq_mhz for r in left) == [50, 70]
    gone, = (p for p in (tmp_path / "results" / "runs").iterdir()
             if p.name not in {r.key for r in left})
    assert (gone / "yosys.log").exists()   # rows only: the artifacts stay
    assert _delete(db, str(exp)).output.splitlines()[-1] == "1 rows deleted"
    assert [r.freq_mhz for r in _rows(db)] == [70]


def test_db_delete_refuses_a_condition_that_writes(fixture_db):
    result = _delete(fixture_db, "--where", "1); DELETE FROM points; --")
    assert result.exit_code == 1 and result.output.startswith("Error: ")
    assert len(result.output.splitlines()) == 1
    assert len(_rows(fixture_db)) == len(fixture_rows())
