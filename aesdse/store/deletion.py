"""Deleting chosen rows from a results database (``aesdse db delete``).

A row is chosen by a user's SQL condition (:meth:`aesdse.store.database.Store.select_keys`,
read-only, one expression), by the configurations of an experiment (every provenance, as
``aesdse db prune EXPERIMENT`` sees them), or both. Only rows go, with their Fmax-search runs
(:meth:`aesdse.store.database.Store.delete`); the artifact directories under
``<results dir>/runs`` stay (``aesdse db prune`` removes those of the rows it deletes).
"""

from dataclasses import dataclass
from pathlib import Path

from .database import Row, Store, StoreError

__all__ = ["Deletion", "NoSelection", "chosen_rows", "delete_rows"]


class NoSelection(StoreError):
    """Neither a condition nor an experiment chose rows, and deleting every row was not asked."""


@dataclass(frozen=True)
class Deletion:
    """What :func:`delete_rows` did.

    Attributes
    ----------
    rows : list of Row
        The rows chosen, oldest first.
    removed : int
        Rows deleted (0 in a dry run).
    dry_run : bool
    """
    rows: list
    removed: int
    dry_run: bool

    def as_dict(self) -> dict:
        return {"dry_run": self.dry_run, "count": len(self.rows),
                "rows": [r.key for r in self.rows], "removed": self.removed}


def chosen_rows(store: Store, *, where: str | None = None,
                config_keys: set | None = None) -> list[Row]:
    """The stored rows that satisfy ``where`` (a user's condition) and belong to
    ``config_keys`` (None: any configuration), oldest first.

    Raises
    ------
    StoreError
        The condition is not a valid read-only expression.
    """
    keys = store.select_keys(where) if where else None
    if config_keys is not None:
        rows = store.rows_by_config(config_keys)
        return [r for r in rows if keys is None or r.key in keys]
    return store.rows(keys) if keys is not None else store.rows()


def delete_rows(db_path, *, where: str | None = None, config_keys: set | None = None,
                every_row: bool = False, dry_run: bool = False) -> Deletion:
    """Delete the rows of ``db_path`` chosen by ``where`` and ``config_keys``
    (:func:`chosen_rows`); with neither, only if ``every_row`` (``--all``): a forgotten
    condition must not empty a database. A dry run opens the database read-only.

    Raises
    ------
    NoSelection
        Nothing chose the rows and ``every_row`` is false.
    StoreError
        The database cannot be opened or the condition is refused.
    """
    if not where and config_keys is None and not every_row:
        raise NoSelection("db delete needs --where CONDITION or an EXPERIMENT to choose the "
                          "rows, or --all to delete every row")
    if not Path(db_path).is_file():
        raise StoreError(f"{db_path}: no results database; run `aesdse sweep` first")
    with Store(db_path, readonly=dry_run) as store:
        rows = chosen_rows(store, where=where, config_keys=config_keys)
        removed = 0 if dry_run or not rows else store.delete(r.key for r in rows)
    return Deletion(rows, removed, dry_run)
