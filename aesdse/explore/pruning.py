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
for what needs place and route, a per-family bound learned from the rows: an Fmax of
:data:`FMAX_OPTIMISM` times the family's best measured, turned into throughput with the
candidate's own cycles per block. Until a family has :data:`MIN_FAMILY_ROWS` ok rows, no
candidate of it is pruned as dominated. This bound is deliberately loose (a pruned point that
would have been on the front is the costly mistake); a sharper model, Fmax predicted from the
synthesized logic depth, is not done yet (docs/explore.md).
"""

from .front import dominates, objective_vector
from .settings import SYNTHESIS_METRICS, ExploreSettings

__all__ = ["FMAX_OPTIMISM", "MIN_FAMILY_ROWS", "FamilyBounds", "prune_reason", "optimistic"]

#: The optimistic Fmax of a candidate, relative to the best its family has reached.
FMAX_OPTIMISM = 1.25
#: Ok rows a family needs before its candidates are pruned as dominated.
MIN_FAMILY_ROWS = 3


class FamilyBounds:
    """What the ok rows of one family say about its unmeasured candidates."""

    def __init__(self, rows):
        ok = [r for r in rows if r.status == "ok" and r.fmax_mhz and r.cycles_per_block
              and r.throughput_mbps and r.luts]
        self.count = len(ok)
        self.fmax = max((r.fmax_mhz for r in ok), default=None)
        # Throughput per (Fmax / cycles per block): 128 bits for one block in flight, more
        # for lanes and clock multipliers; the largest the family has shown.
        self.bits = max((r.throughput_mbps * r.cycles_per_block / r.fmax_mhz for r in ok),
                        default=None)
        self.slices_per_lut = min((r.slices / r.luts for r in ok if r.slices), default=None)


def optimistic(figures, bounds: FamilyBounds, settings: ExploreSettings) -> dict | None:
    """The best metrics a candidate with synthesis ``figures`` could reach (module
    documentation); None when the family has too few rows."""
    if bounds.count < MIN_FAMILY_ROWS or not figures.luts or not figures.cycles_per_block:
        return None
    keep = 1.0 - settings.lut_margin
    luts = figures.luts * keep
    fmax = bounds.fmax * FMAX_OPTIMISM
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
            return f"dominated by {label} even at its optimistic values"
    return None
