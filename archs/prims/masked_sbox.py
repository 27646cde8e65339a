"""A masked AES S-box: Canright's tower-field circuit on shares, every AND a masking gadget.

The tower S-box's datapath (:func:`archs.prims.field_sbox.field_sbox_bits` on
:data:`archs.prims.tower.TOWER`) is written with ``^`` and ``&`` on bits only. Run on
:class:`SharedBit` values instead, the same function builds the masked S-box: XOR (and the
affine maps, XORs with constants) act share by share, and each AND is an AND gadget of
:mod:`archs.prims.masking` with its own fresh random bits. A gadget's output is some cycles
later than its inputs (its latency), so every value carries its pipeline *stage*, and an
operation on values of different stages first delays the earlier one with registers (a value
delayed once is shared by all its users). The S-box is fully pipelined: a new shared byte and
new random bits every cycle, the shared result :attr:`MaskedSBox.latency` cycles later.

How many random bits a byte takes is counted, not typed in: :func:`plan` runs the datapath on
placeholders and counts the ANDs (36 for this circuit: 9 for the GF(2^4) product of the two
halves, 9 for the GF(2^4) inverter, 18 for the two output products) and the stages.

Composition: HPC2 is PINI, so its gadgets compose into a circuit that is probing secure at the
gadget's order. DOM-indep assumes the two inputs of each AND are independently shared, which
the circuit does not guarantee (``a0 & b0`` and ``(a1 ^ a0) & (b1 ^ b0)`` share inputs): a
DOM-indep S-box is correct, and whether it leaks is for a leakage test on its netlist to say.
"""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .field_sbox import field_sbox_bits
from .masking import GADGETS, dom_indep_and, pairs, random_bits
from .tower import TOWER, mul2_bits

__all__ = ["SharedBit", "MaskedSBox", "MULTIPLIERS", "plan", "register_values",
           "register_names", "gadget_groups"]

#: How the S-box's products are masked: ``bit``, every AND of the bit-level circuit a gadget
#: (either gadget); ``field``, every GF(2^4) and GF(2^2) product a DOM-indep gadget over the
#: field (``dom_indep`` only), with as many random bits per pair of domains as the product has.
MULTIPLIERS = ("bit", "field")


class SharedBit:
    """A bit as ``order + 1`` shares (1-bit values, or None in a :func:`plan`) at pipeline
    ``stage``, built by ``circuit``."""

    def __init__(self, circuit, shares, stage: int):
        self.circuit, self.shares, self.stage = circuit, list(shares), stage

    def __xor__(self, other):
        if isinstance(other, int):
            if not other & 1:
                return self
            return SharedBit(self.circuit, self.circuit.invert(self.shares), self.stage)
        a, b = self.circuit.aligned(self, other)
        return SharedBit(self.circuit, self.circuit.xor(a.shares, b.shares), a.stage)

    __rxor__ = __xor__

    def __invert__(self):
        return self ^ 1

    def __and__(self, other):
        if isinstance(other, int):  # a constant factor (the field's norms): no gadget
            return self if other & 1 else 0
        a, b = self.circuit.aligned(self, other)
        return SharedBit(self.circuit, self.circuit.gadget_and(a.shares, b.shares),
                         a.stage + self.circuit.latency)

    __rand__ = __and__


