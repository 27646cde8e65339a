"""Seed statistics: the spread of a configuration's Fmax over placer seeds, and whether two
configurations differ by more than that spread.

nextpnr's Fmax for one placer seed is a draw from a population (the same netlist ranges over
tens of MHz across seeds). A table shows the median of the seeds measured; these functions say
how far that median can be trusted and whether a difference between two medians is larger than
the seed noise. Both are distribution-free: nothing is assumed about the shape of the
population (it is often skewed, sometimes bimodal).

Median interval
---------------
The interval ``[x_(j), x_(n+1-j)]`` between two order statistics of ``n`` sorted samples covers
the population median with probability ``P(j <= B <= n - j)``, ``B ~ Binomial(n, 1/2)``
(each sample lies below the median with probability 1/2), whatever the population. The
narrowest such symmetric interval with coverage >= :data:`CONFIDENCE` is chosen, its exact
coverage stated; below 6 samples no interval reaches 95% and min-max is the best there is (5
samples: 93.75%). :data:`MIN_SEEDS_INTERVAL` samples are needed before one is shown.

Difference test
---------------
Two configurations' per-seed Fmax samples are compared with the two-sided Mann-Whitney U test
(:func:`scipy.stats.mannwhitneyu`; the exact distribution when no value is tied, else the normal
approximation with tie correction) at :data:`ALPHA`. Its smallest possible two-sided p-value
with ``n1`` and ``n2`` samples is ``2 / C(n1 + n2, n1)`` (every sample of one above every sample
of the other): when that is not below :data:`ALPHA` (3 against 3 seeds: 0.1) the test cannot find
a difference whatever the numbers, and the verdict is "too few seeds to tell".
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

__all__ = ["CONFIDENCE", "ALPHA", "MIN_SEEDS_INTERVAL", "median_interval_ranks", "SeedSpread",
           "seed_spread", "smallest_p", "Difference", "compare_samples", "TEST_NOTE"]

#: Nominal coverage of the median interval.
CONFIDENCE = 0.95

#: Significance level of the difference test.
ALPHA = 0.05

#: Seeds needed before a median interval is shown (and a records verdict is decided).
MIN_SEEDS_INTERVAL = 5

#: The statement of the test, for footnotes.
TEST_NOTE = (f"two-sided Mann-Whitney U test on the per-seed Fmax samples, alpha {ALPHA:g} "
             f"(exact when no value is tied); \"too few seeds to tell\" where the smallest "
             f"p-value the test can give with those seed counts, 2 / C(n1 + n2, n1), is not "
             f"below alpha")


def _coverage(n: int, j: int) -> float:
    """Exact coverage of ``[x_(j), x_(n+1-j)]`` (1-based ranks): ``P(j <= B <= n - j)``."""
    return sum(math.comb(n, i) for i in range(j, n - j + 1)) / 2 ** n


def median_interval_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int, float]:
    """1-based ranks ``(j, n + 1 - j)`` of the narrowest symmetric order-statistic interval of
    the median of ``n`` samples with coverage >= ``confidence``, and its exact coverage.

    Below the sample count where any interval reaches ``confidence`` it is ``(1, n)``, min-max,
    with its (lower) coverage: the caller states the coverage, never the nominal level.

    Raises
    ------
    ValueError
        ``n`` < 2 (one sample has no interval).
    """
    if n < 2:
        raise ValueError(f"a median interval needs at least 2 samples, not {n}")
    j = 1
    while j + 1 <= n + 1 - (j + 1) and _coverage(n, j + 1) >= confidence:
        j += 1
    return j, n + 1 - j, _coverage(n, j)


@dataclass(frozen=True)
class SeedSpread:
    """The Fmax of one configuration over its placer seeds.

    Attributes
    ----------
    count : int
        Samples (seeds).
    median, low, high : float
        Median, minimum and maximum.
    ci_low, ci_high, coverage : float or None
        The median interval (:func:`median_interval_ranks`) and its exact coverage, with at least
        :data:`MIN_SEEDS_INTERVAL` samples; else None.
    cv : float or None
        Coefficient of variation (sample standard deviation / mean), 2 samples or more.
    """
    count: int
    median: float
    low: float
    high: float
    ci_low: float | None = None
    ci_high: float | None = None
    coverage: float | None = None
    cv: float | None = None

    @property
    def interval(self) -> tuple[float, float]:
        """The median interval when there is one, else min-max: where the median may be."""
        if self.ci_low is not None and self.ci_high is not None:
            return self.ci_low, self.ci_high
        return self.low, self.high

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies within :attr:`interval` (within the seed noise)."""
        low, high = self.interval
        return low <= value <= high


def seed_spread(values: list[float]) -> SeedSpread | None:
    """:class:`SeedSpread` of ``values`` (None values dropped); None when none is left."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    n = len(values)
    ci = (None, None, None)
    if n >= MIN_SEEDS_INTERVAL:
        j, k, coverage = median_interval_ranks(n)
        ci = (values[j - 1], values[k - 1], coverage)
    mean = statistics.fmean(values)
    cv = statistics.stdev(values) / mean if n >= 2 and mean else None
    return SeedSpread(n, statistics.median(values), values[0], values[-1], *ci, cv=cv)


def smallest_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value the exact Mann-Whitney U test can give with ``n1`` and
    ``n2`` samples: ``2 / C(n1 + n2, n1)`` (at most 1)."""
    if n1 < 1 or n2 < 1:
        return 1.0
    return min(1.0, 2 / math.comb(n1 + n2, n1))


