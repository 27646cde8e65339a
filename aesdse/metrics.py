"""Metrics stage: the one place where area and speed numbers are derived.

Inputs are only measured values: cell counts and achieved Fmax from nextpnr's report after
routing, and cycles per block from the simulation of the verify stage. Nothing here is typed in
per architecture; device facts come from the family drivers (:mod:`aesdse.flow.families`).

Formulas
--------
Resources
    The family's own names map to the common columns (each driver's
    :attr:`~aesdse.flow.families.base.FamilyDriver.resource_names`): ECP5 from
    nextpnr's report (``TRELLIS_COMB`` -> LUT4, ...) and the carry count from synthesis; iCE40
    LUT4, flip-flops and carries from synthesis (``SB_LUT4``, ``SB_DFF*``, ``SB_CARRY``: nextpnr's
    report counts packed logic cells only) and block RAM, DSP and logic cells from nextpnr;
    MachXO2 / MachXO3 as ECP5 (``TRELLIS_COMB``, ``TRELLIS_FF``, ``DP8KC`` from nextpnr, ``CCU2D``
    from synthesis; no DSP); Nexus likewise (``OXIDE_COMB``, ``OXIDE_FF``, ``OXIDE_EBR``,
    ``MULT18_CORE``); Gowin ``LUT4`` + ``ALU``, ``DFF``, ``BSRAM`` from nextpnr; GateMate
    ``CPE_LT`` (4-input LUT-tree halves, not LUT4), ``CPE_FF``, ``RAM_HALF`` from nextpnr.
``slices``
    ECP5 slice = 2 LUT4 + 2 FF (FPGA-DS-02012, "Slice"), so
    ``slices = max(ceil(LUT4 / 2), ceil(FF / 2))``: the slices needed if packing were perfect
    (:func:`aesdse.flow.families.slices`). iCE40: the logic cells nextpnr used (``ICESTORM_LC``, one
    LUT4 + one FF each; half an ECP5 slice). Block RAM is *not* folded in; it is reported
    separately (``brams``).
Harness
    On a family without out-of-context place and route (iCE40, MachXO2, Nexus) the routed design is the core in
    the measurement harness (:mod:`aesdse.flow.harness`); the harness alone is routed too, and every
    area column is the whole design's minus the harness's (:func:`subtract_harness`). Fmax is the
    whole design's (the harness adds a fold register after the core's outputs).
``fmax_mhz``
    The usable system clock. nextpnr reports an Fmax per clock, register to register; a core
    with clock domains besides ``sync`` states each one's frequency as a multiple of the system
    clock (``clock_multipliers``, e.g. block RAM at twice the system clock), so the system clock
    can be at most ``Fmax(domain) / multiple`` for every domain. Each clock is first capped at the
    data-sheet limits of its speed grade (:func:`aesdse.flow.families.base.cap_fmax`).
Paths between clocks
    nextpnr checks paths within one clock only: two clocks on separate ports (``clk`` and
    ``bram_clk``) are unrelated to it, and a path between them is reported (under
    ``critical_paths``, :mod:`aesdse.flow.critical_path`) but held to no period. The core's
    clocks are related, though: every domain's clock is an integer multiple of the system clock,
    their rising edges aligned (the simulation's clocks, :mod:`aesdse.verify.testbench`, and the
    clocking the core asks for). A path launched on an edge of one clock is captured at the next
    edge of the other, so it has the shortest time from a launch edge to a later capture edge
    (:func:`crossing_window`): for the system clock and a clock at ``m`` times it, one period of
    the fast clock in both directions, ``T / m``; in general ``T / lcm(m1, m2)`` (rising edges;
    half a period shifts for a falling edge). No multicycle relation is assumed, even where the
    design would allow one (a value held for two fast periods): conservative, and what a
    design's clocks promise without constraints of their own. The system clock is then also
    limited to ``window / delay`` (:func:`crossing_limit`) by the worst path of every pair of
    different clocks; the pair that limits it is the row's ``fmax_limit``
    (:attr:`Metrics.fmax_limit`, kept in the row's details).
``throughput_mbps``
    ``block_bits x fmax_mhz / cycles_per_block``, where ``cycles_per_block`` is the measured
    steady-state spacing of output blocks (it already counts every block in flight).
``mbps_per_lut``, ``mbps_per_slice``
    Throughput divided by LUT4 count and by slices.

Fmax caps
---------
nextpnr's Fmax knows nothing of the data-sheet limits of the clock network or of block RAM: with
a DP16KD output register instantiated by hand it reported 480-630 MHz (docs/toolchain.md). A capped
row says so (``fmax_capped``); the uncapped value is kept as ``fmax_raw_mhz`` and every clock's
raw value in ``fmax_by_clock``.
"""

from dataclasses import dataclass
from fractions import Fraction
from math import gcd, lcm

from .flow.families import SpeedLimits, cap_fmax, family_info, slices as slice_count

