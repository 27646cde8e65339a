"""Measured versus published (``aesdse report --compare published``): each measured
configuration beside the published rows it reproduces, with ratios, notes, the area convention
and the papers' own consistency flags, as a report for any format.

Which rows match, and the areas compared, are :mod:`aesdse.report.matching`'s; this module
builds the table (:func:`compare_report`). Ratios are measured / published.
"""

from ..flow.families import FAMILIES, SLICE_CONVENTIONS
from .cells import family_of_row, label, number
from .formats import render
from .kinds import TEXT_FORMATS
from .lines import TableLine, varying_params
from .matching import (Comparison, Match, compare, estimate_only, matches_config,
                       measured_area, published_area, published_value)
from .model import Column, Failure, Items, Notes, Records, Report, Table

__all__ = ["Match", "Comparison", "compare", "compare_report", "render_compare",
           "matches_config", "measured_area", "published_area", "own_fabric_table",
           "area_footnote", "ASIC_NOTE", "FAR_FACTOR"]


def _flag_numbers(comparison) -> dict:
    """Match -> numbers (1-based) of the flags about its published row."""
    return {id(m): comparison.flag_rows.get((m.paper.key, m.published.label), [])
            for m in comparison.matches}


def _notes(m: Match, flag_numbers) -> str:
    notes = [m.device]
    if m.asic:
        notes.append("measured: aesdse GE estimate without place and route")
    if m.also:
        notes.append("also in " + ", ".join(m.also))
    arch = m.published.architecture
    cpb = m.entry.row.cycles_per_block
    if arch is not None and arch.cycles_per_block is not None and cpb is not None \
            and abs(cpb - arch.cycles_per_block) > 1e-9:
        bound = "at least " if arch.cycles_per_block_is_minimum else ""
        notes.append(f"cycles/block {cpb:g} measured, {bound}{arch.cycles_per_block:g} "
                     f"described")
    noise = _clock_noise(m)
    if noise:
        notes.append(noise)
    if flag_numbers:
        notes.append("consistency flag " + ", ".join(f"[{n}]" for n in flag_numbers))
    return "; ".join(notes)


def _clock_noise(m: Match) -> str:
    """A note when the published clock lies within the measured seeds' spread (the median's
    confidence interval from 5 seeds, else min-max): the clock ratio is then within the seed
    noise (:mod:`aesdse.report.stats`)."""
    spread = m.entry.spread
    published = m.published_values["clock"]
    if spread is None or published is None or not spread.contains(published):
        return ""
    low, high = spread.interval
    what = "confidence interval of the median" if spread.ci_low is not None else "min-max"
    return (f"published clock within the seed noise (measured {what} {low:.1f}-{high:.1f} MHz, "
            f"{spread.count} seeds)")


_PAIRS = (("area", "Area (slice-eq.)", "int"), ("clock", "Fmax / clock (MHz)", "fmax"),
          ("throughput", "Throughput (Mbit/s)", "int"),
          ("efficiency", "Mbit/s per slice-eq.", "sig3"))


def _pair(m: Match, key, style) -> str:
    meas, pub, ratio = m.measured[key], m.published_values[key], m.ratios[key]
    unit = " GE" if key == "area" and m.asic else ""
    text = (f"{number(meas, style)}{unit if meas is not None else ''} / "
            f"{number(pub, style)}{unit if pub is not None else ''}")
    return text + (f" ({ratio:.2f}x)" if ratio is not None else "")


def area_footnote(comparison) -> list[str]:
    """The area convention, stated for every device family in the comparison."""
    from ..flow.families import SLICES_PER_BRAM_KBIT
    rate = SLICES_PER_BRAM_KBIT if comparison.rate is None else comparison.rate

    def bram(conv):
        return (f"{conv.bram_kbits * rate:g} per {conv.bram_name} ({conv.bram_kbits:g} Kbit x "
                f"{rate:g} slice-eq. per Kbit)")
    ecp5 = SLICE_CONVENTIONS["ecp5"]
    default = (" (001 Sec. 4: \"a 32 Kb BRAM is taken equivalent to 128 slices\")"
               if rate == SLICES_PER_BRAM_KBIT else " (set with --bram-slices-per-kbit)")
    lines = [f"Area in slice-equivalents (aesdse.flow.families.area), block RAM at {rate:g} "
             f"slice-eq. per Kbit{default}. Measured, {ecp5.description}: max(ceil(LUT4/2), "
             f"ceil(FF/2)) (perfect packing) + {bram(ecp5)}."]
    families = sorted({m.published.device_family for m in comparison.matches}
                      & set(SLICE_CONVENTIONS))
    for fam in families:
        conv = SLICE_CONVENTIONS[fam]
        # A paper that prints LUTs and flip-flops but no slices is packed perfectly, as measured.
        packed = any(m.published.device_family == fam and m.published.values.get("slices") is None
                     and m.published.values.get("luts") is not None for m in comparison.matches)
        counted = (f"the tool's slice count, else max(ceil(LUT/{conv.luts_per_slice}), "
                   f"ceil(FF/{conv.ffs_per_slice})) where only LUTs and FFs are printed"
                   if packed else "the tool's slice count")
        lines.append(f"Published, {conv.description}: {counted} + {bram(conv)}.")
    if any(m.published.device_family != "ecp5" and not m.asic for m in comparison.matches):
        lines.append("Slices of different families hold different logic (LUT4 vs LUT6): area "
                     "ratios across families are indicative only.")
    if any(m.asic for m in comparison.matches):
        lines.append(ASIC_NOTE)
    lines.append("Cells are measured / published (ratio measured/published); measured Fmax is "
                 f"the {comparison.matches[0].entry.fmax_stat if comparison.matches else 'median'}"
                 " over placer seeds, ECP5 out of context.")
    return lines


