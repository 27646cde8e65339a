"""aesdse.flow.families: part tables, data-sheet limits per speed grade, slice conventions and the one
area function shared by metrics, comparison and plots."""

import math

import pytest

from aesdse.flow.families import (
    DEVICES, SLICE_CONVENTIONS, area, bram_slice_equivalents, cap_fmax, family_of, part_of,
    slice_equivalents, slices, speed_limits,
)
from aesdse.flow.families.ecp5 import PARTS as ECP5_PARTS, SPEED_LIMITS as ECP5_SPEED_LIMITS
from aesdse.report.published import find_paper


# --- parts and limits ---------------------------------------------------------------------------

def test_ecp5_parts_from_the_selection_guide():
    # FPGA-DS-02012 v1.9 Table 1.1: 12K/24K/44K/84K LUTs, 32/56/108/208 EBR, 28/28/72/156 DSP.
    sizes = {n: (p.luts, p.brams, p.dsps) for n, p in ECP5_PARTS.items() if n.startswith("LFE5U-")}
    assert sizes == {"LFE5U-12F": (12096, 32, 28), "LFE5U-25F": (24288, 56, 28),
                     "LFE5U-45F": (43848, 108, 72), "LFE5U-85F": (83640, 208, 156)}
    assert "CABGA756" in ECP5_PARTS["LFE5U-85F"].packages
    assert "CABGA256" not in ECP5_PARTS["LFE5U-85F"].packages
    assert ECP5_PARTS["LFE5UM5G-85F"].speeds == (8,)
    assert DEVICES["LFE5U-85F"].nextpnr_flag == "--85k"


def test_limits_per_speed_grade():
    # Table 3.22 f_MAX_PRI: 370 / 303 / 257 MHz; Table 3.20 EBR 272 MHz (-8 only).
    assert [ECP5_SPEED_LIMITS[s].clock_mhz for s in (8, 7, 6)] == [370, 303, 257]
    assert speed_limits("LFE5U-85F", 8).bram_mhz == 272
    assert "no -7 value published" in speed_limits("LFE5U-25F", 7).source
    with pytest.raises(ValueError, match=r"^Speed grade of LFE5U-85F must be one of 6, 7, 8, "
                                         r"not 9$"):
        speed_limits("LFE5U-85F", 9)


def test_caps():
    limits = speed_limits("LFE5U-85F", 8)
    assert cap_fmax(612.0, limits, uses_bram=False) == (370.0, "clock network maximum 370 MHz")
    assert cap_fmax(300.0, limits, uses_bram=True) == (272.0, "block RAM maximum 272 MHz")
    assert cap_fmax(300.0, limits, uses_bram=False) == (300.0, None)
    slow = speed_limits("LFE5U-85F", 6)
    assert cap_fmax(265.0, slow, uses_bram=True) == (257.0, "clock network maximum 257 MHz")


def test_families_and_labels():
    assert family_of("LFE5UM5G-45F") == "ecp5"
    assert part_of("LFE5UM-85F-8CABGA381").name == "LFE5UM-85F"
    assert part_of("LFE5U-85F-6CABGA381").name == "LFE5U-85F"
    assert part_of("XC7A35T") is None
    with pytest.raises(ValueError, match=r"^Device must be one of .*not 'ice40'$"):
        family_of("ice40")


# --- slices and slice-equivalents ---------------------------------------------------------------

def test_ecp5_slices_from_lut4_and_ff():
    assert slice_equivalents(luts=301, ffs=120, device_family="ecp5") == 151   # ceil(301/2)
    assert slice_equivalents(luts=100, ffs=257, device_family="ecp5") == 129   # ceil(257/2)
    assert slice_equivalents(luts=4, device_family="ecp5") == 2
    assert slices(10, 3) == 5 and slices(3, 10) == 5 and slices(3, 4) == 2


def test_ecp5_dp16kd_is_72_slice_equivalents_by_default():
    assert SLICE_CONVENTIONS["ecp5"].bram_slices == 72
    assert slice_equivalents(luts=771, ffs=395, brams=21, device_family="ecp5") == 386 + 21 * 72
    # The rate is a parameter: 16 Kbit-equivalent counting gives 64 per DP16KD.
    assert slice_equivalents(luts=771, ffs=395, brams=21, device_family="ecp5",
                             rate=64 / 18) == pytest.approx(386 + 21 * 64)


