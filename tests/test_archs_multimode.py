# amaranth: UnusedElaboratable=no
"""The multi-mode core (seed 003): SP 800-38A ECB/CBC/CTR for every key size in both directions,
random messages mixing modes, key sizes and directions against ``cryptography``, with stalls on
both sides; back-to-back timing per key size; the family as the sweep sees it."""

import functools
import random
from typing import NamedTuple

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring

from aesdse.verify.testbench import (EdgeClock, random_gaps, random_ready,
                                     stream_get, stream_put)
from reused_simulation import ReusableSimulation
from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from aesdse.verify.vectors import SP800_38A_MODES, oracle_mode
from archs import FAMILIES
from archs.multimode import Mode, Multimode


def message_items(mode, key, key_bits, iv, data, decrypt):
    """A key transfer and the blocks of one message, with the outputs ``cryptography`` expects."""
    expected = oracle_mode(mode, key, key_bits, iv, data, decrypt=decrypt)
    items = [("key", {"key": key << (256 - key_bits), "key_bits": key_bits})]
    for n, block in enumerate(data):
        items.append(("block", {"data": block, "decrypt": int(decrypt),
                                "mode": Mode[mode.upper()], "first": int(n == 0),
                                "iv": iv or 0}))
    return items, expected


class SharedCore(NamedTuple):
    dut: Multimode
    simulation: ReusableSimulation


# The tests of one core run together; a multimode simulator holds ~0.5 GB.
@functools.lru_cache(maxsize=2)
def shared_core(**params) -> SharedCore:
    """``Multimode(**params)`` and one simulation of it, shared by every test that feeds that
    core messages (here, in tests/test_archs_multimode_ccm.py and
    tests/test_archs_multimode_pipelined.py): building a multimode simulator takes ~8 CPU-s
    (sbox lut), more than many tests' messages. Every run starts from the core's reset state, as on a fresh core
    (:class:`reused_simulation.ReusableSimulation`)."""
    dut = Multimode(**params)
    return SharedCore(dut, ReusableSimulation(dut))


def rtl_run(core, items, *, rng, stall_probability, result=lambda payload: payload.data):
    """Send ``items`` into ``core`` (a :func:`shared_core`); return ``result(payload)`` of each
    output (default its data) and the edges they came out at."""
    dut = core.dut
    count = sum(1 for kind, _ in items if kind == "block")
    outputs, cycles = [], []
    gaps = random_gaps(rng, stall_probability)

    async def producer(ctx):
        clock = EdgeClock()
        for kind, payload in items:
            await clock.idle(ctx, gaps())
            await stream_put(ctx, dut.key if kind == "key" else dut.i, payload, clock=clock)

    async def consumer(ctx):
        clock = EdgeClock()
        ready = random_ready(rng, stall_probability)
        while len(outputs) < count:
            payload = await stream_get(ctx, dut.o, clock=clock, ready=ready, timeout=2000)
            outputs.append(result(payload))
            cycles.append(clock.now)

    core.simulation.run(producer, consumer)
    return outputs, cycles


def test_sp800_38a_vectors_match_cryptography():
    assert len(SP800_38A_MODES) == 9
    assert {(v.mode, v.key_bits) for v in SP800_38A_MODES} == {
        (m, k) for m in ("ecb", "cbc", "ctr") for k in (128, 192, 256)}
    for v in SP800_38A_MODES:
        assert oracle_mode(v.mode, v.key, v.key_bits, v.iv, v.plaintexts) == list(v.ciphertexts)


def test_family_registry():
    fam = FAMILIES["multimode"]
    assert fam.module == "archs.multimode"
    assert fam.key_sizes == (128, 192, 256)
    assert fam.directions == ("encrypt", "decrypt")
    assert fam.modes == ("ecb", "cbc", "ctr", "ccm") == Multimode.modes
    assert fam.param("sbox").choices == ("lut", "composite", "tower")
    assert fam.check_params({"sbox": "bram"}) == \
        "S-box family must be one of lut, composite, tower, not 'bram'"
    assert fam.param("key_bits").choices == (128, 192, 256)
    assert fam.check_params({"sbox": "tower", "key_bits": 256}) is None
    assert fam.check_params({"sbox": "lut", "key_bits": 512}) == \
        "Key bits must be 128, 192 or 256, not 512"
    param = fam.param("affine_retimed")
    assert (param.choices, param.default, param.omitted_at_default) == ((False, True), False, True)
    assert fam.check_params({"affine_retimed": 1}) == "Affine retimed must be False or True, not 1"


def test_rejects_sbox():
    with pytest.raises(ValueError, match=r"^S-box family must be one of lut, composite, tower, "
                                         r"not 'nope'$"):
        Multimode(sbox="nope")


