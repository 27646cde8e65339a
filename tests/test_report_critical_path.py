"""`aesdse report --critical-path` (aesdse.report.critical_path) on a database holding a row
with the summary of a real nextpnr report (tests/data, see test_flow_critical_path.py), a row
stored before critical paths were recorded, and a failed row."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.flow.critical_path import NetlistCells, critical_paths
from aesdse.report.critical_path import NOT_STORED, render_critical_paths
from aesdse.store.database import Row, Store

REPORT = json.loads((Path(__file__).parent / "data" / "nextpnr_report_sbox_composite.json")
                    .read_text())


def _rows():
    # Types as the netlist gives them (the real flow test checks the lookup itself).
    path = REPORT["critical_paths"][0]["path"]
    cells = NetlistCells({**{s["from"]["cell"]: "LUT4" for s in path if s["type"] == "logic"},
                          path[0]["from"]["cell"]: "TRELLIS_FF",
                          path[-1]["to"]["cell"]: "TRELLIS_FF"})
    fmax = REPORT["fmax"]["clk"]["achieved"]
    measured = Row(key="k-new", experiment="e", arch="sbox",
                   params={"sbox": "composite", "sbox_stages": 0},
                   target="LFE5U-25F-6CABGA256", flow={"freq_mhz": 100.0, "seed": 1}, seed=1,
                   freq_mhz=100.0, status="ok", luts=76, ffs=16, brams=0, slices=38,
                   fmax_mhz=fmax, fmax_raw_mhz=fmax, throughput_mbps=128 * fmax,
                   fmax_by_clock={"clk": fmax},
                   details={"critical_paths": [p.as_dict() for p in critical_paths(REPORT,
                                                                                    cells)]})
    older = replace(measured, key="k-old", params={"sbox": "lut", "sbox_stages": 0},
                    details={"resources": {}}, config_key=None)
    failed = Row(key="k-failed", experiment="e", arch="sbox",
                 params={"sbox": "tower", "sbox_stages": 0}, target="LFE5U-25F-6CABGA256",
                 flow={"freq_mhz": 100.0, "seed": 1}, seed=1, freq_mhz=100.0,
                 status="failed-verification", reason="wrong output")
    return [measured, older, failed]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "paths.sqlite"
    with Store(path) as store:
        for row in _rows():
            store.put(row)
    return path


def test_markdown_table_from_the_database(db):
    result = CliRunner().invoke(main, ["report", "--db", str(db), "--critical-path"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == ("| sbox | Clock | Fmax (MHz) | Path (ns) | Logic | Routing | "
                        "Clk-to-Q + setup (ns) | Levels | Logic cells | Longest net (ns, fanout) "
                        "| From -> to |")
    # 9.07 ns = 1.89 logic (21%) + 6.65 routing (73%) + 0.52 clock-to-output, 8 LUT4 levels.
    assert lines[2] == ("| composite | clk | 110.3 | 9.07 | 21% | 73% | 0.52 | 8 | 8 LUT4 | "
                        "1.17, ? | TRELLIS_FF sbox.i_TRELLIS_FF_Q_4.Q -> "
                        "TRELLIS_FF o_TRELLIS_FF_Q_3.DI |")
    assert len([line for line in lines if line.startswith("| ")]) == 2  # one measured row
    # The older row says so and invents nothing; the failed one has no path.
    assert f"- sbox (sbox=lut, sbox_stages=0) seed 1: {NOT_STORED}" in lines
    assert "- sbox (sbox=tower, sbox_stages=0) seed 1: no path: failed-verification" in lines


def test_json_parsed_back(db):
    result = CliRunner().invoke(main, ["report", "--db", str(db), "--critical-path",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    by_key = {obj["key"]: obj for obj in json.loads(result.stdout)}
    [path] = by_key["k-new"]["critical_paths"]
    assert path["logic_levels"] == 8 and path["logic_by_type"] == {"LUT4": 8}
    assert path["fmax_mhz"] == pytest.approx(110.29, abs=0.01)
    assert path["total_ns"] == pytest.approx(1000 / path["fmax_mhz"], abs=1e-4)
    assert path["logic_percent"] + path["routing_percent"] == pytest.approx(
        100 * (path["total_ns"] - path["clk_to_q_ns"] - path["setup_ns"]) / path["total_ns"])
    assert by_key["k-new"]["note"] is None
    assert by_key["k-old"]["critical_paths"] is None and by_key["k-old"]["note"] == NOT_STORED
    assert by_key["k-failed"]["note"] == "no path: failed-verification"


def test_formats_and_options_it_does_not_take(db):
    runner = CliRunner()
    result = runner.invoke(main, ["report", "--db", str(db), "--critical-path", "-f", "csv"])
    assert result.exit_code == 2 and "--critical-path prints markdown or json" in result.output
    result = runner.invoke(main, ["report", "--db", str(db), "--critical-path", "--resources"])
    assert result.exit_code == 2 and "a report of its own" in result.output
    with pytest.raises(ValueError, match=r"^The critical-path report is printed as markdown or "
                                         r"json, not 'latex'$"):
        render_critical_paths([], "latex")


def test_only_rows_without_paths():
    _, older, failed = _rows()
    text = render_critical_paths([older, failed], title="old")
    assert text.splitlines()[:3] == ["## old: critical paths", "",
                                     f"- sbox (sbox=lut, sbox_stages=0) seed 1: {NOT_STORED}"]
    assert "| " not in text


def test_help_has_an_example():
    result = CliRunner().invoke(main, ["report", "--help"])
    assert "--critical-path" in result.output
    assert "aesdse report experiments/sbox.yaml --critical-path" in result.output


def test_fmax_above_a_data_sheet_cap_is_marked():
    measured = _rows()[0]
    capped = replace(measured, fmax_mhz=100.0, fmax_capped="clock tree maximum 100 MHz")
    lines = render_critical_paths([capped]).splitlines()
    assert lines[2].startswith("| sbox | clk | 110.3* | 9.07 |")  # one row: arch leads
    assert lines[-1] == ("\\* nextpnr's Fmax of the path, above the data-sheet cap of the row's "
                         "Fmax (sbox (sbox=composite, sbox_stages=0): clock tree maximum "
                         "100 MHz).")
    assert "110.3*" not in render_critical_paths([measured])


def _pumped_row(limits: bool) -> Row:
    """A double-pumped row whose worst path between its clocks (4.56 ns, clk -> bram_clk) is
    stored as its ``fmax_limit``; with ``limits`` that path sets its Fmax (109.6 MHz)."""
    [own] = critical_paths(REPORT)
    crossing = replace(own, clock="clk -> bram_clk", from_edge="posedge clk",
                       to_edge="posedge bram_clk", total_ns=4.56)
    allowed = 1000 / (2 * 4.56)
    return Row(key="k-pumped", experiment="e", arch="tbox", params={"bram_pumping": 2},
               target="LFE5U-85F-8CABGA381", flow={"freq_mhz": 200.0, "seed": 2}, seed=2,
               freq_mhz=200.0, status="ok", luts=2833, ffs=1563, brams=4, slices=1417,
               fmax_mhz=allowed if limits else 117.2, fmax_raw_mhz=allowed if limits else 117.2,
               fmax_by_clock={"clk": 240.0, "bram_clk": 234.4},
               details={"critical_paths": [own.as_dict(), crossing.as_dict()],
                        "fmax_limit": {"path": "clk -> bram_clk", "delay_ns": 4.56,
                                       "window_periods": 0.5, "fmax_mhz": allowed,
                                       "limits": limits}})


def test_a_path_between_clocks_that_limits_the_row_is_shown_with_its_system_clock():
    lines = render_critical_paths([_pumped_row(limits=True)]).splitlines()
    assert lines[2].startswith("| tbox | clk | 240.0 | 9.07 |")  # nextpnr's Fmax of clk
    assert lines[3].startswith("| tbox | clk -> bram_clk | 109.6\u2020 | 4.56 |")
    assert lines[-1].endswith("\u2020 This path, not a clock's own Fmax, sets the row's Fmax: "
                              "tbox (bram_pumping=2).")
    # Stored but not limiting: the value without the mark, and no row named.
    text = render_critical_paths([_pumped_row(limits=False)])
    assert "| clk -> bram_clk | 109.6 | 4.56 |" in text and "\u2020" not in text
    assert "Fmax of a path between two clocks (nextpnr does not check it)" in text
    objects = json.loads(render_critical_paths([_pumped_row(limits=True)], "json"))
    assert objects[0]["fmax_limit"]["limits"] is True
    assert [p["fmax_mhz"] for p in objects[0]["critical_paths"]] == [
        240.0, pytest.approx(109.65, abs=0.01)]
