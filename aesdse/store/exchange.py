"""Results as text: rows of the results database in JSON Lines, for git and for sharing.

A results database (:mod:`aesdse.store.database`) is binary and lives on the machine that
measured it. This module writes its rows to *JSON Lines* files, which git can diff, and loads such
files back into a database:

* :func:`export_rows` writes one row per line: every column of the ``points`` table (every field
  of :class:`~aesdse.store.database.Row`, found generically, so a new column is exported without a
  change here), JSON columns as nested objects, and the point's Fmax-search runs
  (:class:`~aesdse.store.database.PnrRun`, without their ``point_key``) under ``pnr_runs``. Keys
  are sorted, rows are sorted by configuration key and then key, so exporting the same rows again
  gives a file identical byte for byte (a zero ``git diff``).
* :func:`import_rows` loads files into a :class:`~aesdse.store.database.Store`. Rows keep their
  key and their ``created_at``. Importing is idempotent: a key already stored is not stored
  again (an identical row is counted as ``present``, a different one as a ``conflict`` and the
  stored row is kept). A line that is not a valid row (bad JSON, a column this aesdse does not
  know, a bad status, ...) is named ``file:line``; by default nothing at all is imported then
  (:class:`ExchangeError`), with ``skip_malformed`` the other lines are.
* :func:`open_reference` loads files into a new in-memory database: what reports use to read
  the reference results shipped in ``results/reference/`` without importing them anywhere.
* :func:`compare_rows` checks a database against reference rows, row by row (the
  reproducibility check of ``aesdse db compare --against``): each reference row is
  ``identical``, ``differs`` (the measured fields that differ, with both values), ``not
  comparable`` (measured by another generator or other tool versions, named) or ``missing``.

The format is one JSON object per line (UTF-8, ASCII-escaped); a line that is empty or
starts with ``#`` is ignored, so a file may carry comments.
"""

import contextlib
import json
import os
import random
import sqlite3
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from ..spec.schema import IDENTIFIER, VERIFY_NOT_PROVENANCE, config_key
from .database import STATUSES, PnrRun, Row, Store, StoreError
from .rowcheck import MAX_DEPTH, check_record, check_run

__all__ = ["ExchangeError", "ImportResult", "export_rows", "row_record", "read_rows",
           "write_text_file",
           "import_rows", "open_reference", "reference_files", "MEASURED_FIELDS",
           "VERDICTS", "Comparison", "compare_rows", "sample_rows", "provenance_differences",
           "verify_differences"]

#: The column names of a row, in table order (generic: every field of :class:`Row`).
COLUMNS = tuple(f.name for f in fields(Row))

#: What a reproducibility check compares: the measured numbers of a row and its outcome.
#: Timings (``*_seconds``), host, paths and dates are not measurements of the design.
MEASURED_FIELDS = ("status", "luts", "ffs", "brams", "carries", "dsps", "slices", "fmax_mhz",
                   "fmax_raw_mhz", "fmax_capped", "latency_cycles", "cycles_per_block",
                   "throughput_mbps", "mbps_per_lut", "mbps_per_slice", "rtlil_digest",
                   "fmax_by_clock")


class ExchangeError(StoreError):
    """A results file cannot be read or imported; the message names every bad ``file:line``."""


@dataclass
class ImportResult:
    """What :func:`import_rows` did.

    Attributes
    ----------
    added : list of str
        Keys stored by this import.
    present : list of str
        Keys already stored with the same values (nothing done).
    conflicts : list of str
        Keys already stored with other values (the stored row kept).
    malformed : list of str
        ``file:line: reason`` of each line skipped (``skip_malformed``).
    """
    added: list = field(default_factory=list)
    present: list = field(default_factory=list)
    conflicts: list = field(default_factory=list)
    malformed: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def row_record(row: Row, runs=None, *, store: Store | None = None,
               host_paths: bool = True) -> dict:
    """The JSON object of one exported row: every column, and its Fmax-search ``runs``.

    Without ``host_paths`` the row says nothing about the machine that measured it: no host
    name, its artifact path relative to ``store``'s directory (None when it lies elsewhere),
    and no absolute report paths in its runs.
    """
    record = row.as_dict()
    record["pnr_runs"] = [{k: v for k, v in asdict(run).items() if k != "point_key"}
                          for run in runs or ()]
    if not host_paths:
        record["host"] = None
        record["artifacts"] = _portable(store, row.artifacts)
        for run in record["pnr_runs"]:
            run["report_path"] = _portable(store, run["report_path"])
    return record


