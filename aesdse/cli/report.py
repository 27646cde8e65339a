"""``aesdse report`` and ``aesdse plot``: tables and figures of the stored rows."""

from pathlib import Path

import click

from ..report.kinds import (FILE_FORMATS, FMAX_STATS, FORMATS, GROUP_BY, KINDS, PLOT_AREAS,
                            PLOT_KINDS, PLOT_METRICS)
from ..spec.flow_options import FLOW_OPTIONS
from .common import (bram_rate_option, current_only_option, db_option,
                     experiment_or_space_or_fail, open_readonly, warn_unreadable, where_option,
                     write_report)

__all__ = ["report", "plot"]

#: The flow options a sweep plot may put on its x axis: those a point chooses (freq_mhz and
#: seed are columns of their own; the time limits measure nothing).
_PLOTTED_FLOW_OPTIONS = ", ".join(f"flow.{o.name}" for o in FLOW_OPTIONS
                                  if o.measured and not o.always_passed)


@click.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@db_option
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS),
              default="markdown", show_default=True,
              help="Table format. html: one self-contained file (needs -o) with the tables and, "
                   "for the metrics table, an interactive area-throughput Pareto plot; it opens "
                   "offline.")
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
@click.option("--front", is_flag=True,
              help="Print only the Pareto front of the verified configurations (placer seeds "
                   "aggregated as in the metrics table, see --fmax): by default the highest "
                   "throughput for the fewest LUT4 (see --objective). Every format.")
@click.option("--objective", "objectives", multiple=True, metavar="METRIC:GOAL",
              help="With --front: an objective instead of the default ones, repeatable, e.g. "
                   "--objective throughput_mbps:max --objective slices:min. METRIC is one of: "
                   f"{', '.join(PLOT_METRICS)}; GOAL max or min.")
@click.option("--group-by", "group_by", type=click.Choice(GROUP_BY),
              help="family: one table per device family (ECP5, iCE40, asic) under a heading "
                   "with the family's area unit (ECP5 slices, iCE40 logic cells, asic gate "
                   "equivalents), labelled a cross-family comparison when families are mixed. "
                   "CSV lines and JSON objects carry family, area and area_unit.")
