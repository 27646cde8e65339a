# amaranth: UnusedElaboratable=no
"""The two-stream multi-mode core (seed 003 section III.C): two streams interleaved in the
two-stage datapath with mixed modes (ECB, CBC, CTR, CCM sealed and opened, a wrong tag), key
sizes and directions, stalls on both sides, against ``cryptography``; then, in the same
simulation, the timing of one stream alone (half utilization) and of both streams back to back
(full utilization). The verify stage on a two-stream point. A multimode simulator takes ~20 s
to build and each cycle is slow, so everything is batched into few simulations."""

import random

import pytest

from aesdse.verify.testbench import EdgeClock, run_testbenches, stream_get, stream_put
from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from aesdse.verify.vectors import RFC3610, ccm_blocks, oracle_ccm, oracle_mode
from archs import FAMILIES
from archs.multimode import CCMPhase, Mode, Multimode


def key_item(stream, key, key_bits):
    return ("key", {"key": key << (256 - key_bits), "key_bits": key_bits, "stream": stream})


def mode_message(stream, mode, key, key_bits, iv, data, decrypt):
    """A key transfer and the blocks of an ECB/CBC/CTR message on ``stream``, with the
    (data, auth_fail) results ``cryptography`` expects."""
    out = oracle_mode(mode, key, key_bits, iv, data, decrypt=decrypt)
    items = [key_item(stream, key, key_bits)]
    items += [("block", {"data": d, "decrypt": int(decrypt), "mode": Mode[mode.upper()],
                         "first": int(n == 0), "iv": iv or 0, "stream": stream})
              for n, d in enumerate(data)]
    return items, [(o, 0) for o in out]


def ccm_message(stream, rng, key_bits, *, decrypt, wrong_tag=False, adata=None,
                payload=None):
    """A key transfer and a random CCM message on ``stream``, sealed or opened (with a wrong
    tag: the tag block must set ``auth_fail``); the expected results come from the formatter,
    whose outcome is checked against AESCCM. ``adata`` and ``payload`` are random unless
    given."""
    key = rng.getrandbits(key_bits)
    nonce = rng.randbytes(rng.randint(7, 13))
    adata = rng.randbytes(rng.randint(0, 20)) if adata is None else adata
    payload = rng.randbytes(rng.randint(1, 24)) if payload is None else payload
    tag_bytes = rng.choice((4, 8, 16))
    return _ccm_items(stream, key, key_bits, nonce, adata, payload, tag_bytes,
                      decrypt=decrypt, wrong_tag=wrong_tag)


def rfc3610_message(stream, number, *, decrypt):
    """A key transfer and RFC 3610 packet vector ``#number`` on ``stream``, sealed or
    opened."""
    v = next(v for v in RFC3610 if v.source.endswith(f"#{number}"))
    assert oracle_ccm(v.key, 128, v.nonce, v.adata, v.payload, v.tag_bytes) == v.ciphertext
    return _ccm_items(stream, v.key, 128, v.nonce, v.adata, v.payload, v.tag_bytes,
                      decrypt=decrypt)


def _ccm_items(stream, key, key_bits, nonce, adata, payload, tag_bytes, *, decrypt,
               wrong_tag=False):
    sealed = oracle_ccm(key, key_bits, nonce, adata, payload, tag_bytes)
    if decrypt:
        tag = sealed[len(payload):]
        if wrong_tag:
            tag = bytes([tag[0] ^ 0x10]) + tag[1:]
        blocks, outcome = ccm_blocks(key, key_bits, nonce, adata, sealed[:len(payload)],
                                     tag_bytes, decrypt=True, tag=tag)
        assert outcome == (None if wrong_tag else payload)
    else:
        blocks, outcome = ccm_blocks(key, key_bits, nonce, adata, payload, tag_bytes)
        assert outcome == sealed
    items = [key_item(stream, key, key_bits)]
    items += [("block", {"data": b.data, "decrypt": int(decrypt), "mode": Mode.CCM,
                         "first": int(n == 0), "ccm_phase": CCMPhase[b.phase.upper()],
                         "pad_bytes": 16 - b.last_bytes, "stream": stream})
              for n, b in enumerate(blocks)]
    return items, [(b.expected, int(b.auth_fail)) for b in blocks]


def merge(rng, queues):
    """Merge the streams' item lists in a random order that keeps each stream's own order."""
    merged = []
    while any(queues):
        merged.append(rng.choice([q for q in queues if q]).pop(0))
    return merged


