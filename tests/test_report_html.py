"""`aesdse report --format html -o FILE` (aesdse.report.html): one self-contained file with the
comparison tables and an interactive Pareto plot, checked as a file and in a real browser.

The browser test loads the report in headless chromium (Debian's ``chromium``, which ``.ci/run``
installs) with JavaScript on and the network cut off: a copy of the report with a small probe
script appended hovers a point the way a mouse does (a ``mousemove`` over the plot at the point's
position) and writes what it found into the DOM, which ``--dump-dom`` prints; a second run takes
a screenshot, whose plot area must hold the coloured markers. Without a chromium binary the
test is skipped, so ``python -m pytest`` passes on a machine without it.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from aesdse.cli import main
from aesdse.flow.critical_path import NetlistCells, critical_paths
from aesdse.report.html import PLOT_ID, hover_text
from aesdse.report.table import aggregate
from aesdse.store.database import Store

from conftest import fixture_rows

pytest.importorskip("plotly", reason="the HTML report needs the 'html' extra (Plotly)")

REPORT = json.loads((Path(__file__).parent / "data" / "nextpnr_report_sbox_composite.json")
                    .read_text())

#: The point the browser test hovers: it carries a stored critical path.
HOVERED = "k-iter"


def _with_critical_path(db: Path) -> None:
    """Give the fixture's iterative row the critical path of a real nextpnr report."""
    path = REPORT["critical_paths"][0]["path"]
    cells = NetlistCells({**{s["from"]["cell"]: "LUT4" for s in path if s["type"] == "logic"},
                          path[0]["from"]["cell"]: "TRELLIS_FF",
                          path[-1]["to"]["cell"]: "TRELLIS_FF"})
    [row] = [r for r in fixture_rows() if r.key == HOVERED]
    with Store(db) as store:
        store.put(replace(row, fmax_by_clock={"clk": row.fmax_mhz},
                          details={"critical_paths": [p.as_dict()
                                                      for p in critical_paths(REPORT, cells)]}))


@pytest.fixture
def report_file(fixture_db, tmp_path):
    _with_critical_path(fixture_db)
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", "--db", str(fixture_db), "--format", "html",
                                       "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.stderr
    return out


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each table's cells by row."""

    def __init__(self):
        super().__init__()
        self.tags, self.rows, self._cell = [], [], None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self._cell = ""

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data

    def handle_endtag(self, tag):
        if tag == "td":
            self.rows[-1].append(self._cell)
            self._cell = None


def _parsed(path: Path) -> _Tags:
    parser = _Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


# --- the file ----------------------------------------------------------------------------------


def test_the_report_is_one_file_that_loads_nothing(report_file):
    text = report_file.read_text(encoding="utf-8")
    tags = _parsed(report_file).tags
    # plotly.js is inlined, not linked: no element loads anything, from a CDN or elsewhere.
    assert not [(t, a) for t, a in tags if {"src", "href"} & set(a)]
    assert not [t for t, _ in tags if t in ("link", "iframe", "img", "object", "embed")]
    assert "@import" not in text and "url(http" not in text
    assert not re.search(r"<script[^>]*\bsrc=", text)
    assert "plotly.js v" in text  # the library's own banner: the code itself is here
    assert f'id="{PLOT_ID}"' in text


def test_the_tables_are_the_table_module_s_cells(report_file, fixture_db):
    # The same cells as the Markdown table: one formatter of the numbers, not two.
    markdown = CliRunner().invoke(main, ["report", "--db", str(fixture_db)]).stdout
    md_rows = [[c.strip() for c in line.strip("|").split("|")] for line in markdown.splitlines()
               if line.startswith("| ") and not line.startswith("| Arch")]
    html_rows = [r for r in _parsed(report_file).rows if r]
    assert html_rows == md_rows and len(html_rows) == 5
    text = report_file.read_text(encoding="utf-8")
    assert "Fmax: median of 3 placer seeds" in text
    assert "failed-verification" in text and "block 3 of FIPS-197" in text


