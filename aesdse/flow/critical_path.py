"""Where the time goes: the worst path of each clock domain in nextpnr's ``--report`` JSON.

nextpnr's report lists, under ``critical_paths``, the worst path of every clock domain and of
every pair of domains with paths between them (``from`` / ``to``: ``"posedge clk"``). Each path is
a list of segments with a ``type`` (``clk-to-q``, ``source``, ``logic``, ``routing``, ``setup``),
a ``delay`` in ns and the ``from`` / ``to`` cell and port; routing segments name their ``net``.
The report names cells as the synthesized netlist does (Yosys's ``netlist.json``) but not their
types; :func:`netlist_cells` reads those types, and each net's fanout, from the netlist.

:func:`summarize` turns one path into a :class:`CriticalPath`: total delay, its split into logic,
routing, clock-to-output, setup and other delays, the logic levels (logic segments: a LUT4, a
wide-function mux, a carry cell, ...), the start and end cells with their types, the longest
routing segment and the routing segment of highest fanout. The full path stays in the point's
``report.json``; the summary goes with the row (``details["critical_paths"]``).

Instances
---------
Yosys flattens the design keeping hierarchical names (``ghash.multiplier.z``), and
``synth_ecp5`` names each mapped cell after the net it drives (``ghash.z_TRELLIS_FF_Q_7``).
Those names are not the hierarchy: a net shared by an instance and its parent keeps one of its
names, so a rule on names (:func:`in_instance`) counts the parent's cells on the instance's port
nets as the instance's (the 128 flip-flops of a top-level register feeding a GHASH multiplier's
operand port, named after that port, and the logic that computes it). :func:`instance_breakdown`
reads the hierarchy Yosys keeps instead (``hdlname`` and ``src`` attributes,
:func:`aesdse.flow.instances.instance_cells`), and a path segment is the instance's when the
netlist cell nextpnr's cell came from is.
"""

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .instances import instance_cells

__all__ = ["RouteSegment", "CriticalPath", "NetlistCells", "netlist_cells", "summarize",
           "critical_paths", "SEGMENT_TYPES", "BREAKDOWN_INSTANCES", "in_instance",
           "instance_breakdown", "netlist_cell_of"]

#: Segment types of a nextpnr path (nextpnr ``timing_log.cc``): ``source`` is the delay out of
#: a start point that is not a register (a primary input).
SEGMENT_TYPES = ("clk-to-q", "source", "logic", "routing", "setup")


@dataclass(frozen=True)
class RouteSegment:
    """One routing segment of a path.

    Attributes
    ----------
    net : str
        The net, as nextpnr names it (Yosys's net name, ``[bit]`` for a bit of a wider net).
    delay_ns : float
    from_cell, to_cell : str
        The driving cell and the cell whose input ends the segment.
    fanout : int or None
        Cell inputs the net drives in the synthesized netlist (None when the netlist was not
        available or does not name the net).
    """
    net: str
    delay_ns: float
    from_cell: str
    to_cell: str
    fanout: int | None = None


