"""aesdse explore without tools: the explore: section's errors, the repair of invalid
suggestions, the front and its hypervolume, and searches replayed against synthetic tables
(:class:`aesdse.explore.evaluators.TableEvaluator`). tests/test_explore_engine.py runs the same
search through the engine with the fake tools."""

import hashlib
import math

import pytest

import archs
from aesdse.experiment import ExperimentError
from aesdse.explore.evaluators import TableEvaluator
from aesdse.explore.front import dominates, hypervolume, pareto_front
from aesdse.explore.journal import Journal
from aesdse.explore.output import result_json, summary_lines
from aesdse.explore.plan import parse_plan
from aesdse.explore.search import Explorer
from aesdse.explore.space import SearchSpace
from aesdse.store.database import Row

SPACE = """\
name: synthetic
architectures:
  - arch: iterative
    params:
      sbox: all
      sbox_stages: {{from: 0, to: 3}}
      lanes: [1, 2]
explore:
  objectives: {{throughput_mbps: max, luts: min}}
  constraints: [{constraints}]
  budget: {{pnr_runs: {budget}}}
  seeds: {seeds}
  sampler: {sampler}
  synthesis_first: {first}
"""


def plan_of(constraints="luts <= 4000", budget=40, seeds=1, sampler="tpe", first="true"):
    return parse_plan(SPACE.format(constraints=constraints, budget=budget, seeds=seeds,
                                   sampler=sampler, first=first), "x.yaml")


def synthetic_rows(plan, crash=()) -> list:
    """One row per valid candidate: LUT4 and throughput drawn from a hash of its label (a
    rugged table with no structure a sampler could exploit by luck of the seed), the second
    seed 2 MHz faster."""
    space = SearchSpace(plan.space)
    rows = []
    for candidate in space.valid_points("iterative"):
        h = int(hashlib.sha256(candidate.label.encode()).hexdigest()[:12], 16)
        luts, fmax, cpb = 800 + h % 5000, 60.0 + (h >> 16) % 140, 1 + (h >> 28) % 11
        for seed in (1, 2):
            failed = candidate.label in crash
            f = fmax + 2 * (seed - 1)
            numbers = {} if failed else dict(
                luts=luts, ffs=400, brams=0, slices=luts // 2, fmax_mhz=f,
                cycles_per_block=cpb, latency_cycles=cpb, throughput_mbps=128 * f / cpb,
                mbps_per_lut=128 * f / cpb / luts)
            rows.append(Row(key=f"{candidate.label} {seed}", experiment="t", arch="iterative",
                            params=dict(candidate.params), target="t", flow={}, seed=seed,
                            freq_mhz=100.0, status="failed-flow" if failed else "ok",
                            reason="nextpnr: crashed" if failed else None, **numbers))
    return rows


def true_front(plan, rows) -> set:
    from aesdse.explore.front import feasible, objective_vector, row_values
    ok = [r for r in rows if r.seed == 1 and feasible(r, plan.settings)]
    front = pareto_front(ok, lambda r: objective_vector(row_values(r), plan.settings))
    return {tuple(sorted(r.params.items())) for r in front}


# --- the explore: section ---------------------------------------------------------------


@pytest.mark.parametrize("old, new, message", [
    ("objectives: {throughput_mbps: max", "objectives: {area: max",
     "x.yaml:9: objectives: unknown metric 'area'; allowed: throughput_mbps, luts, "),
    ("constraints: [luts", "constraints: [lutz",
     "x.yaml:10: constraints: unknown metric 'lutz'; allowed: throughput_mbps, luts, "),
    ("budget: {pnr_runs: 40}", "budget: {pnr_runs: 0}",
     "x.yaml:11: pnr_runs: 0: a budget must be positive"),
    ("      lanes: [1, 2]", "      lane: [1, 2]",
     "x.yaml:7: params of iterative: unknown parameter 'lane'; allowed: sbox, sbox_stages, "),
    ("sbox: all", "sbox: [lutt]", "x.yaml:5: sbox: 'lutt' is not one of: lut, "),
    ("  seeds: 1", "  seeds: 1\n  seed_racing: fastest",
     "x.yaml:13: seed_racing: 'fastest' is not one of: front, halving"),
])
def test_a_bad_explore_section_is_a_file_line_error(old, new, message):
    text = SPACE.format(constraints="luts <= 4000", budget=40, seeds=1, sampler="tpe",
                        first="true")
    assert old in text
    with pytest.raises(ExperimentError) as info:
        parse_plan(text.replace(old, new), "x.yaml")
    assert str(info.value).startswith(message), str(info.value)


def test_a_negative_budget_and_a_malformed_constraint_are_refused():
    with pytest.raises(ExperimentError, match=r"^x.yaml:11: points: -3: a budget must be "
                                              r"positive"):
        parse_plan(SPACE.format(constraints="fits", budget="1, points: -3", seeds=1,
                                sampler="tpe", first="true"), "x.yaml")
    with pytest.raises(ExperimentError, match=r"^x.yaml:10: constraints: 'luts < 5' must be "):
        plan_of(constraints="luts < 5")


