"""Verify stage: simulate a design point against the reference, and measure its timing there.

Correct before measured: a point gets area and speed numbers only after this stage passed. The
cycle counts used for throughput come from here, from the simulated core, never from a formula.

Cipher cores (the common interface of :mod:`archs.interface`) are checked on the FIPS-197 and
SP 800-38A vectors plus random vectors from the ``cryptography`` oracle, with random stalls on the
input and random back-pressure on the output. Then two clean runs measure the core:

``latency_cycles``
    Clock edges from the edge that accepts a block to the edge that hands its result out, with the
    output always ready and nothing else in flight (a core that is one register deep has latency 1).
``cycles_per_block``
    In a long back-to-back stream with the output always ready, the clock edges between consecutive
    output transfers, averaged over the steady state. Architectures that interleave several
    blocks are given enough blocks to fill every slot, so this already counts blocks in flight.

Standalone S-boxes (components with ``i``/``o`` byte ports and ``latency`` and ``table``
attributes) are checked over all 256 inputs, fed one per cycle, and must produce each result
exactly ``latency`` cycles later.
"""

import random
import time
from dataclasses import dataclass, field

from amaranth.sim import Simulator

from . import reference
from .vectors import FIPS197, SP800_38A_ECB, BlockVector, random_vectors

__all__ = ["VerifyOptions", "Verification", "verify_component", "VerificationError"]


@dataclass(frozen=True)
class VerifyOptions:
    """How hard to check a design point.

    Attributes
    ----------
    random_vectors : int
        Random (key, block) pairs checked against the ``cryptography`` oracle, on top of the
        standard vectors.
    seed : int
        Seed of the random vectors and of the random stalls (a failure can be replayed).
    stall_probability : float
        Probability, per cycle, that the testbench holds back input or output.
    measure_blocks : int
        Blocks streamed back to back for the cycles-per-block measurement.
    max_cycles : int
        A run that has not finished after this many cycles fails as a hang.
    """
    random_vectors: int = 32
    seed: int = 1
    stall_probability: float = 0.25
    measure_blocks: int = 12
    max_cycles: int = 200_000


@dataclass(frozen=True)
class Verification:
    """Outcome of the verify stage.

    ``ok`` is true only if every output matched; then ``latency_cycles`` and ``cycles_per_block``
    are measured values. Otherwise ``reason`` says what went wrong first.
    """
    ok: bool
    vectors_checked: int
    latency_cycles: int | None = None
    cycles_per_block: float | None = None
    reason: str | None = None
    sim_seconds: float = 0.0
    details: dict = field(default_factory=dict)


class VerificationError(Exception):
    """A simulated output did not match the reference, or the core hung."""


# --- Cipher cores -----------------------------------------------------------------------------


def _key_port_value(vec: BlockVector, key_port_bits: int) -> int:
    # Keys are left-aligned in a port sized for the largest key the core supports.
    return vec.key << (key_port_bits - vec.key_bits)


def _run_cipher(dut, items, *, stall_probability, rng, max_cycles):
    """Drive ``items`` (("key", BlockVector) or ("block", int)) into ``dut``; collect outputs.

    Returns (outputs, accept_cycles, output_cycles), where the cycles are counts of clock edges
    since the start at which the block input and output transfers happened.
    """
    key_port_bits = len(dut.key.payload.key)
    has_key_bits = hasattr(dut.key.payload, "key_bits")
    expected_outputs = sum(1 for kind, _ in items if kind == "block")
    outputs, accept_cycles, output_cycles = [], [], []
    hung = []

    def stall():
        n = 0
        while stall_probability and rng.random() < stall_probability:
            n += 1
        return n

    async def producer(ctx):
        pending = list(items)
        idle = stall()

        def present():
            ctx.set(dut.key.valid, 0)
            ctx.set(dut.i.valid, 0)
            if not pending or idle:
                return
            kind, value = pending[0]
            if kind == "key":
                ctx.set(dut.key.payload.key, _key_port_value(value, key_port_bits))
                if has_key_bits:
                    ctx.set(dut.key.payload.key_bits, value.key_bits)
                ctx.set(dut.key.valid, 1)
            else:
                ctx.set(dut.i.payload.data, value)
                ctx.set(dut.i.valid, 1)

        present()
        cycle = 0
        async for _, _, key_valid, key_ready, i_valid, i_ready in ctx.tick().sample(
                dut.key.valid, dut.key.ready, dut.i.valid, dut.i.ready):
            cycle += 1
            if pending and not idle:
                kind = pending[0][0]
                if (kind == "key" and key_valid and key_ready) or \
                        (kind == "block" and i_valid and i_ready):
                    if kind == "block":
                        accept_cycles.append(cycle)
                    pending.pop(0)
                    idle = stall()
            elif idle:
                idle -= 1
            present()
            if not pending or hung:
                break

    async def consumer(ctx):
        cycle = 0
        ready = 0 if rng.random() < stall_probability else 1
        ctx.set(dut.o.ready, ready)
        async for _, _, o_valid, o_data in ctx.tick().sample(dut.o.valid, dut.o.payload.data):
            cycle += 1
            if o_valid and ready:
                outputs.append(o_data)
                output_cycles.append(cycle)
                if len(outputs) == expected_outputs:
                    break
            if cycle >= max_cycles:
                hung.append(cycle)
                break
            ready = 0 if rng.random() < stall_probability else 1
            ctx.set(dut.o.ready, ready)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(producer)
    sim.add_testbench(consumer)
    sim.run()
    if hung:
        raise VerificationError(
            f"hang: {len(outputs)} of {expected_outputs} blocks came out within {max_cycles} "
            f"cycles")
    return outputs, accept_cycles, output_cycles


