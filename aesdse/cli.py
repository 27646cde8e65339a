"""The ``aesdse`` command line: a thin layer that parses, calls one stage, and renders."""

import json
import math
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import click

import archs

from .experiment import ExperimentError, load_experiment, make_point
from .fingerprint import current_checkout
from .flow.tools import ToolNotFound, tool_versions
from .generate import GenerateError, generate, write_verilog
from .report.critical_path import CRITICAL_PATH_FORMATS, render_critical_paths
from .report.gcm import GCM_FORMATS, is_gcm_row, render_gcm
from .report.plot import AREAS as PLOT_AREAS, KINDS as PLOT_KINDS, METRICS as PLOT_METRICS
from .report.table import FMAX_STATS, FORMATS, GROUP_BY, render
from .store.database import Store, StoreError
from .spec import yamlcheck
from .spec.schema import flow_choices

__all__ = ["main"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _db_option(f):
    return click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
                        default=Path("results/aesdse.sqlite"), show_default=True,
                        help="Results database (SQLite).")(f)


def _where_option(f):
    return click.option(
        "--where", metavar="CONDITION",
        help="SQL condition on the rows: any column of the points table, any architecture "
             "parameter by name, any flow option as flow_<option>, e.g. \"round_units = 2 AND "
             "sbox = 'composite'\" or \"luts < 5000 AND flow_nowidelut = 1\". Read-only, one "
             "expression.")(f)


def _current_only_option(f):
    return click.option(
        "--current-only", is_flag=True,
        help="Only rows this checkout would produce (same generator sources and tool "
             "versions). Default: the newest row of each configuration, marked stale when "
             "they differ.")(f)


class FiniteFloatRange(click.FloatRange):
    """A :class:`click.FloatRange` that refuses ``nan`` and infinities (``nan`` passes every
    range comparison)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def _bram_rate_option(f):
    from .flow.families import SLICES_PER_BRAM_KBIT
    return click.option(
        "--bram-slices-per-kbit", "bram_rate", type=FiniteFloatRange(0, 1e6),
        default=SLICES_PER_BRAM_KBIT, show_default=True,
        help="Slice-equivalents per Kbit of block RAM in slice-equivalent areas (001 Sec. 4: a "
             "32 Kb BRAM = 128 slices, so 4; an 18 Kbit ECP5 DP16KD is then 72).")(f)


def _experiment(path):
    try:
        return load_experiment(path)
    except ExperimentError as e:
        raise click.ClickException(str(e)) from None


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="aesdse")
def main():
    """Design-space exploration for AES hardware.

    Generate AES architectures in Amaranth, verify each against FIPS-197, NIST SP 800-38A and
    random vectors from the `cryptography` package, synthesize with Yosys, place and route with
    nextpnr, and compare area, Fmax and throughput from one results database.

    \b
    Typical session:
      aesdse list archs                             what can be generated
      aesdse sweep experiments/quickstart.yaml      run every design point
      aesdse report experiments/quickstart.yaml     the comparison table
    """


class _Seconds(click.ParamType):
    """A time limit: a finite number of seconds above 0, at most the experiment files' limit."""
    name = "seconds"

    def convert(self, value, param, ctx):
        from .spec.schema import LIMITS
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or not 0 < seconds <= LIMITS["timeout_s"]:
            self.fail(f"{value!r} must be above 0 and at most {LIMITS['timeout_s']:g} seconds",
                      param, ctx)
        return seconds


_SECONDS = _Seconds()


@main.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False))
@_db_option
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("results"), show_default=True,
              help="Where per-point artifacts (Verilog, logs, reports) and the stage cache go.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Design points run in parallel (default: number of cores); with "
                   "--executor dask-local, the number of Dask workers.")
@click.option("--executor", type=click.Choice(["local", "dask-local", "dask"]), default="local",
              show_default=True,
              help="local: worker processes on this machine; dask-local: a Dask LocalCluster; "
                   "dask: the Dask cluster at --scheduler (pip install 'aesdse[dask]').")
@click.option("--scheduler", metavar="ADDRESS",
              help="Dask scheduler for --executor dask, e.g. tcp://HOST:8786.")
@click.option("--timeout-synth", type=_SECONDS, metavar="SECONDS",
              help="Yosys time limit per point (overrides the experiment's synth_timeout_s).")
@click.option("--timeout-pnr", type=_SECONDS, metavar="SECONDS",
              help="nextpnr time limit per point (overrides the experiment's pnr_timeout_s).")
@click.option("--no-cache", is_flag=True,
              help="Do not take stages from the stage cache (results/cache); still fill it.")
@click.option("--force", is_flag=True, help="Redo points that are already in the database.")
@click.option("--retry-failed", is_flag=True,
              help="Run again the points stored as failed (any failed status); ok rows stay.")
