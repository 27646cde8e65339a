"""Store stage: the SQLite results database.

One row per design point run, keyed by the point's key (:meth:`DesignPoint.key`: what was
measured *and* what measured it). A sweep skips every key already stored, so re-running it does no
work; ``--force`` replaces rows.

Results survive code changes
----------------------------
Every row also carries its *configuration key* (:func:`config_key`: architecture, parameters,
target and flow options, seed included; nothing about code or tool versions) and its provenance
(``generator``: the fingerprint of the sources that generated and verified it,
:mod:`aesdse.store.provenance`; ``tool_versions``; ``verify``: the verification options). When the
code or a tool changes, a point's key changes: the sweep runs it again and the old row stays.
Reports select rows by configuration (:meth:`Store.rows_by_config`), show the newest row of each
and say how many older ones exist and whether the newest is stale; ``aesdse db`` lists, compares
and prunes them.

Concurrent sweeps
-----------------
A sweep *claims* a point before running it (:meth:`Store.claim`, table ``claims``): a second
sweep on the same database leaves a point claimed by a live sweep alone and takes its row when it
is stored, so two sweeps started together never run the same flow twice. A claim of a process
that died (same host, pid gone) or that stopped renewing it (other hosts, :data:`CLAIM_STALE_S`)
is taken over.

Rows are written in one transaction each, after every artifact of the point is in place, so a
killed sweep never leaves a half-written row. The database runs in WAL mode with a busy timeout,
so two sweeps may write it at once.

The records are :mod:`aesdse.store.rows`; the schema is versioned, and
:mod:`aesdse.store.migrations` upgrades an older file in place, keeping its results.
"""

import json
import os
import socket
import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

from ..spec.schema import config_key  # re-exported: rows are found by it (module docstring)
from .errors import StoreError, StoreUnavailable, WhereError, open_problem, write_problem, why
from .migrations import MIGRATIONS, SCHEMA_VERSION, migrate
from .rowcheck import RowError, check_record
from .rows import JSON_COLUMNS, STATUSES, PnrRun, Row
from .where import object_sql, select_keys

__all__ = ["STATUSES", "Row", "PnrRun", "Store", "MIGRATIONS", "SCHEMA_VERSION", "StoreError",
           "StoreUnavailable", "BUSY_TIMEOUT_S", "LOCK_WAIT_S", "write_problem",
           "CLAIM_STALE_S", "WhereError", "config_key"]


#: Seconds after which a claim that was not renewed is taken to belong to a dead sweep.
CLAIM_STALE_S = 600.0


#: Seconds a write waits for another process's lock on the database before it fails.
BUSY_TIMEOUT_S = 60.0


#: Seconds a sweep keeps trying to store a finished row while another process holds the
#: database's write lock, before it keeps the row in a file and stops.
LOCK_WAIT_S = 600.0


