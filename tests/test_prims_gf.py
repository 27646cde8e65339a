# amaranth: UnusedElaboratable=no
"""Pure-int tests of the field arithmetic: GF(2^8), GF((2^4)^2), GF(((2^2)^2)^2), T-boxes."""

import random

import pytest
from amaranth.hdl import Cat, Signal
from amaranth.sim import Simulator

from archs.prims import gf, tbox
from archs.prims.composite import (
    COMPOSITE, CompositeField, gf16_inv_bits, gf16_mul_bits, inv16, mul16,
)
from archs.prims.mixcolumns import (
    affine_mix_column, affine_mix_column_value, inv_affine_inv_mix_column,
    inv_affine_inv_mix_column_value, inv_mix_column, inv_mix_column_linear_value,
    inv_mix_column_value, mix_column,
    mix_column_value,
)
from archs.prims.tower import TOWER, TowerField

ALL_COMPOSITE = [CompositeField(lam, root) for lam in range(8, 16) for root in range(8)]
ALL_TOWER = [TowerField(n, nu) for n in (1, 2) for nu in (1, 2, 4, 7, 8, 11, 13, 14)]


def _clmul_mod(a, b, poly, width):
    # Independent model: carry-less product, then long division by the polynomial.
    p = 0
    for k in range(width):
        if (b >> k) & 1:
            p ^= a << k
    for k in range(2 * width - 2, width - 1, -1):
        if (p >> k) & 1:
            p ^= poly << (k - width)
    return p


# --- GF(2^8) -----------------------------------------------------------------------------------


def test_mul_all_products():
    for a in range(256):
        for b in range(256):
            assert gf.mul(a, b) == _clmul_mod(a, b, gf.AES_POLY, 8)


def test_inv():
    assert gf.inv(0) == 0
    for a in range(1, 256):
        assert gf.mul(a, gf.inv(a)) == 1


def test_sbox_fips197():
    # FIPS-197 section 5.1.1 example and Figure 7 corners.
    assert gf.SBOX[0x53] == 0xED
    assert gf.SBOX[0x00] == 0x63
    assert gf.SBOX[0xFF] == 0x16
    assert sorted(gf.SBOX) == list(range(256))
    assert all(gf.INV_SBOX[gf.SBOX[x]] == x for x in range(256))


def test_affine_inverse():
    assert all(gf.inv_affine(gf.affine(x)) == x for x in range(256))


def test_affine_parts_round_trip():
    columns, const = gf.affine_parts(gf.affine, 8)
    assert const == 0x63
    for x in range(256):
        assert gf.bits_int(gf.apply_affine(gf.int_bits(x, 8), columns, const)) == gf.affine(x)


def test_matrix_inverse():
    columns, _ = gf.affine_parts(gf.affine, 8)
    inverse = gf.gf2_matrix_inverse(columns, 8)
    for x in range(256):
        y = gf.bits_int(gf.apply_affine(gf.int_bits(x, 8), columns))
        assert gf.bits_int(gf.apply_affine(gf.int_bits(y, 8), inverse)) == x


def test_matrix_inverse_singular():
    with pytest.raises(ValueError, match=r"^Matrix is singular$"):
        gf.gf2_matrix_inverse((1, 2, 3), 3)


def test_anf_reproduces_table():
    monomials = gf.anf(gf.SBOX, 8, 8)
    for x in range(256):
        assert gf.bits_int(gf.apply_anf(gf.int_bits(x, 8), monomials)) == gf.SBOX[x]


# --- GF(2^4) and GF((2^4)^2) ------------------------------------------------------------------


def test_gf16():
    for a in range(16):
        for b in range(16):
            assert mul16(a, b) == _clmul_mod(a, b, 0x13, 4)
            assert gf.bits_int(gf16_mul_bits(gf.int_bits(a, 4), gf.int_bits(b, 4))) \
                == mul16(a, b)
        assert gf.bits_int(gf16_inv_bits(gf.int_bits(a, 4))) == inv16(a)
        if a:
            assert mul16(a, inv16(a)) == 1


def test_composite_mul_all_products():
    f = COMPOSITE
    for a in range(256):
        fa = f.from_composite(a)
        for b in range(256):
            assert f.from_composite(f.mul(a, b)) == gf.mul(fa, f.from_composite(b))


