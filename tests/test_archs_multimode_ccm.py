# amaranth: UnusedElaboratable=no
"""CCM (SP 800-38C) in the multi-mode core (seed 003): RFC 3610 packet vectors, a CAVP sample
of every file type and key size (with a ``Result = Fail`` entry that must be rejected), random
AESCCM messages both ways in every key size, a wrong tag rejected, CCM interleaved block by
block with CBC and CTR messages, stalls on both sides, all in one simulation (a multimode
simulator takes ~20 s to build); then the timing of CCM payload blocks."""

import random

from amaranth.hdl import Module
from amaranth.lib import wiring

from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from aesdse.verify.vectors import RFC3610, cavp_ccm, cavp_modes, ccm_blocks, oracle_ccm, oracle_mode
from archs.multimode import CCMPhase, Mode, Multimode

from test_archs_multimode import rtl_run as multimode_rtl_run, shared_core


def key_item(key, key_bits):
    return ("key", {"key": key << (256 - key_bits), "key_bits": key_bits})


def ccm_items(key, key_bits, nonce, adata, data, tag_bytes, *, decrypt=False, tag=None):
    """The blocks of one CCM message as block transfers, with the (data, auth_fail) results the
    core must give, from the pure-Python formatter (tests/test_vectors_ccm.py checks it against
    AESCCM); the outcome (ciphertext and tag, or the payload, or None for a rejected tag)."""
    blocks, outcome = ccm_blocks(key, key_bits, nonce, adata, data, tag_bytes, decrypt=decrypt,
                                 tag=tag)
    items, expected = [], []
    for n, b in enumerate(blocks):
        items.append(("block", {"data": b.data, "decrypt": int(decrypt), "mode": Mode.CCM,
                                "first": int(n == 0), "ccm_phase": CCMPhase[b.phase.upper()],
                                "pad_bytes": 16 - b.last_bytes}))
        expected.append((b.expected, int(b.auth_fail)))
    return items, expected, outcome


def mode_items(mode, key, key_bits, iv, data, decrypt):
    """The blocks of a CBC/CTR message and their results from ``cryptography``."""
    out = oracle_mode(mode, key, key_bits, iv, data, decrypt=decrypt)
    items = [("block", {"data": d, "decrypt": int(decrypt), "mode": Mode[mode.upper()],
                        "first": int(n == 0), "iv": iv}) for n, d in enumerate(data)]
    return items, [(o, 0) for o in out]


def rtl_run(core, items, *, rng, stall_probability):
    """Send ``items`` into ``core`` (a :func:`shared_core`); return the (data, auth_fail)
    results and the edges they came out at."""
    return multimode_rtl_run(core, items, rng=rng, stall_probability=stall_probability,
                             result=lambda payload: (payload.data, payload.auth_fail))


def _smallest(path, *, passes=True):
    """The entry of a CAVP file with the fewest blocks (the simulation is slow)."""
    vectors = [v for v in cavp_ccm(path) if (v.payload is not None) == passes]
    return min(vectors, key=lambda v: (len(v.adata) + 15) // 16 + 2 * ((len(v.ciphertext)
                                                                        - v.tag_bytes + 15) // 16))


def _cavp_sample():
    """One entry of each CAVP CCM file type, the key sizes spread over them, and a DVPT entry
    marked ``Result = Fail``."""
    return [_smallest("ciphers/AES/CCM/DVPT128.rsp"), _smallest("ciphers/AES/CCM/VADT192.rsp"),
            _smallest("ciphers/AES/CCM/VNT256.rsp"), _smallest("ciphers/AES/CCM/VPT128.rsp"),
            _smallest("ciphers/AES/CCM/VTT192.rsp"),
            _smallest("ciphers/AES/CCM/DVPT256.rsp", passes=False)]


