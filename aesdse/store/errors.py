"""The errors of the results database, and what an SQLite error says about the database's place
(locked, full, read-only, not a database) in words: one line for the user, never a traceback."""

import sqlite3

__all__ = ["StoreError", "StoreUnavailable", "WhereError", "write_problem", "open_problem", "why"]


class StoreError(Exception):
    """The database cannot be opened or read (missing, not SQLite, newer schema)."""


class StoreUnavailable(StoreError):
    """A finished row could not be stored (the database stayed locked, its disk is full, it
    became read-only); the message says where the row was kept instead."""


def write_problem(error: sqlite3.Error) -> str | None:
    """What a failed write says about the database (locked, full, read-only, I/O), or None
    for an error that is not about the database's place (a bug: let it raise)."""
    text = str(error)
    for marker in ("locked", "busy", "full", "readonly", "read-only", "disk I/O", "unable to open"):
        if marker in text:
            return open_problem(error)
    return None


def why(error: BaseException) -> str:
    return getattr(error, "strerror", None) or str(error)


def open_problem(error: sqlite3.Error) -> str:
    """What an SQLite error on opening a database says about it, in words: the file is not a
    database only when SQLite says so; a lock, a full disk, read-only media or missing
    permissions are named as such."""
    text = str(error)
    if "not a database" in text or "malformed" in text:
        return f"not an aesdse results database ({text})"
    if "locked" in text or "busy" in text:
        return f"locked by another process ({text})"
    if "full" in text:
        return f"the disk is full ({text})"
    if "readonly" in text or "read-only" in text:
        return f"read-only: cannot be written here ({text})"
    return f"cannot be opened ({text}); check the file's permissions and its file system"


class WhereError(StoreError):
    """A ``--where`` condition is not a valid read-only condition on the points."""
