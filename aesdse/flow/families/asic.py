"""The ``asic`` target: the generic gate-level estimate of :mod:`aesdse.flow.asic` (no device, no
package, no speed grade, no place and route)."""

import math

from .base import FamilyDriver, Part, SpeedLimits

__all__ = ["Asic", "DRIVERS", "PARTS", "SPEED_LIMITS"]

#: The ``asic`` target: Yosys generic synthesis mapped by ABC to the gate-equivalent Liberty file
#: of :mod:`aesdse.flow.asic`. No capacity, no package, no speed grade.
PARTS = {"asic": Part("asic", "asic", "", 0, 0, 0, 0, (), ())}

#: The ``asic`` estimate has no data-sheet limits.
SPEED_LIMITS = {
    None: SpeedLimits(math.inf, math.inf, "asic: a generic gate-level estimate, no limits"),
}


class Asic(FamilyDriver):
    """The gate-equivalent estimate: ``synth`` then ABC (:func:`aesdse.flow.asic.estimate`),
    area in gate equivalents, no place and route (no ``pnr_tool``)."""
    name = "asic"
    title = "asic"
    rank = 90
    parts = PARTS
    speed_limits = SPEED_LIMITS
    synth_command = "synth"
    synth_options = ()
    out_of_context = True
    unit = "gate equivalents (GE): NAND2 = 1 GE, generic estimate without place and route"
    area_column = ("area_ge", "GE")
    report_note = ("asic rows: an estimate without place and route: Yosys + ABC to a "
                   "gate-equivalent library (aesdse/flow/ge.lib, NAND2 = 1 GE); area in the GE "
                   "column (gate equivalents, never LUT4 or slices), logic depth in NAND2 delays "
                   "(an indicative clock, not MHz); no Fmax, so no throughput.")


DRIVERS = (Asic(),)
