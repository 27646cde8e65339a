# amaranth: UnusedElaboratable=no
"""archs.masked: masked AES-128 on d + 1 shares, and the xorshift bit source it is measured with
(archs.prims.prng)."""

import random

import pytest
from amaranth.sim import Simulator

from aesdse.engine.point import random_bits_details
from aesdse.experiment import parse_experiment
from aesdse.spec.schema import VerifyOptions
from aesdse.verify import reference
from aesdse.verify.testbench import stream_get, stream_put
from aesdse.verify.verify import verify_component
from archs import FAMILIES
from archs.masked import Masked
from archs.prims.masked_sbox import plan
from archs.prims.prng import RandomBits, seeds, xorshift64
from reused_simulation import ReusableSimulation

FIPS_KEY = 0x000102030405060708090A0B0C0D0E0F
FIPS_PLAIN = 0x00112233445566778899AABBCCDDEEFF
FIPS_CIPHER = 0x69C4E0D86A7B0430D8CDB78070B4C55A


def test_the_bit_source_is_the_xorshift64_model():
    bits = RandomBits(100, seed=3)
    assert bits.count == 2
    states = seeds(2, 3)
    assert len(set(states)) == 2 and all(states)
    seen = []

    async def bench(ctx):
        for _ in range(5):
            seen.append(ctx.get(bits.bits))
            await ctx.tick()
    sim = Simulator(bits)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    expected = []
    for _ in range(5):
        expected.append((states[0] | states[1] << 64) & ((1 << 100) - 1))
        states = [xorshift64(s) for s in states]
    assert seen == expected
    with pytest.raises(ValueError, match="width must be at least 1"):
        RandomBits(0)


@pytest.mark.parametrize("params, latency, sbox_bits", [
    ({}, 8, 36),
    ({"gadget": "dom_indep"}, 4, 36),
    ({"gadget": "dom_indep", "multipliers": "field"}, 4, 18),
    ({"masking_order": 2}, 8, 108),
    ({"masking_order": 2, "gadget": "dom_indep", "multipliers": "field"}, 4, 54),
])
def test_random_bits_per_cycle_are_counted_from_the_sboxes(params, latency, sbox_bits):
    core = Masked(**params)
    d = params.get("masking_order", 1)
    assert (core.sbox_latency, core.sbox_random_bits) == (latency, sbox_bits)
    assert sbox_bits == plan(core.gadget, d, core.multipliers)[2]
    assert core.random_bits == 20 * sbox_bits + 2 * 128 * d


def test_parameters_the_core_cannot_build_are_refused():
    with pytest.raises(ValueError, match="multipliers='field' needs gadget='dom_indep'"):
        Masked.check(multipliers="field")
    with pytest.raises(ValueError, match=r"^Masking order must be 1 or 2, not 3"):
        Masked.check(masking_order=3)
    with pytest.raises(ValueError, match=r"^Randomness must be one of 'prng', 'port'"):
        Masked.check(randomness="none")
    fam = FAMILIES["masked"]
    assert fam.check_params({**fam.defaults(), "multipliers": "field"}) is not None
    assert fam.check_params(fam.defaults()) is None


def _port_runs(core, blocks, runs, *, probe=False):
    """Encrypt ``blocks`` under FIPS_KEY once per entry of ``runs`` (a seed of the uniform bits
    fed to ``rnd``, or None for all bits 0), on one simulator reset between runs. Returns per
    run the results and the shares of the state register after each block load."""
    simulation = ReusableSimulation(core)
    out = []
    for seed in runs:
        rng, results, loaded = random.Random(seed), [], []

        async def randomness(ctx):
            while len(results) < len(blocks):
                ctx.set(core.rnd, 0 if seed is None else rng.getrandbits(core.random_bits))
                await ctx.tick()

        async def producer(ctx):
            await stream_put(ctx, core.key, {"key": FIPS_KEY})
            for block in blocks:
                await stream_put(ctx, core.i, {"data": block})
                loaded.append([ctx.get(s) for s in core.state_shares])

        async def consumer(ctx):
            for _ in blocks:
                results.append((await stream_get(ctx, core.o, timeout=500)).data)

        simulation.run(randomness, producer, consumer)
        out.append((results, loaded))
    return out