def test_hover_text_has_configuration_provenance_and_critical_path(fixture_db):
    _with_critical_path(fixture_db)
    with Store(fixture_db, readonly=True) as store:
        rows = store.rows()
    entries, _ = aggregate(rows)
    [iterative] = [e for e in entries if e.row.key == HOVERED]
    text = hover_text(iterative, {HOVERED: (["generator"], 2)})
    assert text.startswith("<b>iterative (sbox=lut, sbox_stages=0)</b>")
    assert "target LFE5U-85F-8CABGA381 at 100 MHz; seeds 1" in text
    assert "rows k-iter (experiment fixture)" in text and "tools: yosys 0.70" in text
    assert "stale: generator" in text and "+2 older rows" in text
    # The critical path's cells, with "->" escaped for the label's markup.
    assert "<b>Critical path</b>" in text and "Clock: clk" in text
    assert "From -&gt; to:" in text and "->" not in text
    [compact8] = [e for e in entries if e.row.key == "k-c8-3"]
    assert "seeds 1, 2, 3 (Fmax: median)" in hover_text(compact8)
    assert "critical path not stored" in hover_text(compact8)


def test_html_needs_a_file_and_the_metrics_report(fixture_db, tmp_path):
    result = CliRunner().invoke(main, ["report", "--db", str(fixture_db), "--format", "html"])
    assert result.exit_code == 2 and "give it with -o FILE" in result.output
    result = CliRunner().invoke(main, ["report", "--db", str(fixture_db), "--format", "html",
                                       "-o", str(tmp_path / "x.html"), "--critical-path"])
    assert result.exit_code == 2 and "--critical-path prints markdown or json, not html" \
        in result.output
    assert not (tmp_path / "x.html").exists()


def test_without_plotly_the_error_names_the_extra(fixture_db, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "plotly", None)  # import plotly raises ImportError
    result = CliRunner().invoke(main, ["report", "--db", str(fixture_db), "--format", "html",
                                       "-o", str(tmp_path / "x.html")])
    assert result.exit_code == 1
    assert "pip install 'aesdse[html]'" in result.output
    assert not (tmp_path / "x.html").exists()


def test_output_option_writes_a_table_format_too(fixture_db, tmp_path):
    out = tmp_path / "table.md"
    result = CliRunner().invoke(main, ["report", "--db", str(fixture_db), "-o", str(out)])
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text() == CliRunner().invoke(main, ["report", "--db",
                                                        str(fixture_db)]).stdout


# --- in a real browser -------------------------------------------------------------------------

#: Names of a Chromium binary, Debian's first; ``CHROMIUM`` in the environment names another.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

WINDOW = (1200, 900)

#: Appended to a copy of the report: once the plot has drawn its points, hover the point of row
#: HOVER_KEY as a mouse would (a mousemove over the plot's drag layer at the point's centre),
#: then write into the DOM what was found: points, their row keys, the resources the page
#: loaded, the plot area's box and the hover label's lines.
PROBE = """
(function () {
  function report(out) {
    var pre = document.createElement("pre");
    pre.id = "aesdse-probe";
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
  function attempt(tries) {
    var gd = document.getElementById(PLOT_ID);
    var points = gd ? gd.querySelectorAll(".scatterlayer .trace path.point") : [];
    if (!points.length) {
      if (tries > 0) { setTimeout(function () { attempt(tries - 1); }, 100); }
      else { report({error: "no plot points", points: 0}); }
      return;
    }
    var target = null, keys = [];
    gd.querySelectorAll(".scatterlayer .trace").forEach(function (group) {
      var trace = group.__data__[0].trace;
      group.querySelectorAll("path.point").forEach(function (p) {
        var key = (trace.customdata || [])[p.__data__.i];
        keys.push(key);
        if (key === HOVER_KEY) { target = p; }
      });
    });
    var drag = gd.querySelector(".nsewdrag");
    var area = drag.getBoundingClientRect();
    var out = {points: points.length, keys: keys,
               resources: performance.getEntriesByType("resource").map(function (r) {
                 return r.name; }),
               plot_area: [area.left, area.top, area.width, area.height]};
    if (!target) { out.error = "no point of " + HOVER_KEY; report(out); return; }
    var box = target.getBoundingClientRect();
    drag.dispatchEvent(new MouseEvent("mousemove", {
      clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, bubbles: true,
      view: window}));
    setTimeout(function () {
      out.hover = Array.from(gd.querySelectorAll(".hoverlayer .hovertext")).map(function (n) {
        return Array.from(n.querySelectorAll("tspan.line")).map(function (t) {
          return t.textContent; }).join("\\n");
      });
      report(out);
    }, 300);
  }
  window.addEventListener("load", function () { attempt(50); });
})();
"""


