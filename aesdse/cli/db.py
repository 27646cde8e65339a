"""``aesdse db``: inspect and maintain the results database (list, compare, export, import,
prune, delete, upgrade)."""

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import click

from .common import db_option, experiment_or_fail, open_readonly, show, warn_unreadable, where_option

__all__ = ["db_group"]


@click.group("db")
def db_group():
    """Inspect and maintain the results database: rows by configuration, their provenance,
    older rows, pruning.

    Every sweep of a configuration whose code or tools changed adds a row and keeps the old one;
    reports show the newest. These commands show and clean up the others.

    `aesdse db export` writes rows as JSON Lines (results/reference/ holds the reference
    results made so), `aesdse db import` loads them, `aesdse db compare --against` checks a
    database against them.

    \b
    Example:
      aesdse db list --all
      aesdse db prune --dry-run
      aesdse db delete --where "status != 'ok'" --dry-run
      aesdse db export experiments/records/1_sbox.yaml -o sbox.jsonl
      aesdse db import results/reference
      aesdse db compare --against results/reference --sample 5
    """


def row_line(row, stale, newest: bool) -> str:
    from ..engine.progress import label_of
    from ..report.table import number
    numbers = (f"{number(row.luts, 'int')} LUT4, {number(row.fmax_mhz, 'fmax')} MHz, "
               f"{number(row.cycles_per_block, 'g')} cyc/blk, "
               f"{number(row.throughput_mbps, 'int')} Mbit/s" if row.status == "ok" else
               (row.reason or "").splitlines()[0][:60] if row.reason else "")
    mark = "newest" if newest else "older"
    state = "stale: " + ", ".join(stale) if stale else "current"
    return (f"{row.key}  {row.created_at or '-':20}  {mark:6}  {row.status:19}  "
            f"{label_of(row)} {row.target}: {numbers} [{state}]")


def db_rows(db_path, experiment):
    """(rows of the experiment or all, oldest first, grouped by configuration; current tools)."""
    from ..fingerprint import current_checkout
    exp = experiment_or_fail(experiment) if experiment else None
    with open_readonly(db_path) as store:
        rows = store.rows_by_config({p.config_key() for p in exp.points}) if exp \
            else store.rows()
        warn_unreadable(store)
    groups: dict = {}
    for row in rows:
        groups.setdefault(row.config_key, []).append(row)
    return groups, current_checkout()


