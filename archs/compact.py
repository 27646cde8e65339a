"""Compact (folded) AES-128: 8-, 32- or 64-bit datapaths, as a block cipher or a CTR stream cipher.

The design space of Zhou & Gaj, "AES as a stream cipher" (seed 000): the AES round is folded onto
a datapath of ``datapath_width`` bits, the 128-bit state lives in a small memory and ShiftRows is
done by addressing it (section II.E), the round key comes from an on-the-fly key schedule of the
same width (section II.D, Fig. 7 and Fig. 10), and the core runs either as a plain block cipher
(``mode="ecb"``, the common interface of :mod:`archs.interface`) or as AES-128 in counter mode
(``mode="ctr"``, section II.B-C). :class:`archs.estream.EStreamAdapter` puts the eSTREAM handshake
of 000 Fig. 6 on top of the CTR core.

Resources (000 Table I), as built here
---------------------------------------
======  ====================  =========================  ==========  ===========
width   state memory          datapath S-boxes (+ key)    MixColumns  AddRoundKey
======  ====================  =========================  ==========  ===========
8       2 x 128 bits (shared  1 (+ 1; + 4 if the S-box     1           8
        memory: 128) + 24-bit  has a latency, see below)
        MixColumns buffer
32      2 x 128 (128)         4 (+ 4)                    1           32
64      2 x 128 (128)         8 (+ 4)                    2           64
======  ====================  =========================  ==========  ===========

:attr:`Compact.resources` counts these from the elaborated design. Table I prints the memory as
"256*8" and "128*8"; read as bits (two 128-bit memories, or one) it matches the text of section
II.E ("the input and output memory should remain 128-bit"). Its 8-bit row adds a 32-bit buffer
before MixColumns; the buffer here is 24 bits (see the implementation notes).

Schedule and cycles per block
-----------------------------
Like 000 (Table III: 0.73 / 2.91 / 5.82 bits per clock, i.e. 176 / 44 / 22 cycles per block) a
block takes 11 round-steps of ``16 / (datapath_width / 8)`` cycles: a load step that writes
``block ^ key`` into the state memory, then the 10 rounds. The load step of the next block starts
as soon as the last round has read the memory, so blocks follow each other back to back with no
extra cycle. With an S-box of latency ``L`` (``bram``, or pipelined ``composite``/``tower``) every
round-step waits ``L`` more cycles before its first step: the last column of a round must be
written before the next round reads it (the dependency is complete: every output column of a
round reads one byte from each input column), and the key schedule's S-box must settle; so a
block costs ``11 * (16 / bytes + L)`` cycles.

Key schedule
------------
The round keys come from :class:`archs.prims.keyexpander.KeyExpander` (000 Fig. 7 at 32 bits,
Fig. 10 at 64 bits, byte-serial at 8 bits), one group of round-key bits per write-back step, in
exactly the order the datapath consumes them (round key 0 for the load step, then rounds 1-10).
Its S-boxes are outside it (narrow ``sbox_i`` / ``sbox_o`` ports) and belong to this core, so they
are counted here. The expander keeps the key: a key transfer is one ``load``, every block one
``start`` (issued with the last round key of the previous block).

Why the 8-bit core has two S-boxes
----------------------------------
The on-the-fly key schedule needs 4 S-box lookups per round (SubWord), 40 per block; the 8-bit
datapath uses its S-box in 160 of the 176 cycles of a block. One S-box shared by both would need
200 cycles per block, over 000's 176, so the key schedule has an S-box of its own (the byte-serial
expander, one S-box). With an S-box latency ``L > 0`` the byte-serial schedule would stall inside
the first column of every round, which the 8-bit MixColumns buffer cannot absorb, so the
word-serial (32-bit, four S-box) schedule is used there.

Size of the 8-bit core
----------------------
Measured once (Yosys 0.70 ``synth_ecp5 -nowidelut``, nextpnr-ecp5 0.11, LFE5U-85F out of
context, 2026-11-21), shared memory, ECB: ``composite`` S-boxes 614 LUT4 + 2 TRELLIS_DPR16X4
RAMs (648 TRELLIS_COMB), 468 FF; ``tower`` 576 LUT4 (610 TRELLIS_COMB). Where the LUTs
go (hierarchical synthesis, composite): S-boxes 2 x 72, key schedule 197 (128 of them reload the
round-key window from the stored key for every block), MixColumns 58, and in the top level 194,
of which 104 are the 16:1 byte multiplexer that takes the 128-bit block from the common
interface one byte per cycle. So about 230 LUT4 serialise the two 128-bit parallel ports of the
common interface (key and block); the published 8-bit cores have byte-wide ports.

With ``port_width=8`` (module notes, "Byte-wide ports"; measured 2026-11-23, same flow, seed 1,
``experiments/compact_port8.yaml``): ``composite`` 363 LUT4, 324 FF; ``tower`` 348 LUT4; with
wide-LUT muxes 571 and 641. Hierarchical synthesis
(``bench/compact_breakdown.py``, composite): key schedule 193 -> 64 LUT4 (the 128-bit reload
path is gone), top level 195 -> 79 (no 16:1 input multiplexer, no output register), S-boxes
74 + 74 and MixColumns 58 unchanged: the two S-boxes are now 42% of the core.

With ``mixcolumns="serial"`` and ``key_sbox="shared"`` (module notes below; measured
2026-11-24, same flow, ``experiments/compact_ram.yaml``): ``tower`` 250 LUT4, 392 FF;
``rm_combined`` 234 LUT4, 392 FF; 220 cycles per block. (The clock frequencies of these points
are in ``docs/records.md``.)

Byte-wide ports
---------------
``port_width=8`` gives the 8-bit core the byte-wide key, block and result streams of 000 Fig. 6
and of the published 8-bit cores (:mod:`archs.interface`, "Byte-stream cores"): a key is 16 key
transfers, a block 16 block transfers, a result 16 result transfers, state byte 0 first. What it
removes, and how:

* **The input multiplexer.** Each step of the load step waits for its block byte and takes it
  at issue (so the S-box must be combinational: latency 0); a gap in the block stream is a
  bubble in the load step, which the fixed pipeline carries like any step.
* **The output register.** Round 10's bytes leave straight from the write-back stage (no 128-bit
  register); while a result byte is offered and not taken, every register and the state memory
  of the core hold (one clock enable for the whole core, :class:`amaranth.hdl.EnableInserter`),
  so the byte stays on the port and nothing in flight is lost.
* **The key reload.** :class:`archs.prims.bytekeyschedule.ByteKeySchedule` takes the key bytes
  into its window and a rotating copy, and refills the window with the key while round 10 is
  consumed, so no block reloads 128 bits in parallel. It steps with every write-back, so it is
  at round key 0 whenever no key is half loaded (a block waits for a key being loaded).

Still 176 cycles per block. The common verifier drives this core through
:class:`archs.bytestream.ByteStreamAdapter`; the measured netlist is the core alone.

Serial MixColumns
-----------------
``mixcolumns="serial"`` (8-bit datapath) replaces the parallel buffer below, which mixes a whole
column when its fourth byte arrives (four output bytes at once, plus a multiplexer per buffer
bit to load them), by one output byte per cycle. With ``t = a0 ^ a1 ^ a2 ^ a3`` the column sum,
MixColumns output byte ``k`` is ``a_k ^ t ^ xtime(a_k ^ a_(k+1))`` (FIPS-197 section 5.1.3:
``2 a_k ^ 3 a_(k+1) ^ a_(k+2) ^ a_(k+3)``). The bytes entering pass a six-byte delay line
``d1``..``d6`` (plain shift registers: flip-flops, no LUTs); output byte ``k`` leaves three
cycles after input byte ``k`` entered, as before, and then ``a_k`` is ``d3``, ``a_(k+1)`` is
``d2`` (``d6``, i.e. ``a_0``, for ``k = 3``), and ``t`` is formed at ``k = 0`` from ``d0``..
``d3`` and held in a byte register for ``k = 1..3``. Per output bit: about four LUT4 instead of
about eleven; 32 more flip-flops.

One S-box
---------
``key_sbox="shared"`` (byte-wide ports) lets the byte-serial key schedule use the datapath's
S-box (:class:`archs.prims.bytekeyschedule.ByteKeySchedule` with ``prefetch``). The schedule
needs four lookups per round key (SubWord of RotWord of its last word), and the datapath's
S-box is busy in 160 of the 176
cycles of a block, so at least 200 cycles per block are needed. The sequencer waits
:data:`KEY_LOOKUP_GAP` = 4 cycles before every round-step (220 cycles per block). While it
waits, the write-back stage still writes the last three bytes of the previous round-step, and
with them the key schedule appends bytes 13, 14 and 15 of the next round key to its window
(byte 12 came with the last issue): each goes through the S-box in the cycle after it entered,
the four waiting cycles. Their substitutes wait in a four-byte shift register until bytes 0-3
of that round key are consumed, 3 cycles after the round-step's first issue. A key transfer
does its lookups the same way (the core is idle). The gap before round 10 and before the load
step is not strictly needed: 4 cycles before rounds 1-9, one before the load step (the
load step does not use the S-box, but its first key byte must not be consumed in the cycle of
the last lookup) and no lookups for round key 10 would give 213 cycles per block, at the cost
of a round-dependent wait; the uniform gap keeps the sequencer as it is.

Counter mode
------------
``mode="ctr"`` adds a one-bit field ``iv`` to the block input (default 0 = a plaintext block):

* A transfer with ``iv=1`` loads ``data`` as the initial counter block (SP 800-38A section 6.5);
  it produces no output.
* Every transfer with ``iv=0`` is a plaintext block; the core returns ``plaintext ^ E(K, T)`` and
  then increments the counter block ``T``: the low 32 bits (bits 31..0, block bytes 12..15) count
  modulo 2**32 and the upper 96 bits stay fixed, as in SP 800-38A Appendix B.1 with m = 32 and
  RFC 3686 (``aesdse.verify.reference.ctr_encrypt(..., counter_bits=32)``).
* A key transfer keeps the counter block: load an IV after a new key.

Because the counter sequence is known in advance (000 section II.B, Fig. 4), the core encrypts the
next counter block before its plaintext arrives and only waits for the plaintext before the last
round, whose output bytes are XORed with the plaintext as they are produced. The plaintext
transfer completes (``i.ready``) when the last ciphertext byte has been computed, so the core
needs no plaintext register. A key or IV transfer arriving while the core waits for plaintext
discards the precomputed block. Decryption is the same operation.

Implementation notes
--------------------
All cycles of a block are issued by one sequencer (round, step) and flow through a fixed
pipeline: at issue the state memory is read (rounds 1-10), ``L`` cycles later the S-box outputs
are there (and, in the load step, the block input bytes are taken instead), then MixColumns (not
in the load step or round 10) and AddRoundKey, and the result is written back (or, in round 10,
shifted into the output register). The write happens ``D = L`` cycles after the issue (``L + 3``
at 8 bits). Nothing in the pipeline ever stalls; the sequencer only waits at the start of a
round-step, and the control of every later stage is the issue control delayed by the stage depth.

ShiftRows is an address transformation (000 section II.E,
:func:`.prims.shiftrows.shift_rows_source`): round output byte ``j`` is computed from input byte
``src(j)``. The state memory is split into
lanes so that one step reads its bytes in one cycle: one lane at 8 bits, one lane per row at 32
bits (row ``r`` of the step reading column ``(n + r) mod 4``, 000 Fig. 16's "four small rows"),
and one lane per row and column parity at 64 bits (a step reads two adjacent columns per row, one
even and one odd). With separate memories (``shared_memory=False``) each lane has two banks, the
input and output memories of 000, swapped every round-step. With one shared memory
(``shared_memory=True``) a round writes its output byte ``j`` into the slot it read ``src(j)``
from, which is free by then; the position of state byte ``j`` in memory after ``r`` round-steps is
therefore ``src^r(j)`` and returns to ``j`` after four (000 Fig. 16).

The 8-bit MixColumns buffer (000 Fig. 14) is a three-byte shift register: S-box bytes enter
every cycle; when the fourth byte of a column arrives, MixColumns of the three buffered bytes and
that byte gives the output byte 0 at once and reloads the buffer with output bytes 1-3, which
leave one per cycle while the next column enters behind them. Every byte therefore comes out
exactly three cycles after it went in, with or without MixColumns.
"""

