# amaranth: UnusedElaboratable=no
"""archs.prims.masking: the AND gadgets compute AND on shares for every mask and random bit (in
amaranth.sim, exhaustively at orders 1 and 2), and the exact first-order probing check passes
the gadgets, fails an unmasked AND and fails a gadget whose randomness is tied to 0."""

import itertools
import random

import pytest
from amaranth.sim import Simulator

from archs.prims.masking import (GADGETS, MaskedAnd, circuit_leaks, pairs, probe_leaks,
                                  random_bits)


def _recombine(value: int, order: int, width: int) -> int:
    out = 0
    for i in range(order + 1):
        out ^= (value >> (i * width)) & ((1 << width) - 1)
    return out


def _share(bits: int, order: int, width: int, rng) -> int:
    """``bits`` (``width`` bits) as ``order + 1`` random shares, packed."""
    free = [rng.getrandbits(width) for _ in range(order)]
    last = bits
    for share in free:
        last ^= share
    return sum(share << (i * width) for i, share in enumerate(free + [last]))


def _run(dut, inputs) -> list:
    """Drive ``(a, b, rnd)`` one per cycle; the ``z`` seen :attr:`latency` cycles after each."""
    outputs = []

    async def bench(ctx):
        for a, b, rnd in inputs + [(0, 0, 0)] * dut.latency:
            ctx.set(dut.a, a)
            ctx.set(dut.b, b)
            ctx.set(dut.rnd, rnd)
            await ctx.tick()
            outputs.append(ctx.get(dut.z))
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    # After tick n the registers hold input n; the output of input n is read after tick
    # n + latency - 1 (the output XOR is combinational).
    return outputs[dut.latency - 1:dut.latency - 1 + len(inputs)]


@pytest.mark.parametrize("gadget", sorted(GADGETS))
@pytest.mark.parametrize("order", [1, 2])
def test_every_sharing_and_random_bit_gives_the_and(gadget, order):
    dut = MaskedAnd(gadget, order)
    shares = order + 1
    inputs = [(a, b, r) for a in range(1 << shares) for b in range(1 << shares)
              for r in range(1 << random_bits(order))]
    outputs = _run(dut, inputs)
    assert len(outputs) == len(inputs)
    for (a, b, _), z in zip(inputs, outputs):
        assert _recombine(z, order, 1) == _recombine(a, order, 1) & _recombine(b, order, 1)


@pytest.mark.parametrize("gadget", sorted(GADGETS))
def test_a_wide_gadget_ands_every_bit(gadget):
    rng = random.Random(49)
    order, width = 2, 4
    dut = MaskedAnd(gadget, order, width)
    secrets = [(rng.getrandbits(width), rng.getrandbits(width)) for _ in range(40)]
    inputs = [(_share(x, order, width, rng), _share(y, order, width, rng),
               rng.getrandbits(random_bits(order) * width)) for x, y in secrets]
    outputs = _run(dut, inputs)
    assert [_recombine(z, order, width) for z in outputs] == [x & y for x, y in secrets]


def test_randomness_is_one_bit_per_pair_of_domains():
    assert [random_bits(d) for d in range(4)] == [0, 1, 3, 6]
    assert pairs(2) == [(0, 1), (0, 2), (1, 2)]
    assert len(MaskedAnd("hpc2", 2, 8).rnd) == 24
    assert (MaskedAnd("dom_indep").latency, MaskedAnd("hpc2").latency) == (1, 2)


@pytest.mark.parametrize("gadget", sorted(GADGETS))
@pytest.mark.parametrize("order", [1, 2])
def test_the_gadgets_pass_the_first_order_probing_check(gadget, order):
    assert probe_leaks(gadget, order) == []


@pytest.mark.parametrize("gadget", sorted(GADGETS))
def test_the_check_bites(gadget):
    # Unmasked (order 0): the AND itself is observed.
    assert "out0" in probe_leaks(gadget, 0)
    # Randomness tied to 0: an output share is a_i & b (DOM-indep) or gives b away (HPC2).
    for order in (1, 2):
        leaks = probe_leaks(gadget, order, randomness=False)
        assert leaks and all(p.startswith("out") for p in leaks), leaks


def test_randomness_added_after_the_register_leaks(monkeypatch):
    # The cross-domain product registered before its random bit is added: every register is
    # safe alone, but the output share's glitch-extended probe sees a_0 b_0 and a_0 b_1
    # together, which give b away when a_0 = 1.
    def late_randomness(a, b, r, reg):
        return [reg(a[0] & b[0], "inner0") ^ reg(a[0] & b[1], "cross01") ^ reg(r[0], "r0"),
                reg(a[1] & b[1], "inner1") ^ reg(a[1] & b[0], "cross10") ^ reg(r[0], "r1")]
    monkeypatch.setitem(GADGETS, "late_randomness", type(GADGETS["hpc2"])(late_randomness, 1))
    assert probe_leaks("late_randomness", 1) == ["out0", "out1"]


def test_a_bad_gadget_or_order_is_refused():
    with pytest.raises(ValueError, match="gadget must be one of dom_indep, hpc2"):
        MaskedAnd("dom")
    with pytest.raises(ValueError, match="masking order must be 0 or more"):
        MaskedAnd("hpc2", -1)


def test_the_model_and_the_sharings_are_exhaustive():
    # 2^order sharings per input bit, 2^pairs random words: order 2 sees 4 x 4 x 8 per secret.
    from archs.prims.masking import _sharings
    assert sorted(_sharings(1, 2)) == sorted(
        s for s in itertools.product((0, 1), repeat=3) if s[0] ^ s[1] ^ s[2] == 1)


@pytest.mark.parametrize("gadget, leaks", [
    # DOM-indep needs independently shared inputs: (a & b) & a breaks that, and the second
    # gadget's cross-domain registers see it. HPC2 is PINI: the composition stays secure.
    ("dom_indep", ["reg_cross01_5", "reg_cross10_7"]),
    ("hpc2", []),
])
def test_composing_gadgets_on_dependent_inputs(gadget, leaks):
    function, k = GADGETS[gadget].function, random_bits(1)

    def and_of_and(a, b, r, reg):
        return function(function(a, b, r[:k], reg), a, r[k:], reg)
    assert circuit_leaks(and_of_and, 1, 2 * k) == leaks