@click.option("--no-netlist-verify", is_flag=True,
              help="Do not simulate the synthesized netlists with their family's cell models "
                   "(each row then says 'netlist not checked'; also AESDSE_NETLIST_VERIFY=0).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON summary object at the end instead of progress lines.")
@click.option("-q", "--quiet", is_flag=True, help="No progress display; only the summary.")
@click.option("--dry-run", is_flag=True,
              help="Validate EXPERIMENT and list its design points and how many are stored in "
                   "--db; run nothing, write nothing.")
def sweep(experiment, db_path, results_dir, jobs, executor, scheduler, timeout_synth,
          timeout_pnr, no_cache, force, retry_failed, no_netlist_verify, as_json, quiet,
          dry_run):
    """Run every design point of EXPERIMENT (a YAML file) and store the results.

    Each point is generated, verified in simulation (its latency and cycles per block are
    measured there), synthesized with Yosys and placed and routed with nextpnr. Points already
    in the database are skipped, so an interrupted sweep resumes where it stopped; each stage is
    also cached by the content of its inputs, so a new seed or frequency runs only nextpnr. A
    failing point (a tool crash or timeout included) is stored with its reason and logs and the
    sweep goes on; the exit code is 1 if any point failed. A tool that dies of a signal aesdse
    did not send (SIGBUS, SIGSEGV) runs once more; if it dies again the row says "transient"
    and the next sweep runs the point again. --retry-failed runs every failed point again.

    \b
    Example:
      aesdse sweep experiments/quickstart.yaml
      aesdse sweep experiments/quickstart.yaml --retry-failed
      aesdse sweep experiments/compact.yaml --jobs 2 --db results/compact.sqlite
      aesdse sweep experiments/compact.yaml --executor dask-local --jobs 2
      aesdse sweep experiments/compact.yaml --executor dask --scheduler tcp://head:8786
    """
    from .engine.sweep import sweep as run_sweep
    exp = _experiment(experiment)
    if dry_run:
        _dry_run(exp, db_path, as_json)
        return
    if executor == "dask" and not scheduler:
        raise click.BadParameter("--executor dask needs --scheduler tcp://HOST:8786",
                                 param_hint="--scheduler")
    jobs = jobs or os.cpu_count() or 1
    echo = None if (as_json or quiet) else (lambda line: click.echo(line))
    if echo:
        click.echo(f"{exp.name}: {len(exp.points)} design points, database {db_path}")
    try:
        with Store(db_path) as store:
            summary = run_sweep(exp, store, results_dir, force=force, jobs=jobs, echo=echo,
                                executor=executor, scheduler=scheduler,
                                synth_timeout_s=timeout_synth, pnr_timeout_s=timeout_pnr,
                                use_cache=not no_cache, retry_failed=retry_failed,
                                netlist_verify=False if no_netlist_verify else None)
    except (ToolNotFound, StoreError) as e:
        raise click.ClickException(str(e)) from None
    except sqlite3.OperationalError as e:
        raise _database_fault(e, db_path) from None
    except (RuntimeError, OSError) as e:
        if executor == "local":
            raise
        raise click.ClickException(f"{executor} executor: {e}") from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted: finished points are stored; run the same command to resume",
                   err=True)
        sys.exit(130)
    failures = [{"arch": r.arch, "params": r.params, "freq_mhz": r.freq_mhz, "seed": r.seed,
                 "status": r.status, "reason": (r.reason or "\n").splitlines()[0] or None,
                 "artifacts": r.artifacts} for r in summary.failed]
    if as_json:
        click.echo(json.dumps({"experiment": exp.name, "points": summary.total,
                               "ran": summary.done, "cached": summary.cached,
                               "cache_hits": summary.stage_hits, "failed": failures,
                               "errors": summary.errors, "warnings": summary.warnings,
                               "rerun_after_worker_lost": summary.rerun,
                               "verify_fallbacks": summary.fallbacks,
                               "netlist_verification": summary.netlist,
                               "seconds": round(summary.seconds, 2)}))
    else:
        hits = ", ".join(f"{n} {stage}" for stage, n in summary.stage_hits.items() if n)
        click.echo(f"done in {summary.seconds:.1f} s: {summary.done} run, {summary.cached} "
                   f"cached, {len(failures)} failed" + (f" (stage cache: {hits})" if hits else ""))
        if summary.rerun:
            click.echo(f"  {len(summary.rerun)} point{'s' * (len(summary.rerun) != 1)} re-run "
                       f"after a worker was lost (each stored once)")
        for f in failures:
            click.echo(f"  FAILED {f['status']}: {f['arch']} {f['params']} "
                       f"@{f['freq_mhz']:g} MHz seed {f['seed']}: {f['reason']}"
                       f" (logs: {f['artifacts']})")
        for e in summary.errors:
            click.echo(f"  ERROR (not stored, retried next time): {e}")
        _verification_lines(summary)
    sys.exit(1 if failures or summary.errors else 0)