#: The footnote of a comparison with asic rows.
ASIC_NOTE = ("asic rows: areas in gate equivalents (GE, NAND2 = 1), compared only with published "
             "ASIC gate counts (kgates x 1000). Measured: aesdse's estimate without place and "
             "route (Yosys + ABC to aesdse/flow/ge.lib, ten cells, no clock); published: the "
             "papers' own processes and libraries (003: 0.13 um, timing-driven synthesis of the "
             "core without IO and FIFOs). GE ratios are indicative only.")


def _measured_header(c: Comparison) -> str:
    families = {family_of_row(m.entry.row) for m in c.matches}
    return "Measured (ECP5)" if families <= {"ecp5", None} else "Measured"


def _area_header(c: Comparison) -> str:
    if not any(m.asic for m in c.matches):
        return _PAIRS[0][1]
    if all(m.asic for m in c.matches):
        return "Area (GE)"
    return "Area (slice-eq.; GE for asic)"


#: A measured area this many times the published one, or less than its inverse, is flagged.
FAR_FACTOR = 2.0

#: Columns of the own-fabric area table: (published value key, header).
_OWN_FABRIC = (("slices", "Slices"), ("luts", "LUTs"), ("brams", "BRAM"))


def _own_fabric_values(m: Match) -> dict:
    """Measured area counts of an estimate row on the published row's own fabric: slices (the
    estimate), LUTs of every size and block RAM cells."""
    row = m.entry.row
    detail = ((row.details or {}).get(FAMILIES[family_of_row(row)].details_key) or {})
    return {"slices": row.slices, "luts": detail.get("lut_count"), "brams": row.brams}


def own_fabric_table(c: Comparison) -> tuple:
    """The area on the paper's own fabric (a Xilinx estimate beside a table of the same
    family), as blocks under the comparison: published slices, LUTs and block RAMs against the
    measured ones, with the ratio, and a flag where they differ by more than :data:`FAR_FACTOR`
    either way (with the reason when the published row's note or the table's traces it; else
    "not traced"). Empty without such a row."""
    own = [m for m in c.matches if estimate_only(m.entry.row) and not m.asic
           and m.published.device_family == family_of_row(m.entry.row)]
    if not own:
        return ()
    names = [n for n in varying_params([m.entry.row for m in own], with_seed=False)
             if n != "arch"] or None
    columns = (Column("Measured"), Column("Published")) \
        + tuple(Column(f"{h} meas. / publ.", "right") for _, h in _OWN_FABRIC) + (Column("Flag"),)
    body = []
    for m in own:
        measured, cells, far, ratios = _own_fabric_values(m), [], [], 0
        for key, header in _OWN_FABRIC:
            meas, pub = measured[key], published_value(m.published, key)
            ratio = meas / pub if meas is not None and pub else None
            cells.append(f"{number(meas, 'int')} / {number(pub, 'int')}"
                         + (f" ({ratio:.2f}x)" if ratio is not None else ""))
            ratios += ratio is not None
            if ratio is not None and not 1 / FAR_FACTOR <= ratio <= FAR_FACTOR:
                far.append(f"{header} {ratio:.2f}x")
        reason = m.published.note or m.table.note
        flag = (f"differs > {FAR_FACTOR:g}x ({', '.join(far)}); "
                + (f"published note: {reason}" if reason else "reason not traced")) if far \
            else f"within {FAR_FACTOR:g}x" if ratios else "no published area"
        body.append((_measured_label(m.entry, names),
                     f"{m.paper.key} {m.table.id}: {m.published.label}", *cells, flag))
    return (Notes(("Area on the paper's own fabric (Yosys synth_xilinx, no place and route; "
                   "slices an estimate, no packing):",), in_latex=False),
            Table(columns, tuple(body)),
            Notes(("Measured slices: max(ceil(LUT sites / LUTs per slice), ceil(FF / FFs per "
                   "slice)) of the fabric (a lower bound of a packed count); published: the "
                   "vendor tool's packed count. LUTs: every size the fabric has (LUT1..LUT6).",),
                  in_latex=False))


def _measured_label(e: TableLine, names) -> str:
    return label(e.row, names)


