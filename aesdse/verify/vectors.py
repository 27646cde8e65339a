"""Test vectors: the standards' known answers and random vectors from the ``cryptography`` oracle.

Known-answer vectors are transcribed from the standards (the ``cryptography-vectors`` package does
not carry FIPS-197 Appendix C or SP 800-38A Appendix F, docs/toolchain.md). Random vectors are
computed by ``cryptography`` (pyca), an implementation independent of :mod:`aesdse.verify.reference`.

What a verify run checks (:class:`aesdse.spec.schema.VerifyOptions`) comes from here:
:func:`cipher_block_vectors` gives the single blocks every cipher core gets, and
:func:`mode_messages` the multi-block messages of a core that chains blocks itself. Besides the
sample of the standards and the random vectors they hold, on request, every NIST CAVP AESAVS
KAT and MMT file of ``cryptography-vectors`` (``cavp="all"``) and the AESAVS Monte Carlo test
(``monte_carlo``, :func:`aesavs_monte_carlo`). Every vector names its ``source``;
:func:`source_category` maps a source to a stable category for counting checks by source.
"""

import random
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache

from .backends import resolved_options

__all__ = ["BlockVector", "FIPS197", "SP800_38A_ECB", "SP800_38A_CTR", "ModeVector",
           "SP800_38A_MODES", "random_vectors", "oracle_encrypt", "oracle_decrypt", "oracle_mode",
           "CCM_TAG_BYTES", "CCM_NONCE_BYTES", "CCMFormat", "ccm_format", "CCMBlock",
           "ccm_blocks", "oracle_ccm", "CCMVector", "RFC3610", "cavp_ccm", "cavp_modes",
           "vector_directions", "CAVP_KINDS", "cavp_entries", "cavp_block_vectors",
           "rfc3686_ctr", "AESAVS_MCT_SEEDS", "aesavs_monte_carlo", "monte_carlo_block_vectors",
           "cipher_block_vectors", "mode_messages", "source_category", "count_by_category"]


# Slots: a Monte Carlo test is 100,000 vectors per key size and direction.
@dataclass(frozen=True, slots=True)
class BlockVector:
    """One block cipher known answer: key, plaintext and ciphertext as big-endian integers.

    ``direction`` is None for a vector checked in every direction a core supports, or the one
    direction its source gives (``"encrypt"``, ``"decrypt"``: a CAVP ``[DECRYPT]`` entry, a
    Monte Carlo chain), see :func:`vector_directions`.
    """
    key: int
    key_bits: int
    plaintext: int
    ciphertext: int
    source: str
    direction: str | None = None


def vector_directions(vector, directions) -> tuple:
    """The directions to check ``vector`` (a :class:`BlockVector` or :class:`ModeVector`) in, of
    the ``directions`` a core supports: its own ``direction`` when the core supports that, else
    all of them (the vector states one relation, which holds either way)."""
    if vector.direction is None or vector.direction not in directions:
        return tuple(directions)
    return (vector.direction,)


def _v(key, pt, ct, source):
    return BlockVector(int(key, 16), 4 * len(key), int(pt, 16), int(ct, 16), source)


#: FIPS-197 Appendix C.1-C.3 (example vectors for each key size).
FIPS197 = (
    _v("000102030405060708090a0b0c0d0e0f", "00112233445566778899aabbccddeeff",
       "69c4e0d86a7b0430d8cdb78070b4c55a", "FIPS-197 C.1"),
    _v("000102030405060708090a0b0c0d0e0f1011121314151617", "00112233445566778899aabbccddeeff",
       "dda97ca4864cdfe06eaf70a0ec0d7191", "FIPS-197 C.2"),
    _v("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
       "00112233445566778899aabbccddeeff", "8ea2b7ca516745bfeafc49904b496089", "FIPS-197 C.3"),
    # FIPS-197 Appendix B (the cipher example worked step by step).
    _v("2b7e151628aed2a6abf7158809cf4f3c", "3243f6a8885a308d313198a2e0370734",
       "3925841d02dc09fbdc118597196a0b32", "FIPS-197 B"),
)

_SP800_38A_KEY = "2b7e151628aed2a6abf7158809cf4f3c"
_SP800_38A_PT = ("6bc1bee22e409f96e93d7e117393172a", "ae2d8a571e03ac9c9eb76fac45af8e51",
                 "30c81c46a35ce411e5fbc1191a0a52ef", "f69f2445df4f9b17ad2b417be66c3710")

#: SP 800-38A F.1.1 ECB-AES128.Encrypt.
SP800_38A_ECB = tuple(
    _v(_SP800_38A_KEY, pt, ct, f"SP 800-38A F.1.1 block {n + 1}")
    for n, (pt, ct) in enumerate(zip(_SP800_38A_PT, (
        "3ad77bb40d7a3660a89ecaf32466ef97", "f5d3d58503b9699de785895a96fdbaaf",
        "43b1cd7f598ece23881b00e3ed030688", "7b0c785e27e8ad3f8223207104725dd4"))))

#: SP 800-38A F.5.1 CTR-AES128.Encrypt: (key, initial counter block, plaintext, ciphertext).
SP800_38A_CTR = (
    int(_SP800_38A_KEY, 16),
    int("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", 16),
    tuple(int(pt, 16) for pt in _SP800_38A_PT),
    tuple(int(ct, 16) for ct in (
        "874d6191b620e3261bef6864990db6ce", "9806f66b7970fdff8617187bb9fffdff",
        "5ae4df3edbd5d35e5b4f09020db03eab", "1e031dda2fbe03d1792170a0f3009cee")),
)


