"""CSV: the report's records (:class:`aesdse.report.model.Records`), one line each.

Raw values, not the display's formatted cells: numbers unrounded, an empty field for a missing
value, a mapping (a row's parameters) as sorted JSON.
"""

import csv
import io
import json

from ..model import Report

__all__ = ["render"]


def _field(value):
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return "" if value is None else value


def render(report: Report) -> str:
    """``report``'s records as CSV (header line first, ``\\n`` line ends)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(report.records.fields)
    for line in report.records.rows:
        writer.writerow([_field(v) for v in line])
    return buf.getvalue()
