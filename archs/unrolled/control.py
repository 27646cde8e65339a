"""The control of :class:`archs.unrolled.Unrolled`: the entry register, the credit counter and
the output buffer.

The rings never stall, so back-pressure is a credit counter in front of an output buffer as deep
as the slots plus two (the package notes, "Back-pressure without stalls"): a
:class:`amaranth.lib.fifo.SyncFIFO`, or with ``lean_control`` a leaner buffer of its own (lean, or
in banks), registered flags in place of its level logic, and the accept and hand-out optionally
counted a cycle late. The options of this part (:class:`ControlOptions`) check their own rules.
"""

from dataclasses import dataclass

from amaranth.hdl import Mux, Signal
from amaranth.lib import fifo, memory

from ..params import PartOptions, switch

__all__ = ["CONTROL_PARAMS", "ControlOptions", "Control"]

#: The control's parameters (:class:`ControlOptions`).
CONTROL_PARAMS = (
    switch("lean_control",
           "an exit register, registered credit and output-valid flags, a power-of-two "
           "output buffer without a full flag, an entry register loaded every cycle (in a "
           "loop a block enters only when the ring's slot is free next cycle); one cycle "
           "more latency, for a fast clock"),
    switch("registered_hand_out",
           "lean control only: the credit counter counts a handed-out block a cycle late, "
           "from a register, so the output handshake (with parallel lanes, every lane's "
           "valid, from across the chip) meets no carry chain; one more buffer entry",
           error="Registered hand-out must be false or true"),
    switch("registered_accept",
           "lean control only: the credit counter counts an accepted block a cycle late, "
           "from a register, so the input handshake (the input's ready, behind the credit "
           "and key flags) meets no carry chain; one more buffer entry"),
    switch("banked_buffer",
           "lean control only: the output buffer as 16-deep LUT-RAM banks, each written "
           "by a registered one-hot write enable (no decoder between the write counter "
           "and the LUT RAMs' write enables, fanout 32 on the 128-bit buffer)"),
    switch("local_flag_copies",
           "lean control: the buffer's empty flag read by the credit counter, and with a "
           "round key chain the key handshake's busy flag read by the key register and the "
           "input's ready, as copies that compute their next value from their own state"),
    switch("registered_exit",
           "without lean control (which has it): the last round's result and its write "
           "enable registered before the output FIFO (one cycle more latency, one more "
           "FIFO entry), so the FIFO's write data does not share the last round's cycle"),
)


@dataclass(frozen=True)
class ControlOptions(PartOptions):
    """The control's options, each documented at :class:`archs.unrolled.Unrolled`."""
    lean_control: bool
    registered_hand_out: bool
    registered_accept: bool
    banked_buffer: bool
    local_flag_copies: bool
    registered_exit: bool

    @property
    def exit_register(self) -> bool:
        """The last round's result is registered before the output buffer."""
        return self.lean_control or self.registered_exit

    def check(self) -> None:
        """Raise ``ValueError`` for a rule of the control broken: most options are parts of
        lean control's buffer and credit counter."""
        if self.banked_buffer and not self.lean_control:
            raise ValueError("A banked buffer needs lean control (it is lean control's output "
                             "buffer)")
        if self.registered_hand_out and not self.lean_control:
            raise ValueError("A registered hand-out needs lean control (it counts lean "
                             "control's credits)")
        if self.registered_accept and not self.lean_control:
            raise ValueError("A registered accept needs lean control (it counts lean "
                             "control's credits)")
        if self.local_flag_copies and not self.lean_control:
            raise ValueError("Local flag copies need lean control (they copy its buffer's and "
                             "key handshake's flags)")
        if self.registered_exit and self.lean_control:
            raise ValueError("Lean control has its exit register already: registered exit "
                             "is for cores without it")


