# amaranth: UnusedElaboratable=no
"""Tests of archs.unrolled: plans, parameter errors, every configuration the experiments use
through the common verifier, key agility with back-pressure, and a reduced-round test core."""

import functools
import random
import re
from typing import NamedTuple

import pytest
from amaranth.back import rtlil

import archs
from aesdse.verify import reference
from aesdse.verify.testbench import (EdgeClock, random_gaps, random_ready,
                                     stream_get, stream_put)
from reused_simulation import ReusableSimulation
from aesdse.verify.verify import verify_component
from aesdse.spec.schema import VerifyOptions
from archs.prims.circuits import CIRCUITS
from archs.prims import gf
from archs.prims.keyschedule import ROUNDS, extend_key, round_keys
from archs.prims.mixcolumns import mix_column
from archs.prims.sbox import sbox_latency
from archs.prims.shiftrows import shift_rows
from archs.prims.keyschedule import key_step_plan
from archs.prims.roundkeys import RoundKeyChain
from archs.unrolled import Unrolled, unit_rounds


#: A fully pipelined point that takes ``merged_linear_layer``.
MERGED = {"round_units": 10, "sbox": "composite", "sbox_stages": 7,
          "key_schedule": "precomputed"}


def verify(**params):
    """Run the common verifier; the stream spans whole slot rotations (see blocks_in_flight)."""
    dut = Unrolled(**params)
    options = VerifyOptions(random_vectors=4, measure_blocks=4 * dut.blocks_in_flight + 1)
    result = verify_component(lambda: Unrolled(**params), "cipher", options,
                              key_sizes=(params.get("key_bits", 128),))
    assert result.ok, result.reason
    return dut, result


# --- Plans ------------------------------------------------------------------------------------


def test_unit_rounds():
    assert unit_rounds(2, 10, "split") == [(1, 2, 3, 4, 5), (6, 7, 8, 9, 10)]
    assert unit_rounds(2, 10, "alternate") == [(1, 3, 5, 7, 9), (2, 4, 6, 8, 10)]
    assert unit_rounds(5, 10, "split") == [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)]
    assert unit_rounds(10, 10, "split") == [(r,) for r in range(1, 11)]
    assert unit_rounds(1, 10, "alternate") == [tuple(range(1, 11))]


@pytest.mark.parametrize("key_bits", [128, 192, 256])
def test_key_step_plan_reproduces_the_expansion(key_bits):
    # Walk the window w[4r .. 4r + Nk - 1] with the plan, in integers, and compare with
    # FIPS-197 (extended past the end the way the last step runs over it).
    nk = key_bits // 32
    rng = random.Random(key_bits)
    key = bytes(rng.getrandbits(8) for _ in range(nk * 4))
    words = extend_key(key, 4 * ROUNDS[key_bits] + nk)
    window = words[:nk]
    for r in range(1, ROUNDS[key_bits] + 1):
        plan = key_step_plan(key_bits, r)
        temp, new = window[-1], []
        for p in range(4):
            if plan is not None and p == plan[0]:
                t = ((temp << 8) | (temp >> 24)) & 0xFFFFFFFF if plan[1] else temp
                temp = int.from_bytes(bytes(gf.SBOX[b] for b in t.to_bytes(4, "big")), "big")
                temp ^= plan[2] << 24
            temp = window[p] ^ temp
            new.append(temp)
        window = window[4:] + new
        assert window == words[4 * r:4 * r + nk], f"step {r}"


def test_key_step_plan_subword_positions():
    assert {key_step_plan(128, r) for r in range(1, 11)} == \
        {(0, True, gf.RCON[r - 1]) for r in range(1, 11)}
    # AES-192: w[6..9] (w[6] rotated), w[10..13] (w[12]), w[14..17] (no SubWord).
    assert [key_step_plan(192, r) for r in (1, 2, 3)] == [(0, True, 1), (2, True, 2), None]
    # AES-256: w[8] rotated, w[12] SubWord alone, w[16] rotated.
    assert [key_step_plan(256, r) for r in (1, 2, 3)] == [(0, True, 1), (0, False, 0),
                                                         (0, True, 2)]


# --- Parameters -------------------------------------------------------------------------------


