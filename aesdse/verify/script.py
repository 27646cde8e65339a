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

First increment (issue 26): :func:`block_script` covers cores whose verification maps simply onto
streams: single blocks in one or both directions, every key size the core takes, with the
FIPS-197, SP 800-38A F.1 and random vectors, byte-stream cores behind their
:class:`archs.bytestream.ByteStreamAdapter`. Chaining modes, CCM, two streams and wide ports
raise :class:`ScriptUnsupported`; :mod:`aesdse.verify.verify` still checks those.
"""

import random
from dataclasses import dataclass

from amaranth.hdl import Value

from archs.bytestream import ByteStreamAdapter

from ..spec.schema import VerifyOptions
from .testbench import run_testbenches
from .vectors import cipher_block_vectors, vector_directions

__all__ = ["InputTransfer", "OutputStream", "Script", "Playback", "ScriptUnsupported",
           "ScriptMismatch", "READY_PATTERN_LENGTH", "block_script", "script_clocks",
           "common_interface", "play_amaranth", "check_playback"]

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
    """
    name: str
    expected: tuple
    ready: str
    notes: tuple = ()


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


def _stalls(options: VerifyOptions):
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
    """The script that checks a plain block core (module documentation) with random stalls.

    Parameters
    ----------
    dut : wiring.Component
        The core behind the common interface (a byte-stream core inside its
        :class:`archs.bytestream.ByteStreamAdapter`).
    key_sizes, directions
        As for :func:`aesdse.verify.verify.verify_component`; the core's own signature narrows
        them (its ``key_sizes``, and a core without a ``decrypt`` field encrypts only).

    Raises
    ------
    ScriptUnsupported
        For a core that needs chaining modes, CCM, two streams or a wide port.
    """
    _check_plain(dut)
    key_sizes = dut.signature.key_sizes or key_sizes
    has_direction = "decrypt" in dut.i.payload.shape().members
    if not has_direction:
        directions = ("encrypt",)
    has_key_bits = "key_bits" in dut.key.payload.shape().members
    key_width = len(dut.key.payload.key)
    rng = random.Random(options.seed)
    gap, pattern = _stalls(options)
    items, expected, notes, loaded = [], [], [], None
    for v in cipher_block_vectors(options, key_sizes, directions):
        order = list(vector_directions(v, directions))
        if len(order) == 2 and rng.random() < 0.5:
            order.reverse()
        for direction in order:
            decrypt = direction == "decrypt"
            if (v.key, v.key_bits) != loaded:
                fields = {"key": v.key << (key_width - v.key_bits)}
                if has_key_bits:
                    fields["key_bits"] = v.key_bits
                items.append(InputTransfer("key", gap(), _pack(dut.key, fields), v.source))
                loaded = (v.key, v.key_bits)
            fields = {"data": v.ciphertext if decrypt else v.plaintext}
            if has_direction:
                fields["decrypt"] = int(decrypt)
            note = f"{v.source} ({direction})"
            items.append(InputTransfer("i", gap(), _pack(dut.i, fields), note))
            expected.append(_pack(dut.o, {"data": v.plaintext if decrypt else v.ciphertext}))
            notes.append(note)
    return Script(inputs=("key", "i"), items=tuple(items),
                  outputs=(OutputStream("o", tuple(expected), pattern, tuple(notes)),),
                  clocks=script_clocks(dut), max_cycles=options.cycle_budget(len(expected)))


def play_amaranth(dut, script: Script) -> Playback:
    """Play ``script`` on ``dut`` in :mod:`amaranth.sim` (the cycle protocol of the module
    documentation). ``dut`` must be fresh (in its reset state)."""
    accepted = []
    produced = [[] for _ in script.outputs]
    hung = []

    async def producer(ctx):
        edge = 0
        for item in script.items:
            port = getattr(dut, item.stream)
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

    def consumer(number, stream):
        port = getattr(dut, stream.name)
        payload = Value.cast(port.payload)

        async def testbench(ctx):
            edge = 0
            while len(produced[number]) < len(stream.expected):
                if edge >= script.max_cycles:
                    hung.append(True)
                    return
                ready = stream.ready[edge % len(stream.ready)] == "1"
                ctx.set(port.ready, ready)
                _, _, valid, bits = await ctx.tick().sample(port.valid, payload)
                edge += 1
                if ready and valid:
                    produced[number].append((edge, bits))
            ctx.set(port.ready, 0)
        return testbench

    run_testbenches(dut, producer, *(consumer(n, s) for n, s in enumerate(script.outputs)),
                    clock_multipliers=dict(script.clocks[1:]))
    return Playback(tuple(accepted), tuple(tuple(p) for p in produced), bool(hung))


def check_playback(script: Script, playback: Playback) -> None:
    """Raise :class:`ScriptMismatch` at the first output that differs from the script's
    expectation, or when the playback hung."""
    for stream, got in zip(script.outputs, playback.produced):
        for n, (want, (edge, value)) in enumerate(zip(stream.expected, got)):
            if value != want:
                note = stream.notes[n] if n < len(stream.notes) else ""
                raise ScriptMismatch(f"stream {stream.name} transfer {n} ({note}) at edge {edge}: "
                                     f"expected {want:x}, got {value:x}")
        if len(got) < len(stream.expected):
            raise ScriptMismatch(
                f"hang: stream {stream.name} handed out {len(got)} of {len(stream.expected)} "
                f"transfers within {script.max_cycles} cycles (input transfers accepted: "
                f"{len(playback.accepted)} of {len(script.items)})")
    if playback.hung:
        raise ScriptMismatch(f"hang: {len(playback.accepted)} of {len(script.items)} input "
                             f"transfers accepted within {script.max_cycles} cycles")
