"""The signals the parts of :class:`archs.compact.Compact` hand to each other.

The core is built in the order a step flows through it: the control pipeline
(:mod:`archs.compact.control`) first, then the key schedule (:mod:`archs.compact.keypath`), the
sequencer and the block handshakes (``control`` again), the state memory
(:mod:`archs.compact.state_memory`) and the round datapath with its write-back
(:mod:`archs.compact.datapath`). Each part fills in the fields it drives; a later part reads
them. A field with a default is None until its part has been built.
"""

from dataclasses import dataclass

from amaranth.hdl import Signal, Value

from ..prims.bytekeyschedule import ByteKeySchedule
from ..prims.keyexpander import KeyExpander

__all__ = ["CoreWires"]


@dataclass
class CoreWires:
    """The signals between the parts of one compact core.

    Attributes
    ----------
    rnd, step
        The sequencer's position: the round-step (0 the load step, 1-10 the rounds) and the
        step within it of the next issue.
    wait
        Cycles the sequencer still waits before the round-step (:func:`archs.compact.schedule`,
        ``gap``).
    issue
        A step is issued this cycle (combinational, driven by the sequencer).
    sv, sr, ss
        Valid, round and step of the S-box output stage: the issue control delayed by the S-box
        latency ``L`` (the stage where the load step takes the block bytes).
    wv, wr, ws
        Valid, round and step of the write-back stage: the issue control delayed by ``D``.
    drained
        No issued step is in flight in the pipeline.
    stall
        Byte ports: a result byte is offered and not taken, so the whole core holds.
    kx
        The key schedule: a :class:`archs.prims.keyexpander.KeyExpander`, or with byte ports a
        :class:`archs.prims.bytekeyschedule.ByteKeySchedule`.
    key_bytes
        The round-key bytes of the write-back stage's step (position 0 first).
    group_end
        The write-back stage's step uses the last bytes of the key schedule's group, so the
        next group is taken with it.
    kx_at_start
        The key walk is at round key 0.
    out_data, out_valid
        128-bit ports: the output register that round 10 shifts its bytes into, and its valid
        flag.
    restart_pending
        Round 10 is fully issued and its last write is not yet done (the key walk restarts
        with that write).
    walk_ready
        The key walk has been valid at round key 0 since the last key load or discarded block.
    counter, counter_loaded
        CTR mode: the counter block and "an IV has been loaded".
    at_start
        The sequencer is at the load step's first step (round 0, step 0).
    iv_pending
        CTR mode: an IV transfer is offered (``Const(0, 1)`` otherwise).
    abort
        CTR mode: the block waiting before its last round is discarded (``Const(0, 1)``
        otherwise).
    """
    rnd: Signal
    step: Signal
    wait: Signal
    issue: Signal
    sv: Value
    sr: Value
    ss: Value
    wv: Value
    wr: Value
    ws: Value
    drained: Value
    stall: Signal
    kx: KeyExpander | ByteKeySchedule | None = None
    key_bytes: list[Value] | None = None
    group_end: Value | None = None
    kx_at_start: Value | None = None
    out_data: Signal | None = None
    out_valid: Signal | None = None
    restart_pending: Signal | None = None
    walk_ready: Signal | None = None
    counter: Signal | None = None
    counter_loaded: Signal | None = None
    at_start: Value | None = None
    iv_pending: Value | None = None
    abort: Value | None = None