@dataclass(frozen=True)
class ModeVector:
    """One multi-block message of a confidentiality mode (SP 800-38A): ``mode`` is ``"ecb"``,
    ``"cbc"`` or ``"ctr"``; ``iv`` the IV (CBC), the initial counter block (CTR) or None (ECB);
    blocks and key are big-endian integers, the message in its encryption form (``plaintexts``
    encrypt to ``ciphertexts``, whichever way it is checked)."""
    mode: str
    key: int
    key_bits: int
    iv: int | None
    plaintexts: tuple
    ciphertexts: tuple
    source: str
    #: As :attr:`BlockVector.direction`: None, or the one direction the source gives.
    direction: str | None = None


_SP800_38A_KEYS = {
    128: _SP800_38A_KEY,
    192: "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
    256: "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
}
_SP800_38A_IV = {"ecb": None, "cbc": "000102030405060708090a0b0c0d0e0f",
                 "ctr": "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"}
# (mode, key bits) -> (section of Appendix F, the four ciphertext blocks of "Encrypt").
_SP800_38A_CT = {
    ("ecb", 128): ("F.1.1", ("3ad77bb40d7a3660a89ecaf32466ef97", "f5d3d58503b9699de785895a96fdbaaf",
                             "43b1cd7f598ece23881b00e3ed030688", "7b0c785e27e8ad3f8223207104725dd4")),
    ("ecb", 192): ("F.1.3", ("bd334f1d6e45f25ff712a214571fa5cc", "974104846d0ad3ad7734ecb3ecee4eef",
                             "ef7afd2270e2e60adce0ba2face6444e", "9a4b41ba738d6c72fb16691603c18e0e")),
    ("ecb", 256): ("F.1.5", ("f3eed1bdb5d2a03c064b5a7e3db181f8", "591ccb10d410ed26dc5ba74a31362870",
                             "b6ed21b99ca6f4f9f153e7b1beafed1d", "23304b7a39f9f3ff067d8d8f9e24ecc7")),
    ("cbc", 128): ("F.2.1", ("7649abac8119b246cee98e9b12e9197d", "5086cb9b507219ee95db113a917678b2",
                             "73bed6b8e3c1743b7116e69e22229516", "3ff1caa1681fac09120eca307586e1a7")),
    ("cbc", 192): ("F.2.3", ("4f021db243bc633d7178183a9fa071e8", "b4d9ada9ad7dedf4e5e738763f69145a",
                             "571b242012fb7ae07fa9baac3df102e0", "08b0e27988598881d920a9e64f5615cd")),
    ("cbc", 256): ("F.2.5", ("f58c4c04d6e5f1ba779eabfb5f7bfbd6", "9cfc4e967edb808d679f777bc6702c7d",
                             "39f23369a9d9bacfa530e26304231461", "b2eb05e2c39be9fcda6c19078c6a9d1b")),
    ("ctr", 128): ("F.5.1", ("874d6191b620e3261bef6864990db6ce", "9806f66b7970fdff8617187bb9fffdff",
                             "5ae4df3edbd5d35e5b4f09020db03eab", "1e031dda2fbe03d1792170a0f3009cee")),
    ("ctr", 192): ("F.5.3", ("1abc932417521ca24f2b0459fe7e6e0b", "090339ec0aa6faefd5ccc2c6f4ce8e94",
                             "1e36b26bd1ebc670d1bd1d665620abf7", "4f78a7f6d29809585a97daec58c6b050")),
    ("ctr", 256): ("F.5.5", ("601ec313775789a5b7a7f504bbf3d228", "f443e3ca4d62b59aca84e990cacaf5c5",
                             "2b0930daa23de94ce87017ba2d84988d", "dfc9c58db67aada613c2dd08457941a6")),
}

#: SP 800-38A Appendix F.1 (ECB), F.2 (CBC) and F.5 (CTR), every key size, as encryptions; the
#: "Decrypt" examples (F.1.2, F.2.2, ...) are the same blocks the other way round.
SP800_38A_MODES = tuple(
    ModeVector(mode, int(_SP800_38A_KEYS[key_bits], 16), key_bits,
               None if _SP800_38A_IV[mode] is None else int(_SP800_38A_IV[mode], 16),
               tuple(int(pt, 16) for pt in _SP800_38A_PT), tuple(int(ct, 16) for ct in cts),
               f"SP 800-38A {section} {mode.upper()}-AES{key_bits}")
    for (mode, key_bits), (section, cts) in _SP800_38A_CT.items())


