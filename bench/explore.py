"""Replay search strategies of ``aesdse explore`` against a table of measured rows.

A table is a JSON Lines file of rows (the format of ``aesdse db export``): replaying a search
against it is deterministic and takes seconds, the way NAS-Bench tables serve architecture
search. Without ``--table`` a synthetic table of the iterative family (its 464 valid points)
is made: LUT4, Fmax and cycles per block are products of one random factor per parameter
value, times a 10% interaction noise per point, so a sampler that learns which values help
has something to learn (a table of pure noise would favour nobody).

For each strategy (grid order, random, multi-objective TPE, NSGA-II; each with and without
synthesis-first pruning) and each of ``--seeds`` search seeds, the search runs on the table
with a budget of ``--budget`` (a fraction of the table's points) place-and-route runs, and the
hypervolume of (throughput, LUT4) is measured after each P&R run as a fraction of the full
table's front. Printed: per strategy, the median fraction at 5%, 10% and 15% of the points, and
the median P&R runs until 95% (the issue's targets: 95% within 15% of the points, with at least
2x fewer P&R runs than random search).

Usage::

    python bench/explore.py                       # the synthetic table
    python bench/explore.py --table rows.jsonl --arch compact --seeds 10 --json
"""

import argparse
import hashlib
import json
import math
import random
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import optuna  # noqa: E402

import archs  # noqa: E402
from aesdse.explore.evaluators import TableEvaluator  # noqa: E402
from aesdse.explore.front import (feasible, hypervolume, objective_vector, pareto_front,  # noqa: E402
                                  reference_point, row_values)
from aesdse.explore.journal import Journal  # noqa: E402
from aesdse.explore.plan import parse_plan  # noqa: E402
from aesdse.explore.search import Explorer, make_sampler  # noqa: E402
from aesdse.explore.space import SearchSpace  # noqa: E402
from aesdse.store.database import Row  # noqa: E402

PLAN = """\
name: bench
architectures:
  - arch: {arch}
    params: {params}
explore:
  objectives: {{throughput_mbps: max, luts: min}}
  budget: {{pnr_runs: {budget}}}
  seeds: 1
  sampler: random
  synthesis_first: {first}
"""

STRATEGIES = ("grid", "random", "tpe", "nsga2")


def synthetic_table(space: SearchSpace, arch: str, seed: int = 47) -> list:
    """The synthetic table of the module documentation."""
    rng = random.Random(seed)
    factors = {}
    for name, values in space.entries[arch].domains:
        for value in values:
            factors[(name, value)] = (rng.uniform(0.6, 1.6), rng.uniform(0.75, 1.3),
                                      rng.choice((1.0, 1.0, 1.0, 0.5, 2.0)))
    rows = []
    for candidate in space.valid_points(arch):
        luts, fmax, cpb = 1500.0, 120.0, 11.0
        params = {**archs.FAMILIES[arch].defaults(), **dict(candidate.params)}
        for item in params.items():
            f = factors.get(item, (1.0, 1.0, 1.0))
            luts, fmax, cpb = luts * f[0], fmax * f[1], cpb * f[2]
        luts *= rng.uniform(0.9, 1.1)
        fmax *= rng.uniform(0.9, 1.1)
        cpb = max(1.0, round(cpb))
        throughput = 128 * fmax / cpb
        key = hashlib.sha256(candidate.label.encode()).hexdigest()[:20]
        rows.append(Row(key=key, experiment="bench", arch=arch,
                        params=dict(candidate.params), target="table", flow={}, seed=1,
                        freq_mhz=100.0, status="ok", luts=int(luts), ffs=int(luts / 2), brams=0,
                        slices=int(luts / 2), fmax_mhz=fmax, cycles_per_block=cpb,
                        latency_cycles=int(cpb), throughput_mbps=throughput,
                        mbps_per_lut=throughput / luts))
    return rows


class GridOrder(optuna.samplers.BaseSampler):
    """A sampler proposing the space's valid points in enumeration order (grid order)."""

    def __init__(self, space: SearchSpace, arch: str):
        self.space, self.points, self.next = space, space.valid_points(arch), 0
        self._base = optuna.samplers.RandomSampler(seed=0)

    def infer_relative_search_space(self, study, trial):
        return self.space.distributions()

    def sample_relative(self, study, trial, search_space):
        if self.next >= len(self.points):
            return {}
        params = self.space.trial_params(self.points[self.next])
        self.next += 1
        return params

    def sample_independent(self, study, trial, name, distribution):
        return self._base.sample_independent(study, trial, name, distribution)

    def reseed_rng(self):
        pass


def trajectory(plan, rows, explorer_rows, events) -> list:
    """Hypervolume fraction after each P&R run, in the order the search ran them."""
    by_key = {r.key: r for r in explorer_rows}
    vector = lambda r: objective_vector(row_values(r), plan.settings)  # noqa: E731
    ok = [r for r in rows if feasible(r, plan.settings)]
    reference = reference_point([vector(r) for r in ok])
    full = hypervolume([vector(r) for r in pareto_front(ok, vector)], reference)
    seen, out = [], []
    for event in events:
        if event["event"] == "evaluated" and event["pnr"]:
            row = by_key[event["key"]]
            if feasible(row, plan.settings):
                seen.append(vector(row))
            out.append(hypervolume(seen, reference) / full if full else 0.0)
    return out


