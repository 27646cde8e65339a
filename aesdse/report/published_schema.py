"""The file format of the published results: one paper's YAML file checked entry by entry into
the data model (:mod:`aesdse.report.published_model`), every error naming the file, the entry
and what was allowed (the format itself is described in :mod:`aesdse.report.published`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NoReturn, Sequence

from ..flow.families import SLICE_CONVENTIONS
from ..spec.yamlcheck import LineDict, LineList, YamlError, load, show
from ..spec.yamlcheck import allowed as allowed_values
from .published_model import (CLOCK_UNITS, THROUGHPUT_UNITS, Architecture, Column, Number, Paper,
                              PublishedDataError, PublishedRow, PublishedTable)

__all__ = ["parse_paper"]


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
        for known in (THROUGHPUT_UNITS, CLOCK_UNITS):
            if key in known and unit != known[key][0]:
                check.fail(f"{cwhere}.unit", f"column {key!r} must have unit "
                                             f"{known[key][0]!r}, not {show(unit)}")
        if key.startswith("throughput_") and key not in THROUGHPUT_UNITS:
            check.fail(f"{cwhere}.key", f"throughput columns must be one of "
                                        f"{', '.join(THROUGHPUT_UNITS)}, not {show(key)}")
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


def parse_paper(path: Path, raw: bytes) -> Paper:
    """The paper in file ``path`` whose content is ``raw``.

    Raises
    ------
    PublishedDataError
        If it is not valid YAML or breaks the format; the message names the file and the entry.
    """
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


