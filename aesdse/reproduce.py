"""Reproduce a seed paper: run its experiment if needed, print measured vs published, draw plots.

``aesdse reproduce 000`` answers "does this paper reproduce on the open flow?" in one command:

1. find the paper (:func:`aesdse.report.published.find_paper`: key, short name or alias);
2. check that every architecture family its own designs need exists in :data:`archs.FAMILIES`
   (else :class:`ReproduceError`: nothing can be measured yet);
3. load its experiment (:data:`EXPERIMENTS`, under ``experiments/``) and the experiments that
   measure the same designs on other targets (:data:`ALSO`: 003's core as an asic estimate,
   the other seeds' designs on their own Xilinx fabrics);
4. sweep the design points not yet in the database (:func:`aesdse.engine.sweep.sweep`);
5. compare the measured rows with the paper's tables (:mod:`aesdse.report.compare`) and write
   the comparison and the figures to ``results/reproduce/<key>_<name>/``.

Without a sweep (``--no-sweep``) the rows come from the results database when it holds rows of
the experiments, else from the reference results shipped in ``results/reference/*.jsonl``
(:data:`REFERENCE_DIR`, read through :func:`aesdse.store.exchange.open_reference`), so a fresh
clone prints the table at once; ``--reference [PATH]`` reads reference files in any case.
"""

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import archs

from .experiment import load_experiment
from .fingerprint import current_checkout
from .report.published import Paper, find_paper
from .report.compare import compare, render_compare
from .report.plot import PlotError, bars_figure, pareto_figure, save
from .report.resources import resources_markdown
from .report.select import select_rows
from .report.table import family_of_row, render
from .store.database import Store
from .store.exchange import open_reference, reference_files

__all__ = ["EXPERIMENTS", "ALSO", "REFERENCE_DIR", "ReproduceError", "Reproduction", "plan",
           "reproduce"]

#: Paper key -> experiment file (relative to the experiments directory) that reproduces it.
EXPERIMENTS = {
    "000": "compact.yaml",      # Zhou & Gaj: folded 8/32/64-bit datapaths
    "001": "tbox.yaml",         # Kundi & Aziz: T-boxes in block RAM
    "002": "pipelined.yaml",    # Hodjat & Verbauwhede: fully pipelined, sub-pipelined S-boxes
    "003": "multimode.yaml",    # Lin & Huang: multi-mode, all key sizes
    "004": "unrolled.yaml",     # partial unrolling, two round units
    "200": "gcm.yaml",          # Lemsitzer et al.: GCM, multipliers against cipher datapaths
    "201": "gcm.yaml",          # Berghella's open AES-GCM core: its implementation table
}

#: Paper key -> further experiment files whose points the reproduction also sweeps and compares
#: (other targets of the same designs): 003's multi-mode core as a gate-equivalent estimate,
#: beside 003's own gate counts; the other seeds' designs on their own fabrics (an area estimate
#: of Yosys synth_xilinx beside the published slices, LUTs and block RAMs): 000 on Spartan-3,
#: 001 on Virtex-5/6/7, 002 on Virtex-II Pro, 004 on Virtex-5; and the configurations that make
#: a seed's idea pay off on ECP5 (issue 22): 001's double pumping with compressed T-box entries
#: in 4 DP16KD, 003's core with the key expander's control registered; the GCM reference 200's
#: cores on Virtex-4, its own fabric; beside 201's one-block-per-cycle and iterative GCM cores,
#: the GCM records' pipelined and iterative points (an ``ALSO`` file that does not exist is
#: skipped).
ALSO = {
    "000": ("compact_xilinx.yaml",),
    "001": ("tbox_xilinx.yaml", "tbox_compressed.yaml"),
    "002": ("pipelined_xilinx.yaml",),
    "003": ("multimode_asic.yaml", "multimode_fast.yaml"),
    "004": ("unrolled_xilinx.yaml",),
    "200": ("gcm_xilinx.yaml",),
    "201": ("records/9_gcm_pipelined.yaml", "records/11_gcm_balanced.yaml"),
}

#: Where the experiment files are: ``experiments/``, package data of :mod:`aesdse` (so a wheel
#: install has them; ``experiments/`` at the top of a checkout is a link to the same directory).
EXPERIMENTS_DIR = Path(str(resources.files("aesdse") / "experiments"))


#: The reference results of a checkout (``results/reference/*.jsonl`` at its top): what
#: ``reproduce --no-sweep`` reads when the database holds none of the experiment's rows.
REFERENCE_DIR = Path(__file__).resolve().parent.parent / "results" / "reference"


