"""Every report of the reference results, rendered by this checkout and by another revision, file
by file: a change to the reports that should not change their output is checked here.

Renders, for the rows of each experiment in ``results/reference/`` (and all of them, and none),
the metrics table with each seed statistic, with provenance and grouped by device family, the
GCM table and measured vs published (two ways), in every text format; the critical paths
(Markdown, JSON) and the resources table; with ``--html`` also the HTML report of a few
experiments. Each revision renders in its own process with its own code on the path (``--base``
is checked out into a temporary directory with ``git archive``), through the functions both have
always had (``aesdse.report.table.render``, ``render_gcm``, ``render_compare``, ...). Prints the
files that differ and exits 1 if any does.

    python bench/report_outputs.py                  # against HEAD~1
    python bench/report_outputs.py --base main --html
    python bench/report_outputs.py --keep out/      # keep both renderings under out/A, out/B
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Experiments whose HTML report is rendered with ``--html`` (plotly.js makes each file ~5 MB).
HTML_EXPERIMENTS = ("quickstart", "targets", "compact")


def _rows(reference: Path):
    """The reference rows by experiment, every row taken as current (as bench/readme.py does)."""
    from aesdse.report.select import select_rows
    from aesdse.store.exchange import open_reference
    from aesdse.store.provenance import Checkout
    store = open_reference(sorted(reference.glob("*.jsonl")))
    rows = select_rows(store, checkout=Checkout(tools={}, generator=lambda arch: None)).rows
    by_experiment: dict = {"ALL": rows, "EMPTY": []}
    for row in rows:
        by_experiment.setdefault((row.experiment or "none").replace("/", "_"), []).append(row)
    return by_experiment


def _texts(name: str, rows: list):
    """(file name, text) of every text report of ``rows``."""
    from aesdse.report.compare import compare, render_compare
    from aesdse.report.critical_path import render_critical_paths
    from aesdse.report.gcm import render_gcm
    from aesdse.report.published import load_papers
    from aesdse.report.resources import resources_markdown
    from aesdse.report.table import render
    papers = load_papers()
    provenance = {r.key: (["generator"], 1) for r in rows[::3]}
    for fmt in ("markdown", "csv", "latex", "json"):
        for fmax in ("median", "best", "all"):
            yield f"{name}.metrics.{fmax}.{fmt}", render(rows, fmt, title=name, fmax=fmax)
        yield f"{name}.metrics.provenance.{fmt}", render(rows, fmt, provenance=provenance)
        yield f"{name}.metrics.family.{fmt}", render(rows, fmt, title=name, group_by="family",
                                                     provenance=provenance)
        yield f"{name}.gcm.{fmt}", render_gcm(rows, fmt, title=name)
        yield f"{name}.compare.{fmt}", render_compare(compare(rows, papers), fmt, title=name)
        yield f"{name}.compare_all.{fmt}", render_compare(
            compare(rows, papers, all_papers=True, rate=2.0), fmt)
    for fmt in ("markdown", "json"):
        yield f"{name}.critical_path.{fmt}", render_critical_paths(rows, fmt, title=name)
    yield f"{name}.resources.markdown", resources_markdown(rows, papers, title=name)


def render_all(out: Path, reference: Path, html: bool) -> int:
    """Write every report into ``out``; returns the number of files."""
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for name, rows in sorted(_rows(reference).items()):
        for file, text in _texts(name, rows):
            (out / file).write_text(text, encoding="utf-8")
            count += 1
        if html and name in HTML_EXPERIMENTS:
            from aesdse.report.html import render_html
            (out / f"{name}.html").write_text(render_html(rows, title=name, group_by="family"),
                                             encoding="utf-8")
            count += 1
    return count


def _render_in(checkout: Path, out: Path, html: bool) -> None:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    subprocess.run([sys.executable, __file__, "--render", str(out),
                    "--reference", str(ROOT / "results" / "reference")]
                   + (["--html"] if html else []), env=env, check=True, cwd=checkout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD~1", help="git revision to compare with")
    parser.add_argument("--html", action="store_true", help="also the HTML report")
    parser.add_argument("--keep", type=Path, help="keep the renderings here (A: this, B: base)")
    parser.add_argument("--render", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--reference", type=Path, default=ROOT / "results" / "reference",
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.render:  # one revision's rendering, in its own process
        print(f"{render_all(args.render, args.reference, args.html)} files", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory(prefix="aesdse-report-outputs-") as scratch:
        scratch = Path(scratch)
        work = args.keep or scratch
        base = scratch / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        _render_in(ROOT, work / "A", args.html)
        _render_in(base, work / "B", args.html)
        names = sorted({p.name for p in (work / "A").iterdir()}
                       | {p.name for p in (work / "B").iterdir()})
        differ = [n for n in names if not ((work / "A" / n).exists() and (work / "B" / n).exists()
                                          and filecmp.cmp(work / "A" / n, work / "B" / n,
                                                          shallow=False))]
    for name in differ:
        print(f"differs: {name}")
    print(f"{len(names) - len(differ)} of {len(names)} reports identical to {args.base}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
