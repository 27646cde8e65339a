"""Paper-style figures from stored rows: Pareto fronts, parameter sweeps and efficiency bars.

Every figure is drawn for a single paper column (3.5 in wide, 7-8 pt text) on matplotlib's Agg
canvas, without pyplot's global state, and saved deterministically: a fixed style
(:data:`STYLE`), a fixed SVG hash salt, no timestamps or software versions in the file's
metadata. The same rows give the same bytes, so a committed figure only changes when the results
do.

Kinds
-----
``pareto``
    Area (LUT4, ECP5 slices or slice-equivalents; log scale) against throughput, one marker per
    architecture family, the Pareto front of the measured points drawn as a staircase (a point
    is on it when no other point has at most its area and at least its throughput, one of them
    strictly; :func:`pareto_front`). Points are labelled by the values of the parameters that
    vary. Published points of the seed papers may be overlaid in open grey markers; they come
    from other devices and the legend says so.
``sweep``
    One or more metrics (stacked panels) against one parameter, one line per combination of the
    other varying parameters: the shape of 002 Fig. 3/4 (Fmax and LUT4 against S-box pipeline
    stages).
``bars``
    Throughput per area of each design, best first.
``gcm``
    The GHASH accumulator's area (its synthesized LUT4 cells, multiplier included:
    :func:`aesdse.report.gcm.ghash_area_share`) against the GCM core's throughput, one marker
    per multiplier kind (``ghash``) and one colour per GCM family; GCM rows without the
    recorded breakdown are left out (the figure says how many).
``families``
    One core across device families (``aesdse plot --kind families --arch iterative``): one bar
    per design and target in three panels, area in each family's own unit (ECP5 slices, iCE40
    logic cells, asic gate equivalents; log scale, every bar annotated with its unit, so the
    panel is labelled a cross-family comparison), Fmax and throughput. An asic estimate has no
    Fmax or throughput: its bars are absent and annotated so.
``explore``
    An exploration (``aesdse plot EXPLORE.yaml --kind explore``): the Pareto figure of what it
    placed and routed, and the candidates synthesis pruned as grey crosses at their synthesized
    area and the best throughput the pruning granted them (:mod:`aesdse.report.plot_explore`).

The shared look and the reproducible save are in :mod:`aesdse.report.plot_style`, the
``families`` and ``gcm`` figures in :mod:`aesdse.report.plot_families`; :func:`plot` draws any
kind.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..flow.families import SLICE_CONVENTIONS, row_area
from ..store.database import Row
from .cells import param_value, show_value
from .kinds import PLOT_AREAS, PLOT_KINDS, PLOT_METRICS
from .lines import RUN_FLOW_KEYS, varying_params
from .plot_families import families_figure, family_bars, gcm_figure
from .plot_explore import PRUNED_AREAS, pruned_marks
from .plot_style import (COLORS, MARKERS, PUBLISHED_MARKERS, STYLE, PlotError, has_column, mpl,
                         new_figure, plain_log, plot_lines, save, spans_decade)

__all__ = ["KINDS", "AREAS", "METRICS", "STYLE", "pareto_front", "area_of",
           "published_points", "pareto_figure", "sweep_figure", "bars_figure",
           "families_figure", "family_bars", "gcm_figure", "explore_figure", "save", "plot",
           "PlotError"]

#: The figures, area measures and sweep metrics (declared in :mod:`aesdse.report.kinds`).
KINDS, AREAS, METRICS = PLOT_KINDS, PLOT_AREAS, PLOT_METRICS

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def pareto_front(points, key=None) -> list:
    """The non-dominated items of ``points``, by increasing area.

    An item dominates another when its area is at most the other's and its throughput at least
    the other's, and it is strictly better in one of the two. Items with equal coordinates do
    not dominate each other, so both stay.

    Parameters
    ----------
    points : iterable
        Items; ``key(item)`` gives ``(area, throughput)`` (default: the item itself).
    key : callable, optional

    Returns
    -------
    list
        The non-dominated items, sorted by area, then by decreasing throughput.
    """
    key = key or (lambda p: p)
    items = [(key(p), p) for p in points]
    front = []
    for (a, t), p in items:
        dominated = any(a2 <= a and t2 >= t and (a2 < a or t2 > t) for (a2, t2), _ in items)
        if not dominated:
            front.append(((a, -t), p))
    front.sort(key=lambda x: x[0])
    return [p for _, p in front]


def area_of(row: Row, area: str, rate: float | None = None) -> float | None:
    """Area of a measured row in the measure ``area`` (a key of :data:`AREAS`), through
    :func:`aesdse.flow.families.row_area`; block RAM at ``rate`` slice-equivalents per Kbit."""
    if area not in AREAS:
        raise PlotError(f"Area must be one of {', '.join(AREAS)}, not {area!r}")
    return row_area(row, area, rate)


def published_points(papers, area: str, rate: float | None = None) -> list[dict]:
    """The published designs of ``papers`` (their own, ``this_work`` rows) that have an area in
    ``area`` (:meth:`aesdse.report.published.PublishedRow.area`: LUT counts of LUT4 families only, never
    converted from LUT6; logic slices, only of designs without block RAM; slice-equivalents with
    block RAM at ``rate``) and a
    throughput, as dicts with ``x``, ``y`` (Mbit/s), ``label``, ``paper`` (the Paper) and
    ``device``. ASIC rows and rows of unknown devices are left out.
    """
    points, seen = [], set()
    for paper in papers:
        for table in paper.tables:
            for prow in table.rows:
                conv = SLICE_CONVENTIONS.get(prow.device_family)
                throughput = _number(prow, "throughput_bps")
                if not prow.this_work or conv is None or not throughput:
                    continue
                x = prow.area(area, rate)
                if area == "slices" and prow.values.get("brams"):
                    x = None  # its logic slices alone are not its area
                if not x:
                    continue
                point = (paper.key, prow.label, x, throughput / 1e6)
                if point in seen:  # the same design printed in two tables
                    continue
                seen.add(point)
                points.append({"x": x, "y": throughput / 1e6, "label": prow.label,
                               "paper": paper, "device": conv.description.split(":")[0]})
    return points


def _number(prow, attr):
    try:
        return getattr(prow, attr)
    except TypeError:  # a text cell where a number was expected: not plottable
        return None


def _styles(names) -> dict:
    return {n: (COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)])
            for i, n in enumerate(sorted(set(names)))}


def _point_label(row: Row, names) -> str:
    return "/".join(show_value(param_value(row, n)) for n in names)


def _draw_measured(ax, points: list, names: dict) -> None:
    """The measured points of a Pareto figure, one style per family, their Pareto front and
    (where ``names`` gives a family's varying parameters) a label at each point."""
    styles = _styles(r.arch for _, _, r in points)
    for arch, (color, marker) in styles.items():
        mine = [(x, y) for x, y, r in points if r.arch == arch]
        ax.scatter([x for x, _ in mine], [y for _, y in mine], color=color, marker=marker,
                   s=16, zorder=3, label=arch, linewidths=0)
    front = pareto_front(points, key=lambda p: (p[0], p[1]))
    if len(front) > 1:
        ax.step([p[0] for p in front], [p[1] for p in front], where="post", color="#555555",
                linestyle="--", linewidth=0.8, zorder=2, label="Pareto front")
    elif front:
        ax.scatter([front[0][0]], [front[0][1]], s=60, facecolors="none",
                   edgecolors="#555555", zorder=2, label="Pareto front")
    for x, y, r in points:
        text = _point_label(r, names.get(r.arch, []))
        if text:
            ax.annotate(text, (x, y), textcoords="offset points", xytext=(3, 2),
                        fontsize=5.5, color="#333333")


def _draw_published(ax, pub: list, pub_keys: list) -> tuple[list, list]:
    """The published points of a Pareto figure, one hollow marker per paper: ``(handles,
    labels)`` of the figure's legend of papers."""
    handles, labels = [], []
    for i, key in enumerate(pub_keys):
        mine = [p for p in pub if p["paper"].key == key]
        devices = "/".join(sorted({p["device"].removeprefix("Xilinx ") for p in mine}))
        handles.append(ax.scatter(
            [p["x"] for p in mine], [p["y"] for p in mine],
            marker=PUBLISHED_MARKERS[i % len(PUBLISHED_MARKERS)], s=18,
            facecolors="none", edgecolors="#777777", linewidths=0.7, zorder=2,
            label="_published"))
        labels.append(f"{key} {mine[0]['paper'].name}: {devices}")
        # Label published points only when they cannot crowd the figure: one paper.
        if len(pub_keys) == 1 and len(mine) <= 12:
            for p in mine:
                ax.annotate(p["label"][:18], (p["x"], p["y"]), textcoords="offset points",
                            xytext=(3, -6), fontsize=5, color="#777777")
    return handles, labels


def pareto_figure(rows: list[Row], area: str = "luts", published=None,
                  title: str | None = None, rate: float | None = None, *,
                  point_labels: bool = True) -> Figure:
    """Area against throughput with the Pareto front; see the module docstring.

    Parameters
    ----------
    rows : list of Row
        Seeds are aggregated by median Fmax; failed rows are ignored.
    area : str
        A key of :data:`AREAS`.
    published : list of Paper, optional
        Papers whose comparable points (:func:`published_points`) are overlaid.
    title : str, optional
    rate : float, optional
        Slice-equivalents per block RAM Kbit for ``slice-eq`` (default
        :data:`aesdse.flow.families.SLICES_PER_BRAM_KBIT`).
    point_labels : bool
        Label each point with its varying parameters (off for figures of many families, where
        the labels would cover the points).
    """
    if area not in AREAS:
        raise PlotError(f"Area must be one of {', '.join(AREAS)}, not {area!r}")
    entries = plot_lines(rows)
    names = _family_names(entries) if point_labels else {}
    points = [(area_of(e.row, area, rate), e.row.throughput_mbps, e.row) for e in entries]
    points = [p for p in points if p[0] and p[1]]
    if not points:
        raise PlotError(f"No verified point has both an area ({area}) and a throughput")
    pub = published_points(published, area, rate) if published else []
    pub_keys = sorted({p["paper"].key for p in pub})
    legend_height = 0.13 * (len(pub_keys) + 1) if pub_keys else 0.0
    height = 2.6 + legend_height
    with mpl().rc_context(STYLE):
        fig = new_figure(height)
        ax = fig.add_subplot()
        _draw_measured(ax, points, names)
        handles, labels = _draw_published(ax, pub, pub_keys)
        ax.set_xscale("log")
        plain_log(ax.xaxis)
        if spans_decade([p[1] for p in points] + [p["y"] for p in pub]):
            ax.set_yscale("log")
            plain_log(ax.yaxis)
        ax.set_xlabel(AREAS[area])
        ax.set_ylabel("Throughput (Mbit/s)")
        if title:
            ax.set_title(title)
        # One line per family: several families' parameter names on one line would be wider
        # than the figure.
        note = "\n".join(f"{arch}: " + "/".join(n.removeprefix("flow.") for n in ns)
                          for arch, ns in sorted(names.items()) if ns)
        if note:
            ax.text(0.99, 0.01, "labels: " + note, transform=ax.transAxes, ha="right",
                    va="bottom", fontsize=5.5, color="#555555")
        ax.legend(loc="best", handletextpad=0.3, borderaxespad=0.3)
        if handles:
            fig.legend(handles, labels, loc="lower left", ncol=1, handletextpad=0.3,
                       borderaxespad=0.2, title="Published (other devices, their own tools)",
                       title_fontsize=6, alignment="left")
        fig.tight_layout(pad=0.3, rect=(0, legend_height / height, 1, 1))
    return fig


def _family_names(entries) -> dict:
    """Per architecture family, the parameters (and flow options) that vary among its points:
    what labels a point within its family."""
    by_arch: dict = {}
    for e in entries:
        by_arch.setdefault(e.row.arch, []).append(e.row)
    return {arch: [n for n in varying_params(rows, with_seed=False) if n != "arch"]
            for arch, rows in by_arch.items()}


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _series_label(row: Row, names) -> str:
    parts = [row.arch] if "arch" in names else []
    parts += [f"{n.removeprefix('flow.')}={show_value(param_value(row, n))}" for n in names
              if n != "arch" and has_column(row, n)]
    return ", ".join(parts)


def sweep_figure(rows: list[Row], x: str, y, title: str | None = None) -> Figure:
    """Metrics ``y`` (one name or a list, keys of :data:`METRICS`) against parameter ``x``, one
    panel per metric, one line per combination of the other varying parameters.

    ``x`` is an architecture parameter (points of families without it are left out),
    ``freq_mhz``, ``seed`` (then seeds are not aggregated) or ``flow.<option>``.
    """
    ys = [y] if isinstance(y, str) else list(y)
    if not ys:
        raise PlotError("Give at least one metric to plot (--y), one of: " + ", ".join(METRICS))
    for metric in ys:
        if metric not in METRICS:
            raise PlotError(f"Metric must be one of {', '.join(METRICS)}, not {metric!r}")
    entries = plot_lines(rows, "all" if x == "seed" else "median")
    known = {k for e in entries for k in e.row.params} | {"freq_mhz", "seed"} \
        | {f"flow.{k}" for e in entries for k in (e.row.flow or {}) if k not in RUN_FLOW_KEYS}
    if x not in known:
        raise PlotError(f"Parameter {x!r} is not a parameter of these points; they have: "
                        + ", ".join(sorted(known)))
    entries = [e for e in entries if has_column(e.row, x)]
    others = [n for n in varying_params([e.row for e in entries], with_seed=x == "seed")
              if n != x]
    series: dict = {}
    for e in entries:
        series.setdefault(_series_label(e.row, others), []).append(e.row)
    xs_all = [param_value(e.row, x) for e in entries]
    numeric = _numeric(xs_all)
    order = sorted({show_value(v) for v in xs_all})
    legend_rows = len(series) if others else 0
    legend_height = 0.12 * legend_rows + (0.05 if legend_rows else 0.0)
    height = 0.55 + 1.4 * len(ys) + legend_height
    with mpl().rc_context(STYLE):
        fig = new_figure(height)
        axes = fig.subplots(len(ys), 1, sharex=True, squeeze=False)[:, 0]
        styles = _styles(series)
        for ax, metric in zip(axes, ys):
            for name, members in sorted(series.items()):
                color, marker = styles[name]
                pts = sorted(((param_value(r, x) if numeric else order.index(show_value(param_value(r, x))),
                               getattr(r, metric)) for r in members
                              if getattr(r, metric) is not None), key=lambda p: p[0])
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, marker=marker,
                        markersize=3.5, label=name or None)
            ax.set_ylabel(METRICS[metric])
        if not numeric:
            axes[-1].set_xticks(range(len(order)), order)
        elif all(isinstance(v, int) for v in xs_all):
            axes[-1].set_xticks(sorted(set(xs_all)))
        axes[-1].set_xlabel({"freq_mhz": "Target frequency (MHz)", "seed": "Placer seed"}
                            .get(x, x.removeprefix("flow.")))
        if title:
            axes[0].set_title(title)
        if legend_rows:
            handles, labels = axes[0].get_legend_handles_labels()
            fig.legend(handles, labels, loc="lower left", ncol=1, handlelength=1.8,
                       borderaxespad=0.2)
        fig.tight_layout(pad=0.3, rect=(0, legend_height / height, 1, 1))
    return fig