@pytest.mark.parametrize("field", ALL_COMPOSITE, ids=repr)
def test_composite_isomorphism(field):
    # Round trip both ways, and the map is a field isomorphism (checked on a sample here, on all
    # products for the field actually used above).
    for x in range(256):
        assert field.from_composite(field.to_composite(x)) == x
        assert field.to_composite(field.from_composite(x)) == x
        assert field.from_composite(field.inv(field.to_composite(x))) == gf.inv(x)
    rng = random.Random(3)
    for _ in range(200):
        a, b = rng.randrange(256), rng.randrange(256)
        assert field.from_composite(field.mul(a, b)) == \
            gf.mul(field.from_composite(a), field.from_composite(b))


def test_composite_matrices_not_typed_in():
    # delta^-1 maps the composite unit to 1 and the composite "y" to the root Y found in GF(2^8).
    f = COMPOSITE
    assert f.from_composite(0x01) == 1
    assert f.from_composite(0x10) == f.y
    assert gf.mul(f.y, f.y) ^ f.y == f.from_composite(f.lam)


def test_composite_bad_parameters():
    with pytest.raises(ValueError, match=r"^Lambda must make y\^2 \+ y \+ lambda irreducible "
                                         r"over GF\(2\^4\), not 1$"):
        CompositeField(1)
    with pytest.raises(ValueError, match=r"^Root must be an integer in 0\.\.7, not 8$"):
        CompositeField(0xC, 8)


# --- GF(((2^2)^2)^2) -------------------------------------------------------------------------


def test_tower_mul_all_products():
    f = TOWER
    for a in range(256):
        fa = f.from_tower(a)
        for b in range(256):
            assert f.from_tower(f.mul(a, b)) == gf.mul(fa, f.from_tower(b))


@pytest.mark.parametrize("field", ALL_TOWER, ids=repr)
def test_tower_isomorphism(field):
    for x in range(256):
        assert field.from_tower(field.to_tower(x)) == x
        assert field.from_tower(field.inv(field.to_tower(x))) == gf.inv(x)
    rng = random.Random(4)
    for _ in range(200):
        a, b = rng.randrange(256), rng.randrange(256)
        assert field.from_tower(field.mul(a, b)) == \
            gf.mul(field.from_tower(a), field.from_tower(b))


def test_tower_bad_parameters():
    with pytest.raises(ValueError, match=r"^N must make z\^2 \+ z \+ N irreducible over "
                                         r"GF\(2\^2\), not 0$"):
        TowerField(n=0)
    with pytest.raises(ValueError, match=r"^Nu must make y\^2 \+ y \+ nu irreducible over "
                                         r"GF\(2\^4\), not 3$"):
        TowerField(n=2, nu=3)


# --- T-boxes -----------------------------------------------------------------------------------


def test_tbox_round_identity():
    # One output column of SubBytes + MixColumns is the XOR of four T-box lookups.
    rng = random.Random(5)
    for _ in range(500):
        col = [rng.randrange(256) for _ in range(4)]
        enc = tbox.column_word(mix_column([gf.SBOX[b] for b in col]))
        dec = tbox.column_word(inv_mix_column([gf.INV_SBOX[b] for b in col]))
        assert tbox.te(0, col[0]) ^ tbox.te(1, col[1]) ^ tbox.te(2, col[2]) ^ \
            tbox.te(3, col[3]) == enc
        assert tbox.td(0, col[0]) ^ tbox.td(1, col[1]) ^ tbox.td(2, col[2]) ^ \
            tbox.td(3, col[3]) == dec


def test_tbox_rows_are_rotations():
    for x in range(256):
        s = gf.SBOX[x]
        assert tbox.TE[0][x] == gf.mul(2, s) << 24 | s << 16 | s << 8 | gf.mul(3, s)
        for row in range(1, 4):
            w = tbox.TE[0][x]
            assert tbox.TE[row][x] == (w >> (8 * row) | w << (32 - 8 * row)) & 0xFFFFFFFF


def test_joint_table():
    table = tbox.joint_table(2)
    assert len(table) == 512
    assert table[:256] == tbox.TE[2] and table[256:] == tbox.TD[2]
    with pytest.raises(ValueError, match=r"^Row must be an integer in 0\.\.3, not 4$"):
        tbox.joint_table(4)


# --- MixColumns / InvMixColumns -----------------------------------------------------------------


