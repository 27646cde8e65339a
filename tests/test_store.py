"""The results database: rows round-trip, failed rows carry no numbers, schema is versioned."""

import sqlite3

import pytest

from aesdse.store.database import MIGRATIONS, SCHEMA_VERSION, Row, Store, StoreError, WhereError
from aesdse.spec.schema import config_key

from database_checks import integrity_check


def _row(key="k1", **fields):
    base = dict(key=key, experiment="e", arch="iterative", params={"sbox": "lut"},
                target="LFE5U-85F-8CABGA381", flow={"freq_mhz": 100.0}, seed=1, freq_mhz=100.0,
                status="ok", luts=4000, ffs=500, fmax_mhz=100.0, throughput_mbps=1280.0)
    base.update(fields)
    return Row(**base)


def test_round_trip(tmp_path):
    with Store(tmp_path / "r.sqlite") as store:
        store.put(_row())
        got = store.get("k1")
        assert got.params == {"sbox": "lut"} and got.luts == 4000 and got.status == "ok"
        assert store.keys() == {"k1"}
        assert integrity_check(store.path) == "ok"


def test_replace_and_filter(tmp_path):
    with Store(tmp_path / "r.sqlite") as store:
        store.put(_row("a"))
        store.put(_row("b", luts=100))
        store.put(_row("a", luts=7))
        assert [r.luts for r in store.rows(["a"])] == [7]
        assert [r.key for r in store.rows(where="luts < ?", params=(50,))] == ["a"]
        assert store.rows([]) == []


def test_failed_rows_carry_no_numbers():
    with pytest.raises(ValueError, match="^A failed-flow point carries no numbers$"):
        _row(status="failed-flow")
    row = Row(key="f", experiment="e", arch="iterative", params={}, target="t", flow={}, seed=1,
              freq_mhz=100.0, status="failed-verification", reason="mismatch")
    assert row.luts is None


def test_a_netlist_mismatch_row_round_trips_without_numbers(tmp_path):
    """The status of aesdse.verify.netlist needs no schema change: a row stores it with its
    reason (the first differing transfer) and no numbers."""
    from aesdse.verify.netlist import NETLIST_MISMATCH
    reason = "stream o transfer 0 (FIPS-197 C.1 (encrypt)): RTL at edge 12 payload 1, ..."
    with pytest.raises(ValueError, match="carries no numbers"):
        _row(status=NETLIST_MISMATCH)
    with Store(tmp_path / "r.sqlite") as store:
        store.put(_row("m", status=NETLIST_MISMATCH, reason=reason, luts=None, ffs=None,
                       fmax_mhz=None, throughput_mbps=None))
        got = store.get("m")
        assert (got.status, got.reason, got.luts) == ("netlist-mismatch", reason, None)


def test_unknown_status_is_refused():
    with pytest.raises(ValueError, match="^Status must be one of ok, "):
        _row(status="done")


def test_schema_version_is_recorded_and_newer_files_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer than this aesdse"):
        Store(path)


# --- selection by meaning (issue 13) -----------------------------------------------------------


def _two_configs(path):
    store = Store(path)
    store.put(_row("a", params={"sbox": "composite", "round_units": 2}, luts=900))
    store.put(_row("b", params={"sbox": "lut", "round_units": 2}, luts=4000))
    store.put(_row("c", params={"sbox": "composite", "round_units": 1},
                   flow={"freq_mhz": 100.0, "nowidelut": True}, luts=500))
    return store


def test_where_sees_parameters_and_flow_options_by_name(tmp_path):
    with _two_configs(tmp_path / "r.sqlite") as store:
        assert store.select_keys("round_units = 2 AND sbox = 'composite'") == {"a"}
        assert store.select_keys("sbox = 'composite'") == {"a", "c"}
        assert store.select_keys("flow_nowidelut = 1") == {"c"}
        assert store.select_keys("luts < 1000 AND round_units >= 1") == {"a", "c"}
        with pytest.raises(WhereError, match="no such column: nope; names you can use: .*"
                                             "flow_nowidelut.*round_units"):
            store.select_keys("nope = 1")


@pytest.mark.parametrize("condition, message", [
    ("1); DROP TABLE points; --", "unbalanced"),
    ("1 = 1; DELETE FROM points", "one condition only, no ';'"),
    ("1 = 1 -- comment", "comments are not allowed"),
    ("sbox = 'lut", "unterminated string"),
    ("(1 = 1", "unbalanced"),
])
def test_where_cannot_reach_outside_its_expression(tmp_path, condition, message):
    with _two_configs(tmp_path / "r.sqlite") as store:
        with pytest.raises(WhereError, match=message):
            store.select_keys(condition)
        assert store.keys() == {"a", "b", "c"}


def test_where_may_use_subqueries_but_only_read(tmp_path):
    with _two_configs(tmp_path / "r.sqlite") as store:
        assert store.select_keys("key IN (SELECT key FROM points WHERE luts > 1000)") == {"b"}
        with pytest.raises(WhereError, match="not authorized"):
            store.select_keys("key IN (SELECT name FROM pragma_table_info('points'))")
        assert store.keys() == {"a", "b", "c"}


def test_readonly_store_refuses_writes_and_foreign_files(tmp_path):
    path = tmp_path / "r.sqlite"
    _two_configs(path).close()
    with Store(path, readonly=True) as store:
        assert len(store.rows()) == 3
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store.put(_row("d"))
    text = tmp_path / "notes.txt"
    text.write_text("not a database, but plenty of text in it " * 100)
    with pytest.raises(StoreError, match="not an aesdse results database"):
        Store(text, readonly=True)
    with pytest.raises(StoreError, match="no results database"):
        Store(tmp_path / "missing.sqlite", readonly=True)


def test_old_database_is_migrated_and_gets_config_keys(tmp_path):
    # A database written by schema version 3 (before configuration keys): opened by this aesdse,
    # it is upgraded in place and every row gets the configuration key a new sweep would give.
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    for step in MIGRATIONS[:3]:  # as aesdse applied them: without the SQL comments
        db.executescript("\n".join(line.split("--")[0] for line in step.splitlines()))
    db.execute("INSERT INTO points (key, experiment, arch, params, target, flow, seed, freq_mhz, "
               "status, luts) VALUES ('old', 'e', 'iterative', '{\"sbox\": \"lut\"}', "
               "'LFE5U-85F-8CABGA381', '{\"freq_mhz\": 100.0, \"pnr_timeout_s\": 60}', 1, "
               "100.0, 'ok', 4000)")
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    with Store(path) as store:
        (row,) = store.rows()
        assert row.config_key == config_key("iterative", {"sbox": "lut"},
                                            "LFE5U-85F-8CABGA381", {"freq_mhz": 100.0})
        assert row.generator is None and row.luts == 4000
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
