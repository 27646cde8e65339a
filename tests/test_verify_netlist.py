"""Netlist-level verification (aesdse.verify.netlist): the synthesized netlist, simulated with the
family's cell models, plays the RTL's script edge for edge; one flipped LUT init bit fails it.

One small core (compact, 8-bit datapath: a few seconds of Yosys, one model per netlist at
``-O0``, where the netlist's C++ compiles about twice as fast as at ``-O1``), a short script.

Models are built in the default model cache (``compile_model`` and ``netlist_model`` without
``cache_dir``), once per machine: its key is the model's RTLIL digest with the harness, Yosys,
the compiler and the flags, so a changed netlist is compiled again (the flipped netlists too);
tests/test_verify_compiled.py builds into empty caches.
"""

import json
import re
import shutil

import pytest

import archs
from aesdse.flow.yosys import synthesize
from aesdse.spec.schema import VerifyOptions
from aesdse.store.database import STATUSES
from aesdse.verify.cxxrtl import CompileError, ModelOptions, compile_model, design_rtlil, \
    find_compiler, play_compiled
from aesdse.verify.netlist import (NETLIST_MISMATCH, NetlistUnsupported, cell_models,
                                   first_difference, netlist_model, netlist_rtlil, play_netlist)
from aesdse.verify.script import block_script, check_playback, common_interface

FAST = ModelOptions(cxx_flags=("-O0",))
CORE = ("compact", {"datapath_width": 8})


def _compiler_or_skip():
    try:
        return find_compiler()
    except CompileError as error:
        pytest.skip(str(error))


def _core(device_family):
    arch, params = CORE
    fam = archs.family(arch)
    return common_interface(fam.build(device_family=device_family,
                                      **{**fam.defaults(), **params}))


@pytest.fixture(scope="module")
def rtl():
    """(script, playback of the RTL model) of the core."""
    _compiler_or_skip()
    fam = archs.family(CORE[0])
    dut = _core("generic")
    script = block_script(dut, VerifyOptions(random_vectors=4), key_sizes=fam.key_sizes,
                          directions=fam.directions)
    model = compile_model(design_rtlil(dut), options=FAST)
    playback = play_compiled(model, script)
    check_playback(script, playback)
    return script, playback


def _synthesized(tmp_path_factory, family):
    """Directory holding the ``netlist.json`` the flow's synthesis writes for the core."""
    work = tmp_path_factory.mktemp(f"synth-{family}")
    (work / "design.il").write_text(design_rtlil(_core("ecp5" if family == "ecp5" else "generic")))
    synth = synthesize("design.il", "top", work, family=family)
    assert synth.ok, synth.reason
    return work


@pytest.fixture(scope="module")
def ecp5_netlist(tmp_path_factory):
    return _synthesized(tmp_path_factory, "ecp5")


@pytest.mark.flow
def test_ecp5_netlist_plays_like_the_rtl(rtl, ecp5_netlist):
    script, expected = rtl
    model = netlist_model("netlist.json", "top", "ecp5", ecp5_netlist, options=FAST)
    playback = play_netlist(model, script)
    check_playback(script, playback)
    assert playback == expected          # same outputs at the same edges, same inputs taken
    assert first_difference(script, expected, playback) is None
    # The netlist really is the ECP5 cell netlist: its cells are the family's, and the
    # simulated design is their models' logic only.
    types = {cell["type"] for cell in json.loads((ecp5_netlist / "netlist.json").read_text())
             ["modules"]["top"]["cells"].values()}
    assert {"LUT4", "TRELLIS_FF"} <= types
    flat = (ecp5_netlist / "netlist_sim.il").read_text()
    assert not re.search(r"^\s*cell \\", flat, flags=re.MULTILINE)


def _flip_one_lut_bit(netlist: dict) -> str:
    """Flip one INIT bit of a LUT4 under a PFUMX wide-LUT mux; returns the cell's name.

    The S-box ROMs map to LUT4 pairs under PFUMX muxes, and the first such LUT4 that reads four
    signals (by name; deterministic for one netlist) is read by every block of the script:
    flipping its bit 5 changes the second block's result (test_verify_netlist.py's measurement
    with Yosys 0.70).
    """
    cells = netlist["modules"]["top"]["cells"]
    mux_inputs = {bit for cell in cells.values() if cell["type"] == "PFUMX"
                  for port in ("ALUT", "BLUT") for bit in cell["connections"][port]}
    for name, cell in sorted(cells.items()):
        inputs = [cell["connections"][port][0] for port in "ABCD"] if cell["type"] == "LUT4" \
            else []
        if inputs and cell["connections"]["Z"][0] in mux_inputs \
                and all(isinstance(bit, int) for bit in inputs) and len(set(inputs)) == 4:
            init = cell["parameters"]["INIT"]
            cell["parameters"]["INIT"] = init[:5] + "10"[int(init[5])] + init[6:]
            return name
    raise AssertionError("no LUT4 of an S-box table under a PFUMX")


