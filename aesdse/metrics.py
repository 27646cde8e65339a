"""Metrics stage: the one place where area and speed numbers are derived.

Inputs are only measured values: cell counts and achieved Fmax from nextpnr's report after
routing, and cycles per block from the simulation of the verify stage. Nothing here is typed in
per architecture.

Formulas
--------
``slices``
    ECP5 slice = 2 LUT4 + 2 FF (Lattice FPGA-DS-02012, section 2.2.1 "Slice"), so
    ``slices = max(ceil(LUT4 / 2), ceil(FF / 2))``: the slices needed if packing were perfect.
    Block RAM is *not* folded in; it is reported separately (``brams``).
``throughput_mbps``
    ``block_bits x fmax_mhz / cycles_per_block``, where ``cycles_per_block`` is the measured
    steady-state spacing of output blocks (it already counts every block in flight).
``mbps_per_lut``, ``mbps_per_slice``
    Throughput divided by LUT4 count and by slices.

Fmax caps
---------
nextpnr's Fmax is register to register and knows nothing of the data-sheet limits of the clock
network or of block RAM: with a DP16KD output register instantiated by hand it reported
480-630 MHz (shared/NOTES.md). The reported Fmax is therefore capped at the device maxima below,
and a capped row says so (``fmax_capped``; the uncapped value is kept as ``fmax_raw_mhz``).
"""

import math
from dataclasses import dataclass

__all__ = ["DeviceLimits", "ECP5_LIMITS", "Metrics", "compute_metrics", "slices_ecp5"]


@dataclass(frozen=True)
class DeviceLimits:
    """Data-sheet frequency limits of a device family.

    Attributes
    ----------
    clock_mhz : float
        Highest clock the device can distribute to fabric registers.
    bram_mhz : float
        Highest clock of a block RAM.
    source : str
        Where the numbers come from.
    """
    clock_mhz: float
    bram_mhz: float
    source: str


#: ECP5 limits. The clock limit is the sysCLOCK PLL output maximum (400 MHz, FPGA-DS-02012
#: "sysCLOCK PLL Timing", f_OUT 3.125-400 MHz): no on-chip clock above it can be generated. The
#: block RAM limit is the EBR figure of the data sheet's "Register-to-Register Performance" table
#: for the -8 grade (272 MHz, EBR with output registers). Both apply to every speed grade here,
#: which is generous for -6 and -7.
ECP5_LIMITS = DeviceLimits(
    clock_mhz=400.0, bram_mhz=272.0,
    source="Lattice FPGA-DS-02012: sysCLOCK PLL f_OUT max 400 MHz; EBR 272 MHz (-8)")


@dataclass(frozen=True)
class Metrics:
    """Derived numbers of one routed, verified design point."""
    luts: int
    ffs: int
    brams: int
    carries: int
    dsps: int
    slices: int
    fmax_raw_mhz: float
    fmax_mhz: float
    fmax_capped: str | None
    cycles_per_block: float
    latency_cycles: int
    throughput_mbps: float
    mbps_per_lut: float | None
    mbps_per_slice: float | None


def slices_ecp5(luts: int, ffs: int) -> int:
    """ECP5 slices for ``luts`` LUT4 and ``ffs`` flip-flops (2 of each per slice)."""
    return max(math.ceil(luts / 2), math.ceil(ffs / 2))


def compute_metrics(utilization: dict, fmax_by_clock: dict, cycles_per_block: float,
                    latency_cycles: int, *, carries: int = 0, block_bits: int = 128,
                    limits: DeviceLimits = ECP5_LIMITS) -> Metrics:
    """Derive the metrics of a point from nextpnr's report and the simulation's cycle counts.

    Raises
    ------
    ValueError
        If there is no clock or the cycle count is not positive.
    """
    if not fmax_by_clock:
        raise ValueError("No clock in the place-and-route report")
    if not cycles_per_block or cycles_per_block <= 0:
        raise ValueError(f"Cycles per block must be positive, not {cycles_per_block!r}")
    luts = utilization.get("TRELLIS_COMB", 0)
    ffs = utilization.get("TRELLIS_FF", 0)
    brams = utilization.get("DP16KD", 0)
    dsps = utilization.get("MULT18X18D", 0) + utilization.get("ALU54B", 0)
    raw = min(fmax_by_clock.values())  # the slowest clock limits a single-clock core
    fmax, capped = raw, None
    if fmax > limits.clock_mhz:
        fmax, capped = limits.clock_mhz, f"clock network maximum {limits.clock_mhz:g} MHz"
    if brams and fmax > limits.bram_mhz:
        fmax, capped = limits.bram_mhz, f"block RAM maximum {limits.bram_mhz:g} MHz"
    slices = slices_ecp5(luts, ffs)
    throughput = block_bits * fmax / cycles_per_block
    return Metrics(
        luts=luts, ffs=ffs, brams=brams, carries=carries, dsps=dsps, slices=slices,
        fmax_raw_mhz=raw, fmax_mhz=fmax, fmax_capped=capped,
        cycles_per_block=cycles_per_block, latency_cycles=latency_cycles,
        throughput_mbps=throughput,
        mbps_per_lut=throughput / luts if luts else None,
        mbps_per_slice=throughput / slices if slices else None)
