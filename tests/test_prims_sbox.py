# amaranth: UnusedElaboratable=no
"""S-box families: exhaustive simulation of every family, stage count and direction."""

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from aesdse.verify.verify import verify_component
from archs import FAMILIES
from archs.prims import gf
from archs.prims.circuits import CIRCUITS, Program
from archs.prims.composite import COMPOSITE, COMPOSITE_INV, BilinearBlocks, field_blocks
from archs.prims.sbox import (
    LOGIC_SBOX_KINDS, PIPELINE_CUTS, SBOX_KINDS, SBOX_STAGES, SharedSBox, circuit_sbox_bits,
    field_maps, field_sbox_bits, field_sbox_cuts, make_sbox, sbox_latency,
)
from archs.prims.tower import TOWER, TOWER_INV
from archs.sbox_standalone import StandaloneSBox

VARIANTS = [(family, stages) for family in SBOX_KINDS for stages in SBOX_STAGES[family]]
# A shared (run-time direction) S-box of a circuit has no pipeline stages.
SHARED_VARIANTS = [(family, stages) for family, stages in VARIANTS
                   if not (family in CIRCUITS and stages)]


def test_families_and_stages():
    assert set(SBOX_KINDS) == {"lut", "bram", "composite", "tower", *CIRCUITS}
    assert set(CIRCUITS) == {"bp113", "bp_depth16", "me_bidir", "rm_combined", "rm_new_area"}
    assert SBOX_STAGES["composite"] == SBOX_STAGES["tower"] == (0, 1, 2, 3, 4, 5, 6, 7)
    assert SBOX_STAGES["lut"] == SBOX_STAGES["bram"] == (0,)
    assert all(SBOX_STAGES[name] == (0, 1, 2, 3, 4, 5, 6, 7) for name in CIRCUITS)
    assert set(LOGIC_SBOX_KINDS) == set(SBOX_KINDS) - {"lut", "bram"}


@pytest.mark.parametrize("inverse", [False, True], ids=["sub", "inv"])
@pytest.mark.parametrize("family,stages", VARIANTS)
def test_sbox_exhaustive(family, stages, inverse):
    built = []
    result = verify_component(
        lambda: built.append(make_sbox(family, inverse=inverse, stages=stages)) or built[-1],
        "sbox")
    assert result.ok, result.reason
    assert result.latency_cycles == built[0].latency == sbox_latency(family, stages=stages)
    assert built[0].table == (gf.INV_SBOX if inverse else gf.SBOX)


def test_latencies():
    assert sbox_latency("lut") == 0
    assert sbox_latency("bram") == 2
    assert [sbox_latency("composite", stages=s) for s in range(8)] == list(range(8))
    assert [sbox_latency("tower", stages=s) for s in range(8)] == list(range(8))


@pytest.mark.parametrize("split", [False, True], ids=["whole", "split"])
@pytest.mark.parametrize("field", [COMPOSITE, COMPOSITE_INV, TOWER, TOWER_INV], ids=repr)
def test_field_sbox_model(field, split):
    # The pure-int run of the very function the hardware is built from.
    for x in range(256):
        bits = gf.int_bits(x, 8)
        assert gf.bits_int(field_sbox_bits(field, bits, split_multipliers=split)) == gf.SBOX[x]
        assert gf.bits_int(field_sbox_bits(field, bits, inverse=True,
                                           split_multipliers=split)) == gf.INV_SBOX[x]


@pytest.mark.parametrize("field", [COMPOSITE, COMPOSITE_INV, TOWER, TOWER_INV], ids=repr)
def test_bilinear_blocks(field):
    # Each block is a function of its 4 inputs only, and the four blocks sum to the product
    # (and to d), for all 256 operand pairs.
    d_blocks, product_blocks = field_blocks(field)
    for a in range(16):
        for b in range(16):
            x, y = gf.int_bits(a, 4), gf.int_bits(b, 4)
            assert BilinearBlocks.total(product_blocks.blocks(x, y)) == field.mul4(x, y)
            t1, t2, _, _ = field.d_terms(y, x)
            assert BilinearBlocks.total(d_blocks.blocks(x, y)) == [p ^ q for p, q in zip(t1, t2)]
    for anf in d_blocks.block_anf + product_blocks.block_anf:
        assert all(mono < 16 for bit in anf for mono in bit)
    with pytest.raises(ValueError, match=r"spans two blocks"):
        BilinearBlocks(lambda a, b: [a[0] & a[2], 0, 0, 0])


