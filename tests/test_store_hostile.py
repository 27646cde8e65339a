"""Results files and databases from somebody else: nothing named in a row leaves its place, a
bad line is refused before anything is stored, and every reader names a damaged row and goes
on.

The hostile files themselves are kept in ``tests/data/hostile/`` (one JSON Lines file per
probe group of issue 45), so a regression test reads exactly what broke aesdse once.
"""

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.store import where
from aesdse.store.database import Row, Store, WhereError
from aesdse.store.exchange import ExchangeError, export_rows, import_rows, read_rows
from aesdse.store.places import PlaceError, export_file, own_artifact_dir

HOSTILE = Path(__file__).parent / "data" / "hostile"


def _run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exc_info
    return result


def _good(key="k1", **fields) -> dict:
    """An exported line's record of a valid ok row."""
    row = Row(key=key, experiment="e", arch="iterative", params={"sbox": "lut"},
              target="LFE5U-85F-8CABGA381", flow={"freq_mhz": 100.0}, seed=1, freq_mhz=100.0,
              status="ok", luts=4000, ffs=500, brams=0, fmax_mhz=100.0, latency_cycles=11,
              cycles_per_block=10.0, throughput_mbps=1280.0, tool_versions={"yosys": "0.70"})
    return row.as_dict() | {"pnr_runs": []} | fields


def _write(path: Path, records) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in records))
    return path


# --- db prune deletes only a row's own runs/<key> directory ----------------------------------

def _victims(tmp_path):
    """Directories outside the results directory that a crafted row names: one named like its
    row's key, one inside a ``runs`` directory named like it too."""
    outside = tmp_path / "precious"
    (outside / "runs" / "k2").mkdir(parents=True)
    (outside / "k1").mkdir()
    for d in (outside / "k1", outside / "runs" / "k2"):
        (d / "thesis.tex").write_text("years of work")
    return outside


def test_prune_of_imported_rows_never_deletes_outside_the_results_directory(tmp_path):
    outside = _victims(tmp_path)
    crafted = _write(tmp_path / "crafted.jsonl", [
        _good("k1", artifacts=str(outside / "k1"), created_at="2020-01-01T00:00:00Z"),
        _good("k2", artifacts=str(outside / "runs" / "k2"), created_at="2020-01-01T00:00:00Z"),
        _good("k3", artifacts="../precious/k1", created_at="2020-01-01T00:00:00Z")])
    db = tmp_path / "results" / "aesdse.sqlite"
    assert _run("db", "import", crafted, "--db", db).exit_code == 0
    with Store(db, readonly=True) as store:
        assert {r.artifacts for r in store.rows()} == {None}  # foreign paths are dropped
    # A newer row of the same configuration makes the crafted ones prunable.
    with Store(db) as store:
        store.put(Row(**{k: v for k, v in _good("k9").items() if k != "pnr_runs"}))
    result = _run("db", "prune", "--db", db, "--json")
    assert result.exit_code == 0 and json.loads(result.output)["removed"] == 3
    assert (outside / "k1" / "thesis.tex").is_file()
    assert (outside / "runs" / "k2" / "thesis.tex").is_file()


def test_prune_of_a_doctored_database_never_deletes_outside_it(tmp_path):
    # The paths are written into the database file directly, past every check of import.
    outside = _victims(tmp_path)
    results = tmp_path / "results"
    own = results / "runs" / "k4"
    own.mkdir(parents=True)
    (results / "runs" / "k5").symlink_to(outside / "k1")
    db = results / "aesdse.sqlite"
    with Store(db) as store:
        for key in ("k1", "k2", "k4", "k5", "k9"):
            store.put(Row(**{k: v for k, v in _good(key).items() if k != "pnr_runs"}))
    with sqlite3.connect(db) as sql:
        for key, path in (("k1", outside / "k1"), ("k2", outside / "runs" / "k2"),
                          ("k4", own), ("k5", results / "runs" / "k5")):
            sql.execute("UPDATE points SET artifacts = ?, created_at = '2020-01-01T00:00:00Z' "
                        "WHERE key = ?", (str(path), key))
    dry = json.loads(_run("db", "prune", "--db", db, "--dry-run", "--json").output)
    assert dry["artifact_dirs"] == [str(own.resolve())] and dry["removed"] == 0
    result = _run("db", "prune", "--db", db)
    assert result.exit_code == 0 and "4 rows deleted" in result.output
    assert "kept its artifacts" in result.output
    assert not own.exists()  # the one row's own directory went
    assert (outside / "k1" / "thesis.tex").is_file()  # through the link too: nothing
    assert (outside / "runs" / "k2" / "thesis.tex").is_file()
    assert (results / "runs" / "k5").is_symlink()


