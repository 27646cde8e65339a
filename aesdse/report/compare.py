"""Measured versus published: each measured configuration beside the published rows it
reproduces, with ratios, notes, the area convention and the papers' own consistency flags.

Matching
--------
A published row names the aesdse configuration it corresponds to (``config``: ``arch`` plus
family parameters, :mod:`aesdse.report.published`). A measured configuration matches it when the
architecture is the same and every parameter the published row names has the same value in the
measured row; parameters the published row leaves out may take any value. A parameter the
measured family does not have (e.g. ``part: key_schedule`` for a key schedule measured alone)
never matches. Only published rows with an area, a clock or a throughput are compared; the same
design printed in two tables of one paper is shown once ("also in ...").

Area
----
Areas of different device families are compared in slice-equivalents only
(:func:`aesdse.flow.families.area`): the measured ECP5 area is ``max(ceil(LUT4/2),
ceil(FF/2))`` plus block RAM at a stated rate per Kbit (default 4, the rate of 001 Sec. 4, so 72 per 18 Kbit DP16KD;
``rate`` / ``aesdse report --bram-slices-per-kbit`` changes it), the published area is the
tool's slice count plus the paper's block RAM at the same rate. The footnote of every table states
this, per device family shown. A slice of another family is not the same amount of logic (a
Virtex-5 slice holds four LUT6), so area ratios across families are indicative, never a
verdict.

ASIC
----
A measured ``asic`` row (aesdse's gate-equivalent estimate, :mod:`aesdse.flow.asic`) is compared
only with published ASIC rows (``device_family: asic``), in gate equivalents
(:attr:`aesdse.report.published.PublishedRow.gate_equivalents`: 003's "86.2K gates" is 86,200 GE), and
the cell says ``GE``; FPGA rows are never compared with it. The estimate has no place and route,
no real library and no clock, and the published counts come from the papers' own processes, so
GE ratios are indicative too.

Ratios are measured / published.
"""

import csv
import io
import json
from dataclasses import dataclass, field

from ..flow.families import FAMILIES, SLICE_CONVENTIONS, part_of, row_area
from .published import consistency_check
from ..store.database import Row
from .table import FORMATS, TableLine, aggregate, label, number, varying_params

__all__ = ["Match", "Comparison", "compare", "render_compare", "matches_config",
           "measured_area", "published_area", "own_fabric_lines", "FAR_FACTOR"]


def _same(a, b) -> bool:
    # YAML and JSON both give bools, and True == 1 in Python: keep them apart.
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def _family(row: Row) -> str | None:
    part = part_of(row.target or "")
    return part.family if part is not None else None


def _is_asic(row: Row) -> bool:
    return _family(row) == "asic"


def _estimate_only(row: Row) -> bool:
    """A row of a family without place and route (asic, the Xilinx area targets)."""
    driver = FAMILIES.get(_family(row))
    return driver is not None and driver.pnr_tool is None


def matches_config(row: Row, config, device_family: str | None = None) -> bool:
    """Whether measured ``row`` is the configuration a published row's ``config`` names. A
    measured row of a family without place and route matches only a published row of its own
    family: an asic row only ``device_family`` ``"asic"`` (a gate count is never compared with an
    FPGA area), a Xilinx estimate (``virtex5``) only a table of that fabric."""
    if not config or config.get("arch") != row.arch:
        return False
    if _estimate_only(row) and device_family != _family(row):
        return False
    return all(k in row.params and _same(row.params[k], v)
               for k, v in config.items() if k != "arch")


def measured_area(row: Row, rate: float | None = None) -> float | None:
    """Slice-equivalents of a measured row (block RAM included, at ``rate`` per Kbit); the gate
    equivalents of an asic row (``details["asic"]["area_ge"]``)."""
    if _is_asic(row):
        return ((row.details or {}).get("asic") or {}).get("area_ge")
    return row_area(row, "slice-eq", rate)


def _value(prow, key):
    value = prow.values.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def published_area(prow, rate: float | None = None) -> float | None:
    """Slice-equivalents of a published row, or ``None`` when it has no FPGA area of a known
    family (ASIC gate counts, unknown devices)."""
    return prow.area("slice-eq", rate)


def _throughput(prow) -> float | None:
    try:
        bps = prow.throughput_bps
    except TypeError:
        return None
    return bps / 1e6 if bps else None


def _clock(prow) -> float | None:
    try:
        hz = prow.clock_hz
    except TypeError:
        return None
    return hz / 1e6 if hz else None