def report(experiment, db_path, fmt, output, arch, target, where, current_only, bram_rate, fmax,
           compare_with, resources, critical_path, gcm, front, objectives, group_by):
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

    --front prints only the Pareto front of the verified configurations: those that no other
    configuration beats in every objective (default: the highest throughput, the fewest LUT4;
    --objective chooses others).

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
      aesdse report experiments/compact.yaml --front
      aesdse report experiments/compact.yaml --front --objective throughput_mbps:max \\
          --objective slices:min --format csv
    """
    kind = _kind(fmt, output, group_by, objectives, gcm=gcm, front=front,
                 critical_path=critical_path, resources=resources, compare=compare_with)
    options = {"fmax": fmax, "rate": bram_rate, "group_by": group_by,
               "objectives": _objectives(objectives), "db_path": db_path}
    sel = _select(experiment, db_path, arch, target, where, current_only)
    if kind == "metrics" and _gcm_table(sel.rows, fmt, group_by):
        kind = "gcm"
    if kind == "metrics" and fmt == "html":
        # An exploration's report shows its pruned candidates on the plot too.
        options["pruned"] = _pruned_of(experiment, db_path, quiet=True) if experiment else None
        text = _html_report(sel, options)
    else:
        from ..report.formats import render
        text = render(_build(kind, sel, options), fmt)
    write_report(text, output)


def _alternatives(names) -> str:
    return " or ".join(names) if len(names) < 3 else ", ".join(names)


def _kind(fmt, output, group_by, objectives, **flags) -> str:
    """The kind of report the flags ask for (:data:`aesdse.report.kinds.KINDS`), once its
    options are known to go together: one kind, in a format it has, a file format written
    with -o."""
    chosen = [name for name, flag in flags.items() if flag]
    option = {name: "--" + name.replace("_", "-") for name in flags}
    if len(chosen) > 1:
        raise click.BadParameter(f"{option[chosen[0]]} is a report of its own: not with "
                                 + ", ".join(option[c] for c in chosen[1:]),
                                 param_hint=option[chosen[0]])
    kind = chosen[0].replace("_", "-") if chosen else "metrics"
    if objectives and kind != "front":
        raise click.BadParameter("--objective goes with --front", param_hint="--objective")
    if group_by and kind != "metrics":
        raise click.BadParameter(f"--group-by applies to the metrics table, not to "
                                 f"{option[chosen[0]]}", param_hint="--group-by")
    if fmt not in KINDS[kind]:
        raise click.BadParameter(f"{option[chosen[0]]} prints {_alternatives(KINDS[kind])}, "
                                 f"not {fmt}", param_hint="--format")
    if fmt in FILE_FORMATS and not output:
        raise click.BadParameter(f"--format {fmt} writes a file: give it with -o FILE",
                                 param_hint="--output")
    return kind


def _gcm_table(rows, fmt: str, group_by) -> bool:
    """Whether the metrics report asked for is the GCM table instead (:mod:`aesdse.report.gcm`):
    every selected row is a GCM design, and neither --group-by nor a format the GCM table has
    not (the HTML report) was asked for."""
    from ..report.gcm import is_gcm_row
    return bool(rows) and not group_by and fmt in KINDS["gcm"] \
        and all(is_gcm_row(r) for r in rows)


def _objectives(texts) -> tuple | None:
    from ..report.front import parse_objective
    try:
        return tuple(parse_objective(t) for t in texts) or None
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--objective") from None


def _papers():
    from ..report.published import PublishedDataError, load_papers
    try:
        return load_papers()
    except (PublishedDataError, FileNotFoundError) as e:
        raise click.ClickException(str(e)) from None


def _runs(db_path, rows) -> dict | None:
    """The Fmax-search runs of the searched points among ``rows`` (None without any)."""
    if not any((r.flow or {}).get("fmax_search") for r in rows):
        return None
    with open_readonly(db_path) as store:
        return store.pnr_runs([r.key for r in rows])


def _build(kind: str, sel, options: dict):
    """The report of kind ``kind`` of the selected rows (:class:`aesdse.report.model.Report`)."""
    title, rows, fmax = sel.title, sel.rows, options["fmax"]
    if kind == "gcm":
        from ..report.gcm import gcm_report
        return gcm_report(rows, title=title, fmax=fmax)
    if kind == "critical-path":
        from ..report.critical_path import critical_path_report
        return critical_path_report(rows, title=title)
    if kind == "resources":
        from ..report.resources import resources_report
        return resources_report(rows, _papers(), title=title)
    if kind == "compare":
        from ..report.compare import compare, compare_report
        return compare_report(compare(rows, _papers(), fmax, rate=options["rate"]),
                              title=f"{title}: measured vs published" if title else None)
    provenance = {r.key: sel.provenance(r) for r in rows}
    runs = _runs(options["db_path"], rows)
    if kind == "front":
        from ..report.front import FRONT_OBJECTIVES, front_table
        return front_table(rows, options["objectives"] or FRONT_OBJECTIVES, fmax=fmax,
                           title=title, runs=runs, provenance=provenance)
    from ..report.metrics import metrics_report
    return metrics_report(rows, title, fmax, runs, provenance, options["group_by"])


def _html_report(sel, options: dict) -> str:
    """The metrics report as one HTML file with its interactive Pareto plot."""
    from ..report.html import HtmlReportError, render_html
    rows = sel.rows
    try:
        return render_html(rows, title=sel.title, fmax=options["fmax"],
                           runs=_runs(options["db_path"], rows),
                           provenance={r.key: sel.provenance(r) for r in rows},
                           group_by=options["group_by"], pruned=options.get("pruned"))
    except HtmlReportError as e:
        raise click.ClickException(str(e)) from None


def _select(experiment, db_path, arch, target, where, current_only=False):
    """The stored rows of EXPERIMENT (all if None) that pass the filters
    (:func:`aesdse.report.select.select_rows`); says on stderr how many points are missing."""
    from ..fingerprint import current_checkout
    from ..report.select import select_rows
    from ..store.database import StoreError
    exp = experiment_or_space_or_fail(experiment) if experiment else None
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
                   "points; explore: an aesdse explore file's routed points and front, and "
                   "the candidates synthesis pruned (at their best possible throughput).")
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
      aesdse plot experiments/explore/iterative_logic.yaml --kind explore -o explore.png
    """
    from ..report.plot import PlotError, plot as draw
    pruned = _pruned_of(experiment, db_path) if kind == "explore" else None
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
                    title=title, rate=bram_rate, pruned=pruned)
    except PlotError as e:
        raise click.ClickException(str(e)) from None
    click.echo(str(path))


def _pruned_of(experiment, db_path, quiet: bool = False) -> list | None:
    """The pruned candidates of the exploration of file ``experiment`` on ``db_path``: its
    journal's ``pruned`` events; when it has no journal, none (said on stderr unless
    ``quiet``: then None)."""
    if experiment is None:
        raise click.BadParameter("--kind explore needs the aesdse explore file",
                                 param_hint="EXPERIMENT")
    from ..explore.journal import Journal, journal_path
    exp = experiment_or_space_or_fail(experiment)
    path = journal_path(db_path, exp.name)
    if not path.exists():
        if quiet:
            return None
        click.echo(f"no exploration journal {path}: no pruned candidates to draw", err=True)
        return []
    events = Journal(path).of("pruned")
    for event in events:
        event.setdefault("label", event["arch"] + "".join(
            f" {k}={v}" for k, v in event.get("params", [])))
    return events
