"""Test vectors: the standards' known answers and random vectors from the ``cryptography`` oracle.

Known-answer vectors are transcribed from the standards (the ``cryptography-vectors`` package does
not carry FIPS-197 Appendix C or SP 800-38A Appendix F, see shared/NOTES.md). Random vectors are
computed by ``cryptography`` (pyca), an implementation independent of :mod:`aesdse.reference`.
"""

import random
from dataclasses import dataclass

__all__ = ["BlockVector", "FIPS197", "SP800_38A_ECB", "SP800_38A_CTR", "random_vectors",
           "oracle_encrypt", "oracle_decrypt"]


@dataclass(frozen=True)
class BlockVector:
    """One block cipher known answer: key, plaintext and ciphertext as big-endian integers."""
    key: int
    key_bits: int
    plaintext: int
    ciphertext: int
    source: str


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
