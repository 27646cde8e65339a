"""Metrics stage: the one place where area and speed numbers are derived.

Inputs are only measured values: cell counts and achieved Fmax from nextpnr's report after
routing, and cycles per block from the simulation of the verify stage. Nothing here is typed in
per architecture; device facts come from :mod:`aesdse.devices`.

Formulas
--------
``slices``
    ECP5 slice = 2 LUT4 + 2 FF (FPGA-DS-02012, "Slice"), so
    ``slices = max(ceil(LUT4 / 2), ceil(FF / 2))``: the slices needed if packing were perfect
    (:func:`aesdse.devices.slices`). Block RAM is *not* folded in; it is reported separately
    (``brams``).
``fmax_mhz``
    The usable system clock. nextpnr reports an Fmax per clock, register to register; a core
    with clock domains besides ``sync`` states each one's frequency as a multiple of the system
    clock (``clock_multipliers``, e.g. block RAM at twice the system clock), so the system clock
    can be at most ``Fmax(domain) / multiple`` for every domain. Each clock is first capped at the
    data-sheet limits of its speed grade (:func:`aesdse.devices.cap_fmax`).
``throughput_mbps``
    ``block_bits x fmax_mhz / cycles_per_block``, where ``cycles_per_block`` is the measured
    steady-state spacing of output blocks (it already counts every block in flight).
``mbps_per_lut``, ``mbps_per_slice``
    Throughput divided by LUT4 count and by slices.

Fmax caps
---------
nextpnr's Fmax knows nothing of the data-sheet limits of the clock network or of block RAM: with
a DP16KD output register instantiated by hand it reported 480-630 MHz (shared/NOTES.md). A capped
row says so (``fmax_capped``); the uncapped value is kept as ``fmax_raw_mhz`` and every clock's
raw value in ``fmax_by_clock``.
"""

from dataclasses import dataclass

from .devices import SpeedLimits, cap_fmax, slices as slice_count

__all__ = ["Metrics", "compute_metrics", "clock_domain_of"]


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
    fmax_by_clock: dict


def clock_domain_of(clock: str, domains) -> str:
    """The clock domain a clock of nextpnr's report belongs to: Amaranth names the clock port
    of domain ``d`` ``d_clk`` (``clk`` for ``sync``); nextpnr may prefix the net (``$glbnet$``).
    A clock of no known domain counts as ``sync``."""
    name = clock.rsplit("$", 1)[-1]
    for domain in domains:
        if name == (f"{domain}_clk" if domain != "sync" else "clk"):
            return domain
    return "sync"


def compute_metrics(utilization: dict, fmax_by_clock: dict, cycles_per_block: float,
                    latency_cycles: int, *, limits: SpeedLimits, carries: int = 0,
                    block_bits: int = 128, clock_multipliers: dict | None = None) -> Metrics:
    """Derive the metrics of a point from nextpnr's report and the simulation's cycle counts.

    Parameters
    ----------
    utilization : dict
        nextpnr cell type -> cells used.
    fmax_by_clock : dict
        Clock name -> achieved MHz, as nextpnr reported it.
    limits : SpeedLimits
        Data-sheet limits of the target's speed grade.
    clock_multipliers : dict, optional
        Clock domains besides ``sync`` -> their frequency as a multiple of the system clock.

    Raises
    ------
    ValueError
        If there is no clock or the cycle count is not positive.
    """
    if not fmax_by_clock:
        raise ValueError("No clock in the place-and-route report")
    if not cycles_per_block or cycles_per_block <= 0:
        raise ValueError(f"Cycles per block must be positive, not {cycles_per_block!r}")
    multipliers = {"sync": 1, **(clock_multipliers or {})}
    luts = utilization.get("TRELLIS_COMB", 0)
    ffs = utilization.get("TRELLIS_FF", 0)
    brams = utilization.get("DP16KD", 0)
    dsps = utilization.get("MULT18X18D", 0) + utilization.get("ALU54B", 0)
    # The system clock each clock allows, raw and capped; the lowest one limits the core.
    allowed = []
    for clock, mhz in fmax_by_clock.items():
        multiple = multipliers[clock_domain_of(clock, multipliers)]
        capped, reason = cap_fmax(mhz, limits, uses_bram=bool(brams))
        allowed.append((capped / multiple, mhz / multiple, reason, clock, multiple))
    fmax, raw, reason, clock, multiple = min(allowed)
    if reason and len(fmax_by_clock) > 1:
        reason = f"{clock}: {reason}" + (f", / {multiple} for the system clock"
                                         if multiple != 1 else "")
    n_slices = slice_count(luts, ffs)
    throughput = block_bits * fmax / cycles_per_block
    return Metrics(
        luts=luts, ffs=ffs, brams=brams, carries=carries, dsps=dsps, slices=n_slices,
        fmax_raw_mhz=min(r for _, r, _, _, _ in allowed), fmax_mhz=fmax, fmax_capped=reason,
        cycles_per_block=cycles_per_block, latency_cycles=latency_cycles,
        throughput_mbps=throughput,
        mbps_per_lut=throughput / luts if luts else None,
        mbps_per_slice=throughput / n_slices if n_slices else None,
        fmax_by_clock=dict(fmax_by_clock))
