# amaranth: UnusedElaboratable=no
"""Tests of :mod:`archs.compact`: the compact AES of Zhou & Gaj (seed 000) in ECB and CTR mode."""

import random

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from aesdse.verify import reference
from aesdse.verify.testbench import (EdgeClock, random_gaps, random_ready, run_testbenches,
                               stream_get, stream_put)
from aesdse.verify.vectors import SP800_38A_CTR
from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from archs import FAMILIES
from archs.compact import Compact, schedule
from archs.estream import EStreamAdapter
from archs.prims.circuits import CIRCUITS
from archs.prims.sbox import SBOX_KINDS, sbox_latency

WIDTHS = (8, 32, 64)
#: 000 Table III: cycles per block implied by 0.73 / 2.91 / 5.82 bits per clock.
TABLE_III_CYCLES = {8: 176, 32: 44, 64: 22}


# --- Reference and RTL helpers ----------------------------------------------------------------


def ref_ctr(key, iv, blocks):
    """CTR with a 32-bit counter (SP 800-38A B.1, m = 32), from the pure-Python reference."""
    data = b"".join(b.to_bytes(16, "big") for b in blocks)
    out = reference.ctr_encrypt(key.to_bytes(16, "big"), iv.to_bytes(16, "big"), data,
                                counter_bits=32)
    return [int.from_bytes(out[16 * n:16 * n + 16], "big") for n in range(len(blocks))]


def oracle_ctr(key, iv, blocks):
    """CTR from ``cryptography`` (128-bit counter: equal to ``ref_ctr`` while no wrap)."""
    enc = Cipher(algorithms.AES(key.to_bytes(16, "big")),
                 modes.CTR(iv.to_bytes(16, "big"))).encryptor()
    data = b"".join(b.to_bytes(16, "big") for b in blocks)
    out = enc.update(data) + enc.finalize()
    return [int.from_bytes(out[16 * n:16 * n + 16], "big") for n in range(len(blocks))]


async def put_item(ctx, dut, kind, value, **kwargs):
    """Transfer one CTR item into ``dut``: ``"key"``, ``"iv"`` or ``"pt"`` (plaintext)."""
    if kind == "key":
        await stream_put(ctx, dut.key, {"key": value}, **kwargs)
    else:
        await stream_put(ctx, dut.i, {"data": value, "iv": int(kind == "iv")}, **kwargs)


def rtl_ctr(dut, items, *, stall=0.25, seed=0, max_cycles=50_000):
    """Drive ``items`` into a CTR-mode core: ``("key", k)``, ``("iv", block)`` or
    ``("pt", block)``, in order, with random idle cycles and output back-pressure; return the
    output blocks."""
    gaps = random_gaps(random.Random(seed), stall)
    ready = random_ready(random.Random(seed + 1), stall)
    expected = sum(1 for kind, _ in items if kind == "pt")
    outputs = []

    async def producer(ctx):
        clock = EdgeClock()
        for kind, value in items:
            await clock.idle(ctx, gaps())
            await put_item(ctx, dut, kind, value, timeout=max_cycles)

    async def consumer(ctx):
        for _ in range(expected):
            payload = await stream_get(ctx, dut.o, ready=ready, timeout=max_cycles)
            outputs.append(payload.data)

    run_testbenches(dut, producer, consumer)
    return outputs


def ctr_items(key, iv, blocks):
    return [("key", key), ("iv", iv)] + [("pt", b) for b in blocks]


# --- Constructor ------------------------------------------------------------------------------


