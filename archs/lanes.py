"""Several copies of one AES core behind an in-order distributor: throughput that scales with
area (issue 15, "several pipelines on one chip"; seed 003 section III.C makes the same point with
two interleaved streams in one datapath).

Blocks go to the lanes in turn (lane 0, 1, ..., N-1, 0, ...) and results are taken from them in
the same turn, so the output stays in input order without tags or reorder buffers: every lane is
a core of the same family and parameters, and a core returns its own blocks in order. A lane that
is busy holds up the distributor; with lanes of a looped core (one block per ``Nr + 1`` cycles)
the wrapper accepts up to N blocks in a row, so N lanes of an 11-cycle core take 11/N cycles per
block when N <= 11, measured like any other core by :mod:`aesdse.verify`.

A key is broadcast: it is handed to every lane (each lane takes it when it is ready) and the key
transfer completes when all of them have it. No block is dispatched while a key is offered, so
every block meets the key the user sent before it, in every lane.

Only cores that keep no state between blocks besides the key can be split this way: ECB cores.
A core that chains blocks itself (CBC, CTR: a ``modes`` attribute) would see every N-th block of
a message in each lane, so :class:`Lanes` refuses it.
"""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import wiring

__all__ = ["Lanes", "LANES"]

#: Lane counts a family may offer as its ``lanes`` parameter.
LANES = (1, 2, 4, 8)


class Lanes(wiring.Component):
    """Copies of a core with the :class:`archs.interface.AESSignature` interface, as one core.

    Parameters
    ----------
    lanes : list of Component
        Two or more cores of one family and parameters, each fresh (not used elsewhere); check
        them with :meth:`check` and :meth:`check_core` first.

    Members
    -------
    key, i, o
        The lanes' own signature: a user sees one core.

    Attributes
    ----------
    lanes : list of Component
    blocks_in_flight : int
        The number of lanes times a lane's, read by the verify stage's cycles-per-block
        measurement.
    clock_multipliers : dict
        A lane's.
    resources : dict or None
        A lane's counts times the number of lanes.
    """

    @staticmethod
    def check(lanes, *, port_width=128):
        """Raise ``ValueError`` for a lane count the wrapper cannot build, or for several lanes
        of a byte-stream core (``port_width`` 8: the distributor splits 128-bit blocks)."""
        if lanes not in LANES or isinstance(lanes, bool):
            raise ValueError(f"Lanes must be one of {', '.join(map(str, LANES))}, not {lanes!r}")
        if lanes > 1 and port_width != 128:
            raise ValueError(f"Lanes need cores with 128-bit ports, not port width {port_width!r}")

    @staticmethod
    def check_core(core):
        """Raise ``ValueError`` for a core whose blocks cannot be split over lanes: one that
        chains blocks itself (a ``modes`` attribute)."""
        if getattr(core, "modes", None):
            raise ValueError(f"{type(core).__name__} chains blocks itself "
                             f"({', '.join(core.modes)}): its blocks cannot be split over lanes")

    def __init__(self, lanes):
        self.lanes = list(lanes)
        first = self.lanes[0]
        self.blocks_in_flight = len(self.lanes) * getattr(first, "blocks_in_flight", 1)
        self.clock_multipliers = dict(getattr(first, "clock_multipliers", {}))
        resources = getattr(first, "resources", None)
        self.resources = ({k: v * len(self.lanes) for k, v in resources.items()}
                          if isinstance(resources, dict) else None)
        super().__init__(first.signature)

    def elaborate(self, platform):
        m = Module()
        for n, lane in enumerate(self.lanes):
            m.submodules[f"lane{n}"] = lane
        self._build_key_broadcast(m)
        self._build_block_turns(m)
        self._build_result_turns(m)
        return m

    def _build_key_broadcast(self, m):
        """Offer the key to every lane that has not taken it yet; complete the transfer when
        each lane has it or takes it now."""
        taken = Signal(len(self.lanes))
        for n, lane in enumerate(self.lanes):
            m.d.comb += [lane.key.payload.eq(self.key.payload),
                         lane.key.valid.eq(self.key.valid & ~taken[n])]
        complete = Cat(taken[n] | lane.key.ready for n, lane in enumerate(self.lanes)).all()
        m.d.comb += self.key.ready.eq(complete)
        with m.If(self.key.valid):
            with m.If(complete):
                m.d.sync += taken.eq(0)
            with m.Else():
                for n, lane in enumerate(self.lanes):
                    with m.If(lane.key.ready):
                        m.d.sync += taken[n].eq(1)

    def _build_block_turns(self, m):
        """Hand each block to the lane whose turn it is; none while a key is offered."""
        turn = Signal(range(len(self.lanes)))
        ready = 0
        for n, lane in enumerate(self.lanes):
            mine = turn == n
            m.d.comb += [lane.i.payload.eq(self.i.payload),
                         lane.i.valid.eq(self.i.valid & mine & ~self.key.valid)]
            ready = Mux(mine, lane.i.ready, ready)
        m.d.comb += self.i.ready.eq(ready & ~self.key.valid)
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += turn.eq(Mux(turn == len(self.lanes) - 1, 0, turn + 1))

    def _build_result_turns(self, m):
        """Take results from the lanes in the order their blocks went in."""
        turn = Signal(range(len(self.lanes)))
        valid, payload = 0, 0
        for n, lane in enumerate(self.lanes):
            mine = turn == n
            m.d.comb += lane.o.ready.eq(self.o.ready & mine)
            valid = Mux(mine, lane.o.valid, valid)
            payload = Mux(mine, lane.o.payload.as_value(), payload)
        m.d.comb += [self.o.valid.eq(valid), self.o.payload.eq(payload)]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += turn.eq(Mux(turn == len(self.lanes) - 1, 0, turn + 1))