def test_seven_stage_cuts():
    # The 7-stage S-box: both multiplier stages cut inside; its registers are named by cut.
    assert PIPELINE_CUTS[7] == (1, "2m", 3, 4, "5m", 5, 6)
    assert field_sbox_cuts(7, output_register=False) == (1, "2m", 3, 4, "5m", 5)
    assert field_sbox_cuts(6, output_register=False) == PIPELINE_CUTS[5]
    text = rtlil.convert(make_sbox("composite", stages=7))
    for name in ("cut1", "cut2m", "cut3", "cut4", "cut5m", "cut5", "cut6"):
        assert f"\\{name} " in text or f"\\{name}\n" in text, name
    assert "\\cut2 " not in text


@pytest.mark.parametrize("family", ["composite", "tower"])
@pytest.mark.parametrize("stages", [6, 7])
def test_sbox_without_output_register(family, stages):
    # One cycle shorter, all 256 inputs (the S-boxes under two output copies and key_lead).
    built = []
    result = verify_component(
        lambda: built.append(make_sbox(family, stages=stages, output_register=False))
        or built[-1], "sbox")
    assert result.ok, result.reason
    assert result.latency_cycles == built[0].latency == stages - 1


@pytest.mark.parametrize("family", ["composite", "tower"])
@pytest.mark.parametrize("stages", [6, 7])
def test_sbox_without_maps(family, stages):
    # The merged linear layer's S-boxes (unrolled's merged_linear_layer): the subfield
    # inversion alone, in the field's basis, two cycles shorter (no cuts 1 and 6). All 256
    # inputs, one per cycle; the output map of its output after the input map of its input is
    # the S-box.
    sb = make_sbox(family, stages=stages, maps=False)
    assert sb.latency == stages - 2
    assert sb.cuts == tuple(c for c in PIPELINE_CUTS[stages] if c not in (1, 6))
    to_field, from_field = field_maps(sb.field)
    assert [gf.affine(from_field(sb.table[to_field(x)])) for x in range(256)] == list(gf.SBOX)
    outputs = []

    async def testbench(ctx):
        for x in range(256 + sb.latency):
            ctx.set(sb.i, x % 256)
            await ctx.tick()
            if x >= sb.latency - 1:
                outputs.append(ctx.get(sb.o))

    sim = Simulator(sb)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    assert outputs[:256] == list(sb.table)


# --- Published circuits (archs.prims.circuits) ------------------------------------------------


@pytest.mark.parametrize("name", sorted(CIRCUITS))
def test_circuit_model(name):
    # The pure-int run of the program text the hardware is built from, every direction it has:
    # this is where a bit-order or transcription slip shows.
    circuit = CIRCUITS[name]
    for x in range(256):
        bits = gf.int_bits(x, 8)
        assert gf.bits_int(circuit_sbox_bits(circuit, bits)) == gf.SBOX[x]
        assert gf.bits_int(circuit_sbox_bits(circuit, bits, inverse=True)) == gf.INV_SBOX[x]
        assert gf.bits_int(circuit_sbox_bits(circuit, bits, decrypt=0)) == gf.SBOX[x]
        assert gf.bits_int(circuit_sbox_bits(circuit, bits, decrypt=1)) == gf.INV_SBOX[x]


@pytest.mark.parametrize("name,direction,gates,depth", [
    # The sizes the papers give: Boyar-Peralta 113 gates (32 AND, 81 XOR/XNOR); depth 16 with
    # 128 gates forward (34 AND) and 127 inverse.
    ("bp113", "forward", {"AND": 32, "XOR": 77, "XNOR": 4}, 27),
    ("bp_depth16", "forward", {"AND": 34, "XOR": 90, "XNOR": 4}, 16),
    ("bp_depth16", "inverse", {"AND": 34, "XOR": 83, "XNOR": 10}, 16),
    # Reyhani-Masoleh et al. 2018: 110 gates.
    ("rm_new_area", "forward", {"XOR": 63, "XNOR": 6, "NAND": 33, "NOR": 8}, 25),
])
def test_circuit_gate_counts(name, direction, gates, depth):
    program = getattr(CIRCUITS[name], direction)
    assert dict(program.gate_count()) == gates
    assert program.depth() == depth


