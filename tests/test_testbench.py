# amaranth: UnusedElaboratable=no
"""aesdse.verify.testbench: stream helpers keep the rules of amaranth.lib.stream and count edges."""

import random

import pytest
from amaranth.hdl import ClockDomain, Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from aesdse.verify.testbench import (EdgeClock, StreamTimeout, random_ready,
                                     run_testbenches,
                              stream_get, stream_put)
from reused_simulation import ReusableSimulation


class Delay(wiring.Component):
    """A one-entry buffer that takes a byte, holds it ``hold`` cycles, then offers it."""
    i: In(stream.Signature(8))
    o: Out(stream.Signature(8))

    def __init__(self, hold=2):
        self.hold = hold
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        full, count = Signal(), Signal(8)
        m.d.comb += [self.i.ready.eq(~full), self.o.valid.eq(full & (count == 0))]
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [self.o.payload.eq(self.i.payload), full.eq(1), count.eq(self.hold)]
        with m.If(full & (count != 0)):
            m.d.sync += count.eq(count - 1)
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += full.eq(0)
        return m


def test_put_and_get_count_the_same_edges():
    dut = Delay(hold=2)
    accepted, produced, values = [], [], []

    async def producer(ctx):
        clock = EdgeClock()
        for value in (7, 8, 9):
            await clock.idle(ctx, 1)
            await stream_put(ctx, dut.i, value, clock=clock)
            accepted.append(clock.now)

    async def consumer(ctx):
        clock = EdgeClock()
        for _ in range(3):
            values.append(await stream_get(ctx, dut.o, clock=clock))
            produced.append(clock.now)

    run_testbenches(dut, producer, consumer)
    assert values == [7, 8, 9]
    # Loaded at the accepting edge, counted down over two edges, handed out at the third.
    assert [p - a for a, p in zip(accepted, produced)] == [3, 3, 3]


def test_back_pressure_holds_valid_and_payload():
    # The consumer withholds ready at random; every value still arrives once, in order.
    dut = Delay(hold=0)
    rng = random.Random(3)
    values = []

    async def producer(ctx):
        for value in range(20):
            await stream_put(ctx, dut.i, value)

    async def consumer(ctx):
        for _ in range(20):
            values.append(await stream_get(ctx, dut.o, ready=random_ready(rng, 0.6)))

    run_testbenches(dut, producer, consumer)
    assert values == list(range(20))


def test_timeout():
    dut = Delay()

    async def consumer(ctx):
        await stream_get(ctx, dut.o, timeout=5)

    with pytest.raises(StreamTimeout, match=r"^no transfer out of the stream within 5 cycles$"):
        run_testbenches(dut, consumer)


def test_a_reused_simulation_starts_every_run_from_reset():
    # Each run sees the core as a fresh one (the value held from the run before is gone, the
    # edges count from 1), with any number of testbenches; a run that raises is reported and
    # the next one runs on a simulator built again.
    dut = Delay(hold=1)
    simulation = ReusableSimulation(dut)

    def run(values, *, stop_after=None):
        seen = []

        async def producer(ctx):
            for value in values:
                await stream_put(ctx, dut.i, value)

        async def consumer(ctx):
            clock = EdgeClock()
            for _ in values:
                value = await stream_get(ctx, dut.o, clock=clock)
                seen.append((clock.now, value))
                if len(seen) == stop_after:
                    raise RuntimeError("stop")
        simulation.run(producer, consumer)
        return seen
    first = run([5, 6])
    assert [v for _, v in first] == [5, 6]
    assert run([5, 6]) == first

    async def idle(ctx):
        await ctx.tick()
    simulation.run(idle)                                   # fewer testbenches than slots
    with pytest.raises(RuntimeError, match="^stop$"):
        run([1, 2, 3], stop_after=1)
    assert run([5, 6]) == first


class TwoClocks(wiring.Component):
    fast_count: Out(8)
    slow_count: Out(8)

    clock_multipliers = {"fast": 2}

    def elaborate(self, platform):
        m = Module()
        m.domains.fast = ClockDomain()
        m.d.fast += self.fast_count.eq(self.fast_count + 1)
        m.d.sync += self.slow_count.eq(self.slow_count + 1)
        return m


def test_faster_domain_is_edge_aligned():
    dut = TwoClocks()
    seen = []

    async def testbench(ctx):
        for _ in range(4):
            await ctx.tick()
            seen.append((ctx.get(dut.slow_count), ctx.get(dut.fast_count)))

    run_testbenches(dut, testbench, clock_multipliers=dut.clock_multipliers)
    # Two fast edges per sync edge, the first of each pair on the sync edge itself.
    assert seen == [(1, 1), (2, 3), (3, 5), (4, 7)]


def test_bad_multiplier():
    with pytest.raises(ValueError, match=r"^Clock multiplier of domain 'fast' must be a "
                                         r"positive integer, not 1.5$"):
        run_testbenches(TwoClocks(), clock_multipliers={"fast": 1.5})