@dataclass(frozen=True)
class CriticalPath:
    """The worst path of one clock domain (or between two), summarized.

    Attributes
    ----------
    clock : str
        The clock (``"clk"``), or ``"clk -> bram_clk"`` for a path between two domains.
    from_edge, to_edge : str
        nextpnr's launch and capture events (``"posedge clk"``).
    total_ns : float
        The sum of all segment delays (nextpnr's path delay).
    logic_ns, routing_ns, clk_to_q_ns, setup_ns, other_ns : float
        The total split by segment type; ``other_ns`` is every other type (``source``).
    logic_levels : int
        Logic segments on the path: LUT4s, wide-function muxes, carry cells, ...
    start_cell, start_port, end_cell, end_port : str
        Where the path starts (the register output, e.g. port ``Q`` or a block RAM's ``DOA0``)
        and ends (the register input, e.g. ``DI``).
    start_type, end_type : str or None
        Cell types from the synthesized netlist (``TRELLIS_FF``, ``DP16KD``, ``LUT4``, ...),
        None when unknown.
    logic_by_type : dict
        Cell type -> logic levels of that type on the path (``"?"`` for an unknown type); a
        level through an ECP5 wide-function mux is ``LUT4+PFUMX``, ``PFUMX`` or ``L6MUX21``.
    longest_route : RouteSegment or None
        The routing segment with the largest delay.
    highest_fanout_route : RouteSegment or None
        The routing segment whose net has the highest fanout (None when no fanout is known).
    """
    clock: str
    from_edge: str
    to_edge: str
    total_ns: float
    logic_ns: float
    routing_ns: float
    clk_to_q_ns: float
    setup_ns: float
    other_ns: float
    logic_levels: int
    start_cell: str
    start_port: str
    end_cell: str
    end_port: str
    start_type: str | None = None
    end_type: str | None = None
    logic_by_type: dict = field(default_factory=dict)
    longest_route: RouteSegment | None = None
    highest_fanout_route: RouteSegment | None = None

    @property
    def logic_percent(self) -> float:
        return 100 * self.logic_ns / self.total_ns if self.total_ns else 0.0

    @property
    def routing_percent(self) -> float:
        return 100 * self.routing_ns / self.total_ns if self.total_ns else 0.0

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "CriticalPath":
        """The inverse of :meth:`as_dict` (a row's stored ``details["critical_paths"]``)."""
        routes = {k: RouteSegment(**data[k]) if data.get(k) else None
                  for k in ("longest_route", "highest_fanout_route")}
        return cls(**{**data, **routes})


@dataclass(frozen=True)
class NetlistCells:
    """Cell types and net fanouts of a synthesized netlist's top module.

    Attributes
    ----------
    types : dict
        Cell name -> cell type (``TRELLIS_FF``, ``LUT4``, ``CCU2C``, ``DP16KD``, ...).
    fanout : dict
        Net name, as nextpnr prints it -> cell inputs it drives.
    """
    types: dict = field(default_factory=dict)
    fanout: dict = field(default_factory=dict)

    def type_of(self, cell: str) -> str | None:
        source = netlist_cell_of(cell, self.types)
        return None if source is None else self.types[source]


def netlist_cell_of(cell: str, names) -> str | None:
    """The netlist cell (of ``names``) that nextpnr cell ``cell`` comes from: the same name, or,
    for a cell nextpnr made from a netlist cell (the two halves of a CCU2C, for example), the
    longest netlist name that starts it; None when none does."""
    if cell in names:
        return cell
    owners = [name for name in names if cell.startswith(name)]
    return max(owners, key=len) if owners else None


def _is_top(module: dict) -> bool:
    # Yosys writes attribute values as binary strings: "top": "00000000000000000000000000000001".
    value = str(module.get("attributes", {}).get("top", "0"))
    return set(value) <= {"0", "1"} and "1" in value


def netlist_cells(netlist: dict | str | Path) -> NetlistCells:
    """Read :class:`NetlistCells` from a Yosys JSON netlist (a path or the parsed document).

    A net's name follows nextpnr's JSON frontend: the net name for a one-bit net, ``name[i]``
    for bit ``i`` of a wider one (the first name Yosys gives the bit that is not hidden).
    """
    if not isinstance(netlist, dict):
        netlist = json.loads(Path(netlist).read_text())
    modules = netlist.get("modules", {})
    top = next((m for m in modules.values() if _is_top(m)), None)
    if top is None:
        return NetlistCells()
    types, drives = {}, Counter()
    for name, cell in top.get("cells", {}).items():
        types[name] = cell.get("type")
        directions = cell.get("port_directions", {})
        for port, bits in cell.get("connections", {}).items():
            if directions.get(port) == "input":
                drives.update(b for b in bits if isinstance(b, int))
    names = {}
    for name, net in sorted(top.get("netnames", {}).items(),
                            key=lambda item: (item[1].get("hide_name", 0), item[0])):
        bits = net.get("bits", [])
        for i, bit in enumerate(bits):
            if isinstance(bit, int) and bit not in names:
                names[bit] = name if len(bits) == 1 else f"{name}[{i}]"
    return NetlistCells(types, {names[b]: n for b, n in drives.items() if b in names})


