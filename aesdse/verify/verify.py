"""Verify stage: simulate a design point against the reference, and measure its timing there.

Correct before measured: a point gets area and speed numbers only after this stage passed. The
cycle counts used for throughput come from here, from the simulated core, never from a formula.

Cipher cores (the common interface of :mod:`archs.interface`) are checked on the FIPS-197 and
SP 800-38A vectors plus random vectors from the ``cryptography`` oracle, with random stalls on the
input and random back-pressure on the output. A core that chains blocks itself (a ``modes``
attribute and a ``mode`` block field, :mod:`archs.multimode`) is also sent SP 800-38A F.1/F.2/F.5
messages and random multi-block messages in its modes, checked against ``cryptography``; with
``"ccm"`` among its modes also a few random CCM messages (SP 800-38C), sealed and opened in mixed
key sizes, one of them with a wrong tag that the core must flag (``auth_fail``). A core that
interleaves two streams (a ``stream`` field in its key, block and result payloads) gets every
message on a random stream, the two streams' blocks merged in a random order, and each stream's
results checked in its own input order. Then two clean runs measure the core:

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

Standalone S-boxes (components with ``i``/``o`` byte ports and ``latency`` and ``table``
attributes) are checked over all 256 inputs, fed one per cycle, and must produce each result
exactly ``latency`` cycles later.
"""

import random
import time
from dataclasses import dataclass, field, replace

from amaranth.sim import Simulator

from archs.bytestream import ByteStreamAdapter

from ..spec.schema import VerifyOptions
from . import reference
from .testbench import (EdgeClock, StreamTimeout, random_gaps, random_ready, run_testbenches,
                        stream_get, stream_put)
from .vectors import (CCM_TAG_BYTES, BlockVector, ccm_blocks, cipher_block_vectors,
                      mode_messages, oracle_ccm, oracle_mode, vector_directions)

__all__ = ["Verification", "verify_component", "VerificationError"]


