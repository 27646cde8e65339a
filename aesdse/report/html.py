"""A report to open and share: one self-contained HTML file (``aesdse report --format html -o
FILE``) with the comparison tables and an interactive area-throughput Pareto plot.

The tables are those of :func:`aesdse.report.table.render` (the metrics report,
:func:`aesdse.report.metrics.metrics_report`, rendered by the HTML format,
:mod:`aesdse.report.formats.html`: the same cells as every format), with their footnotes and
failed points. The
plot has one point per table line (seeds aggregated as in the table): area in LUT4 (log scale)
against throughput, one colour per architecture family, the Pareto front as a dashed staircase
(:func:`aesdse.report.plot.pareto_front`). Hovering a point shows its configuration (architecture,
parameters, target, flow options, seeds), its provenance (row keys, experiment, tool versions,
generator fingerprint, when it was measured, and whether it is stale against this checkout)
and its critical paths as stored with the row (:func:`aesdse.report.critical_path.describe_paths`).
Rows without a LUT4 area or a throughput (asic estimates) are in the tables, not on the plot.

Why Plotly
----------
The file must open offline, years later, e.g. from a paper's artifact. Plotly (MIT licence,
maintained by Plotly Inc. with regular releases) ships plotly.js inside its PyPI wheel and
inlines it with ``include_plotlyjs=True``: building the report needs no network and the file
loads nothing. Its scatter traces are SVG, one ``path.point`` per point, so a test can find the
points and hover one in a real browser, and per-point hover text is built in. Bokeh also inlines
its JavaScript, but draws on a canvas (nothing in the DOM to check) and needs a ``HoverTool``
template for the same text; Altair/Vega-Lite needs three JavaScript libraries and an extra
package (vl-convert) to inline them. The price is size: plotly.js makes the file about 5 MB.

Plotly is the optional extra ``html`` (``pip install 'aesdse[html]'``; ``test`` includes it);
without it :func:`render_html` raises :class:`HtmlReportError` naming the extra.
"""

import html
import textwrap

from ..store.database import Row
from dataclasses import replace

from .cells import label, number, show_value
from .critical_path import describe_paths
from .formats.html import render as render_page
from .lines import RUN_FLOW_KEYS, TableLine
from .metrics import metrics_report
from .plot import area_of, pareto_front

__all__ = ["HTML_EXTRA", "HtmlReportError", "PLOT_ID", "hover_text", "render_html"]

#: The optional dependency (``pyproject.toml``) that brings Plotly.
HTML_EXTRA = "html"

#: The ``id`` of the plot's ``div`` (tests find the plot by it).
PLOT_ID = "pareto"

#: Width of a hover label's lines, in characters (a critical path is wrapped to it).
_HOVER_WIDTH = 100

_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#17becf", "#7f7f7f", "#bcbd22")

class HtmlReportError(RuntimeError):
    """The HTML report cannot be made (Plotly is not installed); the message says what to
    install."""


def _plotly():
    try:
        import plotly
        import plotly.graph_objects as go
    except ImportError:
        raise HtmlReportError(f"The HTML report needs Plotly, in aesdse's optional extra "
                              f"'{HTML_EXTRA}': pip install 'aesdse[{HTML_EXTRA}]'") from None
    return plotly, go


def _lines(text: str) -> list[str]:
    return textwrap.wrap(text, _HOVER_WIDTH, subsequent_indent="    ") or [""]


def hover_text(entry: TableLine, provenance: dict | None = None) -> str:
    """The hover label of a plotted table line, in Plotly's label markup (``<br>`` between
    lines, every value escaped): configuration, provenance, critical paths.

    Parameters
    ----------
    entry : TableLine
    provenance : dict, optional
        Row key -> (stale reasons, older rows), as given to :func:`aesdse.report.table.render`.
    """
    row = entry.row
    flow = ", ".join(f"{k}={show_value(v)}" for k, v in sorted((row.flow or {}).items())
                     if k not in RUN_FLOW_KEYS)
    seeds = ", ".join(str(s) for s in entry.seeds)
    config = [f"target {row.target} at {number(row.freq_mhz, 'g')} MHz; seeds {seeds}"
              + (f" (Fmax: {entry.fmax_stat})" if len(entry.members) > 1 else "")]
    config += [f"flow: {flow}"] if flow else []
    config.append(f"LUT4 {number(row.luts, 'int')}, Fmax {number(row.fmax_mhz, 'fmax')} MHz, "
                  f"{number(row.throughput_mbps, 'int')} Mbit/s")
    stale, older = [], 0
    for member in entry.members:
        reasons, count = (provenance or {}).get(member.key, ([], 0))
        stale += [r for r in reasons if r not in stale]
        older += count
    tools = ", ".join(f"{k} {v}" for k, v in sorted((row.tool_versions or {}).items()))
    origin = [f"rows {', '.join(entry.keys)} (experiment {row.experiment})",
              f"tools: {tools or 'not recorded'}; generator {(row.generator or '-')[:16]}; "
              f"measured {row.created_at or '-'}",
              ("stale: " + ", ".join(stale)) if stale else "current with this checkout"]
    origin += [f"+{older} older rows of this configuration"] if older else []
    parts = [("", [label(row)]), ("Configuration", config), ("Provenance", origin),
             ("Critical path", describe_paths(row))]
    out = []
    for heading, lines in parts:
        if heading:
            out.append(f"<b>{heading}</b>")
        for line in lines:
            out += [html.escape(piece, quote=False) for piece in _lines(line)]
    out[0] = f"<b>{out[0]}</b>"
    return "<br>".join(out)


