"""Several copies of one AES core behind an in-order distributor: throughput that scales with
area (issue 15, "several pipelines on one chip"; seed 003 section III.C makes the same point with
two interleaved streams in one datapath).

Blocks go to the lanes in turn (lane 0, 1, ..., N-1, 0, ...) and results are taken from them in
the same turn, so the output stays in input order without tags or reorder buffers: every lane is
a core of the same family and parameters, and a core returns its own blocks in order. A lane that
is busy holds up the distributor; with lanes of a looped core (one block per ``Nr + 1`` cycles)
the wrapper accepts up to N blocks in a row, so N lanes of an 11-cycle core take 11/N cycles per
block when N <= 11, measured like any other core by :mod:`aesdse.verify.verify`.

A key is broadcast: it is handed to every lane (each lane takes it when it is ready) and the key
transfer completes when all of them have it. No block is dispatched while a key is offered, so
every block meets the key the user sent before it, in every lane.

Only cores that keep no state between blocks besides the key can be split this way: ECB cores.
A core that chains blocks itself (CBC, CTR: a ``modes`` attribute) would see every N-th block of
a message in each lane, so :class:`Lanes` refuses it.

A fully pipelined core already takes a block every cycle, so lanes behind one 128-bit port
cannot make it faster. :class:`ParallelLanes` gives each lane its own block in every transfer
instead: its block and result streams are ``N x 128`` bits wide (a *wide port*, block 0 of a
transfer in the most significant bits, as if the blocks' FIPS-197 hex strings were written one
after another), so N pipelines of one block per cycle take N blocks per cycle (issue 15, "one
chip, several pipelines").
"""

from types import SimpleNamespace

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .interface import CoreSignature
from .params import Param

__all__ = ["Lanes", "LANES", "ParallelLanes", "PARALLEL_LANES", "LANE_KEYS", "LANE_KEYS_PARAM",
           "check_lane_keys", "LANE_HAND_OUT", "LANE_HAND_OUT_PARAM", "check_lane_hand_out"]

#: Lane counts a family may offer as its ``lanes`` parameter.
LANES = (1, 2, 4, 8)
#: Lane counts a family may offer as its ``parallel_lanes`` parameter: three fully pipelined
#: AES-128 cores (about 19,400 LUT4 each) fit an ECP5-85F (83,640 LUT4), four may not.
PARALLEL_LANES = (1, 2, 3)

#: How the lanes of a core with round keys on the fly get their key pipelines. The lanes are
#: copies fed the same key, so their key registers, key windows and key S-boxes are identical
#: logic on identical inputs, and Yosys merges them (opt_merge): "shared" is that, one key
#: pipeline for all lanes (two fully pipelined lanes: about 5,000 LUT4 and 11,000 flip-flops
#: fewer), placed between them; "per_lane" keeps one per lane (their key registers differ in
#: their reset), so each lane's key pipeline stays beside the lane instead of one between
#: them that every lane must reach.
LANE_KEYS = ("shared", "per_lane")

#: The ``lane_keys`` parameter of a family with lanes and round keys on the fly.
LANE_KEYS_PARAM = Param("lane_keys", LANE_KEYS, "shared",
                        "with lanes and round keys on the fly: one key pipeline merged by Yosys "
                        "for all lanes (shared) or one per lane (per_lane)",
                        omitted_at_default=True,
                        error=f"Lane keys must be one of {', '.join(LANE_KEYS)}")


#: When a lane of a wide port hands out its result (:class:`ParallelLanes`): "all_valid", when
#: every lane has one (the wide port's valid, the AND of the lanes' valid flags, gates every
#: lane); "own_valid", on the lane's own valid flag and the port's ready alone. The lanes run in
#: lock step (see :class:`ParallelLanes`), so both hand out the same results in the same cycles;
#: own_valid keeps the AND, a net across the chip with three lanes, out of each lane's
#: hand-out logic (its output buffer's read pointer and credit counter).
LANE_HAND_OUT = ("all_valid", "own_valid")

#: The ``lane_hand_out`` parameter of a family with parallel lanes.
LANE_HAND_OUT_PARAM = Param("lane_hand_out", LANE_HAND_OUT, "all_valid",
                            "with parallel lanes: a lane hands out its result when every lane "
                            "has one (all_valid) or on its own valid flag (own_valid: the lanes "
                            "run in lock step, so no other lane's flag reaches its hand-out)",
                            omitted_at_default=True,
                            error=f"Lane hand-out must be one of {', '.join(LANE_HAND_OUT)}")


def check_lane_hand_out(lane_hand_out, *, parallel_lanes):
    """Raise ``ValueError`` unless ``lane_hand_out`` suits ``parallel_lanes`` (own_valid needs
    two or more)."""
    LANE_HAND_OUT_PARAM.check(lane_hand_out)
    if lane_hand_out != "all_valid" and parallel_lanes == 1:
        raise ValueError(f"Lane hand-out {lane_hand_out} needs two or more parallel lanes")


