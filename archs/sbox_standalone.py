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

from dataclasses import replace

from .interface import CoreSignature
from .params import SBOX_PARAM, SBOX_STAGES_PARAM, Param, bind
from .prims import gf
from .prims.sbox import (SharedSBox, check_device_family, check_shared_stages, make_sbox,
                         sbox_latency)

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
        Pipeline registers inside the S-box (0..7 for the logic families, 0 otherwise).
    direction : str
        ``"encrypt"`` (SubBytes), ``"decrypt"`` (InvSubBytes) or ``"shared"`` (both, chosen per
        byte by ``decrypt``).
    device_family : str
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

    #: The design-space parameters (:mod:`archs.params`).
    PARAMS = (
        SBOX_PARAM,
        replace(SBOX_STAGES_PARAM,
                doc="pipeline registers inside the S-box (logic families only)"),
        Param("direction", DIRECTIONS, "encrypt",
              "SubBytes, InvSubBytes, or the shared enc/dec S-box (a registered decrypt "
              "input; verified as SubBytes)",
              error=f"Direction must be one of {', '.join(map(repr, DIRECTIONS))}"),
    )

    def __init__(self, *, device_family="generic", **params):
        self.latency = self.check(device_family=device_family, **params)
        p = bind(self.PARAMS, params, type(self).__name__)
        self.sbox = p.sbox
        self.sbox_stages = p.sbox_stages
        self.direction = p.direction
        self.device_family = device_family
        self.table = gf.INV_SBOX if p.direction == "decrypt" else gf.SBOX
        members = {"i": In(8), "o": Out(8)}
        if p.direction == "shared":
            members["decrypt"] = In(1)
        super().__init__(CoreSignature(members))

    @classmethod
    def check(cls, *, device_family="generic", **params):
        """Validate the parameters without building anything; returns the latency.

        A builder calls this before the constructor, so a bad design point raises before an
        Elaboratable exists (one that is never elaborated would warn when collected).
        """
        p = bind(cls.PARAMS, params, cls.__name__)
        latency = sbox_latency(p.sbox, stages=p.sbox_stages) + 2
        if p.direction == "shared":
            check_shared_stages(p.sbox, p.sbox_stages)
        check_device_family(device_family)
        return latency

    def elaborate(self, platform):
        m = Module()
        # Built here, not in the constructor: a design point may be constructed only to read its
        # attributes, and an S-box that is never elaborated would warn (UnusedElaboratable).
        if self.direction == "shared":
            m.submodules.sbox = sbox = SharedSBox(self.sbox, stages=self.sbox_stages,
                                                  device_family=self.device_family)
            decrypt_reg = Signal()
            m.d.sync += decrypt_reg.eq(self.decrypt)
            m.d.comb += sbox.decrypt.eq(decrypt_reg)
        else:
            m.submodules.sbox = sbox = make_sbox(self.sbox, inverse=self.direction == "decrypt",
                                                 stages=self.sbox_stages,
                                                 device_family=self.device_family)
        in_reg = Signal(8)
        out_reg = Signal(8)
        m.d.sync += [in_reg.eq(self.i), out_reg.eq(sbox.o)]
        m.d.comb += [sbox.i.eq(in_reg), self.o.eq(out_reg)]
        return m
