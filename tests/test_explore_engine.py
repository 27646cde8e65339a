# amaranth: UnusedElaboratable=no
"""aesdse explore through the engine, with the fake tools on a synthetic design space.

The space is seven S-box designs (three kinds, up to two pipeline stages); the fake Yosys and
nextpnr report the LUT4 and Fmax of ``TABLE`` for each (``FAKE_TABLE``), so the front is
known. Each design is generated and verified once for the module (the ``warm_cache``
fixture); every test starts from a copy of that stage cache, so its candidates cost a fake
tool run or two each. Rows are stored by the sweep's recorder, as a sweep's are.
"""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.engine.synthesis import synthesize_point
from aesdse.experiment import parse_experiment
from aesdse.explore import explore
from aesdse.explore.journal import Journal, journal_path
from aesdse.explore.plan import parse_plan
from aesdse.explore.space import SearchSpace
from aesdse.flow.tools import tool_versions
from aesdse.store.database import Store

FAKE = Path(__file__).parent / "fake_tools"

SPACE = """\
name: sboxes
architectures:
  - arch: sbox
    params:
      sbox: [lut, composite, tower]
      sbox_stages: {{from: 0, to: 2}}
verify:
  random_vectors: 0
explore:
  objectives: {{luts: min, fmax_mhz: max}}
  constraints: [luts <= 2000]
  budget: {{pnr_runs: {budget}}}
  seeds: {seeds}
"""

#: (sbox, sbox_stages) -> (LUT4, Fmax at seed 1); seed n routes n - 1 MHz faster.
DESIGNS = {("lut", 0): (300, 170.0), ("composite", 0): (200, 100.0),
           ("composite", 1): (250, 160.0), ("composite", 2): (400, 140.0),
           ("tower", 0): (180, 90.0), ("tower", 1): (500, 120.0),
           ("tower", 2): (2500, 250.0)}
#: The feasible designs no other dominates (tower 2 breaks luts <= 2000).
FRONT = {("lut", 0), ("composite", 0), ("composite", 1), ("tower", 0)}


def plan_of(budget=6, seeds=2):
    return parse_plan(SPACE.format(budget=budget, seeds=seeds), "sboxes.yaml")


def design_of(params: dict) -> tuple:
    return params["sbox"], params["sbox_stages"]


def table(crash: dict | None = None) -> dict:
    """The fake tools' table: top module -> its numbers."""
    plan = plan_of()
    out = {}
    for candidate in SearchSpace(plan.space).valid_points("sbox"):
        params = dict(candidate.params)
        luts, fmax = DESIGNS[design_of(params)]
        entry = {"luts": luts, "ffs": 50, "fmax": fmax}
        if crash and design_of(params) in crash:
            entry["crash"] = crash[design_of(params)]
        out[plan.point("sbox", candidate.params).top_name] = entry
    return out


def _fake_env(env, tmp, crash=None) -> None:
    path = Path(tmp) / ("table-crash.json" if crash else "table.json")
    path.write_text(json.dumps(table(crash)))
    env["YOSYS"] = str(FAKE / "fake_yosys")
    env["NEXTPNR_ECP5"] = str(FAKE / "fake_nextpnr")
    env["FAKE_TABLE"] = str(path)
    env["FAKE_TOOL_LOG"] = str(Path(tmp) / "tools.log")


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory):
    """A stage cache holding every design (generated, verified) and netlist of the space."""
    root = tmp_path_factory.mktemp("warm")
    with pytest.MonkeyPatch.context() as mp:
        env = {}
        _fake_env(env, root)
        for name, value in env.items():
            mp.setenv(name, value)
        plan = plan_of()
        versions = tool_versions()
        for candidate in SearchSpace(plan.space).valid_points("sbox"):
            point = plan.point("sbox", candidate.params)
            figures = synthesize_point(point, str(root / "results"), point.key(versions))
            assert figures.status == "ok", figures.reason
    return root / "results" / "cache"