def test_xilinx_slice_definitions():
    assert slice_equivalents(luts=9, ffs=3, device_family="spartan3") == 5     # 2 LUT4 per slice
    assert slice_equivalents(luts=9, ffs=3, device_family="virtex5") == 3      # 4 LUT6 per slice
    assert slice_equivalents(luts=9, ffs=17, device_family="virtex5") == 5     # 4 FF per slice
    assert slice_equivalents(luts=9, ffs=17, device_family="virtex7") == 3     # 8 FF per slice


def test_reported_slices_take_precedence():
    assert slice_equivalents(luts=1000, slices=521, device_family="virtex5") == 521


def test_bram_conventions_of_001():
    assert bram_slice_equivalents(1, device_family="virtex5") == 128   # 32 Kb = 128 slices
    assert bram_slice_equivalents(1, device_family="spartan3") == 64   # 16 Kb = 64 slices
    assert bram_slice_equivalents(2, device_family="virtexe") == 32    # 4 Kb = 16 slices
    assert bram_slice_equivalents(1, device_family="spartan2", bram_kbits=16) == 64
    assert bram_slice_equivalents(1, device_family="virtex5", rate=2) == 64


def test_001_tps_reproduces_with_the_area_function():
    # TPS = throughput / (slices + BRAM slice-equivalents), with the BRAM size 001 prints.
    checked = 0
    for row in find_paper("001").table("Table 2").rows:
        if row.number("slices") is None:
            continue
        assert row.number("throughput_mbps") / row.area("slice-eq") == \
            pytest.approx(row.number("tps"), rel=1e-3)
        checked += 1
    assert checked == 7


def test_published_row_areas():
    table = find_paper("002").table("Table 1")
    assert table.row("4-stages-bram").area("slice-eq") == 5177 + 84 * 64   # Virtex-II Pro
    assert table.row("4-stages-bram").area("slices") == 5177
    assert table.row("4-stages-bram").area("luts") == 8285   # Virtex-II Pro: LUT4
    assert find_paper("001").table("Table 2").row("mcloone").area() is None
    assert find_paper("003").table("Table II").row("ours-128").area() is None   # ASIC


def test_area_function():
    assert area("luts", device_family="ecp5", luts=600, ffs=420) == 600
    assert area("luts", device_family="virtex5", luts=600) is None        # LUT6 never LUT4
    assert area("slices", device_family="ecp5", luts=600, ffs=420, brams=3) == 300
    assert area("slice-eq", device_family="ecp5", luts=600, ffs=420, brams=3) == 300 + 3 * 72
    assert area("slice-eq", device_family="ecp5", brams=3) is None        # no logic count
    assert area("slice-eq", device_family="asic", luts=10) is None
    with pytest.raises(ValueError, match=r"^Area measure must be one of luts, slices, "
                                         r"slice-eq, not 'gates'$"):
        area("gates", device_family="ecp5", luts=1)


@pytest.mark.parametrize("kwargs, message", [
    ({"luts": 10, "device_family": "cyclone"}, r"^Device family must be one of .*not 'cyclone'$"),
    ({"device_family": "ecp5"}, r"^Give at least one of luts, ffs, slices, brams$"),
    ({"luts": -1, "device_family": "ecp5"}, r"^luts must be a non-negative number, not -1$"),
    ({"brams": 1, "device_family": "ecp5", "rate": float("nan")},
     r"^Slices per block RAM Kbit must be a number from 0 to 1e6, not nan$"),
])
def test_slice_equivalents_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        slice_equivalents(**kwargs)


def test_device_family_is_required():
    with pytest.raises(TypeError):
        slice_equivalents(luts=10)  # type: ignore[call-arg]


def test_every_convention_is_sourced():
    for family, convention in SLICE_CONVENTIONS.items():
        assert convention.family == family and convention.source
        assert convention.lut_inputs in (4, 6)
        assert math.isclose(convention.bram_slices, 4 * convention.bram_kbits)


# --- iCE40 and the asic target (issue 14) -------------------------------------------------------

def test_ice40_parts_from_the_selection_guides():
    # DS1040 v3.4 Table 1-1 (HX8K: 7,680 cells, 32 RAM4K); FPGA-DS-02008 Table 1.1 (UP5K: 5,280
    # cells, 30 EBR, 8 DSP).
    hx, up = DEVICES["iCE40HX8K"], DEVICES["iCE40UP5K"]
    assert (hx.luts, hx.ffs, hx.brams, hx.dsps, hx.speeds) == (7680, 7680, 32, 0, ())
    assert (up.luts, up.ffs, up.brams, up.dsps) == (5280, 5280, 30, 8)
    assert "ct256" in hx.packages and up.packages[0] == "sg48"
    assert family_of("iCE40UP5K") == "ice40" and family_of("asic") == "asic"
    assert part_of("iCE40UP5K-sg48").name == "iCE40UP5K"
    assert part_of("asic").name == "asic"


