"""Every stored row of one configuration side by side (``aesdse db compare KEY``): what changed
between the code or tool versions that made them.

One line per row, oldest first: when it was made, its status and numbers, the generator
fingerprint and tool versions that made it, and why it is stale against this checkout.
"""

import json

from ..store.database import Row
from .model import Column, Notes, Records, Report, Table

__all__ = ["HISTORY_FIELDS", "history_report"]

#: The fields of each line, in order (``stale`` follows them).
HISTORY_FIELDS = ("created_at", "status", "luts", "ffs", "brams", "fmax_mhz", "latency_cycles",
                  "cycles_per_block", "throughput_mbps", "generator", "tool_versions", "key")


def _text(value) -> str:
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    if value is None:
        return "-"
    return f"{value:.1f}" if isinstance(value, float) else str(value)


def history_report(rows: list[Row], stale: dict, heading: str) -> Report:
    """The rows of one configuration as a report (kind ``rows``).

    Parameters
    ----------
    rows : list of Row
        Oldest first.
    stale : dict
        Row key -> why it is stale (:func:`aesdse.store.provenance.stale_reasons`; empty when
        current).
    heading : str
        The line above the table: which configuration.

    The table leaves the key out (it is in the JSON objects); its last column says
    ``current`` for a row that is not stale.
    """
    records = [{f: getattr(r, f) for f in HISTORY_FIELDS} | {"stale": stale[r.key]}
               for r in rows]
    shown = HISTORY_FIELDS[:-1]
    columns = tuple(Column(f) for f in shown) + (Column("stale"),)
    body = tuple(tuple(_text(r[f]) for f in shown) + (", ".join(r["stale"]) or "current",)
                 for r in records)
    table = Table(columns, body, keys=tuple(r.key for r in rows))
    return Report("rows", (Notes((heading,)), table),
                  Records(HISTORY_FIELDS + ("stale",),
                          tuple(tuple(r[f] for f in HISTORY_FIELDS) + ("; ".join(r["stale"]),)
                                for r in records)), records)