def _database_fault(error: sqlite3.OperationalError, db_path) -> click.ClickException:
    """A sweep's database that could not be written (locked, full, read-only) as one line;
    any other SQLite error is re-raised (a bug)."""
    from .store.database import write_problem
    problem = write_problem(error)
    if problem is None:
        raise error
    return click.ClickException(f"{db_path}: {problem}; finished points are stored; run the "
                                f"same command to resume")


def _verification_lines(summary) -> None:
    """How the points run were verified, where it is not the default: fallbacks to amaranth.sim
    and netlist stages that did not check."""
    if summary.fallbacks:
        reasons = sorted({f["reason"] for f in summary.fallbacks})
        click.echo(f"  {len(summary.fallbacks)} point{'s' * (len(summary.fallbacks) != 1)} "
                   f"verified with amaranth.sim instead of a compiled backend: "
                   + "; ".join(reasons))
    if summary.netlist:
        click.echo("  netlist verification: " + ", ".join(
            f"{n} {outcome}" for outcome, n in sorted(summary.netlist.items())))


@main.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@_db_option
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS + ("html",)),
              default="markdown", show_default=True,
              help="Table format. html: one self-contained file (needs -o) with the tables and "
                   "an interactive area-throughput Pareto plot; it opens offline.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the report to this file instead of standard output.")
@click.option("--arch", help="Only this architecture.")
@click.option("--target", help="Only this target: a device (LFE5U-85F) or a full label "
                               "(LFE5U-85F-8CABGA381).")
@_where_option
@_current_only_option
@_bram_rate_option
@click.option("--fmax", "fmax", type=click.Choice(FMAX_STATS), default="median",
              show_default=True,
              help="Rows differing only by placer seed become one line with this Fmax and the "
                   "spread across seeds (all: one line per seed).")
@click.option("--compare", "compare_with", type=click.Choice(["published"]),
              help="Put each measured configuration beside the published rows it reproduces "
                   "(experiments/published), with ratios, the area convention and the papers' "
                   "consistency flags.")
@click.option("--resources", is_flag=True,
              help="Print the architectural resources each design counted in itself (S-boxes, "
                   "MixColumns units, memory bits, AddRoundKey width: 000 Table I) beside the "
                   "published counts, instead of the metrics table (Markdown).")
@click.option("--critical-path", "critical_path", is_flag=True,
              help="Print where the time goes instead of the metrics table: per point and "
                   "clock, nextpnr's worst path (Fmax, path delay, logic and routing shares, "
                   "logic levels and their cell types, longest net, start and end cells). "
                   "Markdown or --format json. Rows stored before aesdse recorded critical "
                   "paths say so (re-run them with `aesdse sweep --force`).")
@click.option("--gcm", "gcm", is_flag=True,
              help="Print the GCM table instead of the metrics table (chosen by itself when "
                   "every selected row is a GCM design): area, Fmax, Gbit/s, AAD and payload "
                   "bytes per cycle, and the GHASH accumulator's share of the worst path and "
                   "of the LUT4 and FF cells (n/a, with the reason, where not recorded). "
                   "Markdown, CSV, LaTeX or JSON.")
@click.option("--group-by", "group_by", type=click.Choice(GROUP_BY),
              help="family: one table per device family (ECP5, iCE40, asic) under a heading "
                   "with the family's area unit (ECP5 slices, iCE40 logic cells, asic gate "
                   "equivalents), labelled a cross-family comparison when families are mixed. "
                   "CSV lines and JSON objects carry family, area and area_unit.")