def check_lane_keys(lane_keys, *, lanes, parallel_lanes, key_schedule):
    """Raise ``ValueError`` unless ``lane_keys`` suits the lanes of a core whose round keys
    are ``key_schedule`` (per-lane key pipelines need two or more lanes, keys on the fly)."""
    LANE_KEYS_PARAM.check(lane_keys)
    if lane_keys == "per_lane" and (max(lanes, parallel_lanes) == 1
                                    or key_schedule != "on_the_fly"):
        raise ValueError("Per-lane key pipelines need two or more lanes of a core with "
                         "round keys on the fly")


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

    #: The ``lanes`` parameter of a family that offers lanes (:mod:`archs.params`).
    PARAM = Param("lanes", LANES, 1,
                  "copies of the core behind an in-order distributor (archs.lanes): blocks "
                  "in turn to each, results in input order; throughput scales with area",
                  omitted_at_default=True,
                  error=f"Lanes must be one of {', '.join(map(str, LANES))}")

    @classmethod
    def check(cls, lanes, *, port_width=128):
        """Raise ``ValueError`` for a lane count the wrapper cannot build, or for several lanes
        of a byte-stream core (``port_width`` 8: the distributor splits 128-bit blocks)."""
        cls.PARAM.check(lanes)
        if lanes > 1 and port_width != 128:
            raise ValueError(f"Lanes need cores with 128-bit ports, not port width {port_width!r}")

    @staticmethod
    def check_core(core):
        """Raise ``ValueError`` for a core whose blocks cannot be split over lanes: one that
        chains blocks itself (``modes`` in its signature)."""
        if core.signature.modes:
            raise ValueError(f"{type(core).__name__} chains blocks itself "
                             f"({', '.join(core.signature.modes)}): its blocks cannot be split "
                             f"over lanes")

    def __init__(self, lanes):
        self.lanes = list(lanes)
        first = self.lanes[0]
        self.blocks_in_flight = len(self.lanes) * first.signature.blocks_in_flight
        self.clock_multipliers = dict(first.signature.clock_multipliers)
        resources = getattr(first, "resources", None)
        self.resources = ({k: v * len(self.lanes) for k, v in resources.items()}
                          if isinstance(resources, dict) else None)
        super().__init__(first.signature.replace(blocks_in_flight=self.blocks_in_flight))

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
        complete = _broadcast(m, self.key, [lane.key for lane in self.lanes],
                              lambda n: self.key.payload)
        m.d.comb += self.key.ready.eq(complete)

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


def _broadcast(m, source, sinks, payload):
    """Hand each transfer of ``source`` to every stream of ``sinks``: each sink takes it when it
    is ready, and the transfer completes when all of them have it.

    ``payload(n)`` is what sink ``n`` is given. Returns ``complete`` (a sink's ``valid`` never
    waits for another sink's ``ready``, as :mod:`amaranth.lib.stream` requires); the caller
    drives ``source.ready`` from it. A ``taken`` register remembers the sinks that already have
    the transfer; sinks that are always ready together (lanes in lock step) never set it."""
    taken = Signal(len(sinks))
    for n, sink in enumerate(sinks):
        m.d.comb += [sink.payload.eq(payload(n)),
                     sink.valid.eq(source.valid & ~taken[n])]
    complete = Cat(taken[n] | sink.ready for n, sink in enumerate(sinks)).all()
    with m.If(source.valid):
        with m.If(complete):
            m.d.sync += taken.eq(0)
        with m.Else():
            for n, sink in enumerate(sinks):
                with m.If(sink.ready):
                    m.d.sync += taken[n].eq(1)
    return complete


