"""The schema of the results database and its migrations.

The schema is versioned with ``PRAGMA user_version``: entry n of :data:`MIGRATIONS` upgrades a
database from version n to n + 1, so a file written by any earlier aesdse is upgraded in place
(:func:`migrate`), keeping its results. A migration is an SQL script or a function of the
connection (one that fills a new column from the stored ones). The records these tables hold
are :mod:`aesdse.store.rows`.
"""

import json

from ..spec.schema import config_key

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate"]

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
    # 1: which stages came from the staged cache (aesdse.engine.cache) and the point's wall time.
    """
    ALTER TABLE points ADD COLUMN cache_hits TEXT;   -- e.g. "design,synth", NULL if none
    ALTER TABLE points ADD COLUMN wall_seconds REAL  -- whole point, on the machine that ran it
    """,
    # 2: every nextpnr run of an Fmax search (aesdse.engine.fmax_search), one row per (target, seed).
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


def _fill_config_keys(db) -> None:
    """Migration 3: the configuration key of every existing row, from its stored columns."""
    rows = db.execute("SELECT key, arch, params, target, flow FROM points").fetchall()
    db.executemany("UPDATE points SET config_key = ? WHERE key = ?", [
        (config_key(arch, json.loads(params), target, json.loads(flow)), key)
        for key, arch, params, target, flow in rows])


MIGRATIONS += [
    # 3: results that survive code changes (configuration key, generator fingerprint,
    # verification options), per-clock Fmax, verification details, and claims of running points.
    """
    ALTER TABLE points ADD COLUMN config_key TEXT;     -- config_key(): what was measured
    ALTER TABLE points ADD COLUMN generator TEXT;      -- aesdse.store.provenance.generator_fingerprint
    ALTER TABLE points ADD COLUMN verify TEXT;         -- JSON VerifyOptions
    ALTER TABLE points ADD COLUMN fmax_by_clock TEXT;  -- JSON clock -> MHz from nextpnr, uncapped
    ALTER TABLE points ADD COLUMN details TEXT;        -- JSON Verification.details (timing)
    CREATE INDEX points_config ON points (config_key);
    CREATE TABLE claims (
        key TEXT PRIMARY KEY,            -- points.key being run
        owner TEXT NOT NULL,             -- <pid>@<host> of the sweep running it
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        heartbeat REAL NOT NULL          -- time.time() of the last renewal
    );
    """,
    _fill_config_keys,
]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(db, version: int) -> None:
    """Bring the database ``db`` (an open connection, inside a write transaction) from schema
    ``version`` to :data:`SCHEMA_VERSION` and stamp it with that version."""
    for n in range(version, SCHEMA_VERSION):
        if callable(MIGRATIONS[n]):
            MIGRATIONS[n](db)
            continue
        # Comments are dropped first: ALTER TABLE copies a column definition verbatim
        # into the stored schema, where a trailing "--" comment would swallow the ")".
        script = "\n".join(line.split("--")[0] for line in MIGRATIONS[n].splitlines())
        for statement in script.split(";"):
            if statement.strip():
                db.execute(statement)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
