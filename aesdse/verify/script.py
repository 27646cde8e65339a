"""Testbench as data: one script per design point, played by every simulation backend.

A :class:`Script` says everything a testbench does to a core's :mod:`amaranth.lib.stream`
interfaces (:mod:`archs.interface`), as plain numbers:

* the input transfers, in order, each with its stream, its payload (the packed bits of the
  payload layout, fields as :meth:`amaranth.lib.data.Layout.const` packs them) and the idle
  cycles before it (input stalls);
* for each output stream, the payloads it must hand out, in order, and a cyclic ``ready``
  pattern (output back-pressure);
* the clocks (``sync`` and the faster domains of ``clock_multipliers``), the reset ports held
  low and the cycle limit.

A backend plays a script and returns a :class:`Playback`: the clock edge of every input transfer
and every output transfer with its edge and payload. Python then compares the outputs with the
expected ones (:func:`check_playback`) and measures timing from the edges. Two backends that play
one script must return equal playbacks, edge for edge; the amaranth.sim player is
:func:`play_amaranth`, the compiled one :func:`aesdse.verify.cxxrtl.play_compiled`.

Cycle protocol (both players implement it)
------------------------------------------
Edges of the ``sync`` clock are numbered from 1. Input transfers go one at a time, in script
order: transfer ``k`` asserts ``valid`` (with its payload) in the cycles ending at edges
``e + gap + 1``, ``e + gap + 2``, ... where ``e`` is the edge of transfer ``k - 1`` (0 for the
first), until an edge at which the core's ``ready`` is high; that edge is its cycle. An output
stream asserts ``ready`` in the cycle ending at edge ``c`` when its pattern has a 1 at index
``(c - 1) % len(pattern)`` and it still expects transfers; an output transfer is an edge at
which it asserted ``ready`` and the core's ``valid`` was high, and its payload is sampled at
that edge. Playing stops when every transfer happened, or after ``max_cycles`` edges (a hang).
This is the protocol of :func:`aesdse.verify.testbench.stream_put` and
:func:`aesdse.verify.testbench.stream_get`, with the stalls drawn in advance.

Which scripts
-------------
:func:`verification_script` is the checking script of any cipher core: every check of
:mod:`aesdse.verify.verify` (:func:`aesdse.verify.blocks.checking_blocks`: standard and random
vectors in both directions, chaining modes, CCM with its ``auth_fail`` result, two interleaved
streams, wide ports, byte-stream cores behind their :class:`archs.bytestream.ByteStreamAdapter`),
with random stalls from the seed. :func:`items_script` is the one translator from blocks to a
script; the verify stage's measurement runs use it too, without stalls. An output stream may be
checked per sub-stream (:attr:`OutputStream.order_by`): a two-stream core's results are checked in
each stream's own input order, in Python after playing, so the players need not know.
:func:`block_script` is :func:`verification_script` restricted to plain block cores.
:func:`netlist_checking_script` is the netlist stage's shorter one: the same kinds of check,
within a budget of blocks (:attr:`aesdse.spec.schema.VerifyOptions.netlist_blocks`).
"""

import random
from dataclasses import dataclass, replace

from amaranth.hdl import Value

from archs.bytestream import ByteStreamAdapter

from ..spec.schema import VerifyOptions
from .backends import resolved_options
from .blocks import checking_blocks, core_directions, key_items
from .testbench import testbench_simulator
from .vectors import BlockVector

__all__ = ["InputTransfer", "OutputStream", "Script", "Playback", "ScriptUnsupported",
           "ScriptMismatch", "READY_PATTERN_LENGTH", "block_script", "verification_script",
           "items_script", "netlist_options", "netlist_checking_script", "stalls",
           "script_clocks", "common_interface", "play_amaranth", "AmaranthScriptPlayer",
           "check_playback", "hang_message"]

#: Length of the cyclic ``ready`` pattern of an output stream: a prime, so that the pattern
#: does not fall in step with a core's own period.
READY_PATTERN_LENGTH = 1009


@dataclass(frozen=True)
class InputTransfer:
    """One transfer into an input stream.

    Attributes
    ----------
    stream : str
        Name of the input stream interface (``"key"`` or ``"i"``).
    gap : int
        Idle cycles before ``valid`` is asserted (see the module documentation).
    payload : int
        Packed payload bits.
    note : str
        Where the transfer comes from (a vector's source), for messages.
    """
    stream: str
    gap: int
    payload: int
    note: str = ""


