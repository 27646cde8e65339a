# amaranth: UnusedElaboratable=no
"""aesdse.flow.harness: the measurement harness keeps the core's behaviour (a wrapped AES core still
encrypts FIPS-197 and random blocks correctly, seen both at the core and at the fold pins), and
the stub keeps the harness alive without logic of its own."""

import random

import pytest
from amaranth.back import rtlil
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from aesdse.verify.testbench import run_testbenches
from archs import FAMILIES
from aesdse.flow.harness import HarnessStub, MeasurementHarness, fold_value
from archs.iterative import Iterative
from archs.sbox_standalone import StandaloneSBox


def aes_ecb(key: int, block: int) -> int:
    enc = Cipher(algorithms.AES(key.to_bytes(16, "big")), modes.ECB()).encryptor()
    return int.from_bytes(enc.update(block.to_bytes(16, "big")) + enc.finalize(), "big")


async def shift_in(ctx, harness, value):
    """Shift the whole chain in, most significant bit first."""
    ctx.set(harness.shift, 1)
    for k in reversed(range(harness.chain_bits)):
        ctx.set(harness.sin, value >> k & 1)
        await ctx.tick()
    ctx.set(harness.shift, 0)


async def handshake(ctx, valid, ready, limit=1000):
    """Hold ``valid`` high until a clock edge with ``ready`` high."""
    ctx.set(valid, 1)
    for _ in range(limit):
        _, _, ready_now = await ctx.tick().sample(ready)
        if ready_now:
            ctx.set(valid, 0)
            return
    raise AssertionError("no handshake")


def test_wrapped_iterative_core_encrypts_through_the_pins():
    core = FAMILIES["iterative"].build(sbox="lut")
    harness = MeasurementHarness(core, fold_width=8)
    assert [n for n, _ in harness.chain] == ["key__payload", "i__payload"]
    assert harness.chain_bits == 256 and harness.folded_bits == 128
    assert harness.pins == 2 + 6 + 8  # sin, shift, 3 valid/ready in, 3 out, fold

    rng = random.Random(14)
    cases = [(0x000102030405060708090a0b0c0d0e0f, 0x00112233445566778899aabbccddeeff)]
    cases += [(rng.getrandbits(128), rng.getrandbits(128)) for _ in range(3)]
    seen = []

    async def testbench(ctx):
        ctx.set(harness.o__ready, 1)
        for key, block in cases:
            await shift_in(ctx, harness, harness.chain_value({"key__payload": key,
                                                               "i__payload": block}))
            await handshake(ctx, harness.key__valid, harness.key__ready)
            await handshake(ctx, harness.i__valid, harness.i__ready)
            for _ in range(100):
                _, _, valid, data = await ctx.tick().sample(harness.o__valid,
                                                            core.o.payload.data)
                if valid:
                    break
            else:
                raise AssertionError("no output block")
            await ctx.tick()  # the fold register takes the output one edge later
            seen.append((data, ctx.get(harness.fold)))

    run_testbenches(harness, testbench)
    assert seen[0][0] == 0x69c4e0d86a7b0430d8cdb78070b4c55a  # FIPS-197 C.1
    for (key, block), (data, fold) in zip(cases, seen):
        expected = aes_ecb(key, block)
        assert data == expected
        assert fold == fold_value(expected, 128, 8)


def test_fold_value():
    assert fold_value(0x0102, 16, 8) == 0x03
    assert fold_value(0xff, 8, 8) == 0xff
    assert fold_value(0xffff, 16, 8) == 0


def test_stub_wires_outputs_to_inputs_and_has_no_logic():
    # Built here, not through FAMILIES: this file's first line silences the warning for cores
    # that are never elaborated (only their signature is used).
    core = StandaloneSBox(sbox="lut")
    stub = HarnessStub(core.signature)
    harness = MeasurementHarness(stub, fold_width=8)
    assert harness.chain == [("i", 8)] and harness.folded == [("o", 8)]
    text = rtlil.convert(harness, name="top", emit_src=False)
    assert "$lut" not in text and "$xor" in text  # only the harness's fold and wiring

    async def testbench(ctx):
        await shift_in(ctx, harness, harness.chain_value({"i": 0xa5}))
        await ctx.tick()
        assert ctx.get(harness.fold) == 0xa5

    run_testbenches(harness, testbench)


def test_harness_errors():
    core = StandaloneSBox(sbox="lut")
    with pytest.raises(ValueError, match=r"^Fold width must be an integer from 1 to 32, not 0$"):
        MeasurementHarness(core, fold_width=0)
    harness = MeasurementHarness(core)
    with pytest.raises(ValueError, match=r"^Not wide inputs of the core: x$"):
        harness.chain_value({"x": 1})


def test_every_chain_bit_of_the_stub_harness_reaches_the_fold():
    # Issue 14: the harness alone must keep its whole shift register, or its flip-flops are
    # under-counted and the core's over-counted (an AES core: 256 chain bits, 128 output bits).
    core = Iterative(sbox="lut")  # only its signature is used (see test_stub_...)
    harness = MeasurementHarness(HarnessStub(core.signature), fold_width=8)
    assert harness.chain_bits == 256
    seen = {}

    async def testbench(ctx):
        for position in (0, 127, 128, 200, 255):
            await shift_in(ctx, harness, 1 << position)
            await ctx.tick()
            seen[position] = ctx.get(harness.fold)

    run_testbenches(harness, testbench)
    assert all(seen.values()), seen


def test_a_wide_port_goes_through_the_pins_too():
    # Parallel lanes (archs.lanes.ParallelLanes) have 256-bit block and result payloads: the
    # harness chains and folds them like any other (a device without out-of-context mode).
    core = FAMILIES["iterative"].build(sbox="lut", parallel_lanes=2)
    harness = MeasurementHarness(core, fold_width=8)
    assert harness.chain_bits == 128 + 256 and harness.folded_bits == 256
    key, block1 = 0x000102030405060708090a0b0c0d0e0f, random.Random(15).getrandbits(128)
    seen = []

    async def testbench(ctx):
        ctx.set(harness.o__ready, 1)
        await shift_in(ctx, harness, harness.chain_value(
            {"key__payload": key, "i__payload": 0x00112233445566778899aabbccddeeff << 128
             | block1}))
        await handshake(ctx, harness.key__valid, harness.key__ready)
        await handshake(ctx, harness.i__valid, harness.i__ready)
        for _ in range(100):
            _, _, valid, data = await ctx.tick().sample(harness.o__valid, core.o.payload.data)
            if valid:
                break
        else:
            raise AssertionError("no output transfer")
        await ctx.tick()
        seen.append((data, ctx.get(harness.fold)))

    run_testbenches(harness, testbench)
    expected = 0x69c4e0d86a7b0430d8cdb78070b4c55a << 128 | aes_ecb(key, block1)
    assert seen == [(expected, fold_value(expected, 256, 8))]
