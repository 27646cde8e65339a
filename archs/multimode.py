"""Multi-mode AES (seed 003, Lin & Huang): encryption and decryption, 128/192/256-bit keys chosen
at run time, on-the-fly key generation in both directions, ECB / CBC / CTR chaining in the core.

One 128-bit round per clock cycle (the single-stream form; the two-stream interleave of 003
section III.C is not built yet). The 16 datapath S-boxes are :class:`SharedSBox` units: one
GF(2^8) inverter of the chosen family between an inverse affine map on the way in (decryption)
and an affine map on the way out (encryption), 003 section III.B, Fig. 8(a). The retiming of
section III.B (affine merged into MixColumns, inverse affine into InvMixColumns) is not done.

Round keys come from a :class:`archs.prims.keyschedule.KeyExpander` (128 bits per step, all three
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
    ECB (default, 0), CBC or CTR.
``first`` (1)
    The block starts a message: ``iv`` holds the IV (CBC) or initial counter block (CTR). A
    following block with ``first`` low continues the chain the core keeps.
``iv`` (128)
    Read only with ``first``.

Chaining (SP 800-38A section 6)
-------------------------------
CBC encryption enciphers ``data ^ chain`` and the ciphertext becomes the chain; CBC decryption
deciphers ``data``, XORs the chain into the result, and ``data`` becomes the chain; CTR enciphers
the counter, XORs ``data`` into the result and increments the counter modulo 2^128 (the standard
incrementing function over the whole block, as ``cryptography`` does).

Implementation notes
--------------------
A block takes ``Nr + 1`` cycles: a whitening cycle (the first round key is only presented by the
expander the cycle after it is told the direction, with ``start``), then ``Nr`` rounds. The next
block is accepted in the cycle of the last round, so blocks go back to back. The whitening cycle
is also where the chaining input is formed, from the chain register that the previous block's
last round wrote: no combinational path from one block's result into the next block's input.
Decryption uses the straight inverse cipher with its steps reordered inside a round (InvSubBytes
and InvShiftRows commute), so the S-box sits at the same place in both directions:
``state' = InvMixColumns(InvShiftRows(InvSubBytes(state)) ^ rk)``.
"""

from types import SimpleNamespace

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import enum, wiring

from .interface import AESSignature, bytes_value, value_bytes
from .prims.keyschedule import ROUNDS, KeyExpander
from .prims.mixcolumns import inv_mix_column_value, mix_column_value
from .prims.sbox import SharedSBox
from .prims.shiftrows import inv_shift_rows, shift_rows

__all__ = ["Mode", "Multimode", "SBOXES"]

#: Inverter families the core accepts (combinational ones: one round per cycle).
SBOXES = ("lut", "composite", "tower")


class Mode(enum.Enum, shape=2):
    """Block cipher mode of a block (003 Table I); ECB is 0 so that a payload without a mode is
    a plain block."""
    ECB = 0
    CBC = 1
    CTR = 2