def _portable(store: Store | None, path: str | None) -> str | None:
    """``path`` as an exported row may carry it: relative to ``store``'s directory (a relative
    path is that already), or None when it names a place elsewhere."""
    if path and Path(path).is_absolute() and store is not None:
        path = store.relative_artifacts(path)
    return path if _plain_relative(path) else None


def export_rows(store: Store, path, rows, *, host_paths: bool = False) -> int:
    """Write ``rows`` (of ``store``) to the JSON Lines file ``path``, one row per line, sorted by
    configuration key and key, keys sorted; returns the number of rows written.

    ``path`` ``-`` writes to standard output. Without ``host_paths`` no host name or absolute
    path is written (:func:`row_record`).

    Raises
    ------
    ExchangeError
        ``path`` cannot be written (the message says why; nothing is left half-written).
    """
    rows = sorted(rows, key=lambda r: (r.config_key or "", r.key))
    runs = store.pnr_runs([r.key for r in rows]) if rows else {}
    lines = [json.dumps(row_record(r, runs.get(r.key), store=store, host_paths=host_paths),
                        sort_keys=True, ensure_ascii=True)
             for r in rows]
    text = "".join(line + "\n" for line in lines)
    if str(path) == "-":
        import sys
        sys.stdout.write(text)
    else:
        write_text_file(Path(path), text)
    return len(rows)


def write_text_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it, renamed into place, so a
    full disk or a kill leaves the old file or none, never half of one.

    Raises
    ------
    ExchangeError
        The file cannot be written, with the operating system's reason.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise ExchangeError(f"{path}: cannot write ({e.strerror or e})") from None


def _plain_relative(path: str | None) -> bool:
    """Whether ``path`` is relative and stays below its base (no ``..``)."""
    return bool(path) and not Path(path).is_absolute() and ".." not in Path(path).parts


def _parse_line(text: str) -> tuple[Row, list]:
    """One exported line -> (row, its Fmax-search runs), checked against the row schema
    (:func:`~aesdse.store.rowcheck.check_record`). Raises ValueError with the reason.

    An artifact or report path that is absolute or climbs out with ``..`` names a place on the
    machine that exported the row: it is dropped, so nothing of this machine is ever reached
    through it.
    """
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e})") from None
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    runs = record.pop("pnr_runs", None) or []
    unknown = sorted(set(record) - set(COLUMNS))
    if unknown:
        names = ", ".join(u if IDENTIFIER.fullmatch(u) else _clip(repr(u), 40)
                          for u in unknown[:5])
        raise ValueError(f"unknown column{'s' if len(unknown) > 1 else ''} {names} (exported "
                         f"by a newer aesdse?)")
    if not isinstance(runs, list):
        raise ValueError("pnr_runs must be a list of objects")
    record = {name: record.get(name) for name in COLUMNS}
    check_record(record, STATUSES)
    for run in runs:
        check_run(run)
    expected = config_key(record["arch"], record["params"], record["target"], record["flow"])
    if record["config_key"] not in (None, expected):
        raise ValueError(f"config_key {record['config_key']!r} is not that of the row's "
                         f"configuration ({expected})")
    if not _plain_relative(record["artifacts"]):
        record["artifacts"] = None
    try:
        row = Row(**record)
        return row, [PnrRun(point_key=row.key, **{**run, "ok": bool(run["ok"]),
                                                  "report_path": run.get("report_path")
                                                  if _plain_relative(run.get("report_path"))
                                                  else None})
                     for run in runs]
    except TypeError as e:
        raise ValueError(str(e)) from None


