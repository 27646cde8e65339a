# amaranth: UnusedElaboratable=no
"""archs.prims.masked_sbox: the tower-field S-box on shares, every AND a gadget, recombines to
SubBytes for every byte under random masks and random bits, one byte per cycle; its random bits
and latency are counted from the circuit."""

import random
import re

import pytest
from amaranth.back import rtlil
from amaranth.sim import Simulator

from archs.prims import gf
from archs.prims.masked_sbox import MaskedSBox, plan
from archs.prims.masking import GADGETS, random_bits


def _shares(byte: int, order: int, rng) -> int:
    free = [rng.getrandbits(8) for _ in range(order)]
    last = byte
    for share in free:
        last ^= share
    return sum(share << (8 * k) for k, share in enumerate(free + [last]))


def _recombine(value: int, order: int) -> int:
    out = 0
    for k in range(order + 1):
        out ^= (value >> (8 * k)) & 0xFF
    return out


def _play(dut, inputs, rnd) -> list:
    seen = []

    async def bench(ctx):
        for n in range(len(inputs) + dut.latency):
            ctx.set(dut.i, inputs[n] if n < len(inputs) else 0)
            ctx.set(dut.rnd, rnd[n] if n < len(inputs) else 0)
            await ctx.tick()
            seen.append(ctx.get(dut.o))
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen[dut.latency - 1:dut.latency - 1 + len(inputs)]


@pytest.mark.parametrize("gadget, multipliers", [(g, "bit") for g in sorted(GADGETS)]
                         + [("dom_indep", "field")])
@pytest.mark.parametrize("order", [1, 2])
def test_every_byte_under_random_masks_gives_subbytes(gadget, multipliers, order):
    rng = random.Random(order * 10 + len(gadget))
    dut = MaskedSBox(gadget, order, multipliers)
    inputs = [_shares(x, order, rng) for x in range(256)]
    rnd = [rng.getrandbits(dut.random_bits) for _ in inputs]
    out = _play(dut, inputs, rnd)
    assert [_recombine(o, order) for o in out] == [gf.sbox(x) for x in range(256)]
    # The output is shared, not the plain S-box in one share and zeros in the others.
    assert any((o >> 8) & 0xFF for o in out)


def test_randomness_and_latency_come_from_the_circuit():
    # 36 ANDs in Canright's tower S-box; multiplicative depth 4, each AND a gadget's latency.
    assert plan("dom_indep", 1) == (36, 4, 36) and plan("hpc2", 2) == (36, 8, 108)
    # Field products: 3 GF(2^4) (4 random bits per pair of domains) and 3 GF(2^2) (2 bits):
    # 18 random bits at first order, as Gross et al. 2016 count for their DOM S-box.
    assert plan("dom_indep", 1, "field") == (6, 4, 18)
    assert plan("dom_indep", 2, "field") == (6, 4, 54)
    for order in (1, 2):
        dut = MaskedSBox("hpc2", order)
        assert dut.random_bits == 36 * random_bits(order) == len(dut.rnd)
    assert MaskedSBox("dom_indep", 1).random_bits == 36


def test_random_bits_tied_to_zero_still_give_subbytes_and_each_bit_is_used():
    # The randomness cancels in the result, so a check of the output alone cannot see a broken
    # generator (the leakage tests of issue 49 must): with every random bit 0 the shares still
    # recombine to SubBytes. Each random bit is an input of the logic (none left unconnected).
    rng = random.Random(3)
    dut = MaskedSBox("dom_indep", 1)
    inputs = [_shares(x, 1, rng) for x in range(256)]
    out = _play(dut, inputs, [0] * len(inputs))
    assert [_recombine(o, 1) for o in out] == [gf.sbox(x) for x in range(256)]
    text = rtlil.convert(MaskedSBox("dom_indep", 1), name="top")
    used = {int(k) for k in re.findall(r"\\rnd \[(\d+)\]", text)}
    assert used == set(range(dut.random_bits))


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="masking order 1 or more"):
        MaskedSBox("hpc2", 0)
    with pytest.raises(ValueError, match="gadget must be one of"):
        MaskedSBox("dom", 1)
    with pytest.raises(ValueError, match="multipliers must be one of bit, field"):
        MaskedSBox("hpc2", 1, "word")
    with pytest.raises(ValueError, match="field multipliers are DOM-indep gadgets"):
        MaskedSBox("hpc2", 1, "field")


@pytest.mark.parametrize("gadget, multipliers", [(g, "bit") for g in sorted(GADGETS)]
                         + [("dom_indep", "field")])
def test_the_int_model_gives_every_registers_value_in_the_hardware(gadget, multipliers):
    # The leakage tests (aesdse.verify.tvla) read register_values: it must be the hardware's.
    from archs.prims.masked_sbox import register_names, register_values
    rng = random.Random(11)
    dut = MaskedSBox(gadget, 2, multipliers)
    shares = [rng.getrandbits(8) for _ in range(3)]
    rnd = rng.getrandbits(dut.random_bits)
    seen = []

    async def bench(ctx):
        ctx.set(dut.i, sum(s << (8 * k) for k, s in enumerate(shares)))
        ctx.set(dut.rnd, rnd)
        for _ in range(dut.latency + 1):        # held: every stage settles to this input
            await ctx.tick()
        seen.extend(ctx.get(r) for r in dut.registers)
        seen.extend((ctx.get(dut.o) >> n) & 1 for n in range(24))
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    model = register_values(gadget, 2, shares, rnd, multipliers)
    names = register_names(gadget, 2, multipliers)
    assert len(seen) == len(model) == len(names) > 24
    assert seen == model
    assert [r.name for r in dut.registers] == names[:len(dut.registers)]