def rtl_run(dut, phases, *, rng):
    """Send each phase's items, a phase being (items, stall probability); return the
    (stream, data, auth_fail, edge) of each result."""
    count = sum(1 for items, _ in phases for kind, _ in items if kind == "block")
    stall = {"p": phases[0][1]}
    outputs = []

    async def producer(ctx):
        clock = EdgeClock()
        for items, stall_probability in phases:
            stall["p"] = stall_probability
            for kind, payload in items:
                while rng.random() < stall["p"]:
                    await clock.idle(ctx, 1)
                await stream_put(ctx, dut.key if kind == "key" else dut.i, payload, clock=clock)

    async def consumer(ctx):
        clock = EdgeClock()
        while len(outputs) < count:
            payload = await stream_get(ctx, dut.o, clock=clock, timeout=3000,
                                       ready=lambda: rng.random() >= stall["p"])
            outputs.append((payload.stream, payload.data, payload.auth_fail, clock.now))

    run_testbenches(dut, producer, consumer)
    return outputs


def test_family_and_signature():
    fam = FAMILIES["multimode"]
    param = fam.param("streams")
    assert (param.choices, param.default, param.omitted_at_default) == ((1, 2), 1, True)
    assert fam.check_params({"streams": 3}) == "Streams must be 1 or 2, not 3"
    assert fam.check_params({"sbox": "tower", "streams": 2}) is None
    with pytest.raises(ValueError, match=r"^Streams must be 1 or 2, not True$"):
        Multimode(streams=True)
    one, two = Multimode(), Multimode(streams=2)
    for port in ("key", "i", "o"):
        assert not hasattr(getattr(one, port).payload, "stream")
        assert len(getattr(two, port).payload.stream) == 1
    assert (one.blocks_in_flight, two.blocks_in_flight) == (1, 2)
    assert one.cycles_per_block(128) == 11
    assert two.cycles_per_block(128) == 11                      # both streams busy
    assert two.cycles_per_block(128, streams_busy=1) == 22      # one stream: half utilization
    assert one.cycles_per_block(256, ccm_payload=True) == 30
    assert two.cycles_per_block(256, ccm_payload=True, streams_busy=1) == 30    # CCM pairs
    assert two.cycles_per_block(256, ccm_payload=True, streams_busy=2) == 60


def test_two_streams_mixed_then_timing():
    rng = random.Random(5)
    # Mixed: each stream its own messages, keys, key sizes, modes and directions.
    queues, expected = [[], []], [[], []]
    plan = [("cbc", False), ("ctr", False), ("ccm", True), ("ecb", True), ("cbc", True),
            ("ccm", False), ("ccm", "wrong")]
    for stream in (0, 1):
        for mode, decrypt in rng.sample(plan, len(plan)):
            key_bits = rng.choice((128, 192, 256))
            if mode == "ccm":
                items, exp = ccm_message(stream, rng, key_bits, decrypt=bool(decrypt),
                                         wrong_tag=decrypt == "wrong")
            else:
                items, exp = mode_message(
                    stream, mode, rng.getrandbits(key_bits), key_bits,
                    None if mode == "ecb" else rng.getrandbits(128),
                    [rng.getrandbits(128) for _ in range(rng.randint(1, 3))], decrypt)
            queues[stream] += items
            expected[stream] += exp
    mixed = merge(rng, queues)
    # Timing: one CBC message on stream 0 alone (each block needs the previous one), then
    # ECB blocks of a 192-bit key to both streams in turn.
    key, iv = rng.getrandbits(128), rng.getrandbits(128)
    single, exp = mode_message(0, "cbc", key, 128, iv, [rng.getrandbits(128) for _ in range(6)],
                               False)
    expected[0] += exp
    both = [key_item(0, key, 192), key_item(1, key, 192)]
    for n in range(12):
        data = rng.getrandbits(128)
        both.append(("block", {"data": data, "mode": Mode.ECB, "stream": n % 2}))
        expected[n % 2].append((oracle_mode("ecb", key, 192, None, [data])[0], 0))

    outputs = rtl_run(Multimode(sbox="lut", streams=2), [(mixed, 0.25), (single, 0), (both, 0)],
                      rng=rng)
    for stream in (0, 1):
        assert [(d, a) for s, d, a, _ in outputs if s == stream] == expected[stream]
    assert sum(a for _, _, a, _ in outputs) == 2          # the two wrong tags, nothing else
    edges = [[e for s, _, _, e in outputs if s == stream] for stream in (0, 1)]
    # One stream alone: a result every 2 (Nr + 1) cycles (half utilization).
    single_edges = edges[0][-12:-6]
    assert {b - a for a, b in zip(single_edges[2:], single_edges[3:])} == {22}
    # Both streams: each still a result every 2 (Nr + 1) cycles, but side by side, so a
    # result every Nr + 1 cycles between them (full utilization).
    for stream in (0, 1):
        last = edges[stream][-4:]
        assert {b - a for a, b in zip(last, last[1:])} == {26}
    both_edges = sorted(edges[0][-6:] + edges[1][-6:])
    assert both_edges[-1] - both_edges[-9] == 8 * 13