def report(experiment, db_path, fmt, output, arch, target, where, current_only, bram_rate, fmax,
           compare_with, resources, critical_path, gcm, group_by):
    """Print the comparison table of EXPERIMENT's design points (or of the whole database).

    One line per design configuration (placer seeds aggregated, see --fmax): the parameters that
    vary, then LUT4, FF, block RAM, slices, Fmax, latency, cycles per block, throughput, and
    throughput per LUT4 and per slice. Failed points are listed below the table with their
    reason. Points of the experiment that have not been swept yet are counted on stderr.
    A point swept with `flow: fmax_search` shows its converged Fmax (the best achieved by any
    of its routed nextpnr runs), the spread of its runs near that Fmax and a [bimodal] flag.

    Targets of several device families (experiments/targets.yaml) have different area units:
    --group-by family prints one table per family, each area in its family's unit; asic rows
    (gate equivalents, an estimate without place and route) have a GE column and never a LUT4
    or slice count.

    --critical-path prints, per point and clock, nextpnr's worst path instead: where the time
    goes (logic levels and their cell types, routing, clock-to-output and setup), so an Fmax
    says what limits it. The full paths are in each point's report.json.

    --format html -o FILE writes one self-contained file (it opens offline) with these tables
    and an interactive area-throughput Pareto plot: hovering a point shows its configuration,
    provenance and critical path (needs the extra: pip install 'aesdse[html]').

    Rows are selected by what they measure (architecture, parameters, target, flow options,
    seed), so results stay visible after the code or the tools change: the newest row of each
    configuration is shown, a Provenance column marks it stale when the generator sources or
    tool versions of this checkout differ, and counts older rows (`aesdse db list` shows them).
    The database is opened read-only.

    \b
    Example:
      aesdse report experiments/quickstart.yaml
      aesdse report experiments/quickstart.yaml --format json
      aesdse report --arch iterative --format latex --fmax best
      aesdse report experiments/unrolled.yaml --where "round_units = 2 AND sbox = 'lut'"
      aesdse report experiments/compact.yaml --compare published
      aesdse report experiments/compact.yaml --resources
      aesdse report experiments/sbox.yaml --critical-path
      aesdse report experiments/quickstart.yaml --critical-path --format json
      aesdse report experiments/compact.yaml --current-only
      aesdse report experiments/targets.yaml --group-by family
      aesdse report experiments/targets.yaml --group-by family --format json
      aesdse report experiments/quickstart.yaml --format html -o report.html
      aesdse report experiments/gcm.yaml --gcm --format latex
    """
    _check_report_options(fmt, output, group_by, compare_with, resources, critical_path, gcm)
    sel = _select(experiment, db_path, arch, target, where, current_only)
    title, rows = sel.title, sel.rows
    if _gcm_table(gcm, rows, fmt, group_by or compare_with or resources or critical_path):
        _write_report(render_gcm(rows, fmt, title=title, fmax=fmax), output)
        return
    if critical_path:
        _write_report(render_critical_paths(rows, fmt, title=title), output)
        return
    if resources:
        from .report.published import load_papers
        from .report.resources import resources_markdown
        _write_report(resources_markdown(rows, load_papers(), title=title), output)
        return
    if compare_with:
        from .report.published import PublishedDataError, load_papers
        from .report.compare import compare, render_compare
        try:
            papers = load_papers()
        except (PublishedDataError, FileNotFoundError) as e:
            raise click.ClickException(str(e)) from None
        text = render_compare(compare(rows, papers, fmax, rate=bram_rate), fmt,
                              title=f"{title}: measured vs published" if title else None)
    else:
        runs = None
        if any((r.flow or {}).get("fmax_search") for r in rows):
            with _open_readonly(db_path) as store:
                runs = store.pnr_runs([r.key for r in rows])
        text = _render_table(rows, fmt, title=title, fmax=fmax, runs=runs,
                             provenance={r.key: sel.provenance(r) for r in rows},
                             group_by=group_by)
    _write_report(text, output)


def _gcm_table(gcm: bool, rows, fmt: str, other_report) -> bool:
    """Whether ``aesdse report`` prints the GCM table (:mod:`aesdse.report.gcm`): asked for with
    ``--gcm``, or every selected row is a GCM design and no other report or the HTML report
    was asked for."""
    if gcm:
        return True
    return bool(rows) and not other_report and fmt in GCM_FORMATS \
        and all(is_gcm_row(r) for r in rows)


def _check_report_options(fmt, output, group_by, compare_with, resources, critical_path,
                          gcm=False):
    """The options of ``aesdse report`` go together (``--format html`` is the metrics report
    written to a file)."""
    if gcm and (group_by or compare_with or resources or critical_path):
        raise click.BadParameter("--gcm is a report of its own: not with --group-by, "
                                 "--compare, --resources or --critical-path",
                                 param_hint="--gcm")
    if gcm and fmt not in GCM_FORMATS:
        raise click.BadParameter(f"--gcm prints {', '.join(GCM_FORMATS)}, not {fmt}",
                                 param_hint="--format")
    if group_by and (compare_with or resources or critical_path):
        raise click.BadParameter("--group-by applies to the metrics table, not to --compare, "
                                 "--resources or --critical-path", param_hint="--group-by")
    if critical_path and (compare_with or resources):
        raise click.BadParameter("--critical-path is a report of its own: not with --compare or "
                                 "--resources", param_hint="--critical-path")
    if critical_path and fmt not in CRITICAL_PATH_FORMATS + ("html",):
        raise click.BadParameter(f"--critical-path prints {' or '.join(CRITICAL_PATH_FORMATS)}, "
                                 f"not {fmt}", param_hint="--format")
    if fmt != "html":
        return
    if compare_with or resources or critical_path:
        raise click.BadParameter("html is the metrics report with its Pareto plot: not with "
                                 "--compare, --resources or --critical-path",
                                 param_hint="--format")
    if not output:
        raise click.BadParameter("--format html writes a file: give it with -o FILE",
                                 param_hint="--output")