@dataclass(frozen=True)
class OutputStream:
    """What one output stream must hand out, and when it is ready to take it.

    Attributes
    ----------
    name : str
        Name of the output stream interface (``"o"``).
    expected : tuple of int
        Packed payloads, in order.
    ready : str
        Cyclic ``ready`` pattern of ``"0"`` and ``"1"`` (module documentation).
    notes : tuple of str
        Where each expected payload comes from, for messages.
    checked : tuple of int
        Per expected payload, the mask of the bits compared; empty: every bit of every payload.
    fields : tuple of (str, int, int)
        ``(name, offset, width)`` of the payload's fields, to name the field that differs
        (``data`` in hexadecimal, any other as a number); empty: the payload as one number.
    order_by : (int, int) or None
        ``(offset, width)`` of the payload bits that name a sub-stream (a two-stream core's
        ``stream`` result field): the transfers of each sub-stream (taken from the expected
        payloads) are checked in their own order, and the sub-streams may interleave in any
        order. None: one order for all. The players ignore it: it is a matter of checking.
    """
    name: str
    expected: tuple
    ready: str
    notes: tuple = ()
    checked: tuple = ()
    fields: tuple = ()
    order_by: tuple | None = None

    def substream(self, payload: int) -> int:
        """The sub-stream of ``payload`` (0 without :attr:`order_by`)."""
        if self.order_by is None:
            return 0
        offset, width = self.order_by
        return payload >> offset & (1 << width) - 1


@dataclass(frozen=True)
class Script:
    """A whole testbench as data (module documentation).

    Attributes
    ----------
    inputs : tuple of str
        Input stream interfaces the script drives (every one is held idle when not in use).
    items : tuple of InputTransfer
        Input transfers in order.
    outputs : tuple of OutputStream
    clocks : tuple of (str, int)
        Clock domain and its frequency as a multiple of ``sync`` (``("sync", 1)`` first).
    max_cycles : int
        Edges after which the playing stops as a hang.
    """
    inputs: tuple
    items: tuple
    outputs: tuple
    clocks: tuple = (("sync", 1),)
    max_cycles: int = 200_000


@dataclass(frozen=True)
class Playback:
    """What a backend observed while playing a :class:`Script`.

    Attributes
    ----------
    accepted : tuple of int
        Edge of each input transfer that happened, in script order.
    produced : tuple of tuple of (int, int)
        Per output stream of the script: (edge, payload) of each output transfer.
    hung : bool
        ``max_cycles`` passed before every transfer happened.
    """
    accepted: tuple
    produced: tuple
    hung: bool = False


class ScriptUnsupported(Exception):
    """The core needs a kind of stimulus the script builder does not make yet."""


class ScriptMismatch(Exception):
    """A playback differs from what its script expects (the message names the first
    difference)."""


def script_clocks(dut) -> tuple:
    """``(("sync", 1), (domain, multiplier), ...)`` of a core (its ``clock_multipliers``)."""
    return (("sync", 1),) + tuple(sorted((dut.signature.clock_multipliers or {}).items()))


def common_interface(core):
    """``core`` as the scripts drive it: a byte-stream core (``port_width = 8``) inside its
    :class:`archs.bytestream.ByteStreamAdapter`, any other core as it is."""
    return ByteStreamAdapter(core) if core.signature.port_width == 8 else core


def _pack(port, fields: dict) -> int:
    return port.payload.shape().const(fields).as_bits()


def stalls(options: VerifyOptions):
    """(gap generator, ready pattern) drawn from the seed, apart from the vectors' draws."""
    rng = random.Random(f"aesdse stalls {options.seed}")
    p = options.stall_probability

    def gap():
        n = 0
        while p and rng.random() < p:
            n += 1
        return n
    pattern = "".join("0" if p and rng.random() < p else "1" for _ in range(READY_PATTERN_LENGTH))
    return gap, pattern


def _check_plain(dut):
    if dut.signature.port_width != 128:
        raise ScriptUnsupported("a byte-stream core is played behind ByteStreamAdapter")
    if dut.signature.blocks_per_transfer != 1:
        raise ScriptUnsupported("wide ports (blocks_per_transfer > 1)")
    extra = set(dut.i.payload.shape().members) - {"data", "decrypt"}
    if extra:
        raise ScriptUnsupported(f"block fields {sorted(extra)} (modes, streams)")
    if set(dut.o.payload.shape().members) != {"data"}:
        raise ScriptUnsupported("result fields besides data")


