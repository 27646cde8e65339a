"""GCM messages as the block transfers of :class:`archs.gcm.GCMCore`, with the results it must
give; the NIST GCM vectors of ``cryptography-vectors`` and the McGrew-Viega test cases.

:func:`gcm_blocks` is the pure-Python formatter (SP 800-38D sections 7.1 and 7.2 over the GHASH
model of :mod:`archs.prims.ghash` and AES from ``cryptography``); :func:`oracle_gcm` is
``cryptography``'s AESGCM, an independent implementation the formatter's outcome is checked
against (tests/test_archs_gcm.py), as :func:`aesdse.verify.vectors.ccm_blocks` is for CCM.
"""

from dataclasses import dataclass

from archs.prims.ghash import ghash

__all__ = ["GCM_TAG_BYTES", "GCMBlock", "check_gcm_lengths", "gcm_blocks", "oracle_gcm",
           "GCMVector", "MCGREW_VIEGA", "cavp_gcm", "GCM_FILES"]

#: Tag lengths in bytes SP 800-38D section 5.2.1.2 allows (128..96 bits; 64 and 32 bits for
#: some applications, Appendix C).
GCM_TAG_BYTES = (4, 8, 12, 13, 14, 15, 16)

#: The NIST GCM response files of ``cryptography-vectors``.
GCM_FILES = tuple(f"ciphers/AES/GCM/gcm{kind}{bits}.rsp" for kind in ("EncryptExtIV", "Decrypt")
                  for bits in (128, 192, 256))


@dataclass(frozen=True)
class GCMBlock:
    """One block transfer of a GCM message and the result the core must give.

    ``phase`` is ``"iv"``, ``"aad"``, ``"payload"`` or ``"tag"``; ``data`` the block,
    left-aligned and zero-padded; ``bytes`` its valid bytes (the tag length t on the tag block);
    ``first`` the message's first block; ``last`` the last IV block; ``expected`` the result's
    data and ``auth_fail`` its flag (:mod:`archs.gcm`, "Result payload").
    """
    phase: str
    data: int
    bytes: int
    expected: int
    first: bool = False
    last: bool = False
    auth_fail: bool = False


def _blocks(data: bytes) -> list[tuple[int, int]]:
    """(block, valid bytes) of ``data``, the last block zero-padded."""
    return [(int.from_bytes(data[n:n + 16].ljust(16, b"\0"), "big"), len(data[n:n + 16]))
            for n in range(0, len(data), 16)]


def check_gcm_lengths(iv: bytes, aad: bytes, data: bytes, tag_bytes: int) -> None:
    """Raise ``ValueError`` for a message outside GCM's limits (SP 800-38D section 5.2.1.1: an
    IV of 1 to 2^64 - 1 bits, at most 2^39 - 256 bits of plaintext and 2^64 - 1 of AAD) or a
    tag length not in :data:`GCM_TAG_BYTES`."""
    if not iv:
        raise ValueError("A GCM IV must not be empty (SP 800-38D section 5.2.1.1)")
    if 8 * len(iv) >= 1 << 64:
        raise ValueError(f"The IV is {8 * len(iv)} bits long; GCM allows at most 2^64 - 1")
    if 8 * len(data) > (1 << 39) - 256:
        raise ValueError(f"The payload is {8 * len(data)} bits long; GCM allows at most "
                         f"2^39 - 256")
    if 8 * len(aad) >= 1 << 64:
        raise ValueError(f"The AAD is {8 * len(aad)} bits long; GCM allows at most 2^64 - 1")
    if tag_bytes not in GCM_TAG_BYTES:
        raise ValueError(f"Tag bytes must be one of {', '.join(map(str, GCM_TAG_BYTES))}, "
                         f"not {tag_bytes!r}")


