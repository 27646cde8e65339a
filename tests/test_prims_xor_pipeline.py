"""Pipelined XOR networks (archs.prims.xor_pipeline): plans, their hardware, their LUT4 depth."""

import functools
import json
import operator
import random

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Cat, Module, Signal
from amaranth.sim import Simulator

from aesdse.flow import yosys
from aesdse.flow.yosys import SynthOptions
from archs.prims import gf
from archs.prims.composite import COMPOSITE
from archs.prims.mixcolumns import mix_column
from archs.prims.xor_pipeline import matrix_rows, xor_pipeline, xor_plan, xor_plan_value
from archs.unrolled.linear_layer import last_round_plan as _last_round_plan
from archs.unrolled.linear_layer import round_plan as _round_plan


def _rows_value(rows, consts, bits):
    return [functools.reduce(operator.xor, (bits[k] for k in row)) ^ c
            for row, c in zip(rows, consts)]


def _random_rows(rng, count, width, most):
    return [tuple(sorted(rng.sample(range(width), rng.randint(1, most)))) for _ in range(count)]


@pytest.mark.parametrize("stages,most", [(1, 4), (2, 16), (3, 40)])
def test_plan_computes_its_rows(stages, most):
    # Every node XORs at most four bits of the level below; the last level has one node per
    # row; on every unit vector (a linear map is fixed by them) and on random inputs the plan
    # computes each row's XOR, inverted where its constant says.
    rng = random.Random(stages)
    rows = _random_rows(rng, 24, 48, most)
    consts = [rng.randrange(2) for _ in rows]
    plan = xor_plan(rows, stages, consts=consts)
    assert len(plan.levels) == stages and len(plan.levels[-1]) == len(rows)
    assert all(1 <= len(node) <= 4 for level in plan.levels for node in level)
    cases = [[int(k == n) for k in range(48)] for n in range(48)]
    cases += [[rng.randrange(2) for _ in range(48)] for _ in range(50)]
    for bits in cases:
        assert xor_plan_value(plan, bits) == _rows_value(rows, consts, bits)