def _render_table(rows, fmt, **options) -> str:
    """The metrics report of ``rows`` in ``fmt``: a table format, or the HTML report."""
    if fmt != "html":
        return render(rows, fmt, **options)
    from .report.html import HtmlReportError, render_html
    try:
        return render_html(rows, **options)
    except HtmlReportError as e:
        raise click.ClickException(str(e)) from None


def _write_report(text: str, output) -> None:
    """Print a report, or write it to ``output`` (and say so on stderr)."""
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise click.ClickException(f"{output}: cannot write ({e.strerror or e})") from None
    click.echo(f"wrote {output}", err=True)


def _open_readonly(db_path):
    try:
        return Store(db_path, readonly=True)
    except StoreError as e:
        raise click.ClickException(str(e)) from None


def _warn_unreadable(store) -> None:
    """Name on stderr every row a selection left out because it could not be read."""
    for key, reason in sorted(store.unreadable.items()):
        click.echo(f"warning: row {key} of {store.path} is unreadable and left out: {reason}",
                   err=True)


def _select(experiment, db_path, arch, target, where, current_only=False):
    """The stored rows of EXPERIMENT (all if None) that pass the filters
    (:func:`aesdse.report.select.select_rows`); says on stderr how many points are missing."""
    from .report.select import select_rows
    exp = _experiment(experiment) if experiment else None
    with _open_readonly(db_path) as store:
        try:
            sel = select_rows(store, exp, arch=arch, target=target, where=where,
                              current_only=current_only, checkout=current_checkout())
        except StoreError as e:
            raise click.ClickException(str(e)) from None
        _warn_unreadable(store)
    if exp is not None and sel.missing and not (arch or target or where):
        click.echo(f"{sel.missing} of {sel.total} points of {sel.title} are not in {db_path} "
                   f"yet: run `aesdse sweep {experiment}`", err=True)
    return sel


@main.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@_db_option
@click.option("-k", "--kind", type=click.Choice(PLOT_KINDS), default="pareto", show_default=True,
              help="pareto: area vs throughput with the Pareto front; sweep: metrics vs one "
                   "parameter; bars: throughput per area per design; families: one core across "
                   "device families (area in each family's own unit, Fmax, throughput; use "
                   "--arch); gcm: the GHASH accumulator's LUT4 against throughput of GCM "
                   "points.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Output file; .png, .svg or .pdf picks the format.")
@click.option("--area", type=click.Choice(list(PLOT_AREAS)), default="luts", show_default=True,
              help="Area measure (pareto, bars): LUT4, logic slices, or slice-equivalents with "
                   "block RAM converted at --bram-slices-per-kbit.")
@click.option("--x", "x_param", metavar="PARAM",
              help="sweep: the parameter on the x axis (an architecture parameter, freq_mhz, "
                   "seed or flow.OPTION).")
@click.option("--y", "y_metrics", metavar="METRIC", multiple=True,
              help="sweep: metric to plot, repeatable (one panel each); default fmax_mhz. "
                   f"One of: {', '.join(PLOT_METRICS)}.")
@click.option("--published", is_flag=True,
              help="pareto: overlay the seed papers' published points that have a comparable "
                   "area (other devices; marked as such).")
@click.option("--arch", help="Only this architecture.")
@click.option("--target", help="Only this target (device or full label).")
@_where_option
@_current_only_option
@_bram_rate_option
@click.option("--title", help="Figure title.")
def plot(experiment, db_path, kind, output, area, x_param, y_metrics, published, arch, target,
         where, current_only, bram_rate, title):
    """Draw a figure of EXPERIMENT's design points (or of the whole database).

    Figures are sized for one paper column (3.5 in, 7 pt text) and deterministic: the same
    results give the same bytes. Placer seeds are aggregated by median Fmax (except with
    --x seed).

    \b
    Example:
      aesdse plot experiments/compact.yaml --kind pareto -o pareto.png
      aesdse plot experiments/compact.yaml --kind pareto --area slice-eq --published -o p.pdf
      aesdse plot experiments/pipelined.yaml --kind sweep --x sbox_stages --y luts -o s.svg
      aesdse plot --kind bars --area slices -o bars.png
      aesdse plot experiments/targets.yaml --kind families --arch iterative -o families.png
      aesdse plot experiments/gcm.yaml --kind gcm -o ghash_area.png
    """
    from .report.plot import PlotError, plot as draw
    rows = _select(experiment, db_path, arch, target, where, current_only).rows
    papers = None
    if published:
        from .report.published import PublishedDataError, load_papers
        try:
            papers = load_papers()
        except (PublishedDataError, FileNotFoundError) as e:
            raise click.ClickException(str(e)) from None
    try:
        path = draw(rows, kind, output, area=area, x=x_param, y=y_metrics, published=papers,
                    title=title, rate=bram_rate)
    except PlotError as e:
        raise click.ClickException(str(e)) from None
    click.echo(str(path))