def _display(c: Comparison, title) -> Table:
    names = varying_params([m.entry.row for m in c.matches] + [e.row for e in c.unmatched],
                           with_seed=False) if (c.matches or c.unmatched) else []
    names = [n for n in names if n != "arch"] or None
    flag_numbers = _flag_numbers(c)
    columns = (Column(_measured_header(c)), Column("Published"),
               Column(_area_header(c), "right")) \
        + tuple(Column(h, "right") for _, h, _ in _PAIRS[1:]) + (Column("Note", in_latex=False),)
    body = tuple((_measured_label(m.entry, names),
                  f"{m.paper.key} {m.table.id}: {m.published.label}",
                  *[_pair(m, k, s) for k, _, s in _PAIRS], _notes(m, flag_numbers[id(m)]))
                 for m in c.matches)
    after = ((Notes(tuple(area_footnote(c))),) + own_fabric_table(c)) if c.matches else ()
    if c.unmatched:
        after += (Notes((f"Measured configurations without a published counterpart "
                         f"({len(c.unmatched)}): "
                         + "; ".join(_measured_label(e, None) for e in c.unmatched[:12])
                         + ("; ..." if len(c.unmatched) > 12 else ""),), in_latex=False),)
    if c.missing:
        after += (Items("Published rows not measured yet:", tuple(
            f"{paper.key} {table.id} {prow.label}: `"
            + " ".join(f"{k}={v}" for k, v in prow.config.items()) + "`"
            for paper, table, prow in c.missing)),)
    if c.flags:
        after += (Items("Consistency flags on the published numbers (aesdse.report.published."
                        "consistency_check):", tuple(c.flags), numbered=True, in_latex=True),)
    if c.failures:
        after += (Items("Failed measured points:", tuple(
            Failure(label(r), r.status,
                    r.reason.splitlines()[0] if r.reason else "(no reason recorded)")
            for r in c.failures)),)
    latex_body = tuple((label(m.entry.row),) + cells[1:] for m, cells in zip(c.matches, body))
    return Table(columns, body, heading=title, caption=title,
                 empty="(no measured configuration matches a published row)", after=after,
                 keys=tuple(m.entry.row.key for m in c.matches), latex_body=latex_body)


_FIELDS = ("arch", "params", "target", "area_unit", "paper", "table", "published_row", "device", "measured_area",
           "published_area", "area_ratio", "measured_clock_mhz", "published_clock_mhz",
           "clock_ratio", "measured_throughput_mbps", "published_throughput_mbps",
           "throughput_ratio", "measured_efficiency", "published_efficiency",
           "efficiency_ratio", "seeds", "note", "measured_clock_min_mhz",
           "measured_clock_max_mhz", "measured_clock_ci_low_mhz", "measured_clock_ci_high_mhz")


def _records(c: Comparison):
    flag_numbers = _flag_numbers(c)
    for m in c.matches:
        meas, pub, ratio = m.measured, m.published_values, m.ratios
        record = {"arch": m.entry.row.arch, "params": m.entry.row.params,
                  "target": m.entry.row.target, "area_unit": m.area_unit, "paper": m.paper.key,
                  "table": m.table.id, "published_row": m.published.label, "device": m.device,
                  "seeds": len(m.entry.members), "note": _notes(m, flag_numbers[id(m)])}
        spread = m.entry.spread
        record.update({"measured_clock_min_mhz": spread.low if spread else None,
                       "measured_clock_max_mhz": spread.high if spread else None,
                       "measured_clock_ci_low_mhz": spread.ci_low if spread else None,
                       "measured_clock_ci_high_mhz": spread.ci_high if spread else None})
        for key, name in (("area", "area"), ("clock", "clock_mhz"),
                          ("throughput", "throughput_mbps"), ("efficiency", "efficiency")):
            record[f"measured_{name}"] = meas[key]
            record[f"published_{name}"] = pub[key]
            record[f"{key}_ratio"] = ratio[key]
        yield {k: record[k] for k in _FIELDS}


def _json(c: Comparison) -> dict:
    return {"matches": list(_records(c)), "area_convention": area_footnote(c),
                       "flags": c.flags,
                       "unmatched": [{"arch": e.row.arch, "params": e.row.params}
                                     for e in c.unmatched],
                       "missing": [{"paper": p.key, "table": t.id, "row": r.label,
                                    "config": dict(r.config)} for p, t, r in c.missing]}


def compare_report(comparison: Comparison, title: str | None = None) -> Report:
    """A :class:`Comparison` (:func:`aesdse.report.matching.compare`) as a report for any
    format. LaTeX has the comparison table with its area convention and the consistency flags
    (``[n]``, as the notes cite them); the lists of unmatched, missing and failed points and the
    own-fabric table are in Markdown and HTML."""
    records = Records(_FIELDS, tuple(tuple(r.values()) for r in _records(comparison)))
    return Report("compare", (_display(comparison, title),), records, _json(comparison),
                  title=title)


def render_compare(comparison: Comparison, fmt: str = "markdown",
                   title: str | None = None) -> str:
    """Render a :class:`Comparison` in ``fmt`` (one of :data:`aesdse.report.kinds.TEXT_FORMATS`)."""
    if fmt not in TEXT_FORMATS:
        raise ValueError(f"Format must be one of {', '.join(TEXT_FORMATS)}, not {fmt!r}")
    return render(compare_report(comparison, title), fmt)
