# amaranth: UnusedElaboratable=no
"""The sweep engine: parallel and Dask execution, stage cache and its integrity, faults, kill
and resume, claims of concurrent sweeps, results that survive code edits.

Yosys and nextpnr are replaced by the fake tools in ``tests/fake_tools`` (selected through the
``YOSYS`` and ``NEXTPNR_ECP5`` environment variables, as a user would select another build):
they write plausible outputs at once, log each run to ``FAKE_TOOL_LOG`` (so tests count tool
runs, never seconds) and crash or hang on request. ``tests/test_flow.py`` runs the same paths
once with the real tools.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import asdict, replace
from io import StringIO
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse import fingerprint
from aesdse.fingerprint import current_checkout
from aesdse.engine import executors, point as point_mod
from aesdse.cli import main
from aesdse.experiment import parse_experiment
from aesdse.flow import tools
from aesdse.flow.tools import tool_versions
from aesdse.engine.progress import Progress
from aesdse.report.select import select_rows
from aesdse.store.database import MIGRATIONS, Row, Store
from aesdse.engine.sweep import clean_stale, sweep

from conftest import marked_processes
from database_checks import integrity_check

FAKE = Path(__file__).parent / "fake_tools"

# The iterative core with LUT S-boxes: elaborated and simulated in well under a second.
TINY = """
name: {name}
architectures:
  - arch: iterative
    params: {{sbox: lut}}
flow:
  freq_mhz: {freqs}
  seeds: {seeds}
  nowidelut: {nowidelut}
verify:
  random_vectors: 0