def bars_figure(rows: list[Row], area: str = "luts", title: str | None = None,
                rate: float | None = None) -> Figure:
    """Throughput per area of each design (seeds aggregated by median), best first."""
    if area not in AREAS:
        raise PlotError(f"Area must be one of {', '.join(AREAS)}, not {area!r}")
    entries = plot_lines(rows)
    names = _family_names(entries)
    bars = []
    for e in entries:
        a = area_of(e.row, area, rate)
        if a and e.row.throughput_mbps:
            bars.append((e.row.throughput_mbps / a, e.row))
    if not bars:
        raise PlotError(f"No verified point has both an area ({area}) and a throughput")
    labels = {id(r): (r.arch + " " + _point_label(r, names.get(r.arch, []))).strip()
              for _, r in bars}
    bars.sort(key=lambda b: (-b[0], labels[id(b[1])]))
    unit = {"luts": "LUT4", "slices": "slice", "slice-eq": "slice-equivalent"}[area]
    note = "; ".join(f"{arch}: " + "/".join(n.removeprefix("flow.") for n in ns)
                     for arch, ns in sorted(names.items()) if ns)
    with mpl().rc_context(STYLE):
        fig = new_figure(0.75 + 0.17 * len(bars) + (0.1 if note else 0.0))
        ax = fig.add_subplot()
        styles = _styles(r.arch for _, r in bars)
        positions = range(len(bars))
        ax.barh(positions, [v for v, _ in bars], color=[styles[r.arch][0] for _, r in bars],
                height=0.7)
        ax.set_yticks(positions, [labels[id(r)] for _, r in bars])
        ax.invert_yaxis()
        for i, (v, _) in enumerate(bars):
            ax.text(v, i, f" {v:.3g}", va="center", fontsize=5.5)
        ax.set_xlabel(f"Throughput per {unit} (Mbit/s)" + (f"\nlabels: {note}" if note else ""))
        ax.set_xlim(0, max(v for v, _ in bars) * 1.18)
        ax.grid(axis="y", visible=False)
        if title:
            ax.set_title(title)
        fig.tight_layout(pad=0.3)
    return fig


