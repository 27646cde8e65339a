"""The host side of CCM (SP 800-38C) in :mod:`aesdse.verify.vectors`: the formatter and the pure-Python
CBC-MAC + CTR over its blocks against ``cryptography``'s AESCCM, RFC 3610 packet vectors, every
CAVP CCM entry of ``cryptography-vectors``, and the CAVP ECB/CBC files the hardware tests
sample."""

import random

import pytest

from aesdse.verify.vectors import (CCM_NONCE_BYTES, CCM_TAG_BYTES, RFC3610, cavp_ccm, cavp_modes,
                            ccm_blocks, ccm_format, oracle_ccm, oracle_mode)

CCM_FILES = [f"ciphers/AES/CCM/{kind}{bits}.rsp"
             for kind in ("DVPT", "VADT", "VNT", "VPT", "VTT") for bits in (128, 192, 256)]


def test_format_sp800_38c_example_1():
    """SP 800-38C Appendix C.1: the formatted blocks B0, B1 (the 2-byte AD length, the AD,
    zero padding), B2 (the payload, zero-padded), Ctr0, and the output."""
    nonce, adata, payload = bytes(range(0x10, 0x17)), bytes(range(8)), bytes(range(0x20, 0x24))
    fmt = ccm_format(nonce, adata, payload, 4)
    assert fmt.header == (0x4f101112131415160000000000000004,
                          0x00080001020304050607000000000000)
    assert fmt.payload == (0x20212223000000000000000000000000,)
    assert fmt.last_bytes == 4
    assert fmt.ctr0 == 0x07101112131415160000000000000000
    key = 0x404142434445464748494a4b4c4d4e4f
    assert ccm_blocks(key, 128, nonce, adata, payload, 4)[1] == bytes.fromhex("7162015b4dac255d")


def test_format_flags_and_lengths():
    fmt = ccm_format(bytes(13), b"", b"", 16)
    assert fmt.header == (0x39 << 120,)       # no Adata bit; (16 - 2) / 2 = 7 << 3; q - 1 = 1
    assert fmt.payload == () and fmt.last_bytes == 16
    fmt = ccm_format(bytes(7), bytes(0xfeff), bytes(17), 6)
    assert fmt.header[1] >> 112 == 0xfeff     # the largest 2-byte AD length
    assert fmt.last_bytes == 1 and len(fmt.payload) == 2
    fmt = ccm_format(bytes(7), bytes(0xff00), b"", 6)
    assert fmt.header[1] >> 80 == 0xfffe0000ff00     # 0xff 0xfe and a 4-byte length