from collections import Counter
from types import SimpleNamespace

from amaranth.hdl import Cat, Const, EnableInserter, Fragment, Module, Mux, Shape, Signal
from amaranth.lib import memory, wiring

from .estream import EStreamAdapter  # the CTR core's eSTREAM interface (see the note below)
from .interface import AESSignature, bytes_value, value_bytes
from .params import SBOX_PARAM, SBOX_STAGES_PARAM, Param, bind
from .prims.bytekeyschedule import ByteKeySchedule
from .prims.keyexpander import KeyExpander
from .prims.gf import xtime_value
from .prims.keyschedule import ROUNDS
from .prims.mixcolumns import MixColumn
from .prims.sbox import check_device_family, make_sbox, sbox_latency
from .prims.shiftrows import shift_rows_source

__all__ = ["Compact", "EStreamAdapter", "WIDTHS", "MODES", "PORT_WIDTHS", "MIXCOLUMNS",
           "KEY_SBOXES", "KEY_LOOKUP_GAP", "schedule"]

#: Datapath widths in bits.
WIDTHS = (8, 32, 64)
#: Modes of operation.
MODES = ("ecb", "ctr")
#: Bits per transfer of the key, block and result streams (:mod:`archs.interface`).
PORT_WIDTHS = (128, 8)
#: MixColumns of the 8-bit datapath (module notes, "Serial MixColumns").
MIXCOLUMNS = ("parallel", "serial")
#: Where the byte-port key schedule's S-box lookups go (module notes, "One S-box").
KEY_SBOXES = ("separate", "shared")
#: Cycles the sequencer waits before every round-step with ``key_sbox="shared"``: the four
#: SubWord lookups of the next round key (module notes, "One S-box").
KEY_LOOKUP_GAP = 4