__all__ = ["Metrics", "compute_metrics", "clock_domain_of", "common_resources",
           "subtract_harness", "synthesized_resources", "crossing_window", "crossing_limit"]


def _count(counts: dict, names) -> int:
    """Cells of ``counts`` named in ``names`` (a name ending in ``*`` is a prefix; a name given
    twice counts its cells twice)."""
    return sum(int(v) for cell, v in counts.items() for n in names
               if (cell.startswith(n[:-1]) if n.endswith("*") else cell == n))


def common_resources(family: str, utilization: dict, synth_cells: dict) -> dict:
    """The common columns (``luts``, ``ffs``, ``brams``, ``dsps``, ``carries`` and, where the tool
    counts them, ``slices``) from the family's own names (its driver's
    :attr:`~aesdse.flow.families.base.FamilyDriver.resource_names`)."""
    out = {}
    for column, (source, names) in family_info(family).resource_names.items():
        out[column] = _count(utilization if source == "pnr" else synth_cells, names)
    return out


def synthesized_resources(family: str, synth_cells: dict) -> dict | None:
    """``{"luts", "ffs", "brams"}`` of a synthesized netlist (the driver's
    :attr:`~aesdse.flow.families.base.FamilyDriver.synth_capacity_names`),
    for the capacity check before place and route; None for a family without such names
    (asic has no capacity)."""
    names = family_info(family).synth_capacity_names
    if names is None:
        return None
    return {column: _count(synth_cells, cells) for column, cells in names.items()}


def subtract_harness(whole: dict, harness: dict) -> dict:
    """The core's columns: ``whole - harness`` per column, never below 0 (packing differs a
    little between the two runs, so a tiny core may come out slightly negative)."""
    return {k: max(0, v - harness.get(k, 0)) for k, v in whole.items()}


@dataclass(frozen=True)
class Metrics:
    """Derived numbers of one routed, verified design point.

    ``fmax_limit`` is not a database column: the sweep keeps it in the row's details
    (``details["fmax_limit"]``). It is the worst path between two different clocks, as
    :func:`crossing_limit` returns it, when the core has such paths (else None); its
    ``"limits"`` says whether it, not a clock's own Fmax, sets ``fmax_mhz``.
    """
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
    fmax_limit: dict | None = None


def clock_domain_of(clock: str, domains) -> str:
    """The clock domain a clock of nextpnr's report belongs to: Amaranth names the clock port
    of domain ``d`` ``d_clk`` (``clk`` for ``sync``); nextpnr may prefix the net (``$glbnet$``).
    A clock of no known domain counts as ``sync``."""
    name = clock.rsplit("$", 1)[-1]
    for domain in domains:
        if name == (f"{domain}_clk" if domain != "sync" else "clk"):
            return domain
    return "sync"


def _edge(edge: str) -> tuple[str, str] | None:
    # nextpnr's "posedge clk" -> ("posedge", "clk"); None for "<async>" (a port, no clock).
    kind, _, clock = edge.partition(" ")
    return (kind, clock) if kind in ("posedge", "negedge") and clock else None


def crossing_window(launch_multiple, capture_multiple, launch_falling: bool = False,
                    capture_falling: bool = False) -> Fraction:
    """The time, in system clock periods, from a launch edge of one clock to the next capture
    edge of another, both integer multiples of the system clock with rising edges aligned: the
    least positive ``j / capture_multiple - k / launch_multiple`` (plus half a period of a
    falling-edge clock). The two edge patterns repeat every ``1 / lcm`` of the multiples'
    periods, so the window is ``1 / lcm(m1, m2)`` for rising edges (``1 / 2`` for the system
    clock and a 2x clock, one period of the fast clock, in both directions).

    Raises
    ------
    ValueError
        For a multiple that is not a positive integer.
    """
    for m in (launch_multiple, capture_multiple):
        if not isinstance(m, int) or isinstance(m, bool) or m < 1:
            raise ValueError(f"A clock multiple must be a positive integer, not {m!r}")
    step = Fraction(gcd(launch_multiple, capture_multiple),
                    launch_multiple * capture_multiple)
    offset = (Fraction(1, 2 * capture_multiple) if capture_falling else 0) \
        - (Fraction(1, 2 * launch_multiple) if launch_falling else 0)
    window = offset % step
    return window or step