@pytest.mark.parametrize("params, message", [
    ({"round_units": 3}, r"^Round units must divide the 10 rounds \(1, 2, 5, 10\), not 3$"),
    ({"round_units": 4, "key_bits": 256},
     r"^Round units must divide the 14 rounds \(1, 2, 7, 14\)"),
    ({"schedule": "zigzag"}, r"^Schedule must be one of split, alternate, not 'zigzag'$"),
    ({"key_schedule": "stored"}, r"^Key schedule must be one of on_the_fly, precomputed, "
                                 r"not 'stored'$"),
    ({"key_bits": 64}, r"^Key size must be 128, 192 or 256 bits, not 64$"),
    ({"rounds": 11}, r"^Rounds must be an integer from 1 to 10, not 11$"),
    ({"bram_rounds": 5, "round_units": 2}, r"^BRAM rounds need a fully pipelined core "
                                           r"\(round units 10\), not round units 2$"),
    ({"bram_rounds": 11}, r"^BRAM rounds must be an integer from 0 to 10, not 11$"),
    ({"sbox": "lut", "sbox_stages": 3}, r"^S-box family 'lut' has no pipeline stages, not 3$"),
    ({"initial_add_round_key": "ring"}, r"^Initial AddRoundKey must be 'entry' or "
                                        r"'ring_input', not 'ring'$"),
    ({"key_into_feedback": True, "round_units": 1}, r"^Key into feedback needs lean control"),
    ({"key_into_feedback": True, "lean_control": True}, r"^Key into feedback needs"),
    ({"key_into_feedback": True, "lean_control": True, "round_units": 2}, r"^Key into feedback"),
    ({"key_into_feedback": True, "lean_control": True, "round_units": 1,
      "key_schedule": "precomputed"}, r"^Key into feedback needs"),
    ({"lean_control": 1}, r"^Lean control must be false or true, not 1$"),
    ({"round_key_chain": True}, r"^A round key chain needs precomputed round keys"),
    ({"round_key_chain": 1, "key_schedule": "precomputed"},
     r"^Round key chain must be false or true, not 1$"),
    ({"banked_buffer": True}, r"^A banked buffer needs lean control "),
    ({"key_lead": True, "sbox": "composite", "sbox_stages": 0}, r"^Key lead needs round keys "
                                                                r"on the fly in a fully"),
    ({"key_lead": True, "sbox": "composite", "sbox_stages": 3, "key_schedule": "precomputed"},
     r"^Key lead needs"),
    ({"key_lead": True, "sbox": "lut"}, r"^Key lead needs"),
    ({"key_lead": "yes"}, r"^Key lead must be false or true, not 'yes'$"),
    ({"sbox_output_copies": 3}, r"^S-box output copies must be 1 or 2, not 3$"),
    ({"sbox_output_copies": True}, r"^S-box output copies must be 1 or 2, not True$"),
    ({"sbox_output_copies": 2, "sbox": "composite", "sbox_stages": 5},
     r"^Two S-box output copies need composite or tower S-boxes with 6 or 7 stages"),
    ({"sbox_output_copies": 2, "sbox": "lut"}, r"^Two S-box output copies need"),
    ({"sbox_output_copies": 2, "sbox": "tower", "sbox_stages": 6, "bram_rounds": 5},
     r"^Two S-box output copies need .* a BRAM fabric register"),
    ({"merged_linear_layer": 1}, r"^Merged linear layer must be false or true, not 1$"),
    ({"registered_key_flags": True, "key_schedule": "precomputed"},
     r"^Registered key flags need a round key chain \(they are its handshake's\)$"),
    *[({"merged_linear_layer": True, **MERGED, **change}, r"^A merged linear layer needs a "
       r"fully pipelined core \(round units 10\) with precomputed keys, composite or tower")
      for change in ({"round_units": 5}, {"key_schedule": "on_the_fly"},
                     {"sbox": "lut", "sbox_stages": 0},
                     {"sbox_stages": 5}, {"sbox_output_copies": 2}, {"bram_rounds": 1},
                     {"initial_add_round_key": "ring_input"})],
])
def test_wrong_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        Unrolled(**params)
    with pytest.raises(ValueError, match=message):
        archs.family("unrolled").build(**params)


def test_attributes():
    dut = Unrolled(round_units=2, schedule="alternate")
    assert (dut.laps, dut.stages_per_round, dut.blocks_in_flight) == (5, (1, 1), 2)
    # With one unit per round, or one unit, the schedules are the same circuit.
    assert Unrolled(round_units=10, schedule="alternate").schedule == "split"
    assert Unrolled(round_units=1, schedule="alternate").schedule == "split"
    # The registry builds it (and it converts to RTLIL without Yosys).
    family = archs.family("unrolled")
    core = family.build(**{**family.defaults(), "round_units": 1})
    assert core.rounds == 10
    assert "module" in rtlil.convert(core, name="top")


# --- RTLIL conversion of the registry's design points ----------------------------------------
# A combinational cycle passes simulation but fails the generate stage of a sweep (RTLIL
# conversion): AES-192 with precomputed round keys and a combinational S-box did. Converting
# every combination the registry allows takes minutes (a fully pipelined core converts in 5-15 s),
# so this covers every key size x key schedule x S-box family, each on one looped unit (the unit
# and the key schedule are the same circuit for any unit count).

# The published circuits (archs.prims.circuits) are one component class of latency 0, like
# ``lut``: they take turns over the key size x key schedule pairs instead of adding every pair.
_KEY_AXES = [(key_bits, key_schedule)
             for key_bits in archs.family("unrolled").param("key_bits").choices
             for key_schedule in archs.family("unrolled").param("key_schedule").choices]
UNROLLED_AXES = ([(key_bits, key_schedule, sbox) for key_bits, key_schedule in _KEY_AXES
                  for sbox in archs.family("unrolled").param("sbox").choices
                  if sbox not in CIRCUITS]
                 + [(*_KEY_AXES[n % len(_KEY_AXES)], sbox)
                    for n, sbox in enumerate(sorted(CIRCUITS))])


@pytest.mark.parametrize("key_bits, key_schedule, sbox", UNROLLED_AXES)
def test_registry_points_convert_to_rtlil(key_bits, key_schedule, sbox):
    family = archs.family("unrolled")
    params = {**family.defaults(), "round_units": 1, "key_bits": key_bits,
              "key_schedule": key_schedule, "sbox": sbox}
    assert family.check_params(params) is None
    assert "module" in rtlil.convert(family.build(**params), name="top", emit_src=False)


# --- The common verifier: every axis ----------------------------------------------------------
# Expected numbers follow from the architecture: a block needs 1 cycle in the entry register and
# S = 1 + sbox latency cycles per round, and the core delivers one block per rounds/round_units
# cycles because it keeps every one of its round_units x S slots busy.


@pytest.mark.parametrize("round_units, schedule", [
    (1, "split"), (2, "split"), (2, "alternate"), (5, "split"), (5, "alternate"), (10, "split")])
