"""Loop-unrolled and pipelined AES encryption: from one round unit to a fully pipelined cipher.

One generator covers the unrolling axis of the design space (issue 5):

* ``round_units == 1``: one physical round looped ``rounds`` times (the iterative core);
* ``1 < round_units < rounds``: partial loop unrolling of seed 004 ("Efficient Implementation of
  the AES Algorithm for Security Applications", sections III and IV), with the two schedules of
  its designs 1 and 2;
* ``round_units == rounds``: no loop at all, the fully pipelined cipher of seed 002 (Hodjat &
  Verbauwhede, section 2 and Fig. 1), which takes a new block every clock.

Every round unit holds the S-box pipeline (``sbox_latency`` registers inside the S-boxes, the
inner-round pipelining of seed 002 section 3) and one more stage with ShiftRows, MixColumns and
AddRoundKey, whose result is registered (outer-round pipelining). A unit is therefore
``1 + sbox_latency`` stages deep: seed 002's 3- and 6-stage composite S-boxes give its "4 or 7
pipeline stages for each round".

Implementation notes
--------------------
*Slots.* The pipeline never stalls: every register moves every cycle, and each carries a valid
bit, so a register is a *slot* that either holds a block or is empty. A loop (``round_units <
rounds``) is a ring of units whose last output register feeds its first unit again. A block
occupies one slot, travels around the ring ``rounds / round_units`` times, and leaves; a new block
enters a ring only in a cycle where the slot arriving at the ring's input is empty or is leaving.
With ``S`` stages per unit a ring of ``u`` units has ``u * S`` slots, so extra pipeline registers
let ``u * S`` independent blocks be in flight at once, and the core delivers one block every
``rounds / round_units`` cycles whatever ``S`` is: deeper units raise the clock without lowering
the blocks per cycle. (Seed 004 has one register per unit, so one block per unit; seed 002 has
no loop, so every stage holds a block anyway.) Outputs of a loop come in bursts: a whole
rotation's worth of blocks, then a gap; a cycles-per-block measurement must span whole rotations
(a multiple of ``blocks_in_flight`` blocks).

*Schedules* (seed 004). ``split`` (design 1, Fig. 2/3) makes every unit its own ring of ``S``
slots that runs ``rounds / round_units`` consecutive rounds, after which the block moves on to the
next unit's ring. All rings have the same period ``S`` and a block stays exactly
``S * rounds / round_units`` cycles in each, so a block leaves ring ``j`` in exactly the cycle in
which the slot it needs in ring ``j + 1`` empties: hand-overs never collide and need no buffer.
``alternate`` (design 2, Fig. 5) makes one ring of all units, which every block passes
``rounds / round_units`` times. Slots rotate in a fixed order, so blocks leave in input order.

*Back-pressure without stalls.* Because the ring cannot stop (a block in a loop has nowhere to
wait), finished blocks go into an output FIFO, and a block is accepted only while the number of
blocks accepted but not yet handed out is below the FIFO's depth (a credit counter). The FIFO is
as deep as the number of slots plus two, which is what keeps the rate at one block per
``rounds / round_units`` cycles when the output is always ready. (``lean_control`` replaces the
counter and the FIFO's level logic with registered flags, and in a loop accepts a block only
when the ring's input slot is free in the next cycle, so nothing waits in the entry register.)
The FIFO's read side is asynchronous (LUT RAM on ECP5), and the last round writes it directly,
so the latency is ``1 + rounds * S`` cycles: seed 002 Table 1's 41 and 71 cycles for 4 and 7
stages per round (with block RAM the count follows the ``bram`` S-box's own latency, 2 cycles
in :mod:`archs.prims.sbox` where seed 002 section 4 has 1). A DP16KD has two read ports, so
``bram_read_ports`` 2 reads each block-RAM table for two S-boxes of a round or key step
(:class:`archs.prims.bram_sbox.BramSBoxPair`): half the block RAMs for the same rounds, which
lets several pipelines with block-RAM rounds share one chip (``parallel_lanes``).

*Keys.* With ``key_schedule="on_the_fly"`` every slot carries its own key window beside its data
and each unit performs one key-expansion step (seed 004 section III.C, seed 002's key agility):
the key may change between any two blocks, and a key transfer affects only blocks accepted after
it. The window for round ``r`` is words ``w[4r .. 4r + Nk - 1]`` of FIPS-197 section 5.2, whose
first four words are round key ``r``; one step computes four new words, with at most one SubWord,
so 192- and 256-bit keys use the same unit (the step is :func:`archs.prims.keyexpander.key_step`).
With ``key_schedule="precomputed"`` the round keys are expanded once, at key load, by the shared
:class:`archs.prims.keyexpander.KeyExpander` of a :class:`archs.prims.roundkeys.RoundKeyStore`
into one register per round key (every unit reads its own, in parallel); a new key waits until no
block is in flight.

*Parts.* The core is built from three parts, each in its own module with the parameters it owns
and the rules between them (``check``): the datapath (:mod:`archs.unrolled.datapath`: round
units, rings, the merged linear layer), the key path (:mod:`archs.unrolled.keypath`: on the fly,
precomputed, round key chain) and the control (:mod:`archs.unrolled.control`: entry register,
credit counter, output buffer). They hand each other signals through
:class:`archs.unrolled.wires.CoreWires`. The optional structures of lean control and of the key
handshake each take one path of the fully pipelined or looping core off its critical path; the
measurements that led to each are in ``docs/records.md`` ("The measurements behind the
structures").
"""