class ReproduceError(Exception):
    """A paper cannot be reproduced (yet); the message says why and what to do."""


@dataclass
class Reproduction:
    """What :func:`reproduce` did.

    Attributes
    ----------
    paper : Paper
    experiment : Path
    table : str
        The measured-vs-published comparison (Markdown).
    files : list of Path
        Files written (comparison, table, figures).
    swept : int
        Design points run by this call.
    failed : int
        Failed design points of the experiment (stored).
    missing : int
        Points still not in the database (when the sweep was skipped).
    notes : list of str
        Figures that could not be drawn, and why.
    source : str
        Where the rows came from: the database, or the reference files read.
    """
    paper: Paper
    experiment: Path
    table: str = ""
    files: list = field(default_factory=list)
    swept: int = 0
    failed: int = 0
    missing: int = 0
    notes: list = field(default_factory=list)
    source: str = ""


def plan(name: str, experiments_dir=None, experiment=None) -> tuple[Paper, Path]:
    """The paper called ``name`` and the experiment file that reproduces it.

    Raises
    ------
    ReproduceError
        Unknown paper, a family the paper needs is not implemented, or its experiment file does
        not exist yet.
    """
    try:
        paper = find_paper(name)
    except ValueError as e:
        raise ReproduceError(str(e)) from None
    needed = sorted({row.config["arch"] for row in paper.rows()
                     if row.this_work and row.config and "arch" in row.config})
    missing = [a for a in needed if a not in archs.FAMILIES]
    if missing:
        raise ReproduceError(
            f"Paper {paper.key} ({paper.name}, \"{paper.title}\") cannot be reproduced yet: its "
            f"designs need the architecture famil{'ies' if len(missing) > 1 else 'y'} "
            f"{', '.join(missing)}, which {'are' if len(missing) > 1 else 'is'} not implemented "
            f"(implemented: {', '.join(sorted(archs.FAMILIES))}; see `aesdse list archs`).")
    if experiment is not None:
        path = Path(experiment)
    elif paper.key not in EXPERIMENTS:
        raise ReproduceError(
            f"Paper {paper.key} ({paper.name}) is a reference paper, not a seed paper: it has no "
            f"experiment of its own; its rows are compared with any measured configuration they "
            f"name by `aesdse report EXPERIMENT --compare published` (e.g. "
            f"experiments/targets.yaml), or give --experiment FILE.")
    else:
        directory = EXPERIMENTS_DIR if experiments_dir is None else Path(experiments_dir)
        path = directory / EXPERIMENTS[paper.key]
    if not path.is_file():
        raise ReproduceError(
            f"Paper {paper.key} ({paper.name}) is reproduced by the experiment {_show(path)}, "
            f"which does "
            f"not exist yet; write it (see experiments/quickstart.yaml) or pass --experiment FILE.")
    return paper, path


