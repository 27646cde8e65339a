"""Derived metrics: the formulas, the data-sheet caps, and refusal of impossible inputs."""

import pytest

from aesdse.metrics import ECP5_LIMITS, compute_metrics, slices_ecp5


def test_throughput_and_slices_from_measured_values():
    m = compute_metrics({"TRELLIS_COMB": 4000, "TRELLIS_FF": 526, "DP16KD": 0}, {"clk": 117.0},
                        cycles_per_block=10, latency_cycles=11)
    assert m.luts == 4000 and m.ffs == 526 and m.brams == 0
    assert m.slices == 2000
    assert m.fmax_mhz == 117.0 and m.fmax_capped is None
    assert m.throughput_mbps == pytest.approx(128 * 117.0 / 10)
    assert m.mbps_per_lut == pytest.approx(m.throughput_mbps / 4000)
    assert m.mbps_per_slice == pytest.approx(m.throughput_mbps / 2000)


def test_slices_take_the_larger_of_luts_and_ffs():
    assert slices_ecp5(10, 3) == 5
    assert slices_ecp5(3, 10) == 5
    assert slices_ecp5(3, 4) == 2


def test_fmax_is_capped_at_the_clock_network_limit():
    m = compute_metrics({"TRELLIS_COMB": 10, "TRELLIS_FF": 10}, {"clk": 612.0}, 1, 3)
    assert m.fmax_raw_mhz == 612.0
    assert m.fmax_mhz == ECP5_LIMITS.clock_mhz
    assert m.fmax_capped.startswith("clock network maximum")
    assert m.throughput_mbps == pytest.approx(128 * ECP5_LIMITS.clock_mhz)


def test_fmax_is_capped_at_the_block_ram_limit_only_with_block_ram():
    with_bram = compute_metrics({"TRELLIS_COMB": 10, "TRELLIS_FF": 10, "DP16KD": 2},
                                {"clk": 350.0}, 1, 3)
    assert with_bram.fmax_mhz == ECP5_LIMITS.bram_mhz
    assert with_bram.fmax_capped.startswith("block RAM maximum")
    without = compute_metrics({"TRELLIS_COMB": 10, "TRELLIS_FF": 10}, {"clk": 350.0}, 1, 3)
    assert without.fmax_mhz == 350.0 and without.fmax_capped is None


def test_slowest_clock_limits():
    m = compute_metrics({"TRELLIS_COMB": 10}, {"a": 200.0, "b": 150.0}, 2, 3)
    assert m.fmax_mhz == 150.0


@pytest.mark.parametrize("fmax, cycles, message", [
    ({}, 10, "No clock in the place-and-route report"),
    ({"clk": 100.0}, 0, "Cycles per block must be positive, not 0"),
])
def test_refuses_impossible_inputs(fmax, cycles, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        compute_metrics({"TRELLIS_COMB": 10}, fmax, cycles, 1)


@pytest.mark.parametrize("luts, ffs", [(4000, 526), (3, 10), (7, 7)])
def test_ecp5_slices_agree_with_the_published_convention(luts, ffs):
    # The report's slice-equivalents (aesdse.published) and the metrics stage must count ECP5
    # slices the same way.
    from aesdse.published import slice_equivalents
    assert slice_equivalents(luts=luts, ffs=ffs, device_family="ecp5") == slices_ecp5(luts, ffs)
