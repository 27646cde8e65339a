"""Two S-box lookups from one block RAM.

A DP16KD has two read ports, and a 256-entry S-box table fills an eighth of it. The ``bram``
S-box of :mod:`.table_sbox` reads its DP16KD on port A only, so a round of 16 S-boxes takes 16
block RAMs. :class:`BramSBoxPair` reads one table on both ports: two lookups per block RAM, half
the blocks, the same two cycles. Seed 002 section 4 puts the first rounds and the key schedule of
its fully pipelined core in block RAM; with half the blocks per round, more of the cipher fits
(an LFE5U-85F has 208 DP16KD).
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import data, memory, wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .ecp5 import dp16kd_rom
from .sbox_kinds import check_device_family
from .table_sbox import BramSBox

__all__ = ["BramSBoxPair"]


class BramSBoxPair(wiring.Component):
    """Two S-boxes (or inverse S-boxes) in one synchronous ROM, each port with a registered
    output: ``o[k]`` is the S-box of ``i[k]`` two cycles later, for both ``k`` at once.

    Parameters
    ----------
    inverse : bool
        Build InvSubBytes instead of SubBytes.
    device_family : str
        ``"ecp5"`` instantiates one DP16KD read on ports A and B, each with its output register;
        ``"generic"`` infers one memory per port (the same two cycles; see :mod:`.table_sbox` on
        why an inferred ROM is not read through several ports).

    Members
    -------
    i : In(ArrayLayout(8, 2))
        The two input bytes, one pair per cycle.
    o : Out(ArrayLayout(8, 2))
        The two substituted bytes, two cycles later.
    """

    i: In(data.ArrayLayout(8, 2))
    o: Out(data.ArrayLayout(8, 2))

    latency = BramSBox.latency

    def __init__(self, *, inverse=False, device_family="generic"):
        check_device_family(device_family)
        self.inverse = bool(inverse)
        self.device_family = device_family
        self.table = gf.INV_SBOX if self.inverse else gf.SBOX
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        if self.device_family == "ecp5":
            # 2048 x 9 mode on both ports, output registers on (as BramSBox's port A).
            words = [Signal(9, name=f"word{k}") for k in range(2)]
            m.submodules.bram = dp16kd_rom(self.table, width=9,
                                           ports=[(self.i[k], words[k]) for k in range(2)])
            m.d.comb += [self.o[k].eq(words[k][:8]) for k in range(2)]
            return m
        for k in range(2):
            m.submodules[f"rom{k}"] = rom = memory.Memory(shape=8, depth=256, init=self.table)
            port = rom.read_port(domain="sync")
            m.d.comb += port.addr.eq(self.i[k])
            m.d.sync += self.o[k].eq(port.data)
        return m