class TestParameters:
    def test_defaults(self):
        dut = Compact()
        assert (dut.datapath_width, dut.sbox, dut.shared_memory, dut.mode) == (32, "lut", False,
                                                                               "ecb")
        assert dut.steps_per_round == 4
        assert dut.cycles_per_block == 44
        assert "iv" not in dut.i.payload.shape().members

    def test_ctr_has_iv_field(self):
        assert "iv" in Compact(mode="ctr").i.payload.shape().members

    @pytest.mark.parametrize("kwargs, message", [
        ({"datapath_width": 16}, "Datapath width must be 8, 32 or 64, not 16"),
        ({"datapath_width": 128}, "Datapath width must be 8, 32 or 64, not 128"),
        ({"datapath_width": True}, "Datapath width must be 8, 32 or 64, not True"),
        ({"shared_memory": "yes"}, "Shared memory must be True or False, not 'yes'"),
        ({"mode": "cbc"}, "Mode must be 'ecb' or 'ctr', not 'cbc'"),
        ({"sbox": "nope"}, "S-box family must be one of " + ", ".join(SBOX_KINDS)
         + ", not 'nope'"),
        ({"sbox": "lut", "sbox_stages": 2}, "S-box family 'lut' has no pipeline stages, not 2"),
        ({"device_family": "ice40"}, "Device family must be one of 'generic', 'ecp5', not 'ice40'"),
    ])
    def test_bad_parameters(self, kwargs, message):
        with pytest.raises(ValueError) as info:
            Compact(**kwargs)
        assert str(info.value) == message

    def test_adapter_needs_ctr_core(self):
        with pytest.raises(ValueError) as info:
            EStreamAdapter(Compact(mode="ecb"))
        assert str(info.value) == "The core must have a block input field 'iv' (mode='ctr')"


# --- Table I, counted from the elaborated design -----------------------------------------------


class TestTableI:
    # 000 Table I: (SubByte, MixColumn, AddRoundKey) per datapath width.
    TABLE_I = {8: (1, 1, 8), 32: (4, 1, 32), 64: (8, 2, 64)}

    @pytest.mark.parametrize("width", WIDTHS)
    def test_sbox_instances(self, width):
        res = Compact(datapath_width=width, sbox="composite").resources
        assert res["datapath_sbox_instances"] == self.TABLE_I[width][0]
        # The key schedule's own S-boxes: one byte-serial at 8 bits, a word otherwise.
        assert res["key_sbox_instances"] == (1 if width == 8 else 4)
        assert res["sbox_instances"] == res["datapath_sbox_instances"] + res["key_sbox_instances"]

    def test_key_sboxes_with_latency(self):
        # With a pipelined S-box the 8-bit core uses the word-serial schedule (module notes).
        res = Compact(datapath_width=8, sbox="bram").resources
        assert (res["datapath_sbox_instances"], res["key_sbox_instances"]) == (1, 4)

    @pytest.mark.parametrize("width", WIDTHS)
    def test_mixcolumns_units(self, width):
        assert Compact(datapath_width=width).resources["mixcolumns_units"] == self.TABLE_I[width][1]

    @pytest.mark.parametrize("width", WIDTHS)
    def test_addroundkey_width(self, width):
        assert Compact(datapath_width=width).resources["addroundkey_width"] == \
            self.TABLE_I[width][2]

    @pytest.mark.parametrize("width", WIDTHS)
    @pytest.mark.parametrize("shared", [False, True])
    def test_memory(self, width, shared):
        res = Compact(datapath_width=width, shared_memory=shared).resources
        # Table I: 256 bits for separate input/output memories, 128 for the shared one.
        assert res["state_memory_bits"] == (128 if shared else 256)
        # Table I adds a 32-bit buffer at 8 bits; this design's buffer has 24 bits.
        assert res["buffer_bits"] == (24 if width == 8 else 0)


# --- ECB through the common verifier ------------------------------------------------------------


# The published circuits (archs.prims.circuits) are one component class of latency 0, like
# ``lut``, each checked exhaustively on its own: one width each here keeps the suite short.
GRID = ([(w, s, m) for w in WIDTHS for s in SBOX_KINDS if s not in CIRCUITS
         for m in (False, True)]
        + [(w, s, w == 8) for w, s in zip((8, 32, 64, 8, 32), sorted(CIRCUITS), strict=True)])


@pytest.mark.parametrize("width, sbox, shared", GRID)
def test_ecb_verify(width, sbox, shared):
    result = verify_component(
        lambda: Compact(datapath_width=width, sbox=sbox, shared_memory=shared), "cipher",
        VerifyOptions(random_vectors=4, measure_blocks=6))
    assert result.ok, result.reason
    latency = sbox_latency(sbox)
    assert result.cycles_per_block == schedule(width, latency)["cycles_per_block"]
    if latency == 0:
        assert result.cycles_per_block <= TABLE_III_CYCLES[width]
    else:
        # Each round-step waits for the S-box latency (module notes): 11 x L more cycles.
        assert result.cycles_per_block == TABLE_III_CYCLES[width] + 11 * latency


