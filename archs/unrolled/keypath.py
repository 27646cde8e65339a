"""The key path of :class:`archs.unrolled.Unrolled`: round keys on the fly, precomputed, or
from a round key chain.

On the fly (seed 004 section III.C, seed 002's key agility), every slot carries its key window
and each round unit performs one key-expansion step beside its round. Precomputed, the round
keys are expanded once per key into registers (:class:`archs.prims.roundkeys.RoundKeyStore`),
or walked past the units by a register chain (:class:`archs.prims.roundkeys.RoundKeyChain`),
and a new key waits until no block is in flight. The options of this part
(:class:`KeyPathOptions`) check their own rules.
"""

from dataclasses import dataclass

from amaranth.hdl import Cat, Signal

from ..params import Param, PartOptions, switch
from ..prims.keyexpander import key_step, key_step_sub_input, lead_key_step, window_words
from ..prims.keyschedule import ROUNDS
from ..prims.roundkeys import RoundKeyChain, RoundKeyStore
from .control import ControlOptions
from .datapath import DatapathOptions
from .wires import delayed

__all__ = ["KEY_SCHEDULES", "KEY_PATH_PARAMS", "KeyPathOptions", "KeyPath"]

#: Where round keys come from.
KEY_SCHEDULES = ("on_the_fly", "precomputed")

#: The key path's parameters (:class:`KeyPathOptions`).
KEY_PATH_PARAMS = (
    Param("key_schedule", KEY_SCHEDULES, "on_the_fly",
          "round keys carried with every block (key agile) or expanded once per key",
          error=f"Key schedule must be one of {', '.join(KEY_SCHEDULES)}"),
    Param("key_bits", tuple(ROUNDS), 128, "key size of the core",
          error="Key size must be 128, 192 or 256 bits"),
    switch("key_lead",
           "fully pipelined, on-the-fly keys, logic S-boxes with 1+ stages: the key "
           "S-boxes one stage shorter and the expansion step registered a stage ahead, "
           "so the last stage has only MixColumns and AddRoundKey"),
    switch("key_into_feedback",
           "lean control, a one-ring loop, keys on the fly: a new block's key written into "
           "the ring's feedback register a cycle early, so the ring input multiplexes no "
           "key bits (the multiplexer joins the key-expansion step's LUT4s)"),
    switch("round_key_chain",
           "precomputed keys only: expanded by a walk of fixed period and carried past the "
           "units by a register chain, each round key register loading from its own stage "
           "(a flip-flop as clock enable, a neighbour's output as data) instead of from the "
           "expander through a decoder"),
    switch("registered_key_flags",
           "round key chain only: the walk's done flag and the drained flag each registered "
           "once or twice more before the key handshake (a key costs three cycles more), "
           "the input's ready reading a copy of the busy flag of its own, and the in-flight "
           "counter stepping in one carry chain, from a copy of the buffer's write flag"),
)


@dataclass(frozen=True)
class KeyPathOptions(PartOptions):
    """The key path's options, each documented at :class:`archs.unrolled.Unrolled`."""
    key_schedule: str
    key_bits: int
    key_lead: bool
    key_into_feedback: bool
    round_key_chain: bool
    registered_key_flags: bool

    def check(self, datapath: DatapathOptions, control: ControlOptions) -> None:
        """Raise ``ValueError`` for a rule of the key path broken; a key step placed in the
        datapath's rings or in lean control's feedback register depends on theirs."""
        if self.registered_key_flags and not self.round_key_chain:
            raise ValueError("Registered key flags need a round key chain (they are its "
                             "handshake's)")
        if self.round_key_chain and self.key_schedule != "precomputed":
            raise ValueError("A round key chain needs precomputed round keys (it delivers them)")
        if self.key_into_feedback and not (
                control.lean_control and self.key_schedule == "on_the_fly"
                and datapath.one_ring and not datapath.fully_pipelined):
            raise ValueError("Key into feedback needs lean control, round keys on the fly and a "
                             "loop of one ring (round units 1, or the alternate schedule)")
        if self.key_lead and (self.key_schedule != "on_the_fly" or not datapath.fully_pipelined
                              or datapath.bram_rounds or not datapath.logic_sbox
                              or datapath.sbox_stages < 1):
            raise ValueError(f"Key lead needs round keys on the fly in a fully pipelined core "
                             f"(round units {datapath.rounds}) of composite or tower S-boxes "
                             f"with at least one stage and no BRAM rounds")


