"""The ECP5 DP16KD simulation model aesdse ships (aesdse/verify/models/ecp5_dp16kd.v): netlists
with block RAM play their script like the RTL; a wrong INITVAL bit fails; parameters the model
does not implement are refused by name.

The core: the compact 8-bit core with block-RAM S-boxes (``sbox="bram"``), whose ECP5 build
instantiates five DP16KD by hand (archs/prims/ecp5.py, ``dp16kd_rom``: 2048 x 9, output
register, INITVAL from ``dp16kd_initvals``): Yosys takes a few seconds. The T-box core, whose
DP16KD Yosys maps itself (1024 x 18, no output register, INITVAL from Yosys's
``brams_map_16kd.v``), takes about a minute more (65 s measured): it runs only with
``AESDSE_SLOW_TESTS=1``.

Models are built in the default model cache (``compile_model`` and ``netlist_model`` without
``cache_dir``), once per machine: its key is the model's RTLIL digest with the harness, Yosys,
the compiler and the flags, so a changed netlist is compiled again (the flipped netlists too);
tests/test_verify_compiled.py builds into empty caches.
"""

import json
import os
import re
import tomllib
from pathlib import Path

import pytest

import archs
from aesdse.flow.yosys import synthesize
from aesdse.spec.schema import VerifyOptions
from aesdse.verify.cxxrtl import CompileError, ModelOptions, compile_model, design_rtlil, \
    find_compiler, play_compiled
from aesdse.verify.netlist import (MODELS_DIR, NetlistUnsupported, cell_models,
                                   first_difference, netlist_model, netlist_rtlil,
                                   netlist_script, play_netlist)
from aesdse.verify.script import block_script, check_playback, common_interface

FAST = ModelOptions(cxx_flags=("-O0",))
BRAM_CORE = ("compact", {"datapath_width": 8, "sbox": "bram"})
SLOW = pytest.mark.skipif(os.environ.get("AESDSE_SLOW_TESTS") != "1",
                          reason="minutes of Yosys and C++: set AESDSE_SLOW_TESTS=1")


def _compiler_or_skip():
    try:
        return find_compiler()
    except CompileError as error:
        pytest.skip(str(error))


def _core(arch, params, device_family):
    fam = archs.family(arch)
    return common_interface(fam.build(device_family=device_family,
                                      **{**fam.defaults(), **params}))


def _rtl_playback(arch, params):
    """(script, playback of the RTL model) of the generic build (inferred memories)."""
    _compiler_or_skip()
    fam = archs.family(arch)
    dut = _core(arch, params, "generic")
    script = block_script(dut, VerifyOptions(random_vectors=4), key_sizes=fam.key_sizes,
                          directions=fam.directions)
    playback = play_compiled(compile_model(design_rtlil(dut), options=FAST), script)
    check_playback(script, playback)
    return script, playback


def _ecp5_netlist(arch, params, work):
    (work / "design.il").write_text(design_rtlil(_core(arch, params, "ecp5")))
    synth = synthesize("design.il", "top", work, family="ecp5")
    assert synth.ok, synth.reason
    return work


def _dp16kd_cells(work):
    cells = json.loads((work / "netlist.json").read_text())["modules"]["top"]["cells"]
    return {name: cell for name, cell in cells.items() if cell["type"] == "DP16KD"}


@pytest.fixture(scope="module")
def bram_rtl():
    return _rtl_playback(*BRAM_CORE)


@pytest.fixture(scope="module")
def bram_netlist(tmp_path_factory):
    return _ecp5_netlist(*BRAM_CORE, tmp_path_factory.mktemp("synth-bram"))


def test_the_model_ships_and_is_read_after_the_cell_library():
    assert (MODELS_DIR / "ecp5_dp16kd.v").is_file()
    assert "ecp5_dp16kd.v" in cell_models("ecp5").shipped
    script = netlist_script("netlist.json", "top", "ecp5")
    assert script.index("+/ecp5/cells_sim.v") < script.index("-overwrite ecp5_dp16kd.v")
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert "verify/models/*.v" in pyproject["tool"]["setuptools"]["package-data"]["aesdse"]


@pytest.mark.flow
def test_hand_instantiated_dp16kd_netlist_plays_like_the_rtl(bram_rtl, bram_netlist):
    """x9, output register, INITVAL packed by archs.prims.ecp5.dp16kd_initvals: the AES
    results depend on every S-box entry the script reads."""
    script, expected = bram_rtl
    cells = _dp16kd_cells(bram_netlist)
    assert len(cells) == 5
    assert {int(cell["parameters"]["DATA_WIDTH_A"], 2) for cell in cells.values()} == {9}
    model = netlist_model("netlist.json", "top", "ecp5", bram_netlist, options=FAST)
    playback = play_netlist(model, script)
    check_playback(script, playback)
    assert playback == expected
    flat = (bram_netlist / "netlist_sim.il").read_text()
    assert not re.search(r"^\s*cell \\", flat, flags=re.MULTILINE)
    assert "$meminit" in flat        # the tables are memories, not 18,432 registers each


