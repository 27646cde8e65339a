"""GHASH accumulators: GHASH over a stream of blocks, around one multiplier.

:class:`GHASHAccumulator` computes GHASH over a stream of blocks with one multiplier and
``ghash_aggregation`` n lanes (its class documentation): Y_j <- (Y_j xor X) * H^n per lane, the
last n blocks of a message with H^n..H^1, and the sum of those last products is the hash; with
n >= latency + 1 a pipelined multiplier takes one block per cycle.

:class:`SerialGHASHAccumulator` is the small alternative for a digit-serial (or bit-serial)
multiplier without aggregation (:func:`serial_accumulation`): the running hash is the
multiplier's own Horner sum and H its held operand, so there is no block FIFO, no lane register,
no operand multiplexers; a block takes 128 / d + 1 cycles, one more than a multiply.
"""

from amaranth.hdl import Array, Module, Mux, Signal
from amaranth.lib import data, fifo, stream, wiring
from amaranth.lib.wiring import In, Out

from .ghash_model import GHASH_AGGREGATION, check_choice
from .ghash_multipliers import (
    GHASH_DIGITS, clmul_value, comb_wire, make_multiplier, reduce_value, reflect,
)

__all__ = ["BLOCK", "GHASHAccumulator", "serial_accumulation", "SerialGHASHAccumulator"]


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
