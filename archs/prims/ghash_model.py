"""GHASH's reference model: multiplication in GF(2^128) as GCM uses it, in pure Python.

The field and its bit order are those of NIST SP 800-38D section 6.3: a 128-bit block is a
polynomial over GF(2) whose *leftmost* bit is the coefficient of x^0, reduced modulo
P(x) = x^128 + x^7 + x^2 + x + 1 (the constant R = 11100001 || 0^120). A block is handled as an
integer the way the rest of :mod:`archs` reads one (:mod:`archs.interface`, "Byte order"): the hex
string read as one big-endian number, so the coefficient of x^0 is integer bit 127 and the block
"1" is ``0x80000000000000000000000000000000`` (:data:`ONE`).

:func:`gf128_mul` is SP 800-38D Algorithm 1, line for line; :func:`ghash` is section 6.4 over a
GCM message with its length block; :func:`ghash_aggregated` computes the same value n blocks at
a time with the powers H^1..H^n of :func:`ghash_powers` (``ghash_aggregation``). The hardware is
:mod:`.ghash_multipliers` and :mod:`.ghash_accumulators`, checked against these functions.
"""

__all__ = [
    "R", "ONE", "GHASH_AGGREGATION", "check_choice", "gf128_mul", "gf128_pow", "ghash_blocks",
    "message_blocks", "ghash", "ghash_powers", "ghash_aggregated",
]

#: The reduction constant R = 11100001 || 0^120 of SP 800-38D section 6.3.
R = 0xE1 << 120
#: The multiplicative identity (the polynomial 1) in GCM bit order.
ONE = 1 << 127
#: Blocks per aggregated GHASH step (``ghash_aggregation``).
GHASH_AGGREGATION = (1, 2, 4, 8)

_MASK = (1 << 128) - 1


def check_choice(what: str, value, allowed) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed`` (``what`` names it)."""
    if isinstance(value, bool) or value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(map(repr, allowed))}, "
                         f"not {value!r}")


def gf128_mul(x: int, y: int) -> int:
    """The product X * Y of two blocks (SP 800-38D section 6.3, Algorithm 1)."""
    if not (0 <= x <= _MASK and 0 <= y <= _MASK):
        raise ValueError(f"Blocks must be 128-bit integers, not {x!r} and {y!r}")
    z, v = 0, y
    for i in range(128):
        if (x >> (127 - i)) & 1:
            z ^= v
        v = (v >> 1) ^ R if v & 1 else v >> 1
    return z


def gf128_pow(h: int, n: int) -> int:
    """H^n for n >= 0 (H^0 is :data:`ONE`)."""
    result = ONE
    for _ in range(n):
        result = gf128_mul(result, h)
    return result


def ghash_blocks(h: int, blocks, y: int = 0) -> int:
    """GHASH_H over whole blocks (SP 800-38D section 6.4): Y <- (Y xor X_i) * H, from ``y``."""
    for block in blocks:
        y = gf128_mul(y ^ block, h)
    return y


def message_blocks(aad: bytes, ciphertext: bytes) -> list[int]:
    """The blocks GCM hashes: A and C each zero-padded to whole blocks, then the length block
    [len(A)]_64 || [len(C)]_64 in bits (SP 800-38D section 7.1, step 5).

    Raises
    ------
    ValueError
        If a length in bits does not fit its 64-bit field.
    """
    for name, part in (("AAD", aad), ("ciphertext", ciphertext)):
        if 8 * len(part) >= 1 << 64:
            raise ValueError(f"The {name} is {8 * len(part)} bits long; GHASH's length block "
                             f"holds at most 2^64 - 1")
    blocks = []
    for part in (bytes(aad), bytes(ciphertext)):
        for start in range(0, len(part), 16):
            blocks.append(int.from_bytes(part[start:start + 16].ljust(16, b"\0"), "big"))
    blocks.append((8 * len(aad)) << 64 | 8 * len(ciphertext))
    return blocks


def ghash(h: int, aad: bytes, ciphertext: bytes) -> int:
    """GHASH_H(A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64), the S of SP 800-38D
    section 7.1 step 5 (with ``aad=b""`` and ``ciphertext=IV`` it is the J0 of a non-96-bit IV,
    step 2)."""
    return ghash_blocks(h, message_blocks(aad, ciphertext))


def ghash_powers(h: int, n: int) -> list[int]:
    """[H^1, H^2, ..., H^n]: the precomputed powers of an aggregation of n blocks."""
    powers = [h]
    while len(powers) < n:
        powers.append(gf128_mul(powers[-1], h))
    return powers[:n]


def ghash_aggregated(h: int, blocks, n: int, y: int = 0) -> int:
    """:func:`ghash_blocks` computed n blocks per step, as an aggregated multiplier does.

    Y_new = (Y xor X_1) * H^n xor X_2 * H^(n-1) xor ... xor X_n * H: the n products are
    independent, so n multipliers (or one pipelined multiplier) can work on them at once. A last
    group of m < n blocks uses H^m..H^1.
    """
    check_choice("Aggregation", n, GHASH_AGGREGATION)
    powers = ghash_powers(h, n)
    blocks = list(blocks)
    for start in range(0, len(blocks), n):
        group = blocks[start:start + n]
        group[0] ^= y
        y = 0
        for k, block in enumerate(group):
            y ^= gf128_mul(block, powers[len(group) - 1 - k])
    return y
