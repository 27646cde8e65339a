"""Measure how far nextpnr's Fmax moves with the placer seed alone, on records points.

Each point is one configuration of an experiment (``experiments/records/*.yaml``, and
``experiments/unrolled.yaml`` for the iterative record; one architecture
entry, list-valued parameters and flow options fixed to the record's value) swept with placer
seeds 1..N (default 16) and nothing else changed: the same netlist placed and routed N times.
For each point it prints the median Fmax, the min-max range, the distribution-free 95% interval
of the median with its exact coverage (:func:`aesdse.report.stats.seed_spread`) and the
coefficient of variation (sample standard deviation / mean), and with ``--json`` writes them.

The points: the S-box record (encryption, the smallest: seconds per seed), the compact 8-bit
record (a minute or so per seed) and the fully pipelined record (~20,000 LUT4: several minutes
per seed; leave it out with ``--points sbox,compact``). The other records classes whose verdict
depends on the Fmax (``one_chip``, ``iterative``, ``iterative_logic``, ``tbox_pumped``,
``multimode``) are points too, measured on 5 seeds (``--seeds 5``) so that the records table
decides them. Rows go to their own database (default
``results/seed_noise.sqlite``), so the shipped reference results are untouched; a point already
measured there is not run again.

Runs the real Yosys and nextpnr. Not part of the test suite. The rows it stored are shipped as
``results/reference/seed_noise_*.jsonl`` (``aesdse db export --db results/seed_noise.sqlite
--by-experiment results/reference``): the records table decides those classes on 16 seeds.

    python bench/seed_noise.py                          # all three points, seeds 1..16
    python bench/seed_noise.py --points sbox --seeds 2  # the smallest, to try it out
    python bench/seed_noise.py --jobs 2 --json results/seed_noise.json
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aesdse.engine.sweep import sweep  # noqa: E402
from aesdse.experiment import parse_experiment  # noqa: E402
from aesdse.report.stats import seed_spread  # noqa: E402
from aesdse.report.table import aggregate, label  # noqa: E402
from aesdse.store.database import Store  # noqa: E402

__all__ = ["POINTS", "NOISE_POINTS", "point_experiment", "measure", "summarize", "main"]

#: name -> (experiment under experiments/, architecture entry index, parameter values fixed,
#: flow fixed). The first three are the 16-seed noise measurement; the others are the records
#: classes whose verdict depends on the Fmax, measured on 5 seeds so that the records table
#: decides them (``--points one_chip,iterative,iterative_logic,tbox_pumped,multimode --seeds 5``).
POINTS = {
    "sbox": ("records/1_sbox.yaml", 0, {"direction": "encrypt"}, {}),
    "compact": ("records/2_compact.yaml", 1, {}, {}),
    "pipelined": ("records/5_pipelined.yaml", 2, {"local_flag_copies": True},
                  {"placer_timing_weight": 30}),
    "one_chip": ("records/6_one_chip.yaml", 1, {}, {}),
    "iterative": ("unrolled.yaml", 0, {"schedule": "split", "sbox": "bram"}, {}),
    "iterative_logic": ("records/4_iterative_logic.yaml", 4, {}, {"nowidelut": True}),
    "tbox_pumped": ("records/7_tbox_pumped.yaml", 1, {"interleaved_blocks": 3}, {}),
    "multimode": ("records/8_multimode.yaml", 3, {}, {}),
}
#: The points of the 16-seed noise measurement (the default).
NOISE_POINTS = ("sbox", "compact", "pipelined")


def point_experiment(name: str, seeds: int):
    """The experiment of point ``name`` (:data:`POINTS`) with placer seeds 1..``seeds``."""
    file, index, params, flow = POINTS[name]
    data = yaml.safe_load((ROOT / "experiments" / file).read_text())
    entry = data["architectures"][index]
    given = dict(entry.get("params") or {})
    for group, members in list(given.items()):  # a fixed value replaces one in a group
        if isinstance(members, dict):
            given[group] = {k: v for k, v in members.items() if k not in params}
            if not given[group]:
                del given[group]
    entry["params"] = {**given, **params}
    data["architectures"] = [entry]
    data["flow"] = {**data["flow"], **flow, "seeds": seeds}
    data["name"] = f"seed_noise_{name}"
    return parse_experiment(yaml.safe_dump(data, sort_keys=False), f"<{file} {name}>")


def measure(names: list[str], seeds: int, db: Path, results_dir: Path, jobs: int) -> dict:
    """Sweep each point of ``names`` with ``seeds`` seeds into ``db``; point name -> its rows."""
    out = {}
    with Store(db) as store:
        for name in names:
            exp = point_experiment(name, seeds)
            sweep(exp, store, results_dir, jobs=jobs, live=False)
            # Every provenance of these configurations, oldest first: per seed, the table's
            # aggregation keeps the newest.
            out[name] = store.rows_by_config({p.config_key() for p in exp.points})
    return out


def summarize(name: str, rows: list) -> dict:
    """The seed statistics of one point's rows (verified rows only; failures counted)."""
    entries, failures = aggregate(rows, "median")
    if len(entries) != 1:
        return {"point": name, "error": f"{len(entries)} configurations", "failed": len(failures)}
    entry = entries[0]
    spread = seed_spread([r.fmax_mhz for r in entry.members])
    return {"point": name, "label": label(entry.row), "seeds": sorted(entry.seeds),
            "failed": len(failures), "fmax_mhz": sorted(r.fmax_mhz for r in entry.members),
            **({k: v for k, v in asdict(spread).items()} if spread else {})}


def _line(s: dict) -> str:
    if "median" not in s:
        return f"| {s['point']} | {s.get('error', 'no Fmax')} | | | | |"
    ci = (f"{s['ci_low']:.1f}-{s['ci_high']:.1f} ({s['coverage']:.1%})"
          if s["ci_low"] is not None else "- (< 5 seeds)")
    cv = f"{s['cv']:.1%}" if s["cv"] is not None else "-"
    return (f"| {s['point']}: {s['label']} | {s['count']} | {s['median']:.1f} | "
            f"{s['low']:.1f}-{s['high']:.1f} | {ci} | {cv} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", default=",".join(NOISE_POINTS),
                        help=f"comma-separated, of {', '.join(POINTS)} "
                             f"(default: {','.join(NOISE_POINTS)})")
    parser.add_argument("--seeds", type=int, default=16, help="placer seeds 1..N (default 16)")
    parser.add_argument("--db", type=Path, default=ROOT / "results" / "seed_noise.sqlite")
    parser.add_argument("--results-dir", type=Path, default=ROOT / "results" / "seed_noise")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the statistics here")
    args = parser.parse_args(argv)
    names = [n for n in args.points.split(",") if n]
    unknown = [n for n in names if n not in POINTS]
    if unknown or args.seeds < 1:
        parser.error(f"unknown points {unknown}" if unknown else "--seeds must be >= 1")
    rows = measure(names, args.seeds, args.db, args.results_dir, args.jobs)
    summary = [summarize(n, rows[n]) for n in names]
    print("| point | seeds | median Fmax (MHz) | min-max | 95% CI of the median (coverage) "
          "| CV |")
    print("|---|---:|---:|---:|---:|---:|")
    for s in summary:
        print(_line(s))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
        print(f"written: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