def block_script(dut, options: VerifyOptions = VerifyOptions(), *, key_sizes=(128,),
                 directions=("encrypt",)) -> Script:
    """:func:`verification_script` of a plain block core (single blocks, no modes, streams or
    wide port), refusing any other.

    Raises
    ------
    ScriptUnsupported
        For a core that needs chaining modes, CCM, two streams or a wide port.
    """
    _check_plain(dut)
    return verification_script(dut, options, key_sizes=key_sizes, directions=directions)


def verification_script(dut, options: VerifyOptions = VerifyOptions(), *, key_sizes=(128,),
                        directions=("encrypt",)) -> Script:
    """The script that checks any cipher core (every check of :mod:`aesdse.verify.verify`,
    :func:`aesdse.verify.blocks.checking_blocks`) with the random stalls of ``options``.

    Parameters
    ----------
    dut : wiring.Component
        The core behind the common interface (a byte-stream core inside its
        :class:`archs.bytestream.ByteStreamAdapter`, :func:`common_interface`).
    key_sizes, directions
        As for :func:`aesdse.verify.verify.verify_component`; the core's own signature narrows
        them (:func:`aesdse.verify.blocks.core_directions`).
    """
    key_sizes, directions = core_directions(dut, key_sizes, directions)
    blocks = checking_blocks(dut, options, key_sizes, directions)
    return items_script(dut, key_items(blocks), max_cycles=options.cycle_budget(len(blocks)),
                        stalls=stalls(options))


def netlist_options(dut, options: VerifyOptions, key_sizes, directions) -> VerifyOptions:
    """``options`` cut to the netlist stage's budget: the sample vectors only (no CAVP files,
    no Monte Carlo test), and the most random vectors (halving from ``random_vectors``) whose
    checking blocks (:func:`aesdse.verify.blocks.checking_blocks`) fit in ``netlist_blocks``,
    down to none. The standard vectors and messages (FIPS-197, SP 800-38A, and a core's
    minimum of random mode and CCM messages) are always kept, even above the budget: a
    netlist is checked on every kind of block its RTL was."""
    key_sizes, directions = core_directions(dut, key_sizes, directions)
    count = resolved_options(options).random_vectors
    while True:
        cut = replace(options, random_vectors=count, monte_carlo=False, cavp="sample")
        if count == 0 or len(checking_blocks(dut, cut, key_sizes, directions)) \
                <= options.netlist_blocks:
            return cut
        count //= 2


def netlist_checking_script(dut, options: VerifyOptions = VerifyOptions(), *,
                            key_sizes=(128,), directions=("encrypt",)) -> Script:
    """The netlist stage's script: :func:`verification_script` with
    :func:`netlist_options` (the budget of ``options.netlist_blocks``), with the same random
    stalls. A netlist model plays every cell every cycle, and the C++ of a large netlist takes
    long to compile; the verify stage has checked the RTL on the whole set already, so the
    netlist must only show it computes what the RTL computes, edge for edge."""
    return verification_script(dut, netlist_options(dut, options, key_sizes, directions),
                               key_sizes=key_sizes, directions=directions)


def _key_payload(dut, vec: BlockVector, stream: int) -> int:
    # Keys are left-aligned in a port sized for the largest key the core supports.
    members = dut.key.payload.shape().members
    fields = {"key": vec.key << (len(dut.key.payload.key) - vec.key_bits)}
    if "key_bits" in members:
        fields["key_bits"] = vec.key_bits
    if "stream" in members:
        fields["stream"] = stream
    return _pack(dut.key, fields)


def _result_fields(dut) -> tuple:
    """``(name, offset, width)`` of the result payload's fields, ``data`` first."""
    layout = dut.o.payload.shape()
    fields = [(name, field.offset, field.width) for name, field in layout]
    return tuple(sorted(fields, key=lambda f: f[0] != "data"))


