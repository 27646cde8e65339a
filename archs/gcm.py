"""AES-GCM (NIST SP 800-38D): a cipher core of :mod:`archs` and a GHASH accumulator.

:class:`GCMCore` wraps any cipher core with the common interface (:class:`archs.interface
.AESSignature`: streams ``key``, ``i``, ``o``, encryption only, results in input order) and a
:class:`archs.prims.ghash.GHASHAccumulator`. It uses nothing of the cipher but those three
streams and its ``blocks_in_flight``, so the iterative, unrolled (fully pipelined) and compact
(128-bit port) families fit the same wrapper.

Key
---
The ``key`` stream is the cipher's (its payload layout is passed through). A key is taken only
while no block is in the core (between messages). Loading it enciphers the zero block,
H = CIPH_K(0^128) (SP 800-38D section 7.1 step 1), and loads H into the accumulator, which then
computes the powers H^2..H^n of its aggregation; blocks wait meanwhile.

Block payload
-------------
``data`` (128)
    The IV, AAD, payload or tag bytes, left-aligned, zero-padded by the host.
``phase`` (:class:`GCMPhase`)
    What the block is: IV, AAD, PAYLOAD or TAG. A message is its IV blocks, then its AAD blocks
    (none for empty AAD), then its payload blocks (none for an empty payload), then one TAG block.
``bytes`` (5)
    Valid bytes of the block, 1..16: 16 except on the last block of a phase. On the TAG block: the
    tag length t in bytes (SP 800-38D section 5.2.1.2).
``first`` (1)
    The message's first block (its first IV block): the lengths are counted from it.
``last`` (1)
    The last IV block (read on IV blocks only; the other phases end with the next phase).
``decrypt`` (1)
    Authenticated decryption (read on PAYLOAD and TAG blocks).

Result payload
--------------
One result per block, in input order: ``data`` is 0 for IV and AAD blocks; on a PAYLOAD block
the ciphertext (encryption) or plaintext (decryption), zero past ``bytes``; on the TAG block the
tag MSB_t(CIPH_K(J0) xor S), zero past t (encryption), or 0 (decryption, the computed tag is
never handed out). ``auth_fail`` is set on the TAG block of a decryption whose received tag
(``data``, first t bytes) differs from the computed one (SP 800-38D section 7.2 step 8, FAIL);
0 on every other block.

Plaintext release: decryption hands out each plaintext block as soon as it is deciphered, before
the tag is checked. SP 800-38D section 7.2 returns no plaintext of an inauthentic message: the
host must hold the plaintext back until the TAG result and discard it when ``auth_fail`` is set.

Message steps (SP 800-38D sections 7.1 and 7.2)
-----------------------------------------------
* J0 (step 2): a 96-bit IV (one IV block, ``first``, ``last`` and ``bytes`` = 12) gives
  J0 = IV || 0^31 || 1 without GHASH; any other IV is hashed, J0 = GHASH_H(IV || 0^(s+64) ||
  [len(IV)]_64): its blocks go to the accumulator as a message of their own, closed by the
  length block; payload and TAG blocks wait until J0 is back.
* Payload (step 3): CB_i = inc32^i(J0), result = data xor CIPH_K(CB_i), masked to ``bytes``
  (MSB_u of the last keystream block). inc32 increments the rightmost 32 bits modulo 2^32
  (section 6.2), not the whole block.
* S (step 5): the AAD blocks (masked to ``bytes``), the ciphertext blocks (the result on
  encryption, the input on decryption, masked), and [len(A)]_64 || [len(C)]_64, which the core
  builds from the ``bytes`` it counted, at the TAG block.
* Tag (step 6): CIPH_K(J0) xor S; the TAG block takes CIPH_K(J0) from the cipher.

Structure
---------
An input stage takes a block, sends the cipher its input when it needs one (PAYLOAD: the next
counter block; TAG: J0; the key's zero block) and writes the block into a FIFO (``side``)
that runs beside the cipher, ``blocks_in_flight + 4`` entries. An output stage takes the FIFO's
oldest entry, with the cipher's next result when the entry needed one, feeds the accumulator
(in message order, so blocks of the next message never overtake), counts the lengths, and
writes the result register. IV and AAD blocks do not use the cipher: they pass at up to one per
cycle, as fast as the accumulator takes them. The block port's ``ready`` depends on the offered
block's ``phase`` (an AAD block is taken while the cipher is busy).

Bad input
---------
The core counts len(A) and len(IV) in 61 bits of bytes and len(C) in 36 (SP 800-38D section
5.2.1.1: at most 2^64 - 1 bits of AAD and 2^39 - 256 bits of plaintext); longer messages wrap
those counters and give a wrong tag. An empty IV (a message without IV blocks) is not possible
in this protocol (the first block is an IV block); ``bytes`` below 16 on a block that is not
the last of its phase hashes wrongly. The reference (:mod:`aesdse.verify.gcm_vectors`) refuses
all of these.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, enum, fifo, wiring

from .interface import AESSignature, bytes_value, value_bytes
from .params import Param
from .prims.ghash import (GHASH_AGGREGATION, GHASH_DIGITS, GHASH_KINDS, GHASH_STAGES,
                          KARATSUBA_LEVELS, GHASHAccumulator, SerialGHASHAccumulator,
                          check_choice, serial_accumulation)

__all__ = ["GCMPhase", "GHASH_PARAMS", "GCM_WRAPPERS", "GCM_WRAPPER_PARAM", "SIDE_ENTRY",
           "GCMCore", "check_ghash", "first_bytes", "inc32"]


class GCMPhase(enum.Enum, shape=2):
    """What a block of a GCM message is (module documentation)."""
    IV = 0
    AAD = 1
    PAYLOAD = 2
    TAG = 3


#: The GHASH parameters of a GCM family (issue 24; :mod:`archs.prims.ghash`).
GHASH_PARAMS = (
    Param("ghash", GHASH_KINDS, "parallel", "GF(2^128) multiplier of GHASH (archs.prims.ghash)",
          error=f"GHASH multiplier must be one of {', '.join(GHASH_KINDS)}"),
    Param("ghash_digit", GHASH_DIGITS, 8, "bits of an operand per cycle (digit_serial only)",
          error=f"GHASH digit must be one of {', '.join(map(str, GHASH_DIGITS))}"),
    Param("ghash_stages", GHASH_STAGES, 0,
          "pipeline registers in the multiplier (parallel, karatsuba)",
          error=f"GHASH stages must be one of {', '.join(map(str, GHASH_STAGES))}"),
    Param("ghash_karatsuba_levels", KARATSUBA_LEVELS, 1,
          "Karatsuba-Ofman recursion levels (karatsuba only)",
          error=f"Karatsuba levels must be one of {', '.join(map(str, KARATSUBA_LEVELS))}"),
    Param("ghash_aggregation", GHASH_AGGREGATION, 1,
          "blocks per aggregated GHASH step (precomputed H^1..H^n)",
          error=f"GHASH aggregation must be one of {', '.join(map(str, GHASH_AGGREGATION))}"),
)

#: The wrapper variants (``gcm_wrapper``): ``full`` as first built; ``lean`` the same protocol and
#: results with less logic (:class:`GCMCore`).
GCM_WRAPPERS = ("full", "lean")

#: The wrapper parameter of a GCM family, added after GCM results were stored (so omitted from
#: a design point at its default).
GCM_WRAPPER_PARAM = Param(
    "gcm_wrapper", GCM_WRAPPERS, "full",
    "GCM wrapper: full, or lean (32-bit counter register, one XOR-and-mask path for results "
    "and tag check, serial GHASH accumulator for bit/digit-serial multipliers without "
    "aggregation)", omitted_at_default=True,
    error=f"GCM wrapper must be one of {', '.join(GCM_WRAPPERS)}")

#: An entry of the FIFO beside the cipher: the block's fields, and ``hash_key`` for the zero
#: block whose encryption is H.
SIDE_ENTRY = data.StructLayout({
    "data": 128, "phase": GCMPhase, "bytes": 5, "first": 1, "last": 1, "decrypt": 1,
    "hash_key": 1,
})


def check_ghash(*, ghash="parallel", ghash_digit=8, ghash_stages=0, ghash_karatsuba_levels=1,
                ghash_aggregation=1) -> None:
    """Raise ``ValueError`` for GHASH parameters :class:`archs.prims.ghash.GHASHAccumulator`
    cannot build (the parameters a multiplier kind does not use are not checked), without
    building anything (an Elaboratable never elaborated warns when it is collected)."""
    check_choice("GHASH multiplier", ghash, GHASH_KINDS)
    check_choice("Aggregation", ghash_aggregation, GHASH_AGGREGATION)
    if ghash == "digit_serial":
        check_choice("Digit", ghash_digit, GHASH_DIGITS)
    if ghash in ("parallel", "karatsuba"):
        check_choice("Stages", ghash_stages, GHASH_STAGES)
    if ghash == "karatsuba":
        check_choice("Karatsuba levels", ghash_karatsuba_levels, KARATSUBA_LEVELS)


def first_bytes(value, count):
    """``value`` (128 bits) with its first ``count`` bytes kept and the rest zero (byte 0 is
    the most significant): MSB_count of SP 800-38D section 6.1, zero-padded."""
    return bytes_value(Mux(n < count, byte, 0) for n, byte in enumerate(value_bytes(value)))


def inc32(value):
    """inc_32 (SP 800-38D section 6.2): the rightmost 32 bits plus one modulo 2^32."""
    return Cat((value[:32] + 1)[:32], value[32:])


class GCMCore(wiring.Component):
    """AES-GCM around a cipher core (module documentation for the protocol).

    Parameters
    ----------
    cipher : wiring.Component
        An encryption core with the common interface and no extra block fields (the block and
        result payloads are ``{"data": 128}``).
    ghash_aggregation : int
        Lanes of the :class:`archs.prims.ghash.GHASHAccumulator`.
    gcm_wrapper : str
        ``"full"``, or ``"lean"`` (:data:`GCM_WRAPPERS`): the same protocol and results with
        less logic. The counter register holds only the 32 bits inc32 changes (the rest is
        J0's); J0 is cleared when a key is taken, so the zero block whose encryption is H is
        J0 and needs no multiplexer; the payload result, the tag and the tag check share one
        XOR-and-mask path; and a bit- or digit-serial multiplier without aggregation is the
        :class:`archs.prims.ghash.SerialGHASHAccumulator` (one cycle more per block than a
        multiply, like the lane of the full accumulator).
    **multiplier
        ``ghash``, ``ghash_digit``, ``ghash_stages``, ``ghash_karatsuba_levels``
        (:func:`archs.prims.ghash.make_multiplier`).

    Members
    -------
    key, i, o
        :class:`archs.interface.AESSignature` with the cipher's key sizes, the block fields
        ``phase``, ``bytes``, ``first``, ``last``, ``decrypt`` and the result field
        ``auth_fail``.
    """

    modes = ("gcm",)

    def __init__(self, cipher, *, ghash_aggregation=1, gcm_wrapper="full", **multiplier):
        check_ghash(ghash_aggregation=ghash_aggregation, **multiplier)
        GCM_WRAPPER_PARAM.check(gcm_wrapper)
        sig = cipher.signature
        if sig.port_width != 128 or sig.blocks_per_transfer != 1:
            raise ValueError("GCM needs a cipher core with a 128-bit port, one block per "
                             "transfer")
        if {name for name, _ in cipher.i.payload.shape()} != {"data"}:
            raise ValueError("GCM needs a cipher core without extra block fields")
        self.cipher = cipher
        self.lean = gcm_wrapper == "lean"
        serial_digit = serial_accumulation(ghash_aggregation, **multiplier)
        if self.lean and serial_digit is not None:
            self.ghash = SerialGHASHAccumulator(serial_digit)
        else:
            self.ghash = GHASHAccumulator(ghash_aggregation, **multiplier)
        self.side_depth = sig.blocks_in_flight + 4
        super().__init__(AESSignature(
            key_sizes=sig.key_sizes, blocks_in_flight=sig.blocks_in_flight, modes=self.modes,
            block_fields={"phase": GCMPhase, "bytes": 5, "first": 1, "last": 1, "decrypt": 1},
            result_fields={"auth_fail": 1}))

    def elaborate(self, platform):
        m = Module()
        m.submodules.cipher = cipher = self.cipher
        m.submodules.ghash = self.ghash
        m.submodules.side = side = fifo.SyncFIFO(width=SIDE_ENTRY.size, depth=self.side_depth)
        # The lean wrapper counts in 32 bits: inc32 leaves the rest of J0 as it is.
        self.j0, self.counter, self.j0_valid = (Signal(128), Signal(32 if self.lean else 128),
                                                Signal())
        self.s, self.s_valid, self.hash_is_j0 = Signal(128), Signal(), Signal()
        self.h_pending = Signal()
        m.d.comb += cipher.key.payload.eq(self.key.payload)
        m.d.comb += [
            cipher.key.valid.eq(self.key.valid & (side.level == 0) & ~self.h_pending),
            self.key.ready.eq(cipher.key.ready & (side.level == 0) & ~self.h_pending),
        ]
        with m.If(self.key.valid & self.key.ready):
            m.d.sync += self.h_pending.eq(1)
            if self.lean:
                m.d.sync += self.j0.eq(0)
        self._build_input(m, cipher, side)
        self._build_output(m, cipher, side)
        self._build_hash_capture(m)
        return m

    def _build_input(self, m, cipher, side):
        """Block in: the cipher's input (when the block needs one) and the FIFO entry, in the
        same cycle. The key's zero block goes first (H, section 7.1 step 1)."""
        p = self.i.payload
        entry = Signal(SIDE_ENTRY)
        needs_cipher = (p.phase == GCMPhase.PAYLOAD) | (p.phase == GCMPhase.TAG)
        next_counter = inc32(self.counter)
        m.d.comb += [side.w_data.eq(entry), entry.hash_key.eq(self.h_pending)]
        is_tag = p.phase == GCMPhase.TAG
        if self.lean:
            # J0 is 0 while the key's zero block waits (cleared when the key was taken).
            cipher_data = Cat(Mux(self.h_pending | is_tag, self.j0[:32], next_counter),
                              self.j0[32:])
            zero_block = tag_or_counter = cipher_data
        else:
            zero_block, tag_or_counter = 0, Mux(is_tag, self.j0, next_counter)
        with m.If(self.h_pending):
            m.d.comb += [cipher.i.valid.eq(side.w_rdy), cipher.i.payload.data.eq(zero_block),
                         side.w_en.eq(side.w_rdy & cipher.i.ready)]
            with m.If(side.w_en):
                m.d.sync += self.h_pending.eq(0)
        with m.Else():
            m.d.comb += [
                entry.data.eq(p.data), entry.phase.eq(p.phase), entry.bytes.eq(p.bytes),
                entry.first.eq(p.first), entry.last.eq(p.last), entry.decrypt.eq(p.decrypt),
                cipher.i.valid.eq(self.i.valid & needs_cipher & side.w_rdy & self.j0_valid),
                cipher.i.payload.data.eq(tag_or_counter),
                self.i.ready.eq(side.w_rdy & ~self.key.valid
                                & (~needs_cipher | (cipher.i.ready & self.j0_valid))),
                side.w_en.eq(self.i.valid & self.i.ready),
            ]
        with m.If(self.i.valid & self.i.ready):
            with m.If(p.phase == GCMPhase.PAYLOAD):
                m.d.sync += self.counter.eq(next_counter)
            with m.If((p.phase == GCMPhase.IV) & p.first):
                # Section 7.1 step 2: a 96-bit IV is J0 with a 32-bit counter of 1; any other
                # is hashed, and payload blocks wait for its J0.
                j0 = Cat(Const(1, 32), p.data[32:])
                short = p.last & (p.bytes == 12)
                m.d.sync += [self.j0_valid.eq(short), self.j0.eq(j0), self.counter.eq(j0)]

    def _build_output(self, m, cipher, side):
        """The oldest FIFO entry: the cipher result it needs, the accumulator's block (two for
        the last IV block of a hashed IV and for the TAG block, which close a GHASH message with
        a length block; ``step`` counts them), the lengths, the result register."""
        e = Signal(SIDE_ENTRY)
        m.d.comb += e.eq(side.r_data)
        step = Signal()
        len_a = Signal(61)           # bytes of AAD, or of the IV while it is hashed
        len_c = Signal(36)           # bytes of payload
        out_data, out_fail = Signal(128), Signal()
        out_free = ~self.o.valid | self.o.ready
        keystream = cipher.o.payload.data
        is_iv, is_aad = e.phase == GCMPhase.IV, e.phase == GCMPhase.AAD
        is_payload, is_tag = e.phase == GCMPhase.PAYLOAD, e.phase == GCMPhase.TAG
        short_iv = e.first & e.last & (e.bytes == 12)
        masked = first_bytes(e.data, e.bytes)
        result = Signal(128)
        m.d.comb += result.eq(first_bytes(e.data ^ keystream, e.bytes))
        bits_a, bits_c = Signal(64), Signal(64)
        m.d.comb += [bits_a.eq(len_a << 3), bits_c.eq(len_c << 3)]
        # 0^64 || [len(IV)]_64 (step 2), [len(A)]_64 || [len(C)]_64 (step 5).
        length_block = Mux(is_iv, Cat(bits_a, Const(0, 64)), Cat(bits_c, bits_a))
        base_a = Mux(e.first, 0, len_a)
        # What the entry needs this cycle (``step`` 1: the IV's hashed, or the tag's S is back).
        needs_cipher = e.hash_key | is_payload | is_tag
        # The tag's step 1 waits for S; the hashed IV's step 1 pushes its length block.
        push = Signal()
        m.d.comb += push.eq(~e.hash_key & Mux(step, is_iv, ~(is_iv & short_iv)))
        emits = ~e.hash_key & ((~is_tag & ~(is_iv & e.last & ~short_iv)) | step)
        if self.lean:
            # The ciphertext: the result on encryption, the input on decryption (masked).
            text = first_bytes(e.data ^ Mux(is_payload & ~e.decrypt, keystream, 0), e.bytes)
        else:
            text = Mux(is_payload, Mux(e.decrypt, masked, result), masked)
        ready_all = side.r_rdy & (~needs_cipher | cipher.o.valid) & (~emits | out_free) \
            & Mux(is_tag & step, self.s_valid, 1) & (~e.hash_key | self.ghash.h.ready)
        m.d.comb += [
            self.ghash.i.valid.eq(ready_all & push),
            self.ghash.i.payload.data.eq(Mux(step | is_tag, length_block, text)),
            self.ghash.i.payload.last.eq(step | is_tag),
            self.ghash.h.valid.eq(side.r_rdy & e.hash_key & cipher.o.valid),
            self.ghash.h.payload.eq(keystream),
        ]
        done = ready_all & (~push | self.ghash.i.ready)
        # A two-step entry's first step is done without popping; its second step finishes it.
        two_step = ~e.hash_key & (is_tag | (is_iv & e.last & ~short_iv))
        finish = done & (~two_step | step)
        m.d.comb += [side.r_en.eq(finish), cipher.o.ready.eq(finish & needs_cipher)]
        with m.If(done & two_step & ~step):
            m.d.sync += step.eq(1)
        with m.If(finish):
            m.d.sync += step.eq(0)
        with m.If(done & ~step):
            with m.If(is_iv):
                # A 96-bit IV is not hashed: the AAD is counted from 0.
                m.d.sync += len_a.eq(Mux(short_iv, 0, base_a + e.bytes))
                with m.If(e.first):
                    m.d.sync += len_c.eq(0)
            with m.If(is_aad):
                m.d.sync += len_a.eq(len_a + e.bytes)
            with m.If(is_payload):
                m.d.sync += len_c.eq(len_c + e.bytes)
        with m.If(done & step & is_iv):
            # The IV's length block is sent: the next hash is J0; the AAD is counted from 0.
            m.d.sync += [self.hash_is_j0.eq(1), len_a.eq(0)]
        with m.If(finish & is_tag):
            m.d.sync += self.s_valid.eq(0)
        if self.lean:
            self._build_lean_result(m, e, finish & emits, keystream, out_data, out_fail)
        else:
            self._build_result(m, e, finish & emits, result, keystream, out_data, out_fail)

    def _build_result(self, m, e, write, result, keystream, out_data, out_fail):
        """The result register: 0 for IV and AAD, the payload result, the tag or its check
        (section 7.2 step 8: the first t bytes compared)."""
        tag = first_bytes(keystream ^ self.s, e.bytes)
        received = first_bytes(e.data, e.bytes)
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += self.o.valid.eq(0)
        with m.If(write):
            m.d.sync += self.o.valid.eq(1)
            with m.Switch(e.phase):
                with m.Case(GCMPhase.PAYLOAD):
                    m.d.sync += [out_data.eq(result), out_fail.eq(0)]
                with m.Case(GCMPhase.TAG):
                    m.d.sync += [out_data.eq(Mux(e.decrypt, 0, tag)),
                                 out_fail.eq(e.decrypt & (tag != received))]
                with m.Default():
                    m.d.sync += [out_data.eq(0), out_fail.eq(0)]
        m.d.comb += [self.o.payload.data.eq(out_data), self.o.payload.auth_fail.eq(out_fail)]

    def _build_lean_result(self, m, e, write, keystream, out_data, out_fail):
        """The result register of the lean wrapper: what :meth:`_build_result` writes, from one
        XOR and one mask. The keystream block XOR the input (payload) or XOR S (tag; on
        decryption also XOR the received tag, which is zero in the first t bytes exactly when
        the tags match, section 7.2 step 8)."""
        is_tag = e.phase == GCMPhase.TAG
        other = Mux(is_tag, self.s ^ Mux(e.decrypt, e.data, 0), e.data)
        value = first_bytes(keystream ^ other, e.bytes)
        handed_out = (e.phase == GCMPhase.PAYLOAD) | (is_tag & ~e.decrypt)
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += self.o.valid.eq(0)
        with m.If(write):
            m.d.sync += [self.o.valid.eq(1), out_data.eq(Mux(handed_out, value, 0)),
                         out_fail.eq(is_tag & e.decrypt & (value != 0))]
        m.d.comb += [self.o.payload.data.eq(out_data), self.o.payload.auth_fail.eq(out_fail)]

    def _build_hash_capture(self, m):
        """The accumulator's hashes, one per GHASH message, in order: J0 of a hashed IV
        (section 7.1 step 2; it also starts the counter) or the message's S (step 5)."""
        with m.If(self.ghash.o.valid):
            with m.If(self.hash_is_j0):
                m.d.sync += [self.j0.eq(self.ghash.o.payload),
                             self.counter.eq(self.ghash.o.payload),
                             self.j0_valid.eq(1), self.hash_is_j0.eq(0)]
            with m.Else():
                m.d.sync += [self.s.eq(self.ghash.o.payload), self.s_valid.eq(1)]
