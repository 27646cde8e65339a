"""The GCM table (``aesdse report --gcm``): area, speed, bytes per cycle and the GHASH share.

One line per GCM design configuration (rows of :data:`GCM_ARCHS`, placer seeds aggregated as in
:mod:`aesdse.report.table`): the parameters that vary (cipher and GHASH: ``ghash``,
``ghash_digit``, ``ghash_stages``, ``ghash_karatsuba_levels``, ``ghash_aggregation``), then
LUT4, FF and block RAM, Fmax, throughput in Gbit/s, the AAD and payload bytes per cycle that
the verify stage measured in simulation on long messages (``details["gcm"]``), and the share of
the GHASH accumulator (multiplier included) in the worst path and in the area.

The GHASH share
---------------
Both come from ``details["instances"]["ghash"]``, which the sweep records from the synthesized
netlist and nextpnr's report (:func:`aesdse.flow.critical_path.instance_breakdown`): a cell is
the accumulator's when the hierarchy Yosys keeps says so (``hdlname`` and ``src`` attributes,
:mod:`aesdse.flow.instances`; the breakdown says ``"attribution": "hierarchy"``). Rows recorded
before went by cell names (``synth_ecp5`` names a mapped cell after the net it drives).

* Path: the worst path of the clock with the longest one (the path that sets the Fmax of a
  single-clock core): its logic levels and its delay spent in the accumulator's cells
  (a routing segment counts where it ends), out of the whole path.
* Area: the accumulator's LUT4 and FF cells in the synthesized netlist, in percent of all (LUT4
  as the family counts them before place and route: an ECP5 ``CCU2C`` is two). The LUT4 and FF
  columns are nextpnr's counts after packing, so the share is a ratio of synthesized cells, not
  of those columns. In a breakdown by cell names (no ``attribution``), a cell that drives one
  of the accumulator's input ports may be counted as its own: the FF share may include the
  registers that feed it.

A row without the breakdown (made before the sweep recorded it, or an area estimate without
place and route) shows ``n/a`` with the reason in a note: never a guess.
"""

from ..flow.families import FAMILIES as DEVICE_FAMILIES
from ..store.database import Row
from .cells import column_header, family_of_row, label, number, param_value, show_value
from .formats import render
from .kinds import FMAX_STATS, GCM_FORMATS
from .lines import aggregate, varying_params
from .model import Column, Failure, Items, Notes, Records, Report, Table

__all__ = ["GCM_ARCHS", "GHASH_INSTANCE", "GCM_FORMATS", "is_gcm_row", "ghash_path_share",
           "ghash_area_share", "gcm_report", "render_gcm"]

#: The GCM families (:mod:`archs.gcm` around the iterative, unrolled and compact ciphers).
GCM_ARCHS = ("gcm_iterative", "gcm_unrolled", "gcm_compact")

#: The submodule name of the GHASH accumulator in :class:`archs.gcm.GCMCore`.
GHASH_INSTANCE = "ghash"


#: (header, key) of the columns after the varying parameters.
_COLUMNS = (("Target", "target"), ("LUT4", "luts"), ("FF", "ffs"), ("BRAM", "brams"),
            ("Fmax (MHz)", "fmax_mhz"), ("Gbit/s", "gbps"), ("AAD B/cycle", "aad"),
            ("Payload B/cycle", "payload"), ("GHASH path", "path"),
            ("GHASH LUT4", "area_luts"), ("GHASH FF", "area_ffs"))

NOT_RECORDED = ("not recorded: the row was made before the sweep recorded the GHASH share "
                "(details[\"instances\"]); re-run it with `aesdse sweep EXPERIMENT --force`")
NO_PNR = "no place and route for this target (an area estimate): no netlist breakdown"
NO_BYTES = "bytes per cycle not measured (details[\"gcm\"] missing)"

_LEGEND = ("GHASH path: logic levels and delay of the worst path (of the clock with the longest "
           "one) spent in the GHASH accumulator's cells, of the whole path. GHASH LUT4 / FF: "
           "the accumulator's (multiplier included) LUT4 and FF cells in the synthesized "
           "netlist, in percent of all; the LUT4 and FF columns are nextpnr's counts after "
           "packing. Cells are attributed by the hierarchy Yosys keeps (hdlname and src "
           "attributes: aesdse.flow.critical_path.instance_breakdown, a breakdown marked "
           "attribution: hierarchy); a breakdown recorded before that mark went by cell names, "
           "which count a cell driving one of the accumulator's input ports as its own, so its "
           "FF share may include the registers that feed it. B/cycle: bytes per "
           "clock cycle on long messages, measured in simulation.")


def is_gcm_row(row: Row) -> bool:
    """Whether ``row`` is a GCM design point (its arch is one of :data:`GCM_ARCHS`)."""
    return row.arch in GCM_ARCHS


