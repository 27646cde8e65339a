# amaranth: UnusedElaboratable=no
"""The verify stage on scripts (issue 26): amaranth.sim and Verilator play the same scripts edge
for edge, and the measurements on scripts equal those of the amaranth.sim testbench they replaced.

Points of every cipher family: compact (incl. ``port_width: 8``), iterative (incl. ``lanes: 2``),
tbox (incl. ``bram_pumping: 2``, two clock domains), unrolled (incl. ``parallel_lanes: 2``, a
wide port) and multimode (CCM, and ``streams: 2``). Kept affordable: each Verilator model is
built once (the default model cache, shared with the other tests); amaranth.sim plays a sample of each point's
checking script (a few messages of every kind, with stalls), and the whole verify stage only for
the points where it takes a second.
"""

import dataclasses
import gc
import warnings

import pytest

import archs
from aesdse.fingerprint import design_identity
from aesdse.spec.schema import VerifyOptions
from aesdse.verify import verify as verify_module
from aesdse.verify.blocks import checking_blocks, core_directions, key_items
from aesdse.verify.cxxrtl import CompileError, find_compiler
from aesdse.verify.script import (Playback, ScriptMismatch, check_playback, common_interface,
                                  items_script, play_amaranth, stalls, verification_script)
from aesdse.verify.verify import Player, verify_component
from aesdse.verify import verilator as verilator_backend
from aesdse.verify.verify import BACKEND_ENV


def _verilator_or_skip():
    try:
        verilator_backend.verilator_root()
        find_compiler()
    except CompileError as error:
        pytest.skip(f"no Verilator backend: {error}")


@pytest.fixture(scope="module")
def model_cache():
    """The default model cache (as the verify stage of the other tests uses): the models of
    these points are built once per machine, not once per run."""
    return None


#: (arch, params) -> the measurements of the amaranth.sim testbench that scripts replaced
#: (``aesdse.verify.verify`` before the scripts, commit b92bc64), obtained once by running its
#: ``verify_component`` with ``VerifyOptions(random_vectors=2)`` on each point, the family's
#: defaults for the parameters not named. ``amaranth``: the new stage also runs on amaranth.sim
#: here (the points where that takes about a second).
OLD = {
    ("compact", ()): dict(latency_cycles=41, cycles_per_block=44.0, details={},
                          vectors_checked=20, amaranth=True),
    ("compact", (("datapath_width", 8), ("port_width", 8))): dict(
        latency_cycles=195, cycles_per_block=176.0, details={}, vectors_checked=20,
        amaranth=True),
    ("iterative", ()): dict(latency_cycles=11, cycles_per_block=10.0, details={},
                            vectors_checked=20, amaranth=True),
    ("iterative", (("lanes", 2),)): dict(latency_cycles=11, cycles_per_block=5.0, details={},
                                          vectors_checked=20, amaranth=True),
    ("tbox", ()): dict(latency_cycles=12, cycles_per_block=10.0, details={
        "encrypt": {"latency_cycles": 12, "cycles_per_block": 10.0},
        "decrypt": {"latency_cycles": 12, "cycles_per_block": 10.0}}, vectors_checked=40),
    ("tbox", (("bram_pumping", 2),)): dict(latency_cycles=12, cycles_per_block=10.0, details={
        "encrypt": {"latency_cycles": 12, "cycles_per_block": 10.0},
        "decrypt": {"latency_cycles": 12, "cycles_per_block": 10.0}}, vectors_checked=40),
    ("unrolled", (("round_units", 2),)): dict(latency_cycles=11, cycles_per_block=5.0,
                                               details={}, vectors_checked=20, amaranth=True),
    ("unrolled", (("parallel_lanes", 2), ("round_units", 1))): dict(
        latency_cycles=11, cycles_per_block=5.0, details={}, vectors_checked=22, amaranth=True),
    ("multimode", ()): dict(latency_cycles=12, cycles_per_block=11.0, details={
        "encrypt": {"latency_cycles": 12, "cycles_per_block": 11.0},
        "decrypt": {"latency_cycles": 12, "cycles_per_block": 11.0}}, vectors_checked=145),
    ("multimode", (("streams", 2),)): dict(latency_cycles=23, cycles_per_block=11.0, details={
        "encrypt": {"latency_cycles": 23, "cycles_per_block": 11.0},
        "decrypt": {"latency_cycles": 23, "cycles_per_block": 11.0}, "streams": 2,
        "single_stream": {"cycles_per_block": 22.0, "encrypt": {"cycles_per_block": 22.0},
                          "decrypt": {"cycles_per_block": 22.0}},
        "ccm_payload": {"cycles_per_block": 22.0}}, vectors_checked=145),
}

POINTS = list(OLD)

_SELECT_PLAYER = verify_module.select_player


def _build(arch, params):
    fam = archs.family(arch)
    settings = {**fam.defaults(), **dict(params)}
    return lambda: fam.build(device_family="generic", **settings)