class Multimode(wiring.Component):
    """Multi-mode AES core (see the module documentation for the protocol).

    Parameters
    ----------
    sbox : str
        GF(2^8) inverter family of the shared S-boxes: ``lut`` (003's choice), ``composite`` or
        ``tower``; also the family of the key expander's four S-boxes.
    key_bits : int
        Not a hardware parameter: every build takes 128-, 192- and 256-bit keys at run time. It
        is the key size of the back-to-back stream the verify stage measures cycles per block
        with (``Nr + 1``), so that an experiment can report the throughput of each key size
        (003 Table II prints one per key size); the netlists of the three values are identical.
    target : str
        Device family of the netlist.

    Members
    -------
    key, i, o
        :class:`archs.interface.AESSignature` with key sizes 128/192/256 and the block fields
        ``decrypt``, ``mode``, ``first``, ``iv``.

    Attributes
    ----------
    modes : tuple of str
        Modes the core chains: ``("ecb", "cbc", "ctr")``.
    measure_key_bits : int
        ``key_bits``, read by :mod:`aesdse.verify`.

    Raises
    ------
    ValueError
        If ``sbox`` is not one of :data:`SBOXES` or ``key_bits`` not 128, 192 or 256.
    """

    modes = ("ecb", "cbc", "ctr")

    @staticmethod
    def check(*, sbox="lut", key_bits=128, target="generic"):
        """Raise ``ValueError`` for parameters the core cannot be built with."""
        if sbox not in SBOXES:
            raise ValueError(f"S-box family must be one of {', '.join(SBOXES)}, not {sbox!r}")
        if key_bits not in ROUNDS or isinstance(key_bits, bool):
            raise ValueError(f"Key bits must be 128, 192 or 256, not {key_bits!r}")

    def __init__(self, *, sbox="lut", key_bits=128, target="generic"):
        self.check(sbox=sbox, key_bits=key_bits, target=target)
        self.sbox = sbox
        self.measure_key_bits = key_bits
        self.target = target
        super().__init__(AESSignature(key_sizes=(128, 192, 256), block_fields={
            "decrypt": 1, "mode": Mode, "first": 1, "iv": 128}))

    def cycles_per_block(self, key_bits):
        """Cycles between blocks streamed back to back: whitening plus one per round."""
        return ROUNDS[key_bits] + 1

    def elaborate(self, platform):
        m = Module()
        m.submodules.keys = keys = KeyExpander(
            128, key_sizes=(128, 192, 256), directions=("forward", "reverse"),
            sbox=self.sbox, target=self.target)
        reg = SimpleNamespace(
            # Block registers: taken at accept, used in the whitening cycle.
            data_in=Signal(128, name="data_in"), iv=Signal(128, name="iv"),
            first=Signal(name="first"), mode=Signal(Mode, name="mode"),
            decrypt=Signal(name="decrypt"),     # direction of the cipher (CTR: encryption)
            # Running registers.
            state=Signal(128, name="state"),
            chain=Signal(128, name="chain"),    # CBC: previous ciphertext; CTR: next counter
            post=Signal(128, name="post"),      # XORed into the result (CBC dec: chain; CTR: data)
            key_pending=Signal(name="key_pending"),  # a key load walks to the last round key
            whiten=Signal(name="whiten"),       # the block's next cycle is the whitening cycle
            busy=Signal(name="busy"),           # a block is in the rounds
            out_data=Signal(128, name="out_data"), out_valid=Signal(name="out_valid"))

        round_out = self._build_round(m, keys, reg)
        chain_in, cipher_in = self._build_chaining_input(m, reg)
        round_step = reg.busy & keys.valid & (~keys.last | ~reg.out_valid | self.o.ready)
        finishing = round_step & keys.last
        accept = self.i.valid & self.i.ready
        self._build_handshakes(m, reg, finishing)
        self._build_key_control(m, keys, reg, accept, round_step)
        self._build_block_registers(m, keys, reg, accept, round_step, round_out, chain_in,
                                    cipher_in)
        return m

    def _build_round(self, m, keys, reg):
        """One round on ``reg.state``: shared S-boxes, (Inv)ShiftRows, then MixColumns before or
        InvMixColumns after AddRoundKey; the last round has neither. Returns the round's
        output."""
        sub = []
        for n, byte in enumerate(value_bytes(reg.state)):
            sb = SharedSBox(self.sbox, target=self.target)
            m.submodules[f"sbox{n}"] = sb
            m.d.comb += [sb.i.eq(byte), sb.decrypt.eq(reg.decrypt)]
            sub.append(sb.o)
        shifted = Signal(128)
        m.d.comb += shifted.eq(Mux(reg.decrypt, bytes_value(inv_shift_rows(sub)),
                                   bytes_value(shift_rows(sub))))
        rk = keys.round_key
        added = Signal(128)
        m.d.comb += added.eq(shifted ^ rk)

        def columns(value, function):
            b = value_bytes(value)
            return bytes_value(x for c in range(4) for x in function(b[4 * c:4 * c + 4]))

        round_out = Signal(128)
        with m.If(keys.last):
            m.d.comb += round_out.eq(added)
        with m.Elif(reg.decrypt):
            m.d.comb += round_out.eq(columns(added, inv_mix_column_value))
        with m.Else():
            m.d.comb += round_out.eq(columns(shifted, mix_column_value) ^ rk)
        return round_out

    def _build_chaining_input(self, m, reg):
        """The chaining input of the whitening cycle (SP 800-38A section 6). Returns the chain
        value this block uses (IV or kept chain) and the block the cipher starts from."""
        chain_in = Mux(reg.first, reg.iv, reg.chain)
        cipher_in = Signal(128)
        with m.Switch(reg.mode):
            with m.Case(Mode.CBC):
                m.d.comb += cipher_in.eq(Mux(reg.decrypt, reg.data_in, reg.data_in ^ chain_in))
            with m.Case(Mode.CTR):
                m.d.comb += cipher_in.eq(chain_in)
            with m.Default():
                m.d.comb += cipher_in.eq(reg.data_in)
        return chain_in, cipher_in

    def _build_handshakes(self, m, reg, finishing):
        """Key, block and result streams. A pending key write takes priority over a new block,
        so the order of key and block transfers is the order the user issued them in."""
        m.d.comb += [
            self.key.ready.eq(~reg.busy & ~reg.whiten),
            self.i.ready.eq((~(reg.busy | reg.whiten) | finishing) & ~reg.key_pending
                            & ~self.key.valid),
            self.o.valid.eq(reg.out_valid),
            self.o.payload.data.eq(reg.out_data),
        ]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += reg.out_valid.eq(0)

    def _build_key_control(self, m, keys, reg, accept, round_step):
        """Key expander: a load walks to the last round key (reverse=1 keeps it), each block
        restarts the walk in its direction."""
        load = self.key.valid & self.key.ready
        m.d.comb += [
            keys.key.eq(self.key.payload.key),
            keys.key_bits.eq(self.key.payload.key_bits),
            keys.load.eq(load),
            keys.start.eq(accept),
            keys.reverse.eq(Mux(load, 1, self._block_decrypt())),
            keys.next.eq((reg.whiten & keys.valid) | round_step),
        ]
        with m.If(load):
            m.d.sync += reg.key_pending.eq(1)
        with m.Elif(reg.key_pending & keys.valid):
            m.d.sync += reg.key_pending.eq(0)

    def _block_decrypt(self):
        """Direction of the offered block: CTR always enciphers (003 Table I)."""
        return self.i.payload.decrypt & (self.i.payload.mode != Mode.CTR)

    def _build_block_registers(self, m, keys, reg, accept, round_step, round_out, chain_in,
                               cipher_in):
        """Accept a block, whiten it and form the chaining registers, step the rounds and
        write the result (and the CBC encryption chain) in the last round."""
        rk = keys.round_key
        with m.If(reg.whiten & keys.valid):
            m.d.sync += [reg.state.eq(cipher_in ^ rk), reg.whiten.eq(0), reg.busy.eq(1)]
            with m.Switch(reg.mode):
                with m.Case(Mode.CBC):
                    m.d.sync += reg.post.eq(Mux(reg.decrypt, chain_in, 0))
                    with m.If(reg.decrypt):
                        m.d.sync += reg.chain.eq(reg.data_in)
                with m.Case(Mode.CTR):
                    m.d.sync += [reg.post.eq(reg.data_in), reg.chain.eq(chain_in + 1)]
                with m.Default():
                    m.d.sync += reg.post.eq(0)
        with m.If(round_step & ~keys.last):
            m.d.sync += reg.state.eq(round_out)
        with m.If(round_step & keys.last):
            m.d.sync += [reg.out_data.eq(round_out ^ reg.post), reg.out_valid.eq(1),
                         reg.busy.eq(0)]
            with m.If((reg.mode == Mode.CBC) & ~reg.decrypt):
                m.d.sync += reg.chain.eq(round_out)

        with m.If(accept):
            p = self.i.payload
            m.d.sync += [reg.data_in.eq(p.data), reg.iv.eq(p.iv), reg.first.eq(p.first),
                         reg.mode.eq(p.mode), reg.decrypt.eq(self._block_decrypt()),
                         reg.whiten.eq(1)]
