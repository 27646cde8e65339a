"""Store stage: the SQLite results database.

One row per design point, keyed by the point's stable key (:meth:`DesignPoint.key`). A sweep
skips every key already stored, so re-running it does no work; ``--force`` replaces rows.

Rows are written in one transaction each, after every artifact of the point is in place, so a
killed sweep never leaves a half-written row. The database runs in WAL mode with a busy timeout,
so two sweeps may write it at once.

The schema is versioned with ``PRAGMA user_version``; :data:`MIGRATIONS` upgrades an older file in
place, keeping its results.
"""

import json
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

__all__ = ["STATUSES", "Row", "PnrRun", "Store", "MIGRATIONS", "SCHEMA_VERSION"]

#: Point statuses. Only ``ok`` rows carry area and speed numbers.
STATUSES = ("ok", "failed-generate", "failed-verification", "failed-flow")

#: Schema migrations: entry n upgrades a database from version n to n + 1.
MIGRATIONS = [
    """
    CREATE TABLE points (
        key TEXT PRIMARY KEY,
        experiment TEXT NOT NULL,
        arch TEXT NOT NULL,
        params TEXT NOT NULL,            -- JSON object
        target TEXT NOT NULL,            -- label, e.g. LFE5U-85F-8CABGA381
        flow TEXT NOT NULL,              -- JSON object of FlowOptions
        seed INTEGER NOT NULL,
        freq_mhz REAL NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        luts INTEGER, ffs INTEGER, brams INTEGER, carries INTEGER, dsps INTEGER,
        slices INTEGER,
        fmax_mhz REAL, fmax_raw_mhz REAL, fmax_capped TEXT,
        latency_cycles INTEGER, cycles_per_block REAL,
        throughput_mbps REAL, mbps_per_lut REAL, mbps_per_slice REAL,
        rtlil_digest TEXT,
        tool_versions TEXT,              -- JSON object
        host TEXT,
        sim_seconds REAL, synth_seconds REAL, pnr_seconds REAL,
        artifacts TEXT,                  -- directory with Verilog/RTLIL, logs, report
        manifest TEXT,                   -- JSON object
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
    );
    CREATE INDEX points_experiment ON points (experiment);
    """,
    # 1: which stages came from the staged cache (aesdse.cache) and the point's wall time.
    """
    ALTER TABLE points ADD COLUMN cache_hits TEXT;   -- e.g. "design,synth", NULL if none
    ALTER TABLE points ADD COLUMN wall_seconds REAL  -- whole point, on the machine that ran it
    """,
    # 2: every nextpnr run of an Fmax search (aesdse.fmax_search), one row per (target, seed).
    """
    CREATE TABLE pnr_runs (
        point_key TEXT NOT NULL,         -- points.key of the searching point
        batch INTEGER NOT NULL,          -- 0, 1, ...: the search's batch that ran it
        target_mhz REAL NOT NULL,        -- nextpnr --freq
        seed INTEGER NOT NULL,           -- nextpnr --seed
        achieved_mhz REAL,               -- NULL when the run did not route
        ok INTEGER NOT NULL,             -- 1: routed and reported a clock
        seconds REAL,                    -- nextpnr wall time (of the original run if cached)
        report_path TEXT,                -- nextpnr --report JSON of the run
        reason TEXT,                     -- why it failed
        PRIMARY KEY (point_key, target_mhz, seed)
    );
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


@dataclass
class Row:
    """One stored design point (the columns of the ``points`` table)."""
    key: str
    experiment: str
    arch: str
    params: dict
    target: str
    flow: dict
    seed: int
    freq_mhz: float
    status: str
    reason: str | None = None
    luts: int | None = None
    ffs: int | None = None
    brams: int | None = None
    carries: int | None = None
    dsps: int | None = None
    slices: int | None = None
    fmax_mhz: float | None = None
    fmax_raw_mhz: float | None = None
    fmax_capped: str | None = None
    latency_cycles: int | None = None
    cycles_per_block: float | None = None
    throughput_mbps: float | None = None
    mbps_per_lut: float | None = None
    mbps_per_slice: float | None = None
    rtlil_digest: str | None = None
    tool_versions: dict = field(default_factory=dict)
    host: str | None = None
    sim_seconds: float | None = None
    synth_seconds: float | None = None
    pnr_seconds: float | None = None
    artifacts: str | None = None
    manifest: dict | None = None
    created_at: str | None = None
    cache_hits: str | None = None
    wall_seconds: float | None = None

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"Status must be one of {', '.join(STATUSES)}, not {self.status!r}")
        if self.status != "ok" and any(getattr(self, n) is not None for n in _NUMBERS):
            raise ValueError(f"A {self.status} point carries no numbers")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class PnrRun:
    """One nextpnr run of an Fmax search (the columns of the ``pnr_runs`` table)."""
    point_key: str
    batch: int
    target_mhz: float
    seed: int
    achieved_mhz: float | None
    ok: bool
    seconds: float | None = None
    report_path: str | None = None
    reason: str | None = None


_NUMBERS = ("luts", "ffs", "brams", "slices", "fmax_mhz", "throughput_mbps")
_JSON = ("params", "flow", "tool_versions", "manifest")


class Store:
    """The results database at ``path`` (created, or migrated, on open)."""

    def __init__(self, path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA busy_timeout = 60000")
        # Switching to WAL takes an exclusive lock and SQLite does not wait for it (the busy
        # timeout does not apply): two sweeps opening a new database at once got "database is
        # locked". Retry for a while instead.
        for attempt in range(200):
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                break
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or attempt == 199:
                    raise
                time.sleep(0.05)
        self._migrate()

    def _migrate(self):
        with self._transaction():
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise RuntimeError(f"{self.path} has schema version {version}, newer than this "
                                   f"aesdse ({SCHEMA_VERSION}): upgrade aesdse")
            for n in range(version, SCHEMA_VERSION):
                # Comments are dropped first: ALTER TABLE copies a column definition verbatim
                # into the stored schema, where a trailing "--" comment would swallow the ")".
                script = "\n".join(line.split("--")[0] for line in MIGRATIONS[n].splitlines())
                for statement in script.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _transaction(self):
        db = self._db

        class _Tx:
            def __enter__(self):
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type, exc, tb):
                db.execute("ROLLBACK" if exc_type else "COMMIT")
        return _Tx()

    def close(self):
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def put(self, row: Row, runs=None) -> None:
        """Insert or replace one row, atomically; with ``runs`` (a list of :class:`PnrRun`),
        replace the point's Fmax-search runs in the same transaction."""
        values = row.as_dict()
        values.pop("created_at")
        for name in _JSON:
            values[name] = json.dumps(values[name], sort_keys=True)
        columns = ", ".join(values)
        marks = ", ".join(f":{c}" for c in values)
        with self._transaction():
            self._db.execute(f"INSERT OR REPLACE INTO points ({columns}) VALUES ({marks})", values)
            if runs is not None:
                self._db.execute("DELETE FROM pnr_runs WHERE point_key = ?", (row.key,))
                self._db.executemany(
                    "INSERT OR REPLACE INTO pnr_runs (point_key, batch, target_mhz, seed, "
                    "achieved_mhz, ok, seconds, report_path, reason) VALUES (?, ?, ?, ?, ?, ?, ?, "
                    "?, ?)",
                    [(row.key, r.batch, r.target_mhz, r.seed, r.achieved_mhz, int(r.ok),
                      r.seconds, r.report_path, r.reason) for r in runs])

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

    def _row(self, r: sqlite3.Row) -> Row:
        values = dict(r)
        for name in _JSON:
            values[name] = json.loads(values[name]) if values[name] is not None else None
        return Row(**values)

    def get(self, key: str) -> Row | None:
        r = self._db.execute("SELECT * FROM points WHERE key = ?", (key,)).fetchone()
        return self._row(r) if r else None

    def keys(self) -> set[str]:
        return {r[0] for r in self._db.execute("SELECT key FROM points")}

    def rows(self, keys=None, *, where: str | None = None, params: tuple = ()) -> list[Row]:
        """Rows, optionally only those with the given keys and/or an SQL ``where`` clause."""
        sql = "SELECT * FROM points"
        clauses, args = [], list(params)
        if where:
            clauses.append(f"({where})")
        if keys is not None:
            keys = list(keys)
            if not keys:
                return []
            clauses.append(f"key IN ({', '.join('?' * len(keys))})")
            args += keys
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY created_at, key"
        return [self._row(r) for r in self._db.execute(sql, args)]

    def integrity_check(self) -> str:
        return self._db.execute("PRAGMA integrity_check").fetchone()[0]