@pytest.mark.parametrize("args,message", [
    ((bytes(6), b"", b"", 4), "Nonce must be 7 to 13 bytes long, not 6"),
    ((bytes(14), b"", b"", 4), "Nonce must be 7 to 13 bytes long, not 14"),
    ((bytes(13), b"", b"", 5), "Tag bytes must be one of 4, 6, 8, 10, 12, 14, 16, not 5"),
    ((bytes(13), b"", bytes(1 << 16), 4), "Payload of 65536 bytes does not fit a 2-byte length"),
])
def test_format_rejects(args, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        ccm_format(*args)


def test_formatter_reproduces_aesccm():
    """Every nonce length, every tag length, associated data of 0/1/14/15/16/17/40 bytes and
    payloads of 0/1/16/33 bytes, mixed key sizes: the CBC-MAC + CTR computed from the formatted
    blocks gives AESCCM's ciphertext and tag, decrypts it back, and rejects a flipped tag bit."""
    rng = random.Random(5)
    checked = 0
    for nonce_bytes in CCM_NONCE_BYTES:
        for tag_bytes in CCM_TAG_BYTES:
            for ad_bytes in (0, 1, 14, 15, 16, 17, 40):
                for payload_bytes in (0, 1, 16, 33):
                    key_bits = rng.choice((128, 192, 256))
                    key = rng.getrandbits(key_bits)
                    nonce, adata, payload = (rng.randbytes(n) for n in
                                             (nonce_bytes, ad_bytes, payload_bytes))
                    blocks, sealed = ccm_blocks(key, key_bits, nonce, adata, payload, tag_bytes)
                    assert sealed == oracle_ccm(key, key_bits, nonce, adata, payload, tag_bytes)
                    ct, tag = sealed[:payload_bytes], sealed[payload_bytes:]
                    _, opened = ccm_blocks(key, key_bits, nonce, adata, ct, tag_bytes,
                                           decrypt=True, tag=tag)
                    assert opened == payload
                    bad = bytes([tag[0] ^ 1 << rng.randrange(8)]) + tag[1:]
                    dec, opened = ccm_blocks(key, key_bits, nonce, adata, ct, tag_bytes,
                                             decrypt=True, tag=bad)
                    assert opened is None and dec[-1].auth_fail
                    assert oracle_ccm(key, key_bits, nonce, adata, ct + bad, tag_bytes,
                                      decrypt=True) is None
                    checked += 1
    assert checked == 7 * 7 * 7 * 4


def test_block_sequence():
    """The per-block results the core must give: the CBC-MAC after each header block, the
    ciphertext (zero past the message) of each payload block, the tag left-aligned."""
    key, nonce, adata, payload = 1, bytes(13), b"ad", bytes(range(20))
    blocks, sealed = ccm_blocks(key, 128, nonce, adata, payload, 8)
    assert [b.phase for b in blocks] == ["header", "header", "payload", "payload", "tag"]
    assert [b.last_bytes for b in blocks] == [16, 16, 16, 4, 16]
    fmt = ccm_format(nonce, adata, payload, 8)
    assert [b.data for b in blocks[:2]] == list(fmt.header)
    ct = int.from_bytes(sealed[:20] + bytes(12), "big")
    assert blocks[2].expected == ct >> 128 and blocks[3].expected == ct & ((1 << 128) - 1)
    assert blocks[4].expected == int.from_bytes(sealed[20:] + bytes(8), "big")
    assert blocks[4].data == 0 and not blocks[4].auth_fail
    # Decryption: the payload blocks carry the ciphertext, zero-padded, and give the payload.
    dec, opened = ccm_blocks(key, 128, nonce, adata, sealed[:20], 8, decrypt=True,
                             tag=sealed[20:])
    assert opened == payload
    assert dec[3].data == ct & ((1 << 128) - 1)
    assert dec[3].expected == int.from_bytes(payload[16:] + bytes(12), "big")
    assert dec[4].data == blocks[4].expected and dec[4].expected == 0


@pytest.mark.parametrize("vector", RFC3610, ids=lambda v: v.source)
def test_rfc3610(vector):
    v = vector
    assert len(v.nonce) == 13 and len(v.ciphertext) == len(v.payload) + v.tag_bytes
    assert oracle_ccm(v.key, 128, v.nonce, v.adata, v.payload, v.tag_bytes) == v.ciphertext
    assert ccm_blocks(v.key, 128, v.nonce, v.adata, v.payload, v.tag_bytes)[1] == v.ciphertext


def test_cavp_ccm_every_entry():
    """All 2880 entries of the 15 CAVP CCM files: a `Pass` entry encrypts to its CT with the
    formatter and with AESCCM; a `Fail` entry (DVPT only) is rejected by both."""
    counts, fails = {}, 0
    for path in CCM_FILES:
        vectors = cavp_ccm(path)
        counts[path.rsplit("/", 1)[1][:-7]] = counts.get(path.rsplit("/", 1)[1][:-7], 0) + \
            len(vectors)
        assert {v.key_bits for v in vectors} == {int(path[-7:-4])}
        for v in vectors:
            ct, tag = v.ciphertext[:-v.tag_bytes], v.ciphertext[-v.tag_bytes:]
            _, opened = ccm_blocks(v.key, v.key_bits, v.nonce, v.adata, ct, v.tag_bytes,
                                   decrypt=True, tag=tag)
            assert opened == v.payload, v.source
            assert oracle_ccm(v.key, v.key_bits, v.nonce, v.adata, v.ciphertext, v.tag_bytes,
                              decrypt=True) == v.payload, v.source
            if v.payload is None:
                fails += 1
            else:
                assert ccm_blocks(v.key, v.key_bits, v.nonce, v.adata, v.payload,
                                  v.tag_bytes)[1] == v.ciphertext, v.source
    assert counts == {"DVPT": 720, "VADT": 990, "VNT": 210, "VPT": 750, "VTT": 210}
    assert fails == 3 * 160


def test_cavp_ecb_cbc_files():
    """The CAVP ECB and CBC KAT and MMT files parse into vectors the ``cryptography`` oracle
    agrees with."""
    total = 0
    for mode in ("ECB", "CBC"):
        for kind in ("GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"):
            for bits in (128, 192, 256):
                vectors = cavp_modes(f"ciphers/AES/{mode}/{mode}{kind}{bits}.rsp")
                assert vectors and {v.key_bits for v in vectors} == {bits}
                for v in vectors:
                    assert oracle_mode(v.mode, v.key, v.key_bits, v.iv,
                                       v.plaintexts) == list(v.ciphertexts), v.source
                    total += 1
    assert total > 2000