@pytest.mark.parametrize("key_schedule", ["on_the_fly", "precomputed"])
def test_lut(round_units, schedule, key_schedule):
    dut, result = verify(round_units=round_units, schedule=schedule, key_schedule=key_schedule)
    assert result.latency_cycles == 11
    assert result.cycles_per_block == 10 / round_units
    assert dut.blocks_in_flight == round_units


@pytest.mark.parametrize("params, latency, cycles_per_block, in_flight", [
    # Seed 004 design 2 with 4 stages per unit: 8 blocks share the ring, still 5 cycles each.
    ({"round_units": 2, "schedule": "alternate", "sbox_stages": 3}, 41, 5.0, 8),
    # Seed 002's 7 stages per round in a split loop, round keys precomputed.
    ({"round_units": 2, "schedule": "split", "sbox_stages": 6,
      "key_schedule": "precomputed"}, 71, 5.0, 14),
    ({"round_units": 5, "schedule": "split", "sbox_stages": 0}, 11, 2.0, 5),
])
def test_composite(params, latency, cycles_per_block, in_flight):
    dut, result = verify(sbox="composite", **params)
    assert (result.latency_cycles, result.cycles_per_block, dut.blocks_in_flight) == \
        (latency, cycles_per_block, in_flight)


@pytest.mark.parametrize("sbox, sbox_stages", [("bp113", 6), ("rm_new_area", 4)])
def test_pipelined_circuit_sboxes_in_the_loop(sbox, sbox_stages):
    # The iterative record's loop (one round unit, 1 + sbox_stages blocks in it) with a
    # published S-box circuit cut into stages (issue 22): the same timing as composite.
    dut, result = verify(round_units=1, sbox=sbox, sbox_stages=sbox_stages)
    assert (result.latency_cycles, result.cycles_per_block, dut.blocks_in_flight) == \
        (1 + 10 * (1 + sbox_stages), 10.0, 1 + sbox_stages)


def test_bram_rounds():
    # Seed 002 section 4: the first five rounds (and the key schedule) on block-RAM S-boxes, the
    # other five with 3-stage composite S-boxes; no loop, so one block per clock.
    dut, result = verify(round_units=10, sbox="composite", sbox_stages=3, bram_rounds=5)
    bram = 1 + sbox_latency("bram")
    assert dut.stages_per_round == (bram,) * 5 + (4,) * 5
    assert result.latency_cycles == 1 + 5 * bram + 5 * 4
    assert result.cycles_per_block == 1.0


def _dp16kd_instances(dut):
    """The DP16KD cells of the ECP5 build's RTLIL: one entry per cell, the set of its ports
    whose address input carries a signal."""
    text = rtlil.convert(dut, name="top")
    cells = re.findall(r"^\s*cell \\DP16KD (\S+)\n(.*?)^\s*end$", text, re.M | re.S)
    return [{port for port in "AB"
             if re.search(rf"connect \\AD{port}3 (?!1'0\b)", body)} for _, body in cells]


#: The core of the two-port BRAM tests, with one read port per block RAM.
BRAM_PORTS = {"round_units": 10, "sbox": "composite", "sbox_stages": 3, "bram_rounds": 5,
              "lean_control": True}


@pytest.mark.parametrize("fabric_registers", [0, 2])
def test_bram_read_ports(fabric_registers):
    # Two S-box lookups per DP16KD (ports A and B): the same core as one port per block,
    # verified; with fabric registers every BRAM round that many stages deeper. (The block
    # RAMs themselves do not depend on the fabric registers: test_bram_read_ports_pair_lookups.)
    params = BRAM_PORTS
    dut, result = verify(bram_read_ports=2, bram_fabric_registers=fabric_registers, **params)
    one_port = Unrolled(**params)
    assert dut.stages_per_round == tuple(s + fabric_registers * (r < 5)
                                         for r, s in enumerate(one_port.stages_per_round))
    assert (result.latency_cycles, result.cycles_per_block) == \
        (one_port.latency + 5 * fabric_registers, 1.0)


def test_bram_read_ports_pair_lookups():
    # In the ECP5 build, two read ports take half the block RAMs of one, every block serving
    # two lookups (ports A and B).
    params = BRAM_PORTS
    single = _dp16kd_instances(Unrolled(device_family="ecp5", **params))
    paired = _dp16kd_instances(Unrolled(device_family="ecp5", bram_read_ports=2, **params))
    # 5 rounds of 16 S-boxes and 10 key steps of 4.
    assert len(single) == 5 * 16 + 10 * 4 and all(ports == {"A"} for ports in single)
    assert len(paired) == len(single) // 2 and all(ports == {"A", "B"} for ports in paired)
    with pytest.raises(ValueError, match=r"^Two BRAM read ports need BRAM rounds"):
        Unrolled(round_units=10, bram_read_ports=2)
    with pytest.raises(ValueError, match=r"^BRAM fabric registers need BRAM rounds"):
        Unrolled(round_units=10, bram_fabric_registers=1)
    with pytest.raises(ValueError, match=r"^BRAM read ports must be 1 or 2, not 4$"):
        archs.family("unrolled").build(round_units=10, bram_rounds=2, bram_read_ports=4)


