"""archs.lanes: N cores behind an in-order distributor, and the ``lanes`` parameter."""

from types import SimpleNamespace

import pytest
from amaranth.hdl import Fragment
from amaranth.lib import data

import archs
from aesdse.experiment import make_point, parse_experiment
from aesdse.fingerprint import generator_sources
from aesdse.spec.schema import config_key
from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from archs.interface import AESSignature
from archs.lanes import Lanes, ParallelLanes


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
        Lanes.check_core(SimpleNamespace(signature=AESSignature(modes=("ecb", "cbc"))))
    Lanes.check_core(SimpleNamespace(signature=AESSignature()))
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


# --- Parallel lanes: a wide port, N blocks per transfer ---------------------------------------


def test_parallel_pipelines_verify_and_take_a_block_each_per_cycle():
    # A fully pipelined core already takes a block per cycle; N of them side by side behind
    # a wide port take N. FIPS-197 and random vectors (against `cryptography`) gathered N to a
    # transfer, with key changes and random stalls on both sides.
    family = archs.family("unrolled")
    alone = verify_component(lambda: family.build(round_units=10, sbox="lut"), "cipher",
                             VerifyOptions(random_vectors=0, measure_blocks=24))
    assert alone.cycles_per_block == 1
    # Two lanes with a key pipeline each (lane_keys per_lane: lane 1's key register has no
    # reset), three with the default.
    for lanes, lane_keys in ((2, "per_lane"), (3, "shared")):
        result = verify_component(
            lambda: family.build(round_units=10, sbox="lut", parallel_lanes=lanes,
                                 lane_keys=lane_keys), "cipher",
            VerifyOptions(random_vectors=8, measure_blocks=24))
        assert result.ok, result.reason
        assert result.cycles_per_block == pytest.approx(1 / lanes)
        # Blocks and results go straight between the wide port and the lanes.
        assert result.latency_cycles == alone.latency_cycles


@pytest.mark.parametrize("lane_keys, merged_key_bits", [("shared", 128), ("per_lane", 0)])
def test_lane_keys_decide_whether_yosys_merges_the_key_pipelines(tmp_path, lane_keys,
                                                                 merged_key_bits):
    # Lanes fed the same key have identical key pipelines, and Yosys's opt_merge makes them one
    # (shared); per_lane keeps one per lane. Checked after Yosys's `opt` on a one-round TEST
    # CONFIGURATION (not AES): lane 1's key register is lane 0's, bit for bit, or none of it.
    import json
    from amaranth.back import rtlil
    from aesdse.flow.tools import find_tool, run_tool
    core = archs.family("unrolled").build(round_units=1, rounds=1, sbox="composite",
                                          parallel_lanes=2, lane_keys=lane_keys)
    (tmp_path / "design.il").write_text(rtlil.convert(core, name="top", emit_src=False))
    script = "read_rtlil design.il; hierarchy -top top; proc; flatten; opt; write_json opt.json"
    run = run_tool(find_tool("yosys"), ["-q", "-p", script], tmp_path, "yosys.log", 300)
    assert run.returncode == 0, (tmp_path / "yosys.log").read_text()[-2000:]
    nets = json.loads((tmp_path / "opt.json").read_text())["modules"]["top"]["netnames"]
    first, second = (set(nets[f"lane{n}.key"]["bits"]) for n in (0, 1))
    assert len(first) == len(second) == 128
    assert len(first & second) == merged_key_bits


def test_parallel_lanes_of_a_looped_core_divide_its_cycles(iterative_alone):
    family = archs.family("iterative")
    result = verify_component(lambda: family.build(sbox="lut", parallel_lanes=2), "cipher",
                              VerifyOptions(random_vectors=12, measure_blocks=12))
    assert result.ok, result.reason
    assert result.cycles_per_block == pytest.approx(iterative_alone.cycles_per_block / 2)
    assert result.vectors_checked >= 2 * 12


def test_verify_catches_results_in_the_wrong_places_of_a_wide_transfer():
    from archs.iterative import Iterative

    class Swapped(ParallelLanes):
        def _block(self, value, n):
            return super()._block(value, len(self.lanes) - 1 - n)

    result = verify_component(lambda: Swapped([Iterative(), Iterative()]), "cipher",
                              VerifyOptions(random_vectors=4, measure_blocks=8))
    assert not result.ok
    assert result.reason.startswith("mismatch on ")


def test_parallel_lanes_wide_port_and_attributes():
    from archs.iterative import Iterative
    wide = ParallelLanes([Iterative(), Iterative(), Iterative()])
    assert wide.i.payload.shape() == data.StructLayout({"data": 384})
    assert wide.o.payload.shape() == data.StructLayout({"data": 384})
    assert wide.signature.members["key"] == wide.lanes[0].signature.members["key"]
    assert (wide.blocks_per_transfer, wide.blocks_in_flight) == (3, 3)
    Fragment.get(wide, None)            # it elaborates (and is not left unused)


