"""Pure-Python AES reference model (FIPS-197), the oracle of every simulation.

Built from the same pure-integer primitives as the hardware (:mod:`archs.prims`), and itself tested
against the FIPS-197 Appendix C vectors and against the ``cryptography`` package on random inputs,
so the hardware is compared with something independently checked.

Blocks and keys are ``bytes``; :func:`encrypt_int` / :func:`decrypt_int` take and return the
big-endian integers used on core ports (see :mod:`archs.interface`).
"""

from archs.prims import gf
from archs.prims.keyschedule import ROUNDS, round_keys
from archs.prims.mixcolumns import inv_mix_column, mix_column
from archs.prims.shiftrows import inv_shift_rows, shift_rows

__all__ = ["encrypt_block", "decrypt_block", "encrypt_int", "decrypt_int", "ctr_keystream",
           "ctr_encrypt"]


def _add(state: list[int], rk: int) -> list[int]:
    return [s ^ k for s, k in zip(state, rk.to_bytes(16, "big"))]


def _mix(state: list[int], inverse: bool = False) -> list[int]:
    f = inv_mix_column if inverse else mix_column
    return [b for c in range(4) for b in f(state[4 * c:4 * c + 4])]


def encrypt_block(key: bytes, block: bytes) -> bytes:
    """Encrypt one 16-byte block (FIPS-197 section 5.1)."""
    rks = round_keys(key)
    state = _add(list(block), rks[0])
    for r in range(1, len(rks)):
        state = shift_rows([gf.SBOX[b] for b in state])
        if r != len(rks) - 1:
            state = _mix(state)
        state = _add(state, rks[r])
    return bytes(state)


def decrypt_block(key: bytes, block: bytes) -> bytes:
    """Decrypt one 16-byte block (FIPS-197 section 5.3, the straightforward inverse cipher)."""
    rks = round_keys(key)
    state = _add(list(block), rks[-1])
    for r in range(len(rks) - 2, -1, -1):
        state = [gf.INV_SBOX[b] for b in inv_shift_rows(state)]
        state = _add(state, rks[r])
        if r != 0:
            state = _mix(state, inverse=True)
    return bytes(state)


def encrypt_int(key: int, block: int, key_bits: int = 128) -> int:
    """:func:`encrypt_block` on big-endian integers."""
    if key_bits not in ROUNDS:
        raise ValueError(f"Key size must be 128, 192 or 256 bits, not {key_bits!r}")
    return int.from_bytes(encrypt_block(key.to_bytes(key_bits // 8, "big"),
                                        block.to_bytes(16, "big")), "big")


def decrypt_int(key: int, block: int, key_bits: int = 128) -> int:
    """:func:`decrypt_block` on big-endian integers."""
    if key_bits not in ROUNDS:
        raise ValueError(f"Key size must be 128, 192 or 256 bits, not {key_bits!r}")
    return int.from_bytes(decrypt_block(key.to_bytes(key_bits // 8, "big"),
                                        block.to_bytes(16, "big")), "big")


def ctr_keystream(key: bytes, counter_block: bytes, blocks: int, counter_bits: int = 128):
    """Keystream blocks of CTR mode (SP 800-38A section 6.5).

    The counter is the low ``counter_bits`` of the counter block, incremented modulo
    2**counter_bits per block; the bits above it stay fixed (SP 800-38A Appendix B.1).
    """
    value = int.from_bytes(counter_block, "big")
    mask = (1 << counter_bits) - 1
    out = []
    for _ in range(blocks):
        out.append(encrypt_block(key, value.to_bytes(16, "big")))
        value = (value & ~mask) | ((value + 1) & mask)
    return out


def ctr_encrypt(key: bytes, counter_block: bytes, data: bytes, counter_bits: int = 128) -> bytes:
    """CTR-mode encryption (= decryption) of ``data``, the last block possibly partial."""
    stream = b"".join(ctr_keystream(key, counter_block, -(-len(data) // 16), counter_bits))
    return bytes(a ^ b for a, b in zip(data, stream))