"""


def experiment(name="tiny", freqs=(50,), seeds=1, nowidelut=False):
    return parse_experiment(TINY.format(name=name, freqs=list(freqs), seeds=seeds,
                                        nowidelut=json.dumps(nowidelut)))


@pytest.fixture
def fake_tools(tmp_path, monkeypatch):
    """Fake Yosys and nextpnr; returns a function giving the tool runs logged so far."""
    log = tmp_path / "tools.log"
    monkeypatch.setenv("YOSYS", str(FAKE / "fake_yosys"))
    monkeypatch.setenv("NEXTPNR_ECP5", str(FAKE / "fake_nextpnr"))
    monkeypatch.setenv("FAKE_TOOL_LOG", str(log))
    for name in ("FAKE_YOSYS_CRASH", "FAKE_YOSYS_HANG", "FAKE_NEXTPNR_CRASH",
                 "FAKE_NEXTPNR_HANG", "FAKE_TOOL_SLEEP", "FAKE_YOSYS_BLOCK_RAMS",
                 "FAKE_YOSYS_SIGNAL"):
        monkeypatch.delenv(name, raising=False)

    def runs(tool=None):
        lines = log.read_text().splitlines() if log.exists() else []
        return [line for line in lines if tool is None or line.startswith(tool)]
    return runs


def _comparable(row: Row) -> dict:
    """A row without what depends on where and when it ran."""
    d = asdict(row)
    for name in ("host", "created_at", "artifacts", "sim_seconds", "synth_seconds",
                 "pnr_seconds", "wall_seconds", "cache_hits"):
        d.pop(name)
    return d


def _yaml(path: Path, name="tiny", freqs=(50,), seeds=1, nowidelut=False) -> Path:
    path.write_text(TINY.format(name=name, freqs=list(freqs), seeds=seeds,
                                nowidelut=json.dumps(nowidelut)))
    return path


def _cli(*args, env=None, **kwargs):
    return subprocess.Popen([sys.executable, "-c", "from aesdse.cli import main; main()",
                             *map(str, args)],
                            env=env or os.environ.copy(), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kwargs)


def _tmp_dirs(results: Path) -> list:
    return sorted(p.name for p in (results / "runs").glob(".tmp-*"))


# --- parallel execution and the staged cache -------------------------------------------------


def test_parallel_sweep_runs_each_tool_once_per_input(tmp_path, fake_tools):
    exp = experiment(freqs=(50, 60), seeds=2)
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "results", jobs=2, echo=None)
        rows = store.rows()
    assert (summary.total, summary.done, summary.cached) == (4, 4, 0)
    assert summary.ok and all(r.status == "ok" for r in rows)
    assert sorted((r.freq_mhz, r.seed) for r in rows) == [(50, 1), (50, 2), (60, 1), (60, 2)]
    # One netlist for the four points: synthesized once (the others wait for it), then routed
    # once per frequency and seed.
    assert len(fake_tools("yosys")) == 1
    assert len(fake_tools("nextpnr")) == 4
    for r in rows:
        files = {p.name for p in Path(r.artifacts).iterdir()}
        assert {"design.il", "verify.txt", "report.json", "nextpnr.log", "yosys.log"} <= files
        assert r.luts > 1000 and r.fmax_mhz == 80 + r.freq_mhz / 10 + r.seed
        assert r.cycles_per_block == 10 and r.wall_seconds > 0
    assert _tmp_dirs(tmp_path / "results") == []


def test_stage_cache_hits_at_each_stage(tmp_path, fake_tools, monkeypatch):
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    with Store(db) as store:
        first = sweep(experiment(), store, results, echo=None)
        assert first.done == 1 and store.rows()[0].cache_hits is None
        assert (len(fake_tools("yosys")), len(fake_tools("nextpnr"))) == (1, 1)

        # From here on nothing may elaborate or simulate: every design comes from the cache.
        def refuse(*args, **kwargs):
            raise AssertionError("elaborated or simulated a cached design")
        originals = point_mod.generate, point_mod.verify_component
        monkeypatch.setattr(point_mod, "generate", refuse)
        monkeypatch.setattr(point_mod, "verify_component", refuse)

        # Same point again (--force): every stage is a hit, no tool runs.
        again = sweep(experiment(), store, results, force=True, echo=None)
        assert again.stage_hits == {"design": 1, "synth": 1, "pnr": 1}
        assert (len(fake_tools("yosys")), len(fake_tools("nextpnr"))) == (1, 1)

        # A new seed and a new frequency: only nextpnr runs.
        more = sweep(experiment(freqs=(50, 70), seeds=2), store, results, echo=None)
        assert (more.cached, more.done) == (1, 3)
        assert more.stage_hits == {"design": 3, "synth": 3, "pnr": 0}
        assert (len(fake_tools("yosys")), len(fake_tools("nextpnr"))) == (1, 4)

        # A synthesis option: the design is reused (no simulation), Yosys and nextpnr run.
        wide = sweep(experiment(nowidelut=True), store, results, echo=None)
        assert wide.stage_hits == {"design": 1, "synth": 0, "pnr": 0}
        assert (len(fake_tools("yosys")), len(fake_tools("nextpnr"))) == (2, 5)

        # --no-cache: looked up nowhere, so the tools run again.
        monkeypatch.setattr(point_mod, "generate", originals[0])
        monkeypatch.setattr(point_mod, "verify_component", originals[1])
        cold = sweep(experiment(), store, results, force=True, use_cache=False, echo=None)
        assert cold.stage_hits == {"design": 0, "synth": 0, "pnr": 0}
        assert (len(fake_tools("yosys")), len(fake_tools("nextpnr"))) == (3, 6)
        assert integrity_check(db) == "ok"


def test_rerun_of_100_stored_points_runs_nothing(tmp_path, fake_tools, monkeypatch):
    exp = experiment(freqs=range(1, 101))
    versions = tool_versions()
    with Store(tmp_path / "db.sqlite") as store:
        for point in exp.points:
            store.put(Row(key=point.key(versions), experiment=exp.name, arch=point.arch,
                          params=point.params_dict, target=point.target.label,
                          flow=point.flow.as_dict(), seed=point.flow.seed,
                          freq_mhz=point.flow.freq_mhz, status="ok", luts=1000, ffs=300,
                          fmax_mhz=90.0, throughput_mbps=1000.0))

        def refuse(*args, **kwargs):
            raise AssertionError("a stored point was run again")
        monkeypatch.setattr(executors, "run_point", refuse)
        monkeypatch.setattr(point_mod, "generate", refuse)
        monkeypatch.setattr(point_mod, "verify_component", refuse)
        monkeypatch.setattr(executors, "make_executor", refuse)  # not even an executor
        lines = []
        summary = sweep(exp, store, tmp_path / "results", jobs=2, echo=lines.append)
    assert (summary.total, summary.cached, summary.done) == (100, 100, 0)
    assert lines == ["all 100 points already in the database"]
    assert fake_tools() == []


# --- faults ----------------------------------------------------------------------------------


def test_timeout_and_crashes_fail_only_their_points(tmp_path, fake_tools, monkeypatch):
    monkeypatch.setenv("FAKE_NEXTPNR_CRASH", "50")
    monkeypatch.setenv("FAKE_NEXTPNR_HANG", "60")
    monkeypatch.setenv("FAKE_YOSYS_CRASH", "-nowidelut")
    exp = _yaml(tmp_path / "exp.yaml", freqs=(50, 60, 70), nowidelut=[False, True])
    db = tmp_path / "db.sqlite"
    args = ["sweep", str(exp), "--db", str(db), "--results-dir", str(tmp_path / "results"),
            "--jobs", "1", "--timeout-pnr", "3"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    with Store(db) as store:
        rows = {(r.freq_mhz, r.flow["nowidelut"]): r for r in store.rows()}
    assert len(rows) == 6
    assert rows[70, False].status == "ok"
    crash, hang = rows[50, False], rows[60, False]
    assert crash.status == "failed-flow" and crash.reason.startswith("nextpnr: nextpnr exited")
    assert "failed to route on purpose" in crash.reason  # the log tail is kept
    assert hang.status == "failed-flow" and hang.reason.startswith("nextpnr: timeout")
    # The hanging nextpnr (it sleeps 120 s) was killed at the 3 s limit, and is gone.
    assert "hanging" in hang.reason and hang.pnr_seconds < 120
    assert marked_processes(os.environ["FAKE_TOOL_LOG"]) == []
    assert (Path(hang.artifacts) / "nextpnr.log").exists()
    for freq in (50, 60, 70):
        synth = rows[freq, True]
        assert synth.status == "failed-flow" and "crashed on purpose" in synth.reason
    assert "FAILED failed-flow" in result.output and "timeout" in result.output
    # Failed tool runs are not cached: one Yosys run per failed -nowidelut point.
    assert len(fake_tools("yosys")) == 1 + 3

    # Re-run with a longer limit and a nextpnr that no longer hangs: only the timed-out point
    # runs again (a crash is a result; a timeout under a shorter limit is not).
    monkeypatch.delenv("FAKE_NEXTPNR_HANG")
    before = len(fake_tools("nextpnr"))
    result = CliRunner().invoke(main, args[:-1] + ["10", "--json"])
    report = json.loads(result.output)
    assert (report["ran"], report["cached"]) == (1, 5)
    assert fake_tools("nextpnr")[before:] == [fake_tools("nextpnr")[-1]]
    assert "freq=60" in fake_tools("nextpnr")[-1]
    with Store(db) as store:
        assert [r.status for r in store.rows() if r.freq_mhz == 60 and not r.flow["nowidelut"]] \
            == ["ok"]


def test_a_floorplan_fixes_block_rams_in_the_netlist_nextpnr_reads(tmp_path, fake_tools,
                                                                    monkeypatch):
    # flow.floorplan lane_rows (aesdse.flow.floorplan): the synthesized netlist is the same,
    # nextpnr reads it with each DP16KD fixed to a site, and the sites are kept beside the
    # report. A netlist the floorplan cannot place fails its point with the reason; the sweep
    # goes on.
    # The fully pipelined core with table S-boxes and one block-RAM round (a point the
    # floorplan takes): elaborated and verified in seconds.
    text = TINY.format(name="fp", freqs=[50], seeds=1, nowidelut="false")
    text = text.replace("  nowidelut: false\n", "  nowidelut: false\n  floorplan: [none, lane_rows]\n")
    text = text.replace("arch: iterative\n    params: {sbox: lut}",
                        "arch: unrolled\n    params: {sbox: lut, bram_rounds: 1}")
    monkeypatch.setenv("FAKE_YOSYS_BLOCK_RAMS", "lane0.u0_sbox0.bram,lane1.u0_ksbox1.bram")
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(parse_experiment(text), store, tmp_path / "results", jobs=1, echo=None)
        rows = {r.flow.get("floorplan", "none"): r for r in store.rows()}
    assert summary.ok and [r.status for r in rows.values()] == ["ok", "ok"]
    assert len(fake_tools("yosys")) == 1
    digests = {line.split()[-1] for line in fake_tools("nextpnr")}
    assert len(digests) == 2  # two netlists: with and without the sites
    sites = json.loads((Path(rows["lane_rows"].artifacts) / "floorplan.json").read_text())
    assert sites["floorplan"] == "lane_rows" and sites["device"] == "LFE5U-85F"
    assert sorted(sites["sites"]) == ["lane0.u0_sbox0.bram", "lane1.u0_ksbox1.bram"]
    assert not (Path(rows["none"].artifacts) / "floorplan.json").exists()

    monkeypatch.setenv("FAKE_YOSYS_BLOCK_RAMS", "sbox.rom.bram")
    text = text.replace("name: fp", "name: fp2").replace("[none, lane_rows]", "lane_rows")
    # Another synthesis of the same design (its design stage, verified, from the cache).
    text = text.replace("nowidelut: false", "nowidelut: true")
    with Store(tmp_path / "db.sqlite") as store:
        sweep(parse_experiment(text), store, tmp_path / "results", jobs=1, echo=None)
        [row] = [r for r in store.rows() if r.experiment == "fp2"]
    assert row.status == "failed-flow"
    assert row.reason.startswith("floorplan: lane_rows: block RAM 'sbox.rom.bram' is not a "
                                 "round unit's S-box")


def test_kill_and_resume(tmp_path, fake_tools):
    exp = _yaml(tmp_path / "exp.yaml", freqs=(50, 60, 70, 80), seeds=2)
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    env = dict(os.environ, FAKE_TOOL_SLEEP="0.4")
    args = ["sweep", exp, "--db", db, "--results-dir", results, "--jobs", "2", "--quiet"]
    # Output to a file: a pipe would also be held open by the sweep's workers.
    out = open(tmp_path / "killed.log", "w")
    proc = subprocess.Popen([sys.executable, "-c", "from aesdse.cli import main; main()",
                             *map(str, args)], env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    finished = set()
    while time.monotonic() < deadline and len(finished) < 2:
        time.sleep(0.1)
        assert proc.poll() is None, (tmp_path / "killed.log").read_text()
        if db.exists():
            try:
                with sqlite3.connect(db) as c:
                    finished = set(c.execute("SELECT freq_mhz, seed FROM points").fetchall())
            except sqlite3.OperationalError:
                pass
    os.kill(proc.pid, signal.SIGKILL)  # the sweep only: its workers must notice alone
    proc.wait(timeout=10)
    out.close()
    time.sleep(1.5)  # workers die with their parent (SIGTERM), killing their tools
    with sqlite3.connect(db) as c:
        finished = set(c.execute("SELECT freq_mhz, seed FROM points").fetchall())
    assert 2 <= len(finished) < 8, "the sweep was not killed mid-way"
    logged = len(fake_tools("nextpnr"))
    time.sleep(1.0)
    assert len(fake_tools("nextpnr")) == logged, "the killed sweep's workers went on"

    rerun = _cli(*args, env=env)
    try:
        output, _ = rerun.communicate(timeout=120)
    finally:
        rerun.kill()
    assert rerun.returncode == 0, output
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT freq_mhz, seed, status, artifacts, cache_hits "
                         "FROM points").fetchall()
    assert len(rows) == 8 and all(row[2] == "ok" for row in rows)
    redone = {(float(line.split()[1][5:]), int(line.split()[2][5:]))
              for line in fake_tools("nextpnr")[logged:]}
    assert not redone & finished, "a finished point was run again"
    # Every other point was routed now, or just before the kill (then its route is cached).
    for freq, seed, _, _, hits in rows:
        if (freq, seed) not in finished:
            assert (freq, seed) in redone or "pnr" in (hits or "")
    for _, _, _, artifacts, _ in rows:
        # Stored relative to the database's directory.
        assert ".tmp-" not in artifacts and (tmp_path / artifacts / "report.json").exists()
    assert _tmp_dirs(results) == []  # the killed sweep's leftovers were removed
    assert integrity_check(db) == "ok"


def test_two_concurrent_sweeps_share_a_database(tmp_path, fake_tools):
    exp = _yaml(tmp_path / "exp.yaml", freqs=(50, 60, 70), seeds=2)
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    env = dict(os.environ, FAKE_TOOL_SLEEP="0.1")
    args = ["sweep", exp, "--db", db, "--results-dir", results, "--jobs", "1", "--json"]
    procs = [_cli(*args, env=env) for _ in range(2)]
    try:
        outputs = [p.communicate(timeout=120)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert [p.returncode for p in procs] == [0, 0], outputs
    reports = [json.loads(out.splitlines()[-1]) for out in outputs]
    # Every point is stored once; a point finished by one sweep is skipped by the other.
    assert all(r["ran"] + r["cached"] == 6 for r in reports)
    with sqlite3.connect(db) as c:
        keys = [k for (k,) in c.execute("SELECT key FROM points")]
        artifacts = [a for (a,) in c.execute("SELECT artifacts FROM points")]
    assert len(keys) == len(set(keys)) == 6
    assert all((tmp_path / a / "report.json").exists() for a in artifacts)
    assert integrity_check(db) == "ok"
    # Claims: no point ran twice, so no flow was doubled: one synthesis of the shared design,
    # one nextpnr run per point, together.
    assert sum(r["ran"] for r in reports) == 6
    assert len(fake_tools("nextpnr")) == 6 and len(fake_tools("yosys")) == 1
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_clean_stale_removes_only_dead_sweeps_leftovers(tmp_path):
    runs = tmp_path / "runs"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    host = os.uname().nodename
    mine = runs / f".tmp-abc-{os.getpid()}@{host}"
    theirs = runs / f".tmp-abc-{dead.pid}@{host}"
    elsewhere = runs / f".tmp-abc-{dead.pid}@some-other-host"
    cache_left = tmp_path / "cache" / "pnr" / f".tmp-k-1234abcd-{dead.pid}@{host}"
    for d in (mine, theirs, elsewhere, cache_left):
        d.mkdir(parents=True)
    assert clean_stale(tmp_path) == 2
    assert mine.exists() and elsewhere.exists()
    assert not theirs.exists() and not cache_left.exists()


def test_store_migrates_a_version_1_database(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as c:
        c.executescript(MIGRATIONS[0])
        c.execute("INSERT INTO points (key, experiment, arch, params, target, flow, seed, "
                  "freq_mhz, status) VALUES ('k', 'e', 'iterative', '{}', 't', '{}', 1, 50, "
                  "'ok')")
        c.execute("PRAGMA user_version = 1")
    with Store(path) as store:
        row = store.get("k")
        assert row.cache_hits is None and row.wall_seconds is None
        store.put(replace(row, cache_hits="design,synth", wall_seconds=1.5))
        assert store.get("k").cache_hits == "design,synth"


# --- Dask ------------------------------------------------------------------------------------


def test_dask_local_gives_the_same_rows_as_local(tmp_path, fake_tools):
    pytest.importorskip("distributed")
    exp = experiment(freqs=(50, 60), seeds=2)
    with Store(tmp_path / "local.sqlite") as store:
        sweep(exp, store, tmp_path / "local", jobs=1, echo=None)
        local = {r.key: r for r in store.rows()}
    with Store(tmp_path / "dask.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "dask", jobs=2, executor="dask-local",
                        echo=None)
        dask = {r.key: r for r in store.rows()}
    assert summary.ok and not summary.warnings
    assert local.keys() == dask.keys() and len(local) == 4
    assert {k: _comparable(r) for k, r in local.items()} == \
        {k: _comparable(r) for k, r in dask.items()}
    assert all(Path(r.artifacts).parent == tmp_path / "dask" / "runs" for r in dask.values())


def test_dask_remote_workers_send_artifacts_back(tmp_path, fake_tools, monkeypatch):
    distributed = pytest.importorskip("distributed")
    import logging
    # Workers inherit the environment: their own stage cache, away from the client's results.
    monkeypatch.setenv("AESDSE_CACHE_DIR", str(tmp_path / "worker-cache"))
    exp = experiment(freqs=(50, 60))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        with Store(tmp_path / "db.sqlite") as store:
            summary = sweep(exp, store, tmp_path / "results", executor="dask",
                            scheduler=cluster.scheduler_address, echo=None)
            rows = store.rows()
    assert summary.ok and summary.done == 2
    for r in rows:
        # Unpacked on the client, from the worker's temporary directory.
        assert Path(r.artifacts).parent == tmp_path / "results" / "runs"
        assert {"design.il", "report.json", "nextpnr.log"} <= \
            {p.name for p in Path(r.artifacts).iterdir()}
    assert (tmp_path / "worker-cache" / "synth").is_dir()
    assert not (tmp_path / "results" / "cache").exists()


def test_a_sweep_on_slurm_workers_started_by_dask_jobqueue(tmp_path, fake_tools, monkeypatch):
    # The Slurm recipe of docs/explore.md, with a fake sbatch (there is no Slurm here): a
    # dask-jobqueue SLURMCluster submits a batch job that starts a Dask worker, and the sweep
    # runs on it through --executor dask --scheduler ADDRESS, as a cluster user's would.
    jobqueue = pytest.importorskip("dask_jobqueue")
    import logging

    import distributed
    slurm = Path(__file__).parent / "fake_tools" / "slurm"
    monkeypatch.setenv("PATH", f"{slurm}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SLURM_LOG", str(tmp_path / "slurm.log"))
    monkeypatch.setenv("AESDSE_CACHE_DIR", str(tmp_path / "worker-cache"))
    exp = experiment(freqs=(50, 60))
    with jobqueue.SLURMCluster(cores=1, processes=1, memory="2GB", walltime="00:10:00",
                               job_name="aesdse", log_directory=str(tmp_path / "logs"),
                               scheduler_options={"dashboard_address": None},
                               silence_logs=logging.ERROR) as cluster:
        cluster.scale(jobs=1)
        with distributed.Client(cluster) as client:
            client.wait_for_workers(1, timeout=120)
        with Store(tmp_path / "db.sqlite") as store:
            summary = sweep(exp, store, tmp_path / "results", executor="dask",
                            scheduler=cluster.scheduler_address, echo=None)
            rows = store.rows()
    assert summary.ok and summary.done == 2 and {r.status for r in rows} == {"ok"}
    submitted = (tmp_path / "slurm.log").read_text()
    assert submitted.startswith("sbatch ") and "#SBATCH -J aesdse" in submitted
    assert "#SBATCH -t 00:10:00" in submitted
    # The points ran on the batch job's worker: its stage cache, not the client's.
    assert (tmp_path / "worker-cache" / "synth").is_dir()
    assert not (tmp_path / "results" / "cache").exists()


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def test_a_dask_worker_killed_while_it_runs_a_point_loses_nothing(tmp_path, fake_tools):
    # A Dask worker dies (kill -9) while its point's synthesis runs: the scheduler runs the
    # point again on another worker; every point is stored, once, and the summary says so.
    pytest.importorskip("distributed")
    exp = _yaml(tmp_path / "exp.yaml", freqs=(50, 60))
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    marker = os.environ["FAKE_TOOL_LOG"]
    out = open(tmp_path / "sweep.log", "w")
    proc = subprocess.Popen([sys.executable, "-c", "from aesdse.cli import main; main()",
                             "sweep", str(exp), "--db", str(db), "--results-dir", str(results),
                             "--executor", "dask-local", "--jobs", "2"],
                            env=dict(os.environ, FAKE_TOOL_SLEEP="1.5"), stdout=out,
                            stderr=subprocess.STDOUT)
    try:
        deadline, tool = time.monotonic() + 90, None
        while tool is None and time.monotonic() < deadline:
            assert proc.poll() is None, (tmp_path / "sweep.log").read_text()
            # The synthesis has logged its run and sleeps (FAKE_TOOL_SLEEP).
            tool = next((pid for pid, command in marked_processes(marker)
                         if "fake_yosys" in command and "synth_ecp5" in command), None) \
                if fake_tools("yosys") else None
            time.sleep(0.05)
        assert tool is not None, "no synthesis started"
        worker = _parent_of(tool)  # run_tool's child of the worker process running the point
        assert "pytest" not in Path(f"/proc/{worker}/cmdline").read_text(errors="replace")
        os.kill(worker, signal.SIGKILL)
        proc.wait(timeout=120)
    finally:
        proc.kill()
        out.close()
    log = (tmp_path / "sweep.log").read_text()
    assert proc.returncode == 0, log
    assert "1 point re-run after a worker was lost" in log, log
    assert "done in" in log and ": 2 run, 0 cached, 0 failed" in log, log
    # Nothing lost, nothing stored twice: one ok row per point, and the killed synthesis ran
    # again (on the other worker: the killed one is gone).
    with sqlite3.connect(db) as c:
        stored = c.execute("SELECT key, status FROM points").fetchall()
    assert sorted(status for _, status in stored) == ["ok", "ok"]
    assert len({key for key, _ in stored}) == 2
    assert len(fake_tools("yosys")) == 2 and len(fake_tools("nextpnr")) == 2


# --- progress --------------------------------------------------------------------------------


def test_progress_live_line_shows_running_stages_and_eta(tmp_path):
    out, lines = StringIO(), []
    exp = experiment(freqs=(50, 60))
    rows = [Row(key=f"k{i}", experiment="e", arch="iterative", params={"sbox": "lut"},
                target="t", flow={}, seed=1, freq_mhz=f, status="ok", luts=10, ffs=10,
                fmax_mhz=90.0, cycles_per_block=10, throughput_mbps=1152.0)
            for i, f in enumerate((50, 60))]
    with Progress(4, lines.append, live=True, stream=out, slots=2) as progress:
        progress.cached_points(rows[:1])
        progress.stage("k1", "iterative sbox=lut", "place-and-route")
        status = progress.status_line()
        assert "1/4 done" in status and "1 cached" in status and "1 running" in status
        assert "place-and-route 1" in status and "ETA ?" in status
        assert "longest: iterative sbox=lut (place-and-route, 0:00)" in status
        progress.point_done(rows[1], seconds=10.0)
        progress.stage("k1", "iterative sbox=lut", "metrics")  # late: ignored
        assert "ETA 0:10" in progress.status_line()  # 2 left x 10 s over 2 slots
        assert "0 running" in progress.status_line()
    assert "\x1b[2K" in out.getvalue()
    assert lines[0] == "1 of 4 points already in the database"
    assert "[2/4" in lines[1] and "1152 Mbit/s" in lines[1]
    assert len(exp.points) == 2
    # Off a terminal: no escape sequences at all.
    plain = StringIO()
    with Progress(1, lines.append, stream=plain) as progress:
        progress.point_done(rows[0], seconds=1.0)
    assert plain.getvalue() == ""


def test_dask_executor_needs_a_scheduler(tmp_path, fake_tools):
    exp = _yaml(tmp_path / "exp.yaml")
    result = CliRunner().invoke(main, ["sweep", str(exp), "--db", str(tmp_path / "db.sqlite"),
                                       "--executor", "dask"])
    assert result.exit_code == 2
    assert "--executor dask needs --scheduler tcp://HOST:8786" in result.output
    assert fake_tools() == []


# --- tools die with the sweep ------------------------------------------------------------------


def test_kill_9_of_a_single_job_sweep_leaves_no_tool_running(tmp_path, fake_tools):
    # --jobs 1 runs the point in the sweep's own process: its tool is the sweep's child, and
    # must die with it (parent-death signal), even though nobody can clean up after SIGKILL.
    exp = _yaml(tmp_path / "exp.yaml")
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    marker = os.environ["FAKE_TOOL_LOG"]
    env = dict(os.environ, FAKE_TOOL_SLEEP="60")
    out = open(tmp_path / "killed.log", "w")
    proc = subprocess.Popen([sys.executable, "-c", "from aesdse.cli import main; main()",
                             "sweep", str(exp), "--db", str(db), "--results-dir", str(results),
                             "--jobs", "1", "--quiet"], env=env, stdout=out,
                            stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not fake_tools("yosys") and time.monotonic() < deadline:
            assert proc.poll() is None, (tmp_path / "killed.log").read_text()
            time.sleep(0.1)
        assert fake_tools("yosys"), "the tool never started"
        assert marked_processes(marker), "the tool is not running"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        proc.kill()
        out.close()
    for _ in range(50):
        if not marked_processes(marker):
            break
        time.sleep(0.1)
    assert marked_processes(marker) == []


# --- results that survive code edits ---------------------------------------------------------

TWO_FAMILIES = """
name: two
architectures:
  - arch: iterative
    params: {sbox: lut}
  - arch: sbox
    params: {sbox: [lut, composite]}
