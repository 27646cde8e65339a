"""The metrics report (``aesdse report``): paper-style comparison tables from stored rows.

One line per design configuration: the parameters that vary across the selection lead, then area,
speed and efficiency with units in the headers. Failed points are listed below the table with
their reason; they never appear with numbers.

Seeds
-----
nextpnr's Fmax is a sample, not a property of the design: the placer seed alone moves it by 3-11%
on this flow (docs/toolchain.md). Rows that differ only by seed (same architecture, parameters,
target, target frequency and other flow options) are therefore aggregated into one
:class:`~aesdse.report.lines.TableLine` by :func:`~aesdse.report.lines.aggregate`: ``median``
(the default), ``best`` (highest Fmax) or ``min``; the spread across seeds is shown beside the
Fmax: ``117.2 (110.3-121.0)`` is the min-max range, and from 5 seeds ``(...; CI 112.0-119.5)``
adds the distribution-free interval of the median (:mod:`aesdse.report.stats`, its exact coverage
in the footnote). A footnote compares every line
with the fastest of its target by the two-sided Mann-Whitney U test on the per-seed samples, and
says which differences lie within the seed noise or rest on too few seeds to tell. ``all`` keeps
one line per seed. Throughput and throughput per area
follow the chosen Fmax (they are ``bits x Fmax / cycles``, so they scale with it); the area of a
design does not depend on the placer seed.

Fmax search
-----------
A point swept with ``flow: fmax_search`` (:mod:`aesdse.engine.fmax_search`) is one row whose Fmax is the
converged Fmax: the highest achieved Fmax among the routed nextpnr runs of its search (data-sheet
caps applied as for every row). Given the point's runs (``runs=`` of :func:`metrics_report`, from
:meth:`aesdse.store.database.Store.pnr_runs`), its Fmax cell shows the spread of the *contending* runs
(routed runs whose target was within 10% of the converged Fmax, over seeds and targets; ``±``
is half their min-max range in percent) and ``[bimodal]`` when those runs split into two clusters
(:func:`aesdse.engine.fmax_search.bimodal`); JSON has the numbers under ``fmax_search``.

Device families
---------------
Each family has its own area unit (:class:`aesdse.flow.families.base.FamilyDriver`: ECP5 slices
of 2 LUT4 + 2 FF, iCE40 logic cells of 1 LUT4 + 1 FF, asic gate equivalents with NAND2 = 1 GE). An ``asic``
row has no LUT4, no Fmax and no throughput (an estimate without place and route); a table with
asic rows gets a ``GE`` column and a depth column (NAND2 delays), from the row's
``details["asic"]``, so gate equivalents are never shown in an FPGA column. ``group_by="family"``
(``aesdse report --group-by family``) prints one table per family under a heading that names the
family and its area unit, the area column headed in that unit (``Slices``, ``Logic cells``,
``GE``), and labels the whole report a cross-family comparison when it has more than one family.
"""

import statistics
from dataclasses import dataclass

from ..flow.families import FAMILIES as DEVICE_FAMILIES, family_of, lut_count_of
from ..engine.fmax_search import BIMODAL_GAP, CONTENDING_WINDOW, summarize
from ..spec.schema import Target
from ..store.database import Row
from . import stats
from .cells import (RANDOM_BITS_COLUMN, area_of_row, cell_value, column_header,
                    family_heading, family_of_row, family_rank, label, number, param_value,
                    random_bits_per_block, show_value)
from .kinds import GROUP_BY
from .lines import TableLine, aggregate, varying_params
from .model import Column, Failure, Items, Notes, Records, Report, Table

__all__ = ["COLUMNS", "ASIC_COLUMNS", "JSON_KEYS", "metrics_report", "metrics_table",
           "cross_family_label"]


#: (key, header, format) of the metric columns, in order. Formats are :func:`number` styles.
COLUMNS = (
    ("target", "Target", "text"),
    ("luts", "LUT4", "int"),
    ("ffs", "FF", "int"),
    ("brams", "BRAM", "int"),
    ("slices", "Slices", "int"),
    ("fmax_mhz", "Fmax (MHz)", "fmax"),
    ("latency_cycles", "Latency (cycles)", "int"),
    ("cycles_per_block", "Cycles/block", "g"),
    ("throughput_mbps", "Throughput (Mbit/s)", "int"),
    ("mbps_per_lut", "Mbit/s per LUT4", "sig3"),
    ("mbps_per_slice", "Mbit/s per slice", "sig3"),
)

