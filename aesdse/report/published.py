"""Published results of the five seed papers, as data, with a consistency check and area normalisation.

The numbers live in ``aesdse/experiments/published/*.yaml`` (package data; ``experiments/`` at the
top of a checkout links there), one file per paper, transcribed by hand from the paper's text
with every number as printed (``null`` plus a note where a cell is
missing or garbled). This module loads and validates them into frozen dataclasses
(:class:`Paper` > :class:`PublishedTable` > :class:`PublishedRow`), finds a paper by key or name
(:func:`find_paper`), checks a row's throughput against the architecture the paper describes
(:func:`consistency_check`), and gives each row's area in the conventions of
:mod:`aesdse.flow.families` (:meth:`PublishedRow.area`). The data classes are in
:mod:`aesdse.report.published_model`, the checks of the file format below in
:mod:`aesdse.report.published_schema`; this module is the way in.

File format
-----------
Top level: ``key`` ("000".."004"), ``name`` (short name, e.g. ``zhou_gaj``), ``aliases`` (other
accepted names), ``seed`` (the seed text file; ``null`` for a *reference paper*, which then says
where its numbers come from in ``source``), ``citation`` (``title``, ``authors``,
``affiliation``, ``venue``, ``year``, ``note``), ``summary``, ``figures`` (what the text says about
figures), ``architectures`` (only a place to define YAML anchors; ignored) and ``tables``.

Each table: ``id`` ("Table III"), ``caption``, ``device``, ``device_family`` (a key of
:data:`SLICE_CONVENTIONS`, ``"asic"`` or ``null``), ``tool``, ``note``, ``columns`` and ``rows``.
A column is ``{key, header, unit}``: with a ``unit`` it is numeric, without one it holds text.
Throughput columns are ``throughput_mbps`` (unit ``Mbit/s``) or ``throughput_gbps`` (``Gbit/s``);
the clock column is ``clock_mhz`` (``MHz``).

Each row: ``id`` (unique in its table), ``label`` (the row as the paper names it), ``this_work``
(the paper's own design, or a design it cites), ``reference`` (for cited designs), ``device`` and
``device_family`` (when they differ from the table's), ``values`` (one entry per column, ``null``
allowed only with a ``note``), ``config`` (the aesdse architecture parameters the row
corresponds to, ``arch`` plus family parameters) and ``architecture`` (facts for the consistency
check: ``block_bits``, ``cycles_per_block``, ``cycles_per_block_is_minimum``, ``latency_cycles``,
``summary``, ``derivation``).

Reference papers
----------------
Keys ``000``..``099`` are the seed papers aesdse's architectures follow, each reproduced by an
experiment (:data:`aesdse.reproduce.EXPERIMENTS`). Keys ``100`` and up are reference papers:
published results that are not seed papers but are the yardstick of a comparison, e.g. the
smallest published 8-bit ASIC AES (``100_moradi.yaml``, Moradi et al. 2011) beside the compact
core's gate-equivalent estimate. They have no seed text and no experiment; their rows are compared
like any other (``aesdse report --compare published``).

ASIC areas
----------
A table of ``device_family: asic`` gives its area in a column of unit ``GE`` (gate equivalents)
or ``kgates`` (thousands of gates, as 003 Table II prints them); :attr:`PublishedRow.gate_equivalents`
reads either. They are compared only with aesdse's ``asic`` estimate, never converted to an FPGA
area.

Area normalisation
------------------
Areas from different device families are only compared in slice-equivalents, through
:func:`aesdse.flow.families.area` and the explicit per-family conventions of
:data:`aesdse.flow.families.SLICE_CONVENTIONS` (block RAM at a stated, overridable rate per Kbit).
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path
from typing import Sequence

from ..spec.yamlcheck import show
from .published_model import (THROUGHPUT_UNITS, Architecture, Column, Paper, PublishedDataError,
                              PublishedRow, PublishedTable)
from .published_schema import parse_paper

__all__ = [
    "PublishedDataError", "Architecture", "Column", "PublishedRow", "PublishedTable", "Paper",
    "PUBLISHED_DIR", "load_paper", "load_papers", "find_paper", "consistency_check", "check_all",
]

#: Default directory of the published-results files: ``experiments/published``, package data of
#: :mod:`aesdse` (so a wheel install has them; ``experiments/`` at the top of a checkout is a link
#: to the same directory).
PUBLISHED_DIR = Path(str(resources.files("aesdse") / "experiments" / "published"))


def load_paper(path: str | Path) -> Paper:
    """Load and validate one published-results file.

    Raises
    ------
    PublishedDataError
        If the file is not valid YAML or breaks the format described in the module docstring;
        the message names the file and the entry.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise PublishedDataError(f"{path.name}: cannot read: {error.strerror}") from None
    # The checked loader is pure Python (it counts nodes and depth as it composes), about 0.1 s a
    # file; reports and `reproduce` load every paper several times, so keep what was loaded
    # for the same path and content. A Paper is frozen: sharing it is safe.
    identity = (str(path), hashlib.sha256(raw).digest())
    paper = _LOADED.get(identity)
    if paper is None:
        paper = _LOADED[identity] = parse_paper(path, raw)
    return paper


#: (path, content digest) -> Paper, for :func:`load_paper`.
_LOADED: dict[tuple, "Paper"] = {}


