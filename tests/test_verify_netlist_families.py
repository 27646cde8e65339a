"""Netlist verification on every device family whose cell models Yosys ships (issue 45): the
Xilinx fabrics, Gowin, Nexus, MachXO2/3 and GateMate, through the same machinery as ECP5 and
iCE40 (aesdse.verify.netlist.CELL_MODELS).

The design: a standalone S-box (``sbox="lut"``, SubBytes, a 256 x 8 table) played inside its
:class:`aesdse.verify.sbox_stream.SBoxStreamAdapter` on all 256 inputs, as the sweep plays an
S-box point; its netlist is a few dozen LUTs, so each family's Yosys synthesis and netlist model
take seconds. Models are built with Verilator when it is installed (the sweep's netlist backend),
else CXXRTL.
"""

import json
import re

import pytest

import archs
from aesdse.engine.netlist_check import netlist_backend, netlist_options
from aesdse.flow.families.xilinx import DRIVERS as XILINX
from aesdse.flow.yosys import synthesize
from aesdse.verify.cxxrtl import CompileError, design_rtlil, find_compiler
from aesdse.verify.netlist import (CELL_MODELS, NetlistUnsupported, first_difference,
                                   netlist_model, netlist_rtlil, play_netlist, wrapper_rtlil)
from aesdse.verify.sbox_stream import SBoxStreamAdapter, sbox_script
from aesdse.verify.script import play_amaranth

SBOX = {"sbox": "lut", "sbox_stages": 0, "direction": "encrypt"}
#: Every family with models added by issue 45 (ECP5, iCE40: tests/test_verify_netlist.py).
#: Family -> the block RAM its synthesis maps the S-box table to, which Yosys ships only as a
#: black box: that netlist is refused naming the cell (a row's "not checked" reason).
UNMODELLED = {"spartan2": "RAMB4_S8", "machxo2": "DP8KC", "machxo3": "DP8KC"}
FAMILIES = ("gowin", "nexus", "machxo2", "machxo3", "gatemate") + tuple(d.name for d in XILINX)


def _compiler_or_skip():
    try:
        return find_compiler()
    except CompileError as error:
        pytest.skip(str(error))


def _sbox(device_family="generic"):
    return archs.family("sbox").build(device_family=device_family, **SBOX)


@pytest.fixture(scope="module")
def rtl():
    """(script, RTL playback, wrapper RTLIL) of the S-box in its stream adapter."""
    dut = SBoxStreamAdapter(_sbox())
    script = sbox_script(dut)
    playback = play_amaranth(dut, script)
    return script, playback, wrapper_rtlil(SBoxStreamAdapter.around_netlist(dut))


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("family-netlist-models")


_NETLISTS: dict = {}


def _netlist(tmp_path_factory, family):
    """Directory holding the family's ``netlist.json`` of the S-box (synthesized once)."""
    if family not in _NETLISTS:
        work = tmp_path_factory.mktemp(f"synth-{family}")
        (work / "design.il").write_text(design_rtlil(_sbox()))
        synth = synthesize("design.il", "top", work, family=family)
        assert synth.ok, synth.reason
        _NETLISTS[family] = work
    return _NETLISTS[family]


def _play(work, family, rtl, model_cache):
    script, _, wrapper = rtl
    model = netlist_model("netlist.json", "top", family, work, cache_dir=model_cache,
                          options=netlist_options(netlist_backend()), wrapper=wrapper)
    return play_netlist(model, script, timeout=120)


def test_every_family_with_shipped_models_is_listed():
    """Every Xilinx fabric target, Gowin, Nexus, MachXO2/3 and GateMate have cell models."""
    for family in FAMILIES:
        assert CELL_MODELS[family].files, family
    assert CELL_MODELS["machxo3"].files == ("+/lattice/cells_sim_xo3.v",)


@pytest.mark.flow
@pytest.mark.parametrize("family", FAMILIES)
def test_family_netlist_plays_like_the_rtl(family, rtl, tmp_path_factory, model_cache):
    _compiler_or_skip()
    script, expected, _ = rtl
    work = _netlist(tmp_path_factory, family)
    if family in UNMODELLED:
        with pytest.raises(NetlistUnsupported, match=f"family {family}: {UNMODELLED[family]} "
                                                     f"\\(Yosys ships no model"):
            _play(work, family, rtl, model_cache)
        return
    playback = _play(work, family, rtl, model_cache)
    assert first_difference(script, expected, playback) is None
    assert playback == expected
    flat = (work / "netlist_sim.il").read_text()
    assert not re.search(r"^\s*cell \\", flat, flags=re.MULTILINE)   # every cell modelled


