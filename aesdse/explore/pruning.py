"""Cheap first: decide from a candidate's synthesis figures whether place and route is worth
running.

A candidate is pruned when synthesis already shows it

* *infeasible*: a constraint on a metric synthesis knows is broken beyond the margin
  (``luts <= 3000`` and synthesis gives more than ``3000 / (1 - lut_margin)`` LUT4: nextpnr's
  LUT4 count includes route-through LUTs and may exceed Yosys's, never by much fall below it;
  cycles per block and latency are exact, from the verify stage), or it does not fit the
  device; or
* *dominated*: even its optimistic objective vector is dominated by a measured feasible point.

The optimistic vector takes the synthesis figures less the margin for LUT4 and flip-flops and,
for what needs place and route, a per-family bound learned from the rows, turned into
throughput with the candidate's own cycles per block: an Fmax of :data:`FMAX_OPTIMISM` times the
family's best measured, or lower where the family's depth model says so. The model
(:func:`fit_period`) fits the clock period as a line in the netlist's logic depth
(:mod:`aesdse.flow.logic_depth`) over the family's placed and routed points, and bounds a
candidate's Fmax by the fit at its depth times the worst under-prediction of the rows and
:data:`PREDICTION_SLACK`. Until a family has :data:`MIN_FAMILY_ROWS` ok rows, no candidate of it
is pruned as dominated. Both bounds lean optimistic: a pruned point that would have been on the
front is the costly mistake.
"""

from .front import dominates, objective_vector
from .settings import SYNTHESIS_METRICS, ExploreSettings

__all__ = ["FMAX_OPTIMISM", "MIN_FAMILY_ROWS", "PREDICTION_SLACK", "FamilyBounds", "fit_period",
           "prune_reason", "optimistic"]

#: The optimistic Fmax of a candidate, relative to the best its family has reached.
FMAX_OPTIMISM = 1.25
#: Ok rows a family needs before its candidates are pruned as dominated.
MIN_FAMILY_ROWS = 3


class FamilyBounds:
    """What the ok rows of one family say about its unmeasured candidates.

    Parameters
    ----------
    rows : list of Row
        The family's rows.
    depths : dict, optional
        Row key -> the logic depth of its netlist (:mod:`aesdse.flow.logic_depth`): with
        enough of them, the Fmax bound follows the candidate's own depth (:meth:`fmax_bound`).
    """

    def __init__(self, rows, depths: dict | None = None):
        ok = [r for r in rows if r.status == "ok" and r.fmax_mhz and r.cycles_per_block
              and r.throughput_mbps and r.luts]
        self.count = len(ok)
        self.fmax = max((r.fmax_mhz for r in ok), default=None)
        # Throughput per (Fmax / cycles per block): 128 bits for one block in flight, more
        # for lanes and clock multipliers; the largest the family has shown.
        self.bits = max((r.throughput_mbps * r.cycles_per_block / r.fmax_mhz for r in ok),
                        default=None)
        self.slices_per_lut = min((r.slices / r.luts for r in ok if r.slices), default=None)
        pairs = [(depths[r.key], r.fmax_mhz) for r in ok if (depths or {}).get(r.key)]
        self.model = fit_period(pairs)

    def fmax_bound(self, depth: float | None) -> float:
        """The highest Fmax a candidate of logic ``depth`` may reach: the loose bound
        (:data:`FMAX_OPTIMISM` x the family's best), or lower where the family's depth model
        says so."""
        loose = self.fmax * FMAX_OPTIMISM
        if self.model is None or depth is None:
            return loose
        intercept, slope, ratio, deepest = self.model
        # Beyond the deepest measured point the model is not extrapolated downwards.
        period = intercept + slope * min(depth, deepest)
        if period <= 0:
            return loose
        return min(loose, 1000.0 / period * ratio * PREDICTION_SLACK)


#: Slack on the depth model's Fmax bound, on top of its worst under-prediction of the rows.
PREDICTION_SLACK = 1.1


