# amaranth: UnusedElaboratable=no
"""GHASH: the GF(2^128) reference model against published values and ``cryptography``'s AES-GCM,
and every multiplier variant in simulation against the model."""

import os
import random

import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from archs.prims import ghash as gh

ALL_ONES = (1 << 128) - 1


def _reverse128(x):
    return int(f"{x:0128b}"[::-1], 2)


def _clmul_mod_reflected(x, y):
    # Independent model: reverse the bits into polynomial order, carry-less product, long
    # division by x^128 + x^7 + x^2 + x + 1, reverse back.
    a, b, p = _reverse128(x), _reverse128(y), 0
    for k in range(128):
        if (b >> k) & 1:
            p ^= a << k
    for k in range(254, 127, -1):
        if (p >> k) & 1:
            p ^= ((1 << 128) | gh.POLY_LOW) << (k - 128)
    return _reverse128(p)


# --- Reference model ----------------------------------------------------------------------------


def test_model_identity_and_zero():
    rng = random.Random(1)
    for _ in range(20):
        x = rng.getrandbits(128)
        assert gh.gf128_mul(x, gh.ONE) == gh.gf128_mul(gh.ONE, x) == x
        assert gh.gf128_mul(x, 0) == gh.gf128_mul(0, x) == 0


def test_model_against_polynomial_product():
    rng = random.Random(2)
    pairs = [(rng.getrandbits(128), rng.getrandbits(128)) for _ in range(200)]
    pairs += [(ALL_ONES, ALL_ONES), (1, 1), (ALL_ONES, gh.ONE), (1, ALL_ONES)]
    for x, y in pairs:
        assert gh.gf128_mul(x, y) == _clmul_mod_reflected(x, y) == gh.gf128_mul(y, x)


def test_model_x_times_x127_is_the_reduction():
    # x * x^127 = x^128 = 1 + x + x^2 + x^7: in GCM bit order the constant R.
    assert gh.gf128_mul(gh.ONE >> 1, 1) == gh.R


def test_model_refuses_wide_blocks():
    with pytest.raises(ValueError, match="128-bit"):
        gh.gf128_mul(1 << 128, 1)


# McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", 2005, Appendix B, test
# cases 1-6 (AES-128): (K, P, A, IV, C, T, H, GHASH(H, A, C) or None where not typed in).
_P3 = ("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
       "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")
_K3 = "feffe9928665731c6d6a8f9467308308"
_A4 = "feedfacedeadbeeffeedfacedeadbeefabaddad2"
_H3 = "b83b533708bf535d0aa6e52980d53b78"
MCGREW_VIEGA = [
    ("00" * 16, "", "", "00" * 12, "", "58e2fccefa7e3061367f1d57a4e7455a",
     "66e94bd4ef8a2c3b884cfa59ca342b2e", "00" * 16),
    ("00" * 16, "00" * 16, "", "00" * 12, "0388dace60b6a392f328c2b971b2fe78",
     "ab6e47d42cec13bdf53a67b21257bddf", "66e94bd4ef8a2c3b884cfa59ca342b2e",
     "f38cbb1ad69223dcc3457ae5b6b0f885"),
    (_K3, _P3, "", "cafebabefacedbaddecaf888",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985",
     "4d5c2af327cd64a62cf35abd2ba6fab4", _H3, "7f1b32b81b820d02614f8895ac1d4eac"),
    (_K3, _P3[:120], _A4, "cafebabefacedbaddecaf888",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091",
     "5bc94fbc3221a5db94fae95ae7121a47", _H3, "698e57f70e6ecc7fd9463b7260a9ae5f"),
    (_K3, _P3[:120], _A4, "cafebabefacedbad",
     "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c7423"
     "73806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598",
     "3612d2e79e3b0785561be14aaca2fccb", _H3, None),
    (_K3, _P3[:120], _A4,
     "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728"
     "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b",
     "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7"
     "01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5",
     "619cc5aefffe0bfa462af43c1699d050", _H3, None),
]


def _aes_block(key, block: int) -> int:
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return int.from_bytes(encryptor.update(block.to_bytes(16, "big")) + encryptor.finalize(),
                          "big")


def _gcm_tag(key, iv, aad, ciphertext):
    """SP 800-38D section 7.1 steps 1, 2, 5 and 6 from the GHASH model and AES alone."""
    h = _aes_block(key, 0)
    j0 = int.from_bytes(iv, "big") << 32 | 1 if len(iv) == 12 else gh.ghash(h, b"", iv)
    return _aes_block(key, j0) ^ gh.ghash(h, aad, ciphertext), h


