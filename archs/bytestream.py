"""The common 128-bit interface in front of a byte-stream core, for simulation.

A core with ``port_width = 8`` (:mod:`archs.interface`, "Byte-stream cores") takes its key and
blocks as 16 byte transfers each and hands each result out as 16 byte transfers, byte 0 first.
The verify stage (:mod:`aesdse.verify.verify`) and the generic testbenches speak the common interface of
:class:`archs.interface.AESSignature`, so they drive such a core through
:class:`ByteStreamAdapter`. The adapter is a testbench part: the generate stage writes the
netlist of the core alone (:func:`aesdse.generate.generate`), and the adapter is never measured.

Cycle counts stay honest: the adapter hands the core one byte per cycle as soon as it holds a key
or block, so the byte transfers are the core's own (a block of the 8-bit compact core is 16 byte
transfers in its load step plus 160 cycles of rounds: 176 cycles per block), and a result
leaves the adapter one cycle after its last byte came out of the core.
"""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring

from .interface import AESSignature

__all__ = ["ByteStreamAdapter"]


class ByteStreamAdapter(wiring.Component):
    """A byte-stream AES-128 core behind the common 128-bit interface.

    Parameters
    ----------
    core : wiring.Component
        A core with ``port_width == 8`` (byte-wide ``key``, ``i`` and ``o`` streams).

    Members
    -------
    key, i, o
        The common interface (:class:`archs.interface.AESSignature`, AES-128). Each 128-bit
        key or block is split into 16 byte transfers into the core, byte 0 (bits 127..120)
        first; 16 result bytes make one 128-bit result.

    Attributes
    ----------
    core : wiring.Component
    port_width : int
        128: the adapter itself has the common interface.

    Raises
    ------
    ValueError
        If ``core`` is not a byte-stream core.

    Implementation notes
    --------------------
    Key and block have a shift register each; a new key or block is taken when the previous one
    has been handed over completely, and a key also waits for the block before it (the core
    takes a key only between blocks and gives it priority over a waiting block, as the common
    interface requires, so a key taken while a block is still in the adapter would overtake
    it). The
    result bytes are collected in a third shift register, which holds back the core (``ready``
    low) while a complete result waits to be taken.
    """

    port_width = 128

    def __init__(self, core):
        if core.signature.port_width != 8:
            raise ValueError(f"The core must have byte-wide ports (port_width 8), not {core!r}")
        self.core = core
        super().__init__(AESSignature(key_sizes=(128,)))

    @property
    def resources(self):
        return getattr(self.core, "resources", None)

    @property
    def cycles_per_block(self):
        return getattr(self.core, "cycles_per_block", None)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        block_left = self._serialize(m, self.i, self.i.payload.data, core.i,
                                     core.i.payload.data)
        key_left = self._serialize(m, self.key, self.key.payload.key, core.key,
                                   core.key.payload.key)
        # A key waits until the block before it is handed over completely: the core gives a
        # key offered between blocks priority over a block, so a key taken earlier would
        # overtake that block.
        m.d.comb += self.key.ready.eq((key_left == 0) & (block_left == 0))

        # Results: 16 bytes shift in at the bottom, so byte 0 ends at bits 127..120.
        result = Signal(128)
        count = Signal(range(17))
        full = count == 16
        m.d.comb += [core.o.ready.eq(~full), self.o.valid.eq(full),
                     self.o.payload.data.eq(result)]
        with m.If(core.o.valid & core.o.ready):
            m.d.sync += [result.eq(Cat(core.o.payload.data, result[:120])), count.eq(count + 1)]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += count.eq(0)
        return m

    @staticmethod
    def _serialize(m, wide, wide_value, narrow, narrow_value):
        """Split each 128-bit transfer of ``wide`` into 16 byte transfers of ``narrow``.

        Drives ``wide.ready`` (a later ``eq`` in the same module overrides it); returns the
        count of bytes not yet handed over."""
        buffer = Signal(128)
        left = Signal(range(17))          # bytes of ``buffer`` not yet handed over
        m.d.comb += [wide.ready.eq(left == 0), narrow.valid.eq(left != 0),
                     narrow_value.eq(buffer[120:])]
        with m.If(wide.valid & wide.ready):
            m.d.sync += [buffer.eq(wide_value), left.eq(16)]
        with m.If(narrow.valid & narrow.ready):
            m.d.sync += [buffer.eq(Cat(Const(0, 8), buffer[:120])), left.eq(left - 1)]
        return left