def test_ccm_messages_mixed_with_other_modes():
    rng = random.Random(12)
    items, expected, checks = [], [], []

    def add(i, e):
        items.extend(i)
        expected.extend(e)

    # RFC 3610: #1 and #13 sealed, #2 and #24 opened (AES-128).
    for v in RFC3610:
        key_bits, t = 128, v.tag_bytes
        add([key_item(v.key, 128)], [])
        if v.source.endswith(("#1", "#13")):
            i, e, out = ccm_items(v.key, key_bits, v.nonce, v.adata, v.payload, t)
            checks.append((out, v.ciphertext, v.source))
        else:
            ct, tag = v.ciphertext[:-t], v.ciphertext[-t:]
            i, e, out = ccm_items(v.key, key_bits, v.nonce, v.adata, ct, t, decrypt=True,
                                  tag=tag)
            checks.append((out, v.payload, v.source))
        add(i, e)

    # CAVP sample: opened (a Pass entry must give its payload, the Fail entry is rejected).
    for v in _cavp_sample():
        t = v.tag_bytes
        ct, tag = v.ciphertext[:-t], v.ciphertext[-t:]
        i, e, out = ccm_items(v.key, v.key_bits, v.nonce, v.adata, ct, t, decrypt=True, tag=tag)
        checks.append((out, v.payload, v.source))
        add([key_item(v.key, v.key_bits)] + i, e)
    assert checks[-1][1] is None and expected[-1][1] == 1      # the Fail entry's auth_fail

    # Random AESCCM messages in every key size, sealed then opened, one with a wrong tag, each
    # interleaved block by block with a CBC or CTR message under the same key: the CCM
    # registers and the CBC/CTR chain must not disturb each other.
    for n, key_bits in enumerate((128, 192, 256, 192)):
        key = rng.getrandbits(key_bits)
        nonce = rng.randbytes(rng.choice((7, 10, 13)))
        adata, payload = rng.randbytes(rng.choice((0, 5, 17))), rng.randbytes(rng.choice((1, 20)))
        t = rng.choice((4, 10, 16))
        sealed = oracle_ccm(key, key_bits, nonce, adata, payload, t)
        enc_i, enc_e, out = ccm_items(key, key_bits, nonce, adata, payload, t)
        checks.append((out, sealed, f"random #{n} sealed"))
        tag = sealed[len(payload):]
        if n == 3:
            tag = bytes([tag[0] ^ 0x80]) + tag[1:]
        dec_i, dec_e, out = ccm_items(key, key_bits, nonce, adata, sealed[:len(payload)], t,
                                      decrypt=True, tag=tag)
        checks.append((out, payload if n < 3 else None, f"random #{n} opened"))
        mode = ("cbc", "ctr")[n % 2]
        other_i, other_e = mode_items(mode, key, key_bits, rng.getrandbits(128),
                                      [rng.getrandbits(128) for _ in range(3)], n % 3 == 1)
        ccm_i, ccm_e = enc_i + dec_i, enc_e + dec_e
        add([key_item(key, key_bits)], [])
        while ccm_i or other_i:
            take = rng.random() < 0.6 and ccm_i or not other_i
            src_i, src_e = (ccm_i, ccm_e) if take else (other_i, other_e)
            add([src_i.pop(0)], [src_e.pop(0)])
    assert sum(e[1] for e in expected) == 2                     # two rejected tags

    for out, want, source in checks:
        assert out == want, source
    outputs, _ = rtl_run(shared_core(sbox="lut"), items, rng=rng, stall_probability=0.2)
    assert outputs == expected


def test_ccm_payload_cycles():
    """With no stalls, a CCM payload block takes 2 (Nr + 1) cycles (a CTR pass, then a
    CBC-MAC pass through the one datapath), header and tag blocks Nr + 1."""
    rng = random.Random(4)
    key = rng.getrandbits(128)
    items, expected, _ = ccm_items(key, 128, bytes(13), b"", rng.randbytes(64), 8)
    outputs, cycles = rtl_run(shared_core(sbox="lut"), [key_item(key, 128)] + items, rng=rng,
                              stall_probability=0)
    assert outputs == expected
    deltas = [b - a for a, b in zip(cycles, cycles[1:])]
    # B0, 4 payload blocks, tag. A payload block's result leaves after its CTR pass, one pass
    # after B0's; then 22 cycles apart; the tag one MAC pass and its own pass later.
    assert deltas == [11, 22, 22, 22, 22]
    assert Multimode().cycles_per_block(128, ccm_payload=True) == 22


def test_cavp_ecb_cbc_sample():
    """A sample of the CAVP ECB and CBC files (cryptography-vectors) for every key size: the
    first GFSbox entry encrypted, the last VarKey entry decrypted (ECB), a three-block MMT
    message of each section, [ENCRYPT] encrypted and [DECRYPT] decrypted (CBC), with stalls."""
    rng = random.Random(38)
    items, expected = [], []
    for bits in (128, 192, 256):
        mmt = cavp_modes(f"ciphers/AES/CBC/CBCMMT{bits}.rsp")
        sample = [(cavp_modes(f"ciphers/AES/ECB/ECBGFSbox{bits}.rsp")[0], False),
                  (cavp_modes(f"ciphers/AES/ECB/ECBVarKey{bits}.rsp")[-1], True)]
        for section, decrypt in (("ENCRYPT", False), ("DECRYPT", True)):
            sample.append((next(v for v in mmt if len(v.plaintexts) == 3
                                and f" {section} " in v.source), decrypt))
        for v, decrypt in sample:
            data, want = (v.ciphertexts, v.plaintexts) if decrypt else (v.plaintexts,
                                                                        v.ciphertexts)
            i, e = mode_items(v.mode, v.key, bits, v.iv or 0, list(data), decrypt)
            assert [x for x, _ in e] == list(want), v.source
            items += [key_item(v.key, bits)] + i
            expected += e
    outputs, _ = rtl_run(shared_core(sbox="lut"), items, rng=rng, stall_probability=0.2)
    assert outputs == expected


class _TagBlind(wiring.Component):
    """A core that computes CCM correctly but never reports a wrong tag."""

    modes = Multimode.modes

    def __init__(self):
        self.inner = Multimode(sbox="lut")
        super().__init__(self.inner.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = inner = self.inner
        wiring.connect(m, wiring.flipped(self.key), inner.key)
        wiring.connect(m, wiring.flipped(self.i), inner.i)
        m.d.comb += [self.o.valid.eq(inner.o.valid), inner.o.ready.eq(self.o.ready),
                     self.o.payload.data.eq(inner.o.payload.data),
                     self.o.payload.auth_fail.eq(0)]
        return m


def test_verify_stage_catches_a_core_that_accepts_a_wrong_tag():
    result = verify_component(_TagBlind, "cipher",
                              VerifyOptions(random_vectors=0, stall_probability=0),
                              key_sizes=(128, 192, 256), directions=("encrypt", "decrypt"))
    assert not result.ok
    assert result.reason.startswith("mismatch on random CCM message #2 (opened, wrong tag, "
                                    "seed 1) tag block"), result.reason
    assert result.reason.endswith("expected auth_fail=1, got 0"), result.reason
