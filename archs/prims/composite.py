"""Composite-field arithmetic GF((2^4)^2), the field of the "pure logic" S-box.

Rijmen's decomposition, as used by seed 000 (Zhou & Gaj, section II.F) and seed 002 (Hodjat &
Verbauwhede, section 3 and Fig. 2): a byte is mapped by a linear isomorphism ``delta`` into
GF((2^4)^2) = GF(2^4)[y] / (y^2 + y + lambda), where the multiplicative inverse needs only
GF(2^4) operations::

    (h*y + l)^-1 = (h*e)*y + ((h + l)*e),   e = (lambda*h^2 + (h + l)*l)^-1

GF(2^4) is GF(2)[w] / (w^4 + w + 1) in polynomial basis. Nothing below is typed in: the
isomorphism matrices come from searching GF(2^8) (with :func:`archs.prims.gf.mul`) for a root
``w`` of w^4 + w + 1 and a root ``Y`` of y^2 + y + lambda(w); the image of bit ``k`` of a composite
element is ``w^k`` (``k < 4``, coefficient ``l``) or ``w^(k-4) * Y`` (coefficient ``h``). The
eight choices of roots give eight different (equally correct) bases: ``root`` picks one.

The datapath functions (``d_terms``, ``inv4``, ``mul4``) work on lists of bits with ``^`` and
``&`` only, so one definition is both the pure-int model (tested exhaustively) and the hardware;
:func:`subfield_inversion` strings them together with the pipeline cut points of seed 002 Fig. 2.
"""

from . import gf

__all__ = [
    "GF16_POLY", "mul16", "inv16", "gf16_mul_bits", "gf16_inv_bits",
    "CompositeField", "COMPOSITE", "COMPOSITE_INV", "subfield_inversion", "gf256_roots",
    "BilinearBlocks", "SPLIT_CUTS", "field_blocks",
]

#: GF(2^4) reduction polynomial w^4 + w + 1.
GF16_POLY = 0x13


def mul16(a: int, b: int) -> int:
    """Multiply in GF(2^4) (polynomial basis, :data:`GF16_POLY`)."""
    result = 0
    for k in range(4):
        if (b >> k) & 1:
            result ^= a << k
    for k in (6, 5, 4):
        if (result >> k) & 1:
            result ^= GF16_POLY << (k - 4)
    return result


def inv16(a: int) -> int:
    """Inverse in GF(2^4), ``inv16(0) == 0`` (a^14)."""
    r = 1
    for _ in range(14):
        r = mul16(r, a)
    return r if a else 0


def gf16_mul_bits(a, b) -> list:
    """GF(2^4) product of two 4-bit lists: schoolbook AND/XOR, then reduction by w^4 = w + 1."""
    p = [None] * 7
    for i in range(4):
        for j in range(4):
            t = a[i] & b[j]
            p[i + j] = t if p[i + j] is None else p[i + j] ^ t
    # Reduction rows derived from GF16_POLY: w^k = w^(k-4) * (GF16_POLY - w^4).
    low = GF16_POLY & 0xF
    for k in (6, 5, 4):
        for j in range(4):
            if (low >> j) & 1:
                p[k - 4 + j] = p[k - 4 + j] ^ p[k]
    return p[:4]


# The 4-bit inverse as XOR-of-AND terms from its own truth table: any 4-input function is one
# LUT4, so there is nothing to factor here.
_INV16_ANF = gf.anf([inv16(x) for x in range(16)], 4, 4)


def gf16_inv_bits(a) -> list:
    """GF(2^4) inverse of a 4-bit list (from the algebraic normal form of :func:`inv16`)."""
    return gf.apply_anf(a, _INV16_ANF)


def gf256_roots(poly):
    """Roots in GF(2^8) of a polynomial given as a list of GF(2^8) coefficients (low first)."""
    roots = []
    for x in range(256):
        acc, power = 0, 1
        for c in poly:
            acc ^= gf.mul(c, power)
            power = gf.mul(power, x)
        if acc == 0:
            roots.append(x)
    return roots


