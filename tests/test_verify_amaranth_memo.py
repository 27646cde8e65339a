"""aesdse.verify.amaranth_memo: Amaranth's operator and concatenation shapes computed once per
value, memory elements that fit taken as they are, shared values lowered and computed once by
the simulator, with nothing else changed."""

import time

import warnings

import pytest
from amaranth.hdl import signed
from amaranth.lib.memory import MemoryData
from amaranth.back import rtlil
from amaranth.hdl import Array, Cat, Elaboratable, Module, Signal, unsigned
from amaranth.sim import Simulator

import aesdse.verify  # noqa: F401  (installs the memo)
import archs
from archs.prims.gf import SBOX
from aesdse.verify import amaranth_memo
from aesdse.verify.amaranth_memo import MEMOIZED, install, installed


def test_importing_aesdse_verify_installs_it_once():
    assert installed()
    assert [cls.__name__ for cls in MEMOIZED] == ["Operator", "Concat"]
    shapes = [cls.shape for cls in MEMOIZED]
    install()
    assert [cls.shape for cls in MEMOIZED] == shapes


def test_a_value_reached_along_two_to_the_sixty_paths_is_asked_once():
    # Without the memo each level asks both operands: 2**60 calls.
    x = Signal(8)
    for _ in range(60):
        x = x ^ x
    c = Cat(x, x)
    for _ in range(60):
        c = Cat(c[:8], c[:8]) ^ c
    start = time.perf_counter()
    assert x.shape() == unsigned(8) and len(c) == 16
    assert time.perf_counter() - start < 1.0


def _without_memo(monkeypatch):
    for cls in MEMOIZED:
        monkeypatch.setattr(cls, "shape", cls.shape.__wrapped__)
    namespace = amaranth_memo._MEMORY_NAMESPACE
    monkeypatch.setitem(namespace, "_get_init_value", namespace["_get_init_value"].__wrapped__)
    for cls, attr, _ in amaranth_memo._sim_patch_targets():
        monkeypatch.setattr(cls, attr, getattr(getattr(cls, attr), amaranth_memo.ORIGINAL))
    dsl = amaranth_memo._DSL
    monkeypatch.setattr(dsl, "_check_rhs", getattr(dsl._check_rhs, amaranth_memo.ORIGINAL))


def _memory_outcomes(cases):
    """For each (shape, elements): the stored elements and raw values, or the error, and the
    warnings raised."""
    out = []
    for shape, elems in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                init = MemoryData.Init(elems, shape=shape, depth=4)
                found = (list(init), list(init._raw))
            except Exception as error:   # Amaranth's own SyntaxError among them
                found = (type(error).__name__, str(error))
        out.append((found, [(w.category, str(w.message)) for w in caught]))
    return out


def test_memory_elements_read_as_without_the_fast_path(monkeypatch):
    # In range, out of range (truncated, with Amaranth's warning), negative, signed shapes,
    # bools, widths as ints and as Shapes, wrong types.
    cases = [(8, [0, 255, 17]), (8, [256, 3]), (8, [-1]), (8, [-2]), (unsigned(4), [15, 16]),
             (signed(8), [-128, 127, 5]), (signed(8), [200]), (1, [True, False]), (8, ["x"]),
             (range(10), [9]), (range(10), [10]), (0, [0]), (0, [1])]
    fast = _memory_outcomes(cases)
    _without_memo(monkeypatch)
    assert _memory_outcomes(cases) == fast
    assert fast[0][0] == ([0, 255, 17, 0], [0, 255, 17, 0]) and not fast[0][1]
    assert fast[1][1] and "truncated" in fast[1][1][0][1]


@pytest.mark.parametrize("params", [{"sbox": "tower", "sbox_stages": 3, "direction": "shared"},
                                    {"sbox": "composite", "sbox_stages": 2},
                                    {"sbox": "lut"}])
def test_the_rtlil_is_the_same_byte_for_byte(params, monkeypatch):
    def text():
        return rtlil.convert(archs.family("sbox").build(**params), name="top")
    with_memo = text()
    _without_memo(monkeypatch)
    assert text() == with_memo
    if params["sbox"] == "lut":   # a table in a memory
        assert list(MemoryData(shape=8, depth=256, init=SBOX).init) == list(SBOX)


def test_the_simulation_is_the_same():
    # A pipelined tower S-box's outputs for every input, with and without the memo.
    def outputs():
        dut = archs.family("sbox").build(sbox="tower", sbox_stages=2, direction="encrypt")
        seen = []

        async def bench(ctx):
            for value in range(256 + dut.latency):
                ctx.set(dut.i, value % 256)
                await ctx.tick()
                seen.append(ctx.get(dut.o))
        sim = Simulator(dut)
        sim.add_clock(1e-6)
        sim.add_testbench(bench)
        sim.run()
        return seen[dut.latency - 1:][:256]

    with_memo = outputs()
    with pytest.MonkeyPatch.context() as monkeypatch:
        _without_memo(monkeypatch)
        assert outputs() == with_memo
    assert with_memo == list(SBOX)


# --- shared values in the simulator ------------------------------------------------------------