flow: {freq_mhz: 50}
verify: {random_vectors: 0}
"""


def _edit(monkeypatch, filename):
    """Simulate an edit of ``archs/<filename>`` (a comment appended), as the fingerprints see it."""
    original = fingerprint.read_source

    def edited(path):
        data = original(path)
        return data + b"\n# edited\n" if path.name == filename else data
    monkeypatch.setattr(fingerprint, "read_source", edited)
    fingerprint.generator_fingerprint.cache_clear()


def test_an_edit_to_one_family_reruns_only_its_points_and_reports_keep_old_rows(
        tmp_path, fake_tools, monkeypatch):
    exp = parse_experiment(TWO_FAMILIES)
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    with Store(db) as store:
        assert sweep(exp, store, results, echo=None).done == 3
    fingerprint.generator_fingerprint.cache_clear()
    try:
        _edit(monkeypatch, "sbox_standalone.py")
        # The report before any new sweep: every row still shown; the edited family's marked.
        with Store(db, readonly=True) as store:
            sel = select_rows(store, exp, checkout=current_checkout())
        assert len(sel.rows) == 3 and sel.missing == 0 and not sel.older
        assert {r.arch: sel.stale.get(r.key) for r in sel.rows} == \
            {"iterative": None, "sbox": ["generator changed"]}
        # The strict report finds only the untouched family's row.
        with Store(db, readonly=True) as store:
            assert [r.arch for r in select_rows(store, exp, current_only=True, checkout=current_checkout()).rows] == \
                ["iterative"]
        # A new sweep runs the two S-box points only, and keeps their old rows.
        with Store(db) as store:
            again = sweep(exp, store, results, echo=None)
            assert (again.done, again.cached) == (2, 1)
            assert len(store.rows()) == 5
            sel = select_rows(store, exp, checkout=current_checkout())
        assert len(sel.rows) == 3 and not sel.stale
        assert sorted(sel.older.values()) == [1, 1]
        # The Markdown table says so, and `aesdse db` lists and prunes the old rows.
        runner = CliRunner()
        result = runner.invoke(main, ["report", "--db", str(db), "--arch", "sbox"])
        assert result.exit_code == 0, result.output
        assert result.output.count("| +1 older |") == 2
        listed = json.loads(runner.invoke(main, ["db", "list", "--db", str(db), "--json"]).output)
        assert sorted((r["arch"], r["newest"]) for r in listed) == \
            [("sbox", False), ("sbox", False), ("sbox", True), ("sbox", True)]
        pruned = runner.invoke(main, ["db", "prune", "--db", str(db), "--json"])
        assert json.loads(pruned.output)["removed"] == 2
        with Store(db) as store:
            assert len(store.rows()) == 3
    finally:
        fingerprint.generator_fingerprint.cache_clear()


def test_db_upgrade_carries_over_rows_whose_netlist_is_unchanged(tmp_path, fake_tools):
    # Moving the generator's sources changes every fingerprint (and so every key) without
    # changing a design. Simulated here: two rows made by this code get an "old" generator and
    # key; one of them also a different RTLIL digest (its design did change).
    exp = experiment(freqs=(50, 60))
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    with Store(db) as store:
        assert sweep(exp, store, results, echo=None).done == 2
        rows = {r.freq_mhz: r for r in store.rows()}
    same, changed = rows[50.0], rows[60.0]
    sql = sqlite3.connect(db)
    sql.execute("UPDATE points SET key = 'old-same', generator = 'old-gen' WHERE key = ?",
                (same.key,))
    sql.execute("UPDATE points SET key = 'old-changed', generator = 'old-gen', "
                "rtlil_digest = 'f00d' WHERE key = ?", (changed.key,))
    sql.execute("INSERT INTO pnr_runs (point_key, batch, target_mhz, seed, achieved_mhz, ok) "
                "VALUES ('old-same', 0, 50.0, 1, 90.0, 1)")
    sql.commit()
    sql.close()

    result = CliRunner().invoke(main, ["db", "upgrade", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [(c["old_key"], c["key"]) for c in report["carried"]] == [("old-same", same.key)]
    assert [(r["key"], r["reason"]) for r in report["left"]] == \
        [("old-changed", "generated netlist changed")]
    with Store(db) as store:
        carried = store.get(same.key)
        assert carried is not None and carried.generator == same.generator
        assert carried.luts == same.luts and store.get("old-same") is None
        assert store.get("old-changed").generator == "old-gen"
        assert list(store.pnr_runs()) == [same.key]  # the search's runs follow their row
        # The carried row is done; the changed one runs again (its old row stays).
        again = sweep(exp, store, results, echo=None)
        assert (again.done, again.cached) == (1, 1)
        assert len(store.rows()) == 3
    text = CliRunner().invoke(main, ["db", "upgrade", "--db", str(db)])
    assert text.exit_code == 0, text.output
    assert "left stale   old-changed" in text.output
    assert "0 carried over to the current generator, 1 left stale, 2 already current" in \
        text.output


def test_a_primitive_edit_reruns_every_family_that_uses_it(tmp_path, fake_tools, monkeypatch):
    exp = parse_experiment(TWO_FAMILIES)
    with Store(tmp_path / "db.sqlite") as store:
        sweep(exp, store, tmp_path / "results", echo=None)
        try:
            _edit(monkeypatch, "sbox.py")   # archs/prims/sbox.py: every family imports it
            assert sweep(exp, store, tmp_path / "results", echo=None).done == 3
        finally:
            fingerprint.generator_fingerprint.cache_clear()


def test_a_tool_named_by_environment_is_identified_by_its_version(tmp_path, fake_tools,
                                                                   monkeypatch):
    with Store(tmp_path / "db.sqlite") as store:
        sweep(experiment(), store, tmp_path / "results", echo=None)
        first = store.rows()[0]
        assert first.tool_versions["yosys"] == "Yosys 0.0 (fake yosys, variant 1)"
        # Another build under the same file name: a new key, and the synthesis runs again.
        monkeypatch.setenv("FAKE_TOOL_VARIANT", "2")
        tools._identify.cache_clear()
        try:
            again = sweep(experiment(), store, tmp_path / "results", echo=None)
            assert again.done == 1 and again.stage_hits["synth"] == 0
            assert len(fake_tools("yosys")) == 2
            sel = select_rows(store, experiment(), checkout=current_checkout())
        finally:
            # Variant 1 again, and forgotten: an identity cached while the variant was 2 would
            # give every later test of this process other keys than its subprocesses compute.
            monkeypatch.delenv("FAKE_TOOL_VARIANT")
            tools._identify.cache_clear()
    assert sel.older == {first.config_key: 1}


# --- cache integrity ---------------------------------------------------------------------------


def test_a_corrupted_cache_entry_is_detected_and_replaced(tmp_path, fake_tools):
    results = tmp_path / "results"
    with Store(tmp_path / "db.sqlite") as store:
        sweep(experiment(), store, results, echo=None)
        [synth_entry] = (results / "cache" / "synth").iterdir()
        netlist = synth_entry / "netlist.json"
        good = netlist.read_bytes()
        netlist.chmod(0o644)
        netlist.write_bytes(good.replace(b"fake yosys", b"evil yosys"))
        # Editing a run directory does not reach the cache: artifacts are copies.
        run_log = Path(store.rows()[0].artifacts) / "yosys.log"
        run_log.write_text("edited by hand\n")
        assert (synth_entry / "yosys.log").read_text() != "edited by hand\n"

        warnings = []
        again = sweep(experiment(), store, results, force=True, echo=warnings.append)
    # The corrupted netlist was not used: Yosys ran again and the entry holds a good one. The
    # new netlist equals the old good one, so place and route (keyed by it) is a cache hit.
    assert len(fake_tools("yosys")) == 2 and again.stage_hits == {"design": 1, "synth": 0,
                                                                  "pnr": 1}
    assert netlist.read_bytes() == good
    assert any("corrupted stage cache entries were not used and were replaced" in w
               and "netlist.json does not match its digest" in w for w in again.warnings)


class _Executor:
    """An executor that runs nothing: the test says when points start stages and finish."""
    slots = 2

    def __init__(self, remote=False):
        self.remote = remote
        self.submitted, self.done = [], []

    @property
    def in_flight(self):
        return len(self.submitted) - len(self.done)

    def submit(self, key, point, experiment, versions, pnr_jobs=1):
        self.submitted.append(key)

    def poll(self, timeout):
        return []


class _Store:
    def claim(self, key, owner, unless_stored=False):
        return True

    def get(self, key):
        return None


def _scheduler(ex, points):
    from types import SimpleNamespace
    from aesdse.engine.sweep import SweepScheduler
    recorder = SimpleNamespace(owner="test")
    plan = SimpleNamespace(pending=[(p, f"k{n}") for n, p in enumerate(points)], redo=set())
    return SweepScheduler(ex, _Store(), recorder, plan, experiment="tiny", versions={},
                          use_cache=True, search_width=1)


@pytest.mark.parametrize("remote", [False, True])
def test_seeds_of_one_netlist_place_and_route_beside_the_first(remote):
    """The other seeds of a design wait for its first point's netlist, not for its whole place
    and route (a large design's nextpnr runs tens of minutes), on workers that share the stage
    cache; a remote worker's netlist is not in this machine's cache, so there they wait."""
    points = experiment(seeds=3).points
    ex = _Executor(remote=remote)
    scheduler = _scheduler(ex, points)
    scheduler._submit_ready()
    assert ex.submitted == ["k0"]  # the others share its netlist: not yet
    for stage in ("generate", "synthesize", "verify netlist"):
        scheduler.stage_seen("k0", stage)
        scheduler._submit_ready()
        assert ex.submitted == ["k0"]
    scheduler.stage_seen("k1", "place-and-route")  # not the group's first point: no effect
    scheduler._submit_ready()
    assert ex.submitted == ["k0"]
    scheduler.stage_seen("k0", "place-and-route")
    scheduler._submit_ready()
    assert ex.submitted == (["k0"] if remote else ["k0", "k1", "k2"])
    if remote:
        ex.done.append("k0")
        scheduler._finished("k0")
        scheduler._submit_ready()
        assert ex.submitted == ["k0", "k1", "k2"]


def test_a_point_stored_between_the_look_and_the_claim_is_not_run_again(tmp_path):
    """The race of two sweeps on one database (seen once in CI: 7 runs of 6 points): this sweep
    looks for the row and finds none; the other sweep stores it and drops its claim; this sweep's
    claim must not succeed, or the point runs twice. The row is taken instead."""
    from types import SimpleNamespace
    from aesdse.engine.sweep import SweepScheduler
    [point] = experiment().points
    store = Store(tmp_path / "db.sqlite")
    other = "1@elsewhere"
    assert store.claim("k0", other)
    row = Row(key="k0", experiment="tiny", arch="iterative", params={"sbox": "lut"},
              target="LFE5U-85F-8CABGA381", flow={"freq_mhz": 50.0}, seed=1, freq_mhz=50.0,
              status="ok", luts=4000, ffs=500, fmax_mhz=60.0, throughput_mbps=1280.0)
    looked = store.get

    def get(key):
        found = looked(key)
        if found is None:  # the other sweep finishes right after this sweep looked
            store.put(row, owner=other)
        return found
    store.get = get
    taken = []
    recorder = SimpleNamespace(owner=f"{os.getpid()}@here", take_stored=taken.append)
    plan = SimpleNamespace(pending=[(point, "k0")], redo=set())
    ex = _Executor()
    scheduler = SweepScheduler(ex, store, recorder, plan, experiment="tiny", versions={},
                               use_cache=True, search_width=1)
    scheduler._submit_ready()
    assert ex.submitted == [] and list(scheduler.elsewhere) == ["k0"]
    scheduler._look_elsewhere()  # no claim left: the row is taken
    assert not scheduler.elsewhere and not scheduler.queue and [r.key for r in taken] == ["k0"]
    assert store.claimed_by_others(["k0"], recorder.owner) == {}
    # With --force the stored row is to be replaced: the point is claimed and run.
    plan = SimpleNamespace(pending=[(point, "k0")], redo={"k0"})
    scheduler = SweepScheduler(ex, store, recorder, plan, experiment="tiny", versions={},
                               use_cache=True, search_width=1)
    scheduler._submit_ready()
    assert ex.submitted == ["k0"]
