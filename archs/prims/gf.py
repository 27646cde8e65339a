"""GF(2^8) arithmetic of AES: the pure-integer reference model and constant-multiply networks.

Everything in :mod:`archs` that holds an AES constant (the S-box tables, T-tables, MixColumns
coefficients, round constants, composite-field matrices) derives it from the functions here, so no
table is ever typed in by hand (house style rule 3, after ``amaranth.lib.crc``).

The field is GF(2)[x] / (x^8 + x^4 + x^3 + x + 1), FIPS-197 section 4.2, with bytes read as
polynomials (bit i = coefficient of x^i).
"""

from amaranth.hdl import Const, Value

__all__ = [
    "AES_POLY", "xtime", "mul", "inv", "affine", "inv_affine",
    "SBOX", "INV_SBOX", "RCON", "sbox", "inv_sbox",
    "xtime_value", "mul_const_value",
]


#: The AES reduction polynomial x^8 + x^4 + x^3 + x + 1 (FIPS-197 eq. 4.1).
AES_POLY = 0x11B


def xtime(a: int) -> int:
    """Multiply a byte by x (FIPS-197 section 4.2.1)."""
    a <<= 1
    return a ^ AES_POLY if a & 0x100 else a


def mul(a: int, b: int) -> int:
    """Multiply two bytes in GF(2^8) (shift-and-add over :func:`xtime`)."""
    result = 0
    while b:
        if b & 1:
            result ^= a
        a = xtime(a)
        b >>= 1
    return result


def _build_inverse_table() -> tuple[int, ...]:
    # a^254 = a^-1 for a != 0; inv(0) = 0 by the AES convention (FIPS-197 section 5.1.1).
    table = [0] * 256
    for a in range(1, 256):
        r = 1
        for _ in range(254):
            r = mul(r, a)
        table[a] = r
    return tuple(table)


_INVERSE = _build_inverse_table()


def inv(a: int) -> int:
    """Multiplicative inverse in GF(2^8), with ``inv(0) == 0``."""
    return _INVERSE[a]


def _rotl8(a: int, n: int) -> int:
    return ((a << n) | (a >> (8 - n))) & 0xFF


def affine(a: int) -> int:
    """The S-box affine map of FIPS-197 eq. 5.1: ``b ^ rotl(b,1..4) ^ 0x63``."""
    return a ^ _rotl8(a, 1) ^ _rotl8(a, 2) ^ _rotl8(a, 3) ^ _rotl8(a, 4) ^ 0x63


def inv_affine(a: int) -> int:
    """Inverse of :func:`affine` (FIPS-197 section 5.3.2): ``rotl(b,1) ^ rotl(b,3) ^ rotl(b,6) ^ 0x05``."""
    return _rotl8(a, 1) ^ _rotl8(a, 3) ^ _rotl8(a, 6) ^ 0x05


#: The forward S-box, derived as affine(inv(a)).
SBOX = tuple(affine(inv(a)) for a in range(256))
#: The inverse S-box, derived as inv(inv_affine(a)).
INV_SBOX = tuple(inv(inv_affine(a)) for a in range(256))


def sbox(a: int) -> int:
    """SubBytes on one byte."""
    return SBOX[a]


def inv_sbox(a: int) -> int:
    """InvSubBytes on one byte."""
    return INV_SBOX[a]


def _build_rcon() -> tuple[int, ...]:
    rcon, r = [], 1
    for _ in range(14):
        rcon.append(r)
        r = xtime(r)
    return tuple(rcon)


#: Round constants x^(i) for key expansion, ``RCON[0] == 0x01`` (FIPS-197 section 5.2).
RCON = _build_rcon()


# --- Hardware: constant multiplication as XOR networks --------------------------------------


def xtime_value(a: Value) -> Value:
    """Amaranth expression for :func:`xtime` of an 8-bit value: a shift and three conditional XORs."""
    return (a << 1)[:8] ^ (a[7].replicate(8) & (AES_POLY & 0xFF))


def mul_const_value(a: Value, c: int) -> Value:
    """Amaranth expression multiplying an 8-bit value by the constant ``c``, as an xtime chain."""
    if not 0 <= c < 256:
        raise ValueError(f"Constant must be a byte, not {c!r}")
    result = None
    power = a
    while c:
        if c & 1:
            result = power if result is None else result ^ power
        c >>= 1
        if c:
            power = xtime_value(power)
    return result if result is not None else Const(0, 8)
