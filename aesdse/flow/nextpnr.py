"""Place-and-route stage: device netlist -> placed and routed design, with the family's nextpnr
(nextpnr-ecp5, nextpnr-ice40, nextpnr-machxo2, nextpnr-nexus, nextpnr-himbaechel-gowin,
nextpnr-himbaechel-gatemate).

ECP5 runs out of context (``--out-of-context``): no I/O buffers and no global clock insertion, so
a core is measured alone. The other nextpnr variants have no such mode: their netlist is the
core inside the measurement harness (:mod:`aesdse.flow.harness`), its pins placed freely
(``--pcf-allow-unconstrained``, ``--lpf-allow-unconstrained``, GateMate's ``--vopt
allow-unconstrained``), and the harness is measured alone by a run of its own; on MachXO2 the
clock input goes on a primary clock pin of the package (:data:`aesdse.flow.devices.CLOCK_PINS`, an
LPF file), on Nexus and Gowin every port on a known pin (a PDC or CST file,
:data:`aesdse.flow.devices.PORT_PINS`). ``--freq`` is always passed (without it nextpnr targets
12 MHz), and failing timing does not fail the run (``--timing-allow-fail``): the achieved Fmax
is the measurement.
Numbers come from nextpnr's ``--report`` JSON, never from its log text.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from .devices import (CLOCK_PINS, DEVICES, GOWIN_DIES, PORT_PINS, family_info, family_of,
                       nextpnr_device)
from ..spec.schema import Target
from .tools import find_tool, run_tool

__all__ = ["PlaceRoute", "place_and_route", "parse_report", "constraints", "top_ports",
           "LPF_FILE", "PDC_FILE", "PLACERS", "ROUTERS", "flow_args"]

#: nextpnr 0.11 placers and routers (``--placer``, ``--router``); the first is its default.
PLACERS = ("heap", "sa", "static")
ROUTERS = ("router1", "router2")


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
    """The device arguments of the target's nextpnr."""
    part = DEVICES[target.device]
    if part.family == "ecp5":
        return [part.nextpnr_flag, "--package", target.package, "--speed", str(target.speed),
                "--out-of-context"]
    if part.family == "ice40":
        return [part.nextpnr_flag, "--package", target.package, "--pcf-allow-unconstrained"]
    if part.family in ("machxo2", "machxo3"):
        return [part.nextpnr_flag, nextpnr_device(target.device, target.package, target.speed),
                "--lpf-allow-unconstrained"]
    if part.family == "nexus":
        # router1: nextpnr-nexus 0.11's default router2 failed to route the clock pin to its
        # DCC in every harness run (any clock pin, placer seeds alike); router1 routes it.
        return [part.nextpnr_flag, nextpnr_device(target.device, target.package, target.speed),
                "--router", "router1"]
    if part.family == "gowin":
        return [part.nextpnr_flag, nextpnr_device(target.device, target.package, target.speed),
                "--vopt", f"family={GOWIN_DIES[target.device]}"]
    if part.family == "gatemate":
        return [part.nextpnr_flag, nextpnr_device(target.device, target.package, target.speed),
                "--vopt", "allow-unconstrained"]
    raise ValueError(f"{target.device} is not placed and routed (family {part.family})")


def flow_args(placer: str = PLACERS[0], router: str = ROUTERS[0]) -> list:
    """nextpnr arguments of a point's placer and router choice: none at nextpnr's defaults, so
    the runs (and cache keys) of points without the choice are what they were before it."""
    if placer not in PLACERS:
        raise ValueError(f"Placer must be one of {', '.join(PLACERS)}, not {placer!r}")
    if router not in ROUTERS:
        raise ValueError(f"Router must be one of {', '.join(ROUTERS)}, not {router!r}")
    args = []
    if placer != PLACERS[0]:
        args += ["--placer", placer]
    if router != ROUTERS[0]:
        args += ["--router", router]
    return args


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


#: The constraint files written beside the netlist: MachXO2's clock pin (LPF), every Nexus pin
#: (PDC).
LPF_FILE = "constraints.lpf"
PDC_FILE = "constraints.pdc"
CST_FILE = "constraints.cst"

#: Families whose nextpnr gets a constraint file from :func:`constraints`.
_CONSTRAINED = ("machxo2", "machxo3", "nexus", "gowin")


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
    module with ``ports`` (name -> width).

    MachXO2: ``clk`` on a primary clock pin (:data:`aesdse.flow.devices.CLOCK_PINS`), every other pin
    placed freely. Nexus and Gowin: every port bit on a pin of :data:`aesdse.flow.devices.PORT_PINS`,
    ``clk`` on the first (nextpnr-nexus and nextpnr-himbaechel-gowin refuse unconstrained I/O),
    in a PDC or CST file.

    Raises
    ------
    ValueError
        When a Nexus or Gowin design has more port bits than known pins.
    """
    family = DEVICES[target.device].family
    if family in ("nexus", "gowin"):
        pins = PORT_PINS[(target.device, target.package)]
        bits = ["clk"] if "clk" in ports else []
        bits += [name if width == 1 else f"{name}[{i}]"
                 for name, width in ports.items() if name != "clk" for i in range(width)]
        if len(bits) > len(pins):
            raise ValueError(f"{len(bits)} I/O bits need pins, but aesdse knows "
                             f"{len(pins)} pins of {target.device} {target.package}")
        if family == "gowin":
            text = "".join(f'IO_LOC "{bit}" {pin};\n' for bit, pin in zip(bits, pins))
            return ["--vopt", f"cst={CST_FILE}"], {CST_FILE: text}
        text = "".join(f"ldc_set_location -site {{{pin}}} [get_ports {{{bit}}}]\n"
                       for bit, pin in zip(bits, pins))
        return ["--pdc", PDC_FILE], {PDC_FILE: text}
    pin = CLOCK_PINS.get((target.device, target.package))
    if pin is None or "clk" not in ports:
        return [], {}
    return ["--lpf", LPF_FILE], {LPF_FILE: f'LOCATE COMP "clk" SITE "{pin}";\n'}


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
    nextpnr = find_tool(family_info(family_of(target.device)).pnr_tool)
    extra = []
    if DEVICES[target.device].family in _CONSTRAINED:
        try:
            netlist = json.loads((Path(workdir) / netlist_file).read_text())
            extra, files = constraints(target, top_ports(netlist))
        except (OSError, ValueError) as e:
            return PlaceRoute(False, tool_version=nextpnr.version,
                              reason=f"pin constraints for {netlist_file}: {e}")
        for name, text in files.items():
            (Path(workdir) / name).write_text(text)
    args = [*_merge_args(nextpnr_args(target), list(extra_args)), *extra, "--freq", f"{freq_mhz:g}", "--seed", str(seed),
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
    if not fmax and require_clock:
        return PlaceRoute(False, utilization, fmax, run.seconds, tool_version=nextpnr.version,
                          reason="nextpnr reported no clock: the design has no registers?")
    return PlaceRoute(True, utilization, fmax, run.seconds, tool_version=nextpnr.version)
