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

from amaranth.hdl import Module, Signal
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .ecp5 import dp16kd_rom
from .mixcolumns import inv_mix_column, mix_column

__all__ = ["column_word", "TE", "TD", "te", "td", "joint_table", "rotate_row", "ROUND_TABLE",
           "round_table_address", "TBoxBank"]


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
        without the register, docs/toolchain.md) leaves the next cycle's path. Pumping 1 only.
    device_family : str
        ``"ecp5"`` with ``output_register``: two DP16KD per memory (1024 x 18 per port, the
        word's low and high 16 bits) instantiated with their output registers on, which Yosys
        never enables by itself. Otherwise inferred memories (plus a register for
        ``output_register``) with the same cycle behaviour.

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
        modes have one).
    memories : int
        Memories of 1024 x 32 with two read ports (two DP16KD each on ECP5: a true-dual-port
        DP16KD port is at most 18 bits wide).
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

    def __init__(self, lookups, *, pumping=1, output_register=False, device_family="generic"):
        if pumping not in (1, 2):
            raise ValueError(f"Pumping must be 1 or 2, not {pumping!r}")
        if output_register and pumping != 1:
            raise ValueError(f"The output register needs pumping 1, not {pumping!r}")
        if not isinstance(lookups, int) or lookups <= 0 or lookups % (2 * pumping):
            raise ValueError(f"Lookups must be a positive multiple of {2 * pumping}, "
                             f"not {lookups!r}")
        self.lookups = lookups
        self.pumping = pumping
        self.output_register = bool(output_register)
        self.device_family = device_family
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
            self._build_registered(m)
            return m
        domain = "sync" if self.pumping == 1 else "bram"
        ports = []
        for n in range(self.memories):
            mem = memory.Memory(shape=32, depth=len(ROUND_TABLE), init=ROUND_TABLE)
            m.submodules[f"table{n}"] = mem
            ports += [mem.read_port(domain=domain), mem.read_port(domain=domain)]

        if self.pumping == 1:
            for port, addr, word in zip(ports, self.addr, self.data):
                m.d.comb += [port.addr.eq(addr), word.eq(port.data)]
            return m

        half = self.lookups // 2
        toggle = Signal()
        toggle_seen = Signal()
        first_half = Signal()
        m.d.sync += toggle.eq(~toggle)
        m.d.bram += toggle_seen.eq(toggle)
        m.d.comb += first_half.eq(toggle ^ toggle_seen)
        for j, port in enumerate(ports):
            b_addr = Signal(10, name=f"b_addr{j}")
            captured = Signal(32, name=f"a_word{j}")
            m.d.sync += b_addr.eq(self.addr[half + j])
            # First half: the port reads the registered b address at the mid-cycle edge; second
            # half: the a address of the next cycle, at the edge that ends the system cycle.
            with m.If(first_half):
                m.d.comb += port.addr.eq(b_addr)
                m.d.bram += captured.eq(port.data)
            with m.Else():
                m.d.comb += port.addr.eq(self.addr[j])
            m.d.comb += [self.data[j].eq(captured), self.data[half + j].eq(port.data)]
        return m

    def _build_registered(self, m):
        """Reads with the output register: an inferred memory plus a register, or on ECP5 two
        DP16KD per memory with ``REGMODE="OUTREG"`` (ports A and B: two lookups)."""
        for n in range(self.memories):
            pair = [(self.addr[2 * n + p], self.data[2 * n + p]) for p in range(2)]
            if self.device_family != "ecp5":
                mem = memory.Memory(shape=32, depth=len(ROUND_TABLE), init=ROUND_TABLE)
                m.submodules[f"table{n}"] = mem
                for addr, word in pair:
                    port = mem.read_port(domain="sync")
                    m.d.comb += port.addr.eq(addr)
                    m.d.sync += word.eq(port.data)
                continue
            for half in range(2):
                # 1024 x 18 mode: the word's low or high 16 bits on both ports.
                m.submodules[f"table{n}_{half}"] = dp16kd_rom(
                    [(w >> (16 * half)) & 0xFFFF for w in ROUND_TABLE], width=18,
                    ports=[(addr, word[16 * half:16 * half + 16]) for addr, word in pair])