def test_registry_builds_compact():
    fam = FAMILIES["compact"]
    params = {**fam.defaults(), "datapath_width": 64}
    result = verify_component(lambda: fam.build(**params), fam.kind,
                              VerifyOptions(random_vectors=2, measure_blocks=4))
    assert result.ok, result.reason
    assert result.cycles_per_block == 22


# --- CTR ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("width, sbox, shared", GRID)
def test_ctr_sp800_38a(width, sbox, shared):
    key, iv, pts, cts = SP800_38A_CTR
    dut = Compact(datapath_width=width, sbox=sbox, shared_memory=shared, mode="ctr")
    assert rtl_ctr(dut, ctr_items(key, iv, pts), seed=width) == list(cts)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("shared", [False, True])
def test_ctr_random_vs_cryptography(width, shared):
    rng = random.Random(width * 2 + shared)
    items, expected = [], []
    for _ in range(2):
        key = rng.getrandbits(128)
        # Keep the low 32 bits away from a wrap: cryptography's counter is 128 bits wide.
        iv = rng.getrandbits(128) & ~0xFFFF_FFFF | rng.getrandbits(16)
        pts = [rng.getrandbits(128) for _ in range(rng.randint(2, 4))]
        items += ctr_items(key, iv, pts)
        expected += oracle_ctr(key, iv, pts)
    dut = Compact(datapath_width=width, shared_memory=shared, mode="ctr")
    assert rtl_ctr(dut, items, seed=width) == expected


@pytest.mark.parametrize("width", WIDTHS)
def test_ctr_counter_wrap(width):
    rng = random.Random(width)
    key = rng.getrandbits(128)
    iv = (rng.getrandbits(96) << 32) | 0xFFFF_FFFE
    pts = [rng.getrandbits(128) for _ in range(4)]
    expected = ref_ctr(key, iv, pts)
    # The low 32 bits wrap to 0 after the second block; the upper 96 bits stay: the same as
    # cryptography restarted from the wrapped counter block.
    assert expected[2:] == oracle_ctr(key, iv & ~0xFFFF_FFFF, pts[2:])
    assert expected[:2] == oracle_ctr(key, iv, pts[:2])
    dut = Compact(datapath_width=width, mode="ctr", shared_memory=width == 32)
    assert rtl_ctr(dut, ctr_items(key, iv, pts), seed=width) == expected


@pytest.mark.parametrize("width", WIDTHS)
def test_ctr_rekey_and_new_iv(width):
    # A key or IV transfer while the core has already precomputed the next keystream block
    # discards that block; a key transfer alone keeps the counter.
    rng = random.Random(100 + width)
    k1, k2 = rng.getrandbits(128), rng.getrandbits(128)
    iv1, iv2 = (rng.getrandbits(96) << 32), (rng.getrandbits(96) << 32) | 5
    p = [rng.getrandbits(128) for _ in range(7)]
    items = (ctr_items(k1, iv1, p[0:2]) + [("iv", iv2)] + [("pt", b) for b in p[2:4]]
             + [("key", k2)] + [("pt", b) for b in p[4:6]] + [("key", k1), ("iv", iv1)]
             + [("pt", p[6])])
    expected = (ref_ctr(k1, iv1, p[0:2]) + ref_ctr(k1, iv2, p[2:4]) + ref_ctr(k2, iv2 + 2, p[4:6])
                + ref_ctr(k1, iv1, p[6:7]))
    dut = Compact(datapath_width=width, mode="ctr")
    assert rtl_ctr(dut, items, stall=0.4, seed=width) == expected


@pytest.mark.parametrize("width", WIDTHS)
def test_ctr_back_to_back(width):
    # With no stalls the keystream is precomputed: one block per schedule period.
    key, iv, pts, cts = SP800_38A_CTR
    dut = Compact(datapath_width=width, mode="ctr")
    accepted = []
    outputs = []

    async def producer(ctx):
        for kind, value in ctr_items(key, iv, pts * 2):
            await put_item(ctx, dut, kind, value)

    async def consumer(ctx):
        clock = EdgeClock()   # always ready: every output transfers as soon as it is valid
        for _ in range(8):
            payload = await stream_get(ctx, dut.o, clock=clock)
            outputs.append(payload.data)
            accepted.append(clock.now)

    run_testbenches(dut, producer, consumer)
    assert outputs[:4] == list(cts)
    assert outputs[4:] == ref_ctr(key, iv + 4, pts)
    gaps = {b - a for a, b in zip(accepted[2:], accepted[3:])}
    assert gaps == {TABLE_III_CYCLES[width]}


