"""Fmax search: find the highest achieved Fmax of a design by searching nextpnr's target frequency.

One nextpnr run at one ``--freq`` does not measure Fmax: the timing-driven placer and router work
toward the target, so a target far below the design's capability under-reports it, and a target
far above it can also give a *lower* achieved Fmax than a realistic one (the placer spends its
effort on paths it cannot fix). This module searches the target, in batches of runs that can run
in parallel (one per free worker), and is pure: it calls a ``run_batch`` function and a clock and
knows nothing of tools, files or databases, so it is tested with synthetic response functions.

Algorithm
---------
The state is a bracket ``[lo, hi]`` and the best achieved Fmax so far.

1. A batch has ``width`` runs: ``max(1, width // seeds)`` targets, each run with every placer seed
   ``1..seeds``. The targets are spread evenly *inside* the bracket,
   ``lo + (hi - lo) * i / (n + 1)`` for ``i = 1..n``, rounded to 0.1 MHz. A (target, seed) pair
   whose key (default: the rounded target and the seed; the sweep passes the place-and-route cache
   key) was already run is skipped: no run is ever repeated.
2. After the batch, with every run so far:

   * ``best`` = the highest achieved Fmax of any run that routed, whether or not it met its
     target: a run that achieved 140 MHz when asked for 200 still proves 140 MHz (this is how a
     failing run's achieved Fmax informs the next batch). ``lo = max(lo, best)``.
   * A target is *met* if some run at it achieved at least the target. The lowest target above
     ``lo`` that no run met (or that no run routed) becomes ``hi``: the bracket narrows toward the
     best result.
   * Bounds move up on success: while no target above ``lo`` has failed, ``hi`` is kept at least
     :data:`GROWTH` x ``lo`` (at most :data:`CEILING_MHZ`), so a design faster than the initial
     high bound is followed upward.

3. A batch *improves* when ``best`` rises by more than ``min_gain_mhz``. The search stops after
   ``patience`` consecutive batches without improvement, when the time budget is spent (checked
   before each batch: a batch that started finishes, each run being bounded by its own tool
   timeout), when the bracket is narrower than :data:`RESOLUTION` (``converged``), or when every
   target the bracket offers was already run (``exhausted``).

Definitions used by the reports
-------------------------------
Converged Fmax
    The highest achieved Fmax among the runs that routed (:attr:`SearchResult.fmax_mhz`).
Contending runs
    The routed runs whose target was within :data:`CONTENDING_WINDOW` (10%) of the converged
    Fmax, and the best run itself: the runs that aimed at the design's limit. Runs at targets far
    below or far above it are expected to achieve less and say nothing about the noise of the
    result. The reported spread is the min-max range
    of the contending runs' achieved Fmax, over seeds and targets.
Bimodal
    :func:`bimodal`: the contending runs' achieved values, sorted, have a gap larger than
    :data:`BIMODAL_GAP` (10%) of their median that splits them into two clusters of at least two
    runs each. Such a design lands in one of two distinct placements (e.g. a block RAM or carry
    chain placed one way or the other); a single number hides that.
"""

import statistics
import time
from dataclasses import dataclass, field

from ..spec.schema import SearchSettings

__all__ = ["Trial", "Run", "SearchResult", "search", "bimodal",
           "contending", "summarize", "RESOLUTION", "GROWTH", "CEILING_MHZ",
           "CONTENDING_WINDOW", "BIMODAL_GAP"]

#: Bracket width (MHz) below which the search has converged; targets are rounded to 0.1 MHz.
RESOLUTION = 0.5
#: While nothing above the best result has failed, the high bound stays this factor above it.
GROWTH = 1.25
#: Highest target ever tried (MHz); far above any ECP5 clock (400 MHz PLL maximum).
CEILING_MHZ = 1000.0
#: Runs whose target is within this fraction of the converged Fmax are "contending".
CONTENDING_WINDOW = 0.10
#: Gap between sorted contending values, as a fraction of their median, that marks two clusters.
BIMODAL_GAP = 0.10


@dataclass(frozen=True)
class Trial:
    """One nextpnr run to do: a target frequency and a placer seed."""
    target_mhz: float
    seed: int


@dataclass(frozen=True)
class Run:
    """A finished run: its trial, the achieved Fmax (``None``: did not route) and its batch."""
    target_mhz: float
    seed: int
    achieved_mhz: float | None
    batch: int

    @property
    def ok(self) -> bool:
        return self.achieved_mhz is not None

    @property
    def met(self) -> bool:
        return self.ok and self.achieved_mhz >= self.target_mhz


@dataclass
class SearchResult:
    """The outcome of :func:`search`.

    Attributes
    ----------
    batches : list of list of Run
        Every batch, in order.
    stop : str
        ``patience``, ``budget``, ``converged`` or ``exhausted``.
    bracket : tuple of float
        The final ``(lo, hi)``.
    """
    batches: list = field(default_factory=list)
    stop: str = ""
    bracket: tuple = (0.0, 0.0)

    @property
    def runs(self) -> list:
        return [r for b in self.batches for r in b]

    @property
    def best(self) -> Run | None:
        """The run with the highest achieved Fmax (the earliest of equals), or None."""
        routed = [r for r in self.runs if r.ok]
        return max(routed, key=lambda r: r.achieved_mhz) if routed else None

    @property
    def fmax_mhz(self) -> float | None:
        """Converged Fmax: the highest achieved Fmax among the runs that routed."""
        best = self.best
        return best.achieved_mhz if best else None


def _round(target: float) -> float:
    return round(target, 1)