def _flip_initval_bit(work, target):
    """The netlist in ``work`` with bit 0 of word 0 (S-box entry 0x00, 0x63 -> 0x62) of the
    first DP16KD (by name) flipped, written to ``target/netlist.json``; returns the cell name."""
    netlist = json.loads((work / "netlist.json").read_text())
    name = sorted(_dp16kd_cells(work))[0]
    params = netlist["modules"]["top"]["cells"][name]["parameters"]
    value = params["INITVAL_00"]
    params["INITVAL_00"] = value[:-1] + "10"[int(value[-1])]
    (target / "netlist.json").write_text(json.dumps(netlist))
    return name


@pytest.mark.flow
def test_one_flipped_initval_bit_is_a_netlist_mismatch(bram_rtl, bram_netlist, tmp_path):
    """The S-box entry 0x00 of the first DP16KD is read by the script's blocks (measured with
    Yosys 0.70: the netlist and the script are deterministic)."""
    script, expected = bram_rtl
    name = _flip_initval_bit(bram_netlist, tmp_path)
    model = netlist_model("netlist.json", "top", "ecp5", tmp_path, options=FAST)
    playback = play_netlist(model, script)
    assert playback != expected, f"flipping an INITVAL bit of {name} went unnoticed"
    difference = first_difference(script, expected, playback)
    assert difference is not None and re.match(r"(stream o|input \w+) transfer \d+ \(",
                                               difference), difference


@pytest.mark.flow
@pytest.mark.parametrize("parameter, value", [("DATA_WIDTH_A", format(4, "032b")),
                                              ("REGMODE_B", "BYPASS"),
                                              ("CSDECODE_A", "0b0000"),
                                              ("INIT_DATA", "DYNAMIC")])
def test_parameters_the_model_does_not_implement_are_refused(bram_netlist, tmp_path,
                                                             parameter, value):
    """Unmodelled parameter values stop Yosys's elaboration with the model's $error: the
    netlist is unsupported, with the parameter named, not simulated wrong."""
    netlist = json.loads((bram_netlist / "netlist.json").read_text())
    name = sorted(_dp16kd_cells(bram_netlist))[0]
    netlist["modules"]["top"]["cells"][name]["parameters"][parameter] = value
    (tmp_path / "netlist.json").write_text(json.dumps(netlist))
    refusal = rf"(?s)ecp5_dp16kd\.v.*DP16KD model: {parameter} other than"
    with pytest.raises(NetlistUnsupported, match=refusal):
        netlist_rtlil("netlist.json", "top", "ecp5", tmp_path)


@pytest.mark.flow
def test_dp16kd_read_on_both_ports_plays_like_the_rtl(tmp_path_factory):
    """Two S-box lookups per DP16KD (``unrolled`` with ``bram_read_ports`` 2, archs/prims/
    bram_sbox.py): port B's address, output register and data as port A's. A two-round test
    core (not AES, so its netlist is compared with its RTL; the ten-round core is verified in
    tests/test_archs_unrolled.py): 32 data and 8 key S-boxes in 20 DP16KD, each read on both
    ports, every lookup feeding the results."""
    _compiler_or_skip()
    params = {"round_units": 2, "rounds": 2, "bram_rounds": 2, "bram_read_ports": 2,
              "sbox": "composite", "sbox_stages": 3}
    dut = _core("unrolled", params, "generic")
    script = block_script(dut, VerifyOptions(random_vectors=4), key_sizes=(128,),
                          directions=("encrypt",))
    expected = play_compiled(compile_model(design_rtlil(dut), options=FAST), script)
    work = _ecp5_netlist("unrolled", params, tmp_path_factory.mktemp("synth-paired"))
    cells = _dp16kd_cells(work)
    assert len(cells) == 20
    assert all(cell["parameters"]["REGMODE_B"] == "OUTREG" for cell in cells.values())
    model = netlist_model("netlist.json", "top", "ecp5", work, options=FAST)
    assert play_netlist(model, script) == expected


@SLOW
@pytest.mark.flow
def test_tbox_core_netlist_plays_like_the_rtl(tmp_path_factory):
    """The T-box core's default: sixteen DP16KD Yosys maps itself (x18, no output register)."""
    script, expected = _rtl_playback("tbox", {})
    work = _ecp5_netlist("tbox", {}, tmp_path_factory.mktemp("synth-tbox"))
    cells = _dp16kd_cells(work)
    assert len(cells) == 16
    model = netlist_model("netlist.json", "top", "ecp5", work, options=FAST)
    assert play_netlist(model, script) == expected