#: Columns a table gets when it has ``asic`` rows: the gate equivalents and the logic depth of
#: ``details["asic"]`` (:mod:`aesdse.flow.asic`; the asic driver's ``extra_columns``).
ASIC_COLUMNS = DEVICE_FAMILIES["asic"].extra_columns


#: Keys of every JSON object (machine-readable output is stable for scripts). ``seed`` and
#: ``key`` are those of the representative row; ``seeds`` and ``keys`` list every aggregated one;
#: ``stale`` lists why a shown row no longer matches the current checkout (empty when current),
#: ``older_rows`` counts the rows of the same configurations that are not shown;
#: ``fmax_stat`` is the aggregation, ``fmax_min_mhz`` / ``fmax_max_mhz`` the spread;
#: ``seed_count`` the seeds aggregated, ``fmax_ci_low_mhz`` / ``fmax_ci_high_mhz`` the median
#: interval from 5 seeds (None below) and ``fmax_ci_coverage`` its exact coverage
#: (:mod:`aesdse.report.stats`); ``fmax_noise`` the line against the fastest of its target
#: (``against``: that line's key, ``verdict``, ``p``, ``method``), or None;
#: ``fmax_search`` is None, or the :func:`aesdse.engine.fmax_search.summarize` numbers of a searched point
#: (``fmax_min_mhz`` / ``fmax_max_mhz`` are then those of its contending runs); ``family`` is the
#: device family of the target (``ecp5``, ``ice40``, ``asic``; None if unknown), ``area`` the
#: row's area in that family's own unit and ``area_unit`` that unit's column header
#: (``Slices``, ``Logic cells``, ``GE``: :func:`aesdse.report.cells.area_of_row`); ``lut_count`` the row's LUTs of
#: its fabric's size and ``lut_inputs`` that size (4, or 6 for a LUT6 fabric, whose count is
#: never in ``luts`` nor in ``mbps_per_lut``; both None without LUTs:
#: :func:`aesdse.flow.families.lut_count_of`).
JSON_KEYS = ("key", "experiment", "arch", "params", "target", "status", "reason", "luts", "ffs",
             "brams", "carries", "slices", "fmax_mhz", "fmax_raw_mhz", "fmax_capped",
             "fmax_by_clock", "latency_cycles", "cycles_per_block", "throughput_mbps",
             "mbps_per_lut", "mbps_per_slice", "seed", "freq_mhz", "tool_versions",
             "generator", "created_at", "sim_seconds", "synth_seconds", "pnr_seconds",
             "artifacts", "details", "seeds", "keys", "fmax_stat", "fmax_min_mhz",
             "fmax_max_mhz", "fmax_search", "stale", "older_rows", "family", "area",
             "area_unit", "seed_count", "fmax_ci_low_mhz", "fmax_ci_high_mhz",
             "fmax_ci_coverage", "fmax_noise", "lut_count", "lut_inputs")



_CROSS_FAMILY_NOTE = ("Cross-family comparison: an ECP5 slice (2 LUT4 + 2 FF) is twice an iCE40 "
                      "logic cell, block RAMs differ in size, and asic rows are not in FPGA "
                      "units.")


def _percent(p) -> str:
    return f" (±{p:.0f}%)" if p >= 1 or p == 0 else f" (±{p:.1f}%)"


def _spread(entry: TableLine, search: dict | None = None) -> str:
    if search is not None:
        if not search["contending"] or search["contending"] < 2:
            return " [bimodal]" if search["bimodal"] else ""
        return _percent(search["spread_percent"]) + (" [bimodal]" if search["bimodal"] else "")
    return stats.spread_text(entry.spread)


