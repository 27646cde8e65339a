"""One S-box alone, between an input and an output register: the design point of S-box sweeps.

Seed 002 Fig. 3 and Fig. 4 compare S-box variants by LUTs, delay and throughput per area against
the number of internal pipeline stages. Measured alone, a combinational S-box has no
register-to-register path, so nextpnr would report no Fmax: this wrapper registers the byte on the
way in and on the way out, so every path of the S-box is timed between two flip-flops (and the
pipelined variants add their own registers in between).

``direction="shared"`` measures the encrypt/decrypt S-box (:class:`archs.prims.sbox.SharedSBox`)
with its ``decrypt`` input registered like the byte. Its design point is verified as SubBytes
(the verifier drives ``i`` only, so ``decrypt`` stays 0); both directions are checked
exhaustively in tests/test_prims_sbox.py.
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .prims import gf
from .prims.sbox import SharedSBox, _check_target, make_sbox, sbox_latency

__all__ = ["DIRECTIONS", "StandaloneSBox"]

#: Allowed values of ``direction``.
DIRECTIONS = ("encrypt", "decrypt", "shared")


class StandaloneSBox(wiring.Component):
    """An S-box of any family with registered input and output.

    Parameters
    ----------
    sbox : str
        S-box family (:data:`archs.prims.sbox.SBOX_KINDS`).
    sbox_stages : int
        Pipeline registers inside the S-box (0..6 for the logic families, 0 otherwise).
    direction : str
        ``"encrypt"`` (SubBytes), ``"decrypt"`` (InvSubBytes) or ``"shared"`` (both, chosen per
        byte by ``decrypt``).
    target : str
        Device family of the netlist (``"generic"`` or ``"ecp5"``).

    Members
    -------
    i : In(8)
        Input byte, one per cycle.
    o : Out(8)
        Substituted byte, ``latency`` cycles later.
    decrypt : In(1)
        With ``direction="shared"`` only: 1 for InvSubBytes, with the byte.

    Attributes
    ----------
    latency : int
        The S-box latency plus 2 (the input and output registers).
    table : tuple of int
        The 256 bytes ``o`` must reproduce.

    Raises
    ------
    ValueError
        If ``direction`` is unknown, or the family does not exist or does not support
        ``sbox_stages`` (for example ``lut`` with 3 stages).
    """

    def __init__(self, *, sbox="lut", sbox_stages=0, direction="encrypt", target="generic"):
        self.latency = self.check(sbox=sbox, sbox_stages=sbox_stages, direction=direction,
                                  target=target)
        self.sbox = sbox
        self.sbox_stages = sbox_stages
        self.direction = direction
        self.target = target
        self.table = gf.INV_SBOX if direction == "decrypt" else gf.SBOX
        members = {"i": In(8), "o": Out(8)}
        if direction == "shared":
            members["decrypt"] = In(1)
        super().__init__(members)

    @staticmethod
    def check(*, sbox="lut", sbox_stages=0, direction="encrypt", target="generic"):
        """Validate the parameters without building anything; returns the latency.

        A builder calls this before the constructor, so a bad design point raises before an
        Elaboratable exists (one that is never elaborated would warn when collected).
        """
        if direction not in DIRECTIONS:
            raise ValueError(f"Direction must be one of {', '.join(map(repr, DIRECTIONS))}, "
                             f"not {direction!r}")
        latency = sbox_latency(sbox, stages=sbox_stages) + 2
        _check_target(target)
        return latency

    def elaborate(self, platform):
        m = Module()
        # Built here, not in the constructor: a design point may be constructed only to read its
        # attributes, and an S-box that is never elaborated would warn (UnusedElaboratable).
        if self.direction == "shared":
            m.submodules.sbox = sbox = SharedSBox(self.sbox, stages=self.sbox_stages,
                                                  target=self.target)
            decrypt_reg = Signal()
            m.d.sync += decrypt_reg.eq(self.decrypt)
            m.d.comb += sbox.decrypt.eq(decrypt_reg)
        else:
            m.submodules.sbox = sbox = make_sbox(self.sbox, inverse=self.direction == "decrypt",
                                                 stages=self.sbox_stages, target=self.target)
        in_reg = Signal(8)
        out_reg = Signal(8)
        m.d.sync += [in_reg.eq(self.i), out_reg.eq(sbox.o)]
        m.d.comb += [sbox.i.eq(in_reg), self.o.eq(out_reg)]
        return m
