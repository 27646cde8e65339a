"""GHASH: multiplication in GF(2^128) as GCM uses it, its reference model and its multipliers.

The field and its bit order are those of NIST SP 800-38D section 6.3: a 128-bit block is a
polynomial over GF(2) whose *leftmost* bit is the coefficient of x^0, reduced modulo
P(x) = x^128 + x^7 + x^2 + x + 1 (the constant R = 11100001 || 0^120). A block is handled as an
integer the way the rest of :mod:`archs` reads one (:mod:`archs.interface`, "Byte order"): the hex
string read as one big-endian number, so the coefficient of x^0 is integer bit 127 and the block
"1" is ``0x80000000000000000000000000000000`` (:data:`ONE`).

Reference model
---------------
:func:`gf128_mul` is SP 800-38D Algorithm 1, line for line; :func:`ghash` is section 6.4 over a
GCM message with its length block; :func:`ghash_aggregated` computes the same value n blocks at
a time with the powers H^1..H^n of :func:`ghash_powers` (``ghash_aggregation``).

Hardware
--------
Inside the multipliers a block is bit-reversed (free wiring, :func:`reflect`), so that bit k is
the coefficient of x^k and a product is a carry-less multiplication (:func:`clmul_value`)
followed by one reduction (:func:`reduce_value`); every variant uses those two functions and
nothing else for its arithmetic. Each multiplier is a :class:`GF128Multiplier`: operands in on
the stream ``i`` (payload ``a``, ``b``), the product ``a * b`` out on the stream ``o`` (always
ready: the consumer takes every product in the cycle it is valid). ``latency`` is the number
of clock edges from the cycle an operand pair is accepted (``i.valid & i.ready``) to the cycle
its product is valid (0: in the same cycle); ``cycles_per_multiply`` is the initiation
interval (cycles between two accepted pairs at full rate).

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

GHASH accumulator
-----------------
:class:`GHASHAccumulator` computes GHASH over a stream of blocks with one multiplier and
``ghash_aggregation`` n lanes (its class documentation): Y_j <- (Y_j xor X) * H^n per lane, the
last n blocks of a message with H^n..H^1, and the sum of those last products is the hash; with
n >= latency + 1 a pipelined multiplier takes one block per cycle.

:class:`SerialGHASHAccumulator` is the small alternative for a digit-serial (or bit-serial)
multiplier without aggregation (:func:`serial_accumulation`): the running hash is the
multiplier's own Horner sum and H its held operand, so there is no block FIFO, no lane register,
no operand multiplexers; a block takes 128 / d + 1 cycles, one more than a multiply.
"""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, fifo, stream, wiring
from amaranth.lib.wiring import In, Out

__all__ = [
    "R", "ONE", "POLY_LOW", "GHASH_KINDS", "GHASH_DIGITS", "GHASH_STAGES", "KARATSUBA_LEVELS",
    "GHASH_AGGREGATION", "MULTIPLIER_CUTS", "PARTIAL_GROUP",
    "gf128_mul", "gf128_pow", "ghash_blocks", "message_blocks", "ghash", "ghash_powers",
    "ghash_aggregated", "reflect", "xor_tree", "clmul_value", "karatsuba_value", "reduce_value",
    "comb_wire",
    "OPERANDS", "GF128Multiplier", "DigitSerialMultiplier", "ParallelMultiplier",
    "check_choice", "make_multiplier", "BLOCK", "GHASHAccumulator", "SerialGHASHAccumulator",
    "serial_accumulation",
]

#: The reduction constant R = 11100001 || 0^120 of SP 800-38D section 6.3.
R = 0xE1 << 120
#: The multiplicative identity (the polynomial 1) in GCM bit order.
ONE = 1 << 127
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
#: Blocks per aggregated GHASH step (``ghash_aggregation``).
GHASH_AGGREGATION = (1, 2, 4, 8)

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

_MASK = (1 << 128) - 1


# --- Reference model --------------------------------------------------------------------------


def gf128_mul(x: int, y: int) -> int:
    """The product X * Y of two blocks (SP 800-38D section 6.3, Algorithm 1)."""
    if not (0 <= x <= _MASK and 0 <= y <= _MASK):
        raise ValueError(f"Blocks must be 128-bit integers, not {x!r} and {y!r}")
    z, v = 0, y
    for i in range(128):
        if (x >> (127 - i)) & 1:
            z ^= v
        v = (v >> 1) ^ R if v & 1 else v >> 1
    return z


def gf128_pow(h: int, n: int) -> int:
    """H^n for n >= 0 (H^0 is :data:`ONE`)."""
    result = ONE
    for _ in range(n):
        result = gf128_mul(result, h)
    return result


