# amaranth: UnusedElaboratable=no
"""Fmax search: the pure search against synthetic designs, its YAML, storage and report, and one
sweep through the CLI with the fake tools (``FAKE_NEXTPNR_PEAK``: achieved Fmax follows the
target up to a peak and drops above it)."""

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from aesdse.experiment import ExperimentError, parse_experiment
from aesdse.engine.fmax_search import Trial, bimodal, contending, search, summarize
from aesdse.spec.schema import SearchSettings
from aesdse.report.table import render
from aesdse.store.database import MIGRATIONS, PnrRun, Row, Store

from database_checks import integrity_check

FAKE = Path(__file__).parent / "fake_tools"


# --- synthetic designs ------------------------------------------------------------------------


def serial(run):
    """Adapt ``run(target_mhz, seed) -> achieved_mhz | None`` to the ``run_batch`` function
    :func:`search` takes, running the trials of a batch one after the other."""
    return lambda trials: [run(t.target_mhz, t.seed) for t in trials]


def saturating(limit):
    """Meets every target up to ``limit``, never achieves more."""
    return lambda target, seed: min(1.02 * target, limit)


def peaked(peak):
    """Follows the target up to ``peak``; asked for more, it achieves *less* (the reason one run
    at a high target does not measure Fmax)."""
    return lambda target, seed: min(1.02 * target, peak - 0.25 * max(0.0, target - peak))


def noise(target, seed, amount):
    """Deterministic noise in [-amount, +amount] per (target, seed), like a placer seed's."""
    h = int(hashlib.sha256(f"{target:.1f}/{seed}".encode()).hexdigest()[:8], 16)
    return (h / 0xFFFFFFFF * 2 - 1) * amount


def no_repeats(result):
    pairs = [(r.target_mhz, r.seed) for r in result.runs]
    return len(pairs) == len(set(pairs))


@pytest.mark.parametrize("width", [1, 2, 4])
def test_monotone_design_converges_on_its_limit(width):
    result = search(serial(saturating(150.0)), SearchSettings(), width)
    assert result.fmax_mhz == pytest.approx(150.0)
    assert result.stop in ("patience", "converged", "exhausted")
    assert no_repeats(result) and len(result.runs) <= 8 * width
    # One target per worker: every batch but the last full.
    assert all(len(b) == width for b in result.batches[:-1])
    assert all(50 < r.target_mhz < 400 for r in result.runs)


@pytest.mark.parametrize("width", [1, 2, 4])
def test_design_that_drops_above_its_peak_is_found(width):
    design = peaked(150.0)
    result = search(serial(design), SearchSettings(), width)
    # One run at the high bound would report 87.5 MHz; the search finds the peak.
    assert design(400.0, 1) == pytest.approx(87.5)
    assert result.fmax_mhz == pytest.approx(150.0, rel=0.01)
    assert result.fmax_mhz > max(r.achieved_mhz for r in result.batches[0])
    assert no_repeats(result)


def test_a_failing_runs_achieved_fmax_informs_the_next_batch():
    # One run per batch: 225 MHz is asked first and achieves 131.25 MHz (misses its target).
    result = search(serial(peaked(150.0)), SearchSettings(), 1)
    first = result.batches[0][0]
    assert (first.target_mhz, first.achieved_mhz) == (225.0, pytest.approx(131.25))
    assert not first.met
    # The bracket is now (131.25, 225): the next target lies inside it.
    assert 131.25 < result.batches[1][0].target_mhz < 225.0


def test_bounds_move_up_past_the_initial_high_bound():
    result = search(serial(saturating(700.0)), SearchSettings(high_mhz=400), 2)
    assert result.fmax_mhz == pytest.approx(700.0)
    assert max(r.target_mhz for r in result.runs) > 400


def test_noisy_design_with_seeds_runs_every_seed_at_every_target():
    def design(target, seed):
        return min(1.02 * target, 150.0) * (1 + noise(target, seed, 0.03))
    settings = SearchSettings(seeds=3, patience=2)
    result = search(serial(design), settings, 6)
    for batch in result.batches:
        targets = {r.target_mhz for r in batch}
        assert len(targets) == 2 and len(batch) == 6
        assert sorted(r.seed for r in batch) == [1, 1, 2, 2, 3, 3]
    assert result.fmax_mhz == max(r.achieved_mhz for r in result.runs)
    assert 145.5 <= result.fmax_mhz <= 154.5
    stats = summarize(result.runs)
    assert stats["bimodal"] is False and stats["contending"] >= 3
    assert stats["max_mhz"] == result.fmax_mhz and stats["spread_percent"] < 3.1


