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
before MixColumns; the buffer here is 24 bits (see :mod:`archs.compact.datapath`).

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

Parts
-----
The core is one :class:`amaranth.lib.wiring.Component` built from parts, each in its own module
(mixins of :class:`Compact`, so the netlist has one module with the state memories, S-boxes,
MixColumns units and key schedule as its submodules): the sequencer, its pipeline of delayed
copies and the block handshakes (:mod:`archs.compact.control`, with the pipeline's rules), the
key schedule (:mod:`archs.compact.keypath`), the state memory with ShiftRows done by addressing
(:mod:`archs.compact.state_memory`) and the round datapath with the MixColumns buffer and the
write-back (:mod:`archs.compact.datapath`). They hand each other signals through
:class:`archs.compact.wires.CoreWires`; the schedule they keep is :func:`schedule`
(:mod:`archs.compact.timing`).
"""

from collections import Counter

from amaranth.hdl import EnableInserter, Fragment, Module, Shape
from amaranth.lib import memory, wiring

from ..estream import EStreamAdapter  # the CTR core's eSTREAM interface (see the note below)
from ..interface import AESSignature
from ..params import SBOX_PARAM, SBOX_STAGES_PARAM, Param, bind
from ..prims.mixcolumns import MixColumn
from ..prims.sbox import check_device_family, sbox_latency
from .control import Control
from .datapath import Datapath
from .keypath import KeyPath
from .state_memory import StateMemory
from .timing import KEY_LOOKUP_GAP, schedule

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

# EStreamAdapter lives in archs.estream (it fits any CTR core with an ``iv`` field) and is
# re-exported here as part of this family's interface; the import also keeps archs.estream in
# the compact family's generator fingerprint (aesdse.store.provenance follows the imports of
# archs.compact).


class Compact(Control, KeyPath, StateMemory, Datapath, wiring.Component):
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

    # --- Elaboration ------------------------------------------------------------------------
    #
    # elaborate() builds the core in the order a step flows through it (the pipeline of
    # :mod:`archs.compact.control`). The parts share the sequencer's registers, their delayed
    # copies and the block handshake registers through one CoreWires (archs.compact.wires);
    # each fills in what the later ones read.

    def elaborate(self, platform):
        m = Module()
        wires = self._build_control_pipeline(m)
        self._build_key_schedule(m, wires)
        self._build_sequencer(m, wires)
        self._build_block_control(m, wires)
        mems, read_data, write_route = self._build_state_memory(m, wires)
        ark = self._build_round_datapath(m, wires, read_data)
        self._build_write_back(m, wires, mems, write_route, ark)
        if self.port_width == 128:
            return m
        # Byte ports: the result byte leaves straight from the write-back stage, so a result
        # byte not taken holds the whole core (module notes, "Byte-wide ports").
        top = Module()
        top.submodules.core = EnableInserter(~wires.stall)(m)
        return top
