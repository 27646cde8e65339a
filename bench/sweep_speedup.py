"""Time a small real sweep with --jobs 1, --jobs 2 and a 2-worker Dask LocalCluster.

Prints, for each configuration, the wall time, the speedup over --jobs 1, and aesdse's own
overhead: wall time not spent in the tools (simulation, Yosys, nextpnr), as a fraction of the
tool time. With one job that is ``(wall - tools) / tools``; with N workers it is
``(N x wall - tools) / tools``, which also counts workers left idle at the end of the sweep.
Each configuration runs in a fresh directory (empty database and stage cache), so every point
really runs. Targets (issue 6): overhead under 5 % of tool time; speedup at least 1.8x with 2
jobs on 2 cores.

Runs the real Yosys and nextpnr: several minutes on 2 cores. Not part of the test suite.

    python bench/sweep_speedup.py                 # 8 standalone S-boxes
    python bench/sweep_speedup.py --points 4
    python bench/sweep_speedup.py --configs jobs1,jobs2
"""

import argparse
import itertools
import tempfile
import time
from pathlib import Path

import archs
from aesdse.experiment import parse_experiment
from aesdse.store.database import Store
from aesdse.engine.sweep import sweep

CONFIGS = {
    "jobs1": dict(jobs=1, executor="local"),
    "jobs2": dict(jobs=2, executor="local"),
    "dask-local2": dict(jobs=2, executor="dask-local"),
}


def experiment(points: int):
    """``points`` distinct small designs (distinct netlists: no stage is shared)."""
    if "sbox" in archs.FAMILIES:
        fam = archs.FAMILIES["sbox"]
        choices = {p.name: p.choices for p in fam.params}
        grid = itertools.product(choices.get("sbox", ("lut",)),
                                 choices.get("direction", ("encrypt",)))
        entries = [f"  - arch: sbox\n    params: {{sbox: {s}, direction: {d}}}\n"
                   for s, d in itertools.islice(grid, points)]
    else:
        entries = [f"  - arch: iterative\n    params: {{sbox: {s}}}\n"
                   for s in archs.FAMILIES["iterative"].param("sbox").choices[:points]]
    return parse_experiment("name: bench-speedup\narchitectures:\n" + "".join(entries)
                            + "verify:\n  random_vectors: 8\n", "<bench>")


def run(config: dict, exp) -> dict:
    with tempfile.TemporaryDirectory(prefix="aesdse-bench-") as tmp:
        with Store(Path(tmp) / "db.sqlite") as store:
            start = time.perf_counter()
            summary = sweep(exp, store, Path(tmp) / "results", echo=None, **config)
            wall = time.perf_counter() - start
            rows = store.rows()
    tools = sum((r.sim_seconds or 0) + (r.synth_seconds or 0) + (r.pnr_seconds or 0)
                for r in rows)
    workers = config["jobs"]
    return {"wall": wall, "tools": tools, "failed": len(summary.failed),
            "overhead": (workers * wall - tools) / tools if tools else float("nan"),
            "points": len(rows)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=8)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    args = parser.parse_args()
    exp = experiment(args.points)
    print(f"{len(exp.points)} design points: " + "; ".join(p.label for p in exp.points))
    results = {}
    for name in args.configs.split(","):
        results[name] = r = run(CONFIGS[name], exp)
        base = results.get("jobs1")
        speedup = f"{base['wall'] / r['wall']:.2f}x" if base else "-"
        print(f"{name:<12} wall {r['wall']:7.1f} s  tools {r['tools']:7.1f} s  "
              f"speedup {speedup:>6}  overhead {100 * r['overhead']:5.1f} %  "
              f"({r['points']} points, {r['failed']} failed)", flush=True)


if __name__ == "__main__":  # worker processes are spawned: they import this file
    main()