def items_script(dut, items, *, max_cycles: int, stalls=None) -> Script:
    """A script of ``items`` (:func:`aesdse.verify.blocks.key_items`: ``("key", (vector,
    stream))`` and ``("block", Block)``) for ``dut``.

    Each block's expected result checks its ``data``, its ``stream`` (a two-stream core's results
    are checked per stream, each in its own input order) and its ``result_fields``; other result
    fields are not compared. ``stalls``: ``(gap generator, ready pattern)``, None for none (no
    input gaps, output always ready: a measurement run).
    """
    gap, pattern = stalls or ((lambda: 0), "1")
    inputs = dut.i.payload.shape().members
    fields = _result_fields(dut)
    where = {name: (offset, width) for name, offset, width in fields}
    streams = "stream" in inputs
    script_items, expected, checked, notes = [], [], [], []
    blocks = 0
    for kind, value in items:
        if kind == "key":
            vec, stream = value
            script_items.append(InputTransfer("key", gap(), _key_payload(dut, vec, stream),
                                              f"key of {vec.source}"))
            continue
        b = value
        payload = {"data": b.data, **dict(b.fields)}
        if "decrypt" in inputs:
            payload["decrypt"] = int(b.decrypt)
        if streams:
            payload["stream"] = b.stream
        note = (f"{b.source} (block {blocks}{f', stream {b.stream}' if streams else ''}): "
                f"key {b.key.key:0{b.key.key_bits // 4}x} input {b.data:032x}")
        script_items.append(InputTransfer("i", gap(), _pack(dut.i, payload), note))
        result = {"data": b.expected, **dict(b.result_fields)}
        if "stream" in where:
            result["stream"] = b.stream
        mask = 0
        for name in result:
            offset, width = where[name]
            mask |= (1 << width) - 1 << offset
        expected.append(_pack(dut.o, result))
        checked.append(mask)
        notes.append(note)
        blocks += 1
    output = OutputStream("o", tuple(expected), pattern, tuple(notes), checked=tuple(checked),
                          fields=fields, order_by=where.get("stream"))
    return Script(inputs=("key", "i"), items=tuple(script_items), outputs=(output,),
                  clocks=script_clocks(dut), max_cycles=max_cycles)


class AmaranthScriptPlayer:
    """Plays scripts on one core in :mod:`amaranth.sim` (the cycle protocol of the module
    documentation), one :class:`~amaranth.sim.Simulator` for all of them.

    Building a simulator compiles the design to Python, which for a core of a few thousand cells
    costs seconds, far more than playing a short script. So the simulator is built once and
    reset between scripts (:meth:`amaranth.sim.Simulator.reset`: every signal back to its
    initial value, every memory to its initial contents, every testbench restarted), which gives
    each script the core in its reset state, as a fresh core would. A script with other output
    streams or clocks than the previous one gets a new simulator (of ``build()``).

    Parameters
    ----------
    dut : wiring.Component
        A core not simulated yet.
    build : callable, optional
        Makes another such core, for a script whose streams or clocks differ.
    """

    def __init__(self, dut, build=None):
        self._dut, self._build = dut, build
        self._sim = None
        self._shape = None
        self._script = None
        self._result = None

    def play(self, script: Script) -> Playback:
        """The playback of ``script`` on the core in its reset state."""
        shape = (tuple(s.name for s in script.outputs), tuple(script.clocks))
        self._script = script
        self._result = ([], [[] for _ in script.outputs], [])
        if self._sim is not None and shape == self._shape:
            self._sim.reset()
        else:
            if self._sim is not None:
                if self._build is None:
                    raise ValueError("a script with other streams or clocks needs a new core: "
                                     "give build")
                self._dut = self._build()
            self._sim = testbench_simulator(
                self._dut, self._producer,
                *(self._consumer(n, s.name) for n, s in enumerate(script.outputs)),
                clock_multipliers=dict(script.clocks[1:]))
            self._shape = shape
        try:
            self._sim.run()
        except BaseException:
            self._sim = None    # stopped halfway: never resumed or reset
            raise
        accepted, produced, hung = self._result
        return Playback(tuple(accepted), tuple(tuple(p) for p in produced), bool(hung))

    async def _producer(self, ctx):
        script, (accepted, _, hung) = self._script, self._result
        edge = 0
        for item in script.items:
            port = getattr(self._dut, item.stream)
            if item.gap:
                if edge + item.gap >= script.max_cycles:
                    hung.append(True)
                    return
                await ctx.tick().repeat(item.gap)
                edge += item.gap
            ctx.set(Value.cast(port.payload), item.payload)
            ctx.set(port.valid, 1)
            while True:
                if edge >= script.max_cycles:
                    hung.append(True)
                    return
                _, _, ready = await ctx.tick().sample(port.ready)
                edge += 1
                if ready:
                    break
            ctx.set(port.valid, 0)
            accepted.append(edge)

    def _consumer(self, number: int, name: str):
        port = getattr(self._dut, name)
        payload = Value.cast(port.payload)

        async def testbench(ctx):
            script, (_, produced, hung) = self._script, self._result
            stream, got = script.outputs[number], produced[number]
            edge = 0
            while len(got) < len(stream.expected):
                if edge >= script.max_cycles:
                    hung.append(True)
                    return
                ready = stream.ready[edge % len(stream.ready)] == "1"
                ctx.set(port.ready, ready)
                _, _, valid, bits = await ctx.tick().sample(port.valid, payload)
                edge += 1
                if ready and valid:
                    got.append((edge, bits))
            ctx.set(port.ready, 0)
        return testbench