def _logic_kind(segment: dict, cells: NetlistCells) -> str:
    """What one logic segment passes through: the netlist type of its cell, except where it
    leaves an ECP5 slice through ``OFX``, the output of the wide-function muxes that nextpnr
    packs with the LUTs into one ``TRELLIS_COMB`` named after a LUT: ``LUT4+PFUMX`` from a LUT
    input, ``PFUMX`` from the select ``M``, ``L6MUX21`` from ``FXA`` / ``FXB``."""
    into, out = segment["from"]["port"], segment["to"]["port"]
    if out.startswith("OFX"):
        if into.startswith("FX"):
            return "L6MUX21"
        return "PFUMX" if into.startswith("M") else "LUT4+PFUMX"
    return cells.type_of(segment["from"]["cell"]) or "?"


def _clock_of(edge: str) -> str:
    # "posedge clk" -> "clk"; nextpnr writes "<async>" for a path without a clock.
    return edge.split(" ", 1)[1] if " " in edge else edge


def summarize(entry: dict, cells: NetlistCells | None = None) -> CriticalPath:
    """Summarize one entry of a report's ``critical_paths``.

    Raises
    ------
    ValueError
        If the entry has no segments.
    """
    cells = cells or NetlistCells()
    path = entry.get("path") or []
    if not path:
        raise ValueError(f"critical path {entry.get('from')} -> {entry.get('to')} has no "
                         f"segments")
    by_type = dict.fromkeys(SEGMENT_TYPES, 0.0)
    for seg in path:
        by_type[seg["type"]] = by_type.get(seg["type"], 0.0) + float(seg["delay"])
    logic = [seg for seg in path if seg["type"] == "logic"]
    routes = [RouteSegment(seg.get("net", "?"), float(seg["delay"]), seg["from"]["cell"],
                           seg["to"]["cell"], cells.fanout.get(seg.get("net")))
              for seg in path if seg["type"] == "routing"]
    fanouts = [r for r in routes if r.fanout is not None]
    start, end = path[0]["from"], path[-1]["to"]
    from_clock, to_clock = _clock_of(entry.get("from", "")), _clock_of(entry.get("to", ""))
    return CriticalPath(
        clock=from_clock if from_clock == to_clock else f"{from_clock} -> {to_clock}",
        from_edge=entry.get("from", ""), to_edge=entry.get("to", ""),
        total_ns=sum(by_type.values()), logic_ns=by_type["logic"],
        routing_ns=by_type["routing"], clk_to_q_ns=by_type["clk-to-q"],
        setup_ns=by_type["setup"],
        other_ns=sum((v for k, v in by_type.items()
                      if k not in ("logic", "routing", "clk-to-q", "setup")), 0.0),
        logic_levels=len(logic), start_cell=start["cell"], start_port=start["port"],
        end_cell=end["cell"], end_port=end["port"], start_type=cells.type_of(start["cell"]),
        end_type=cells.type_of(end["cell"]),
        logic_by_type=dict(Counter(_logic_kind(seg, cells) for seg in logic)),
        longest_route=max(routes, key=lambda r: r.delay_ns, default=None),
        highest_fanout_route=max(fanouts, key=lambda r: (r.fanout, r.delay_ns), default=None))


def critical_paths(report: dict, cells: NetlistCells | None = None) -> list[CriticalPath]:
    """Every worst path of a nextpnr ``--report`` document, summarized, in the report's order
    (entries without segments are left out)."""
    return [summarize(entry, cells) for entry in report.get("critical_paths", [])
            if entry.get("path")]


