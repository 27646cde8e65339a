"""The figure of an exploration (``aesdse plot EXPLORE.yaml --kind explore``): what it placed
and routed, its front, and what synthesis pruned.

The placed and routed points are drawn as in the Pareto figure
(:func:`aesdse.report.plot.pareto_figure`: area against throughput, seeds aggregated by median
Fmax, the front as a staircase). A pruned candidate was never placed and routed, so it has no
measured throughput: it is drawn as a grey cross at its synthesized area and at the *best*
throughput the pruning granted it (the family's Fmax bound over its measured cycles per block:
:func:`aesdse.explore.pruning.optimistic`). A cross below the front at that optimistic height is
a point the pruning was right to leave out. Candidates pruned before the family had the rows to
bound its Fmax (or that failed synthesis) have no such height and are counted in the legend only.
"""

from __future__ import annotations

from .plot import pareto_figure
from .plot_style import STYLE, PlotError, mpl

__all__ = ["pruned_marks", "explore_figure"]

#: Where a pruned candidate is drawn, per area measure: the synthesis figure that gives its area.
_PRUNED_AREA = {"luts": "luts", "slices": "slices"}


def pruned_marks(pruned: list, area: str = "luts") -> tuple[list, int]:
    """``([(area, throughput, label)], not drawn)`` of the pruned candidates ``pruned`` (the
    journal's ``pruned`` events, or an explore result's ``pruned_points``): each at its
    synthesis area and its optimistic throughput."""
    marks, missing = [], 0
    key = _PRUNED_AREA.get(area)
    for event in pruned:
        synthesis, bound = event.get("synthesis") or {}, event.get("bound") or {}
        # The area synthesis measured (the bound's is less the routing margin); slices only
        # exist as the bound's estimate.
        x = synthesis.get(key) if key == "luts" else bound.get(key) if key else None
        y = bound.get("throughput_mbps")
        if x and y:
            marks.append((x, y, event.get("label", "")))
        else:
            missing += 1
    return marks, missing


def explore_figure(rows, pruned: list, area: str = "luts", title: str | None = None,
                   rate: float | None = None):
    """The exploration's placed and routed ``rows`` with its front, and its ``pruned``
    candidates (module documentation)."""
    if area not in _PRUNED_AREA:
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