def _breakdown(row: Row) -> tuple[dict | None, str | None]:
    """The row's GHASH breakdown, or None and why it has none."""
    found = ((row.details or {}).get("instances") or {}).get(GHASH_INSTANCE)
    if found:
        return found, None
    return None, NO_PNR if row.fmax_mhz is None else NOT_RECORDED


def ghash_path_share(row: Row) -> tuple[dict | None, str | None]:
    """The accumulator's part of the row's worst path: ``({"clock", "levels", "total_levels",
    "ns", "total_ns", "percent"}, None)``, or ``(None, reason)``."""
    found, why = _breakdown(row)
    if found is None:
        return None, why
    paths = [p for p in found.get("paths", []) if " -> " not in p["clock"]]
    if not paths:
        return None, "nextpnr reported no path within one clock"
    worst = max(paths, key=lambda p: p["total_ns"])
    percent = 100 * worst["ns"] / worst["total_ns"] if worst["total_ns"] else 0.0
    return {**worst, "percent": percent}, None


def ghash_area_share(row: Row) -> tuple[dict | None, str | None]:
    """The accumulator's synthesized LUT4 and FF cells and their percent of all: ``({"luts",
    "total_luts", "luts_percent", "ffs", "total_ffs", "ffs_percent"}, None)``, or ``(None,
    reason)``."""
    found, why = _breakdown(row)
    if found is None:
        return None, why
    driver = DEVICE_FAMILIES.get(family_of_row(row))
    names = getattr(driver, "synth_capacity_names", None)
    if not names or "luts" not in names or "ffs" not in names:
        return None, f"cell types of the {family_of_row(row)} family not known"
    share = {}
    for what in ("luts", "ffs"):
        # A name listed twice counts twice (an ECP5 CCU2C holds two LUT4).
        mine = sum(found["cells"].get(n, 0) for n in names[what])
        total = sum(found["total_cells"].get(n, 0) for n in names[what])
        share.update({what: mine, f"total_{what}": total,
                      f"{what}_percent": 100 * mine / total if total else None})
    return share, None


def _values(row: Row) -> tuple[dict, list[str]]:
    """The numbers of one line (None where absent) and the reasons of its ``n/a`` cells."""
    gcm = (row.details or {}).get("gcm") or {}
    path, path_why = ghash_path_share(row)
    area, area_why = ghash_area_share(row)
    values = {"target": row.target, "luts": row.luts, "ffs": row.ffs, "brams": row.brams,
              "fmax_mhz": row.fmax_mhz,
              "gbps": row.throughput_mbps / 1000 if row.throughput_mbps is not None else None,
              "aad": gcm.get("aad_bytes_per_cycle"),
              "payload": gcm.get("payload_bytes_per_cycle"), "path": path, "area": area}
    reasons = [why for why in (path_why, area_why) if why]
    if not gcm:
        reasons.append(NO_BYTES)
    return values, list(dict.fromkeys(reasons))


def _text(values: dict) -> dict:
    """The cells of one line as text (``n/a`` where a share could not be measured)."""
    path, area = values["path"], values["area"]
    return {
        "target": number(values["target"], "text"), "luts": number(values["luts"], "int"),
        "ffs": number(values["ffs"], "int"), "brams": number(values["brams"], "int"),
        "fmax_mhz": number(values["fmax_mhz"], "fmax"), "gbps": number(values["gbps"], "sig3"),
        "aad": "n/a" if values["aad"] is None else number(values["aad"], "sig3"),
        "payload": "n/a" if values["payload"] is None else number(values["payload"], "sig3"),
        "path": "n/a" if path is None else
        f"{path['levels']}/{path['total_levels']} lvl, {path['ns']:.2f}/{path['total_ns']:.2f} "
        f"ns ({path['percent']:.0f}%)",
        "area_luts": "n/a" if area is None or area["luts_percent"] is None else
        f"{area['luts']:,} ({area['luts_percent']:.0f}%)",
        "area_ffs": "n/a" if area is None or area["ffs_percent"] is None else
        f"{area['ffs']:,} ({area['ffs_percent']:.0f}%)",
    }


def _lines(rows: list[Row], fmax: str):
    """(leading parameter names, [(entry, values, text, reasons)], failed rows)."""
    gcm_rows = [r for r in rows if is_gcm_row(r)]
    entries, failures = aggregate(gcm_rows, fmax)
    leading = varying_params(gcm_rows, with_seed=fmax == "all") or ["arch"]
    lines = []
    for entry in entries:
        values, reasons = _values(entry.row)
        lines.append((entry, values, _text(values), reasons))
    return leading, lines, failures


def _notes(lines, rows: list[Row]) -> list[str]:
    notes = [_LEGEND]
    by_reason: dict = {}
    for entry, _, _, reasons in lines:
        for why in reasons:
            by_reason.setdefault(why, []).append(label(entry.row))
    notes += [f"n/a: {why} ({'; '.join(who)})." for why, who in by_reason.items()]
    others = sorted({r.arch for r in rows if not is_gcm_row(r)})
    if others:
        notes.append(f"Not GCM rows, left out: {', '.join(others)}.")
    return notes


