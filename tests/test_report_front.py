"""The Pareto front report (aesdse report --front, aesdse.report.front), from the fixture rows
of conftest.py: which configurations are on it, seeds aggregated as in the metrics table, and
the same report in every format (no Yosys, no nextpnr)."""

import csv
import io
import json
from dataclasses import replace
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.report.formats import render
from aesdse.report.front import front_table, parse_objective, pareto_lines
from aesdse.report.kinds import FORMATS, KINDS
from aesdse.report.lines import aggregate
from aesdse.store.database import Store

from conftest import fixture_rows

#: The fixture's front by throughput and LUT4 (conftest.fixture_rows): every verified
#: configuration but the iterative core, which the unrolled one beats in both.
FRONT_KEYS = ["k-c32-comp", "k-c32-lut", "k-c8-3", "k-unrolled"]


def _front_keys(report) -> list[str]:
    return sorted(obj["key"] for obj in report.json["rows"])


def _lucky_seed_rows():
    """The fixture plus a compact configuration with 650 LUT4 whose Fmax is 90, 95 and 200 MHz
    over three seeds: behind compact-8 (600 LUT4, 101.8 Mbit/s) at its median (69 Mbit/s),
    ahead of it at its best seed (145 Mbit/s)."""
    base = next(r for r in fixture_rows() if r.key == "k-c8-1")
    lucky = [replace(base, key=f"k-lucky-{seed}", seed=seed, luts=650, fmax_mhz=fmax,
                     params={**base.params, "shared_memory": True}, config_key=None,
                     flow={**base.flow, "seed": seed},
                     throughput_mbps=128 * fmax / 176, mbps_per_lut=128 * fmax / 176 / 650)
             for seed, fmax in ((1, 90.0), (2, 95.0), (3, 200.0))]
    return fixture_rows() + lucky


def test_the_front_is_every_configuration_nothing_beats_in_both():
    report = front_table(fixture_rows())
    assert report.kind == "front"
    # compact-8's line is its median seed's row (k-c8-3, 140 MHz of 130/140/150).
    assert _front_keys(report) == FRONT_KEYS
    assert report.json["configurations"] == 5
    assert report.json["objectives"] == [{"metric": "throughput_mbps", "goal": "max"},
                                         {"metric": "luts", "goal": "min"}]
    # The failed point has no numbers: it is not in the table, not even among the failures.
    assert all(obj["status"] == "ok" for obj in report.json["rows"])


def test_seeds_count_by_their_median_not_by_a_lucky_one():
    rows = _lucky_seed_rows()
    assert _front_keys(front_table(rows)) == FRONT_KEYS
    best = front_table(rows, fmax="best")
    assert "k-lucky-3" in _front_keys(best)
    # A line shows its median Fmax with the spread over the seeds, as the metrics table does.
    assert "| 140.0 (130.0-150.0) |" in render(front_table(rows), "markdown")
    assert "| 200.0 |" not in render(front_table(rows), "markdown")


def test_other_objectives():
    lines, _ = aggregate([r for r in fixture_rows() if r.status == "ok"])
    # Fewest FF alone: compact-8 (420 FF) only.
    assert [line.row.key for line in pareto_lines(lines, [("ffs", "min")])] == ["k-c8-3"]
    # The highest Fmax and the lowest latency: compact-32 (140 MHz, 44 cycles) beats compact-8
    # (140 MHz median, 176 cycles); the unrolled core has the lowest latency (5 cycles).
    front = pareto_lines(lines, [("fmax_mhz", "max"), ("latency_cycles", "min")])
    assert [line.row.key for line in front] == ["k-c32-lut", "k-unrolled"]
    # A line without a number for an objective is not on the front: here only the iterative
    # core has a latency.
    rows = [r if r.arch == "iterative" or r.status != "ok" else replace(r, latency_cycles=None)
            for r in fixture_rows()]
    report = front_table(rows, [("fmax_mhz", "max"), ("latency_cycles", "min")])
    assert _front_keys(report) == ["k-iter"]
    assert "1 of 5 verified configurations (4 without all of these numbers left out)" \
        in render(report, "markdown")


def test_equal_lines_are_all_kept():
    lines, _ = aggregate([r for r in fixture_rows() if r.key in ("k-c32-lut", "k-unrolled")])
    twin = replace(lines[0], row=replace(lines[0].row, key="k-twin"))
    assert len(pareto_lines([lines[0], twin], [("luts", "min")])) == 2


@pytest.mark.parametrize("objectives, message", [
    ([], r"^A Pareto front needs at least one objective$"),
    ([("area", "min")], r"^Objective must be one of luts, ffs, .*, not 'area'$"),
    ([("luts", "least")], r"^Goal of objective luts must be max or min, not 'least'$"),
])
def test_objectives_are_checked(objectives, message):
    with pytest.raises(ValueError, match=message):
        front_table(fixture_rows(), objectives)


def test_parse_objective():
    assert parse_objective("slices:min") == ("slices", "min")
    with pytest.raises(ValueError, match=r"^An objective is METRIC:max or METRIC:min, not "
                                         r"'slices'$"):
        parse_objective("slices")


# --- every format -------------------------------------------------------------------------------

