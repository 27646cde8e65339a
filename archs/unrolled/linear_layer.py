"""The merged linear layer of :class:`archs.unrolled.Unrolled` (``merged_linear_layer``).

Fully pipelined with precomputed keys and composite or tower S-boxes, everything linear between
one round's subfield inversions and the next round's (the S-box output map, the affine map,
ShiftRows, MixColumns, AddRoundKey and the next S-box's input map) is one GF(2)-linear map per
column, built as an XOR network of four-bit XORs with a register after each level
(:mod:`archs.prims.xor_pipeline`), so every datapath path between registers is one LUT4.
"""

import functools

from amaranth.hdl import Cat, Signal

from ..interface import bytes_value, value_bytes
from ..prims import gf
from ..prims.mixcolumns import column_map_parts, mix_column
from ..prims.sbox import field_maps, make_sbox
from ..prims.shiftrows import shift_rows
from ..prims.xor_pipeline import matrix_rows, xor_pipeline, xor_plan
from .wires import UnitFlags, delayed

__all__ = ["ROUND_LAYER_LEVELS", "LAST_LAYER_LEVELS", "ENTRY_MAP_LEVELS", "round_plan",
           "last_round_plan", "MergedLinearLayer"]

#: XOR levels of the merged linear layer (``merged_linear_layer``): a round's column map (rows of
#: up to 22 terms), the last round's byte map (up to 6), the first unit's entry map (up to 5).
#: A register follows every level but a network's last.
ROUND_LAYER_LEVELS, LAST_LAYER_LEVELS, ENTRY_MAP_LEVELS = 3, 2, 2


@functools.lru_cache(maxsize=None)
def round_plan(to_field, from_field):
    """The merged linear layer of a round with MixColumns, one column: from the four S-box
    inversions (field basis, after ShiftRows) and the four round key bytes to the next
    round's four inversion inputs, ``to(MixColumns(affine(from(y))) ^ k)``. The key's input
    map is part of the network; the affine constant (a constant of the whole map) inverts
    output bits in the last level's LUT4s. Three levels: rows of up to 22 terms."""
    y_map, const = column_map_parts(
        lambda col: [to_field(b) for b in mix_column([gf.affine(from_field(y)) for y in col])])
    key_map, _ = column_map_parts(lambda col: [to_field(b) for b in col])
    rows = [y + tuple(32 + k for k in key)
            for y, key in zip(matrix_rows(y_map, 32), matrix_rows(key_map, 32))]
    return xor_plan(rows, ROUND_LAYER_LEVELS, consts=gf.int_bits(const, 32))


@functools.lru_cache(maxsize=None)
def last_round_plan(from_field):
    """The last round's linear layer, one byte: ``affine(from(y)) ^ k`` (no MixColumns), from
    the inversion's 8 bits and the key byte's 8; two levels (rows of up to 6 terms)."""
    y_map, const = gf.affine_parts(lambda y: gf.affine(from_field(y)), 8)
    rows = [y + (8 + j,) for j, y in enumerate(matrix_rows(y_map, 8))]
    return xor_plan(rows, LAST_LAYER_LEVELS, consts=gf.int_bits(const, 8))


class MergedLinearLayer:
    """The round units of :class:`archs.unrolled.Unrolled` with the merged linear layer (a part
    of its datapath: the methods read the core's options)."""

    def _merged_unit(self, m, u, inp, round_keys):
        """Round unit ``u`` of a fully pipelined core with ``merged_linear_layer``: the slot's
        state is in the S-boxes' field basis (the first unit maps the entry register's), the
        S-boxes are subfield inversions without maps, and everything linear between one
        round's inversions and the next's is one map per column (output map, affine map,
        ShiftRows, MixColumns, AddRoundKey, input map), an XOR network with a register after
        each level of four-bit XORs (:mod:`archs.prims.xor_pipeline`). The round key enters the
        network through the input map (the affine constant folds into it); the last round's
        network is the output map and AddRoundKey, back in the standard basis.

        Returns the unit's final stage (combinational slot) and flags as :meth:`_unit`."""
        unit = self._units[u]
        name = f"u{u}"
        fam, stages, _ = unit.family
        (r,) = unit.rounds
        state = value_bytes(inp.state)
        delay = self.stages_per_round[u] - 1
        sboxes = [make_sbox(fam, stages=stages, device_family=self.device_family, maps=False)
                  for _ in state]
        to_field, from_field = field_maps(sboxes[0].field)
        if u == 0:
            plan = xor_plan(matrix_rows(gf.affine_parts(to_field, 8)[0], 8), ENTRY_MAP_LEVELS)
            mapped = []
            for n, b in enumerate(state):
                reg = Signal(8, name=f"{name}_mapped{n}", reset_less=True)
                m.d.sync += reg.eq(Cat(*xor_pipeline(m, f"{name}_map{n}", plan,
                                                    [b[k] for k in range(8)])))
                mapped.append(reg)
            state = mapped
        inverses = []
        for n, (sb, b) in enumerate(zip(sboxes, state)):
            m.submodules[f"{name}_sbox{n}"] = sb
            m.d.comb += sb.i.eq(b)
            inverses.append(sb.o)
        shifted = shift_rows(inverses)
        key = value_bytes(round_keys[r])
        out_bytes = []
        if r == self.rounds:
            plan = last_round_plan(from_field)
            for n in range(16):
                bits = [shifted[n][k] for k in range(8)] + [key[n][k] for k in range(8)]
                out_bytes.append(Cat(*xor_pipeline(m, f"{name}_lin{n}", plan, bits)))
        else:
            plan = round_plan(to_field, from_field)
            for c in range(4):
                bits = ([byte[k] for byte in shifted[4 * c:4 * c + 4] for k in range(8)]
                        + [byte[k] for byte in key[4 * c:4 * c + 4] for k in range(8)])
                outs = xor_pipeline(m, f"{name}_lin{c}", plan, bits)
                out_bytes += [Cat(*outs[8 * row:8 * row + 8]) for row in range(4)]
        side = Signal(self._slot_layout(), name=f"{name}_side")
        m.d.comb += side.eq(inp)
        side = delayed(m, side, delay, name)
        out = Signal(self._slot_layout(), name=f"{name}_out")
        m.d.comb += [out.valid.eq(side.valid), out.round.eq(side.round + 1),
                     out.state.eq(bytes_value(out_bytes))]
        return out, UnitFlags(last=side.round == self.rounds)
