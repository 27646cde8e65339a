"""GHASH's multipliers: GF(2^128) products in hardware, one component per kind.

The field and its GCM bit order are those of :mod:`.ghash_model`. Inside the multipliers a block
is bit-reversed (free wiring, :func:`reflect`), so that bit k is the coefficient of x^k and a
product is a carry-less multiplication (:func:`clmul_value`) followed by one reduction
(:func:`reduce_value`); every variant uses those two functions and nothing else for its
arithmetic. Each multiplier is a :class:`GF128Multiplier`: operands in on the stream ``i``
(payload ``a``, ``b``), the product ``a * b`` out on the stream ``o`` (always ready: the
consumer takes every product in the cycle it is valid). ``latency`` is the number of clock edges
from the cycle an operand pair is accepted (``i.valid & i.ready``) to the cycle its product is
valid (0: in the same cycle); ``cycles_per_multiply`` is the initiation interval (cycles between
two accepted pairs at full rate).

=================  ==========================  ==================  =====================
``ghash``          parameters                  ``latency``         ``cycles_per_multiply``
=================  ==========================  ==================  =====================
``bit_serial``     --                          128                 128
``digit_serial``   ``ghash_digit`` d (2..64)   128 / d             128 / d
``parallel``       ``ghash_stages`` s (0..4)   s                   1
``karatsuba``      ``ghash_karatsuba_levels``  s                   1
                   L (1..4), ``ghash_stages``
=================  ==========================  ==================  =====================

Digit-serial (``bit_serial`` is the digit of one bit): Horner's rule over the digits of ``a``,
the highest powers of x first, Z <- Z * x^d + b * digit (mod P), one digit per cycle; the first
digit is taken straight from the input in the cycle the pair is accepted, so a product is valid
128 / d cycles later, in the cycle the next pair can be accepted. ``a`` is consumed digit by
digit and ``b`` held (in GHASH: ``b`` = H, which does not change within a message).

Parallel and Karatsuba: ``parallel`` is the schoolbook product, 128 partial products summed by an
XOR tree; ``karatsuba`` splits each operand in halves L times (Karatsuba-Ofman: three half-size
products per level, a1 b1, a0 b0 and (a1 + a0)(b1 + b0)), down to 3^L schoolbook products of
128 / 2^L bits. ``ghash_stages`` registers are placed at these cut points, every path crossing
each chosen cut once (:data:`MULTIPLIER_CUTS`):

======== ==================================================================================
cut      position
======== ==================================================================================
pre      the operands of the schoolbook products (for ``karatsuba``, after the pre-additions
         of all levels; for ``parallel``, the operands themselves)
partial  inside each schoolbook product: the sums of :data:`PARTIAL_GROUP` consecutive
         partial products
product  the unreduced 255-bit product (after the Karatsuba recombination)
out      the reduced product
======== ==================================================================================

Stages 1: partial; 2: partial, product; 3: pre, partial, product; 4: all four. The partial cut
comes first because the XOR tree of the partial products is the deepest part of the product;
the recombination and the reduction are a few XOR levels each.

A product's ``o.ready`` is the constant 1 (``always_ready``), so
:func:`amaranth.back.rtlil.convert` of a multiplier alone needs its ``ports`` listed (Amaranth
0.5 refuses a constant port); inside a core the multiplier is a submodule and needs nothing.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .ghash_model import check_choice

__all__ = [
    "POLY_LOW", "GHASH_KINDS", "GHASH_DIGITS", "GHASH_STAGES", "KARATSUBA_LEVELS",
    "MULTIPLIER_CUTS", "PARTIAL_GROUP", "reflect", "xor_tree", "clmul_value", "karatsuba_value",
    "reduce_value", "comb_wire", "OPERANDS", "GF128Multiplier", "DigitSerialMultiplier",
    "ParallelMultiplier", "make_multiplier",
]

#: x^128 mod P in polynomial bit order (bit k = coefficient of x^k): x^7 + x^2 + x + 1.
POLY_LOW = 0x87

#: Multiplier kinds (the ``ghash`` parameter).
GHASH_KINDS = ("bit_serial", "digit_serial", "parallel", "karatsuba")
#: Digit widths of ``digit_serial`` (``ghash_digit``): the divisors of 128 from 2 to 64.
GHASH_DIGITS = (2, 4, 8, 16, 32, 64)
#: Pipeline registers of ``parallel`` and ``karatsuba`` (``ghash_stages``).
GHASH_STAGES = (0, 1, 2, 3, 4)
#: Recursion levels of ``karatsuba`` (``ghash_karatsuba_levels``).
KARATSUBA_LEVELS = (1, 2, 3, 4)

#: ``ghash_stages`` -> the cut points that get a register (module documentation).
MULTIPLIER_CUTS = {
    0: (),
    1: ("partial",),
    2: ("partial", "product"),
    3: ("pre", "partial", "product"),
    4: ("pre", "partial", "product", "out"),
}
#: Partial products summed before the ``partial`` cut.
PARTIAL_GROUP = 16


# --- Hardware arithmetic (polynomial bit order) -------------------------------------------------


def reflect(value: Value) -> Value:
    """``value`` with its bits in reverse order: GCM bit order <-> polynomial bit order."""
    return Cat(*reversed([value[k] for k in range(len(value))]))


def xor_tree(terms) -> Value:
    """The XOR of ``terms`` as a balanced tree (operands zero-extended to the widest)."""
    terms = list(terms)
    while len(terms) > 1:
        terms = [terms[k] ^ terms[k + 1] if k + 1 < len(terms) else terms[k]
                 for k in range(0, len(terms), 2)]
    return terms[0]


def _no_cut(name, value):
    return value


def clmul_value(a: Value, b: Value, cut=None) -> Value:
    """Schoolbook carry-less product of ``a`` and ``b`` (polynomial bit order): the XOR of the
    partial products ``a * b_k x^k``, ``len(a) + len(b) - 1`` bits wide.

    ``cut(name, value)`` (optional, see :func:`karatsuba_value`) is called with ``"pre"`` on
    each operand and with ``"partial"`` on each sum of :data:`PARTIAL_GROUP` consecutive
    partial products.
    """
    cut = cut or _no_cut
    a, b = cut("pre", a), cut("pre", b)
    width = len(a) + len(b) - 1
    partial = [(a & b[k].replicate(len(a))) << k for k in range(len(b))]
    groups = [cut("partial", xor_tree(partial[k:k + PARTIAL_GROUP]))
              for k in range(0, len(partial), PARTIAL_GROUP)]
    return xor_tree(groups)[:width]


def reduce_value(product: Value, wire=None) -> Value:
    """``product`` (polynomial bit order, any width) modulo P = x^128 + x^7 + x^2 + x + 1.

    Folds the bits above x^127 down with x^128 = x^7 + x^2 + x + 1 until 128 bits are left: two
    folds for a 255-bit product, one for the at most 191 bits of a digit-serial step.
    ``wire(value)`` (optional) returns a signal driven by ``value``: each fold uses the bits
    above x^127 four times, and a wire keeps a simulator from evaluating them four times.
    """
    while len(product) > 128:
        if wire is not None:
            product = wire(product)
        low, high = product[:128], product[128:]
        folded = high ^ (high << 1) ^ (high << 2) ^ (high << 7)
        product = low ^ folded
    return Cat(product, Const(0, 128 - len(product)))


def karatsuba_value(a: Value, b: Value, levels: int, cut=None) -> Value:
    """Carry-less product of ``a`` and ``b`` (equal, even widths) by ``levels`` levels of
    Karatsuba-Ofman down to :func:`clmul_value` products.

    ``cut(name, value)`` (optional) returns ``value`` or a signal holding it: a component
    registers the values of the cut points it has chosen (``"pre"``, ``"partial"``, module
    documentation) and may turn the others into wires; ``"term"`` marks a half-size product the
    recombination uses twice (a wire keeps a simulator from evaluating it twice).
    """
    if levels == 0:
        return clmul_value(a, b, cut)
    cut = cut or _no_cut
    half = len(a) // 2
    a0, a1, b0, b1 = a[:half], a[half:], b[:half], b[half:]
    high = cut("term", karatsuba_value(a1, b1, levels - 1, cut))
    low = cut("term", karatsuba_value(a0, b0, levels - 1, cut))
    middle = karatsuba_value(a1 ^ a0, b1 ^ b0, levels - 1, cut) ^ high ^ low
    return (low ^ (middle << half) ^ (high << 2 * half))[:2 * len(a) - 1]


# --- Components -------------------------------------------------------------------------------


def comb_wire(m: Module, value: Value, name: str = "wire") -> Signal:
    """A signal of ``m`` driven by ``value`` (combinationally)."""
    signal = Signal(len(value), name=name)
    m.d.comb += signal.eq(value)
    return signal


#: Payload of a multiplier's input stream: the two operands, GCM bit order.
OPERANDS = data.StructLayout({"a": 128, "b": 128})


class GF128Multiplier(wiring.Component):
    """The interface every GHASH multiplier shares (module documentation).

    Members
    -------
    i : In(stream.Signature(OPERANDS))
        An operand pair; ``ready`` is high when the multiplier accepts one.
    o : Out(stream.Signature(128, always_ready=True))
        The product ``a * b`` (GCM bit order), valid ``latency`` cycles after its pair was
        accepted, for one cycle.
    """

    i: In(stream.Signature(OPERANDS))
    o: Out(stream.Signature(128, always_ready=True))

    #: Clock edges from accepting a pair to its product being valid.
    latency = 0
    #: Cycles between two accepted pairs at full rate (initiation interval).
    cycles_per_multiply = 1


class DigitSerialMultiplier(GF128Multiplier):
    """Digit-serial multiplier: ``digit`` bits of ``a`` per cycle (``digit=1``: bit-serial).

    Parameters
    ----------
    digit : int
        Bits of ``a`` per cycle, a divisor of 128 below 128.
    """

    def __init__(self, digit: int):
        check_choice("Digit", digit, (1,) + GHASH_DIGITS)
        self.digit = digit
        self.latency = self.cycles_per_multiply = 128 // digit
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        d, steps = self.digit, 128 // self.digit
        a = Signal(128)          # digits of a still to come, highest power at the top
        b = Signal(128)          # b, polynomial bit order
        z = Signal(128)          # the Horner sum so far, polynomial bit order
        remaining = Signal(range(steps))
        done = Signal()
        start = self.i.valid & self.i.ready
        # In the cycle a pair is accepted, its first digit is taken straight from the input.
        a_in, b_in, z_in = Signal(128), Signal(128), Signal(128)
        m.d.comb += [
            a_in.eq(Mux(start, reflect(self.i.payload.a), a)),
            b_in.eq(Mux(start, reflect(self.i.payload.b), b)),
            z_in.eq(Mux(start, 0, z)),
        ]
        step = reduce_value((z_in << d) ^ clmul_value(b_in, a_in[128 - d:]),
                            wire=lambda value: comb_wire(m, value))
        m.d.comb += [
            self.i.ready.eq(remaining == 0),
            self.o.valid.eq(done),
            self.o.payload.eq(reflect(z)),
        ]
        m.d.sync += done.eq(0)
        with m.If(start | (remaining != 0)):
            m.d.sync += [z.eq(step), a.eq(a_in << d), b.eq(b_in)]
            m.d.sync += remaining.eq(Mux(start, steps - 1, remaining - 1))
            # A pair is accepted only with ``remaining == 0``, and 128 / d >= 2 steps.
            m.d.sync += done.eq(remaining == 1)
        return m


class ParallelMultiplier(GF128Multiplier):
    """One product per cycle: schoolbook (``karatsuba_levels=0``, ``ghash: parallel``) or
    Karatsuba-Ofman (``ghash: karatsuba``), with ``stages`` pipeline registers.

    Parameters
    ----------
    stages : int
        Pipeline registers (:data:`MULTIPLIER_CUTS`); also the latency.
    karatsuba_levels : int
        Karatsuba recursion levels, 0 for the schoolbook product.
    """

    def __init__(self, stages: int = 0, karatsuba_levels: int = 0):
        check_choice("Stages", stages, GHASH_STAGES)
        check_choice("Karatsuba levels", karatsuba_levels, (0,) + KARATSUBA_LEVELS)
        self.stages = stages
        self.karatsuba_levels = karatsuba_levels
        self.cuts = MULTIPLIER_CUTS[stages]
        self.latency = stages
        super().__init__()

    def elaborate(self, platform):
        m = Module()

        def cut(name, value):
            if name not in self.cuts:
                return comb_wire(m, value, name)
            register = Signal(len(value), name=f"{name}_reg")
            m.d.sync += register.eq(value)
            return register

        a, b = reflect(self.i.payload.a), reflect(self.i.payload.b)
        product = cut("product", karatsuba_value(a, b, self.karatsuba_levels, cut))
        result = cut("out", reduce_value(product, wire=lambda value: comb_wire(m, value)))
        valid = self.i.valid
        for _ in range(self.stages):
            delayed = Signal()
            m.d.sync += delayed.eq(valid)
            valid = delayed
        m.d.comb += [
            self.i.ready.eq(1),
            self.o.valid.eq(valid),
            self.o.payload.eq(reflect(result)),
        ]
        return m


def make_multiplier(ghash: str, *, ghash_digit: int = 8, ghash_stages: int = 0,
                    ghash_karatsuba_levels: int = 1) -> GF128Multiplier:
    """The multiplier named by the parameters (module documentation, first table); the
    parameters a kind does not use are ignored.

    Raises
    ------
    ValueError
        If a parameter the kind uses is out of range (checked before any component exists).
    """
    check_choice("GHASH multiplier", ghash, GHASH_KINDS)
    if ghash == "bit_serial":
        return DigitSerialMultiplier(1)
    if ghash == "digit_serial":
        check_choice("Digit", ghash_digit, GHASH_DIGITS)
        return DigitSerialMultiplier(ghash_digit)
    check_choice("Stages", ghash_stages, GHASH_STAGES)
    if ghash == "parallel":
        return ParallelMultiplier(ghash_stages)
    check_choice("Karatsuba levels", ghash_karatsuba_levels, KARATSUBA_LEVELS)
    return ParallelMultiplier(ghash_stages, ghash_karatsuba_levels)