def play_amaranth(dut, script: Script) -> Playback:
    """Play ``script`` on ``dut`` in :mod:`amaranth.sim` (the cycle protocol of the module
    documentation). ``dut`` must be fresh (in its reset state). To play several scripts on one
    core, :class:`AmaranthScriptPlayer` builds its simulator once."""
    return AmaranthScriptPlayer(dut).play(script)


def _note(stream: OutputStream, n: int) -> str:
    return stream.notes[n] if n < len(stream.notes) else f"transfer {n}"


def _difference(stream: OutputStream, want: int, got: int, mask: int) -> str | None:
    """What differs between two payloads in the ``mask`` bits, field by field; None if
    nothing."""
    if not (want ^ got) & mask:
        return None
    for name, offset, width in stream.fields:
        bits = (1 << width) - 1 << offset
        if (want ^ got) & mask & bits:
            w, g = want >> offset & (1 << width) - 1, got >> offset & (1 << width) - 1
            if name == "data":
                return f"expected {w:0{width // 4}x}, got {g:0{width // 4}x}"
            return f"expected {name}={w}, got {g}"
    return f"expected {want & mask:x}, got {got & mask:x}"


def _by_substream(stream: OutputStream, payloads) -> dict:
    """Sub-stream -> [(index, payload or transfer)], in order."""
    groups = {}
    for n, p in enumerate(payloads):
        groups.setdefault(stream.substream(p if isinstance(p, int) else p[1]), []).append((n, p))
    return groups


def _check_stream(stream: OutputStream, got, complete: bool) -> None:
    """Compare what ``stream`` handed out with what it expects, each sub-stream in its own
    order; ``complete``: every transfer happened, so the counts must agree too."""
    want, have = _by_substream(stream, stream.expected), _by_substream(stream, got)
    if complete:
        for sub in sorted(set(want) | set(have)):
            if len(want.get(sub, ())) != len(have.get(sub, ())):
                where = f" sub-stream {sub}" if stream.order_by else ""
                raise ScriptMismatch(
                    f"output {stream.name}{where}: {len(want.get(sub, ()))} transfers "
                    f"expected, {len(have.get(sub, ()))} came out")
    mismatches = []
    for sub, expected in want.items():
        for (n, value), (k, (edge, bits)) in zip(expected, have.get(sub, ())):
            mask = stream.checked[n] if stream.checked else -1
            difference = _difference(stream, value, bits, mask)
            if difference:
                mismatches.append((k, f"mismatch on {_note(stream, n)} (output {stream.name} "
                                      f"transfer {k}, edge {edge}): {difference}"))
                break
    if mismatches:
        raise ScriptMismatch(min(mismatches)[1])


def hang_message(script: Script, playback: Playback) -> str:
    """What a hung playback was waiting for: per output stream the results that came out and
    the next one awaited (per sub-stream order), and the input transfer not accepted."""
    parts = []
    for stream, got in zip(script.outputs, playback.produced):
        if len(got) >= len(stream.expected):
            continue
        remaining = {sub: len(g) for sub, g in _by_substream(stream, got).items()}
        awaited = 0
        for awaited, value in enumerate(stream.expected):
            sub = stream.substream(value)
            if not remaining.get(sub):
                break
            remaining[sub] -= 1
        parts.append(f"{len(got)} of {len(stream.expected)} results came out of {stream.name}, "
                     f"waiting for result {awaited}: {_note(stream, awaited)}")
    message = "hang: " + "; ".join(parts or ["every result came out"])
    accepted = len(playback.accepted)
    if accepted < len(script.items):
        item = script.items[accepted]
        message += (f"; input transfer {accepted} of {len(script.items)} into {item.stream} "
                    f"not accepted ({item.note})")
    return message + f" (within {script.max_cycles} cycles)"


def check_playback(script: Script, playback: Playback) -> None:
    """Raise :class:`ScriptMismatch` at the first output that differs from the script's
    expectation (each sub-stream in its own order, :attr:`OutputStream.order_by`), or when the
    playback hung (:func:`hang_message`)."""
    hung = playback.hung or any(len(got) < len(stream.expected)
                                for stream, got in zip(script.outputs, playback.produced))
    for stream, got in zip(script.outputs, playback.produced):
        _check_stream(stream, got, complete=not hung)
    if hung:
        raise ScriptMismatch(hang_message(script, playback))