def _chromium() -> str | None:
    named = os.environ.get("CHROMIUM")
    if named:
        return shutil.which(named)
    return next((found for found in map(shutil.which, CHROMIUM_NAMES) if found), None)


def _run_chromium(binary: str, page: Path, profile: Path, *args: str) -> str:
    """Load ``page`` in headless chromium, offline (every connection goes to a closed port),
    and return its standard output."""
    command = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage",
               "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
               f"--window-size={WINDOW[0]},{WINDOW[1]}", "--force-device-scale-factor=1",
               "--hide-scrollbars", "--proxy-server=127.0.0.1:9", "--virtual-time-budget=5000",
               *args, page.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _colourful_pixels(png: Path, box) -> int:
    """Pixels of the screenshot inside ``box`` (left, top, width, height) that are coloured:
    the markers (axes, grid lines and text are grey)."""
    from PIL import Image
    left, top, width, height = (round(v) for v in box)
    with Image.open(png) as image:
        region = image.convert("RGB").crop((left, top, left + width, top + height))
        histogram = region.getcolors(maxcolors=width * height)
    return sum(n for n, (r, g, b) in histogram if max(r, g, b) - min(r, g, b) > 60)


def test_the_report_works_in_headless_chromium(report_file, tmp_path):
    binary = _chromium()
    if binary is None:
        pytest.skip("no chromium binary found (Debian: apt-get install chromium; .ci/run "
                    "installs it): the HTML report's browser test needs a real browser")
    probe = PROBE.replace("PLOT_ID", json.dumps(PLOT_ID)).replace("HOVER_KEY",
                                                                   json.dumps(HOVERED))
    page = tmp_path / "probed.html"
    page.write_text(report_file.read_text(encoding="utf-8").replace(
        "</body>", f"<script>{probe}</script></body>"), encoding="utf-8")
    dom = _run_chromium(binary, page, tmp_path / "profile-dom", "--dump-dom")
    found = re.search(r'<pre id="aesdse-probe">(.*?)</pre>', dom, re.S)
    assert found, "the probe never reported: the page did not load or its script failed"
    out = json.loads(found.group(1).replace("&amp;", "&").replace("&lt;", "<")
                     .replace("&gt;", ">").replace("&quot;", '"'))
    assert "error" not in out, out
    # One SVG point per table line with an area and a throughput, each carrying its row.
    assert out["points"] == 5
    assert sorted(out["keys"]) == ["k-c32-comp", "k-c32-lut", "k-c8-3", "k-iter", "k-unrolled"]
    assert out["resources"] == [], "the page loaded something from outside the file"
    [label] = out["hover"]
    lines = label.splitlines()
    assert lines[0] == "iterative (sbox=lut, sbox_stages=0)"
    assert {"Configuration", "Provenance", "Critical path"} <= set(lines)
    assert "rows k-iter (experiment fixture)" in lines
    assert any(line.startswith("Clock: clk; Fmax (MHz): 100.0") for line in lines), lines

    shot = tmp_path / "shot.png"
    _run_chromium(binary, report_file, tmp_path / "profile-shot", f"--screenshot={shot}")
    assert shot.exists()
    # Five markers of 11 px: a few hundred coloured pixels; an empty plot has none.
    assert _colourful_pixels(shot, out["plot_area"]) > 200


def test_group_by_family_gives_one_table_per_family(fixture_db, tmp_path):
    out = tmp_path / "families.html"
    result = CliRunner().invoke(main, ["report", "--db", str(fixture_db), "--format", "html",
                                       "-o", str(out), "--group-by", "family"])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "<h2>ECP5 (area unit: " in text and "<th>Slices</th>" in text
    assert len([r for r in _parsed(out).rows if r]) == 5