def fit_period(pairs: list) -> tuple | None:
    """Least-squares clock period (ns) = intercept + slope x depth over ``(depth, Fmax)``
    pairs: ``(intercept, slope, ratio, deepest)`` with ``ratio`` the largest measured / fitted
    Fmax (at least 1), or None with fewer than :data:`MIN_FAMILY_ROWS` pairs, one depth only,
    or a period that does not grow with depth."""
    if len(pairs) < MIN_FAMILY_ROWS or len({d for d, _ in pairs}) < 2:
        return None
    xs = [d for d, _ in pairs]
    ys = [1000.0 / f for _, f in pairs]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / \
        sum((x - mean_x) ** 2 for x in xs)
    intercept = mean_y - slope * mean_x
    if slope <= 0:
        return None
    fitted = [intercept + slope * x for x in xs]
    if any(p <= 0 for p in fitted):
        return None
    ratio = max(1.0, max(f * p / 1000.0 for (_, f), p in zip(pairs, fitted)))
    return intercept, slope, ratio, max(xs)


def optimistic(figures, bounds: FamilyBounds, settings: ExploreSettings) -> dict | None:
    """The best metrics a candidate with synthesis ``figures`` could reach (module
    documentation); None when the family has too few rows."""
    if bounds.count < MIN_FAMILY_ROWS or not figures.luts or not figures.cycles_per_block:
        return None
    keep = 1.0 - settings.lut_margin
    luts = figures.luts * keep
    fmax = bounds.fmax_bound(getattr(figures, "logic_depth", None))
    throughput = bounds.bits * fmax / figures.cycles_per_block
    values = {"luts": luts, "ffs": (figures.ffs or 0) * keep, "brams": figures.brams,
              "cycles_per_block": figures.cycles_per_block,
              "latency_cycles": figures.latency_cycles, "fmax_mhz": fmax,
              "throughput_mbps": throughput, "mbps_per_lut": throughput / luts}
    if bounds.slices_per_lut:
        values["slices"] = luts * bounds.slices_per_lut
        values["mbps_per_slice"] = throughput / values["slices"]
    return values


def _broken(settings: ExploreSettings, exact: dict, best: dict | None) -> str | None:
    """A constraint the candidate cannot meet: on what synthesis knows (with the margin), or
    on what even its optimistic values miss."""
    keep = 1.0 - settings.lut_margin
    for c in settings.constraints:
        if c.metric is None:
            continue
        value = exact.get(c.metric)
        if c.metric in SYNTHESIS_METRICS and value is not None:
            bound = value * keep if c.metric in ("luts", "ffs") and c.op == "<=" else value
            if c.metric in ("luts", "ffs") and c.op == ">=":
                continue  # routing may add LUT4: no bound from below
            if c.violation(bound) > 0:
                return f"{c.text}: synthesis gives {value:g}"
        elif best is not None and best.get(c.metric) is not None \
                and c.violation(best[c.metric]) > 0:
            return f"{c.text}: at best {best[c.metric]:.4g} (optimistic, from synthesis)"
    return None


def prune_reason(figures, bounds: FamilyBounds, settings: ExploreSettings,
                 measured: list) -> str | None:
    """Why place and route of a candidate is not worth running, or None.

    Parameters
    ----------
    figures : SynthesisFigures
        The candidate's, status ok.
    bounds : FamilyBounds
        Of the candidate's family.
    measured : list of (label, vector)
        The feasible measured points' objective vectors (to minimize).
    """
    best = optimistic(figures, bounds, settings)
    broken = _broken(settings, figures.values(), best)
    if broken:
        return broken
    vector = objective_vector(best, settings) if best is not None else None
    if vector is None:
        return None
    for label, other in measured:
        if dominates(other, vector):
            return (f"dominated by {label} even at its optimistic values (Fmax at most "
                    f"{best['fmax_mhz']:.4g} MHz)")
    return None