@dataclass(frozen=True)
class Difference:
    """The outcome of :func:`compare_samples`.

    Attributes
    ----------
    verdict : str
        ``"different"`` (p < alpha), ``"within noise"`` (p >= alpha) or ``"too few seeds to
        tell"`` (the test cannot reach alpha with these seed counts; ``p`` is None).
    p : float or None
        Two-sided p-value.
    method : str or None
        ``"exact"`` or ``"asymptotic"``.
    counts : tuple of int
        Samples of each side.
    """
    verdict: str
    p: float | None
    method: str | None
    counts: tuple

    def text(self) -> str:
        """Short form for a table note: ``within noise (p=0.40)``."""
        if self.p is None:
            return (f"too few seeds to tell ({self.counts[0]} vs {self.counts[1]} seeds: "
                    f"p >= {smallest_p(*self.counts):.2g})")
        return f"{self.verdict} (p={self.p:.2g})"


def compare_samples(a: list[float], b: list[float], alpha: float = ALPHA) -> Difference:
    """Whether samples ``a`` and ``b`` (per-seed Fmax of two configurations) differ: the
    two-sided Mann-Whitney U test at ``alpha`` (see the module docstring)."""
    from scipy.stats import mannwhitneyu
    a = [v for v in a if v is not None]
    b = [v for v in b if v is not None]
    counts = (len(a), len(b))
    if smallest_p(*counts) >= alpha:
        return Difference("too few seeds to tell", None, None, counts)
    method = "exact" if len(set(a) | set(b)) == len(a) + len(b) else "asymptotic"
    p = float(mannwhitneyu(a, b, alternative="two-sided", method=method).pvalue)
    return Difference("different" if p < alpha else "within noise", p, method, counts)


def spread_text(spread: SeedSpread | None) -> str:
    """The spread beside a median Fmax in a table cell: `` (250.0-323.0)`` (min-max), with
    :data:`MIN_SEEDS_INTERVAL` seeds or more `` (250.0-323.0; CI 300.1-320.0)`` (the median
    interval); empty for one seed."""
    if spread is None or spread.count < 2:
        return ""
    text = f"{spread.low:.1f}-{spread.high:.1f}"
    if spread.ci_low is not None:
        text += f"; CI {spread.ci_low:.1f}-{spread.ci_high:.1f}"
    return f" ({text})"


def spread_note(counts: list[int]) -> str:
    """The footnote that says what :func:`spread_text` shows, for lines of ``counts`` seeds,
    with the exact coverage of each interval shown."""
    text = "(a-b) is the min-max range across seeds"
    shown = sorted({n for n in counts if n >= MIN_SEEDS_INTERVAL})
    if shown:
        coverages = ", ".join(f"{median_interval_ranks(n)[2]:.1%} for {n}" for n in shown)
        text += (f"; with >= {MIN_SEEDS_INTERVAL} seeds, CI is the distribution-free interval "
                 f"of the median between two order statistics, nominal {CONFIDENCE:.0%}, exact "
                 f"binomial coverage {coverages} seeds")
    return text


def against_fastest(samples: dict) -> tuple[object, dict]:
    """Compare every sample list of ``samples`` (name -> per-seed Fmax) with the one of the
    highest median: ``(name of the fastest, {other name: Difference})``; ``(None, {})`` when
    fewer than two have values."""
    medians = {k: statistics.median(v) for k, v in samples.items() if v}
    if len(medians) < 2:
        return None, {}
    fastest = max(medians, key=lambda k: medians[k])
    return fastest, {k: compare_samples(samples[k], samples[fastest])
                     for k in medians if k != fastest}


def noise_note(fastest: str, median: float, results: list[tuple[str, Difference]],
               limit: int = 6) -> str:
    """A footnote sentence: which lines are slower than the fastest (``fastest``, median
    ``median``) beyond the seed noise, which within it, and where the seeds are too few to
    tell; more than ``limit`` names in a group are counted, not named."""
    groups: dict = {}
    for name, d in results:
        key = d.verdict if d.p is not None else f"{d.verdict} ({d.counts[0]} vs {d.counts[1]} " \
            f"seeds: p >= {smallest_p(*d.counts):.2g})"
        groups.setdefault(key, []).append(name if d.p is None else f"{name} (p={d.p:.2g})")
    parts = []
    for key in sorted(groups, key=lambda k: (not k.startswith("different"), k)):
        names = groups[key]
        listed = ", ".join(names) if len(names) <= limit else f"{len(names)} lines"
        title = "slower beyond the seed noise" if key == "different" else key
        parts.append(f"{title}: {listed}")
    return (f"against the fastest, {fastest} (median {median:.1f} MHz): " + "; ".join(parts))