def test_ice40_limits_are_not_invented():
    limits = speed_limits("iCE40HX8K", None)
    assert math.isinf(limits.clock_mhz) and "not found" in limits.source
    assert cap_fmax(600.0, limits, uses_bram=True) == (600.0, None)
    with pytest.raises(ValueError, match=r"^Speed grade of iCE40HX8K must be one of none .*not 8$"):
        speed_limits("iCE40HX8K", 8)


def test_ice40_logic_cell_is_one_lut4_and_one_ff():
    assert slices(301, 120, device_family="ice40") == 301
    assert bram_slice_equivalents(2, device_family="ice40") == 32  # 2 x 4 Kbit x 4


def test_families_name_their_tools_and_extras():
    from aesdse.flow.families import FAMILIES
    assert FAMILIES["ecp5"].tools == ("yosys", "nextpnr-ecp5") and FAMILIES["ecp5"].out_of_context
    assert FAMILIES["ice40"].extra == "ice40" and not FAMILIES["ice40"].out_of_context
    assert FAMILIES["asic"].tools == ("yosys",)


def test_capacity():
    from aesdse.flow.families import fits
    assert fits("iCE40UP5K", luts=5000, ffs=2000) is None
    assert fits("iCE40UP5K", luts=6000, ffs=6000, brams=31) == (
        "does not fit iCE40UP5K: 6000 LUT4 > 5280, 6000 FF > 5280, 31 block RAM > 30")
    assert fits("asic", luts=10**9) is None


# --- MachXO2 / MachXO3 (issue 14) ---------------------------------------------------------------

def test_machxo2_parts_from_the_selection_guides():
    # FPGA-DS-02056 Table 1.1 (LCMXO2-1200: 1,280 LUT4, 7 EBR of 9 Kbit); FPGA-DS-02032 Table 1.1
    # (LCMXO3LF-6900: 6,864 LUT4, 26 EBR); a slice is 2 LUT4 + 2 FF, so FF = LUT4.
    small, large = DEVICES["LCMXO2-1200HC"], DEVICES["LCMXO3LF-6900C"]
    assert (small.luts, small.ffs, small.brams, small.dsps) == (1280, 1280, 7, 0)
    assert (large.luts, large.ffs, large.brams, large.dsps) == (6864, 6864, 26, 0)
    assert small.speeds == (6, 5, 4) and large.speeds == (6, 5)
    assert family_of("LCMXO2-1200HC") == "machxo2" and family_of("LCMXO3LF-6900C") == "machxo3"
    assert part_of("LCMXO2-1200HC-6TG144").name == "LCMXO2-1200HC"


def test_machxo2_nextpnr_device_name():
    from aesdse.flow.families import nextpnr_device
    assert nextpnr_device("LCMXO2-1200HC", "SG32", 4) == "LCMXO2-1200HC-4SG32C"


def test_machxo2_limits_are_not_invented_and_grades_are_checked():
    limits = speed_limits("LCMXO2-1200HC", 6)
    assert math.isinf(limits.clock_mhz) and "no data-sheet" in limits.source
    with pytest.raises(ValueError, match=r"^Speed grade of LCMXO3LF-6900C must be one of 5, 6, "
                                         r"not 4$"):
        speed_limits("LCMXO3LF-6900C", 4)


def test_machxo2_slice_is_two_lut4_and_two_ff():
    assert slices(301, 120, device_family="machxo2") == 151
    assert bram_slice_equivalents(2, device_family="machxo3") == 72  # 2 x 9 Kbit x 4


def test_machxo2_families_use_synth_lattice_and_the_harness():
    from aesdse.flow.families import FAMILIES
    for name, script in (("machxo2", "synth_lattice -family xo2"),
                         ("machxo3", "synth_lattice -family xo3")):
        family = FAMILIES[name]
        assert family.synth_command == script and family.extra == "machxo2"
        assert family.tools == ("yosys", "nextpnr-machxo2") and not family.out_of_context
        assert family.synth_options == ()  # no -abc9; -dff far too slow in ABC9 (machxo2.py)


def test_machxo2_capacity():
    from aesdse.flow.families import fits
    assert fits("LCMXO2-1200HC", luts=1280, ffs=1280, brams=7) is None
    assert fits("LCMXO2-1200HC", luts=1281, brams=8) == (
        "does not fit LCMXO2-1200HC: 1281 LUT4 > 1280, 8 block RAM > 7")