# --- eSTREAM adapter (000 Fig. 6) -----------------------------------------------------------------


@pytest.mark.parametrize("width", [8, 64])
def test_estream_adapter(width):
    key, iv, pts, cts = SP800_38A_CTR
    dut = EStreamAdapter(Compact(datapath_width=width, mode="ctr"))
    outputs = []
    ready_seen = []

    async def user(ctx):
        ctx.set(dut.key, key)
        ctx.set(dut.iv, iv)
        ready_seen.append(ctx.get(dut.key_iv_ready))
        ctx.set(dut.key_iv_write, 1)
        await ctx.tick()
        ctx.set(dut.key_iv_write, 0)
        ready_seen.append(ctx.get(dut.key_iv_ready))
        await ctx.tick().until(dut.key_iv_ready)
        for pt in pts:
            ctx.set(dut.data_in, pt)
            ctx.set(dut.data_in_write, 1)
            await ctx.tick().until(dut.data_in_ready)
            ctx.set(dut.data_in_write, 0)

    async def sink(ctx):
        while len(outputs) < len(pts):
            _, _, write, data = await ctx.tick().sample(dut.data_out_write, dut.data_out)
            if write:
                outputs.append(data)

    run_testbenches(dut, user, sink)
    assert ready_seen == [0, 0]
    assert outputs == list(cts)


# --- Byte-wide ports (port_width 8, issue 15) ---------------------------------------------------


def test_port_width_8_through_the_verify_stage():
    """The registry's byte-port core, verified as a sweep verifies it (FIPS-197, SP 800-38A and
    random vectors through archs.bytestream.ByteStreamAdapter, random stalls on both sides):
    176 cycles per block, as with 128-bit ports (the load step takes a byte per cycle)."""
    for sbox, shared in (("composite", True), ("tower", False)):
        result = verify_component(
            lambda: FAMILIES["compact"].build(datapath_width=8, sbox=sbox, shared_memory=shared,
                                              port_width=8),
            "cipher", VerifyOptions(random_vectors=8, measure_blocks=6, seed=3))
        assert result.ok, result.reason
        assert result.cycles_per_block == TABLE_III_CYCLES[8]


def rtl_byte_stream(dut, items, *, stall, seed):
    """Drive ``items`` (("key", int) or ("block", int), 16 bytes each, byte 0 first) byte by
    byte into a byte-port core with random gaps and back-pressure; return the result blocks."""
    gaps = random_gaps(random.Random(seed), stall)
    ready = random_ready(random.Random(seed + 1), stall)
    expected = 16 * sum(1 for kind, _ in items if kind == "block")
    got = []

    async def producer(ctx):
        clock = EdgeClock()
        for kind, value in items:
            for byte in value.to_bytes(16, "big"):
                await clock.idle(ctx, gaps())
                if kind == "key":
                    await stream_put(ctx, dut.key, {"key": byte}, timeout=5000)
                else:
                    await stream_put(ctx, dut.i, {"data": byte}, timeout=5000)

    async def consumer(ctx):
        for _ in range(expected):
            got.append((await stream_get(ctx, dut.o, ready=ready, timeout=5000)).data)

    run_testbenches(dut, producer, consumer)
    return [int.from_bytes(bytes(got[n:n + 16]), "big") for n in range(0, len(got), 16)]


def test_port_width_8_byte_streams():
    """The byte streams themselves, without the adapter: gaps inside a key and inside a block,
    back-pressure inside a result, a key change between blocks (a half-loaded key must hold the
    next block back), against the `cryptography` oracle."""
    rng = random.Random(5)
    keys = [0x000102030405060708090a0b0c0d0e0f, rng.getrandbits(128), rng.getrandbits(128)]
    items, expected = [], []
    for key in keys:
        items.append(("key", key))
        for _ in range(2):
            block = rng.getrandbits(128)
            items.append(("block", block))
            expected.append(reference.encrypt_int(key, block, 128))
    for stall, seed in ((0.4, 1), (0.0, 2)):
        dut = Compact(datapath_width=8, sbox="composite", shared_memory=True, port_width=8)
        assert rtl_byte_stream(dut, items, stall=stall, seed=seed) == expected


