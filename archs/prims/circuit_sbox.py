"""The circuit S-boxes: published gate-level circuits, each a straight-line program.

``bp113``, ``bp_depth16``, ``me_bidir``, ``rm_combined``, ``rm_new_area``
    Published gate-level circuits, each a straight-line program in :mod:`.circuits`
    (:class:`CircuitSBox`): Boyar-Peralta's 113-gate and depth-16 circuits, Maximov-Ekdahl's fast
    bidirectional circuit, Reyhani-Masoleh-Taha-Ashmawy's combined (ARITH 2018) and 'new area'
    (TCHES 2018) circuits. 0..7 pipeline registers after evenly spaced gate depths of the
    program, the last after its outputs (in one direction; a shared S-box of a circuit has
    none). A bidirectional circuit built for one direction has its direction input tied off
    (Yosys folds the constant); a forward-only circuit builds InvSubBytes between two inverse
    affine maps.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .circuits import CIRCUITS
from .sbox_kinds import sbox_latency
from .table_sbox import sbox_table

__all__ = ["circuit_sbox_bits", "CircuitSBox", "named_wires"]


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
        a = select(decrypt, gf.apply_byte_affine(x, gf.inv_affine), x)
        s = run(circuit.forward, a)
        return select(decrypt, gf.apply_byte_affine(s, gf.inv_affine), s)
    program = circuit.inverse if inverse else circuit.forward
    if program is not None:
        return run(program, x)
    if circuit.combined is not None:
        return run(circuit.combined, x, level(int(inverse)))
    forward = run(circuit.forward, gf.apply_byte_affine(x, gf.inv_affine))
    return gf.apply_byte_affine(forward, gf.inv_affine)


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
        self.table = sbox_table(self.inverse)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        out = circuit_sbox_bits(self.circuit, [self.i[k] for k in range(8)],
                                inverse=self.inverse, mux=Mux, node=named_wires(m),
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


def named_wires(m):
    """The ``node`` hook of :meth:`archs.prims.circuits.Program.evaluate` for hardware: a gate
    read more than once becomes a named wire, so each expression stays a small tree (Amaranth
    expressions do not share subexpressions, see :class:`archs.prims.field_sbox.PipelineCuts`)
    and the netlist keeps the paper's names."""
    def node(name, value):
        wire = Signal(name=name)
        m.d.comb += wire.eq(value)
        return wire
    return node

