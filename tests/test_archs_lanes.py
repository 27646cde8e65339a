"""archs.lanes: N cores behind an in-order distributor, and the ``lanes`` parameter."""

from types import SimpleNamespace

import pytest

import archs
from aesdse.experiment import make_point, parse_experiment
from aesdse.provenance import generator_sources
from aesdse.store import config_key
from aesdse.verify import VerifyOptions, verify_component
from archs.lanes import Lanes


@pytest.fixture(scope="module")
def iterative_alone():
    family = archs.family("iterative")
    return verify_component(lambda: family.build(sbox="lut"), "cipher",
                            VerifyOptions(random_vectors=0, measure_blocks=24))


@pytest.mark.parametrize("lanes", [2, 4])
def test_lanes_of_the_iterative_core_verify_and_divide_its_cycles(lanes, iterative_alone):
    # FIPS-197 and random vectors with key changes between them and random stalls on both
    # sides: every lane gets each key, results come back in input order.
    family = archs.family("iterative")
    result = verify_component(lambda: family.build(sbox="lut", lanes=lanes), "cipher",
                              VerifyOptions(random_vectors=12, measure_blocks=24))
    assert result.ok, result.reason
    assert result.cycles_per_block == pytest.approx(iterative_alone.cycles_per_block / lanes)
    # The distributor adds no register on the way in or out.
    assert result.latency_cycles == iterative_alone.latency_cycles


def test_lanes_of_a_looped_unrolled_core_with_several_blocks_in_flight():
    family = archs.family("unrolled")
    build = lambda: family.build(round_units=2, sbox="lut", lanes=2)  # noqa: E731
    result = verify_component(build, "cipher", VerifyOptions(random_vectors=8, measure_blocks=24))
    assert result.ok, result.reason
    alone = verify_component(lambda: family.build(round_units=2, sbox="lut"), "cipher",
                             VerifyOptions(random_vectors=0, measure_blocks=24))
    assert result.cycles_per_block == pytest.approx(alone.cycles_per_block / 2)


def test_lanes_refuse_cores_that_chain_blocks_and_bad_counts():
    with pytest.raises(ValueError, match=r"chains blocks itself \(ecb, cbc\): its blocks cannot"):
        Lanes.check_core(SimpleNamespace(modes=("ecb", "cbc")))
    Lanes.check_core(SimpleNamespace())
    for bad in (3, 0, True, "2"):
        with pytest.raises(ValueError, match="Lanes must be one of 1, 2, 4, 8, not"):
            Lanes.check(bad)
    assert "lanes" not in {p.name for p in archs.family("multimode").params}
    assert archs.family("iterative").check_params({"sbox": "lut", "sbox_stages": 0,
                                                   "lanes": 3}) is not None


def test_lanes_at_default_are_not_recorded_so_old_rows_keep_their_configuration():
    exp = parse_experiment("name: l\narchitectures:\n"
                           "  - arch: iterative\n    params: {sbox: lut, lanes: [1, 2]}\n"
                           "  - arch: tbox\n")
    params = [dict(p.params) for p in exp.points]
    assert params == [{"sbox": "lut", "sbox_stages": 0},
                      {"sbox": "lut", "sbox_stages": 0, "lanes": 2},
                      {"bram_pumping": 1, "datapath_width": 128}]
    # A row stored before `lanes` existed has the parameters of the first point.
    old = config_key("iterative", {"sbox": "lut", "sbox_stages": 0}, exp.points[0].target.label,
                     exp.points[0].flow.as_dict())
    assert exp.points[0].config_key() == old
    assert make_point("iterative", {"lanes": 1}).params == make_point("iterative").params
    assert dict(make_point("compact", {"lanes": 4}).params)["lanes"] == 4


def test_the_lanes_module_is_in_the_fingerprint_of_the_families_that_offer_it():
    for name in ("iterative", "unrolled", "compact", "tbox"):
        fam = archs.family(name)
        assert "lanes" in {p.name for p in fam.params}
        assert any(p.name == "lanes.py" for p in generator_sources(fam.module, fam.wrappers))
    assert not any(p.name == "lanes.py" for p in generator_sources("archs.multimode"))
