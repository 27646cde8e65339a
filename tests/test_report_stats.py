"""aesdse.report.stats: the median interval over placer seeds and the seed-noise test."""

import csv
import io
import json
import math
import statistics

import pytest

from aesdse.report.table import render
from aesdse.report.stats import (ALPHA, compare_samples, median_interval_ranks, seed_spread,
                                 smallest_p)

from conftest import _ok, fixture_rows


@pytest.fixture
def rows():
    return fixture_rows()


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


# --- the report of a multi-seed database --------------------------------------------------------

def _seeded(name: str, fmaxes: list[float]) -> list:
    params = {"datapath_width": 32, "sbox": name, "shared_memory": False}
    return [_ok(f"k-{name}-{seed}", "compact", params, luts=1000, ffs=500, fmax=fmax, cpb=44,
                seed=seed) for seed, fmax in enumerate(fmaxes, 1)]


#: A (fastest, 6 seeds), B overlapping A (6 seeds), C below A (6 seeds), D 2 seeds (2 vs 6: the test cannot reach 0.05).
_A = [300.0, 305.0, 310.0, 315.0, 320.0, 325.0]
_B = [298.0, 303.0, 309.0, 311.0, 318.0, 322.0]
_C = [250.0, 255.0, 260.0, 265.0, 270.0, 275.0]
_D = [200.0, 210.0]


@pytest.fixture
def seeded_rows():
    return _seeded("a", _A) + _seeded("b", _B) + _seeded("c", _C) + _seeded("d", _D)


def test_report_json_has_the_seed_statistics(seeded_rows):
    objects = {o["params"]["sbox"]: o for o in json.loads(render(seeded_rows, "json"))}
    a = objects["a"]
    j, k, coverage = median_interval_ranks(6)
    assert a["seed_count"] == 6 and a["fmax_mhz"] == statistics.median(_A)
    assert (a["fmax_min_mhz"], a["fmax_max_mhz"]) == (min(_A), max(_A))
    assert (a["fmax_ci_low_mhz"], a["fmax_ci_high_mhz"]) == (sorted(_A)[j - 1], sorted(_A)[k - 1])
    assert a["fmax_ci_coverage"] == pytest.approx(coverage) and a["fmax_noise"] is None
    assert objects["d"]["seed_count"] == 2 and objects["d"]["fmax_ci_low_mhz"] is None
    assert objects["b"]["fmax_noise"]["verdict"] == "within noise"
    assert objects["b"]["fmax_noise"]["against"] == "k-a-3"  # A's representative row
    assert objects["c"]["fmax_noise"]["verdict"] == "different"
    assert objects["c"]["fmax_noise"]["p"] == pytest.approx(2 / math.comb(12, 6))
    assert objects["d"]["fmax_noise"] == {"against": "k-a-3", "verdict": "too few seeds to tell",
                                          "p": None, "method": None}


def test_report_markdown_cells_and_footnotes(seeded_rows):
    text = render(seeded_rows, "markdown")
    j, k, coverage = median_interval_ranks(6)
    ci = f"CI {sorted(_A)[j - 1]:.1f}-{sorted(_A)[k - 1]:.1f}"
    assert f"| {statistics.median(_A):.1f} ({min(_A):.1f}-{max(_A):.1f}; {ci}) |" in text
    assert f"| {statistics.median(_D):.1f} ({min(_D):.1f}-{max(_D):.1f}) |" in text
    assert f"exact binomial coverage {coverage:.1%} for 6 seeds" in text
    noise = next(line for line in text.splitlines() if line.startswith("Seed noise"))
    assert "two-sided Mann-Whitney U" in noise and "alpha 0.05" in noise
    assert "against the fastest, compact (sbox=a) (median 312.5 MHz)" in noise
    assert "slower beyond the seed noise: compact (sbox=c) (p=0.0022)" in noise
    assert "within noise: compact (sbox=b) (p=" in noise
    assert "too few seeds to tell (2 vs 6 seeds: p >= 0.071): compact (sbox=d)" in noise


def test_report_csv_and_latex_carry_the_interval(seeded_rows):
    lines = list(csv.DictReader(io.StringIO(render(seeded_rows, "csv"))))
    a = next(line for line in lines if line["sbox"] == "a")
    c = next(line for line in lines if line["sbox"] == "c")
    assert float(a["fmax_ci_low_mhz"]) == sorted(_A)[median_interval_ranks(6)[0] - 1]
    assert c["fmax_noise"] == "different" and float(c["fmax_noise_p"]) < ALPHA
    latex = render(seeded_rows, "latex")
    assert f"({min(_D):.1f}-{max(_D):.1f})" in latex and "Mann-Whitney" in latex


def test_one_seed_per_line_gets_no_noise_note(rows):
    single = [r for r in rows if r.params.get("datapath_width") != 8]
    assert "Seed noise" not in render(single, "markdown")
    assert all(o["fmax_noise"] is None for o in json.loads(render(single, "json")))


def test_a_smallest_p_equal_to_alpha_is_too_few():
    # 1 seed against 39: the smallest p is 2/40 = alpha exactly, never below it.
    assert smallest_p(1, 39) == ALPHA
    assert compare_samples([500.0], [float(v) for v in range(100, 139)]).p is None
    assert compare_samples([500.0], [float(v) for v in range(100, 140)]).verdict == "different"


def test_compare_with_published_flags_a_clock_within_the_seed_noise(rows):
    from dataclasses import replace
    from aesdse.report.compare import compare, render_compare
    from aesdse.report.published import load_papers
    papers = load_papers()
    # The 8-bit compact core (seeds at 130/140/150 MHz) beside 000 Table III "table 8".
    data = json.loads(render_compare(compare(rows, papers), "json"))
    c8 = next(m for m in data["matches"] if m["published_row"] == "table 8")
    low, high = c8["measured_clock_min_mhz"], c8["measured_clock_max_mhz"]
    assert (low, high) == (130.0, 150.0) and low <= c8["published_clock_mhz"] <= high
    assert "published clock within the seed noise" in c8["note"]
    # All three seeds 20% faster: the published clock is below every seed.
    fast = [replace(r, fmax_mhz=r.fmax_mhz * 1.2) if r.params.get("datapath_width") == 8 else r
            for r in rows]
    data = json.loads(render_compare(compare(fast, papers), "json"))
    c8 = next(m for m in data["matches"] if m["published_row"] == "table 8")
    assert "seed noise" not in c8["note"] and c8["measured_clock_ci_low_mhz"] is None
