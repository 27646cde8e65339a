"""aesdse.report.stats: the median interval over placer seeds and the seed-noise test."""

import math

import pytest

from aesdse.report.stats import (ALPHA, compare_samples, median_interval_ranks, seed_spread,
                                 smallest_p)


def _below(n: int, k: int) -> float:
    """P(B <= k), B ~ Binomial(n, 1/2), by hand."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n


@pytest.mark.parametrize("n", [5, 8, 16])
def test_median_interval_is_the_narrowest_with_95_percent(n):
    j, k, coverage = median_interval_ranks(n)
    assert k == n + 1 - j
    # [x_(j), x_(n+1-j)] misses the median when fewer than j samples lie below it or fewer
    # than j above it: two tails of B(n, 1/2) of P(B <= j - 1) each.
    assert coverage == pytest.approx(1 - 2 * _below(n, j - 1))
    narrower = 1 - 2 * _below(n, j)  # the interval one rank further in
    assert narrower < 0.95
    if n >= 6:
        assert coverage >= 0.95


def test_median_interval_ranks_by_hand():
    # n = 5: even min-max covers only 1 - 2/32; the interval is min-max, its coverage stated.
    assert median_interval_ranks(5) == (1, 5, pytest.approx(1 - 2 / 32))
    # n = 8: x_(2)..x_(7) would cover 1 - 2 * 9/256 = 0.93: min-max, 1 - 2/256.
    assert median_interval_ranks(8) == (1, 8, pytest.approx(1 - 2 / 256))
    # n = 16: x_(4)..x_(13), 1 - 2 * (1 + 16 + 120 + 560) / 65536.
    assert median_interval_ranks(16) == (4, 13, pytest.approx(1 - 2 * 697 / 65536))


def test_median_interval_needs_two_samples():
    with pytest.raises(ValueError):
        median_interval_ranks(1)


def test_seed_spread_shows_an_interval_from_five_seeds():
    three = seed_spread([250.0, 314.1, 323.0])
    assert (three.median, three.low, three.high) == (314.1, 250.0, 323.0)
    assert three.ci_low is None and three.interval == (250.0, 323.0)
    sixteen = seed_spread([float(v) for v in range(100, 116)][::-1] + [None])
    assert sixteen.count == 16 and sixteen.median == 107.5
    assert (sixteen.ci_low, sixteen.ci_high) == (103.0, 112.0)  # ranks 4 and 13
    assert sixteen.contains(103.0) and not sixteen.contains(102.9)
    assert 0 < sixteen.cv < 0.05
    assert seed_spread([None]) is None


def test_smallest_p():
    assert smallest_p(3, 3) == pytest.approx(2 / math.comb(6, 3))  # 0.1: cannot reach 0.05
    assert smallest_p(4, 4) == pytest.approx(2 / 70)
    assert smallest_p(1, 1) == 1.0


def test_separated_samples_differ():
    a, b = [300.0, 305.0, 310.0, 312.0, 315.0], [250.0, 255.0, 260.0, 262.0, 270.0]
    d = compare_samples(a, b)
    assert d.verdict == "different" and d.method == "exact"
    assert d.p == pytest.approx(2 / math.comb(10, 5))  # every a above every b
    assert "different" in d.text()


def test_overlapping_samples_are_within_noise():
    a, b = [250.0, 290.0, 300.0, 310.0, 323.0], [255.0, 295.0, 305.0, 312.0, 320.0]
    d = compare_samples(a, b)
    assert d.verdict == "within noise" and d.p > ALPHA


def test_three_seeds_each_are_too_few_to_tell():
    # Fully separated, but 3 against 3 cannot give p < 0.05.
    d = compare_samples([300.0, 301.0, 302.0], [200.0, 201.0, 202.0])
    assert d.verdict == "too few seeds to tell" and d.p is None
    assert "3 vs 3 seeds" in d.text()


def test_ties_use_the_normal_approximation():
    d = compare_samples([300.0, 300.0, 310.0, 320.0, 330.0], [200.0, 200.0, 210.0, 220.0, 230.0])
    assert d.method == "asymptotic" and d.verdict == "different"