def test_program_notation():
    # The papers' infix notation and the Python one, with a multiplexer and an inverted gate.
    program = Program("""
        a = x + y      // XOR
        b = x # y
        c = x x y
        d = ~(a if s else c)
    """, inputs=("x", "y", "s"), outputs=("a", "b", "c", "d"))
    assert dict(program.gate_count()) == {"XOR": 1, "XNOR": 1, "AND": 1, "NMUX": 1}
    assert program.depth() == 2
    for x in (0, 1):
        for y in (0, 1):
            for s in (0, 1):
                a, c = x ^ y, x & y
                assert program.evaluate([x, y, s]) == [a, 1 - a, c, 1 - (a if s else c)]
    assert program.fanout == {"x": 3, "y": 3, "s": 1, "a": 2, "b": 1, "c": 2, "d": 1}


@pytest.mark.parametrize("text,message", [
    ("a = x + z", r"^Line 1 reads 'z' before it is assigned: 'a = x \+ z'$"),
    ("a = x\na = x", r"^Line 2 assigns 'a' again: 'a = x'$"),
    ("a = x * x", r"^Line 1 uses Mult, which is not a gate: 'a = x \* x'$"),
    ("a = f(x)", r"^Line 1 uses Call, which is not a gate: 'a = f\(x\)'$"),
    ("a = 2", r"^Line 1 uses Constant, which is not a gate: 'a = 2'$"),
    ("a x", r"^Line 1 is not 'name = expression': 'a x'$"),
    ("b = x", r"^Output 'a' is never assigned$"),
])
def test_program_errors(text, message):
    with pytest.raises(ValueError, match=message):
        Program(text, inputs=("x",), outputs=("a",))


def test_circuit_shared_needs_no_inverter_register():
    with pytest.raises(ValueError,
                       match=r"^S-box family 'bp113' has no inverter output for "
                             r"inverter_register$"):
        SharedSBox("bp113", inverter_register=True)
    # The retiming of 003 III.B needs the bare inverter, which a published circuit does not have.
    with pytest.raises(ValueError,
                       match=r"^S-box family 'rm_combined' has no inverter output for "
                             r"affine=False$"):
        SharedSBox("rm_combined", affine=False)


# --- Shared encrypt/decrypt S-box ------------------------------------------------------------


class _FixedDirection(wiring.Component):
    """A :class:`SharedSBox` with its direction tied off, in the shape verify_component checks."""

    i: In(8)
    o: Out(8)

    def __init__(self, shared, decrypt):
        self.shared = shared
        self.decrypt = decrypt
        self.latency = shared.latency
        self.table = shared.inv_table if decrypt else shared.table
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.shared = self.shared
        m.d.comb += [self.shared.i.eq(self.i), self.shared.decrypt.eq(self.decrypt),
                     self.o.eq(self.shared.o)]
        return m


@pytest.mark.parametrize("decrypt", [0, 1], ids=["enc", "dec"])
@pytest.mark.parametrize("family,stages", SHARED_VARIANTS)
def test_shared_exhaustive(family, stages, decrypt):
    result = verify_component(
        lambda: _FixedDirection(SharedSBox(family, stages=stages), decrypt), "sbox")
    assert result.ok, result.reason
    assert result.latency_cycles == sbox_latency(family, stages=stages)


@pytest.mark.parametrize("family,stages,inverter_register,latency", [
    ("lut", 0, False, 0), ("bram", 0, False, 2), ("composite", 3, False, 3),
    ("composite", 6, False, 6), ("tower", 2, False, 2), ("composite", 7, False, 7),
    # The register after the inverter (seed 003 section III.C): one more cycle, none more
    # where cut 6 (the inverter output of a shared S-box) already is a register.
    ("lut", 0, True, 1), ("bram", 0, True, 3), ("composite", 0, True, 1),
    ("tower", 2, True, 3), ("composite", 6, True, 6)])
def test_shared_direction_per_cycle(family, stages, inverter_register, latency):
    # The direction travels through the pipeline with its byte: switch it every cycle.
    dut = SharedSBox(family, stages=stages, inverter_register=inverter_register)
    assert dut.latency == latency
    inputs = [(x, (x * 7 >> 2) & 1) for x in range(256)]
    results = []

    async def testbench(ctx):
        for cycle in range(len(inputs) + latency):
            x, d = inputs[cycle % len(inputs)]
            ctx.set(dut.i, x)
            ctx.set(dut.decrypt, d)
            if latency == 0:
                await ctx.delay(1e-9)
                results.append(ctx.get(dut.o))
                continue
            _, _, out = await ctx.tick().sample(dut.o)
            if cycle >= latency:
                results.append(out)

    sim = Simulator(dut)
    if latency:
        sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    expected = [(gf.INV_SBOX if d else gf.SBOX)[x] for x, d in inputs]
    assert results[:256] == expected