def load_papers(directory: str | Path | None = None) -> list[Paper]:
    """Load every ``*.yaml`` file of ``directory`` (default :data:`PUBLISHED_DIR`), sorted by key.

    Raises
    ------
    PublishedDataError
        If a file is malformed, or two files have the same key or name.
    FileNotFoundError
        If the directory does not exist.
    """
    directory = PUBLISHED_DIR if directory is None else Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"Published-results directory {str(directory)!r} does not exist")
    papers = [load_paper(path) for path in sorted(directory.glob("*.yaml"))]
    seen: dict[str, Path] = {}
    for paper in papers:
        for name in (paper.key, paper.name):
            if name in seen:
                raise PublishedDataError(f"{paper.path.name}: {name!r} is also used by "
                                         f"{seen[name].name}")
            seen[name] = paper.path
    return sorted(papers, key=lambda p: p.key)


def find_paper(key: str, directory: str | Path | None = None) -> Paper:
    """The paper named ``key``: its key (``"000"``, ``"0"``), short name (``"zhou_gaj"``), file
    stem (``"000_zhou_gaj"``) or an alias (``"zhou"``), case-insensitive.

    Raises
    ------
    ValueError
        If no paper (or more than one) has that name; the message lists the known names.
    """
    wanted = str(key).strip().lower().replace("-", "_")
    if wanted.isdigit():
        wanted = wanted.zfill(3)
    papers = load_papers(directory)
    matches = [paper for paper in papers if wanted in paper.names]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(f"{p.key} ({p.name})" for p in papers)
    if matches:
        raise ValueError(f"Paper name {key!r} is ambiguous: "
                         f"{', '.join(p.key for p in matches)}")
    raise ValueError(f"Paper must be one of {known}, not {show(key)}")


# --- consistency check --------------------------------------------------------------------------

def _fmt(value: float) -> str:
    """A printed number without float noise: up to 6 significant digits."""
    return f"{value:.6g}"


def _cycles(text: str) -> str:
    """``"<n> cycle(s) per block"`` with the number already formatted."""
    return f"{text} cycle per block" if float(text) == 1 else f"{text} cycles per block"


def consistency_check(row: PublishedRow, tolerance: float = 0.02) -> list[str]:
    """Flags where a row's numbers disagree with the architecture its paper describes.

    The throughput must equal ``block_bits x clock / cycles_per_block`` (cycles per block as
    implied by the paper's own description, :attr:`PublishedRow.architecture`) within
    ``tolerance`` (relative). When the description gives only a minimum number of cycles, only a
    throughput above the bound is flagged. A printed latency in cycles must equal the latency the
    description implies, when it implies one.

    Rows without an architecture, a clock or a throughput are not checked (empty list).

    Returns
    -------
    list of str
        Human-readable flags, each with the arithmetic, e.g. ``"004 Table 3 Design 1: 34.08
        Gbit/s claimed at 266.29 MHz = 128 bit x 266.29 MHz / 1.00 cycle per block; the described
        architecture (2 round units, 5 passes, at most 2 blocks in flight) gives at most 128 bit x
        266.29 MHz / 5 cycles per block = 6.82 Gbit/s ..."``.
    """
    arch = row.architecture
    if arch is None:
        return []
    flags = []
    throughput, clock = row.throughput_bps, row.clock_hz
    if arch.cycles_per_block is not None and throughput and clock:
        expected = arch.block_bits * clock / arch.cycles_per_block
        ratio = throughput / expected
        too_high = ratio > 1 + tolerance
        too_low = ratio < 1 - tolerance and not arch.cycles_per_block_is_minimum
        if too_high or too_low:
            key = next(k for k in THROUGHPUT_UNITS if row.number(k) is not None)
            unit, scale = THROUGHPUT_UNITS[key]
            implied = arch.block_bits * clock / throughput
            mhz = _fmt(clock / 1e6)
            bound = "at most " if arch.cycles_per_block_is_minimum else ""
            flags.append(
                f"{row.where}: {_fmt(row.number(key))} {unit} claimed at {mhz} MHz = "
                f"{arch.block_bits} bit x {mhz} MHz / {_cycles(f'{implied:.2f}')}; "
                f"the described architecture ({arch.summary}) gives {bound}"
                f"{arch.block_bits} bit x {mhz} MHz / {_cycles(_fmt(arch.cycles_per_block))} "
                f"= {expected / scale:.2f} {unit} (the claim is {ratio:.2f}x that). "
                f"Derivation: {arch.derivation}")
    latency = row.values.get("latency_cycles")
    if arch.latency_cycles is not None and isinstance(latency, (int, float)) \
            and latency != arch.latency_cycles:
        flags.append(f"{row.where}: latency {_fmt(latency)} cycles printed; the described "
                     f"architecture ({arch.summary}) gives {arch.latency_cycles} cycles. "
                     f"Derivation: {arch.derivation}")
    return flags


def check_all(papers: Sequence[Paper] | None = None, tolerance: float = 0.02) -> list[str]:
    """:func:`consistency_check` over every row of ``papers`` (default: :func:`load_papers`)."""
    papers = load_papers() if papers is None else papers
    return [flag for paper in papers for row in paper.rows()
            for flag in consistency_check(row, tolerance)]