def _cipher_vectors(options: VerifyOptions, key_sizes) -> list[BlockVector]:
    vectors = [v for v in FIPS197 + SP800_38A_ECB if v.key_bits in key_sizes]
    for n, key_bits in enumerate(key_sizes):
        vectors += random_vectors(options.random_vectors, key_bits=key_bits,
                                  seed=options.seed * 1000 + n)
    return vectors


def _items_for(vectors):
    # Group consecutive vectors with the same key so blocks go back to back under one key.
    items, last_key = [], None
    for v in vectors:
        if (v.key, v.key_bits) != last_key:
            items.append(("key", v))
            last_key = (v.key, v.key_bits)
        items.append(("block", v.plaintext))
    return items


def _verify_cipher(build, options: VerifyOptions, key_sizes) -> Verification:
    rng = random.Random(options.seed)
    first = build()
    # The core's own signature knows which key sizes this build accepts (a family may have a
    # key-size parameter).
    key_sizes = getattr(first.signature, "key_sizes", key_sizes)
    in_flight = getattr(first, "blocks_in_flight", 1)
    vectors = _cipher_vectors(options, key_sizes)
    # Random vectors each carry their own key; the random ones share theirs in runs of four so
    # that back-to-back blocks under one key are exercised too.
    shared = []
    for n, v in enumerate(vectors):
        if v.source.startswith("random") and n % 4:
            prev = shared[-1]
            if prev.source.startswith("random") and prev.key_bits == v.key_bits:
                ct = reference.encrypt_int(prev.key, v.plaintext, v.key_bits)
                v = BlockVector(prev.key, v.key_bits, v.plaintext, ct, v.source)
        shared.append(v)
    vectors = shared

    outputs, _, _ = _run_cipher(first, _items_for(vectors),
                                stall_probability=options.stall_probability, rng=rng,
                                max_cycles=options.max_cycles)
    for n, (v, got) in enumerate(zip(vectors, outputs)):
        if got != v.ciphertext:
            raise VerificationError(
                f"mismatch on {v.source} (block {n}): key {v.key:0{v.key_bits // 4}x} plaintext "
                f"{v.plaintext:032x}: expected {v.ciphertext:032x}, got {got:032x}")

    # Latency: one block alone, output always ready.
    v = vectors[0]
    _, accepted, produced = _run_cipher(build(), [("key", v), ("block", v.plaintext)],
                                        stall_probability=0, rng=rng,
                                        max_cycles=options.max_cycles)
    latency = produced[0] - accepted[0]

    # Cycles per block: a long back-to-back stream, output always ready. Cores that keep several
    # blocks in flight (attribute `blocks_in_flight`) get enough blocks to fill every slot twice.
    blocks = [rng.getrandbits(128) for _ in range(max(options.measure_blocks, 4 * in_flight))]
    outs, _, produced = _run_cipher(build(), [("key", v)] + [("block", b) for b in blocks],
                                    stall_probability=0, rng=rng, max_cycles=options.max_cycles)
    for b, got in zip(blocks, outs):
        expected = reference.encrypt_int(v.key, b, v.key_bits)
        if got != expected:
            raise VerificationError(f"mismatch in back-to-back stream: plaintext {b:032x}: "
                                    f"expected {expected:032x}, got {got:032x}")
    # Skip the first half: the pipeline is filling there. A looped core hands its blocks out in
    # bursts (one rotation of its slots, then a gap), so average over whole rotations only: a
    # span of a multiple of `blocks_in_flight` outputs (every burst length divides it).
    steady = produced[len(produced) // 2:]
    span = (len(steady) - 1) // in_flight * in_flight or len(steady) - 1
    cycles_per_block = (steady[-1] - steady[-1 - span]) / span
    return Verification(ok=True, vectors_checked=len(vectors) + len(blocks),
                        latency_cycles=latency, cycles_per_block=cycles_per_block)


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
                     key_sizes=(128,)) -> Verification:
    """Simulate the component made by ``build()`` and measure it.

    Parameters
    ----------
    build : callable
        Returns a fresh component (each measurement run needs its own, in reset state).
    kind : str
        ``"cipher"`` or ``"sbox"`` (see :class:`archs.Family`).
    key_sizes : tuple of int
        Key sizes a cipher core supports; vectors for each are checked.

    Never raises for a wrong design: the failure is returned with its reason.
    """
    start = time.perf_counter()
    try:
        if kind == "cipher":
            result = _verify_cipher(build, options, key_sizes)
        elif kind == "sbox":
            result = _verify_sbox(build, options)
        else:
            raise ValueError(f"Kind must be 'cipher' or 'sbox', not {kind!r}")
    except VerificationError as e:
        result = Verification(ok=False, vectors_checked=0, reason=str(e))
    return Verification(**{**result.__dict__, "sim_seconds": time.perf_counter() - start})
