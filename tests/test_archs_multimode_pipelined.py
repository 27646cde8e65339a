# amaranth: UnusedElaboratable=no
"""The one-stream multi-mode core with a pipelined round (``pipelined_round``, issue 22): the
two-stage datapath of seed 003 section III.C with pairs of independent blocks of the one stream
in flight. Mixed messages (ECB, CBC, CTR, CCM sealed and opened, a wrong tag; three key sizes,
both directions) with stalls on both sides against ``cryptography``; the timing of pairs and of
chained blocks; the CTR counter's carries between its segments; the result queue under a long
stall of the result port; the verify stage on the records configuration. A multimode simulator
takes ~10 s to build, so the checks are batched into few simulations, all on one simulator of
each core (test_archs_multimode.shared_core)."""

import random

import pytest

from aesdse.spec.schema import VerifyOptions
from aesdse.verify.testbench import EdgeClock, stream_get, stream_put
from aesdse.verify.verify import verify_component
from aesdse.verify.vectors import oracle_mode
from archs import FAMILIES
from archs.multimode import Mode, Multimode
from test_archs_multimode import message_items, rtl_run, shared_core
from test_archs_multimode_streams import ccm_message


def one_stream(items):
    """Items of the two-stream helpers without their ``stream`` field."""
    return [(kind, {k: v for k, v in payload.items() if k != "stream"})
            for kind, payload in items]


def data_and_auth(payload):
    return payload.data, payload.auth_fail


def test_parameter_and_signature():
    fam = FAMILIES["multimode"]
    param = fam.param("pipelined_round")
    assert (param.choices, param.default, param.omitted_at_default) == ((False, True), False,
                                                                        True)
    assert fam.check_params({"pipelined_round": 1}) == ("Pipelined round must be False or "
                                                        "True, not 1")
    assert fam.check_params({"pipelined_round": True, "streams": 2}).startswith(
        "Pipelined round is for one stream")
    with pytest.raises(ValueError, match="Pipelined round is for one stream"):
        Multimode(pipelined_round=True, streams=2)
    core = Multimode(pipelined_round=True)
    for port in ("key", "i", "o"):
        assert not hasattr(getattr(core, port).payload, "stream")
    assert core.blocks_in_flight == core.signature.blocks_in_flight == 2
    assert core.cycles_per_block(128) == 11                     # a pair every 22 cycles
    assert core.cycles_per_block(256, chained=True) == 30       # CBC encryption: alone
    assert core.cycles_per_block(128, ccm_payload=True) == 44   # two passes, alone


def test_mixed_messages_with_stalls():
    """Every mode, CCM included, three key sizes, both directions, messages back to back in a
    random order with random input gaps and output back-pressure: a block pairs with the next
    one or not depending on modes, directions and arrival times, and every result is checked
    in order."""
    rng = random.Random(9)
    items, expected = [], []
    plan = [("ecb", False), ("ecb", True), ("cbc", False), ("cbc", True), ("ctr", False),
            ("ccm", False), ("ccm", True), ("ccm", "wrong")] * 2
    for mode, decrypt in rng.sample(plan, len(plan)):
        key_bits = rng.choice((128, 192, 256))
        if mode == "ccm":
            i, e = ccm_message(0, rng, key_bits, decrypt=bool(decrypt),
                               wrong_tag=decrypt == "wrong")
            i = one_stream(i)
        else:
            i, e = message_items(mode, rng.getrandbits(key_bits), key_bits,
                                 None if mode == "ecb" else rng.getrandbits(128),
                                 [rng.getrandbits(128) for _ in range(rng.randint(1, 5))],
                                 decrypt)
            e = [(x, 0) for x in e]
        items += i
        expected += e
    outputs, _ = rtl_run(shared_core(sbox="lut", pipelined_round=True), items, rng=rng,
                         stall_probability=0.25, result=data_and_auth)
    assert outputs == expected
    assert sum(a for _, a in outputs) == 2                  # the two wrong tags, nothing else


def test_pairs_and_chained_blocks_back_to_back():
    """With no stalls, independent blocks (ECB both ways, CTR, CBC decryption, a CTR block
    after a CBC decryption block) leave as pairs, one cycle apart, a pair every 2 (Nr + 1)
    cycles; CBC encryption blocks, each the next one's input, leave every 2 (Nr + 1) cycles.
    The retimed round (003 section III.B) is the one checked here."""
    rng = random.Random(13)
    items, expected, runs = [], [], []
    for key_bits, mode, decrypt in ((128, "ecb", False), (192, "ecb", True), (256, "ctr", False),
                                    (128, "cbc", True), (128, "cbc", False)):
        data = [rng.getrandbits(128) for _ in range(6)]
        i, e = message_items(mode, rng.getrandbits(key_bits), key_bits, rng.getrandbits(128),
                             data, decrypt)
        runs.append((len(expected), key_bits, mode == "cbc" and not decrypt))
        items += i
        expected += e
    # Two modes in one pair: the third block of a CBC decryption and an ECB decryption block
    # (a CTR block enciphers, so it could not follow a decryption).
    key = rng.getrandbits(128)
    iv = rng.getrandbits(128)
    cbc = [rng.getrandbits(128) for _ in range(3)]
    ecb = rng.getrandbits(128)
    items += [("key", {"key": key << 128, "key_bits": 128})]
    items += [("block", {"data": d, "decrypt": 1, "mode": Mode.CBC, "first": int(n == 0),
                         "iv": iv}) for n, d in enumerate(cbc)]
    items += [("block", {"data": ecb, "decrypt": 1, "mode": Mode.ECB})]
    runs.append((len(expected), 128, False))
    expected += oracle_mode("cbc", key, 128, iv, cbc, decrypt=True)
    expected += oracle_mode("ecb", key, 128, None, [ecb], decrypt=True)

    core = shared_core(sbox="lut", pipelined_round=True, affine_retimed=True).dut
    outputs, cycles = rtl_run(shared_core(sbox="lut", pipelined_round=True, affine_retimed=True),
                              items, rng=rng, stall_probability=0)
    assert outputs == expected
    for start, key_bits, chained in runs[:-1]:
        nr1 = core.cycles_per_block(key_bits)
        deltas = [cycles[n + 1] - cycles[n] for n in range(start, start + 5)]
        if chained:
            assert deltas == [core.cycles_per_block(key_bits, chained=True)] * 5 == [2 * nr1] * 5
        else:
            assert deltas == [1, 2 * nr1 - 1] * 2 + [1]
            assert (cycles[start + 5] - cycles[start + 1]) / 4 == core.cycles_per_block(key_bits)
    start = runs[-1][0]
    assert [cycles[n + 1] - cycles[n] for n in range(start, start + 3)] == [1, 21, 1]