from dataclasses import replace

from amaranth.hdl import Module
from amaranth.lib import data, wiring

from ..interface import AESSignature
from ..params import bind
from ..prims.keyschedule import ROUNDS
from ..prims.sbox import check_device_family
from .control import CONTROL_PARAMS, Control, ControlOptions
from .datapath import (DATAPATH_PARAMS, SCHEDULES, Datapath, DatapathOptions, one_stage_shorter,
                       round_units_of, stages_per_round, unit_rounds)
from .keypath import KEY_PATH_PARAMS, KEY_SCHEDULES, KeyPath, KeyPathOptions
from .linear_layer import MergedLinearLayer
from .wires import CoreWires

__all__ = ["Unrolled", "SCHEDULES", "KEY_SCHEDULES", "unit_rounds", "one_stage_shorter"]

#: The order of :attr:`Unrolled.PARAMS`: the order in which ``aesdse list archs``, the
#: experiment loader and the family's sampler have always met them.
_PARAM_ORDER = (
    "round_units", "schedule", "sbox", "sbox_stages", "bram_rounds", "key_schedule", "key_bits",
    "lean_control", "registered_hand_out", "registered_accept", "key_lead",
    "sbox_output_copies", "banked_buffer", "initial_add_round_key", "key_into_feedback",
    "bram_read_ports", "bram_fabric_registers", "round_key_chain", "registered_key_flags",
    "local_flag_copies", "merged_linear_layer", "registered_exit",
)


def _ordered(params, order):
    by_name = {p.name: p for p in params}
    assert sorted(by_name) == sorted(order), "every part's parameter is listed once"
    return tuple(by_name[name] for name in order)


