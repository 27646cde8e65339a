"""The results database: rows round-trip, failed rows carry no numbers, schema is versioned."""

import sqlite3

import pytest

from aesdse.store import SCHEMA_VERSION, Row, Store


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
        assert store.integrity_check() == "ok"


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
    with pytest.raises(RuntimeError, match="newer than this aesdse"):
        Store(path)
