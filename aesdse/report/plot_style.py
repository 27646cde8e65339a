"""The look every figure shares, and saving one reproducibly.

Every figure is drawn for a single paper column (3.5 in wide, 7-8 pt text) on matplotlib's Agg
canvas, without pyplot's global state (:func:`new_figure`), and saved deterministically
(:func:`save`): a fixed style (:data:`STYLE`), a fixed SVG hash salt, no timestamps or software
versions in the file's metadata. matplotlib is imported on first use (:func:`mpl`).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from ..store.database import Row
from .lines import aggregate

__all__ = ["STYLE", "WIDTH", "COLORS", "MARKERS", "PUBLISHED_MARKERS", "PlotError", "mpl",
           "plain_log", "new_figure", "plot_lines", "spans_decade", "has_column", "save"]

#: The fixed style of every figure: one paper column, 7 pt text (8 pt titles), DejaVu Sans (ships
#: with matplotlib, so the output does not depend on the fonts of the machine).
STYLE = {
    "font.family": "DejaVu Sans",
    "font.size": 7,
    "axes.titlesize": 8,
    "axes.labelsize": 7,
    "xtick.labelsize": 6.5,
    "ytick.labelsize": 6.5,
    "legend.fontsize": 6,
    "legend.frameon": False,
    "axes.linewidth": 0.6,
    "lines.linewidth": 1.0,
    "lines.markersize": 4,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "axes.grid": True,
    "grid.linewidth": 0.3,
    "grid.color": "#cccccc",
    "axes.axisbelow": True,
    "savefig.dpi": 300,
    "svg.hashsalt": "aesdse",
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
    "path.simplify": False,
}

#: Column width of a two-column paper, inches.
WIDTH = 3.5

#: Okabe-Ito colour-blind-safe palette, then markers, assigned to families in sorted order.
COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442",
           "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
PUBLISHED_MARKERS = ("o", "s", "^", "D", "v")

#: Metadata that would make two saves of one figure differ (dates, tool versions).
_METADATA = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None},
             "png": {"Software": None}}


if TYPE_CHECKING:
    from matplotlib.figure import Figure


def mpl():
    """matplotlib, imported on first use: it costs most of a second, and the CLI imports this
    module for its option choices."""
    import matplotlib
    return matplotlib


def plain_log(axis):
    """Log-axis tick labels as plain numbers (``300``, ``1,000``), not powers of ten."""
    from matplotlib.ticker import LogFormatter

    class PlainLog(LogFormatter):
        def _num_to_string(self, x, vmin, vmax):
            return f"{x:,.0f}" if x >= 1 else f"{x:g}"

    axis.set_major_formatter(PlainLog())
    axis.set_minor_formatter(PlainLog())


class PlotError(ValueError):
    """A plot cannot be drawn from the given rows and options; the message says why."""


def new_figure(height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(WIDTH, height))
    FigureCanvasAgg(fig)
    return fig


def plot_lines(rows, fmax="median"):
    entries, _ = aggregate(rows, fmax)
    if not entries:
        raise PlotError("No verified design points to plot")
    return entries


def spans_decade(values) -> bool:
    values = [v for v in values if v and v > 0]
    return bool(values) and max(values) / min(values) >= 10


def has_column(row: Row, name: str) -> bool:
    if name in ("arch", "seed", "freq_mhz"):
        return True
    if name.startswith("flow."):
        return name[5:] in (row.flow or {})
    return name in row.params


def save(fig: Figure, path) -> Path:
    """Save ``fig`` to ``path``; the format comes from the extension (``.png``, ``.svg``,
    ``.pdf``). The file has no timestamps or tool versions, so it is reproducible byte for
    byte."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in _METADATA:
        raise PlotError(f"Output file must end in .png, .svg or .pdf, not {path.name!r}")
    buf = io.BytesIO()
    with mpl().rc_context(STYLE):
        fig.savefig(buf, format=fmt, metadata=_METADATA[fmt])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(buf.getvalue())
    except OSError as e:
        raise PlotError(f"{path}: cannot write ({e.strerror or e})") from None
    return path