_ROUNDS = ROUNDS[128]

# EStreamAdapter lives in archs.estream (it fits any CTR core with an ``iv`` field) and is
# re-exported here as part of this family's interface; the import also keeps archs.estream in
# the compact family's generator fingerprint (aesdse.store.provenance follows the imports of
# archs.compact).


def schedule(datapath_width: int, latency: int, key_gap: int = 0) -> dict:
    """Timing of :class:`Compact` for a width and an S-box latency, from its pipeline rules.

    ``key_gap`` adds cycles to the wait before every round-step (:data:`KEY_LOOKUP_GAP` with
    a key schedule that shares the datapath's S-box).

    Returns a dict with ``steps`` (cycles per round-step without waiting), ``delay`` (cycles from
    issue to write-back), ``gap`` (cycles the sequencer waits before the first step of every
    round-step) and ``cycles_per_block``. Raises ``AssertionError`` if the schedule would read a
    state byte before it is written (checked for every byte of two consecutive rounds), so a
    change of the pipeline cannot silently break the memory dependencies.
    """
    nbytes = datapath_width // 8
    steps = 16 // nbytes
    delay = latency + (3 if nbytes == 1 else 0)
    # Before every round-step: the key schedule's S-box settles (KeyExpander: ``latency`` cycles
    # after the window changed), and the previous round's last column is written back.
    gap = latency + key_gap
    period = steps + gap
    for j in range(16):
        src = shift_rows_source(j)
        written = (src // nbytes) + delay          # round r writes byte src at step src // nbytes
        read = period + j // nbytes                # round r + 1 reads it for output byte j
        assert written < read, (datapath_width, latency, j)
    return {"steps": steps, "delay": delay, "gap": gap,
            "cycles_per_block": (_ROUNDS + 1) * period}


class Compact(wiring.Component):
    """Compact AES-128 encryption core with a folded datapath (Zhou & Gaj, seed 000).

    Parameters
    ----------
    datapath_width : int
        8, 32 or 64: bits of the state processed per cycle.
    sbox : str
        S-box family (:data:`archs.prims.sbox.SBOX_KINDS`), for the datapath and the key
        schedule.
    sbox_stages : int
        Pipeline registers inside each S-box, for the families that have them.
    shared_memory : bool
        ``False``: separate input and output state memories (two banks per lane). ``True``: one
        state memory updated in place with the address transformation of 000 Fig. 16.
    mode : str
        ``"ecb"``: block encryption through the common interface. ``"ctr"``: AES-128 CTR stream
        cipher (see the module documentation for the ``iv`` field and the counter).
    device_family : str
        Device family of the netlist, passed to the S-boxes.
    port_width : int
        128: the common interface. 8: byte-wide key, block and result streams (module notes,
        "Byte-wide ports"); needs the 8-bit datapath, ECB and an S-box of latency 0.
    mixcolumns : str
        ``"parallel"`` or ``"serial"`` (8-bit datapath only): module notes, "Serial MixColumns".
    key_sbox : str
        ``"separate"`` or ``"shared"`` (byte-wide ports only): module notes, "One S-box".

    Members
    -------
    key, i, o
        The common AES interface (:class:`archs.interface.AESSignature`), AES-128 only. With
        ``mode="ctr"`` the block input has the extra field ``iv`` (1 bit, 0 = plaintext). With
        ``port_width=8``, byte streams.

    Attributes
    ----------
    sbox_latency : int
        Cycles from S-box input to output.
    steps_per_round : int
        Cycles of one round-step without waiting (16, 4 or 2).
    cycles_per_block : int
        Cycles per block in a back-to-back stream, from :func:`schedule` (the verify stage
        measures it independently).
    resources : dict
        Counted from the elaborated design (see the property).

    Raises
    ------
    ValueError
        For a parameter outside its allowed values.
    """

    #: The design-space parameters (:mod:`archs.params`).
    PARAMS = (
        Param("datapath_width", WIDTHS, 32, "bits of the state processed per cycle",
              error="Datapath width must be 8, 32 or 64"),
        SBOX_PARAM,
        SBOX_STAGES_PARAM,
        Param("shared_memory", (False, True), False,
              "one state memory updated in place (000 Fig. 16) instead of input and output",
              error="Shared memory must be True or False"),
        Param("mode", ("ecb",), "ecb",
              "ecb: the common block interface; Compact(mode='ctr') is the CTR stream cipher "
              "(same datapath, tested in tests/test_archs_compact.py)",
              error="Mode must be 'ecb' or 'ctr'", values=MODES),
        Param("port_width", PORT_WIDTHS, 128,
              "bits per key, block and result transfer: 8 = byte streams (8-bit datapath, "
              "combinational S-boxes; verified through archs.bytestream.ByteStreamAdapter)",
              omitted_at_default=True, error="Port width must be 8 or 128"),
        Param("mixcolumns", MIXCOLUMNS, "parallel",
              "8-bit MixColumns: parallel = a whole column mixed at once (000 Fig. 14), serial = "
              "one output byte per cycle from the column sum (fewer LUT4, more FF)",
              omitted_at_default=True, error="MixColumns must be 'parallel' or 'serial'"),
        Param("key_sbox", KEY_SBOXES, "separate",
              "S-box of the byte-port key schedule: separate (its own) or shared with the "
              "datapath (SubWord looked up in a 4-cycle gap per round: 220 cycles per block)",
              omitted_at_default=True, error="Key S-box must be 'separate' or 'shared'"),
    )

    @classmethod
    def check(cls, *, device_family="generic", **params):
        """Validate the parameters without building anything; returns the S-box latency.

        The family's builder and the experiment loader call this, so a bad design point raises
        before an Elaboratable exists (one that is never elaborated warns when collected).
        """
        p = bind(cls.PARAMS, params, cls.__name__)
        latency = sbox_latency(p.sbox, stages=p.sbox_stages)  # validates family, stages
        check_device_family(device_family)
        try:
            schedule(p.datapath_width, latency)
        except AssertionError:
            raise ValueError(f"A {p.datapath_width}-bit datapath has no schedule with S-boxes of "
                             f"latency {latency}") from None
        if p.port_width == 8 and (p.datapath_width, p.mode, latency) != (8, "ecb", 0):
            raise ValueError(f"Byte-wide ports need the 8-bit datapath in ECB mode with "
                             f"combinational S-boxes, not datapath width {p.datapath_width}, "
                             f"mode {p.mode!r} and S-box latency {latency}")
        if p.mixcolumns == "serial" and p.datapath_width != 8:
            raise ValueError(f"Serial MixColumns needs the 8-bit datapath, not datapath width "
                             f"{p.datapath_width}")
        if p.key_sbox == "shared" and p.port_width != 8:
            raise ValueError("A key schedule sharing the datapath's S-box needs byte-wide ports "
                             "(port_width 8)")
        return latency

    def __init__(self, *, device_family="generic", **params):
        self.sbox_latency = self.check(device_family=device_family, **params)
        p = bind(self.PARAMS, params, type(self).__name__)
        self.port_width = p.port_width
        self.datapath_width = p.datapath_width
        self.sbox = p.sbox
        self.sbox_stages = p.sbox_stages
        self.shared_memory = p.shared_memory
        self.mode = p.mode
        self.mixcolumns = p.mixcolumns
        self.key_sbox = p.key_sbox
        self.device_family = device_family
        key_gap = KEY_LOOKUP_GAP if p.key_sbox == "shared" else 0
        self._timing = schedule(p.datapath_width, self.sbox_latency, key_gap)
        self.steps_per_round = self._timing["steps"]
        self.cycles_per_block = self._timing["cycles_per_block"]
        # Key schedule width: byte-serial at 8 bits when the S-box is combinational (one key
        # S-box), otherwise as wide as the datapath, at least a word (see the module notes).
        if p.datapath_width == 8 and self.sbox_latency:
            self.key_width = 32
        else:
            self.key_width = p.datapath_width
        block_fields = {"iv": 1} if p.mode == "ctr" else None
        super().__init__(AESSignature(key_sizes=(128,), block_fields=block_fields,
                                      port_width=p.port_width))

    @property
    def resources(self):
        """Resources counted from the elaborated design (000 Table I).

        Keys: ``sbox_instances`` (all S-boxes), ``datapath_sbox_instances``,
        ``key_sbox_instances``, ``mixcolumns_units``, ``state_memory_bits`` (bits of the state
        memories), ``buffer_bits`` (MixColumns buffer of the 8-bit datapath),
        ``addroundkey_width`` (bits XORed with round-key bits per cycle) and ``cycles_per_block``.
        """
        fragment = Fragment.get(self, None)
        if self.port_width == 8:
            fragment = fragment.subfragments[0][0]   # the core inside its EnableInserter
        counts = Counter()
        for sub, name, _ in fragment.subfragments:
            origin = sub.origins[0] if sub.origins else None
            if hasattr(origin, "table") and hasattr(origin, "latency"):
                counts["key_sbox_instances" if name.startswith("key_") else
                       "datapath_sbox_instances"] += 1
            elif isinstance(origin, MixColumn):
                counts["mixcolumns_units"] += 1
            elif isinstance(origin, memory.Memory):
                counts["state_memory_bits"] += origin.depth * Shape.cast(origin.shape).width
        built = self._built
        return {
            "sbox_instances": counts["datapath_sbox_instances"] + counts["key_sbox_instances"],
            "datapath_sbox_instances": counts["datapath_sbox_instances"],
            "key_sbox_instances": counts["key_sbox_instances"],
            # The serial MixColumns is one unit without a MixColumn submodule.
            "mixcolumns_units": counts["mixcolumns_units"] + (self.mixcolumns == "serial"),
            "state_memory_bits": counts["state_memory_bits"],
            "buffer_bits": built["buffer_bits"],
            "addroundkey_width": built["addroundkey_width"],
            "cycles_per_block": self.cycles_per_block,
        }

    # --- State memory addressing ------------------------------------------------------------

    @staticmethod
    def _times_mod4(k, row):
        """``(k * row) mod 4`` for a 2-bit ``k`` and a row (int or 2-bit Value), as AND/XOR
        terms: Yosys would map a ``*`` of two signals to a DSP multiplier."""
        if isinstance(row, int):
            row = Const(row, 2)
        return Cat(k[0] & row[0], (k[1] & row[0]) ^ (k[0] & row[1]))

    def _slot(self, n, q, k):
        """Where position ``q`` of step ``n`` lives after ``k`` ShiftRows of addressing.

        Position ``j = bytes * n + q`` of the state (row ``j % 4``, column ``j // 4``) is stored
        in row ``j % 4``, column ``(j // 4 + k * row) % 4`` (that is ``src^k(j)``). Returns
        ``(lane, address)``: ``lane`` an int, or for 64 bits a 1-bit column-parity Value (the
        lane is then ``2 * row + parity``).
        """
        nbytes = self.datapath_width // 8
        if nbytes == 1:
            row, col = n[0:2], n[2:4]
            pcol = (col + self._times_mod4(k, row))[0:2]
            return 0, Cat(row, pcol)
        row, x = q % 4, q // 4
        col = Cat(Const(x, 1), n) if nbytes == 8 else n
        pcol = (col + self._times_mod4(k, row))[0:2]
        if nbytes == 4:
            return row, pcol
        return pcol[0], pcol[1]

    # --- Elaboration ------------------------------------------------------------------------
    #
    # elaborate() builds the core in the order a step flows through it (module documentation,
    # "Implementation notes"). The sub-builders share the sequencer's registers, their delayed
    # copies and the block handshake registers through one namespace, ``ctl``; each adds what
    # the later ones read.

    def elaborate(self, platform):
        m = Module()
        ctl = self._build_control_pipeline(m)
        self._build_key_schedule(m, ctl)
        self._build_sequencer(m, ctl)
        self._build_block_control(m, ctl)
        mems, read_data, write_route = self._build_state_memory(m, ctl)
        ark = self._build_round_datapath(m, ctl, read_data)
        self._build_write_back(m, ctl, mems, write_route, ark)
        if self.port_width == 128:
            return m
        # Byte ports: the result byte leaves straight from the write-back stage, so a result
        # byte not taken holds the whole core (module notes, "Byte-wide ports").
        top = Module()
        top.submodules.core = EnableInserter(~ctl.stall)(m)
        return top

    def _build_control_pipeline(self, m):
        """The sequencer's registers and their copies delayed stage by stage.

        The sequencer issues every cycle of a block at (``rnd``, ``step``) with ``issue`` high;
        ``wait`` counts the cycles it waits before a round-step. Nothing after the issue stage
        ever stalls, so the control of every later stage is the issue control delayed by the
        stage depth: stage ``k`` holds the (valid, round, step) issued ``k`` cycles ago. Stage
        ``L`` (S-box latency) is the S-box output stage (``sv``, ``sr``, ``ss``), stage ``D``
        the write-back stage (``wv``, ``wr``, ``ws``); ``drained`` is high when no step is in
        flight. Returns the namespace ``ctl`` with these.
        """
        steps = self.steps_per_round
        latency = self.sbox_latency
        delay = self._timing["delay"]
        gap = self._timing["gap"]

        rnd = Signal(range(_ROUNDS + 1))
        step = Signal(range(steps))
        wait = Signal(range(gap + 1))
        issue = Signal()

        # Stage k holds the (valid, round, step) that issued k cycles ago.
        stages = [(issue, rnd, step)]
        for k in range(1, delay + 1):
            v = Signal(name=f"s{k}_valid")
            r = Signal.like(rnd, name=f"s{k}_round")
            s = Signal.like(step, name=f"s{k}_step")
            pv, pr, ps = stages[-1]
            m.d.sync += [v.eq(pv), r.eq(pr), s.eq(ps)]
            stages.append((v, r, s))
        sv, sr, ss = stages[latency]          # S-box outputs / block bytes stage
        wv, wr, ws = stages[delay]            # write-back stage
        drained = Const(1, 1)
        for v, _, _ in stages[1:]:
            drained = drained & ~v
        return SimpleNamespace(rnd=rnd, step=step, wait=wait, issue=issue, sv=sv, sr=sr, ss=ss,
                               wv=wv, wr=wr, ws=ws, drained=drained, stall=Signal())

    def _build_key_schedule(self, m, ctl):
        """The on-the-fly key schedule (000 section II.D, Fig. 7 and Fig. 10) and its S-boxes.

        A :class:`KeyExpander` of ``key_width`` bits with narrow S-box ports; the S-boxes are
        this core's (named ``key_sbox<n>``: :attr:`resources` counts them apart from the
        datapath's). Adds to ``ctl``: ``kx`` (the expander), ``key_bytes`` (the round-key bytes
        of the write-back stage's step), ``group_end`` (that step uses the last bytes of the
        expander's group, so the next group is taken with it) and ``kx_at_start`` (the walk is
        at round key 0).
        """
        if self.port_width == 8:
            self._build_byte_key_schedule(m, ctl)
            return
        nbytes = self.datapath_width // 8
        ws = ctl.ws
        kw = self.key_width
        m.submodules.key_schedule = kx = KeyExpander(kw, sbox=None, sbox_latency=self.sbox_latency)
        for n in range(kx.sbox_count):
            sb = make_sbox(self.sbox, stages=self.sbox_stages, device_family=self.device_family)
            m.submodules[f"key_sbox{n}"] = sb
            hi = 8 * (kx.sbox_count - n)
            m.d.comb += [sb.i.eq(kx.sbox_i[hi - 8:hi]), kx.sbox_o[hi - 8:hi].eq(sb.o)]
        # Round-key bytes of the write stage. A group of the schedule covers kw / width steps.
        group_steps = kw // self.datapath_width
        if group_steps == 1:
            key_bytes = value_bytes(kx.round_key, nbytes)
            group_end = Const(1, 1)
        else:
            key_bytes = [kx.round_key.word_select(~ws[0:2], 8)]
            group_end = ws[0:2] == group_steps - 1
        kx_at_start = kx.round == 0
        if kx.parts > 1:
            kx_at_start = kx_at_start & (kx.part == 0)
        ctl.kx, ctl.key_bytes, ctl.group_end, ctl.kx_at_start = \
            kx, key_bytes, group_end, kx_at_start

    def _build_byte_key_schedule(self, m, ctl):
        """The key schedule of the byte-port core: a :class:`ByteKeySchedule` fed by the key
        stream, with one S-box of this core (``key_sbox0``).

        It steps with every write-back, cycles through round keys 0..10 and refills itself
        with the cipher key during round 10, so it needs no restart between blocks (module
        notes, "Byte-wide ports"). Adds to ``ctl`` what :meth:`_build_key_schedule` adds.
        """
        if self.key_sbox == "shared":
            # The datapath's S-box serves the lookups too (_build_round_datapath).
            m.submodules.key_schedule = kx = ByteKeySchedule(prefetch=True)
        else:
            m.submodules.key_schedule = kx = ByteKeySchedule()
            m.submodules.key_sbox0 = sb = make_sbox(self.sbox, stages=self.sbox_stages,
                                                    device_family=self.device_family)
            m.d.comb += [sb.i.eq(kx.sbox_i), kx.sbox_o.eq(sb.o)]
        ctl.kx, ctl.key_bytes, ctl.group_end = kx, [kx.round_key], Const(1, 1)
        ctl.kx_at_start = (kx.round == 0) & (kx.index == 0)

    def _build_sequencer(self, m, ctl):
        """The issue stage: when the sequencer issues a step and how it advances.

        Within a round-step it issues every cycle; before each round-step it waits ``gap``
        cycles (:func:`schedule`). A block waits for the outside at two points only: before its
        load step (round 0, step 0) and before its last round (round 10, step 0), see
        :meth:`_issue_conditions`. In CTR mode the keystream block is computed ahead of its
        plaintext (000 section II.B, Fig. 4), and a key or IV transfer that arrives while the
        block waits before its last round aborts it. Also creates the registers of the block
        handshakes that those conditions read (added to ``ctl``; updated by
        :meth:`_build_block_control` and :meth:`_build_write_back`).
        """
        steps = self.steps_per_round
        gap = self._timing["gap"]
        rnd, step, wait, issue = ctl.rnd, ctl.step, ctl.wait, ctl.issue

        out_data = Signal(128)
        out_valid = Signal()
        restart_pending = Signal()   # round 10 fully issued, its last write not yet done
        walk_ready = Signal()        # the key walk has been valid at round key 0 since the last
                                     # key load or discarded block
        counter = Signal(128)
        counter_loaded = Signal()
        ctl.out_data, ctl.out_valid, ctl.restart_pending, ctl.walk_ready = \
            out_data, out_valid, restart_pending, walk_ready
        ctl.counter, ctl.counter_loaded = counter, counter_loaded
        ctl.at_start = at_start = (rnd == 0) & (step == 0)
        start_ok, final_ok, abort = self._issue_conditions(ctl)

        with m.If(wait != 0):
            m.d.comb += issue.eq(0)
        with m.Elif(at_start):
            m.d.comb += issue.eq(start_ok)
        with m.Elif((rnd == _ROUNDS) & (step == 0)):
            m.d.comb += issue.eq(final_ok)
        with m.Elif((rnd == 0) & (self.port_width == 8)):
            m.d.comb += issue.eq(self.i.valid)      # each load step waits for its block byte
        with m.Else():
            m.d.comb += issue.eq(1)

        if gap:
            with m.If(wait != 0):
                m.d.sync += wait.eq(wait - 1)
        with m.If(issue):
            with m.If(step == steps - 1):
                m.d.sync += [step.eq(0), rnd.eq(Mux(rnd == _ROUNDS, 0, rnd + 1))]
                if gap:
                    m.d.sync += wait.eq(gap)
            with m.Else():
                m.d.sync += step.eq(step + 1)
        with m.If(abort):
            m.d.sync += [rnd.eq(0), step.eq(0)]
        ctl.abort = abort

    def _issue_conditions(self, ctl):
        """The conditions under which a block passes its two waiting points.

        Returns ``(start_ok, final_ok, abort)``: the load step may issue (ECB: a block is
        offered; CTR: a counter block is loaded) and the key walk is ready; the last round may
        issue (the output register is free; CTR: the plaintext is offered); and in CTR mode, the
        block waiting before its last round is discarded (a key or IV transfer is offered). Adds
        ``ctl.iv_pending`` (CTR: an IV transfer is offered).
        """
        rnd, step, wait = ctl.rnd, ctl.step, ctl.wait
        ctr = self.mode == "ctr"
        # The walk must be at round key 0: presented (valid) after a key load or a restart from
        # idle, or about to be restarted by the block finishing now (then the round-step gap
        # lets its S-box settle before the first write).
        key_ok = ctl.walk_ready | ctl.restart_pending
        out_free = ~ctl.out_valid | self.o.ready
        iv_pending = (self.i.valid & self.i.payload.iv) if ctr else Const(0, 1)
        pt_pending = (self.i.valid & ~self.i.payload.iv) if ctr else Const(0, 1)
        if ctr:
            start_ok = ctl.counter_loaded & ~self.key.valid & ~iv_pending & key_ok
            final_ok = out_free & pt_pending & ~self.key.valid
            abort = (rnd == _ROUNDS) & (step == 0) & (wait == 0) & (self.key.valid | iv_pending)
        elif self.port_width == 8:
            # The key schedule steps with the blocks and refills itself, so it is at round
            # key 0 whenever no key is half loaded; the result needs no free register.
            key_ok = ctl.kx_at_start | ctl.restart_pending
            start_ok = self.i.valid & ~self.key.valid & key_ok
            final_ok = Const(1, 1)
            abort = Const(0, 1)
        else:
            start_ok = self.i.valid & ~self.key.valid & key_ok
            final_ok = out_free
            abort = Const(0, 1)
        ctl.iv_pending = iv_pending
        return start_ok, final_ok, abort

    def _build_block_control(self, m, ctl):
        """Block boundaries: the key and block input handshakes and the key walk's restarts.

        The key is taken only while the core is idle; the expander keeps it and restarts its
        walk from it for every block (module notes, "Key schedule"). In ECB mode the block
        input transfer completes when the load step has taken its last bytes; in CTR mode an
        IV transfer loads the counter block while idle and a plaintext transfer completes with
        the last ciphertext byte, when the counter is incremented (SP 800-38A B.1, m = 32).
        """
        steps = self.steps_per_round
        kx = ctl.kx
        wv, wr, ws = ctl.wv, ctl.wr, ctl.ws
        restart_pending, walk_ready = ctl.restart_pending, ctl.walk_ready

        last_issue = ctl.issue & (ctl.rnd == _ROUNDS) & (ctl.step == steps - 1)
        last_write = wv & (wr == _ROUNDS) & (ws == steps - 1)
        with m.If(last_issue):
            m.d.sync += restart_pending.eq(1)
        with m.If(last_write):
            m.d.sync += restart_pending.eq(0)

        idle = ctl.at_start & ~ctl.issue & ctl.drained & ~restart_pending
        key_take = self.key.valid & self.key.ready
        if self.port_width == 8:
            m.d.comb += [
                self.key.ready.eq(idle),
                kx.key.eq(self.key.payload.key),
                kx.load.eq(key_take),
                kx.next.eq(wv),
                self.i.ready.eq(ctl.issue & (ctl.rnd == 0) & ~ctl.stall),
            ]
            return
        with m.If(kx.valid & ctl.kx_at_start):
            m.d.sync += walk_ready.eq(1)
        with m.If(key_take | ctl.abort):
            m.d.sync += walk_ready.eq(0)
        m.d.comb += [
            self.key.ready.eq(idle),
            kx.key.eq(self.key.payload.key),
            kx.load.eq(key_take),
            # Restart the walk from the stored key after the last round key of a block (the
            # next block's load step needs round key 0), and whenever the core is idle with
            # the walk elsewhere (after a discarded CTR block).
            kx.start.eq(last_write | (idle & ~ctl.kx_at_start)),
            kx.next.eq(wv & ctl.group_end),
        ]

        # Block input transfers.
        if self.mode == "ctr":
            iv_take = idle & ctl.iv_pending
            m.d.comb += self.i.ready.eq(last_write | iv_take)
            with m.If(iv_take):
                m.d.sync += [ctl.counter.eq(self.i.payload.data), ctl.counter_loaded.eq(1)]
            with m.If(last_write):
                # SP 800-38A B.1 with m = 32 (RFC 3686): the low 32 bits wrap, the rest stays.
                m.d.sync += ctl.counter[:32].eq(ctl.counter[:32] + 1)
        else:
            m.d.comb += self.i.ready.eq(ctl.sv & (ctl.sr == 0) & (ctl.ss == steps - 1))

    def _build_state_memory(self, m, ctl):
        """The state memory, with ShiftRows done by its addressing (000 section II.E, Fig. 16).

        One memory per lane (module notes: one lane at 8 bits, one per row at 32 bits, one per
        row and column parity at 64 bits); with separate memories each lane has two banks, the
        input and output memories of 000, swapped every round-step. The read side is addressed
        by the issue stage, the write side by the write-back stage.

        Returns ``(mems, read_data, write_route)``: the (read port, write port) of every lane,
        the bytes read for the issued step (position 0 first) and the write stage's
        ``(lane_of, parity)`` route (see :meth:`_route`) for :meth:`_build_write_back`.
        """
        nbytes = self.datapath_width // 8
        shared = self.shared_memory
        rnd, step, wr, ws = ctl.rnd, ctl.step, ctl.wr, ctl.ws
        lanes = nbytes
        lane_depth = 16 // nbytes
        banks = 1 if shared else 2
        mems = []
        for lane in range(lanes):
            mem = memory.Memory(shape=8, depth=lane_depth * banks, init=[])
            m.submodules[f"state{lane}"] = mem
            mems.append((mem.read_port(domain="comb"), mem.write_port()))

        # Read side (issue stage, rounds 1-10): separate memories read the bank the previous
        # round-step wrote with ShiftRows addressing (k = 1); the shared memory reads where the
        # previous round-steps left the bytes (k = r mod 4).
        k_read = rnd[0:2] if shared else Const(1, 2)
        k_write = wr[0:2] if shared else Const(0, 2)
        read_bank = ~rnd[0]
        write_bank = wr[0]

        r_lane, r_addr, r_par = self._route(step, k_read)
        w_lane, w_addr, w_par = self._route(ws, k_write)

        read_data = []
        for q in range(nbytes):
            if r_par is None:
                port = mems[r_lane[q]][0]
                read_data.append(port.data)
            else:
                row = q % 4
                even, odd = mems[2 * row][0], mems[2 * row + 1][0]
                read_data.append(Mux(r_par[q], odd.data, even.data))
        for lane, (rport, wport) in enumerate(mems):
            raddr = self._lane_address(lane, r_lane, r_addr, r_par)
            waddr = self._lane_address(lane, w_lane, w_addr, w_par)
            if not shared:
                raddr = Cat(raddr, read_bank)
                waddr = Cat(waddr, write_bank)
            m.d.comb += [rport.addr.eq(raddr), wport.addr.eq(waddr)]
        return mems, read_data, (w_lane, w_par)

    def _route(self, n, k):
        """Where the positions of step ``n`` live after ``k`` ShiftRows of addressing.

        Returns ``(lane_of, addr, parity)``: per position ``q``, its lane and its address in the
        lane, and ``parity`` None; at 64 bits ``parity`` holds the column parity of each
        position (a 1-bit Value): positions ``q`` and ``q + 4``, of the same row, go to the two
        parity lanes of that row, so the lane of a position is only known in hardware.
        """
        nbytes = self.datapath_width // 8
        pos = [self._slot(n, q, k) for q in range(nbytes)]
        if nbytes != 8:
            return [p[0] for p in pos], [p[1] for p in pos], None
        # 64 bits: positions q and q + 4 (same row) go to the two parity lanes of the row.
        lane_of = [2 * (q % 4) + p for q, (p, _) in enumerate(pos)]
        parity = [p for p, _ in pos]
        return lane_of, [a for _, a in pos], parity

    @staticmethod
    def _lane_address(lane, lane_of, addr, parity):
        """The address of ``lane`` for a route of :meth:`_route`."""
        if parity is None:
            return addr[lane_of.index(lane)]
        row, p = lane // 2, lane % 2
        # Position `row` (column x = 0) or `row + 4` (x = 1), whichever has this parity.
        return Mux(parity[row] == p, addr[row], addr[row + 4])

    def _build_round_datapath(self, m, ctl, read_data):
        """The round datapath: SubBytes, MixColumns and AddRoundKey of one step (000 Table I).

        One S-box per datapath byte reads the state memory; ``L`` cycles later, at the S-box
        output stage, the load step takes the block bytes instead (``block ^ key``), round 10
        skips MixColumns, and the other rounds go through the MixColumns units
        (:meth:`_build_mixcolumns_buffer` at 8 bits, :meth:`_build_mixcolumns` otherwise).
        Returns the AddRoundKey result of the write-back stage, ``width`` bits.
        """
        width = self.datapath_width
        nbytes = width // 8
        src_block = ctl.counter if self.mode == "ctr" else self.i.payload.data
        sub = []
        for q in range(nbytes):
            sb = make_sbox(self.sbox, stages=self.sbox_stages, device_family=self.device_family)
            m.submodules[f"sbox{q}"] = sb
            if self.key_sbox == "shared":
                # The key schedule's lookups fall in the wait before a round-step, when no
                # step reads the S-box (module notes, "One S-box").
                kx = ctl.kx
                m.d.comb += [sb.i.eq(Mux(kx.lookup, kx.sbox_i, read_data[q])),
                             kx.sbox_o.eq(sb.o)]
            else:
                m.d.comb += sb.i.eq(read_data[q])
            sub.append(sb.o)
        # Block bytes of the load step, in natural order, at the S-box output stage (the step
        # count is a power of two, so ~step is the word index counted from the right).
        if self.port_width == 8:
            block_bytes = [self.i.payload.data]     # taken at issue (S-box latency 0)
        else:
            block_bytes = value_bytes(src_block.word_select(~ctl.ss, width), nbytes)

        pre_ark = [Signal(8, name=f"pre_ark{q}") for q in range(nbytes)]
        if nbytes == 1 and self.mixcolumns == "serial":
            buffer_bits = self._build_mixcolumns_serial(m, ctl, sub[0], block_bytes[0],
                                                        pre_ark[0])
        elif nbytes == 1:
            buffer_bits = self._build_mixcolumns_buffer(m, ctl, sub[0], block_bytes[0],
                                                        pre_ark[0])
        else:
            buffer_bits = self._build_mixcolumns(m, ctl, sub, block_bytes, pre_ark)

        ark = Signal(width)
        m.d.comb += ark.eq(bytes_value(pre_ark) ^ bytes_value(ctl.key_bytes))
        self._built = {"buffer_bits": buffer_bits, "addroundkey_width": len(ark)}
        return ark

    def _build_mixcolumns_buffer(self, m, ctl, sub, block_byte, pre_ark):
        """The byte-serial MixColumns buffer of the 8-bit datapath (000 Fig. 14).

        A three-byte shift register (module notes): every byte leaves it exactly three cycles
        after it entered, mixed or not, so the pipeline keeps its fixed depth. Drives
        ``pre_ark`` (the byte before AddRoundKey); returns the buffer's size in bits.
        """
        sr, ss = ctl.sr, ctl.ss
        buf = [Signal(8, name=f"buf{n}") for n in range(3)]
        x = Signal(8)
        m.d.comb += x.eq(Mux(sr == 0, block_byte, sub))
        m.submodules.mix0 = mix = MixColumn()
        m.d.comb += [mix.i[n].eq(buf[n]) for n in range(3)] + [mix.i[3].eq(x)]
        mixing = ctl.sv & (sr != 0) & (sr != _ROUNDS) & (ss[0:2] == 3)
        with m.If(mixing):
            m.d.comb += pre_ark.eq(mix.o[0])
            m.d.sync += [buf[n].eq(mix.o[n + 1]) for n in range(3)]
        with m.Else():
            m.d.comb += pre_ark.eq(buf[0])
            m.d.sync += [buf[0].eq(buf[1]), buf[1].eq(buf[2]), buf[2].eq(x)]
        return 24

    def _build_mixcolumns_serial(self, m, ctl, sub, block_byte, pre_ark):
        """Byte-serial MixColumns, one output byte per cycle (module notes, "Serial MixColumns").

        A six-byte delay line behind the entering byte ``d0``: output byte ``k`` of a column
        leaves three cycles after input byte ``k`` entered, as with the parallel buffer, and is
        ``a_k ^ t ^ xtime(a_k ^ a_(k+1))``: ``a_k`` is ``d3``, ``a_(k+1)`` is ``d2`` (``d6``,
        i.e. ``a_0``, for ``k = 3``), and the column sum ``t`` is formed when ``k = 0`` and held
        for the other three bytes. Drives ``pre_ark``; returns the register bits (delay line and
        held sum).
        """
        sr, wr, ws = ctl.sr, ctl.wr, ctl.ws
        d = [Signal(8, name="mc_in")] + [Signal(8, name=f"mc_d{n}") for n in range(1, 7)]
        m.d.comb += d[0].eq(Mux(sr == 0, block_byte, sub))
        m.d.sync += [d[n].eq(d[n - 1]) for n in range(1, 7)]
        k = ws[0:2]
        held = Signal(8, name="mc_sum")
        total = Signal(8, name="mc_total")
        m.d.comb += total.eq(Mux(k == 0, d[0] ^ d[1] ^ d[2] ^ d[3], held))
        m.d.sync += held.eq(total)
        pair = Signal(8, name="mc_pair")      # a_k ^ a_(k+1)
        m.d.comb += pair.eq(d[3] ^ Mux(k == 3, d[6], d[2]))
        mixed = d[3] ^ total ^ xtime_value(pair)
        m.d.comb += pre_ark.eq(Mux((wr != 0) & (wr != _ROUNDS), mixed, d[3]))
        return 6 * 8 + 8

    def _build_mixcolumns(self, m, ctl, sub, block_bytes, pre_ark):
        """MixColumns units of the 32- and 64-bit datapaths: one per column of the step.

        Drives ``pre_ark`` per byte: the block byte in the load step, the S-box output in round
        10 (no MixColumns), the mixed column otherwise. Returns 0 (no buffer bits).
        """
        nbytes = self.datapath_width // 8
        sr = ctl.sr
        mixed = []
        for c in range(nbytes // 4):
            mix = MixColumn()
            m.submodules[f"mix{c}"] = mix
            m.d.comb += [mix.i[n].eq(sub[4 * c + n]) for n in range(4)]
            mixed += [mix.o[n] for n in range(4)]
        for q in range(nbytes):
            with m.If(sr == 0):
                m.d.comb += pre_ark[q].eq(block_bytes[q])
            with m.Elif(sr == _ROUNDS):
                m.d.comb += pre_ark[q].eq(sub[q])
            with m.Else():
                m.d.comb += pre_ark[q].eq(mixed[q])
        return 0

    def _build_write_back(self, m, ctl, mems, write_route, ark):
        """Write-back of a step: the state memory in round-steps 0-9, the output in round 10.

        Round 10 shifts its bytes into the 128-bit output register (in CTR mode XORed with the
        plaintext, which is held on the input until its transfer completes with the last byte),
        which becomes valid with the last step of the round.
        """
        width = self.datapath_width
        nbytes = width // 8
        steps = self.steps_per_round
        wv, wr, ws = ctl.wv, ctl.wr, ctl.ws
        out_data, out_valid = ctl.out_data, ctl.out_valid
        w_lane, w_par = write_route
        ark_bytes = value_bytes(ark, nbytes)

        # Write-back: the state memory in round-steps 0-9, the output register in round 10.
        we = wv & (wr != _ROUNDS)
        for lane, (_, wport) in enumerate(mems):
            if w_par is None:
                wdata = ark_bytes[w_lane.index(lane)]
            else:
                row, p = lane // 2, lane % 2
                wdata = Mux(w_par[row] == p, ark_bytes[row], ark_bytes[row + 4])
            m.d.comb += [wport.data.eq(wdata), wport.en.eq(we)]

        if self.port_width == 8:
            # Round 10 bytes leave as they are computed; one not taken stalls the core.
            m.d.comb += [self.o.valid.eq(wv & (wr == _ROUNDS)), self.o.payload.data.eq(ark),
                         ctl.stall.eq(self.o.valid & ~self.o.ready)]
            return
        result = ark
        if self.mode == "ctr":
            # The plaintext is held on the input (its transfer completes with the last byte).
            result = ark ^ self.i.payload.data.word_select(~ws, width)
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += out_valid.eq(0)
        with m.If(wv & (wr == _ROUNDS)):
            m.d.sync += out_data.eq(Cat(result, out_data[:128 - width]))
            with m.If(ws == steps - 1):
                m.d.sync += out_valid.eq(1)
        m.d.comb += [self.o.valid.eq(out_valid), self.o.payload.data.eq(out_data)]
