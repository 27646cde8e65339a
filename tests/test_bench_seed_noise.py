"""bench/seed_noise.py: each point is one records configuration over seeds 1..N."""

import pytest

from aesdse.experiment import load_experiment
from bench_modules import bench_module


@pytest.fixture(scope="module")
def bench():
    with bench_module("seed_noise") as module:
        yield module


@pytest.mark.parametrize("name", ["sbox", "compact", "pipelined", "one_chip", "iterative",
                                  "iterative_logic", "tbox_pumped", "multimode"])
def test_a_point_is_one_records_configuration_over_n_seeds(bench, name):
    exp = bench.point_experiment(name, 16)
    assert sorted(p.flow.seed for p in exp.points) == list(range(1, 17))
    # Seed 1 is a point of its experiment (the key includes the seed; experiments/unrolled.yaml
    # has one seed, the records files three): the configuration the records table shows.
    records = load_experiment(bench.ROOT / "experiments" / bench.POINTS[name][0])
    first = {p.config_key() for p in bench.point_experiment(name, 1).points}
    assert len(first) == 1 and first <= {p.config_key() for p in records.points}


def test_summary_of_rows(bench):
    from conftest import _ok
    rows = [_ok(f"k{s}", "sbox", {"sbox": "tower"}, luts=60, ffs=16, fmax=100.0 + s, cpb=1,
                seed=s) for s in range(1, 17)]
    s = bench.summarize("sbox", rows)
    assert s["count"] == 16 and s["median"] == 108.5 and (s["low"], s["high"]) == (101.0, 116.0)
    assert (s["ci_low"], s["ci_high"]) == (104.0, 113.0)  # ranks 4 and 13 of 16
