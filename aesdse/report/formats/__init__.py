"""The output formats of a report: one renderer per format, each ``render(report) -> str``.

Every renderer takes any :class:`aesdse.report.model.Report`, whatever its kind, and lives in
its own module named after the format (``markdown.py``, ``csv.py``, ...), imported when first
asked for: ``aesdse --help`` imports none of them. The names are declared once, in
:data:`aesdse.report.kinds.FORMATS`.
"""

from importlib import import_module

from ..kinds import FORMATS
from ..model import Report

__all__ = ["renderer", "render"]


def renderer(fmt: str):
    """The renderer of format ``fmt``: ``render(report) -> str``.

    Raises
    ------
    ValueError
        For a name not in :data:`aesdse.report.kinds.FORMATS`.
    """
    if fmt not in FORMATS:
        raise ValueError(f"Format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    return import_module(f"{__name__}.{fmt}").render


def render(report: Report, fmt: str) -> str:
    """``report`` in format ``fmt`` (one of :data:`aesdse.report.kinds.FORMATS`)."""
    return renderer(fmt)(report)
