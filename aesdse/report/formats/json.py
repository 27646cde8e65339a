"""JSON: the report's machine-readable value (:attr:`aesdse.report.model.Report.json`),
indented by two spaces, keys in the order the kind gives them (stable for scripts)."""

import json

from ..model import Report

__all__ = ["render"]


def render(report: Report) -> str:
    """``report``'s JSON value as text, with a final newline."""
    return json.dumps(report.json, indent=2) + "\n"
