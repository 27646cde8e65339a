# amaranth: UnusedElaboratable=no
"""Key schedule: the pure-int model against FIPS-197, the hardware against the model."""

import random

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Elaboratable, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from archs.prims import gf
from archs.prims.keyexpander import ByteKeySchedule, KeyExpander, inv_xtime_value
from archs.prims.keyschedule import ROUNDS, expand_key, extend_key, round_keys, unexpand_key
from archs.prims.mixcolumns import inv_mix_column
from archs.prims.roundkeys import RoundKeyChain, RoundKeyStore
from archs.prims.sbox import SBOX_KINDS, make_sbox

# FIPS-197 Appendix A (key expansion examples) and Appendix C (example vectors) cipher keys.
KEY_A1 = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
KEY_A2 = bytes.fromhex("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b")
KEY_A3 = bytes.fromhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
KEY_C1 = bytes(range(16))
KEY_C2 = bytes(range(24))
KEY_C3 = bytes(range(32))
FIPS_KEYS = [KEY_A1, KEY_A2, KEY_A3, KEY_C1, KEY_C2, KEY_C3]


# --- Pure-int model ---------------------------------------------------------------------------


@pytest.mark.parametrize("key, index, word", [
    # FIPS-197 Appendix A.1-A.3: first expanded word, a SubWord(RotWord) word, the last word.
    (KEY_A1, 4, 0xa0fafe17), (KEY_A1, 8, 0xf2c295f2), (KEY_A1, 43, 0xb6630ca6),
    (KEY_A2, 6, 0xfe0c91f7), (KEY_A2, 12, 0x4db7b4bd), (KEY_A2, 51, 0x01002202),
    (KEY_A3, 8, 0x9ba35411), (KEY_A3, 12, 0xa8b09c1a), (KEY_A3, 59, 0x706c631e),
])
def test_expand_key_fips197_appendix_a(key, index, word):
    words = expand_key(key)
    assert len(words) == 4 * (ROUNDS[8 * len(key)] + 1)
    assert words[:len(key) // 4] == [int.from_bytes(key[i:i + 4], "big")
                                     for i in range(0, len(key), 4)]
    assert words[index] == word


def test_round_keys_fips197_appendix_c():
    # FIPS-197 Appendix C.1-C.3: the last round key (round[Nr].k_sch).
    assert round_keys(KEY_C1)[-1] == 0x13111d7fe3944a17f307a78b4d2b30c5
    assert round_keys(KEY_C2)[-1] == 0xa4970a331a78dc09c418c271e3a41d5d
    assert round_keys(KEY_C3)[-1] == 0x24fc79ccbf0979e9371ac23c6d68de36


def test_expand_key_length_error():
    with pytest.raises(ValueError, match=r"^Key must be 16, 24 or 32 bytes long, not 17$"):
        expand_key(bytes(17))


@pytest.mark.parametrize("key", FIPS_KEYS)
def test_extend_key_continues_expand_key(key):
    words = expand_key(key)
    assert extend_key(key, len(words) + 4)[:len(words)] == words


@pytest.mark.parametrize("size", [16, 24, 32])
def test_unexpand_key_inverts_expand_key(size):
    rng = random.Random(size)
    for _ in range(20):
        key = rng.randbytes(size)
        nk = size // 4
        words = extend_key(key, 4 * (ROUNDS[8 * size] + 1) + 4)
        for start in (len(words) - nk, len(words) - nk - 3, 4 * ROUNDS[8 * size]):
            assert unexpand_key(words[start:start + nk], start, nk) == words[:start + nk]


# --- Hardware ---------------------------------------------------------------------------------


def test_inv_xtime_value_exhaustive():
    a = Signal(8)
    y = Signal(8)
    m = Module()
    m.d.comb += y.eq(inv_xtime_value(a))

    async def testbench(ctx):
        for value in range(256):
            ctx.set(a, value)
            assert gf.xtime(ctx.get(y)) == value
            assert gf.mul(ctx.get(y), 2) == value

    sim = Simulator(m)
    sim.add_testbench(testbench)
    sim.run()