def _noise(entries) -> dict:
    """Entry index -> (index of the fastest line of its target, :class:`stats.Difference`): each
    line's per-seed Fmax against those of the line with the highest median Fmax on the same
    target (:func:`stats.against_fastest`). Only targets with two lines or more, one of them
    over several seeds; Fmax-search lines (one converged value, not seed samples) are left out."""
    by_target: dict = {}
    for i, e in enumerate(entries):
        if e.row.fmax_mhz is not None and not (e.row.flow or {}).get("fmax_search"):
            by_target.setdefault(e.row.target, []).append(i)
    out = {}
    for indices in by_target.values():
        if len(indices) < 2 or all(len(entries[i].members) < 2 for i in indices):
            continue
        fastest, results = stats.against_fastest(
            {i: [r.fmax_mhz for r in entries[i].members if r.fmax_mhz is not None]
             for i in indices})
        out.update({i: (fastest, d) for i, d in results.items()})
    return out


def _noise_notes(entries, leading) -> list[str]:
    """The seed-noise footnote: per target, the lines against the fastest
    (:func:`stats.noise_note`), with the test stated."""
    noise = _noise(entries)
    if entries and entries[0].fmax_stat == "all" or not noise:
        return []
    def name(i):
        return label(entries[i].row, leading) if leading else label(entries[i].row)
    by_fastest: dict = {}
    for i, (fastest, d) in noise.items():
        by_fastest.setdefault(fastest, []).append((name(i), d))
    targets = len({entries[f].row.target for f in by_fastest}) > 1
    parts = [(f"on {entries[f].row.target}, " if targets else "")
             + stats.noise_note(name(f), statistics.median(
                 [r.fmax_mhz for r in entries[f].members if r.fmax_mhz is not None]), results)
             for f, results in by_fastest.items()]
    return [f"Seed noise ({stats.TEST_NOTE}): " + "; ".join(parts) + "."]


def _searches(entries, runs) -> dict:
    """TableLine index -> :func:`summarize` of its searched points' runs (searched entries only)."""
    out = {}
    for n, e in enumerate(entries):
        if not (e.row.flow or {}).get("fmax_search"):
            continue
        members = [r for m in e.members for r in (runs or {}).get(m.key, [])]
        if members:
            out[n] = summarize(members)
    return out


@dataclass(frozen=True)
class _Context:
    """What a table says beside the rows: Fmax-search summaries by entry index, and provenance
    (stale reasons, older rows) by row key."""
    searches: dict
    provenance: dict

    def search(self, i):
        return self.searches.get(i)

    def provenance_of(self, entry: TableLine) -> tuple[list, int]:
        """Stale reasons of an entry's rows and the older rows of their configurations."""
        reasons, older = [], 0
        for member in entry.members:
            stale, count = self.provenance.get(member.key, ([], 0))
            reasons += [r for r in stale if r not in reasons]
            older += count
        return reasons, older

    def provenance_text(self, entry: TableLine) -> str:
        reasons, older = self.provenance_of(entry)
        parts = (["stale: " + ", ".join(reasons)] if reasons else []) \
            + ([f"+{older} older"] if older else [])
        return "; ".join(parts)

    def any_provenance(self, entries) -> bool:
        return any(self.provenance_text(e) for e in entries)


_STALE_NOTE = ("Provenance: \"stale\" rows were measured with another generator source or tool "
               "version than this checkout (run the sweep again to refresh them; the old rows are "
               "kept); \"+N older\" counts rows of the same configuration not shown (the newest "
               "is). `aesdse db list` shows them all; `aesdse report --current-only` shows only "
               "current rows.")


#: Headers of the optional text columns after the metrics.
_TEXT_COLUMNS = ("Clocks (MHz)", "Provenance")

_CLOCKS_NOTE = ("Clocks: Fmax of each clock domain after routing (nextpnr, uncapped); the Fmax "
                "column is the usable system clock: the minimum over the domains of each "
                "domain's Fmax (capped) divided by its multiple of the system clock (a block RAM "
                "on a clock at twice the system clock counts half), and at most what the worst "
                "path between two domains allows, which nextpnr does not check (it must fit one "
                "period of the faster clock; aesdse report --critical-path shows it).")


def _multi_clock(entries) -> bool:
    return any(len(e.row.fmax_by_clock or {}) > 1 for e in entries)


def _clocks_text(row: Row) -> str:
    return ", ".join(f"{name} {mhz:.1f}" for name, mhz in sorted((row.fmax_by_clock or {}).items()))


