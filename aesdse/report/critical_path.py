"""Where the time goes, per design point: the worst path of each clock (``aesdse report
--critical-path``).

The sweep stores a summary of every worst path nextpnr reports
(:class:`aesdse.flow.critical_path.CriticalPath`) in the row's ``details["critical_paths"]``;
this module prints them, one line per point and clock: Fmax, path delay, its logic and routing
shares, the logic levels, the cell types on the path, the longest routing segment, and the start
and end cells. A row stored before the summaries existed has none: it is listed as *not stored*
(re-run the point), never rebuilt from guesses. A path between two clocks has no Fmax of
nextpnr's; the worst one (the row's ``details["fmax_limit"]``, :func:`aesdse.metrics.crossing_limit`)
shows the system clock it allows, marked where it, not a clock, sets the row's Fmax.
"""

from ..flow.critical_path import CriticalPath
from ..store.database import Row
from .cells import column_header, label, number, param_value, show_value
from .formats import render
from .kinds import CRITICAL_PATH_FORMATS
from .lines import row_order, varying_params
from .model import Column, Failure, Items, Notes, Records, Report, Table

__all__ = ["CRITICAL_PATH_FORMATS", "NOT_STORED", "stored_paths", "describe_paths",
           "critical_path_report", "render_critical_paths", "crossing_of"]


#: What the report says for an ``ok`` row without stored paths.
NOT_STORED = ("critical path not stored: the row was made before aesdse recorded critical paths; "
              "re-run the point (aesdse sweep EXPERIMENT --force)")

#: Columns after the varying parameters: (header, Markdown alignment).
_COLUMNS = (("Clock", "---"), ("Fmax (MHz)", "---:"), ("Path (ns)", "---:"), ("Logic", "---:"),
            ("Routing", "---:"), ("Clk-to-Q + setup (ns)", "---:"), ("Levels", "---:"),
            ("Logic cells", "---"), ("Longest net (ns, fanout)", "---:"), ("From -> to", "---"))

_LEGEND = ("Logic and routing are shares of the path delay; the rest is clock-to-output and "
           "setup. Levels: logic cells on the path (LUT4, wide-function mux, carry); cell types "
           "and fanout from the synthesized netlist. The full paths are in each point's "
           "report.json (nextpnr --report).")


def stored_paths(row: Row) -> list[CriticalPath] | None:
    """The critical paths stored with ``row``, or None when it has none (an older row, a failed
    point, a target without place and route)."""
    paths = (row.details or {}).get("critical_paths")
    if paths is None:
        return None
    return [CriticalPath.from_dict(p) for p in paths]


def _why_none(row: Row) -> str:
    if row.status != "ok":
        return f"no path: {row.status}"
    if row.fmax_mhz is None:
        return "no path: no place and route for this target"
    return NOT_STORED


def _fmax_of(row: Row, path: CriticalPath):
    # nextpnr's own Fmax of the path's clock (uncapped); none for a path between two clocks.
    if " -> " in path.clock:
        return None
    return (row.fmax_by_clock or {}).get(path.clock, row.fmax_raw_mhz)


def _endpoint(kind: str | None, cell: str, port: str) -> str:
    return f"{kind or '?'} {cell}.{port}"


def _cells(path: CriticalPath) -> str:
    return ", ".join(f"{n} {t}" for t, n in sorted(path.logic_by_type.items(),
                                                    key=lambda item: (-item[1], item[0])))


def _net(path: CriticalPath) -> str:
    route = path.longest_route
    if route is None:
        return "-"
    fanout = "?" if route.fanout is None else str(route.fanout)
    return f"{route.delay_ns:.2f}, {fanout}"


def crossing_of(row: Row, path: CriticalPath) -> dict | None:
    """The row's ``details["fmax_limit"]`` (:func:`aesdse.metrics.crossing_limit`: the worst
    path between two clocks, as a limit of the system clock) when it is ``path``, else None."""
    limit = (row.details or {}).get("fmax_limit")
    return limit if limit and limit.get("path") == path.clock else None


def _fmax_text(row: Row, path: CriticalPath) -> str:
    # nextpnr's Fmax, marked when the row's Fmax is capped below it at a data-sheet limit; for
    # the worst path between two clocks, the system clock it allows (marked, and the row's
    # Fmax when it limits).
    crossing = crossing_of(row, path)
    if crossing is not None:
        return number(crossing["fmax_mhz"], "fmax") + ("†" if crossing["limits"] else "")
    fmax = _fmax_of(row, path)
    capped = row.fmax_capped and fmax is not None and row.fmax_mhz is not None \
        and fmax > row.fmax_mhz
    return number(fmax, "fmax") + ("*" if capped else "")


