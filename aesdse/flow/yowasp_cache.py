"""The YoWASP toolchain cache, safe when several processes and virtual environments start at once.

What yowasp-runtime does (read in yowasp-runtime 1.96, ``yowasp_runtime.run_wasm``): on each call
it loads the tool's compiled machine code from ``<cache>/<module>/<wasm file>/<SHA-1 of the
wasm>``, where ``<cache>`` is ``YOWASP_CACHE_DIR`` if set, else the user cache directory
``YoWASP`` of platformdirs (``~/.cache/YoWASP`` on Linux). Loading maps that file into memory
(wasmtime ``Module.deserialize_file``). When the file is missing, or cannot be loaded (a partial
file, or one written by another wasmtime: the path does not name the wasmtime version), the call
compiles the WebAssembly (about 30 s for Yosys) and writes the file in place (``open("wb")``),
without a lock. A process that has the file mapped while another truncates and rewrites it dies
of SIGBUS (exit status -7): issue 45's quickstart row, two first calls in two virtual
environments at once.

What aesdse does (:func:`tool_environment`, called by :func:`aesdse.flow.tools.run_tool` for
every YoWASP tool):

* its tools get a cache directory of their own per wasmtime version,
  ``<YoWASP cache>/aesdse-wasmtime-<version>``, so that neither another wasmtime nor another
  program using YoWASP rewrites a file an aesdse tool has mapped. A ``YOWASP_CACHE_DIR`` set by
  the user is taken as it is (a prepared, perhaps read-only, cache).
* the first call of each tool in a process runs the tool's version command while holding an
  exclusive lock (``fcntl.flock`` on ``<module>.lock`` in that directory) unless a marker file
  beside the compiled file says a locked call already succeeded: the first process compiles,
  the others wait and then load the complete file. Without ``fcntl`` (Windows) there is no
  lock.
"""

import hashlib
import os
import subprocess
from contextlib import contextmanager
from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

__all__ = ["CACHE_VARIABLE", "cache_dir", "compiled_file", "tool_environment", "prepare"]

#: The environment variable yowasp-runtime takes its cache directory from.
CACHE_VARIABLE = "YOWASP_CACHE_DIR"
#: Suffix of the marker written beside a compiled file once a locked call loaded it.
MARKER_SUFFIX = ".aesdse-ok"
#: Seconds a preparing call (a first compilation) may take.
PREPARE_TIMEOUT_S = 1800


def cache_dir() -> Path | None:
    """The YoWASP cache directory of aesdse's tools (module documentation); None when neither
    ``YOWASP_CACHE_DIR`` is set nor platformdirs installed (yowasp-runtime then chooses)."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen:
        return Path(chosen)
    try:
        import platformdirs
        wasmtime = metadata.version("wasmtime")
    except (ImportError, metadata.PackageNotFoundError):
        return None
    return Path(platformdirs.user_cache_dir("YoWASP", appauthor=False)) / \
        f"aesdse-wasmtime-{wasmtime}"


def compiled_file(directory: Path, package: str, name: str) -> Path | None:
    """Where yowasp-runtime keeps the compiled code of tool ``name`` of PyPI ``package`` in
    ``directory`` (None if the package has no ``<name>.wasm``)."""
    module = package.replace("-", "_")
    try:
        wasm = resources.files(module).joinpath(f"{name}.wasm").read_bytes()
    except (ImportError, OSError):
        return None
    return directory / module / f"{name}.wasm" / hashlib.sha1(wasm).hexdigest()


def tool_environment(name: str, package: str, version_flag: str, command: tuple) -> dict | None:
    """The environment a YoWASP tool runs in (:data:`CACHE_VARIABLE` set to :func:`cache_dir`),
    after its first call in this cache was prepared (:func:`prepare`); None: the inherited
    environment."""
    directory = cache_dir()
    if directory is None:
        return None
    prepare(str(directory), package, name, version_flag, tuple(command))
    return {**os.environ, CACHE_VARIABLE: str(directory)}


@lru_cache(maxsize=None)
def prepare(directory: str, package: str, name: str, version_flag: str, command: tuple) -> bool:
    """Make sure the compiled code of tool ``name`` is complete in ``directory``, once per
    process: if no marker says so, run ``command version_flag`` while holding the tool's lock
    (the first process compiles, the others wait, then load). Returns whether this process ran
    the command."""
    target = compiled_file(Path(directory), package, name)
    if target is None:
        return False
    marker = target.with_name(target.name + MARKER_SUFFIX)
    if marker.exists():
        return False
    with _locked(Path(directory) / f"{package.replace('-', '_')}.lock"):
        if marker.exists():
            return False
        try:
            done = subprocess.run([*command, version_flag], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                                  env={**os.environ, CACHE_VARIABLE: directory},
                                  timeout=PREPARE_TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError):
            return True  # the tool's own run says what is wrong
        if done.returncode == 0 and target.exists():
            try:
                marker.touch()
            except OSError:  # a read-only cache: each process prepares once
                pass
    return True


@contextmanager
def _locked(path: Path):
    """An exclusive ``flock`` on ``path`` (waits for it); nothing where the directory cannot
    be written or there is no ``fcntl``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a")
    except OSError:
        yield
        return
    with handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)