class Control:
    """The entry register, the credit counter and the output buffer of
    :class:`archs.unrolled.Unrolled` (a part of it: the methods read the core's options and
    ports)."""

    def _build_output(self, m, ctl):
        """The output FIFO and the counters of blocks accepted but not yet out.

        The rings never stall, so back-pressure is a credit counter in front of a FIFO as deep
        as the slots plus two (package notes, "Back-pressure without stalls"); with lean control
        a leaner buffer of its own (:meth:`_lean_buffer`). Adds ``buffer_write`` and
        ``buffer_data`` (its write side, driven by :meth:`_build_exit`),
        ``credit`` (accepted, not yet handed out), ``in_flight`` (accepted, not yet written to
        the FIFO), ``accept`` and ``handed_out`` (this cycle's transfers) and ``accepted_late``
        (``accept`` a cycle late, with ``registered_accept``, else None) to ``ctl``.
        """
        depth = ctl.depth
        credit = Signal(range(depth + 1))     # accepted, not yet handed out
        in_flight = Signal(range(depth + 1))  # accepted, not yet written to the FIFO
        accept = self.i.valid & self.i.ready
        handed_out = self.o.valid & self.o.ready
        buffer_write, buffer_data = Signal(), Signal(128)
        credit_ok = Signal()
        ctl.accepted_late = None
        if self.lean_control:
            if self.banked_buffer:
                ctl.buffer_write_next = Signal()
                returned = self._banked_buffer(m, depth, buffer_write, ctl.buffer_write_next,
                                               buffer_data, handed_out)
            else:
                returned = self._lean_buffer(m, depth, buffer_write, buffer_data, handed_out)
            # A registered credit flag: it assumes this cycle's block is accepted and none
            # handed out, so it never overshoots (one block of the depth pays for that), and
            # no compare and adder chain sits between the credit count and the ready signal.
            free = Signal(range(depth + 1), init=depth)
            credit_ok = Signal(init=1)
            if self.registered_hand_out:
                # Counted a cycle late, free is at most one block low: never an overshoot, and
                # the extra buffer entry keeps a full stream at one block per cycle. The
                # handshake of parallel lanes (the AND of every lane's valid) then ends at
                # this register, not at the counter's carry chain: the lanes' AND crosses
                # the chip, and a carry chain after it would share its cycle.
                handed_out_late = Signal(name="handed_out_late")
                m.d.sync += handed_out_late.eq(returned)
                returned = handed_out_late
            taken = accept
            if self.registered_accept:
                # Counted a cycle late, free may be one block high, so the flag asks for one
                # more (three: the blocks of the last cycle, this one and the next), and the
                # buffer has one entry more. The input's ready (the credit flag AND the key
                # flags) then ends at this register, not at the counter's carry chain (with
                # precomputed keys the key flag -> the input's ready -> 7 CCU2C would be one
                # cycle).
                taken = ctl.accepted_late = Signal(name="accepted_late")
                m.d.sync += taken.eq(accept)
            m.d.sync += [free.eq(free - taken + returned),
                         credit_ok.eq(free >= 2 + self.registered_accept)]
        else:
            m.d.comb += credit_ok.eq(credit < depth)
            m.d.sync += credit.eq(credit + accept - handed_out)
            m.submodules.fifo = out_fifo = fifo.SyncFIFO(width=128, depth=depth)
            m.d.comb += [
                self.o.valid.eq(out_fifo.r_rdy),
                self.o.payload.data.eq(out_fifo.r_data),
                out_fifo.r_en.eq(self.o.ready),
                out_fifo.w_en.eq(buffer_write),
                out_fifo.w_data.eq(buffer_data),
            ]
        ctl.buffer_write, ctl.buffer_data = buffer_write, buffer_data
        ctl.credit_ok, ctl.in_flight = credit_ok, in_flight
        ctl.accept, ctl.handed_out = accept, handed_out
        ctl.in_flight_increment = accept

    def _lean_buffer(self, m, depth, write, write_data, handed_out):
        """The output buffer of lean control: a power-of-two ring of at least ``depth`` blocks
        in LUT RAM.

        The credit counter already keeps it from overflowing, so unlike
        :class:`amaranth.lib.fifo.SyncFIFO` it has no level counter and no full flag, and its
        write enable is the exit register's valid bit alone: no level logic behind a write
        enable of high fanout. Returns the output handshake as the credit counter reads it
        (:meth:`_handed_out_for_credit`).
        """
        size = 1 << (depth - 1).bit_length()
        m.submodules.buffer = storage = memory.Memory(shape=128, depth=size, init=[])
        w_port = storage.write_port()
        r_port = storage.read_port(domain="comb")
        produce = Signal(range(size))
        consume = Signal(range(size))
        # The fill level with registered "is 0" and "is 1" flags: o.valid is a register, and
        # the flags' next values need only the level compared with 2, no adder.
        level = Signal(range(size + 1))
        empty = Signal(init=1)
        single = Signal()
        m.d.comb += [
            w_port.addr.eq(produce),
            w_port.data.eq(write_data),
            w_port.en.eq(write),
            r_port.addr.eq(consume),
            self.o.valid.eq(~empty),
            self.o.payload.data.eq(r_port.data),
        ]
        with m.If(write):
            m.d.sync += produce.eq(produce + 1)
        with m.If(handed_out):
            m.d.sync += consume.eq(consume + 1)
        with m.If(write & ~handed_out):
            m.d.sync += [level.eq(level + 1), empty.eq(0), single.eq(empty)]
        with m.If(handed_out & ~write):
            m.d.sync += [level.eq(level - 1), empty.eq(single), single.eq(level == 2)]
        return self._handed_out_for_credit(m, write, single, handed_out)

    def _banked_buffer(self, m, depth, write, write_next, write_data, handed_out):
        """:meth:`_lean_buffer` in banks of 16 blocks, each a LUT-RAM depth of ECP5
        (TRELLIS_DPR16X4), whose write enables are registers: ``write_next`` is the value
        ``write`` takes at the next edge (the exit register's valid input), and the bank the
        write counter will point at is known a cycle ahead too. Returns the output handshake as
        the credit counter reads it (:meth:`_handed_out_for_credit`)."""
        size = 1 << (max(depth, 16) - 1).bit_length()
        banks = size // 16
        produce = Signal(range(size))
        consume = Signal(range(size))
        bank_write = Signal(banks, name="bank_write")
        # The bank written next as a one-hot ring: no adder on the way to the write enables
        # (`produce + write` there would be a carry chain of 6 CCU2C).
        bank = Signal(banks, init=1, name="bank_next_write")
        # "This cycle's write fills the bank's last entry", a register set a cycle ahead from
        # `write_next` and the count before the write: the registered write enables then take
        # one LUT4 (the next write, the flag, two ring bits), where decoding `write` and the
        # count in their own cycle takes 3 LUT4.
        advance = Signal(name="bank_advance")
        m.d.sync += advance.eq(write_next & Mux(write, produce[:4] == 14, produce[:4] == 15))
        bank_next = Signal(banks)
        m.d.comb += bank_next.eq(Mux(advance, bank.rotate_left(1), bank))
        m.d.sync += [bank.eq(bank_next), bank_write.eq(bank_next & write_next.replicate(banks))]
        with m.If(write):
            m.d.sync += produce.eq(produce + 1)
        read_data = []
        for b in range(banks):
            m.submodules[f"buffer{b}"] = bank = memory.Memory(shape=128, depth=16, init=[])
            w_port = bank.write_port()
            r_port = bank.read_port(domain="comb")
            m.d.comb += [w_port.addr.eq(produce[:4]), w_port.data.eq(write_data),
                         w_port.en.eq(bank_write[b]), r_port.addr.eq(consume[:4])]
            read_data.append(r_port.data)
        # The fill level with registered "is 0" and "is 1" flags, as in _lean_buffer.
        level = Signal(range(size + 1))
        empty = Signal(init=1)
        single = Signal()
        if banks == 1:
            m.d.comb += self.o.payload.data.eq(read_data[0])
        else:
            with m.Switch(consume[4:]):
                for b in range(banks):
                    with m.Case(b):
                        m.d.comb += self.o.payload.data.eq(read_data[b])
        m.d.comb += self.o.valid.eq(~empty)
        with m.If(handed_out):
            m.d.sync += consume.eq(consume + 1)
        with m.If(write & ~handed_out):
            m.d.sync += [level.eq(level + 1), empty.eq(0), single.eq(empty)]
        with m.If(handed_out & ~write):
            m.d.sync += [level.eq(level - 1), empty.eq(single), single.eq(level == 2)]
        return self._handed_out_for_credit(m, write, single, handed_out)

    def _handed_out_for_credit(self, m, write, single, handed_out):
        """The output handshake as the credit counter reads it: ``handed_out`` itself, or with
        ``local_flag_copies`` from a copy of the lean buffer's empty flag of its own
        (``write`` and ``single`` are the buffer's write enable and "is 1" flag)."""
        if not self.local_flag_copies:
            return handed_out
        # The copy's next value reads the copy itself (not the flag), so Yosys and ABC see a
        # different function and keep two registers, and its LUT4 (the write flag, the
        # output's ready, single, the copy) packs beside it, at the credit counter, so the
        # route into the counter's carry chain is short, not one from the buffer.
        empty_copy = Signal(init=1, name="empty_for_credit")
        handed_out_copy = ~empty_copy & self.o.ready
        with m.If(write & ~handed_out_copy):
            m.d.sync += empty_copy.eq(0)
        with m.If(handed_out_copy & ~write):
            m.d.sync += empty_copy.eq(single)
        return handed_out_copy

    def _build_entry(self, m, ctl):
        """The entry register: a new block (after its initial AddRoundKey, unless the ring input
        adds it), waiting for a slot.

        A block is accepted while the entry register is free (or leaves this cycle), a credit
        is left and no key expansion runs. With lean control the entry register loads every
        cycle and is always emptied in the next: a block is accepted only when the first ring's
        input slot is free in the next cycle, so nothing waits in it. Adds ``entry`` (a slot),
        ``entry_taken`` (the first ring takes the entry's block this cycle) and, with lean
        control in a loop, ``ring_free_next`` (that slot is free in the next cycle), both
        driven by :meth:`_build_rings`.
        """
        entry = Signal(ctl.slot)
        entry_taken = Signal()
        ctl.ring_free_next = None
        if self.lean_control and self.laps > 1:
            entry_free = ctl.ring_free_next = Signal()
        else:
            # (Fully pipelined with lean control, the first unit takes the entry's block every
            # cycle, so this is always true.)
            entry_free = ~entry.valid | entry_taken
        block_ready = Signal()
        if self.key_schedule == "precomputed":
            m.d.comb += block_ready.eq(~ctl.input_busy)
        else:
            m.d.comb += block_ready.eq(1)
        m.d.comb += [
            self.key.ready.eq(ctl.key_ready),
            # A pending key transfer goes first: the order of key and block transfers is the
            # order the user issued them in (as in archs.iterative).
            self.i.ready.eq(entry_free & ctl.credit_ok & block_ready & ~self.key.valid),
        ]
        if self.initial_add_round_key == "ring_input":
            state = self.i.payload.data      # round key 0 is added in _ring_input
        else:
            state = self.i.payload.data ^ ctl.round_key_0
        load = [entry.round.eq(1), entry.state.eq(state)]
        if self.key_schedule == "on_the_fly" and not self.key_into_feedback:
            load.append(entry.key.eq(ctl.key))
        ctl.entry, ctl.entry_taken = entry, entry_taken
        if self.lean_control:
            # The entry register loads every cycle and only its valid bit says whether it
            # holds a block: no clock enable of fanout 256 behind the credit flag.
            m.d.sync += [entry.valid.eq(ctl.accept), *load]
        else:
            with m.If(entry_taken):
                m.d.sync += entry.valid.eq(0)
            with m.If(ctl.accept):
                m.d.sync += [entry.valid.eq(1), *load]

    def _build_exit(self, m, ctl):
        """The exit into the output buffer and the in-flight counter, after the rings have
        driven ``exit_write`` and ``exit_data``."""
        # Lean control and registered exit register the last round's result (the exit
        # register) before the buffer, so nothing after the last MixColumns/AddRoundKey shares
        # its clock cycle (the FIFO's LUT-RAM write data would otherwise be in the last
        # round's).
        domain = m.d.sync if self.exit_register else m.d.comb
        domain += [ctl.buffer_write.eq(ctl.exit_write), ctl.buffer_data.eq(ctl.exit_data)]
        if self.banked_buffer:
            m.d.comb += ctl.buffer_write_next.eq(ctl.exit_write)
        if self.registered_key_flags:
            # One carry chain, not two (an add, then a subtract): the step, -1, 0 or +1, is a
            # LUT4 of the two flags in front of the adder, so the buffer's write flag meets
            # one chain of 6-7 CCU2C, not two. The count reads a copy of the buffer's write
            # flag of its own (reset-less, so Yosys does not merge the two), placed beside it,
            # not the flag at the buffer, far away.
            written = ctl.buffer_write
            if self.exit_register:
                written = Signal(name="in_flight_written", reset_less=True)
                m.d.sync += written.eq(ctl.exit_write)
            up = ctl.in_flight_increment & ~written
            down = written & ~ctl.in_flight_increment
            step = Mux(up, 1, Mux(down, -1, 0))
            m.d.sync += ctl.in_flight.eq(ctl.in_flight + step)
        else:
            m.d.sync += ctl.in_flight.eq(ctl.in_flight + ctl.in_flight_increment
                                         - ctl.buffer_write)