def _bracket(runs, lo, hi):
    """The bracket after ``runs`` (see the module docstring, step 2)."""
    routed = [r.achieved_mhz for r in runs if r.ok]
    if routed:
        lo = max(lo, max(routed))
    by_target = {}
    for r in runs:
        by_target.setdefault(r.target_mhz, []).append(r)
    failed_above = [t for t, rs in by_target.items() if t > lo and not any(r.met for r in rs)]
    if failed_above:
        hi = min(failed_above)
    else:
        # Nothing above the best has failed: keep room above it (bounds moved up on success).
        hi = max(hi, min(CEILING_MHZ, lo * GROWTH))
    return lo, max(lo, hi)


def search(run_batch, settings: SearchSettings, width: int, *, key=None,
           clock=time.monotonic, min_gain_mhz: float = 0.1) -> SearchResult:
    """Search the target frequency that gives the highest achieved Fmax.

    Parameters
    ----------
    run_batch : callable
        ``run_batch(trials: list[Trial]) -> list[float | None]``: the achieved Fmax of each trial
        (``None`` when the run failed to route or crashed), in order. The trials of a batch are
        independent and may run in parallel.
    settings : SearchSettings
    width : int
        Runs per batch (``settings.batch`` when not 0, else the free workers).
    key : callable, optional
        ``key(trial) -> hashable``: trials with equal keys are duplicates, run once. Default:
        (target rounded to 0.1 MHz, seed).
    clock : callable
        Seconds, monotonic (tests pass a fake clock).
    min_gain_mhz : float
        A batch improves when the best achieved Fmax rises by more than this.

    Returns
    -------
    SearchResult
    """
    if settings.low_mhz <= 0 or settings.high_mhz <= settings.low_mhz:
        raise ValueError(f"Need 0 < low_mhz < high_mhz, not {settings.low_mhz!r}, "
                         f"{settings.high_mhz!r}")
    key = key or (lambda t: (_round(t.target_mhz), t.seed))
    seeds = list(range(1, settings.seeds + 1))
    n_targets = max(1, max(1, width) // len(seeds))
    start = clock()
    lo, hi = float(settings.low_mhz), float(settings.high_mhz)
    done = set()
    result = SearchResult()
    best, stale = None, 0
    while True:
        if clock() - start >= settings.budget_s:
            result.stop = "budget"
            break
        if hi - lo < RESOLUTION:
            result.stop = "converged"
            break
        trials = []
        for i in range(1, n_targets + 1):
            target = _round(lo + (hi - lo) * i / (n_targets + 1))
            if target <= lo:
                continue
            for seed in seeds:
                trial = Trial(target, seed)
                k = key(trial)
                if k not in done:
                    done.add(k)
                    trials.append(trial)
        if not trials:
            result.stop = "exhausted"
            break
        achieved = list(run_batch(trials))
        if len(achieved) != len(trials):
            raise ValueError(f"run_batch returned {len(achieved)} results for {len(trials)} "
                             f"trials")
        number = len(result.batches)
        result.batches.append([Run(t.target_mhz, t.seed, None if a is None else float(a), number)
                               for t, a in zip(trials, achieved)])
        lo, hi = _bracket(result.runs, lo, hi)
        new_best = result.fmax_mhz
        if new_best is not None and (best is None or new_best > best + min_gain_mhz):
            best, stale = new_best, 0
        else:
            stale += 1
            if stale >= settings.patience:
                result.stop = "patience"
                break
    result.bracket = (lo, hi)
    return result


def contending(runs, fmax_mhz: float | None = None) -> list:
    """The routed runs whose target was within :data:`CONTENDING_WINDOW` of ``fmax_mhz``
    (default: the highest achieved Fmax of ``runs``), and the runs that achieved it."""
    routed = [r for r in runs if r.achieved_mhz is not None]
    if not routed:
        return []
    if fmax_mhz is None:
        fmax_mhz = max(r.achieved_mhz for r in routed)
    # The best run always contends, even when it was asked for much less than it achieved.
    return [r for r in routed
            if abs(r.target_mhz - fmax_mhz) <= CONTENDING_WINDOW * fmax_mhz
            or r.achieved_mhz >= fmax_mhz]


def bimodal(values, gap: float = BIMODAL_GAP, min_cluster: int = 2) -> bool:
    """Whether ``values`` split into two clusters: sorted, some gap between neighbours exceeds
    ``gap`` x their median with at least ``min_cluster`` values on each side."""
    values = sorted(v for v in values if v is not None)
    if len(values) < 2 * min_cluster:
        return False
    limit = gap * statistics.median(values)
    return any(values[i] - values[i - 1] > limit
               for i in range(min_cluster, len(values) - min_cluster + 1))


def summarize(runs) -> dict:
    """Report numbers of a search's runs (objects with ``target_mhz``, ``seed`` and
    ``achieved_mhz``, e.g. :class:`Run` or stored run records).

    Returns
    -------
    dict
        ``fmax_mhz`` (converged), ``runs``, ``routed``, ``contending``, ``min_mhz``,
        ``median_mhz``, ``max_mhz`` (over the contending runs), ``spread_percent`` (half their
        min-max range in percent of the converged Fmax) and ``bimodal``.
    """
    runs = list(runs)
    routed = [r for r in runs if r.achieved_mhz is not None]
    out = {"fmax_mhz": None, "runs": len(runs), "routed": len(routed), "contending": 0,
           "min_mhz": None, "median_mhz": None, "max_mhz": None, "spread_percent": None,
           "bimodal": False}
    if not routed:
        return out
    fmax = max(r.achieved_mhz for r in routed)
    values = [r.achieved_mhz for r in contending(routed, fmax)]
    out.update(fmax_mhz=fmax, contending=len(values), min_mhz=min(values),
               median_mhz=statistics.median(values), max_mhz=max(values),
               spread_percent=(max(values) - min(values)) / 2 / fmax * 100,
               bimodal=bimodal(values))
    return out
