"""Regenerate the generated blocks of README.md and docs/*.md from the reference results.

Every table of measured numbers in the documentation is a *generated block*::

    <!-- aesdse:table NAME (COMMAND) -->
    ...
    <!-- aesdse:end NAME -->

``NAME`` names what the block shows (:func:`render_block`), ``COMMAND`` is how a reader prints
the same table from their own database. The numbers come from the reference results shipped in
``results/reference/*.jsonl`` (:func:`aesdse.store.exchange.open_reference`), never from a hand
edit; a table whose data is not there yet is a placeholder that says so and how to make it.

Names:

``records``
    The records table of ``bench/records.py`` (the best verified point per class).
``report/EXPERIMENT`` (``report/EXPERIMENT/family``)
    ``aesdse report experiments/EXPERIMENT.yaml`` (``--group-by family``).
``compare/KEY``
    ``aesdse reproduce KEY --no-sweep``: paper KEY's measured-vs-published table, with the area
    on the paper's own fabric where that was measured.
``critical-path/EXPERIMENT``
    ``aesdse report experiments/EXPERIMENT.yaml --critical-path``.

    python bench/readme.py              # check: exit 1 and name each block that differs
    python bench/readme.py --write      # rewrite the blocks in place
    python bench/readme.py --reference other/dir --write

``tests/test_readme_drift.py`` runs the check, so the documentation cannot drift from the data.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aesdse.experiment import load_experiment  # noqa: E402
from aesdse.report.compare import compare, render_compare  # noqa: E402
from aesdse.report.critical_path import render_critical_paths  # noqa: E402
from aesdse.report.gcm import is_gcm_row, render_gcm  # noqa: E402
from aesdse.report.published import find_paper  # noqa: E402
from aesdse.report.select import select_rows  # noqa: E402
from aesdse.report.table import family_of_row, render  # noqa: E402
from aesdse.reproduce import ALSO, EXPERIMENTS  # noqa: E402
from aesdse.store.database import Store  # noqa: E402
from aesdse.store.provenance import Checkout  # noqa: E402

__all__ = ["BLOCK", "DOCUMENTS", "REFERENCE", "Drift", "render_block", "regenerate", "check",
           "open_reference_store", "main"]

#: The reference results, relative to the repository.
REFERENCE = ROOT / "results" / "reference"

#: The files whose generated blocks are checked: the README and every page under docs/.
DOCUMENTS = ("README.md", "docs/*.md")

EXPERIMENTS_DIR = ROOT / "experiments"

#: A generated block: begin marker (name, command), body, end marker of the same name.
BLOCK = re.compile(r"<!-- aesdse:table (?P<name>\S+)(?: \((?P<command>[^)]*)\))? -->\n"
                   r"(?P<body>.*?)"
                   r"<!-- aesdse:end (?P=name) -->", re.S)

#: Generated blocks show the stored rows as they are: whether they are stale against the
#: checkout that renders them is not part of the documentation (it would change with every
#: edit of a generator). Every row is taken as current.
ANY_CHECKOUT = Checkout(tools={}, generator=lambda arch: None)


def open_reference_store(reference: Path = REFERENCE) -> Store:
    """An in-memory store of the reference results (``reference``'s ``*.jsonl`` files); empty
    (every block a placeholder) when there are none."""
    files = sorted(Path(reference).glob("*.jsonl"))
    if not files:
        return Store(":memory:")
    from aesdse.store.exchange import open_reference  # only needed when there are results
    return open_reference(files)


def _experiment(name: str):
    return load_experiment(EXPERIMENTS_DIR / f"{name}.yaml")


def not_yet(files: list[str], missing: int, total: int) -> str:
    """The placeholder of a table whose rows are not in the reference results."""
    sweeps = "; ".join(f"`aesdse sweep {f}`" for f in files)
    return (f"*Not yet in `results/reference/` ({missing} of {total} design points missing): "
            f"run {sweeps}, then export the rows to `results/reference/` with `aesdse db "
            f"export`.*\n")


def _partial(files: list[str], missing: int, total: int) -> str:
    if not missing:
        return ""
    return (f"\n*{missing} of {total} design points of {', '.join(f'`{f}`' for f in files)} "
            f"are not yet in `results/reference/`.*\n")


def _selection(store: Store, names: list[str]):
    """Rows of the experiments ``names`` (the first one's first), with the count of points
    missing and the total."""
    rows, missing, total = [], 0, 0
    for name in names:
        sel = select_rows(store, _experiment(name), checkout=ANY_CHECKOUT)
        rows += sel.rows
        missing += sel.missing
        total += sel.total
    return rows, missing, total


def _report(store: Store, experiment: str, option: str | None = None) -> str:
    files = [f"experiments/{experiment}.yaml"]
    rows, missing, total = _selection(store, [experiment])
    if not rows:
        return not_yet(files, missing, total)
    if option == "critical-path":
        return render_critical_paths(rows, "markdown") + _partial(files, missing, total)
    if option is None and all(is_gcm_row(r) for r in rows):
        # As `aesdse report` does for GCM rows: the GCM table (GHASH shares of path and area).
        return render_gcm(rows, "markdown", fmax="median") + _partial(files, missing, total)
    group = option == "family" or len({family_of_row(r) for r in rows}) > 1
    text = render(rows, "markdown", fmax="median", group_by="family" if group else None)
    return text + _partial(files, missing, total)


def _compare(store: Store, key: str) -> str:
    paper = find_paper(key)
    # Experiment names relative to experiments/, without ".yaml" ("records/9_gcm_pipelined").
    names = [str(Path(f).with_suffix("")) for f in (EXPERIMENTS[paper.key],
                                                   *ALSO.get(paper.key, ()))]
    files = [f"experiments/{n}.yaml" for n in names]
    rows, missing, total = _selection(store, names)
    if not rows:
        return not_yet(files, missing, total)
    table = render_compare(compare(rows, [paper], "median", all_papers=True), "markdown")
    return table + _partial(files, missing, total)


def _load_records():
    """bench/records.py as a module (it is a script beside this one), loaded once."""
    name = "bench_records"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "records.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


def _records(store: Store) -> str:
    bench_records = _load_records()
    rows = select_rows(store, checkout=ANY_CHECKOUT).rows
    found = bench_records.records(rows)
    if all(rec.row is None for rec in found):
        files = sorted(f"experiments/records/{p.name}"
                       for p in (EXPERIMENTS_DIR / "records").glob("*.yaml"))
        return (f"*Not yet in `results/reference/`: run `aesdse sweep` on "
                f"{', '.join(f'`{f}`' for f in files)}, then export the rows to "
                f"`results/reference/` with `aesdse db export`.*\n")
    return bench_records.records_markdown(found)


def parse_name(name: str) -> tuple[str, str, str | None]:
    """Block ``name`` as (kind, experiment or paper key, option): ``report/records/5_pipelined``
    is (``report``, ``records/5_pipelined``, None), ``report/targets/family`` (``report``,
    ``targets``, ``family``)."""
    kind, _, rest = name.partition("/")
    if rest.endswith("/family"):
        return kind, rest.removesuffix("/family"), "family"
    return kind, rest, None


def command_of(name: str) -> str:
    """The command a reader runs to print block ``name`` from their own database."""
    kind, experiment, option = parse_name(name)
    if kind == "records" and not experiment:
        return "python bench/records.py"
    if kind == "report" and (EXPERIMENTS_DIR / f"{experiment}.yaml").is_file():
        return (f"aesdse report experiments/{experiment}.yaml"
                + (" --group-by family" if option == "family" else ""))
    if kind == "critical-path" and (EXPERIMENTS_DIR / f"{experiment}.yaml").is_file():
        return f"aesdse report experiments/{experiment}.yaml --critical-path"
    if kind == "compare" and experiment in EXPERIMENTS:
        return f"aesdse reproduce {experiment} --no-sweep"
    raise ValueError(f"unknown generated block {name!r} (records, report/EXPERIMENT, "
                     f"report/EXPERIMENT/family, compare/KEY, critical-path/EXPERIMENT)")


def render_block(name: str, store: Store) -> str:
    """The Markdown body of generated block ``name`` from the rows of ``store``."""
    command_of(name)  # an unknown name is an error before anything is read
    kind, experiment, option = parse_name(name)
    if kind == "records":
        return _records(store)
    if kind == "report":
        return _report(store, experiment, option)
    if kind == "critical-path":
        return _report(store, experiment, "critical-path")
    return _compare(store, experiment)


def regenerate(text: str, store: Store) -> str:
    """``text`` with every generated block (markers included) rendered again."""
    def block(match):
        name = match["name"]
        return (f"<!-- aesdse:table {name} ({command_of(name)}) -->\n"
                f"{render_block(name, store)}<!-- aesdse:end {name} -->")
    return BLOCK.sub(block, text)


@dataclass
class Drift:
    """A document whose generated blocks differ from what the reference results give."""
    path: Path
    diff: str


def documents(root: Path = ROOT) -> list[Path]:
    """The checked documents under ``root``."""
    return sorted(p for pattern in DOCUMENTS for p in root.glob(pattern))


def check(paths: list[Path], store: Store, *, write: bool = False) -> list[Drift]:
    """The documents among ``paths`` whose generated blocks differ (rewritten when ``write``)."""
    drifts = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        new = regenerate(text, store)
        if new != text:
            diff = "".join(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                f"{path} (as written)", f"{path} (generated)"))
            drifts.append(Drift(path, diff))
            if write:
                path.write_text(new, encoding="utf-8")
    return drifts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the blocks in place")
    parser.add_argument("--reference", type=Path, default=REFERENCE,
                        help="directory of exported results (*.jsonl)")
    parser.add_argument("files", nargs="*", type=Path,
                        help="documents (default: README.md and docs/*.md)")
    args = parser.parse_args(argv)
    store = open_reference_store(args.reference)
    try:
        drifts = check(args.files or documents(), store, write=args.write)
    finally:
        store.close()
    for drift in drifts:
        print(f"{drift.path}: {'rewritten' if args.write else 'differs from the reference'}")
        if not args.write:
            sys.stdout.write(drift.diff)
    if drifts and not args.write:
        print("run `python bench/readme.py --write` to regenerate", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
