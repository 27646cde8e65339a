# amaranth: UnusedElaboratable=no
"""Faults of the database's place, not of a design: a database another process keeps locked, a
full disk, read-only media, a damaged stored row. Each gives one clear line, and no finished
result is lost.

The tools are the fake ones of ``tests/test_sweep.py``; the lock is a real SQLite write lock held
by a second connection, the full disk a real tmpfs of a few hundred KiB and the read-only media a
real read-only bind mount (both need root, as CI has; skipped with the reason elsewhere).
"""

import contextlib
import os
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.engine.sweep import UNSAVED_FILE
from aesdse.store import database
from aesdse.store.database import Store

from test_sweep import _yaml, fake_tools  # noqa: F401 (a fixture)


def _sweep(yaml, db, results, *more):
    result = CliRunner().invoke(main, ["sweep", str(yaml), "--db", str(db), "--results-dir",
                                       str(results), "--no-netlist-verify", "-j", "1", *more])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exc_info
    return result


@pytest.fixture
def lock_after_claim(monkeypatch):
    """Once the sweep has claimed its point, a second connection takes the database's write
    lock (``BEGIN IMMEDIATE``) and holds it; returns that connection's holder."""
    held = {}
    original = Store.claim

    def claim(self, key, owner, **kwargs):
        taken = original(self, key, owner, **kwargs)
        other = sqlite3.connect(self.path, timeout=0, isolation_level=None,
                                check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        held["db"] = other
        return taken
    monkeypatch.setattr(Store, "claim", claim)
    monkeypatch.setattr(database, "BUSY_TIMEOUT_S", 0.1)
    held["claim"] = original
    yield held
    if "db" in held:
        with contextlib.suppress(sqlite3.Error):
            held["db"].execute("ROLLBACK")
        held["db"].close()


def test_a_database_locked_for_too_long_keeps_the_row_in_a_file(tmp_path, fake_tools,
                                                                lock_after_claim, monkeypatch):
    monkeypatch.setattr(database, "LOCK_WAIT_S", 0.5)
    yaml, db, results = _yaml(tmp_path / "x.yaml"), tmp_path / "db.sqlite", tmp_path / "results"
    result = _sweep(yaml, db, results)
    assert result.exit_code == 1
    unsaved = results / UNSAVED_FILE
    last = result.output.strip().splitlines()[-1]
    assert last.startswith(f"Error: {db}: locked by another process")
    assert f"the finished row is kept in {unsaved}: load it with `aesdse db import" in last
    assert "is locked by another process: waiting up to 0.5 s" in result.output
    assert len(unsaved.read_text().splitlines()) == 1
    lock_after_claim.pop("db").close()  # the other process lets go
    monkeypatch.setattr(Store, "claim", lock_after_claim["claim"])
    assert CliRunner().invoke(main, ["db", "import", str(unsaved), "--db", str(db)]).exit_code == 0
    runs = len(fake_tools())
    again = _sweep(yaml, db, results)
    assert again.exit_code == 0 and "1 cached" in again.output and len(fake_tools()) == runs


def test_a_lock_let_go_within_the_wait_stores_the_row(tmp_path, fake_tools, lock_after_claim,
                                                      monkeypatch):
    monkeypatch.setattr(database, "LOCK_WAIT_S", 30.0)
    yaml, db, results = _yaml(tmp_path / "x.yaml"), tmp_path / "db.sqlite", tmp_path / "results"
    original_put = Store.put

    def put(self, *args, **kwargs):
        if "db" in lock_after_claim:  # let go a moment after the first refused write
            threading.Timer(0.5, lock_after_claim.pop("db").execute, ["ROLLBACK"]).start()
        return original_put(self, *args, **kwargs)
    monkeypatch.setattr(Store, "put", put)
    result = _sweep(yaml, db, results)
    assert result.exit_code == 0, result.output
    assert "waiting up to 30 s" in result.output and not (results / UNSAVED_FILE).exists()
    with Store(db, readonly=True) as store:
        assert [r.status for r in store.rows()] == ["ok"]


def _mount(*args) -> None:
    try:
        subprocess.run(["mount", *map(str, args)], check=True, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip(f"needs mount (root, as in CI): {e}")


@pytest.fixture
def small_disk(tmp_path):
    """A real file system of 512 KiB (tmpfs)."""
    where = tmp_path / "small"
    where.mkdir()
    _mount("-t", "tmpfs", "-o", "size=512k", "tmpfs", where)
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(where: Path) -> None:
    with contextlib.suppress(OSError), open(where / "filler", "wb") as f:
        while True:
            f.write(b"\0" * 4096)
            f.flush()


def test_a_full_disk_keeps_the_finished_row_and_says_so(tmp_path, fake_tools, small_disk,
                                                        monkeypatch):
    yaml, db, results = _yaml(tmp_path / "x.yaml"), small_disk / "db.sqlite", tmp_path / "results"
    original = Store.claim

    def claim(self, key, owner, **kwargs):  # the disk fills up while the point runs
        taken = original(self, key, owner, **kwargs)
        _fill(small_disk)
        return taken
    monkeypatch.setattr(Store, "claim", claim)
    result = _sweep(yaml, db, results)
    assert result.exit_code == 1
    last = result.output.strip().splitlines()[-1]
    assert last.startswith(f"Error: {db}: the disk is full") and "kept in" in last
    assert "Traceback" not in result.output
    (small_disk / "filler").unlink()
    monkeypatch.setattr(Store, "claim", original)
    assert CliRunner().invoke(main, ["db", "import", str(results / UNSAVED_FILE), "--db",
                                     str(db)]).exit_code == 0
    with Store(db, readonly=True) as store:
        assert [r.status for r in store.rows()] == ["ok"]


def test_read_only_media_can_be_reported_on_but_not_swept(tmp_path, fake_tools):
    yaml, results = _yaml(tmp_path / "x.yaml"), tmp_path / "results"
    src, ro = tmp_path / "src", tmp_path / "ro"
    src.mkdir(), ro.mkdir()
    assert _sweep(yaml, src / "db.sqlite", results).exit_code == 0
    _mount("--bind", src, ro)
    try:
        _mount("-o", "remount,ro,bind", ro)
        report = CliRunner().invoke(main, ["report", "--db", str(ro / "db.sqlite")])
        assert report.exit_code == 0 and "LFE5U-85F" in report.output, report.output
        swept = _sweep(yaml, ro / "db.sqlite", results)
        assert swept.exit_code == 1 and "read-only" in swept.output.splitlines()[-1]
    finally:
        subprocess.run(["umount", "-l", str(ro)], check=False)


def test_a_damaged_row_is_run_again_by_the_next_sweep(tmp_path, fake_tools):
    yaml, db, results = _yaml(tmp_path / "x.yaml"), tmp_path / "db.sqlite", tmp_path / "results"
    assert _sweep(yaml, db, results).exit_code == 0
    with sqlite3.connect(db) as sql:
        sql.execute("UPDATE points SET details = '{broken', params = '[1]'")
    dry = CliRunner().invoke(main, ["sweep", str(yaml), "--db", str(db), "--dry-run"])
    assert dry.exit_code == 0 and "1 to run" in dry.output, dry.output
    again = _sweep(yaml, db, results)
    assert again.exit_code == 0 and "1 run, 0 cached" in again.output, again.output
    with Store(db, readonly=True) as store:
        assert [r.status for r in store.rows()] == ["ok"] and not store.unreadable


def test_unwritable_outputs_are_one_line(tmp_path, fixture_db):
    for args in (["report", "-o", "/proc/report.md"],
                 ["report", "--format", "html", "-o", "/proc/report.html"],
                 ["plot", "--kind", "pareto", "-o", "/proc/p.png"],
                 ["db", "export", "-o", "/proc/x.jsonl"]):
        result = CliRunner().invoke(main, args + ["--db", str(fixture_db)])
        assert result.exit_code == 1 and result.exception is None or \
            isinstance(result.exception, SystemExit), (args, result.exc_info)
        assert result.output.startswith("Error: /proc/") and "cannot write" in result.output, \
            (args, result.output)
    generated = CliRunner().invoke(main, ["generate", "sbox", "-o", "/proc/out"])
    assert generated.exit_code == 1 and "cannot write" in generated.output, generated.output
    assert not os.path.exists("/proc/report.md")


def test_an_immutable_database_is_reported_on_and_a_sweep_says_it_is_read_only(tmp_path,
                                                                                fake_tools):
    yaml, db, results = _yaml(tmp_path / "x.yaml"), tmp_path / "db.sqlite", tmp_path / "results"
    assert _sweep(yaml, db, results).exit_code == 0
    try:
        subprocess.run(["chattr", "+i", str(db)], check=True, capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip(f"needs chattr on a file system with the immutable flag (root): {e}")
    try:
        report = CliRunner().invoke(main, ["report", "--db", str(db)])
        assert report.exit_code == 0 and "LFE5U-85F" in report.output, report.output
        swept = _sweep(yaml, db, results, "--force")
        last = swept.output.splitlines()[-1]
        assert swept.exit_code == 1 and last.startswith(
            f"Error: {db}: read-only: cannot be written here (attempt to write a readonly "
            f"database)"), swept.output
    finally:
        subprocess.run(["chattr", "-i", str(db)], check=False)