def test_bimodal_design_is_flagged():
    # Odd seeds find a placement good for 150 MHz, even seeds one that tops out at 110 MHz.
    def design(target, seed):
        return min(1.02 * target, 150.0 if seed % 2 else 110.0)
    result = search(serial(design), SearchSettings(seeds=4), 8)
    stats = summarize(result.runs)
    assert stats["fmax_mhz"] == pytest.approx(150.0)
    assert stats["bimodal"] is True
    unimodal = summarize(search(serial(saturating(150.0)), SearchSettings(seeds=4), 8).runs)
    assert unimodal["bimodal"] is False


def test_bimodality_test():
    assert bimodal([100, 101, 102, 130, 131])
    assert not bimodal([100, 101, 130])  # a single outlier is not a second cluster
    assert not bimodal([100, 103, 106, 109, 112, 115])  # steady spread, no gap > 10%
    assert not bimodal([])


def test_contending_runs_are_those_aimed_near_the_converged_fmax():
    from aesdse.engine.fmax_search import Run
    runs = [Run(60.0, 1, 61.2, 0), Run(150.0, 1, 148.0, 1), Run(160.0, 1, 150.0, 1),
            Run(300.0, 1, 112.0, 0), Run(170.0, 1, None, 2)]
    assert [r.target_mhz for r in contending(runs)] == [150.0, 160.0]
    stats = summarize(runs)
    assert (stats["runs"], stats["routed"], stats["contending"]) == (5, 4, 2)
    assert (stats["min_mhz"], stats["max_mhz"]) == (148.0, 150.0)
    assert stats["spread_percent"] == pytest.approx(2 / 2 / 150 * 100)


def test_runs_that_do_not_route_narrow_the_bracket():
    def design(target, seed):
        return None if target > 190 else min(target, 180.0)
    result = search(serial(design), SearchSettings(), 2)
    assert result.fmax_mhz == pytest.approx(180.0)
    assert any(not r.ok for r in result.runs)
    assert result.best.ok and result.best.achieved_mhz == result.fmax_mhz


def test_nothing_routes():
    result = search(serial(lambda target, seed: None), SearchSettings(patience=2), 2)
    assert result.fmax_mhz is None and result.best is None
    assert result.stop == "patience" and len(result.batches) == 2


def test_time_budget_stops_the_search():
    now = [0.0]

    def run_batch(trials):
        now[0] += 100.0  # every batch takes 100 s
        return [min(1.02 * t.target_mhz, 150.0 + t.target_mhz / 100) for t in trials]
    result = search(run_batch, SearchSettings(budget_s=250, patience=50), 1,
                    clock=lambda: now[0])
    assert result.stop == "budget" and len(result.batches) == 3