def oracle_mode(mode: str, key: int, key_bits: int, iv: int | None, blocks, *,
                decrypt: bool = False) -> list[int]:
    """Encrypt (or decrypt) a message of 128-bit blocks in ``mode`` with ``cryptography``."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    if mode == "ecb":
        how = modes.ECB()
    elif mode == "cbc":
        how = modes.CBC(iv.to_bytes(16, "big"))
    elif mode == "ctr":
        how = modes.CTR(iv.to_bytes(16, "big"))
    else:
        raise ValueError(f"Mode must be 'ecb', 'cbc' or 'ctr', not {mode!r}")
    cipher = Cipher(algorithms.AES(key.to_bytes(key_bits // 8, "big")), how)
    ctx = cipher.decryptor() if decrypt else cipher.encryptor()
    out = ctx.update(b"".join(b.to_bytes(16, "big") for b in blocks)) + ctx.finalize()
    return [int.from_bytes(out[16 * n:16 * n + 16], "big") for n in range(len(out) // 16)]


def _cipher(key: int, key_bits: int):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    return Cipher(algorithms.AES(key.to_bytes(key_bits // 8, "big")), modes.ECB())


def oracle_encrypt(key: int, block: int, key_bits: int = 128) -> int:
    """Encrypt one block with ``cryptography`` (the independent oracle)."""
    enc = _cipher(key, key_bits).encryptor()
    return int.from_bytes(enc.update(block.to_bytes(16, "big")) + enc.finalize(), "big")


def oracle_decrypt(key: int, block: int, key_bits: int = 128) -> int:
    """Decrypt one block with ``cryptography``."""
    dec = _cipher(key, key_bits).decryptor()
    return int.from_bytes(dec.update(block.to_bytes(16, "big")) + dec.finalize(), "big")


def random_vectors(count: int, *, key_bits: int = 128, seed: int = 0) -> list[BlockVector]:
    """``count`` random (key, plaintext) pairs with ciphertexts from the ``cryptography`` oracle.

    Deterministic for a given ``seed`` so that a failure can be replayed.
    """
    rng = random.Random(seed)
    out = []
    for n in range(count):
        key = rng.getrandbits(key_bits)
        pt = rng.getrandbits(128)
        out.append(BlockVector(key, key_bits, pt, oracle_encrypt(key, pt, key_bits),
                               f"random #{n} (seed {seed})"))
    return out


# --- CCM (NIST SP 800-38C) --------------------------------------------------------------------
#
# The host side of CCM: the formatting function of SP 800-38C Appendix A.2 (B0, the encoded
# associated data, the padded payload, the counter blocks) and a pure-Python CBC-MAC + CTR over
# the formatted blocks. Tests check the pair against ``cryptography``'s AESCCM; the hardware of
# :mod:`archs.multimode` chains the formatted blocks and is checked against both.

#: Tag lengths in bytes that SP 800-38C allows (A.1: t in {4, 6, 8, 10, 12, 14, 16}).
CCM_TAG_BYTES = (4, 6, 8, 10, 12, 14, 16)
#: Nonce lengths in bytes (A.1: n in {7, ..., 13}, so that q = 15 - n is 2..8).
CCM_NONCE_BYTES = tuple(range(7, 14))


@dataclass(frozen=True)
class CCMFormat:
    """A message formatted for CCM (SP 800-38C A.2), blocks as big-endian 128-bit integers.

    Attributes
    ----------
    header : tuple of int
        B0 (A.2.1: flags, nonce, payload length) followed by the associated-data blocks (A.2.2:
        its length encoding, the data, zero padding); the CBC-MAC only.
    payload : tuple of int
        The payload, zero-padded to whole blocks (A.2.3).
    last_bytes : int
        Message bytes in the last payload block, 1..16 (16 when there is no payload).
    ctr0 : int
        Counter block 0 (A.3: flags q - 1, nonce, counter 0); Ctr_i = ctr0 + i.
    tag_bytes : int
        Tag length t in bytes.
    """
    header: tuple
    payload: tuple
    last_bytes: int
    ctr0: int
    tag_bytes: int


def _blocks_of(data: bytes) -> tuple:
    padded = data + bytes(-len(data) % 16)
    return tuple(int.from_bytes(padded[n:n + 16], "big") for n in range(0, len(padded), 16))


def ccm_format(nonce: bytes, adata: bytes, payload: bytes, tag_bytes: int) -> CCMFormat:
    """Format a CCM message (SP 800-38C A.2 and A.3).

    Raises
    ------
    ValueError
        If the nonce or tag length is not allowed, or the payload too long for the nonce.
    """
    if len(nonce) not in CCM_NONCE_BYTES:
        raise ValueError(f"Nonce must be 7 to 13 bytes long, not {len(nonce)}")
    if tag_bytes not in CCM_TAG_BYTES:
        raise ValueError(f"Tag bytes must be one of 4, 6, 8, 10, 12, 14, 16, not {tag_bytes!r}")
    q = 15 - len(nonce)
    if len(payload) >= 1 << (8 * q):
        raise ValueError(f"Payload of {len(payload)} bytes does not fit a {q}-byte length")
    # A.2.1: flags = Reserved(0) | Adata | (t - 2) / 2 | q - 1.
    flags = (64 if adata else 0) | ((tag_bytes - 2) // 2) << 3 | (q - 1)
    b0 = bytes([flags]) + nonce + len(payload).to_bytes(q, "big")
    # A.2.2: the length of the associated data, in 2, 6 or 10 bytes.
    if not adata:
        encoded = b""
    elif len(adata) < (1 << 16) - (1 << 8):
        encoded = len(adata).to_bytes(2, "big") + adata
    elif len(adata) < 1 << 32:
        encoded = b"\xff\xfe" + len(adata).to_bytes(4, "big") + adata
    else:
        encoded = b"\xff\xff" + len(adata).to_bytes(8, "big") + adata
    ctr0 = bytes([q - 1]) + nonce + bytes(q)
    return CCMFormat(header=_blocks_of(b0) + _blocks_of(encoded), payload=_blocks_of(payload),
                     last_bytes=(len(payload) - 1) % 16 + 1 if payload else 16,
                     ctr0=int.from_bytes(ctr0, "big"), tag_bytes=tag_bytes)


def _block_encryptor(key: int, key_bits: int):
    enc = _cipher(key, key_bits).encryptor()
    return lambda block: int.from_bytes(enc.update(block.to_bytes(16, "big")), "big")


def _keep_bytes(value: int, count: int) -> int:
    """``value`` with only its first ``count`` bytes (the most significant) kept."""
    return value & ~((1 << (8 * (16 - count))) - 1)


@dataclass(frozen=True)
class CCMBlock:
    """One block of a CCM message as the multimode core takes it, with the result it returns.

    ``phase`` is ``"header"`` (B0, the first block, or associated data: CBC-MAC only; the result
    is the CBC-MAC so far), ``"payload"`` (CTR and CBC-MAC; the result is the ciphertext or the
    recovered plaintext, zero past ``last_bytes``) or ``"tag"`` (the result of an encryption is
    the tag, left-aligned and zero-padded; of a decryption 0, with ``auth_fail`` set when the
    received tag in ``data`` is wrong).
    """
    phase: str
    data: int
    expected: int
    last_bytes: int = 16
    auth_fail: bool = False


def ccm_blocks(key: int, key_bits: int, nonce: bytes, adata: bytes, data: bytes, tag_bytes: int,
               *, decrypt: bool = False, tag: bytes | None = None) -> tuple[list, bytes | None]:
    """The blocks of one CCM message and the results the core must give for them.

    Encryption: ``data`` is the payload; returns (blocks, ciphertext followed by the tag).
    Decryption: ``data`` is the ciphertext and ``tag`` the received tag; returns (blocks, the
    payload), or (blocks, None) when the tag is wrong (the tag block then expects
    ``auth_fail``). Pure Python over :func:`ccm_format`: CBC-MAC over the formatted blocks
    (SP 800-38C 6.1 steps 3-4), CTR with Ctr_1, Ctr_2, ... (steps 5-8), tag = MSB_t(Y_r ^ S0).
    """
    encrypt_block = _block_encryptor(key, key_bits)
    # The counter blocks depend on the nonce only: format once without the payload's content
    # to decrypt, then again with the recovered payload for the CBC-MAC.
    ctr0 = ccm_format(nonce, b"", bytes(len(data)), tag_bytes).ctr0
    words = _blocks_of(data)
    last = (len(data) - 1) % 16 + 1 if data else 16
    keystream = [encrypt_block(ctr0 + 1 + n) for n in range(len(words))]
    out_words = [_keep_bytes(w ^ s, last if n == len(words) - 1 else 16)
                 for n, (w, s) in enumerate(zip(words, keystream))]
    payload = data if not decrypt else b"".join(
        w.to_bytes(16, "big") for w in out_words)[:len(data)]
    fmt = ccm_format(nonce, adata, payload, tag_bytes)
    blocks, mac = [], 0
    for b in fmt.header:
        mac = encrypt_block(b ^ mac)
        blocks.append(CCMBlock("header", b, mac))
    for n, (p, w, o) in enumerate(zip(fmt.payload, words, out_words)):
        mac = encrypt_block(p ^ mac)
        blocks.append(CCMBlock("payload", w, o, last if n == len(words) - 1 else 16))
    full_tag = _keep_bytes(encrypt_block(fmt.ctr0) ^ mac, tag_bytes)
    computed = full_tag.to_bytes(16, "big")[:tag_bytes]
    if not decrypt:
        blocks.append(CCMBlock("tag", 0, full_tag))
        ciphertext = b"".join(o.to_bytes(16, "big") for o in out_words)[:len(data)]
        return blocks, ciphertext + computed
    if tag is None or len(tag) != tag_bytes:
        raise ValueError(f"A decryption needs the received tag of {tag_bytes} bytes, not {tag!r}")
    received = int.from_bytes(tag + bytes(16 - tag_bytes), "big")
    ok = received == full_tag
    blocks.append(CCMBlock("tag", received, 0, auth_fail=not ok))
    return blocks, payload if ok else None


def oracle_ccm(key: int, key_bits: int, nonce: bytes, adata: bytes, data: bytes, tag_bytes: int,
               *, decrypt: bool = False) -> bytes | None:
    """CCM with ``cryptography``'s AESCCM: ciphertext and tag of ``data`` (encryption), or the
    payload of ``data`` = ciphertext and tag (decryption; None when the tag is wrong)."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESCCM
    ccm = AESCCM(key.to_bytes(key_bits // 8, "big"), tag_length=tag_bytes)
    if not decrypt:
        return ccm.encrypt(nonce, data, adata or None)
    try:
        return ccm.decrypt(nonce, data, adata or None)
    except InvalidTag:
        return None


@dataclass(frozen=True)
class CCMVector:
    """One CCM known answer: ``ciphertext`` is the ciphertext followed by the tag; ``payload``
    is None for an entry whose decryption must be rejected (CAVP ``Result = Fail``)."""
    key: int
    key_bits: int
    nonce: bytes
    adata: bytes
    payload: bytes | None
    ciphertext: bytes
    tag_bytes: int
    source: str


def _rfc3610(number, key, nonce, adata, payload, output, tag_bytes):
    h = bytes.fromhex
    return CCMVector(int(key.replace(" ", ""), 16), 128, h(nonce), h(adata), h(payload),
                     h(output), tag_bytes, f"RFC 3610 packet vector #{number}")


_RFC3610_KEY_1 = "C0 C1 C2 C3  C4 C5 C6 C7  C8 C9 CA CB  CC CD CE CF"
_RFC3610_KEY_13 = "D7 82 8D 13  B2 B0 BD C3  25 A7 62 36  DF 93 CC 6B"

#: RFC 3610 section 8, packet vectors #1, #2 (M = 8, 8-byte header, 23- and 24-byte payloads),
#: #13 (M = 8, random key and nonce) and #24 (M = 10, 12-byte header, 21-byte payload); all with
#: L = 2 (13-byte nonces) and AES-128. The RFC's "total packet" is the header (associated data)
#: followed by the payload; its output is the header, the ciphertext and the tag: transcribed
#: here without the header. Checked against AESCCM in tests/test_vectors_ccm.py.
RFC3610 = (
    _rfc3610(1, _RFC3610_KEY_1, "00 00 00 03  02 01 00 A0  A1 A2 A3 A4  A5",
             "00 01 02 03  04 05 06 07",
             "08 09 0A 0B  0C 0D 0E 0F  10 11 12 13  14 15 16 17  18 19 1A 1B  1C 1D 1E",
             "58 8C 97 9A  61 C6 63 D2  F0 66 D0 C2  C0 F9 89 80  6D 5F 6B 61  DA C3 84"
             "17 E8 D1 2C  FD F9 26 E0", 8),
    _rfc3610(2, _RFC3610_KEY_1, "00 00 00 04  03 02 01 A0  A1 A2 A3 A4  A5",
             "00 01 02 03  04 05 06 07",
             "08 09 0A 0B  0C 0D 0E 0F  10 11 12 13  14 15 16 17  18 19 1A 1B  1C 1D 1E 1F",
             "72 C9 1A 36  E1 35 F8 CF  29 1C A8 94  08 5C 87 E3  CC 15 C4 39  C9 E4 3A 3B"
             "A0 91 D5 6E  10 40 09 16", 8),
    _rfc3610(13, _RFC3610_KEY_13, "00 41 2B 4E  A9 CD BE 3C  96 96 76 6C  FA",
             "0B E1 A8 8B  AC E0 18 B1",
             "08 E8 CF 97  D8 20 EA 25  84 60 E9 6A  D9 CF 52 89  05 4D 89 5C  EA C4 7C",
             "4C B9 7F 86  A2 A4 68 9A  87 79 47 AB  80 91 EF 53  86 A6 FF BD  D0 80 F8"
             "E7 8C F7 CB  0C DD D7 B3", 8),
    _rfc3610(24, _RFC3610_KEY_13, "00 8D 49 3B  30 AE 8B 3C  96 96 76 6C  FA",
             "6E 37 A6 EF  54 6D 95 5D  34 AB 60 59",
             "AB F2 1C 0B  02 FE B8 8F  85 6D F4 A3  73 81 BC E3  CC 12 85 17  D4",
             "F3 29 05 B8  8A 64 1B 04  B9 C9 FF B5  8C C3 90 90  0F 3D A1 2A  B1"
             "6D CE 9E 82  EF A1 6D A6  20 59", 10),
)


# --- NIST CAVP response files (the ``cryptography-vectors`` package) ---------------------------


def _rsp_entries(path: str):
    """The entries of a CAVP ``.rsp`` file of ``cryptography-vectors`` as dicts of its
    ``Name = value`` lines, each entry with the values in force where it stands.

    An entry starts at a ``Count``/``COUNT`` line. Values outside an entry (at the top of the
    file, in a ``[Name = value, ...]`` section header, or between a header and the first entry,
    such as a CCM file's ``Key`` and ``Nonce``) hold for every later entry until redefined; a
    bare ``[ENCRYPT]``/``[DECRYPT]`` header is kept as ``section``.
    """
    from cryptography_vectors import open_vector_file
    context, entry, entries = {}, None, []
    with open_vector_file(path, "r") as file:
        for line in file:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                entry = None
                for item in line.strip("[]").split(","):
                    name, _, value = item.partition("=")
                    if value:
                        context[name.strip()] = value.strip()
                    else:
                        context["section"] = name.strip()
                continue
            name, _, value = (part.strip() for part in line.partition("="))
            if name.lower() == "count":
                entry = {**context, "count": value}
                entries.append(entry)
            elif entry is None:
                context[name] = value
            else:
                entry[name] = value
    return entries


def cavp_ccm(path: str) -> list[CCMVector]:
    """The entries of a CAVP CCM file of ``cryptography-vectors``, e.g.
    ``ciphers/AES/CCM/DVPT128.rsp`` (DVPT, VADT, VNT, VPT, VTT for 128/192/256-bit keys). Hex
    fields of zero length are written ``00`` there; the ``Alen``/``Plen`` values decide."""
    out = []
    for e in _rsp_entries(path):
        alen, plen, tlen = int(e["Alen"]), int(e["Plen"]), int(e["Tlen"])
        key = e["Key"]
        passes = e.get("Result", "Pass") == "Pass"
        out.append(CCMVector(
            int(key, 16), 4 * len(key), bytes.fromhex(e["Nonce"]),
            bytes.fromhex(e["Adata"])[:alen],
            bytes.fromhex(e["Payload"])[:plen] if passes else None,
            bytes.fromhex(e["CT"])[:plen + tlen], tlen,
            f"CAVP {path.rsplit('/', 1)[-1]} Alen={alen} Plen={plen} Nlen={e['Nlen']} "
            f"Tlen={tlen} Count={e['count']}"))
    return out


def cavp_modes(path: str) -> list[ModeVector]:
    """The entries of a CAVP ECB or CBC file of ``cryptography-vectors`` (KAT: GFSbox, KeySbox,
    VarKey, VarTxt; MMT), e.g. ``ciphers/AES/CBC/CBCMMT128.rsp``, as encryptions (the
    ``[DECRYPT]`` entries are the same relation the other way round)."""
    mode = path.rsplit("/", 1)[-1][:3].lower()
    out = []
    for e in _rsp_entries(path):
        key = e["KEY"]
        out.append(ModeVector(
            mode, int(key, 16), 4 * len(key), int(e["IV"], 16) if "IV" in e else None,
            _blocks_of(bytes.fromhex(e["PLAINTEXT"])), _blocks_of(bytes.fromhex(e["CIPHERTEXT"])),
            f"CAVP {path.rsplit('/', 1)[-1]} {e['section']} COUNT={e['count']}"))
    return out


#: The AESAVS known-answer and multi-block message files (NIST AESAVS sections 6.2 and 6.3), as
#: ``cryptography-vectors`` holds them: ``ciphers/AES/<MODE>/<MODE><kind><key bits>.rsp``.
CAVP_KINDS = ("GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT")


@lru_cache(maxsize=None)
def cavp_entries(mode: str, key_bits: int) -> tuple:
    """Every entry of the ECB or CBC KAT and MMT files of one key size (:data:`CAVP_KINDS`), as
    :class:`ModeVector` with a direction: the KAT files list each entry under ``[ENCRYPT]`` and
    again under ``[DECRYPT]``; such an entry comes once, checked both ways (direction None,
    source without the section), every other one with the direction of its section."""
    out, both = [], {}
    for kind in CAVP_KINDS:
        name = f"{mode.upper()}{kind}{key_bits}.rsp"
        for v in cavp_modes(f"ciphers/AES/{mode.upper()}/{name}"):
            section = "DECRYPT" if " DECRYPT " in v.source else "ENCRYPT"
            relation = (v.key, v.iv, v.plaintexts, v.ciphertexts)
            if relation in both:
                n = both[relation]
                out[n] = replace(out[n], direction=None,
                                 source=out[n].source.replace(" ENCRYPT ", " "))
                continue
            if section == "ENCRYPT":
                both[relation] = len(out)
            out.append(replace(v, direction=section.lower()))
    return tuple(out)


def cavp_block_vectors(key_bits: int) -> list[BlockVector]:
    """The ECB entries of :func:`cavp_entries` as single blocks (an MMT message of several
    blocks gives one vector per block, ``block n`` in its source)."""
    out = []
    for v in cavp_entries("ecb", key_bits):
        for n, (pt, ct) in enumerate(zip(v.plaintexts, v.ciphertexts)):
            source = v.source if len(v.plaintexts) == 1 else f"{v.source} block {n + 1}"
            out.append(BlockVector(v.key, v.key_bits, pt, ct, source, v.direction))
    return out


@lru_cache(maxsize=None)
def rfc3686_ctr(key_bits: int) -> tuple:
    """The CTR vectors of ``cryptography-vectors`` (``ciphers/AES/CTR/aes-<bits>-ctr.txt``,
    RFC 3686 section 6) as :class:`ModeVector`. A message whose last block is partial is padded
    with zero bytes to whole blocks; its ciphertext there is the oracle's, whose first bytes
    must be the file's (CTR is a stream: the padding does not change them)."""
    name = f"aes-{key_bits}-ctr.txt"
    out = []
    for e in _rsp_entries(f"ciphers/AES/CTR/{name}"):
        plain, cipher = bytes.fromhex(e["PLAINTEXT"]), bytes.fromhex(e["CIPHERTEXT"])
        pad = bytes(-len(plain) % 16)
        key, iv = int(e["KEY"], 16), int(e["IV"], 16)
        blocks = _blocks_of(plain + pad)
        expected = oracle_mode("ctr", key, key_bits, iv, blocks)
        if b"".join(b.to_bytes(16, "big") for b in expected)[:len(cipher)] != cipher:
            raise ValueError(f"{name} COUNT={e['count']}: the oracle disagrees with the file")
        out.append(ModeVector("ctr", key, key_bits, iv, tuple(blocks), tuple(expected),
                              f"RFC 3686 {name} COUNT={e['count']}"))
    return tuple(out)


# --- The AESAVS Monte Carlo test ---------------------------------------------------------------

#: Seeds of the AESAVS Monte Carlo test: KEY, IV (CBC) and the first input (PLAINTEXT of
#: ``[ENCRYPT]``, CIPHERTEXT of ``[DECRYPT]``) of COUNT = 0 in the NIST CAVP sample response
#: files of the AESAVS (aesmct.zip: ECBMCT128.rsp ... CBCMCT256.rsp). ``cryptography-vectors``
#: does not carry those files; tests/test_vectors_cavp.py checks the results of COUNT = 99.
AESAVS_MCT_SEEDS = {
    ("ecb", 128, "encrypt"): ("139a35422f1d61de3c91787fe0507afd", None,
                              "b9145a768b7dc489a096b546f43b231f"),
    ("ecb", 128, "decrypt"): ("0c60e7bf20ada9baa9e1ddf0d1540726", None,
                              "b08a29b11a500ea3aca42c36675b9785"),
    ("ecb", 192, "encrypt"): ("b9a63e09e1dfc42e93a90d9bad739e5967aef672eedd5da9", None,
                              "85a1f7a58167b389cddc8a9ff175ee26"),
    ("ecb", 192, "decrypt"): ("4b97585701c03fbebdfa8555024f589f1482c58a00fdd9fd", None,
                              "d0bd0e02ded155e4516be83f42d347a4"),
    ("ecb", 256, "encrypt"): ("f9e8389f5b80712e3886cc1fa2d28a3b8c9cd88a2d4a54c6aa86ce0fef944be0",
                              None, "b379777f9050e2a818f2940cbbd9aba4"),
    ("ecb", 256, "decrypt"): ("2b09ba39b834062b9e93f48373b8dd018dedf1e5ba1b8af831ebbacbc92a2643",
                              None, "89649bd0115f30bd878567610223a59d"),
    ("cbc", 128, "encrypt"): ("8809e7dd3a959ee5d8dbb13f501f2274",
                              "e5c0bb535d7d54572ad06d170a0e58ae",
                              "1fd4ee65603e6130cfc2a82ab3d56c24"),
    ("cbc", 128, "decrypt"): ("287b07c78f8e3e1be7c41b3d96c04e6e",
                              "41b461f9464fd515d25413b4241002b8",
                              "7c54923b0490a9d4de4ec1ce6790aa4d"),
    ("cbc", 192, "encrypt"): ("dea64f83cfe6a0a183ddbe865cfca059b3c615c1623d63fc",
                              "426fbc087b50b395c0fc81ef9fd6d1aa",
                              "cd0b8c8a8179ecb171b64c894a4d60fd"),
    ("cbc", 192, "decrypt"): ("a24ebd4d7a080c28caae984b5098a9ea38cf7280e2c5f122",
                              "c5aeb9b51ad5108371c59d0b90816310",
                              "eb2c4e2712591ff13b8ac7870c9c404c"),
    ("cbc", 256, "encrypt"): ("632bac4fe4db44cfcf18cfa90b43f86f378611b8d968595eb89e7ae98624564a",
                              "ff8127621be616803e3f002377730185",
                              "90ed17475f0a62bc381ba1f3ffbfff33"),
    ("cbc", 256, "decrypt"): ("31397ad8cc79c519e0f46e0f70303587e38958d70723b771552336b7771f6311",
                              "4139cb54eeac3fcf36ed72941122c40f",
                              "27a1d5c10fe45b801d15f56e654a70f0"),
}


def _mct_inner(mode: str, key: int, key_bits: int, iv: int | None, first: int, decrypt: bool,
               inner: int) -> tuple[list, list]:
    """One outer iteration's inner loop (AESAVS 6.4.1 / 6.4.2): (inputs, outputs) of its
    ``inner`` blocks. ECB: each output is the next input. CBC: one chained message under
    ``iv`` whose second input is the IV and every later one the output two blocks back."""
    cipher = _cipher(key, key_bits)
    ctx = cipher.decryptor() if decrypt else cipher.encryptor()

    def aes(block):
        return int.from_bytes(ctx.update(block.to_bytes(16, "big")), "big")

    inputs, outputs, block = [], [], first
    for j in range(inner):
        inputs.append(block)
        if mode == "ecb":
            out = aes(block)
        elif decrypt:       # CBC: the previous input (the IV first) xored into the output
            out = aes(block) ^ (iv if j == 0 else inputs[j - 1])
        else:               # CBC: the previous output (the IV first) xored into the input
            out = aes(block ^ (iv if j == 0 else outputs[j - 1]))
        outputs.append(out)
        block = out if mode == "ecb" else (iv if j == 0 else outputs[j - 1])
    return inputs, outputs


@lru_cache(maxsize=12)
def aesavs_monte_carlo(mode: str, key_bits: int, direction: str, outer: int = 100,
                       inner: int = 1000) -> tuple:
    """The AESAVS Monte Carlo test (NIST AESAVS section 6.4: 6.4.1 ECB, 6.4.2 CBC) from the
    seeds of :data:`AESAVS_MCT_SEEDS`, with results from ``cryptography``: one
    :class:`ModeVector` per outer iteration (COUNT = 0 .. ``outer`` - 1), of ``inner`` chained
    blocks (:func:`_mct_inner`), in encryption form and with ``direction`` set.

    Between outer iterations the key takes the xor of the last ``key_bits`` of the last two
    outputs (128: the last output; 192: the low 64 bits of the one before and the last; 256:
    both); the next first input is the last output (ECB) or the one before (CBC, whose next IV
    is the last output). AESAVS takes 100 outer iterations of 1,000 blocks; a test may take
    fewer outer ones (the first iterations are the same).
    """
    if (mode, key_bits, direction) not in AESAVS_MCT_SEEDS or inner < 2:
        raise ValueError(f"No AESAVS Monte Carlo test for {mode!r}, {key_bits!r}, "
                         f"{direction!r} with {inner} inner blocks")
    key, iv, first = (None if x is None else int(x, 16)
                      for x in AESAVS_MCT_SEEDS[mode, key_bits, direction])
    decrypt, name = direction == "decrypt", f"{mode.upper()}MCT{key_bits}"
    rounds = []
    for count in range(outer):
        inputs, outputs = _mct_inner(mode, key, key_bits, iv, first, decrypt, inner)
        plain, cipher = (outputs, inputs) if decrypt else (inputs, outputs)
        rounds.append(ModeVector(mode, key, key_bits, iv, tuple(plain), tuple(cipher),
                                 f"AESAVS {name} {direction.upper()} COUNT={count}",
                                 direction))
        key ^= (outputs[-2] << 128 | outputs[-1]) & ((1 << key_bits) - 1)
        if mode == "ecb":
            first = outputs[-1]
        else:
            iv, first = outputs[-1], outputs[-2]
    return tuple(rounds)


def monte_carlo_block_vectors(key_bits: int, direction: str,
                              outer: int = 100) -> list[BlockVector]:
    """The ECB Monte Carlo test of :func:`aesavs_monte_carlo` as single blocks, in order (the
    key changes every 1,000 blocks), ``block j`` (0-based, as AESAVS counts) in the source."""
    return [BlockVector(v.key, key_bits, pt, ct, f"{v.source} block {j}", direction)
            for v in aesavs_monte_carlo("ecb", key_bits, direction, outer)
            for j, (pt, ct) in enumerate(zip(v.plaintexts, v.ciphertexts))]


# --- What a verify run checks ------------------------------------------------------------------


def cipher_block_vectors(options, key_sizes, directions=("encrypt", "decrypt")) -> list:
    """The single blocks a cipher core is checked on, for :class:`VerifyOptions
    <aesdse.spec.schema.VerifyOptions>` ``options``: FIPS-197 and SP 800-38A F.1 vectors of
    ``key_sizes``, then ``random_vectors`` random vectors per key size (sharing a key in runs
    of four, so that back-to-back blocks under one key occur), then with ``cavp="all"`` every
    ECB entry of :func:`cavp_entries`, then with ``monte_carlo`` the ECB Monte Carlo test of
    every key size in each of ``directions`` (the directions the core supports)."""
    options = resolved_options(options)   # checks left unset: the backend's defaults
    key_sizes = tuple(key_sizes)
    vectors = [v for v in FIPS197 + SP800_38A_ECB if v.key_bits in key_sizes]
    for n, key_bits in enumerate(key_sizes):
        randoms = random_vectors(options.random_vectors, key_bits=key_bits,
                                 seed=options.seed * 1000 + n)
        for k, v in enumerate(randoms):
            if k % 4:
                head = randoms[k - k % 4]
                v = BlockVector(head.key, key_bits, v.plaintext,
                                oracle_encrypt(head.key, v.plaintext, key_bits), v.source)
            vectors.append(v)
    if options.cavp == "all":
        for key_bits in key_sizes:
            vectors += cavp_block_vectors(key_bits)
    if options.monte_carlo:
        for key_bits in key_sizes:
            for direction in ("encrypt", "decrypt"):
                if direction in directions:
                    vectors += monte_carlo_block_vectors(key_bits, direction,
                                                         options.monte_carlo_outer)
    return vectors


def mode_messages(options, key_sizes, modes, directions) -> list[tuple]:
    """The multi-block messages a core that chains blocks itself is checked on, as
    (:class:`ModeVector`, decrypt) pairs, for the ``modes`` (of ``"ecb"``, ``"cbc"``,
    ``"ctr"``), ``key_sizes`` and ``directions`` the core supports: SP 800-38A F.1/F.2/F.5 in
    every direction, then with ``cavp="all"`` every CBC entry of :func:`cavp_entries` and the
    RFC 3686 CTR vectors (:func:`rfc3686_ctr`), then with ``monte_carlo`` the CBC Monte Carlo
    test (one message per outer iteration), each in the directions of
    :func:`vector_directions`."""
    options = resolved_options(options)   # checks left unset: the backend's defaults
    key_sizes = tuple(key_sizes)
    candidates = list(SP800_38A_MODES)
    for key_bits in key_sizes:
        if options.cavp == "all" and "cbc" in modes:
            candidates += cavp_entries("cbc", key_bits)
        if options.cavp == "all" and "ctr" in modes:
            candidates += rfc3686_ctr(key_bits)
    if options.monte_carlo and "cbc" in modes:
        for key_bits in key_sizes:
            for direction in ("encrypt", "decrypt"):
                if direction in directions:
                    candidates += aesavs_monte_carlo("cbc", key_bits, direction,
                                                     options.monte_carlo_outer)
    out = []
    for v in candidates:
        if v.mode in modes and v.key_bits in key_sizes:
            ways = vector_directions(v, directions)
            out += [(v, decrypt) for decrypt in (False, True)
                    if ("decrypt" if decrypt else "encrypt") in ways]
    return out


#: Source prefixes and their categories (:func:`source_category`), first match wins.
_CATEGORIES = (("FIPS-197", "fips197"), ("SP 800-38A", "sp800_38a"), ("random #", "random"),
               ("random CCM", "random-ccm"), ("random filler", "random-filler"),
               ("random ", "random-modes"), ("RFC 3610", "rfc3610"), ("RFC 3686", "rfc3686"),
               ("back-to-back", "measure"))


def source_category(source: str) -> str:
    """The stable category of a vector's ``source``, for counting checks by source:
    ``"fips197"``, ``"sp800_38a"``, ``"random"`` (single random blocks), ``"random-modes"``
    (random chained messages), ``"random-ccm"``, ``"random-filler"`` (the filling of a wide
    transfer), ``"rfc3610"``, ``"rfc3686"``, ``"cavp <file>"`` (e.g. ``"cavp ECBGFSbox128"``),
    ``"aesavs-mct <test>"`` (e.g. ``"aesavs-mct ECBMCT128"``), ``"measure"``; ``"other"`` for
    anything else. A suffix the verify stage appends (`` (decrypt)``, `` block 3``) does not
    change it."""
    if source.startswith("CAVP "):
        return "cavp " + source.split()[1].removesuffix(".rsp")
    if source.startswith("AESAVS "):
        return "aesavs-mct " + source.split()[1]
    return next((category for prefix, category in _CATEGORIES if source.startswith(prefix)),
                "other")


def count_by_category(sources) -> dict:
    """How many of ``sources`` fall in each :func:`source_category`, sorted by category."""
    return dict(sorted(Counter(source_category(s) for s in sources).items()))