def _columns(entries, family: str | None = None) -> tuple:
    """The metric columns of a table of ``entries``: :data:`COLUMNS`, plus the
    ``extra_columns`` of each family with rows among them (:data:`ASIC_COLUMNS` for asic
    rows). For one family's table (``family``), the area column is headed in that family's unit,
    and a family with its own ``table_columns`` (an estimate without place and route) has only
    those."""
    info = DEVICE_FAMILIES.get(family)
    if info is not None and info.table_columns is not None:
        return info.table_columns
    columns = COLUMNS
    if family in DEVICE_FAMILIES:
        key, header = DEVICE_FAMILIES[family].area_column
        per = {"slices": {"Logic cells": "Mbit/s per logic cell"}}.get(key, {}).get(header)
        columns = tuple((k, header if k == key else per if k == "mbps_per_slice" and per else h,
                         style) for k, h, style in COLUMNS)
    present = {family_of_row(e.row) for e in entries}
    for name, driver in DEVICE_FAMILIES.items():
        if name in present:
            columns += tuple(c for c in driver.extra_columns if c not in columns)
    if any(random_bits_per_block(e.row) is not None for e in entries):
        columns += (RANDOM_BITS_COLUMN,)
    return columns


def _table(entries, leading, ctx: _Context, columns=COLUMNS):
    headers = [column_header(n) for n in leading] + [h for _, h, _ in columns]
    clocks = _multi_clock(entries)
    if clocks:
        headers.append("Clocks (MHz)")
    provenance = ctx.any_provenance(entries)
    if provenance:
        headers.append("Provenance")
    body = []
    for i, e in enumerate(entries):
        r = e.row
        cells = [show_value(param_value(r, n)) for n in leading]
        for key, _, style in columns:
            text = number(cell_value(r, key), style)
            if key == "fmax_mhz" and r.fmax_mhz is not None:
                text += _spread(e, ctx.search(i))
                if r.fmax_capped:
                    text += "*"
            cells.append(text)
        if clocks:
            cells.append(_clocks_text(r))
        if provenance:
            cells.append(ctx.provenance_text(e))
        body.append(cells)
    return headers, body


def _reason(row: Row) -> str:
    return row.reason.splitlines()[0] if row.reason else "(no reason recorded)"


def _notes(entries, failures, leading, ctx: _Context) -> tuple[list[str], list[str]]:
    """Footnotes under a table and the failed-point lines, as plain text."""
    notes = []
    searches = ctx.searches
    families = {family_of_row(e.row) for e in entries}
    # A family may share another's note (MachXO3 MachXO2's: the same fabric and tool). The
    # default target's family's note (ECP5's) also stands for rows of no known family, and
    # for a table whose families have no note of their own.
    noted = {DEVICE_FAMILIES[f].note_family or f if f in DEVICE_FAMILIES else f
             for f in families}
    default = family_of(Target.device)
    own_notes = {f for f, d in DEVICE_FAMILIES.items() if d.report_note and f != default}
    if entries and (noted & {default, None} or not noted & own_notes):
        notes.append(DEVICE_FAMILIES[default].report_note)
    notes += [d.report_note for f, d in DEVICE_FAMILIES.items() if f in noted & own_notes]
    if len(noted) > 1:
        notes.append(_CROSS_FAMILY_NOTE)
    if searches:
        counts = sorted({s["runs"] for s in searches.values()})
        text = (f"Fmax search ({'/'.join(map(str, counts))} nextpnr runs): converged Fmax = the "
                f"highest achieved Fmax among the routed runs; ± is half the min-max range of "
                f"the contending runs (routed, target within {CONTENDING_WINDOW:.0%} of the "
                f"converged Fmax), in percent.")
        if any(s["bimodal"] for s in searches.values()):
            text += (f" [bimodal]: the contending runs' achieved Fmax split into two clusters of "
                     f">= 2 runs, a gap > {BIMODAL_GAP:.0%} of their median between them.")
        notes.append(text)
    multi = [e for e in entries if len(e.members) > 1]
    if multi:
        stat = {"median": "median", "best": "best (highest)", "min": "lowest"}[entries[0].fmax_stat]
        counts = sorted({len(e.members) for e in multi})
        notes.append(f"Fmax: {stat} of {'/'.join(map(str, counts))} placer seeds; "
                     f"{stats.spread_note([len(e.members) for e in multi])}. Throughput follows "
                     f"the Fmax shown.")
    notes += _noise_notes(entries, leading)
    if _multi_clock(entries):
        notes.append(_CLOCKS_NOTE)
    capped = sorted({e.row.fmax_capped for e in entries if e.row.fmax_capped})
    if capped:
        notes.append("* Fmax capped at the device's data-sheet maximum: " + "; ".join(capped))
    if ctx.any_provenance(entries) or any(ctx.provenance.get(r.key, ([], 0)) != ([], 0)
                                          for r in failures):
        notes.append(_STALE_NOTE)
    failed = []
    for r in failures:
        text = f"{label(r, leading) if leading else label(r)}"
        if len({f.seed for f in failures}) > 1 or "seed" in leading:
            text += f" seed {r.seed}"
        stale, older = ctx.provenance.get(r.key, ([], 0))
        if stale or older:
            text += " (" + "; ".join((["stale: " + ", ".join(stale)] if stale else [])
                                     + ([f"+{older} older"] if older else [])) + ")"
        failed.append((text, r))
    return notes, failed


