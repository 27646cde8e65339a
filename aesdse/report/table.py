"""Paper-style comparison tables from stored rows: Markdown, CSV, LaTeX (booktabs) and JSON.

:func:`render` prints the metrics report (:mod:`aesdse.report.metrics`) in one of the text
formats. The names a table is made of live in their own modules and are also reachable from
here, where scripts have always found them: seed aggregation (:mod:`aesdse.report.lines`:
:func:`aggregate`, :class:`TableLine`), cell formatting (:mod:`aesdse.report.cells`:
:func:`number`, :func:`label`) and LaTeX escaping (:mod:`aesdse.report.formats.latex`).
"""

from ..store.database import Row
from .cells import (area_of_row, column_header, family_of_row, label, number, param_value,
                    show_value)
from .formats import render as render_report
from .formats.latex import latex_escape
from .kinds import FMAX_STATS, GROUP_BY, TEXT_FORMATS
from .lines import RUN_FLOW_KEYS, TableLine, aggregate, row_order, scaled, varying_params
from .metrics import ASIC_COLUMNS, COLUMNS, JSON_KEYS, cross_family_label, metrics_report

__all__ = ["COLUMNS", "ASIC_COLUMNS", "JSON_KEYS", "FORMATS", "FMAX_STATS", "GROUP_BY",
           "TableLine", "aggregate", "render", "varying_params", "label", "number",
           "family_of_row", "area_of_row", "RUN_FLOW_KEYS", "row_order", "param_value",
           "column_header", "show_value", "latex_escape", "scaled", "cross_family_label"]

#: The formats :func:`render` prints (HTML is a file of its own: :mod:`aesdse.report.html`).
FORMATS = TEXT_FORMATS


def render(rows: list[Row], fmt: str = "markdown", title: str | None = None,
           fmax: str = "median", runs: dict | None = None,
           provenance: dict | None = None, group_by: str | None = None) -> str:
    """Render ``rows`` as a table in ``fmt`` (one of :data:`FORMATS`).

    Parameters
    ----------
    rows : list of Row
        Verified and failed rows, oldest first; failed ones are listed below the table
        (Markdown, LaTeX) or carry their reason (CSV, JSON).
    fmt : str
        ``markdown``, ``csv``, ``latex`` or ``json``.
    title : str, optional
        Heading (Markdown) or caption (LaTeX).
    fmax : str
        How rows differing only by seed are aggregated, one of :data:`FMAX_STATS`.
    runs : dict, optional
        Point key -> its Fmax-search runs (:meth:`aesdse.store.database.Store.pnr_runs`): searched
        points then show the spread of their runs and the bimodality flag.
    provenance : dict, optional
        Row key -> (stale reasons, older rows of its configuration)
        (:meth:`aesdse.report.select.Selection.provenance`): shown in a ``Provenance`` column.
    group_by : str, optional
        ``"family"``: one table per device family under a heading with the family's area unit,
        the area column headed in that unit; a report of several families is labelled a
        cross-family comparison (:func:`cross_family_label`). Markdown: ``###`` headings;
        LaTeX: one ``table`` per family, captioned so; CSV: one table whose lines carry
        ``family``, ``area_unit``, ``area`` and ``cross_family``; JSON: an object
        ``{"group_by", "title", "cross_family", "label", "groups": [{"family", "title",
        "area_unit", "unit", "heading", "notes", "rows"}]}``.
    """
    if fmt not in FORMATS:
        raise ValueError(f"Format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    return render_report(metrics_report(rows, title, fmax, runs, provenance, group_by), fmt)