def table_params(rows) -> str:
    """The space of a table's rows, as the ``params:`` of an experiment: every value each
    parameter takes among them (a table measures a slice of its family: its space is that
    slice, so that the search never asks for a point the table lacks)."""
    values: dict = {}
    for row in rows:
        for name, value in row.params.items():
            values.setdefault((row.arch, name), set()).add(value)
    # A row leaves out a parameter at its default (``omitted_at_default``): a row without it
    # measured the default value.
    for (arch, name), found in values.items():
        if any(name not in row.params for row in rows if row.arch == arch):
            found.add(archs.family(arch).param(name).default)
    # In the family's order of allowed values: the space (and so a seeded sampler's draws) is
    # the one an experiment listing the same values in that order gives.
    return json.dumps({name: [c for c in archs.family(arch).param(name).choices if c in found]
                       for (arch, name), found in sorted(values.items())})


def run_one(strategy, first, seed, arch, rows, budget, params="all") -> list:
    plan = parse_plan(PLAN.format(arch=arch, budget=budget, first=str(first).lower(),
                                  params=params))
    plan = replace(plan, settings=replace(plan.settings, seed=seed, sampler=strategy
                                          if strategy != "grid" else "random"))
    space = SearchSpace(plan.space, seed)
    sampler = GridOrder(space, arch) if strategy == "grid" else \
        make_sampler(strategy, seed, None)
    journal = Journal()
    result = Explorer(plan, TableEvaluator(rows), journal, sampler=sampler).run()
    # How often a pruned point would have been on the table's front (the costly mistake).
    vector = lambda r: objective_vector(row_values(r), plan.settings)  # noqa: E731
    front = {space.candidate(r.arch, r.params).label
             for r in pareto_front([r for r in rows if feasible(r, plan.settings)], vector)}
    wrong = sum(p["label"] in front for p in result.pruned_points)
    return trajectory(plan, rows, result.rows, journal.events), result.pruned, wrong


def summarize(curves, points, budget) -> dict:
    def at(fraction):
        k = max(1, math.ceil(fraction * points))
        return statistics.median(c[min(k, len(c)) - 1] if c else 0.0 for c in curves)

    def runs_to(target):
        found = [next((i + 1 for i, v in enumerate(c) if v >= target), math.inf) for c in curves]
        return statistics.median(found)
    return {"hv_at_5pct": at(0.05), "hv_at_10pct": at(0.10), "hv_at_15pct": at(0.15),
            "runs_to_95pct": runs_to(0.95), "budget": budget}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, help="JSON Lines rows (aesdse db export)")
    parser.add_argument("--arch", default="iterative")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=float, default=0.15,
                        help="P&R runs as a fraction of the table's points")
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.table:
        # One row per design: its lowest seed (the replay's P&R run).
        designs = TableEvaluator.from_file(args.table).by_design.values()
        rows = [seeds[min(seeds)] for seeds in designs if seeds[min(seeds)].arch == args.arch]
        params = table_params(rows)
        space = SearchSpace(parse_plan(PLAN.format(arch=args.arch, budget=1, first="true",
                                                   params=params)).space)
        missing = len(space.valid_points(args.arch)) - len(rows)
        if missing:
            print(f"warning: {missing} valid points of the table's space are not in it "
                  f"(replayed as failed rows)", file=sys.stderr)
    else:
        params = "all"
        space = SearchSpace(parse_plan(PLAN.format(arch=args.arch, budget=1, first="true",
                                                   params=params)).space)
        rows = synthetic_table(space, args.arch)
    budget = max(1, math.ceil(args.budget * len(rows)))
    out = {"table": str(args.table or "synthetic"), "points": len(rows), "budget": budget,
           "seeds": args.seeds, "strategies": {}}
    for strategy in args.strategies.split(","):
        for first in (False, True):
            start = time.process_time()
            curves, pruned, wrong = zip(*(run_one(strategy, first, seed, args.arch, rows, budget,
                                                  params)
                                          for seed in range(1, args.seeds + 1)))
            name = strategy + (" + synthesis-first" if first else "")
            out["strategies"][name] = {**summarize(curves, len(rows), budget),
                                       "pruned_median": statistics.median(pruned),
                                       "pruned_front_points": sum(wrong),
                                       "cpu_s": round(time.process_time() - start, 1)}
            if not args.json:
                s = out["strategies"][name]
                print(f"{name:28} HV@5% {s['hv_at_5pct']:.3f}  HV@10% {s['hv_at_10pct']:.3f}  "
                      f"HV@15% {s['hv_at_15pct']:.3f}  runs to 95%: {s['runs_to_95pct']}  "
                      f"pruned {s['pruned_median']} (front points among them: "
                      f"{s['pruned_front_points']})  ({s['cpu_s']} s CPU)", flush=True)
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