@pytest.mark.parametrize("case", range(1, 7))
def test_mcgrew_viega(case):
    key, p, a, iv, c, t, h, s = (bytes.fromhex(v) if v is not None else None
                                 for v in MCGREW_VIEGA[case - 1])
    tag, derived_h = _gcm_tag(key, iv, a, c)
    assert derived_h == int.from_bytes(h, "big")
    if s is not None:
        assert gh.ghash(derived_h, a, c) == int.from_bytes(s, "big")
    assert tag.to_bytes(16, "big") == t
    # The typed-in vectors themselves, against cryptography's AES-GCM.
    assert AESGCM(key).encrypt(iv, p, a) == c + t


@pytest.mark.parametrize("iv_bytes", [12, 8, 16, 60])
def test_model_tag_equals_aesgcm(iv_bytes):
    rng = random.Random(iv_bytes)
    lengths = [(0, 0), (0, 1), (1, 0), (16, 16), (20, 33), (0, 48), (17, 15), (64, 100)]
    lengths += [(rng.randrange(70), rng.randrange(70)) for _ in range(8)]
    for aad_len, payload_len in lengths:
        key = os.urandom(rng.choice((16, 24, 32)))
        iv, aad, payload = os.urandom(iv_bytes), os.urandom(aad_len), os.urandom(payload_len)
        sealed = AESGCM(key).encrypt(iv, payload, aad)
        ciphertext, expected = sealed[:-16], sealed[-16:]
        assert _gcm_tag(key, iv, aad, ciphertext)[0].to_bytes(16, "big") == expected


def test_message_blocks_pad_and_length_block():
    blocks = gh.message_blocks(b"\x01" * 17, b"\x02")
    assert blocks == [int("01" * 16, 16), 0x01 << 120, 0x02 << 120, (17 * 8) << 64 | 8]
    assert gh.message_blocks(b"", b"") == [0]


def test_ghash_refuses_a_length_beyond_the_length_block():
    class Huge(bytes):
        def __len__(self):
            return 1 << 61

    with pytest.raises(ValueError, match="2\\^64 - 1"):
        gh.message_blocks(Huge(), b"")


@pytest.mark.parametrize("n", gh.GHASH_AGGREGATION)
def test_aggregation_equals_ghash(n):
    rng = random.Random(n)
    h = rng.getrandbits(128)
    powers = gh.ghash_powers(h, n)
    assert powers == [gh.gf128_pow(h, k) for k in range(1, n + 1)]
    for count in range(0, 20):
        blocks = [rng.getrandbits(128) for _ in range(count)]
        start = rng.getrandbits(128)
        assert gh.ghash_aggregated(h, blocks, n, start) == gh.ghash_blocks(h, blocks, start)


def test_aggregation_refuses_other_sizes():
    with pytest.raises(ValueError, match="Aggregation"):
        gh.ghash_aggregated(1, [1], 3)


# --- Hardware -----------------------------------------------------------------------------------


def _simulate(dut, pairs, gaps=0.0, seed=0):
    """Stream ``pairs`` into ``dut`` (with ``gaps``: the chance of an idle cycle) and return
    ``(accept cycles, [(result cycle, product)])``."""
    rng = random.Random(seed)
    top = Module()
    top.submodules.dut = dut
    tick = Signal()  # gives a combinational multiplier a clock domain to count cycles in
    top.d.sync += tick.eq(~tick)
    accepted, results = [], []

    async def testbench(ctx):
        k, cycle = 0, 0
        while len(results) < len(pairs):
            offer = k < len(pairs) and rng.random() >= gaps
            ctx.set(dut.i.valid, offer)
            if offer:
                ctx.set(dut.i.payload, {"a": pairs[k][0], "b": pairs[k][1]})
            _, _, ready, valid, product = await ctx.tick().sample(
                dut.i.ready, dut.o.valid, dut.o.payload)
            if offer and ready:
                accepted.append(cycle)
                k += 1
            if valid:
                results.append((cycle, product))
            cycle += 1
            assert cycle < 200 * (len(pairs) + 1), "the multiplier stopped"

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    return accepted, results