def _first_line(text: str | None) -> str:
    return text.splitlines()[0] if text else ""


def _display(leading, lines, failures, notes, title) -> Table:
    columns = tuple(Column(column_header(n)) for n in leading) \
        + tuple(Column(h, "left" if i == 0 else "right") for i, (h, _) in enumerate(_COLUMNS))
    body = tuple(tuple([show_value(param_value(entry.row, n)) for n in leading]
                       + [text[k] for _, k in _COLUMNS]) for entry, _, text, _ in lines)
    after = tuple(Notes((note,)) for note in notes)
    if failures:
        # Listed in Markdown and HTML; the LaTeX table has only its footnotes, as it always had.
        after += (Items("Failed points:", tuple(Failure(label(r), r.status, _first_line(r.reason))
                                                for r in failures)),)
    return Table(columns, body, heading=f"{title}: GCM" if title else None,
                 caption=f"{title}: GCM" if title else "GCM", empty="(no verified GCM points)",
                 after=after, keys=tuple(entry.row.key for entry, _, _, _ in lines))


def _records(leading, lines, failures) -> Records:
    extra = [n for n in leading if n != "arch"]
    numbers = ("luts", "ffs", "brams", "fmax_mhz", "gbps", "aad", "payload")
    shares = ("path_levels", "path_total_levels", "path_ns", "path_total_ns", "path_percent",
              "ghash_luts", "total_luts", "ghash_luts_percent", "ghash_ffs", "total_ffs",
              "ghash_ffs_percent")
    header = ["arch"] + extra + ["status", "target"] + list(numbers) + list(shares) \
        + ["seeds", "note"]
    out = []
    for entry, values, _, reasons in lines:
        path, area = values["path"] or {}, values["area"] or {}
        share = [path.get("levels"), path.get("total_levels"), path.get("ns"),
                 path.get("total_ns"), path.get("percent"), area.get("luts"),
                 area.get("total_luts"), area.get("luts_percent"), area.get("ffs"),
                 area.get("total_ffs"), area.get("ffs_percent")]
        row = entry.row
        out.append([row.arch] + [show_value(param_value(row, n)) for n in extra]
                   + [row.status, row.target] + [values[k] for k in numbers] + share
                   + [len(entry.members), "; ".join(reasons)])
    for r in failures:
        out.append([r.arch] + [show_value(param_value(r, n)) for n in extra]
                   + [r.status, r.target] + [""] * (len(numbers) + len(shares))
                   + [1, _first_line(r.reason)])
    return Records(tuple(header), tuple(out))


def _json(lines, failures) -> list:
    objects = []
    for entry, values, _, reasons in lines:
        row = entry.row
        objects.append({"arch": row.arch, "params": row.params, "target": row.target,
                        "status": row.status, "seeds": entry.seeds, "keys": entry.keys,
                        "luts": row.luts, "ffs": row.ffs, "brams": row.brams,
                        "fmax_mhz": row.fmax_mhz, "throughput_gbps": values["gbps"],
                        "aad_bytes_per_cycle": values["aad"],
                        "payload_bytes_per_cycle": values["payload"],
                        "ghash_path": values["path"], "ghash_area": values["area"],
                        "notes": reasons})
    objects += [{"arch": r.arch, "params": r.params, "target": r.target, "status": r.status,
                 "reason": r.reason, "key": r.key} for r in failures]
    return objects


def gcm_report(rows: list[Row], title: str | None = None, fmax: str = "median") -> Report:
    """The GCM table of the GCM rows among ``rows`` as a report for any format (others are
    left out, and a note says so); the parameters are those of :func:`render_gcm`.

    Raises
    ------
    ValueError
        For an unknown statistic.
    """
    if fmax not in FMAX_STATS:
        raise ValueError(f"Fmax statistic must be one of {', '.join(FMAX_STATS)}, not {fmax!r}")
    leading, lines, failures = _lines(rows, fmax)
    table = _display(leading, lines, failures, _notes(lines, rows), title)
    return Report("gcm", (table,), _records(leading, lines, failures), _json(lines, failures),
                  title=title)


def render_gcm(rows: list[Row], fmt: str = "markdown", title: str | None = None,
               fmax: str = "median") -> str:
    """The GCM table of the GCM rows among ``rows`` (others are left out, and a note says so).

    Parameters
    ----------
    rows : list of Row
        Oldest first, as :func:`aesdse.report.table.render` takes them.
    fmt : str
        One of :data:`GCM_FORMATS`.
    title : str, optional
    fmax : str
        Seed aggregation, one of :data:`aesdse.report.table.FMAX_STATS`.

    Raises
    ------
    ValueError
        For another format or statistic.
    """
    if fmt not in GCM_FORMATS:
        raise ValueError(f"The GCM table is printed as {', '.join(GCM_FORMATS)}, not {fmt!r}")
    return render(gcm_report(rows, title, fmax), fmt)
