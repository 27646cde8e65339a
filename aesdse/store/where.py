"""User conditions on stored rows (``--where``): checked, read-only, and under a time and step
limit.

A condition is one SQL expression over the columns of the ``points`` table, every architecture
parameter by its name and every flow option as ``flow_<option>``. It is refused before it runs
when it could reach outside its parentheses (:func:`check_condition`); it runs with an SQLite
authorizer that allows reading only, and a progress handler that stops it after
:data:`WHERE_LIMIT_S` seconds or :data:`WHERE_LIMIT_STEPS` virtual-machine steps (a recursive
CTE would otherwise run for ever). Names reach SQL only as identifiers
(:data:`aesdse.spec.schema.IDENTIFIER`); a damaged row's JSON reads as an empty object
(:func:`object_sql`), so it does not stop the query.
"""

import sqlite3
import time

from ..spec.schema import IDENTIFIER
from .errors import WhereError

__all__ = ["WHERE_LIMIT_S", "WHERE_LIMIT_STEPS", "select_keys", "check_condition", "object_sql"]


def select_keys(db: sqlite3.Connection, condition: str, names: dict) -> set[str]:
    """Keys of the rows of ``db`` that satisfy ``condition``; ``names``: column or parameter
    name -> what it is (:meth:`aesdse.store.database.Store.columns`).

    Raises
    ------
    WhereError
        With SQLite's message and the names that can be used, or the limit that stopped it.
    """
    check_condition(condition)
    # Only identifiers become columns (an imported row is checked so, but a database file
    # may come from anywhere): a name is never pasted into SQL otherwise.
    extra = [f"json_extract({object_sql('params')}, '$.{n}') AS \"{n}\""
             for n, kind in names.items() if kind == "parameter" and IDENTIFIER.fullmatch(n)]
    extra += [f"json_extract({object_sql('flow')}, '$.{n[5:]}') AS \"{n}\""
              for n, kind in names.items()
              if kind == "flow option" and IDENTIFIER.fullmatch(n[5:])]
    view = "SELECT points.*" + "".join(f", {e}" for e in extra) + " FROM points"
    sql = f"SELECT key FROM ({view}) AS points WHERE ({condition})"
    db.set_authorizer(_read_only_authorizer)
    budget = _QueryBudget(WHERE_LIMIT_S, WHERE_LIMIT_STEPS)
    db.set_progress_handler(budget, _QueryBudget.EVERY)
    try:
        return {r[0] for r in db.execute(sql) if isinstance(r[0], str)}
    except sqlite3.Error as e:
        if budget.exceeded:
            raise WhereError(f"--where {_clip(condition)!r}: {budget.exceeded}; write a "
                             f"simpler condition") from None
        known = ", ".join(sorted(n for n in names if IDENTIFIER.fullmatch(n)))
        raise WhereError(f"--where {_clip(condition)!r}: {e}; names you can use: "
                         f"{known}") from None
    finally:
        db.set_authorizer(None)
        db.set_progress_handler(None, 0)


#: Limits of one ``--where`` query: seconds, and SQLite virtual-machine steps (a recursive CTE
#: or a cross join of the table with itself would otherwise run for ever).
WHERE_LIMIT_S = 20.0
WHERE_LIMIT_STEPS = 200_000_000


class _QueryBudget:
    """SQLite progress handler that interrupts a query past its time or step limit
    (:attr:`exceeded` then says which)."""
    EVERY = 10_000  # steps between calls

    def __init__(self, seconds: float, steps: int):
        self.deadline = time.monotonic() + seconds
        self.seconds, self.calls_left = seconds, steps // self.EVERY
        self.exceeded = ""

    def __call__(self) -> int:
        self.calls_left -= 1
        if self.calls_left < 0:
            self.exceeded = f"stopped after {WHERE_LIMIT_STEPS:,} SQLite steps (the limit)"
        elif time.monotonic() > self.deadline:
            self.exceeded = f"stopped after {self.seconds:g} s (the limit)"
        return 1 if self.exceeded else 0


_READ_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION}


def object_sql(column: str) -> str:
    """SQL for ``column`` as a JSON object, ``'{}'`` where a damaged row holds anything else (so
    one such row does not stop a query over all of them; readers name it unreadable)."""
    return (f"(CASE WHEN json_valid({column}) THEN (CASE WHEN json_type({column}) = 'object' "
            f"THEN {column} ELSE '{{}}' END) ELSE '{{}}' END)")


def _read_only_authorizer(action, *args):
    # SQLITE_RECURSIVE (33) comes with CTEs; everything that is not reading is refused.
    return sqlite3.SQLITE_OK if action in _READ_ACTIONS or action == 33 else sqlite3.SQLITE_DENY


def check_condition(condition: str) -> None:
    """Refuse a condition that could reach outside its parentheses: unbalanced parentheses,
    statement separators or comments outside string literals."""
    depth, quote = 0, None
    i = 0
    while i < len(condition):
        c = condition[i]
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                raise WhereError(f"--where {_clip(condition)!r}: unbalanced ')'")
        elif c == ";":
            raise WhereError(f"--where {_clip(condition)!r}: one condition only, no ';'")
        elif condition.startswith("--", i) or condition.startswith("/*", i):
            raise WhereError(f"--where {_clip(condition)!r}: comments are not allowed")
        i += 1
    if quote:
        raise WhereError(f"--where {_clip(condition)!r}: unterminated string")
    if depth:
        raise WhereError(f"--where {_clip(condition)!r}: unbalanced '('")
    if not condition.strip():
        raise WhereError("--where: empty condition")


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