class ParallelLanes(wiring.Component):
    """Copies of a core side by side, each with its own block in every transfer: a wide port.

    The key is broadcast as in :class:`Lanes`, and no block transfer starts while a key is
    offered, so every block of a transfer meets the key sent before it. A block transfer hands
    block ``n`` to lane ``n`` (:func:`_broadcast`: each lane takes its block when ready); a
    result transfer waits until every lane has a result and then takes them all. Lanes fed in
    lock step are always ready together, so the distributor adds one AND of the lanes'
    handshakes to the core's own control and no register-to-register path through the data:
    block and result bits go straight between the ports and the lanes.

    Parameters
    ----------
    lanes : list of Component
        Two or more fresh cores of one family and parameters with 128-bit ports and no block
        or result fields besides ``data``; check them with :meth:`check` and
        :meth:`check_core` first.
    hand_out : str
        :data:`LANE_HAND_OUT`: a lane hands out its result when every lane has one
        (``"all_valid"``) or on its own valid flag (``"own_valid"``).

    Members
    -------
    key : In(stream)
        A lane's key stream, broadcast.
    i : In(stream)
        Payload ``{"data": unsigned(128 * N)}``: N blocks, block 0 in the top 128 bits.
    o : Out(stream)
        Payload ``{"data": unsigned(128 * N)}``: the N results, in the blocks' places.

    Attributes
    ----------
    lanes : list of Component
    blocks_per_transfer : int
        N: the verify stage sends N blocks per transfer and counts cycles per block as cycles
        per transfer over N.
    blocks_in_flight : int
        N times a lane's.
    clock_multipliers : dict
        A lane's.
    resources : dict or None
        A lane's counts times N.
    """

    #: The ``parallel_lanes`` parameter, offered by the families whose blocks and results carry
    #: data alone (:mod:`archs.params`).
    PARAM = Param("parallel_lanes", PARALLEL_LANES, 1,
                  "copies of the core side by side behind a wide port of N blocks "
                  "per transfer (archs.lanes.ParallelLanes): N pipelines, each a "
                  "block per cycle", omitted_at_default=True,
                  error=f"Parallel lanes must be one of {', '.join(map(str, PARALLEL_LANES))}")

    @classmethod
    def check(cls, parallel_lanes, *, lanes=1, port_width=128):
        """Raise ``ValueError`` for a count the wrapper cannot build, for parallel lanes of a
        byte-stream core (``port_width`` 8) and for parallel lanes combined with ``lanes``."""
        cls.PARAM.check(parallel_lanes)
        if parallel_lanes > 1 and port_width != 128:
            raise ValueError(f"Parallel lanes need cores with 128-bit ports, not port width "
                             f"{port_width!r}")
        if parallel_lanes > 1 and lanes != 1:
            raise ValueError(f"Parallel lanes ({parallel_lanes}) and lanes behind one port "
                             f"({lanes}) cannot be combined")

    @staticmethod
    def check_core(core):
        """Raise ``ValueError`` for a core a wide port cannot carry: one that chains blocks
        (:meth:`Lanes.check_core`) or has block or result fields besides ``data``."""
        Lanes.check_core(core)
        for name in ("i", "o"):
            fields = [f for f, _ in getattr(core, name).payload.shape()]
            if fields != ["data"]:
                raise ValueError(f"{type(core).__name__} has {name} fields {fields!r}: a wide "
                                 f"port carries the block data alone")

    def __init__(self, lanes, *, hand_out="all_valid"):
        LANE_HAND_OUT_PARAM.check(hand_out)
        self.lanes = list(lanes)
        self.hand_out = hand_out
        first = self.lanes[0]
        count = len(self.lanes)
        self.blocks_per_transfer = count
        self.blocks_in_flight = count * first.signature.blocks_in_flight
        self.clock_multipliers = dict(first.signature.clock_multipliers)
        resources = getattr(first, "resources", None)
        self.resources = ({k: v * count for k, v in resources.items()}
                          if isinstance(resources, dict) else None)
        wide = data.StructLayout({"data": 128 * count})
        super().__init__(CoreSignature({
            "key": first.signature.members["key"],
            "i": In(stream.Signature(wide)),
            "o": Out(stream.Signature(wide)),
        }, key_sizes=first.signature.key_sizes, blocks_in_flight=self.blocks_in_flight,
            blocks_per_transfer=count,
            clock_multipliers=self.clock_multipliers))

    def _block(self, value, n):
        """Block ``n`` of a wide value: block 0 in the top 128 bits."""
        top = 128 * len(self.lanes)
        return value[top - 128 * (n + 1):top - 128 * n]

    def elaborate(self, platform):
        m = Module()
        for n, lane in enumerate(self.lanes):
            m.submodules[f"lane{n}"] = lane
        keys_taken = _broadcast(m, self.key, [lane.key for lane in self.lanes],
                                lambda n: self.key.payload)
        m.d.comb += self.key.ready.eq(keys_taken)

        # Blocks: none while a key is offered (the key goes first in every lane).
        blocks = Signal.like(self.i.valid)
        m.d.comb += blocks.eq(self.i.valid & ~self.key.valid)
        offer = SimpleNamespace(valid=blocks, payload=self.i.payload, ready=None)
        blocks_taken = _broadcast(m, offer, [lane.i for lane in self.lanes],
                                  lambda n: self._block(self.i.payload.data, n))
        m.d.comb += self.i.ready.eq(blocks_taken & ~self.key.valid)

        # Results: all lanes' at once (own_valid: in lock step, each lane's valid is the AND).
        every_result = Cat(lane.o.valid for lane in self.lanes).all()
        m.d.comb += [self.o.valid.eq(every_result),
                     self.o.payload.data.eq(Cat(*reversed([lane.o.payload.data
                                                           for lane in self.lanes])))]
        for lane in self.lanes:
            m.d.comb += lane.o.ready.eq(self.o.ready if self.hand_out == "own_valid"
                                        else self.o.ready & every_result)
        return m