#: Submodule instances whose share of the area and of the worst paths the sweep records
#: (``details["instances"]``): ``ghash``, the GHASH accumulator of :class:`archs.gcm.GCMCore`
#: (``m.submodules.ghash``), multiplier included, and ``cipher``, its cipher core (whether a
#: worst path starts and ends in the cipher: the "GHASH never limits" records class).
BREAKDOWN_INSTANCES = ("ghash", "cipher")


def in_instance(name: str, instance: str) -> bool:
    """Whether a netlist or nextpnr cell ``name`` is named under the submodule ``instance``: one
    of its hierarchical components, before the last, is ``instance`` (``ghash.z_TRELLIS_FF_Q``,
    ``dut.ghash.multiplier.x_LUT4_Z``, not ``ghash_enable_LUT4_Z``). A name, not the hierarchy
    (see the module documentation): :func:`instance_breakdown` does not use it."""
    return instance in name.split(".")[:-1]


def _segment_cell(segment: dict) -> str:
    # The cell a segment's delay is spent in: the driving cell of a clk-to-q or logic segment,
    # the receiving one of a routing or setup segment (a route goes into its sink's logic).
    side = "from" if segment["type"] in ("clk-to-q", "source", "logic") else "to"
    return segment[side]["cell"]


def _owned(cell: str, mine: set, names) -> bool:
    return netlist_cell_of(cell, names) in mine


def _path_share(entry: dict, cells: set, names) -> dict:
    path = entry.get("path") or []
    mine = [seg for seg in path if _owned(_segment_cell(seg), cells, names)]
    from_clock, to_clock = _clock_of(entry.get("from", "")), _clock_of(entry.get("to", ""))
    return {"clock": from_clock if from_clock == to_clock else f"{from_clock} -> {to_clock}",
            "starts_inside": bool(path) and _owned(path[0]["from"]["cell"], cells, names),
            "ends_inside": bool(path) and _owned(path[-1]["to"]["cell"], cells, names),
            "levels": sum(seg["type"] == "logic" for seg in mine),
            "total_levels": sum(seg["type"] == "logic" for seg in path),
            "ns": sum(float(seg["delay"]) for seg in mine),
            "total_ns": sum(float(seg["delay"]) for seg in path)}


def instance_breakdown(netlist: dict | str | Path, report: dict,
                       instance: str) -> dict | None:
    """The share of submodule ``instance`` in a synthesized netlist and its routed worst paths.

    Parameters
    ----------
    netlist : dict, str or Path
        The Yosys JSON netlist (flattened, as the family's script writes it).
    report : dict
        nextpnr's ``--report`` document of that netlist.
    instance : str
        The submodule's name (one of :data:`BREAKDOWN_INSTANCES`).

    Returns
    -------
    dict or None
        None when no cell of the netlist's top module lies under ``instance``; else
        ``{"instance", "attribution": "hierarchy", "cells": {type: count}, "total_cells":
        {type: count}, "paths": [{"clock", "starts_inside", "ends_inside", "levels",
        "total_levels", "ns", "total_ns"}]}``: the cells by type (the instance's, and all), and
        per worst path of the report (in its order) whether its start and end cells are the
        instance's, and the logic levels and the delay spent in the instance's cells (see the
        module documentation for the attribution).
    """
    if not isinstance(netlist, dict):
        netlist = json.loads(Path(netlist).read_text())
    top = next((m for m in netlist.get("modules", {}).values() if _is_top(m)), None)
    if top is None:
        return None
    owned = instance_cells(top, instance)
    mine, total = Counter(), Counter()
    for name, cell in top.get("cells", {}).items():
        if str(cell.get("type", "")).startswith("$"):
            continue                        # $scopeinfo: a record of the hierarchy, no logic
        total[cell.get("type")] += 1
        if name in owned:
            mine[cell.get("type")] += 1
    if not mine:
        return None
    return {"instance": instance, "attribution": "hierarchy",
            "cells": dict(sorted(mine.items())),
            "total_cells": dict(sorted(total.items())),
            "paths": [_path_share(entry, owned, top.get("cells", {}))
                      for entry in report.get("critical_paths", []) if entry.get("path")]}
