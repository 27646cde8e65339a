"""aesdse.verify.shape_memo: Amaranth's operator and concatenation shapes computed once per value,
with nothing else changed."""

import time

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Cat, Signal, unsigned
from amaranth.sim import Simulator

import aesdse.verify  # noqa: F401  (installs the memo)
import archs
from archs.prims.gf import SBOX
from aesdse.verify.shape_memo import MEMOIZED, install, installed


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


@pytest.mark.parametrize("params", [{"sbox": "tower", "sbox_stages": 3, "direction": "shared"},
                                    {"sbox": "composite", "sbox_stages": 2}])
def test_the_rtlil_is_the_same_byte_for_byte(params, monkeypatch):
    def text():
        return rtlil.convert(archs.family("sbox").build(**params), name="top")
    with_memo = text()
    _without_memo(monkeypatch)
    assert text() == with_memo


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
