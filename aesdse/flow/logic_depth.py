"""The logic depth of a synthesized netlist: the most LUT levels between two registers, read from
the JSON netlist Yosys writes (no tool runs).

Place and route decides the Fmax, but the deepest register-to-register path of the mapped
netlist bounds it from the start: each LUT level costs a LUT delay and a route. ``aesdse
explore`` learns, per architecture family, how the Fmax of the placed and routed points follows
their depth (:mod:`aesdse.explore.pruning`) and so bounds the Fmax of a candidate that has only
been synthesized.

A cell is a *level* of :data:`LEVELS` (a LUT4 one, a wide-function mux or a carry cell half: they
add less than a LUT and a route); registers, block RAMs and the module's ports start and end
paths. Cells of a type not listed count as one level unless their type names a flip-flop or a
RAM. Nets are followed through bit numbers, so the depth is exact for a flat netlist (what
``synth_ecp5`` writes) and counts only the top module of a hierarchical one.
"""

import json
from pathlib import Path

__all__ = ["LEVELS", "logic_depth", "netlist_depth"]

#: Levels a combinational cell adds (ECP5 and iCE40 names; unknown combinational cells: 1).
LEVELS = {"LUT4": 1.0, "SB_LUT4": 1.0, "LUT1": 1.0, "LUT2": 1.0, "LUT3": 1.0,
          "PFUMX": 0.5, "L6MUX21": 0.5, "CCU2C": 0.5, "SB_CARRY": 0.5, "ALU": 0.5}
_SEQUENTIAL_MARKS = ("FF", "DFF", "RAM", "DP16KD", "PDPW16KD", "SP16KD", "EHXPLLL", "BRAM",
                     "MULT", "DSP")


def _sequential(cell_type: str) -> bool:
    return any(mark in cell_type.upper() for mark in _SEQUENTIAL_MARKS)


def _top(modules: dict) -> dict | None:
    for module in modules.values():
        if str((module.get("attributes") or {}).get("top", "0")).strip("0") != "":
            return module
    return next(iter(modules.values()), None) if len(modules) == 1 else None


def netlist_depth(netlist: dict) -> float | None:
    """The depth of a Yosys JSON netlist (module documentation); None without a top module or
    without combinational cells."""
    module = _top(netlist.get("modules") or {})
    if module is None:
        return None
    drivers, inputs, weight = {}, {}, {}
    for name, cell in (module.get("cells") or {}).items():
        kind = cell.get("type", "")
        if _sequential(kind):
            continue
        directions = cell.get("port_directions") or {}
        weight[name] = LEVELS.get(kind, 1.0)
        inputs[name] = []
        for port, bits in (cell.get("connections") or {}).items():
            for bit in bits:
                if isinstance(bit, int):
                    if directions.get(port) == "output":
                        drivers[bit] = name
                    else:
                        inputs[name].append(bit)
    if not weight:
        return None
    depth: dict = {}
    for start in weight:
        # Iterative depth-first evaluation: chains of thousands of cells (carry chains, long
        # XOR trees) would overflow the recursion limit.
        stack = [(start, False)]
        on_path = set()
        while stack:
            name, expanded = stack.pop()
            if name in depth:
                continue
            sources = {drivers[b] for b in inputs[name] if b in drivers}
            if not expanded:
                on_path.add(name)
                stack.append((name, True))
                stack.extend((s, False) for s in sources if s not in depth and s not in on_path)
                continue
            on_path.discard(name)
            depth[name] = weight[name] + max((depth.get(s, 0.0) for s in sources), default=0.0)
    return max(depth.values())


def logic_depth(path) -> float | None:
    """:func:`netlist_depth` of the JSON netlist file at ``path`` (None if it cannot be read)."""
    try:
        return netlist_depth(json.loads(Path(path).read_text()))
    except (OSError, ValueError):
        return None