class Unrolled(Datapath, MergedLinearLayer, KeyPath, Control, wiring.Component):
    """AES encryption with ``round_units`` physical rounds, looped or fully pipelined.

    Parameters
    ----------
    round_units : int
        Physical round units; must divide the number of rounds. ``rounds`` gives a fully
        pipelined core (one block per clock), fewer a loop of ``rounds / round_units`` passes.
    schedule : str
        ``"split"`` or ``"alternate"`` (see the module documentation); ignored when
        ``round_units`` is 1 or ``rounds``, where both are the same circuit.
    sbox : str
        S-box family (:data:`archs.prims.sbox.SBOX_KINDS`) of the datapath.
    sbox_stages : int
        Pipeline registers inside each S-box of that family.
    bram_rounds : int
        The first ``bram_rounds`` rounds use block-RAM S-boxes (family ``"bram"``), and so does
        the key schedule where its latency fits (seed 002 section 4). Only without a loop
        (``round_units == rounds``): units of unequal depth would break the slot rotation.
    bram_read_ports : int
        With ``bram_rounds``: 1, each block-RAM S-box in a DP16KD of its own (port A); 2, two
        S-boxes of the same round or key step in one DP16KD (ports A and B). The precomputed
        key schedule keeps its own S-boxes.
    bram_fabric_registers : int
        With ``bram_rounds``: 0, 1 or 2 registers in the fabric after each block-RAM S-box's
        output register, so a BRAM round (and the key schedule's block-RAM step) is that many
        stages deeper and the route from a block RAM to MixColumns gets cycles of its own.
    key_schedule : str
        ``"on_the_fly"`` (key agile: every block carries its own key) or ``"precomputed"``
        (round keys in registers, loaded once per key).
    key_bits : int
        128, 192 or 256.
    rounds : int or None
        **Test-only** override of the number of rounds, for a reduced-round configuration small
        enough to push through Yosys and nextpnr in a test. Such a core is not AES; experiments
        never set it.
    device_family : str
        Device family of the netlist, passed to the S-boxes.
    lean_control : bool
        An exit register and registered flags in place of the output FIFO's level logic (one
        cycle more latency), for a fast clock, and an entry register that loads every cycle
        (no clock enable of fanout 256 behind the credit flag). In a loop a block is then
        accepted only when the ring's input slot is free in the next cycle, so no block waits
        in the entry register, and "last round" and "the slot leaves" are registered flags
        decoded a stage ahead, so neither the entry's clock enable nor the compare of the round
        is in the loop's cycle.
    registered_hand_out : bool
        With lean control: the credit counter counts a handed-out block a cycle late, from a
        register, and the buffer is one entry deeper. With parallel lanes
        (:class:`archs.lanes.ParallelLanes`) a lane's output handshake is the AND of every
        lane's valid flag, a net across the chip that otherwise ends in the counter's carry
        chain.
    registered_accept : bool
        With lean control: the credit counter counts an accepted block a cycle late, from a
        register, and the buffer is one entry deeper, so the input's ready (the credit flag
        and, with precomputed keys, the key flags) drives no carry chain.
    key_lead : bool
        Fully pipelined, on-the-fly keys: the key S-boxes one stage shorter and the expansion
        step registered a stage ahead of MixColumns/AddRoundKey.
    banked_buffer : bool
        Lean control's output buffer as 16-deep LUT-RAM banks (one LUT-RAM depth on ECP5),
        each with a registered write enable computed a cycle ahead from the exit register's
        next valid bit and the write counter's next value, so no decoder sits between the
        write counter and the write enables (fanout 32 each on the 128-bit buffer).
    round_key_chain : bool
        With ``key_schedule="precomputed"``: the round keys come from a
        :class:`archs.prims.roundkeys.RoundKeyChain` (a walk of fixed period, a register chain
        past the units, a flip-flop as every register's clock enable) instead of a
        :class:`archs.prims.roundkeys.RoundKeyStore`, whose expander position decoder drives all
        1,408 clock enables of the round key registers. A key is taken while no other key
        waits or walks, and held; its walk waits for a registered "no block in flight" flag, so
        the in-flight counter's zero test does not drive the walk either. A new key takes
        longer before the next block goes in (one cycle per chain stage, and the walk's fixed
        period), and its walk starts a cycle after that flag rose.
    registered_key_flags : bool
        With ``round_key_chain``: the walk's ``done`` is registered twice more and the drained
        flag once more before the key handshake reads them (a key change costs three cycles
        more), the input's ready reads a copy of the busy flag of its own, and the in-flight
        counter behind the drained flag adds one step (-1, 0 or +1) in one carry chain, from a
        copy of the buffer's write flag: each net between the key handshake and the counters
        then runs from one register to one LUT4.
    local_flag_copies : bool
        With lean control: the flags read far from where they are made are copies that each
        compute their next value from their own state (one LUT4 of at most four inputs, packed
        beside the copy), so no net runs from one flag's next-value LUT to another flag's
        register. The credit counter reads a copy of the output buffer's empty flag; with a
        round key chain the key register's clock enable and, with ``registered_key_flags``, the
        input's ready read copies of the key handshake's busy flag, each placed beside its
        loads. The same transfers cycle for cycle, except that
        the input's copy of busy has busy's reset: a block may go in during the first cycle, as
        without ``registered_key_flags``.
    merged_linear_layer : bool
        Fully pipelined with precomputed keys and 6- or 7-stage composite or tower S-boxes:
        everything linear between one round's subfield inversions and the next round's is one
        GF(2)-linear map per column, the S-box output map (basis change and affine map),
        ShiftRows, MixColumns, AddRoundKey and the next S-box's input map, built as an XOR
        network of four-bit XORs with a register after each level
        (:mod:`archs.prims.xor_pipeline`). Every datapath path between registers is then one
        LUT4 (without it the S-box maps and MixColumns with AddRoundKey are two and three
        LUT4 levels, as ABC9 maps them), and the slot registers between rounds hold the
        state in the field's basis. Same cycles per round; the entry's state is mapped in two
        extra stages and the last round's layer takes one stage less, so one cycle more latency.
    registered_exit : bool
        Without lean control (which has it): the exit register alone, the last round's result
        and write enable registered before the output FIFO (one cycle more latency, one more
        FIFO entry), so the path from the last round into the FIFO's LUT-RAM write data gets
        a cycle of its own.
    initial_add_round_key : str
        Where a new block meets round key 0: ``"entry"`` in front of the entry register, or
        ``"ring_input"`` behind it, in the first ring's input multiplexer: the entry register
        then holds the plaintext (and, on the fly, its key), and a state bit entering the ring
        is one LUT4 of four inputs (loop select, feedback bit, plaintext bit, key bit) instead
        of a multiplexer LUT4 after an XOR LUT4.
    key_into_feedback : bool
        Lean control in a one-ring loop, keys on the fly: a new block's key is written into
        the ring's feedback register in the cycle before the block enters (the slot is free
        then), from the key register, so the ring's input multiplexer has no key bits and the
        entry register no key; the multiplexer moves into the key-expansion step's LUT4s.
    sbox_output_copies : int
        1, or 2 for two copies of every data S-box's output register (composite or tower
        S-boxes with 6 or 7 stages, whose last register is the S-box output): MixColumns rows 0-1
        read one copy, rows 2-3 the other, so each register bit drives half the loads. The
        net from an S-box output bit to the xtime terms of its column has the highest fanout
        of the fully pipelined core's datapath. With BRAM rounds
        (and ``bram_fabric_registers`` 1 or 2) a BRAM round's copies are its last fabric
        register, made twice.
    key_register_reset : bool
        Not a design-space parameter: False gives the on-the-fly key register no reset. Copies
        of one core side by side (:class:`archs.lanes.ParallelLanes`) get the same key, and
        Yosys merges registers with the same input, clock and reset, so their whole key
        pipelines would become one, shared by the lanes; the lanes after the first are built
        with False to keep a key pipeline each (the ``lane_keys`` parameter).

    Members
    -------
    key, i, o
        The common AES interface (:class:`archs.interface.AESSignature`) for ``key_bits``.

    Attributes
    ----------
    rounds : int
        Rounds per block.
    stages_per_round : tuple of int
        Pipeline stages of each unit (``1 + sbox latency``).
    blocks_in_flight : int
        Slots in the pipeline: the number of blocks it holds when full. Outputs of a loop come
        in bursts of whole slot rotations, so a cycles-per-block measurement must span a
        multiple of this many blocks.
    cycles_per_block : int
        Clock cycles per block in a full, back-to-back stream: ``rounds / round_units``.
    latency : int
        Cycles from accepting a block to handing it out, when nothing else is in flight.
    fifo_depth : int
        Depth of the output FIFO (and the credit limit).

    Raises
    ------
    ValueError
        For a parameter outside its allowed values, with the rule in the message.
    """

    #: The design-space parameters (:mod:`archs.params`), each declared by the part it shapes.
    PARAMS = _ordered(DATAPATH_PARAMS + KEY_PATH_PARAMS + CONTROL_PARAMS, _PARAM_ORDER)

    @classmethod
    def options(cls, *, rounds=None, device_family="generic", **params):
        """The options of the three parts, ``(datapath, key path, control)``, each checked
        by its own rules; the core's own rules first (device family, round count).

        Raises
        ------
        TypeError
            For a keyword that is not a parameter.
        ValueError
            For a parameter outside its allowed values, with the rule in the message.
        """
        p = bind(cls.PARAMS, params, cls.__name__)
        check_device_family(device_family)
        if rounds is None:
            rounds = ROUNDS[p.key_bits]
        elif not isinstance(rounds, int) or not 1 <= rounds <= ROUNDS[p.key_bits]:
            raise ValueError(f"Rounds must be an integer from 1 to {ROUNDS[p.key_bits]}, "
                             f"not {rounds!r}")
        datapath = DatapathOptions.of(p, rounds=rounds)
        keys = KeyPathOptions.of(p)
        control = ControlOptions.of(p)
        datapath.check(keys.key_schedule)
        control.check()
        keys.check(datapath, control)
        return datapath, keys, control

    @classmethod
    def check(cls, *, rounds=None, device_family="generic", **params):
        """Validate the parameters without building anything; returns the number of rounds.

        The family's builder calls this before the constructor, so a bad design point raises
        before an Elaboratable exists (one that is never elaborated warns when collected).
        """
        datapath, _, _ = cls.options(rounds=rounds, device_family=device_family, **params)
        return datapath.rounds

    def __init__(self, *, rounds=None, device_family="generic", key_register_reset=True,
                 **params):
        datapath, keys, control = self.options(rounds=rounds, device_family=device_family,
                                               **params)
        self.datapath_options, self.key_options, self.control_options = datapath, keys, control
        rounds = datapath.rounds
        self.round_units = datapath.round_units
        self.laps = rounds // datapath.round_units
        # With one unit, or one unit per round, both schedules are the same circuit.
        self.schedule = ("split" if self.laps == 1 or datapath.round_units == 1
                         else datapath.schedule)
        if self.schedule != datapath.schedule:
            datapath = self.datapath_options = replace(datapath, schedule=self.schedule)
        self.sbox = datapath.sbox
        self.sbox_stages = datapath.sbox_stages
        self.bram_rounds = datapath.bram_rounds
        self.bram_read_ports = datapath.bram_read_ports
        self.key_schedule = keys.key_schedule
        self.round_key_chain = keys.round_key_chain
        self.key_bits = keys.key_bits
        self.rounds = rounds
        self.device_family = device_family
        self.lean_control = control.lean_control
        self.key_lead = keys.key_lead
        self.sbox_output_copies = datapath.sbox_output_copies
        self.banked_buffer = control.banked_buffer
        self.initial_add_round_key = datapath.initial_add_round_key
        self.key_into_feedback = keys.key_into_feedback
        self.merged_linear_layer = datapath.merged_linear_layer
        self.registered_key_flags = keys.registered_key_flags
        self.local_flag_copies = control.local_flag_copies
        self.exit_register = control.exit_register
        self.key_register_reset = bool(key_register_reset)
        self.registered_hand_out = control.registered_hand_out
        self.registered_accept = control.registered_accept

        self._units = round_units_of(datapath, keys.key_lead)
        self.stages_per_round = stages_per_round(datapath, self._units)
        self.blocks_in_flight = sum(self.stages_per_round)
        self.cycles_per_block = self.laps
        # The exit register (lean control, registered exit) adds one cycle and one more block
        # in the buffer (and lean control one more for its registered credit flag, a registered
        # hand-out or accept one more each for its late count).
        self.latency = 1 + self.laps * sum(self.stages_per_round) + self.exit_register
        self.fifo_depth = (self.blocks_in_flight + 2 + self.exit_register + self.lean_control
                           + self.registered_hand_out + self.registered_accept)
        super().__init__(AESSignature(key_sizes=(keys.key_bits,),
                                      blocks_in_flight=self.blocks_in_flight))

    def _slot_layout(self):
        fields = {"valid": 1, "round": range(self.rounds + 2), "state": 128}
        if self.key_schedule == "on_the_fly":
            fields["key"] = self.key_bits
        return data.StructLayout(fields)

    def elaborate(self, platform):
        # The parts in the order a block meets them (package notes): the output control with
        # its credit counter, the keys, the entry register, the rings of round units, then the
        # exit into the output buffer. They hand each other signals through ``ctl``
        # (:class:`archs.unrolled.wires.CoreWires`), to which each part adds the signals the
        # later ones read.
        m = Module()
        ctl = CoreWires(slot=self._slot_layout(), depth=self.fifo_depth)
        self._build_output(m, ctl)
        self._build_keys(m, ctl)
        self._build_entry(m, ctl)
        self._build_rings(m, ctl)
        self._build_exit(m, ctl)
        return m
