"""The standards' known answers: FIPS-197 Appendix B and C, SP 800-38A Appendix F.

Transcribed from the standards (the ``cryptography-vectors`` package does not carry FIPS-197
Appendix C or SP 800-38A Appendix F, docs/toolchain.md). Also the two vector classes every source
of :mod:`aesdse.verify.vectors` gives: :class:`BlockVector` (one block) and :class:`ModeVector`
(a multi-block message).
"""

from dataclasses import dataclass

__all__ = ["BlockVector", "ModeVector", "vector_directions", "blocks_of", "FIPS197",
           "SP800_38A_ECB", "SP800_38A_CTR", "SP800_38A_MODES"]


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


def blocks_of(data: bytes) -> tuple:
    """``data`` as 128-bit blocks (big-endian integers, as the vector classes hold them), the
    last one zero-padded."""
    padded = data + bytes(-len(data) % 16)
    return tuple(int.from_bytes(padded[n:n + 16], "big") for n in range(0, len(padded), 16))


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
