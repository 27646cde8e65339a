"""The records table (issues 15 and 22) and the Pareto figure, regenerated from a results database.

For each class (fully pipelined, several pipelines on one chip, iterative with and without block
RAM, double-pumped T-box, multimode, GCM pipelined, compact and balanced, compact 8-bit, S-box
alone) the best verified design point in the database on one device (default the LFE5U-85F of
the issues), beside the figures before this round and the class's target, and whether the
target is met; a record that misses its target shows the measured gap ("no: needs 1.22x the
throughput"). Seeds of one configuration are aggregated by median Fmax
(:func:`aesdse.report.table.aggregate`), as the issue asks ("3 placer seeds, median"); the table
says how many seeds each record has and their Fmax spread. Nothing is typed in but the references
and the targets: a record is whatever the database holds.

Seeds and verdicts
------------------
A placer seed's Fmax is one draw from a population, so a verdict that depends on the Fmax (the
target is met at some Fmax of the record's seeds and missed at another) is decided on at least
:data:`aesdse.report.stats.MIN_SEEDS_INTERVAL` (5) seeds. With fewer, a met target reads
"yes (3 seeds; >= 5 needed to decide)", and a missed one that a seed did meet says so
("no: ... (3 seeds, the target within their range; >= 5 needed to decide)"). With 5 or more,
the verdict adds "within noise of the target" when the target lies within the median's
distribution-free confidence interval (:func:`aesdse.report.stats.seed_spread`). A verdict
that does not depend on the Fmax (an area target) is plain whatever the seeds.

    python bench/records.py                          # results/aesdse.sqlite, Markdown on stdout
    python bench/records.py --db other.sqlite --figure docs/pareto_all.png
    python bench/records.py --reference results/reference   # the shipped reference results

Rows come from ``--reference`` files (exported by ``aesdse db export``; a directory stands for
its ``*.jsonl``) when given, else from ``--db``; without either, from results/aesdse.sqlite when it
exists, else from the checkout's results/reference/ (a fresh clone).

The figure is :func:`aesdse.report.plot.pareto_figure` over every verified cipher of the device, in
slice-equivalents (block RAM converted by the documented convention,
:data:`aesdse.flow.families.SLICES_PER_BRAM_KBIT`, overridable with ``--bram-slices-per-kbit``).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from aesdse.flow.critical_path import in_instance
from aesdse.report.plot import pareto_figure, save
from aesdse.report.published import find_paper
from aesdse.fingerprint import current_checkout
from aesdse.report.select import select_rows
from aesdse.spec.schema import flow_choices
from aesdse.report.stats import (MIN_SEEDS_INTERVAL, SeedSpread, seed_spread, spread_note,
                                 spread_text)
from aesdse.report.table import aggregate, scaled
from aesdse.store.database import Row, Store, StoreError
from aesdse.store.exchange import open_reference, reference_files

__all__ = ["RecordClass", "ClassBest", "CLASSES", "records", "records_markdown", "open_rows",
           "main"]

#: The reference results of this checkout (what a fresh clone reads).
REFERENCE_DIR = Path(__file__).resolve().parent.parent / "results" / "reference"
DEFAULT_DB = "results/aesdse.sqlite"

#: Where the "before" numbers and targets come from.
REFERENCE_SOURCE = ("before: the records of the previous round (issues 15 and 22), measured on "
                    "LFE5U-85F-8 with yowasp Yosys 0.70 + nextpnr-ecp5 0.11; published: "
                    "Reyhani-Masoleh et al. 2018, Boyar-Peralta 2012")


@dataclass(frozen=True)
class RecordClass:
    """One row of the records table.

    Attributes
    ----------
    name : str
    member : callable
        ``member(row) -> bool``: the row belongs to the class.
    score : callable
        ``score(row) -> number``: higher is better (the record is the member with the highest).
    measure : callable
        ``measure(row) -> str``: the record's figure as the table prints it.
    met : callable
        ``met(row, rows) -> bool``: the record meets the class's target; ``rows`` are every
        verified row on the device (seeds aggregated), for targets relative to another core.
    target : str
    reference : str
        The best figures before this round (the issue's table), with their source.
    gap : callable or None
        ``gap(row, rows) -> str``: how far a record that misses its target is from it,
        measured (the table prints it beside "no").
    every_seed : bool
        The target is a property of each routed result, not of the Fmax (where the worst path
        lies): it must hold on the row of every placer seed, not only on the median seed's.
    """
    name: str
    member: Callable[[Row], bool]
    score: Callable[[Row], float]
    measure: Callable[[Row], str]
    met: Callable[[Row, list], bool]
    target: str
    reference: str
    gap: Callable[[Row, list], str] | None = None
    every_seed: bool = False


def _p(row: Row, name: str, default=None):
    return (row.params or {}).get(name, default)


def _fully_pipelined(row: Row) -> bool:
    rounds = {128: 10, 192: 12, 256: 14}[_p(row, "key_bits", 128)]
    return row.arch == "unrolled" and _p(row, "round_units") == rounds


def _lanes(row: Row) -> int:
    """Copies of the core on the chip: behind one port (``lanes``) or side by side behind a
    wide port (``parallel_lanes``, archs.lanes.ParallelLanes)."""
    return int(_p(row, "lanes", 1) or 1) * int(_p(row, "parallel_lanes", 1) or 1)


def _iterative(row: Row) -> bool:
    """A core of one pipeline (no lanes) finishing a block in at most Nr + 1 cycles that does
    not pipeline every round."""
    return (row.arch in ("iterative", "tbox", "multimode", "unrolled")
            and not _fully_pipelined(row) and _lanes(row) == 1
            and row.cycles_per_block is not None and row.cycles_per_block <= 11)


def _iterative_score(row: Row):
    return ((1, row.throughput_mbps) if row.luts <= 3000
            else (0, row.throughput_mbps / row.luts))


def _gbps(row: Row) -> str:
    return (f"{row.throughput_mbps / 1000:.1f} Gbit/s at {row.fmax_mhz:.1f} MHz, "
            f"{row.luts:,} LUT4, {row.brams or 0} BRAM")


def _mbps(row: Row) -> str:
    return (f"{row.throughput_mbps:,.0f} Mbit/s at {row.fmax_mhz:.1f} MHz, {row.luts:,} LUT4, "
            f"{row.brams or 0} BRAM")


def _area(row: Row) -> str:
    return f"{row.luts:,} LUT4, {row.brams or 0} BRAM, {row.fmax_mhz:.1f} MHz"


def _per_lut(row: Row) -> float:
    return row.throughput_mbps / row.luts


def _per_bram(row: Row) -> float:
    return row.throughput_mbps / row.brams if row.brams else 0.0


def _gcm_worst_path(row: Row) -> tuple[dict, dict] | tuple[None, None]:
    """The worst path of a GCM row's routed report (the longest of its clocks) and the GHASH
    accumulator's share of it (``details["instances"]["ghash"]["paths"]``, same order)."""
    details = row.details or {}
    paths = details.get("critical_paths") or []
    shares = ((details.get("instances") or {}).get("ghash") or {}).get("paths") or []
    if not paths or len(shares) != len(paths):
        return None, None
    worst = max(range(len(paths)), key=lambda i: paths[i].get("total_ns") or 0.0)
    return paths[worst], shares[worst]


def _gcm_ghash_limit(row: Row) -> str | None:
    """Why the GHASH accumulator limits a GCM row's throughput, from the row's measurements;
    None when it does not.

    Cycles: the accumulator alone (AAD blocks, ``details["gcm"]``) must be faster than the
    payload, whose blocks pass the cipher and GHASH, so the payload's cycles per block are the
    cipher's. Clock: the worst path of the routed report (of the seed whose Fmax the row shows)
    must start and end in the cipher instance (:func:`_in_cipher`) with no GHASH cell on it, so
    no multiplier path is longer than the cipher's worst path.
    """
    rates = (row.details or {}).get("gcm") or {}
    aad, payload = rates.get("aad_bytes_per_cycle"), rates.get("payload_bytes_per_cycle")
    if not aad or not payload:
        return "no GHASH rate measured"
    if aad <= payload * (1 + 1e-9):
        return (f"GHASH sets the cycles: {16 / aad:.1f} cycles per AAD block, "
                f"{16 / payload:.1f} per payload block")
    path, share = _gcm_worst_path(row)
    if path is None:
        return "no critical-path breakdown stored"
    if share["levels"] or share["ns"]:
        return (f"GHASH on the worst path: {share['levels']} of {share['total_levels']} "
                f"levels, {share['ns']:.2f} of {share['total_ns']:.2f} ns")
    ends = [path["start_cell"], path["end_cell"]]
    if not _in_cipher(row, path, ends):
        return f"worst path not the cipher's: {ends[0]} -> {ends[1]}"
    return None


def _in_cipher(row: Row, path: dict, ends: list) -> bool:
    """Whether the worst path ``path`` starts and ends in the cipher instance: by the hierarchy
    (``details["instances"]["cipher"]``, rows measured since the cipher's breakdown is
    recorded), else by the cells' names (older rows)."""
    details = row.details or {}
    paths = details.get("critical_paths") or []
    shares = ((details.get("instances") or {}).get("cipher") or {}).get("paths") or []
    if len(shares) == len(paths) and path in paths and "starts_inside" in shares[0]:
        share = shares[paths.index(path)]
        return bool(share["starts_inside"] and share["ends_inside"])
    return all(in_instance(cell, "cipher") for cell in ends)


def _gcm_balanced(row: Row) -> str:
    text = _mbps(row)
    rates = (row.details or {}).get("gcm") or {}
    path, share = _gcm_worst_path(row)
    if rates.get("aad_bytes_per_cycle") and rates.get("payload_bytes_per_cycle"):
        text += (f"; GHASH {16 / rates['aad_bytes_per_cycle']:.0f} / payload "
                 f"{16 / rates['payload_bytes_per_cycle']:.0f} cycles per block")
    if path is not None:
        text += (f"; worst path {path['start_cell'].split('.')[0]} -> "
                 f"{path['end_cell'].split('.')[0]}, {path['logic_levels']} levels, "
                 f"{share['levels']} in GHASH")
    return text


def _published_gcm_large() -> str:
    """The one-block-per-cycle row of reference 201 (Berghella's open AES-GCM core, AES-128,
    size L), read from its published file."""
    row = find_paper("201").table("Implementation results").row("test-3")
    v = row.values
    return (f"Berghella's open core: {v['throughput_mbps'] / 1000:g} Gbit/s at "
            f"{v['clock_mhz']:g} MHz, {v['luts']:,} LUT6 (Kintex UltraScale; reference 201)")


def _short_of(value: float, target: float, what: str) -> str:
    """A gap as the factor still missing: ``needs 1.22x (32.7 of 40 Gbit/s)``."""
    return f"needs {target / value:.2f}x the {what}" if value > 0 else f"no {what}"


def _single_pumped_tbox(row: Row) -> bool:
    return (row.arch == "tbox" and _p(row, "bram_pumping", 1) == 1
            and _p(row, "datapath_width", 128) == 128 and _lanes(row) == 1 and bool(row.brams))


def _tbox_baseline(rows: list) -> float:
    """Mbit/s per DP16KD of the best single-pumped 128-bit T-box core among ``rows``."""
    return max((_per_bram(r) for r in rows if _single_pumped_tbox(r)), default=0.0)


def _tbox_met(row: Row, rows: list) -> bool:
    base = _tbox_baseline(rows)
    return bool(base) and _per_bram(row) >= 1.6 * base and row.brams <= 4


def _tbox_gap(row: Row, rows: list) -> str:
    base = _tbox_baseline(rows)
    parts = [] if row.brams <= 4 else [f"{row.brams} DP16KD, 4 wanted"]
    if not base:
        parts.append("no single-pumped core to compare with")
    elif _per_bram(row) < 1.6 * base:
        parts.append(f"{_per_bram(row):,.0f} Mbit/s per DP16KD against 1.6 x {base:,.0f}: "
                     + _short_of(_per_bram(row), 1.6 * base, "Mbit/s per DP16KD"))
    return "; ".join(parts)


def _iterative_class(name: str, member: Callable[[Row], bool], target: str) -> RecordClass:
    """The iterative class with block RAM (issue 15): the budget decides (the fastest core
    within 3,000 LUT4, else the most efficient), the target is 2.5 Gbit/s within that budget."""
    return RecordClass(
        name, member=member, score=_iterative_score, measure=_mbps,
        met=lambda r, _: r.throughput_mbps >= 2500 and r.luts <= 3000, target=target,
        reference="aesdse 1.35 Gbit/s, 4,000 LUT4; open iterative core 1.04 Gbit/s, 4,530 LUT4",
        gap=lambda r, _: _short_of(r.throughput_mbps, 2500, "throughput"))


def _bits_per_cycle(row: Row) -> float:
    return 128 / row.cycles_per_block if row.cycles_per_block else 0.0


def _leakage_check(row: Row) -> dict:
    """The row's leakage check, ``details["leakage"]`` = ``{verdict, traces}``; empty when it
    has none (no row has a leakage stage yet: issue 49 item 3)."""
    return (row.details or {}).get("leakage") or {}


def _leakage(row: Row) -> str | None:
    """The row's leakage verdict (``pass`` or ``fail ...``) when it was checked with at least a
    million traces; None otherwise."""
    check = _leakage_check(row)
    return check.get("verdict") if (check.get("traces") or 0) >= 1_000_000 else None


def _masked_measure(row: Row) -> str:
    random_bits = ((row.details or {}).get("randomness") or {}).get("per_block")
    return (f"{row.luts:,} LUT4, {row.brams or 0} BRAM, {_bits_per_cycle(row):.2f} bit/cycle "
            f"({row.throughput_mbps:,.0f} Mbit/s at {row.fmax_mhz:.1f} MHz)"
            + (f", {random_bits:,.0f} random bits/block" if random_bits else "")
            + f"; leakage: {_leakage(row) or 'not checked'}")


def _masked_met(row: Row, _rows=None) -> bool:
    return row.luts <= 3000 and _bits_per_cycle(row) >= 1.5 and _leakage(row) == "pass"


def _masked_gap(row: Row, _rows=None) -> str:
    parts = [] if row.luts <= 3000 else [f"{row.luts - 3000:,} LUT4 over 3,000"]
    if _bits_per_cycle(row) < 1.5:
        parts.append(_short_of(_bits_per_cycle(row), 1.5, "bits per cycle"))
    verdict = _leakage(row)
    traces = _leakage_check(row).get("traces")
    if verdict is None and traces:
        parts.append(f"leakage checked on {traces:,} traces, >= 1,000,000 needed")
    elif verdict is None:
        parts.append("leakage not checked (no leakage stage yet)")
    elif verdict != "pass":
        parts.append(f"leakage: {verdict}")
    return "; ".join(parts)


def _compact_met(row: Row, _rows=None) -> bool:
    return (not row.brams and row.luts <= 250) or (row.brams <= 1 and row.luts <= 150)


#: The classes of issues 15, 22, 24 and 49, with the figures before this round and the targets.
CLASSES = (
    RecordClass(
        "fully pipelined, one pipeline",
        member=lambda r: _fully_pipelined(r) and _lanes(r) == 1,
        score=lambda r: r.throughput_mbps,
        measure=_gbps,
        met=lambda r, _: r.throughput_mbps >= 40_000,
        target=">= 40 Gbit/s (312.5 MHz)",
        reference="32.7 Gbit/s (255.5 MHz), 21,489 LUT4",
        gap=lambda r, _: _short_of(r.throughput_mbps, 40_000, "throughput")),
    RecordClass(
        "one chip, several pipelines",
        member=lambda r: _lanes(r) > 1,
        score=lambda r: r.throughput_mbps,
        measure=_gbps,
        met=lambda r, _: r.throughput_mbps >= 75_000,
        target=">= 75 Gbit/s on one LFE5U-85F (3 lanes)",
        reference="52.7 Gbit/s (2 lanes)",
        gap=lambda r, _: _short_of(r.throughput_mbps, 75_000, "throughput")),
    # Cores that finish a block in at most Nr + 1 cycles but do not pipeline every round;
    # block RAM allowed (T-boxes in block RAM, seed 001) and shown in the measure. The row
    # after it is the same class without block RAM.
    _iterative_class("iterative (one round per clock or better)", _iterative,
                     ">= 2.5 Gbit/s at <= 3,000 LUT4"),
    RecordClass(
        "iterative, no block RAM",
        member=lambda r: _iterative(r) and not r.brams,
        score=lambda r: (r.throughput_mbps >= 2500, _per_lut(r)),
        measure=lambda r: f"{_mbps(r)} ({_per_lut(r):.2f} Mbit/s per LUT4)",
        met=lambda r, _: r.throughput_mbps >= 2500 and _per_lut(r) >= 1.3,
        target=">= 1.3 Mbit/s per LUT4 at >= 2.5 Gbit/s, 0 BRAM",
        reference="2,630 Mbit/s at 2,644 LUT4 (0.99 Mbit/s per LUT4)",
        gap=lambda r, _: "; ".join(
            ([] if r.throughput_mbps >= 2500 else
             [_short_of(r.throughput_mbps, 2500, "throughput")])
            + ([] if _per_lut(r) >= 1.3 else [_short_of(_per_lut(r), 1.3, "Mbit/s per LUT4")]))),
    RecordClass(
        "T-box double-pumped, 128-bit, enc+dec",
        member=lambda r: (r.arch == "tbox" and _p(r, "bram_pumping") == 2
                          and _p(r, "datapath_width", 128) == 128 and _lanes(r) == 1),
        score=_per_bram,
        measure=lambda r: f"{_mbps(r)} ({_per_bram(r):,.0f} Mbit/s per DP16KD)",
        met=_tbox_met,
        target=">= 1.6x the Mbit/s per DP16KD of the single-pumped core, in 4 DP16KD",
        reference="637 Mbit/s, 8 DP16KD",
        gap=_tbox_gap),
    RecordClass(
        "multimode, CCM included, 128-bit key, one stream",
        member=lambda r: (r.arch == "multimode" and _p(r, "key_bits", 128) == 128
                          and _p(r, "streams", 1) == 1 and _lanes(r) == 1),
        score=lambda r: r.throughput_mbps,
        measure=_mbps,
        met=lambda r, _: r.fmax_mhz >= 120 and r.throughput_mbps >= 1400,
        target=">= 120 MHz, >= 1.4 Gbit/s (ECB/CTR, one stream)",
        reference="58.9 MHz, 686 Mbit/s",
        gap=lambda r, _: _short_of(r.fmax_mhz, 120, "clock")),
    RecordClass(
        "GCM fully pipelined (encrypt + tag, one block per cycle)",
        # One block per cycle, measured: a multiplier that cannot keep up (a 64-bit digit, too
        # little aggregation) makes a fully pipelined cipher's GCM a two-cycle core.
        member=lambda r: (r.arch == "gcm_unrolled" and _lanes(r) == 1
                          and r.cycles_per_block is not None and r.cycles_per_block <= 1),
        score=lambda r: r.throughput_mbps,
        measure=_gbps,
        met=lambda r, _: r.throughput_mbps >= 30_000,
        target=">= 30 Gbit/s on one LFE5U-85F",
        reference="Lemsitzer et al. 2007: 15.3 Gbit/s (Virtex-4); Zhou et al. 2009: > 30 Gbit/s "
                  "(Virtex); " + _published_gcm_large(),
        gap=lambda r, _: _short_of(r.throughput_mbps, 30_000, "throughput")),
    RecordClass(
        "GCM compact (iterative or compact AES, digit-serial GHASH)",
        member=lambda r: (r.arch in ("gcm_iterative", "gcm_compact")
                          and _p(r, "ghash") in ("digit_serial", "bit_serial")),
        score=lambda r: (r.luts <= 3000, r.throughput_mbps if r.luts <= 3000 else -r.luts),
        measure=_mbps,
        met=lambda r, _: r.luts <= 3000 and r.throughput_mbps >= 1000,
        target=">= 1 Gbit/s in <= 3,000 LUT4",
        reference="none before aesdse (issue 24)",
        gap=lambda r, _: "; ".join(
            ([] if r.luts <= 3000 else [f"{r.luts - 3000:,} LUT4 over 3,000"])
            + ([] if r.throughput_mbps >= 1000 else
               [_short_of(r.throughput_mbps, 1000, "throughput")]))),
    RecordClass(
        "GCM whose GHASH never limits throughput",
        member=lambda r: r.arch.startswith("gcm_"),
        score=lambda r: (_gcm_ghash_limit(r) is None, r.throughput_mbps),
        measure=_gcm_balanced,
        met=lambda r, _: _gcm_ghash_limit(r) is None,
        target="the multiplier no slower than the cipher: fewer cycles per block, and the "
               "worst routed path the cipher's, none of it in GHASH",
        reference="none before aesdse (issue 24)",
        gap=lambda r, _: _gcm_ghash_limit(r), every_seed=True),
    RecordClass(
        "compact 8-bit, with key schedule",
        member=lambda r: r.arch == "compact" and _p(r, "datapath_width") == 8,
        score=lambda r: (_compact_met(r), -r.luts),
        measure=_area,
        met=_compact_met,
        target="<= 250 LUT4 with 0 BRAM, or <= 150 LUT4 with 1 DP16KD",
        reference="348 LUT4, 0 BRAM",
        gap=lambda r, _: (f"{r.luts - 250:,} LUT4 over 250" if not r.brams else
                          f"{r.luts - 150:,} LUT4 over 150" if r.brams <= 1 else
                          f"{r.brams} BRAM, at most 1 allowed")),
    RecordClass(
        # Issue 49: the smallest first-order masked core at 1.5 bit/cycle or more (SMAesH's
        # rate at d = 2), and it must pass the leakage checks.
        "masked AES-128, first order",
        member=lambda r: r.arch == "masked" and _p(r, "masking_order", 1) == 1,
        score=lambda r: (_bits_per_cycle(r) >= 1.5, -r.luts),
        measure=_masked_measure,
        met=_masked_met,
        target="<= 3,000 LUT4 (BRAM allowed) at >= 1.5 bit/cycle, leakage checks passed at "
               ">= 1M traces",
        reference="SMAesH (d = 2, 32-bit datapath): 2,701 LUT6, 3,089 FF, 86 cycles per "
                  "block (1.49 bit/cycle), Artix-7",
        gap=_masked_gap),
    RecordClass(
        "S-box alone (encryption)",
        member=lambda r: (r.arch == "sbox" and _p(r, "sbox") != "bram"
                          and _p(r, "direction", "encrypt") == "encrypt" and not r.brams),
        score=lambda r: -r.luts,
        measure=_area,
        met=lambda r, _: r.luts <= 55 and bool((r.flow or {}).get("nowidelut")),
        target="<= 55 LUT4 (ECP5 -nowidelut)",
        reference="aesdse tower 64 LUT4; Reyhani-Masoleh 2018 61 LUT4 (-nowidelut)"),
    RecordClass(
        "S-box alone (enc/dec combined)",
        member=lambda r: (r.arch == "sbox" and _p(r, "sbox") != "bram"
                          and _p(r, "direction") == "shared" and not r.brams),
        score=lambda r: -r.luts,
        measure=_area,
        met=lambda r, _: r.luts <= 80 and bool((r.flow or {}).get("nowidelut")),
        target="<= 80 LUT4 (ECP5 -nowidelut)",
        reference="aesdse tower 104 LUT4 (synthesis); Reyhani-Masoleh ARITH 2018 combined"),
)


@dataclass(frozen=True)
class ClassBest:
    """The best member of a class in the database, or ``None`` (``row``) when it has none."""
    cls: RecordClass
    row: Row | None
    seeds: int = 0
    #: Every verified row on the device (seeds aggregated): the peers of relative targets.
    peers: tuple = ()
    #: The record's Fmax over its seeds (MHz), one per seed.
    fmax_values: tuple = ()
    #: The record's rows, one per seed.
    members: tuple = ()

    def _failing_seeds(self) -> list:
        """The seed rows on which an every-seed target fails (empty for other classes)."""
        if not self.cls.every_seed:
            return []
        return [m for m in self.members if not self.cls.met(m, list(self.peers))]

    @property
    def spread(self) -> SeedSpread | None:
        """Median, min-max and (from 5 seeds) the median interval of the record's Fmax."""
        return seed_spread(list(self.fmax_values))

    def _met_at(self, fmax: float) -> bool:
        return self.cls.met(scaled(self.row, fmax), list(self.peers))

    def _within(self, low: float, high: float) -> bool:
        """Whether the target lies between Fmax ``low`` and ``high``: met at one, not the other."""
        return self._met_at(low) != self._met_at(high)

    @property
    def fmax_decides(self) -> bool:
        """Whether the verdict depends on the Fmax at all (an area target does not): met at a
        thousandth of the record's Fmax and at a thousand times it differ."""
        if self.row is None or not self.row.fmax_mhz:
            return False
        return self._within(self.row.fmax_mhz / 1000, self.row.fmax_mhz * 1000)

    def _qualifier(self) -> str:
        """What the seeds add to the verdict (see the module docstring); empty when nothing."""
        spread = self.spread
        if spread is None or not self.fmax_decides:
            return ""
        if spread.count < MIN_SEEDS_INTERVAL:
            if self.met:
                return f" ({spread.count} seed{'s' * (spread.count > 1)}; " \
                       f">= {MIN_SEEDS_INTERVAL} needed to decide)"
            if spread.count > 1 and self._within(spread.low, spread.high):
                return f" ({spread.count} seeds, the target within their range; " \
                       f">= {MIN_SEEDS_INTERVAL} needed to decide)"
            return ""
        return ", within noise of the target" if self._within(*spread.interval) else ""

    @property
    def met(self) -> bool:
        return (self.row is not None and self.cls.met(self.row, list(self.peers))
                and not self._failing_seeds())

    @property
    def verdict(self) -> str:
        """``yes``, or ``no`` with the measured gap to the target, qualified by the seeds
        where the Fmax decides (see the module docstring)."""
        if self.met:
            if self.cls.every_seed and len(self.members) > 1:
                return f"yes (on each of {len(self.members)} seeds)" + self._qualifier()
            return "yes" + self._qualifier()
        if self.row is None or self.cls.gap is None:
            return "no" + (self._qualifier() if self.row is not None else "")
        failing = self._failing_seeds()
        if failing and self.cls.met(self.row, list(self.peers)):
            first = failing[0]
            gap = self.cls.gap(first, list(self.peers))
            return (f"no: seed {first.seed}: {gap} ({len(failing)} of {len(self.members)} "
                    f"seeds fail)")
        gap = self.cls.gap(self.row, list(self.peers))
        return (f"no: {gap}" if gap else "no") + self._qualifier()


def records(rows: list[Row], device: str = "LFE5U-85F") -> list[ClassBest]:
    """The record of every class among the verified ``rows`` on ``device`` (a device name: every
    package and speed grade), seeds aggregated by median Fmax."""
    on_device = [r for r in rows if r.target == device or r.target.startswith(f"{device}-")]
    entries, _ = aggregate(on_device, "median")
    peers = tuple(e.row for e in entries)
    result = []
    for cls in CLASSES:
        members = [e for e in entries if cls.member(e.row)]
        # An every-seed class ranks a configuration by its worst seed.
        best = max(members, key=lambda e: min(cls.score(m) for m in e.members or [e.row])
                   if cls.every_seed else cls.score(e.row), default=None)
        result.append(ClassBest(cls, best.row if best else None,
                                len(best.members) if best else 0, peers,
                                tuple(r.fmax_mhz for r in best.members
                                      if r.fmax_mhz is not None) if best else (),
                                tuple(best.members) if best else ()))
    return result


def _describe(row: Row) -> str:
    params = ", ".join(f"{k}={v}" for k, v in sorted((row.params or {}).items()))
    # The synthesis switches that are on, and the place-and-route choices away from nextpnr's
    # defaults (a floorplan): what a user needs besides the parameters to measure it again.
    return f"`{row.arch}` {params}" + flow_choices(row.flow or {})


def _fmax_cell(rec: ClassBest) -> str:
    """Median Fmax over the record's seeds with its spread: ``314.1 (250.0-323.0)``."""
    spread = rec.spread
    return "-" if spread is None else f"{spread.median:.1f}{spread_text(spread)}"


def records_markdown(recs: list[ClassBest], device: str = "LFE5U-85F") -> str:
    """The records table in Markdown, with its sources."""
    lines = [f"| class | best verified point ({device}) | measured | seeds | Fmax over seeds "
             "(MHz) | before | target | met |",
             "|---|---|---|---|---|---|---|---|"]
    for rec in recs:
        if rec.row is None:
            lines.append(f"| {rec.cls.name} | no design point yet | - | - | - | "
                         f"{rec.cls.reference} | {rec.cls.target} | no |")
            continue
        lines.append(f"| {rec.cls.name} | {_describe(rec.row)} | {rec.cls.measure(rec.row)} | "
                     f"{rec.seeds} | {_fmax_cell(rec)} | {rec.cls.reference} | "
                     f"{rec.cls.target} | {rec.verdict} |")
    counts = [rec.spread.count for rec in recs if rec.spread is not None]
    lines += ["", f"References: {REFERENCE_SOURCE}. Measured: median Fmax over the placer seeds "
              "shown; throughput = 128 x Fmax / cycles per block measured in simulation. "
              f"Fmax over seeds: {spread_note(counts)}. Where the Fmax decides the verdict, "
              f"it needs >= {MIN_SEEDS_INTERVAL} seeds; with 5 or more, \"within noise of the "
              "target\" says the target lies within the median's confidence interval."]
    return "\n".join(lines) + "\n"


def open_rows(db: str | None, reference: list | None) -> tuple[Store, str]:
    """The store to read (see the module docstring) and what it is, for messages.

    Raises
    ------
    StoreError
        The database does not exist, or a reference file cannot be read.
    """
    if reference:
        return open_reference([Path(p) for p in reference]), "reference " + ", ".join(reference)
    shipped = REFERENCE_DIR.is_dir() and bool(reference_files([REFERENCE_DIR]))
    if db is None and not Path(DEFAULT_DB).exists() and shipped:
        return open_reference([REFERENCE_DIR]), f"reference {REFERENCE_DIR}"
    db = db or DEFAULT_DB
    if not Path(db).exists():
        raise StoreError(f"no database at {db}: run a sweep first, or give --reference "
                         f"results/reference")
    return Store(db, readonly=True), db


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=None,
                        help=f"results database (default {DEFAULT_DB}, else results/reference)")
    parser.add_argument("--reference", action="append", metavar="PATH",
                        help="exported reference results (.jsonl or a directory of them) "
                             "instead of a database; may be repeated")
    parser.add_argument("--device", default="LFE5U-85F", help="device name (all speed grades)")
    parser.add_argument("--figure", help="also save the Pareto figure (.png, .svg or .pdf)")
    parser.add_argument("--bram-slices-per-kbit", type=float, default=None,
                        help="block-RAM conversion of the figure (default: aesdse's convention)")
    args = parser.parse_args(argv)
    try:
        store, source = open_rows(args.db, args.reference)
    except StoreError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"rows from {source}", file=sys.stderr)
    with store:
        rows = select_rows(store, checkout=current_checkout()).rows
    sys.stdout.write(records_markdown(records(rows, args.device), args.device))
    if args.figure:
        # Whole ciphers only: an S-box alone has a "throughput" of one byte per cycle.
        ciphers = [r for r in rows if r.arch != "sbox" and (
            r.target == args.device or r.target.startswith(f"{args.device}-"))]
        fig = pareto_figure(ciphers, "slice-eq", title=f"Verified AES cores, {args.device}",
                            rate=args.bram_slices_per_kbit, point_labels=False)
        print(f"figure: {save(fig, args.figure)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