def _display(entries, failures, leading, ctx: _Context, columns, *, heading=None,
             caption=None, level=2) -> Table:
    """The metrics table of ``entries`` as text cells, with its footnotes and failed points."""
    headers, body = _table(entries, leading, ctx, columns)
    count = len(leading)
    model = tuple(Column(h, "left") if i < count or h in _TEXT_COLUMNS
                  # The Target column (the first metric) reads flush left in LaTeX only.
                  else Column(h, "right", latex_align="left" if i == count else None)
                  for i, h in enumerate(headers))
    notes, failed = _notes(entries, failures, leading, ctx)
    after = (Notes(tuple(notes)),) if notes else ()
    if failed:
        after += (Items("Failed points:", tuple(Failure(text, r.status, _reason(r), r.artifacts)
                                                for text, r in failed), in_latex=True),)
    return Table(model, tuple(tuple(cells) for cells in body), heading=heading, caption=caption,
                 empty="(no verified points)", after=after,
                 keys=tuple(e.row.key for e in entries), level=level)


def _records(entries, failures, leading, ctx: _Context, columns=COLUMNS,
             cross_family=None) -> Records:
    """The CSV lines of one table; with ``cross_family`` (True or False: the rows are grouped
    by family) every line also says its family, its area in that family's unit and whether the
    table mixes families."""
    extra = [n for n in leading if n != "arch"]
    grouped = cross_family is not None
    header = ((["family", "area_unit", "area"] if grouped else [])
              + ["arch"] + extra + ["status"] + [k for k, _, _ in columns]
              + ["seeds", "fmax_min_mhz", "fmax_max_mhz", "fmax_ci_low_mhz",
                 "fmax_ci_high_mhz", "fmax_ci_coverage", "fmax_noise", "fmax_noise_p",
                 "reason", "fmax_runs", "fmax_bimodal", "stale", "older_rows"]
              + (["cross_family"] if grouped else []))

    def cells(r):
        area, unit = area_of_row(r)
        return ([family_of_row(r) or "", unit or "", area] if grouped else []) \
            + ([r.arch] + [show_value(param_value(r, n)) for n in extra] + [r.status]
               + [cell_value(r, k) for k, _, _ in columns])

    tail = [str(cross_family).lower()] if grouped else []
    noise = _noise(entries) if entries and entries[0].fmax_stat != "all" else {}
    lines = []
    for i, e in enumerate(entries):
        search = ctx.search(i)
        span = _span(e, search)
        stale, older = ctx.provenance_of(e)
        seed = _seed_keys(e, search, noise.get(i), entries)
        test = seed["fmax_noise"] or {}
        lines.append(cells(e.row) + [len(e.members), span[0], span[1]]
                     + [seed[k] for k in ("fmax_ci_low_mhz", "fmax_ci_high_mhz",
                                          "fmax_ci_coverage")]
                     + [test.get("verdict", ""), test.get("p"), ""]
                     + ([search["runs"], int(search["bimodal"])] if search else ["", ""])
                     + ["; ".join(stale), older] + tail)
    for r in failures:
        stale, older = ctx.provenance.get(r.key, ([], 0))
        lines.append(cells(r) + [1, "", "", "", "", "", "", "", _reason(r), "", "",
                                 "; ".join(stale), older] + tail)
    return Records(tuple(header), tuple(lines))