@pytest.fixture
def world(tmp_path, monkeypatch, warm_cache):
    """Fake tools reading the table, a results directory with the warm cache; returns a
    function giving the nextpnr runs logged so far as (top, seed)."""
    env = {}
    _fake_env(env, tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for name in ("FAKE_TOOL_SLEEP", "FAKE_NEXTPNR_CRASH", "FAKE_YOSYS_CRASH"):
        monkeypatch.delenv(name, raising=False)
    shutil.copytree(warm_cache, tmp_path / "results" / "cache")
    tops = {top for top in table()}

    def pnr_runs():
        log = tmp_path / "tools.log"
        lines = log.read_text().splitlines() if log.exists() else []
        return [line for line in lines if line.startswith("nextpnr")]
    pnr_runs.tops = tops
    return pnr_runs


def _explore_cli(tmp_path, *args):
    exp = tmp_path / "sboxes.yaml"
    if not exp.exists():
        exp.write_text(SPACE.format(budget=6, seeds=2))
    return CliRunner().invoke(main, ["explore", str(exp), "--db", str(tmp_path / "db.sqlite"),
                                     "--results-dir", str(tmp_path / "results"), "-j", "1",
                                     "--no-reference", *map(str, args)])


def _front(result_json) -> set:
    return {design_of(p["params"]) for p in result_json["front"]}


def test_a_fake_tool_search_finds_the_known_front(tmp_path, world):
    result = _explore_cli(tmp_path, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert _front(found) == FRONT
    # The design that breaks luts <= 2000 was pruned by synthesis: never placed and routed.
    assert found["pruned"] == 1 and found["pnr_runs_saved"] == 1
    assert found["pruned_points"][0]["why"] == "luts <= 2000: synthesis gives 2375"
    assert found["pnr_runs"] == 6 and found["failed"] == 0
    # Seeds are noise: each front point got its second seed, reported with the spread.
    assert found["seed_runs"] == len(FRONT)
    for point in found["front"]:
        low, high = point["spread"]["fmax_mhz"]
        assert point["seeds"] == [1, 2] and high - low == pytest.approx(1.0)
    # Ordinary rows: the report reads them.
    with Store(tmp_path / "db.sqlite", readonly=True) as store:
        rows = store.rows()
    assert len(rows) == 6 + len(FRONT) and {r.experiment for r in rows} == {"sboxes"}
    report = CliRunner().invoke(main, ["report", "--db", str(tmp_path / "db.sqlite"),
                                       "--format", "json"])
    assert report.exit_code == 0, report.output
    assert len(json.loads(report.output)) == 6


def test_the_progress_line_and_the_front_table(tmp_path, world):
    result = _explore_cli(tmp_path, "--budget-pnr", "3", "--seeds", "1")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("sboxes: 3 evaluated, ") and "P&R 3/3" in line
               for line in lines)
    assert any(line.startswith("sboxes: stopped by P&R budget (3 runs): 3 placed and routed")
               for line in lines)
    assert "## sboxes: the front" in result.output


def test_warm_start_from_stored_rows_runs_nothing_twice(tmp_path, world):
    from aesdse.engine.sweep import sweep
    text = SPACE.format(budget=6, seeds=1).split("explore:")[0].replace(
        "name: sboxes", "name: stored").replace(
        "sbox: [lut, composite, tower]", "sbox: [composite]").replace(
        "sbox_stages: {from: 0, to: 2}", "sbox_stages: [0, 1]")
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(parse_experiment(text), store, tmp_path / "results", echo=None)
    assert summary.done == 2
    swept = len(world())
    result = _explore_cli(tmp_path, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert found["warm_start"] == 2 and _front(found) == FRONT
    # The two stored points were not placed and routed again (their seed 1).
    assert found["pnr_runs"] == 4
    seed1 = [line for line in world()[swept:] if " seed=1 " in line]
    assert len(seed1) == 4 == len(set(seed1))


def test_a_crashing_tool_gives_a_failed_row_and_the_search_goes_on(tmp_path, world,
                                                                 monkeypatch):
    env = {}
    _fake_env(env, tmp_path, crash={("composite", 2): "nextpnr"})
    monkeypatch.setenv("FAKE_TABLE", env["FAKE_TABLE"])
    result = _explore_cli(tmp_path, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert found["failed"] == 1 and _front(found) == FRONT
    with Store(tmp_path / "db.sqlite", readonly=True) as store:
        failed = [r for r in store.rows() if r.status != "ok"]
    assert [design_of(r.params) for r in failed] == [("composite", 2)]
    assert failed[0].status == "failed-flow" and failed[0].reason.startswith("nextpnr")
    # Not sampled again: one nextpnr run per design placed and routed (the crash included),
    # one per extra seed of the front.
    assert len(world()) == 6 + len(FRONT)


def test_the_dask_executor_runs_the_search(tmp_path, world):
    pytest.importorskip("distributed")
    with Store(tmp_path / "db.sqlite") as store:
        result = explore(plan_of(budget=6, seeds=1), store, tmp_path / "results",
                         executor="dask-local", jobs=2, processes=False)
    assert {design_of(dict(s.first.params)) for s in result.front} == FRONT
    assert result.pnr_runs == 6 and result.evaluated == 6
    with Store(tmp_path / "db.sqlite", readonly=True) as store:
        assert len(store.rows()) == 6


def test_kill_9_resumes_without_running_a_finished_point_again(tmp_path, world):
    # Every design placed and routed (no synthesis-first pruning, a budget of all seven): the
    # front then does not depend on when the kill came, which candidates the sampler took
    # before it, or what the pruning's Fmax model had learned by then.
    exp = tmp_path / "sboxes.yaml"
    exp.write_text(SPACE.format(budget=7, seeds=2) + "  synthesis_first: false\n")
    db = tmp_path / "db.sqlite"
    env = os.environ.copy()
    env["FAKE_TOOL_SLEEP"] = "0.4"
    proc = subprocess.Popen([sys.executable, "-m", "aesdse", "explore", str(exp), "--db",
                             str(db), "--results-dir", str(tmp_path / "results"), "-j", "1",
                             "--no-reference", "--json"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if db.exists():
            try:
                with sqlite3.connect(db) as c:
                    stored = c.execute("SELECT count(*) FROM points").fetchone()[0]
            except sqlite3.Error:
                stored = 0
        if stored >= 3:
            break
        time.sleep(0.1)
    assert proc.poll() is None, "the explore ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Store(db, readonly=True) as store:
        before = {r.key: r for r in store.rows()}
    runs_before = len(world())
    # Resumed as a user resumes it: the same command again, in a process of its own.
    env.pop("FAKE_TOOL_SLEEP")
    resumed = subprocess.run([sys.executable, "-m", "aesdse", "explore", str(exp), "--db",
                              str(db), "--results-dir", str(tmp_path / "results"), "-j", "1",
                              "--no-reference", "--json"], env=env, capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    found = json.loads(resumed.stdout)
    with Store(db, readonly=True) as store:
        stored = [(r.key, r.params, r.seed, r.status) for r in store.rows()]
    assert _front(found) == FRONT and found["pnr_runs"] == 7 and found["pruned"] == 0, \
        (found, stored, sorted(before))
    # No finished point ran again: the runs after the kill are of other (top, seed) pairs.
    again = world()[runs_before:]
    with Store(db, readonly=True) as store:
        rows = store.rows()
    assert set(before) <= {r.key for r in rows}
    assert len(again) == len(rows) - len(before)
    # The study and the database agree: every evaluated event of the journal is a stored
    # row, and every stored row of the space is one evaluated event.
    journal = Journal(journal_path(db, "sboxes"))
    assert {e["key"] for e in journal.of("evaluated")} == {r.key for r in rows}


@pytest.mark.flow
def test_real_tools_synthesis_first_then_place_and_route(tmp_path, monkeypatch):
    """The one real-tool run: two S-boxes, synthesized by Yosys first (the figures the pruning
    reads), then placed and routed by nextpnr; the routed LUT4 is at least synthesis's less
    the margin, which the pruning's bound takes for granted; the full point took its design
    and netlist from the synthesis-only stages' cache."""
    for name in ("YOSYS", "NEXTPNR_ECP5", "FAKE_TABLE", "FAKE_TOOL_LOG"):
        monkeypatch.delenv(name, raising=False)
    text = SPACE.format(budget=2, seeds=1).replace(
        "sbox: [lut, composite, tower]", "sbox: [lut, composite]").replace(
        "sbox_stages: {from: 0, to: 2}", "sbox_stages: 0")
    plan = parse_plan(text, "real.yaml")
    with Store(tmp_path / "db.sqlite") as store:
        result = explore(plan, store, tmp_path / "results")
    assert result.pnr_runs == 2 and result.failed == 0 and result.front
    versions = tool_versions()
    for row in result.rows:
        point = plan.point(row.arch, tuple(sorted(row.params.items())))
        figures = synthesize_point(point, str(tmp_path / "results"), point.key(versions))
        # The place and route took the design and netlist of the synthesis-first look.
        assert figures.status == "ok" and row.cache_hits == "design,synth"
        assert figures.logic_depth is not None and figures.logic_depth >= 1
        assert row.luts >= figures.luts * (1 - plan.settings.lut_margin)


def test_reference_rows_warm_start_the_search_and_are_not_run(tmp_path, world):
    from aesdse.store.exchange import export_rows
    with Store(tmp_path / "first.sqlite") as store:
        explore(plan_of(budget=3, seeds=1), store, tmp_path / "results")
        shipped = store.rows()
        assert len(shipped) == 3
        export_rows(store, tmp_path / "reference.jsonl", shipped)
    runs = len(world())
    with Store(tmp_path / "db.sqlite") as store:
        result = explore(plan_of(budget=6, seeds=1), store, tmp_path / "results",
                         reference=[tmp_path / "reference.jsonl"])
    assert result.warm == 3 and result.pnr_runs == 3
    assert {design_of(dict(s.first.params)) for s in result.front} == FRONT
    # Only the three designs the reference lacks were placed and routed.
    assert len(world()) - runs == 3


def test_a_candidate_another_sweep_has_claimed_is_not_run_twice(tmp_path, world, monkeypatch):
    # Another live sweep on the database (a process holding the claims) runs every design's
    # seed 1: the explore waits for it instead of running them too. That sweep then dies
    # without storing a row: its claims are dead, and the explore runs each design itself,
    # once.
    import socket
    import threading
    plan = plan_of(budget=6, seeds=1)
    versions = tool_versions()
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    owner = f"{holder.pid}@{socket.gethostname()}"
    with Store(tmp_path / "db.sqlite") as store:
        for candidate in SearchSpace(plan.space).valid_points("sbox"):
            assert store.claim(plan.point("sbox", candidate.params, 1).key(versions), owner)
    log = tmp_path / "tools.log"
    waiting = threading.Event()
    looked = Store.claimed_by_others

    def claimed_by_others(self, keys, owner):
        waiting.set()   # the explore looks at the other sweep's claims: it waits for them
        return looked(self, keys, owner)
    monkeypatch.setattr(Store, "claimed_by_others", claimed_by_others)

    def let_go():
        waiting.wait(timeout=20)
        time.sleep(0.5)
        with log.open("a") as f:
            f.write("holder gone\n")
        holder.kill()
        holder.wait()
    thread = threading.Thread(target=let_go)
    thread.start()
    try:
        with Store(tmp_path / "db.sqlite") as store:
            result = explore(plan, store, tmp_path / "results")
    finally:
        thread.join()
        if holder.poll() is None:
            holder.kill()
    assert {design_of(dict(s.first.params)) for s in result.front} == FRONT
    lines = log.read_text().splitlines()
    routed = [line for line in lines if line.startswith("nextpnr")]
    # Nothing placed and routed while the other sweep held the claims; after, each once.
    assert lines.index("holder gone") < lines.index(routed[0])
    assert len(routed) == len(set(routed)) == result.pnr_runs == 6


def test_the_wall_time_budget_interrupts_a_running_candidate(tmp_path, world, monkeypatch):
    # Each place and route takes 30 s; the budget is 3 s of wall time. The explore stops the
    # running candidate at the budget instead of waiting for it, stores nothing of it (a
    # resumed explore runs it again) and says so.
    monkeypatch.setenv("FAKE_TOOL_SLEEP", "30")
    text = SPACE.format(budget=6, seeds=1).replace("budget: {pnr_runs: 6}",
                                                   "budget: {wall_s: 3}")
    plan = parse_plan(text, "sboxes.yaml")
    started = time.monotonic()
    with Store(tmp_path / "db.sqlite") as store:
        result = explore(plan, store, tmp_path / "results")
        rows = store.rows()
    assert time.monotonic() - started < 25
    assert result.interrupted == 1 and result.evaluated == 0 and rows == []
    assert result.stopped_by == "wall-time budget (3 s)"
    from aesdse.explore.output import summary_lines
    assert "1 running candidates interrupted (run again on resume)" in summary_lines(
        plan, result)[0]
    journal = Journal(journal_path(tmp_path / "db.sqlite", "sboxes"))
    assert list(journal.of("evaluated")) == []


def test_the_explore_figure_and_html_show_the_pruned_candidates(tmp_path, world):
    pytest.importorskip("plotly")
    from aesdse.report.plot_explore import pruned_marks
    result = _explore_cli(tmp_path, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    journal = Journal(journal_path(tmp_path / "db.sqlite", "sboxes")).of("pruned")
    assert len(journal) == found["pruned"] == 1
    # The journal keeps the best the pruning granted: drawn at synthesis's LUT4 and that.
    marks, missing = pruned_marks([{**e, "label": "tower 2"} for e in journal])
    if journal[0]["bound"] is None:
        assert (marks, missing) == ([], 1)
    else:
        bound = journal[0]["bound"]
        assert marks == [(journal[0]["synthesis"]["luts"], bound["throughput_mbps"], "tower 2")]
        assert bound["luts"] < journal[0]["synthesis"]["luts"]
    args = [str(tmp_path / "sboxes.yaml"), "--db", str(tmp_path / "db.sqlite")]
    plot = CliRunner().invoke(main, ["plot", *args, "--kind", "explore",
                                     "-o", str(tmp_path / "explore.svg")])
    assert plot.exit_code == 0, plot.output
    svg = (tmp_path / "explore.svg").read_text()
    assert "pruned by synthesis (" in svg and "Pareto front" in svg
    page = CliRunner().invoke(main, ["report", *args, "--format", "html",
                                     "-o", str(tmp_path / "r.html")])
    assert page.exit_code == 0, page.output
    text = (tmp_path / "r.html").read_text()
    assert ("Grey crosses" in text) == bool(marks)
    # Synthetic events: a bound gives a cross, no bound a count.
    events = [{"label": "a", "synthesis": {"luts": 300}, "bound": {"throughput_mbps": 900.0}},
              {"label": "b", "synthesis": {"luts": 200}, "bound": None}]
    assert pruned_marks(events) == ([(300, 900.0, "a")], 1)
    # The kind needs the exploration's file.
    bare = CliRunner().invoke(main, ["plot", "--db", str(tmp_path / "db.sqlite"), "--kind",
                                     "explore", "-o", str(tmp_path / "x.svg")])
    assert bare.exit_code != 0 and "needs the aesdse explore file" in bare.output


def test_nsga2_generations_survive_a_resume(tmp_path, world):
    # NSGA-II keeps its population by generation (a trial attribute): a resumed explore
    # rebuilds each finished trial in the generation it had, so the search goes on from its
    # last population instead of starting over.
    from aesdse.explore.evaluators import EngineEvaluator
    from aesdse.explore.search import Explorer
    key = "NSGAIISampler:generation"

    def plan(pnr_runs):
        text = SPACE.format(budget=pnr_runs, seeds=1).replace(
            f"budget: {{pnr_runs: {pnr_runs}}}", f"budget: {{pnr_runs: {pnr_runs}, points: 8}}")
        return parse_plan(text + "  sampler: nsga2\n  synthesis_first: false\n", "sboxes.yaml")

    def run(pnr_runs):
        with Store(tmp_path / "db.sqlite") as store:
            evaluator = EngineEvaluator(plan(pnr_runs), store, tmp_path / "results")
            journal = Journal(journal_path(tmp_path / "db.sqlite", "sboxes"))
            explorer = Explorer(plan(pnr_runs), evaluator, journal)
            explorer.run()
        return explorer

    first = run(3)
    told = {t.user_attrs["candidate"]: t.system_attrs[key] for t in first.study.trials
            if "candidate" in t.user_attrs}   # not the repeated suggestions, told pruned
    assert len(told) == 3 and set(told.values()) == {0}   # a population of 4: generation 0
    journal = Journal(journal_path(tmp_path / "db.sqlite", "sboxes"))
    assert len(journal.of("generation")) == len(told)
    resumed = run(7)
    trials = [t for t in resumed.study.trials if "candidate" in t.user_attrs]
    rebuilt = {t.user_attrs["candidate"]: t.system_attrs.get(key) for t in trials[:3]}
    assert rebuilt == told
    # The search went on from there into the next generation (4 to a population).
    generations = [t.system_attrs.get(key) for t in resumed.study.trials]
    assert None not in generations and generations == sorted(generations)
    assert generations[-1] >= 1


#: A chain of designs, each dominated by the one before at seed 1 (Fmax at seed 1; seed n is
#: n - 1 MHz faster), except that composite 0's seeds 2 to 4 route at 215 MHz: its first draw
#: was unlucky.
CHAIN = {("tower", 0): 200.0, ("composite", 0): 190.0, ("composite", 1): 180.0,
         ("lut", 0): 170.0, ("composite", 2): 160.0, ("tower", 1): 150.0, ("tower", 2): 250.0}


@pytest.mark.parametrize("racing, front, seed_runs", [
    # The front at seed 1 is tower 0 alone: only it gets seeds 2 to 4.
    ("front", {("tower", 0)}, 3),
    # Halving: of the 6 feasible designs the better 3 (ranks 1-3) get a second seed; composite
    # 0's median (190, 215) passes tower 0's (200, 201) and both get seeds 3 and 4: 3 + 4 runs.
    ("halving", {("tower", 0), ("composite", 0)}, 7),
])
def test_seeds_raced_by_successive_halving_find_a_design_its_first_seed_hid(
        tmp_path, world, racing, front, seed_runs):
    entries = json.loads(Path(os.environ["FAKE_TABLE"]).read_text())
    plan = plan_of()
    for candidate in SearchSpace(plan.space).valid_points("sbox"):
        design = design_of(dict(candidate.params))
        entry = entries[plan.point("sbox", candidate.params).top_name]
        entry["fmax"] = CHAIN[design]
        if design == ("composite", 0):
            entry["fmax_by_seed"] = {str(seed): 215.0 for seed in (2, 3, 4)}
    Path(os.environ["FAKE_TABLE"]).write_text(json.dumps(entries))
    (tmp_path / "sboxes.yaml").write_text(SPACE.format(budget=6, seeds=4))
    result = _explore_cli(tmp_path, "--seed-racing", racing, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert found["seed_racing"] == racing and found["pnr_runs"] == 6
    assert _front(found) == front and found["seed_runs"] == seed_runs
    for point in found["front"]:      # the front's points end with every seed either way
        assert point["seeds"] == [1, 2, 3, 4]
    medians = {design_of(p["params"]): p["median"]["fmax_mhz"] for p in found["front"]}
    assert medians[("tower", 0)] == pytest.approx(201.5)
    if racing == "halving":
        assert medians[("composite", 0)] == pytest.approx(215.0)


def test_a_candidate_stored_between_the_look_and_the_claim_is_not_run_again(tmp_path, world):
    # The race of test_sweep.py's scheduler test, in the explore's evaluator: this explore finds
    # no row; another sweep stores it and drops its claim; this explore's claim must fail, and
    # the stored row is taken, with nothing placed and routed here.
    from dataclasses import replace
    from aesdse.explore.evaluators import EngineEvaluator
    from aesdse.store.database import Row
    plan = plan_of(budget=1, seeds=1)
    candidate = next(iter(SearchSpace(plan.space).valid_points("sbox")))
    other = "1@another-host"
    with Store(tmp_path / "db.sqlite") as store:
        evaluator = EngineEvaluator(plan, store, tmp_path / "results")
        try:
            key = evaluator.key(candidate, 1)
            point = plan.point("sbox", candidate.params, 1)
            row = Row(key=key, experiment=plan.name, arch="sbox", params=dict(candidate.params),
                      target=point.target.label, flow=point.flow.as_dict(), seed=1,
                      freq_mhz=100.0, status="ok", luts=100, ffs=50, fmax_mhz=200.0,
                      throughput_mbps=1.0)
            assert store.claim(key, other)
            looked = store.get

            def get(k):
                found = looked(k)
                if found is None:  # the other sweep finishes right after this explore looked
                    store.put(replace(row), owner=other)
                return found
            store.get = get
            evaluator.submit(candidate, 1, "point")
            assert not evaluator.pending and list(evaluator.elsewhere) == [key]
            [(got, seed, stage, result)] = evaluator.poll(0.1)
            assert (got, seed, stage, result.key, result.luts) == (candidate, 1, "point", key, 100)
        finally:
            evaluator.close()
    assert world() == []