def _flip_lut_init(netlist: dict, lut_type: str) -> str:
    """Flip INIT bit 0 of the first ``lut_type`` cell (by name) whose inputs are distinct
    signals, no constants (the table's LUTs read bits of the registered S-box input: all 256
    inputs drive every combination of them, so the flip reaches the output); returns the
    cell's name."""
    module = next(m for m in netlist["modules"].values()
                  if not m.get("attributes", {}).get("blackbox") and m.get("cells"))
    for name, cell in sorted(module["cells"].items()):
        bits = [bit for port, bits in cell["connections"].items()
                if cell["port_directions"][port] == "input" for bit in bits]
        if cell["type"] == lut_type and all(isinstance(bit, int) for bit in bits) \
                and len(set(bits)) == len(bits):
            init = cell["parameters"]["INIT"]     # most significant bit first
            cell["parameters"]["INIT"] = init[:-1] + "10"[int(init[-1])]
            return name
    raise AssertionError(f"no {lut_type} reading distinct signals")


@pytest.mark.flow
@pytest.mark.parametrize("family, lut_type", [("virtex7", "LUT6"), ("gowin", "LUT4")])
def test_a_flipped_lut_init_bit_is_a_mismatch(family, lut_type, rtl, tmp_path_factory,
                                              tmp_path, model_cache):
    """One LUT INIT bit flipped in a Xilinx LUT6 / Gowin LUT4 netlist: the playback differs,
    and the first difference names an S-box output transfer."""
    _compiler_or_skip()
    script, expected, _ = rtl
    netlist = json.loads((_netlist(tmp_path_factory, family) / "netlist.json").read_text())
    lut = _flip_lut_init(netlist, lut_type)
    (tmp_path / "netlist.json").write_text(json.dumps(netlist))
    playback = _play(tmp_path, family, rtl, model_cache)
    difference = first_difference(script, expected, playback)
    assert difference is not None, f"flipping an INIT bit of {lut} went unnoticed"
    assert difference.startswith("stream o transfer "), difference


@pytest.mark.flow
def test_a_cell_without_a_model_is_named(tmp_path):
    """A Virtex-II Pro block RAM (RAMB16_S9), which Yosys ships only as a black box in
    +/xilinx/cells_xtra.v, is refused by name, not as a Yosys failure."""
    netlist = {"creator": "test", "modules": {"top": {
        "attributes": {"top": "00000000000000000000000000000001"},
        "ports": {"a": {"direction": "input", "bits": [2]},
                  "z": {"direction": "output", "bits": [3]}},
        "cells": {"ram": {"type": "RAMB16_S9", "parameters": {},
                          "port_directions": {"CLK": "input", "DO": "output"},
                          "connections": {"CLK": [2], "DO": [3]}}},
        "netnames": {}}}}
    (tmp_path / "netlist.json").write_text(json.dumps(netlist))
    with pytest.raises(NetlistUnsupported,
                       match=r"xilinx/cells_sim\.v of family virtex2pro: RAMB16_S9 \(Yosys "
                             r"ships no model"):
        netlist_rtlil("netlist.json", "top", "virtex2pro", tmp_path)


@pytest.mark.parametrize("family, verdict", [("gowin", "not checked"), ("virtex7", "not checked"),
                                             ("ecp5", None), ("ice40", None)])
def test_a_model_past_its_limit_fails_only_where_the_models_are_proven(monkeypatch, family,
                                                                       verdict):
    # A netlist model that runs past its time limit fails the point on ECP5 and iCE40, whose
    # models play sequential netlists in the tests; on the families added in issue 45 (proven on
    # combinational netlists only) it is no verdict on the design, and the row says why.
    from aesdse.engine import netlist_check
    from aesdse.verify.cxxrtl import PlayError

    def past_limit(*args, **kwargs):
        raise PlayError("the model ran past its time limit of 600 s")
    monkeypatch.setattr(netlist_check, "play_netlist", past_limit)
    options = netlist_options("verilator")
    if verdict is None:
        with pytest.raises(PlayError, match="time limit"):
            netlist_check._play_verdict("m", None, None, family, options, {}, {})
        return
    got = netlist_check._play_verdict("m", None, None, family, options, {}, {})
    assert got["verdict"] == verdict and got["reason"] == (
        f"the model ran past its time limit of 600 s: the {family} cell models are proven by "
        f"aesdse's tests on combinational netlists only")
    assert not CELL_MODELS[family].proven and CELL_MODELS["ecp5"].proven
