"""bench/explore.py: strategies replayed against a table of rows, on a small synthetic table
(the S-box family's valid points) and on a table file in the format of ``aesdse db export``."""

import json

import pytest

from aesdse.store.exchange import row_record
from bench_modules import bench_module


@pytest.fixture(scope="module")
def bench():
    with bench_module("explore") as module:
        yield module


def _without_cpu(out: dict) -> dict:
    return {**out, "strategies": {name: {k: v for k, v in s.items() if k != "cpu_s"}
                                  for name, s in out["strategies"].items()}}


def test_a_replay_is_deterministic_and_reaches_the_whole_front(bench, capsys):
    args = ["--arch", "sbox", "--seeds", "2", "--budget", "0.5", "--strategies",
            "grid,random", "--json"]
    assert bench.main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert bench.main(args) == 0
    assert _without_cpu(json.loads(capsys.readouterr().out)) == _without_cpu(first)
    assert first["points"] == 139 and first["budget"] == 70
    for name, s in first["strategies"].items():
        assert 0 < s["hv_at_5pct"] <= s["hv_at_10pct"] <= s["hv_at_15pct"] <= 1.0, name
    # Half the table's points as the budget: with synthesis-first pruning the replay reaches
    # the whole front's hypervolume, and never pruned a point of that front.
    pruning = first["strategies"]["random + synthesis-first"]
    assert pruning["runs_to_95pct"] <= 70 and pruning["pruned_front_points"] == 0


def test_a_table_file_replays_like_the_rows_it_holds(bench, tmp_path, capsys):
    from aesdse.explore.plan import parse_plan
    from aesdse.explore.space import SearchSpace
    plan = parse_plan(bench.PLAN.format(arch="sbox", budget=1, first="true", params="all"))
    rows = bench.synthetic_table(SearchSpace(plan.space), "sbox")
    table = tmp_path / "table.jsonl"
    table.write_text("".join(json.dumps(row_record(r, [], host_paths=False)) + "\n"
                             for r in rows))
    args = ["--arch", "sbox", "--seeds", "1", "--budget", "0.2", "--strategies", "random",
            "--json"]
    assert bench.main(args) == 0
    synthetic = json.loads(capsys.readouterr().out)
    assert bench.main(["--table", str(table), *args]) == 0
    replayed = json.loads(capsys.readouterr().out)
    for name in ("random", "random + synthesis-first"):
        a, b = synthetic["strategies"][name], replayed["strategies"][name]
        assert {k: v for k, v in a.items() if k != "cpu_s"} == \
            {k: v for k, v in b.items() if k != "cpu_s"}
    assert replayed["table"] == str(table)


def test_a_table_of_a_slice_is_replayed_on_that_slice(bench, tmp_path, capsys):
    # A table measures a slice of its family (the compact slice of bench/explore_table.py):
    # the replay's space is the values its rows take, so no candidate is missing from it.
    from aesdse.explore.plan import parse_plan
    from aesdse.explore.space import SearchSpace
    plan = parse_plan(bench.PLAN.format(arch="sbox", budget=1, first="true", params="all"))
    rows = [r for r in bench.synthetic_table(SearchSpace(plan.space), "sbox")
            if r.params["direction"] == "encrypt" and r.params["sbox"] in ("composite", "tower")]
    assert json.loads(bench.table_params(rows))["direction"] == ["encrypt"]
    table = tmp_path / "slice.jsonl"
    table.write_text("".join(json.dumps(row_record(r, [], host_paths=False)) + "\n"
                             for r in rows))
    assert bench.main(["--table", str(table), "--arch", "sbox", "--seeds", "1", "--budget",
                       "1.0", "--strategies", "grid", "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["points"] == len(rows) == 16 and "not in it" not in captured.err
    # Every point of the slice routed once: the whole front found.
    assert out["strategies"]["grid"]["hv_at_15pct"] <= 1.0
    assert out["strategies"]["grid"]["runs_to_95pct"] <= len(rows)


def test_the_measured_table_is_every_valid_point_of_its_slices():
    with bench_module("explore_table") as table:
        counts = {name: len(table.slice_points(name)) for name in table.SLICES}
    assert counts == {"sbox": 139, "compact": 232, "tbox": 160}
    compact = table.slice_points("compact")
    assert all(p["lanes"] == 1 and p["port_width"] == 128 and not p["shared_memory"]
               for p in compact)
    # Checked like an experiment file: one design point per valid point, one seed each.
    experiment = table.table_experiment(["sbox"])
    assert experiment.name == "explore_table" and len(experiment.points) == 139
    assert {p.flow.seed for p in experiment.points} == {1}