def test_the_space_takes_lists_ranges_and_all():
    plan = plan_of()
    (entry,) = plan.space
    domains = dict(entry.domains)
    assert domains["sbox"] == archs.FAMILIES["iterative"].param("sbox").choices
    assert domains["sbox_stages"] == (0, 1, 2, 3)
    assert domains["lanes"] == (1, 2)
    assert entry.free == ["sbox", "sbox_stages", "lanes"]


# --- repair -------------------------------------------------------------------------------


def test_an_invalid_suggestion_is_repaired_to_a_valid_point():
    plan = plan_of()
    space = SearchSpace(plan.space)
    fam = archs.FAMILIES["iterative"]
    wanted = {**fam.defaults(), "sbox": "lut", "sbox_stages": 3, "lanes": 2}
    assert fam.check_params(wanted) is not None  # a table S-box has no pipeline stages
    candidate, repaired = space.repair("iterative", wanted, 7)
    assert repaired
    got = dict(candidate.params)
    assert fam.check_params({**fam.defaults(), **got}) is None
    # What the family accepts of the suggestion is kept: the lanes, and one of the others.
    assert got["lanes"] == 2 and (got["sbox"] == "lut") != (got["sbox_stages"] == 3)


def test_a_search_never_builds_an_invalid_point_and_counts_the_repairs():
    plan = plan_of(budget=25)
    rows = synthetic_rows(plan)
    evaluator = TableEvaluator(rows)
    built = []
    original = evaluator.submit
    evaluator.submit = lambda c, seed, stage: (built.append(c), original(c, seed, stage))
    result = Explorer(plan, evaluator).run()
    fam = archs.FAMILIES["iterative"]
    assert built and all(fam.check_params({**fam.defaults(), **dict(c.params)}) is None
                         for c in built)
    assert result.repaired > 0


# --- the front ----------------------------------------------------------------------------


def test_hypervolume_of_a_known_staircase():
    # (1, 3) and (2, 1) against (4, 4): the boxes 3 x 1 and 2 x 3, overlapping in 2 x 1.
    assert hypervolume([(1.0, 3.0), (2.0, 1.0)], (4.0, 4.0)) == pytest.approx(3 * 1 + 2 * 2)
    assert hypervolume([(1.0, 1.0, 1.0)], (2.0, 3.0, 4.0)) == pytest.approx(1 * 2 * 3)
    assert hypervolume([(5.0, 0.0)], (4.0, 4.0)) == 0.0
    assert dominates((1, 1), (1, 2)) and not dominates((1, 2), (2, 1))


def test_the_search_finds_the_known_front_of_a_synthetic_table():
    """The whole iterative family (464 valid points of 1,728 combinations) on a table of pure
    noise, which no sampler can learn: the exact front within 70 P&R runs (15%) comes from
    synthesis-first pruning, which looks at nearly every candidate (cheap) and routes few."""
    plan = parse_plan(SPACE.replace("""    params:
      sbox: all
      sbox_stages: {{from: 0, to: 3}}
      lanes: [1, 2]
""", "    params: all\n").format(constraints="luts <= 4000", budget=70, seeds=1,
                                sampler="tpe", first="true"))
    rows = synthetic_rows(plan)
    wanted = true_front(plan, rows)
    evaluator = TableEvaluator(rows)
    result = Explorer(plan, evaluator).run()
    found = {tuple(sorted(s.first.params.items())) for s in result.front}
    space_size = len(SearchSpace(plan.space).valid_points("iterative"))
    assert space_size == 464
    assert found == wanted
    assert result.pnr_runs <= 70 < space_size / 6
    assert result.pruned > 0  # synthesis saved place-and-route runs


def test_constraints_are_honoured():
    plan = plan_of(constraints="luts <= 2500, throughput_mbps >= 1500", budget=40)
    result = Explorer(plan, TableEvaluator(synthetic_rows(plan))).run()
    assert result.front
    for summary in result.front:
        assert summary.median["luts"] <= 2500 and summary.median["throughput_mbps"] >= 1500
    assert any(p["why"].startswith("luts <= 2500: synthesis gives")
               for p in result.pruned_points)


@pytest.mark.parametrize("first", ["true", "false"])
def test_an_impossible_constraint_ends_saying_so_with_the_closest_points(first):
    plan = plan_of(constraints="luts <= 100", budget=10, first=first)
    rows = synthetic_rows(plan)
    result = Explorer(plan, TableEvaluator(rows)).run()
    assert result.infeasible and result.front == []
    lines = summary_lines(plan, result)
    assert lines[1] == "no evaluated point meets the constraints (luts <= 100); closest:"
    smallest = min(r.luts for r in rows)
    if first == "true":  # synthesis pruned every candidate: the closest by their figures
        assert result.pnr_runs == 0 and result.stopped_by == "space exhausted"
        assert len(result.closest_pruned) == 3
        assert result.closest_pruned[0]["synthesis"]["luts"] == smallest
        assert lines[2].endswith(f"(synthesis; pruned: luts <= 100: synthesis gives "
                                 f"{smallest})")
    else:
        assert len(result.closest) == 3
        assert result.closest[0].luts == min(r.luts for r in result.rows)
        assert lines[2].startswith(f"  iterative {result.closest[0].params}: luts ")
    assert result_json(plan, result)["infeasible"] is True