def ghash_blocks(h: int, blocks, y: int = 0) -> int:
    """GHASH_H over whole blocks (SP 800-38D section 6.4): Y <- (Y xor X_i) * H, from ``y``."""
    for block in blocks:
        y = gf128_mul(y ^ block, h)
    return y


def message_blocks(aad: bytes, ciphertext: bytes) -> list[int]:
    """The blocks GCM hashes: A and C each zero-padded to whole blocks, then the length block
    [len(A)]_64 || [len(C)]_64 in bits (SP 800-38D section 7.1, step 5).

    Raises
    ------
    ValueError
        If a length in bits does not fit its 64-bit field.
    """
    for name, part in (("AAD", aad), ("ciphertext", ciphertext)):
        if 8 * len(part) >= 1 << 64:
            raise ValueError(f"The {name} is {8 * len(part)} bits long; GHASH's length block "
                             f"holds at most 2^64 - 1")
    blocks = []
    for part in (bytes(aad), bytes(ciphertext)):
        for start in range(0, len(part), 16):
            blocks.append(int.from_bytes(part[start:start + 16].ljust(16, b"\0"), "big"))
    blocks.append((8 * len(aad)) << 64 | 8 * len(ciphertext))
    return blocks


def ghash(h: int, aad: bytes, ciphertext: bytes) -> int:
    """GHASH_H(A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64), the S of SP 800-38D
    section 7.1 step 5 (with ``aad=b""`` and ``ciphertext=IV`` it is the J0 of a non-96-bit IV,
    step 2)."""
    return ghash_blocks(h, message_blocks(aad, ciphertext))


def ghash_powers(h: int, n: int) -> list[int]:
    """[H^1, H^2, ..., H^n]: the precomputed powers of an aggregation of n blocks."""
    powers = [h]
    while len(powers) < n:
        powers.append(gf128_mul(powers[-1], h))
    return powers[:n]


def ghash_aggregated(h: int, blocks, n: int, y: int = 0) -> int:
    """:func:`ghash_blocks` computed n blocks per step, as an aggregated multiplier does.

    Y_new = (Y xor X_1) * H^n xor X_2 * H^(n-1) xor ... xor X_n * H: the n products are
    independent, so n multipliers (or one pipelined multiplier) can work on them at once. A last
    group of m < n blocks uses H^m..H^1.
    """
    check_choice("Aggregation", n, GHASH_AGGREGATION)
    powers = ghash_powers(h, n)
    blocks = list(blocks)
    for start in range(0, len(blocks), n):
        group = blocks[start:start + n]
        group[0] ^= y
        y = 0
        for k, block in enumerate(group):
            y ^= gf128_mul(block, powers[len(group) - 1 - k])
    return y


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