def test_duplicates_are_skipped_by_key():
    calls = []

    def run_batch(trials):
        calls.extend(trials)
        return [min(1.02 * t.target_mhz, 150.0) for t in trials]
    # A coarse key: targets in the same 25 MHz bucket count as one run.
    result = search(run_batch, SearchSettings(patience=3), 4,
                    key=lambda t: (int(t.target_mhz // 25), t.seed))
    buckets = [int(t.target_mhz // 25) for t in calls]
    assert len(buckets) == len(set(buckets)) == len(result.runs)


def test_search_rejects_a_bad_bracket():
    with pytest.raises(ValueError, match="low_mhz < high_mhz"):
        search(serial(saturating(100)), SearchSettings(low_mhz=300, high_mhz=200), 1)
    with pytest.raises(ValueError, match="2 results for 1 trials"):
        search(lambda trials: [1.0, 2.0], SearchSettings(), 1)


def test_trials_compare_and_hash_by_value():
    assert Trial(150.0, 1) == Trial(150.0, 1) and len({Trial(150.0, 1), Trial(150.0, 1)}) == 1


# --- YAML -------------------------------------------------------------------------------------

SEARCH_YAML = """\
name: search
architectures:
  - arch: iterative
    params: {{sbox: {sbox}}}
flow:
  fmax_search:
{search}
verify:
  random_vectors: 0
"""


def _yaml(search="    seeds: 1", sbox="lut"):
    return SEARCH_YAML.format(search=search, sbox=sbox)


def test_yaml_fmax_search_options():
    exp = parse_experiment(_yaml("    low_mhz: 80\n    high_mhz: 300\n    batch: 3\n"
                                 "    patience: 4\n    budget_s: 60\n    seeds: 2"))
    (point,) = exp.points
    assert point.flow.fmax_search == SearchSettings(80.0, 300.0, 3, 4, 60.0, 2)
    assert point.flow.as_dict()["fmax_search"]["seeds"] == 2
    plain = parse_experiment("name: p\narchitectures:\n  - arch: iterative\n").points[0]
    # Points without a search keep the flow (and so the key) they had before the option existed.
    assert "fmax_search" not in plain.flow.as_dict()
    # The search settings are part of what the point measures: they change its config key.
    assert point.config_key() != parse_experiment(_yaml("    seeds: 3")).points[0].config_key()
    assert parse_experiment(_yaml("    {}").replace("fmax_search:\n    {}",
                                                    "fmax_search: true")).points[0] \
        .flow.fmax_search == SearchSettings()


@pytest.mark.parametrize("body, message", [
    ("    low_mhz: 300\n    high_mhz: 200", "x.yaml:7: low_mhz: 300.0 must be below high_mhz"),
    ("    patience: 0", "x.yaml:7: patience: 0 must be at least 1 and at most 100"),
    ("    batch: -1", "x.yaml:7: batch: -1 must be at least 0"),
    ("    seeds: two", "x.yaml:7: seeds: 'two' must be a whole number, not a string"),
    ("    budget_s: true", "x.yaml:7: budget_s: True must be a number, not a boolean"),
    ("    high_mhz: 2000", "x.yaml:7: high_mhz: 2000 must be above 0 and at most 1000.0 MHz"),
    ("    step: 3", "x.yaml:7: unknown key 'step' in fmax_search; allowed keys: low_mhz"),
])
def test_yaml_errors_name_file_and_line(body, message):
    with pytest.raises(ExperimentError, match="^" + message.replace("(", r"\(")):
        parse_experiment(_yaml(body), "x.yaml")


def test_yaml_fmax_search_excludes_freq_and_seeds():
    text = _yaml().replace("flow:\n", "flow:\n  freq_mhz: [50, 60]\n")
    with pytest.raises(ExperimentError, match=r"^x.yaml:6: freq_mhz: not allowed with fmax_s"):
        parse_experiment(text, "x.yaml")


# --- store and report -------------------------------------------------------------------------


def _search_row(key="s1", fmax=150.0):
    flow = {"freq_mhz": 100.0, "seed": 1, "nowidelut": False, "abc9": False,
            "synth_timeout_s": 1800.0, "pnr_timeout_s": 3600.0,
            "fmax_search": {"low_mhz": 50.0, "high_mhz": 400.0, "batch": 0, "patience": 2,
                            "budget_s": 1800.0, "seeds": 4}}
    return Row(key=key, experiment="e", arch="iterative", params={"sbox": "lut"},
               target="LFE5U-85F-8CABGA381", flow=flow, seed=1, freq_mhz=150.0, status="ok",
               luts=1400, ffs=300, brams=0, slices=700, fmax_mhz=fmax, fmax_raw_mhz=fmax,
               cycles_per_block=10, latency_cycles=11, throughput_mbps=128 * fmax / 10)


def _runs(key, values):
    return [PnrRun(key, n // 4, target, n % 4 + 1, achieved, achieved is not None, 1.0,
                   f"runs/{key}/r{n}.json")
            for n, (target, achieved) in enumerate(values)]


def test_store_keeps_every_run_and_replaces_them_with_the_row(tmp_path):
    with Store(tmp_path / "r.sqlite") as store:
        store.put(_search_row(), _runs("s1", [(150, 149.0), (160, 150.0), (300, None)]))
        got = store.pnr_runs(["s1"])["s1"]
        assert [(r.target_mhz, r.achieved_mhz, r.ok) for r in got] == [
            (150.0, 149.0, True), (160.0, 150.0, True), (300.0, None, False)]
        store.put(_search_row(), _runs("s1", [(151, 150.0)]))
        assert len(store.pnr_runs()["s1"]) == 1
        store.put(_search_row("plain"))  # a row without runs leaves the table alone
        assert set(store.pnr_runs()) == {"s1"} and integrity_check(store.path) == "ok"


def test_store_migrates_a_version_2_database(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as c:
        for script in MIGRATIONS[:2]:
            for statement in "\n".join(line.split("--")[0]
                                       for line in script.splitlines()).split(";"):
                if statement.strip():
                    c.execute(statement)
        c.execute("INSERT INTO points (key, experiment, arch, params, target, flow, seed, "
                  "freq_mhz, status) VALUES ('k', 'e', 'iterative', '{}', 't', '{}', 1, 50, "
                  "'ok')")
        c.execute("PRAGMA user_version = 2")
    with Store(path) as store:
        assert store.get("k").status == "ok" and store.pnr_runs() == {}


def test_report_states_converged_fmax_spread_and_bimodality():
    # Seeds 1 and 3 reach ~150 MHz, seeds 2 and 4 ~110 MHz, all aimed near 150 MHz.
    runs = {"s1": _runs("s1", [(150, 149.0), (150, 110.0), (150, 150.0), (150, 109.0),
                               (60, 61.0), (400, None)])}
    text = render([_search_row()], "markdown", runs=runs)
    assert "| 150.0 (±14%) [bimodal] |" in text
    assert "Fmax search (6 nextpnr runs): converged Fmax = the highest achieved Fmax" in text
    (obj,) = json.loads(render([_search_row()], "json", runs=runs))
    assert obj["fmax_search"]["bimodal"] is True and obj["fmax_search"]["runs"] == 6
    assert obj["fmax_search"]["contending"] == 4 and obj["fmax_min_mhz"] == 109.0
    # Without the runs (an older caller), the row renders as any other.
    assert "[bimodal]" not in render([_search_row()], "markdown")


# --- scheduling: a search runs alone, with every slot ------------------------------------------


class _Recorder:
    """Stands in for an executor: finishes points in submission order, one per poll, and
    records what was submitted while what else was running."""
    slots = search_width = 2
    rerun = frozenset()  # no worker is ever lost here

    def __init__(self):
        self.running, self.events = [], []
        self.on_stage = None

    in_flight = property(lambda self: len(self.running))

    def worker_versions(self):
        return {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def submit(self, key, point, experiment, versions, pnr_jobs=1):
        self.events.append(("submit", key, point.flow.fmax_search is not None, pnr_jobs,
                            self.in_flight))
        self.running.append((key, point))

    def poll(self, timeout):
        if not self.running:
            return []
        key, point = self.running.pop(0)
        self.events.append(("done", key))
        return [(key, Row(key=key, experiment="e", arch=point.arch, params=point.params_dict,
                          target=point.target.label, flow=point.flow.as_dict(),
                          seed=point.flow.seed, freq_mhz=point.flow.freq_mhz,
                          status="failed-flow", reason="recorded"))]


def test_sweep_runs_a_search_alone_with_every_slot(tmp_path, monkeypatch):
    from aesdse.engine import executors
    from aesdse.experiment import Experiment
    from aesdse.engine.sweep import sweep
    recorder = _Recorder()
    monkeypatch.setattr(executors, "make_executor", lambda *args, **kwargs: recorder)
    plain = parse_experiment("name: p\narchitectures:\n  - arch: iterative\n"
                             "    params: {sbox: [lut, composite, tower]}\n")
    searched = parse_experiment(_yaml(sbox="[lut, composite]"))
    points = (plain.points[0], searched.points[0], *plain.points[1:], searched.points[1])
    exp = Experiment("mixed", "", "x.yaml", points)
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "results", jobs=2, echo=None)
    assert summary.done == 5
    events = recorder.events
    submits = [e for e in events if e[0] == "submit"]
    assert [e[3] for e in submits if e[2]] == [2, 2]  # searches: both slots
    assert all(e[3] == 1 for e in submits if not e[2])
    for n, e in enumerate(events):
        if e[0] == "submit" and e[2]:
            assert e[4] == 0  # started with nothing else running
            assert events[n + 1] == ("done", e[1])  # and nothing started beside it
    # Plain points still run two at a time.
    assert max(e[4] for e in submits) >= 1


# --- end to end through the CLI with the fake tools ---------------------------------------------


def _cli(*args, env):
    return subprocess.run([sys.executable, "-c", "from aesdse.cli import main; main()",
                           *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=300)


def test_sweep_with_fmax_search_end_to_end(tmp_path):
    log = tmp_path / "tools.log"
    env = dict(os.environ, YOSYS=str(FAKE / "fake_yosys"),
               NEXTPNR_ECP5=str(FAKE / "fake_nextpnr"), FAKE_TOOL_LOG=str(log),
               FAKE_NEXTPNR_PEAK="150")
    for name in ("FAKE_YOSYS_CRASH", "FAKE_YOSYS_HANG", "FAKE_NEXTPNR_CRASH",
                 "FAKE_NEXTPNR_HANG", "FAKE_TOOL_SLEEP"):
        env.pop(name, None)
    exp = tmp_path / "search.yaml"
    # Two designs: two worker processes; each search gets both slots for its nextpnr batches.
    # A bracket around the fake peak: three batches of two runs each (the default bracket, 50
    # to 400 MHz, takes seven; how a search narrows a bracket is tested above).
    exp.write_text(_yaml("    low_mhz: 100\n    high_mhz: 200\n    seeds: 2",
                         sbox="[lut, composite]"))
    db, results = tmp_path / "db.sqlite", tmp_path / "results"
    args = ["sweep", exp, "--db", db, "--results-dir", results, "--jobs", "2", "--json"]

    def pnr_lines():
        return [line for line in log.read_text().splitlines() if line.startswith("nextpnr")]

    first = _cli(*args, env=env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert json.loads(first.stdout.splitlines()[-1])["ran"] == 2
    with Store(db) as store:
        rows, runs = store.rows(), store.pnr_runs()
    assert len(rows) == 2 and all(r.status == "ok" for r in rows)
    lines = pnr_lines()
    assert len(lines) == sum(len(v) for v in runs.values())  # every run stored, none repeated
    assert len({line.split()[-1] for line in lines}) == 2  # two netlists
    for row in rows:
        mine = runs[row.key]
        assert len({(r.target_mhz, r.seed) for r in mine}) == len(mine) >= 4
        assert {r.seed for r in mine} == {1, 2}
        for r in mine:
            report = json.loads(Path(r.report_path).read_text())
            assert report["fmax"]["clk"]["achieved"] == r.achieved_mhz and r.ok
        best = max(mine, key=lambda r: r.achieved_mhz)
        # Converged Fmax: the best achieved of the routed runs (fake peak 150 + 0.5 for seed 2).
        assert row.fmax_mhz == best.achieved_mhz == pytest.approx(150.5, abs=1.0)
        assert (row.freq_mhz, row.seed) == (best.target_mhz, best.seed)
        assert row.throughput_mbps == pytest.approx(128 * row.fmax_mhz / row.cycles_per_block)
        assert (Path(row.artifacts) / "fmax_search.json").exists()

    # Again: nothing runs. With --force: every nextpnr run comes from the stage cache.
    assert _cli(*args, env=env).returncode == 0 and len(pnr_lines()) == len(lines)
    forced = _cli(*args, "--force", env=env)
    assert forced.returncode == 0 and len(pnr_lines()) == len(lines)
    with Store(db) as store:
        assert {r.key: r.fmax_mhz for r in store.rows()} == {r.key: r.fmax_mhz for r in rows}
        assert all(r.cache_hits == "design,synth,pnr" for r in store.rows())

    report = _cli("report", exp, "--db", db, "--format", "json", env=env)
    assert report.returncode == 0, report.stderr
    objects = json.loads(report.stdout)
    assert sorted(o["fmax_search"]["runs"] for o in objects) == sorted(
        len(v) for v in runs.values())
    assert all(o["fmax_mhz"] == o["fmax_search"]["fmax_mhz"] for o in objects)
