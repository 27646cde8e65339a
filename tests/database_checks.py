"""Checks of a results database file made from outside aesdse, for tests (test-only: a sweep
or a report never asks SQLite to check a whole file)."""

import sqlite3
from contextlib import closing

__all__ = ["integrity_check"]


def integrity_check(path) -> str:
    """SQLite's ``PRAGMA integrity_check`` of the database file at ``path``, read over a
    connection of its own: ``"ok"`` for a sound file, else the problems SQLite found."""
    with closing(sqlite3.connect(path)) as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0]