@pytest.mark.flow
def test_one_flipped_lut_init_bit_is_a_netlist_mismatch(rtl, ecp5_netlist, tmp_path):
    """THE mismatch test (issue 26): the same netlist with one LUT4 INIT bit flipped must not
    pass, and the report names the first differing transfer."""
    script, expected = rtl
    netlist = json.loads((ecp5_netlist / "netlist.json").read_text())
    lut = _flip_one_lut_bit(netlist)
    (tmp_path / "netlist.json").write_text(json.dumps(netlist))
    model = netlist_model("netlist.json", "top", "ecp5", tmp_path, options=FAST)
    playback = play_netlist(model, script)
    assert playback != expected, f"flipping an INIT bit of {lut} went unnoticed"
    difference = first_difference(script, expected, playback)
    assert difference is not None
    assert re.match(r"(stream o transfer|input \w+ transfer) \d+ \(", difference), difference
    assert NETLIST_MISMATCH in STATUSES     # the row's status, no schema change
    with pytest.raises(Exception, match="transfer|hang"):
        check_playback(script, playback)


@pytest.mark.flow
def test_ice40_netlist_plays_like_the_rtl(rtl, tmp_path_factory):
    """iCE40's own cell models (SB_LUT4, SB_DFF*, SB_CARRY); the core alone, outside the
    measurement harness the flow wraps iCE40 cores in."""
    script, expected = rtl
    work = _synthesized(tmp_path_factory, "ice40")
    model = netlist_model("netlist.json", "top", "ice40", work, options=FAST)
    assert play_netlist(model, script) == expected


def test_a_family_without_models_is_refused_with_where_and_why(tmp_path):
    with pytest.raises(NetlistUnsupported,
                       match="family 'efinix'.*cell_models of a device-family driver"):
        cell_models("efinix")
    with pytest.raises(NetlistUnsupported, match="efinix"):
        netlist_rtlil("netlist.json", "top", "efinix", tmp_path)
    assert cell_models("asic").files == ()


@pytest.mark.flow
def test_cells_without_a_model_are_named(tmp_path):
    """A cell the model files do not define is a NetlistUnsupported naming the file read and
    the failure (here: an ECP5 cell in a netlist read with the iCE40 models)."""
    netlist = {"creator": "test", "modules": {"top": {
        "attributes": {"top": "00000000000000000000000000000001"},
        "ports": {"a": {"direction": "input", "bits": [2]},
                  "z": {"direction": "output", "bits": [3]}},
        "cells": {"lut": {"type": "LUT4", "parameters": {"INIT": "0000000000000010"},
                          "port_directions": {"A": "input", "B": "input", "C": "input",
                                              "D": "input", "Z": "output"},
                          "connections": {"A": [2], "B": ["0"], "C": ["0"], "D": ["0"],
                                          "Z": [3]}}},
        "netnames": {}}}}
    (tmp_path / "netlist.json").write_text(json.dumps(netlist))
    with pytest.raises(NetlistUnsupported, match=r"(?s)ice40/cells_sim\.v.*LUT4"):
        netlist_rtlil("netlist.json", "top", "ice40", tmp_path)
    # The same netlist with the ECP5 models is fine.
    shutil.copy(tmp_path / "netlist.json", tmp_path / "copy.json")
    flat = netlist_rtlil("copy.json", "top", "ecp5", tmp_path)
    assert not re.search(r"^\s*cell \\", flat, flags=re.MULTILINE)
    # A cell whose model is left out (iCE40's SPRAM) is refused before Yosys runs, saying why.
    cell = netlist["modules"]["top"]["cells"]["lut"]
    cell["type"] = "SB_SPRAM256KA"
    (tmp_path / "spram.json").write_text(json.dumps(netlist))
    with pytest.raises(NetlistUnsupported, match="SB_SPRAM256KA: its model .* EQUIV"):
        netlist_rtlil("spram.json", "top", "ice40", tmp_path)