def test_bram_fabric_register_copies():
    # Two S-box output copies with BRAM rounds: the copies are the block-RAM S-box's fabric
    # register, made twice (the BRAM rounds no deeper than with one), and the composite rounds'
    # output register, as without BRAM rounds. The core still gives the reference's blocks at
    # one per cycle, and both copies of every S-box of a MixColumns round exist.
    params = {"round_units": 10, "sbox": "composite", "sbox_stages": 6, "bram_rounds": 4,
              "bram_read_ports": 2, "bram_fabric_registers": 1, "lean_control": True}
    dut, result = verify(sbox_output_copies=2, **params)
    single = Unrolled(**params)
    assert dut.stages_per_round == single.stages_per_round
    assert (result.latency_cycles, result.cycles_per_block) == (single.latency, 1.0)
    text = rtlil.convert(Unrolled(device_family="ecp5", sbox_output_copies=2, **params),
                         name="top", emit_src=False)
    for u in range(9):  # units 0-8 have MixColumns; 0-3 are BRAM rounds
        for n in range(16):
            assert all(f"wire width 8 \\u{u}_sbox{n}_out{k}\n" in text for k in (0, 1)), (u, n)
    assert "u0_sbox0_fabric" not in text  # the copies replace the one fabric register


@pytest.mark.parametrize("key_schedule", ["on_the_fly", "precomputed"])
def test_lean_control(key_schedule):
    # Lean control: the exit register adds a cycle of latency; the registered credit flag costs
    # one block of buffer depth, not throughput (still one block per cycle).
    dut, result = verify(round_units=10, key_schedule=key_schedule, lean_control=True)
    assert (result.latency_cycles, dut.latency) == (12, 12)
    assert result.cycles_per_block == 1.0
    assert dut.fifo_depth == dut.blocks_in_flight + 4


def optimized_module(tmp_path, core):
    """``core`` as the netlist JSON of its flattened top module after a real Yosys ``proc;
    flatten; opt`` (cells, netnames), run in ``tmp_path``."""
    import json
    from aesdse.flow.tools import find_tool, run_tool
    (tmp_path / "design.il").write_text(rtlil.convert(core, name="top", emit_src=False))
    script = "read_rtlil design.il; hierarchy -top top; proc; flatten; opt; write_json opt.json"
    run = run_tool(find_tool("yosys"), ["-q", "-p", script], tmp_path, "yosys.log", 300)
    assert run.returncode == 0, (tmp_path / "yosys.log").read_text()[-2000:]
    return json.loads((tmp_path / "opt.json").read_text())["modules"]["top"]


def key_change_gaps(param, params, items):
    """Cycles between the transfers of ``items[:4]`` (key, block, key, block), streamed without
    stalls, with ``param`` false and true."""
    gaps = {}
    for on in (False, True):
        edges = [edge for _, edge in rtl_run(shared_core(**{param: on}, **params), items[:4],
                                             stall=0.0)[1]]
        gaps[on] = [b - a for a, b in zip(edges, edges[1:])]
    return gaps


def test_round_key_chain():
    # Precomputed round keys delivered through a register chain (issue 22): the same core, one
    # block per cycle, every block under the key loaded before it even with keys changing
    # between blocks under back-pressure. A new key holds the next block back until the walk
    # has delivered every round key, and the walk waits for the registered "nothing in flight"
    # flag after the last block left.
    params = {"round_units": 10, "sbox": "lut", "key_schedule": "precomputed",
              "lean_control": True}
    dut, result = verify(round_key_chain=True, **params)
    assert (result.latency_cycles, result.cycles_per_block) == (Unrolled(**params).latency, 1.0)
    items, expected = agile_items(8, seed=5)
    outputs, _, _ = rtl_run(shared_core(round_key_chain=True, **params), items, stall=0.3,
                            seed=6)
    assert outputs == expected
    gaps = key_change_gaps("round_key_chain", params, items)
    # A key is taken whenever no other key waits or walks and held (pending) until the
    # registered drained flag is set; the walk's load is a register after that, and a block
    # goes in the cycle after the walk's busy fell: walk + 2 cycles after the flag. The first
    # key finds the flag set; the second is taken in the cycle after the block before it, and
    # the flag rises a cycle after the non-chain core's own drain test lets its key in.
    walk = RoundKeyChain(key_bits=128, sbox="lut").busy_cycles
    assert gaps[True] == [1 + walk + 2, 1, gaps[False][1] + walk + 2]


def test_registered_key_flags():
    # The walk's done two registers later, the drained flag one: every block still under the
    # key loaded before it (keys changing between blocks, back-pressure), and a key change
    # three cycles longer than without, including a key taken in the cycle after a block (a
    # late drained flag not cleared by that block would let the walk start early: 38, not 50).
    # The in-flight count steps from a copy of the buffer's write flag, the input's ready
    # reads a copy of busy.
    params = {"round_units": 10, "sbox": "lut", "key_schedule": "precomputed",
              "lean_control": True, "round_key_chain": True}
    items, expected = agile_items(8, seed=5)
    outputs, _, _ = rtl_run(shared_core(registered_key_flags=True, **params), items, stall=0.3,
                            seed=6)
    assert outputs == expected
    gaps = key_change_gaps("registered_key_flags", params, items)
    assert gaps[True] == [gaps[False][0] + 3, 1, gaps[False][2] + 3], gaps
    text = rtlil.convert(Unrolled(registered_key_flags=True, **params))
    for name in ("keys_done0", "keys_done1", "drained_late", "keys_busy_input",
                 "in_flight_written"):
        assert f"\\{name} " in text or f"\\{name}\n" in text, name