#: Units of each family's area, as bar annotations (singular, plural).
def explore_figure(rows, pruned: list, area: str = "luts", title: str | None = None,
                   rate: float | None = None):
    """The exploration's placed and routed ``rows`` with its front, and its ``pruned``
    candidates (:mod:`aesdse.report.plot_explore`)."""
    if area not in PRUNED_AREAS:
        raise PlotError(f"An explore figure draws pruned points by LUT4 or slices, not {area!r}"
                        f" (synthesis gives no block RAM-converted area)")
    fig = pareto_figure(rows, area, title=title, rate=rate, point_labels=False)
    marks, missing = pruned_marks(pruned, area)
    ax = fig.axes[0]
    with mpl().rc_context(STYLE):
        label = f"pruned by synthesis ({len(marks)}), at its best throughput"
        if missing:
            label += f"; {missing} more with no Fmax bound yet"
        if marks:
            ax.scatter([m[0] for m in marks], [m[1] for m in marks], marker="x", s=14,
                       color="#999999", linewidths=0.7, zorder=1, label=label)
        elif missing:
            ax.scatter([], [], marker="x", s=14, color="#999999", label=label)
        ax.relim()
        ax.autoscale_view()
        ax.legend(loc="best", handletextpad=0.3, borderaxespad=0.3)
    return fig


def plot(rows: list[Row], kind: str, output, *, area: str = "luts", x: str | None = None,
         y=(), published=None, title: str | None = None, rate: float | None = None,
         pruned=None) -> Path:
    """Draw a figure of ``kind`` (one of :data:`KINDS`) from ``rows`` and save it to ``output``;
    ``pruned``: an exploration's pruned candidates (``explore``,
    :mod:`aesdse.report.plot_explore`).

    Raises
    ------
    PlotError
        For an unknown kind, area, metric or parameter, or rows with nothing to plot.
    """
    if kind == "pareto":
        fig = pareto_figure(rows, area, published=published, title=title, rate=rate)
    elif kind == "sweep":
        if not x:
            raise PlotError("A sweep plot needs --x PARAM (the parameter on the x axis)")
        fig = sweep_figure(rows, x, y or ("fmax_mhz",), title=title)
    elif kind == "bars":
        fig = bars_figure(rows, area, title=title, rate=rate)
    elif kind == "families":
        fig = families_figure(rows, title=title)
    elif kind == "gcm":
        fig = gcm_figure(rows, title=title)
    elif kind == "explore":
        fig = explore_figure(rows, pruned or [], area, title=title, rate=rate)
    else:
        raise PlotError(f"Kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return save(fig, output)
