"""aesdse.verify.amaranth_memo: Amaranth's operator and concatenation shapes computed once per
value, memory elements that fit taken as they are, with nothing else changed."""

import time

import warnings

import pytest
from amaranth.hdl import signed
from amaranth.lib.memory import MemoryData
from amaranth.back import rtlil
from amaranth.hdl import Cat, Signal, unsigned
from amaranth.sim import Simulator

import aesdse.verify  # noqa: F401  (installs the memo)
import archs
from archs.prims.gf import SBOX
from aesdse.verify import amaranth_memo
from aesdse.verify.amaranth_memo import MEMOIZED, install, installed


def test_importing_aesdse_verify_installs_it_once():
    assert installed()
    assert [cls.__name__ for cls in MEMOIZED] == ["Operator", "Concat"]
    shapes = [cls.shape for cls in MEMOIZED]
    install()
    assert [cls.shape for cls in MEMOIZED] == shapes


def test_a_value_reached_along_two_to_the_sixty_paths_is_asked_once():
    # Without the memo each level asks both operands: 2**60 calls.
    x = Signal(8)
    for _ in range(60):
        x = x ^ x
    c = Cat(x, x)
    for _ in range(60):
        c = Cat(c[:8], c[:8]) ^ c
    start = time.perf_counter()
    assert x.shape() == unsigned(8) and len(c) == 16
    assert time.perf_counter() - start < 1.0


def _without_memo(monkeypatch):
    for cls in MEMOIZED:
        monkeypatch.setattr(cls, "shape", cls.shape.__wrapped__)
    namespace = amaranth_memo._MEMORY_NAMESPACE
    monkeypatch.setitem(namespace, "_get_init_value", namespace["_get_init_value"].__wrapped__)


def _memory_outcomes(cases):
    """For each (shape, elements): the stored elements and raw values, or the error, and the
    warnings raised."""
    out = []
    for shape, elems in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                init = MemoryData.Init(elems, shape=shape, depth=4)
                found = (list(init), list(init._raw))
            except Exception as error:   # Amaranth's own SyntaxError among them
                found = (type(error).__name__, str(error))
        out.append((found, [(w.category, str(w.message)) for w in caught]))
    return out


def test_memory_elements_read_as_without_the_fast_path(monkeypatch):
    # In range, out of range (truncated, with Amaranth's warning), negative, signed shapes,
    # bools, widths as ints and as Shapes, wrong types.
    cases = [(8, [0, 255, 17]), (8, [256, 3]), (8, [-1]), (8, [-2]), (unsigned(4), [15, 16]),
             (signed(8), [-128, 127, 5]), (signed(8), [200]), (1, [True, False]), (8, ["x"]),
             (range(10), [9]), (range(10), [10]), (0, [0]), (0, [1])]
    fast = _memory_outcomes(cases)
    _without_memo(monkeypatch)
    assert _memory_outcomes(cases) == fast
    assert fast[0][0] == ([0, 255, 17, 0], [0, 255, 17, 0]) and not fast[0][1]
    assert fast[1][1] and "truncated" in fast[1][1][0][1]


@pytest.mark.parametrize("params", [{"sbox": "tower", "sbox_stages": 3, "direction": "shared"},
                                    {"sbox": "composite", "sbox_stages": 2},
                                    {"sbox": "lut"}])
def test_the_rtlil_is_the_same_byte_for_byte(params, monkeypatch):
    def text():
        return rtlil.convert(archs.family("sbox").build(**params), name="top")
    with_memo = text()
    _without_memo(monkeypatch)
    assert text() == with_memo
    if params["sbox"] == "lut":   # a table in a memory
        assert list(MemoryData(shape=8, depth=256, init=SBOX).init) == list(SBOX)


def test_the_simulation_is_the_same():
    # A pipelined tower S-box's outputs for every input, with and without the memo.
    def outputs():
        dut = archs.family("sbox").build(sbox="tower", sbox_stages=2, direction="encrypt")
        seen = []

        async def bench(ctx):
            for value in range(256 + dut.latency):
                ctx.set(dut.i, value % 256)
                await ctx.tick()
                seen.append(ctx.get(dut.o))
        sim = Simulator(dut)
        sim.add_clock(1e-6)
        sim.add_testbench(bench)
        sim.run()
        return seen[dut.latency - 1:][:256]

    with_memo = outputs()
    with pytest.MonkeyPatch.context() as monkeypatch:
        _without_memo(monkeypatch)
        assert outputs() == with_memo
    assert with_memo == list(SBOX)
