"""Async testbench helpers for :mod:`amaranth.lib.stream` interfaces, shared by the verify stage
and the tests.

The helpers keep the rules of :mod:`amaranth.lib.stream`: a producer asserts ``valid`` without
waiting for ``ready`` and holds ``valid`` and ``payload`` stable until the transfer (the clock edge
at which ``valid`` and ``ready`` are both high); a consumer may wait for ``valid`` before it
asserts ``ready``, and may withhold ``ready`` (back-pressure).

Cycle counting
--------------
Verification measures latency and cycles per block from the edges at which transfers happen. A
testbench that waits only through an :class:`EdgeClock` (the helpers below and
:meth:`EdgeClock.idle`) knows the index of every clock edge it has seen since the simulation
started; two testbenches started together (a producer and a consumer) count the same edges, so
their transfer times can be compared. ``clock.now`` after a helper returns is the index of the
edge at which its transfer happened (the first edge of the simulation is 1).

Example::

    async def producer(ctx):
        clock = EdgeClock()
        for block in blocks:
            await clock.idle(ctx, rng.randrange(3))          # random input gaps
            await stream_put(ctx, dut.i, {"data": block}, clock=clock)
            accepted.append(clock.now)

    async def consumer(ctx):
        clock = EdgeClock()
        for _ in blocks:
            payload = await stream_get(ctx, dut.o, clock=clock,
                                       ready=lambda: rng.random() > 0.25)
            outputs.append((clock.now, payload.data))
"""

import random
from typing import Callable

from amaranth.lib import stream
from amaranth.sim import Simulator

__all__ = ["StreamTimeout", "EdgeClock", "stream_put", "stream_get", "random_ready",
           "random_gaps", "run_testbenches", "testbench_simulator"]


class StreamTimeout(Exception):
    """A transfer did not happen within the number of clock edges allowed."""


class EdgeClock:
    """The clock edges one testbench has waited for (see the module documentation).

    Attributes
    ----------
    now : int
        Index of the last edge waited for; 0 before the first.
    """

    def __init__(self):
        self.now = 0

    async def idle(self, ctx, cycles: int = 1) -> None:
        """Wait ``cycles`` edges doing nothing (0: return at once)."""
        if cycles > 0:
            await ctx.tick().repeat(cycles)
            self.now += cycles


async def stream_put(ctx, port: stream.Interface, payload, *, clock: EdgeClock | None = None,
                     timeout: int | None = None) -> int:
    """Transfer ``payload`` (an int, or a dict of the payload layout's fields) into ``port``.

    Asserts ``valid`` with the payload at once, holds both until ``ready`` is high at a clock edge,
    then drops ``valid``.

    Returns
    -------
    int
        Edges waited (at least 1); ``clock.now`` is advanced by as many.

    Raises
    ------
    StreamTimeout
        When ``timeout`` edges passed without the transfer (``valid`` is dropped first).
    """
    ctx.set(port.payload, payload)
    ctx.set(port.valid, 1)
    waited = 0
    async for _, _, ready in ctx.tick().sample(port.ready):
        waited += 1
        if ready:
            break
        if timeout is not None and waited >= timeout:
            ctx.set(port.valid, 0)
            _advance(clock, waited)
            raise StreamTimeout(f"no transfer into the stream within {timeout} cycles")
    ctx.set(port.valid, 0)
    _advance(clock, waited)
    return waited


async def stream_get(ctx, port: stream.Interface, *, clock: EdgeClock | None = None,
                     ready: Callable[[], bool] | None = None, timeout: int | None = None):
    """Take one payload out of ``port``.

    Parameters
    ----------
    ready : callable, optional
        Asked once per clock cycle whether to assert ``ready`` in that cycle (back-pressure);
        default: always ready.
    timeout : int, optional
        Edges to wait at most.

    Returns
    -------
    The payload sampled at the transfer edge (an int, or an :class:`amaranth.lib.data.Const`
    whose fields are attributes, e.g. ``payload.data``). ``clock.now`` is advanced to that edge.

    Raises
    ------
    StreamTimeout
        When ``timeout`` edges passed without a transfer.
    """
    waited = 0
    while True:
        asserted = 1 if ready is None else int(bool(ready()))
        ctx.set(port.ready, asserted)
        _, _, valid, payload = await ctx.tick().sample(port.valid, port.payload)
        waited += 1
        if valid and asserted:
            break
        if timeout is not None and waited >= timeout:
            ctx.set(port.ready, 0)
            _advance(clock, waited)
            raise StreamTimeout(f"no transfer out of the stream within {timeout} cycles")
    ctx.set(port.ready, 0)
    _advance(clock, waited)
    return payload


def _advance(clock, edges):
    if clock is not None:
        clock.now += edges


def random_ready(rng: random.Random, stall_probability: float) -> Callable[[], bool]:
    """A ``ready`` policy for :func:`stream_get`: withheld with ``stall_probability`` per
    cycle."""
    if not stall_probability:
        return lambda: True
    return lambda: rng.random() >= stall_probability


def random_gaps(rng: random.Random, stall_probability: float) -> Callable[[], int]:
    """Idle cycles before the next input: a geometric count, each further cycle taken with
    ``stall_probability`` (0: never idle)."""
    def gaps():
        n = 0
        while stall_probability and rng.random() < stall_probability:
            n += 1
        return n
    return gaps


def testbench_simulator(dut, *testbenches, clock_period: float = 1e-8,
                        clock_multipliers: dict | None = None, processes=()) -> Simulator:
    """A :class:`~amaranth.sim.Simulator` of ``dut`` with ``testbenches`` and ``processes``
    added and its clocks set up as :func:`run_testbenches` describes, not yet run."""
    sim = Simulator(dut)
    sim.add_clock(clock_period)
    for domain, multiplier in (clock_multipliers or {}).items():
        if not isinstance(multiplier, int) or multiplier < 1:
            raise ValueError(f"Clock multiplier of domain {domain!r} must be a positive "
                             f"integer, not {multiplier!r}")
        # The sync clock's first edge is at half its period (Amaranth's default phase).
        sim.add_clock(clock_period / multiplier, phase=clock_period / 2, domain=domain)
    for testbench in testbenches:
        sim.add_testbench(testbench)
    for process in processes:
        sim.add_process(process)
    return sim


def run_testbenches(dut, *testbenches, clock_period: float = 1e-8,
                    clock_multipliers: dict | None = None, processes=(),
                    vcd: str | None = None) -> None:
    """Simulate ``dut`` until every testbench has returned.

    The ``sync`` domain gets a clock of ``clock_period``. Every domain of ``clock_multipliers``
    (domain -> integer multiple of the ``sync`` frequency, e.g. ``{"bram": 2}`` for a block RAM
    clocked at twice the system clock) gets a clock edge-aligned with ``sync``: every ``sync``
    edge coincides with an edge of each faster domain, as when a PLL derives both clocks from
    one reference. An exception in a testbench ends the simulation and is raised here.
    """
    sim = testbench_simulator(dut, *testbenches, clock_period=clock_period,
                              clock_multipliers=clock_multipliers, processes=processes)
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