def test_own_artifact_dir_rules(tmp_path):
    runs = tmp_path / "runs"
    (runs / "abc").mkdir(parents=True)
    (tmp_path / "other" / "runs" / "abc").mkdir(parents=True)
    assert own_artifact_dir("abc", str(runs / "abc"), [tmp_path]) == (runs / "abc").resolve()
    assert own_artifact_dir("abc", str(runs / "abc"), [tmp_path / "other"]) is None
    assert own_artifact_dir("abd", str(runs / "abc"), [tmp_path]) is None
    assert own_artifact_dir("../abc", str(runs / "abc"), [tmp_path]) is None
    assert own_artifact_dir("abc", "runs/abc", [tmp_path]) is None  # relative: never
    assert own_artifact_dir("abc", None, [tmp_path]) is None


# --- db export writes only inside its directory -----------------------------------------------

@pytest.mark.parametrize("name", ["../escaped_rel", "/tmp/abs", "a/../../b", ".hidden", "..",
                                  "a\\b", "x\x00y"])
def test_export_file_refuses_a_name_that_is_a_path(tmp_path, name):
    with pytest.raises(PlaceError, match="not a path|non-empty|printable"):
        export_file(tmp_path / "out", name)


def test_export_file_refuses_a_link(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "e.jsonl").symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(PlaceError, match="symbolic link"):
        export_file(tmp_path / "out", "e")


def test_export_by_experiment_writes_nothing_outside_its_directory(tmp_path):
    db = tmp_path / "db.sqlite"
    with Store(db) as store:
        store.put(Row(**{k: v for k, v in _good("k1").items() if k != "pnr_runs"}))
        store.put(Row(**{k: v for k, v in _good("k2").items() if k != "pnr_runs"}))
    with sqlite3.connect(db) as sql:
        sql.execute("UPDATE points SET experiment = '../escaped_rel' WHERE key = 'k2'")
    out = tmp_path / "a" / "out"
    result = _run("db", "export", "--db", db, "--by-experiment", out)
    # The doctored row is unreadable (its name breaks the row schema): named, not exported.
    assert result.exit_code == 0 and "row k2 of" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["e.jsonl"]
    assert not (tmp_path / "a" / "escaped_rel.jsonl").exists()
    assert sorted(p.name for p in tmp_path.rglob("*.jsonl")) == ["e.jsonl"]


def test_experiment_files_may_not_be_named_like_paths(tmp_path):
    from aesdse.experiment import ExperimentError, parse_experiment
    with pytest.raises(ExperimentError, match=r"^x\.yaml:1: name: '\.\./\.\./x' must be a "
                                              r"plain name, not a path"):
        parse_experiment("name: ../../x\narchitectures:\n  - arch: iterative\n", "x.yaml")


def test_export_has_no_host_and_no_absolute_path_unless_asked(tmp_path):
    db = tmp_path / "db.sqlite"
    run_dir = tmp_path / "runs" / "k1"
    run_dir.mkdir(parents=True)
    with Store(db) as store:
        store.put(Row(**{k: v for k, v in _good("k1", host="lab-pc-7",
                                                artifacts=str(run_dir)).items()
                         if k != "pnr_runs"}))
    with sqlite3.connect(db) as sql:  # stored relative to the database's directory
        assert sql.execute("SELECT artifacts FROM points").fetchone()[0] == "runs/k1"
    plain = json.loads(_run("db", "export", "--db", db).stdout)
    assert plain["host"] is None and plain["artifacts"] == "runs/k1"
    full = json.loads(_run("db", "export", "--db", db, "--host-paths").stdout)
    assert full["host"] == "lab-pc-7" and full["artifacts"] == str(run_dir)
    with Store(db, readonly=True) as store:
        assert store.get("k1").artifacts == str(run_dir)


def test_shipped_reference_rows_carry_no_host_or_absolute_path():
    reference = Path(__file__).resolve().parent.parent / "results" / "reference"
    for path in reference.glob("*.jsonl"):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            assert record["host"] is None and not str(record["artifacts"] or "").startswith("/")
            assert all(not str(r["report_path"] or "").startswith("/")
                       for r in record["pnr_runs"])


# --- parameter names and --where --------------------------------------------------------------

