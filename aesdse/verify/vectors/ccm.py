"""CCM (NIST SP 800-38C): the host side of the multimode core's CCM, the ``cryptography``
oracle it is checked against, and the RFC 3610 known answers.

The host side is the formatting function of SP 800-38C Appendix A.2 (B0, the encoded associated
data, the padded payload, the counter blocks) and a pure-Python CBC-MAC + CTR over the formatted
blocks. Tests check the pair against ``cryptography``'s AESCCM; the hardware of
:mod:`archs.multimode` chains the formatted blocks and is checked against both.
"""

from dataclasses import dataclass

from .oracle import ecb_cipher
from .standards import blocks_of

__all__ = ["CCM_TAG_BYTES", "CCM_NONCE_BYTES", "CCMFormat", "ccm_format", "CCMBlock",
           "ccm_blocks", "oracle_ccm", "CCMVector", "RFC3610"]


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
    return CCMFormat(header=blocks_of(b0) + blocks_of(encoded), payload=blocks_of(payload),
                     last_bytes=(len(payload) - 1) % 16 + 1 if payload else 16,
                     ctr0=int.from_bytes(ctr0, "big"), tag_bytes=tag_bytes)


def _block_encryptor(key: int, key_bits: int):
    enc = ecb_cipher(key, key_bits).encryptor()
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
    words = blocks_of(data)
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
