"""The data model of the published results: papers, their tables and rows, as frozen
dataclasses (:class:`Paper` > :class:`PublishedTable` > :class:`PublishedRow`), with each row's
numbers in the units aesdse compares them in.

:mod:`aesdse.report.published` loads them (the file format is described there);
:mod:`aesdse.report.published_schema` validates a file into these classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..flow.families import area

__all__ = ["PublishedDataError", "Architecture", "Column", "PublishedRow", "PublishedTable",
           "Paper", "THROUGHPUT_UNITS", "GATE_UNITS", "CLOCK_UNITS", "normalise_table_id"]

#: Throughput columns and their scale to bit/s.
THROUGHPUT_UNITS = {"throughput_mbps": ("Mbit/s", 1e6), "throughput_gbps": ("Gbit/s", 1e9)}
#: Units of an ASIC area column and their scale to gate equivalents.
GATE_UNITS = {"GE": 1.0, "kgates": 1000.0}
#: Clock column and its scale to Hz.
CLOCK_UNITS = {"clock_mhz": ("MHz", 1e6)}

Number = int | float
Value = int | float | str | None


class PublishedDataError(ValueError):
    """A published-results file is malformed; the message names the file and the entry."""


# --- data model ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Architecture:
    """What a paper's own description of a design implies, for :func:`consistency_check`.

    Attributes
    ----------
    block_bits : int
        Bits per block (128 for AES).
    cycles_per_block : float or None
        Clock cycles between two blocks leaving the design, as implied by the described
        architecture (``None`` if the text does not allow a derivation).
    cycles_per_block_is_minimum : bool
        ``True`` when the description only gives a lower bound on the cycles (so an upper bound on
        the throughput): then only a throughput above the bound is inconsistent.
    latency_cycles : int or None
        Cycles from a block in to its result out, when the description fixes it.
    summary : str
        A few words for messages, e.g. ``"2 round units, 5 passes, at most 2 blocks in flight"``.
    derivation : str
        The arithmetic from the paper's words, with section references.
    """
    block_bits: int
    cycles_per_block: float | None
    summary: str
    derivation: str
    cycles_per_block_is_minimum: bool = False
    latency_cycles: int | None = None


@dataclass(frozen=True)
class Column:
    """One column of a published table.

    Attributes
    ----------
    key : str
        Identifier used in the rows' ``values``.
    header : str
        The column header as printed.
    unit : str or None
        Unit of a numeric column; ``None`` for a text column.
    """
    key: str
    header: str
    unit: str | None = None

    @property
    def numeric(self) -> bool:
        """Whether the column holds numbers (it has a unit)."""
        return self.unit is not None


@dataclass(frozen=True)
class PublishedRow:
    """One row of a published table: one design, with every number as printed.

    Attributes
    ----------
    paper_key : str
        Key of the paper, e.g. ``"004"``.
    table_id : str
        The table it belongs to, e.g. ``"Table 3"``.
    id : str
        Identifier, unique within the table, e.g. ``"design-1"``.
    label : str
        The design as the paper names it, e.g. ``"Design 1"``.
    this_work : bool
        ``True`` for the paper's own designs, ``False`` for designs it cites.
    values : Mapping[str, int | float | str | None]
        Cell values by column key; ``None`` where the paper gives none (see ``note``).
    units : Mapping[str, str]
        Unit of each numeric column, by column key.
    config : Mapping[str, Any] or None
        The aesdse architecture parameters this row corresponds to (``arch`` plus parameters).
    architecture : Architecture or None
        Facts implied by the paper's description, for :func:`consistency_check`.
    device : str or None
        Device as described (the row's own, else the table's).
    device_family : str or None
        Key of :data:`SLICE_CONVENTIONS`, ``"asic"``, or ``None`` if unknown.
    reference : str or None
        Citation of a cited design, as the paper gives it.
    note : str or None
        Transcription notes: garbled cells, derived numbers, doubts.
    """
    paper_key: str
    table_id: str
    id: str
    label: str
    this_work: bool
    values: Mapping[str, Value]
    units: Mapping[str, str] = field(default_factory=dict)
    config: Mapping[str, Any] | None = None
    architecture: Architecture | None = None
    device: str | None = None
    device_family: str | None = None
    reference: str | None = None
    note: str | None = None

    @property
    def where(self) -> str:
        """``"<paper> <table> <label>"``, e.g. ``"004 Table 3 Design 1"``, for messages."""
        return f"{self.paper_key} {self.table_id} {self.label}"

    def number(self, key: str) -> float | None:
        """The numeric value of column ``key``, or ``None`` if absent or empty.

        Raises
        ------
        TypeError
            If the column holds text.
        """
        value = self.values.get(key)
        if value is None:
            return None
        if isinstance(value, str) or isinstance(value, bool):
            raise TypeError(f"Column {key!r} of {self.where} holds text, not a number: {value!r}")
        return float(value)

    @property
    def throughput_bps(self) -> float | None:
        """Throughput in bit/s from whichever throughput column the table has, else ``None``."""
        for key, (_unit, scale) in THROUGHPUT_UNITS.items():
            value = self.number(key)
            if value is not None:
                return value * scale
        return None

    @property
    def clock_hz(self) -> float | None:
        """Clock frequency in Hz, else ``None``."""
        for key, (_unit, scale) in CLOCK_UNITS.items():
            value = self.number(key)
            if value is not None:
                return value * scale
        return None

    def area(self, measure: str = "slice-eq", rate: float | None = None) -> float | None:
        """The row's area in ``measure`` (:func:`aesdse.flow.families.area`), from its ``slices``
        (else ``luts`` and ``ffs``), ``brams`` and printed ``bram_kbits`` columns, for its
        ``device_family``; block RAM at ``rate`` slice-equivalents per Kbit.

        ``None`` for an ASIC or unknown family, or when the logic area is not given (a block RAM
        count alone would understate the area).
        """
        def num(key):
            value = self.values.get(key)
            return float(value) if isinstance(value, (int, float)) \
                and not isinstance(value, bool) else None
        slices = num("slices")
        return area(measure, device_family=self.device_family, slices=slices,
                    luts=num("luts"), ffs=None if slices is not None else num("ffs"),
                    brams=num("brams"), bram_kbits=num("bram_kbits"), rate=rate)

    @property
    def gate_equivalents(self) -> float | None:
        """The area of an ASIC row in gate equivalents: its column of unit ``GE``, or of unit
        ``kgates`` times 1000; ``None`` for a row of another family or without a gate count."""
        if self.device_family != "asic":
            return None
        for key, unit in self.units.items():
            scale = GATE_UNITS.get(unit)
            value = self.values.get(key)
            if scale and isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value) * scale
        return None

    def implied_cycles_per_block(self, block_bits: int = 128) -> float | None:
        """Cycles per block implied by the printed numbers alone: ``block_bits x clock /
        throughput``; ``None`` without both numbers."""
        throughput, clock = self.throughput_bps, self.clock_hz
        if not throughput or not clock:
            return None
        return block_bits * clock / throughput


@dataclass(frozen=True)
class PublishedTable:
    """One table (or a set of numbers given in the text) of a paper.

    Attributes
    ----------
    paper_key : str
        Key of the paper.
    id : str
        ``"Table III"``, ``"Table 2"``, ``"Sec. V"``...
    caption : str
        The caption as printed.
    device : str or None
        Device as the paper gives it (``"per row"`` when rows differ).
    device_family : str or None
        Key of :data:`SLICE_CONVENTIONS`, ``"asic"``, or ``None``.
    tool : str or None
        Tools as stated.
    columns : tuple of Column
    rows : tuple of PublishedRow
    note : str or None
        Transcription notes for the whole table.
    """
    paper_key: str
    id: str
    caption: str
    device: str | None
    device_family: str | None
    tool: str | None
    columns: tuple[Column, ...]
    rows: tuple[PublishedRow, ...]
    note: str | None = None

    def column(self, key: str) -> Column:
        """The column with this key (``KeyError`` if none)."""
        for column in self.columns:
            if column.key == key:
                return column
        raise KeyError(key)

    def row(self, id: str) -> PublishedRow:
        """The row with this id (``KeyError`` if none)."""
        for row in self.rows:
            if row.id == id:
                return row
        raise KeyError(id)


@dataclass(frozen=True)
class Paper:
    """One seed paper and its transcribed tables.

    Attributes
    ----------
    key : str
        ``"000"`` .. ``"004"``.
    name : str
        Short name, e.g. ``"zhou_gaj"``.
    aliases : tuple of str
        Other names :func:`find_paper` accepts.
    seed : str or None
        File name of the extracted text in the seeds directory; None for a reference paper.
    title : str
    authors : tuple of str
        As far as the text gives them (possibly empty).
    affiliation, venue : str or None
    year : int or None
    citation_note : str or None
        What the text does not give, or where a field comes from.
    summary : str
        The architecture the paper describes, in one paragraph.
    figures : str or None
        What the text says about its figures (the figures themselves are missing).
    tables : tuple of PublishedTable
    path : Path
        The YAML file.
    source : str or None
        Where a reference paper's numbers were transcribed from (None for seed papers).
    """
    key: str
    name: str
    aliases: tuple[str, ...]
    seed: str
    title: str
    authors: tuple[str, ...]
    affiliation: str | None
    venue: str | None
    year: int | None
    citation_note: str | None
    summary: str
    figures: str | None
    tables: tuple[PublishedTable, ...]
    path: Path
    source: str | None = None

    @property
    def is_seed(self) -> bool:
        """A seed paper (a text in the seeds directory), not a reference paper."""
        return self.seed is not None

    @property
    def names(self) -> tuple[str, ...]:
        """Every name :func:`find_paper` accepts for this paper (lower case)."""
        return tuple(n.lower() for n in (self.key, self.name, f"{self.key}_{self.name}",
                                         self.path.stem, *self.aliases))

    def table(self, id: str) -> PublishedTable:
        """The table ``id``: ``"Table III"``, ``"table iii"`` or just ``"III"``.

        Raises
        ------
        KeyError
            Naming the tables the paper has.
        """
        wanted = normalise_table_id(id)
        for table in self.tables:
            if normalise_table_id(table.id) == wanted:
                return table
        raise KeyError(f"Paper {self.key} has no table {id!r}; it has "
                       f"{', '.join(t.id for t in self.tables)}")

    def rows(self) -> Iterator[PublishedRow]:
        """All rows of all tables, in file order."""
        for table in self.tables:
            yield from table.rows


def normalise_table_id(id: str) -> str:
    id = id.strip().lower()
    return id[len("table"):].strip() if id.startswith("table") else id


# --- loading and validation ---------------------------------------------------------------------