@db_group.command("list")
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@db_option
@click.option("--all", "show_all", is_flag=True,
              help="Every row; default: only configurations with older or stale rows.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def db_list(experiment, db_path, show_all, as_json):
    """List stored rows by configuration, newest first, with their provenance.

    A configuration is what a row measures (architecture, parameters, target, flow options,
    seed). A row is stale when the generator sources or tool versions of this checkout differ
    from those that made it.

    \b
    Example:
      aesdse db list
      aesdse db list experiments/compact.yaml --all
      aesdse db list --json
    """
    from ..store.provenance import stale_reasons
    groups, tools = db_rows(db_path, experiment)
    out, lines = [], []
    for config, rows in groups.items():
        stale = {r.key: stale_reasons(r.generator, r.tool_versions, r.arch, tools) for r in rows}
        if not show_all and len(rows) == 1 and not stale[rows[0].key]:
            continue
        for n, row in enumerate(reversed(rows)):
            out.append({"config_key": config, "key": row.key, "created_at": row.created_at,
                        "newest": n == 0, "status": row.status, "arch": row.arch,
                        "params": row.params, "target": row.target, "seed": row.seed,
                        "freq_mhz": row.freq_mhz, "stale": stale[row.key],
                        "generator": row.generator, "tool_versions": row.tool_versions,
                        "luts": row.luts, "fmax_mhz": row.fmax_mhz,
                        "throughput_mbps": row.throughput_mbps})
            lines.append(row_line(row, stale[row.key], n == 0))
        lines.append("")
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    total = sum(len(r) for r in groups.values())
    click.echo(f"{len(groups)} configurations, {total} rows"
               + ("" if show_all else "; showing those with older or stale rows (--all: every "
                                      "row)"))
    for line in lines:
        click.echo(line)


@db_group.command("compare")
@click.argument("key", required=False)
@db_option
@click.option("--against", "against", multiple=True,
              type=click.Path(exists=True, path_type=Path), metavar="FILE",
              help="Reproducibility check: compare the rows of these exported files (a directory: "
                   "its *.jsonl) with the database's rows of the same configuration.")
@click.option("--sample", type=click.IntRange(min=1), metavar="N",
              help="With --against: check only N reference rows, drawn at random.")
@click.option("--seed", "sample_seed", type=click.IntRange(min=0), metavar="S",
              help="Seed of --sample (default: a new one, printed, so the draw can be repeated).")
@click.option("--rerun", "rerun", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              metavar="EXPERIMENT",
              help="With --against: measure the reference rows again first, with the points of "
                   "EXPERIMENT of the same configuration, into a scratch database (the stage "
                   "cache off), and compare with that instead of --db.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Design points run in parallel by --rerun.")
@click.option("--strict", is_flag=True,
              help="With --against: exit 1 also when a row is missing or not comparable.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def db_compare(key, db_path, against, sample, sample_seed, rerun, jobs, strict, as_json):
    """Every row of the configuration of row KEY (a key or a unique prefix), side by side: what
    changed between the code or tool versions that made them.

    With --against FILE instead of KEY: the reproducibility check. Each reference row (or a
    --sample of them) is matched with the database's row of the same configuration key and the
    same provenance (the same key, else the newest with the same generator fingerprint, tool
    versions and verify options) and printed as identical; differs, with each differing
    measured field (status, LUT4, FF, BRAM, Fmax, latency, cycles per block, throughput, ...)
    and both values; not comparable, naming the generator, tool versions or verify options
    that differ; or missing. The exit code is 1 when a row differs (with --strict also when one
    is missing or not comparable), else 0.

    \b
    Example:
      aesdse db compare 3f2a9c
      aesdse db compare --against results/reference/records_sbox.jsonl --db my.sqlite
      aesdse db compare --against results/reference --sample 3 --seed 7 --json
      aesdse db compare --against results/reference/records_sbox.jsonl \\
          --rerun experiments/records/1_sbox.yaml
    """
    if against:
        if key is not None:
            raise click.UsageError("give KEY or --against, not both")
        _compare_against(against, db_path, sample, sample_seed, rerun, jobs, strict, as_json)
        return
    if key is None:
        raise click.UsageError("give KEY (a row's key or prefix) or --against FILE")
    if sample or sample_seed is not None or rerun or strict:
        raise click.UsageError("--sample, --seed, --rerun and --strict go with --against")
    _compare_key(key, db_path, as_json)


def _compare_key(key, db_path, as_json):
    """``db compare KEY``: the rows of KEY's configuration side by side."""
    from ..fingerprint import current_checkout
    from ..store.provenance import stale_reasons
    with open_readonly(db_path) as store:
        matches = [k for k in store.keys() if k.startswith(key)]
        if len(matches) != 1:
            raise click.ClickException(
                f"{key!r} matches {len(matches)} rows" + (f": {', '.join(sorted(matches)[:5])}"
                                                           if matches else "")
                + "; give a longer key (see `aesdse db list --all`)")
        row = store.get(matches[0])
        if row is None:
            raise click.ClickException(f"row {matches[0]} of {db_path} is unreadable: "
                                       f"{store.unreadable.get(matches[0])}")
        rows = store.rows_by_config([row.config_key])
        warn_unreadable(store)
    from ..engine.progress import label_of
    from ..report.formats import render
    from ..report.history import history_report
    tools = current_checkout()
    stale = {r.key: stale_reasons(r.generator, r.tool_versions, r.arch, tools) for r in rows}
    report = history_report(rows, stale, f"{label_of(row)} {row.target}: {len(rows)} rows, "
                                         f"oldest first")
    click.echo(render(report, "json" if as_json else "markdown"), nl=False)


def _compare_against(against, db_path, sample, sample_seed, rerun, jobs, strict, as_json):
    """``db compare --against``: the reproducibility check (:func:`compare_rows`)."""
    import random
    import tempfile
    from ..store.exchange import (ExchangeError, VERDICTS, compare_rows, open_reference,
                                 sample_rows)
    try:
        with open_reference(list(against)) as ref:
            reference = ref.rows()
    except ExchangeError as e:
        raise click.ClickException(str(e)) from None
    seed = sample_seed if sample_seed is not None else random.SystemRandom().randrange(10**6)
    chosen = sample_rows(reference, sample, seed)
    if sample and sample < len(reference):
        click.echo(f"checking {len(chosen)} of {len(reference)} reference rows, drawn with "
                   f"--seed {seed}", err=True)
    with tempfile.TemporaryDirectory(prefix="aesdse-rerun-") as scratch:
        if rerun:
            db_path = _rerun_reference(rerun, chosen, Path(scratch), jobs)
        with open_readonly(db_path) as store:
            results = compare_rows(chosen, store, tools_used=_tools_used)
            warn_unreadable(store)
    counts = {v: sum(c.verdict == v for c in results) for v in VERDICTS}
    bad = counts["differs"] + (counts["missing"] + counts["not comparable"] if strict else 0)
    if as_json:
        click.echo(json.dumps({"database": "(rerun)" if rerun else str(db_path),
                               "reference": [str(p) for p in against],
                               "sample": sample, "seed": seed if sample else None,
                               "counts": counts, "rows": [c.as_dict() for c in results]},
                              indent=2, default=str))
    else:
        for line in _comparison_lines(results):
            click.echo(line)
        click.echo(", ".join(f"{n} {v}" for v, n in counts.items()) + f" (of {len(results)} "
                   f"reference rows, against {'a re-run' if rerun else db_path})")
    sys.exit(1 if bad else 0)


def _tools_used(row) -> tuple:
    """The tools a row's flow ran (its device family's), or every recorded one when its target
    names no known family."""
    from ..flow.families import family_info
    from ..report.table import family_of_row
    try:
        return tuple(family_info(family_of_row(row)).tools)
    except ValueError:
        return tuple(row.tool_versions or ())


def _comparison_lines(results) -> list[str]:
    """The text of ``db compare --against``: one line per reference row, then its details."""
    from ..engine.progress import label_of
    lines = []
    for c in results:
        ref = c.reference
        lines.append(f"{c.verdict:14}  {ref.key}  {label_of(ref)}")
        for d in c.differences:
            lines.append(f"    {d['field']}: reference {show(d['reference'])}, measured "
                         f"{show(d['measured'])}")
        for reason in c.reasons:
            lines.append(f"    {reason}")
    return lines


def _rerun_reference(experiment_file, reference, scratch: Path, jobs) -> Path:
    """Measure the points of ``experiment_file`` whose configuration is one of the
    ``reference`` rows again, into a database under ``scratch`` (no stage cache: every tool
    runs); returns that database."""
    from dataclasses import replace
    from ..engine.sweep import sweep
    from ..store.database import Store
    exp = experiment_or_fail(experiment_file)
    wanted = {r.config_key for r in reference}
    points = tuple(p for p in exp.points if p.config_key() in wanted)
    unknown = len(wanted - {p.config_key() for p in points})
    if unknown:
        click.echo(f"{unknown} reference configurations are not points of {experiment_file}: "
                   f"they are reported missing", err=True)
    db_path = scratch / "rerun.sqlite"
    with Store(db_path) as store:
        sweep(replace(exp, points=points), store, scratch, jobs=jobs,
              echo=lambda line: click.echo(line, err=True), use_cache=False, live=False)
    return db_path


@db_group.command("export")
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@db_option
@where_option
@click.option("--newest", is_flag=True,
              help="Only the newest row of each configuration (default: every row).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              default="-", show_default=True, help="JSON Lines file to write; - is stdout.")
@click.option("--by-experiment", "by_experiment", metavar="DIR",
              type=click.Path(file_okay=False, path_type=Path),
              help="Instead of -o: one file per experiment name of the rows, "
                   "DIR/<experiment>.jsonl (how results/reference/ is made).")
@click.option("--host-paths", is_flag=True,
              help="Keep the host name and absolute artifact and report paths of the machine "
                   "that measured each row (default: left out, paths relative to the "
                   "database's directory).")
def db_export(experiment, db_path, where, newest, output, by_experiment, host_paths):
    """Write stored rows as JSON Lines (text git can diff): the rows of EXPERIMENT's
    configurations (every provenance, as `aesdse db list EXPERIMENT --all` lists them), those
    matching --where, both, or every row.

    One row per line with every column: the numbers, the configuration and its key, and the
    provenance (generator fingerprint, tool versions, verify options, key, date), plus the
    Fmax-search runs; the host name and absolute paths only with --host-paths. Keys are sorted
    and rows sorted by configuration key then key, so exporting the same rows again gives the
    same file. `aesdse db import` loads it back. With --by-experiment, every file is written
    inside DIR: an experiment name that is not a plain file name stops the export before
    anything is written.

    \b
    Example:
      aesdse db export experiments/records/1_sbox.yaml --where "status = 'ok'" \\
          -o results/reference/records_sbox.jsonl
      aesdse db export --db other.sqlite --newest > all.jsonl
      aesdse db export --db mine.sqlite --where "status = 'ok'" --by-experiment results/reference
    """
    from ..store.exchange import export_rows
    from ..store.places import PlaceError, export_file
    from ..store.database import StoreError
    exp = experiment_or_fail(experiment) if experiment else None
    with open_readonly(db_path) as store:
        try:
            keys = store.select_keys(where) if where else None
        except StoreError as e:
            raise click.ClickException(str(e)) from None
        rows = store.rows_by_config({p.config_key() for p in exp.points}) if exp \
            else store.rows()
        rows = [r for r in rows if keys is None or r.key in keys]
        if newest:
            last = {r.config_key: r for r in rows}  # oldest first: the last one is the newest
            rows = list(last.values())
        warn_unreadable(store)
        try:
            files = {output: rows} if by_experiment is None else {
                export_file(by_experiment, name): [r for r in rows if r.experiment == name]
                for name in sorted({r.experiment for r in rows})}
            for file, part in files.items():
                count = export_rows(store, file, part, host_paths=host_paths)
                if str(file) != "-":
                    click.echo(f"wrote {count} rows to {file}", err=True)
        except (PlaceError, StoreError) as e:  # ExchangeError: a file cannot be written
            raise click.ClickException(str(e)) from None


@db_group.command("import")
@click.argument("files", nargs=-1, required=True,
                type=click.Path(exists=True, path_type=Path))
@db_option
@click.option("--skip-malformed", is_flag=True,
              help="Import the valid lines and name the malformed ones (default: a malformed "
                   "line stops the import before anything is stored).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def db_import(files, db_path, skip_malformed, as_json):
    """Load rows exported by `aesdse db export` (FILES: .jsonl files or directories of them)
    into the database, keeping their keys and dates.

    Importing is idempotent: a key already stored is not stored again (an identical row is
    counted as present; a different one is a conflict, the stored row is kept and the exit code
    is 1). A malformed line is named as FILE:LINE; by default nothing is imported then (exit
    code 1), with --skip-malformed the other lines are.

    \b
    Example:
      aesdse db import results/reference
      aesdse db import results/reference/records_sbox.jsonl --db mine.sqlite
    """
    from ..store.exchange import import_rows, reference_files
    from ..store.database import Store, StoreError
    try:
        with Store(db_path) as store:
            result = import_rows(store, reference_files(files), skip_malformed=skip_malformed)
    except StoreError as e:  # ExchangeError included
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2))
    else:
        for line in result.malformed:
            click.echo(f"skipped {line}", err=True)
        for key in result.conflicts:
            click.echo(f"conflict: row {key} is stored with other values; kept the stored one",
                       err=True)
        click.echo(f"{db_path}: {len(result.added)} rows added, {len(result.present)} already "
                   f"present, {len(result.conflicts)} conflicts, {len(result.malformed)} "
                   f"malformed lines skipped")
    sys.exit(1 if result.conflicts else 0)


@db_group.command("prune")
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@db_option
@click.option("--keep", type=click.IntRange(min=1, max=1000), default=1, show_default=True,
              help="Rows kept per configuration (the newest).")
@click.option("--stale", "stale_too", is_flag=True,
              help="Also delete kept rows that are stale (a sweep makes current ones again).")
@click.option("--dry-run", is_flag=True, help="Only say what would be deleted.")
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path),
              help="A results directory of the sweeps that made the rows, if it is not inside "
                   "the database's directory; only runs/<key> directories inside one of the two "
                   "are deleted.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def db_prune(experiment, db_path, keep, stale_too, dry_run, results_dir, as_json):
    """Delete older rows of each configuration (of EXPERIMENT, or of the whole database) and
    their artifact directories, keeping the newest.

    A row's artifact directory is deleted only when it is a real directory (not a link) named
    runs/<key> after the row, inside the database's directory or --results-dir: a row that
    names any other place (an imported row, a database moved from another machine) keeps those
    files, and the output says so.

    \b
    Example:
      aesdse db prune --dry-run
      aesdse db prune experiments/compact.yaml --keep 2
    """
    from ..store.places import own_artifact_dir
    from ..store.provenance import stale_reasons
    from ..store.database import Store, StoreError
    groups, tools = db_rows(db_path, experiment)
    doomed = []
    for rows in groups.values():
        doomed += rows[:-keep]
        if stale_too:
            doomed += [r for r in rows[-keep:]
                       if stale_reasons(r.generator, r.tool_versions, r.arch, tools)]
    roots = [db_path.resolve().parent] + ([results_dir] if results_dir else [])
    dirs = {r.key: own_artifact_dir(r.key, r.artifacts, roots) for r in doomed}
    removed = 0
    if not dry_run and doomed:
        try:
            with Store(db_path) as store:
                removed = store.delete(r.key for r in doomed)
        except (StoreError, sqlite3.Error) as e:
            raise click.ClickException(f"{db_path}: nothing deleted: {e}") from None
        for path in filter(None, dirs.values()):
            shutil.rmtree(path, ignore_errors=True)
    if as_json:
        click.echo(json.dumps({"dry_run": dry_run, "rows": [r.key for r in doomed],
                               "removed": removed,
                               "artifact_dirs": [str(p) for p in dirs.values() if p],
                               "artifacts_kept": [r.artifacts for r in doomed
                                                  if r.artifacts and not dirs[r.key]]}))
        return
    for row in doomed:
        click.echo(f"{'would delete' if dry_run else 'deleted'} {row_line(row, [], False)}")
        if row.artifacts and not dirs[row.key]:
            click.echo(f"    kept its artifacts {row.artifacts}: not a runs/{row.key} directory "
                       f"inside {' or '.join(map(str, roots))}")
    click.echo(f"{len(doomed)} rows {'would be ' if dry_run else ''}deleted")


@db_group.command("delete")
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@db_option
@where_option
@click.option("--all", "every_row", is_flag=True,
              help="Allow deleting every row (needed when neither --where nor EXPERIMENT "
                   "chooses the rows).")
@click.option("--dry-run", is_flag=True, help="Only say what would be deleted.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def db_delete(experiment, db_path, where, every_row, dry_run, as_json):
    """Delete the rows matching --where, of EXPERIMENT's configurations (every provenance), or
    both; prints the count of rows (that would be) deleted.

    Only database rows (and their Fmax-search runs) are deleted: the artifact directories
    under <results dir>/runs/ stay. A later sweep runs the deleted points again. Without
    --where or EXPERIMENT nothing is deleted unless --all is given.

    \b
    Example:
      aesdse db delete --where "status = 'failed-flow'" --dry-run
      aesdse db delete experiments/quickstart.yaml --where "status != 'ok'"
      aesdse db delete --db scratch.sqlite --all
    """
    from ..store.deletion import delete_rows
    from ..store.database import StoreError
    exp = experiment_or_fail(experiment) if experiment else None
    try:
        done = delete_rows(db_path, where=where, every_row=every_row, dry_run=dry_run,
                           config_keys={p.config_key() for p in exp.points} if exp else None)
    except StoreError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(done.as_dict()))
        return
    for row in done.rows:
        click.echo(f"{'would delete' if dry_run else 'deleted'} {row_line(row, [], False)}")
    click.echo(f"{len(done.rows)} rows {'would be ' if dry_run else ''}deleted")


@db_group.command("upgrade")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def db_upgrade(db_path, as_json):
    """Upgrade an older results database to this aesdse's schema, in place (its results are
    kept), and carry rows over a generator change that left their netlist unchanged.

    A row whose generator fingerprint differs from this checkout's (the sources were edited or
    moved) gets the current fingerprint and key when its design, generated again, is
    byte-identical; a sweep then takes it as done. Other rows are left stale. Sweeps upgrade the
    schema by themselves; reports open the database read-only and ask for it.

    \b
    Example:
      aesdse db upgrade --db results/old.sqlite
      aesdse db upgrade --json
    """
    from ..store.database import Store, StoreError
    from ..engine.upgrade import carry_over
    from ..store.database import SCHEMA_VERSION
    if not db_path.is_file():
        raise click.ClickException(f"{db_path}: no results database")
    try:
        with Store(db_path) as store:
            moved = carry_over(store)
            count = len(store.keys())
    except StoreError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps({"schema_version": SCHEMA_VERSION, "rows": count,
                               **moved.as_dict()}, indent=2))
        return
    for item in moved.carried:
        click.echo(f"carried over {item['old_key']} -> {item['key']}  {item['arch']} "
                   f"{item['target']}")
    for item in moved.left:
        click.echo(f"left stale   {item['key']}  {item['arch']} {item['target']}: "
                   f"{item['reason']}")
    click.echo(f"{db_path}: schema version {SCHEMA_VERSION}, {count} rows; "
               f"{len(moved.carried)} carried over to the current generator, "
               f"{len(moved.left)} left stale, {moved.current} already current")
