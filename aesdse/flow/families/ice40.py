"""Lattice iCE40 (HX, UltraPlus): nextpnr-ice40, measured in the harness.

Numbers come from the Lattice "iCE40 LP/HX Family Data Sheet" (DS1040 v3.4, Table 1-1) and
"iCE40 UltraPlus Family Data Sheet" (FPGA-DS-02008, Table 1.1).
"""

import math

from .base import CellModels, FamilyDriver, Part, SliceConvention, SpeedLimits

__all__ = ["Ice40", "DRIVERS", "PARTS", "SPEED_LIMITS"]

# iCE40 LP/HX Family Data Sheet, DS1040 v3.4 (October 2017), Table 1-1 "iCE40 Family Selection
# Guide": HX8K 7,680 logic cells (one LUT4 + one flip-flop each), 32 RAM4K blocks (128 Kbit), no
# DSP. iCE40 UltraPlus Family Data Sheet (FPGA-DS-02008), Table 1.1: UP5K 5,280 logic cells,
# 30 EBR of 4 Kbit (120 Kbit), 8 DSP (SB_MAC16), 4 SPRAM of 256 Kbit (not counted here: aesdse
# never infers SPRAM). The parts have no speed grade (HX is the high-performance line, UP the
# ultra-low-power one; nextpnr-ice40 has no --speed). Packages: those nextpnr-ice40 0.11 accepts
# for the part, as the data sheets name them (lower case, as nextpnr's --package takes them).
PARTS = {p.name: p for p in (
    Part("iCE40HX8K", "ice40", "--hx8k", 7680, 7680, 32, 0,
         ("ct256", "cb132", "cm225", "bg121"), ()),
    Part("iCE40UP5K", "ice40", "--up5k", 5280, 5280, 30, 8, ("sg48", "uwg30"), ()),
)}

#: iCE40 limits (the parts have no speed grade: one entry, under ``None``). NOT FOUND: aesdse
#: cites no number. DS1040 v3.4 and FPGA-DS-02008 publish PLL output ranges and a "Typical
#: Building Block Function Performance" table of example circuits, but no maximum frequency of the
#: global clock network nor of the RAM4K / EBR that this code could cite as a hard limit with
#: confidence; rather than invent one, no cap is applied (``inf``) and the source says so.
#: Place-and-route results above what the silicon can do are therefore not capped on iCE40.
SPEED_LIMITS = {
    None: SpeedLimits(math.inf, math.inf,
                      "iCE40: no data-sheet clock or block RAM maximum cited (not found in "
                      "DS1040 v3.4 / FPGA-DS-02008); Fmax not capped"),
}


class Ice40(FamilyDriver):
    """Lattice iCE40: ``synth_ice40`` (``-dff`` only), nextpnr-ice40 with I/O placed freely."""
    name = "ice40"
    title = "iCE40"
    rank = 20
    parts = PARTS
    speed_limits = SPEED_LIMITS
    # Lattice DS1040 "PLB Blocks": a Programmable Logic Block holds eight logic cells, each one
    # LUT4, one flip-flop and carry logic; aesdse's "slice" of an iCE40 is the logic cell, so an
    # iCE40 slice is HALF an ECP5 slice (cross-family tables say so). RAM4K (SB_RAM40_4K) is
    # 4 Kbit: 16 slice-equivalents at the default rate.
    convention = SliceConvention(
        "ice40", "Lattice iCE40: logic cell = 1 LUT4 + 1 FF", 4, 1, 1, 4, "SB_RAM40_4K",
        "Lattice DS1040 v3.4 (PLB, logic cell; RAM4K); 001 Sec. 4 rate of 4 slices per Kbit")
    synth_command = "synth_ice40"
    synth_options = ("dff",)
    pnr_tool = "nextpnr-ice40"
    # EQUIV leaves out the one memory of the file, SB_SPRAM256KA's 16,384 x 16 bits, which
    # Yosys's Verilog front end turns into registers: about 30 CPU-s on every read. aesdse never
    # infers SPRAM.
    cell_models = CellModels(("+/ice40/cells_sim.v",), ("EQUIV",), {
        "SB_SPRAM256KA": "its model in +/ice40/cells_sim.v is read with EQUIV defined, which "
                         "leaves out its memory"})
    extra = "ice40"
    unit = "logic cell = 1 LUT4 + 1 FF; SB_RAM40_4K 4 Kbit block RAM"
    area_column = ("slices", "Logic cells")
    # LUT4, flip-flops and carries from synthesis: nextpnr's report counts packed logic cells
    # only.
    resource_names = {"luts": ("synth", ("SB_LUT4",)), "ffs": ("synth", ("SB_DFF*",)),
                      "brams": ("pnr", ("ICESTORM_RAM",)), "dsps": ("pnr", ("ICESTORM_DSP",)),
                      "carries": ("synth", ("SB_CARRY",)), "slices": ("pnr", ("ICESTORM_LC",))}
    synth_capacity_names = {"luts": ("SB_LUT4",), "ffs": ("SB_DFF*",), "brams": ("SB_RAM40_4K",)}
    report_note = ("iCE40 rows: measured inside the measurement harness (aesdse/flow/harness.py) with "
                   "the harness alone subtracted from every area column (core = whole - "
                   "harness); Fmax is the whole design's and not capped (no data-sheet limit "
                   "cited). LUT4, FF from synthesis; Slices = iCE40 logic cells (1 LUT4 + 1 FF, "
                   "ICESTORM_LC); BRAM: SB_RAM40_4K blocks (4 Kbit).")

    def nextpnr_args(self, target) -> list:
        return [self.parts[target.device].nextpnr_flag, "--package", target.package,
                "--pcf-allow-unconstrained"]


DRIVERS = (Ice40(),)
