"""Cologne Chip GateMate: nextpnr-himbaechel-gatemate, measured in the harness.

Numbers are what nextpnr-himbaechel-gatemate 0.11 reports available (see :data:`PARTS`).
"""

from .base import CellModels, FamilyDriver, Part, SliceConvention, uncited_limits

__all__ = ["GateMate", "DRIVERS", "PARTS", "SPEED_LIMITS"]

# Cologne Chip's GateMate (CCGM1A1): 20,480 programmable elements (CPE). A CPE is a LUT-tree
# configurable as one 8-input function or two 4-input ones, with two routable outputs
# (Cologne Chip, as reported by Elektroniknet, 28 April 2020, "With the most cost-effective FPGAs
# against the Big Player", p. 2: "CPE can be configured for 2 x 4 inputs or for 1 x 8 inputs"),
# and two flip-flops. aesdse counts what nextpnr-himbaechel-gatemate 0.11 reports available:
# 40,960 LUT-tree halves (CPE_LT: two 4-input trees per CPE), 40,960 flip-flops (CPE_FF) and
# 64 block RAM halves of 20 Kbit (RAM_HALF: 32 CC_BRAM_40K); no DSP (multipliers are built from
# CPEs). "luts" is therefore a count of 4-input LUT-trees, not of LUT4 (a LUT2 tree computes
# f(g(a, b), h(c, d)), not every 4-input function). One package, FBGA324; no speed grades (the
# core voltage mode, nextpnr's --vopt fpga_mode, is a run option: nextpnr's default, speed).
PARTS = {p.name: p for p in (
    Part("CCGM1A1", "gatemate", "--device", 40960, 40960, 64, 0, ("FBGA324",), ()),
)}

#: GateMate limits: NOT CITED (DS1001 not read for a clock or block RAM maximum); no grades.
SPEED_LIMITS = uncited_limits("GateMate", (None,), "DS1001")


class GateMate(FamilyDriver):
    """GateMate: ``synth_gatemate -luttree -nomx8``, nextpnr-himbaechel-gatemate with I/O
    unconstrained (``--vopt allow-unconstrained``), the clock routed to the global network by
    nextpnr.

    -luttree: without it synth_gatemate maps to CC_LUT4, which nextpnr-himbaechel-gatemate 0.11
    rejects ("Cell type 'CC_LUT4' is unsupported"); its help: "use LUT tree mapping for output to
    nextpnr". -nomx8: on the compact 8-bit core synth_gatemate made CC_MX8 muxes, which nextpnr
    0.11 rejects likewise ("Cell type 'CC_MX8' is unsupported"); CC_MX4 and CC_MX2 pack.
    """
    name = "gatemate"
    title = "GateMate"
    rank = 60
    parts = PARTS
    speed_limits = SPEED_LIMITS
    # GateMate: a CPE holds two 4-input LUT-trees and two flip-flops (nextpnr-himbaechel-gatemate
    # 0.11 reports 40,960 CPE_LT and CPE_FF for 20,480 CPEs; Cologne Chip: "2 x 4 inputs or
    # 1 x 8 inputs"); block RAM counted in 20 Kbit halves (80 slice-equivalents each).
    convention = SliceConvention(
        "gatemate", "GateMate: CPE = 2 LUT-tree (4-input) + 2 FF", 4, 2, 2, 20, "CC_BRAM_20K",
        "nextpnr-himbaechel-gatemate 0.11 availability (CPE_LT, CPE_FF, RAM_HALF); "
        "001 Sec. 4 rate of 4 slices per Kbit")
    synth_command = "synth_gatemate -luttree -nomx8"
    synth_options = ()
    pnr_tool = "nextpnr-himbaechel-gatemate"
    # The cell models as Yosys 0.70 ships them, read with read_verilog -overwrite, no defines.
    # Block RAMs they define only as black boxes are refused by name
    # (aesdse.verify.netlist.netlist_rtlil). They play sequential netlists in the tests
    # (flip-flops with and without reset, distributed RAM, shift registers; issue 45).
    cell_models = CellModels(("+/gatemate/cells_sim.v",))
    extra = "gatemate"
    unit = ("CPE = 2 LUT-tree (4-input) + 2 FF; CC_BRAM_20K 20 Kbit block RAM (half a "
            "CC_BRAM_40K)")
    area_column = ("slices", "CPE")
    # A CPE holds two 4-input LUT-trees (CPE_LT, the upper and lower half; a 5-input CC_L2T5
    # takes both) and two flip-flops (CPE_FF). "luts" counts LUT-tree halves: a 4-input function
    # unit, not a full LUT4. Block RAM counts 20 Kbit halves (RAM_HALF; nextpnr reports 64 = 32
    # blocks of 40 Kbit). No DSP: multipliers (CC_MULT) are built from CPEs. CPEs used only for
    # routing (CPE_BRIDGE, CPE_CPLINES) or RAM I/O (CPE_RAMIO) are kept in
    # details["resources"], not in the columns.
    resource_names = {"luts": ("pnr", ("CPE_LT",)), "ffs": ("pnr", ("CPE_FF",)),
                      "brams": ("pnr", ("RAM_HALF",)), "dsps": ("pnr", ()),
                      "carries": ("synth", ("CC_ADDF",))}
    # synth_gatemate -luttree: LUT-tree halves (an L2T5 takes both halves of a CPE, a CC_MX2
    # one), flip-flops and latches, 20 Kbit block RAM halves (a 40 Kbit block is two).
    synth_capacity_names = {
        "luts": ("CC_LUT1", "CC_LUT2", "CC_L2T4", "CC_L2T5", "CC_L2T5", "CC_MX2"),
        "ffs": ("CC_DFF", "CC_DLT"), "brams": ("CC_BRAM_20K", "CC_BRAM_40K", "CC_BRAM_40K")}
    report_note = ("GateMate rows: measured inside the measurement harness (aesdse/flow/harness.py), "
                   "harness alone subtracted from every area column; Fmax is the whole design's "
                   "and not capped (no data-sheet limit cited). LUT4 column = 4-input LUT-trees "
                   "(CPE_LT, not full LUT4); CPE = 2 LUT-trees + 2 FF, max(ceil(LUT/2), "
                   "ceil(FF/2)); BRAM: 20 Kbit halves (RAM_HALF; a CC_BRAM_40K is two).")

    def nextpnr_device(self, device: str, package: str | None, speed: int | None) -> str:
        """The part alone (``CCGM1A1``: one package, no grade)."""
        return device

    def nextpnr_args(self, target) -> list:
        return [self.parts[target.device].nextpnr_flag,
                self.nextpnr_device(target.device, target.package, target.speed),
                "--vopt", "allow-unconstrained"]


DRIVERS = (GateMate(),)