class _Circuit:
    """What the shared operations build: registers and gadgets in ``m``, random bits taken
    from ``rnd`` in order. ``m=None``: a plan that only counts. ``m="model"``: the int model,
    shares and ``rnd`` bits are ints and :attr:`registers` records every register's value in
    the order the hardware creates them."""

    def __init__(self, gadget: str, order: int, m=None, rnd=None):
        self.function = GADGETS[gadget].function
        self.latency = GADGETS[gadget].latency
        self.order, self.m, self.rnd = order, m, rnd
        self.ands = 0
        self.random_used = 0
        self.registers: list = []
        self.names: list = []
        self._delayed: dict = {}

    def invert(self, shares):
        if self.m is None:
            return [None] * len(shares)
        return [(shares[0] ^ 1) if self.m == "model" else ~shares[0]] + shares[1:]

    def xor(self, a, b):
        return [None] * len(a) if self.m is None else [x ^ y for x, y in zip(a, b)]

    def gadget_and(self, a, b):
        self.ands += 1
        r = self._random(random_bits(self.order))
        if self.m is None:
            return [None] * len(a)
        return self.function(a, b, r, lambda value, name: self.register(value,
                                                                        f"and{self.ands}_{name}"))

    def _random(self, count: int) -> list:
        first, self.random_used = self.random_used, self.random_used + count
        return None if self.m is None else [self.rnd[first + k] for k in range(count)]

    def field_product(self, mul, a: list, b: list) -> list:
        """DOM-indep over a field: ``mul`` (a bilinear product of bit lists) of the shared
        vectors ``a`` and ``b``; the inner-domain products and the cross-domain ones plus
        ``len(a)`` random bits per pair of domains registered, one cycle."""
        stage = max(x.stage for x in a + b)
        a, b = [self.delayed(x, stage) for x in a], [self.delayed(x, stage) for x in b]
        self.ands += 1
        width, domains = len(a), self.order + 1
        random = [_Vector(self._random(width) or ()) for _ in pairs(self.order)]
        if self.m is None:
            return [SharedBit(self, [None] * domains, stage + 1) for _ in range(width)]
        name = f"and{self.ands}"
        out = dom_indep_and(
            [_Vector(x.shares[i] for x in a) for i in range(domains)],
            [_Vector(x.shares[i] for x in b) for i in range(domains)],
            random,
            lambda value, what: _Vector(self.register(v, f"{name}_{what}") for v in value),
            product=lambda x, y: _Vector(mul(list(x), list(y))))
        return [SharedBit(self, [out[i][n] for i in range(domains)], stage + 1)
                for n in range(width)]

    def register(self, value, name):
        self.names.append(name)
        if self.m == "model":
            bit = value & 1
            self.registers.append(bit)
            return bit
        register = Signal(name=name)
        self.m.d.sync += register.eq(value)
        self.registers.append(register)
        return register

    def delayed(self, bit: SharedBit, stage: int) -> SharedBit:
        """``bit`` at ``stage`` (registers added once per bit and stage)."""
        while bit.stage < stage:
            key = (id(bit), bit.stage + 1)
            if key not in self._delayed:
                shares = bit.shares if self.m is None else [self.register(s, "delay")
                                                            for s in bit.shares]
                # The key holds ``bit`` alive, so its id is not reused.
                self._delayed[key] = (bit, SharedBit(self, shares, bit.stage + 1))
            bit = self._delayed[key][1]
        return bit

    def aligned(self, a: SharedBit, b: SharedBit):
        stage = max(a.stage, b.stage)
        return self.delayed(a, stage), self.delayed(b, stage)


class _Vector(tuple):
    """A share of a field element as its bits, XORed bit by bit (for :func:`dom_indep_and`
    over a field)."""

    def __xor__(self, other):
        return _Vector(x ^ y for x, y in zip(self, other))


class _FieldProducts:
    """:data:`archs.prims.tower.TOWER` for :func:`field_sbox_bits` with each GF(2^4) and
    GF(2^2) product of shared values a field gadget (``multipliers: field``); everything else
    is the field's own. ``d_terms`` and ``inv4`` are TowerField's formulas with their products
    taken by the gadget."""

    def __init__(self, field, circuit):
        self.field, self.circuit = field, circuit

    def __getattr__(self, name):
        return getattr(self.field, name)

    def mul4(self, a, b):
        return self.circuit.field_product(self.field.mul4, a, b)

    def d_terms(self, h, l):
        s = [x ^ y for x, y in zip(h, l)]
        return gf.apply_affine(s, self.field._sq_scale_nu, 0, 4), self.mul4(h, l), l, h

    def inv4(self, a):
        a0, a1 = a[0:2], a[2:4]
        square = gf.apply_affine([x ^ y for x, y in zip(a1, a0)], self.field._sq_scale_n, 0, 2)
        d = [x ^ y for x, y in zip(square, self.circuit.field_product(mul2_bits, a1, a0))]
        theta = [d[1], d[0]]                 # inversion in GF(2^2) swaps the bits
        return (self.circuit.field_product(mul2_bits, theta, a1)
                + self.circuit.field_product(mul2_bits, theta, a0))


def _sbox(circuit, bits, multipliers="bit"):
    field = TOWER if multipliers == "bit" else _FieldProducts(TOWER, circuit)
    out = field_sbox_bits(field, bits)
    stage = max(b.stage for b in out)
    return [circuit.delayed(b, stage) for b in out], stage


def _model(gadget: str, order: int, shares: list, rnd: int, multipliers: str):
    count = plan(gadget, order, multipliers)[2]
    circuit = _Circuit(gadget, order, "model", [(rnd >> k) & 1 for k in range(count)])
    bits = [SharedBit(circuit, [(share >> j) & 1 for share in shares], 0) for j in range(8)]
    out, _ = _sbox(circuit, bits, multipliers)
    return circuit, out


