"""Place-and-route stage: device netlist -> placed and routed design, with the family's nextpnr
(nextpnr-ecp5, nextpnr-ice40, nextpnr-machxo2, nextpnr-nexus, nextpnr-himbaechel-gowin,
nextpnr-himbaechel-gatemate).

ECP5 runs out of context (``--out-of-context``): no I/O buffers and no global clock insertion, so
a core is measured alone. The other nextpnr variants have no such mode: their netlist is the
core inside the measurement harness (:mod:`aesdse.flow.harness`), its pins placed freely
(``--pcf-allow-unconstrained``, ``--lpf-allow-unconstrained``, GateMate's ``--vopt
allow-unconstrained``), and the harness is measured alone by a run of its own; on MachXO2 the
clock input goes on a primary clock pin of the package
(:data:`aesdse.flow.families.machxo2.CLOCK_PINS`, an LPF file), on Nexus and Gowin every port on
a known pin (a PDC or CST file, :data:`aesdse.flow.families.nexus.PINS`,
:data:`aesdse.flow.families.gowin.PINS`). The arguments and constraints are the family driver's
(:class:`aesdse.flow.families.base.FamilyDriver`). ``--freq`` is always passed (without it
nextpnr targets 12 MHz), and failing timing does not fail the run (``--timing-allow-fail``): the
achieved Fmax is the measurement.
Numbers come from nextpnr's ``--report`` JSON, never from its log text.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from .families import driver_of
from ..spec.flow_options import OPTIONS, pnr_args
from ..spec.schema import Target
from .tools import exit_reason, find_tool, run_tool

__all__ = ["PlaceRoute", "place_and_route", "parse_report", "constraints", "top_ports",
           "PLACERS", "ROUTERS", "PLACER_TIMING_WEIGHT", "flow_args", "nextpnr_args"]

#: nextpnr 0.11 placers and routers (``--placer``, ``--router``); the first is its default.
PLACERS = OPTIONS["placer"].choices
ROUTERS = OPTIONS["router"].choices
#: nextpnr 0.11's default HeAP timing weight (``--placer-heap-timingweight``): how strongly
#: the placer pulls together the cells of critical connections.
PLACER_TIMING_WEIGHT = OPTIONS["placer_timing_weight"].default


@dataclass(frozen=True)
class PlaceRoute:
    """Outcome of place and route.

    Attributes
    ----------
    ok : bool
    utilization : dict
        Cell type -> cells used, in the family's own names (ECP5: ``TRELLIS_COMB`` = LUT4,
        ``TRELLIS_FF``, ``DP16KD``, ``CCU2C``, ``MULT18X18D``; iCE40: ``ICESTORM_LC`` = logic
        cell, ``ICESTORM_RAM``, ``SB_IO``, ...).
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


def nextpnr_args(target: Target) -> list:
    """The device arguments of the target's nextpnr (its family driver's
    :meth:`~aesdse.flow.families.base.FamilyDriver.nextpnr_args`)."""
    return driver_of(target.device).nextpnr_args(target)


def flow_args(placer: str = PLACERS[0], router: str = ROUTERS[0],
              timing_weight: int = PLACER_TIMING_WEIGHT) -> list:
    """nextpnr arguments of a point's placer, router and HeAP timing weight
    (:func:`aesdse.spec.flow_options.pnr_args`): none at nextpnr's defaults, so the runs (and
    cache keys) of points without the choice are what they were before it."""
    return pnr_args({"placer": placer, "router": router, "placer_timing_weight": timing_weight})


def _merge_args(base: list, extra: list) -> list:
    """``base`` with each ``--option value`` of ``extra`` replacing the same option in it
    (nextpnr refuses an option given twice; Nexus's ``--router router1`` is in ``base``)."""
    options = set(extra[0::2])
    merged, skip = [], False
    for n, arg in enumerate(base):
        if skip:
            skip = False
            continue
        if arg in options:
            skip = True
            continue
        merged.append(arg)
    return merged + list(extra)