def test_a_bad_right_hand_side_is_refused_every_time():
    # A memory row is a value only simulator processes may read: the check refuses it, and
    # is not taught to pass it; a good value is asked once.
    check = amaranth_memo._DSL._check_rhs
    assert hasattr(check, amaranth_memo.ORIGINAL)
    x = Signal(8)
    good = (x + 1)[:8] ^ x
    check(good)
    assert good.__dict__.get(amaranth_memo._CHECKED)
    bad = MemoryData(shape=8, depth=4, init=[])[1] ^ x
    for _ in range(2):
        with pytest.raises(ValueError, match="only be used in simulator processes"):
            check(bad)
    assert not bad.__dict__.get(amaranth_memo._CHECKED)


def test_the_simulator_patches_are_installed():
    targets = amaranth_memo._sim_patch_targets()
    assert [(cls.__name__, attr) for cls, attr, _ in targets] == [
        ("DomainCollector", "on_value"), ("Design", "_collect_used_signals_value"),
        ("DomainLowerer", "on_value"), ("_PythonEmitter", "indent"),
        ("_StatementCompiler", "__call__"), ("_ValueCompiler", "on_value"),
        ("Simulator", "__init__")]
    assert all(hasattr(getattr(cls, attr), amaranth_memo.ORIGINAL) for cls, attr, _ in targets)


class _Shared(Elaboratable):
    """A design whose shared values are read in both arms of an ``If``, after it, in a
    ``Switch`` test, an ``Array`` index (a SwitchValue), a ``bit_select`` offset on both sides
    of an assignment, and by a register: every place where a variable defined in one block of
    the generated code could be read where that block did not run."""

    def __init__(self):
        self.a, self.b, self.s = Signal(8), Signal(8), Signal(2)
        self.outs = [Signal(8, name=f"o{i}") for i in range(8)]

    def elaborate(self, platform):
        m = Module()
        a, b, s, o = self.a, self.b, self.s, self.outs
        shared = (a ^ b) + 1
        inner = shared[2:6] ^ a[:4]          # shared by the If's arms and the Switch
        with m.If(s[0]):
            m.d.comb += o[0].eq(inner & 3)
            m.d.comb += o[1].eq(Array([shared, a, b, inner])[s] + inner)
        with m.Else():
            m.d.comb += o[0].eq(inner | shared)
        m.d.comb += o[2].eq(shared ^ inner)
        with m.Switch(inner[:2]):
            with m.Case(0):
                m.d.comb += o[3].eq(shared.bit_select(inner[:3], 4))
            with m.Default():
                m.d.comb += o[3].eq(~shared)
        m.d.comb += o[4].bit_select(inner[:2], 4).eq(shared)
        m.d.sync += [o[5].eq(o[5] + shared), o[6].eq(Cat(inner, inner) ^ o[6])]
        with m.If(shared[0]):
            m.d.sync += o[7].eq(inner)
        return m


def _shared_trace():
    dut = _Shared()
    seen = []

    async def bench(ctx):
        for i in range(200):
            ctx.set(dut.a, (i * 37) % 256)
            ctx.set(dut.b, (i * 101 + 5) % 256)
            ctx.set(dut.s, i % 4)
            await ctx.delay(1e-7)
            seen.append([ctx.get(o) for o in dut.outs])
            await ctx.tick()
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen


def test_a_design_with_shared_values_in_every_kind_of_block_simulates_the_same():
    with_sharing = _shared_trace()
    with pytest.MonkeyPatch.context() as monkeypatch:
        _without_memo(monkeypatch)
        assert _shared_trace() == with_sharing
    assert len({tuple(t) for t in with_sharing}) > 100   # the inputs reach the outputs


def _doubled(levels):
    x = Signal(16)
    y = x
    for _ in range(levels):
        y = (y ^ (y << 1))[:16]
    return x, y


def test_a_value_reached_along_a_million_paths_is_lowered_and_computed_once():
    # Without the patches the lowering copies, and the code generator writes out, each of
    # the 2**20 paths to the input: minutes and gigabytes. With them: 20 shared variables.
    start = time.perf_counter()
    x, y = _doubled(20)
    out = Signal(16)
    m = Module()
    m.d.comb += out.eq(y)    # Amaranth's check of the right-hand side: once per value too
    sim = Simulator(m)

    async def bench(ctx):
        for value in (1, 0x8001, 0xBEEF):
            ctx.set(x, value)
            expect = value
            for _ in range(20):
                expect = (expect ^ (expect << 1)) & 0xFFFF
            assert ctx.get(out) == expect
    sim.add_testbench(bench)
    sim.run()
    assert time.perf_counter() - start < 5.0


def test_the_rtlil_of_a_design_with_shared_values_is_the_same(monkeypatch):
    # The lowering shares only while a simulator is built: the netlist builder, which keeps
    # one cell per distinct value object, gets the values it always got.
    def text():
        dut = _Shared()
        return rtlil.convert(dut, name="top", ports=[dut.a, dut.b, dut.s, *dut.outs])
    with_patches = text()
    _without_memo(monkeypatch)
    assert text() == with_patches
