"""The table model every report kind builds and every format renders.

A report kind (the metrics table, measured vs published, GCM, critical paths, resources, the
Pareto front) turns stored rows into one :class:`Report`; a format (:mod:`aesdse.report.formats`)
turns any :class:`Report` into text. Neither knows the other: a new kind is one function that
builds a report, a new format is one renderer.

A report has two views of the same lines, because readers and scripts want different things:

* the **display** view, for people (Markdown, LaTeX, HTML): :attr:`Report.blocks`, a sequence of
  :class:`Table`, :class:`Notes` and :class:`Items`, each cell already formatted as text
  (thousands separators, the seed spread beside the Fmax, ``-`` for a missing number), so every
  format shows the same cells;
* the **data** view, for programs (CSV, JSON): :attr:`Report.records` (a CSV header and its
  lines of raw values) and :attr:`Report.json` (the JSON value), numbers unformatted, with the
  keys scripts rely on.

Implementation notes
--------------------
LaTeX has room for less than Markdown: a ``table`` float holds one tabular and its footnotes.
A block says whether it belongs there (``in_latex``); a column likewise (a free-text note
column does not fit a paper's table). The Markdown table of the metrics report right-aligns
its Target column with the numbers, while LaTeX sets it flush left with the parameters
(:attr:`Column.latex_align`): both are what the tables have always printed.
"""

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Column", "Failure", "Notes", "Items", "Table", "Records", "Report", "Block"]


@dataclass(frozen=True)
class Column:
    """One column of a :class:`Table`.

    Attributes
    ----------
    header : str
    align : str
        ``"left"`` (text, parameters) or ``"right"`` (numbers).
    latex_align : str, optional
        LaTeX's alignment where it differs from ``align``.
    in_latex : bool
        Whether the LaTeX table has this column (a long free-text column has no room there).
    """
    header: str
    align: str = "left"
    latex_align: str | None = None
    in_latex: bool = True


@dataclass(frozen=True)
class Failure:
    """A failed design point listed under a table: never a line with numbers.

    Attributes
    ----------
    label : str
        Which point (its configuration, and seed where that tells failures apart).
    status : str or None
        Its status (``failed-verification``, ...); None for a point listed for another reason.
    reason : str
        The first line of its reason.
    logs : str or None
        Where its logs are.
    """
    label: str
    status: str | None
    reason: str
    logs: str | None = None


@dataclass(frozen=True)
class Notes:
    """A paragraph of footnotes, one line each.

    Attributes
    ----------
    lines : tuple of str
        Plain text (a renderer escapes what its format needs).
    in_latex : bool
        Whether the LaTeX float's footnotes include it.
    strong : bool
        Shown emphasised (the label of a cross-family comparison).
    """
    lines: tuple
    in_latex: bool = True
    strong: bool = False


@dataclass(frozen=True)
class Items:
    """A list under a lead-in line: failed points, rows not measured yet, flags.

    Attributes
    ----------
    title : str or None
        The lead-in line (``Failed points:``), or None for a bare list.
    items : tuple
        Each a str or a :class:`Failure`.
    numbered : bool
        Numbered (others cite the items by number: ``[1]``).
    in_latex : bool
        Whether the LaTeX float's footnotes include it (a failure as ``Failed: ...``, a
        numbered item as ``[n] ...``).
    """
    title: str | None
    items: tuple
    numbered: bool = False
    in_latex: bool = False


@dataclass(frozen=True)
class Table:
    """A table of text cells.

    Attributes
    ----------
    columns : tuple of Column
    body : tuple of tuple of str
        One tuple of cells per line, in table order.
    heading : str or None
        Its heading (Markdown, HTML).
    caption : str or None
        Its LaTeX caption (a float names what a heading above it names elsewhere).
    empty : str or None
        What is shown instead of a table without lines (None: nothing).
    after : tuple of Block
        The footnotes and lists that belong to this table (a LaTeX float holds them), in order;
        a nested :class:`Table` is shown in Markdown and HTML only.
    keys : tuple of str
        The stored row key of each line, where a line is one (HTML marks its rows with them).
    level : int
        Its heading's level (2: ``##``).
    latex_body : tuple of tuple of str, optional
        The cells LaTeX shows instead of ``body`` (the comparison names a configuration by all
        its parameters there: a float in a paper stands without the report's other lines).
    """
    columns: tuple
    body: tuple
    heading: str | None = None
    caption: str | None = None
    empty: str | None = None
    after: tuple = ()
    keys: tuple = ()
    level: int = 2
    latex_body: tuple | None = None


#: A part of a report's display view.
Block = Table | Notes | Items


@dataclass(frozen=True)
class Records:
    """The CSV view of a report: a header and lines of raw values (None for a missing one)."""
    fields: tuple
    rows: tuple


@dataclass(frozen=True)
class Report:
    """A report of one kind, ready for any format (:mod:`aesdse.report.formats`).

    Attributes
    ----------
    kind : str
        Its kind (:data:`aesdse.report.kinds.KINDS`).
    blocks : tuple of Block
        The display view, in order: usually one :class:`Table`; a report of several tables
        (one per device family) leads with its own heading and notes.
    records : Records
        The CSV view.
    json : object
        The JSON view (a list of objects, or an object).
    heading : str or None
        The report's own heading above its tables (Markdown; a LaTeX comment line), when it has
        several tables under it; None when its one table carries the heading.
    title : str or None
        What the report is of (an experiment's title): HTML's page title.
    extra : dict
        What a front end may use beyond the cells: the table lines of a metrics report
        (``lines``, :class:`aesdse.report.lines.TableLine`, which the HTML report plots), and
        what one format adds (``html_before``, ``html_footer``: :mod:`aesdse.report.formats.html`).
    """
    kind: str
    blocks: tuple
    records: Records
    json: Any
    heading: str | None = None
    title: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def tables(self) -> list:
        """The top-level tables of the display view."""
        return [b for b in self.blocks if isinstance(b, Table)]
