"""Published results of the five seed papers, as data, with a consistency check and area normalisation.

The numbers live in ``aesdse/experiments/published/*.yaml`` (package data; ``experiments/`` at the
top of a checkout links there), one file per paper, transcribed by hand from the paper's text
with every number as printed (``null`` plus a note where a cell is
missing or garbled). This module loads and validates them into frozen dataclasses
(:class:`Paper` > :class:`PublishedTable` > :class:`PublishedRow`), finds a paper by key or name
(:func:`find_paper`), checks a row's throughput against the architecture the paper describes
(:func:`consistency_check`), and gives each row's area in the conventions of
:mod:`aesdse.flow.families` (:meth:`PublishedRow.area`).

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
import re
from importlib import resources
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, NoReturn, Sequence

from ..flow.families import SLICE_CONVENTIONS, area
from ..spec.yamlcheck import LineDict, LineList, YamlError, load, show
from ..spec.yamlcheck import allowed as allowed_values

__all__ = [
    "PublishedDataError", "Architecture", "Column", "PublishedRow", "PublishedTable", "Paper",
    "PUBLISHED_DIR", "load_paper", "load_papers", "find_paper", "consistency_check", "check_all",
]

#: Default directory of the published-results files: ``experiments/published``, package data of
#: :mod:`aesdse` (so a wheel install has them; ``experiments/`` at the top of a checkout is a link
#: to the same directory).
PUBLISHED_DIR = Path(str(resources.files("aesdse") / "experiments" / "published"))

#: Throughput columns and their scale to bit/s.
_THROUGHPUT_UNITS = {"throughput_mbps": ("Mbit/s", 1e6), "throughput_gbps": ("Gbit/s", 1e9)}
#: Units of an ASIC area column and their scale to gate equivalents.
_GATE_UNITS = {"GE": 1.0, "kgates": 1000.0}
#: Clock column and its scale to Hz.
_CLOCK_UNITS = {"clock_mhz": ("MHz", 1e6)}

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
        for key, (_unit, scale) in _THROUGHPUT_UNITS.items():
            value = self.number(key)
            if value is not None:
                return value * scale
        return None

    @property
    def clock_hz(self) -> float | None:
        """Clock frequency in Hz, else ``None``."""
        for key, (_unit, scale) in _CLOCK_UNITS.items():
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
            scale = _GATE_UNITS.get(unit)
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
        wanted = _normalise_table_id(id)
        for table in self.tables:
            if _normalise_table_id(table.id) == wanted:
                return table
        raise KeyError(f"Paper {self.key} has no table {id!r}; it has "
                       f"{', '.join(t.id for t in self.tables)}")

    def rows(self) -> Iterator[PublishedRow]:
        """All rows of all tables, in file order."""
        for table in self.tables:
            yield from table.rows


def _normalise_table_id(id: str) -> str:
    id = id.strip().lower()
    return id[len("table"):].strip() if id.startswith("table") else id


# --- loading and validation ---------------------------------------------------------------------

_TOP_KEYS = {"key", "name", "aliases", "seed", "source", "citation", "summary", "figures",
             "architectures", "tables"}
_CITATION_KEYS = {"title", "authors", "affiliation", "venue", "year", "note"}
_TABLE_KEYS = {"id", "caption", "device", "device_family", "tool", "note", "columns", "rows"}
_COLUMN_KEYS = {"key", "header", "unit"}
_ROW_KEYS = {"id", "label", "this_work", "reference", "device", "device_family", "values", "config",
             "architecture", "note"}
_ARCH_KEYS = {"block_bits", "cycles_per_block", "cycles_per_block_is_minimum", "latency_cycles",
              "summary", "derivation"}


class _Checker:
    """Type checks that raise :class:`PublishedDataError` with the file, the line (found from
    the entry path, through the lines :mod:`aesdse.spec.yamlcheck` recorded) and the entry path."""

    def __init__(self, path: Path, data: Any = None) -> None:
        self.path = path
        self.lines: dict[str, int] = {}
        self._record("", data)

    def _record(self, where: str, value: Any) -> None:
        # Entry path -> line, for every key and list item of the loaded file.
        if isinstance(value, LineDict):
            for key, item in value.items():
                at = f"{where}.{key}" if where else str(key)
                self.lines[at] = value.key_lines.get(key, value.line)
                self._record(at, item)
        elif isinstance(value, LineList):
            for n, item in enumerate(value):
                self.lines[f"{where}[{n}]"] = value.item_lines[n]
                self._record(f"{where}[{n}]", item)

    def line(self, where: str) -> int:
        """The line of the entry ``where`` (or of the nearest entry holding it); 1 if unknown."""
        where = re.sub(r" \([^)]*\)", "", where)
        while where:
            if where in self.lines:
                return self.lines[where]
            where = re.sub(r"(\.[^.\[]*|\[\d+\])$", "", where) if re.search(
                r"(\.[^.\[]*|\[\d+\])$", where) else ""
        return 1

    def fail(self, where: str, message: str) -> NoReturn:
        raise PublishedDataError(f"{self.path.name}:{self.line(where)}: {where}: {message}")

    def mapping(self, where: str, value: Any, required: set[str], allowed: set[str]) -> dict:
        if not isinstance(value, dict):
            self.fail(where, f"must be a mapping, not {show(value)}")
        missing = sorted(required - value.keys())
        if missing:
            self.fail(where, f"missing required field(s) {', '.join(missing)}")
        unknown = sorted(set(value) - allowed, key=str)
        if unknown:
            self.fail(f"{where}.{unknown[0]}" if where != "top level" else str(unknown[0]),
                      f"unknown field(s) {', '.join(map(show, unknown))}; "
                      f"allowed: {allowed_values(sorted(allowed))}")
        return value

    def text(self, where: str, value: Any, *, optional: bool = False) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(where, f"must be a non-empty string{' or null' if optional else ''}, "
                             f"not {show(value)}")
        return value

    def number(self, where: str, value: Any, *, optional: bool = False) -> Number | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(where, f"must be a number{' or null' if optional else ''}, not {show(value)}")
        return value

    def integer(self, where: str, value: Any, *, optional: bool = False) -> int | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(where, f"must be an integer{' or null' if optional else ''}, "
                             f"not {show(value)}")
        return value

    def boolean(self, where: str, value: Any) -> bool:
        if not isinstance(value, bool):
            self.fail(where, f"must be true or false, not {show(value)}")
        return value

    def text_list(self, where: str, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list):
            self.fail(where, f"must be a list of strings, not {show(value)}")
        return tuple(self.text(f"{where}[{i}]", item) for i, item in enumerate(value))


def _device_family(check: _Checker, where: str, value: Any) -> str | None:
    family = check.text(where, value, optional=True)
    if family is not None and family != "asic" and family not in SLICE_CONVENTIONS:
        check.fail(where, f"must be one of {', '.join(sorted(SLICE_CONVENTIONS))}, asic or null, "
                          f"not {show(family)}")
    return family


def _architecture(check: _Checker, where: str, value: Any) -> Architecture | None:
    if value is None:
        return None
    check.mapping(where, value, {"block_bits", "cycles_per_block", "summary", "derivation"},
                  _ARCH_KEYS)
    block_bits = check.integer(f"{where}.block_bits", value["block_bits"])
    cycles = check.number(f"{where}.cycles_per_block", value["cycles_per_block"], optional=True)
    if block_bits <= 0 or (cycles is not None and cycles <= 0):
        check.fail(where, "block_bits and cycles_per_block must be positive")
    return Architecture(
        block_bits=block_bits,
        cycles_per_block=None if cycles is None else float(cycles),
        cycles_per_block_is_minimum=check.boolean(
            f"{where}.cycles_per_block_is_minimum",
            value.get("cycles_per_block_is_minimum", False)),
        latency_cycles=check.integer(f"{where}.latency_cycles", value.get("latency_cycles"),
                                     optional=True),
        summary=check.text(f"{where}.summary", value["summary"]),
        derivation=check.text(f"{where}.derivation", value["derivation"]),
    )


def _columns(check: _Checker, where: str, value: Any) -> tuple[Column, ...]:
    if not isinstance(value, list) or not value:
        check.fail(where, f"must be a non-empty list, not {show(value)}")
    columns = []
    for i, item in enumerate(value):
        cwhere = f"{where}[{i}]"
        check.mapping(cwhere, item, {"key", "header"}, _COLUMN_KEYS)
        key = check.text(f"{cwhere}.key", item["key"])
        if not re.fullmatch(r"[a-z][a-z0-9_]*", key):
            check.fail(f"{cwhere}.key", f"must be a lower-case identifier, not {show(key)}")
        unit = check.text(f"{cwhere}.unit", item.get("unit"), optional=True)
        for known in (_THROUGHPUT_UNITS, _CLOCK_UNITS):
            if key in known and unit != known[key][0]:
                check.fail(f"{cwhere}.unit", f"column {key!r} must have unit "
                                             f"{known[key][0]!r}, not {show(unit)}")
        if key.startswith("throughput_") and key not in _THROUGHPUT_UNITS:
            check.fail(f"{cwhere}.key", f"throughput columns must be one of "
                                        f"{', '.join(_THROUGHPUT_UNITS)}, not {show(key)}")
        if any(c.key == key for c in columns):
            check.fail(f"{cwhere}.key", f"duplicate column {key!r}")
        columns.append(Column(key=key, header=check.text(f"{cwhere}.header", item["header"]),
                              unit=unit))
    return tuple(columns)


def _row(check: _Checker, where: str, value: Any, paper_key: str, table_id: str,
         columns: Sequence[Column], table_device: str | None,
         table_family: str | None) -> PublishedRow:
    check.mapping(where, value, {"id", "label", "this_work", "values"}, _ROW_KEYS)
    values = value["values"]
    by_key = {c.key: c for c in columns}
    if not isinstance(values, dict):
        check.fail(f"{where}.values", f"must be a mapping, not {show(values)}")
    missing = [k for k in by_key if k not in values]
    if missing:
        check.fail(f"{where}.values", f"missing column(s) {', '.join(missing)} (use null)")
    unknown = [k for k in values if k not in by_key]
    if unknown:
        check.fail(f"{where}.values", f"unknown column(s) {', '.join(map(str, unknown))}")
    for key, cell in values.items():
        if by_key[key].numeric:
            check.number(f"{where}.values.{key}", cell, optional=True)
        else:
            check.text(f"{where}.values.{key}", cell, optional=True)
    note = check.text(f"{where}.note", value.get("note"), optional=True)
    if note is None and any(cell is None for cell in values.values()):
        check.fail(where, "has null values but no note saying why")
    config = value.get("config")
    if config is not None:
        if not isinstance(config, dict) or not isinstance(config.get("arch"), str):
            check.fail(f"{where}.config",
                       f"must be a mapping with a string 'arch', not {show(config)}")
    return PublishedRow(
        paper_key=paper_key, table_id=table_id,
        id=check.text(f"{where}.id", value["id"]),
        label=check.text(f"{where}.label", value["label"]),
        this_work=check.boolean(f"{where}.this_work", value["this_work"]),
        values=dict(values),
        units={c.key: c.unit for c in columns if c.unit is not None},
        config=None if config is None else dict(config),
        architecture=_architecture(check, f"{where}.architecture", value.get("architecture")),
        device=(check.text(f"{where}.device", value["device"], optional=True)
                if "device" in value else table_device),
        device_family=(_device_family(check, f"{where}.device_family", value["device_family"])
                       if "device_family" in value else table_family),
        reference=check.text(f"{where}.reference", value.get("reference"), optional=True),
        note=note,
    )


def _table(check: _Checker, where: str, value: Any, paper_key: str) -> PublishedTable:
    check.mapping(where, value, {"id", "caption", "device", "tool", "columns", "rows"},
                  _TABLE_KEYS)
    table_id = check.text(f"{where}.id", value["id"])
    where = f"{where} ({table_id})"
    columns = _columns(check, f"{where}.columns", value["columns"])
    device = check.text(f"{where}.device", value["device"], optional=True)
    family = _device_family(check, f"{where}.device_family", value.get("device_family"))
    raw_rows = value["rows"]
    if not isinstance(raw_rows, list) or not raw_rows:
        check.fail(f"{where}.rows", f"must be a non-empty list, not {show(raw_rows)}")
    rows = []
    for j, item in enumerate(raw_rows):
        rwhere = f"{where}.rows[{j}]"
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            rwhere += f" ({item['id']})"
        row = _row(check, rwhere, item, paper_key, table_id, columns, device, family)
        if any(r.id == row.id for r in rows):
            check.fail(f"{where}.rows[{j}]", f"duplicate row id {row.id!r}")
        rows.append(row)
    return PublishedTable(
        paper_key=paper_key, id=table_id,
        caption=check.text(f"{where}.caption", value["caption"]),
        device=device, device_family=family,
        tool=check.text(f"{where}.tool", value["tool"], optional=True),
        columns=columns, rows=tuple(rows),
        note=check.text(f"{where}.note", value.get("note"), optional=True),
    )


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
        paper = _LOADED[identity] = _load_paper(path, raw)
    return paper


#: (path, content digest) -> Paper, for :func:`load_paper`.
_LOADED: dict[tuple, "Paper"] = {}


def _load_paper(path: Path, raw: bytes) -> Paper:
    try:
        # The published tables share architecture descriptions through anchors and aliases;
        # the loader counts every alias as the nodes it repeats.
        data = load(raw, aliases=True, max_nodes=200_000)
    except YamlError as error:
        raise PublishedDataError(f"{path.name}:{error.line}: {error.message}") from None
    check = _Checker(path, data)
    check.mapping("top level", data, _TOP_KEYS - {"aliases", "summary", "figures",
                                                  "architectures", "source"}, _TOP_KEYS)
    key = check.text("key", data["key"])
    if not re.fullmatch(r"\d{3}", key):
        check.fail("key", f"must be three digits such as '004' (quote it in YAML), not {show(key)}")
    seed = check.text("seed", data["seed"], optional=True)
    source = check.text("source", data.get("source"), optional=True)
    if seed is None and source is None:
        check.fail("source", "a reference paper (seed: null) must say where its numbers come "
                             "from in 'source'")
    if seed is None and int(key) < 100:
        check.fail("key", f"keys below 100 are seed papers, which name their seed text; a "
                          f"reference paper (seed: null) takes a key from 100, not {key!r}")
    citation = check.mapping("citation", data["citation"], {"title", "authors"}, _CITATION_KEYS)
    year = check.integer("citation.year", citation.get("year"), optional=True)
    tables = data["tables"]
    if not isinstance(tables, list) or not tables:
        check.fail("tables", f"must be a non-empty list, not {show(tables)}")
    parsed = tuple(_table(check, f"tables[{i}]", t, key) for i, t in enumerate(tables))
    return Paper(
        key=key,
        name=check.text("name", data["name"]),
        aliases=check.text_list("aliases", data.get("aliases", [])),
        seed=seed,
        source=source,
        title=check.text("citation.title", citation["title"]),
        authors=check.text_list("citation.authors", citation["authors"]),
        affiliation=check.text("citation.affiliation", citation.get("affiliation"),
                               optional=True),
        venue=check.text("citation.venue", citation.get("venue"), optional=True),
        year=year,
        citation_note=check.text("citation.note", citation.get("note"), optional=True),
        summary=check.text("summary", data.get("summary"), optional=True) or "",
        figures=check.text("figures", data.get("figures"), optional=True),
        tables=parsed,
        path=path,
    )


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
            key = next(k for k in _THROUGHPUT_UNITS if row.number(k) is not None)
            unit, scale = _THROUGHPUT_UNITS[key]
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