def test_inv_mix_column_inverts():
    rng = random.Random(6)
    for _ in range(1000):
        col = [rng.randrange(256) for _ in range(4)]
        assert inv_mix_column(mix_column(col)) == col
        assert mix_column(inv_mix_column(col)) == col


def test_mix_column_fips197():
    # FIPS-197 Appendix B, round 1, first column: d4 bf 5d 30 -> 04 66 81 e5.
    assert mix_column([0xD4, 0xBF, 0x5D, 0x30]) == [0x04, 0x66, 0x81, 0xE5]
    assert inv_mix_column([0x04, 0x66, 0x81, 0xE5]) == [0xD4, 0xBF, 0x5D, 0x30]


def _simulate_column_map(values, model, cases):
    """Drive a column of four 8-bit signals with each case and check the Amaranth expressions
    ``values(column)`` against the pure-int ``model(case)``."""
    from amaranth.hdl import Module
    col = [Signal(8, name=f"c{k}") for k in range(4)]
    exprs = values(col)
    outs = [Signal(8, name=f"o{k}") for k in range(len(exprs))]
    m = Module()
    m.d.comb += [s.eq(v) for s, v in zip(outs, exprs)]

    async def testbench(ctx):
        for case in cases:
            for s, v in zip(col, case):
                ctx.set(s, v)
            await ctx.delay(1e-9)
            assert [ctx.get(s) for s in outs] == model(case)

    sim = Simulator(m)
    sim.add_testbench(testbench)
    sim.run()


def test_mix_column_values_simulated():
    rng = random.Random(7)
    cases = [[rng.randrange(256) for _ in range(4)] for _ in range(100)]
    _simulate_column_map(lambda col: mix_column_value(col) + inv_mix_column_value(col),
                         lambda case: mix_column(case) + inv_mix_column(case), cases)


def test_inv_mix_column_linear_value():
    """The XOR-matrix InvMixColumns equals the xtime one: on every single-bit column (a linear
    map is fixed by them), on zero and on random columns; and its RTLIL stays small: the xtime
    chains reference each intermediate value twice per step and Amaranth emits an expression
    once per reference, so they grow with the chains and with an operand that is itself an
    expression (as a key expander's output is), where the matrix form references each input bit
    once per output bit that uses it."""
    from amaranth.back import rtlil
    from amaranth.hdl import Module
    rng = random.Random(9)
    basis = [[(1 << k) if r == row else 0 for r in range(4)] for row in range(4)
             for k in range(8)]
    cases = basis + [[0] * 4] + [[rng.randrange(256) for _ in range(4)] for _ in range(100)]
    _simulate_column_map(inv_mix_column_linear_value, inv_mix_column, cases)

    def cells(values, operand_is_expression):
        a, b = Signal(32), Signal(32)
        col = [a[8 * k:8 * k + 8] for k in range(4)]
        if operand_is_expression:   # one byte is an expression (all four: 20 s of conversion)
            col[0] = (a[:8] * 3 ^ b[:8])[:8]
        m = Module()
        out = Signal(32)
        m.d.comb += out.eq(Cat(*values(col)))
        return rtlil.convert(m, ports=[a, b, out]).count("cell $")
    linear, chains = ([cells(values, e) for e in (False, True)]
                      for values in (inv_mix_column_linear_value, inv_mix_column_value))
    assert linear[0] * 3 < chains[0], (linear, chains)                       # 440 vs 4,672
    assert (linear[1] - linear[0]) * 3 < chains[1] - chains[0], (linear, chains)  # 236 vs 6,198


def test_merged_affine_mix_columns():
    """003 section III.B: the affine map merged with MixColumns is MixColumns of SubBytes given
    the inverses, the inverse affine map merged with InvMixColumns is undone by the affine map of
    each byte, then MixColumns; the hardware maps (one 32x32 XOR matrix each) match the models."""
    rng = random.Random(8)
    for _ in range(200):
        col = [rng.randrange(256) for _ in range(4)]
        assert affine_mix_column([gf.inv(b) for b in col]) == mix_column(
            [gf.sbox(b) for b in col])
        assert mix_column([gf.affine(b) for b in inv_affine_inv_mix_column(col)]) == col
    cases = [[rng.randrange(256) for _ in range(4)] for _ in range(100)]
    _simulate_column_map(
        lambda col: affine_mix_column_value(col) + inv_affine_inv_mix_column_value(col),
        lambda case: affine_mix_column(case) + inv_affine_inv_mix_column(case), cases)
