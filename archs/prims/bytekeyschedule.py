"""The byte-serial AES-128 key schedule of an 8-bit core with a byte-wide key stream.

:class:`ByteKeySchedule` walks the round keys 0..10 in a cycle and refills its window with the
cipher key during the last round, from a rotating copy, so a block never reloads 128 bits in
parallel (:class:`archs.compact.Compact` with ``port_width=8``). With ``prefetch`` it looks its
SubWord up ahead, in cycles its owner chooses, so it can share the owner's S-box
(:class:`archs.compact.Compact` with ``key_sbox="shared"``).
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .keyschedule import ROUNDS

__all__ = ["ByteKeySchedule"]


class ByteKeySchedule(wiring.Component):
    """Byte-serial AES-128 key schedule that cycles through round keys 0..10 without a reload.

    For an 8-bit core whose key arrives as a byte stream (:class:`archs.compact.Compact` with
    ``port_width=8``). Like :class:`archs.prims.keyexpander.KeyExpander` at width 8 it keeps a
    window of the last 16 bytes of the expansion as a shift register (seed 000 section II.D)
    and presents its oldest byte; but the cipher key is shifted in byte by byte, and while the
    last round key (round 10) is consumed the bytes entering the window are the cipher key
    again, taken from a rotating 16-byte copy instead of the schedule's (unused) round key 11.
    After byte 15 of round 10 the window holds round key 0: the next block starts at once, and
    no 128-bit path from a stored key into the window exists (with a parallel key port that
    reload path is about one LUT4 per window bit: 128 of the 197 LUT4 measured for the 8-bit
    :class:`archs.prims.keyexpander.KeyExpander` in :mod:`archs.compact`).

    Parameters
    ----------
    prefetch : bool
        False: the S-box is used while bytes 0-3 of a round key are consumed, combinationally
        from the window (an S-box of the schedule's own). True: SubWord is looked up ahead, so
        the schedule can share its owner's S-box (:mod:`archs.compact`, module notes "One
        S-box"): each of the bytes 12-15 is substituted in the cycle after it entered the
        window, from the window's newest byte (so the S-box input and ``lookup`` are
        registers). The four results wait in a four-byte shift register; consuming bytes 0-3
        of the round key reads its byte 1 and rotates it, which gives the order S(13), S(14),
        S(15), S(12) of SubWord(RotWord) (FIPS-197 section 5.2). The walk, the key loading and
        the refill are the same.

    Members
    -------
    key : In(8)
        A key byte, taken with ``load``; byte 0 of the key first.
    load : In(1)
        Shift ``key`` in. Sixteen loads make a key; the walk then stands at round key 0, byte 0.
        Only while the walk is at round 0, byte 0 (between blocks); ``next`` must be low.
    next : In(1)
        The consumer takes ``round_key``; the next byte follows in the next cycle.
    round_key : Out(8)
        Byte ``index`` of round key ``round``.
    round : Out(range(11))
        Round of ``round_key`` (0..10, then 0 again).
    index : Out(4)
        Byte of ``round_key`` within its round key (0..15); also counts the bytes of a key
        being loaded.
    sbox_i : Out(8)
        The byte the step needs substituted: a function of the registers only; with
        ``prefetch``, the byte to substitute while ``lookup`` is high.
    sbox_o : In(8)
        S(``sbox_i``), combinationally (an S-box of latency 0).
    lookup : Out(1)
        Only with ``prefetch``: the schedule uses the S-box in this cycle, and the owner must
        hand it over. It is high in the cycle after a byte 12-15 entered the window (``load``
        or ``next`` at ``index`` 12-15); the owner schedules these cycles where its own S-box
        use pauses.

    Implementation notes
    --------------------
    Consuming byte ``p`` of round key ``r`` shifts the window down by a byte and appends byte
    ``p`` of round key ``r + 1``: ``w[0] ^ S(w[13]) ^ Rcon`` for ``p = 0``, ``w[0] ^ S(w[13])``
    for ``p = 1, 2``, ``w[0] ^ S(w[9])`` for ``p = 3`` (the RotWord of FIPS-197 section 5.2,
    after the shifts of the same word) and ``w[0] ^ w[12]`` for ``p >= 4`` (``w`` the window,
    ``w[0]`` the consumed byte).
    """

    def __init__(self, *, prefetch: bool = False):
        self.prefetch = bool(prefetch)
        members = {
            "key": In(8), "load": In(1), "next": In(1),
            "round_key": Out(8), "round": Out(range(ROUNDS[128] + 1)), "index": Out(4),
            "sbox_i": Out(8), "sbox_o": In(8),
        }
        if self.prefetch:
            members["lookup"] = Out(1)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        last = ROUNDS[128]
        win = Signal(128)        # byte x at bits 8x..8x+7; byte 0 is round_key
        store = Signal(128)      # the cipher key, rotating while round 10 is consumed
        if self.prefetch:
            subword = Signal(32)     # S(12), S(13), S(14), S(15) from byte 0 up, then rotating

        def byte(value, x):
            return value[8 * x:8 * x + 8]

        # Round constant of the current round (FIPS-197 section 5.2, Rcon[r + 1]).
        rcon = Signal(8)
        with m.Switch(self.round):
            for r in range(last):
                with m.Case(r):
                    m.d.comb += rcon.eq(gf.RCON[r])
        p = self.index
        if self.prefetch:
            sub_word_byte = byte(subword, 1)
        else:
            sub_word_byte = self.sbox_o
            m.d.comb += [
                self.round_key.eq(byte(win, 0)),
                self.sbox_i.eq(Mux(p[0:2] == 3, byte(win, 9), byte(win, 13))),
            ]
        temp = Mux(p[2:4] == 0, sub_word_byte ^ Mux(p == 0, rcon, 0), byte(win, 12))
        refill = self.next & (self.round == last)
        fill = Mux(self.load, self.key, byte(store, 0))
        new = Mux(self.load | refill, fill, byte(win, 0) ^ temp)
        if self.prefetch:
            self._prefetch_sub_word(m, win, subword)
        with m.If(self.load | self.next):
            m.d.sync += [win.eq(Cat(win[8:], new)), p.eq(p + 1)]
        with m.If(self.load | refill):
            m.d.sync += store.eq(Cat(store[8:], fill))
        with m.If(self.load):
            m.d.sync += self.round.eq(0)
        with m.Elif(self.next & (p == 15)):
            m.d.sync += self.round.eq(Mux(self.round == last, 0, self.round + 1))
        return m

    def _prefetch_sub_word(self, m, win, subword):
        """With ``prefetch``: the lookups of bytes 12-15 and the register ``subword`` that keeps
        their results until bytes 0-3 of the next round key are consumed."""
        p = self.index
        # A byte 12-15 is looked up in the cycle after it entered the window, from the newest
        # window byte: the S-box input and its select are registers.
        m.d.sync += self.lookup.eq((self.load | self.next) & (p[2:4] == 3))
        m.d.comb += [self.round_key.eq(win[0:8]), self.sbox_i.eq(win[120:128])]
        # Lookups shift the results in; consuming bytes 0-3 reads byte 1 and rotates, so the
        # order S(13), S(14), S(15), S(12) of FIPS-197's RotWord comes out.
        with m.If(self.lookup):
            m.d.sync += subword.eq(Cat(subword[8:], self.sbox_o))
        with m.Elif(self.next & (p[2:4] == 0)):
            m.d.sync += subword.eq(Cat(subword[8:], subword[:8]))
