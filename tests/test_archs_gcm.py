# amaranth: UnusedElaboratable=no
"""AES-GCM (SP 800-38D): the formatter of aesdse/verify/gcm_vectors.py against ``cryptography``
and the NIST files; :class:`archs.gcm.GCMCore` around the iterative and the unrolled cipher in
simulation: the McGrew-Viega cases, random messages both ways (empty AAD and payload, partial
last blocks, IVs of 96 bits and others, truncated tags), a wrong tag that must raise
``auth_fail``, a sample of the NIST files, with stalls on both sides."""

import random

import pytest
from amaranth.hdl import Module

from aesdse.verify.gcm_vectors import (GCM_FILES, MCGREW_VIEGA, cavp_gcm, check_gcm_lengths,
                                       gcm_blocks, oracle_gcm)
from aesdse.verify.testbench import (EdgeClock, random_gaps, random_ready, run_testbenches,
                                     stream_get, stream_put)
from archs.gcm import GCMCore, GCMPhase
from archs.compact import Compact
from archs.iterative import Iterative
from archs.multimode import Multimode
from archs.unrolled import Unrolled


# --- The formatter ------------------------------------------------------------------------------


def test_formatter_matches_the_nist_files_and_cryptography():
    """Every entry of the six NIST GCM files: the formatter's outcome is the file's (a FAIL
    entry rejected), and ``cryptography``'s where it takes the IV (8 bytes or more)."""
    seen = {"fail": 0, "short_iv": 0}
    for path in GCM_FILES:
        decrypt = "Decrypt" in path
        for v in cavp_gcm(path):
            t = len(v.tag)
            data = v.ciphertext if decrypt else v.plaintext
            _, out = gcm_blocks(v.key, v.key_bits, v.iv, v.aad, data, t, decrypt=decrypt,
                                tag=v.tag if decrypt else None)
            want = v.plaintext if decrypt else v.ciphertext + v.tag
            assert out == want, v.source
            if len(v.iv) >= 8:
                assert out == oracle_gcm(v.key, v.key_bits, v.iv, v.aad, data, t,
                                         decrypt=decrypt, tag=v.tag if decrypt else None)
            seen["fail"] += v.plaintext is None
            seen["short_iv"] += len(v.iv) < 8
    assert seen["fail"] > 10_000 and seen["short_iv"] > 10_000


def test_formatter_mcgrew_viega():
    for v in MCGREW_VIEGA:
        _, out = gcm_blocks(v.key, 128, v.iv, v.aad, v.plaintext)
        assert out == v.ciphertext + v.tag, v.source
        _, out = gcm_blocks(v.key, 128, v.iv, v.aad, v.ciphertext, decrypt=True, tag=v.tag)
        assert out == v.plaintext, v.source


def test_formatter_blocks():
    """The block transfers: IV, AAD, payload (partial last block), tag; a wrong tag."""
    key, iv, aad, payload = 7, bytes(range(12)), bytes(20), bytes(range(33))
    blocks, sealed = gcm_blocks(key, 128, iv, aad, payload, 12)
    assert [(b.phase, b.bytes, b.first, b.last) for b in blocks] == [
        ("iv", 12, True, True), ("aad", 16, False, False), ("aad", 4, False, False),
        ("payload", 16, False, False), ("payload", 16, False, False),
        ("payload", 1, False, False), ("tag", 12, False, False)]
    assert blocks[-1].expected.to_bytes(16, "big") == sealed[-12:] + bytes(4)
    wrong = bytes([sealed[-1] ^ 1])
    blocks, out = gcm_blocks(key, 128, iv, aad, sealed[:-12], 12, decrypt=True,
                             tag=sealed[-12:-1] + wrong)
    assert out is None and blocks[-1].auth_fail and blocks[-1].expected == 0


@pytest.mark.parametrize("iv, aad, data, tag_bytes, message", [
    (b"", b"", b"", 16, "must not be empty"),
    (bytes(12), b"", b"", 10, "Tag bytes must be one of"),
])
def test_formatter_refuses(iv, aad, data, tag_bytes, message):
    with pytest.raises(ValueError, match=message):
        check_gcm_lengths(iv, aad, data, tag_bytes)


def test_formatter_refuses_a_long_payload():
    class Long(bytes):
        def __len__(self):
            return 1 << 36
    with pytest.raises(ValueError, match=r"2\^39 - 256"):
        check_gcm_lengths(bytes(12), b"", Long(), 16)


# --- The core in simulation --------------------------------------------------------------------


def key_item(key, key_bits=128):
    return ("key", {"key": key})


