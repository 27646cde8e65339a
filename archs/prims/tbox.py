"""T-box and T^-1-box tables: SubBytes and (Inv)MixColumns combined, as table data for block RAM.

A round of AES on one output column is the XOR of four table lookups (Daemen & Rijmen's T-table
formulation; seed 001, Kundi & Aziz, section 3, keeps the T-box and T^-1-box tables in dual-port
block RAM)::

    MixColumns(SubBytes(a0, a1, a2, a3)) = T0[a0] ^ T1[a1] ^ T2[a2] ^ T3[a3]

``T0[x]`` is the MixColumns image of the column ``(S[x], 0, 0, 0)``; ``Ti`` puts ``S[x]`` in row
``i``, which rotates the word right by ``8 i`` bits. The inverse tables use the inverse S-box and
InvMixColumns. Words are 32-bit columns with row 0 in bits 31..24, the byte order of
:func:`archs.interface.column_words`. Every entry is computed from :mod:`.gf` and
:mod:`.mixcolumns`; nothing is typed in.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .ecp5 import dp16kd_rom
from .mixcolumns import inv_mix_column, mix_column

__all__ = ["column_word", "TE", "TD", "te", "td", "joint_table", "rotate_row", "ROUND_TABLE",
           "round_table_address", "TABLE_ENTRIES", "COMPRESSED_TABLE", "ENTRY_BITS",
           "expand_entry", "expand_entry_value", "TBoxBank"]


def column_word(column) -> int:
    """Four bytes (row 0 first) as a 32-bit word, row 0 in the most significant byte."""
    return int.from_bytes(bytes(column), "big")


def _tables(sbox, mix):
    tables = []
    for row in range(4):
        table = []
        for x in range(256):
            column = [0, 0, 0, 0]
            column[row] = sbox[x]
            table.append(column_word(mix(column)))
        tables.append(tuple(table))
    return tuple(tables)


#: The four encryption T-boxes, ``TE[i][x]`` (SubBytes then MixColumns of byte ``x`` in row ``i``).
TE = _tables(gf.SBOX, mix_column)
#: The four decryption T^-1-boxes, ``TD[i][x]`` (InvSubBytes then InvMixColumns).
TD = _tables(gf.INV_SBOX, inv_mix_column)


def te(row: int, x: int) -> int:
    """Encryption T-box entry for input byte ``x`` in row ``row``."""
    return TE[row][x]


def td(row: int, x: int) -> int:
    """Decryption T^-1-box entry for input byte ``x`` in row ``row``."""
    return TD[row][x]


def joint_table(row: int = 0) -> tuple[int, ...]:
    """512 x 32 contents of one joint T-box/T^-1-box block RAM (seed 001 section 3).

    Address bit 8 selects the direction (0: ``TE[row]``, 1: ``TD[row]``), bits 7..0 the byte.

    Raises
    ------
    ValueError
        If ``row`` is not 0..3.
    """
    if row not in range(4):
        raise ValueError(f"Row must be an integer in 0..3, not {row!r}")
    return TE[row] + TD[row]


def rotate_row(word: int, row: int) -> int:
    """A row-0 table word moved to row ``row``: ``Ti[x] = rotate_row(T0[x], i)`` (MixColumns and
    InvMixColumns are circulant, so the four tables of one direction are rotations of one)."""
    n = 8 * (row % 4)
    return ((word >> n) | (word << (32 - n))) & 0xFFFFFFFF if n else word


def _last_round_table(sbox):
    return tuple(column_word([sbox[x], 0, 0, 0]) for x in range(256))


#: 1024 x 32 contents of one joint round-table memory: address bits 7..0 the byte, bit 8 the
#: direction (0: encryption, 1: decryption), bit 9 the last round. Normal rounds read ``TE[0]`` /
#: ``TD[0]``; the last round reads ``(S[x], 0, 0, 0)`` / ``(InvS[x], 0, 0, 0)``, so the same
#: row rotations and XOR network also compute the last round (which has no (Inv)MixColumns).
#: 1024 x 32 bits fill the two 1024 x 18 halves of a DP16KD pair exactly (32 of 36 bits).
ROUND_TABLE = TE[0] + TD[0] + _last_round_table(gf.SBOX) + _last_round_table(gf.INV_SBOX)


def round_table_address(x: int, *, decrypt: bool = False, last: bool = False) -> int:
    """Address of byte ``x`` in :data:`ROUND_TABLE`."""
    return x | int(decrypt) << 8 | int(last) << 9


#: What a table memory holds per address: ``"word"``, the 32-bit :data:`ROUND_TABLE` word, or
#: ``"compressed"``, an 18-bit :data:`COMPRESSED_TABLE` entry from which logic forms the word.
TABLE_ENTRIES = ("word", "compressed")

#: Bits of a :data:`COMPRESSED_TABLE` entry: a DP16KD port's full width in 1024 x 18 mode.
ENTRY_BITS = 18


def _compressed_entry(address: int) -> int:
    """Entry of :data:`COMPRESSED_TABLE` at ``address`` (:func:`round_table_address` layout):
    bytes ``lo`` (bits 7..0) and ``hi`` (bits 15..8), the direction in bit 16 and the last-round
    flag in bit 17."""
    x, decrypt, last = address & 0xFF, address >> 8 & 1, address >> 9 & 1
    if last:
        lo, hi = 0, (gf.INV_SBOX if decrypt else gf.SBOX)[x]
    elif decrypt:
        t = gf.INV_SBOX[x]
        lo, hi = gf.mul(9, t), gf.xtime(t)
    else:
        s = gf.SBOX[x]
        lo, hi = s, gf.xtime(s)
    return lo | hi << 8 | decrypt << 16 | last << 17


#: 1024 x 18 contents of one compressed round-table memory (one DP16KD in 1024 x 18 mode: two
#: read ports of a whole entry), in the address layout of :data:`ROUND_TABLE`. The entry holds
#: two bytes and the two mode bits of its own address; :func:`expand_entry` forms the
#: :data:`ROUND_TABLE` word from it with xtime logic:
#:
#: ============  ==========  ==========  =================================
#: entry          ``lo``      ``hi``      word (row 0 first)
#: ============  ==========  ==========  =================================
#: encryption     ``s``       ``2s``      ``(hi, lo, lo, hi ^ lo)`` = (2s, s, s, 3s)
#: decryption     ``9t``      ``2t``      ``(7 hi, lo, lo ^ 2 hi, hi ^ lo)`` = (14t, 9t, 13t, 11t)
#: last round     0           ``s``/``t``  ``(hi, 0, 0, 0)``
#: ============  ==========  ==========  =================================
#:
#: (``s = S[x]``, ``t = InvS[x]``.) The decryption split is chosen so that two of its four bytes
#: are the encryption formulas (``9t`` a wire like ``s``, ``11t = 9t ^ 2t`` like ``3s = s ^ 2s``):
#: the mode selects only between ``hi`` and ``7 hi`` (``14t = 2t ^ 4t ^ 8t``) in row 0 and adds
#: ``2 hi`` (``4t``) in row 2. Storing ``t`` alone (8 bits) would leave all four products
#: ``9t, 11t, 13t, 14t`` to xtime chains. The mode bits come with the data, so the forming
#: logic needs no copy of the address pipeline in either pumping mode.
COMPRESSED_TABLE = tuple(_compressed_entry(a) for a in range(len(ROUND_TABLE)))


def expand_entry(entry: int) -> int:
    """The 32-bit table word of a :data:`COMPRESSED_TABLE` entry (the integer model of
    :func:`expand_entry_value`)."""
    lo, hi = entry & 0xFF, entry >> 8 & 0xFF
    decrypt, last = entry >> 16 & 1, entry >> 17 & 1
    if last:
        return column_word([hi, 0, 0, 0])
    if decrypt:
        return column_word([gf.mul(7, hi), lo, lo ^ gf.xtime(hi), hi ^ lo])
    return column_word([hi, lo, lo, hi ^ lo])


def expand_entry_value(entry):
    """Amaranth expression of the 32-bit table word of an 18-bit :data:`COMPRESSED_TABLE`
    entry (:func:`expand_entry`), xtime logic from :mod:`.gf`."""
    lo, hi = entry[0:8], entry[8:16]
    decrypt, last = entry[16], entry[17]
    inverse = decrypt & ~last
    row0 = Mux(inverse, gf.mul_const_value(hi, 7), hi)
    row2 = lo ^ (gf.xtime_value(hi) & inverse.replicate(8))
    row3 = (hi ^ lo) & (~last).replicate(8)
    # Row 0 in the most significant byte (column_word order); lo is 0 in last-round entries.
    return Cat(row3, row2, lo, row0)


class TBoxBank(wiring.Component):
    """``lookups`` reads of :data:`ROUND_TABLE` per system cycle from dual-port block RAM, on the
    system clock or double-pumped on a block-RAM clock at twice its frequency.

    Seed 001 (Kundi & Aziz, section 3) keeps one joint T-box/T^-1-box table per block-RAM port and
    clocks the block RAM with the DCM's Clk2x, so each port serves two lookups per system cycle
    and the block-RAM count halves. Every memory here holds :data:`ROUND_TABLE` and has two
    synchronous read ports (a true-dual-port block RAM used as ROM).

    Parameters
    ----------
    lookups : int
        Table reads per system cycle, a multiple of ``2 * pumping``.
    pumping : int
        1: the memories are clocked by ``sync``; ``lookups / 2`` memories. 2: they are clocked by
        the ``bram`` domain at twice the ``sync`` frequency, edge-aligned with it;
        ``lookups / 4`` memories.
    output_register : bool
        Register the read data in the block RAM (DP16KD ``REGMODE="OUTREG"``): two cycles from
        ``addr`` to ``data`` instead of one, and the block RAM's slow clock-to-output (4-6 ns
        without the register, docs/toolchain.md) leaves the next cycle's path. Double-pumped: see
        :meth:`_build_pumped_registered`.
    device_family : str
        ``"ecp5"`` with ``output_register``: two DP16KD per memory (1024 x 18 per port, the
        word's low and high 16 bits; one with ``entry="compressed"``) instantiated with their
        output registers on, which Yosys never enables by itself. Otherwise inferred memories
        (plus a register for ``output_register``) with the same cycle behaviour.
    entry : str
        ``"word"``: the memories hold :data:`ROUND_TABLE` (1024 x 32). ``"compressed"``: they
        hold :data:`COMPRESSED_TABLE` (1024 x 18, one DP16KD each on ECP5) and the word is
        formed in logic (:func:`expand_entry_value`) after the read data (after the output
        register and, double-pumped, after the capture register), on the way to the XOR
        network. Same words, same latency.

    Members
    -------
    addr : In(ArrayLayout(10, lookups))
        Addresses presented in system cycle ``k`` (sampled at the ``sync`` edge ending it).
    data : Out(ArrayLayout(32, lookups))
        The words read, valid in system cycle ``k + latency``.

    Attributes
    ----------
    latency : int
        System cycles from ``addr`` to ``data``: 1, or 2 with ``output_register`` (both pumping
        modes have one; double-pumped, the second half's words are there from the middle of
        that cycle).
    memories : int
        Memories of 1024 x 32 (or 1024 x 18, compressed) with two read ports.
    dp16kd_per_memory : int
        DP16KD per memory on ECP5: 2 for words (a true-dual-port DP16KD port is at most 18 bits
        wide), 1 for compressed entries.
    clock_multipliers : dict
        ``{"bram": 2}`` when double-pumped, else ``{}``.

    Implementation notes
    --------------------
    Double pumping: lookups ``0 .. lookups/2 - 1`` (the *a* half) are read at the ``bram`` edge
    that coincides with the ``sync`` edge ending cycle ``k``, straight from ``addr``; the *b* half
    is registered at that ``sync`` edge and read at the next ``bram`` edge, half a system cycle
    later. At that edge the *a* words are moved into capture registers (001's second register
    bank, clocked there on the negative edge of the system clock), so in the second half of cycle
    ``k + 1`` all ``lookups`` words are there at once. Which half of the system cycle the
    ``bram`` domain is in comes from a ``sync`` toggle and its ``bram``-domain copy: they differ
    exactly in the first half, whatever the reset phase of the two domains.
    """

    def __init__(self, lookups, *, pumping=1, output_register=False, device_family="generic",
                 entry="word"):
        if entry not in TABLE_ENTRIES:
            raise ValueError(f"Table entry must be 'word' or 'compressed', not {entry!r}")
        if pumping not in (1, 2):
            raise ValueError(f"Pumping must be 1 or 2, not {pumping!r}")
        if not isinstance(lookups, int) or lookups <= 0 or lookups % (2 * pumping):
            raise ValueError(f"Lookups must be a positive multiple of {2 * pumping}, "
                             f"not {lookups!r}")
        self.lookups = lookups
        self.pumping = pumping
        self.output_register = bool(output_register)
        self.device_family = device_family
        self.entry = entry
        self.dp16kd_per_memory = 1 if entry == "compressed" else 2
        self.latency = 2 if self.output_register else 1
        self.memories = lookups // (2 * pumping)
        self.clock_multipliers = {"bram": 2} if pumping == 2 else {}
        super().__init__({
            "addr": In(data.ArrayLayout(10, lookups)),
            "data": Out(data.ArrayLayout(32, lookups)),
        })

    def elaborate(self, platform):
        m = Module()
        if self.output_register:
            if self.pumping == 2:
                self._build_pumped_registered(m)
            else:
                self._build_registered(m)
            return m
        domain = "sync" if self.pumping == 1 else "bram"
        ports = []
        for n in range(self.memories):
            mem = self._table_memory()
            m.submodules[f"table{n}"] = mem
            ports += [mem.read_port(domain=domain), mem.read_port(domain=domain)]

        if self.pumping == 1:
            for port, addr, word in zip(ports, self.addr, self.data):
                m.d.comb += [port.addr.eq(addr), word.eq(self._word(port.data))]
            return m

        half = self.lookups // 2
        first_half = self._first_half(m)
        for j, port in enumerate(ports):
            b_addr = Signal(10, name=f"b_addr{j}")
            captured = Signal(len(port.data), name=f"a_word{j}")
            m.d.sync += b_addr.eq(self.addr[half + j])
            # First half: the port reads the registered b address at the mid-cycle edge; second
            # half: the a address of the next cycle, at the edge that ends the system cycle.
            with m.If(first_half):
                m.d.comb += port.addr.eq(b_addr)
                m.d.bram += captured.eq(port.data)
            with m.Else():
                m.d.comb += port.addr.eq(self.addr[j])
            m.d.comb += [self.data[j].eq(self._word(captured)),
                         self.data[half + j].eq(self._word(port.data))]
        return m

    def _table_memory(self):
        """One table memory: :data:`ROUND_TABLE` words or :data:`COMPRESSED_TABLE` entries."""
        if self.entry == "compressed":
            return memory.Memory(shape=ENTRY_BITS, depth=len(COMPRESSED_TABLE),
                                 init=COMPRESSED_TABLE)
        return memory.Memory(shape=32, depth=len(ROUND_TABLE), init=ROUND_TABLE)

    def _word(self, read_data):
        """The table word of what a memory returned: the data itself, or the word formed from a
        compressed entry."""
        return expand_entry_value(read_data) if self.entry == "compressed" else read_data

    def _build_registered(self, m, pairs=None, domain="sync"):
        """Reads with the output register: an inferred memory plus a register, or on ECP5 two
        DP16KD per memory with ``REGMODE="OUTREG"`` (ports A and B: two lookups; one DP16KD for
        compressed entries, the word formed after the register). ``pairs``: (address, read
        data) per port, in ``domain``; by default the bank's addresses and words."""
        for n in range(self.memories):
            if pairs is not None:
                pair = pairs[2 * n:2 * n + 2]
            else:
                pair = [(self.addr[2 * n + p], self.data[2 * n + p]) for p in range(2)]
            if pairs is None and self.entry == "compressed":
                # The registered entries, and the words formed from them.
                entries = [Signal(ENTRY_BITS, name=f"entry{2 * n + p}") for p in range(2)]
                m.d.comb += [word.eq(expand_entry_value(e)) for (_, word), e in zip(pair, entries)]
                pair = [(addr, e) for (addr, _), e in zip(pair, entries)]
            if self.device_family != "ecp5":
                mem = self._table_memory()
                m.submodules[f"table{n}"] = mem
                for addr, word in pair:
                    port = mem.read_port(domain=domain)
                    m.d.comb += port.addr.eq(addr)
                    m.d[domain] += word.eq(port.data)
                continue
            if self.entry == "compressed":
                m.submodules[f"table{n}"] = dp16kd_rom(COMPRESSED_TABLE, width=18, ports=pair,
                                                       domain=domain)
                continue
            for half in range(2):
                # 1024 x 18 mode: the word's low or high 16 bits on both ports.
                m.submodules[f"table{n}_{half}"] = dp16kd_rom(
                    [(w >> (16 * half)) & 0xFFFF for w in ROUND_TABLE], width=18,
                    ports=[(addr, word[16 * half:16 * half + 16]) for addr, word in pair],
                    domain=domain)

    def _first_half(self, m):
        """A signal that is 1 exactly in the first half of a system cycle, as the ``bram``
        domain sees it: a ``sync`` toggle and its ``bram``-domain copy differ there."""
        toggle = Signal()
        toggle_seen = Signal()
        first_half = Signal()
        m.d.sync += toggle.eq(~toggle)
        m.d.bram += toggle_seen.eq(toggle)
        m.d.comb += first_half.eq(toggle ^ toggle_seen)
        return first_half

    def _build_pumped_registered(self, m):
        """Double pumping with the output register: two system cycles from address to word.

        With ``t`` counting ``bram`` edges from the edge ending system cycle ``k``: the *a*
        half is read at ``t = 0`` and is in the output register from ``t = 1``; the *b* half
        (its address registered at ``t = 0``) is read at ``t = 1`` and is there from ``t = 2``,
        when the port's next read (the next cycle's *a* half) starts. Capture registers take
        the *a* data at ``t = 2`` and the *b* data at ``t = 3``: in cycle ``k + 2`` (``t = 2 ..
        4``) the *a* words are there all cycle and the *b* words from its middle, which the
        ``sync`` registers sampling them at ``t = 4`` need. The block RAM's clock-to-output
        leaves every path; the one left short is capture (``t = 3``) to the next read at
        ``t = 4``: one ``bram`` period through fabric logic only."""
        half = self.lookups // 2
        first_half = self._first_half(m)
        width = ENTRY_BITS if self.entry == "compressed" else 32
        pairs = []
        for j in range(half):
            port_addr = Signal(10, name=f"port_addr{j}")
            b_addr = Signal(10, name=f"b_addr{j}")
            read = Signal(width, name=f"read{j}")
            a_captured = Signal(width, name=f"a_word{j}")
            b_captured = Signal(width, name=f"b_word{j}")
            m.d.sync += b_addr.eq(self.addr[half + j])
            m.d.comb += port_addr.eq(Mux(first_half, b_addr, self.addr[j]))
            # The edge ending the first half finds the b data in the output register, the edge
            # ending the second half the a data.
            with m.If(first_half):
                m.d.bram += b_captured.eq(read)
            with m.Else():
                m.d.bram += a_captured.eq(read)
            m.d.comb += [self.data[j].eq(self._word(a_captured)),
                         self.data[half + j].eq(self._word(b_captured))]
            pairs.append((port_addr, read))
        self._build_registered(m, pairs, domain="bram")