def test_local_flag_copies(tmp_path):
    # The credit counter reads a copy of the buffer's empty flag, the key register's clock
    # enable and the input's ready copies of the key handshake's busy flag, each computing its
    # next value from itself: every block still under the key loaded before it (keys changing
    # between blocks, back-pressure), and every transfer in the same cycle as without them.
    params = {"round_units": 10, "sbox": "lut", "key_schedule": "precomputed",
              "lean_control": True, "round_key_chain": True, "registered_key_flags": True,
              "banked_buffer": True, "registered_accept": True}
    items, expected = agile_items(10, seed=11)
    runs = {on: rtl_run(Unrolled(local_flag_copies=on, **params), items, stall=0.4, seed=12)
            for on in (False, True)}
    assert runs[True][0] == expected
    assert runs[True] == runs[False]
    with pytest.raises(ValueError, match=r"^Local flag copies need lean control"):
        Unrolled(round_units=10, local_flag_copies=True)
    # After Yosys's `opt` (a two-round TEST CONFIGURATION, not AES) each copy is a register of
    # its own: copies with the same next-value function would be merged into the flag.
    module = optimized_module(
        tmp_path, Unrolled(**{**params, "round_units": 2}, rounds=2, local_flag_copies=True))
    registers = {bit for c in module["cells"].values() if "dff" in c["type"]
                 for bit in c["connections"]["Q"]}
    flags = {name: module["netnames"][name]["bits"][0]
             for name in ("empty", "empty_for_credit", "keys_busy", "key_hold",
                          "keys_busy_input")}
    assert set(flags.values()) <= registers and len(set(flags.values())) == len(flags), flags


def test_merged_linear_layer():
    # The record's fully pipelined point with the merged linear layer: one block per cycle,
    # verified; the first unit two stages longer (the entry's state mapped into the field),
    # the last one shorter (no MixColumns), so one cycle more latency than without. Its
    # S-boxes have no maps (no cuts 1 and 6); each unit's linear layer is an XOR network with
    # registers after its first two levels (one after the first in the last round, two for
    # the entry map).
    params = {**MERGED, "lean_control": True, "round_key_chain": True, "banked_buffer": True,
              "registered_accept": True, "registered_key_flags": True}
    dut, result = verify(merged_linear_layer=True, **params)
    plain = Unrolled(**params)
    assert dut.stages_per_round == (10,) + (8,) * 8 + (7,)
    assert plain.stages_per_round == (8,) * 10
    assert (result.latency_cycles, result.cycles_per_block) == (dut.latency, 1.0)
    assert dut.latency == plain.latency + 1
    text = rtlil.convert(dut)
    for name in ("u0_map0_x0", "u0_mapped0", "u1_lin0_x0", "u1_lin0_x1", "u9_lin15_x0"):
        assert f"\\{name} " in text or f"\\{name}\n" in text, name
    assert "u9_lin15_x1" not in text and "u1_map0" not in text
    # cut 1 only in the round key chain's S-boxes (with maps), none in the 160 data S-boxes
    cuts = {name: len(re.findall(rf"wire width \d+ \\{name}\n", text))
            for name in ("cut1", "cut5m", "cut6")}
    assert cuts["cut5m"] >= 160 and cuts["cut1"] == cuts["cut5m"] - 160, cuts


@pytest.mark.parametrize("key_bits", [192, 256])
def test_merged_linear_layer_key_sizes(key_bits):
    # Tower S-boxes of 6 stages; a new key with every block, under back-pressure.
    dut = Unrolled(**{**MERGED, "round_units": ROUNDS[key_bits], "sbox": "tower",
                      "sbox_stages": 6}, key_bits=key_bits, merged_linear_layer=True)
    items, expected = agile_items(3, key_bits=key_bits, seed=key_bits)
    outputs, _, _ = rtl_run(dut, items, stall=0.3, seed=2)
    assert outputs == expected


def check_late_count(param, register, params):
    """The common checks of a credit count taken a cycle late (``param``): a full stream still
    takes one block per cycle at the same latency, the buffer is one entry deeper, and the late
    count is a register named ``register`` (the handshake ends there), absent by default.
    Returns the verified core."""
    dut, result = verify(**{param: True}, **params)
    plain = Unrolled(**params)
    assert (result.latency_cycles, result.cycles_per_block) == (plain.latency, 1.0)
    assert dut.fifo_depth == plain.fifo_depth + 1
    assert re.search(rf"cell \$dff \S+\n(.*\n)*?\s*connect \\Q \\{register}\n",
                     rtlil.convert(Unrolled(**{param: True}, **params), name="top"))
    assert register not in rtlil.convert(plain, name="top")
    return dut


def test_registered_hand_out():
    # Lean control's credit counter fed by a registered hand-out (issue 22, three parallel
    # lanes): a full stream still takes one block per cycle (the buffer entry added for the
    # late count is needed: without it the stream is slower), and an output that is mostly not
    # ready fills the buffer to its credit limit with nothing lost or reordered.
    params = {"round_units": 10, "sbox": "lut", "lean_control": True}
    dut = check_late_count("registered_hand_out", "handed_out_late", params)
    items, expected = agile_items(3 * dut.fifo_depth, seed=3)
    outputs, _, _ = rtl_run(dut, items, stall=0.8, input_stall=0.0, seed=9, max_cycles=20000)
    assert outputs == expected
    with pytest.raises(ValueError, match=r"^A registered hand-out needs lean control"):
        Unrolled(round_units=10, registered_hand_out=True)
    # Behind a wide port, where it is meant to be: two lanes, two blocks per cycle.
    lanes = verify_component(
        lambda: archs.family("unrolled").build(parallel_lanes=2, registered_hand_out=True,
                                               **params),
        "cipher", VerifyOptions(random_vectors=4, measure_blocks=4 * dut.blocks_in_flight))
    assert lanes.ok, lanes.reason
    assert lanes.cycles_per_block == 0.5


