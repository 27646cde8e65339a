"""The row schema: what a stored or imported results row may hold, checked column by column.

A results row reaches aesdse from two places it did not write itself in this process: a JSON
Lines file somebody else exported (``aesdse db import``, :mod:`aesdse.store.exchange`) and a
database file that another program, another aesdse version or a damaged disk may have changed
(:class:`aesdse.store.database.Store` reads). Both go through :func:`check_record` before a
:class:`~aesdse.store.database.Row` is made of them, so every reader can trust a row's types:

- every column known, of its type (text, integer, finite number, JSON object), ``None`` only
  where a column may be empty;
- integers in SQLite's range and not negative where they count something, numbers finite and
  within :data:`NUMBER_LIMIT`;
- a known status, a key that is a plain name (it becomes a directory name), an experiment name
  under the rules of experiment files (:func:`aesdse.spec.schema.name_problem`), parameter and
  flow option names under the identifier rule (:data:`aesdse.spec.schema.IDENTIFIER`: they become
  SQL column names in ``--where``);
- JSON values nested at most :data:`MAX_DEPTH` levels, so no reader recurses without bound.

:func:`check_record` raises :class:`RowError` with the first problem, worded for a
``file:line: reason`` message.
"""

import math
import re

from ..spec.schema import IDENTIFIER, name_problem

__all__ = ["RowError", "check_record", "check_run", "KEY", "MAX_DEPTH", "NUMBER_LIMIT",
           "TEXT_COLUMNS", "INTEGER_COLUMNS", "NUMBER_COLUMNS", "OBJECT_COLUMNS"]

#: A row's key: it names the row's artifact directory (``runs/<key>``), so a plain name.
KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")

#: Deepest nesting of a JSON column's value (objects and lists) that a row may carry.
MAX_DEPTH = 16

#: Largest magnitude of a stored number (counts, MHz, seconds, Mbit/s): far above any real
#: measurement, and every integer up to it fits an SQLite integer.
NUMBER_LIMIT = 1e15

#: Columns by type. ``required``: may not be None.
TEXT_COLUMNS = {"key": True, "experiment": True, "arch": True, "target": True, "status": True,
                "reason": False, "fmax_capped": False, "rtlil_digest": False, "host": False,
                "artifacts": False, "created_at": False, "cache_hits": False,
                "config_key": False, "generator": False}
INTEGER_COLUMNS = {"seed": True, "luts": False, "ffs": False, "brams": False, "carries": False,
                   "dsps": False, "slices": False, "latency_cycles": False}
NUMBER_COLUMNS = {"freq_mhz": True, "fmax_mhz": False, "fmax_raw_mhz": False,
                  "cycles_per_block": False, "throughput_mbps": False, "mbps_per_lut": False,
                  "mbps_per_slice": False, "sim_seconds": False, "synth_seconds": False,
                  "pnr_seconds": False, "wall_seconds": False}
OBJECT_COLUMNS = {"params": True, "flow": True, "tool_versions": False, "manifest": False,
                  "verify": False, "fmax_by_clock": False, "details": False}

#: Longest text of any column (a failure reason with its log tail is the longest real one).
TEXT_LIMIT = 1_000_000


class RowError(ValueError):
    """A row breaks the row schema; the message says which column and why."""


def check_record(record: dict, statuses) -> None:
    """Check one row's columns (a dict of column -> value, JSON columns already parsed).

    Parameters
    ----------
    record : dict
        Every column of the ``points`` table; a missing optional column counts as None.
    statuses : tuple of str
        The known statuses (:data:`aesdse.store.database.STATUSES`).

    Raises
    ------
    RowError
        The first problem found.
    """
    for name, required in TEXT_COLUMNS.items():
        _check_value(record, name, required, _text)
    for name, required in INTEGER_COLUMNS.items():
        _check_value(record, name, required, _integer)
    for name, required in NUMBER_COLUMNS.items():
        _check_value(record, name, required, _number)
    for name, required in OBJECT_COLUMNS.items():
        _check_value(record, name, required, _object)
    if not KEY.fullmatch(record["key"]):
        raise RowError(f"key {_show(record['key'])} must be 1 to 64 letters, digits, '_' or "
                       f"'-' (it names the row's artifact directory)")
    problem = name_problem(record["experiment"])
    if problem:
        raise RowError(f"experiment {_show(record['experiment'])} {problem}")
    if record["status"] not in statuses:
        raise RowError(f"status {_show(record['status'])} must be one of {', '.join(statuses)}")
    for column in ("params", "flow"):
        bad = next((n for n in record[column] if not IDENTIFIER.fullmatch(n)), None)
        if bad is not None:
            raise RowError(f"{column}: name {_show(bad)} must be an identifier (letters, digits "
                           f"and '_', not starting with a digit)")


def check_run(run: dict) -> None:
    """Check one Fmax-search run of an exported row (its ``pnr_runs`` entry)."""
    if not isinstance(run, dict):
        raise RowError("pnr_runs: each run must be a JSON object")
    for name, required, check in (("batch", True, _integer), ("target_mhz", True, _number),
                                  ("seed", True, _integer), ("achieved_mhz", False, _number),
                                  ("ok", True, _flag), ("seconds", False, _number),
                                  ("report_path", False, _text), ("reason", False, _text)):
        _check_value(run, name, required, check, prefix="pnr_runs: ")


def _check_value(record, name, required, check, prefix="") -> None:
    value = record.get(name)
    if value is None:
        if required:
            raise RowError(f"{prefix}{name} is missing (null)")
        return
    problem = check(value)
    if problem:
        raise RowError(f"{prefix}{name} {_show(value)} {problem}")


def _text(value) -> str | None:
    if not isinstance(value, str):
        return f"must be text, not {_kind(value)}"
    if len(value) > TEXT_LIMIT:
        return f"is longer than {TEXT_LIMIT} characters"
    return None


def _integer(value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return f"must be an integer, not {_kind(value)}"
    if not 0 <= value <= NUMBER_LIMIT:
        return f"must be 0 to {NUMBER_LIMIT:.0e}"
    return None


def _number(value) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number, not {_kind(value)}"
    if not math.isfinite(value) or not 0 <= value <= NUMBER_LIMIT:
        return f"must be a finite number from 0 to {NUMBER_LIMIT:.0e}"
    return None


def _flag(value) -> str | None:
    return None if isinstance(value, bool) or value in (0, 1) else \
        f"must be true or false, not {_kind(value)}"


def _object(value) -> str | None:
    if not isinstance(value, dict):
        return f"must be a JSON object, not {_kind(value)}"
    if _depth(value) > MAX_DEPTH:
        return f"is nested deeper than {MAX_DEPTH} levels"
    if any(not isinstance(k, str) for k in value):
        return "must have text keys"
    return None


def _depth(value, level: int = 1) -> int:
    """Nesting depth of a parsed JSON value, stopping once it is past :data:`MAX_DEPTH`."""
    if level > MAX_DEPTH or not isinstance(value, (dict, list)):
        return level - (not isinstance(value, (dict, list)))
    items = value.values() if isinstance(value, dict) else value
    return max((_depth(item, level + 1) for item in items), default=level)


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false",
            type(None): "null"}.get(type(value), type(value).__name__)


def _show(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