class DelayedSBoxes(wiring.Component):
    """``count`` LUT S-boxes behind ``latency`` registers: an outside S-box with latency, whose
    output is stale (so wrong) until it has settled."""

    def __init__(self, count, latency):
        self.count, self.latency = count, latency
        super().__init__({"i": In(8 * count), "o": Out(8 * count)})

    def elaborate(self, platform):
        m = Module()
        value = self.i
        for n in range(self.latency):
            reg = Signal(8 * self.count, name=f"stage{n}")
            m.d.sync += reg.eq(value)
            value = reg
        for s in range(self.count):
            sb = m.submodules[f"sbox{s}"] = make_sbox("lut")
            m.d.comb += [sb.i.eq(value[8 * s:8 * s + 8]), self.o[8 * s:8 * s + 8].eq(sb.o)]
        return m


class Harness(Elaboratable):
    """A :class:`KeyExpander` or :class:`RoundKeyStore` with outside S-boxes of a given latency."""

    def __init__(self, dut, latency):
        self.dut = dut
        self.sboxes = DelayedSBoxes(dut.sbox_count, latency) if dut.sbox is None else None

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = self.dut
        if self.sboxes is not None:
            m.submodules.sboxes = self.sboxes
            m.d.comb += [self.sboxes.i.eq(self.dut.sbox_i), self.dut.sbox_o.eq(self.sboxes.o)]
        return m