def test_registered_accept():
    # Lean control's credit counter fed by accepted blocks a cycle late (issue 22, the fully
    # pipelined core): a full stream still takes one block per cycle, the late count is a
    # register (the input's ready ends there), absent by default, and an output that is mostly
    # not ready fills the buffer to exactly its credit limit: a flag one block too eager would
    # let one block more in, one too careful would stop one short.
    params = {"round_units": 10, "sbox": "lut", "lean_control": True}
    check_late_count("registered_accept", "accepted_late", params)
    for more in ({}, {"registered_hand_out": True, "banked_buffer": True}):
        dut = Unrolled(registered_accept=True, **more, **params)
        items, expected = one_key_items(3 * dut.fifo_depth, seed=6)
        assert most_outstanding(dut, items, expected, stall=0.8) == dut.fifo_depth
    with pytest.raises(ValueError, match=r"^A registered accept needs lean control"):
        Unrolled(round_units=10, registered_accept=True)


def test_registered_exit():
    # The exit register without lean control, in the looping core (issue 22): one cycle more
    # latency and one more FIFO entry, still 10 cycles per block; and an output that is mostly
    # not ready fills the FIFO to its credit limit with nothing lost or reordered.
    params = {"round_units": 1, "sbox": "composite", "sbox_stages": 1}
    dut, result = verify(registered_exit=True, **params)
    plain = Unrolled(**params)
    assert (result.latency_cycles, dut.latency) == (plain.latency + 1, plain.latency + 1)
    assert result.cycles_per_block == 10.0
    assert dut.fifo_depth == plain.fifo_depth + 1
    items, expected = agile_items(3 * dut.fifo_depth, seed=5)
    outputs, in_cycles, out_cycles = rtl_run(dut, items, stall=0.8, input_stall=0.0, seed=7,
                                             max_cycles=20000)
    assert outputs == expected
    with pytest.raises(ValueError, match="exit register already"):
        Unrolled(round_units=10, lean_control=True, registered_exit=True)


@pytest.mark.parametrize("params", [
    {"round_units": 1, "sbox": "composite", "sbox_stages": 1},
    {"round_units": 1, "sbox": "composite", "sbox_stages": 1, "key_schedule": "precomputed",
     "initial_add_round_key": "ring_input"},
    {"round_units": 2, "schedule": "split", "sbox": "composite", "sbox_stages": 1,
     "initial_add_round_key": "ring_input"},
    {"round_units": 3, "key_bits": 192, "schedule": "alternate"},
    {"round_units": 1, "sbox": "composite", "sbox_stages": 1, "key_into_feedback": True,
     "initial_add_round_key": "ring_input"},
    {"round_units": 2, "key_bits": 256, "schedule": "alternate", "key_into_feedback": True},
], ids=["iterative", "precomputed-ring-input", "split2-ring-input", "alternate3-aes192",
        "key-into-feedback", "key-into-feedback-aes256"])
def test_lean_control_in_a_loop(params):
    # Lean control in a loop (issue 22): the exit register adds a cycle of latency, the rate
    # is unchanged, and a block is accepted only when the ring's input slot is free in the next
    # cycle, so no block ever waits in the entry register: with the output always ready, every
    # block comes out exactly `latency` cycles after it went in (without lean control a block
    # can wait in the entry register for a slot), with a new key before every block (key
    # agility: with key_into_feedback the key reaches the slot by another way than the block).
    # A mostly stalled output fills the buffer to the credit limit, nothing lost or reordered.
    key_bits = params.get("key_bits", 128)
    dut, result = verify(lean_control=True, **params)
    plain = Unrolled(**{k: v for k, v in params.items() if k != "key_into_feedback"})
    assert (result.latency_cycles, dut.latency) == (plain.latency + 1, plain.latency + 1)
    assert result.cycles_per_block == plain.cycles_per_block
    assert dut.fifo_depth == plain.fifo_depth + 2
    core = shared_core(lean_control=True, **params)
    items, expected = agile_items(2 * dut.fifo_depth, key_bits=key_bits, seed=3)
    outputs, in_cycles, out_cycles = rtl_run(core, items, input_stall=0.0, seed=2)
    assert outputs == expected
    block_cycles = [c for kind, c in in_cycles if kind == "block"]
    assert [o - i for i, o in zip(block_cycles, out_cycles)] == [dut.latency] * len(outputs)
    # (The output takes a block in one cycle of 20, slower than the loop delivers them.)
    items, expected = one_key_items(2 * dut.fifo_depth, key_bits=key_bits, seed=3)
    assert most_outstanding(core, items, expected, stall=0.95) == dut.fifo_depth


@pytest.mark.parametrize("params, enable", [
    ({}, True),
    ({"lean_control": True}, False),
    ({"initial_add_round_key": "ring_input"}, True),
    ({"initial_add_round_key": "ring_input", "lean_control": True}, False),
    ({"initial_add_round_key": "ring_input", "lean_control": True, "key_into_feedback": True},
     False),
])
def test_entry_register_structure(tmp_path, params, enable):
    # Checked after Yosys's `opt` on a two-round TEST CONFIGURATION (not AES) of the looping
    # core: with the initial AddRoundKey in the ring input the entry register's state bits take
    # the plaintext port's bits as they are (no XOR in front of them); with lean control in
    # a loop they load every cycle (no clock enable: its fanout of 258 behind the credit flag
    # limited the looping core); with the key written into the feedback register the entry
    # register holds no key, and the ring input's key bits are the feedback register's.
    module = optimized_module(
        tmp_path, Unrolled(round_units=1, rounds=2, sbox="composite", **params))
    state = module["netnames"]["entry.state"]["bits"]
    plaintext = module["netnames"]["i__payload"]["bits"]
    cells = [c for c in module["cells"].values()
             if "Q" in c["connections"] and set(c["connections"]["Q"]) & set(state)]
    d_of_q = {q: d for c in cells for q, d in zip(c["connections"]["Q"], c["connections"]["D"])}
    assert cells and ([d_of_q[q] for q in state] == plaintext) == \
        (params.get("initial_add_round_key") == "ring_input")
    assert {("EN" in c["connections"]) for c in cells} == {enable}
    key_bits = set(module["netnames"]["entry.key"]["bits"])
    key_registers = [c for c in module["cells"].values()
                     if set(c["connections"].get("Q", [])) & key_bits]
    into_feedback = params.get("key_into_feedback", False)
    assert bool(key_registers) != into_feedback
    assert (module["netnames"]["ring0_in.key"]["bits"] ==
            module["netnames"]["ring0_feedback.key"]["bits"]) == into_feedback