@dataclass(frozen=True)
class Match:
    """A measured configuration beside one published row.

    Attributes
    ----------
    entry : TableLine
        The measured configuration (seeds aggregated).
    paper, table, published
        The paper, table and row it reproduces.
    also : tuple of str
        Other tables of the paper that print the same design.
    """
    entry: TableLine
    paper: object
    table: object
    published: object
    also: tuple = ()
    rate: float | None = None

    @property
    def asic(self) -> bool:
        """A measured asic estimate beside a published ASIC gate count: areas in GE."""
        return _is_asic(self.entry.row)

    @property
    def area_unit(self) -> str:
        return "GE" if self.asic else "slice-eq."

    @property
    def measured(self) -> dict:
        """Measured area (slice-eq.), Fmax (MHz), throughput (Mbit/s), efficiency."""
        r = self.entry.row
        area = measured_area(r, self.rate)
        return {"area": area, "clock": r.fmax_mhz, "throughput": r.throughput_mbps,
                "efficiency": r.throughput_mbps / area if area and r.throughput_mbps else None}

    @property
    def published_values(self) -> dict:
        area = self.published.gate_equivalents if self.asic else \
            published_area(self.published, self.rate)
        throughput = _throughput(self.published)
        return {"area": area, "clock": _clock(self.published), "throughput": throughput,
                "efficiency": throughput / area if area and throughput else None}

    @property
    def ratios(self) -> dict:
        m, p = self.measured, self.published_values
        return {k: m[k] / p[k] if m[k] and p[k] else None for k in m}

    @property
    def device(self) -> str:
        conv = SLICE_CONVENTIONS.get(self.published.device_family)
        if conv is not None:
            return conv.description.split(":")[0]
        return self.published.device or self.table.device or "device not stated"


@dataclass
class Comparison:
    """Everything :func:`render_compare` prints.

    Attributes
    ----------
    matches : list of Match
    unmatched : list of TableLine
        Measured configurations no published row names.
    missing : list of (paper, table, row)
        Published rows of the papers shown that have numbers but no measured counterpart.
    flags : list of str
        :func:`aesdse.report.published.consistency_check` flags of the papers shown, with arithmetic.
    papers : list
        The papers shown.
    flag_rows : dict
        (paper key, row label) -> numbers (1-based) of the flags about that row.
    failures : list of Row
        Failed measured points.
    rate : float or None
        Slice-equivalents per block RAM Kbit (None: the default of :mod:`aesdse.flow.families`).
    """
    matches: list = field(default_factory=list)
    unmatched: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    flags: list = field(default_factory=list)
    papers: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    flag_rows: dict = field(default_factory=dict)
    rate: float | None = None


def _fpga_comparable(prow) -> bool:
    """A published row with something an FPGA measurement can be set beside: an FPGA area, a
    clock or a throughput (a gate count alone is not)."""
    return any(v is not None for v in (_value(prow, "slices"), _value(prow, "luts"),
                                       _clock(prow), _throughput(prow)))


def _comparable(prow) -> bool:
    return _fpga_comparable(prow) or prow.gate_equivalents is not None


def _signature(prow):
    return (json.dumps(dict(prow.config or {}), sort_keys=True),
            json.dumps({k: v for k, v in prow.values.items()
                        if k in ("slices", "luts", "brams", "clock_mhz", "throughput_mbps",
                                 "throughput_gbps")}, sort_keys=True))


