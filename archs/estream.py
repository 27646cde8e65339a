"""The eSTREAM cipher interface of Zhou & Gaj, "AES as a stream cipher" (seed 000 Fig. 6, section
II.C), over a CTR-mode core such as ``archs.compact.Compact(mode="ctr")``.

The eSTREAM interface has strobes instead of streams: the user writes key and IV together, then
plaintext blocks, and ciphertext blocks come out with a one-cycle write strobe and no
back-pressure. :class:`EStreamAdapter` turns that into the common AES interface of the core (a key
transfer, an IV transfer, then plaintext transfers; see :mod:`archs.compact`, "Counter mode").
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["EStreamAdapter"]


class EStreamAdapter(wiring.Component):
    """The eSTREAM cipher interface of 000 Fig. 6 (section II.C) over a CTR-mode core.

    Parameters
    ----------
    core : wiring.Component
        A core with the common interface and a block input field ``iv`` (for example
        ``Compact(mode="ctr")``); it becomes a submodule.

    Members
    -------
    key : In(128)
        Cipher key.
    iv : In(128)
        Initial counter block.
    key_iv_write : In(1)
        Strobe: load ``key`` and ``iv``; they must stay unchanged until ``key_iv_ready`` is high.
    key_iv_ready : Out(1)
        High once key and IV are loaded; low from ``key_iv_write`` until then, and after reset.
    data_in : In(128)
        Plaintext block.
    data_in_write : In(1)
        A plaintext block is offered; hold it with ``data_in`` until ``data_in_ready``. Only
        taken while ``key_iv_ready`` is high.
    data_in_ready : Out(1)
        The block on ``data_in`` is taken in this cycle.
    data_out : Out(128)
        Ciphertext block.
    data_out_write : Out(1)
        ``data_out`` is a new ciphertext block, valid in this cycle only (eSTREAM output has no
        back-pressure).
    """

    key: In(128)
    iv: In(128)
    key_iv_write: In(1)
    key_iv_ready: Out(1)
    data_in: In(128)
    data_in_write: In(1)
    data_in_ready: Out(1)
    data_out: Out(128)
    data_out_write: Out(1)

    def __init__(self, core):
        if "iv" not in core.i.payload.shape().members:
            raise ValueError("The core must have a block input field 'iv' (mode='ctr')")
        self.core = core
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        loading_key = Signal()
        loading_iv = Signal()
        ready = Signal()
        m.d.comb += [
            core.key.payload.key.eq(self.key),
            core.key.valid.eq(loading_key),
            core.i.payload.data.eq(Mux(loading_iv, self.iv, self.data_in)),
            core.i.payload.iv.eq(loading_iv),
            core.i.valid.eq(loading_iv | (ready & self.data_in_write)),
            self.data_in_ready.eq(ready & core.i.ready),
            self.key_iv_ready.eq(ready),
            core.o.ready.eq(1),
            self.data_out.eq(core.o.payload.data),
            self.data_out_write.eq(core.o.valid),
        ]
        with m.If(self.key_iv_write):
            m.d.sync += [loading_key.eq(1), loading_iv.eq(0), ready.eq(0)]
        with m.Elif(loading_key & core.key.ready):
            m.d.sync += [loading_key.eq(0), loading_iv.eq(1)]
        with m.Elif(loading_iv & core.i.ready):
            m.d.sync += [loading_iv.eq(0), ready.eq(1)]
        return m