def read_rows(paths, *, skip_malformed: bool = False) -> tuple[list, list]:
    """Read exported files: ``([(row, runs), ...], ["file:line: reason", ...])``.

    Raises
    ------
    ExchangeError
        A file cannot be read; or a line is malformed and ``skip_malformed`` is false (the
        message names every malformed ``file:line``).
    """
    items, bad = [], []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ExchangeError(f"{path}: cannot read ({e})") from None
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                items.append(_parse_line(line))
            except ValueError as e:
                bad.append(f"{path}:{number}: {_clip(str(e))}")
    if bad and not skip_malformed:
        more = f" (and {len(bad) - 10} more)" if len(bad) > 10 else ""
        raise ExchangeError("malformed results lines, nothing imported:\n  "
                            + "\n  ".join(bad[:10]) + more)
    return items, bad


def import_rows(store: Store, paths, *, skip_malformed: bool = False) -> ImportResult:
    """Load exported files into ``store``; see the module docstring.

    Raises
    ------
    ExchangeError
        A file cannot be read, or (without ``skip_malformed``) a line is malformed: nothing is
        imported then.
    """
    items, bad = read_rows(paths, skip_malformed=skip_malformed)
    result = ImportResult(malformed=bad)
    try:
        with store.transaction():
            for row, runs in items:
                _import_row(store, row, runs, result)
    except sqlite3.Error as e:
        raise ExchangeError(f"{store.path}: nothing imported: {e}") from None
    return result


def _import_row(store: Store, row: Row, runs: list, result: ImportResult) -> None:
    """Store one imported row (inside the import's transaction) and count it in ``result``; a
    stored row that cannot be read is replaced."""
    stored = store.get(row.key)
    if stored is None:
        store.insert(row, runs, replace_stored=store.stored(row.key))
        result.added.append(row.key)
    elif (stored.as_dict() == replace(row, artifacts=store.artifacts_path(row.artifacts)).as_dict()
          and store.pnr_runs([row.key]).get(row.key, []) == runs):
        result.present.append(row.key)
    else:
        result.conflicts.append(row.key)


def reference_files(paths) -> list[Path]:
    """``paths`` with each directory replaced by its ``*.jsonl`` files (sorted)."""
    out = []
    for path in map(Path, paths):
        out += sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    return out


def open_reference(paths: list[Path]) -> Store:
    """A new in-memory :class:`Store` holding the rows of the exported files ``paths`` (a
    directory stands for its ``*.jsonl`` files): reports read reference results through it.

    Raises
    ------
    ExchangeError
        A file cannot be read or holds a malformed line.
    """
    store = Store(":memory:")
    try:
        import_rows(store, reference_files(paths))
    except ExchangeError:
        store.close()
        raise
    return store


#: The verdicts of :func:`compare_rows`, in the order a summary lists them.
VERDICTS = ("identical", "differs", "not comparable", "missing")


@dataclass
class Comparison:
    """One reference row checked against a database (:func:`compare_rows`).

    Attributes
    ----------
    reference : Row
    verdict : str
        One of :data:`VERDICTS`.
    measured : Row or None
        The database's row it was compared with (the newest of the same configuration and
        provenance; for ``not comparable`` the newest of the configuration).
    differences : list of dict
        ``{"field", "reference", "measured"}`` for each :data:`MEASURED_FIELDS` entry that
        differs (``differs`` only).
    reasons : list of str
        Why the rows are not comparable: ``generator <ref> -> <db>``, ``<tool> <ref> -> <db>``,
        ``verify options``; or why a row is missing.
    """
    reference: Row
    verdict: str
    measured: Row | None = None
    differences: list = field(default_factory=list)
    reasons: list = field(default_factory=list)

    def as_dict(self) -> dict:
        ref = self.reference
        return {"key": ref.key, "config_key": ref.config_key, "experiment": ref.experiment,
                "arch": ref.arch, "params": ref.params, "target": ref.target, "seed": ref.seed,
                "verdict": self.verdict,
                "measured_key": self.measured.key if self.measured else None,
                "differences": self.differences, "reasons": self.reasons}


