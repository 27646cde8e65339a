"""Measure the tabular design space that ``bench/explore.py`` replays searches against.

Issue 47 asks for a table of real rows, measured once and shipped, so that search strategies
can be compared in seconds and deterministically (the way NAS-Bench tables serve architecture
search). This script measures it: every valid point of each slice below
(:meth:`archs.Family.valid_points`, so the dependency rules decide what is in it), verified,
synthesized, placed and routed on the LFE5U-85F-8 with one placer seed, stored as ordinary rows
of the experiment ``explore_table`` in their own database (default
``results/explore_table.sqlite``). A point already stored there is not run again, so a killed
run resumes; ``--slices`` measures a part.

The slices (the S-box and compact slices are an hour or two on 2 cores; the T-box slice is more):

- ``sbox``: the S-box family whole (139 points, seconds each);
- ``compact``: the compact core with one lane and its own state memory at the 128-bit port, every
  datapath width, S-box, S-box pipeline, MixColumns and key S-box choice (232 points, about ten
  seconds each);
- ``tbox``: the T-box family whole (160 points, block RAM; one to six minutes each: its lane
  counts reach 9,000 LUT4, so this slice alone is hours on 2 cores).

The flow is the one of ``experiments/sbox.yaml`` (200 MHz target, no wide LUTs); the checks are
the FIPS-197 and SP 800-38A sample and 16 random vectors, without the Monte Carlo test, played
by the verify stage's default backend, and the netlist check is on as in every sweep. Export
the rows to ship them::

    python bench/explore_table.py                       # every slice
    python bench/explore_table.py --slices sbox --jobs 2
    aesdse db export --db results/explore_table.sqlite --by-experiment results/reference
    python bench/explore.py --table results/reference/explore_table.jsonl --arch sbox

Runs the real Yosys and nextpnr. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import archs  # noqa: E402
from aesdse.engine.sweep import sweep  # noqa: E402
from aesdse.experiment import parse_experiment  # noqa: E402
from aesdse.store.database import Store  # noqa: E402

NAME = "explore_table"
TARGET = {"device": "LFE5U-85F", "package": "CABGA381", "speed": 8}
FLOW = {"freq_mhz": 200, "seeds": 1, "nowidelut": True}
VERIFY = {"random_vectors": 16, "cavp": "sample", "monte_carlo": False}


def _compact(params: dict) -> bool:
    return (params["lanes"] == 1 and params["parallel_lanes"] == 1
            and params["port_width"] == 128 and not params["shared_memory"])


# slice name -> (family, which of its valid points)
SLICES = {
    "sbox": ("sbox", lambda params: True),
    "compact": ("compact", _compact),
    "tbox": ("tbox", lambda params: True),
}


def slice_points(name: str) -> list[dict]:
    """The parameters of every valid point of slice ``name``, in the family's order."""
    arch, keep = SLICES[name]
    return [dict(p) for p in archs.family(arch).valid_points() if keep(dict(p))]


def table_experiment(slices):
    """The experiment of the table's ``slices``: one architecture entry per valid point, checked
    like an experiment file."""
    entries = [{"arch": SLICES[s][0], "params": params}
               for s in slices for params in slice_points(s)]
    doc = {"name": NAME, "description": "The tabular design space of bench/explore.py.",
           "architectures": entries, "targets": [TARGET], "flow": FLOW, "verify": VERIFY}
    # As YAML text, so that it is checked by the loader of experiment files, lines and all.
    return parse_experiment(yaml.safe_dump(doc, sort_keys=False), "bench/explore_table.py")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slices", default=",".join(SLICES),
                        help=f"comma-separated, of {', '.join(SLICES)}")
    parser.add_argument("--db", type=Path, default=ROOT / "results" / f"{NAME}.sqlite")
    parser.add_argument("--results-dir", type=Path, default=ROOT / "results")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--dry-run", action="store_true", help="count the points and stop")
    args = parser.parse_args(argv)
    slices = [s.strip() for s in args.slices.split(",") if s.strip()]
    unknown = [s for s in slices if s not in SLICES]
    if unknown:
        parser.error(f"unknown slice {unknown[0]!r}; slices: {', '.join(SLICES)}")
    experiment = table_experiment(slices)
    print(f"{len(experiment.points)} points: "
          + ", ".join(f"{s} {len(slice_points(s))}" for s in slices))
    if args.dry_run:
        return 0
    with Store(args.db) as store:
        summary = sweep(experiment, store, args.results_dir, jobs=args.jobs)
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