def test_a_parameter_name_with_a_quote_does_not_break_where(tmp_path):
    db = tmp_path / "db.sqlite"
    with Store(db) as store:
        for key in ("k1", "k2"):
            store.put(Row(**{k: v for k, v in _good(key).items() if k != "pnr_runs"}))
    with sqlite3.connect(db) as sql:
        sql.execute("""UPDATE points SET params = '{"a\\"b": 1, "x'') --": 2}' WHERE key = 'k2'""")
    with Store(db, readonly=True) as store:
        assert store.select_keys("luts > 1") == {"k1", "k2"}
        assert store.select_keys("sbox = 'lut'") == {"k1"}
    result = _run("db", "list", "--db", db, "--all")
    assert result.exit_code == 0 and "row k2 of" in result.stderr


def test_a_runaway_where_stops_at_its_limit(tmp_path, monkeypatch):
    db = tmp_path / "db.sqlite"
    with Store(db) as store:
        store.put(Row(**{k: v for k, v in _good("k1").items() if k != "pnr_runs"}))
    forever = ("key IN (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
               "SELECT x FROM c)")
    monkeypatch.setattr(where, "WHERE_LIMIT_STEPS", 2_000_000)
    with Store(db, readonly=True) as store:
        with pytest.raises(WhereError, match=r"stopped after 2,000,000 SQLite steps \(the "
                                             r"limit\); write a simpler condition"):
            store.select_keys(forever)
        assert store.select_keys("luts > 1") == {"k1"}  # the handler is gone afterwards
    monkeypatch.setattr(where, "WHERE_LIMIT_STEPS", 10**12)
    monkeypatch.setattr(where, "WHERE_LIMIT_S", 0.3)
    with Store(db, readonly=True) as store:
        with pytest.raises(WhereError, match=r"stopped after 0\.3 s \(the limit\)"):
            store.select_keys(forever)
    result = _run("db", "export", "--db", db, "--where", forever)
    assert result.exit_code == 1 and "the limit" in result.output


# --- import validates every line first --------------------------------------------------------

#: (what is wrong, the line's record, what the refusal says).
WRONG = [
    ("params a list", _good(params=["sbox", "lut"]), "params ['sbox', 'lut'] must be a JSON "
                                                    "object, not a list"),
    ("params text", _good(params="sbox=lut"), "params 'sbox=lut' must be a JSON object, not "
                                              "text"),
    ("flow a list", _good(flow=[1]), "flow [1] must be a JSON object"),
    ("flow null", _good(flow=None), "flow is missing (null)"),
    ("tool_versions a list", _good(tool_versions=["yosys"]), "tool_versions ['yosys'] must be"),
    ("tool_versions text", _good(tool_versions="yosys"), "tool_versions 'yosys' must be a JSON"),
    ("luts text", _good(luts="many"), "luts 'many' must be an integer, not text"),
    ("luts huge", _good(luts=10**30), "luts 1000000000000000000000000000000 must be 0 to 1e+15"),
    ("luts negative", _good(luts=-1), "luts -1 must be 0 to"),
    ("luts true", _good(luts=True), "luts True must be an integer, not true/false"),
    ("fmax text", _good(fmax_mhz="fast"), "fmax_mhz 'fast' must be a number, not text"),
    ("fmax NaN", '{"fmax_mhz": NaN}', "fmax_mhz nan must be a finite number"),
    ("status unknown", _good(status="great"), "status 'great' must be one of ok, "),
    ("key a path", _good(key="../../etc"), "key '../../etc' must be 1 to 64 letters"),
    ("experiment a path", _good(experiment="../x"), "experiment '../x' must be a plain name"),
    ("parameter name with a quote", _good(params={'a"b': 1}), "params: name 'a\"b' must be an "
                                                              "identifier"),
    ("flow name with a quote", _good(flow={"x') --": 1}), "flow: name \"x') --\" must be an"),
    ("nested too deep", _good(details={"a": json.loads("[" * 40 + "]" * 40)}),
     "is nested deeper than 16 levels"),
    ("JSON nested for ever", "[" * 100_000 + "]" * 100_000, "nested deeper than 16 levels"),
    ("a run of the wrong type", _good(pnr_runs=[{"batch": "x"}]), "pnr_runs: batch 'x' must be"),
    ("config_key of another configuration", _good(config_key="0" * 20), "config_key '"),
    ("not an object", "[1, 2]", "not a JSON object"),
]


def _hostile_line(record) -> str:
    if isinstance(record, str) and record.startswith('{"fmax_mhz"'):
        return json.dumps(_good()).replace('"fmax_mhz": 100.0', '"fmax_mhz": NaN')
    return record if isinstance(record, str) else json.dumps(record)


