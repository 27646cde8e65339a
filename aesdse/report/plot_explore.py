"""Where an exploration's pruned candidates are drawn, in its figure (``aesdse plot
EXPLORE.yaml --kind explore``, :func:`aesdse.report.plot.explore_figure`) and on the HTML
report's plot: beside what it placed and routed and its front.

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

__all__ = ["PRUNED_AREAS", "pruned_marks"]

#: The area measures a pruned candidate can be drawn by (synthesis gives no block RAM-converted
#: area).
PRUNED_AREAS = ("luts", "slices")


def pruned_marks(pruned: list, area: str = "luts") -> tuple[list, int]:
    """``([(area, throughput, label)], not drawn)`` of the pruned candidates ``pruned`` (the
    journal's ``pruned`` events, or an explore result's ``pruned_points``): each at its
    synthesis area and its optimistic throughput."""
    marks, missing = [], 0
    key = area if area in PRUNED_AREAS else None
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
