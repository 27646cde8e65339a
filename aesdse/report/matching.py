"""Measured versus published: which published rows each measured configuration reproduces,
with the measured and published numbers side by side and their ratios
(:func:`compare`, printed by :mod:`aesdse.report.compare`).

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

import json
from dataclasses import dataclass, field

from ..flow.families import FAMILIES, SLICE_CONVENTIONS, part_of, row_area
from .published import consistency_check
from ..store.database import Row
from .lines import TableLine, aggregate

__all__ = ["Match", "Comparison", "compare", "matches_config", "measured_area",
           "published_area", "published_value", "estimate_only"]


def _same(a, b) -> bool:
    # YAML and JSON both give bools, and True == 1 in Python: keep them apart.
    return a == b and isinstance(a, bool) == isinstance(b, bool)


def _family(row: Row) -> str | None:
    part = part_of(row.target or "")
    return part.family if part is not None else None


def _is_asic(row: Row) -> bool:
    return _family(row) == "asic"


def estimate_only(row: Row) -> bool:
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
    if estimate_only(row) and device_family != _family(row):
        return False
    return all(k in row.params and _same(row.params[k], v)
               for k, v in config.items() if k != "arch")


def measured_area(row: Row, rate: float | None = None) -> float | None:
    """Slice-equivalents of a measured row (block RAM included, at ``rate`` per Kbit); the gate
    equivalents of an asic row (``details["asic"]["area_ge"]``)."""
    if _is_asic(row):
        return ((row.details or {}).get("asic") or {}).get("area_ge")
    return row_area(row, "slice-eq", rate)


def published_value(prow, key):
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
    return any(v is not None for v in (published_value(prow, "slices"),
                                       published_value(prow, "luts"),
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