class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.keys = []

    def handle_starttag(self, tag, attrs):
        if tag == "tr" and dict(attrs).get("data-key"):
            self.keys.append(dict(attrs)["data-key"])


def test_every_format_shows_the_same_front():
    assert KINDS["front"] == FORMATS
    report = front_table(fixture_rows(), title="fixture")
    markdown = render(report, "markdown")
    assert markdown.startswith("## fixture: Pareto front\n\n| Arch |")
    assert "Pareto front (max Throughput (Mbit/s), min LUT4): 4 of 5 verified configurations" \
        in markdown
    lines = [line for line in markdown.splitlines() if line.startswith("| ")][1:]
    assert [line.split(" | ")[0] for line in lines] == ["| compact"] * 3 + ["| unrolled"]
    records = list(csv.DictReader(io.StringIO(render(report, "csv"))))
    assert sorted(float(r["luts"]) for r in records) == [600, 700, 1400, 2500]
    assert json.loads(render(report, "json"))["rows"][0]["key"] == "k-c8-3"
    latex = render(report, "latex")
    assert r"\caption{fixture: Pareto front}" in latex and latex.count(r" \\") == 5
    assert r"Pareto front (max Throughput (Mbit/s){,} min LUT4)" not in latex  # a note
    assert r"Pareto front (max Throughput (Mbit/s), min LUT4): 4 of 5" in latex
    parser = _Rows()
    parser.feed(render(report, "html"))
    assert sorted(parser.keys) == FRONT_KEYS


# --- the command line ---------------------------------------------------------------------------

@pytest.fixture
def db(tmp_path):
    path = tmp_path / "front.sqlite"
    with Store(path) as store:
        for row in _lucky_seed_rows():
            store.put(row)
    return str(path)


def test_cli_front(db, tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["report", "--db", db, "--front", "-f", "json"])
    assert result.exit_code == 0, result.output
    assert _front_keys_of(json.loads(result.stdout)) == FRONT_KEYS
    result = runner.invoke(main, ["report", "--db", db, "--front", "--fmax", "best", "-f", "json"])
    assert "k-lucky-3" in _front_keys_of(json.loads(result.stdout))
    result = runner.invoke(main, ["report", "--db", db, "--front", "--objective", "ffs:min",
                                  "--objective", "fmax_mhz:max", "-f", "csv"])
    assert result.exit_code == 0, result.output
    assert {r["arch"] for r in csv.DictReader(io.StringIO(result.stdout))} == {"compact"}
    out = tmp_path / "front.html"
    result = runner.invoke(main, ["report", "--db", db, "--front", "-f", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "<h2>Pareto front</h2>" in out.read_text(encoding="utf-8")


def _front_keys_of(data) -> list[str]:
    return sorted(obj["key"] for obj in data["rows"])


@pytest.mark.parametrize("args, message", [
    (["--objective", "luts:min"], "--objective goes with --front"),
    (["--front", "--objective", "luts"], "An objective is METRIC:max or METRIC:min"),
    (["--front", "--critical-path"], "--front is a report of its own: not with --critical-path"),
    (["--front", "--group-by", "family"], "--group-by applies to the metrics table, not to "
                                          "--front"),
    (["--front", "-f", "html"], "--format html writes a file: give it with -o FILE"),
])
def test_cli_front_options(db, args, message):
    result = CliRunner().invoke(main, ["report", "--db", db] + args)
    assert result.exit_code == 2 and message in result.output


def test_an_explore_file_reports_the_rows_stored_under_its_name(tmp_path):
    # An exploration's space (params: all) is no grid: report and plot take its rows by the
    # experiment name they were stored under, and its front of one configuration still names
    # its parameters.
    path = tmp_path / "front.sqlite"
    with Store(path) as store:
        for row in fixture_rows():
            store.put(row)
        store.put(replace(next(r for r in fixture_rows() if r.key == "k-iter"), key="k-other",
                          experiment="another"))
    space = tmp_path / "space.yaml"
    space.write_text("name: fixture\narchitectures:\n  - arch: compact\n    params: all\n"
                     "targets: [{device: LFE5U-85F, package: CABGA381, speed: 8}]\n"
                     "explore:\n  objectives: {throughput_mbps: max, luts: min}\n"
                     "  budget: {pnr_runs: 4}\n")
    runner = CliRunner()
    result = runner.invoke(main, ["report", str(space), "--db", str(path), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert "k-other" not in result.stdout and "k-c8-1" in result.stdout
    result = runner.invoke(main, ["report", str(space), "--db", str(path), "--front",
                                  "--objective", "luts:min", "--objective", "ffs:min"])
    assert result.exit_code == 0, result.output
    header = next(line for line in result.stdout.splitlines() if line.startswith("| "))
    assert header.startswith("| Arch | datapath_width | ") and "| sbox |" in header
    assert len([line for line in result.stdout.splitlines() if line.startswith("| compact")]) == 1
    result = runner.invoke(main, ["plot", str(space), "--db", str(path), "-o",
                                  str(tmp_path / "space.png")])
    assert result.exit_code == 0 and (tmp_path / "space.png").stat().st_size > 0, result.output
