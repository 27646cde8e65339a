"""Tower-field arithmetic GF(((2^2)^2)^2) in normal bases, after Canright's compact S-box.

D. Canright, "A Very Compact S-Box for AES", CHES 2005 (the GF(((2^2)^2)^2) field that seed 003
section I cites as the smallest GF-based S-box). Every level is a quadratic extension with a
*normal* basis ``{X^q, X}`` where ``X^2 + X + n = 0`` (trace 1, norm ``n``)::

    GF(2^2)  over GF(2):    basis {W^2, W},   W^2 + W + 1  = 0
    GF(2^4)  over GF(2^2):  basis {Z^4, Z},   Z^2 + Z + N  = 0
    GF(2^8)  over GF(2^4):  basis {Y^16, Y},  Y^2 + Y + nu = 0

In such a basis, with ``e = n * (a1 + a0) * (b1 + b0)``::

    (a1 X^q + a0 X) * (b1 X^q + b0 X) = (a1*b1 + e) X^q + (a0*b0 + e) X
    (a1 X^q + a0 X)^-1 = (theta*a0) X^q + (theta*a1) X,   theta = (n*(a1 + a0)^2 + a1*a0)^-1

and in GF(2^2) squaring, and so inversion, is a swap of the two bits. Bit ``k`` of a byte is the
coefficient of ``Y-part(k >> 2) * Z-part((k >> 1) & 1) * W-part(k & 1)``, where part 0 is
``X`` and part 1 is ``X^q``. The isomorphism matrices to and from the AES field are computed by
finding ``W``, ``Z`` and ``Y`` in GF(2^8) with :func:`archs.prims.gf.mul`; nothing is typed in.

As in :mod:`.composite`, every datapath function takes bit lists and uses only ``^`` and ``&``,
so it serves as the pure-int model and as the hardware.
"""

from . import gf
from .composite import gf256_roots, subfield_inversion

__all__ = ["mul2_bits", "TowerField", "TOWER", "TOWER_INV"]


def mul2_bits(a, b) -> list:
    """GF(2^2) product in normal basis {W^2, W}: bit 0 is the W coefficient, bit 1 the W^2 one."""
    e = (a[1] ^ a[0]) & (b[1] ^ b[0])
    return [e ^ (a[0] & b[0]), e ^ (a[1] & b[1])]


def _sq2_bits(a) -> list:
    # (a1 W^2 + a0 W)^2 = a1 W + a0 W^2: squaring (= inversion in GF(2^2)) swaps the bits.
    return [a[1], a[0]]


