"""Objective vectors, feasibility, the Pareto front, its hypervolume, and the points closest to
feasible: pure functions of stored rows and the search settings (no tool, no database).

Every objective is turned into a number to minimize (:meth:`Objective.better`), so "dominates"
and the hypervolume have one meaning whatever the directions. A row is *feasible* when it is
ok (verified, placed and routed: a design that does not fit is a failed row) and every
constraint holds.
"""

import math
import statistics
from dataclasses import dataclass

from ..store.database import Row
from .settings import METRICS, ExploreSettings

__all__ = ["objective_vector", "row_values", "violation", "feasible", "dominates", "pareto_front",
           "hypervolume", "reference_point", "closest", "closest_pruned", "DesignSummary", "summarize_seeds"]


def objective_vector(values: dict, settings: ExploreSettings) -> tuple | None:
    """The objectives of ``values`` (metric -> number) as numbers to minimize; None when one
    is unknown."""
    out = []
    for objective in settings.objectives:
        value = values.get(objective.metric)
        if value is None or not math.isfinite(value):
            return None
        out.append(objective.better(float(value)))
    return tuple(out)


def row_values(row: Row) -> dict:
    """A row's metrics by name."""
    return {name: getattr(row, name) for name in METRICS}


def violation(values: dict, settings: ExploreSettings) -> float:
    """The sum of how far each constraint is broken, each relative to its bound (0.0:
    all hold)."""
    total = 0.0
    for constraint in settings.constraints:
        gap = constraint.violation(values.get(constraint.metric) if constraint.metric else 0)
        total += gap / max(abs(constraint.bound), 1e-9) if math.isfinite(gap) else math.inf
    return total


def feasible(row: Row, settings: ExploreSettings) -> bool:
    """Ok and within every constraint."""
    return row.status == "ok" and violation(row_values(row), settings) == 0.0


def dominates(a: tuple, b: tuple) -> bool:
    """``a`` is no worse than ``b`` in every objective and better in one (minimizing)."""
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def pareto_front(items: list, vector) -> list:
    """The items whose ``vector(item)`` no other item dominates (ties: the first kept), in
    the order given."""
    vectors = [vector(item) for item in items]
    front, seen = [], set()
    for i, (item, v) in enumerate(zip(items, vectors)):
        if v is None or v in seen:
            continue
        if not any(w is not None and dominates(w, v) for j, w in enumerate(vectors) if j != i):
            front.append(item)
            seen.add(v)
    return front


def hypervolume(points: list, reference: tuple) -> float:
    """The volume that ``points`` (vectors to minimize) dominate up to ``reference``.

    Exact, by slicing along the first objective (the HSO recursion); fast for the few dozen
    points of a front."""
    inside = sorted({p for p in points if all(x < r for x, r in zip(p, reference))})
    if not inside:
        return 0.0
    if len(reference) == 1:
        return reference[0] - min(p[0] for p in inside)
    volume = 0.0
    for i, p in enumerate(inside):
        upper = inside[i + 1][0] if i + 1 < len(inside) else reference[0]
        if upper <= p[0]:
            continue
        rest = [q[1:] for q in inside[:i + 1]]
        volume += (upper - p[0]) * hypervolume(rest, reference[1:])
    return volume


def reference_point(vectors: list) -> tuple | None:
    """A reference point a little beyond the worst of ``vectors`` in every objective."""
    vectors = [v for v in vectors if v is not None]
    if not vectors:
        return None
    worst = [max(v[i] for v in vectors) for i in range(len(vectors[0]))]
    best = [min(v[i] for v in vectors) for i in range(len(vectors[0]))]
    return tuple(w + 0.1 * (w - b) + 1e-9 * max(1.0, abs(w)) for w, b in zip(worst, best))


def closest(rows: list, settings: ExploreSettings, count: int = 3) -> list:
    """The ok rows that break the constraints least (an impossible constraint: what came
    closest), best first."""
    ok = [r for r in rows if r.status == "ok"]
    return sorted(ok, key=lambda r: violation(row_values(r), settings))[:count]


def closest_pruned(pruned: list, settings: ExploreSettings, count: int = 3) -> list:
    """The pruned candidates (``{"label", "why", "synthesis"}``) whose synthesis figures break
    the constraints least, best first; those without figures are left out."""
    known = [p for p in pruned if p.get("synthesis")]
    return sorted(known, key=lambda p: violation(p["synthesis"], settings))[:count]


@dataclass(frozen=True)
class DesignSummary:
    """One design over its placer seeds: the median of each metric and the spread.

    Attributes
    ----------
    rows : tuple of Row
        Its ok rows, by seed.
    median : dict
        Metric -> median over the seeds.
    spread : dict
        Metric -> (min, max) over the seeds.
    """
    rows: tuple
    median: dict
    spread: dict

    @property
    def first(self) -> Row:
        return self.rows[0]


def summarize_seeds(rows: list) -> list:
    """Group ok rows by design (architecture and parameters) into :class:`DesignSummary`."""
    groups: dict = {}
    for row in rows:
        if row.status == "ok":
            groups.setdefault((row.arch, tuple(sorted(row.params.items()))), []).append(row)
    out = []
    for group in groups.values():
        group.sort(key=lambda r: r.seed)
        values = [row_values(r) for r in group]
        median, spread = {}, {}
        for name in values[0]:
            known = [v[name] for v in values if v[name] is not None]
            if known:
                median[name] = statistics.median(known)
                spread[name] = (min(known), max(known))
        out.append(DesignSummary(tuple(group), median, spread))
    return out