def test_affine_retimed_datapath_has_bare_inverters():
    """``affine_retimed`` (003 section III.B, Fig. 8(b)): the 16 datapath S-boxes are bare
    shared inverters, their affine maps merged into the round (checked in simulation by
    ``test_verify_stage`` and, with two streams, tests/test_archs_multimode_streams.py)."""
    from amaranth.hdl import Fragment

    from archs.prims.sbox import SharedSBox

    def shared_sbox_affine(core):
        found = []

        def walk(fragment):
            found.extend(o.affine for o in getattr(fragment, "origins", None) or ()
                         if isinstance(o, SharedSBox))
            for sub, *_ in fragment.subfragments:
                walk(sub)
        walk(Fragment.get(core, None))
        return found
    assert shared_sbox_affine(Multimode()) == [True] * 16
    assert shared_sbox_affine(Multimode(affine_retimed=True)) == [False] * 16


def test_converts_to_rtlil():
    """The sweep's generate stage: the netlist has no combinational loop (the key expander's
    AES-192 step at width 128 once had a false one)."""
    from amaranth.back import rtlil
    assert "module \\top" in rtlil.convert(Multimode(sbox="composite", device_family="ecp5"),
                                            name="top")


def test_sp800_38a_all_key_sizes_both_directions():
    """F.1 (ECB), F.2 (CBC), F.5 (CTR) for 128/192/256-bit keys, encrypt and decrypt, one core,
    messages back to back with random input gaps and output back-pressure."""
    rng = random.Random(3)
    items, expected = [], []
    for v in SP800_38A_MODES:
        for decrypt in (False, True):
            data = v.ciphertexts if decrypt else v.plaintexts
            i, e = message_items(v.mode, v.key, v.key_bits, v.iv, list(data), decrypt)
            assert e == list(v.plaintexts if decrypt else v.ciphertexts)
            items += i
            expected += e
    outputs, _ = rtl_run(shared_core(sbox="lut"), items, rng=rng, stall_probability=0.3)
    assert outputs == expected


def test_random_messages_mixed():
    """Random messages: every mode, key size and direction in random order, several messages
    under one key (the chain restarts with `first`), stalls on both sides."""
    rng = random.Random(7)
    items, expected = [], []
    for _ in range(8):
        mode = rng.choice(("ecb", "cbc", "ctr"))
        key_bits = rng.choice((128, 192, 256))
        decrypt = rng.random() < 0.5
        key = rng.getrandbits(key_bits)
        for n in range(rng.randint(1, 2)):           # one or two messages per key
            iv = None if mode == "ecb" else rng.getrandbits(128)
            data = [rng.getrandbits(128) for _ in range(rng.randint(1, 4))]
            i, e = message_items(mode, key, key_bits, iv, data, decrypt)
            items += i if n == 0 else i[1:]             # the second message: no key transfer
            expected += e
    # A counter block that wraps around 2^128 within the message.
    i, e = message_items("ctr", 1, 128, (1 << 128) - 2, [5, 6, 7], False)
    items += i
    expected += e
    outputs, _ = rtl_run(shared_core(sbox="lut"), items, rng=rng, stall_probability=0.25)
    assert outputs == expected


def test_back_to_back_cycles_per_key_size():
    """With no stalls a block leaves every Nr + 1 cycles (whitening + Nr rounds), in both
    directions and every mode."""
    rng = random.Random(11)
    items, expected, runs = [], [], []
    for key_bits in (128, 192, 256):
        for mode, decrypt in (("ecb", False), ("cbc", True), ("ctr", False)):
            data = [rng.getrandbits(128) for _ in range(5)]
            i, e = message_items(mode, rng.getrandbits(key_bits), key_bits,
                                 rng.getrandbits(128), data, decrypt)
            runs.append((len(expected), key_bits))
            items += i
            expected += e
    outputs, cycles = rtl_run(shared_core(sbox="lut"), items, rng=rng, stall_probability=0)
    assert outputs == expected
    for start, key_bits in runs:
        deltas = {cycles[n + 1] - cycles[n] for n in range(start, start + 4)}
        assert deltas == {Multimode().cycles_per_block(key_bits)} == {
            {128: 11, 192: 13, 256: 15}[key_bits]}


# One configuration: the verify stage checks every key size and direction whatever key_bits is
# (key_bits only picks the timing stream); the inverter families are checked alone in
# tests/test_prims_sbox.py and inside the other families. A multimode simulator takes ~20 s to
# build and ~60 ms per cycle, so the default run keeps to this one, the retimed round of 003
# section III.B (the plain round is checked by every other test here).
@pytest.mark.parametrize("sbox,key_bits,affine_retimed", [("composite", 256, True)])
def test_verify_stage(sbox, key_bits, affine_retimed):
    """The sweep's verify stage: FIPS-197, SP 800-38A ECB/CBC/CTR and random messages in every
    key size and direction, random CCM messages sealed and opened (one with a wrong tag), then
    the timing measured with a key of ``key_bits``."""
    fam = FAMILIES["multimode"]
    result = verify_component(lambda: fam.build(sbox=sbox, key_bits=key_bits,
                                                affine_retimed=affine_retimed), "cipher",
                              VerifyOptions(random_vectors=4, measure_blocks=6),
                              key_sizes=fam.key_sizes, directions=fam.directions)
    assert result.ok, result.reason
    # 4 FIPS-197 + 4 SP 800-38A ECB + 3 x 4 random, both ways; 9 x 2 x 4 SP 800-38A mode blocks
    # and one random message of 1..5 blocks; three CCM messages of 3..6 blocks (B0, 0..2
    # associated-data blocks, 1..2 payload blocks, the tag); 2 x 6 timing blocks.
    assert 40 + 72 + 1 + 9 + 12 <= result.vectors_checked <= 40 + 72 + 5 + 18 + 12
    nr_plus_1 = {128: 11, 192: 13, 256: 15}[key_bits]
    assert result.cycles_per_block == nr_plus_1
    assert result.details["decrypt"]["cycles_per_block"] == nr_plus_1