@main.command()
@click.argument("paper")
@_db_option
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("results"), show_default=True,
              help="Sweep artifacts; figures go to RESULTS_DIR/reproduce/<key>_<name>/.")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              help="Directory for the comparison and figures (instead of the default).")
@click.option("--experiment", "experiment_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Experiment file to use instead of the paper's own (see aesdse.reproduce).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Design points run in parallel (default: number of cores).")
@click.option("--no-sweep", is_flag=True, help="Do not run missing points; report what is stored.")
@click.option("--fmax", "fmax", type=click.Choice(FMAX_STATS), default="median",
              show_default=True, help="Seed aggregation of Fmax.")
@click.option("--reference", "reference", is_flag=False, default=None, metavar="[PATH]",
              flag_value=str(Path(__file__).resolve().parent.parent / "results" / "reference"),
              type=click.Path(exists=True, path_type=Path),
              help="Read the rows from exported reference results (a .jsonl file or a directory "
                   "of them; alone: results/reference/ of this checkout) instead of --db; sweeps "
                   "nothing. Put it after PAPER.")
def reproduce(paper, db_path, results_dir, output, experiment_file, jobs, no_sweep, fmax,
              reference):
    """Reproduce seed paper PAPER: run its experiment if needed, print measured vs published,
    write figures.

    PAPER is a key (000 to 004, or 200: the GCM reference) or a short name (zhou_gaj,
    kundi_aziz, hodjat_verbauwhede, lin_huang, unrolled, lemsitzer, or an alias). The exit code is 2 when the paper cannot be reproduced
    yet (an architecture family or the experiment file is missing), 1 if a design point failed.

    With --no-sweep the rows come from --db when it holds rows of the paper's experiments, else
    from the reference results shipped in results/reference/*.jsonl (measured by aesdse and
    exported with `aesdse db export`), so a fresh clone prints the table in seconds. --reference
    reads reference results in any case. stderr names where the rows came from.

    \b
    Example:
      aesdse reproduce 000
      aesdse reproduce zhou_gaj --jobs 2
      aesdse reproduce 004 --no-sweep
      aesdse reproduce 002 --reference
      aesdse reproduce 002 --reference results/reference/pipelined.jsonl
    """
    from .reproduce import ReproduceError, reproduce as run

    def echo(line):
        click.echo(line, err=True)  # progress on stderr: stdout is the table
    try:
        result = run(paper, db_path, results_dir, output, run_sweep=not no_sweep,
                     jobs=jobs or os.cpu_count() or 1, echo=echo,
                     experiment=experiment_file, fmax=fmax,
                     reference=None if reference is None else [reference])
    except ReproduceError as e:
        click.echo(f"Error: {e}", err=True)
        sys.exit(2)
    except (ExperimentError, ToolNotFound, StoreError) as e:
        raise click.ClickException(str(e)) from None
    click.echo(result.table, nl=False)
    click.echo("")
    click.echo(f"rows from {result.source}", err=True)
    if result.missing:
        click.echo(f"{result.missing} design points of {result.experiment} are not in "
                   f"{result.source}" + ("" if reference else " (run without --no-sweep)"),
                   err=True)
    for note in result.notes:
        click.echo(note, err=True)
    click.echo("wrote " + ", ".join(str(f) for f in result.files))
    sys.exit(1 if result.failed else 0)


def _parse_params(values):
    """``NAME=VALUE`` options -> a dict; each value is read as a YAML scalar, as in an
    experiment file (``true`` is a boolean, ``8`` an integer, ``8.0`` a float), and
    :func:`~aesdse.experiment.make_point` checks it as the experiment loader does."""
    params = {}
    for item in values:
        if "=" not in item:
            raise click.BadParameter(f"{item!r} must be NAME=VALUE", param_hint="--param")
        name, text = item.split("=", 1)
        try:
            value = yamlcheck.load(text, max_depth=2)
        except yamlcheck.YamlError as e:
            raise click.BadParameter(f"{item!r}: {e.message}", param_hint="--param") from None
        params[name] = value
    return params


