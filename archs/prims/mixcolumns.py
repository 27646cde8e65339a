"""MixColumns and InvMixColumns on one column (FIPS-197 sections 5.1.3 and 5.3.3).

Column-wise so that 8-, 32-, 64- and 128-bit datapaths all use the same parts: a datapath of width
W applies :func:`mix_column_value` to W / 32 columns (or time-shares one). :class:`MixColumn` wraps
the expressions in a component of its own, so that an architecture's MixColumns units can be
counted in its elaborated design.
"""

from amaranth.hdl import Cat, Module
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from . import gf

__all__ = ["MIX_MATRIX", "INV_MIX_MATRIX", "mix_column", "inv_mix_column",
           "mix_column_value", "inv_mix_column_value", "inv_mix_column_linear_value",
           "column_map_parts", "affine_mix_column",
           "inv_affine_inv_mix_column", "affine_mix_column_value",
           "inv_affine_inv_mix_column_value", "MixColumn"]

#: Row 0 of the circulant MixColumns matrix; row r is this rotated right by r.
MIX_MATRIX = (2, 3, 1, 1)
#: Row 0 of the circulant InvMixColumns matrix.
INV_MIX_MATRIX = (0x0E, 0x0B, 0x0D, 0x09)


def _row(coeffs, column, r):
    acc = 0
    for c in range(4):
        acc ^= gf.mul(coeffs[(c - r) % 4], column[c])
    return acc


def mix_column(column: list[int]) -> list[int]:
    """MixColumns on four bytes (row 0 first)."""
    return [_row(MIX_MATRIX, column, r) for r in range(4)]


def inv_mix_column(column: list[int]) -> list[int]:
    """InvMixColumns on four bytes (row 0 first)."""
    return [_row(INV_MIX_MATRIX, column, r) for r in range(4)]


def _row_value(coeffs, column, r):
    acc = None
    for c in range(4):
        term = gf.mul_const_value(column[c], coeffs[(c - r) % 4])
        acc = term if acc is None else acc ^ term
    return acc


def mix_column_value(column):
    """Amaranth expressions for MixColumns of four 8-bit values (row 0 first)."""
    return [_row_value(MIX_MATRIX, column, r) for r in range(4)]


def inv_mix_column_value(column):
    """Amaranth expressions for InvMixColumns of four 8-bit values (row 0 first)."""
    return [_row_value(INV_MIX_MATRIX, column, r) for r in range(4)]


def inv_mix_column_linear_value(column):
    """Amaranth expressions for InvMixColumns of four 8-bit values (row 0 first), as its 32x32
    GF(2) matrix: one XOR of input bits per output bit.

    The same function as :func:`inv_mix_column_value`, written so that each input bit is
    referenced directly: the xtime chains of :func:`gf.mul_const_value` reference their operand
    twice per step, and Amaranth emits an expression once per reference, so the three-step
    chains of 0x0E, 0x0B, 0x0D and 0x09 on an operand that is itself a large expression grow
    the RTLIL eightfold."""
    return _merged_value(inv_mix_column, column)


def affine_mix_column(column: list[int]) -> list[int]:
    """MixColumns of the S-box affine map of four bytes: SubBytes then MixColumns, given the
    GF(2^8) inverses (seed 003 section III.B: Affine and MixColumn merged into one map)."""
    return mix_column([gf.affine(b) for b in column])


def inv_affine_inv_mix_column(column: list[int]) -> list[int]:
    """The inverse affine map of each byte of InvMixColumns of four bytes (003 section III.B:
    InvMixColumn and InvAffine merged into one map)."""
    return [gf.inv_affine(b) for b in inv_mix_column(column)]


def column_map_parts(function) -> tuple[tuple[int, ...], int]:
    """The 32x32 GF(2) matrix (as columns) and the constant of a GF(2)-affine map of a column,
    given as the pure-int ``function`` on four bytes (:func:`gf.affine_parts`; row 0 in bits
    0-7 of input and output)."""
    def packed(x):
        return sum(b << 8 * r for r, b in enumerate(function([(x >> 8 * r) & 0xFF
                                                              for r in range(4)])))
    return gf.affine_parts(packed, 32)


def _merged_value(function, column):
    """Amaranth expressions for a GF(2)-affine map of a column, given as the pure-int
    ``function`` on four bytes: its 32x32 matrix and constant (:func:`column_map_parts`), one
    XOR of input bits per output bit, so the two maps it composes become one."""
    columns, const = column_map_parts(function)
    bits = gf.apply_affine([column[r][k] for r in range(4) for k in range(8)], columns, const,
                           width_out=32)
    return [Cat(*bits[8 * r:8 * r + 8]) for r in range(4)]


def affine_mix_column_value(column):
    """Amaranth expressions for :func:`affine_mix_column` of four 8-bit values."""
    return _merged_value(affine_mix_column, column)


def inv_affine_inv_mix_column_value(column):
    """Amaranth expressions for :func:`inv_affine_inv_mix_column` of four 8-bit values."""
    return _merged_value(inv_affine_inv_mix_column, column)


class MixColumn(wiring.Component):
    """MixColumns of one column (FIPS-197 section 5.1.3), combinational.

    A component of its own so that a design's MixColumns units can be counted (000 Table I).

    Members
    -------
    i : In(ArrayLayout(8, 4))
        Column, row 0 first.
    o : Out(ArrayLayout(8, 4))
        Mixed column.
    """

    i: In(data.ArrayLayout(8, 4))
    o: Out(data.ArrayLayout(8, 4))

    def elaborate(self, platform):
        m = Module()
        for r, value in enumerate(mix_column_value([self.i[k] for k in range(4)])):
            m.d.comb += self.o[r].eq(value)
        return m