@pytest.mark.parametrize("what, record, says", WRONG, ids=[w[0] for w in WRONG])
def test_import_refuses_a_wrong_line_with_file_line_and_stores_nothing(tmp_path, what, record,
                                                                      says):
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([json.dumps(_good("g1")), json.dumps(_good("g2")),
                               _hostile_line(record), json.dumps(_good("g3"))]) + "\n")
    with Store(tmp_path / "db.sqlite") as store:
        with pytest.raises(ExchangeError) as error:
            import_rows(store, [path])
        assert any(line.strip().startswith(f"{path}:3: ") and says in line
                   for line in str(error.value).splitlines()), str(error.value)
        assert store.keys() == set()
        result = import_rows(store, [path], skip_malformed=True)
        assert sorted(result.added) == ["g1", "g2", "g3"] and len(result.malformed) == 1
        assert len(store.rows()) == 3 and not store.unreadable


def test_the_kept_hostile_files_are_refused_line_by_line():
    files = sorted(HOSTILE.glob("*.jsonl"))
    assert len(files) >= 2
    for path in files:
        lines = [n for n, line in enumerate(path.read_text().splitlines(), 1)
                 if line.strip() and not line.startswith("#")]
        items, bad = read_rows([path], skip_malformed=True)
        assert not items and [int(b.split(":")[1]) for b in bad] == lines, path


def test_an_import_that_fails_in_the_database_stores_nothing(tmp_path, monkeypatch):
    path = _write(tmp_path / "a.jsonl", [_good("g1"), _good("g2"), _good("g3")])
    calls = []

    def failing_insert(self, row, runs=(), **kw):
        calls.append(row.key)
        if len(calls) == 3:
            raise sqlite3.OperationalError("database or disk is full")
        return original(self, row, runs, **kw)
    original = Store.insert
    monkeypatch.setattr(Store, "insert", failing_insert)
    with Store(tmp_path / "db.sqlite") as store:
        with pytest.raises(ExchangeError, match="nothing imported: database or disk is full"):
            import_rows(store, [path])
        assert store.keys() == set()


def test_an_unreadable_stored_row_is_replaced_by_an_import_of_it(tmp_path):
    path = _write(tmp_path / "a.jsonl", [_good("g1")])
    with Store(tmp_path / "db.sqlite") as store:
        import_rows(store, [path])
    with sqlite3.connect(tmp_path / "db.sqlite") as sql:
        sql.execute("UPDATE points SET params = '[1]'")
    with Store(tmp_path / "db.sqlite") as store:
        assert store.get("g1") is None and "g1" in store.unreadable
        assert import_rows(store, [path]).added == ["g1"]
        assert store.get("g1").params == {"sbox": "lut"}


def test_export_to_an_unwritable_place_is_one_line(tmp_path):
    db = tmp_path / "db.sqlite"
    with Store(db) as store:
        store.put(Row(**{k: v for k, v in _good("k1").items() if k != "pnr_runs"}))
        for target in (Path("/proc/aesdse.jsonl"), tmp_path / "db.sqlite" / "x.jsonl"):
            with pytest.raises(ExchangeError, match="cannot write"):
                export_rows(store, target, store.rows())
    result = _run("db", "export", "--db", db, "-o", "/proc/x/y.jsonl")
    assert result.exit_code == 1 and result.output.startswith("Error: /proc/x/y.jsonl: cannot "
                                                              "write")


# --- every reader tolerates damaged rows: a generator of corruptions, 0 tracebacks ----------

#: Values a damaged or doctored database may hold in a column, by what they break.
CORRUPTIONS = ["{not json", "[1, 2]", '"text"', "null", "1e999", '{"a": ' * 30 + "1" + "}" * 30,
               "", "[" * 5000 + "]" * 5000, '{"a\\"b": 1}', "NaN", -5, 10**18, 3.5, "many",
               b"\xff\xfe", None]
COLUMNS = ["params", "flow", "tool_versions", "manifest", "verify", "fmax_by_clock", "details",
           "luts", "fmax_mhz", "status", "experiment", "key", "seed", "created_at", "target",
           "throughput_mbps", "artifacts"]