@pytest.mark.parametrize("family,inverter_register", [
    ("lut", False), ("lut", True), ("composite", True), ("tower", False)])
def test_shared_without_affine_is_the_inverter(family, inverter_register):
    """``affine=False`` (003 section III.B retiming): the bare GF(2^8) inverter in both
    directions, behind the register after it if asked."""
    dut = SharedSBox(family, inverter_register=inverter_register, affine=False)
    assert dut.table == dut.inv_table == tuple(gf.inv(x) for x in range(256))
    assert dut.latency == int(inverter_register)
    results = []

    async def testbench(ctx):
        for cycle in range(256 + dut.latency):
            ctx.set(dut.i, cycle % 256)
            ctx.set(dut.decrypt, cycle & 1)
            if not dut.latency:
                await ctx.delay(1e-9)
                results.append(ctx.get(dut.o))
                continue
            _, _, out = await ctx.tick().sample(dut.o)
            if cycle >= dut.latency:
                results.append(out)

    sim = Simulator(dut)
    if dut.latency:
        sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    assert results[:256] == [gf.inv(x) for x in range(256)]


# --- Block RAM on ECP5 ---------------------------------------------------------------------------


@pytest.mark.parametrize("inverse", [False, True])
def test_bram_ecp5_instantiates_dp16kd(inverse):
    text = rtlil.convert(make_sbox("bram", inverse=inverse, device_family="ecp5"), name="top")
    assert "cell \\DP16KD" in text
    assert 'parameter \\REGMODE_A "OUTREG"' in text
    assert "$mem" not in text and "memory " not in text
    text = rtlil.convert(make_sbox("bram", inverse=inverse), name="top")
    assert "DP16KD" not in text


def test_shared_bram_ecp5_instantiates_dp16kd():
    text = rtlil.convert(SharedSBox("bram", device_family="ecp5"), name="top")
    assert text.count("cell \\DP16KD") == 1


# --- Bad parameters ----------------------------------------------------------------------------


