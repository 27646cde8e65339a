"""The independent oracle: AES from ``cryptography`` (pyca), an implementation independent of
:mod:`aesdse.verify.reference`, and the random vectors whose answers it computes."""

import random

from .standards import BlockVector

__all__ = ["ecb_cipher", "oracle_encrypt", "oracle_decrypt", "oracle_mode", "random_vectors"]


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


def ecb_cipher(key: int, key_bits: int):
    """A ``cryptography`` AES cipher of ``key`` in ECB (one block at a time, chained by the
    caller)."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    return Cipher(algorithms.AES(key.to_bytes(key_bits // 8, "big")), modes.ECB())


def oracle_encrypt(key: int, block: int, key_bits: int = 128) -> int:
    """Encrypt one block with ``cryptography`` (the independent oracle)."""
    enc = ecb_cipher(key, key_bits).encryptor()
    return int.from_bytes(enc.update(block.to_bytes(16, "big")) + enc.finalize(), "big")


def oracle_decrypt(key: int, block: int, key_bits: int = 128) -> int:
    """Decrypt one block with ``cryptography``."""
    dec = ecb_cipher(key, key_bits).decryptor()
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