def _recombined(shares):
    value = 0
    for s in shares:
        value ^= s
    return value


def test_the_rnd_port_core_encrypts_under_any_randomness_and_its_shares_are_masked():
    blocks = [FIPS_PLAIN, 0, (1 << 128) - 1]
    expected = [FIPS_CIPHER] + [reference.encrypt_int(FIPS_KEY, b, 128) for b in blocks[1:]]
    core = Masked(randomness="port", gadget="dom_indep", multipliers="field")
    (first, loads1), (second, loads2), (zero, _) = _port_runs(core, blocks, (1, 2, None))
    assert first == second == expected
    # The state after loading a block is block ^ key in shares the randomness decides: equal
    # recombined, different share by share between two runs.
    for loads in (loads1, loads2):
        assert [_recombined(s) for s in loads] == [b ^ FIPS_KEY for b in blocks]
    assert all(a != b for a, b in zip(loads1[0], loads2[0]))
    # With every random bit 0 it still computes AES: only a leakage test sees that.
    assert zero == expected


def test_second_order_masking_on_three_shares():
    core = Masked(randomness="port", masking_order=2, gadget="dom_indep", multipliers="field")
    [(results, loads)] = _port_runs(core, [FIPS_PLAIN], (4,))
    assert results == [FIPS_CIPHER]
    assert len(loads[0]) == 3 and _recombined(loads[0]) == FIPS_PLAIN ^ FIPS_KEY
    assert len(set(loads[0])) == 3


def test_the_family_core_verifies_and_takes_fifty_cycles_a_block():
    # The built-in generator: the verify stage checks it like any core (FIPS-197, random
    # vectors, back-to-back blocks for the cycles per block).
    fam = FAMILIES["masked"]
    params = {"gadget": "dom_indep", "multipliers": "field"}
    result = verify_component(lambda: fam.build(**params), "cipher",
                              VerifyOptions(random_vectors=2, measure_blocks=3))
    assert result.ok, result.reason
    assert (result.latency_cycles, result.cycles_per_block) == (51, 50.0)


def test_a_masked_point_records_its_random_bits_per_block():
    # What the sweep puts into a row's details (aesdse.engine.point.design_checked): the bits a
    # cycle times the cycles per block measured in simulation; nothing for an unmasked family.
    exp = parse_experiment("""
name: bits
architectures:
  - arch: masked
    params: {masking_order: [1, 2], gadget: dom_indep, multipliers: field}
  - arch: iterative
""")
    found = {(p.arch, p.params_dict.get("masking_order")): random_bits_details(p, 50.0)
             for p in exp.points}
    assert found == {("masked", 1): {"per_cycle": 616, "per_block": 30_800.0},
                     ("masked", 2): {"per_cycle": 1592, "per_block": 79_600.0},
                     ("iterative", None): None}


def test_a_table_with_masked_rows_has_a_random_bits_column():
    from dataclasses import replace
    from aesdse.report.table import render
    from conftest import _ok
    masked = _ok("m1", "masked", {"masking_order": 1}, luts=20_000, ffs=9_000, fmax=80.0,
                 cpb=90.0)
    masked = replace(masked, details={"randomness": {"per_cycle": 976, "per_block": 87_840.0}})
    plain = _ok("i1", "iterative", {"sbox": "lut"}, luts=4_000, ffs=500, fmax=100.0, cpb=10.0)
    text = render([masked, plain], "markdown")
    header = next(line for line in text.splitlines() if "LUT4" in line)
    assert header.rstrip(" |").endswith("Random bits/block")
    masked_line = next(line for line in text.splitlines() if "| masked" in line or "masked |" in line)
    assert "87,840" in masked_line
    assert "Random bits" not in render([plain], "markdown")