def top_ports(netlist: dict) -> dict:
    """Port name -> width of the top module of a Yosys JSON netlist: the module whose ``top``
    attribute is not zero (Yosys writes it as a binary string, ``"00...01"``)."""
    for module in netlist.get("modules", {}).values():
        if str(module.get("attributes", {}).get("top", "0")).strip("0"):
            return {name: len(port.get("bits", ())) for name, port in
                    module.get("ports", {}).items()}
    return {}


def constraints(target: Target, ports: dict) -> tuple[list, dict]:
    """``(nextpnr arguments, {file name: text})`` of the target's pin constraints for a top
    module with ``ports`` (name -> width): its family driver's
    (:meth:`~aesdse.flow.families.base.FamilyDriver.constraints`).

    MachXO2: ``clk`` on a primary clock pin, every other pin placed freely. Nexus and Gowin:
    every port bit on a known pin, ``clk`` on the first (nextpnr-nexus and
    nextpnr-himbaechel-gowin refuse unconstrained I/O), in a PDC or CST file.

    Raises
    ------
    ValueError
        When a Nexus or Gowin design has more port bits than known pins.
    """
    return driver_of(target.device).constraints(target, ports)


def place_and_route(netlist_file: str, workdir: Path, target: Target, freq_mhz: float,
                    seed: int = 1, timeout_s: float = 3600,
                    require_clock: bool = True, extra_args: tuple = ()) -> PlaceRoute:
    """Run the target's nextpnr on ``workdir/netlist_file``; writes ``report.json``, the log
    and the target's constraint file, if any (:func:`constraints`).

    With ``require_clock`` (the default) a report without any clock's Fmax is a failure. The
    measurement harness alone is run without it: only its area is used, and on Gowin nextpnr
    finds no register-to-register path in it after routing ("No Fmax available; no interior
    timing paths found in design", nextpnr-himbaechel-gowin 0.11, although its placer reported
    one for the same netlist). ``extra_args`` (:func:`flow_args`) replace the same options of
    the target's own arguments."""
    driver = driver_of(target.device)
    nextpnr = find_tool(driver.pnr_tool)
    extra = []
    if driver.pin_constraints:
        try:
            netlist = json.loads((Path(workdir) / netlist_file).read_text())
            extra, files = constraints(target, top_ports(netlist))
        except (OSError, ValueError) as e:
            return PlaceRoute(False, tool_version=nextpnr.version,
                              reason=f"pin constraints for {netlist_file}: {e}")
        for name, text in files.items():
            (Path(workdir) / name).write_text(text)
    args = [*_merge_args(nextpnr_args(target), list(extra_args)), *extra, "--freq",
            f"{freq_mhz:g}", "--seed", str(seed), "--timing-allow-fail", "--json", netlist_file,
            "--report", "report.json"]
    run = run_tool(nextpnr, args, Path(workdir), "nextpnr.log", timeout_s)
    if run.timed_out:
        return PlaceRoute(False, seconds=run.seconds, tool_version=nextpnr.version,
                          reason=f"timeout: nextpnr ran longer than {timeout_s:g} s\n"
                                 f"{run.log_tail()}")
    if not run.ok:
        return PlaceRoute(False, seconds=run.seconds, tool_version=nextpnr.version,
                          reason=f"{exit_reason('nextpnr', run)}\n{run.log_tail()}")
    try:
        report = json.loads((Path(workdir) / "report.json").read_text())
    except (OSError, ValueError) as e:
        return PlaceRoute(False, seconds=run.seconds, tool_version=nextpnr.version,
                          reason=f"nextpnr wrote no readable report.json: {e}")
    utilization, fmax = parse_report(report)
    if not fmax and require_clock:
        return PlaceRoute(False, utilization, fmax, run.seconds, tool_version=nextpnr.version,
                          reason="nextpnr reported no clock: the design has no registers?")
    return PlaceRoute(True, utilization, fmax, run.seconds, tool_version=nextpnr.version)