@pytest.mark.parametrize("key_bits", [128, 192, 256])
def test_key_lead(key_bits):
    # Key lead: the key S-boxes one stage shorter, the step registered a stage early; the
    # datapath's stages are unchanged. A new key with every block (key agility): AES-192 has
    # steps without SubWord, AES-256 steps with SubWord but no RotWord, so every kind of step
    # is covered. (The throughput of the fully pipelined point is measured by
    # test_key_agility_with_backpressure's key-lead case and the sweep's verify stage.)
    rounds = ROUNDS[key_bits]
    dut = Unrolled(round_units=rounds, key_bits=key_bits, sbox="composite", sbox_stages=1,
                   key_lead=True)
    assert dut.stages_per_round == (2,) * rounds
    assert dut.latency == 1 + 2 * rounds
    items, expected = agile_items(4, key_bits=key_bits, seed=key_bits)
    outputs, _, _ = rtl_run(dut, items)
    assert outputs == expected


@pytest.mark.parametrize("params", [
    {},
    # The banked buffer, one bank (depth 14) and four (depth 44: three stages per S-box).
    {"banked_buffer": True},
    {"banked_buffer": True, "sbox": "composite", "sbox_stages": 3},
], ids=["ring", "banked1", "banked4"])
def test_lean_control_fills_its_buffer(params):
    # An output that is mostly not ready fills the buffer to its credit limit: the blocks
    # accepted never exceed it, none is lost or reordered, and the flags of the fill level
    # (empty, one block) follow every step up and down; with banks, every bank is written
    # and read in turn (the registered write enables are a cycle ahead).
    dut = Unrolled(round_units=10, lean_control=True, **params)
    items, expected = one_key_items(3 * dut.fifo_depth, seed=4)
    assert most_outstanding(dut, items, expected, stall=0.8) == dut.fifo_depth


def test_bram_sbox_loop():
    # Seed 004's ROM S-boxes in design 1: the ROM's stages are slots too.
    dut, result = verify(round_units=2, schedule="split", sbox="bram")
    assert result.cycles_per_block == 5.0
    assert dut.blocks_in_flight == 2 * dut.stages_per_round[0]


@pytest.mark.parametrize("key_bits, round_units, schedule, key_schedule", [
    (192, 3, "alternate", "on_the_fly"),
    (192, 4, "split", "on_the_fly"),
    (192, 12, "split", "precomputed"),
    (256, 2, "alternate", "on_the_fly"),
    (256, 7, "split", "precomputed"),
    (256, 14, "split", "on_the_fly"),
])
def test_key_sizes(key_bits, round_units, schedule, key_schedule):
    dut, result = verify(key_bits=key_bits, round_units=round_units, schedule=schedule,
                         key_schedule=key_schedule)
    assert result.cycles_per_block == ROUNDS[key_bits] / round_units
    assert result.latency_cycles == 1 + ROUNDS[key_bits]


# --- Own testbench: key agility, back-pressure, reduced rounds --------------------------------


class SharedCore(NamedTuple):
    dut: Unrolled
    simulation: ReusableSimulation


@functools.lru_cache(maxsize=4)      # the tests of one core run together
def shared_core(**params) -> SharedCore:
    """``Unrolled(**params)`` and one simulation of it, for a test that runs the same core more
    than once (building the simulator of a fully pipelined core takes seconds, more than most
    runs); every run starts from the core's reset state, as on a fresh core."""
    dut = Unrolled(**params)
    return SharedCore(dut, ReusableSimulation(dut))


def rtl_run(core, items, *, stall=0.0, seed=0, max_cycles=5000, input_stall=None):
    """Feed ``items`` (("key", int) or ("block", int)) in order with random input gaps, and take
    the outputs with back-pressure, both of probability ``stall`` (the gaps ``input_stall`` if
    given); return the outputs, the (kind, clock edge) of every input transfer and the clock
    edge of every output transfer. ``core``: an :class:`Unrolled`, or a :func:`shared_core`
    whose simulation is reused."""
    dut, simulation = core if isinstance(core, SharedCore) else (core, ReusableSimulation(core))
    gaps = random_gaps(random.Random(seed), stall if input_stall is None else input_stall)
    ready = random_ready(random.Random(seed + 1), stall)
    outputs, out_cycles, in_cycles = [], [], []
    n_blocks = sum(kind == "block" for kind, _ in items)

    async def producer(ctx):
        clock = EdgeClock()
        for kind, value in items:
            await clock.idle(ctx, gaps())
            if kind == "key":
                await stream_put(ctx, dut.key, {"key": value}, clock=clock, timeout=max_cycles)
            else:
                await stream_put(ctx, dut.i, {"data": value}, clock=clock, timeout=max_cycles)
            in_cycles.append((kind, clock.now))

    async def consumer(ctx):
        clock = EdgeClock()
        for _ in range(n_blocks):
            payload = await stream_get(ctx, dut.o, clock=clock, ready=ready, timeout=max_cycles)
            outputs.append(payload.data)
            out_cycles.append(clock.now)

    simulation.run(producer, consumer)
    return outputs, in_cycles, out_cycles