def _identity(point):
    """What decides the RTLIL of the point's core as both tests build it (the sweep's
    :func:`aesdse.fingerprint.design_identity`, named for these tests): the two find its
    Verilator model by it (:mod:`aesdse.verify.design_index`), so a core is converted to RTLIL
    at most once per machine and version of the sources, not once per test (a multimode core
    takes ~15 s)."""
    arch, params = point
    settings = {**archs.family(arch).defaults(), **dict(params)}
    return "tests/test_verify_equivalence.py: " + design_identity(arch, settings, "generic")


def _sample(blocks, per_category=2):
    """Whole messages of ``blocks`` (a message continues on its own stream), at most
    ``per_category`` of each source category, in their order."""
    message_of, current = [], {}
    for b in blocks:
        if dict(b.fields).get("first", 1) or b.stream not in current:
            current[b.stream] = len(message_of)
        message_of.append(current[b.stream])
    chosen, taken = set(), {}
    for b, message in zip(blocks, message_of):
        if message in chosen or dict(b.fields).get("first", 1) == 0:
            continue
        category = b.categories[0]
        if taken.get(category, 0) < per_category:
            taken[category] = taken.get(category, 0) + 1
            chosen.add(message)
    return [b for b, message in zip(blocks, message_of) if message in chosen]


def _ids(point):
    arch, params = point
    return arch + "".join(f"-{k}{v}" for k, v in params)


@pytest.mark.parametrize("point", POINTS, ids=_ids)
def test_amaranth_and_verilator_play_alike(point, model_cache):
    """A sample of the point's checking script (whole messages of every kind), with stalls on
    both sides: identical playbacks (every transfer at the same edge with the same payload),
    passing. One amaranth.sim run per point: building its simulation of a large core is most
    of the cost."""
    _verilator_or_skip()
    build = lambda: common_interface(_build(*point)())     # noqa: E731
    dut = build()
    fam = archs.family(point[0])
    options = VerifyOptions(random_vectors=1)
    key_sizes, directions = core_directions(dut, fam.key_sizes, fam.directions)
    blocks = _sample(checking_blocks(dut, options, key_sizes, directions))
    script = items_script(dut, key_items(blocks), max_cycles=options.max_cycles,
                          stalls=stalls(options))
    compiled = _SELECT_PLAYER(build, build(), "verilator", model_cache, _identity(point))
    python = play_amaranth(dut, script)
    check_playback(script, python)
    assert compiled.play(script) == python
    # Stalls really happened on both sides; every kind of check is in the sample.
    assert any(item.gap for item in script.items) and "0" in script.outputs[0].ready
    kinds = {category for b in blocks for category in b.categories}
    assert {"fips197", "sp800_38a", "random"} <= kinds
    if point[0] == "multimode":
        assert {"modes", "ccm"} <= kinds
        if dict(point[1]).get("streams") == 2:
            assert {b.stream for b in blocks} == {0, 1}



def _both_players(build, first, backend, model_cache, design_identity=None):
    """A player that plays every script on Verilator and on amaranth.sim and requires equal
    playbacks."""
    compiled = _SELECT_PLAYER(build, first, "verilator", model_cache, design_identity)

    def play(script):
        playback = compiled.play(script)
        assert play_amaranth(build(), script) == playback
        return playback
    return Player(compiled.name, play)


@pytest.mark.parametrize("point", POINTS, ids=_ids)
def test_measurements_equal_the_old_testbench(point, model_cache, monkeypatch):
    """Latency, cycles per block, details and the count of checked blocks as the amaranth.sim
    testbench measured them; on the cheap points every script (checking and measuring) is
    played on both backends with identical playbacks."""
    _verilator_or_skip()
    old = dict(OLD[point])
    both = old.pop("amaranth", False)
    if both:
        monkeypatch.setattr(verify_module, "select_player", _both_players)
    fam = archs.family(point[0])
    # The old testbench's checks: the sample vectors, no Monte Carlo test (on Verilator, unset
    # options would mean the strong set).
    result = verify_component(_build(*point), fam.kind,
                              VerifyOptions(random_vectors=2, backend="verilator",
                                            monte_carlo=False, cavp="sample"),
                              key_sizes=fam.key_sizes, directions=fam.directions,
                              model_cache=model_cache, design_identity=_identity(point))
    assert result.ok, result.reason
    assert {k: getattr(result, k) for k in old} == old
    assert result.verified_with.startswith("verilator ") and result.fallback_reason is None
    assert sum(result.checks.values()) == result.vectors_checked
    assert result.checks["fips197"] >= 1 and result.checks["random"] >= 2
    if point[0] == "multimode":
        assert result.checks["modes"] > 0 and result.checks["ccm"] > 0