def _cells_of_path(row: Row, path: CriticalPath) -> list[str]:
    return [path.clock, _fmax_text(row, path), f"{path.total_ns:.2f}",
            f"{path.logic_percent:.0f}%", f"{path.routing_percent:.0f}%",
            f"{path.clk_to_q_ns + path.setup_ns:.2f}", str(path.logic_levels), _cells(path),
            _net(path), f"{_endpoint(path.start_type, path.start_cell, path.start_port)} -> "
                        f"{_endpoint(path.end_type, path.end_cell, path.end_port)}"]


def describe_paths(row: Row) -> list[str]:
    """One plain-text line per stored critical path of ``row`` (the cells of the Markdown
    report's line, with their headers), or the one line saying why it has none."""
    paths = stored_paths(row)
    if not paths:
        return [_why_none(row)]
    return ["; ".join(f"{header}: {cell}" for (header, _), cell
                      in zip(_COLUMNS, _cells_of_path(row, path))) for path in paths]


def _display(rows: list[Row], title: str | None) -> Table:
    leading = varying_params(rows) or ["arch"]
    columns = tuple(Column(column_header(n)) for n in leading) \
        + tuple(Column(h, "right" if a == "---:" else "left") for h, a in _COLUMNS)
    body, missing = [], []
    for row in rows:
        paths = stored_paths(row)
        if not paths:
            missing.append(row)
            continue
        lead = [show_value(param_value(row, n)) for n in leading]
        body += [tuple(lead + _cells_of_path(row, path)) for path in paths]
    after = ()
    if body:
        notes = [_LEGEND]
        capped = [r for r in rows
                  if any(_fmax_text(r, p).endswith("*") for p in stored_paths(r) or [])]
        if capped:
            notes.append("* nextpnr's Fmax of the path, above the data-sheet cap of the row's "
                         "Fmax (" + "; ".join(sorted({f"{label(r)}: {r.fmax_capped}"
                                                      for r in capped})) + ").")
        after = (Notes(tuple(notes + _crossing_notes(rows))),)
    if missing:
        after += (Items(None, tuple(Failure(f"{label(row)} seed {row.seed}", None,
                                            _why_none(row)) for row in missing)),)
    return Table(columns, tuple(body), heading=f"{title}: critical paths" if title else None,
                 caption=f"{title}: critical paths" if title else None, after=after)


def _crossing_notes(rows: list[Row]) -> list[str]:
    """The legend of the Fmax shown for a path between two clocks, and the rows it limits."""
    crossing = [r for r in rows if any(crossing_of(r, p) for p in stored_paths(r) or [])]
    if not crossing:
        return []
    text = ("Fmax of a path between two clocks (nextpnr does not check it): the system clock at "
            "which it fits its time from launch to capture edge (clocks edge-aligned, no "
            "multicycle relation: one period of the faster clock, for the system clock and a "
            "clock at twice it).")
    limited = sorted({label(r) for r in crossing if r.details["fmax_limit"]["limits"]})
    if limited:
        text += (" † This path, not a clock's own Fmax, sets the row's Fmax: "
                 + "; ".join(limited) + ".")
    return [text]


def _json(rows: list[Row]) -> list:
    objects = []
    for row in rows:
        paths = stored_paths(row)
        objects.append({
            "key": row.key, "arch": row.arch, "params": row.params, "target": row.target,
            "seed": row.seed, "freq_mhz": row.freq_mhz, "status": row.status,
            "fmax_mhz": row.fmax_mhz, "fmax_by_clock": row.fmax_by_clock,
            "fmax_limit": (row.details or {}).get("fmax_limit"),
            "artifacts": row.artifacts,
            "critical_paths": None if paths is None else [
                {**p.as_dict(),
                 "fmax_mhz": (crossing_of(row, p) or {}).get("fmax_mhz", _fmax_of(row, p)),
                 "logic_percent": p.logic_percent, "routing_percent": p.routing_percent}
                for p in paths],
            "note": None if paths else _why_none(row)})
    return objects


def critical_path_report(rows: list[Row], title: str | None = None) -> Report:
    """The critical-path report of ``rows`` (every stored path, one line per point and clock)
    as a report; its JSON has each row's paths in full."""
    rows = sorted(rows, key=row_order)
    if not rows:
        table = Table((), (), empty="(no stored design point)")
    else:
        table = _display(rows, title)
    return Report("critical-path", (table,),
                  Records(tuple(c.header for c in table.columns), table.body), _json(rows),
                  title=title)


def render_critical_paths(rows: list[Row], fmt: str = "markdown",
                          title: str | None = None) -> str:
    """The critical-path report of ``rows`` in ``fmt`` (:data:`CRITICAL_PATH_FORMATS`).

    Raises
    ------
    ValueError
        For another format.
    """
    if fmt not in CRITICAL_PATH_FORMATS:
        raise ValueError(f"The critical-path report is printed as "
                         f"{' or '.join(CRITICAL_PATH_FORMATS)}, not {fmt!r}")
    return render(critical_path_report(rows, title), fmt)
