# amaranth: UnusedElaboratable=no
"""archs.buffered: input and output FIFOs around a core, keys kept in order with the blocks."""

import random

import pytest

from aesdse.verify import reference
from aesdse.verify.testbench import EdgeClock, run_testbenches, stream_get, stream_put
from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from archs import FAMILIES
from archs.buffered import Buffered

from test_archs_multimode import SharedCore, message_items, rtl_run
from reused_simulation import ReusableSimulation


def _iterative(depth):
    core = FAMILIES["iterative"].build(sbox="lut")
    return Buffered(core, depth) if depth else core


def test_buffered_core_verifies_at_the_core_speed():
    # FIPS-197 and random vectors, key changes between them, stalls on both sides.
    alone = verify_component(lambda: _iterative(0), "cipher",
                             VerifyOptions(random_vectors=0, measure_blocks=16))
    result = verify_component(lambda: _iterative(4), "cipher",
                              VerifyOptions(random_vectors=16, measure_blocks=16))
    assert result.ok, result.reason
    assert result.cycles_per_block == alone.cycles_per_block
    # Each SyncFIFOBuffered adds two cycles to a lone block: its memory, then its output
    # register.
    assert result.latency_cycles == alone.latency_cycles + 4


@pytest.mark.parametrize("depth", [2, 8])
def test_the_fifos_hold_blocks_while_the_host_does_not_read(depth):
    dut = _iterative(depth)
    key = 0x000102030405060708090a0b0c0d0e0f
    blocks = list(range(1, 2 * depth + 6))
    accepted = []

    async def producer(ctx):
        clock = EdgeClock()
        await stream_put(ctx, dut.key, {"key": key}, clock=clock)
        for b in blocks:
            await stream_put(ctx, dut.i, {"data": b}, clock=clock)
            accepted.append(clock.now)

    outputs = []

    async def consumer(ctx):
        clock = EdgeClock()
        await clock.idle(ctx, 400)   # the host reads nothing for a while
        accepted_before_reading.append(len(accepted))
        while len(outputs) < len(blocks):
            outputs.append((await stream_get(ctx, dut.o, clock=clock, timeout=400)).data)

    accepted_before_reading = []
    run_testbenches(dut, producer, consumer)
    assert outputs == [reference.encrypt_int(key, b) for b in blocks]
    # Both FIFOs full, plus the block in the core and the one its output holds.
    assert accepted_before_reading == [2 * depth + 2]


def test_keys_stay_in_order_with_buffered_blocks():
    # Messages under changing keys and modes while the host reads slowly: a key must wait for
    # the blocks sent before it, and blocks sent after it must wait for the key.
    rng = random.Random(11)
    items, expected = [], []
    for n in range(6):
        mode = ("ecb", "cbc", "ctr")[n % 3]
        key_bits = (128, 192, 256)[n % 3]
        data = [rng.getrandbits(128) for _ in range(3)]
        i, e = message_items(mode, rng.getrandbits(key_bits), key_bits,
                             None if mode == "ecb" else rng.getrandbits(128), data, n % 2 == 1)
        items += i
        expected += e
    dut = FAMILIES["multimode"].build(sbox="lut", fifo_depth=4)
    assert isinstance(dut, Buffered) and dut.modes == dut.core.modes
    outputs, _ = rtl_run(SharedCore(dut, ReusableSimulation(dut)), items, rng=rng,
                         stall_probability=0.6)
    assert outputs == expected


def test_fifo_depth_parameter():
    fam = FAMILIES["multimode"]
    assert fam.check_params({"sbox": "lut", "key_bits": 128, "fifo_depth": 3}) \
        == "FIFO depth must be one of 0, 2, 4, 8, not 3"
    assert any(p.name == "fifo_depth" and p.omitted_at_default for p in fam.params)