def _damaged_db(tmp_path, seed: int, count: int) -> tuple[Path, set]:
    """A database of ``count`` good rows, then ``count`` of them damaged at random (fixed
    ``seed``); returns its path and the keys left intact."""
    import random
    rng = random.Random(seed)
    db = tmp_path / f"damaged{seed}.sqlite"
    with Store(db) as store:
        for n in range(count):
            store.put(Row(**{k: v for k, v in _good(f"k{n}", seed=n + 1,
                                                    flow={"freq_mhz": 100.0, "seed": n + 1}
                                                    ).items() if k != "pnr_runs"}))
    damaged = set()
    with sqlite3.connect(db) as sql:
        for n in rng.sample(range(count), count // 2):
            column, value = rng.choice(COLUMNS), rng.choice(CORRUPTIONS)
            try:
                sql.execute(f"UPDATE points SET {column} = ? WHERE key = ?", (value, f"k{n}"))
            except sqlite3.IntegrityError:  # NOT NULL or a duplicate key
                continue
            damaged.add(f"k{n}")
    return db, {f"k{n}" for n in range(count)} - damaged


READERS = [["report"], ["report", "--format", "json"], ["report", "--format", "html", "-o",
                                                          "{tmp}/r.html"],
           ["report", "--format", "csv"], ["report", "--format", "latex"],
           ["plot", "--kind", "pareto", "-o", "{tmp}/p.png"], ["db", "list", "--all"],
           ["db", "list", "--json"], ["db", "export"], ["db", "prune", "--dry-run"],
           ["db", "compare", "k0"], ["db", "delete", "--where", "luts > 0", "--dry-run"]]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_readers_name_damaged_rows_and_go_on(tmp_path, seed):
    db, intact = _damaged_db(tmp_path, seed, 24)
    for command in READERS:
        if command[:2] == ["db", "delete"] and "delete" not in main.commands["db"].commands:
            continue
        args = [a.format(tmp=tmp_path) for a in command] + ["--db", db]
        result = CliRunner().invoke(main, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            (args, result.exc_info)
        assert "Traceback" not in result.output
        assert result.exit_code in (0, 1), (args, result.output)
    with Store(db, readonly=True) as store:
        readable = {r.key for r in store.rows()}
        # Every row is either read or named unreadable; no intact row is lost, and some damage
        # is caught (a damage may also leave a valid row: luts null, another text).
        assert intact <= readable and store.unreadable and not readable & set(store.unreadable)
    with sqlite3.connect(db) as sql:
        assert len(readable) + len(store.unreadable) == \
            sql.execute("SELECT count(*) FROM points").fetchone()[0]


def test_fuzzed_import_lines_are_stored_or_refused_never_a_traceback(tmp_path):
    # 400 lines, each a valid row with one to three columns replaced by a value of another
    # type (fixed seed): every line is either stored or refused with its file:line.
    import random
    rng = random.Random(45)
    values = [None, "", "x", -1, 0, 2**70, 1.5, float("inf"), True, [], [1], {}, {"a": {}},
              {'q"': 1}, "../..", "/abs", "a" * 200, "\x00",
              {"a": json.loads("[" * 19 + "]" * 19)}]
    columns = list(_good()) + ["surprise"]
    lines = []
    for n in range(400):
        record = _good(f"f{n}")
        for _ in range(rng.randint(1, 3)):
            record[rng.choice(columns)] = rng.choice(values)
        try:
            lines.append(json.dumps(record))
        except ValueError:  # inf is not JSON: write it as Python's json does
            lines.append(json.dumps(record, allow_nan=True))
    path = tmp_path / "fuzz.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with Store(tmp_path / "db.sqlite") as store:
        result = import_rows(store, [path], skip_malformed=True)
        assert len(result.added) + len(result.malformed) + len(result.present) + \
            len(result.conflicts) == 400
        assert all(m.startswith(f"{path}:") for m in result.malformed)
        assert 50 < len(result.malformed) < 400  # both outcomes were exercised
        assert len(store.rows()) == len(set(result.added)) and not store.unreadable
    for command in (["report"], ["db", "list", "--all"], ["db", "export"]):
        outcome = CliRunner().invoke(main, command + ["--db", str(tmp_path / "db.sqlite")])
        assert outcome.exit_code == 0 and outcome.exception is None, outcome.exc_info


def test_artifacts_given_relative_to_the_working_directory_are_stored_relative_to_the_database(
        tmp_path, monkeypatch):
    # `aesdse sweep` with the default --results-dir results passes relative paths.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "runs" / "k1").mkdir(parents=True)
    with Store("results/aesdse.sqlite") as store:
        store.put(Row(**{k: v for k, v in _good("k1", artifacts="results/runs/k1").items()
                         if k != "pnr_runs"}))
        assert store.get("k1").artifacts == str(tmp_path / "results" / "runs" / "k1")
    with sqlite3.connect(tmp_path / "results" / "aesdse.sqlite") as sql:
        assert sql.execute("SELECT artifacts FROM points").fetchone()[0] == "runs/k1"
