"""Place-and-route stage: ECP5 netlist -> placed and routed design, with nextpnr-ecp5.

Out of context (``--out-of-context``): no I/O buffers and no global clock insertion, so a core
is measured alone. ``--freq`` is always passed (without it nextpnr targets 12 MHz), and failing
timing does not fail the run (``--timing-allow-fail``): the achieved Fmax is the measurement.
Numbers come from nextpnr's ``--report`` JSON, never from its log text.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..devices import DEVICES
from ..experiment import Target
from .tools import find_tool, run_tool

__all__ = ["PlaceRoute", "place_and_route", "parse_report"]


@dataclass(frozen=True)
class PlaceRoute:
    """Outcome of place and route.

    Attributes
    ----------
    ok : bool
    utilization : dict
        Cell type -> cells used (``TRELLIS_COMB`` = LUT4, ``TRELLIS_FF``, ``DP16KD``,
        ``CCU2C``, ``MULT18X18D``, ...).
    fmax_mhz : dict
        Clock name -> achieved Fmax in MHz (register to register).
    seconds : float
    log : str
        File name of the nextpnr log.
    reason : str or None
    tool_version : str
    """
    ok: bool
    utilization: dict = field(default_factory=dict)
    fmax_mhz: dict = field(default_factory=dict)
    seconds: float = 0.0
    log: str = "nextpnr.log"
    reason: str | None = None
    tool_version: str = ""


def parse_report(report: dict) -> tuple[dict, dict]:
    """(utilization, fmax) from a nextpnr ``--report`` JSON document."""
    utilization = {cell: int(v.get("used", 0)) for cell, v in report.get("utilization", {}).items()}
    fmax = {clock: float(v["achieved"]) for clock, v in report.get("fmax", {}).items()
            if "achieved" in v}
    return utilization, fmax


def place_and_route(netlist_file: str, workdir: Path, target: Target, freq_mhz: float,
                    seed: int = 1, timeout_s: float = 3600) -> PlaceRoute:
    """Run nextpnr-ecp5 on ``workdir/netlist_file``; writes ``report.json`` and the log."""
    nextpnr = find_tool("nextpnr-ecp5")
    args = [DEVICES[target.device].nextpnr_flag, "--package", target.package, "--speed", str(target.speed),
            "--out-of-context", "--freq", f"{freq_mhz:g}", "--seed", str(seed),
            "--timing-allow-fail", "--json", netlist_file, "--report", "report.json"]
    run = run_tool(nextpnr, args, Path(workdir), "nextpnr.log", timeout_s)
    if run.timed_out:
        return PlaceRoute(False, seconds=run.seconds, tool_version=nextpnr.version,
                          reason=f"timeout: nextpnr ran longer than {timeout_s:g} s\n"
                                 f"{run.log_tail()}")
    if not run.ok:
        return PlaceRoute(False, seconds=run.seconds, tool_version=nextpnr.version,
                          reason=f"nextpnr exited with {run.returncode}\n{run.log_tail()}")
    try:
        report = json.loads((Path(workdir) / "report.json").read_text())
    except (OSError, ValueError) as e:
        return PlaceRoute(False, seconds=run.seconds, tool_version=nextpnr.version,
                          reason=f"nextpnr wrote no readable report.json: {e}")
    utilization, fmax = parse_report(report)
    if not fmax:
        return PlaceRoute(False, utilization, fmax, run.seconds, tool_version=nextpnr.version,
                          reason="nextpnr reported no clock: the design has no registers?")
    return PlaceRoute(True, utilization, fmax, run.seconds, tool_version=nextpnr.version)