@pytest.mark.parametrize("call,message", [
    (lambda: make_sbox("rom"),
     r"^S-box family must be one of lut, bram, composite, tower, bp113, bp_depth16, me_bidir, "
     r"rm_combined, rm_new_area, not 'rom'$"),
    (lambda: make_sbox("lut", stages=3), r"^S-box family 'lut' has no pipeline stages, not 3$"),
    (lambda: make_sbox("bram", stages=1), r"^S-box family 'bram' has no pipeline stages, not 1$"),
    (lambda: make_sbox("composite", stages=8),
     r"^S-box family 'composite' takes 0\.\.7 pipeline stages, not 8$"),
    (lambda: make_sbox("tower", stages=-1),
     r"^S-box family 'tower' takes 0\.\.7 pipeline stages, not -1$"),
    (lambda: make_sbox("composite", stages=5, output_register=False),
     r"^S-box family 'composite' with 5 stages has no output register to leave out$"),
    (lambda: make_sbox("lut", output_register=False),
     r"^S-box family 'lut' has no output register to leave out$"),
    (lambda: make_sbox("composite", stages=5, maps=False),
     r"^Only composite and tower S-boxes with 6 or 7 stages can leave out their maps, not "
     r"'composite' with 5 stages$"),
    (lambda: make_sbox("bp113", stages=7, maps=False),
     r"^Only composite and tower S-boxes with 6 or 7 stages can leave out their maps"),
    (lambda: make_sbox("lut", device_family="ice40"),
     r"^Device family must be one of 'generic', 'ecp5', not 'ice40'$"),
    (lambda: sbox_latency("composite", stages=True),
     r"^S-box family 'composite' takes 0\.\.7 pipeline stages, not True$"),
    (lambda: sbox_latency("bram", stages="0"),
     r"^S-box family 'bram' has no pipeline stages, not '0'$"),
    (lambda: SharedSBox("lut", stages=2), r"^S-box family 'lut' has no pipeline stages, not 2$"),
    (lambda: SharedSBox("bp_depth16", stages=2),
     r"^S-box family 'bp_depth16' is pipelined in one direction only \(SubBytes or InvSubBytes\), "
     r"not 2 stages in a shared S-box$"),
    (lambda: StandaloneSBox(sbox="rm_combined", sbox_stages=3, direction="shared"),
     r"^S-box family 'rm_combined' is pipelined in one direction only"),
    (lambda: make_sbox("bp113", stages=8),
     r"^S-box family 'bp113' takes 0\.\.7 pipeline stages, not 8$"),
    (lambda: StandaloneSBox(sbox="lut", sbox_stages=3),
     r"^S-box family 'lut' has no pipeline stages, not 3$"),
    (lambda: StandaloneSBox(direction="both"),
     r"^Direction must be one of 'encrypt', 'decrypt', 'shared', not 'both'$"),
])
def test_bad_parameters(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- Standalone design point ---------------------------------------------------------------------


@pytest.mark.parametrize("sbox,stages,direction", [
    ("lut", 0, "encrypt"), ("bram", 0, "decrypt"), ("composite", 0, "encrypt"),
    ("composite", 3, "decrypt"), ("tower", 6, "encrypt"), ("tower", 0, "decrypt"),
    ("composite", 7, "encrypt"),
    ("rm_new_area", 0, "decrypt"), ("rm_combined", 0, "shared"), ("composite", 3, "shared"),
])
def test_standalone(sbox, stages, direction):
    family = FAMILIES["sbox"]
    assert family.kind == "sbox"
    params = {"sbox": sbox, "sbox_stages": stages, "direction": direction}
    built = []
    result = verify_component(lambda: built.append(family.build(**params)) or built[-1], "sbox")
    assert result.ok, result.reason
    assert result.latency_cycles == built[0].latency == sbox_latency(sbox, stages=stages) + 2
    assert built[0].table == (gf.INV_SBOX if direction == "decrypt" else gf.SBOX)


class _SharedPointDecrypting(wiring.Component):
    """A shared standalone S-box point with its decrypt input held at 1, for the sweep's own
    S-box verifier (which checks ``o`` against ``table``, ``latency`` cycles later)."""

    i: In(8)
    o: Out(8)

    def __init__(self, point):
        self.point, self.latency, self.table = point, point.latency, gf.INV_SBOX
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.point = self.point
        m.d.comb += [self.point.i.eq(self.i), self.point.decrypt.eq(1), self.o.eq(self.point.o)]
        return m


@pytest.mark.parametrize("sbox,stages", [("rm_combined", 0), ("composite", 3), ("bram", 0)])
def test_standalone_shared_decrypts(sbox, stages):
    # The verifier checks a shared point as SubBytes; here its decrypt input is 1.
    dut = StandaloneSBox(sbox=sbox, sbox_stages=stages, direction="shared")
    assert dut.latency == sbox_latency(sbox, stages=stages) + 2
    result = verify_component(lambda: _SharedPointDecrypting(dut), "sbox")
    assert result.ok, result.reason
    assert result.latency_cycles == dut.latency


def test_standalone_family_params():
    family = FAMILIES["sbox"]
    assert family.param("sbox").choices == tuple(SBOX_KINDS)
    assert family.param("sbox_stages").choices == (0, 1, 2, 3, 4, 5, 6, 7)
    assert family.param("direction").choices == ("encrypt", "decrypt", "shared")
    for p in family.params:
        assert isinstance(p.choices, tuple)
        assert p.default in p.choices
    with pytest.raises(ValueError, match=r"^S-box family 'bram' has no pipeline stages, not 2$"):
        family.build(sbox="bram", sbox_stages=2, direction="encrypt")


@pytest.mark.parametrize("name", sorted(CIRCUITS))
def test_circuit_stage_cuts_are_balanced_and_end_at_the_outputs(name):
    """A circuit's pipeline registers split its gate depth evenly, the last after the outputs
    (the output register); the int model with the cuts and a delay that counts registers gives
    the S-box and puts exactly ``stages`` registers on every input-to-output path."""
    program = CIRCUITS[name].forward or CIRCUITS[name].combined
    depth = program.depth()
    for stages in range(1, 8):
        cuts = program.stage_cuts(stages)
        assert len(cuts) == stages and cuts[-1] == depth and list(cuts) == sorted(set(cuts))
        widths = [b - a for a, b in zip((0, *cuts), cuts)]
        assert max(widths) - min(widths) <= 1
        for inverse in (False, True):
            registers = []

            def delay(n, value, start, stop, registers=registers):
                registers.append(stop - start)
                return value
            table = gf.INV_SBOX if inverse else gf.SBOX
            for x in (0x00, 0x53, 0xFF):
                bits = circuit_sbox_bits(CIRCUITS[name], gf.int_bits(x, 8), inverse=inverse,
                                         stages=stages, delay=delay)
                assert gf.bits_int(bits) == table[x]
            assert registers and all(0 < r <= stages for r in registers)
    with pytest.raises(ValueError, match=f"^A program of depth {depth} has no {depth + 1} "):
        program.stage_cuts(depth + 1)
