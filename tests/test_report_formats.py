"""The table model (aesdse.report.model) and its renderers (aesdse.report.formats): each format
renders any report, whatever its kind, from the same blocks and records."""

import csv
import io
import json
from html.parser import HTMLParser

import pytest

from aesdse.report.formats import render, renderer
from aesdse.report.history import history_report
from aesdse.report.kinds import FILE_FORMATS, FORMATS, KINDS, TEXT_FORMATS
from aesdse.report.model import Column, Failure, Items, Notes, Records, Report, Table

from conftest import fixture_rows


def _report() -> Report:
    table = Table(
        (Column("Name"), Column("LUT4", "right", latex_align="left"),
         Column("Note", in_latex=False)),
        (("a|b", "1,234", "x_y"), ("c", "-", "")),
        heading="Head", caption="Cap_1", empty="(none)", keys=("k1", "k2"),
        after=(Notes(("First note.", "* capped")),
               Table((Column("Inner"),), (("i",),)),
               Items("Failed points:", (Failure("p", "failed-synthesis", "why", "logs/p"),),
                     in_latex=True),
               Items("Flags:", ("one", "two"), numbered=True, in_latex=True),
               Items(None, ("bare",))))
    return Report("test", (table,), Records(("name", "params", "luts"),
                                            (("a", {"b": 1, "a": 2}, None),)),
                  {"rows": [1, 2]}, title="T")


def test_every_format_has_one_renderer_and_every_kind_names_known_formats():
    assert set(TEXT_FORMATS) | set(FILE_FORMATS) == set(FORMATS)
    for fmt in FORMATS:
        assert callable(renderer(fmt))
    for formats in KINDS.values():
        assert set(formats) <= set(FORMATS)
    with pytest.raises(ValueError, match=r"^Format must be one of markdown, csv, latex, json, "
                                         r"html, not 'rst'$"):
        renderer("rst")


def test_markdown():
    assert render(_report(), "markdown") == (
        "## Head\n\n"
        "| Name | LUT4 | Note |\n|---|---:|---|\n| a/b | 1,234 | x_y |\n| c | - |  |\n\n"
        "First note.\n\\* capped\n\n"
        "| Inner |\n|---|\n| i |\n\n"
        "Failed points:\n\n- p: **failed-synthesis**: why (logs: `logs/p`)\n\n"
        "Flags:\n\n1. one\n2. two\n\n- bare\n")


def test_markdown_of_an_empty_table_says_so():
    empty = Report("test", (Table((Column("x"),), (), empty="(none)"),), Records((), ()), [])
    assert render(empty, "markdown") == "(none)\n"


def test_latex_keeps_the_columns_and_blocks_marked_for_it():
    text = render(_report(), "latex")
    assert text.startswith("\\begin{table}\n\\centering\n\\caption{Cap\\_1}\n"
                           "\\begin{tabular}{ll}\n\\toprule\nName & LUT4 \\\\\n\\midrule\n"
                           "a|b & 1{,}234 \\\\\nc & - \\\\\n\\bottomrule\n\\end{tabular}\n")
    assert text.endswith("\\par\\smallskip\\footnotesize\nFirst note.\\\\\n* capped\\\\\n"
                         "Failed: p: failed-synthesis: why\\\\\n[1] one\\\\\n[2] two\n"
                         "\\end{table}\n")
    assert "Inner" not in text and "bare" not in text and "x\\_y" not in text


def test_csv_and_json_are_the_data_view():
    lines = list(csv.reader(io.StringIO(render(_report(), "csv"))))
    assert lines == [["name", "params", "luts"], ["a", '{"a": 2, "b": 1}', ""]]
    assert json.loads(render(_report(), "json")) == {"rows": [1, 2]}


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.numeric, self.text = [], 0, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-key" in attrs:
            self.rows.append(attrs["data-key"])
        if tag == "td" and attrs.get("class") == "num":
            self.numeric += 1

    def handle_data(self, data):
        self.text.append(data)


def test_html_is_one_page_of_the_same_cells():
    page = _Page()
    page.feed(render(_report(), "html"))
    assert page.rows == ["k1", "k2"]
    assert page.numeric == 2  # 1,234 and -
    text = "".join(page.text)
    assert "aesdse report: T" in text and "a|b" in text and "First note." in text
    assert "failed-synthesis" in text and "two" in text and "Inner" in text


def test_history_is_one_line_per_row_oldest_first():
    rows = [r for r in fixture_rows() if r.key.startswith("k-c8")]
    report = history_report(rows, {r.key: ["generator"] if r.seed == 2 else [] for r in rows},
                            "compact: 3 rows, oldest first")
    text = render(report, "markdown")
    lines = text.splitlines()
    assert lines[0] == "compact: 3 rows, oldest first" and lines[1] == ""
    assert lines[2].startswith("| created_at | status | luts |") and lines[2].endswith(
        "| stale |")
    assert [line.split(" | ")[-1] for line in lines[4:]] == ["current |", "generator |",
                                                              "current |"]
    assert "| 130.0 |" in lines[4]
    assert [r["key"] for r in json.loads(render(report, "json"))] == ["k-c8-1", "k-c8-2",
                                                                      "k-c8-3"]