def gcm_items(key, key_bits, iv, aad, data, tag_bytes=16, *, decrypt=False, tag=None):
    """A key transfer and the blocks of one message, the (data, auth_fail) results the core
    must give, and the outcome (checked against ``cryptography`` by the caller)."""
    blocks, outcome = gcm_blocks(key, key_bits, iv, aad, data, tag_bytes, decrypt=decrypt,
                                 tag=tag)
    items = [key_item(key, key_bits)]
    for b in blocks:
        items.append(("block", {"data": b.data, "phase": GCMPhase[b.phase.upper()],
                                "bytes": b.bytes, "first": int(b.first), "last": int(b.last),
                                "decrypt": int(decrypt)}))
    return items, [(b.expected, int(b.auth_fail)) for b in blocks], outcome


def rtl_run(dut, items, *, rng, stall_probability):
    """Send ``items`` into ``dut``; return the (data, auth_fail) results and their edges."""
    count = sum(1 for kind, _ in items if kind == "block")
    outputs, cycles = [], []
    gaps = random_gaps(rng, stall_probability)

    async def producer(ctx):
        clock = EdgeClock()
        for kind, payload in items:
            await clock.idle(ctx, gaps())
            await stream_put(ctx, dut.key if kind == "key" else dut.i, payload, clock=clock,
                             timeout=5000)

    async def consumer(ctx):
        clock = EdgeClock()
        ready = random_ready(rng, stall_probability)
        while len(outputs) < count:
            payload = await stream_get(ctx, dut.o, clock=clock, ready=ready, timeout=5000)
            outputs.append((payload.data, payload.auth_fail))
            cycles.append(clock.now)

    run_testbenches(dut, producer, consumer)
    return outputs, cycles


def random_messages(rng, count, key_bits=128):
    """Random messages, sealed then opened (the last one opened with a wrong tag): AAD and
    payload lengths including 0 and partial blocks, IVs of 12 bytes and others, tags of
    every length; each checked against ``cryptography``."""
    items, expected = [], []
    lengths = [(0, 0), (0, 17), (13, 0), (16, 32), (5, 40)]
    for n in range(count):
        key = rng.getrandbits(key_bits)
        aad_len, data_len = lengths[n] if n < len(lengths) else (rng.randrange(40),
                                                                 rng.randrange(50))
        iv = rng.randbytes(rng.choice((12, 12, 8, 16, 20, 60)))
        aad, data = rng.randbytes(aad_len), rng.randbytes(data_len)
        t = rng.choice((16, 16, 12, 8, 4, 15))
        i, e, sealed = gcm_items(key, key_bits, iv, aad, data, t)
        assert sealed == oracle_gcm(key, key_bits, iv, aad, data, t)
        items += i
        expected += e
        tag = sealed[len(data):]
        wrong = n == count - 1
        if wrong:
            tag = bytes([tag[0] ^ 0x40]) + tag[1:]
        i, e, opened = gcm_items(key, key_bits, iv, aad, sealed[:len(data)], t, decrypt=True,
                                 tag=tag)
        assert opened == oracle_gcm(key, key_bits, iv, aad, sealed[:len(data)], t,
                                    decrypt=True, tag=tag)
        assert (opened is None) == wrong
        items += i
        expected += e
    return items, expected


def nist_sample(key_bits, rng, per_file=4):
    """Entries of the encrypt and decrypt files for ``key_bits`` with at most 4 payload and 4
    AAD blocks: ``per_file`` of each, FAIL entries and IVs other than 96 bits among them."""
    items, expected = [], []
    for kind in ("EncryptExtIV", "Decrypt"):
        decrypt = kind == "Decrypt"
        vectors = [v for v in cavp_gcm(f"ciphers/AES/GCM/gcm{kind}{key_bits}.rsp")
                   if len(v.ciphertext) <= 64 and len(v.aad) <= 64 and len(v.iv) <= 64]
        chosen = rng.sample(vectors, per_file)
        if decrypt:
            chosen.append(next(v for v in vectors if v.plaintext is None and len(v.iv) != 12))
        else:
            chosen.append(next(v for v in vectors if len(v.iv) == 1))
        for v in chosen:
            data = v.ciphertext if decrypt else v.plaintext
            i, e, out = gcm_items(v.key, key_bits, v.iv, v.aad, data, len(v.tag),
                                  decrypt=decrypt, tag=v.tag if decrypt else None)
            assert out == (v.plaintext if decrypt else v.ciphertext + v.tag), v.source
            items += i
            expected += e
    return items, expected


MULTIPLIERS = [
    (1, {"ghash": "parallel", "ghash_stages": 0}),
    (4, {"ghash": "karatsuba", "ghash_karatsuba_levels": 1, "ghash_stages": 2}),
    (2, {"ghash": "digit_serial", "ghash_digit": 32}),
    # The lean wrapper, with the serial accumulator and with the aggregating one.
    (1, {"ghash": "digit_serial", "ghash_digit": 16, "gcm_wrapper": "lean"}),
    (2, {"ghash": "parallel", "ghash_stages": 1, "gcm_wrapper": "lean"}),
]


