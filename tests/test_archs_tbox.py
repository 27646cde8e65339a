# amaranth: UnusedElaboratable=no
"""Tests of :mod:`archs.tbox` (seed 001, Kundi & Aziz) and its tables in :mod:`archs.prims.tbox`:
both directions, both pumping modes, both datapath widths."""

import random
import re

import pytest
from amaranth.back import rtlil
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from aesdse.verify.testbench import EdgeClock, run_testbenches, stream_get, stream_put
from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from archs import FAMILIES
from archs.prims import gf
from archs.prims.tbox import (COMPRESSED_TABLE, ENTRY_BITS, ROUND_TABLE, TD, TE, TBoxBank,
                              expand_entry, rotate_row, round_table_address)
from archs.tbox import TBox

#: Edges from the key transfer to the first block transfer (measured; see the test using it).
KEY_LOAD_CYCLES = 23
CONFIGS = [(pumping, width) for pumping in (1, 2) for width in (128, 64)]
#: Both pumping modes and both widths, in two simulations (each takes ~15 s to build: eight
#: 1024-entry memories); test_verify takes the other two.
DIAGONAL = [(1, 128), (2, 64)]
#: The other two configurations, for test_verify: with the FIPS-197 test on DIAGONAL every
#: configuration gets one whole-core simulation (the verify stage is the slowest tbox test).
ANTI_DIAGONAL = [(1, 64), (2, 128)]


# --- Tables -----------------------------------------------------------------------------------


def test_round_table_contents():
    assert len(ROUND_TABLE) == 1024
    for x in range(256):
        assert ROUND_TABLE[round_table_address(x)] == TE[0][x]
        assert ROUND_TABLE[round_table_address(x, decrypt=True)] == TD[0][x]
        assert ROUND_TABLE[round_table_address(x, last=True)] == gf.SBOX[x] << 24
        assert ROUND_TABLE[round_table_address(x, decrypt=True, last=True)] == \
            gf.INV_SBOX[x] << 24


def test_rows_are_rotations():
    for row in range(4):
        for x in range(256):
            assert rotate_row(TE[0][x], row) == TE[row][x]
            assert rotate_row(TD[0][x], row) == TD[row][x]


def test_compressed_table_expands_to_round_table():
    """Every compressed entry is 18 bits, carries its address's mode bits, and forms the word of
    :data:`ROUND_TABLE` at its address: encryption entries are (S, 2S), decryption ones
    (9 InvS, 2 InvS), last-round ones (0, S) and (0, InvS)."""
    assert len(COMPRESSED_TABLE) == len(ROUND_TABLE) == 1024
    for address, entry in enumerate(COMPRESSED_TABLE):
        assert 0 <= entry < 1 << ENTRY_BITS
        assert entry >> 16 == address >> 8
        assert expand_entry(entry) == ROUND_TABLE[address]
    for x in range(256):
        s, t = gf.SBOX[x], gf.INV_SBOX[x]
        assert COMPRESSED_TABLE[round_table_address(x)] & 0xFFFF == s | gf.mul(2, s) << 8
        assert COMPRESSED_TABLE[round_table_address(x, decrypt=True)] & 0xFFFF == \
            gf.mul(9, t) | gf.mul(2, t) << 8
        assert COMPRESSED_TABLE[round_table_address(x, last=True)] & 0xFFFF == s << 8


#: Bank configurations: (pumping, output register, entry).
BANKS = [(1, False, "word"), (2, False, "word"), (1, True, "word"), (2, True, "word"),
         (1, False, "compressed"), (2, False, "compressed"), (1, True, "compressed"),
         (2, True, "compressed")]


@pytest.mark.parametrize("pumping,registered,entry", BANKS)
def test_bank_reads_one_cycle_later(pumping, registered, entry):
    """One cycle from address to data, two with the output register. Compressed entries: the
    words formed in hardware are the :data:`ROUND_TABLE` words, for every address on every
    lookup."""
    bank = TBoxBank(4, pumping=pumping, output_register=registered, entry=entry)
    assert bank.memories == 2 // pumping
    assert bank.dp16kd_per_memory == (1 if entry == "compressed" else 2)
    assert bank.latency == (2 if registered else 1)
    assert bank.clock_multipliers == ({"bram": 2} if pumping == 2 else {})
    rng = random.Random(pumping)
    addresses = [[rng.randrange(1024) for _ in range(4)] for _ in range(24)]
    if entry == "compressed":
        # Each lookup reads all 1024 addresses, in an order of its own.
        orders = [rng.sample(range(1024), 1024) for _ in range(4)]
        addresses = [list(cycle) for cycle in zip(*orders)]
    seen = []

    async def testbench(ctx):
        for cycle in addresses + [[0] * 4]:
            for n, a in enumerate(cycle):
                ctx.set(bank.addr[n], a)
            _, _, words = await ctx.tick().sample(bank.data)
            seen.append([words[n] for n in range(4)])

    run_testbenches(bank, testbench, clock_multipliers=bank.clock_multipliers)
    # Sampled at the edge ending cycle k + latency: the words addressed in cycle k.
    assert seen[bank.latency:] == [[ROUND_TABLE[a] for a in cycle]
                                   for cycle in addresses[:len(seen) - bank.latency]]