def _span(entry: TableLine, search: dict | None) -> tuple:
    if search is not None and search["contending"]:
        return search["min_mhz"], search["max_mhz"]
    return entry.fmax_range or (entry.row.fmax_mhz, entry.row.fmax_mhz)



def _seed_keys(entry: TableLine | None, search: dict | None = None, noise=None,
               entries=None) -> dict:
    """The seed statistics of a JSON object or CSV line: ``seed_count``, the median interval
    (None below 5 seeds, and for a searched point) and ``fmax_noise``."""
    spread = entry.spread if entry is not None and search is None else None
    out = {"seed_count": len(entry.members) if entry is not None else 1,
           "fmax_ci_low_mhz": spread.ci_low if spread else None,
           "fmax_ci_high_mhz": spread.ci_high if spread else None,
           "fmax_ci_coverage": spread.coverage if spread else None, "fmax_noise": None}
    if noise is not None:
        fastest, d = noise
        out["fmax_noise"] = {"against": entries[fastest].row.key, "verdict": d.verdict,
                             "p": d.p, "method": d.method}
    return out


def _json_objects(entries, failures, ctx: _Context) -> list:
    objects = []

    def family_keys(row):
        area, unit = area_of_row(row)
        count, inputs = lut_count_of(row) or (None, None)
        return {"family": family_of_row(row), "area": area, "area_unit": unit,
                "lut_count": count, "lut_inputs": inputs}

    noise = _noise(entries) if entries and entries[0].fmax_stat != "all" else {}
    for i, e in enumerate(entries):
        search = ctx.search(i)
        span = _span(e, search)
        stale, older = ctx.provenance_of(e)
        extra = {**_seed_keys(e, search, noise.get(i), entries), "seeds": e.seeds,
                 "keys": e.keys, "fmax_stat": e.fmax_stat,
                 "fmax_min_mhz": span[0], "fmax_max_mhz": span[1], "fmax_search": search,
                 "stale": stale, "older_rows": older, **family_keys(e.row)}
        objects.append({k: extra[k] if k in extra else getattr(e.row, k) for k in JSON_KEYS})
    for r in failures:
        stale, older = ctx.provenance.get(r.key, ([], 0))
        extra = {**_seed_keys(None), "seeds": [r.seed], "keys": [r.key], "fmax_stat": None,
                 "fmax_min_mhz": None,
                 "fmax_max_mhz": None, "fmax_search": None, "stale": stale, "older_rows": older,
                 **family_keys(r)}
        objects.append({k: extra[k] if k in extra else getattr(r, k) for k in JSON_KEYS})
    return objects


def cross_family_label(families) -> str:
    """The label of a report that mixes device families: which ones, in which units, and that
    their areas are not comparable as numbers."""
    names = [DEVICE_FAMILIES[f].title if f in DEVICE_FAMILIES else "unknown"
             for f in sorted(families, key=family_rank)]
    units = "; ".join(f"{DEVICE_FAMILIES[f].title}: {DEVICE_FAMILIES[f].area_column[1]}"
                      for f in sorted(families, key=family_rank) if f in DEVICE_FAMILIES)
    return (f"Cross-family comparison: {len(names)} device families ({', '.join(names)}), each "
            f"area in its own family's unit ({units}). Areas are comparable within a family, not "
            f"across: an ECP5 slice (2 LUT4 + 2 FF) is twice an iCE40 logic cell (1 LUT4 + 1 "
            f"FF), and asic gate equivalents are an estimate without place and route, in no FPGA "
            f"unit.")


def _family_group(family, members, fmax, runs, provenance, title, cross) -> tuple:
    """One family's table of a grouped report, and its JSON group."""
    entries, failures = aggregate(members, fmax)
    leading = varying_params(members, with_seed=fmax == "all")
    ctx = _Context(_searches(entries, runs), provenance or {})
    heading = family_heading(family)
    caption = ((f"{title}: " if title else "") + heading
               + ("; part of a cross-family comparison" if cross else ""))
    table = _display(entries, failures, leading, ctx, _columns(entries, family),
                     heading=heading, caption=caption, level=3)
    info = DEVICE_FAMILIES.get(family)
    notes, _ = _notes(entries, failures, leading, ctx)
    group = {"family": family, "title": info.title if info else None,
             "area_unit": info.area_column[1] if info else None,
             "unit": info.unit if info else None, "heading": heading,
             "notes": notes, "rows": _json_objects(entries, failures, ctx)}
    return table, group, entries