def crossing_limit(paths, multipliers: dict) -> dict | None:
    """The worst path between two different clocks, as a limit of the system clock.

    Parameters
    ----------
    paths : iterable of :class:`~aesdse.flow.critical_path.CriticalPath`
        The worst paths of nextpnr's report (:func:`aesdse.flow.critical_path.critical_paths`);
        only those between two different clocks count (nextpnr checks a clock's own paths,
        its Fmax; a path from or to a port, ``<async>``, has no clock).
    multipliers : dict
        Clock domain -> its multiple of the system clock (``"sync"``: 1).

    Returns
    -------
    dict or None
        ``{"path": "clk -> bram_clk", "delay_ns", "window_periods": the path's time in system
        clock periods (e.g. 0.5), "fmax_mhz": the system clock the path allows}`` of the path
        that allows the lowest system clock; None without such a path.
    """
    worst = None
    for path in paths:
        launch, capture = _edge(path.from_edge), _edge(path.to_edge)
        if launch is None or capture is None or launch[1] == capture[1] \
                or path.total_ns <= 0:
            continue
        window = crossing_window(multipliers[clock_domain_of(launch[1], multipliers)],
                                 multipliers[clock_domain_of(capture[1], multipliers)],
                                 launch[0] == "negedge", capture[0] == "negedge")
        mhz = 1000 * float(window) / path.total_ns
        if worst is None or mhz < worst["fmax_mhz"]:
            worst = {"path": path.clock, "delay_ns": path.total_ns,
                     "window_periods": float(window), "fmax_mhz": mhz}
    return worst


def system_clock_mhz(fmax_by_clock: dict, clock_multipliers: dict | None = None,
                     critical_paths=()) -> float | None:
    """The system clock one place-and-route run allows, before data-sheet caps: each clock's
    Fmax over its multiple of the system clock, and the worst path between two clocks
    (:func:`crossing_limit`), the lowest of them; None without a clock. The Fmax search scores
    its runs by it, so that a two-clock core is searched by the clock that limits its row
    (:func:`compute_metrics`)."""
    if not fmax_by_clock:
        return None
    multipliers = {"sync": 1, **(clock_multipliers or {})}
    mhz = min(value / multipliers[clock_domain_of(clock, multipliers)]
              for clock, value in fmax_by_clock.items())
    crossing = crossing_limit(critical_paths, multipliers)
    return mhz if crossing is None else min(mhz, crossing["fmax_mhz"])


def compute_metrics(utilization: dict, fmax_by_clock: dict, cycles_per_block: float,
                    latency_cycles: int, *, limits: SpeedLimits, carries: int = 0,
                    block_bits: int = 128, clock_multipliers: dict | None = None,
                    family: str = "ecp5", synth_cells: dict | None = None,
                    harness: dict | None = None, critical_paths=()) -> Metrics:
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
    family : str
        Device family (a key of :data:`aesdse.flow.families.FAMILIES`).
    synth_cells : dict, optional
        Cell type -> count after synthesis (ECP5: only ``carries`` is taken from it, and only
        when given).
    harness : dict, optional
        The common columns of the measurement harness alone, subtracted from every area column.
    critical_paths : iterable of :class:`~aesdse.flow.critical_path.CriticalPath`, optional
        The report's worst paths: those between two clocks limit the system clock too
        (:func:`crossing_limit`).

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
    # Without synthesis counts, ``carries`` stands for the carry cells of ECP5's synthesis
    # (``CCU2C``), the only family that is measured without them.
    counts = common_resources(family, utilization, synth_cells or {"CCU2C": carries})
    if harness is not None:
        counts = subtract_harness(counts, harness)
    luts, ffs, brams, dsps = counts["luts"], counts["ffs"], counts["brams"], counts["dsps"]
    carries = counts["carries"]
    # The system clock each clock allows, raw and capped; the lowest one limits the core.
    allowed = []
    for clock, mhz in fmax_by_clock.items():
        multiple = multipliers[clock_domain_of(clock, multipliers)]
        capped, reason = cap_fmax(mhz, limits, uses_bram=bool(brams))
        allowed.append((capped / multiple, mhz / multiple, reason, clock, multiple))
    fmax, raw, reason, clock, multiple = min(allowed)
    raw = min(r for _, r, _, _, _ in allowed)
    if reason and len(fmax_by_clock) > 1:
        reason = f"{clock}: {reason}" + (f", / {multiple} for the system clock"
                                         if multiple != 1 else "")
    # A path between two clocks, which nextpnr does not check, may allow less (no data-sheet
    # cap applies to it: it is a path, not a clock).
    crossing = crossing_limit(critical_paths, multipliers)
    if crossing is not None:
        crossing["limits"] = crossing["fmax_mhz"] < fmax
        if crossing["limits"]:
            fmax, reason = crossing["fmax_mhz"], None
        raw = min(raw, crossing["fmax_mhz"])
    n_slices = counts["slices"] if "slices" in counts else \
        slice_count(luts, ffs, device_family=family)
    throughput = block_bits * fmax / cycles_per_block
    return Metrics(
        luts=luts, ffs=ffs, brams=brams, carries=carries, dsps=dsps, slices=n_slices,
        fmax_raw_mhz=raw, fmax_mhz=fmax, fmax_capped=reason,
        cycles_per_block=cycles_per_block, latency_cycles=latency_cycles,
        throughput_mbps=throughput,
        mbps_per_lut=throughput / luts if luts else None,
        mbps_per_slice=throughput / n_slices if n_slices else None,
        fmax_by_clock=dict(fmax_by_clock), fmax_limit=crossing)
