"""GF(2^8) arithmetic of AES: the pure-integer reference model and constant-multiply networks.

Everything in :mod:`archs` that holds an AES constant (the S-box tables, T-tables, MixColumns
coefficients, round constants, composite-field matrices) derives it from the functions here, so no
table is ever typed in by hand (CONTRIBUTING.md, rule 3, after ``amaranth.lib.crc``).

The field is GF(2)[x] / (x^8 + x^4 + x^3 + x + 1), FIPS-197 section 4.2, with bytes read as
polynomials (bit i = coefficient of x^i).
"""

from amaranth.hdl import Const, Value

__all__ = [
    "AES_POLY", "xtime", "mul", "inv", "affine", "inv_affine",
    "SBOX", "INV_SBOX", "RCON", "sbox",
    "xtime_value", "mul_const_value",
    "int_bits", "bits_int", "affine_parts", "apply_affine", "apply_byte_affine",
    "gf2_matrix_inverse", "anf", "apply_anf",
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
    # The powers of the generator x + 1 (0x03) run through every non-zero element, so
    # a = 3^k has the inverse 3^(255 - k); inv(0) = 0 by the AES convention (FIPS-197 section
    # 5.1.1). (Raising each a to a^254 gives the same table in 250 times the multiplications:
    # most of the time `import archs` took.)
    powers = [1] * 255
    for k in range(1, 255):
        powers[k] = mul(powers[k - 1], 3)
    log = {a: k for k, a in enumerate(powers)}
    return (0,) + tuple(powers[(255 - log[a]) % 255] for a in range(1, 256))


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


# --- GF(2) linear algebra on bit lists --------------------------------------------------------
#
# Implementation notes: the S-box datapaths of :mod:`.composite` and :mod:`.tower` are written once,
# as functions on lists of bits (least significant first) that only use ``^`` and ``&``. Python
# ints 0/1 and 1-bit Amaranth values both support those operators, so the very same function is
# the pure-int reference model (tested exhaustively) and, applied to signal bits, the hardware.


def int_bits(value: int, width: int) -> list:
    """The ``width`` bits of ``value``, least significant first."""
    return [(value >> k) & 1 for k in range(width)]


def bits_int(bits) -> int:
    """Inverse of :func:`int_bits` (for bit lists of Python ints)."""
    return sum(int(b) << k for k, b in enumerate(bits))


def affine_parts(function, width_in: int) -> tuple[tuple[int, ...], int]:
    """Split a GF(2)-affine map on integers into its matrix columns and its constant.

    ``function(x) == const ^ XOR(columns[k] for each bit k set in x)``. The caller's function is
    evaluated on 0 and on each unit vector; :func:`apply_affine` checks nothing, so derive only
    from functions known to be affine (products with constants, squarings, basis changes).

    Returns
    -------
    (columns, const)
    """
    const = function(0)
    return tuple(function(1 << k) ^ const for k in range(width_in)), const


def apply_affine(bits, columns, const: int = 0, width_out: int = 8) -> list:
    """Apply the affine map ``(columns, const)`` of :func:`affine_parts` to a bit list.

    Each output bit is the XOR of the input bits whose column has that bit set; works on ints and
    on 1-bit Amaranth values alike (a constant-one output bit becomes ``^ 1``).
    """
    out = []
    for j in range(width_out):
        acc = None
        for k, column in enumerate(columns):
            if (column >> j) & 1:
                acc = bits[k] if acc is None else acc ^ bits[k]
        if acc is None:
            acc = (const >> j) & 1
        elif (const >> j) & 1:
            acc = acc ^ 1
        out.append(acc)
    return out


def apply_byte_affine(bits, function) -> list:
    """The affine byte map ``function`` (an int function, see :func:`affine_parts`) on a list of
    8 bits: the S-boxes' affine maps and basis changes, as XOR networks."""
    return apply_affine(bits, *affine_parts(function, 8))


def gf2_matrix_inverse(columns, width: int) -> tuple[int, ...]:
    """Columns of the inverse of the square GF(2) matrix given by its ``columns``.

    Raises
    ------
    ValueError
        If the matrix is singular.
    """
    # Gauss-Jordan on rows [A | I]; row j of A is bit j of every column.
    rows = []
    for j in range(width):
        row = sum(((columns[k] >> j) & 1) << k for k in range(width))
        rows.append((row, 1 << j))
    for col in range(width):
        pivot = next((r for r in range(col, width) if (rows[r][0] >> col) & 1), None)
        if pivot is None:
            raise ValueError("Matrix is singular")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(width):
            if r != col and (rows[r][0] >> col) & 1:
                rows[r] = (rows[r][0] ^ rows[col][0], rows[r][1] ^ rows[col][1])
    # rows[j][1] is row j of the inverse; turn rows back into columns.
    return tuple(sum(((rows[j][1] >> k) & 1) << j for j in range(width)) for k in range(width))


def anf(table, width_in: int, width_out: int) -> tuple[tuple[int, ...], ...]:
    """Algebraic normal form of a lookup table: for each output bit, its monomials.

    A monomial is a bit mask of the inputs ANDed together (0 is the constant 1); the output bit is
    the XOR of its monomials. Computed by the binary Moebius transform of each output column.
    """
    result = []
    for j in range(width_out):
        coeffs = [(table[x] >> j) & 1 for x in range(1 << width_in)]
        for k in range(width_in):
            for x in range(1 << width_in):
                if (x >> k) & 1:
                    coeffs[x] ^= coeffs[x ^ (1 << k)]
        result.append(tuple(x for x in range(1 << width_in) if coeffs[x]))
    return tuple(result)


def apply_anf(bits, monomials) -> list:
    """Evaluate :func:`anf` output on a bit list (ints or 1-bit Amaranth values)."""
    out = []
    for terms in monomials:
        acc = None
        for mask in terms:
            term = None
            for k in range(len(bits)):
                if (mask >> k) & 1:
                    term = bits[k] if term is None else term & bits[k]
            if term is None:
                term = 1
            acc = term if acc is None else acc ^ term
        out.append(0 if acc is None else acc)
    return out