def _grouped(rows, title, fmax, runs, provenance) -> Report:
    """:func:`metrics_report` with ``group_by="family"``."""
    by_family: dict = {}
    for row in rows:
        by_family.setdefault(family_of_row(row), []).append(row)
    families = sorted(by_family, key=family_rank)
    cross = len(families) > 1
    label_text = cross_family_label(families) if cross else None
    tables, groups, lines = [], [], []
    for family in families:
        table, group, entries = _family_group(family, by_family[family], fmax, runs,
                                              provenance, title, cross)
        tables.append(table)
        groups.append(group)
        lines += entries
    # The CSV is one table of every line, the lines of each family together.
    entries, failures = aggregate(rows, fmax)
    entries.sort(key=lambda e: family_rank(family_of_row(e.row)))  # stable: table order
    failures.sort(key=lambda r: family_rank(family_of_row(r)))
    ctx = _Context(_searches(entries, runs), provenance or {})
    records = _records(entries, failures, varying_params(rows, with_seed=fmax == "all"), ctx,
                       _columns(entries), cross_family=cross)
    data = {"group_by": "family", "title": title, "cross_family": cross, "label": label_text,
            "groups": groups}
    blocks = ((Notes((label_text,), strong=True),) if cross else ()) + tuple(tables)
    if not families:
        blocks = (Notes(("(no verified points)",)),)
    return Report("metrics", blocks, records, data, heading=title, title=title,
                  extra={"lines": lines})


def metrics_table(rows: list[Row], title: str | None = None, fmax: str = "median",
                  runs: dict | None = None, provenance: dict | None = None, *,
                  among: list[Row] | None = None) -> Report:
    """The metrics report of ``rows`` as one table (never grouped by family); the parameters
    are those of :func:`metrics_report`. ``among``: the rows ``rows`` were chosen from, whose
    varying parameters lead the table (a front of one point still says what it is)."""
    entries, failures = aggregate(rows, fmax)
    leading = varying_params(among if among is not None else rows, with_seed=fmax == "all")
    ctx = _Context(_searches(entries, runs), provenance or {})
    columns = _columns(entries)
    table = _display(entries, failures, leading, ctx, columns, heading=title, caption=title)
    return Report("metrics", (table,), _records(entries, failures, leading, ctx, columns),
                  _json_objects(entries, failures, ctx), title=title, extra={"lines": entries})


def metrics_report(rows: list[Row], title: str | None = None, fmax: str = "median",
                   runs: dict | None = None, provenance: dict | None = None,
                   group_by: str | None = None) -> Report:
    """The metrics report of ``rows``, for any format (:mod:`aesdse.report.formats`).

    Parameters
    ----------
    rows : list of Row
        Verified and failed rows, oldest first; failed ones are listed below the table
        (Markdown, LaTeX, HTML) or carry their reason (CSV, JSON).
    title : str, optional
        Heading (Markdown, HTML) or caption (LaTeX).
    fmax : str
        How rows differing only by seed are aggregated, one of
        :data:`aesdse.report.kinds.FMAX_STATS`.
    runs : dict, optional
        Point key -> its Fmax-search runs (:meth:`aesdse.store.database.Store.pnr_runs`):
        searched points then show the spread of their runs and the bimodality flag.
    provenance : dict, optional
        Row key -> (stale reasons, older rows of its configuration)
        (:meth:`aesdse.report.select.Selection.provenance`): shown in a ``Provenance`` column.
    group_by : str, optional
        ``"family"``: one table per device family (see :func:`aesdse.report.table.render`).

    Raises
    ------
    ValueError
        For an unknown ``group_by`` or ``fmax``.
    """
    if group_by is None:
        return metrics_table(rows, title, fmax, runs, provenance)
    if group_by not in GROUP_BY:
        raise ValueError(f"Group-by must be one of {', '.join(GROUP_BY)}, not {group_by!r}")
    return _grouped(rows, title, fmax, runs, provenance)
