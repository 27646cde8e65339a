"""The shared encrypt/decrypt S-box: one GF(2^8) inverter for SubBytes and InvSubBytes.

Seed 003 section III.B: one inverter between an inverse-affine map on the way in and an affine
map on the way out, each bypassed according to a ``decrypt`` input, with an inverter of any
S-box kind (:mod:`.sbox_kinds`); a published circuit brings its own combined form instead.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out

from . import gf
from .circuit_sbox import circuit_sbox_bits, named_wires
from .circuits import CIRCUITS
from .composite import COMPOSITE, SPLIT_CUTS, subfield_inversion
from .field_sbox import PipelineCuts, field_maps
from .sbox_kinds import PIPELINE_CUTS, check_device_family, check_shared_stages, sbox_latency
from .table_sbox import RegisteredRom
from .tower import TOWER

__all__ = ["SharedSBox"]


class SharedSBox(wiring.Component):
    """Encrypt/decrypt S-box around one shared inverter (seed 003 section III.B, Fig. 8(a)).

    On the way in, ``decrypt`` selects the inverse affine map of the input (InvSubBytes) or the
    input itself (SubBytes); then the GF(2^8) inverter of the chosen kind; on the way out,
    ``decrypt`` bypasses the affine map. The direction travels through the pipeline with its
    byte, so it may change every cycle.

    Parameters
    ----------
    kind : str
        Inverter kind: ``lut`` (the GF(2^8) inverse table as logic), ``bram`` (the inverse table
        in a registered ROM), ``composite`` or ``tower``; or a published circuit
        (:data:`archs.prims.circuits.CIRCUITS`), which replaces the whole datapath by its own
        combined circuit (:func:`circuit_sbox_bits`).
    stages : int
        Pipeline registers of the ``composite`` and ``tower`` inverters (0 otherwise).
    inverter_register : bool
        A pipeline register at the output of the GF(2^8) inverter, before the affine map: the
        cut of seed 003's two-stage datapath (section III.C: "partitioned at the output of the
        LUT-based GF inverter"). Adds one cycle of latency (none for ``composite`` and ``tower``
        if ``stages`` already has cut 6, which is the same place). Not for the published
        circuits, which have no separate inverter output.
    affine : bool
        True: the affine maps around the inverter as above. False: the bare GF(2^8) inverter,
        ``o`` is the inverse of ``i`` in both directions and ``decrypt`` is not used; for the
        retiming of 003 section III.B (Fig. 8(b)), where the datapath merges the affine map into
        MixColumns and the inverse affine map into InvMixColumns. Not for the published
        circuits either.
    device_family : str
        Device family (``bram`` instantiates a DP16KD on ``"ecp5"``).

    Members
    -------
    i : In(8)
        Input byte.
    decrypt : In(1)
        Direction of this input byte: 0 for SubBytes, 1 for InvSubBytes.
    o : Out(8)
        Result, ``latency`` cycles later.

    Attributes
    ----------
    table, inv_table : tuple
        What ``o`` must be for ``decrypt`` 0 and 1 (both the inverse table without
        ``affine``).
    """

    i: In(8)
    decrypt: In(1)
    o: Out(8)

    def __init__(self, kind="composite", *, stages=0, inverter_register=False, affine=True,
                 device_family="generic"):
        self.latency = sbox_latency(kind, stages=stages)
        check_device_family(device_family)
        check_shared_stages(kind, stages)
        if kind in CIRCUITS and (inverter_register or not affine):
            raise ValueError(f"S-box family {kind!r} has no inverter output for "
                             f"{'inverter_register' if inverter_register else 'affine=False'}")
        self.kind = kind
        self.stages = stages
        self.inverter_register = bool(inverter_register)
        if kind in ("lut", "bram") or kind in CIRCUITS:
            self.latency += self.inverter_register
        else:
            self.latency = len(self._cuts())
        self.device_family = device_family
        self.affine = bool(affine)
        inverse = tuple(gf.inv(v) for v in range(256))
        self.table = gf.SBOX if self.affine else inverse
        self.inv_table = gf.INV_SBOX if self.affine else inverse
        super().__init__()

    def _cuts(self):
        """Cut points of a ``composite`` or ``tower`` inverter (cut 6 is the inverter output
        here: the affine map is applied after it)."""
        return set(PIPELINE_CUTS[self.stages]) | ({6} if self.inverter_register else set())

    def elaborate(self, platform):
        m = Module()
        x = [self.i[k] for k in range(8)]
        if self.kind in CIRCUITS:
            out = circuit_sbox_bits(CIRCUITS[self.kind], x, decrypt=self.decrypt, mux=Mux,
                                    node=named_wires(m))
            m.d.comb += self.o.eq(Cat(*out))
            return m
        inv_aff = gf.apply_byte_affine(x, gf.inv_affine)
        a = [Mux(self.decrypt, d, e) for d, e in zip(inv_aff, x)] if self.affine else x
        decrypt = self.decrypt
        if self.kind in ("lut", "bram"):
            inverse = tuple(gf.inv(v) for v in range(256))
            if self.kind == "lut":
                m.submodules.rom = rom = memory.Memory(shape=8, depth=256, init=inverse)
                port = rom.read_port(domain="comb")
                m.d.comb += port.addr.eq(Cat(*a))
                y_value = port.data
            else:
                m.submodules.rom = rom = RegisteredRom(inverse, device_family=self.device_family)
                m.d.comb += rom.addr.eq(Cat(*a))
                y_value = rom.data
            if self.inverter_register:
                y_reg = Signal(8, name="inverse")
                m.d.sync += y_reg.eq(y_value)
                y_value = y_reg
            for n in range(self.latency):
                delayed = Signal(name=f"decrypt_d{n + 1}")
                m.d.sync += delayed.eq(decrypt)
                decrypt = delayed
            y = [y_value[k] for k in range(8)]
        else:
            field = COMPOSITE if self.kind == "composite" else TOWER
            to_field, from_field = field_maps(field)
            cuts = self._cuts()
            cut = PipelineCuts(m, cuts, carry=[self.decrypt])
            b = cut(1, gf.apply_byte_affine(a, to_field))
            y = subfield_inversion(field, b, cut, split_multipliers=SPLIT_CUTS[0] in cuts)
            y = cut(6, gf.apply_byte_affine(y, from_field))
            decrypt = cut.carry[0]
        if not self.affine:
            m.d.comb += self.o.eq(Cat(*y))
            return m
        aff = gf.apply_byte_affine(y, gf.affine)
        m.d.comb += self.o.eq(Cat(*[Mux(decrypt, p, q) for p, q in zip(y, aff)]))
        return m