def test_port_width_8_signature_and_resources():
    dut = Compact(datapath_width=8, sbox="tower", port_width=8)
    assert len(dut.key.payload.key) == len(dut.i.payload.data) == len(dut.o.payload.data) == 8
    assert dut.port_width == 8
    assert dut.resources["datapath_sbox_instances"] == dut.resources["key_sbox_instances"] == 1
    assert Compact(datapath_width=8).port_width == 128


@pytest.mark.parametrize("kwargs, message", [
    ({"datapath_width": 32, "port_width": 8},
     r"^Byte-wide ports need the 8-bit datapath in ECB mode with combinational S-boxes, not "
     r"datapath width 32, mode 'ecb' and S-box latency 0$"),
    ({"datapath_width": 8, "mode": "ctr", "port_width": 8},
     r"^Byte-wide ports need .* mode 'ctr' and S-box latency 0$"),
    ({"datapath_width": 8, "sbox": "composite", "sbox_stages": 1, "port_width": 8},
     r"^Byte-wide ports need .* mode 'ecb' and S-box latency 1$"),
    ({"datapath_width": 8, "port_width": 16}, r"^Port width must be 8 or 128, not 16$"),
    ({"datapath_width": 8, "port_width": True}, r"^Port width must be 8 or 128, not True$"),
])
def test_port_width_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Compact.check(**kwargs)


def test_port_width_in_the_registry():
    """A new parameter, omitted at its default (rows stored before it keep their keys); the
    byte core cannot go behind lanes; a point's netlist is the byte core alone (8-bit ports, no
    adapter) while its verification goes through the adapter."""
    from amaranth.back import rtlil

    from aesdse.experiment import make_point
    from aesdse.generate import generate

    fam = FAMILIES["compact"]
    param = fam.param("port_width")
    assert (param.choices, param.default, param.omitted_at_default) == ((128, 8), 128, True)
    assert "port_width" not in dict(make_point("compact", {"datapath_width": 8}).params)
    point = make_point("compact", {"datapath_width": 8, "sbox": "tower", "port_width": 8})
    assert dict(point.params)["port_width"] == 8
    assert fam.check_params({**fam.defaults(), "datapath_width": 8, "port_width": 8,
                             "lanes": 2}) == "Lanes need cores with 128-bit ports, not port width 8"
    design = generate(point)
    widths = {p["name"]: p["width"] for p in design.manifest["ports"]}
    assert widths["key__payload"] == widths["i__payload"] == widths["o__payload"] == 8
    assert "module" in rtlil.convert(fam.build(datapath_width=8, port_width=8), name="top",
                                     emit_src=False)


def test_byte_stream_adapter_takes_byte_cores_only():
    from archs.bytestream import ByteStreamAdapter

    with pytest.raises(ValueError, match=r"^The core must have byte-wide ports \(port_width 8\), "
                                         r"not <archs\.compact\.Compact object at .*>$"):
        ByteStreamAdapter(Compact(datapath_width=8))
    adapter = ByteStreamAdapter(Compact(datapath_width=8, sbox="tower", port_width=8))
    assert len(adapter.i.payload.data) == len(adapter.o.payload.data) == 128
    assert adapter.port_width == 128


# --- Smaller 8-bit cores: serial MixColumns, one shared S-box (issue 22) -------------------------

SMALL_CONFIGS = [
    # (mixcolumns, key_sbox, cycles per block measured by the verify stage)
    ("serial", "separate", TABLE_III_CYCLES[8]),
    ("parallel", "shared", 11 * (16 + 4)),
    ("serial", "shared", 11 * (16 + 4)),
]