def expected_groups(key, width, reverse=False):
    """(round_key, round, part) of every group of a walk, in walk order, from expand_key."""
    schedule = b"".join(w.to_bytes(4, "big") for w in expand_key(key))
    step = width // 8
    groups = [(int.from_bytes(schedule[b:b + step], "big"), b // 16, (b % 16) // step)
              for b in range(0, len(schedule), step)]
    return groups[::-1] if reverse else groups


def key_port_value(dut, key):
    """Left-align ``key`` in the key port."""
    return int.from_bytes(key, "big") << (len(dut.key) - 8 * len(key))


def run_walks(dut, walks, *, latency=0, stall=0.0, seed=0):
    """Simulate ``walks``: a list of ``(action, key, reverse)`` with action ``"load"`` or
    ``"start"``; return, per walk, the groups taken and the cycles from the strobe to the last
    transfer (inclusive)."""
    rng = random.Random(seed)
    results = []

    async def testbench(ctx):
        for action, key, reverse in walks:
            if action == "load":
                ctx.set(dut.key, key_port_value(dut, key))
                if len(dut.key_sizes) > 1:
                    ctx.set(dut.key_bits, 8 * len(key))
            if len(dut.directions) > 1:
                ctx.set(dut.reverse, reverse)
            ctx.set(getattr(dut, action), 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            ctx.set(dut.start, 0)
            got, cycles = [], 0
            while True:
                cycles += 1
                assert cycles < 2000, "walk does not finish"
                taking = rng.random() >= stall
                ctx.set(dut.next, taking)
                _, _, valid, last, rk, rnd, part = await ctx.tick().sample(
                    dut.valid, dut.last, dut.round_key, dut.round, dut.part)
                if valid and taking:
                    got.append((rk, rnd, part))
                    if last:
                        break
            ctx.set(dut.next, 0)
            results.append((got, cycles))
            # After the last group the expander stays idle.
            await ctx.tick().repeat(2)
            assert not ctx.get(dut.valid)

    sim = Simulator(Harness(dut, latency))
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    return results


def random_keys(seed, sizes):
    rng = random.Random(seed)
    return [rng.randbytes(s // 8) for s in sizes]


ALL_SIZES = (128, 192, 256)


@pytest.mark.parametrize("latency", [0, 2])
@pytest.mark.parametrize("width", [8, 32, 64, 128])
def test_forward_reverse_all_sizes(width, latency):
    """Both directions, all key sizes in one expander: FIPS keys and random keys, loads and
    restarts, random consumer stalls, against expand_key."""
    dut = KeyExpander(width, key_sizes=ALL_SIZES, directions=("forward", "reverse"),
                      sbox_latency=latency)
    keys = FIPS_KEYS + random_keys(width + latency, ALL_SIZES)
    walks = []
    for n, key in enumerate(keys):
        first = bool(n % 2)
        walks += [("load", key, first), ("start", key, not first), ("start", key, first)]
    results = run_walks(dut, walks, latency=latency, stall=0.3, seed=width)
    for (action, key, reverse), (got, _) in zip(walks, results):
        assert got == expected_groups(key, width, reverse), (action, key.hex(), reverse)


@pytest.mark.parametrize("width", [8, 32, 64, 128])
@pytest.mark.parametrize("directions", [("forward",), ("reverse",)])
def test_single_size_single_direction(width, directions):
    """The smallest builds (one key size, one direction), with a latency-1 S-box."""
    for key_bits in ALL_SIZES:
        dut = KeyExpander(width, key_sizes=(key_bits,), directions=directions, sbox_latency=1)
        reverse = directions == ("reverse",)
        keys = [k for k in FIPS_KEYS if 8 * len(k) == key_bits] + random_keys(width, [key_bits])
        walks = [(action, key, reverse) for key in keys for action in ("load", "start")]
        results = run_walks(dut, walks, latency=1, stall=0.2, seed=key_bits)
        for (action, key, _), (got, _) in zip(walks, results):
            assert got == expected_groups(key, width, reverse), (action, key.hex())


@pytest.mark.parametrize("width", [8, 32, 64, 128])
@pytest.mark.parametrize("key", [KEY_A1, KEY_A2, KEY_A3])
def test_forward_one_group_per_cycle(width, key):
    """With a latency-0 S-box and ``next`` held high, a forward walk takes one cycle per group
    (Zhou & Gaj's 32-bit schedule keeps pace with a 32-bit datapath); ``load`` costs one cycle
    more than ``start``."""
    dut = KeyExpander(width, key_sizes=(8 * len(key),))
    [(got_load, cycles_load), (got_start, cycles_start)] = run_walks(
        dut, [("load", key, False), ("start", key, False)])
    assert got_load == got_start == expected_groups(key, width)
    assert cycles_start == len(got_start) == dut.groups(8 * len(key))
    assert cycles_load == cycles_start + 1


@pytest.mark.parametrize("width", [8, 64])
def test_load_and_start_interrupt_a_walk(width):
    """``load`` (a new key) and ``start`` (a new block) in the middle of a walk, in either
    direction, abandon it cleanly."""
    dut = KeyExpander(width, key_sizes=ALL_SIZES, directions=("forward", "reverse"),
                      sbox_latency=1)
    rng = random.Random(width)
    keys = random_keys(width, ALL_SIZES * 2)
    checked = []

    async def testbench(ctx):
        async def strobe(port, key, reverse):
            ctx.set(dut.key, key_port_value(dut, key))
            ctx.set(dut.key_bits, 8 * len(key))
            ctx.set(dut.reverse, reverse)
            ctx.set(port, 1)
            await ctx.tick()
            ctx.set(port, 0)

        async def take(count):
            got = []
            ctx.set(dut.next, 1)
            while len(got) < count:
                _, _, valid, last, rk, rnd, part = await ctx.tick().sample(
                    dut.valid, dut.last, dut.round_key, dut.round, dut.part)
                if valid:
                    got.append((rk, rnd, part))
                    if last:
                        break
            ctx.set(dut.next, 0)
            return got

        for n, key in enumerate(keys):
            reverse = bool(n % 2)
            total = dut.groups(8 * len(key))
            await strobe(dut.load, key, reverse)
            # Part of a walk, then a restart in the other direction, part of that, then a
            # restart in the first direction run to the end.
            got = await take(rng.randrange(1, total))
            assert got == expected_groups(key, width, reverse)[:len(got)]
            await strobe(dut.start, key, not reverse)
            got = await take(rng.randrange(1, total))
            assert got == expected_groups(key, width, not reverse)[:len(got)]
            await strobe(dut.start, key, reverse)
            got = await take(total)
            assert got == expected_groups(key, width, reverse)
            checked.append(key)
        # A load while a load's prepass is still running.
        await strobe(dut.load, keys[0], True)
        await ctx.tick().repeat(3)
        await strobe(dut.load, keys[1], True)
        assert await take(1000) == expected_groups(keys[1], width, True)

    sim = Simulator(Harness(dut, 1))
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    assert checked == keys


@pytest.mark.parametrize("width", [8, 32, 128])
def test_reverse_one_group_per_cycle_after_start(width):
    dut = KeyExpander(width, key_sizes=ALL_SIZES, directions=("reverse",))
    walks = [(a, key, True) for key in (KEY_A1, KEY_A2, KEY_A3) for a in ("load", "start")]
    results = run_walks(dut, walks)
    for (action, key, _), (got, cycles) in zip(walks, results):
        assert got == expected_groups(key, width, reverse=True)
        if action == "start":
            assert cycles == len(got)
        else:  # the prepass walks forward to the last group first (one step per cycle),
            # and spends one cycle storing it
            assert cycles == 2 * len(got)


@pytest.mark.parametrize("width, sbox_steps", [
    # Width 128: ten steps, each computing a round key with SubWord(RotWord). Width 32: the
    # 4-word window slides one word per step, so the step to the group of w41 already computes
    # w44 (past the schedule end): eleven SubWords.
    (128, 10), (32, 11),
])
def test_latency_costs_cycles_only_where_the_sbox_is_used(width, sbox_steps):
    latency = 3
    dut = KeyExpander(width, key_sizes=(128,), sbox_latency=latency)
    [_, (got, cycles)] = run_walks(dut, [("load", KEY_A1, False), ("start", KEY_A1, False)],
                                   latency=latency)
    assert got == expected_groups(KEY_A1, width)
    assert cycles == len(got) + sbox_steps * latency


@pytest.mark.parametrize("width", [8, 64])
def test_internal_sboxes(width):
    dut = KeyExpander(width, key_sizes=ALL_SIZES, directions=("forward", "reverse"), sbox="lut")
    assert dut.sbox_latency == 0
    assert not hasattr(dut, "sbox_i")
    walks = [("load", key, r) for key in (KEY_A1, KEY_A2, KEY_A3) for r in (False, True)]
    for (_, key, reverse), (got, _) in zip(walks, run_walks(dut, walks, stall=0.2)):
        assert got == expected_groups(key, width, reverse)


def test_signature():
    dut = KeyExpander(32, key_sizes=(128, 256), directions=("forward", "reverse"))
    assert len(dut.key) == 256 and len(dut.key_bits) == 9
    assert len(dut.round_key) == 32 and len(dut.part) == 2 and len(dut.round) == 4
    assert len(dut.sbox_i) == 32 and len(dut.sbox_o) == 32
    assert dut.groups(128) == 44 and dut.groups(256) == 60
    dut = KeyExpander(8)
    assert len(dut.key) == 128 and not hasattr(dut, "key_bits") and not hasattr(dut, "reverse")
    assert len(dut.sbox_i) == 8 and len(dut.part) == 4
    assert len(KeyExpander(128).part) == 0


@pytest.mark.parametrize("kwargs, message", [
    (dict(width=16), r"^Width must be one of 8, 32, 64, 128, not 16$"),
    (dict(key_sizes=(128, 512)),
     r"^Key sizes must be a non-empty subset of \(128, 192, 256\), not \(128, 512\)$"),
    (dict(key_sizes=()), r"^Key sizes must be a non-empty subset of \(128, 192, 256\), not \(\)$"),
    (dict(directions=("encrypt",)),
     r"^Directions must be a non-empty subset of \('forward', 'reverse'\), not \('encrypt',\)$"),
    (dict(sbox_latency=-1), r"^S-box latency must be a non-negative integer, not -1$"),
    (dict(sbox="lut", sbox_latency=2),
     r"^S-box latency of family 'lut' with 0 stages is 0, not 2$"),
])
def test_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        KeyExpander(**kwargs)


def test_wrong_latency_is_detected():
    """The latency model matters: an S-box slower than declared gives wrong round keys (so the
    latency>0 tests above can fail)."""
    dut = KeyExpander(32, key_sizes=(128,), sbox_latency=1)
    [(got, _)] = run_walks(dut, [("load", KEY_A1, False)], latency=2)
    assert got != expected_groups(KEY_A1, 32)


@pytest.mark.parametrize("family, stages", [("bram", 0), ("composite", 3)])
@pytest.mark.parametrize("width", [8, 128])
def test_internal_pipelined_sboxes(family, stages, width):
    from archs.prims.sbox import sbox_latency
    dut = KeyExpander(width, key_sizes=ALL_SIZES, directions=("forward", "reverse"),
                      sbox=family, sbox_stages=stages)
    assert dut.sbox_latency == sbox_latency(family, stages=stages) > 0
    walks = [("load", key, r) for key in (KEY_A2, KEY_A3) for r in (False, True)]
    for (_, key, reverse), (got, _) in zip(walks, run_walks(dut, walks, stall=0.2)):
        assert got == expected_groups(key, width, reverse)


# --- RTLIL conversion: no combinational cycle -------------------------------------------------
# Simulation does not see a structural loop that no phase of the walk uses (a false path through
# the phase Mux), but RTLIL conversion rejects it (and Yosys would see a loop). The class notes
# promise that `sbox_i` is a function of the expander's registers only: convert every key size,
# direction and step width with the S-box closed combinationally around the expander, and with
# every S-box family inside it, which are the configurations the architectures build.

SORTED_SBOX_KINDS = sorted(SBOX_KINDS)


class LoopedSBoxPorts(Elaboratable):
    """A :class:`KeyExpander` with ``sbox_o`` driven by ``sbox_i`` combinationally (an identity
    S-box of latency 0): any path from ``sbox_o`` back to ``sbox_i`` becomes a cycle."""

    def __init__(self, dut):
        self.dut = dut

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = self.dut
        m.d.comb += self.dut.sbox_o.eq(self.dut.sbox_i)
        return m


@pytest.mark.parametrize("directions", [("forward",), ("reverse",), ("forward", "reverse")])
@pytest.mark.parametrize("key_sizes", [(128,), (192,), (256,), ALL_SIZES])
@pytest.mark.parametrize("width", [8, 32, 64, 128])
def test_sbox_ports_have_no_combinational_path(width, key_sizes, directions):
    dut = KeyExpander(width, key_sizes=key_sizes, directions=directions)
    ports = [getattr(dut, name) for name in dut.signature.members if not name.startswith("sbox_")]
    assert "module" in rtlil.convert(LoopedSBoxPorts(dut), name="top", ports=ports,
                                     emit_src=False)


@pytest.mark.parametrize("sbox", SORTED_SBOX_KINDS)
@pytest.mark.parametrize("width", [8, 32, 64, 128])
def test_internal_sboxes_convert_to_rtlil(width, sbox):
    """Every S-box family inside, with no pipeline stage (a combinational one where the family
    has it): all key sizes in both directions build every step network there is."""
    dut = KeyExpander(width, key_sizes=ALL_SIZES, directions=("forward", "reverse"), sbox=sbox)
    assert "module" in rtlil.convert(dut, name="top", emit_src=False)


@pytest.mark.parametrize("sbox", SORTED_SBOX_KINDS)
@pytest.mark.parametrize("key_bits", [128, 192, 256])
def test_unrolled_expander_converts_to_rtlil(key_bits, sbox):
    """The expander of :class:`archs.unrolled.Unrolled` with ``key_schedule="precomputed"``:
    width 128, one key size, forward. AES-192 failed here with a combinational cycle (its
    RotWord word follows a word computed in the same step)."""
    dut = KeyExpander(128, key_sizes=(key_bits,), sbox=sbox)
    assert "module" in rtlil.convert(dut, name="top", emit_src=False)


# --- Round-key store --------------------------------------------------------------------------


def run_memory(dut, keys, *, latency=0, seed=0):
    """Load each key, wait for ``ready``, read every (round, part); return the reads per key and
    the cycles ``ready`` took."""
    rng = random.Random(seed)
    results = []

    async def testbench(ctx):
        for key in keys:
            ctx.set(dut.key, key_port_value(dut, key))
            if len(dut.key_sizes) > 1:
                ctx.set(dut.key_bits, 8 * len(key))
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            cycles = 0
            while not ctx.get(dut.ready):
                await ctx.tick()
                cycles += 1
                assert cycles < 1000
            reads = {}
            addresses = [(r, p) for r in range(ROUNDS[8 * len(key)] + 1)
                         for p in range(dut.parts)]
            rng.shuffle(addresses)  # random access, not just the write order
            for r, p in addresses:
                ctx.set(dut.round, r)
                ctx.set(dut.part, p)
                if dut.read == "sync":
                    await ctx.tick()
                else:
                    await ctx.delay(1e-9)
                reads[r, p] = ctx.get(dut.round_key)
            results.append((reads, cycles))

    sim = Simulator(Harness(dut, latency))
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    return results


@pytest.mark.parametrize("width, read, latency", [
    (8, "sync", 0), (32, "sync", 2), (64, "comb", 1), (128, "sync", 0), (128, "comb", 2),
])
def test_round_key_memory(width, read, latency):
    dut = RoundKeyStore(width, key_sizes=ALL_SIZES, sbox_latency=latency, read=read)
    keys = FIPS_KEYS + random_keys(width, ALL_SIZES)
    for key, (reads, cycles) in zip(keys, run_memory(dut, keys, latency=latency)):
        expected = {(r, p): v for v, r, p in expected_groups(key, width)}
        assert reads == expected, key.hex()
        if latency == 0:  # one group per cycle, after a cycle to take the key
            assert cycles == len(expected) + 1


def test_round_key_memory_internal_sboxes():
    dut = RoundKeyStore(32, key_sizes=(256,), sbox="lut")
    assert not hasattr(dut, "sbox_i")
    [(reads, _)] = run_memory(dut, [KEY_A3])
    assert reads == {(r, p): v for v, r, p in expected_groups(KEY_A3, 32)}


def _inverse_cipher_key(key, r):
    """Decryption round key ``r`` of the equivalent inverse cipher (FIPS-197 section 5.3.5)."""
    keys = round_keys(key)
    value = keys[len(keys) - 1 - r]
    if r in (0, len(keys) - 1):
        return value
    columns = [list(value.to_bytes(16, "big")[4 * c:4 * c + 4]) for c in range(4)]
    return int.from_bytes(bytes(b for col in columns for b in inv_mix_column(col)), "big")


@pytest.mark.parametrize("write_register", [False, True])
def test_round_key_store_inverse_keys(write_register):
    """Both memories, read combinationally, and the first-key registers of both directions."""
    dut = RoundKeyStore(128, read="comb", inverse_keys=True, sbox_latency=1,
                        inverse_write_register=write_register)
    seen = {}

    async def testbench(ctx):
        for key in (KEY_A1, KEY_C1):
            ctx.set(dut.key, int.from_bytes(key, "big"))
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            await ctx.tick().until(dut.ready)
            await ctx.tick()  # the registered inverse write of address 0
            reads = {}
            for r in range(11):
                ctx.set(dut.round, r)
                await ctx.delay(1e-9)
                reads[r] = (ctx.get(dut.round_key), ctx.get(dut.inverse_round_key))
            seen[key] = (reads, ctx.get(dut.first_key), ctx.get(dut.first_inverse_key))

    sim = Simulator(Harness(dut, 1))
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    for key, (reads, first, first_inverse) in seen.items():
        assert reads == {r: (round_keys(key)[r], _inverse_cipher_key(key, r)) for r in range(11)}
        assert (first, first_inverse) == (round_keys(key)[0], round_keys(key)[10])


@pytest.mark.parametrize("key, rounds", [(KEY_A1, None), (KEY_A3, None), (KEY_A2, 5)])
def test_round_key_store_registers(key, rounds):
    """Register storage: every round key at once; a reduced-round store stops at ``rounds``
    (``busy`` falls) and keeps round keys 0..rounds."""
    key_bits = 8 * len(key)
    dut = RoundKeyStore(128, key_sizes=(key_bits,), rounds=rounds, storage="registers",
                        sbox="lut")
    kept = ROUNDS[key_bits] if rounds is None else rounds
    got = {}

    async def testbench(ctx):
        assert not ctx.get(dut.busy) and not ctx.get(dut.ready)
        ctx.set(dut.key, int.from_bytes(key, "big"))
        ctx.set(dut.load, 1)
        await ctx.tick()
        ctx.set(dut.load, 0)
        assert ctx.get(dut.busy)
        await ctx.tick().until(~dut.busy)
        assert ctx.get(dut.ready)
        got["keys"] = [ctx.get(dut.round_keys[r]) for r in range(kept + 1)]

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    assert len(dut.round_keys) == kept + 1
    assert got["keys"] == round_keys(key)[:kept + 1]


def run_round_key_chain(dut, keys, *, gap=0):
    """Load each key in turn (``gap`` cycles after ``busy`` fell); return, per key, the
    registers the moment ``busy`` fell and the cycles ``busy`` was high."""
    seen = []

    async def testbench(ctx):
        assert not ctx.get(dut.busy) and not ctx.get(dut.ready)
        for key in keys:
            ctx.set(dut.key, int.from_bytes(key, "big"))
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            cycles = 0
            while ctx.get(dut.busy):
                assert not ctx.get(dut.ready)
                await ctx.tick()
                cycles += 1
            assert ctx.get(dut.ready)
            seen.append(([ctx.get(k) for k in dut.round_keys], cycles))
            if gap:
                await ctx.tick().repeat(gap)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    return seen


@pytest.mark.parametrize("key_bits, rounds, sbox, sbox_stages", [
    (128, None, "lut", 0), (128, None, "composite", 6), (192, None, "composite", 3),
    (256, None, "lut", 0), (192, 5, "lut", 0), (128, 1, "composite", 2),
])
def test_round_key_chain(key_bits, rounds, sbox, sbox_stages):
    """Every round key in its register when ``busy`` falls, after exactly ``busy_cycles``; a
    second key, loaded at once or later, replaces the first (random keys against the model)."""
    rng = random.Random(key_bits + (rounds or 0))
    keys = [rng.randbytes(key_bits // 8) for _ in range(3)]
    dut = RoundKeyChain(key_bits=key_bits, rounds=rounds, sbox=sbox, sbox_stages=sbox_stages)
    kept = ROUNDS[key_bits] if rounds is None else rounds
    assert len(dut.round_keys) == kept + 1
    for gap in (0, 3):
        seen = run_round_key_chain(dut, keys, gap=gap)
        assert [values for values, _ in seen] == [round_keys(k)[:kept + 1] for k in keys]
        assert {cycles for _, cycles in seen} == {dut.busy_cycles}


def test_round_key_chain_load_during_a_walk_starts_over():
    """A ``load`` while busy abandons the walk: the registers end with the new key's schedule
    (every one of them rewritten, none left from the abandoned walk)."""
    dut = RoundKeyChain(key_bits=128, sbox="composite", sbox_stages=3)
    first, second = KEY_A1, KEY_C1
    got = {}

    async def testbench(ctx):
        for key, wait in ((first, 9), (second, None)):
            ctx.set(dut.key, int.from_bytes(key, "big"))
            ctx.set(dut.load, 1)
            await ctx.tick()
            ctx.set(dut.load, 0)
            if wait is not None:
                await ctx.tick().repeat(wait)   # two round keys of the first walk out
        await ctx.tick().until(~dut.busy)
        got["keys"] = [ctx.get(k) for k in dut.round_keys]

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    assert got["keys"] == round_keys(second)


@pytest.mark.parametrize("kwargs, message", [
    ({"key_bits": 64}, r"^Key size must be 128, 192 or 256 bits, not 64$"),
    ({"rounds": 11}, r"^Rounds must be an integer from 1 to 10, not 11$"),
    ({"key_bits": 256, "rounds": 0}, r"^Rounds must be an integer from 1 to 14, not 0$"),
])
def test_round_key_chain_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RoundKeyChain(**kwargs)


@pytest.mark.parametrize("kwargs,message", [
    ({"read": "async"}, r"^Read must be 'sync' or 'comb', not 'async'$"),
    ({"storage": "flops"}, r"^Storage must be 'memory' or 'registers', not 'flops'$"),
    ({"rounds": 11}, r"^Rounds must be an integer from 1 to 10 with one key size, not 11$"),
    ({"rounds": 4, "key_sizes": (128, 256)},
     r"^Rounds must be an integer from 1 to 14 with one key size, not 4$"),
    ({"inverse_keys": True, "storage": "registers"},
     r"^Inverse keys need memory storage, width 128 and AES-128$"),
    ({"inverse_keys": True, "key_sizes": (192,)},
     r"^Inverse keys need memory storage, width 128 and AES-128$"),
])
def test_round_key_store_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RoundKeyStore(**kwargs)


# --- ByteKeySchedule --------------------------------------------------------------------------


class _ByteScheduleWithSBox(Elaboratable):
    """A :class:`ByteKeySchedule` with the composite S-box on its S-box ports."""

    def __init__(self):
        self.ks = ByteKeySchedule()

    def elaborate(self, platform):
        m = Module()
        m.submodules.ks = self.ks
        m.submodules.sbox = sb = make_sbox("composite")
        m.d.comb += [sb.i.eq(self.ks.sbox_i), self.ks.sbox_o.eq(sb.o)]
        return m


def test_byte_key_schedule_cycles_through_the_round_keys():
    """Keys loaded byte by byte, then two whole walks per key with random consumer stalls: the
    bytes, rounds and indices are those of expand_key, round 10 is followed by round 0 of the
    same key (the refill from the rotating copy), and a new key replaces the old one."""
    top = _ByteScheduleWithSBox()
    dut = top.ks
    rng = random.Random(7)
    keys = [KEY_A1, KEY_C1, rng.randbytes(16)]
    got = {}

    async def testbench(ctx):
        for n, key in enumerate(keys):
            for b in key:
                ctx.set(dut.key, b)
                ctx.set(dut.load, 1)
                await ctx.tick()
            ctx.set(dut.load, 0)
            seen = got.setdefault(n, [])
            while len(seen) < 2 * 176:
                take = rng.random() < 0.7
                ctx.set(dut.next, take)
                if take:
                    seen.append((ctx.get(dut.round), ctx.get(dut.index),
                                 ctx.get(dut.round_key)))
                await ctx.tick()
            ctx.set(dut.next, 0)
            assert (ctx.get(dut.round), ctx.get(dut.index)) == (0, 0)

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    for n, key in enumerate(keys):
        expected = [(r, x, (rk >> (120 - 8 * x)) & 0xFF)
                    for r, rk in enumerate(round_keys(key)) for x in range(16)]
        assert got[n] == 2 * expected, key.hex()


def test_byte_key_schedule_converts_to_rtlil():
    assert "module" in rtlil.convert(_ByteScheduleWithSBox(), ports=[])


# --- Registered control (issue 22) ----------------------------------------------------------


class _TwinExpanders(Elaboratable):
    """Two :class:`KeyExpander` of the same build, one with ``registered_control``, on the same
    inputs, each with its own outside S-boxes of the given latency."""

    def __init__(self, width, key_sizes, directions, latency):
        def build(registered):
            return Harness(KeyExpander(width, key_sizes=key_sizes, directions=directions,
                                       sbox_latency=latency, registered_control=registered),
                           latency)
        self.plain, self.registered = build(False), build(True)

    def elaborate(self, platform):
        m = Module()
        m.submodules.plain, m.submodules.registered = self.plain, self.registered
        return m


@pytest.mark.parametrize("width, key_sizes, directions, latency", [
    (128, ALL_SIZES, ("forward", "reverse"), 0),
    (128, ALL_SIZES, ("forward", "reverse"), 1),
    (32, ALL_SIZES, ("forward", "reverse"), 0),
    (128, (128,), ("forward",), 0),
    (64, (192, 256), ("reverse",), 1),
])
def test_registered_control_matches_comparisons(width, key_sizes, directions, latency):
    """With ``registered_control`` every output equals the plain expander's in every cycle,
    under random strobes: loads of changing key sizes (any ``key_bits``, also none of the
    three), starts in either direction, also during a load's prepass and in a walk's last
    group, and random ``next``. A flag that misses an event shows up as a different
    ``last``, ``valid`` or window."""
    top = _TwinExpanders(width, key_sizes, directions, latency)
    plain, registered = top.plain.dut, top.registered.dut
    rng = random.Random(width + latency + len(key_sizes))
    outputs = ("valid", "last", "round_key", "round", "part", "sbox_req")
    events = []
    # Strobes rare enough that walks of 44..240 / (width / 8) groups also run to their end.
    rate = width / 128

    async def testbench(ctx):
        for cycle in range(int(2500 / rate ** 0.5)):
            load = rng.random() < 0.02 * rate
            start = not load and rng.random() < 0.03 * rate
            inputs = {"load": load, "start": start, "next": rng.random() < 0.8}
            if load:
                key_bits = rng.choice(key_sizes + (0,))
                size = key_bits or key_sizes[0]
                inputs["key"] = key_port_value(plain, rng.randbytes(size // 8))
                if len(key_sizes) > 1:
                    inputs["key_bits"] = key_bits
            if len(directions) > 1:
                inputs["reverse"] = rng.random() < 0.5
            for dut in (plain, registered):
                for name, value in inputs.items():
                    ctx.set(getattr(dut, name), value)
            got = [[ctx.get(getattr(dut, name)) for name in outputs]
                   for dut in (plain, registered)]
            assert got[0] == got[1], (cycle, dict(zip(outputs, zip(*got))))
            events.append((got[0][0], got[0][1]))
            await ctx.tick()

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    # The run got where the flags matter: last groups taken, in several walks.
    assert sum(1 for valid, last in events if valid and last) >= 5


def test_registered_control_key_sizes_back_to_back():
    """The multi-mode core's expander (width 128, all key sizes, both directions,
    ``registered_control``): loads of a different key size back to back, each followed by
    starts in both directions, consumer stalls, against expand_key."""
    dut = KeyExpander(128, key_sizes=ALL_SIZES, directions=("forward", "reverse"),
                      sbox="lut", registered_control=True)
    keys = FIPS_KEYS + random_keys(22, (256, 128, 192, 128, 256, 192))
    walks = []
    for n, key in enumerate(keys):
        first = bool(n % 2)
        walks += [("load", key, first), ("start", key, not first), ("start", key, first)]
    results = run_walks(dut, walks, stall=0.3, seed=22)
    for (action, key, reverse), (got, _) in zip(walks, results):
        assert got == expected_groups(key, 128, reverse), (action, key.hex(), reverse)