def test_plan_shares_partial_xors():
    # The round plan of the merged linear layer: rows of 13 to 22 terms (the column map from
    # four inversions and four key bytes to the next four inversion inputs) in three levels,
    # sharing partial XORs: fewer LUT4s than one tree per row (ceil(n/4) + ceil(n/16) + 1).
    plan = _round_plan(COMPOSITE.to_composite, COMPOSITE.from_composite)
    lengths = [len(set().union(*(plan.levels[0][k] for k in _leaves(plan, j))))
               for j in range(32)]
    assert min(lengths) == 13 and max(lengths) == 22
    unshared = sum(-(-n // 4) + -(-n // 16) + 1 for n in lengths)
    assert plan.xor_nodes < 0.8 * unshared, (plan.xor_nodes, unshared)


def _leaves(plan, row):
    """The level-0 nodes under output ``row``."""
    nodes = {row}
    for level in reversed(plan.levels[1:]):
        nodes = {child for n in nodes for child in level[n]}
    return nodes


def test_merged_layer_plans_are_the_round():
    # The round plan is to(MixColumns(affine(from(y))) ^ k) on a column, the last round's
    # affine(from(y)) ^ k on a byte: the standard round functions in the field's basis.
    to_field, from_field = COMPOSITE.to_composite, COMPOSITE.from_composite
    rng = random.Random(3)
    round_plan, last_plan = _round_plan(to_field, from_field), _last_round_plan(from_field)
    for _ in range(100):
        y, key = [rng.randrange(256) for _ in range(4)], [rng.randrange(256) for _ in range(4)]
        bits = [b for byte in y + key for b in gf.int_bits(byte, 8)]
        out = xor_plan_value(round_plan, bits)
        expected = [to_field(m ^ k) for m, k in
                    zip(mix_column([gf.affine(from_field(b)) for b in y]), key)]
        assert [gf.bits_int(out[8 * r:8 * r + 8]) for r in range(4)] == expected
        out = xor_plan_value(last_plan, gf.int_bits(y[0], 8) + gf.int_bits(key[0], 8))
        assert gf.bits_int(out) == gf.affine(from_field(y[0])) ^ key[0]


@pytest.mark.parametrize("rows,stages,message", [
    ([(0, 1), ()], 2, r"^Row 1 has 0 terms; 2 stages of 4-input XORs take 1 to 16$"),
    ([tuple(range(17))], 2, r"^Row 0 has 17 terms; 2 stages of 4-input XORs take 1 to 16$"),
    ([(0,)], 0, r"^An XOR network has at least one stage, not 0$"),
])
def test_plan_errors(rows, stages, message):
    with pytest.raises(ValueError, match=message):
        xor_plan(rows, stages)


def test_pipeline_hardware_matches_its_plan():
    # Built on signals: the outputs follow the inputs len(levels) - 1 cycles later, each the
    # plan's value of the inputs then.
    rng = random.Random(5)
    rows = _random_rows(rng, 16, 32, 30)
    plan = xor_plan(rows, 3, consts=[k % 2 for k in range(16)])
    m = Module()
    i, o = Signal(32), Signal(16)
    m.d.comb += o.eq(Cat(*xor_pipeline(m, "net", plan, [i[k] for k in range(32)])))
    inputs = [rng.randrange(1 << 32) for _ in range(40)]
    seen = []

    async def testbench(ctx):
        for value in inputs + [0, 0]:
            ctx.set(i, value)
            await ctx.delay(1e-9)
            seen.append(ctx.get(o))
            await ctx.tick()

    sim = Simulator(m)
    sim.add_clock(1e-8)
    sim.add_testbench(testbench)
    sim.run()
    expected = [gf.bits_int(xor_plan_value(plan, gf.int_bits(v, 32))) for v in inputs]
    assert seen[2:42] == expected


def _lut_depths(netlist: dict, top: str) -> dict:
    """LUT4 levels in front of each flip-flop's data input, by the flip-flop's output net."""
    module = netlist["modules"][top]
    cells = module["cells"].values()
    driver = {bit: cell for cell in cells for port, direction in cell["port_directions"].items()
              if direction == "output" for bit in cell["connections"][port]}
    names = {bit: name for name, net in module["netnames"].items() for bit in net["bits"]}

    @functools.lru_cache(maxsize=None)
    def depth(bit):
        cell = driver.get(bit)
        if cell is None or cell["type"] != "LUT4":
            return 0
        return 1 + max(depth(b) for port, d in cell["port_directions"].items()
                       if d == "input" for b in cell["connections"][port] if isinstance(b, int))
    return {names.get(cell["connections"]["Q"][0], "?"): depth(cell["connections"]["DI"][0])
            for cell in cells if cell["type"] == "TRELLIS_FF"}


def test_every_path_is_one_lut4(tmp_path):
    # Real synth_ecp5 (-nowidelut): with a deeper path elsewhere in the design (a 24-input
    # AND, three LUT4 levels), ABC maps the merged linear layer's round plan one LUT4 between
    # registers, every bit; the same rows as plain XOR expressions get more levels (the depth
    # ABC's area recovery may take).
    plan = _round_plan(COMPOSITE.to_composite, COMPOSITE.from_composite)
    rows = [sorted(set().union(*(plan.levels[0][k] for k in _leaves(plan, j))))
            for j in range(32)]
    m = Module()
    i, wide = Signal(64), Signal(24)
    i_reg, wide_reg = Signal(64, name="i_reg"), Signal(24, name="wide_reg")
    piped, plain, all_ones = (Signal(32, name="piped"), Signal(32, name="plain"),
                              Signal(name="all_ones"))
    bits = [i_reg[k] for k in range(64)]
    m.d.sync += [i_reg.eq(i), wide_reg.eq(wide), all_ones.eq(wide_reg.all()),
                 piped.eq(Cat(*xor_pipeline(m, "net", plan, bits))),
                 plain.eq(Cat(*_rows_value(rows, plan.consts, bits)))]
    (tmp_path / "design.il").write_text(rtlil.convert(m, ports=[i, wide, piped, plain,
                                                                all_ones], name="top"))
    synthesis = yosys.synthesize("design.il", "top", tmp_path, SynthOptions(nowidelut=True))
    assert synthesis.ok, synthesis.reason
    depths = _lut_depths(json.loads((tmp_path / "netlist.json").read_text()), "top")
    assert depths["all_ones"] == 3
    assert {depth for name, depth in depths.items() if name.startswith("piped")} == {1}
    # (a node of one bit is a register copy: no LUT4)
    assert {depth for name, depth in depths.items() if name.startswith("net_x")} == {0, 1}
    assert max(depth for name, depth in depths.items() if name.startswith("plain")) >= 3