def test_bank_output_register_ecp5_instantiates_dp16kd():
    """On ECP5 the output register is the DP16KD's own (Yosys never enables it): two DP16KD
    per two-port memory, x18 on both ports, and no inferred table memory."""
    text = rtlil.convert(TBoxBank(4, output_register=True, device_family="ecp5"), name="top")
    assert text.count("cell \\DP16KD") == 4
    assert text.count('parameter \\REGMODE_A "OUTREG"') == 4
    assert text.count('parameter \\REGMODE_B "OUTREG"') == 4
    assert "$mem" not in text and "memory " not in text
    text = rtlil.convert(TBoxBank(4, output_register=True), name="top")
    assert "DP16KD" not in text


@pytest.mark.parametrize("pumping", [1, 2])
def test_bank_compressed_ecp5_one_dp16kd_per_memory(pumping):
    """Compressed entries with the output register on ECP5: one DP16KD per two-port memory,
    x18 on both ports (all 18 read bits used), output registers on; double-pumped, clocked by
    the ``bram`` domain."""
    bank = TBoxBank(16, pumping=pumping, output_register=True, device_family="ecp5",
                    entry="compressed")
    text = rtlil.convert(bank, name="top")
    memories = 16 // (2 * pumping)
    assert text.count("cell \\DP16KD") == bank.memories == memories
    assert text.count('parameter \\REGMODE_A "OUTREG"') == memories
    assert text.count('parameter \\REGMODE_B "OUTREG"') == memories
    assert text.count("parameter \\DATA_WIDTH_A 18") == memories
    assert text.count("connect \\CLKA \\bram_clk") == (memories if pumping == 2 else 0)
    assert "$mem" not in text and "memory " not in text
    for p in "AB":
        assert f"connect \\DO{p}17 " in text


@pytest.mark.parametrize("kwargs,message", [
    ({"lookups": 6, "pumping": 2}, r"^Lookups must be a positive multiple of 4, not 6$"),
    ({"lookups": 4, "pumping": 3}, r"^Pumping must be 1 or 2, not 3$"),
    ({"lookups": 4, "entry": "byte"}, r"^Table entry must be 'word' or 'compressed', not 'byte'$"),
])
def test_bank_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TBoxBank(**kwargs)


