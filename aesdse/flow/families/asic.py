"""The ``asic`` target: the generic gate-level estimate of :mod:`aesdse.flow.asic` (no device, no
package, no speed grade, no place and route)."""

import math

from .base import CellModels, EstimateFailed, FamilyDriver, Part, SpeedLimits
from ..asic import estimate as asic_estimate

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
    # No files: the netlist is of Yosys internal gates (synth without a cell library).
    cell_models = CellModels(())
    synth_options = ()
    out_of_context = True
    unit = "gate equivalents (GE): NAND2 = 1 GE, generic estimate without place and route"
    area_column = ("area_ge", "GE")
    report_note = ("asic rows: an estimate without place and route: Yosys + ABC to a "
                   "gate-equivalent library (aesdse/flow/ge.lib, NAND2 = 1 GE); area in the GE "
                   "column (gate equivalents, never LUT4 or slices), logic depth in NAND2 delays "
                   "(an indicative clock, not MHz); no Fmax, so no throughput.")
    estimate_files = ("stat.json", "yosys.log", "ge.lib")
    details_key = "asic"
    # The columns of an asic-only table: an estimate without place and route has no LUT4,
    # slices, Fmax or throughput, so those columns are left out, not shown empty.
    table_columns = (
        ("target", "Target", "text"),
        ("area_ge", "GE", "int"),
        ("sequential_ge", "of which FF (GE)", "int"),
        ("ffs", "FF", "int"),
        ("depth_nand2", "Depth (NAND2 delays)", "g"),
        ("latency_cycles", "Latency (cycles)", "int"),
        ("cycles_per_block", "Cycles/block", "g"),
    )
    # Beside FPGA rows: the gate equivalents and the logic depth of ``details["asic"]``.
    extra_columns = (
        ("area_ge", "GE", "int"),
        ("depth_nand2", "Depth (NAND2 delays)", "g"),
    )

    def estimate(self, rtlil_file, top, workdir, options, timeout_s):
        """:func:`aesdse.flow.asic.estimate`: area in gate equivalents, depth in NAND2 delays."""
        result = asic_estimate(rtlil_file, top, workdir, timeout_s)
        if not result.ok:
            raise EstimateFailed(result.reason, result.seconds)
        return {"seconds": result.seconds, "area_ge": result.area_ge,
                "sequential_ge": result.sequential_ge, "cells": result.cells,
                "depth_nand2": result.depth_nand2}

    def estimate_columns(self, meta):
        """``ffs`` is the flip-flop count; no LUT, no Fmax and so no throughput (an estimate
        without place and route has no clock in MHz)."""
        details = {**{k: meta[k] for k in ("area_ge", "sequential_ge", "cells", "depth_nand2")},
                   "unit": "GE (NAND2 = 1), aesdse/flow/ge.lib",
                   "note": "estimate: generic synthesis mapped by ABC to a gate-equivalent "
                           "library, without place and route; depth in NAND2 delays"}
        return ({"ffs": meta["cells"].get("DFF", 0), "brams": 0, "carries": 0, "dsps": 0},
                details)

    def progress_detail(self, row):
        asic = (row.details or {}).get("asic", {})
        return (f" {asic.get('area_ge', 0):,.0f} GE (estimate), {row.ffs} FF, "
                f"depth {asic.get('depth_nand2', 0):g} NAND2 delays, "
                f"{row.cycles_per_block:g} cycles/block")


DRIVERS = (Asic(),)