def _pairs(count, seed):
    rng = random.Random(seed)
    edges = [(0, 0), (0, ALL_ONES), (gh.ONE, ALL_ONES), (ALL_ONES, gh.ONE), (ALL_ONES, ALL_ONES),
             (gh.ONE, gh.ONE), (1, 1), (gh.ONE >> 1, 1)]
    return edges + [(rng.getrandbits(128), rng.getrandbits(128)) for _ in range(count)]


VARIANTS = [
    ("bit_serial", {}, 10, 128),
    ("digit_serial", {"ghash_digit": 2}, 20, 64),
    ("digit_serial", {"ghash_digit": 8}, 50, 16),
    ("digit_serial", {"ghash_digit": 32}, 50, 4),
    ("digit_serial", {"ghash_digit": 64}, 50, 2),
    ("parallel", {"ghash_stages": 0}, 50, 0),
    ("parallel", {"ghash_stages": 1}, 50, 1),
    ("parallel", {"ghash_stages": 2}, 50, 2),
    ("parallel", {"ghash_stages": 4}, 50, 4),
    ("karatsuba", {"ghash_karatsuba_levels": 1, "ghash_stages": 0}, 50, 0),
    ("karatsuba", {"ghash_karatsuba_levels": 1, "ghash_stages": 2}, 50, 2),
    ("karatsuba", {"ghash_karatsuba_levels": 2, "ghash_stages": 1}, 50, 1),
    ("karatsuba", {"ghash_karatsuba_levels": 2, "ghash_stages": 3}, 50, 3),
    ("karatsuba", {"ghash_karatsuba_levels": 3, "ghash_stages": 4}, 20, 4),
]


@pytest.mark.parametrize("kind, params, count, latency", VARIANTS,
                         ids=[f"{k}-{'-'.join(map(str, p.values()))}" for k, p, _, _ in VARIANTS])
def test_multiplier(kind, params, count, latency):
    dut = gh.make_multiplier(kind, **params)
    assert dut.latency == latency
    pairs = _pairs(count, seed=latency)
    accepted, results = _simulate(dut, pairs)
    assert [product for _, product in results] == [gh.gf128_mul(a, b) for a, b in pairs]
    # Each product comes `latency` cycles after its pair, and at full rate a pair is accepted
    # every `cycles_per_multiply` cycles.
    assert [cycle for cycle, _ in results] == [c + latency for c in accepted]
    assert dut.cycles_per_multiply == (latency if kind.endswith("serial") else 1)
    assert all(b - a == dut.cycles_per_multiply for a, b in zip(accepted, accepted[1:]))


@pytest.mark.parametrize("kind, params", [
    ("digit_serial", {"ghash_digit": 16}),
    ("parallel", {"ghash_stages": 3}),
    ("karatsuba", {"ghash_karatsuba_levels": 1, "ghash_stages": 4}),
])
def test_multiplier_with_idle_cycles(kind, params):
    # A pipeline carries `valid` with its operands: idle input cycles leave holes, not garbage.
    dut = gh.make_multiplier(kind, **params)
    pairs = _pairs(20, seed=7)
    accepted, results = _simulate(dut, pairs, gaps=0.4, seed=3)
    assert [product for _, product in results] == [gh.gf128_mul(a, b) for a, b in pairs]
    assert [cycle for cycle, _ in results] == [c + dut.latency for c in accepted]


@pytest.mark.parametrize("kind, params, message", [
    ("hybrid", {}, "GHASH multiplier"),
    ("digit_serial", {"ghash_digit": 3}, "Digit"),
    ("parallel", {"ghash_stages": 5}, "Stages"),
    ("karatsuba", {"ghash_karatsuba_levels": 0}, "Karatsuba levels"),
])
def test_make_multiplier_refuses(kind, params, message):
    with pytest.raises(ValueError, match=message):
        gh.make_multiplier(kind, **params)


# --- GHASH accumulator --------------------------------------------------------------------------