# --- Core -------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs,message", [
    ({"bram_pumping": 4}, r"^Block-RAM pumping must be 1 or 2, not 4$"),
    ({"datapath_width": 32}, r"^Datapath width must be 64 or 128, not 32$"),
    ({"interleaved_blocks": 5}, r"^Interleaved blocks must be 1, 2, 3 or 4, not 5$"),
    ({"tbox_entry": "byte"}, r"^T-box entry must be 'word' or 'compressed', not 'byte'$"),
    ({"interleaved_blocks": 3, "datapath_width": 64},
     r"^Interleaved blocks need datapath width 128, not 64$"),
    ({"interleaved_blocks": 2, "datapath_width": 64, "bram_pumping": 2},
     r"^Interleaved blocks need datapath width 128, not 64$"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TBox(**kwargs)
    # The registry refuses the same combinations without building anything (experiment files
    # check every point of their grid at load time).
    family = FAMILIES["tbox"]
    reason = family.check_params({**family.defaults(), **kwargs})
    assert reason is not None and re.match(message, reason)


@pytest.mark.parametrize("pumping,width", CONFIGS)
@pytest.mark.parametrize("entry", ["word", "compressed"])
def test_table_memories(pumping, width, entry):
    core = TBox(bram_pumping=pumping, datapath_width=width, tbox_entry=entry)
    # 16 or 8 lookups per cycle, two per memory (two read ports) per block-RAM edge.
    assert core.table_memories == {(1, 128): 8, (2, 128): 4, (1, 64): 4, (2, 64): 2}[
        (pumping, width)]
    # One DP16KD per memory with compressed entries: 4 for the double-pumped 128-bit core.
    assert core.table_dp16kd == core.table_memories * (1 if entry == "compressed" else 2)
    assert core.clock_multipliers == ({"bram": 2} if pumping == 2 else {})
    assert hasattr(core.i.payload, "decrypt")


def test_family_registry():
    family = FAMILIES["tbox"]
    assert family.module == "archs.tbox"
    assert family.directions == ("encrypt", "decrypt")
    assert family.param("bram_pumping").choices == (1, 2)
    assert family.param("datapath_width").choices == (64, 128)
    # Added after tbox results were stored: rows without it keep their configuration keys.
    assert family.param("interleaved_blocks").choices == (1, 2, 3, 4)
    assert family.param("interleaved_blocks").omitted_at_default
    assert family.point_params([("bram_pumping", 1), ("interleaved_blocks", 1)]) == \
        (("bram_pumping", 1),)
    assert family.param("registered_key_control").omitted_at_default
    assert family.point_params([("interleaved_blocks", 4), ("registered_key_control", False)]) \
        == (("interleaved_blocks", 4),)
    assert family.param("tbox_entry").choices == ("word", "compressed")
    assert family.param("tbox_entry").omitted_at_default
    assert family.point_params([("bram_pumping", 2), ("tbox_entry", "word")]) == \
        (("bram_pumping", 2),)
    core = TBox(interleaved_blocks=3)
    assert core.blocks_in_flight == 3 and core.fifo_depth == 6


def oracle(key, block, decrypt):
    cipher = Cipher(algorithms.AES(key.to_bytes(16, "big")), modes.ECB())
    op = cipher.decryptor() if decrypt else cipher.encryptor()
    return int.from_bytes(op.update(block.to_bytes(16, "big")) + op.finalize(), "big")


def rtl_run(dut, key, blocks):
    """Load ``key``, stream ``blocks`` ((data, decrypt) pairs) back to back with the output
    always ready; return the outputs, the edges at which they came out and the edges at which
    the key and the blocks went in."""
    outputs, edges, accepted = [], [], []

    async def producer(ctx):
        clock = EdgeClock()
        await stream_put(ctx, dut.key, {"key": key}, clock=clock)
        accepted.append(clock.now)
        for data, decrypt in blocks:
            await stream_put(ctx, dut.i, {"data": data, "decrypt": int(decrypt)}, clock=clock)
            accepted.append(clock.now)

    async def consumer(ctx):
        clock = EdgeClock()
        for _ in blocks:
            payload = await stream_get(ctx, dut.o, clock=clock, timeout=2000)
            outputs.append(payload.data)
            edges.append(clock.now)

    run_testbenches(dut, producer, consumer, clock_multipliers=dut.clock_multipliers)
    return outputs, edges, accepted


@pytest.mark.parametrize("pumping,width", DIAGONAL)
def test_fips197_alternating_directions(pumping, width):
    """FIPS-197 C.1 and random blocks, the direction switching at every block, back to back:
    every result is right and a switch costs no cycle (10 or 20 cycles per block). The first
    block waits for the round-key memories: 11 expansion steps of two cycles (SubWord through
    the tables, one cycle of latency) plus the expander's load cycles."""
    key = 0x000102030405060708090A0B0C0D0E0F
    rng = random.Random(width + pumping)
    blocks = [(0x00112233445566778899AABBCCDDEEFF, False),
              (0x69C4E0D86A7B0430D8CDB78070B4C55A, True)]
    blocks += [(rng.getrandbits(128), n % 2 == 1) for n in range(6)]
    outputs, edges, accepted = rtl_run(TBox(bram_pumping=pumping, datapath_width=width), key,
                                       blocks)
    assert outputs[:2] == [0x69C4E0D86A7B0430D8CDB78070B4C55A,
                           0x00112233445566778899AABBCCDDEEFF]
    assert outputs == [oracle(key, data, decrypt) for data, decrypt in blocks]
    cycles = 10 * 128 // width
    assert [b - a for a, b in zip(edges, edges[1:])] == [cycles] * (len(blocks) - 1)
    assert [b - a for a, b in zip(accepted[1:], accepted[2:])] == [cycles] * (len(blocks) - 1)
    assert accepted[1] - accepted[0] == KEY_LOAD_CYCLES


def test_verify_interleaved():
    """The verify stage on the three-slot core (random vectors, both directions, key changes
    while blocks are in flight, random input gaps and output back-pressure): 10 cycles per
    block, measured over whole bursts. A block's latency is three cycles a round plus the
    output FIFO, plus the first-round address register, less one: the result leaves from the
    XOR network, a cycle before the register after it. (Two slots: the same ring, test_interleaved_fips197_back_to_back; one slot costs
    minutes of simulation on a loaded machine.)"""
    family = FAMILIES["tbox"]
    result = verify_component(
        lambda: family.build(interleaved_blocks=3), "cipher",
        VerifyOptions(random_vectors=4, measure_blocks=6), directions=family.directions)
    assert result.ok, result.reason
    assert result.cycles_per_block == 10
    for direction in ("encrypt", "decrypt"):
        assert result.details[direction]["cycles_per_block"] == 10
        assert result.details[direction]["latency_cycles"] == 3 * 10 + 2


@pytest.mark.parametrize("pumping,width", ANTI_DIAGONAL)
def test_verify(pumping, width):
    """The verify stage: FIPS-197, SP 800-38A and random vectors against the oracle in both
    directions, the direction drawn per block, random input gaps and output back-pressure;
    measured 10 (128-bit) or 20 (64-bit) cycles per block in both directions."""
    family = FAMILIES["tbox"]
    result = verify_component(
        lambda: family.build(bram_pumping=pumping, datapath_width=width), "cipher",
        VerifyOptions(random_vectors=4, measure_blocks=6), directions=family.directions)
    assert result.ok, result.reason
    cycles = 10 * 128 // width
    assert result.cycles_per_block == cycles
    assert {d: v["cycles_per_block"] for d, v in result.details.items()} == \
        {"encrypt": cycles, "decrypt": cycles}


@pytest.mark.parametrize("interleaved,registered", [(2, False), (3, False), (4, False),
                                                   (4, True)])
def test_interleaved_fips197_back_to_back(interleaved, registered):
    """Interleaved blocks, back to back, the direction changing between blocks: every result
    right, and the blocks go in and come out in bursts of ``interleaved`` (one per cycle), a
    burst every ``10 * interleaved`` cycles: 10 cycles per block, as with one block, though a
    round now takes ``interleaved`` cycles. The first block waits for the round keys: SubWord
    through the registered tables takes one cycle more per expansion step. The key expander's
    registered control (``registered_key_control``) changes none of it."""
    key = 0x000102030405060708090A0B0C0D0E0F
    rng = random.Random(interleaved)
    blocks = [(0x00112233445566778899AABBCCDDEEFF, False),
              (0x69C4E0D86A7B0430D8CDB78070B4C55A, True)]
    blocks += [(rng.getrandbits(128), n % 3 == 1) for n in range(2 * interleaved - 2)]
    outputs, edges, accepted = rtl_run(
        TBox(interleaved_blocks=interleaved, registered_key_control=registered), key, blocks)
    assert outputs == [oracle(key, data, decrypt) for data, decrypt in blocks]
    burst = [1] * (interleaved - 1) + [10 * interleaved - (interleaved - 1)]
    assert [b - a for a, b in zip(edges, edges[1:])] == (burst * 2)[:len(blocks) - 1]
    assert [b - a for a, b in zip(accepted[1:], accepted[2:])] == \
        (burst * 2)[:len(blocks) - 1]
    assert accepted[1] - accepted[0] == KEY_LOAD_CYCLES + 10


@pytest.mark.parametrize("pumping", [1, 2])
def test_verify_compressed(pumping):
    """The verify stage on the 128-bit core with compressed T-box entries, in both pumping
    modes and both directions: the words formed in logic give the reference results at 10
    cycles per block (pumping 2 is the 4-DP16KD configuration)."""
    family = FAMILIES["tbox"]
    result = verify_component(
        lambda: family.build(bram_pumping=pumping, tbox_entry="compressed"), "cipher",
        VerifyOptions(random_vectors=4, measure_blocks=6), directions=family.directions)
    assert result.ok, result.reason
    assert {d: v["cycles_per_block"] for d, v in result.details.items()} == \
        {"encrypt": 10, "decrypt": 10}


@pytest.mark.parametrize("pumping,interleaved,entry", [
    (1, 2, "compressed"), (2, 2, "compressed"), (2, 3, "compressed"), (2, 2, "word")])
def test_interleaved_compressed_fips197(pumping, interleaved, entry):
    """Interleaved blocks with compressed entries (the DP16KD output register, then the word
    formed in logic), on the system clock or double-pumped (output registers on the ``bram``
    clock, capture registers after them): FIPS-197 both ways and random blocks, in bursts of
    ``interleaved`` every ``10 * interleaved`` cycles. (Also the double-pumped interleaved core
    with 32-bit words.)"""
    key = 0x000102030405060708090A0B0C0D0E0F
    rng = random.Random(7)
    blocks = [(0x00112233445566778899AABBCCDDEEFF, False),
              (0x69C4E0D86A7B0430D8CDB78070B4C55A, True)]
    blocks += [(rng.getrandbits(128), n % 2 == 0) for n in range(2 * interleaved - 2)]
    core = TBox(bram_pumping=pumping, interleaved_blocks=interleaved, tbox_entry=entry)
    outputs, edges, accepted = rtl_run(core, key, blocks)
    assert outputs == [oracle(key, data, decrypt) for data, decrypt in blocks]
    burst = [1] * (interleaved - 1) + [10 * interleaved - (interleaved - 1)]
    assert [b - a for a, b in zip(edges, edges[1:])] == (burst * 2)[:len(blocks) - 1]
    assert accepted[1] - accepted[0] == KEY_LOAD_CYCLES + 10