def test_auto_falls_back_only_for_a_missing_compiler(monkeypatch, model_cache):
    monkeypatch.delenv(BACKEND_ENV, raising=False)   # "auto" as in a sweep, not the test run's
    build = _build("iterative", ())
    # The checks named: with a compiler on this machine, unset ones would resolve to the
    # strong set, which amaranth.sim then plays.
    options = VerifyOptions(random_vectors=0, monte_carlo=False, cavp="sample")

    def missing():
        raise CompileError("no C++ compiler: test")
    monkeypatch.setattr(verify_module, "find_compiler", missing)
    monkeypatch.setattr(verilator_backend, "find_compiler", missing)
    result = verify_component(build, "cipher", options, model_cache=model_cache)
    assert result.ok and result.verified_with == "amaranth.sim"
    assert "no C++ compiler: test" in result.fallback_reason
    # Asked for by name, a missing compiler fails the point with its message.
    result = verify_component(build, "cipher", dataclasses.replace(options, backend="verilator"),
                              model_cache=model_cache)
    assert not result.ok and "no C++ compiler: test" in result.reason
    monkeypatch.undo()
    monkeypatch.delenv(BACKEND_ENV, raising=False)
    _verilator_or_skip()

    def broken(*args, **kwargs):
        raise CompileError("compiling Vtop.cpp failed (exit status 1): boom")
    monkeypatch.setattr(verify_module.verilator_backend, "compile_verilator_model", broken)
    # A compiler that exists and fails is the point's failure, not a fallback.
    result = verify_component(build, "cipher", options, model_cache=model_cache)
    assert not result.ok and result.verified_with == "verilator"
    assert "boom" in result.reason and result.fallback_reason is None


def test_amaranth_backend_and_a_hang_name_what_was_awaited(model_cache):
    """backend: amaranth plays on amaranth.sim; a hang names the output transfer awaited and
    the input transfer not accepted."""
    result = verify_component(_build("iterative", ()), "cipher",
                              VerifyOptions(random_vectors=0, backend="amaranth"))
    assert result.ok and result.verified_with == "amaranth.sim"
    assert result.fallback_reason is None
    dut = common_interface(_build("iterative", ())())
    # A budget of 40 cycles (the per-block budget would give every block 1,000).
    script = verification_script(dut, VerifyOptions(random_vectors=0, max_cycles=40,
                                                    max_cycles_per_block=1))
    playback = play_amaranth(dut, script)
    with pytest.raises(ScriptMismatch, match=r"^hang: \d+ of \d+ results came out of o, "
                       r"waiting for result \d+: .*input transfer \d+ of \d+ into (i|key)"):
        check_playback(script, playback)


def test_two_streams_are_checked_each_in_its_own_order():
    """Results of two streams may interleave in any order, but each stream's must come in its
    own input order: swapping two results of one stream is a mismatch, swapping results of
    different streams is not."""
    fam = archs.family("multimode")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the core is built, never elaborated
        dut = common_interface(fam.build(device_family="generic",
                                         **{**fam.defaults(), "streams": 2}))
        blocks = checking_blocks(dut, VerifyOptions(random_vectors=0), (128,), ("encrypt",))
        script = items_script(dut, key_items(blocks[:12]), max_cycles=1000)
        del dut
        gc.collect()
    out = script.outputs[0]
    produced = [(n + 1, value) for n, value in enumerate(out.expected)]
    streams = [out.substream(value) for value in out.expected]
    assert set(streams) == {0, 1}
    n = next(n for n in range(len(streams) - 1) if streams[n] != streams[n + 1])
    swapped = list(produced)
    swapped[n], swapped[n + 1] = swapped[n + 1], swapped[n]
    playback = Playback(tuple(range(len(script.items))), (tuple(swapped),))
    check_playback(script, playback)
    same = [n for n, s in enumerate(streams) if s == streams[0]][:2]
    bad = list(produced)
    bad[same[0]], bad[same[1]] = bad[same[1]], bad[same[0]]
    with pytest.raises(ScriptMismatch, match="mismatch on .*stream"):
        check_playback(script, Playback(tuple(range(len(script.items))),
                                                      (tuple(bad),)))


def test_the_environment_names_what_auto_means_for_a_run(monkeypatch):
    """AESDSE_VERIFY_BACKEND chooses the backend of "auto" for a whole run (a choice, not a
    fallback); a backend named in the options is not overridden; a bad value is an error."""
    build = _build("iterative", ())
    monkeypatch.setenv(BACKEND_ENV, "amaranth")
    result = verify_component(build, "cipher", VerifyOptions(random_vectors=0))
    assert result.ok and result.verified_with == "amaranth.sim"
    assert result.fallback_reason is None
    monkeypatch.setenv(BACKEND_ENV, "fast")
    with pytest.raises(ValueError, match="AESDSE_VERIFY_BACKEND must be one of"):
        verify_component(build, "cipher", VerifyOptions(random_vectors=0))