def _figure(go, entries: list, provenance: dict | None, title: str | None,
            pruned: list | None = None):
    """The Pareto plot of the table lines that have a LUT4 area and a throughput, and an
    exploration's ``pruned`` candidates (:func:`aesdse.report.plot_explore.pruned_marks`):
    ``(figure, lines not drawn, pruned candidates drawn)``."""
    points = [(area_of(e.row, "luts"), e.row.throughput_mbps, e) for e in entries]
    points = [p for p in points if p[0] and p[1]]
    fig = go.Figure()
    for i, arch in enumerate(sorted({e.row.arch for _, _, e in points})):
        mine = [p for p in points if p[2].row.arch == arch]
        fig.add_trace(go.Scatter(
            x=[x for x, _, _ in mine], y=[y for _, y, _ in mine], mode="markers", name=arch,
            marker={"size": 11, "color": _COLORS[i % len(_COLORS)],
                    "line": {"width": 1, "color": "#fff"}},
            customdata=[e.row.key for _, _, e in mine],
            hovertext=[hover_text(e, provenance) for _, _, e in mine], hoverinfo="text"))
    front = pareto_front(points, key=lambda p: (p[0], p[1]))
    if len(front) > 1:
        fig.add_trace(go.Scatter(x=[p[0] for p in front], y=[p[1] for p in front],
                                 mode="lines", line={"shape": "hv", "dash": "dash",
                                                     "color": "#555", "width": 1},
                                 name="Pareto front", hoverinfo="skip"))
    ys = [y for _, y, _ in points]
    marks = []
    if pruned:
        from .plot_explore import pruned_marks
        marks, _ = pruned_marks(pruned)
        if marks:
            fig.add_trace(go.Scatter(
                x=[m[0] for m in marks], y=[m[1] for m in marks], mode="markers",
                name="pruned by synthesis (at its best throughput)",
                marker={"symbol": "x-thin", "size": 9, "color": "#999",
                        "line": {"width": 1.5, "color": "#999"}},
                hovertext=[html.escape(f"{m[2]}: pruned by synthesis; at most "
                                       f"{m[1]:.4g} Mbit/s") for m in marks],
                hoverinfo="text"))
            ys += [m[1] for m in marks]
    fig.update_layout(
        template="simple_white", title=title, hovermode="closest",
        hoverlabel={"align": "left", "font": {"size": 11}, "bgcolor": "#fff"},
        xaxis={"type": "log", "title": "Area (LUT4)", "showgrid": True},
        yaxis={"type": "log" if ys and max(ys) > 10 * min(ys) else "linear",
               "title": "Throughput (Mbit/s)", "showgrid": True},
        margin={"l": 70, "r": 20, "t": 50 if title else 20, "b": 60})
    return fig, len(entries) - len(points), len(marks)


def render_html(rows: list[Row], title: str | None = None, fmax: str = "median",
                runs: dict | None = None, provenance: dict | None = None,
                group_by: str | None = None, pruned: list | None = None) -> str:
    """The self-contained HTML report of ``rows``; the parameters are those of
    :func:`aesdse.report.table.render`, and ``pruned`` an exploration's pruned candidates
    (its journal's events), drawn as grey crosses at their best possible throughput.

    Raises
    ------
    HtmlReportError
        When Plotly (the ``html`` extra) is not installed.
    """
    plotly, go = _plotly()
    report = metrics_report(rows, title, fmax, runs, provenance, group_by)
    entries = report.extra["lines"]
    if entries:
        fig, unplotted, drawn = _figure(go, entries, provenance, None, pruned)
        before = [fig.to_html(full_html=False, include_plotlyjs=True, div_id=PLOT_ID,
                              config={"displaylogo": False, "responsive": True})]
        note = ("Area (LUT4, log scale) against throughput, one point per line of the table "
                "below; the dashed staircase is the Pareto front. Hover a point for its "
                "configuration, provenance and critical path.")
        if drawn:
            note += (" Grey crosses: candidates the exploration's synthesis pruned, at their "
                     "synthesized LUT4 and the best throughput the pruning granted them (never "
                     "placed and routed).")
        if unplotted:
            note += (f" {unplotted} line(s) without a LUT4 area or a throughput (e.g. asic "
                     f"estimates) are in the tables only.")
        before.append(f'<p class="note">{html.escape(note)}</p>')
    else:
        before = ["<p>(no verified points to plot)</p>"]
    from plotly.offline import get_plotlyjs_version
    footer = (f"Made by aesdse; the plot is drawn by plotly.js "
              f"{html.escape(get_plotlyjs_version())} (Plotly {html.escape(plotly.__version__)}), "
              f"inlined: this file loads nothing from the network.")
    return render_page(replace(report, extra={**report.extra, "html_before": before,
                                              "html_footer": footer}))