@dataclass(frozen=True)
class Verification:
    """Outcome of the verify stage.

    ``ok`` is true only if every output matched; then ``latency_cycles`` and ``cycles_per_block``
    are measured values. Otherwise ``reason`` says what went wrong first.

    ``verified_with`` names the simulator that played the checks (``"amaranth.sim"``, or a
    compiled backend with its version); ``fallback_reason`` is set when a compiled backend was
    asked for but could not be used, and says why (the run then fell back to amaranth.sim: never
    silently). ``checks`` counts the blocks checked, by source (``fips197``, ``sp800_38a``,
    ``random``, ...).
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


class VerificationError(Exception):
    """A simulated output did not match the reference, or the core hung."""


# --- Cipher cores -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Block:
    """One block to send: its input payload and the output the reference expects."""
    data: int
    expected: int
    decrypt: bool
    source: str
    key: BlockVector
    #: Further payload fields (name, value) of cores that chain blocks (``mode``, ``first``,
    #: ``iv``); empty for a plain block.
    fields: tuple = ()
    #: Result fields besides ``data`` (name, expected value), e.g. CCM's ``auth_fail``.
    result_fields: tuple = ()
    #: The stream the block goes to, in a core that interleaves several (a ``stream`` block
    #: field, :mod:`archs.multimode` with two streams); 0 otherwise.
    stream: int = 0


def _key_payload(vec: BlockVector, port, stream: int = 0) -> dict:
    # Keys are left-aligned in a port sized for the largest key the core supports.
    payload = {"key": vec.key << (len(port.payload.key) - vec.key_bits)}
    if hasattr(port.payload, "key_bits"):
        payload["key_bits"] = vec.key_bits
    if hasattr(port.payload, "stream"):
        payload["stream"] = stream
    return payload


def _run_cipher(dut, items, *, stall_probability, rng, max_cycles):
    """Drive ``items`` (("key", (BlockVector, stream)) or ("block", _Block)) into ``dut`` with
    random input gaps and output back-pressure of ``stall_probability``; collect the outputs.

    Returns (outputs, accept_cycles, output_cycles): the result payloads (``.data`` and any
    further result fields) and the indices of the clock edges at which each block went in and
    each result came out (:class:`EdgeClock`).
    """
    has_direction = hasattr(dut.i.payload, "decrypt")
    has_stream = hasattr(dut.i.payload, "stream")
    expected_outputs = sum(1 for kind, _ in items if kind == "block")
    outputs, accept_cycles, output_cycles = [], [], []
    gaps = random_gaps(rng, stall_probability)

    async def producer(ctx):
        clock = EdgeClock()
        for kind, value in items:
            await clock.idle(ctx, gaps())
            if kind == "key":
                vec, stream = value
                await stream_put(ctx, dut.key, _key_payload(vec, dut.key, stream), clock=clock)
                continue
            payload = {"data": value.data}
            if has_direction:
                payload["decrypt"] = int(value.decrypt)
            if has_stream:
                payload["stream"] = value.stream
            payload.update(value.fields)
            await stream_put(ctx, dut.i, payload, clock=clock)
            accept_cycles.append(clock.now)

    async def consumer(ctx):
        clock = EdgeClock()
        ready = random_ready(rng, stall_probability)
        while len(outputs) < expected_outputs:
            try:
                payload = await stream_get(ctx, dut.o, clock=clock, ready=ready,
                                           timeout=max_cycles - clock.now)
            except StreamTimeout:
                raise VerificationError(
                    f"hang: {len(outputs)} of {expected_outputs} blocks came out within "
                    f"{max_cycles} cycles") from None
            outputs.append(payload)
            output_cycles.append(clock.now)

    run_testbenches(dut, producer, consumer,
                    clock_multipliers=dut.signature.clock_multipliers)
    return outputs, accept_cycles, output_cycles


def _blocks(vectors, directions, rng) -> list[_Block]:
    """Every vector in each supported direction (a vector whose source gives one direction: that
    one, :func:`aesdse.verify.vectors.vector_directions`). With both directions, the direction
    of each block is drawn at random, so that switches between consecutive blocks under one key
    and runs of one direction both occur; every such vector is still checked both ways."""
    blocks = []
    for v in vectors:
        pair, ways = [], vector_directions(v, directions)
        if "encrypt" in ways:
            pair.append(_Block(v.plaintext, v.ciphertext, False, v.source, v))
        if "decrypt" in ways:
            pair.append(_Block(v.ciphertext, v.plaintext, True, f"{v.source} (decrypt)", v))
        if len(pair) == 2 and rng.random() < 0.5:
            pair.reverse()
        blocks += pair
    return blocks


def _mode_blocks(dut, options: VerifyOptions, key_sizes, directions, rng) -> list[_Block]:
    """Multi-block messages for a core that chains blocks itself.

    Such a core states the modes it supports in a ``modes`` attribute (names as in
    :class:`archs.Family`) and takes them in a ``mode`` block field whose enum has members of the
    same names in upper case, plus ``first`` (the block starts a message) and ``iv``. Checked:
    SP 800-38A F.1/F.2/F.5 for every supported key size and direction (and, as the options ask,
    the CAVP and Monte Carlo messages of :func:`aesdse.verify.vectors.mode_messages`), then
    random messages of 1..5 blocks in random modes, key sizes and directions from the
    ``cryptography`` oracle.
    """
    modes = tuple(m for m in dut.signature.modes if m in ("ecb", "cbc", "ctr"))
    if not modes or not hasattr(dut.i.payload, "mode"):
        return []
    mode_enum = dut.i.payload.mode.shape()

    def message(mode, key, key_bits, iv, data, decrypt, source):
        expected = oracle_mode(mode, key, key_bits, iv, data, decrypt=decrypt)
        vec = BlockVector(key, key_bits, data[0], expected[0], source)
        return [_Block(d, e, decrypt, f"{source} block {n + 1}", vec,
                       (("mode", mode_enum[mode.upper()]), ("first", int(n == 0)),
                        ("iv", iv or 0)))
                for n, (d, e) in enumerate(zip(data, expected))]

    blocks = []
    for v, decrypt in mode_messages(options, key_sizes, modes, directions):
        data = v.ciphertexts if decrypt else v.plaintexts
        blocks += message(v.mode, v.key, v.key_bits, v.iv, list(data), decrypt,
                          f"{v.source} ({'decrypt' if decrypt else 'encrypt'})")
    for n in range(max(1, options.random_vectors // 4)):
        mode, key_bits = rng.choice(modes), rng.choice(tuple(key_sizes))
        decrypt = rng.choice(directions) == "decrypt"
        data = [rng.getrandbits(128) for _ in range(rng.randint(1, 5))]
        blocks += message(mode, rng.getrandbits(key_bits), key_bits,
                          None if mode == "ecb" else rng.getrandbits(128), data, decrypt,
                          f"random {mode} message #{n} (seed {options.seed})")
    return blocks


def _ccm_blocks(dut, options: VerifyOptions, key_sizes, directions, rng) -> list[_Block]:
    """CCM messages (SP 800-38C) for a core with ``"ccm"`` among its ``modes`` and the block
    protocol of :mod:`archs.multimode` (``ccm_phase``, ``pad_bytes``; result ``auth_fail``).

    ``max(2, random_vectors // 2)`` random messages, the key sizes in turn, sealed and opened in
    turn (as the directions allow), with random nonce (7..13 bytes), associated data (0..20),
    payload (1..24) and tag lengths, and one more opened with a wrong tag. The per-block
    results come from the formatter of :mod:`aesdse.verify.vectors`, whose outcome must equal AESCCM's.
    The simulation is slow (a payload block is two passes), so the messages are short.
    """
    if not _has_ccm(dut):
        return []
    key_sizes = tuple(key_sizes)
    can_open = "decrypt" in directions
    count = max(2, options.random_vectors // 2)
    blocks = []
    for n in range(count + can_open):
        key_bits = key_sizes[n % len(key_sizes)]
        key = rng.getrandbits(key_bits)
        nonce = rng.randbytes(rng.randint(7, 13))
        adata, payload = rng.randbytes(rng.randint(0, 20)), rng.randbytes(rng.randint(1, 24))
        tag_bytes = rng.choice(CCM_TAG_BYTES)
        sealed = oracle_ccm(key, key_bits, nonce, adata, payload, tag_bytes)
        wrong_tag = n == count
        decrypt = can_open and (wrong_tag or n % 2 == 1)
        if decrypt:
            tag = sealed[len(payload):]
            if wrong_tag:
                tag = bytes([tag[0] ^ 1 << rng.randrange(8)]) + tag[1:]
            want = None if wrong_tag else payload
            message, outcome = ccm_blocks(key, key_bits, nonce, adata, sealed[:len(payload)],
                                          tag_bytes, decrypt=True, tag=tag)
        else:
            want = sealed
            message, outcome = ccm_blocks(key, key_bits, nonce, adata, payload, tag_bytes)
        if outcome != want:
            raise VerificationError(f"the CCM formatter disagrees with AESCCM on message #{n}")
        source = (f"random CCM message #{n} ({'opened' if decrypt else 'sealed'}"
                  f"{', wrong tag' if wrong_tag else ''}, seed {options.seed})")
        vec = BlockVector(key, key_bits, message[0].data, message[0].expected, source)
        blocks += _ccm_message(dut, message, decrypt, source, vec)
    return blocks


def _ccm_message(dut, message, decrypt, source, vec) -> list[_Block]:
    """The blocks of one CCM message (:func:`aesdse.verify.vectors.ccm_blocks`) as block transfers."""
    mode_enum = dut.i.payload.mode.shape()
    phase_enum = dut.i.payload.ccm_phase.shape()
    return [_Block(b.data, b.expected, decrypt, f"{source} {b.phase} block {i + 1}", vec,
                   (("mode", mode_enum["CCM"]), ("first", int(i == 0)), ("iv", 0),
                    ("ccm_phase", phase_enum[b.phase.upper()]),
                    ("pad_bytes", 16 - b.last_bytes)),
                   (("auth_fail", int(b.auth_fail)),))
            for i, b in enumerate(message)]


def _has_ccm(dut):
    return "ccm" in dut.signature.modes and hasattr(dut.i.payload, "ccm_phase")


def _measure_ccm(build, options, rng, vec: BlockVector, streams: int) -> float:
    """Cycles per CCM payload block, in steady state: one CCM message sealed alone on stream 0
    of a fresh core (no associated data, ``measure_blocks`` payload blocks), no stalls."""
    dut = build()
    payload = rng.randbytes(16 * options.measure_blocks)
    message, _ = ccm_blocks(vec.key, vec.key_bits, rng.randbytes(13), b"", payload, 16)
    blocks = _ccm_message(dut, message, False, "back-to-back CCM message", vec)
    outs, _, produced = _run_cipher(dut, [("key", (vec, 0))] + [("block", b) for b in blocks],
                                    stall_probability=0, rng=rng, max_cycles=options.max_cycles)
    try:
        _check_outputs(blocks, outs, streams)
    except VerificationError as error:
        raise VerificationError(f"in back-to-back CCM message: {error}") from None
    steady = produced[1:-1][options.measure_blocks // 2:]      # payload results, second half
    return (steady[-1] - steady[0]) / (len(steady) - 1)


def _items_for(blocks):
    # A key transfer before every change of key (of the block's stream), so blocks go back to
    # back under one key.
    items, last_key = [], {}
    for b in blocks:
        if (b.key.key, b.key.key_bits) != last_key.get(b.stream):
            items.append(("key", (b.key, b.stream)))
            last_key[b.stream] = (b.key.key, b.key.key_bits)
        items.append(("block", b))
    return items


def _interleave_streams(blocks, streams, rng) -> list[_Block]:
    """``blocks`` spread over ``streams`` interleaved streams: each message (a block without a
    ``first`` field, or one with ``first`` set and the blocks that continue it) goes whole to a
    random stream, then the streams' blocks are merged in a random order that keeps each
    stream's own order, so that blocks of both streams are in flight together, with their
    modes, key sizes and directions mixed."""
    queues = [[] for _ in range(streams)]
    target = 0
    for b in blocks:
        if dict(b.fields).get("first", 1):
            target = rng.randrange(streams)
        queues[target].append(replace(b, stream=target))
    merged = []
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        merged.append(queue.pop(0))
    return merged


def _check_outputs(blocks, outputs, streams):
    """Each stream's results in its own input order (a one-stream core: all in input order)."""
    for stream in range(streams):
        mine = [(n, b) for n, b in enumerate(blocks) if b.stream == stream]
        got = [out for out in outputs if getattr(out, "stream", 0) == stream]
        if len(got) != len(mine):
            raise VerificationError(f"stream {stream}: {len(mine)} blocks went in, "
                                    f"{len(got)} results came out")
        for (n, b), out in zip(mine, got):
            where = (f"{b.source} (block {n}{f', stream {stream}' if streams > 1 else ''}): "
                     f"key {b.key.key:0{b.key.key_bits // 4}x} input {b.data:032x}")
            if out.data != b.expected:
                raise VerificationError(f"mismatch on {where}: expected {b.expected:032x}, "
                                        f"got {out.data:032x}")
            for name, value in b.result_fields:
                if getattr(out, name) != value:
                    raise VerificationError(f"mismatch on {where}: expected {name}={value}, "
                                            f"got {getattr(out, name)}")


def _join_blocks(blocks) -> _Block:
    """One wide transfer of ``blocks`` (one key, no further fields): block 0 in the top bits."""
    joined_data = joined_expected = 0
    for b in blocks:
        joined_data = joined_data << 128 | b.data
        joined_expected = joined_expected << 128 | b.expected
    return _Block(joined_data, joined_expected, False, " | ".join(b.source for b in blocks),
                  blocks[0].key)


def _wide_transfers(blocks, per_transfer: int, rng) -> list[_Block]:
    """``blocks`` gathered ``per_transfer`` to a transfer (module documentation): consecutive
    blocks under one key share one; a transfer a key change leaves short is filled with random
    blocks under its key."""
    def fill(group):
        vec = group[0].key
        while len(group) < per_transfer:
            data = rng.getrandbits(128)
            group.append(_Block(data, reference.encrypt_int(vec.key, data, vec.key_bits), False,
                                "random filler", vec))
        return _join_blocks(group)

    transfers, group = [], []
    for b in blocks:
        if group and (len(group) == per_transfer
                      or (b.key.key, b.key.key_bits) != (group[0].key.key, group[0].key.key_bits)):
            transfers.append(fill(group))
            group = []
        group.append(b)
    if group:
        transfers.append(fill(group))
    return transfers


def _measure(build, options, rng, vec: BlockVector, decrypt: bool, streams: int = 1,
             latency: bool = True, per_transfer: int = 1) -> tuple[int | None, float]:
    """(latency, cycles per block) of one direction, on fresh cores with the output always
    ready and no input gaps. ``streams`` > 1: the blocks go to the streams in turn (each
    stream loaded with the key), and cycles per block is the spacing of results of all of
    them. ``latency=False`` skips the latency run (None). ``per_transfer`` > 1: a wide port
    (module documentation), measured in transfers of that many blocks."""
    def one_block(data, n=0):
        expected = (reference.decrypt_int if decrypt else reference.encrypt_int)(
            vec.key, data, vec.key_bits)
        return _Block(data, expected, decrypt, "back-to-back stream", vec, stream=n % streams)

    def block(data, n=0):
        if per_transfer == 1:
            return one_block(data, n)
        return _join_blocks([one_block(data if k == 0 else rng.getrandbits(128))
                             for k in range(per_transfer)])

    # Latency: one block (one transfer) alone.
    if latency:
        first = block(vec.ciphertext if decrypt else vec.plaintext)
        _, accepted, produced = _run_cipher(build(), [("key", (vec, 0)), ("block", first)],
                                            stall_probability=0, rng=rng,
                                            max_cycles=options.max_cycles)
        latency = produced[0] - accepted[0]
    else:
        latency = None

    # Cycles per block: a long back-to-back stream. Cores that keep several blocks in flight
    # (attribute `blocks_in_flight`) get enough blocks to fill every slot twice; in a wide
    # port, `in_flight` counts transfers.
    dut = build()
    in_flight = max(1, dut.signature.blocks_in_flight // per_transfer)
    blocks = [block(rng.getrandbits(128), n)
              for n in range(max(-(-options.measure_blocks // per_transfer), 4 * in_flight))]
    outs, _, produced = _run_cipher(dut, [("key", (vec, n)) for n in range(streams)]
                                    + [("block", b) for b in blocks],
                                    stall_probability=0, rng=rng, max_cycles=options.max_cycles)
    try:
        _check_outputs(blocks, outs, streams)
    except VerificationError as error:
        raise VerificationError(f"in back-to-back stream ({'decrypt' if decrypt else 'encrypt'}"
                                f"): {error}") from None
    # Skip the first half: the pipeline is filling there. A looped core hands its blocks out in
    # bursts (one rotation of its slots, then a gap), so average over whole rotations only: a
    # span of a multiple of `blocks_in_flight` outputs (every burst length divides it).
    steady = produced[len(produced) // 2:]
    span = (len(steady) - 1) // in_flight * in_flight or len(steady) - 1
    return latency, (steady[-1] - steady[-1 - span]) / span / per_transfer


def _common_interface(build):
    """``build`` with a byte-stream core (``port_width = 8``) put behind the common interface
    (:class:`archs.bytestream.ByteStreamAdapter`)."""
    def build_common():
        core = build()
        return ByteStreamAdapter(core) if core.signature.port_width == 8 else core
    return build_common


def _verify_cipher(build, options: VerifyOptions, key_sizes, directions) -> Verification:
    build = _common_interface(build)
    rng = random.Random(options.seed)
    first = build()
    # The core's own signature knows which key sizes this build accepts (a family may have a
    # key-size parameter); a core with a `decrypt` block field does both directions.
    key_sizes = first.signature.key_sizes
    if not hasattr(first.i.payload, "decrypt"):
        directions = tuple(d for d in directions if d == "encrypt") or ("encrypt",)
    blocks = _blocks(cipher_block_vectors(options, key_sizes, directions), directions, rng)
    blocks += _mode_blocks(first, options, key_sizes, directions, rng)
    blocks += _ccm_blocks(first, options, key_sizes, directions, rng)
    streams = 2 if hasattr(first.i.payload, "stream") else 1
    if streams > 1:
        blocks = _interleave_streams(blocks, streams, rng)
    per_transfer = first.signature.blocks_per_transfer
    if per_transfer > 1:
        blocks = _wide_transfers(blocks, per_transfer, rng)
    outputs, _, _ = _run_cipher(first, _items_for(blocks),
                                stall_probability=options.stall_probability, rng=rng,
                                max_cycles=options.cycle_budget(len(blocks)))
    _check_outputs(blocks, outputs, streams)

    # Timing, per direction; the slower direction is the core's (a throughput must hold for
    # whatever a user sends).
    # A core that takes several key sizes may name the one to measure with
    # (`measure_key_bits`); otherwise the first vector's key is used.
    measure_bits = first.signature.measure_key_bits
    measure_key = next((b.key for b in blocks if b.key.key_bits == measure_bits),
                       blocks[0].key)
    measured = {d: _measure(build, options, rng, measure_key, d == "decrypt",
                            per_transfer=per_transfer)
                for d in directions}
    single = {}
    if streams > 1:
        # The figure of the point is all streams busy (full utilization, the latency of a
        # block alone as measured above); one stream alone (e.g. a single CBC message, whose
        # blocks depend on each other) gets less, kept in the details.
        single = measured
        measured = {d: (single[d][0], _measure(build, options, rng, measure_key,
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
        if _has_ccm(first):
            details["ccm_payload"] = {
                "cycles_per_block": _measure_ccm(build, options, rng, measure_key, streams)}
    return Verification(ok=True,
                        vectors_checked=(len(blocks) * per_transfer
                                         + len(measured) * options.measure_blocks),
                        latency_cycles=max(lat for lat, _ in measured.values()),
                        cycles_per_block=max(cpb for _, cpb in measured.values()),
                        details=details)


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
            raise VerificationError(f"S-box mismatch at input {x:#04x}: expected "
                                    f"{table[x]:#04x}, got {results.get(x)!r} "
                                    f"(declared latency {latency})")
    return Verification(ok=True, vectors_checked=256, latency_cycles=latency,
                        cycles_per_block=1.0)


def verify_component(build, kind: str, options: VerifyOptions = VerifyOptions(), *,
                     key_sizes=(128,), directions=("encrypt",),
                     model_cache=None) -> Verification:
    """Simulate the component made by ``build()`` and measure it.

    Parameters
    ----------
    build : callable
        Returns a fresh component (each measurement run needs its own, in reset state).
    kind : str
        ``"cipher"`` or ``"sbox"`` (see :class:`archs.Family`).
    key_sizes : tuple of int
        Key sizes a cipher core supports; vectors for each are checked.
    directions : tuple of str
        ``"encrypt"`` and/or ``"decrypt"``: a cipher core whose block input has a ``decrypt``
        field is checked in each direction it supports, with the direction switching between
        consecutive blocks; its latency and cycles per block are those of the slower direction
        (both are in ``details``).
    model_cache : Path, optional
        Where compiled simulation models are cached (used by compiled backends).

    Never raises for a wrong design: the failure is returned with its reason.
    """
    start = time.perf_counter()
    try:
        if kind == "cipher":
            result = _verify_cipher(build, options, key_sizes, directions)
        elif kind == "sbox":
            result = _verify_sbox(build, options)
        else:
            raise ValueError(f"Kind must be 'cipher' or 'sbox', not {kind!r}")
    except VerificationError as e:
        result = Verification(ok=False, vectors_checked=0, reason=str(e))
    return Verification(**{**result.__dict__, "sim_seconds": time.perf_counter() - start})
