"""Input and output FIFOs around an AES core (seed 003 Fig. 10: the core behind input and output
buffers on the bus, so the host writes the next blocks while the core works and reads results
when it likes).

The block and result streams each pass through an :class:`amaranth.lib.fifo.SyncFIFOBuffered`
of ``depth`` entries holding the whole payload (block fields included). Keys go straight to the
core, but in the order the user issued them: a key is taken only when every block sent before
it has left the input FIFO (so it reaches the core after them), and no block enters the input
FIFO while a key is offered (so blocks sent after the key meet it).

The FIFOs do not slow a stream of blocks down; a lone block takes four cycles longer (each
FIFO's memory and output register), measured by the verify stage.
"""

from amaranth.hdl import Module, Shape
from amaranth.lib import fifo, wiring

from .params import Param

__all__ = ["Buffered", "FIFO_DEPTHS"]

#: FIFO depths a family may offer as its ``fifo_depth`` parameter (0: no FIFOs).
FIFO_DEPTHS = (0, 2, 4, 8)


class Buffered(wiring.Component):
    """An AES core (:class:`archs.interface.AESSignature`) with input and output FIFOs.

    Parameters
    ----------
    core : Component
        The core; fresh, not used elsewhere.
    depth : int
        Entries of each FIFO (blocks), one of :data:`FIFO_DEPTHS` but 0.

    Members
    -------
    key, i, o
        The core's signature, with its facts (:class:`archs.interface.CoreSignature`).

    Attributes
    ----------
    core : Component
    blocks_in_flight, clock_multipliers, measure_key_bits, modes, ...
        The facts of the core's signature (:attr:`archs.interface.CoreSignature.FACTS`).
    resources
        The core's, where it has them.
    """

    #: The parameter of a family that may put a core in this wrapper (:mod:`archs.params`).
    PARAM = Param("fifo_depth", FIFO_DEPTHS, 0,
                  "blocks of the input and output FIFOs around the core (003 Fig. 10; "
                  "archs.buffered), 0: none", omitted_at_default=True,
                  error=f"FIFO depth must be one of {', '.join(map(str, FIFO_DEPTHS))}")

    @classmethod
    def check(cls, depth):
        """Raise ``ValueError`` for a depth the wrapper cannot build."""
        cls.PARAM.check(depth)

    def __init__(self, core, depth):
        self.core = core
        self.depth = depth
        for name in core.signature.FACTS:
            setattr(self, name, getattr(core.signature, name))
        if hasattr(core, "resources"):
            self.resources = core.resources
        super().__init__(core.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        in_width = Shape.cast(self.i.payload.shape()).width
        out_width = Shape.cast(self.o.payload.shape()).width
        m.submodules.in_fifo = in_fifo = fifo.SyncFIFOBuffered(width=in_width, depth=self.depth)
        m.submodules.out_fifo = out_fifo = fifo.SyncFIFOBuffered(width=out_width,
                                                                 depth=self.depth)
        m.d.comb += [
            # Keys: after every earlier block has reached the core, before any later block.
            core.key.payload.eq(self.key.payload),
            core.key.valid.eq(self.key.valid & (in_fifo.level == 0)),
            self.key.ready.eq(core.key.ready & (in_fifo.level == 0)),
            # Blocks: host -> input FIFO -> core.
            in_fifo.w_data.eq(self.i.payload.as_value()),
            in_fifo.w_en.eq(self.i.valid & ~self.key.valid),
            self.i.ready.eq(in_fifo.w_rdy & ~self.key.valid),
            core.i.payload.eq(in_fifo.r_data),
            core.i.valid.eq(in_fifo.r_rdy),
            in_fifo.r_en.eq(core.i.ready),
            # Results: core -> output FIFO -> host.
            out_fifo.w_data.eq(core.o.payload.as_value()),
            out_fifo.w_en.eq(core.o.valid),
            core.o.ready.eq(out_fifo.w_rdy),
            self.o.payload.eq(out_fifo.r_data),
            self.o.valid.eq(out_fifo.r_rdy),
            out_fifo.r_en.eq(self.o.ready),
        ]
        return m