def _dry_run(exp, db_path, as_json):
    """``sweep --dry-run``: the points, and which are stored (by key: same code and tools; or
    only by configuration: measured by other code or tools, which the sweep re-runs)."""
    versions = tool_versions()
    keys = [p.key(versions) for p in exp.points]
    stored, by_config = set(), set()
    if Path(db_path).is_file():
        try:
            with Store(db_path, readonly=True) as store:
                stored = {r.key for r in store.rows(keys)}
                by_config = {r.config_key for r in store.rows_by_config(
                    [p.config_key() for p in exp.points])}
        except StoreError as e:
            raise click.ClickException(str(e)) from None
    points = [{"key": key, "arch": p.arch, "params": p.params_dict, "target": p.target.label,
               "flow": p.flow.as_dict(), "stored": key in stored,
               "older_stored": key not in stored and p.config_key() in by_config}
              for p, key in zip(exp.points, keys)]
    done = sum(p["stored"] for p in points)
    if as_json:
        click.echo(json.dumps({"experiment": exp.name, "points": len(points), "stored": done,
                               "to_run": len(points) - done, "list": points}))
        return
    for p, point in zip(points, exp.points):
        state = "stored" if p["stored"] else "run (older row stored)" if p["older_stored"] \
            else "run"
        flow = ("fmax_search" if point.flow.fmax_search else
                f"@{point.flow.freq_mhz:g}MHz seed={point.flow.seed}") \
            + flow_choices(point.flow.as_dict())
        click.echo(f"{state:<22} {point.label} {point.target.label} {flow}")
    click.echo(f"{exp.name}: {len(points)} design points, {done} stored in {db_path}, "
               f"{len(points) - done} to run (dry run: nothing was run)")


@main.command("generate")
@click.argument("arch", type=click.Choice(sorted(archs.FAMILIES)))
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Architecture parameter (repeatable); see `aesdse list archs`.")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              default=Path("out"), show_default=True, help="Output directory.")
@click.option("--target", type=click.Choice(["generic", "ecp5"]), default="generic",
              show_default=True,
              help="Netlist flavour: portable, or with ECP5 primitives (e.g. DP16KD).")
def generate_cmd(arch, params, output, target):
    """Write the Verilog and JSON manifest of one design point of ARCH.

    The top module is named after the design point; output is deterministic. The manifest
    lists the architecture, its parameters, every port with its width (and a payload's
    fields), the key sizes, directions and modes this core takes (not its family's) and the
    byte-order convention.

    \b
    Example:
      aesdse generate iterative --param sbox=lut -o out/
    """
    try:
        point = make_point(arch, _parse_params(params))
        design = generate(point, target=target)
        verilog = write_verilog(design, output)
    except (ExperimentError, GenerateError, ToolNotFound) as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"{verilog}\n{verilog.with_suffix('.json')}")


@main.group("db")
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


def _row_line(row, stale, newest: bool) -> str:
    from .engine.progress import label_of
    from .report.table import number
    numbers = (f"{number(row.luts, 'int')} LUT4, {number(row.fmax_mhz, 'fmax')} MHz, "
               f"{number(row.cycles_per_block, 'g')} cyc/blk, "
               f"{number(row.throughput_mbps, 'int')} Mbit/s" if row.status == "ok" else
               (row.reason or "").splitlines()[0][:60] if row.reason else "")
    mark = "newest" if newest else "older"
    state = "stale: " + ", ".join(stale) if stale else "current"
    return (f"{row.key}  {row.created_at or '-':20}  {mark:6}  {row.status:19}  "
            f"{label_of(row)} {row.target}: {numbers} [{state}]")


def _db_rows(db_path, experiment):
    """(rows of the experiment or all, oldest first, grouped by configuration; current tools)."""
    exp = _experiment(experiment) if experiment else None
    with _open_readonly(db_path) as store:
        rows = store.rows_by_config({p.config_key() for p in exp.points}) if exp \
            else store.rows()
        _warn_unreadable(store)
    groups: dict = {}
    for row in rows:
        groups.setdefault(row.config_key, []).append(row)
    return groups, current_checkout()


@db_group.command("list")
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@_db_option
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
    from .store.provenance import stale_reasons
    groups, tools = _db_rows(db_path, experiment)
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
            lines.append(_row_line(row, stale[row.key], n == 0))
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
@_db_option
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
    from .store.provenance import stale_reasons
    with _open_readonly(db_path) as store:
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
        _warn_unreadable(store)
    tools = current_checkout()
    fields = ("created_at", "status", "luts", "ffs", "brams", "fmax_mhz", "latency_cycles",
              "cycles_per_block", "throughput_mbps", "generator", "tool_versions", "key")
    records = [{f: getattr(r, f) for f in fields} | {
        "stale": stale_reasons(r.generator, r.tool_versions, r.arch, tools)} for r in rows]
    if as_json:
        click.echo(json.dumps(records, indent=2))
        return
    from .engine.progress import label_of
    click.echo(f"{label_of(row)} {row.target}: {len(rows)} rows, oldest first")
    click.echo("| " + " | ".join(fields[:-1]) + " | stale |")
    click.echo("|" + "---|" * len(fields))
    for r in records:
        cells = [json.dumps(r[f], sort_keys=True) if isinstance(r[f], dict) else
                 "-" if r[f] is None else f"{r[f]:.1f}" if isinstance(r[f], float) else str(r[f])
                 for f in fields[:-1]]
        click.echo("| " + " | ".join(cells) + " | " + (", ".join(r["stale"]) or "current")
                   + " |")