@pytest.mark.parametrize("mixcolumns, key_sbox, cycles", SMALL_CONFIGS)
def test_small_byte_cores_through_the_verify_stage(mixcolumns, key_sbox, cycles):
    """Verified as a sweep verifies them (FIPS-197, SP 800-38A, random vectors, random stalls);
    the shared S-box costs a 4-cycle gap before each of the 11 round-steps."""
    result = verify_component(
        lambda: FAMILIES["compact"].build(datapath_width=8, sbox="tower", shared_memory=True,
                                          port_width=8, mixcolumns=mixcolumns,
                                          key_sbox=key_sbox),
        "cipher", VerifyOptions(random_vectors=8, measure_blocks=6, seed=4))
    assert result.ok, result.reason
    assert result.cycles_per_block == cycles
    assert Compact(datapath_width=8, sbox="tower", port_width=8, mixcolumns=mixcolumns,
                   key_sbox=key_sbox).cycles_per_block == cycles


def test_serial_mixcolumns_with_128_bit_ports():
    """The serial MixColumns is a datapath change only: it works behind the common ports too,
    and with separate state memories."""
    result = verify_component(
        lambda: Compact(datapath_width=8, sbox="composite", mixcolumns="serial"), "cipher",
        VerifyOptions(random_vectors=4, measure_blocks=4, seed=5))
    assert result.ok, result.reason
    assert result.cycles_per_block == TABLE_III_CYCLES[8]


def test_shared_key_sbox_byte_streams():
    """Gaps inside keys and blocks, back-pressure inside results and key changes between blocks
    (a key load does its own lookups), against the `cryptography` oracle."""
    rng = random.Random(7)
    items, expected = [], []
    for key in (0x2b7e151628aed2a6abf7158809cf4f3c, rng.getrandbits(128), rng.getrandbits(128)):
        items.append(("key", key))
        for _ in range(2):
            block = rng.getrandbits(128)
            items.append(("block", block))
            expected.append(reference.encrypt_int(key, block, 128))
    for stall, seed in ((0.4, 3), (0.0, 4)):
        dut = Compact(datapath_width=8, sbox="rm_combined", shared_memory=True, port_width=8,
                      mixcolumns="serial", key_sbox="shared")
        assert rtl_byte_stream(dut, items, stall=stall, seed=seed) == expected


def test_small_byte_core_structure():
    """One S-box in all (no key S-box), no MixColumn unit instance but one serial unit, and
    the serial unit's registers (6-byte delay line and the held column sum)."""
    res = Compact(datapath_width=8, sbox="tower", port_width=8, mixcolumns="serial",
                  key_sbox="shared").resources
    assert (res["sbox_instances"], res["key_sbox_instances"]) == (1, 0)
    assert res["mixcolumns_units"] == 1
    assert res["buffer_bits"] == 56
    assert res["cycles_per_block"] == 220
    res = Compact(datapath_width=8, sbox="tower", port_width=8).resources
    assert (res["sbox_instances"], res["buffer_bits"]) == (2, 24)


@pytest.mark.parametrize("kwargs, message", [
    ({"datapath_width": 32, "mixcolumns": "serial"},
     r"^Serial MixColumns needs the 8-bit datapath, not datapath width 32$"),
    ({"datapath_width": 8, "key_sbox": "shared"},
     r"^A key schedule sharing the datapath's S-box needs byte-wide ports \(port_width 8\)$"),
    ({"datapath_width": 8, "mixcolumns": "bitwise"},
     r"^MixColumns must be 'parallel' or 'serial', not 'bitwise'$"),
    ({"datapath_width": 8, "port_width": 8, "key_sbox": 1},
     r"^Key S-box must be 'separate' or 'shared', not 1$"),
])
def test_small_byte_core_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Compact.check(**kwargs)


def test_small_byte_core_params_omitted_at_default():
    """Rows stored before the parameters existed keep their configuration keys."""
    from aesdse.experiment import make_point

    fam = FAMILIES["compact"]
    for name, choices, default in (("mixcolumns", ("parallel", "serial"), "parallel"),
                                   ("key_sbox", ("separate", "shared"), "separate")):
        param = fam.param(name)
        assert (param.choices, param.default, param.omitted_at_default) == \
            (choices, default, True)
    params = dict(make_point("compact", {"datapath_width": 8, "port_width": 8}).params)
    assert "mixcolumns" not in params and "key_sbox" not in params
    params = dict(make_point("compact", {"datapath_width": 8, "port_width": 8,
                                         "mixcolumns": "serial", "key_sbox": "shared"}).params)
    assert (params["mixcolumns"], params["key_sbox"]) == ("serial", "shared")