def compare(rows: list[Row], papers, fmax: str = "median", *, all_papers: bool = False,
            rate: float | None = None) -> Comparison:
    """Match measured rows to the published rows of ``papers``.

    Parameters
    ----------
    rows : list of Row
    papers : list of aesdse.report.published.Paper
    fmax : str
        Seed aggregation (see :func:`aesdse.report.table.aggregate`).
    all_papers : bool
        Show flags and unmeasured rows of every paper given, not only of those with a match
        (``aesdse reproduce`` shows its one paper even before anything is measured).
    rate : float, optional
        Slice-equivalents per block RAM Kbit (default
        :data:`aesdse.flow.families.SLICES_PER_BRAM_KBIT`).
    """
    entries, failures = aggregate(rows, fmax)
    result = Comparison(failures=failures, rate=rate)
    candidates = []  # (paper, table, row, also) with duplicates folded
    for paper in papers:
        seen = {}
        for table in paper.tables:
            for prow in table.rows:
                if not prow.this_work or not prow.config or not _comparable(prow):
                    continue
                sig = _signature(prow)
                if sig in seen:
                    seen[sig][3].append(table.id)
                    continue
                seen[sig] = [paper, table, prow, []]
                candidates.append(seen[sig])
    matched_ids = set()
    for e in entries:
        found = False
        for paper, table, prow, also in candidates:
            if not _is_asic(e.row) and not _fpga_comparable(prow):
                continue
            if matches_config(e.row, prow.config, prow.device_family):
                result.matches.append(Match(e, paper, table, prow, tuple(also), rate))
                matched_ids.add(id(prow))
                found = True
        if not found:
            result.unmatched.append(e)
    shown = papers if all_papers else [p for p in papers
                                       if any(m.paper is p for m in result.matches)]
    result.papers = list(shown)
    result.missing = [(paper, table, prow) for paper, table, prow, _ in candidates
                      if paper in shown and id(prow) not in matched_ids]
    result.flags, result.flag_rows = _flags(shown)
    return result


def _flags(papers):
    """Consistency flags of ``papers``, each once: one paper often prints a design in two tables
    with the same numbers, and then the flags differ only in the table name. Returns the flag
    texts and, per (paper key, row label), the 1-based numbers of its flags."""
    texts, index, rows = [], {}, {}
    for paper in papers:
        for table in paper.tables:
            for prow in table.rows:
                for flag in consistency_check(prow):
                    body = flag[len(prow.where) + 2:] if flag.startswith(prow.where + ": ") \
                        else flag
                    key = (paper.key, prow.label, body)
                    if key in index:
                        n = index[key]
                        texts[n] = (texts[n][0], texts[n][1] + [table.id])
                    else:
                        index[key] = len(texts)
                        texts.append((flag, []))
                    rows.setdefault((paper.key, prow.label), [])
                    if index[key] + 1 not in rows[(paper.key, prow.label)]:
                        rows[(paper.key, prow.label)].append(index[key] + 1)
    flags = [text + (f" (same numbers in {', '.join(also)})" if also else "")
             for text, also in texts]
    return flags, rows


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
    families = {_family(m.entry.row) for m in c.matches}
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
    detail = ((row.details or {}).get(FAMILIES[_family(row)].details_key) or {})
    return {"slices": row.slices, "luts": detail.get("lut_count"), "brams": row.brams}


def own_fabric_lines(c: Comparison) -> list[str]:
    """The area on the paper's own fabric (a Xilinx estimate beside a table of the same
    family): published slices, LUTs and block RAMs against the measured ones, with the ratio,
    and a flag where they differ by more than :data:`FAR_FACTOR` either way (with the reason
    when the published row's note or the table's traces it; else "not traced")."""
    own = [m for m in c.matches if _estimate_only(m.entry.row) and not m.asic
           and m.published.device_family == _family(m.entry.row)]
    if not own:
        return []
    names = [n for n in varying_params([m.entry.row for m in own], with_seed=False)
             if n != "arch"] or None
    out = ["", "Area on the paper's own fabric (Yosys synth_xilinx, no place and route; slices "
               "an estimate, no packing):", "",
           "| Measured | Published | " + " | ".join(f"{h} meas. / publ." for _, h in _OWN_FABRIC)
           + " | Flag |", "|---|---|" + "---:|" * len(_OWN_FABRIC) + "---|"]
    for m in own:
        measured, cells, far, ratios = _own_fabric_values(m), [], [], 0
        for key, header in _OWN_FABRIC:
            meas, pub = measured[key], _value(m.published, key)
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
        out.append("| " + " | ".join(c.replace("|", "/") for c in [
            _measured_label(m.entry, names), f"{m.paper.key} {m.table.id}: {m.published.label}",
            *cells, flag]) + " |")
    out += ["", "Measured slices: max(ceil(LUT sites / LUTs per slice), ceil(FF / FFs per "
                "slice)) of the fabric (a lower bound of a packed count); published: the vendor "
                "tool's packed count. LUTs: every size the fabric has (LUT1..LUT6)."]
    return out


def _measured_label(e: TableLine, names) -> str:
    return label(e.row, names)