def _compare_against(against, db_path, sample, sample_seed, rerun, jobs, strict, as_json):
    """``db compare --against``: the reproducibility check (:func:`compare_rows`)."""
    import random
    import tempfile
    from .store.exchange import (ExchangeError, VERDICTS, compare_rows, open_reference,
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
        with _open_readonly(db_path) as store:
            results = compare_rows(chosen, store, tools_used=_tools_used)
            _warn_unreadable(store)
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
    from .flow.families import family_info
    from .report.table import family_of_row
    try:
        return tuple(family_info(family_of_row(row)).tools)
    except ValueError:
        return tuple(row.tool_versions or ())


def _comparison_lines(results) -> list[str]:
    """The text of ``db compare --against``: one line per reference row, then its details."""
    from .engine.progress import label_of
    lines = []
    for c in results:
        ref = c.reference
        lines.append(f"{c.verdict:14}  {ref.key}  {label_of(ref)}")
        for d in c.differences:
            lines.append(f"    {d['field']}: reference {_show(d['reference'])}, measured "
                         f"{_show(d['measured'])}")
        for reason in c.reasons:
            lines.append(f"    {reason}")
    return lines


def _rerun_reference(experiment_file, reference, scratch: Path, jobs) -> Path:
    """Measure the points of ``experiment_file`` whose configuration is one of the
    ``reference`` rows again, into a database under ``scratch`` (no stage cache: every tool
    runs); returns that database."""
    from dataclasses import replace
    from .engine.sweep import sweep
    exp = _experiment(experiment_file)
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
@_db_option
@_where_option
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
    from .store.exchange import export_rows
    from .store.places import PlaceError, export_file
    exp = _experiment(experiment) if experiment else None
    with _open_readonly(db_path) as store:
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
        _warn_unreadable(store)
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
@_db_option
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
    from .store.exchange import import_rows, reference_files
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
@_db_option
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
    from .store.places import own_artifact_dir
    from .store.provenance import stale_reasons
    groups, tools = _db_rows(db_path, experiment)
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
        click.echo(f"{'would delete' if dry_run else 'deleted'} {_row_line(row, [], False)}")
        if row.artifacts and not dirs[row.key]:
            click.echo(f"    kept its artifacts {row.artifacts}: not a runs/{row.key} directory "
                       f"inside {' or '.join(map(str, roots))}")
    click.echo(f"{len(doomed)} rows {'would be ' if dry_run else ''}deleted")


@db_group.command("delete")
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@_db_option
@_where_option
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
    from .store.deletion import delete_rows
    exp = _experiment(experiment) if experiment else None
    try:
        done = delete_rows(db_path, where=where, every_row=every_row, dry_run=dry_run,
                           config_keys={p.config_key() for p in exp.points} if exp else None)
    except StoreError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(json.dumps(done.as_dict()))
        return
    for row in done.rows:
        click.echo(f"{'would delete' if dry_run else 'deleted'} {_row_line(row, [], False)}")
    click.echo(f"{len(done.rows)} rows {'would be ' if dry_run else ''}deleted")


@db_group.command("upgrade")
@_db_option
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
    from .engine.upgrade import carry_over
    from .store.database import SCHEMA_VERSION
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


@main.group("list")
def list_group():
    """List what aesdse knows.

    \b
    Example:
      aesdse list archs
      aesdse list archs --json
    """


@list_group.command("archs")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_archs(as_json):
    """Architecture families, each parameter with its allowed values and default.

    \b
    Example:
      aesdse list archs
    """
    if as_json:
        click.echo(json.dumps({
            name: {"doc": f.doc, "kind": f.kind, "key_sizes": list(f.key_sizes),
                   "directions": list(f.directions), "modes": list(f.modes),
                   "params": {p.name: {"choices": list(p.choices), "default": p.default,
                                       "doc": p.doc} for p in f.params}}
            for name, f in sorted(archs.FAMILIES.items())}, indent=2))
        return
    for name, f in sorted(archs.FAMILIES.items()):
        click.echo(f"{name}: {f.doc}")
        for p in f.params:
            choices = ", ".join(_show(c) for c in p.choices)
            click.echo(f"  {p.name:<16} {{{choices}}} default {_show(p.default)}: {p.doc}")


def _show(value):
    return str(value).lower() if isinstance(value, bool) else str(value)