class KeyPath:
    """The key path of :class:`archs.unrolled.Unrolled` (a part of it: the methods read the
    core's options and ports)."""

    def _build_keys(self, m, ctl):
        """The key register (on the fly) or the expanded round keys (precomputed).

        On the fly, every block carries its key window and each unit expands it one step (seed
        004 section III.C, seed 002's key agility), so a key transfer is always accepted. With
        precomputed keys (:meth:`_expander`) a new key waits until no block is in flight. Adds
        ``round_keys`` (the round key registers, or None), ``expanding``, ``key`` (the key
        register, or None), ``key_ready`` and ``round_key_0`` (the initial AddRoundKey's key).
        """
        round_keys = None
        expanding = None
        key = None
        key_ready = Signal()
        if self.key_schedule == "on_the_fly":
            key = Signal(self.key_bits, reset_less=not self.key_register_reset)
            m.d.comb += key_ready.eq(1)
            with m.If(self.key.valid & self.key.ready):
                m.d.sync += key.eq(self.key.payload.key)
            round_key_0 = key[self.key_bits - 128:]
        else:
            drained = None
            if self.round_key_chain:
                # No block in flight, a cycle late: the in-flight counter's zero test is not in
                # the path to the walk's load. A block accepted in the cycle before clears the
                # flag, so it never claims an empty pipeline that is not one: the in-flight
                # counter counts accepted blocks a cycle late (``accepted``), so no input
                # handshake reaches its adder (the credit flag -> accept -> 7 CCU2C would be
                # one cycle), and a block is written two or more cycles after it went
                # in, so the late count is never below zero. This cycle's accept is not in it:
                # the flag is read only while a key waits (:meth:`_expander`), when no block is
                # accepted, nor was in the cycle before.
                drained = Signal()
                accepted = ctl.accepted_late
                if accepted is None:  # (registered_accept has this register already)
                    accepted = Signal(name="accepted")
                    m.d.sync += accepted.eq(ctl.accept)
                m.d.sync += drained.eq((ctl.in_flight == 0) & ~accepted)
                ctl.in_flight_increment = accepted
                if self.registered_key_flags:
                    # A register more between the in-flight counter and the handshake (the
                    # flag's route to the handshake gets a cycle), still cleared by a block
                    # accepted in the cycle before: the flag lags the accept by two cycles, and
                    # a key taken in the cycle after a block must not find it set.
                    drained_late = Signal(name="drained_late")
                    m.d.sync += drained_late.eq(drained & ~accepted)
                    drained = drained_late
            round_keys, expanding, ctl.input_busy = self._expander(m, drained)
            if self.round_key_chain:
                m.d.comb += key_ready.eq(~expanding)
            else:
                m.d.comb += key_ready.eq(~expanding & (ctl.in_flight == 0))
            round_key_0 = round_keys[0]
        ctl.round_keys, ctl.expanding, ctl.key, ctl.key_ready = (round_keys, expanding, key,
                                                                 key_ready)
        ctl.round_key_0 = round_key_0

    def _expander(self, m, drained_flag=None):
        """Precomputed key schedule: expand the key once, at key load, into round key registers.

        A :class:`archs.prims.roundkeys.RoundKeyStore` walks the schedule one round key per step
        and keeps each round key in its own register, so every unit reads its round key without
        sharing a port; with ``round_key_chain`` a :class:`archs.prims.roundkeys.RoundKeyChain`
        does, and the key transfer reaches it through registers (its ``load`` drives its clock
        enables): a key is taken whenever no other key is pending or being expanded, held, and
        its walk starts when ``drained_flag`` (no block in flight, a register) says so. Returns
        (round key registers, busy signal: no key may go in, the busy signal the input's ready
        reads: no block may go in; with ``registered_key_flags`` a copy of the first).
        """
        family, stages, _ = self._units[0].key_family
        if self.round_key_chain:
            m.submodules.round_keys = store = RoundKeyChain(
                key_bits=self.key_bits, rounds=self.rounds, sbox=family, sbox_stages=stages,
                device_family=self.device_family)
            key, load = Signal(self.key_bits, name="key_in"), Signal(name="key_load")
            # The key handshake, in registers whose next values have four inputs or fewer (one
            # LUT4 each): busy (the key's ready is its inverse, no block goes in) rises with a
            # transfer and falls when the walk's last round key loads; pending (taken, not yet
            # walked) waits for the drained flag, and the walk starts a cycle later. (A key's
            # ready that waits for the drained flag itself puts the flag, busy and the walk's
            # own busy into one cone: busy -> 3 LUT4 -> busy.)
            # The key register's clock enable is a copy of busy (without a reset, so Yosys
            # does not merge the two): on busy itself, a net of fanout 133 would end in the
            # input's ready.
            busy, pending = Signal(name="keys_busy"), Signal(name="key_pending")
            done = store.done
            if self.registered_key_flags:
                # The walk's done comes from the end of the chain, across the chip: two
                # registers more, so its route into the handshake is three nets, each short
                # enough for a cycle of its own; busy falls two cycles later.
                for n in range(2):
                    done_late = Signal(name=f"keys_done{n}")
                    m.d.sync += done_late.eq(done)
                    done = done_late
            transfer = self.key.valid & ~busy
            busy_next = transfer | (busy & ~done)
            input_busy = busy
            if self.local_flag_copies:
                # Copies of busy that compute their next value from themselves (the key's
                # valid, the copy, done: one LUT4 each, packed beside the copy), with busy's
                # reset, so that ABC and Yosys keep them apart: no net runs from busy's own
                # LUT4 to the key register's clock enable.
                hold = Signal(name="key_hold")
                hold_next = (self.key.valid & ~hold) | (hold & ~done)
            else:
                hold = Signal(name="key_hold", reset_less=True)
                hold_next = busy_next
            if self.registered_key_flags and self.local_flag_copies:
                input_busy = Signal(name="keys_busy_input")
                m.d.sync += input_busy.eq((self.key.valid & ~input_busy) | (input_busy & ~done))
            elif self.registered_key_flags:
                # The input's ready reads a copy of busy of its own, placed beside the input
                # handshake, so busy -> the input's ready -> the late accept is not one long
                # net of fanout 4. Reset-less with init 1, so
                # that Yosys merges it neither with busy (reset) nor with key_hold (init 0); no
                # block goes in during the first cycle.
                input_busy = Signal(name="keys_busy_input", reset_less=True, init=1)
                m.d.sync += input_busy.eq(busy_next)
            with m.If(~hold):
                m.d.sync += key.eq(self.key.payload.key)
            m.d.sync += [busy.eq(busy_next), hold.eq(hold_next),
                         pending.eq(transfer | (pending & ~drained_flag)),
                         load.eq(pending & drained_flag)]
        else:
            m.submodules.round_keys = store = RoundKeyStore(
                128, key_sizes=(self.key_bits,), rounds=self.rounds, storage="registers",
                sbox=family, sbox_stages=stages, device_family=self.device_family)
            key, load, busy = self.key.payload.key, self.key.valid & self.key.ready, store.busy
            input_busy = busy
        m.d.comb += [store.key.eq(key), store.load.eq(load)]
        return [store.round_keys[r] for r in range(self.rounds + 1)], busy, input_busy

    def _unit_round_key(self, m, name, unit, inp, side, out, round_keys):
        """The round key of unit ``name`` (a :class:`~archs.unrolled.datapath.RoundUnit`) for
        the slot ``side`` in its last stage: with keys on the fly one expansion step beside
        the round, from the window ``inp`` carries into the unit (its S-boxes) and ``side``
        (the step), written into ``out``'s window; precomputed, the register of the round, or
        a multiplexer over the unit's rounds (``round_keys``)."""
        if self.key_schedule == "on_the_fly":
            # One expansion step beside the round, its S-boxes as deep as the datapath's.
            words = window_words(inp.key)
            key_in = key_step_sub_input(m, f"{name}_kin", self.key_bits, words, inp.round,
                                        unit.rounds)
            key_sub = None
            if key_in is not None:
                key_sub = self._sboxes(m, f"{name}_ksbox", unit.key_family, key_in)
                lag = 0 if self.key_lead else unit.family[2] - unit.key_family[2]
                key_sub = [delayed(m, b, lag, f"{name}_ksub{n}") for n, b in enumerate(key_sub)]
            if self.key_lead:
                (step,) = unit.rounds
                window = lead_key_step(m, name, self.key_bits, words, key_sub, step,
                                       unit.key_family[2])
            else:
                window = key_step(m, f"{name}_kstep", self.key_bits, window_words(side.key),
                                  key_sub, side.round, unit.rounds)
            m.d.comb += out.key.eq(Cat(*reversed(window)))
            round_key = Cat(*reversed(window[:4]))
        elif len(unit.rounds) == 1:
            round_key = round_keys[unit.rounds[0]]
        else:
            round_key = Signal(128, name=f"{name}_rk")
            with m.Switch(side.round):
                for rr in unit.rounds:
                    with m.Case(rr):
                        m.d.comb += round_key.eq(round_keys[rr])
        return round_key
