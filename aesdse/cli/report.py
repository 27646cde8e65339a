"""``aesdse report`` and ``aesdse plot``: tables and figures of the stored rows."""

from pathlib import Path

import click

from ..report.kinds import (CRITICAL_PATH_FORMATS, FMAX_STATS, FORMATS, GCM_FORMATS, GROUP_BY,
                            PLOT_AREAS, PLOT_KINDS, PLOT_METRICS)
from ..spec.flow_options import FLOW_OPTIONS
from .common import (bram_rate_option, current_only_option, db_option, experiment_or_fail,
                     open_readonly, warn_unreadable, where_option, write_report)

__all__ = ["report", "plot"]

#: The flow options a sweep plot may put on its x axis: those a point chooses (freq_mhz and
#: seed are columns of their own; the time limits measure nothing).
_PLOTTED_FLOW_OPTIONS = ", ".join(f"flow.{o.name}" for o in FLOW_OPTIONS
                                  if o.measured and not o.always_passed)


@click.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@db_option
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS + ("html",)),
              default="markdown", show_default=True,
              help="Table format. html: one self-contained file (needs -o) with the tables and "
                   "an interactive area-throughput Pareto plot; it opens offline.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the report to this file instead of standard output.")
@click.option("--arch", help="Only this architecture.")
@click.option("--target", help="Only this target: a device (LFE5U-85F) or a full label "
                               "(LFE5U-85F-8CABGA381).")
@where_option
@current_only_option
@bram_rate_option
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
    from ..report.critical_path import render_critical_paths
    from ..report.gcm import render_gcm
    _check_report_options(fmt, output, group_by, compare_with, resources, critical_path, gcm)
    sel = _select(experiment, db_path, arch, target, where, current_only)
    title, rows = sel.title, sel.rows
    if _gcm_table(gcm, rows, fmt, group_by or compare_with or resources or critical_path):
        write_report(render_gcm(rows, fmt, title=title, fmax=fmax), output)
        return
    if critical_path:
        write_report(render_critical_paths(rows, fmt, title=title), output)
        return
    if resources:
        from ..report.published import load_papers
        from ..report.resources import resources_markdown
        write_report(resources_markdown(rows, load_papers(), title=title), output)
        return
    if compare_with:
        from ..report.published import PublishedDataError, load_papers
        from ..report.compare import compare, render_compare
        try:
            papers = load_papers()
        except (PublishedDataError, FileNotFoundError) as e:
            raise click.ClickException(str(e)) from None
        text = render_compare(compare(rows, papers, fmax, rate=bram_rate), fmt,
                              title=f"{title}: measured vs published" if title else None)
    else:
        runs = None
        if any((r.flow or {}).get("fmax_search") for r in rows):
            with open_readonly(db_path) as store:
                runs = store.pnr_runs([r.key for r in rows])
        text = _render_table(rows, fmt, title=title, fmax=fmax, runs=runs,
                             provenance={r.key: sel.provenance(r) for r in rows},
                             group_by=group_by)
    write_report(text, output)


def _gcm_table(gcm: bool, rows, fmt: str, other_report) -> bool:
    """Whether ``aesdse report`` prints the GCM table (:mod:`aesdse.report.gcm`): asked for with
    ``--gcm``, or every selected row is a GCM design and no other report or the HTML report
    was asked for."""
    if gcm:
        return True
    from ..report.gcm import is_gcm_row
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
        from ..report.table import render
        return render(rows, fmt, **options)
    from ..report.html import HtmlReportError, render_html
    try:
        return render_html(rows, **options)
    except HtmlReportError as e:
        raise click.ClickException(str(e)) from None








def _select(experiment, db_path, arch, target, where, current_only=False):
    """The stored rows of EXPERIMENT (all if None) that pass the filters
    (:func:`aesdse.report.select.select_rows`); says on stderr how many points are missing."""
    from ..fingerprint import current_checkout
    from ..report.select import select_rows
    from ..store.database import StoreError
    exp = experiment_or_fail(experiment) if experiment else None
    with open_readonly(db_path) as store:
        try:
            sel = select_rows(store, exp, arch=arch, target=target, where=where,
                              current_only=current_only, checkout=current_checkout())
        except StoreError as e:
            raise click.ClickException(str(e)) from None
        warn_unreadable(store)
    if exp is not None and sel.missing and not (arch or target or where):
        click.echo(f"{sel.missing} of {sel.total} points of {sel.title} are not in {db_path} "
                   f"yet: run `aesdse sweep {experiment}`", err=True)
    return sel


@click.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@db_option
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
                   f"seed or flow.OPTION: {_PLOTTED_FLOW_OPTIONS}).")
@click.option("--y", "y_metrics", metavar="METRIC", multiple=True,
              help="sweep: metric to plot, repeatable (one panel each); default fmax_mhz. "
                   f"One of: {', '.join(PLOT_METRICS)}.")
@click.option("--published", is_flag=True,
              help="pareto: overlay the seed papers' published points that have a comparable "
                   "area (other devices; marked as such).")
@click.option("--arch", help="Only this architecture.")
@click.option("--target", help="Only this target (device or full label).")
@where_option
@current_only_option
@bram_rate_option
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
    from ..report.plot import PlotError, plot as draw
    rows = _select(experiment, db_path, arch, target, where, current_only).rows
    papers = None
    if published:
        from ..report.published import PublishedDataError, load_papers
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