class TowerField:
    """GF(((2^2)^2)^2) in Canright's normal bases, and its isomorphism to GF(2^8).

    Parameters
    ----------
    n : int
        The norm ``N`` of ``Z`` (a GF(2^2) element, 2 bits); z^2 + z + N must be irreducible.
    nu : int
        The norm ``nu`` of ``Y`` (a GF(2^4) element, 4 bits); y^2 + y + nu must be irreducible.

    Attributes
    ----------
    to_tower_matrix, from_tower_matrix : tuple of int
        Columns of the basis change from and to the AES polynomial basis.

    Raises
    ------
    ValueError
        If either modulus is reducible.
    """

    def __init__(self, n: int = 0b10, nu: int = 0b1000):
        if n not in range(4) or any(gf.bits_int(self._add(_sq2_bits(y), y)) == n
                                    for y in (gf.int_bits(v, 2) for v in range(4))):
            raise ValueError(f"N must make z^2 + z + N irreducible over GF(2^2), not {n!r}")
        self.n = n
        self._n_bits = gf.int_bits(n, 2)
        # N * s^2 over GF(2^2), and nu * s^2 over GF(2^4): linear, derived as small matrices.
        self._sq_scale_n = gf.affine_parts(
            lambda s: gf.bits_int(mul2_bits(self._n_bits, _sq2_bits(gf.int_bits(s, 2)))), 2)[0]
        if nu not in range(16) or any(
                gf.bits_int(self._add(self.mul4(y, y), y)) == nu
                for y in (gf.int_bits(v, 4) for v in range(16))):
            raise ValueError(f"Nu must make y^2 + y + nu irreducible over GF(2^4), not {nu!r}")
        self.nu = nu
        nu_bits = gf.int_bits(nu, 4)
        self._sq_scale_nu = gf.affine_parts(
            lambda s: gf.bits_int(self.mul4(nu_bits, self.mul4(gf.int_bits(s, 4),
                                                               gf.int_bits(s, 4)))), 4)[0]

        # Embed the three generators in GF(2^8).
        w = gf256_roots([1, 1, 1])[0]
        w_basis = (w, gf.mul(w, w))                               # bit 0: W, bit 1: W^2

        def embed2(x):
            return (w_basis[0] if x & 1 else 0) ^ (w_basis[1] if x & 2 else 0)

        z = gf256_roots([embed2(n), 1, 1])[0]
        z_basis = (z, gf.mul(gf.mul(z, z), gf.mul(z, z)))        # Z, Z^4

        def embed4(x):
            return gf.mul(embed2(x & 3), z_basis[0]) ^ gf.mul(embed2(x >> 2), z_basis[1])

        y = gf256_roots([embed4(nu), 1, 1])[0]
        y16 = y
        for _ in range(4):
            y16 = gf.mul(y16, y16)
        y_basis = (y, y16)                                        # Y, Y^16
        self.from_tower_matrix = tuple(
            gf.mul(gf.mul(y_basis[k >> 2], z_basis[(k >> 1) & 1]), w_basis[k & 1])
            for k in range(8))
        self.to_tower_matrix = gf.gf2_matrix_inverse(self.from_tower_matrix, 8)

    def __repr__(self):
        return f"TowerField(n={self.n:#04b}, nu={self.nu:#06b})"

    @staticmethod
    def _add(a, b):
        return [x ^ y for x, y in zip(a, b)]

    # --- GF(2^4) over GF(2^2) ---

    def mul4(self, a, b) -> list:
        """GF(2^4) product of 4-bit lists (low pair: Z coefficient, high pair: Z^4)."""
        a0, a1, b0, b1 = a[0:2], a[2:4], b[0:2], b[2:4]
        e = mul2_bits(self._n_bits, mul2_bits(self._add(a1, a0), self._add(b1, b0)))
        return self._add(mul2_bits(a0, b0), e) + self._add(mul2_bits(a1, b1), e)

    def inv4(self, a) -> list:
        """GF(2^4) inverse of a 4-bit list (``0 -> 0``), Canright's normal-basis inverter."""
        a0, a1 = a[0:2], a[2:4]
        d = self._add(gf.apply_affine(self._add(a1, a0), self._sq_scale_n, 0, 2),
                      mul2_bits(a1, a0))
        theta = _sq2_bits(d)
        return mul2_bits(theta, a1) + mul2_bits(theta, a0)

    # --- GF(2^8) over GF(2^4) ---

    def d_terms(self, h, l):
        """``(nu*(h+l)^2, h*l, l, h)``: the inverse is ``(e*l) Y^16 + (e*h) Y`` (see
        :func:`archs.prims.composite.subfield_inversion`)."""
        s = self._add(h, l)
        return gf.apply_affine(s, self._sq_scale_nu, 0, 4), self.mul4(h, l), l, h

    # --- pure-int model ---

    def to_tower(self, a: int) -> int:
        """Map a byte of the AES field into the tower field."""
        return gf.bits_int(gf.apply_affine(gf.int_bits(a, 8), self.to_tower_matrix))

    def from_tower(self, t: int) -> int:
        """Map a tower-field byte back to the AES field."""
        return gf.bits_int(gf.apply_affine(gf.int_bits(t, 8), self.from_tower_matrix))

    def mul(self, a: int, b: int) -> int:
        """Multiply two tower-field bytes."""
        ab, bb = gf.int_bits(a, 8), gf.int_bits(b, 8)
        a0, a1, b0, b1 = ab[0:4], ab[4:8], bb[0:4], bb[4:8]
        nu_bits = gf.int_bits(self.nu, 4)
        e = self.mul4(nu_bits, self.mul4(self._add(a1, a0), self._add(b1, b0)))
        return gf.bits_int(self._add(self.mul4(a0, b0), e) + self._add(self.mul4(a1, b1), e))

    def inv(self, a: int) -> int:
        """Tower-field inverse (``inv(0) == 0``)."""
        return gf.bits_int(subfield_inversion(self, gf.int_bits(a, 8)))


#: The field of the ``tower`` S-box kind (SubBytes and the shared form): of the 16 valid
#: ``(N, nu)`` it gave the fewest LUT4s for SubBytes (64), see :mod:`archs.prims.field_sbox`.
TOWER = TowerField(n=0b01, nu=0b0010)
#: The field of the ``tower`` InvSubBytes (64 LUT4, against 75 with :data:`TOWER`).
TOWER_INV = TowerField(n=0b01, nu=0b1101)