def test_a_failed_point_is_a_failed_trial_and_is_not_sampled_again():
    plan = plan_of(budget=60, first="false")
    space = SearchSpace(plan.space)
    crash = {c.label for c in space.valid_points("iterative")[::3]}
    evaluator = TableEvaluator(synthetic_rows(plan, crash=crash))
    asked = []
    original = evaluator.submit
    evaluator.submit = lambda c, seed, stage: (asked.append((c, seed)), original(c, seed, stage))
    explorer = Explorer(plan, evaluator)
    result = explorer.run()
    assert result.failed > 0
    assert len(asked) == len(set(asked))  # nothing evaluated twice
    from optuna.trial import TrialState
    failed_trials = [t for t in explorer.study.trials if t.state == TrialState.FAIL]
    assert len(failed_trials) == result.failed


def test_front_points_get_their_other_seeds_with_median_and_spread():
    plan = plan_of(budget=20, seeds=2)
    result = Explorer(plan, TableEvaluator(synthetic_rows(plan))).run()
    assert result.seed_runs >= len(result.front) > 0
    for summary in result.front:
        assert [r.seed for r in summary.rows] == [1, 2]
        low, high = summary.spread["fmax_mhz"]
        assert high - low == pytest.approx(2.0)
        assert summary.median["fmax_mhz"] == pytest.approx(low + 1.0)


def test_a_resumed_search_rebuilds_its_study_from_the_journal(tmp_path):
    plan = plan_of(budget=12)
    rows = synthetic_rows(plan)
    journal = tmp_path / "j.jsonl"
    first = Explorer(plan, TableEvaluator(rows), Journal(journal)).run()
    assert first.stopped_by == "P&R budget (12 runs)"
    # A table that remembers nothing: the known rows come back from a "database".
    known = first.rows

    class Stored(TableEvaluator):
        def known_rows(self, space):
            return list(known), []
    again = Explorer(plan, Stored(rows), Journal(journal))
    again.restore()
    assert again.result.pnr_runs == 12 and again.result.evaluated == first.evaluated
    assert again.result.pruned == first.pruned
    assert len(again.study.trials) == first.evaluated + first.pruned
    result = again.run()
    assert result.pnr_runs == 12 and math.isclose(result.hypervolume, first.hypervolume)


def test_the_shipped_exploration_holds_the_records_parameters():
    from pathlib import Path
    from aesdse.explore.plan import load_plan
    path = Path(__file__).parent.parent / "experiments" / "explore" / "iterative_logic.yaml"
    plan = load_plan(path)
    (entry,) = plan.space
    domains = dict(entry.domains)
    record = {"sbox": "tower", "sbox_stages": 7, "schedule": "split", "lean_control": True,
              "initial_add_round_key": "ring_input", "key_into_feedback": True,
              "key_schedule": "on_the_fly", "round_units": 1, "bram_rounds": 0}
    assert all(value in domains[name] for name, value in record.items())
    assert plan.flow.nowidelut and plan.settings.budget.pnr_runs == 40
    assert len(SearchSpace(plan.space).valid_points("unrolled")) == 640


def test_the_command_line_names_the_bad_line_and_the_allowed_names(tmp_path):
    from click.testing import CliRunner
    from aesdse.cli import main
    bad = tmp_path / "x.yaml"
    bad.write_text(SPACE.format(constraints="lutz <= 1", budget=4, seeds=1, sampler="tpe",
                                first="true"))
    result = CliRunner().invoke(main, ["explore", str(bad), "--db", str(tmp_path / "db")])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {bad}:10: constraints: unknown metric 'lutz'; "
                                    f"allowed: throughput_mbps, luts, ffs, ")
    good = tmp_path / "y.yaml"
    good.write_text(SPACE.format(constraints="fits", budget=4, seeds=1, sampler="tpe",
                                 first="true"))
    result = CliRunner().invoke(main, ["explore", str(good), "--objective", "area:max"])
    assert result.exit_code == 2
    assert "objectives: unknown metric 'area'; allowed: throughput_mbps, " in result.output
    result = CliRunner().invoke(main, ["explore", str(good), "--budget-pnr", "0"])
    assert result.exit_code == 2 and "0 is not in the range x>=1" in result.output
    assert not (tmp_path / "db").exists()


def test_a_sweep_ignores_the_explore_section():
    from aesdse.experiment import parse_experiment
    text = SPACE.replace("sbox: all", "sbox: [lut, composite]").replace(
        "sbox_stages: {{from: 0, to: 3}}", "sbox_stages: 0").format(
        constraints="fits", budget=4, seeds=1, sampler="tpe", first="true")
    assert len(parse_experiment(text).points) == 4  # 2 S-boxes x 2 lane counts