def _block_encryptor(key: int, key_bits: int):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    encryptor = Cipher(algorithms.AES(key.to_bytes(key_bits // 8, "big")),
                       modes.ECB()).encryptor()
    return lambda block: int.from_bytes(encryptor.update(block.to_bytes(16, "big")), "big")


def gcm_blocks(key: int, key_bits: int, iv: bytes, aad: bytes, data: bytes, tag_bytes: int = 16,
               *, decrypt: bool = False, tag: bytes | None = None) -> tuple[list, bytes | None]:
    """The blocks of one GCM message and the results the core must give for them.

    Encryption: ``data`` is the plaintext; returns (blocks, ciphertext followed by the tag of
    ``tag_bytes``). Decryption: ``data`` is the ciphertext and ``tag`` the received tag;
    returns (blocks, the plaintext), or (blocks, None) when the tag is wrong (the tag block then
    expects ``auth_fail``).

    Raises
    ------
    ValueError
        For lengths outside GCM's limits (:func:`check_gcm_lengths`), or a decryption without
        a tag of ``tag_bytes``.
    """
    check_gcm_lengths(iv, aad, data, tag_bytes)
    if decrypt and (tag is None or len(tag) != tag_bytes):
        raise ValueError(f"A decryption needs the received tag of {tag_bytes} bytes, not {tag!r}")
    encrypt_block = _block_encryptor(key, key_bits)
    h = encrypt_block(0)                                        # section 7.1 step 1
    iv_blocks = _blocks(iv)
    blocks = [GCMBlock("iv", b, n, 0, first=k == 0, last=k == len(iv_blocks) - 1)
              for k, (b, n) in enumerate(iv_blocks)]
    j0 = (int.from_bytes(iv, "big") << 32 | 1 if len(iv) == 12
          else ghash(h, b"", iv))                               # step 2
    blocks += [GCMBlock("aad", b, n, 0) for b, n in _blocks(aad)]
    counter, out = j0, []
    for b, n in _blocks(data):                                  # step 3, inc32 (section 6.2)
        counter = (counter & ~0xFFFFFFFF) | ((counter + 1) & 0xFFFFFFFF)
        result = (b ^ encrypt_block(counter)) >> (8 * (16 - n)) << (8 * (16 - n))
        blocks.append(GCMBlock("payload", b, n, result))
        out.append(result.to_bytes(16, "big")[:n])
    produced = b"".join(out)
    ciphertext = data if decrypt else produced
    s = ghash(h, aad, ciphertext)                               # steps 4-5
    full_tag = (encrypt_block(j0) ^ s).to_bytes(16, "big")[:tag_bytes]
    left = int.from_bytes(full_tag.ljust(16, b"\0"), "big")
    if not decrypt:
        blocks.append(GCMBlock("tag", 0, tag_bytes, left))
        return blocks, produced + full_tag
    ok = tag == full_tag                                        # section 7.2 step 8
    blocks.append(GCMBlock("tag", int.from_bytes(tag.ljust(16, b"\0"), "big"), tag_bytes, 0,
                           auth_fail=not ok))
    return blocks, produced if ok else None


def oracle_gcm(key: int, key_bits: int, iv: bytes, aad: bytes, data: bytes, tag_bytes: int = 16,
               *, decrypt: bool = False, tag: bytes | None = None) -> bytes | None:
    """GCM with ``cryptography``: ciphertext and tag (truncated to ``tag_bytes``) of ``data``
    (encryption), or the plaintext of ``data`` with the received ``tag`` (decryption; None when
    the tag is wrong). Truncated tags go through the GCM mode object (``min_tag_length``), as
    AESGCM takes 16-byte tags only. ``cryptography`` refuses IVs shorter than 8 bytes
    (``ValueError``), which the NIST files have: those are checked against the files' answers."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    algorithm = algorithms.AES(key.to_bytes(key_bits // 8, "big"))
    if not decrypt:
        encryptor = Cipher(algorithm, modes.GCM(iv)).encryptor()
        encryptor.authenticate_additional_data(aad)
        sealed = encryptor.update(data) + encryptor.finalize()
        return sealed + encryptor.tag[:tag_bytes]
    decryptor = Cipher(algorithm, modes.GCM(iv, tag, min_tag_length=min(tag_bytes, 16))
                       ).decryptor()
    decryptor.authenticate_additional_data(aad)
    try:
        return decryptor.update(data) + decryptor.finalize()
    except InvalidTag:
        return None


@dataclass(frozen=True)
class GCMVector:
    """One GCM known answer; ``plaintext`` is None for an entry whose decryption must fail."""
    key: int
    key_bits: int
    iv: bytes
    aad: bytes
    plaintext: bytes | None
    ciphertext: bytes
    tag: bytes
    source: str


def _mv(number, key, iv, plaintext, aad, ciphertext, tag):
    h = bytes.fromhex
    return GCMVector(int(key, 16), 128, h(iv), h(aad), h(plaintext), h(ciphertext), h(tag),
                     f"McGrew-Viega test case {number}")


_K3 = "feffe9928665731c6d6a8f9467308308"
_P3 = ("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
       "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255")
_A4 = "feedfacedeadbeeffeedfacedeadbeefabaddad2"
_C3 = ("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
       "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985")

#: McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", 2005, Appendix B, test
#: cases 1-6 (AES-128; 5 and 6 with a 64-bit and a 480-bit IV), as typed in
#: tests/test_prims_ghash.py.
MCGREW_VIEGA = (
    _mv(1, "00" * 16, "00" * 12, "", "", "", "58e2fccefa7e3061367f1d57a4e7455a"),
    _mv(2, "00" * 16, "00" * 12, "00" * 16, "", "0388dace60b6a392f328c2b971b2fe78",
        "ab6e47d42cec13bdf53a67b21257bddf"),
    _mv(3, _K3, "cafebabefacedbaddecaf888", _P3, "", _C3, "4d5c2af327cd64a62cf35abd2ba6fab4"),
    _mv(4, _K3, "cafebabefacedbaddecaf888", _P3[:120], _A4, _C3[:120],
        "5bc94fbc3221a5db94fae95ae7121a47"),
    _mv(5, _K3, "cafebabefacedbad", _P3[:120], _A4,
        "61353b4c2806934a777ff51fa22a4755699b2a714fcdc6f83766e5f97b6c7423"
        "73806900e49f24b22b097544d4896b424989b5e1ebac0f07c23f4598",
        "3612d2e79e3b0785561be14aaca2fccb"),
    _mv(6, _K3, "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728"
        "c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b", _P3[:120], _A4,
        "8ce24998625615b603a033aca13fb894be9112a5c3a211a8ba262a3cca7e2ca7"
        "01e4a9a4fba43c90ccdcb281d48c7c6fd62875d2aca417034c34aee5",
        "619cc5aefffe0bfa462af43c1699d050"),
)


def cavp_gcm(path: str) -> list[GCMVector]:
    """The entries of a NIST GCM response file of ``cryptography-vectors`` (:data:`GCM_FILES`):
    ``gcmEncryptExtIV*.rsp`` and ``gcmDecrypt*.rsp``, whose ``FAIL`` entries (a wrong tag) have
    no plaintext. Lengths come from the section header (``[Keylen = ..., IVlen = ...,
    PTlen = ..., AADlen = ..., Taglen = ...]``, in bits)."""
    from cryptography_vectors import open_vector_file
    out, context, entry = [], {}, None
    with open_vector_file(path, "r") as file:
        lines = [line.strip() for line in file]
    for line in lines + ["[end]"]:
        name, _, value = (part.strip() for part in line.strip("[]").partition("="))
        if entry is not None and (name == "Count" or line.startswith("[")):
            out.append(_gcm_entry(path, context, entry))   # before a header changes the context
            entry = None
        if line.startswith("["):
            context[name] = value
        elif name == "Count":
            entry = {"Count": value}
        elif line == "FAIL" and entry is not None:
            entry["FAIL"] = True
        elif entry is not None and value:
            entry[name] = value
    return out


def _gcm_entry(path, context, e) -> GCMVector:
    def field(name, bits_name):
        return bytes.fromhex(e.get(name, ""))[:int(context[bits_name]) // 8]
    key = e["Key"]
    tag = bytes.fromhex(e["Tag"])
    return GCMVector(
        int(key, 16), 4 * len(key), field("IV", "IVlen"), field("AAD", "AADlen"),
        None if e.get("FAIL") else field("PT", "PTlen"), field("CT", "PTlen"), tag,
        f"CAVP {path.rsplit('/', 1)[-1]} IVlen={context['IVlen']} PTlen={context['PTlen']} "
        f"AADlen={context['AADlen']} Taglen={context['Taglen']} Count={e['Count']}")