class CompositeField:
    """GF((2^4)^2) with modulus y^2 + y + lambda over GF(2^4), and its isomorphism to GF(2^8).

    Composite elements are bytes ``h << 4 | l`` meaning ``h*y + l``.

    Parameters
    ----------
    lam : int
        The GF(2^4) constant lambda; y^2 + y + lambda must be irreducible over GF(2^4).
    root : int
        Which of the 8 isomorphisms (4 roots ``w`` times 2 roots ``Y``), 0..7.

    Attributes
    ----------
    to_composite_matrix, from_composite_matrix : tuple of int
        Columns of ``delta`` and ``delta^-1`` (for :func:`archs.prims.gf.apply_affine`).

    Raises
    ------
    ValueError
        If ``lam`` gives a reducible modulus, or ``root`` is out of range.
    """

    def __init__(self, lam: int = 0xC, root: int = 0):
        if not 0 < lam < 16 or any(mul16(y, y) ^ y == lam for y in range(16)):
            raise ValueError(f"Lambda must make y^2 + y + lambda irreducible over GF(2^4), "
                             f"not {lam!r}")
        if root not in range(8):
            raise ValueError(f"Root must be an integer in 0..7, not {root!r}")
        self.lam = lam
        self.root = root
        w = gf256_roots([1, 1, 0, 0, 1])[root // 2]           # w^4 + w + 1 = 0

        def embed16(x):                                        # GF(2^4) element -> GF(2^8)
            acc, power = 0, 1
            for k in range(4):
                if (x >> k) & 1:
                    acc ^= power
                power = gf.mul(power, w)
            return acc

        y = gf256_roots([embed16(lam), 1, 1])[root % 2]       # Y^2 + Y + lambda = 0
        self.w, self.y = w, y
        columns = [embed16(1 << k) for k in range(4)]
        columns += [gf.mul(embed16(1 << k), y) for k in range(4)]
        self.from_composite_matrix = tuple(columns)
        self.to_composite_matrix = gf.gf2_matrix_inverse(columns, 8)
        # lambda * h^2 is linear in h: one small XOR network.
        self._sq_scale = gf.affine_parts(lambda h: mul16(lam, mul16(h, h)), 4)[0]

    def __repr__(self):
        return f"CompositeField(lam={self.lam:#x}, root={self.root})"

    # --- pure-int model ---

    def to_composite(self, a: int) -> int:
        """Map a GF(2^8) byte into GF((2^4)^2) (``delta``)."""
        return gf.bits_int(gf.apply_affine(gf.int_bits(a, 8), self.to_composite_matrix))

    def from_composite(self, c: int) -> int:
        """Map a GF((2^4)^2) element back to GF(2^8) (``delta^-1``)."""
        return gf.bits_int(gf.apply_affine(gf.int_bits(c, 8), self.from_composite_matrix))

    def mul(self, a: int, b: int) -> int:
        """Multiply two composite elements: y^2 = y + lambda."""
        ah, al, bh, bl = a >> 4, a & 0xF, b >> 4, b & 0xF
        hh = mul16(ah, bh)
        high = hh ^ mul16(ah, bl) ^ mul16(al, bh)
        low = mul16(self.lam, hh) ^ mul16(al, bl)
        return high << 4 | low

    def inv(self, a: int) -> int:
        """Composite-field inverse (``inv(0) == 0``), computed by :func:`subfield_inversion`."""
        return gf.bits_int(subfield_inversion(self, gf.int_bits(a, 8)))

    # --- datapath pieces on bit lists (ints or 1-bit values) ---

    def d_terms(self, h, l):
        """The two terms whose sum is inverted, and the two factors of the result.

        Returns ``(lambda*h^2, (h+l)*l, h, h+l)``: the inverse is ``(h*e, (h+l)*e)``.
        """
        s = [a ^ b for a, b in zip(h, l)]
        return gf.apply_affine(h, self._sq_scale, 0, 4), gf16_mul_bits(s, l), h, s

    inv4 = staticmethod(gf16_inv_bits)
    mul4 = staticmethod(gf16_mul_bits)


class BilinearBlocks:
    """A function of two 4-bit operands as the XOR of four 4-input blocks (2 x 2 bits).

    A GF(2^4) product, or the sum ``d`` of :meth:`CompositeField.d_terms`, has output bits that
    depend on all 8 operand bits: at least two LUT4 levels, three as ``synth_ecp5`` maps them.
    Their algebraic normal form has only monomials of a constant, one bit, or one bit of each
    operand (a square in GF(2^4) is linear), so every monomial falls into one block of two bits
    of ``a`` and two of ``b``. Each block is one LUT4 per output bit; registering the 16 block
    bits cuts the function in the middle, and the XOR of four blocks is one LUT4 after the cut.

    Parameters
    ----------
    function : callable
        ``function(a, b)`` on two 4-bit lists of ints, returning a 4-bit list.

    Raises
    ------
    ValueError
        If a monomial of ``function`` spans more than one block (it is not of that form).
    """

    #: The blocks: (bit pair of ``a``, bit pair of ``b``), in the order of :meth:`blocks`.
    PAIRS = (((0, 1), (0, 1)), ((0, 1), (2, 3)), ((2, 3), (0, 1)), ((2, 3), (2, 3)))

    def __init__(self, function):
        table = [gf.bits_int(function(gf.int_bits(x & 0xF, 4), gf.int_bits(x >> 4, 4)))
                 for x in range(256)]
        masks = [sum(1 << k for k in pa) | sum(1 << (4 + k) for k in pb)
                 for pa, pb in self.PAIRS]
        #: For each block, for each output bit, the monomials over the block's 4 inputs.
        self.block_anf = [[[] for _ in range(4)] for _ in self.PAIRS]
        for bit, monomials in enumerate(gf.anf(table, 8, 4)):
            for mono in monomials:
                block = next((n for n, mask in enumerate(masks) if mono & ~mask == 0), None)
                if block is None:
                    raise ValueError(f"Monomial {mono:#04x} of output bit {bit} spans two "
                                     f"blocks: not a bilinear function plus linear terms")
                pa, pb = self.PAIRS[block]
                local = [k for k in pa] + [4 + k for k in pb]
                self.block_anf[block][bit].append(
                    sum(1 << n for n, k in enumerate(local) if (mono >> k) & 1))

    def blocks(self, a, b) -> list:
        """The 16 block bits (block-major: 4 output bits of block 0 first) of ``a`` and ``b``
        (bit lists; ints or 1-bit Amaranth values)."""
        out = []
        for (pa, pb), anf in zip(self.PAIRS, self.block_anf):
            inputs = [a[k] for k in pa] + [b[k] for k in pb]
            out += gf.apply_anf(inputs, anf)
        return out

    @staticmethod
    def total(block_bits) -> list:
        """The function's 4 output bits from the 16 bits of :meth:`blocks`."""
        return [block_bits[k] ^ block_bits[4 + k] ^ block_bits[8 + k] ^ block_bits[12 + k]
                for k in range(4)]


def _no_cut(point, bits):
    return bits


#: The cut points of :func:`subfield_inversion` with ``split_multipliers``.
SPLIT_CUTS = ("2m", "5m")


def subfield_inversion(field, a, cut=_no_cut, *, split_multipliers=False) -> list:
    """Inverse of an 8-bit element of a two-level field, as a bit list (low nibble first).

    ``field`` provides ``d_terms``, ``inv4`` and ``mul4`` (:class:`CompositeField`, or
    :class:`archs.prims.tower.TowerField`). ``cut(point, bits)`` is called at the pipeline cut
    points 2..5 of seed 002 Fig. 2 (see :mod:`archs.prims.field_sbox`) and returns the bits to
    continue with (registered copies in hardware, the same bits in the model):

    2. after the squarer/scaler and the GF(2^4) multiplier, before their sum;
    3. after the sum ``d`` (GF(2^4) inverter input);
    4. after the GF(2^4) inverter;
    5. after the two output multipliers.

    With ``split_multipliers`` the two GF(2^4) multiplier stages are built as
    :class:`BilinearBlocks` and cut inside: cut ``"2m"`` (instead of 2) holds the 16 block bits
    of ``d`` (the squarer/scaler folded into the blocks) and the two output factors; cut
    ``"5m"`` (between 4 and 5) the 2 x 16 block bits of the output products.
    """
    l, h = list(a[:4]), list(a[4:])
    t1, t2, f_hi, f_lo = field.d_terms(h, l)
    if split_multipliers:
        d_blocks = field_blocks(field)[0].blocks(l, h)
        bits = cut("2m", d_blocks + f_hi + f_lo)
        bits = cut(3, BilinearBlocks.total(bits[0:16]) + bits[16:24])
    else:
        bits = cut(2, t1 + t2 + f_hi + f_lo)
        t1, t2, f_hi, f_lo = bits[0:4], bits[4:8], bits[8:12], bits[12:16]
        bits = cut(3, [x ^ y for x, y in zip(t1, t2)] + f_hi + f_lo)
    d, f_hi, f_lo = bits[0:4], bits[4:8], bits[8:12]
    bits = cut(4, field.inv4(d) + f_hi + f_lo)
    e, f_hi, f_lo = bits[0:4], bits[4:8], bits[8:12]
    if not split_multipliers:
        return cut(5, field.mul4(f_lo, e) + field.mul4(f_hi, e))
    product = field_blocks(field)[1]
    bits = cut("5m", product.blocks(f_lo, e) + product.blocks(f_hi, e))
    return cut(5, BilinearBlocks.total(bits[0:16]) + BilinearBlocks.total(bits[16:32]))


_FIELD_BLOCKS = {}


def field_blocks(field):
    """The :class:`BilinearBlocks` of a field: ``d`` as a function of ``(l, h)`` and the GF(2^4)
    product ``mul4``, built once per field."""
    if id(field) not in _FIELD_BLOCKS:
        def d_of(l, h):
            t1, t2, _, _ = field.d_terms(h, l)
            return [x ^ y for x, y in zip(t1, t2)]
        _FIELD_BLOCKS[id(field)] = (field, BilinearBlocks(d_of), BilinearBlocks(field.mul4))
    return _FIELD_BLOCKS[id(field)][1:]


#: The field of the ``composite`` S-box kind (SubBytes and the shared form). All 64 choices of
#: lambda and root are correct; this one gave the fewest LUT4s for SubBytes (71; the naive
#: lambda=0xC, root=0 gives 74), see :mod:`archs.prims.field_sbox` for how it was measured.
COMPOSITE = CompositeField(0xD, 3)
#: The field of the ``composite`` InvSubBytes (72 LUT4, against 84 with :data:`COMPOSITE`).
COMPOSITE_INV = CompositeField(0x9, 7)