def check_choice(what: str, value, allowed) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed`` (``what`` names it)."""
    if isinstance(value, bool) or value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(map(repr, allowed))}, "
                         f"not {value!r}")


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


# --- GHASH accumulator --------------------------------------------------------------------------


#: Payload of the accumulator's block stream.
BLOCK = data.StructLayout({"data": 128, "last": 1})


class GHASHAccumulator(wiring.Component):
    """GHASH over a stream of blocks, ``aggregation`` blocks at a time, with one multiplier.

    The n-way aggregation of :func:`ghash_aggregated` in the form that needs no look-ahead: n
    lanes, block i goes to lane i mod n, and a lane steps Y_j <- (Y_j xor X_i) * H^n; only the
    last n blocks of a message, whose distance to its end is known once ``last`` arrives, take
    H^r instead (r = their distance to the end, n..1), and the XOR of those n products is
    GHASH (each lane's blocks end up with the power of their distance to the end). A FIFO of n
    blocks holds the blocks back until it is known whether they are among the last n. The lanes
    go round-robin through one multiplier (any :func:`make_multiplier` variant), so a pipelined
    multiplier of latency L takes one block per cycle when n >= L + 1 (a lane takes its next
    block the cycle after its product returned); with fewer lanes a block waits for its lane.

    Parameters
    ----------
    aggregation : int
        n, one of :data:`GHASH_AGGREGATION`.
    **multiplier
        The parameters of :func:`make_multiplier`.

    Members
    -------
    h : In(stream.Signature(128))
        The hash key H (GCM bit order). Accepted only between messages; loading it computes
        H^2..H^n with the multiplier, n - 1 products one after the other.
    i : In(stream.Signature(BLOCK))
        The blocks X_1..X_m of one message, ``last`` set on X_m (a message has at least one
        block; GCM's ends with the length block). After ``last`` the stream waits while the
        FIFO's blocks are multiplied (up to n cycles).
    o : Out(stream.Signature(128, always_ready=True))
        GHASH_H(X_1..X_m), one transfer per message, ``multiplier.latency + 1`` cycles after the
        last product was issued.
    """

    h: In(stream.Signature(128))
    i: In(stream.Signature(BLOCK))
    o: Out(stream.Signature(128, always_ready=True))

    def __init__(self, aggregation: int = 1, **multiplier):
        check_choice("Aggregation", aggregation, GHASH_AGGREGATION)
        self.aggregation = aggregation
        self.multiplier = make_multiplier(**multiplier)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        n = self.aggregation
        m.submodules.multiplier = mult = self.multiplier
        m.submodules.pending = pending = fifo.SyncFIFO(width=128, depth=n + 1)
        self.powers = Array(Signal(128, name=f"h_power_{k + 1}") for k in range(n))
        self.lanes = Array(Signal(128, name=f"lane_{k}") for k in range(n))
        # Per lane: a product in flight, and whether it is one of the message's last n
        # (``final``) or its very last (``closes``); the same two for the product issued now.
        self.busy, self.final, self.closes = Signal(n), Signal(n), Signal(n)
        self.issue_final, self.issue_closes = Signal(), Signal()
        self.issue_lane, self.return_lane = Signal(range(n)), Signal(range(n))
        self.powering = Signal()     # computing H^2..H^n
        self.flushing = Signal()     # multiplying the message's last (up to) n blocks
        idle = ~self.powering & ~self.flushing & (pending.level == 0) & (self.busy == 0)
        m.d.comb += self.h.ready.eq(idle & ~self.o.valid)
        self._build_powers(m, mult)
        self._build_issue(m, mult, pending)
        self._build_return(m, mult)
        return m

    def _build_powers(self, m, mult):
        """Loading H: H^1 <- H, then H^k <- H^(k-1) * H for k = 2..n, one product at a time."""
        n = self.aggregation
        step = Signal(range(n + 1))
        waiting = Signal()
        with m.If(self.h.valid & self.h.ready):
            m.d.sync += [self.powers[0].eq(self.h.payload), step.eq(1),
                         self.powering.eq(n > 1)]
        with m.If(self.powering):
            m.d.comb += [mult.i.valid.eq(~waiting), mult.i.payload.a.eq(self.powers[step - 1]),
                         mult.i.payload.b.eq(self.powers[0])]
            with m.If(mult.i.valid & mult.i.ready):
                m.d.sync += waiting.eq(1)
            with m.If(mult.o.valid):
                m.d.sync += [self.powers[step].eq(mult.o.payload), step.eq(step + 1),
                             waiting.eq(0), self.powering.eq(step + 1 < n)]

    def _build_issue(self, m, mult, pending):
        """Blocks into the FIFO; the oldest out to its lane's multiply with H^n once the FIFO
        holds n, or with H^r while flushing (r blocks left)."""
        n = self.aggregation
        lane_free = ~self.busy.bit_select(self.issue_lane, 1)
        full = pending.level == n
        streaming = ~self.powering & ~self.flushing
        # Steady state: a block enters a full FIFO only as the oldest one leaves.
        issue = Signal()
        m.d.comb += issue.eq(Mux(self.flushing, pending.r_rdy, streaming & self.i.valid & full))
        power = Mux(self.flushing, pending.level, n)
        with m.If(~self.powering):
            m.d.comb += [
                mult.i.valid.eq(issue & lane_free),
                mult.i.payload.a.eq(pending.r_data ^ self.lanes[self.issue_lane]),
                mult.i.payload.b.eq(self.powers[power - 1]),
            ]
        issued = mult.i.valid & mult.i.ready & ~self.powering
        accept = streaming & (~full | issued)
        m.d.comb += [
            self.i.ready.eq(accept),
            pending.w_en.eq(self.i.valid & accept),
            pending.w_data.eq(self.i.payload.data),
            pending.r_en.eq(issued),
        ]
        m.d.comb += [self.issue_final.eq(self.flushing),
                     self.issue_closes.eq(self.flushing & (pending.level == 1))]
        with m.If(issued):
            m.d.sync += [
                self.issue_lane.eq(self.issue_lane + 1),
                self.busy.bit_select(self.issue_lane, 1).eq(1),
                self.final.bit_select(self.issue_lane, 1).eq(self.issue_final),
                self.closes.bit_select(self.issue_lane, 1).eq(self.issue_closes),
            ]
            with m.If(self.issue_closes):
                m.d.sync += self.flushing.eq(0)
        with m.If(self.i.valid & accept & self.i.payload.last):
            m.d.sync += self.flushing.eq(1)

    def _build_return(self, m, mult):
        """A product back: into its lane, or (the last n blocks) into the sum of the message,
        which leaves on ``o`` with the message's last product."""
        lane = self.return_lane
        final, closes = self.final.bit_select(lane, 1), self.closes.bit_select(lane, 1)
        if self.multiplier.latency == 0:
            # The product returns in the cycle it is issued, before its flags are registered.
            final, closes = self.issue_final, self.issue_closes
        total = Signal(128)
        result = Signal(128)
        m.d.comb += self.o.payload.eq(result)
        m.d.sync += self.o.valid.eq(0)
        with m.If(mult.o.valid & ~self.powering):
            m.d.sync += [self.return_lane.eq(lane + 1),
                         self.busy.bit_select(lane, 1).eq(0)]
            with m.If(final):
                m.d.sync += [self.lanes[lane].eq(0), total.eq(total ^ mult.o.payload)]
                with m.If(closes):
                    m.d.sync += [result.eq(total ^ mult.o.payload), total.eq(0),
                                 self.o.valid.eq(1)]
            with m.Else():
                m.d.sync += self.lanes[lane].eq(mult.o.payload)


def serial_accumulation(aggregation: int = 1, *, ghash: str = "parallel",
                        ghash_digit: int = 8, **_unused) -> int | None:
    """The digit of :class:`SerialGHASHAccumulator` for these GHASH parameters (1 for
    ``bit_serial``), or None when it cannot compute them (aggregation above 1, or a
    parallel multiplier)."""
    if aggregation != 1:
        return None
    return {"bit_serial": 1, "digit_serial": ghash_digit}.get(ghash)


class SerialGHASHAccumulator(wiring.Component):
    """GHASH over a stream of blocks with a digit-serial multiply folded into the accumulator.

    Y <- (Y xor X) * H one block after the other (SP 800-38D section 6.4), Horner's rule over
    the digits of Y xor X as in :class:`DigitSerialMultiplier`, with Y itself as the Horner sum:
    accepting a block loads A = Y xor X and clears Y (one cycle), then 128 / d cycles step
    Y <- Y * x^d + H * (the next d bits of A). After the last block of a message Y is the hash:
    it is valid on ``o`` for one cycle and then cleared for the next message.

    The members and their protocol are those of :class:`GHASHAccumulator` (aggregation 1).

    Parameters
    ----------
    digit : int
        Bits of A per cycle: 1 (``bit_serial``) or one of :data:`GHASH_DIGITS`.
    """

    h: In(stream.Signature(128))
    i: In(stream.Signature(BLOCK))
    o: Out(stream.Signature(128, always_ready=True))

    aggregation = 1

    def __init__(self, digit: int):
        check_choice("Digit", digit, (1,) + GHASH_DIGITS)
        self.digit = digit
        #: Cycles from accepting a block to accepting the next (at full rate).
        self.cycles_per_block = 128 // digit + 1
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        d, steps = self.digit, 128 // self.digit
        h = Signal(128)          # H, polynomial bit order
        a = Signal(128)          # digits of Y xor X still to come, highest power at the top
        y = Signal(128)          # the Horner sum, then the hash; polynomial bit order
        remaining = Signal(range(steps + 1))
        closing = Signal()       # the block being multiplied is the message's last
        idle = (remaining == 0) & ~self.o.valid
        load = self.i.valid & self.i.ready
        step = reduce_value((y << d) ^ clmul_value(h, a[128 - d:]),
                            wire=lambda value: comb_wire(m, value))
        m.d.comb += [
            self.h.ready.eq(idle),
            self.i.ready.eq(idle),
            self.o.payload.eq(reflect(y)),
        ]
        with m.If(self.h.valid & self.h.ready):
            m.d.sync += h.eq(reflect(self.h.payload))
        m.d.sync += self.o.valid.eq(0)
        with m.If(load):
            m.d.sync += [a.eq(reflect(self.i.payload.data) ^ y), y.eq(0),
                         remaining.eq(steps), closing.eq(self.i.payload.last)]
        with m.Elif(remaining != 0):
            m.d.sync += [y.eq(step), a.eq(a << d), remaining.eq(remaining - 1)]
            with m.If(remaining == 1):
                m.d.sync += self.o.valid.eq(closing)
        with m.If(self.o.valid):
            m.d.sync += y.eq(0)
        return m