def register_values(gadget: str, order: int, shares: list, rnd: int,
                    multipliers: str = "bit") -> list:
    """The int model of :class:`MaskedSBox`: the value every register of the S-box takes for
    the input ``shares`` (``order + 1`` bytes) and random bits ``rnd``, in the order the
    hardware creates its registers (:attr:`MaskedSBox.registers`), then the output shares'
    bits (``8 * (order + 1)``, share by share)."""
    circuit, out = _model(gadget, order, shares, rnd, multipliers)
    return circuit.registers + [bit.shares[k] for k in range(order + 1) for bit in out]


def register_names(gadget: str, order: int, multipliers: str = "bit") -> list[str]:
    """Names of the values :func:`register_values` gives, in its order (``o{share}_{bit}``
    for the output shares)."""
    circuit, _ = _model(gadget, order, [0] * (order + 1), 0, multipliers)
    return circuit.names + [f"o{k}_{j}" for k in range(order + 1) for j in range(8)]


def gadget_groups(gadget: str, order: int, multipliers: str = "bit") -> dict:
    """The registers of each AND gadget (``and<n>``), of the delay registers (``delay``) and
    the output bits (``out``), as indices into :func:`register_values`: the sample groups of a
    second-order TVLA (:func:`aesdse.verify.tvla.fixed_vs_random`)."""
    groups: dict = {}
    for index, name in enumerate(register_names(gadget, order, multipliers)):
        group = name.split("_")[0] if name.startswith("and") else \
            ("out" if name.startswith("o") else "delay")
        groups.setdefault(group, []).append(index)
    return groups


def plan(gadget: str, order: int, multipliers: str = "bit") -> tuple[int, int, int]:
    """``(gadgets, latency, random bits)`` of the masked S-box with ``gadget`` at ``order``:
    the ANDs (``bit``) or field products (``field``), the cycles from input to output, and
    the fresh random bits it takes per byte."""
    circuit = _Circuit(gadget, order)
    _, stage = _sbox(circuit, [SharedBit(circuit, [None] * (order + 1), 0) for _ in range(8)],
                     multipliers)
    return circuit.ands, stage, circuit.random_used


class MaskedSBox(wiring.Component):
    """The AES S-box (SubBytes) on ``order + 1`` shares of a byte.

    Members
    -------
    i : In(8 * (order + 1))
        The input's shares, share ``k`` at bits ``[8k, 8k + 8)``.
    rnd : In(:attr:`random_bits`)
        Fresh random bits, all of them every cycle (uniform, never reused).
    o : Out(8 * (order + 1))
        The shares of ``SubBytes(i)``, :attr:`latency` cycles after the input.
    """

    def __init__(self, gadget: str = "hpc2", order: int = 1, multipliers: str = "bit"):
        if gadget not in GADGETS:
            raise ValueError(f"gadget must be one of {', '.join(GADGETS)}, not {gadget!r}")
        if order < 1:
            raise ValueError(f"a masked S-box needs masking order 1 or more, not {order}")
        if multipliers not in MULTIPLIERS:
            raise ValueError(f"multipliers must be one of {', '.join(MULTIPLIERS)}, not "
                             f"{multipliers!r}")
        if multipliers == "field" and gadget != "dom_indep":
            raise ValueError("field multipliers are DOM-indep gadgets: gadget must be "
                             "dom_indep")
        self.gadget, self.order, self.multipliers = gadget, order, multipliers
        #: ANDs or field products, cycles from input to output, and fresh random bits per
        #: byte (and per cycle).
        self.ands, self.latency, self.random_bits = plan(gadget, order, multipliers)
        width = 8 * (order + 1)
        super().__init__({"i": In(width), "rnd": In(self.random_bits), "o": Out(width)})

    def elaborate(self, platform):
        m = Module()
        circuit = _Circuit(self.gadget, self.order, m, self.rnd)
        bits = [SharedBit(circuit, [self.i[8 * k + j] for k in range(self.order + 1)], 0)
                for j in range(8)]
        out, _ = _sbox(circuit, bits, self.multipliers)
        #: Every flip-flop, in the order :func:`register_values` gives their values.
        self.registers = circuit.registers
        for j, bit in enumerate(out):
            for k, share in enumerate(bit.shares):
                m.d.comb += self.o[8 * k + j].eq(share)
        return m