def _markdown(c: Comparison, title):
    out = [f"## {title}", ""] if title else []
    names = varying_params([m.entry.row for m in c.matches] + [e.row for e in c.unmatched],
                           with_seed=False) if (c.matches or c.unmatched) else []
    names = [n for n in names if n != "arch"] or None
    flag_numbers = _flag_numbers(c)
    if c.matches:
        headers = [_measured_header(c), "Published", _area_header(c)] \
            + [h for _, h, _ in _PAIRS[1:]] + ["Note"]
        out.append("| " + " | ".join(headers) + " |")
        out.append("|---|---|" + "---:|" * len(_PAIRS) + "---|")
        for m in c.matches:
            cells = [_measured_label(m.entry, names),
                     f"{m.paper.key} {m.table.id}: {m.published.label}"]
            cells += [_pair(m, k, s) for k, _, s in _PAIRS]
            cells.append(_notes(m, flag_numbers[id(m)]))
            out.append("| " + " | ".join(cell.replace("|", "/") for cell in cells) + " |")
        out.append("")
        out += area_footnote(c)
        out += own_fabric_lines(c)
    else:
        out.append("(no measured configuration matches a published row)")
    if c.unmatched:
        out += ["", f"Measured configurations without a published counterpart "
                    f"({len(c.unmatched)}): "
                + "; ".join(_measured_label(e, None) for e in c.unmatched[:12])
                + ("; ..." if len(c.unmatched) > 12 else "")]
    if c.missing:
        out += ["", "Published rows not measured yet:", ""]
        for paper, table, prow in c.missing:
            config = " ".join(f"{k}={v}" for k, v in prow.config.items())
            out.append(f"- {paper.key} {table.id} {prow.label}: `{config}`")
    if c.flags:
        out += ["", "Consistency flags on the published numbers (aesdse.report.published."
                    "consistency_check):", ""]
        out += [f"{i}. {flag}" for i, flag in enumerate(c.flags, 1)]
    if c.failures:
        out += ["", "Failed measured points:", ""]
        out += [f"- {label(r)}: **{r.status}**: "
                f"{r.reason.splitlines()[0] if r.reason else '(no reason recorded)'}"
                for r in c.failures]
    return "\n".join(out) + "\n"


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


def _csv(c: Comparison):
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(_FIELDS)
    for record in _records(c):
        writer.writerow([json.dumps(v, sort_keys=True) if isinstance(v, dict)
                         else "" if v is None else v for v in record.values()])
    return buf.getvalue()


def _json(c: Comparison):
    return json.dumps({"matches": list(_records(c)), "area_convention": area_footnote(c),
                       "flags": c.flags,
                       "unmatched": [{"arch": e.row.arch, "params": e.row.params}
                                     for e in c.unmatched],
                       "missing": [{"paper": p.key, "table": t.id, "row": r.label,
                                    "config": dict(r.config)} for p, t, r in c.missing]},
                      indent=2) + "\n"


def _latex(c: Comparison, title):
    from .table import latex_escape
    out = [r"\begin{table}", r"\centering"]
    if title:
        out.append(r"\caption{" + latex_escape(title) + "}")
    out += [r"\begin{tabular}{ll" + "r" * len(_PAIRS) + "}", r"\toprule",
            " & ".join([_measured_header(c), "Published", latex_escape(_area_header(c))]
                       + [latex_escape(h) for _, h, _ in _PAIRS[1:]])
            + r" \\", r"\midrule"]
    for m in c.matches:
        cells = [label(m.entry.row), f"{m.paper.key} {m.table.id}: {m.published.label}"] \
            + [_pair(m, k, s) for k, _, s in _PAIRS]
        out.append(" & ".join(latex_escape(x).replace(",", "{,}") for x in cells) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}", r"\par\smallskip\footnotesize"]
    notes = area_footnote(c) + [f"[{i}] {f}" for i, f in enumerate(c.flags, 1)]
    out += [latex_escape(n) + r"\\" for n in notes[:-1]] + [latex_escape(notes[-1])]
    out.append(r"\end{table}")
    return "\n".join(out) + "\n"


def render_compare(comparison: Comparison, fmt: str = "markdown",
                   title: str | None = None) -> str:
    """Render a :class:`Comparison` in ``fmt`` (one of :data:`aesdse.report.table.FORMATS`)."""
    if fmt == "markdown":
        return _markdown(comparison, title)
    if fmt == "csv":
        return _csv(comparison)
    if fmt == "json":
        return _json(comparison)
    if fmt == "latex":
        return _latex(comparison, title)
    raise ValueError(f"Format must be one of {', '.join(FORMATS)}, not {fmt!r}")