def test_counter_carries_between_segments():
    """The CTR counter is incremented as four 32-bit segments with registered carry flags:
    counters whose bits below a segment are all ones, as the IV of a leader and of a follower,
    reached inside a message, and in a chain left by a CBC decryption (a CTR block without
    ``first`` continues from it); a counter that wraps around 2^128."""
    rng = random.Random(17)
    key = rng.getrandbits(128)
    items, expected = [], []

    def ctr(iv, count, first=True):
        data = [rng.getrandbits(128) for _ in range(count)]
        i, e = message_items("ctr", key, 128, iv, data, False)
        if not first:
            i[1] = ("block", {**i[1][1], "first": 0})
        items.extend(i[1:] if items else i)
        expected.extend(e)
    for bits in (32, 64, 96):
        ones, high = (1 << bits) - 1, rng.getrandbits(128 - bits) << bits
        ctr(high | ones, 3)             # the leader's counter carries
        ctr(high | (ones - 1), 4)       # the follower's, then the next leader's
        ctr(high | (ones - 2), 1)       # alone: its follower is the next message's leader
    ctr((1 << 128) - 2, 4)              # wraps around 2^128
    # A CBC decryption leaves its last ciphertext in the chain, low half all ones.
    iv, blocks = rng.getrandbits(128), [rng.getrandbits(128), high | ones]   # 96 bits
    items.extend(("block", {"data": b, "decrypt": 1, "mode": Mode.CBC, "first": int(n == 0),
                            "iv": iv}) for n, b in enumerate(blocks))
    expected.extend(oracle_mode("cbc", key, 128, iv, blocks, decrypt=True))
    ctr(high | ones, 3, first=False)
    outputs, _ = rtl_run(shared_core(sbox="lut", pipelined_round=True), items, rng=rng,
                         stall_probability=0.2)
    assert outputs == expected


def test_results_wait_in_the_queue():
    """The result port stalls for 300 cycles while ECB pairs and a CCM message keep coming: the
    core fills its result queue, then waits (a pass starts only with room for its results),
    and hands everything out in order once the port drains."""
    rng = random.Random(21)
    key = rng.getrandbits(128)
    data = [rng.getrandbits(128) for _ in range(9)]
    items, expected = message_items("ecb", key, 128, None, data, False)
    expected = [(x, 0) for x in expected]
    ccm, exp = ccm_message(0, rng, 128, decrypt=True, wrong_tag=True)
    items += one_stream(ccm)
    expected += exp
    dut, simulation = shared_core(sbox="lut", pipelined_round=True)
    outputs, produced = [], []

    async def producer(ctx):
        clock = EdgeClock()
        for kind, payload in items:
            await stream_put(ctx, dut.key if kind == "key" else dut.i, payload, clock=clock)

    async def consumer(ctx):
        clock = EdgeClock()
        await clock.idle(ctx, 300)
        while len(outputs) < len(expected):
            payload = await stream_get(ctx, dut.o, clock=clock, timeout=2000)
            outputs.append((payload.data, payload.auth_fail))
            produced.append(clock.now)

    simulation.run(producer, consumer)
    assert outputs == expected
    # The queue's four results leave back to back when the port opens; the rest as computed.
    assert [b - a for a, b in zip(produced[:4], produced[1:4])] == [1, 1, 1]


def test_verify_stage():
    """The sweep's verify stage on the records configuration (AES-128 only, retimed round):
    FIPS-197, SP 800-38A and random messages in both directions, CCM sealed and opened with a
    wrong tag, then a back-to-back stream of one stream measured at Nr + 1 cycles per block in
    both directions (the pairs)."""
    fam = FAMILIES["multimode"]
    result = verify_component(
        lambda: fam.build(sbox="lut", key_bits=128, key_sizes=128, affine_retimed=True,
                          pipelined_round=True), "cipher",
        VerifyOptions(random_vectors=2, measure_blocks=8),
        key_sizes=fam.key_sizes, directions=fam.directions)
    assert result.ok, result.reason
    assert result.checks["ccm"] > 0 and result.checks["modes"] > 0
    assert result.cycles_per_block == result.details["decrypt"]["cycles_per_block"] == 11
    assert "single_stream" not in result.details