def _accumulate(dut, keyed_messages):
    """Send ``[(h, [blocks])]`` through ``dut``: each H (when it changes), then the message's
    blocks back to back; return the hashes and the cycles from first to last block accepted."""
    hashes, spans = [], []

    async def testbench(ctx):
        current_h, cycle = None, 0
        for h, blocks in keyed_messages:
            if h != current_h:
                ctx.set(dut.h.payload, h)
                ctx.set(dut.h.valid, 1)
                await ctx.tick().until(dut.h.ready)
                ctx.set(dut.h.valid, 0)
                current_h = h
            first = None
            for k, block in enumerate(blocks):
                ctx.set(dut.i.payload, {"data": block, "last": k == len(blocks) - 1})
                ctx.set(dut.i.valid, 1)
                while True:
                    _, _, ready, valid, result = await ctx.tick().sample(
                        dut.i.ready, dut.o.valid, dut.o.payload)
                    cycle += 1
                    assert cycle < 10_000, "the accumulator stopped"
                    if valid:
                        hashes.append(result)
                    if ready:
                        break
                first = cycle if first is None else first
            spans.append(cycle - first)
            ctx.set(dut.i.valid, 0)
            # Wait for each message's hash before a new key may be loaded.
            while len(hashes) < len(spans):
                _, _, valid, result = await ctx.tick().sample(dut.o.valid, dut.o.payload)
                cycle += 1
                assert cycle < 10_000, "no hash came out"
                if valid:
                    hashes.append(result)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    return hashes, spans


ACCUMULATORS = [
    (1, {"ghash": "parallel", "ghash_stages": 0}),
    (2, {"ghash": "parallel", "ghash_stages": 1}),
    (4, {"ghash": "karatsuba", "ghash_karatsuba_levels": 1, "ghash_stages": 2}),
    (8, {"ghash": "parallel", "ghash_stages": 4}),
    (2, {"ghash": "karatsuba", "ghash_karatsuba_levels": 2, "ghash_stages": 3}),
    (4, {"ghash": "digit_serial", "ghash_digit": 32}),
]


@pytest.mark.parametrize("aggregation, multiplier", ACCUMULATORS,
                         ids=[f"{n}-{'-'.join(map(str, p.values()))}" for n, p in ACCUMULATORS])
def test_accumulator(aggregation, multiplier):
    rng = random.Random(aggregation)
    h1, h2 = rng.getrandbits(128), rng.getrandbits(128)
    lengths = [1, 2, 3, aggregation, aggregation + 1, 2 * aggregation + 3, 9, 1, 17]
    messages = [(h1 if k < 6 else h2, [rng.getrandbits(128) for _ in range(length)])
                for k, length in enumerate(lengths)]
    dut = gh.GHASHAccumulator(aggregation, **multiplier)
    hashes, spans = _accumulate(dut, messages)
    assert hashes == [gh.ghash_blocks(h, blocks) for h, blocks in messages]
    latency, interval = dut.multiplier.latency, dut.multiplier.cycles_per_multiply
    if aggregation >= latency + 1 and interval == 1:
        # Enough lanes to hide the multiplier's latency: one block per cycle.
        assert spans[-1] == lengths[-1] - 1


def test_accumulator_hashes_a_gcm_message():
    key = bytes(range(16))
    iv, aad, payload = bytes(12), b"header bytes", bytes(range(50))
    sealed = AESGCM(key).encrypt(iv, payload, aad)
    h = _aes_block(key, 0)
    dut = gh.GHASHAccumulator(4, ghash="parallel", ghash_stages=2)
    hashes, _ = _accumulate(dut, [(h, gh.message_blocks(aad, sealed[:-16]))])
    expected_tag = sealed[-16:]
    j0 = int.from_bytes(iv, "big") << 32 | 1
    assert (hashes[0] ^ _aes_block(key, j0)).to_bytes(16, "big") == expected_tag


@pytest.mark.parametrize("digit", [1, 4, 16, 64])
def test_serial_accumulator(digit):
    rng = random.Random(digit)
    h1, h2 = rng.getrandbits(128), rng.getrandbits(128)
    lengths = [1, 2, 3, 1, 5, 2]
    messages = [(h1 if k < 3 else h2, [rng.getrandbits(128) for _ in range(length)])
                for k, length in enumerate(lengths)]
    dut = gh.SerialGHASHAccumulator(digit)
    hashes, spans = _accumulate(dut, messages)
    assert hashes == [gh.ghash_blocks(h, blocks) for h, blocks in messages]
    # Back to back: one block every 128 / d + 1 cycles.
    assert spans[4] == (lengths[4] - 1) * dut.cycles_per_block


def test_serial_accumulation_takes_serial_multipliers_without_aggregation():
    assert gh.serial_accumulation(1, ghash="digit_serial", ghash_digit=16) == 16
    assert gh.serial_accumulation(1, ghash="bit_serial") == 1
    assert gh.serial_accumulation(2, ghash="digit_serial") is None
    assert gh.serial_accumulation(1, ghash="parallel", ghash_stages=2) is None