def test_parallel_lanes_refuse_what_a_wide_port_cannot_carry():
    for bad in (4, 0, True, "2"):
        with pytest.raises(ValueError, match=r"^Parallel lanes must be one of 1, 2, 3, not"):
            ParallelLanes.check(bad)
    with pytest.raises(ValueError, match=r"^Parallel lanes need cores with 128-bit ports, "
                                         r"not port width 8$"):
        ParallelLanes.check(2, port_width=8)
    with pytest.raises(ValueError, match=r"^Parallel lanes \(2\) and lanes behind one port "
                                         r"\(2\) cannot be combined$"):
        ParallelLanes.check(2, lanes=2)
    ParallelLanes.check(3)

    def fake(block_fields):
        def stream_of(layout):
            return SimpleNamespace(payload=SimpleNamespace(shape=lambda: layout))
        return SimpleNamespace(i=stream_of(data.StructLayout({"data": 128, **block_fields})),
                               o=stream_of(data.StructLayout({"data": 128})),
                               signature=AESSignature())
    with pytest.raises(ValueError, match=r"has i fields \['data', 'decrypt'\]: a wide port "
                                         r"carries the block data alone$"):
        ParallelLanes.check_core(fake({"decrypt": 1}))
    with pytest.raises(ValueError, match=r"chains blocks itself"):
        ParallelLanes.check_core(SimpleNamespace(**{**vars(fake({})), "signature":
                                                    AESSignature(modes=("ctr",))}))
    ParallelLanes.check_core(fake({}))

    # The families say so before building anything (experiment files call this per point).
    compact = archs.family("compact")
    assert compact.check_params({**compact.defaults(), "port_width": 8, "parallel_lanes": 2}) \
        == "Parallel lanes need cores with 128-bit ports, not port width 8"
    unrolled = archs.family("unrolled")
    assert "cannot be combined" in unrolled.check_params(
        {**unrolled.defaults(), "lanes": 2, "parallel_lanes": 2})
    assert unrolled.check_params({**unrolled.defaults(), "parallel_lanes": 3}) is None
    with pytest.raises(ValueError, match="cannot be combined"):
        unrolled.build(lanes=2, parallel_lanes=3)
    per_lane = "Per-lane key pipelines need two or more lanes of a core with round keys on the fly"
    assert unrolled.check_params({**unrolled.defaults(), "lane_keys": "per_lane"}) == per_lane
    assert unrolled.check_params({**unrolled.defaults(), "lane_keys": "per_lane",
                                  "parallel_lanes": 2, "key_schedule": "precomputed"}) == per_lane
    assert unrolled.check_params({**unrolled.defaults(), "lane_keys": "per_lane",
                                  "lanes": 2}) is None
    with pytest.raises(ValueError, match=r"^Lane keys must be one of shared, per_lane, not 'x'$"):
        unrolled.build(parallel_lanes=2, lane_keys="x")
    # The families whose blocks carry more than data do not offer it.
    assert "parallel_lanes" not in {p.name for p in archs.family("tbox").params}


def test_parallel_lanes_at_default_are_not_recorded():
    assert make_point("unrolled", {"parallel_lanes": 1}).params == make_point("unrolled").params
    assert dict(make_point("unrolled", {"parallel_lanes": 3}).params)["parallel_lanes"] == 3


def test_lanes_handing_out_on_their_own_valid_flag_stay_in_lock_step():
    # own_valid: a lane hands out on its own valid flag, not the AND of every lane's. Lanes of
    # one core run in lock step, so the results are the same, in the same cycles, with random
    # stalls on both sides and key changes.
    family = archs.family("iterative")
    results = {hand_out: verify_component(
        lambda: family.build(sbox="lut", parallel_lanes=3, lane_hand_out=hand_out), "cipher",
        VerifyOptions(random_vectors=9, measure_blocks=12))
        for hand_out in ("all_valid", "own_valid")}
    for result in results.values():
        assert result.ok, result.reason
    assert results["own_valid"].cycles_per_block == results["all_valid"].cycles_per_block
    assert results["own_valid"].latency_cycles == results["all_valid"].latency_cycles


def test_lanes_out_of_step_lose_results_with_own_valid_and_verify_says_so():
    # Lanes of different cores are not in lock step: the wide port still works when every lane
    # waits for all (all_valid), but a lane handing out on its own flag throws a result away,
    # and verification fails the point (the check that guards own_valid on every point).
    # Lane 1 takes a cycle more per round than lane 0. A lost result is a hang, so the run's
    # cycle budget is short.
    from archs.iterative import Iterative

    def mixed(hand_out):
        return lambda: ParallelLanes([Iterative(sbox="lut"),
                                      Iterative(sbox="composite", sbox_stages=1)],
                                     hand_out=hand_out)
    options = VerifyOptions(random_vectors=0, measure_blocks=2, max_cycles=4000,
                            max_cycles_per_block=100)
    together = verify_component(mixed("all_valid"), "cipher", options)
    assert together.ok, together.reason
    apart = verify_component(mixed("own_valid"), "cipher", options)
    assert not apart.ok
    assert apart.reason.startswith("mismatch on ")


def test_lane_hand_out_parameter():
    unrolled = archs.family("unrolled")
    assert unrolled.check_params({**unrolled.defaults(), "lane_hand_out": "own_valid"}) \
        == "Lane hand-out own_valid needs two or more parallel lanes"
    assert unrolled.check_params({**unrolled.defaults(), "lane_hand_out": "own_valid",
                                  "parallel_lanes": 3}) is None
    with pytest.raises(ValueError, match=r"^Lane hand-out must be one of all_valid, own_valid, "
                                         r"not 'x'$"):
        unrolled.build(parallel_lanes=2, lane_hand_out="x")
    # The default is not recorded, so the rows of earlier wide ports keep their keys.
    assert make_point("unrolled", {"parallel_lanes": 2, "lane_hand_out": "all_valid"}).params \
        == make_point("unrolled", {"parallel_lanes": 2}).params
    assert dict(make_point("iterative", {"parallel_lanes": 2, "lane_hand_out": "own_valid"})
                .params)["lane_hand_out"] == "own_valid"