def one_key_items(count, key_bits=128, seed=1):
    """One key, then ``count`` blocks under it: the items and the expected results."""
    items, _ = agile_items(count, key_bits=key_bits, seed=seed)
    items = [items[0]] + [item for item in items if item[0] == "block"]
    return items, [reference.encrypt_int(items[0][1], block, key_bits) for _, block in items[1:]]


def most_outstanding(core, items, expected, *, stall):
    """Run ``items`` with an output that is mostly not ready (probability ``stall``), check the
    results, and return the most blocks accepted but not yet handed out at any time."""
    outputs, in_cycles, out_cycles = rtl_run(core, items, stall=stall, input_stall=0.0, seed=9,
                                             max_cycles=20000)
    assert outputs == expected
    block_cycles = [c for kind, c in in_cycles if kind == "block"]
    return max(n + 1 - sum(c <= edge for c in out_cycles) for n, edge in enumerate(block_cycles))


def agile_items(count, key_bits=128, seed=1):
    rng = random.Random(seed)
    items, expected = [], []
    for _ in range(count):
        key, block = rng.getrandbits(key_bits), rng.getrandbits(128)
        items += [("key", key), ("block", block)]
        expected.append(reference.encrypt_int(key, block, key_bits))
    return items, expected


@pytest.mark.parametrize("params", [
    {"round_units": 10},
    {"round_units": 2, "schedule": "alternate"},
    {"round_units": 2, "schedule": "split", "sbox": "composite", "sbox_stages": 3},
    {"round_units": 10, "lean_control": True},
    # The fastest fully pipelined point of experiments/pipelined_fast.yaml (issue 15), with
    # two copies of the S-box output registers (MixColumns rows 0-1 and 2-3 from different ones).
    {"round_units": 10, "sbox": "composite", "sbox_stages": 6, "key_lead": True,
     "lean_control": True, "sbox_output_copies": 2},
    # The same with 7-stage S-boxes (the data S-boxes under the copies and the key S-boxes
    # of key lead are the 7-stage S-box without its output register) and the banked buffer.
    {"round_units": 10, "sbox": "composite", "sbox_stages": 7, "key_lead": True,
     "lean_control": True, "sbox_output_copies": 2, "banked_buffer": True},
])
def test_key_agility_with_backpressure(params):
    items, expected = agile_items(24)
    outputs, _, _ = rtl_run(Unrolled(**params), items, stall=0.3, seed=5)
    assert outputs == expected


def test_key_changes_while_blocks_in_flight():
    # On the fly: a new key is taken while earlier blocks are still in the pipeline, so a
    # fully pipelined core with a new key for every block takes a block every other cycle.
    items, expected = agile_items(16)
    dut = Unrolled(round_units=10)
    outputs, in_cycles, out_cycles = rtl_run(dut, items)
    assert outputs == expected
    keys = [c for kind, c in in_cycles if kind == "key"]
    assert keys[1] < out_cycles[0]
    assert keys[-1] - keys[0] == 2 * (len(keys) - 1)


def test_precomputed_key_waits_for_drain():
    items, expected = agile_items(6, key_bits=256, seed=3)
    dut = Unrolled(round_units=2, schedule="alternate", key_schedule="precomputed",
                   key_bits=256)
    outputs, in_cycles, out_cycles = rtl_run(dut, items)
    assert outputs == expected
    keys = [c for kind, c in in_cycles if kind == "key"]
    # The key for block n + 1 is taken only once block n has left the pipeline (it is handed
    # out in the same edge or earlier, the output being always ready).
    for n in range(len(keys) - 1):
        assert keys[n + 1] >= out_cycles[n]


def reduced_encrypt(key: int, block: int, rounds: int) -> int:
    """AES-128 cut to ``rounds`` rounds (the last without MixColumns): the test-only core."""
    rks = round_keys(key.to_bytes(16, "big"))
    state = [b ^ k for b, k in zip(block.to_bytes(16, "big"), rks[0].to_bytes(16, "big"))]
    for r in range(1, rounds + 1):
        state = shift_rows([gf.SBOX[b] for b in state])
        if r != rounds:
            state = [b for c in range(4) for b in mix_column(state[4 * c:4 * c + 4])]
        state = [b ^ k for b, k in zip(state, rks[r].to_bytes(16, "big"))]
    return int.from_bytes(bytes(state), "big")


def test_reduced_encrypt_model():
    assert reduced_encrypt(0x000102030405060708090a0b0c0d0e0f,
                           0x00112233445566778899aabbccddeeff, 10) == \
        0x69c4e0d86a7b0430d8cdb78070b4c55a


@pytest.mark.parametrize("key_schedule", ["on_the_fly", "precomputed"])
def test_reduced_rounds(key_schedule):
    # The test-only two-round core that a flow test can afford to place and route.
    rng = random.Random(7)
    items, expected = [], []
    for n in range(12):
        if n % 3 == 0:
            key = rng.getrandbits(128)
            items.append(("key", key))
        block = rng.getrandbits(128)
        items.append(("block", block))
        expected.append(reduced_encrypt(key, block, 2))
    dut = Unrolled(round_units=2, rounds=2, key_schedule=key_schedule)
    outputs, _, _ = rtl_run(dut, items, stall=0.3, seed=2)
    assert outputs == expected
    assert dut.latency == 3