def _show(path: Path) -> str:
    """``path`` relative to the working directory when it is below it (shorter messages)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def reproduce(name: str, db_path, results_dir="results", out_dir=None, *, run_sweep: bool = True,
              jobs: int = 1, echo=None, experiments_dir=None, experiment=None,
              fmax: str = "median", reference=None) -> Reproduction:
    """Reproduce paper ``name``; see the module docstring.

    Parameters
    ----------
    name : str
        Paper key (``000``), short name (``zhou_gaj``) or alias.
    db_path : path
        Results database.
    results_dir : path
        Artifacts of the sweep; the figures go to ``results_dir/reproduce/<key>_<name>/`` unless
        ``out_dir`` is given.
    run_sweep : bool
        Run the missing design points (else report what is there).
    jobs : int
        Parallel design points of the sweep.
    echo : callable, optional
        Progress lines of the sweep.
    experiments_dir, experiment : path, optional
        Where the experiment files are, or one file that overrides :data:`EXPERIMENTS`.
    fmax : str
        Seed aggregation of the table.
    reference : list of path, optional
        Read the rows from these exported files (directories: their ``*.jsonl``) instead of
        the database, and sweep nothing. Without a sweep and without ``reference``, the
        database is read when it holds rows of the experiments, else :data:`REFERENCE_DIR`.

    Raises
    ------
    ReproduceError
        See :func:`plan`.
    """
    paper, path = plan(name, experiments_dir, experiment)
    exp = load_experiment(path)
    directory = EXPERIMENTS_DIR if experiments_dir is None else Path(experiments_dir)
    also = [] if experiment is not None else \
        [load_experiment(directory / f) for f in ALSO.get(paper.key, ())
         if (directory / f).is_file()]
    result = Reproduction(paper, path)
    out = Path(out_dir) if out_dir is not None else \
        Path(results_dir) / "reproduce" / f"{paper.key}_{paper.name}"
    if run_sweep and reference is None:
        from .engine.sweep import sweep
        with Store(db_path) as store:
            for each in [exp] + also:
                result.swept += sweep(each, store, results_dir, jobs=jobs, echo=echo).done
    with _results(db_path, [exp] + also, reference, paper, result) as store:
        selection = _selection(store, [exp] + also)
    result.missing = selection.missing
    result.failed = sum(r.status != "ok" for r in selection.rows)
    _write_outputs(result, [exp] + also, selection, out, fmax)
    return result


def _results(db_path, experiments: list, reference, paper, result: Reproduction) -> Store:
    """The store the rows are read from (see :func:`reproduce`); ``result.source`` says which.

    Raises
    ------
    ReproduceError
        No database, and no reference files to fall back on.
    """
    if reference is None:
        shipped = reference_files([REFERENCE_DIR]) if REFERENCE_DIR.is_dir() else []
        if Path(db_path).is_file():
            store = Store(db_path, readonly=True)
            wanted = {p.config_key() for e in experiments for p in e.points}
            if not shipped or store.rows_by_config(wanted):
                result.source = str(db_path)
                return store
            store.close()
        elif not shipped:
            raise ReproduceError(f"{db_path}: no results database; run `aesdse reproduce "
                                 f"{paper.key}` without --no-sweep, or give --db")
        reference = [REFERENCE_DIR]
    files = reference_files(reference)
    if not files:
        raise ReproduceError(f"no reference results (*.jsonl) in "
                             f"{', '.join(_show(Path(p)) for p in reference)}")
    result.source = (f"the reference results in {', '.join(_show(Path(p)) for p in reference)}"
                     f" ({len(files)} file{'s' if len(files) != 1 else ''})")
    return open_reference(files)


def _selection(store: Store, experiments: list):
    """The stored rows of ``experiments`` (the paper's own first), by what they measure:
    results made by older code or tools are shown, marked stale. One
    :class:`~aesdse.report.select.Selection` of them all."""
    checkout = current_checkout()
    selection, *others = [select_rows(store, each, checkout=checkout) for each in experiments]
    selection.rows = selection.rows + [r for other in others for r in other.rows]
    selection.missing += sum(other.missing for other in others)
    for other in others:
        selection.stale.update(other.stale)
        selection.older.update(other.older)
    return selection


def _write_outputs(result: Reproduction, experiments: list, selection, out: Path,
                   fmax: str) -> None:
    """Write the comparison with the paper, the table of the rows and the figures to ``out``
    (each file, or why a figure was not drawn, noted in ``result``)."""
    paper, rows = result.paper, selection.rows
    exp = experiments[0]
    names = ", ".join(e.name for e in experiments)
    title = f"{paper.key} {paper.name}: measured ({names}) vs published"
    result.table = render_compare(compare(rows, [paper], fmax, all_papers=True), "markdown",
                                  title)
    if any((r.manifest or {}).get("resources") for r in rows):
        # Architectural counts (e.g. 000 Table I) come from the generated designs themselves.
        result.table += "\n" + resources_markdown(rows, [paper], title=exp.name)
    written = [(out / "compare.md", result.table),
               (out / "table.md", render(rows, "markdown", title=names, fmax=fmax,
                                         provenance={r.key: selection.provenance(r)
                                                     for r in rows},
                                         group_by="family" if len({family_of_row(r) for r in rows})
                                         > 1 else None))]
    try:
        out.mkdir(parents=True, exist_ok=True)
        for file, text in written:
            file.write_text(text)
            result.files.append(file)
    except OSError as e:
        raise ReproduceError(f"{out}: cannot write ({e.strerror or e})") from None
    figures = (("pareto.png", lambda: pareto_figure(rows, "slice-eq", published=[paper],
                                                    title=f"{paper.key} {paper.name}")),
               ("bars.png", lambda: bars_figure(rows, "slice-eq")))
    for file, draw in figures:
        try:
            result.files.append(save(draw(), out / file))
        except PlotError as e:
            result.notes.append(f"{file}: not drawn: {e}")