# --- Nexus (issue 14) ---------------------------------------------------------------------------

def test_nexus_part_and_family():
    from aesdse.flow.families import FAMILIES, nextpnr_device
    part = DEVICES["LIFCL-40"]
    assert (part.luts, part.ffs, part.brams, part.dsps) == (32256, 32256, 84, 56)
    assert part.packages == ("BG400",) and part.speeds == (9, 8, 7)
    assert family_of("LIFCL-40") == "nexus" and part_of("LIFCL-40-9BG400").name == "LIFCL-40"
    assert nextpnr_device("LIFCL-40", "BG400", 9) == "LIFCL-40-9BG400C"
    family = FAMILIES["nexus"]
    assert family.synth_command == "synth_nexus -noccu2" and family.extra == "nexus"
    assert family.tools == ("yosys", "nextpnr-nexus") and not family.out_of_context
    assert math.isinf(speed_limits("LIFCL-40", 9).clock_mhz)
    assert slices(75, 16, device_family="nexus") == 38
    assert bram_slice_equivalents(1, device_family="nexus") == 72


# --- Gowin and GateMate (issue 14) --------------------------------------------------------------

def test_gowin_parts_and_family():
    from aesdse.flow.families import FAMILIES, fits, nextpnr_device
    from aesdse.flow.families.gowin import DIES as GOWIN_DIES
    part = DEVICES["GW1NR-LV9"]
    # Equal to what nextpnr-himbaechel-gowin reports available (LUT4, DFF, BSRAM, MULT18X18).
    assert (part.luts, part.ffs, part.brams, part.dsps) == (8640, 6480, 26, 20)
    assert part.packages == ("QN88P",) and part.speeds == (7, 6)
    assert (DEVICES["GW2A-LV18"].luts, DEVICES["GW2A-LV18"].ffs) == (20736, 15552)
    assert family_of("GW2A-LV18") == "gowin" and part_of("GW1NR-LV9-6QN88P").name == "GW1NR-LV9"
    # The Tang Nano 9K's and Tang Primer 20K's ordering codes, and the dies nextpnr asks for.
    assert nextpnr_device("GW1NR-LV9", "QN88P", 6) == "GW1NR-LV9QN88PC6/I5"
    assert nextpnr_device("GW2A-LV18", "PG256", 8) == "GW2A-LV18PG256C8/I7"
    assert GOWIN_DIES == {"GW1NR-LV9": "GW1N-9C", "GW2A-LV18": "GW2A-18C"}
    family = FAMILIES["gowin"]
    assert family.synth_command == "synth_gowin -nowidelut" and family.extra == "gowin"
    assert family.tools == ("yosys", "nextpnr-himbaechel-gowin") and not family.out_of_context
    assert family.area_column == ("slices", "CLS")
    assert math.isinf(speed_limits("GW1NR-LV9", 6).clock_mhz)
    assert slices(89, 16, device_family="gowin") == 45
    assert bram_slice_equivalents(1, device_family="gowin") == 72
    assert fits("GW1NR-LV9", luts=9000, ffs=6481) == (
        "does not fit GW1NR-LV9: 9000 LUT4 > 8640, 6481 FF > 6480")


def test_gatemate_part_and_family():
    from aesdse.flow.families import FAMILIES, nextpnr_device
    part = DEVICES["CCGM1A1"]
    # LUT-tree halves and flip-flops of 20,480 CPEs, 20 Kbit block RAM halves (nextpnr's counts).
    assert (part.luts, part.ffs, part.brams, part.dsps) == (40960, 40960, 64, 0)
    assert part.packages == ("FBGA324",) and part.speeds == ()
    assert part_of("CCGM1A1-FBGA324").name == "CCGM1A1"
    assert nextpnr_device("CCGM1A1", "FBGA324", None) == "CCGM1A1"
    family = FAMILIES["gatemate"]
    assert family.synth_command == "synth_gatemate -luttree -nomx8" and family.extra == "gatemate"
    assert family.tools == ("yosys", "nextpnr-himbaechel-gatemate")
    assert family.area_column == ("slices", "CPE")
    assert math.isinf(speed_limits("CCGM1A1", None).clock_mhz)
    assert slices(110, 16, device_family="gatemate") == 55  # 2 LUT-trees + 2 FF per CPE
    assert bram_slice_equivalents(1, device_family="gatemate") == 80