def provenance_differences(reference: Row, measured: Row, tools_used=None) -> list[str]:
    """What makes ``measured`` not comparable with ``reference``: another generator
    fingerprint, another version of a tool both recorded (of the tools ``tools_used(row)``
    names, when given: a row records every installed tool, but only its family's ran), other
    verification options."""
    reasons = []
    if reference.generator != measured.generator:
        reasons.append(f"generator {reference.generator} -> {measured.generator}")
    theirs = measured.tool_versions or {}
    used = None if tools_used is None else set(tools_used(reference))
    for tool, version in sorted((reference.tool_versions or {}).items()):
        if used is not None and tool not in used:
            continue
        if tool in theirs and theirs[tool] != version:
            reasons.append(f"{tool} {version} -> {theirs[tool]}")
    differing = verify_differences(reference.verify, measured.verify)
    if differing:
        reasons.append(f"verify options {', '.join(differing)}")
    return reasons


def verify_differences(reference: dict | None, measured: dict | None) -> list[str]:
    """``"<option> <reference> -> <measured>"`` for each verify option (of a row's ``verify``)
    that differs, leaving out those that are not provenance (``VERIFY_NOT_PROVENANCE``: the
    backend, the netlist stage's budget); an option one row lacks is shown as ``(unset)``."""
    reference, measured = reference or {}, measured or {}
    out = []
    for name in sorted(set(reference) | set(measured)):
        if name in VERIFY_NOT_PROVENANCE:
            continue
        a, b = reference.get(name, "(unset)"), measured.get(name, "(unset)")
        if a != b:
            out.append(f"{name} {json.dumps(a)} -> {json.dumps(b)}")
    return out


def compare_rows(reference: list[Row], store: Store, tools_used=None) -> list[Comparison]:
    """Check each ``reference`` row against the rows of ``store`` with the same configuration
    key: the row with the same key, else the newest of the same provenance
    (:func:`provenance_differences` empty; ``tools_used`` passed on) is compared field by field
    (:data:`MEASURED_FIELDS`, exact equality: the flow is deterministic); without one the row is
    ``not comparable`` (the newest row's provenance differences named) or ``missing``."""
    stored: dict = {}
    for row in store.rows_by_config({r.config_key for r in reference}):
        stored.setdefault(row.config_key, []).append(row)
    out = []
    for ref in sorted(reference, key=lambda r: (r.config_key or "", r.key)):
        candidates = stored.get(ref.config_key, [])
        same = [r for r in candidates if r.key == ref.key] or \
            [r for r in candidates if not provenance_differences(ref, r, tools_used)]
        if same:
            measured = same[-1]
            differences = [{"field": name, "reference": getattr(ref, name),
                            "measured": getattr(measured, name)}
                           for name in MEASURED_FIELDS
                           if getattr(ref, name) != getattr(measured, name)]
            out.append(Comparison(ref, "differs" if differences else "identical", measured,
                                  differences))
        elif candidates:
            out.append(Comparison(ref, "not comparable", candidates[-1],
                                  reasons=provenance_differences(ref, candidates[-1],
                                                                 tools_used)))
        else:
            out.append(Comparison(ref, "missing", reasons=[f"no row of configuration "
                                                           f"{ref.config_key} in {store.path}"]))
    return out


def sample_rows(rows: list[Row], count: int | None, seed: int) -> list[Row]:
    """``count`` of ``rows`` drawn at random with ``seed`` (the same seed draws the same rows
    from the same file), in file order; every row when ``count`` is None or not smaller."""
    rows = sorted(rows, key=lambda r: (r.config_key or "", r.key))
    if count is None or count >= len(rows):
        return rows
    chosen = set(random.Random(seed).sample(range(len(rows)), count))
    return [row for n, row in enumerate(rows) if n in chosen]


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