@pytest.mark.parametrize("aggregation, multiplier", MULTIPLIERS,
                         ids=["-".join(map(str, (n, *p.values()))) for n, p in MULTIPLIERS])
def test_iterative_gcm(aggregation, multiplier):
    """McGrew-Viega 1-6 sealed and opened, random messages, a NIST sample, stalls."""
    rng = random.Random(aggregation)
    items, expected = [], []
    for v in MCGREW_VIEGA:
        i, e, out = gcm_items(v.key, 128, v.iv, v.aad, v.plaintext)
        assert out == v.ciphertext + v.tag
        items += i
        expected += e
        i, e, out = gcm_items(v.key, 128, v.iv, v.aad, v.ciphertext, decrypt=True, tag=v.tag)
        items += i
        expected += e
    i, e = random_messages(rng, 6)
    items += i
    expected += e
    i, e = nist_sample(128, rng, per_file=2)
    items += i
    expected += e
    assert sum(fail for _, fail in expected) >= 2
    dut = GCMCore(Iterative(sbox="lut"), ghash_aggregation=aggregation, **multiplier)
    outputs, _ = rtl_run(dut, items, rng=rng, stall_probability=0.2)
    assert outputs == expected


def test_unrolled_gcm_256():
    """The fully pipelined cipher (AES-256), blocks in flight, the 256-bit NIST files."""
    rng = random.Random(256)
    items, expected = random_messages(rng, 4, key_bits=256)
    i, e = nist_sample(256, rng, per_file=2)
    items += i
    expected += e
    dut = GCMCore(Unrolled(round_units=14, key_bits=256, sbox="lut"), ghash_aggregation=2,
                  ghash="parallel", ghash_stages=1)
    outputs, _ = rtl_run(dut, items, rng=rng, stall_probability=0.1)
    assert outputs == expected


def test_throughput_of_aad_and_payload():
    """No stalls: AAD blocks pass one per cycle (no cipher), payload blocks at the cipher's
    rate (iterative: 10 cycles per block, after the first)."""
    rng = random.Random(3)
    key = rng.getrandbits(128)
    items, expected, _ = gcm_items(key, 128, bytes(12), rng.randbytes(16 * 12),
                                   rng.randbytes(16 * 6))
    dut = GCMCore(Iterative(sbox="lut"), ghash_aggregation=2, ghash="parallel", ghash_stages=1)
    outputs, cycles = rtl_run(dut, items, rng=rng, stall_probability=0)
    assert outputs == expected
    deltas = [b - a for a, b in zip(cycles, cycles[1:])]
    assert deltas[1:12] == [1] * 11                 # the 12 AAD blocks
    assert deltas[13:18] == [10] * 5                # payload blocks 2..6


@pytest.mark.parametrize("wrapper", ["full", "lean"])
def test_compact_gcm(wrapper):
    """The compact cipher (32-bit datapath, 128-bit port) with a digit-serial GHASH."""
    rng = random.Random(32)
    items, expected = random_messages(rng, 3)
    v = MCGREW_VIEGA[4]                                 # a 64-bit IV, hashed
    i, e, out = gcm_items(v.key, 128, v.iv, v.aad, v.plaintext)
    assert out == v.ciphertext + v.tag
    dut = GCMCore(Compact(datapath_width=32), ghash="digit_serial", ghash_digit=8,
                  gcm_wrapper=wrapper)
    outputs, _ = rtl_run(dut, items + i, rng=rng, stall_probability=0.1)
    assert outputs == expected + e


def test_refuses_a_cipher_with_block_fields_and_bad_ghash_parameters():
    with pytest.raises(ValueError, match="without extra block fields"):
        GCMCore(Multimode())
    with pytest.raises(ValueError, match="Aggregation must be one of"):
        GCMCore(Iterative(), ghash_aggregation=3, ghash="parallel")
    with pytest.raises(ValueError, match="Digit must be one of"):
        GCMCore(Iterative(), ghash="digit_serial", ghash_digit=3)


def test_inc32_wraps_in_32_bits():
    """inc32 (SP 800-38D section 6.2) leaves the leftmost 96 bits alone when the counter wraps,
    unlike the mod 2^128 increment of CTR in archs/multimode/."""
    from amaranth.hdl import Const
    from amaranth.sim import Simulator
    from archs.gcm import inc32
    seen = []

    async def testbench(ctx):
        for value in (0x1234 << 32 | 0xFFFFFFFF, 7 << 32 | 5):
            seen.append(ctx.get(inc32(Const(value, 128))))
    sim = Simulator(Module())
    sim.add_testbench(testbench)
    sim.run()
    assert seen == [0x1234 << 32, 7 << 32 | 6]
