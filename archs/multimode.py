"""Multi-mode AES (seed 003, Lin & Huang): encryption and decryption, 128/192/256-bit keys chosen
at run time, on-the-fly key generation in both directions, ECB / CBC / CTR / CCM chaining in the
core.

One 128-bit round per clock cycle (``streams=1``), or the two-stage pipeline of 003 section
III.C (``streams=2``, see "Two streams" below). The 16 datapath S-boxes are :class:`SharedSBox` units: one
GF(2^8) inverter of the chosen family between an inverse affine map on the way in (decryption)
and an affine map on the way out (encryption), 003 section III.B, Fig. 8(a); or, with
``affine_retimed``, the retiming of section III.B (Fig. 8(b)): the S-boxes are bare shared
inverters, the affine map is merged into MixColumns (it commutes with ShiftRows), the inverse
affine map is moved out of the round, to the whitening cycle, and merged into InvMixColumns, so
decryption keeps its state in the inverse-affine domain between rounds; the last round applies
the affine map alone (encryption) or nothing (decryption).

Round keys come from a :class:`archs.prims.keyexpander.KeyExpander` (128 bits per step, all three
key sizes, both directions) with four S-boxes of its own: loading a key walks forward once to the
last round key and keeps it (003 section IV: "computed once per key"); a decryption then walks
backwards from it, an encryption forwards from the key.

Block payload
-------------
``data`` (128)
    Plaintext (encryption) or ciphertext (decryption).
``decrypt`` (1)
    Direction of this block; ignored in CTR mode, which uses only the encryption (003 Table I).
``mode`` (:class:`Mode`)
    ECB (default, 0), CBC, CTR or CCM.
``first`` (1)
    The block starts a message: ``iv`` holds the IV (CBC) or initial counter block (CTR); a CCM
    message starts with B0. A following block with ``first`` low continues the chain the core
    keeps.
``iv`` (128)
    Read only with ``first`` (CBC, CTR); CCM takes its counter from B0.
``ccm_phase`` (:class:`CCMPhase`)
    CCM only: what the block is (see "CCM" below).
``pad_bytes`` (4)
    CCM payload blocks only: zero bytes the host padded the last, partial payload block with
    (0 for a whole block).

Result payload
--------------
``data`` (128)
    The block's result: ciphertext or plaintext; for CCM see below.
``auth_fail`` (1)
    CCM decryption, tag block: the received tag is wrong. 0 for every other block. It is the
    OR of 16 per-byte mismatch flags registered with the result (out of the last round's
    cycle; it arrives with the tag block's result, at no extra cycle).

Chaining (SP 800-38A section 6)
-------------------------------
CBC encryption enciphers ``data ^ chain`` and the ciphertext becomes the chain; CBC decryption
deciphers ``data``, XORs the chain into the result, and ``data`` becomes the chain; CTR enciphers
the counter, XORs ``data`` into the result and increments the counter modulo 2^128 (the standard
incrementing function over the whole block, as ``cryptography`` does).

CCM (SP 800-38C)
----------------
"CTR and CCM use only encryption" (003 Table I). The host formats the message (SP 800-38C A.2:
B0, the associated data with its length prefix, zero-padded, the zero-padded payload;
:func:`aesdse.verify.vectors.ccm_format`) and sends it as blocks, all with ``mode`` CCM and one
direction (``decrypt`` 0 to seal, 1 to open); the core chains them. One result comes out per
block, as for the other modes:

1. ``first`` = 1, ``ccm_phase`` HEADER, ``data`` = B0. The core keeps q and t from B0's flags
   byte and forms Ctr0 from B0 itself (flags q - 1, the nonce, a zero counter), so the host
   sends no counter block. Result: the CBC-MAC so far, Y_0 = E(B0).
2. ``ccm_phase`` HEADER, ``data`` = an associated-data block (none if there is no associated
   data). Result: the CBC-MAC so far, Y_i = E(B_i ^ Y_i-1).
3. ``ccm_phase`` PAYLOAD, ``data`` = a plaintext (seal) or ciphertext (open) block, the last one
   zero-padded with ``pad_bytes`` stating how many bytes are padding. The block takes two
   passes through the one datapath: a CTR pass E(Ctr_i) gives the result, data ^ E(Ctr_i) with
   the padding bytes zeroed; then a CBC-MAC pass over the plaintext (seal: the block's data;
   open: the plaintext just recovered, SP 800-38C 6.2 step 9). The result leaves after the CTR
   pass; the next block is taken after the MAC pass.
4. ``ccm_phase`` TAG: one pass, E(Ctr0), computed here rather than at B0 so that no 128-bit
   register holds it through the message. Seal: ``data`` is ignored; the result is the tag
   MSB_t(Y_r ^ E(Ctr0)), left-aligned, the other bytes zero. Open: ``data`` is the received tag,
   left-aligned; the result's ``data`` is 0 (the computed tag is never handed out) and
   ``auth_fail`` is set when the first t bytes differ (SP 800-38C 6.2 step 10: "INVALID").

Opening hands out the plaintext blocks before the tag is checked: the host must hold them back
until the tag block's result and discard them when ``auth_fail`` is set (SP 800-38C 6.2 releases
no plaintext of an invalid message).

The CBC-MAC, the running counter and q, t of a CCM message live in registers of their own, not
in the CBC/CTR chain register, so a CCM message and a CBC, CTR or ECB message may interleave
block by block (one message of each kind at a time).

Cycles: header and tag blocks take Nr + 1 cycles, a payload block 2 (Nr + 1) (22 / 26 / 30
for 128 / 192 / 256-bit keys; tests/test_archs_multimode_ccm.py ``test_ccm_payload_cycles``):
with one stream the two passes of a payload block go one after the other through the one
datapath. With two streams they go side by side (see "CCM pairs" below).

Two streams (003 section III.C)
-------------------------------
With ``streams=2`` each shared S-box has a register after its GF(2^8) inverter
(:class:`SharedSBox` ``inverter_register``: "the datapath is partitioned at the output of the
LUT-based GF inverter"), so a round takes two cycles: stage 1 is the S-box input up to that
register, stage 2 the affine map, (Inv)ShiftRows, (Inv)MixColumns and AddRoundKey. The blocks of
two streams alternate in it: in every cycle one stream's block is in stage 1 and the other's in
stage 2 (a ``slot`` register toggles every cycle; a stream's "turn" is the cycle its block is in
stage 2, and all its register updates and key steps happen in its turns). Each stream has every
register of the one-stream core: state, chain, CCM registers, mode and direction, result
register, and its own :class:`KeyExpander` (with its own four S-boxes; time-sharing one expander
would still need a second walk position and window, most of its size). One stream alone gets a
result every 2 (Nr + 1) cycles (half utilization, what a single CBC message can use, 003: "the
utilization will be 50% for the CBC mode with single data stream"); both streams busy, one every
Nr + 1 cycles between them. A stall of a stream (its result register full) repeats its stage 1
in its next free cycle (stage 1 is a function of the stream's state register), so it costs the
other stream nothing.

The key, block and result payloads carry a ``stream`` field (0 or 1). A key goes to its stream's
expander only: each stream has its own key (003 has one 256-bit initial-key register for both;
loading the same key into both streams is 003's behaviour). Each stream's results leave in its
input order; between the streams, the result completed first leaves first (``o`` shows the older
of two waiting results).

CCM pairs (two streams, 003 sections I and III.C)
-------------------------------------------------
003 "utilizes a cost-efficient two-stage pipeline for the CCM mode by a single datapath": the
CBC-MAC and the CTR flow of one CCM message run interleaved in the two slots. Here: while the
other stream is idle (no block in its rounds or waiting), a CCM message uses the other stream's
slot as well. Each CBC-MAC pass (B0, an associated-data block, a payload block) starts, in the
same turn, a keystream pass E(Ctr_i) for the message's next payload block in the other slot,
kept in ``ccm_ks``. A payload block whose keystream is ready then takes one pass instead of
two: its result (data ^ E(Ctr_i), known at once) leaves at the end of its CBC-MAC pass over the
plaintext, while the next keystream is computed beside it. This works for opening as well as
sealing: opening's CBC-MAC needs the plaintext, data ^ E(Ctr_i), so the keystream of a block is
computed during the previous block (B0 computes Ctr1's), not during the block itself. A payload
block then takes Nr + 1 turns of its stream, 2 (Nr + 1) cycles: 22 / 26 / 30, against
4 (Nr + 1) for its two passes on the stream's turns alone; the datapath is fully used
(``test_ccm_pairs_mixed_then_timing`` in tests/test_archs_multimode_streams.py). One CCM
message reaches what two streams of other modes reach together; 003 claims no more (a payload
block needs two ciphers, Nr rounds each, in a datapath of one round per cycle).

The other stream: a pair starts only when it is idle, and while the pair runs (Nr + 1 turns),
a block sent to it is accepted but waits for its slot (at most one pass); at the start of the
next CBC-MAC pass it is no longer idle, so the CCM message leaves its slot: it goes on with two
passes per payload block on its own turns (4 (Nr + 1) cycles each) and both streams share the
datapath half and half, which is full utilization too. So the other stream never waits more than
one pass, and the datapath idles only when one stream has nothing to do and the other cannot
pair (a non-CCM message, or a CCM CTR pass).

The keystream pass repeats its owner's steps one cycle later (it is in stage 2 in the cycle
after its owner), with the round key and last-round flag its owner had then (``pair_key``,
``pair_last``: 129 flip-flops; the owner's expander has moved on). The counter block is the
message's next one (``ccm_ctr`` advances for it; Ctr1 is Ctr0 with its counter field 1).

Pipelined round, one stream (``pipelined_round``)
-------------------------------------------------
The datapath of "Two streams" (the register after each inverter, a round in two cycles) with one
stream and one key expander: two blocks of the one stream go through the rounds side by side, a
*leader* in slot 0 and a *follower* a cycle behind it in slot 1, when neither block's input is the
other's result (003 section III.C pairs the two flows of one CCM message the same way). A block is
taken as the follower in the leader's whitening cycle if both are ECB, CTR or CBC-decryption
blocks in one direction; a CBC-encryption or CCM block, or a block that arrives later, becomes the
next leader and goes alone. A pair takes ``2 (Nr + 1)`` cycles, so a stream of independent
blocks gets one every ``Nr + 1`` cycles, as the one-stream core; a chained block (CBC encryption)
takes ``2 (Nr + 1)``, a CCM payload block ``4 (Nr + 1)``. Results leave in block order.

What makes the pipelined round fast (issue 22: 003's one-stream core was limited by the round,
then by the CTR counter and the control around the key expander):

* The follower repeats each step of the leader a cycle later with the round key and last-round
  flag the leader had then, so it needs no key walk of its own. Stage 2 takes both from
  registers that copy the expander every cycle (:meth:`Multimode._round_inputs`).
* The two blocks share one state register, written every cycle with a middle round's output (a
  block's stage 2 writes it, its stage 1 reads it in the next cycle), so a pass never waits
  once whitened: it starts only with room for both results in a result queue of four entries
  (the result port is its head), counted in a register. The last round's output goes only to
  the result registers. (Inv)ShiftRows is in stage 1, before the inverters; a block whitened in
  the cycle before enters stage 1 from a register of its own, shifted already.
* The leader's whitening and round steps are decided a cycle ahead into registers, and its
  cipher input (with every mode's chaining) is registered in the cycle before its whitening; the
  follower's is the data or the counter.
* The key expander, stepped every other cycle, has a register after its four S-boxes
  (``sbox_latency`` 1), and its restarts come from registers: a pass's last round restarts the
  walk in the pass's direction, and a block that goes the other way restarts it once more, a
  cycle after it was taken (two cycles more for that block). A key transfer goes to registers
  first, and the expander loads from them a cycle later.
* The block registers load whenever a block could be taken, offered or not (a leader that can
  be followed leaves them to the next block at its whitening; its last round reads what the
  pass is from registers of its own).
* The CTR counter is incremented in four 32-bit segments with registered carry flags, and CCM's
  counter has an incrementer of its own; the CCM byte masks (payload padding, tag length) are
  registers, and an opened tag is compared in the cycle after the last round, so that result
  leaves a cycle later.

Implementation notes
--------------------
A block takes ``Nr + 1`` cycles: a whitening cycle (the first round key is only presented by the
expander the cycle after it is told the direction, with ``start``), then ``Nr`` rounds. The next
block is accepted in the cycle of the last round, so blocks go back to back. The whitening cycle
is also where the chaining input is formed, from the chain register that the previous block's
last round wrote: no combinational path from one block's result into the next block's input.
With two streams every one of these cycles is one of the stream's turns, two clock cycles apart.
Decryption uses the straight inverse cipher with its steps reordered inside a round (InvSubBytes
and InvShiftRows commute), so the S-box sits at the same place in both directions:
``state' = InvMixColumns(InvShiftRows(InvSubBytes(state)) ^ rk)``.
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import enum, wiring
from amaranth.lib.fifo import SyncFIFO

from .interface import AESSignature, bytes_value, value_bytes
from .params import Param, bind
from .prims import gf
from .prims.keyexpander import KeyExpander
from .prims.keyschedule import ROUNDS
from .prims.mixcolumns import (affine_mix_column_value, inv_affine_inv_mix_column_value,
                               inv_mix_column_value, mix_column_value)
from .prims.sbox import SharedSBox, make_sbox
from .prims.shiftrows import inv_shift_rows, shift_rows

__all__ = ["Mode", "CCMPhase", "Multimode", "SBOXES", "STREAMS", "KEY_SIZES"]

#: Inverter families the core accepts (combinational ones: one round per cycle).
SBOXES = ("lut", "composite", "tower")

#: Stream counts: 1, one round per cycle; 2, the two-stage pipeline of 003 section III.C.
STREAMS = (1, 2)

#: Entries of the pipelined round's result queue.
RESULT_QUEUE_DEPTH = 4

#: Carry-chain segments of the pipelined round's CTR incrementer (32 bits each).
COUNTER_SEGMENTS = 4

#: Key sizes a core takes at run time: ``"all"``, 128/192/256 (003's core), or 128 only.
KEY_SIZES = {"all": (128, 192, 256), 128: (128,)}


class Mode(enum.Enum, shape=2):
    """Block cipher mode of a block (003 Table I); ECB is 0 so that a payload without a mode is
    a plain block."""
    ECB = 0
    CBC = 1
    CTR = 2
    CCM = 3


class CCMPhase(enum.Enum, shape=2):
    """What a CCM block is (see "CCM" in the module documentation)."""
    HEADER = 0      # B0 (with ``first``) or associated data: CBC-MAC only
    PAYLOAD = 1     # CTR and CBC-MAC
    TAG = 2         # the tag: computed (encryption) or checked (decryption)


class Multimode(wiring.Component):
    """Multi-mode AES core (see the module documentation for the protocol).

    Parameters
    ----------
    sbox : str
        GF(2^8) inverter family of the shared S-boxes: ``lut`` (003's choice), ``composite`` or
        ``tower``; also the family of the key expander's four S-boxes.
    key_bits : int
        Not a hardware parameter: a build takes every key size of ``key_sizes`` at run time. It
        is the key size of the back-to-back stream the verify stage measures cycles per block
        with (``Nr + 1``), so that an experiment can report the throughput of each key size
        (003 Table II prints one per key size); the netlists of the three values are identical.
    key_sizes : str or int
        ``"all"``: 128-, 192- and 256-bit keys at run time (003 section IV: the key expander's
        3-in-1 schedule, a key-size field in the key payload); ``128``: AES-128 only, as many
        deployed cores are. The expander then has no key-size decode, which is the deepest
        logic of its step for three key sizes.
    streams : int
        1: one round per cycle (the netlist of the core before this parameter existed); 2: the
        two-stage datapath of 003 section III.C with two interleaved streams (module
        documentation, "Two streams").
    affine_retimed : bool
        False: :class:`SharedSBox` units with their affine maps (003 Fig. 8(a)); True: the
        retiming of 003 section III.B (Fig. 8(b), module documentation).
    pipelined_round : bool
        One stream only. True: the register after the inverters of "Two streams", with pairs of
        independent blocks of the one stream in flight (module documentation, "Pipelined
        round, one stream").
    device_family : str
        Device family of the netlist.

    Members
    -------
    key, i, o
        :class:`archs.interface.AESSignature` with key sizes 128/192/256, the block fields
        ``decrypt``, ``mode``, ``first``, ``iv``, ``ccm_phase``, ``pad_bytes`` and the result
        field ``auth_fail``; with two streams also ``stream`` in the key, block and result
        payloads.

    Attributes
    ----------
    modes : tuple of str
        Modes the core chains: ``("ecb", "cbc", "ctr", "ccm")``.
    measure_key_bits : int
        ``key_bits``, read by :mod:`aesdse.verify.verify`.
    blocks_in_flight : int
        ``streams`` (2 with ``pipelined_round``), read by :mod:`aesdse.verify.verify`.

    Raises
    ------
    ValueError
        If ``sbox`` is not one of :data:`SBOXES`, ``key_bits`` not 128, 192 or 256 or not one
        of ``key_sizes``, ``key_sizes`` not ``"all"`` or 128, ``streams`` not 1 or 2,
        ``affine_retimed`` or ``pipelined_round`` not a bool, or ``pipelined_round`` with two
        streams.
    """

    modes = ("ecb", "cbc", "ctr", "ccm")

    #: The design-space parameters (:mod:`archs.params`); the registry adds ``fifo_depth``
    #: of the :class:`archs.buffered.Buffered` wrapper after ``streams``.
    PARAMS = (
        Param("sbox", SBOXES, "lut",
              "GF(2^8) inverter family of the shared enc/dec S-boxes (003 section III.B)",
              error=f"S-box family must be one of {', '.join(SBOXES)}"),
        Param("key_bits", tuple(ROUNDS), 128,
              "key size of the measured stream (the core takes all three at run time; "
              "the netlist does not depend on it)",
              error="Key bits must be 128, 192 or 256"),
        Param("streams", STREAMS, 1,
              "1: one round per cycle; 2: register after the inverter (003 section III.C), "
              "two streams interleaved, each at half rate, full utilization together",
              omitted_at_default=True, error="Streams must be 1 or 2"),
        Param("affine_retimed", (False, True), False,
              "True: bare shared inverters, the affine map merged with MixColumns and the "
              "inverse affine map with InvMixColumns (003 section III.B, Fig. 8(b))",
              omitted_at_default=True, error="Affine retimed must be False or True"),
        Param("key_sizes", tuple(KEY_SIZES), "all",
              "key sizes taken at run time: all (128/192/256, 003's 3-in-1 key expander) or "
              "128 only (no key-size decode in the expander)",
              omitted_at_default=True, error="Key sizes must be 'all' or 128"),
        Param("pipelined_round", (False, True), False,
              "True (one stream only): the register after the inverter (003 section III.C) "
              "with two blocks of the one stream in flight, a block and the next one when "
              "neither depends on the other's result (ECB, CTR, CBC decryption)",
              omitted_at_default=True, error="Pipelined round must be False or True"),
    )

    @classmethod
    def check(cls, *, device_family="generic", **params):
        """Raise ``ValueError`` for parameters the core cannot be built with."""
        cls._bound(params)

    @classmethod
    def _bound(cls, params):
        """The parameters bound to their names, checked alone and together."""
        p = bind(cls.PARAMS, params, cls.__name__)
        if p.pipelined_round and p.streams != 1:
            raise ValueError("Pipelined round is for one stream: two streams already have the "
                             "register after the inverter")
        if p.key_bits not in KEY_SIZES[p.key_sizes]:
            raise ValueError(f"Key bits must be one of the core's key sizes "
                             f"({', '.join(map(str, KEY_SIZES[p.key_sizes]))}), "
                             f"not {p.key_bits}")
        return p

    def __init__(self, *, device_family="generic", **params):
        p = self._bound(params)
        sbox, key_bits, streams = p.sbox, p.key_bits, p.streams
        self.key_sizes = KEY_SIZES[p.key_sizes]
        affine_retimed = p.affine_retimed
        self.affine_retimed = affine_retimed
        self.sbox = sbox
        self.measure_key_bits = key_bits
        self.streams = streams
        self.pipelined_round = p.pipelined_round
        # A pipelined round keeps two blocks of the one stream in flight (a pair).
        self.blocks_in_flight = 2 if self.pipelined_round else streams
        self.device_family = device_family
        stream_field = {"stream": 1} if streams > 1 else {}
        super().__init__(AESSignature(
            key_sizes=self.key_sizes,
            block_fields={"decrypt": 1, "mode": Mode, "first": 1, "iv": 128,
                          "ccm_phase": CCMPhase, "pad_bytes": 4, **stream_field},
            result_fields={"auth_fail": 1, **stream_field},
            key_fields=stream_field, modes=self.modes, measure_key_bits=key_bits,
            blocks_in_flight=self.blocks_in_flight))

    def cycles_per_block(self, key_bits, *, ccm_payload=False, streams_busy=None,
                         chained=False):
        """Cycles between results streamed back to back: whitening plus one per round. Two
        streams: a round takes two cycles, so one stream alone gets a result every
        ``2 (Nr + 1)`` cycles (half utilization) and both streams busy (``streams_busy=2``, the
        default) one every ``Nr + 1`` cycles between them.

        ``ccm_payload``: cycles between the payload results of one CCM message, whose blocks
        each take a CTR and a CBC-MAC pass. One stream: ``2 (Nr + 1)``, the passes one after
        the other. Two streams, the other one idle (``streams_busy=1``): also ``2 (Nr + 1)``,
        the passes side by side in both slots (CCM pairs, full utilization); the other stream
        busy: ``4 (Nr + 1)``, the passes one after the other in the message's own turns.

        Pipelined round: a pair of blocks every ``2 (Nr + 1)`` cycles, so ``Nr + 1`` per block;
        a block that cannot pair (``chained``: CBC encryption, whose input is the previous
        result) takes ``2 (Nr + 1)`` alone, a CCM payload block's two passes ``4 (Nr + 1)``."""
        passes = ROUNDS[key_bits] + 1
        if self.pipelined_round:
            return 4 * passes if ccm_payload else 2 * passes if chained else passes
        busy = self.streams if streams_busy is None else streams_busy
        if ccm_payload:
            return 2 * passes * (self.streams if busy > 1 else 1)
        return passes * self.streams // busy

    def elaborate(self, platform):
        m = Module()
        slot = None
        if self.streams > 1 or self.pipelined_round:
            # The stream (pipelined round: the leader 0 or follower 1 of a pair) whose block is
            # in stage 2 this cycle (its "turn"); the other one's block is in stage 1. The two
            # alternate every cycle (003 section III.C).
            slot = Signal(name="slot")
            m.d.sync += slot.eq(~slot)
        lanes = [self._stream_registers(m, n, slot) for n in range(self.streams)]
        pair = self._pair_registers(m, lanes) if self.streams > 1 else None
        follower = self._follower_registers() if self.pipelined_round else None
        round_out = self._build_round(m, lanes, slot, pair, follower)
        for reg in lanes:
            reg.chain_in, reg.cipher_in, reg.counter = self._build_chaining_input(m, reg)
        select = Signal(name="result_stream") if self.streams > 1 else None
        for n, reg in enumerate(lanes):
            self._lane_events(m, reg, n, select, follower)
        self._build_handshakes(m, lanes, select, follower)
        for reg in lanes:
            self._build_key_control(m, reg.keys, reg, reg.accept, reg.round_step,
                                    reg.mac_start, follower)
            if follower is not None:
                self._build_tag_check(m, reg)
            self._build_block_registers(m, reg.keys, reg, reg.accept, reg.round_step, round_out,
                                        reg.chain_in, reg.cipher_in, reg.counter, follower)
        if follower is not None:
            self._build_follower(m, lanes[0], follower, follower.final_out)
        if pair is not None:
            self._build_ccm_pair(m, lanes, pair, round_out)
        return m

    def _lane_events(self, m, reg, n, select, follower):
        """The events of stream ``n``'s block, as attributes of ``reg``: its whitening, a round
        step, the last round (``finishing``), the end of the block (``block_done``), the restart
        for a CCM payload block's CBC-MAC pass (``mac_start``), a block taken (``accept``)."""
        keys = reg.keys
        # A CCM payload block's CTR pass is followed by its CBC-MAC pass, unless its
        # keystream was computed ahead (two streams, "CCM pairs").
        ccm_payload = (reg.mode == Mode.CCM) & (reg.ccm_phase == CCMPhase.PAYLOAD)
        if follower is not None:
            # The block registers may hold the next block already (_build_pair_handshakes).
            ccm_payload = follower.pass_ccm & (reg.ccm_phase == CCMPhase.PAYLOAD)
        reg.two_pass = ccm_payload & ~reg.mac_pass & ~reg.ks_used
        if follower is None:
            drain = self.o.ready if select is None else self.o.ready & (select == n)
            # Whitening waits while the stream's slot is lent to the other stream's CCM pair.
            reg.whitening = self._on_turn(reg, reg.whiten & keys.valid & ~reg.lent)
            reg.round_step = (self._on_turn(reg, reg.busy & keys.valid)
                              & (~keys.last | ~reg.out_valid | drain))
            reg.accept = self.i.valid & self.i.ready
            if select is not None:
                reg.accept = reg.accept & (self.i.payload.stream == n)
        else:
            self._pair_events(m, reg, follower)
        reg.finishing = reg.round_step & keys.last
        if follower is None:
            reg.block_done = reg.finishing & ~reg.two_pass
            reg.mac_start = reg.finishing & reg.two_pass
        reg.result_written = reg.finishing & ~(ccm_payload & reg.mac_pass)

    def _pair_events(self, m, reg, follower):
        """Pipelined round: the leader's events (:meth:`_lane_events`) decided a cycle ahead,
        in the follower's turn, into registers.

        The pair's two blocks share the state register, written every cycle, so a pass never
        waits once whitened: the key group is valid in every turn of the leader (the expander
        settles in one cycle), and the pass starts only with room for both results in the
        result queue (:meth:`_build_pair_handshakes`) and with the key walk restarted for it
        (:meth:`_registered_restart`). A block waiting in the follower's turn has been taken a
        cycle ago at least, so its cipher input is registered by the leader's turn; ``busy``
        changes only in the leader's turns. The end of a block and the CBC-MAC restart lead to
        the key expander's restart (its window's clock enable); the key group's last-round flag
        does not change in the follower's turns of a pass, nor does ``two_pass`` (a follower's
        block, taken in the leader's whitening, is never CCM, nor is its leader)."""
        keys = reg.keys
        follower.whiten_turn = Signal(name="leader_whiten_turn")
        step_turn = Signal(name="leader_step_turn")
        m.d.sync += [follower.whiten_turn.eq(~reg.turn & reg.whiten & follower.walk_ready),
                     step_turn.eq(~reg.turn & reg.busy)]
        reg.whitening = follower.whiten_turn & follower.room
        reg.round_step = step_turn
        last_turn = ~reg.turn & reg.busy & keys.last
        reg.block_done = Signal(name="leader_done_turn")
        reg.mac_start = Signal(name="leader_mac_turn")
        m.d.sync += [reg.block_done.eq(last_turn & ~reg.two_pass),
                     reg.mac_start.eq(last_turn & reg.two_pass)]
        reg.accept = self.i.valid & follower.leader_ready
        follower.accept = self.i.valid & follower.ready

    def _on_turn(self, reg, condition):
        """``condition``, in the stream's turn only (two streams: stage 2 holds its block)."""
        return condition if reg.turn is None else condition & reg.turn

    def _stream_registers(self, m, n, slot):
        """The key expander and the registers of stream ``n``, in a namespace (with one stream
        the names of the single-stream core, so its netlist is unchanged)."""
        prefix = "" if self.streams == 1 else f"s{n}_"
        # Registered control: the expander's `last` comes from a register, so the loop from it
        # through the block handshake (a block is accepted in the previous one's last round)
        # into the expander's window enable has no key-size decode (issue 22).
        if self.pipelined_round:
            # The leader takes a round key every other cycle, so the key step may take two: a
            # register after the expander's S-boxes (latency 1) halves its path.
            keys = KeyExpander(
                128, key_sizes=self.key_sizes, directions=("forward", "reverse"), sbox=None,
                sbox_latency=1, device_family=self.device_family, registered_control=True)
            for k in range(keys.sbox_count):
                sb = make_sbox(self.sbox, device_family=self.device_family)
                m.submodules[f"key_sbox{k}"] = sb
                m.d.comb += sb.i.eq(keys.sbox_i[8 * k:8 * k + 8])
                m.d.sync += keys.sbox_o[8 * k:8 * k + 8].eq(sb.o)
        else:
            keys = KeyExpander(
                128, key_sizes=self.key_sizes, directions=("forward", "reverse"),
                sbox=self.sbox, device_family=self.device_family, registered_control=True)
        m.submodules["keys" if self.streams == 1 else f"keys{n}"] = keys

        def reg(name, shape=1):
            return Signal(shape, name=prefix + name)
        turn = None
        if slot is not None:
            turn = reg("turn")
            m.d.comb += turn.eq(slot == n)
        return SimpleNamespace(
            keys=keys, turn=turn, index=n,
            # Block registers: taken at accept, used in the whitening cycle.
            data_in=reg("data_in", 128), iv=reg("iv", 128), first=reg("first"),
            mode=reg("mode", Mode),
            decrypt=reg("decrypt"),             # direction of the cipher (CTR: encryption)
            # Running registers.
            state=reg("state", 128),
            chain=reg("chain", 128),            # CBC: previous ciphertext; CTR: next counter
            post=reg("post", 128),              # XORed into the result (CBC dec: chain; CTR: data)
            key_pending=reg("key_pending"),     # a key load walks to the last round key
            whiten=reg("whiten"),               # the block's next turn is the whitening cycle
            busy=reg("busy"),                   # a block is in the rounds
            out_data=reg("out_data", 128), out_valid=reg("out_valid"),
            # CCM opening, tag block: which of the tag's bytes differ from the received ones
            # (0 for every other result); the result's auth_fail is their OR.
            out_tag_mismatch=reg("out_tag_mismatch", 16),
            # CCM: block registers, then the message's running registers (kept apart from
            # `chain`, so that a CCM message and a CBC/CTR message may interleave).
            ccm_phase=reg("ccm_phase", CCMPhase), pad_bytes=reg("pad_bytes", 4),
            ccm_decrypt=reg("ccm_decrypt"),     # direction of the CCM message
            mac_pass=reg("mac_pass"),           # a CCM payload block is in its CBC-MAC pass
            mac=reg("mac", 128),                # CBC-MAC so far (SP 800-38C 6.1 step 4: Y_i)
            ccm_ctr=reg("ccm_ctr", 128),        # next counter block Ctr_i
            ccm_q1=reg("ccm_q1", 3),            # q - 1, from B0's flags
            ccm_t2=reg("ccm_t2", 3),            # (t - 2) / 2, from B0's flags
            # Two streams, CCM pairs: the keystream E(Ctr_i) of the next payload block,
            # computed ahead in the other stream's slot.
            **({"ccm_ks": reg("ccm_ks", 128),
                "ks_valid": reg("ks_valid"),    # ccm_ks holds the next payload block's keystream
                "ks_used": reg("ks_used"),      # this payload block uses it: one pass
                "lent": reg("lent")}            # this stream's slot runs the other's CCM pair
               if self.streams > 1 else
               {"ccm_ks": None, "ks_valid": Const(0), "ks_used": Const(0), "lent": Const(0),
                "pair_start": Const(0)}))

    def _follower_registers(self):
        """Pipelined round: the registers of a pair's follower (module documentation,
        "Pipelined round") and the pair's control. The follower shares the block registers,
        the chain and the key expander with the leader (stream 0's registers)."""
        def reg(name, shape=1):
            return Signal(shape, name="follower_" + name)
        return SimpleNamespace(
            post=reg("post", 128),
            whiten=reg("whiten"),               # accepted: the next cycle is its whitening
            busy=reg("busy"),                   # in the rounds
            out_data=reg("out_data", 128), out_valid=reg("out_valid"),
            # The leader's round key, last-round flag and step of the cycle before.
            key=reg("key", 128), last=reg("last"), step=reg("step"),
            ready=reg("ready"),                 # the offered block can follow the leader
            leader_ready=Signal(name="leader_ready"),
            decrypt=Signal(name="pair_decrypt"),    # direction of the pair in the rounds
            # The leader's cipher input, registered in the cycle before its whitening.
            cipher=Signal(128, name="leader_cipher_in"),
            whiten_turn=None,                   # the leader may whiten now (elaborate)
            room=Signal(name="results_room", init=1),   # _build_pair_handshakes
            final_out=None,                     # the last round's output (_build_round)
            # A whitened state, (Inv)ShiftRows applied, and "stage 1 reads it now".
            white=Signal(128, name="whitened_state"), from_white=Signal(name="stage1_whitened"),
            walk_ready=Signal(name="key_walk_ready"),   # _registered_restart
            may_take=Signal(name="block_registers_load"),
            # What the pass of the leader is, for its last round.
            pass_ccm=Signal(name="pass_ccm"), pass_cbc_encrypt=Signal(name="pass_cbc_encrypt"))

    def _pair_registers(self, m, lanes):
        """The CCM pair (two streams): which stream's keystream pass runs in the other
        stream's slot, and the round key, last-round flag and step of the owner's previous
        turn, which the pass repeats one cycle later (module documentation, "CCM pairs")."""
        pair = SimpleNamespace(
            active=Signal(name="pair_active"), owner=Signal(name="pair_owner"),
            key=Signal(128, name="pair_key"), last=Signal(name="pair_last"),
            step=Signal(name="pair_step"))
        for n, reg in enumerate(lanes):
            reg.pair_start = Signal(name=f"s{n}_pair_start")
            m.d.comb += reg.lent.eq(pair.active & (pair.owner != n))
        return pair

    def _round_inputs(self, m, lanes, slot, pair, follower=None):
        """What the round datapath works on: the state entering the S-boxes and its direction
        (stage 1), the direction, round key and last-round flag of the block in stage 2. One
        stream: all of the one block. Two streams: stage 1 holds the block of the stream whose
        turn is next, stage 2 the block whose turn it is; a slot lent to a CCM pair enciphers
        with the key and last-round flag its owner had the cycle before."""
        if slot is None:
            (reg,) = lanes
            return reg.state, reg.decrypt, reg.decrypt, reg.keys.round_key, reg.keys.last
        if follower is not None:
            # Pipelined round: the leader's turn is slot 0; the follower repeats the leader's
            # step a cycle later, with the round key and last-round flag the leader had then.
            # The two blocks share the state register: a block's stage 2 writes it and the same
            # block's stage 1 reads it in the next cycle (the other block is then in stage 2).
            # Stage 2 takes the key group and last-round flag from registers that copy the
            # expander's every cycle. That is what the follower needs (the leader's of the
            # cycle before), and also what the leader needs: the expander steps only in the
            # leader's turns, and a whitening waits a cycle after a restart of the walk
            # (`walk_ready`, _registered_restart), so in every turn of the leader in which it
            # whitens or steps the copy equals the expander's group.
            (reg,) = lanes
            m.d.sync += [follower.key.eq(reg.keys.round_key), follower.last.eq(reg.keys.last)]
            return reg.state, follower.decrypt, follower.decrypt, follower.key, follower.last
        state, sbox_decrypt = Signal(128, name="stage1_state"), Signal(name="stage1_decrypt")
        decrypt, rk, last = (Signal(name="stage2_decrypt"), Signal(128, name="stage2_key"),
                             Signal(name="stage2_last"))
        first, second = lanes
        own_key = Mux(slot, second.keys.round_key, first.keys.round_key)
        own_last = Mux(slot, second.keys.last, first.keys.last)
        stage2_lent = pair.active & (pair.owner != slot)
        m.d.comb += [
            state.eq(Mux(slot, first.state, second.state)),
            sbox_decrypt.eq(Mux(slot, first.decrypt, second.decrypt)
                            & ~(pair.active & (pair.owner == slot))),
            decrypt.eq(Mux(slot, second.decrypt, first.decrypt) & ~stage2_lent),
            rk.eq(Mux(stage2_lent, pair.key, own_key)),
            last.eq(Mux(stage2_lent, pair.last, own_last)),
        ]
        m.d.sync += [pair.key.eq(own_key), pair.last.eq(own_last)]
        return state, sbox_decrypt, decrypt, rk, last

    def _build_round(self, m, lanes, slot, pair, follower=None):
        """One round: shared S-boxes, (Inv)ShiftRows, then MixColumns before or InvMixColumns
        after AddRoundKey; the last round has neither. Two streams: a register after the
        inverters (003 section III.C) splits it into two stages, each holding one stream's
        block. Returns the round's (stage 2's) output."""
        state, sbox_decrypt, decrypt, rk, last = self._round_inputs(m, lanes, slot, pair,
                                                                    follower)
        sub = []
        if follower is not None:
            # (Inv)ShiftRows before the S-boxes (it commutes with the bytewise S-box), so that
            # stage 2 starts at the inverter register with the bytes in place. A block whitened
            # in the cycle before starts from the whitening's own register, shifted already
            # (_build_block_registers), so that stage 2 writes the state without a multiplexer.
            shifted_in = Signal(128, name="stage1_shifted")
            m.d.comb += shifted_in.eq(Mux(follower.from_white, follower.white,
                                          _shifted_rows(value_bytes(state), sbox_decrypt)))
            state = shifted_in
        for n, byte in enumerate(value_bytes(state)):
            sb = SharedSBox(self.sbox, inverter_register=slot is not None,
                            affine=not self.affine_retimed, device_family=self.device_family)
            m.submodules[f"sbox{n}"] = sb
            m.d.comb += [sb.i.eq(byte), sb.decrypt.eq(sbox_decrypt)]
            sub.append(sb.o)
        shifted = Signal(128)
        if follower is not None:
            m.d.comb += shifted.eq(bytes_value(sub))
        else:
            m.d.comb += shifted.eq(_shifted_rows(sub, decrypt))
        added = Signal(128)
        m.d.comb += added.eq(shifted ^ rk)
        round_out = Signal(128)
        dec_mix = (inv_affine_inv_mix_column_value if self.affine_retimed
                   else inv_mix_column_value)
        decrypted = _columns(added, dec_mix)
        if follower is not None:
            # Pipelined round: the state takes the output of a middle round (it is not read
            # after the last one), the result registers that of the last round, each without
            # the other's multiplexer.
            encrypted = (_columns(shifted, affine_mix_column_value) if self.affine_retimed
                         else _columns(shifted, mix_column_value)) ^ rk
            final = (Mux(decrypt, shifted, _bytewise(shifted, gf.affine)) if self.affine_retimed
                     else shifted) ^ rk
            follower.final_out = Signal(128, name="last_round_out")
            m.d.comb += [round_out.eq(Mux(decrypt, decrypted, encrypted)),
                         follower.final_out.eq(final)]
            return round_out
        if self.affine_retimed:
            # 003 section III.B, Fig. 8(b): the S-boxes are bare inverters. Encryption: the
            # affine map commutes with ShiftRows and merges with MixColumns; decryption keeps
            # the state in the inverse-affine domain (the inverse affine map moved out of the
            # round, to the whitening cycle) and merges it with InvMixColumns. The last round
            # has no MixColumns: the affine map alone (encryption), nothing (decryption).
            with m.If(last):
                m.d.comb += round_out.eq(Mux(decrypt, shifted, _bytewise(shifted, gf.affine))
                                         ^ rk)
            with m.Elif(decrypt):
                m.d.comb += round_out.eq(decrypted)
            with m.Else():
                m.d.comb += round_out.eq(_columns(shifted, affine_mix_column_value) ^ rk)
            return round_out
        with m.If(last):
            m.d.comb += round_out.eq(added)
        with m.Elif(decrypt):
            m.d.comb += round_out.eq(decrypted)
        with m.Else():
            m.d.comb += round_out.eq(_columns(shifted, mix_column_value) ^ rk)
        return round_out

    def _build_chaining_input(self, m, reg):
        """The chaining input of the whitening cycle (SP 800-38A section 6, SP 800-38C 6.1).
        Returns the chain value this block uses (IV or kept chain), the block the cipher starts
        from, and the counter block the one incrementer steps (CTR's chain, CCM's counter)."""
        chain_in = Mux(reg.first, reg.iv, reg.chain)
        cipher_in = Signal(128)
        counter = Signal(128)
        m.d.comb += counter.eq(chain_in)
        with m.Switch(reg.mode):
            with m.Case(Mode.CBC):
                m.d.comb += cipher_in.eq(Mux(reg.decrypt, reg.data_in, reg.data_in ^ chain_in))
            with m.Case(Mode.CTR):
                m.d.comb += cipher_in.eq(chain_in)
            with m.Case(Mode.CCM):
                self._build_ccm_input(m, reg, cipher_in, counter)
            with m.Default():
                m.d.comb += cipher_in.eq(reg.data_in)
        return chain_in, cipher_in, counter

    def _build_ccm_input(self, m, reg, cipher_in, counter):
        """A CCM block's cipher input: B0 or an associated-data block XOR the CBC-MAC (none
        for B0); a payload block's counter (CTR pass), then its plaintext XOR the CBC-MAC (MAC
        pass: the block's own data when encrypting, the plaintext the CTR pass recovered when
        decrypting, SP 800-38C 6.2 step 9); the tag block's Ctr0. ``counter`` is the counter
        block B0 starts (Ctr0, taken from B0 itself) or the running one."""
        with m.Switch(reg.ccm_phase):
            with m.Case(CCMPhase.HEADER):
                m.d.comb += cipher_in.eq(reg.data_in ^ Mux(reg.first, 0, reg.mac))
            with m.Case(CCMPhase.PAYLOAD):
                if reg.ccm_ks is None:
                    plaintext = Mux(reg.ccm_decrypt, reg.out_data,
                                    _first_bytes(reg.data_in, 16 - reg.pad_bytes))
                else:
                    opened = Mux(reg.mac_pass, reg.out_data, reg.data_in ^ reg.ccm_ks)
                    plaintext = _first_bytes(Mux(reg.ccm_decrypt, opened, reg.data_in),
                                             16 - reg.pad_bytes)
                m.d.comb += cipher_in.eq(Mux(reg.mac_pass | reg.ks_valid, reg.mac ^ plaintext,
                                             reg.ccm_ctr))
            with m.Default():
                m.d.comb += cipher_in.eq(_ccm_counter0(reg.ccm_ctr, reg.ccm_q1))
        # Ctr1 is Ctr0 with its counter field (zero) set to 1.
        m.d.comb += counter.eq(Mux(reg.first,
                                   _ccm_counter0(reg.data_in, reg.data_in[120:123]) | 1,
                                   reg.ccm_ctr))

    def _build_handshakes(self, m, lanes, select, follower=None):
        """Key, block and result streams. A pending key write takes priority over a new block
        (of its stream), so the order of key and block transfers is the order the user issued
        them in."""
        if follower is not None:
            self._build_pair_handshakes(m, lanes[0], follower)
            return
        if select is None:
            (reg,) = lanes
            m.d.comb += [
                self.key.ready.eq(~reg.busy & ~reg.whiten),
                self.i.ready.eq((~(reg.busy | reg.whiten) | reg.block_done) & ~reg.key_pending
                                & ~self.key.valid),
                self.o.valid.eq(reg.out_valid),
                self.o.payload.data.eq(reg.out_data),
                self.o.payload.auth_fail.eq(reg.out_tag_mismatch.any()),
            ]
            with m.If(self.o.valid & self.o.ready):
                m.d.sync += reg.out_valid.eq(0)
            return
        # Two streams: the key and the block go to the stream their `stream` field names; the
        # result port hands out the older of the two waiting results.
        key_for, block_for = self.key.payload.stream, self.i.payload.stream
        key_ready = [~reg.busy & ~reg.whiten for reg in lanes]
        block_ready = [(~(reg.busy | reg.whiten) | reg.block_done) & ~reg.key_pending
                       & ~(self.key.valid & (key_for == n)) for n, reg in enumerate(lanes)]
        older = Signal(name="older_result")
        first, second = lanes
        m.d.comb += [
            self.key.ready.eq(Mux(key_for, key_ready[1], key_ready[0])),
            self.i.ready.eq(Mux(block_for, block_ready[1], block_ready[0])),
            select.eq(Mux(first.out_valid & second.out_valid, older, second.out_valid)),
            self.o.valid.eq(first.out_valid | second.out_valid),
            self.o.payload.data.eq(Mux(select, second.out_data, first.out_data)),
            self.o.payload.auth_fail.eq(Mux(select, second.out_tag_mismatch.any(),
                                            first.out_tag_mismatch.any())),
            self.o.payload.stream.eq(select),
        ]
        taken = [self.o.valid & self.o.ready & (select == n) for n in range(2)]
        for n, reg in enumerate(lanes):
            with m.If(taken[n]):
                m.d.sync += reg.out_valid.eq(0)
            # A result written while the other stream's still waits is the younger one.
            with m.If(reg.result_written):
                m.d.sync += older.eq(Mux(lanes[1 - n].out_valid & ~taken[1 - n], 1 - n, n))

    def _build_pair_handshakes(self, m, reg, follower):
        """Pipelined round: a block is taken as a leader when the core is free (as with one
        stream), or as the follower of the leader whitening now, when neither depends on the
        other's result (both ECB, CTR or CBC decryption) and both go the same direction.

        Results: the leader's and the follower's result registers (written in the last
        rounds, a cycle apart) are moved into a first-in first-out queue in the next cycle, and
        the result port is the queue's head. A pass whitens only with room in the queue for
        its results (``follower.room``, a register): the queue's entries plus the results of
        the passes under way, counted from each whitening (a CBC-MAC pass has none) to the
        result's transfer, leave two entries free."""
        def independent(mode, decrypt):
            return (mode == Mode.ECB) | (mode == Mode.CTR) | ((mode == Mode.CBC) & decrypt)
        p = self.i.payload
        may_lead = (~(reg.busy | reg.whiten) | reg.block_done) & ~reg.key_pending
        may_follow = reg.whitening & independent(reg.mode, reg.decrypt)
        m.d.comb += [
            # The follower ends a cycle after the leader, with its key group in a register.
            self.key.ready.eq(~reg.busy & ~reg.whiten),
            follower.leader_ready.eq(may_lead & ~self.key.valid),
            follower.ready.eq(may_follow & independent(p.mode, p.decrypt)
                              & (self._block_decrypt() == reg.decrypt) & ~self.key.valid),
            self.i.ready.eq(follower.leader_ready | follower.ready),
            # The block registers load whenever a block could be taken, offered or not (the
            # flags `whiten` say whether one was): then nothing of the handshake's payload
            # decode reaches their clock enable.
            follower.may_take.eq(may_lead | may_follow),
        ]
        results = m.submodules.results = SyncFIFO(width=129, depth=RESULT_QUEUE_DEPTH)
        m.d.comb += [
            results.w_en.eq(reg.out_valid | follower.out_valid),
            results.w_data.eq(Mux(reg.out_valid, Cat(reg.out_data, reg.out_tag_mismatch.any()),
                                  Cat(follower.out_data, 0))),
            self.o.valid.eq(results.r_rdy),
            self.o.payload.data.eq(results.r_data[:128]),
            self.o.payload.auth_fail.eq(results.r_data[128]),
            results.r_en.eq(self.o.ready),
        ]
        # The result registers hold a result for one cycle (the writes below win).
        m.d.sync += [reg.out_valid.eq(0), follower.out_valid.eq(0)]
        entries = Signal(range(RESULT_QUEUE_DEPTH + 1), name="results_claimed")
        claimed = (entries + (reg.whitening & ~reg.mac_pass) + follower.whiten
                   - (self.o.valid & self.o.ready))
        m.d.sync += [entries.eq(claimed), follower.room.eq(claimed <= RESULT_QUEUE_DEPTH - 2)]

    def _build_key_control(self, m, keys, reg, accept, round_step, mac_start, follower=None):
        """Key expander: a load walks to the last round key (reverse=1 keeps it), each block
        restarts the walk in its direction, a CCM payload block's MAC pass forwards."""
        load = self.key.valid & self.key.ready
        if self.streams > 1:
            load = load & (self.key.payload.stream == reg.index)
        key, key_bits, taken = self.key.payload.key, None, load
        if len(self.key_sizes) > 1:
            key_bits = self.key.payload.key_bits
        if follower is not None:
            # Pipelined round: the key transfer goes to registers, and the expander loads from
            # them a cycle later, so that the handshake does not reach its clock enables.
            load = Signal(name="key_load")
            key = Signal(len(self.key.payload.key), name="key_in")
            m.d.sync += [load.eq(taken), key.eq(self.key.payload.key)]
            if key_bits is not None:
                key_bits = Signal(len(self.key.payload.key_bits), name="key_bits_in")
                m.d.sync += key_bits.eq(self.key.payload.key_bits)
            start, reverse = self._registered_restart(m, keys, reg, follower, accept, load)
        else:
            start, reverse = accept | mac_start, ~mac_start & self._block_decrypt()
        if key_bits is not None:
            m.d.comb += keys.key_bits.eq(key_bits)
        m.d.comb += [
            keys.key.eq(key),
            keys.load.eq(load),
            keys.start.eq(start),
            keys.reverse.eq(Mux(load, 1, reverse)),
            keys.next.eq(reg.whitening | round_step),
        ]
        loaded = reg.key_pending & keys.valid
        if follower is not None:
            loaded = loaded & ~load     # the walk's `valid` of the old key, before the load
        with m.If(taken):
            m.d.sync += reg.key_pending.eq(1)
        with m.Elif(loaded):
            m.d.sync += reg.key_pending.eq(0)

    def _registered_restart(self, m, keys, reg, follower, accept, load):
        """Pipelined round: the key walk restarts from registers (``start``, ``reverse``),
        decided a cycle ahead, so that no block handshake reaches the expander's window. A
        pass's last round restarts the walk in the pass's direction (a CCM payload block's
        CTR pass: forwards, for its MAC pass); a block taken then or later that goes the
        other way restarts it once more, a cycle after it is taken. The walk is ready for the
        waiting block (``walk_ready``) when it was restarted (or loaded, which ends reverse)
        in the block's direction a cycle ago at least and has not stepped since."""
        start, reverse = Signal(name="key_restart"), Signal(name="key_restart_reverse")
        fresh, walk_reverse = Signal(name="key_walk_fresh"), Signal(name="key_walk_reverse")
        last_turn = ~reg.turn & reg.busy & keys.last        # the pass ends in the next cycle
        mac_next = last_turn & reg.two_pass
        block_reverse = self._block_decrypt()
        fresh_after = start | fresh
        reverse_after = Mux(start, reverse, walk_reverse)
        again = accept & ~(fresh_after & (reverse_after == block_reverse))
        m.d.sync += [start.eq(last_turn | again),
                     reverse.eq(Mux(again, block_reverse, ~mac_next & follower.decrypt))]
        with m.If(load):
            m.d.sync += [fresh.eq(1), walk_reverse.eq(1)]
        with m.Elif(start):
            m.d.sync += [fresh.eq(1), walk_reverse.eq(reverse)]
        with m.Elif(reg.whitening):
            m.d.sync += fresh.eq(0)
        m.d.comb += follower.walk_ready.eq(fresh & (walk_reverse == reg.decrypt) & ~start)
        return start, reverse

    def _block_decrypt(self):
        """Direction of the offered block's cipher: CTR and CCM always encipher (003 Table
        I)."""
        mode = self.i.payload.mode
        return self.i.payload.decrypt & (mode != Mode.CTR) & (mode != Mode.CCM)

    def _build_block_registers(self, m, keys, reg, accept, round_step, round_out, chain_in,
                               cipher_in, counter, follower=None):
        """Accept a block, whiten it and form the chaining registers, step the rounds and
        write the result (and the CBC encryption chain) in the last round. Pipelined round:
        the block registers also take a follower, which whitens in the next cycle, with the
        round key the leader had (:meth:`_build_follower`)."""
        rk, whitening = keys.round_key, reg.whitening
        counter_next = ccm_counter_next = counter + 1
        chain_ones = None
        if follower is not None:
            counter_next, ccm_counter_next, chain_ones = self._pair_counters(m, reg, chain_in)
            # The leader whitens its registered cipher input, the follower (ECB, CTR or CBC
            # decryption) its data or counter, each with the round key of stage 2 (the
            # leader's whitening is in its turn, the follower's in the next cycle).
            m.d.sync += follower.cipher.eq(cipher_in)
            cipher_in = Mux(follower.whiten, Mux(reg.mode == Mode.CTR, chain_in, reg.data_in),
                            follower.cipher)
            rk, whitening = follower.key, reg.whitening | follower.whiten
        entering = cipher_in ^ rk
        if self.affine_retimed:
            # Decryption's state is kept in the inverse-affine domain (003 section III.B).
            entering = Mux(reg.decrypt, _bytewise(entering, gf.inv_affine), entering)
        with m.If(whitening):
            self._build_whitening(m, reg, follower, entering, chain_in, counter, counter_next,
                                  ccm_counter_next, chain_ones)
        if follower is None:
            with m.If(round_step & ~keys.last):
                m.d.sync += reg.state.eq(round_out)
        else:
            # In a turn where the leader may whiten, its slot holds no block in the rounds,
            # so stage 1 may take `entering` even when the whitening waits for room.
            # Stage 1 reads `follower.white` in the cycle after a whitening (_build_round).
            m.d.sync += [reg.state.eq(round_out),
                         follower.white.eq(_shifted_rows(value_bytes(entering), reg.decrypt)),
                         follower.from_white.eq(follower.whiten_turn | follower.whiten)]
            round_out = follower.final_out      # the last round's output (_build_round)
        ccm_pass, cbc_encrypt = reg.mode == Mode.CCM, (reg.mode == Mode.CBC) & ~reg.decrypt
        if follower is not None:
            # A leader that can be followed leaves its block registers to the next block
            # at its whitening: the last round reads its kind from registers of the pass.
            ccm_pass, cbc_encrypt = follower.pass_ccm, follower.pass_cbc_encrypt
        with m.If(round_step & keys.last):
            m.d.sync += reg.busy.eq(0)
            with m.If(ccm_pass):
                self._build_ccm_result(m, reg, round_out)
            with m.Else():
                m.d.sync += [reg.out_data.eq(round_out ^ reg.post), reg.out_valid.eq(1),
                             reg.out_tag_mismatch.eq(0)]
            with m.If(cbc_encrypt):
                m.d.sync += reg.chain.eq(round_out)

        taken = accept if follower is None else follower.may_take
        with m.If(taken):
            p = self.i.payload
            m.d.sync += [reg.data_in.eq(p.data), reg.iv.eq(p.iv), reg.first.eq(p.first),
                         reg.mode.eq(p.mode), reg.decrypt.eq(self._block_decrypt()),
                         reg.ccm_phase.eq(p.ccm_phase), reg.pad_bytes.eq(p.pad_bytes),
                         reg.ccm_decrypt.eq(p.decrypt)]
            if follower is None:
                m.d.sync += reg.whiten.eq(1)
            else:
                m.d.sync += reg.iv_ones.eq(_low_ones_flags(p.iv))
        if follower is not None:
            with m.If(accept):
                m.d.sync += reg.whiten.eq(1)
            m.d.sync += follower.whiten.eq(follower.accept)

    def _pair_counters(self, m, reg, chain_in):
        """Pipelined round: the incrementers of the whitening, ``(CTR's next counter, CCM's
        next counter, the chain's carry flags)``.

        An incrementer each for CTR (the IV or the chain) and CCM (the running counter: a
        payload block never starts a message), so that neither has the other's input selection,
        nor CCM's counter-block formatting from B0, before its carry chain. The CTR one is four
        32-bit carry chains side by side: segment k adds a registered flag, "the bits below
        segment k are all ones", of the IV (written with it) or of the chain (recomputed from
        the register a cycle after it changed, which is soon enough but for a CTR follower: its
        leader's whitening writes the flags with the chain, decoded from the leader's counter,
        in :meth:`_build_whitening`; no other whitening is followed at once by one that
        counts)."""
        reg.iv_ones = Signal(COUNTER_SEGMENTS - 1, name="iv_low_ones")
        chain_ones = Signal(COUNTER_SEGMENTS - 1, name="chain_low_ones")
        m.d.sync += chain_ones.eq(_low_ones_flags(reg.chain))
        carries = Cat(1, Mux(reg.first, reg.iv_ones, chain_ones))
        counter_next = Cat(*[(chain_in[32 * k:32 * k + 32] + carries[k])[:32]
                             for k in range(COUNTER_SEGMENTS)])
        return counter_next, reg.ccm_ctr + 1, chain_ones

    def _build_whitening(self, m, reg, follower, entering, chain_in, counter, counter_next,
                         ccm_counter_next, chain_ones):
        """The whitening cycle's register updates (inside its condition): the state (one
        stream), the XOR-in of the result (``post``), the chain and CCM's registers."""
        post = reg.post
        if follower is not None:
            with m.If(follower.whiten):
                m.d.sync += [follower.whiten.eq(0), follower.busy.eq(1)]
            with m.Else():
                m.d.sync += [reg.whiten.eq(0), reg.busy.eq(1),
                             follower.decrypt.eq(reg.decrypt),
                             follower.pass_ccm.eq(reg.mode == Mode.CCM),
                             follower.pass_cbc_encrypt.eq((reg.mode == Mode.CBC)
                                                          & ~reg.decrypt)]
            post = Signal(128, name="whitening_post")
            with m.If(follower.whiten):
                m.d.sync += follower.post.eq(post)
            with m.Else():
                m.d.sync += reg.post.eq(post)
            m.d.comb += post.eq(0)
            post_domain = m.d.comb
        else:
            m.d.sync += [reg.state.eq(entering), reg.whiten.eq(0), reg.busy.eq(1)]
            post_domain = m.d.sync
        with m.Switch(reg.mode):
            with m.Case(Mode.CBC):
                post_domain += post.eq(Mux(reg.decrypt, chain_in, 0))
                with m.If(reg.decrypt):
                    m.d.sync += reg.chain.eq(reg.data_in)
            with m.Case(Mode.CTR):
                post_domain += post.eq(reg.data_in)
                m.d.sync += reg.chain.eq(counter_next)
                if follower is not None:
                    m.d.sync += chain_ones.eq(_low_ones_flags(chain_in, after_increment=True))
            with m.Case(Mode.CCM):
                self._build_ccm_whitening(m, reg, counter, ccm_counter_next)
            with m.Default():
                post_domain += post.eq(0)

    def _build_follower(self, m, reg, follower, round_out):
        """Pipelined round: the follower steps a cycle after each step of the leader (``reg``),
        with the round key and last-round flag the leader had (:meth:`_round_inputs`), and
        writes its result a cycle after the leader's (the pass whitened with room for both in
        the result queue)."""
        m.d.sync += follower.step.eq(reg.round_step)
        with m.If(follower.step & follower.busy & follower.last):
            m.d.sync += [follower.out_data.eq(round_out ^ follower.post),
                         follower.out_valid.eq(1), follower.busy.eq(0)]

    def _build_ccm_whitening(self, m, reg, counter, counter_next):
        """The CCM registers a pass sets up: B0 keeps q and t from its flags (SP 800-38C A.2.1)
        and starts the counter at Ctr1; a CTR pass takes the next counter and XORs the block's
        data into its result; the tag block XORs the CBC-MAC into E(Ctr0)."""
        payload = reg.ccm_phase == CCMPhase.PAYLOAD
        with m.If(reg.first & (reg.ccm_phase == CCMPhase.HEADER)):
            m.d.sync += [reg.ccm_q1.eq(reg.data_in[120:123]), reg.ccm_t2.eq(reg.data_in[123:126])]
        ctr_pass = payload & ~reg.mac_pass & ~reg.ks_valid
        with m.If(ctr_pass | reg.pair_start):
            m.d.sync += reg.ccm_ctr.eq(counter_next)
        with m.Elif(reg.first):
            m.d.sync += reg.ccm_ctr.eq(counter)
        post = Mux(ctr_pass, reg.data_in, Mux(reg.ccm_phase == CCMPhase.TAG, reg.mac, 0))
        if reg.ccm_ks is not None:
            # The keystream computed ahead: the block's result is known now, and its one pass
            # is the CBC-MAC.
            with_ks = payload & reg.ks_valid
            post = Mux(with_ks, _first_bytes(reg.data_in ^ reg.ccm_ks, 16 - reg.pad_bytes), post)
            m.d.sync += reg.ks_used.eq(with_ks)
            with m.If(reg.first | with_ks):
                m.d.sync += reg.ks_valid.eq(0)
        m.d.sync += reg.post.eq(post)

    def _build_ccm_result(self, m, reg, round_out):
        """The last round of a CCM pass. Header block: the CBC-MAC, also handed out. Payload
        block, CTR pass: the ciphertext or plaintext (zero past the message) is handed out and
        the MAC pass starts (restart of the key walk in :meth:`_build_key_control`); MAC pass:
        the CBC-MAC, nothing handed out (the block's one result left after the CTR pass). Tag
        block: the tag (encryption) or 0 and ``auth_fail`` (decryption: the received tag in
        ``data`` differs from the computed one in its first t bytes, SP 800-38C 6.2 step 10).
        The tag is compared byte by byte into ``out_tag_mismatch`` (one flag per byte, an
        8-bit compare each); the 16 flags are ORed after the register, on the way to the result
        port, so the wide reduction is not in the last round's cycle (it was the core's critical
        path: state -> S-box -> last round -> 128-bit compare -> ``auth_fail``)."""
        result = round_out ^ reg.post
        t = 2 * reg.ccm_t2 + 2
        tag = _first_bytes(result, t)
        payload_result = _first_bytes(result, 16 - reg.pad_bytes)
        if self.pipelined_round:
            tag = _kept_bytes(result, reg.tag_keep)
            payload_result = _kept_bytes(result, reg.pad_keep)
        with m.Switch(reg.ccm_phase):
            with m.Case(CCMPhase.HEADER):
                m.d.sync += [reg.mac.eq(round_out), reg.out_data.eq(round_out),
                             reg.out_valid.eq(1), reg.out_tag_mismatch.eq(0)]
            with m.Case(CCMPhase.PAYLOAD):
                with m.If(reg.mac_pass):
                    m.d.sync += [reg.mac.eq(round_out), reg.mac_pass.eq(0)]
                with m.Elif(reg.ks_used):
                    m.d.sync += [reg.mac.eq(round_out), reg.out_data.eq(reg.post),
                                 reg.out_valid.eq(1), reg.out_tag_mismatch.eq(0)]
                with m.Else():
                    m.d.sync += [reg.out_data.eq(payload_result),
                                 reg.out_valid.eq(1), reg.out_tag_mismatch.eq(0),
                                 reg.mac_pass.eq(1), reg.whiten.eq(1)]
            with m.Default():
                if self.pipelined_round:
                    # Opening: the byte compare follows in the next cycle (_build_tag_check),
                    # and the result with it.
                    m.d.sync += [reg.out_data.eq(Mux(reg.ccm_decrypt, 0, tag)),
                                 reg.out_valid.eq(~reg.ccm_decrypt), reg.out_tag_mismatch.eq(0),
                                 reg.tag_diff.eq(result ^ reg.data_in),
                                 reg.tag_check.eq(reg.ccm_decrypt)]
                else:
                    mismatch = _byte_mismatch(result, reg.data_in, t)
                    m.d.sync += [reg.out_data.eq(Mux(reg.ccm_decrypt, 0, tag)),
                                 reg.out_valid.eq(1),
                                 reg.out_tag_mismatch.eq(Mux(reg.ccm_decrypt, mismatch, 0))]

    def _build_tag_check(self, m, reg):
        """Pipelined round: the registers that take CCM's byte-count decodes and the tag
        compare out of the last round's cycle. ``pad_keep`` and ``tag_keep`` are the byte masks
        of a payload block and of the tag (their counts do not change during a pass);
        ``tag_diff``, the computed tag XOR the received one, is written in the tag block's last
        round when opening, and its per-byte flags in the next cycle, with the result."""
        reg.tag_keep, reg.pad_keep = Signal(16, name="tag_keep"), Signal(16, name="pad_keep")
        reg.tag_diff, reg.tag_check = Signal(128, name="tag_diff"), Signal(name="tag_check")
        t = 2 * reg.ccm_t2 + 2
        m.d.sync += [reg.tag_keep.eq(Cat(*[n < t for n in range(16)])),
                     reg.pad_keep.eq(Cat(*[n < 16 - reg.pad_bytes for n in range(16)]))]
        differs = [byte.any() for byte in value_bytes(reg.tag_diff)]
        with m.If(reg.tag_check):
            m.d.sync += [reg.out_tag_mismatch.eq(Cat(*reversed(
                             [reg.tag_keep[n] & differs[n] for n in range(16)]))),
                         reg.out_valid.eq(1), reg.tag_check.eq(0)]

    def _build_ccm_pair(self, m, lanes, pair, round_out):
        """CCM pairs (two streams, module documentation): a CCM pass that is a CBC-MAC pass
        starts, while the other stream is idle, the keystream pass E(Ctr_i) of the next payload
        block in the other stream's slot (its state register: idle, it holds nothing). The
        pass steps one cycle after each step of its owner, with the owner's round key of that
        step (``pair.key``), and writes the keystream to the owner's ``ccm_ks``."""
        m.d.sync += pair.step.eq(pair.active & (lanes[0].round_step | lanes[1].round_step))
        for n, reg in enumerate(lanes):
            other = lanes[1 - n]
            payload = reg.ccm_phase == CCMPhase.PAYLOAD
            ctr_pass = payload & ~reg.mac_pass & ~reg.ks_valid
            m.d.comb += reg.pair_start.eq(
                reg.whitening & (reg.mode == Mode.CCM) & (reg.ccm_phase != CCMPhase.TAG)
                & ~ctr_pass & (reg.first | ~reg.ks_valid | payload) & ~other.busy & ~other.whiten)
            with m.If(reg.pair_start):
                m.d.sync += [other.state.eq(reg.counter ^ reg.keys.round_key),
                             pair.active.eq(1), pair.owner.eq(n)]
            with m.If(pair.step & (pair.owner == n)):
                with m.If(pair.last):
                    m.d.sync += [reg.ccm_ks.eq(round_out), reg.ks_valid.eq(1), pair.active.eq(0)]
                with m.Else():
                    m.d.sync += other.state.eq(round_out)


def _shifted_rows(state_bytes, decrypt):
    """The state given as 16 bytes (byte 0 first) through InvShiftRows (``decrypt``) or
    ShiftRows, as a 128-bit value."""
    return Mux(decrypt, bytes_value(inv_shift_rows(state_bytes)),
               bytes_value(shift_rows(state_bytes)))


def _columns(value, function):
    """``function`` (on four byte values, row 0 first) applied to each column of ``value``."""
    b = value_bytes(value)
    return bytes_value(x for c in range(4) for x in function(b[4 * c:4 * c + 4]))


def _bytewise(value, function):
    """The GF(2)-affine byte map ``function`` (pure-int) applied to each byte of ``value``."""
    columns, const = gf.affine_parts(function, 8)
    return bytes_value(Cat(*gf.apply_affine([byte[k] for k in range(8)], columns, const))
                       for byte in value_bytes(value))


def _low_ones_flags(value, *, after_increment=False):
    """Pipelined round's CTR incrementer: bit ``k - 1`` is set when the bits of ``value``
    below counter segment ``k`` (32 bits each) are all ones, for ``k`` = 1 .. 3; with
    ``after_increment``, when they are all ones in ``value + 1``, i.e. ``2^(32 k) - 2`` in
    ``value``."""
    return Cat(*[value[:32 * k] == (1 << 32 * k) - 1 - int(after_increment)
                 for k in range(1, COUNTER_SEGMENTS)])


def _kept_bytes(value, keep):
    """``value`` (128 bits) with byte ``n`` kept where bit ``n`` of ``keep`` is set and zero
    elsewhere (byte 0 is the most significant)."""
    return bytes_value(Mux(keep[n], byte, 0) for n, byte in enumerate(value_bytes(value)))


def _first_bytes(value, count):
    """``value`` (128 bits) with its first ``count`` bytes kept and the rest zero (byte 0 is
    the most significant)."""
    return bytes_value(Mux(n < count, byte, 0) for n, byte in enumerate(value_bytes(value)))


def _byte_mismatch(computed, received, count):
    """16 flags, bit ``15 - n`` for byte ``n`` (byte 0 is the most significant): byte ``n`` of
    ``computed`` and ``received`` (128 bits each) differ and ``n < count``."""
    pairs = zip(value_bytes(computed), value_bytes(received))
    return Cat(*reversed([(n < count) & (a != b) for n, (a, b) in enumerate(pairs)]))


def _ccm_counter0(block, q1):
    """Counter block 0 (SP 800-38C A.3) of the message whose B0 or counter block is ``block``:
    flags ``q - 1`` (``q1``), the nonce kept, the last ``q`` bytes (the counter) zero."""
    flags = Cat(q1, Const(0, 5))
    return bytes_value([flags] + [Mux(n < 15 - q1, byte, 0)
                                  for n, byte in enumerate(value_bytes(block)) if n > 0])
