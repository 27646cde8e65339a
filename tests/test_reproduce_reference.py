"""``aesdse reproduce --no-sweep`` and ``--reference`` read the exported reference results."""

from dataclasses import replace

import pytest
from click.testing import CliRunner

import aesdse.reproduce
from aesdse.cli import main
from aesdse.experiment import load_experiment
from aesdse.flow.tools import tool_versions
from aesdse.store.database import Store
from aesdse.store.exchange import export_rows

from conftest import fixture_rows
from test_report import _fake_compact

TABLE_ROW = "| 000 Table III: table 32 | 700 / 1,347 (0.52x) |"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def reference(tmp_path, monkeypatch):
    """An experiment of two compact points, their rows exported to a reference directory that
    stands for results/reference/ of the checkout; returns (experiment file, directory)."""
    _fake_compact(monkeypatch)
    exp_file = tmp_path / "compact.yaml"
    exp_file.write_text("name: compact\narchitectures:\n  - arch: compact\n    params:\n"
                        "      datapath_width: [8, 32]\n      sbox: lut\n")
    by_width = {r.params["datapath_width"]: r for r in fixture_rows()
                if r.arch == "compact" and r.params["sbox"] == "lut"}
    versions = tool_versions()
    ref_dir = tmp_path / "reference"
    with Store(tmp_path / "made.sqlite") as store:
        for point in load_experiment(exp_file).points:
            row = by_width[point.params_dict["datapath_width"]]
            store.put(replace(row, key=point.key(versions), experiment="compact"))
        export_rows(store, ref_dir / "compact.jsonl", store.rows())
    monkeypatch.setattr(aesdse.reproduce, "REFERENCE_DIR", ref_dir)
    return exp_file, ref_dir


def test_no_sweep_without_database_reads_the_reference(tmp_path, reference):
    exp_file, ref_dir = reference
    db = tmp_path / "none.sqlite"
    result = invoke("reproduce", "000", "--db", db, "--experiment", exp_file, "--no-sweep",
                    "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert TABLE_ROW in result.stdout
    assert f"rows from the reference results in {ref_dir} (1 file)" in result.stderr
    assert not db.exists()


def test_no_sweep_prefers_a_database_with_rows_of_the_experiment(tmp_path, reference):
    exp_file, _ = reference
    db = tmp_path / "mine.sqlite"
    with Store(db) as store:  # a database with nothing of this experiment: the reference
        pass
    result = invoke("reproduce", "000", "--db", db, "--experiment", exp_file, "--no-sweep",
                    "-o", tmp_path / "out")
    assert result.exit_code == 0 and "rows from the reference results" in result.stderr
    with Store(db) as store:
        row = next(r for r in fixture_rows() if r.arch == "compact" and r.params["sbox"] == "lut"
                   and r.params["datapath_width"] == 32)
        point = load_experiment(exp_file).points[1]
        store.put(replace(row, key="mine", luts=1402, experiment="compact",
                          params=point.params_dict))
    result = invoke("reproduce", "000", "--db", db, "--experiment", exp_file, "--no-sweep",
                    "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert f"rows from {db}" in result.stderr and "701 / 1,347" in result.stdout
    # --reference reads the reference files even so, and sweeps nothing.
    result = invoke("reproduce", "000", "--db", db, "--experiment", exp_file, "-o",
                    tmp_path / "out", "--reference", reference[1] / "compact.jsonl")
    assert result.exit_code == 0, result.output
    assert TABLE_ROW in result.stdout and "rows from the reference results in" in result.stderr


def test_reference_alone_and_an_empty_reference(tmp_path, reference, monkeypatch):
    exp_file, ref_dir = reference
    result = invoke("reproduce", "000", "--experiment", exp_file, "-o", tmp_path / "out",
                    "--db", tmp_path / "none.sqlite", "--reference", ref_dir)
    assert result.exit_code == 0 and TABLE_ROW in result.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr(aesdse.reproduce, "REFERENCE_DIR", empty)
    result = invoke("reproduce", "000", "--experiment", exp_file, "--reference", empty)
    assert result.exit_code == 2 and "no reference results (*.jsonl) in" in result.stderr


def test_help_examples_with_a_reference_file_find_rows(tmp_path):
    # A --help example that reads a shipped reference file must find rows of the paper's
    # experiment in it: an example whose file holds other experiments' rows prints an empty
    # comparison and draws no figure.
    import re
    from pathlib import Path
    checkout = Path(aesdse.reproduce.__file__).resolve().parent.parent
    examples = re.findall(r"aesdse reproduce (\S+) --reference (\S+)",
                          main.commands["reproduce"].help)
    assert examples
    for paper, path in examples:
        result = invoke("reproduce", paper, "--reference", checkout / path,
                        "-o", tmp_path / paper)
        assert result.exit_code == 0, result.output
        assert "not drawn" not in result.stderr and "rows from the reference" in result.stderr