def test_an_aes128_only_core_verifies_without_a_key_size_field():
    """``key_sizes: 128`` (issue 22): the key payload has no ``key_bits`` field, the expander no
    key-size decode; every mode, CCM included, still verifies in both directions, at the same
    11 cycles per block; a measured key size the core does not take is refused."""
    fam = FAMILIES["multimode"]
    built = []

    def build():
        built.append(fam.build(**{**fam.defaults(), "key_sizes": 128, "affine_retimed": True}))
        return built[-1]
    result = verify_component(build, "cipher", VerifyOptions(random_vectors=4, measure_blocks=6),
                              key_sizes=fam.key_sizes, directions=fam.directions)
    assert built[0].signature.key_sizes == (128,)
    assert not hasattr(built[0].key.payload, "key_bits")
    assert result.ok, result.reason
    assert result.checks["ccm"] > 0 and result.checks["modes"] > 0
    assert result.cycles_per_block == result.details["decrypt"]["cycles_per_block"] == 11
    with pytest.raises(ValueError, match=r"Key bits must be one of the core's key sizes \(128\), "
                                         r"not 256"):
        fam.check(**{**fam.defaults(), "key_sizes": 128, "key_bits": 256})
    with pytest.raises(ValueError, match="Key sizes must be 'all' or 128, not 192"):
        fam.check(**{**fam.defaults(), "key_sizes": 192})


def test_experiment_and_published_configs():
    """experiments/multimode.yaml is 003's experiment, its grid is sbox x key_bits x streams
    plus retimed and FIFO points, and every `config` of the transcribed 003 tables names parameters and values the family
    has."""
    from aesdse.experiment import load_experiment
    from aesdse.report.published import find_paper
    from aesdse.reproduce import EXPERIMENTS, EXPERIMENTS_DIR

    assert EXPERIMENTS["003"] == "multimode.yaml"
    experiment = load_experiment(EXPERIMENTS_DIR / "multimode.yaml")
    # streams=1 is recorded without the parameter (the rows stored before it existed), as are
    # affine_retimed=False and fifo_depth=0.
    points = [dict(p.params) for p in experiment.points]
    assert sorted((p["sbox"], p["key_bits"], p.get("streams", 1)) for p in points
                  if p.keys() <= {"sbox", "key_bits", "streams"}) == sorted(
        (s, k, n) for s in ("lut", "composite") for k in (128, 192, 256) for n in (1, 2))
    assert sorted((p["sbox"], p["key_bits"]) for p in points if "affine_retimed" in p) == [
        ("composite", 128), ("lut", 128)]
    assert [(p["sbox"], p["key_bits"], p["fifo_depth"]) for p in points
            if "fifo_depth" in p] == [("lut", 128, 2)]
    assert len(points) == 15
    assert {p.target.device for p in experiment.points} == {"LFE5U-85F"}
    fam = FAMILIES["multimode"]
    configs = [row.config for row in find_paper("003").rows() if row.config]
    assert {"arch": "multimode", "key_bits": 192} in configs
    assert {"arch": "multimode", "sbox": "composite"} in configs
    for config in configs:
        assert config["arch"] == "multimode"
        for name, value in config.items():
            if name != "arch":
                assert value in fam.param(name).choices, (name, value)


class _ModeBlind(wiring.Component):
    """A core that claims the modes but runs every block as ECB: the verify stage must say so."""

    modes = Multimode.modes

    def __init__(self):
        self.inner = Multimode(sbox="lut")
        super().__init__(self.inner.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = inner = self.inner
        wiring.connect(m, wiring.flipped(self.key), inner.key)
        wiring.connect(m, inner.o, wiring.flipped(self.o))
        m.d.comb += [inner.i.valid.eq(self.i.valid), self.i.ready.eq(inner.i.ready),
                     inner.i.payload.eq(self.i.payload), inner.i.payload.mode.eq(Mode.ECB)]
        return m


def test_verify_stage_catches_a_core_without_chaining():
    # One key size and direction: the first chained block already tells (the whole vector set
    # took two minutes of simulation).
    result = verify_component(_ModeBlind, "cipher",
                              VerifyOptions(random_vectors=0, stall_probability=0),
                              key_sizes=(128,), directions=("encrypt",))
    assert not result.ok
    assert result.reason.startswith("mismatch on SP 800-38A F.2.1 CBC-AES128 (encrypt) block 1"), \
        result.reason
