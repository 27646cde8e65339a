"""The field S-boxes: inversion in a composite field plus the affine map, in logic.

``composite``
    Multiplicative inverse in GF((2^4)^2) plus the affine map: the "pure logic" S-box of seed 000
    section II.F and seed 002 section 3 (:mod:`.composite`). ``stages`` 0..7 pipeline registers.
``tower``
    Canright's compact S-box in GF(((2^2)^2)^2) with normal bases (:mod:`.tower`), same pipeline
    cut points as ``composite``.

Pipeline registers
------------------
Seed 002 (section 3, Fig. 2) pipelines the composite-field S-box: map ``delta`` into the composite
field, square-and-scale and multiply in GF(2^4), add, invert in GF(2^4), two GF(2^4) multipliers,
map back with ``delta^-1`` merged with the affine map. Its text says the dotted lines of Fig. 2
are the registers of the three-stage S-box and the solid lines those of the six-stage one, but the
figure itself is missing from the extracted text, so the cuts below are placed on the block
boundaries of that datapath (the same for ``tower``, whose datapath has the same blocks),
numbered in datapath order:

====  =====================================================================  =====
cut   position                                                               bits
====  =====================================================================  =====
1     after the input map (``delta``, or ``delta`` after the inverse affine)  8
2     after the GF(2^4) squarer/scaler and multiplier, before their sum        16
3     after the sum ``d`` (input of the GF(2^4) inverter)                      12
4     after the GF(2^4) inverter                                               12
5     after the two output GF(2^4) multipliers                                 8
6     after the output map (``delta^-1`` and affine): the S-box output          8
2m    instead of 2: inside the squarer/scaler and multiplier (their sum ``d``   24
      as four 2 x 2-bit blocks per bit, plus the two output factors)
5m    between 4 and 5: inside the two output multipliers (four blocks per bit)  32
====  =====================================================================  =====

``stages`` chooses the cuts (:data:`PIPELINE_CUTS`), keeping the stages close to balanced in
LUT4 levels: 0: none; 1: {4}; 2: {3, 5}; 3: {2, 4, 5} (the three-stage S-box of 002); 4: {1, 2, 4,
5}; 5: {1, 2, 3, 4, 5}; 6: all six (the six-stage S-box of 002, whose last register is the S-box
output register that 002 Fig. 1 places before ShiftRows/MixColumns); 7: {1, 2m, 3, 4, 5m, 5, 6}.

Every output bit of the GF(2^4) multiplier stages (cut 1 to 2, and 4 to 5) depends on 8 register
bits, two LUT4 levels at least and three as ``synth_ecp5 -nowidelut`` maps the first one, the
deepest stage of the six-stage S-box. The seven-stage
S-box cuts both in the middle (:class:`archs.prims.composite.BilinearBlocks`): a block of two
bits of each operand is one LUT4 per output bit, and the XOR of four blocks one LUT4, so every
stage but the input and output maps (XORs of up to 8 bits: two levels) is one LUT4 level.
Without the output register (``output_register=False``, for an architecture that registers the
output itself) it keeps cuts {1, 2m, 3, 4, 5m, 5}.

The bases were chosen by measuring: ``composite`` over all 64 (lambda, root) pairs (SubBytes
71..97 LUT4; the textbook lambda=0xC, root=0 gives 74, and 92 for the inverse), ``tower``
over all 16 (N, nu) pairs (64..83 in either direction), each direction with its own best
basis (``COMPOSITE`` / ``COMPOSITE_INV``, ``TOWER`` / ``TOWER_INV``). Three restructurings
of the composite datapath (products ``h*e, l*e`` instead of ``h*e, (h+l)*e``; ``d`` as one
linear map plus one product; the output as a sum of ``e_m`` times linear forms) all came out
larger (82..90 LUT4), so Canright's tower field, not the GF((2^4)^2) polynomial basis, is the
one that reaches the 64 LUT4 goal.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .composite import COMPOSITE, COMPOSITE_INV, SPLIT_CUTS, CompositeField, subfield_inversion
from .sbox_kinds import PIPELINE_CUTS, STAGES_TEXT
from .table_sbox import sbox_table
from .tower import TOWER, TOWER_INV

__all__ = ["PipelineCuts", "field_maps", "field_sbox_bits", "field_sbox_cuts", "CompositeSBox",
           "TowerSBox"]


class PipelineCuts:
    """Puts a pipeline register at the chosen cut points; carries extra bits (a direction) along."""

    def __init__(self, m, cuts, carry=()):
        self.m = m
        self.cuts = frozenset(cuts)
        self.carry = list(carry)

    def __call__(self, point, bits):
        if point not in self.cuts:
            # A wire, not a register: it keeps each block's expression a small tree (Amaranth
            # expressions do not share subexpressions, and the simulator would otherwise
            # evaluate the whole S-box as one exponentially large expression).
            wire = Signal(len(bits), name=f"node{point}")
            self.m.d.comb += wire.eq(Cat(*bits))
            return [wire[k] for k in range(len(bits))]
        reg = Signal(len(bits) + len(self.carry), name=f"cut{point}")
        self.m.d.sync += reg.eq(Cat(*bits, *self.carry))
        self.carry = [reg[len(bits) + k] for k in range(len(self.carry))]
        return [reg[k] for k in range(len(bits))]


def field_maps(field):
    """(to the field's basis, back to the standard one) of a composite or tower field: the
    S-box's input and output basis changes, as int functions."""
    if isinstance(field, CompositeField):
        return field.to_composite, field.from_composite
    return field.to_tower, field.from_tower


def field_sbox_bits(field, x, *, inverse=False, cut=None, split_multipliers=False, maps=True):
    """The logic S-box datapath on a bit list: input map, subfield inversion, output map.

    With ``cut`` omitted and int bits this is the pure-int model of :class:`CompositeSBox` and
    :class:`TowerSBox` (and of their inverses); the components call it with signal bits and a
    register-inserting ``cut``. ``split_multipliers`` builds the GF(2^4) multipliers in blocks
    with the cut points ``"2m"`` and ``"5m"``
    (:func:`archs.prims.composite.subfield_inversion`).
    ``maps=False`` leaves out both maps (and cuts 1 and 6): ``x`` is the field element and the
    result its inverse, for a datapath that merges the maps into its own linear layer.
    """
    cut = cut or (lambda point, bits: bits)
    if not maps:
        return subfield_inversion(field, list(x), cut, split_multipliers=split_multipliers)
    to_field, from_field = field_maps(field)
    # The affine maps merge into the basis changes: one XOR network at each end (seed 000
    # section II.F: s' = MX * (X^-1 * s)^-1).
    if inverse:
        a = gf.apply_byte_affine(x, lambda v: to_field(gf.inv_affine(v)))
        out = (lambda y: gf.apply_byte_affine(y, from_field))
    else:
        a = gf.apply_byte_affine(x, to_field)
        out = (lambda y: gf.apply_byte_affine(y, lambda v: gf.affine(from_field(v))))
    a = cut(1, a)
    y = subfield_inversion(field, a, cut, split_multipliers=split_multipliers)
    return cut(6, out(y))


def field_sbox_cuts(stages, *, output_register=True, maps=True):
    """The cut points of a ``composite`` or ``tower`` S-box with ``stages`` pipeline registers
    (:data:`PIPELINE_CUTS`); without ``output_register``, cut 6 (the output register) is left
    out, so the S-box is one cycle shorter and its output is combinational. Without ``maps``
    cuts 1 (after the input map) and 6 (after the output map) are left out: the input is the
    field element, registered by the caller, and the output the registered inverse (cut 5)."""
    cuts = PIPELINE_CUTS[stages]
    if not maps:
        return tuple(c for c in cuts if c not in (1, 6))
    return tuple(c for c in cuts if output_register or c != 6)


class _FieldSBox(wiring.Component):
    i: In(8)
    o: Out(8)

    def __init__(self, field, *, inverse=False, stages=0, output_register=True, maps=True):
        if stages not in PIPELINE_CUTS:
            raise ValueError(f"S-box family {self.kind!r} takes {STAGES_TEXT} pipeline stages, "
                             f"not {stages!r}")
        if not output_register and 6 not in PIPELINE_CUTS[stages]:
            raise ValueError(f"S-box family {self.kind!r} with {stages} stages has no output "
                             f"register to leave out")
        self.field = field
        self.inverse = bool(inverse)
        self.stages = stages
        if not maps and not {1, 5, 6} <= set(PIPELINE_CUTS[stages]):
            raise ValueError(f"S-box family {self.kind!r} without its maps needs cuts 1, 5 "
                             f"and 6 (6 or 7 stages), not {stages} stages")
        self.output_register = bool(output_register)
        self.maps = bool(maps)
        self.cuts = field_sbox_cuts(stages, output_register=output_register, maps=maps)
        self.latency = len(self.cuts)
        if maps:
            self.table = sbox_table(self.inverse)
        else:   # inversion in the field's own basis
            to_field, from_field = field_maps(field)
            self.table = tuple(to_field(gf.inv(from_field(a))) for a in range(256))
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        cut = PipelineCuts(m, self.cuts)
        out = field_sbox_bits(self.field, [self.i[k] for k in range(8)],
                              inverse=self.inverse, cut=cut,
                              split_multipliers=SPLIT_CUTS[0] in self.cuts, maps=self.maps)
        m.d.comb += self.o.eq(Cat(*out))
        return m


class CompositeSBox(_FieldSBox):
    """S-box (or inverse) as inversion in GF((2^4)^2) plus affine map (seed 002 section 3).

    Parameters
    ----------
    inverse : bool
        Build InvSubBytes instead of SubBytes.
    stages : int
        Pipeline registers, 0..7, at the cut points of :data:`PIPELINE_CUTS`.
    field : CompositeField or None
        The composite field and its isomorphism; by default
        :data:`archs.prims.composite.COMPOSITE` (or ``COMPOSITE_INV`` for the inverse S-box),
        the bases with the fewest LUT4s.

    Members
    -------
    i : In(8)
        Input byte, one per cycle.
    o : Out(8)
        Substituted byte, ``stages`` cycles later (one less without ``output_register``).

    Other parameters
    ----------------
    output_register : bool
        ``False`` leaves out cut 6 (the S-box output register) of a 6- or 7-stage S-box, for an
        architecture that registers the output itself (:func:`field_sbox_cuts`).
    maps : bool
        ``False`` leaves out the input and output maps (basis changes and affine map) of a 6-
        or 7-stage S-box and their cuts 1 and 6: ``i`` is an element of ``field`` in its basis,
        registered by the architecture, and ``o`` its inverse, ``stages - 2`` cycles later.
        For a datapath that merges the maps into its linear layer (the ``unrolled`` core's
        ``merged_linear_layer``).
    """

    kind = "composite"

    def __init__(self, *, inverse=False, stages=0, field=None, output_register=True, maps=True):
        if field is None:
            field = COMPOSITE_INV if inverse else COMPOSITE
        super().__init__(field, inverse=inverse, stages=stages, output_register=output_register,
                         maps=maps)


class TowerSBox(_FieldSBox):
    """S-box (or inverse) after Canright, inversion in GF(((2^2)^2)^2) with normal bases.

    Parameters and members as :class:`CompositeSBox`; ``field`` defaults to
    :data:`archs.prims.tower.TOWER` (``TOWER_INV`` for the inverse S-box).
    """

    kind = "tower"

    def __init__(self, *, inverse=False, stages=0, field=None, output_register=True, maps=True):
        if field is None:
            field = TOWER_INV if inverse else TOWER
        super().__init__(field, inverse=inverse, stages=stages, output_register=output_register,
                         maps=maps)