def test_verify_stage_two_streams():
    """The sweep's verify stage on a two-stream point: messages on random streams, merged,
    stalls on both sides (encryption only here: the test above opens and decrypts), then the
    timing of both streams busy (the point's figure), of one stream alone and of the payload
    blocks of a CCM message alone (CCM pairs: 2 (Nr + 1), not 4 (Nr + 1)) (details)."""
    fam = FAMILIES["multimode"]
    result = verify_component(lambda: fam.build(sbox="lut", key_bits=128, streams=2), "cipher",
                              VerifyOptions(random_vectors=0, measure_blocks=6),
                              key_sizes=fam.key_sizes, directions=("encrypt",))
    assert result.ok, result.reason
    assert result.cycles_per_block == 11
    assert result.details == {"streams": 2, "single_stream": {"cycles_per_block": 22},
                              "ccm_payload": {"cycles_per_block": 22}}


def test_ccm_pairs_mixed_then_timing():
    """CCM pairs: a CCM message's CTR and CBC-MAC passes in both slots while the other stream
    is idle. CCM messages on stream 0 (RFC 3610 packets sealed and opened, random AESCCM
    messages in two key sizes, a wrong tag) interleaved with CBC and ECB messages on stream 1,
    with stalls, so that some payload blocks run as pairs and some as two passes; then, alone,
    a CCM message sealed (128-bit key) and one opened (256-bit key): every block, payload
    blocks included, takes Nr + 1 turns, 2 (Nr + 1) cycles, not 4 (Nr + 1). The core has the
    retimed round of 003 section III.B (``affine_retimed``), so its two-stage form is checked
    here too (stream 1 deciphers ECB and CBC blocks)."""
    rng = random.Random(7)
    queues, expected = [[], []], [[], []]
    for items, exp in [rfc3610_message(0, 1, decrypt=False), rfc3610_message(0, 24, decrypt=True),
                       ccm_message(0, rng, 192, decrypt=False),
                       ccm_message(0, rng, 128, decrypt=True, wrong_tag=True)]:
        queues[0] += items
        expected[0] += exp
    for mode, decrypt, count in (("cbc", False, 3), ("ecb", True, 2), ("cbc", True, 2)):
        items, exp = mode_message(1, mode, rng.getrandbits(128), 128,
                                  None if mode == "ecb" else rng.getrandbits(128),
                                  [rng.getrandbits(128) for _ in range(count)], decrypt)
        queues[1] += items
        expected[1] += exp
    mixed = merge(rng, queues)
    # Alone: a key transfer waits for its stream to be idle, so stream 1 is idle from here.
    alone = [key_item(1, rng.getrandbits(128), 128)]
    for key_bits, decrypt in ((128, False), (256, True)):
        items, exp = ccm_message(0, rng, key_bits, decrypt=decrypt, adata=b"",
                                 payload=rng.randbytes(64))
        alone += items
        expected[0] += exp

    outputs = rtl_run(Multimode(sbox="lut", streams=2, affine_retimed=True),
                      [(mixed, 0.2), (alone, 0)], rng=rng)
    for stream in (0, 1):
        assert [(d, a) for s, d, a, _ in outputs if s == stream] == expected[stream]
    assert sum(a for _, _, a, _ in outputs) == 1          # the wrong tag, nothing else
    edges = [e for s, _, _, e in outputs if s == 0]
    # B0, four payload blocks, the tag: a result every Nr + 1 turns of the stream.
    for message, nr1 in ((edges[-12:-6], 11), (edges[-6:], 15)):
        assert [b - a for a, b in zip(message, message[1:])] == [2 * nr1] * 5
