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

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring

from ..interface import AESSignature
from ..params import Param, bind, switch
from ..prims.keyschedule import ROUNDS
from .ccm import CCM
from .modes import CCMPhase, KEY_SIZES, Mode, SBOXES, STREAMS
from .round import Round
from .streams import Streams

__all__ = ["Mode", "CCMPhase", "Multimode", "SBOXES", "STREAMS", "KEY_SIZES"]


class Multimode(Streams, Round, CCM, wiring.Component):
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
        switch("affine_retimed",
               "True: bare shared inverters, the affine map merged with MixColumns and the "
               "inverse affine map with InvMixColumns (003 section III.B, Fig. 8(b))",
               error="Affine retimed must be False or True"),
        Param("key_sizes", tuple(KEY_SIZES), "all",
              "key sizes taken at run time: all (128/192/256, 003's 3-in-1 key expander) or "
              "128 only (no key-size decode in the expander)",
              omitted_at_default=True, error="Key sizes must be 'all' or 128"),
        switch("pipelined_round",
               "True (one stream only): the register after the inverter (003 section III.C) "
               "with two blocks of the one stream in flight, a block and the next one when "
               "neither depends on the other's result (ECB, CTR, CBC decryption)",
               error="Pipelined round must be False or True"),
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