class Store:
    """The results database at ``path`` (created, or migrated, on open).

    Parameters
    ----------
    readonly : bool
        Open an existing database for reading only (reports): nothing is created, migrated or
        written, and a file that is not a current aesdse database is a :class:`StoreError`.
    """

    def __init__(self, path, *, readonly: bool = False):
        self.path = Path(path)
        self.readonly = readonly
        #: The database's own directory (resolved): artifact paths inside it are stored relative
        #: to it (:meth:`relative_artifacts`); None for an in-memory database.
        self.home = None if str(path) == ":memory:" else self.path.resolve().parent
        self._depth = 0
        #: Keys of rows left out of a selection because a JSON column does not parse -> reason.
        self.unreadable: dict[str, str] = {}
        if readonly:
            if not self.path.is_file():
                raise StoreError(f"{self.path}: no results database; run `aesdse sweep` first")
            self._open_readonly()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"{self.path}: cannot open for writing ({why(e)})") from None
        if self.path.is_file() and not os.access(self.path.parent, os.W_OK):
            self._db.close()
            raise StoreError(f"{self.path}: read-only file system or directory; a sweep must "
                             f"write its database (reports can read it where it is)")
        self._db.row_factory = sqlite3.Row
        try:
            self._db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            self._db.execute("PRAGMA user_version").fetchone()
            self._wal_mode()
            self._migrate()
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise StoreError(f"{self.path}: {open_problem(e)}") from None
        except StoreError:
            self._db.close()
            raise

    def _open_readonly(self) -> None:
        """Open for reading only. A database in WAL mode on read-only media (or an immutable
        file) cannot get its shared-memory file: it is then opened as immutable, which reads it
        without any lock (nothing can write it there either)."""
        uri = f"file:{quote(self.path.resolve().as_posix())}?mode=ro"
        for suffix in ("", "&immutable=1"):
            db = None
            try:
                db = sqlite3.connect(uri + suffix, uri=True, timeout=BUSY_TIMEOUT_S,
                                     isolation_level=None)
                db.row_factory = sqlite3.Row
                db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                self._db = db
                self._check_readonly(db.execute("PRAGMA user_version").fetchone()[0])
                return
            except sqlite3.Error as e:
                if db is not None:
                    db.close()
                retry = isinstance(e, sqlite3.OperationalError) and (
                    "unable to open" in str(e) or "readonly" in str(e))
                if suffix or not retry:
                    raise StoreError(f"{self.path}: {open_problem(e)}") from None
            except StoreError:
                db.close()
                raise

    def _wal_mode(self) -> None:
        # Switching to WAL takes an exclusive lock and SQLite does not wait for it (the busy
        # timeout does not apply): two sweeps opening a new database at once got "database
        # is locked". Retry for a while instead.
        for attempt in range(200):
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or attempt == 199:
                    raise
                time.sleep(0.05)

    def _check_readonly(self, version):
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {version}, newer than this aesdse "
                             f"({SCHEMA_VERSION}): upgrade aesdse")
        tables = {r[0] for r in self._db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            raise StoreError(f"{self.path}: empty database, no results yet (a sweep may be "
                             f"creating it)")
        if "points" not in tables:
            raise StoreError(f"{self.path}: not an aesdse results database (no points table)")
        if version < SCHEMA_VERSION:
            raise StoreError(f"{self.path} has schema version {version}, older than this aesdse "
                             f"({SCHEMA_VERSION}): run `aesdse db upgrade --db {self.path}` (or "
                             f"any sweep on it) to upgrade it in place")

    def _migrate(self):
        with self._transaction():
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} has schema version {version}, newer than this "
                                 f"aesdse ({SCHEMA_VERSION}): upgrade aesdse")
            migrate(self._db, version)

    def _transaction(self):
        """A write transaction (``BEGIN IMMEDIATE``); nested uses join the outermost one, so
        several writes can be made all or nothing (:meth:`transaction`)."""
        store = self

        class _Tx:
            def __enter__(self):
                if store._depth == 0:
                    store._db.execute("BEGIN IMMEDIATE")
                store._depth += 1

            def __exit__(self, exc_type, exc, tb):
                store._depth -= 1
                if store._depth == 0:
                    store._db.execute("ROLLBACK" if exc_type else "COMMIT")
        return _Tx()

    def transaction(self):
        """Context manager: every write inside it is stored together or not at all."""
        return self._transaction()

    def relative_artifacts(self, artifacts: str | None) -> str | None:
        """``artifacts`` (absolute, or relative to the working directory) relative to the
        database's directory (:attr:`home`) when it lies inside it, as stored; other paths
        unchanged."""
        if not artifacts or self.home is None:
            return artifacts
        path = Path(artifacts).resolve()
        try:
            return path.relative_to(self.home).as_posix()
        except ValueError:
            return str(path)

    def artifacts_path(self, stored: str | None) -> str | None:
        """A stored ``artifacts`` value as a path to use: relative ones are taken from the
        database's directory."""
        if not stored or self.home is None or Path(stored).is_absolute():
            return stored
        return str(self.home / stored)

    def close(self):
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _column_values(self, row: Row, *, made_here: bool = True) -> dict:
        """The row's columns as SQL values (JSON columns as text; the artifacts of a row
        ``made_here`` relative to :attr:`home` when inside it, an imported row's as they are:
        relative to the database already); ``created_at`` only when set (otherwise the
        database stamps it)."""
        values = row.as_dict()
        if made_here:
            values["artifacts"] = self.relative_artifacts(values["artifacts"])
        if values["created_at"] is None:
            values.pop("created_at")
        for name in JSON_COLUMNS:
            if values[name] is not None:
                values[name] = json.dumps(values[name], sort_keys=True)
        return values

    def _write_runs(self, key: str, runs) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO pnr_runs (point_key, batch, target_mhz, seed, achieved_mhz, "
            "ok, seconds, report_path, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(key, r.batch, r.target_mhz, r.seed, r.achieved_mhz, int(r.ok), r.seconds,
              r.report_path, r.reason) for r in runs])

    def put(self, row: Row, runs=None, *, owner: str | None = None) -> None:
        """Insert or replace one row, atomically; with ``runs`` (a list of :class:`PnrRun`),
        replace the point's Fmax-search runs in the same transaction; with ``owner``, drop its
        claim of the point in that transaction too."""
        values = self._column_values(replace(row, created_at=None))
        columns = ", ".join(values)
        marks = ", ".join(f":{c}" for c in values)
        with self._transaction():
            self._db.execute(f"INSERT OR REPLACE INTO points ({columns}) VALUES ({marks})", values)
            if runs is not None:
                self._db.execute("DELETE FROM pnr_runs WHERE point_key = ?", (row.key,))
                self._write_runs(row.key, runs)
            if owner is not None:
                self._db.execute("DELETE FROM claims WHERE key = ? AND owner = ?",
                                 (row.key, owner))

    def insert(self, row: Row, runs=(), *, replace_stored: bool = False) -> bool:
        """Store a row made elsewhere (:mod:`aesdse.store.exchange`) as it is, its
        ``created_at`` included, with its Fmax-search ``runs``, in one transaction; False, and
        nothing changed, when its key is already stored (unless ``replace_stored``: an
        unreadable stored row is replaced so)."""
        values = self._column_values(row, made_here=False)
        columns = ", ".join(values)
        marks = ", ".join(f":{c}" for c in values)
        verb = "REPLACE" if replace_stored else "IGNORE"
        with self._transaction():
            if replace_stored:
                self._db.execute("DELETE FROM pnr_runs WHERE point_key = ?", (row.key,))
            added = self._db.execute(f"INSERT OR {verb} INTO points ({columns}) VALUES ({marks})",
                                     values).rowcount
            if added:
                self._write_runs(row.key, runs)
        return bool(added)

    def pnr_runs(self, keys=None) -> dict:
        """Point key -> its Fmax-search runs (:class:`PnrRun`, in batch and target order), for
        ``keys`` (default: every point that has runs)."""
        sql = "SELECT * FROM pnr_runs"
        out: dict = {}
        chunks = [None] if keys is None else [list(keys)[i:i + 500]
                                              for i in range(0, len(list(keys)), 500)]
        for chunk in chunks:
            where = "" if chunk is None else f" WHERE point_key IN ({', '.join('?' * len(chunk))})"
            for r in self._db.execute(sql + where + " ORDER BY point_key, batch, target_mhz, seed",
                                      chunk or ()):
                values = dict(r)
                values["ok"] = bool(values["ok"])
                out.setdefault(values["point_key"], []).append(PnrRun(**values))
        return out

    def rows(self, keys=None, *, where: str | None = None, params: tuple = ()) -> list[Row]:
        """Rows, optionally only those with the given keys and/or an SQL ``where`` clause written
        by aesdse itself (user conditions go through :meth:`select_keys`), oldest first."""
        return self._select("key", keys, where, params)

    def rows_by_config(self, config_keys) -> list[Row]:
        """Every row (any provenance) of the given configuration keys, oldest first."""
        return self._select("config_key", config_keys)

    def _select(self, column, values=None, where=None, params=()) -> list[Row]:
        sql = "SELECT * FROM points"
        base = [f"({where})"] if where else []
        if values is None:
            chunks = [None]
        else:
            values = sorted(set(values))
            if not values:
                return []
            # SQLite limits the variables of one statement.
            chunks = [values[i:i + 500] for i in range(0, len(values), 500)]
        out = []
        for chunk in chunks:
            clauses, args = list(base), list(params)
            if chunk is not None:
                clauses.append(f"{column} IN ({', '.join('?' * len(chunk))})")
                args += chunk
            query = sql + (" WHERE " + " AND ".join(clauses) if clauses else "")
            for r in self._db.execute(query.replace("SELECT *", "SELECT rowid, *", 1), args):
                row = self._readable_row(r)
                if row is not None:
                    out.append((r["created_at"] or "", r["rowid"], row))
        return [row for _, _, row in sorted(out, key=lambda item: item[:2])]

    def _readable_row(self, r: sqlite3.Row) -> Row | None:
        """``r`` as a :class:`Row`, or None when a JSON column of it does not parse: the row is
        then named in :attr:`unreadable` (key -> reason) and left out, so one damaged row does
        not stop a report."""
        try:
            return self._row(r)
        except (ValueError, TypeError, RecursionError) as e:  # RowError and JSONDecodeError too
            bad = next((name for name in JSON_COLUMNS if not _parses(r[name])), None)
            self.unreadable[str(r["key"])] = (f"{bad} is not valid JSON ({_clip(str(e), 80)})"
                                              if bad else _clip(str(e), 160))
            return None

    def _row(self, r: sqlite3.Row) -> Row:
        """``r`` as a :class:`Row`, after the row schema's checks (:mod:`.rowcheck`): a row that
        another program or a damaged file left with a wrong type raises, like bad JSON."""
        values = {k: r[k] for k in r.keys() if k != "rowid"}
        for name in JSON_COLUMNS:
            if isinstance(values[name], str):
                values[name] = json.loads(values[name])
            elif values[name] is not None:
                raise RowError(f"{name} must be JSON text, not {type(values[name]).__name__}")
        check_record(values, STATUSES)
        values["artifacts"] = self.artifacts_path(values["artifacts"])
        return Row(**values)

    def columns(self) -> dict[str, str]:
        """Names usable in a :meth:`select_keys` condition -> what each is."""
        names = {r[1]: "column" for r in self._db.execute("PRAGMA table_info(points)")}
        for (name,) in self._db.execute(
                f"SELECT DISTINCT j.key FROM points, json_each({object_sql('params')}) AS j"):
            names.setdefault(name, "parameter")
        for (name,) in self._db.execute(
                f"SELECT DISTINCT j.key FROM points, json_each({object_sql('flow')}) AS j"):
            names.setdefault(f"flow_{name}", "flow option")
        return names

    def select_keys(self, condition: str) -> set[str]:
        """Keys of the rows that satisfy a user's SQL ``condition``.

        The condition sees every column of the ``points`` table, every architecture parameter
        by its name (``round_units = 2 AND sbox = 'composite'``; a parameter named like a column
        is reached as ``json_extract(params, '$.name')``) and every flow option as
        ``flow_<option>`` (``flow_nowidelut = 1``). It is evaluated on its own, in a query that
        may only read (an SQLite authorizer refuses anything else), and must be one expression:
        unbalanced parentheses, ``;`` and comments are refused, so it cannot reach outside its
        own parentheses.

        Raises
        ------
        WhereError
            With SQLite's message and the names that can be used.
        """
        return select_keys(self._db, condition, self.columns())

    def get(self, key: str) -> Row | None:
        """The row ``key``; None when it is not stored or is unreadable (then named in
        :attr:`unreadable`), so a sweep runs it again and replaces it."""
        r = self._db.execute("SELECT * FROM points WHERE key = ?", (key,)).fetchone()
        return self._readable_row(r) if r else None

    def stored(self, key: str) -> bool:
        """Whether a row ``key`` is stored, readable or not."""
        return self._db.execute("SELECT 1 FROM points WHERE key = ?", (key,)).fetchone() is not None

    def keys(self) -> set[str]:
        """Every stored key that is text (a damaged file may hold others: they are no key)."""
        return {r[0] for r in self._db.execute("SELECT key FROM points") if isinstance(r[0], str)}

    def delete(self, keys) -> int:
        """Delete rows (and their Fmax-search runs); returns how many rows went."""
        keys = sorted(set(keys))
        removed = 0
        with self._transaction():
            for i in range(0, len(keys), 500):
                chunk = keys[i:i + 500]
                marks = ", ".join("?" * len(chunk))
                removed += self._db.execute(f"DELETE FROM points WHERE key IN ({marks})",
                                            chunk).rowcount
                self._db.execute(f"DELETE FROM pnr_runs WHERE point_key IN ({marks})", chunk)
        return removed

    def rekey(self, old_key: str, new_key: str, generator: str) -> bool:
        """Give row ``old_key`` the key ``new_key`` and the generator fingerprint ``generator``,
        its Fmax-search runs following it, in one transaction (``aesdse db upgrade``: the
        generated netlist is unchanged, only the fingerprint of its sources moved). False, and
        nothing changed, when ``old_key`` is not stored or ``new_key`` already is."""
        with self._transaction():
            taken = self._db.execute("SELECT 1 FROM points WHERE key = ?", (new_key,)).fetchone()
            if taken is not None and new_key != old_key:
                return False
            changed = self._db.execute("UPDATE points SET key = ?, generator = ? WHERE key = ?",
                                       (new_key, generator, old_key)).rowcount
            if changed:
                self._db.execute("UPDATE pnr_runs SET point_key = ? WHERE point_key = ?",
                                 (new_key, old_key))
        return bool(changed)

    # --- claims of running points -----------------------------------------------------------

    def claim(self, key: str, owner: str, *, unless_stored: bool = False) -> bool:
        """Claim ``key`` for ``owner`` (``<pid>@<host>``) unless a live sweep holds it (or,
        with ``unless_stored``, a readable row of it is stored); True when ``owner`` holds it now.

        The row is looked up in the claim's transaction: a sweep that looked for the row
        before claiming could miss one another sweep stored (dropping its claim) in between,
        and run the point again."""
        pid, _, host = owner.partition("@")
        with self._transaction():
            if unless_stored and self.get(key) is not None:  # an unreadable row is run again
                return False
            held = self._db.execute("SELECT owner, host, pid, heartbeat FROM claims WHERE key = ?",
                                    (key,)).fetchone()
            if held is not None and held["owner"] != owner and _claim_alive(held):
                return False
            self._db.execute("INSERT OR REPLACE INTO claims (key, owner, host, pid, heartbeat) "
                             "VALUES (?, ?, ?, ?, ?)", (key, owner, host, int(pid), time.time()))
        return True

    def claimed_by_others(self, keys, owner: str) -> dict[str, str]:
        """Key -> owner, for the ``keys`` that a live sweep other than ``owner`` is running."""
        out = {}
        keys = list(keys)
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            for held in self._db.execute(
                    f"SELECT key, owner, host, pid, heartbeat FROM claims WHERE key IN "
                    f"({', '.join('?' * len(chunk))})", chunk):
                if held["owner"] != owner and _claim_alive(held):
                    out[held["key"]] = held["owner"]
        return out

    def renew_claims(self, owner: str) -> None:
        """Tell other sweeps that ``owner`` is still running its claimed points."""
        with self._transaction():
            self._db.execute("UPDATE claims SET heartbeat = ? WHERE owner = ?",
                             (time.time(), owner))

    def release(self, owner: str, keys=None) -> None:
        """Drop ``owner``'s claims (only on ``keys`` if given)."""
        with self._transaction():
            if keys is None:
                self._db.execute("DELETE FROM claims WHERE owner = ?", (owner,))
            else:
                self._db.executemany("DELETE FROM claims WHERE key = ? AND owner = ?",
                                     [(k, owner) for k in keys])


def _claim_alive(held) -> bool:
    if held["host"] == socket.gethostname():
        try:
            os.kill(int(held["pid"]), 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return time.time() - held["heartbeat"] < CLAIM_STALE_S


def _parses(text) -> bool:
    try:
        json.loads(text) if text is not None else None
    except (json.JSONDecodeError, TypeError, RecursionError):
        return False
    return True


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
