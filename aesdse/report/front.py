"""The Pareto front of verified design points (``aesdse report EXPERIMENT --front``).

A configuration is on the front when no other configuration is at least as good in every
objective and better in one. The default objectives are the trade-off of the papers' tables:
the highest throughput for the least area in LUT4 (:data:`FRONT_OBJECTIVES`); any other numbers
of a table line can be asked for (:data:`OBJECTIVE_METRICS`), as many as wanted.

Seeds count as in every table: rows that differ only by placer seed are one configuration
(:func:`aesdse.report.lines.aggregate`), its Fmax the median over the seeds (or the chosen
statistic) with the spread shown beside it, and throughput follows that Fmax. So the front is
that of the table lines, not of single placer runs, which a lucky seed would decide.

:func:`front_table` is the entry point for other code (a search that wants the front of its
points): it takes stored rows and returns a :class:`aesdse.report.model.Report`, printed in any
format by :func:`aesdse.report.formats.render`; :func:`pareto_lines` gives the front's lines
alone.
"""

from dataclasses import replace

from ..store.database import Row
from .kinds import PLOT_METRICS
from .lines import TableLine, aggregate
from .metrics import metrics_table
from .model import Notes, Report

__all__ = ["FRONT_OBJECTIVES", "OBJECTIVE_METRICS", "GOALS", "pareto_lines", "front_table",
           "parse_objective"]

#: The default objectives: (table line attribute, goal), the highest throughput for the least
#: LUT4.
FRONT_OBJECTIVES = (("throughput_mbps", "max"), ("luts", "min"))

#: The numbers an objective can be: a line's attribute -> its name in the report.
OBJECTIVE_METRICS = PLOT_METRICS

#: What an objective wants of its number.
GOALS = ("max", "min")


def _check(objectives) -> tuple:
    objectives = tuple(tuple(o) for o in objectives)
    if not objectives:
        raise ValueError("A Pareto front needs at least one objective")
    for key, goal in objectives:
        if key not in OBJECTIVE_METRICS:
            raise ValueError(f"Objective must be one of {', '.join(OBJECTIVE_METRICS)}, "
                             f"not {key!r}")
        if goal not in GOALS:
            raise ValueError(f"Goal of objective {key} must be max or min, not {goal!r}")
    return objectives


def parse_objective(text: str) -> tuple[str, str]:
    """``"luts:min"`` -> ``("luts", "min")`` (the form ``--objective`` takes).

    Raises
    ------
    ValueError
        For another form, metric or goal.
    """
    key, sep, goal = text.partition(":")
    if not sep:
        raise ValueError(f"An objective is METRIC:max or METRIC:min, not {text!r}")
    return _check([(key, goal)])[0]


def _score(line: TableLine, objectives) -> tuple | None:
    # Every objective as a number to maximise; None when the line lacks one of them.
    values = [getattr(line.row, key) for key, _ in objectives]
    if any(v is None for v in values):
        return None
    return tuple(v if goal == "max" else -v for v, (_, goal) in zip(values, objectives))


def _dominates(a: tuple, b: tuple) -> bool:
    return all(x >= y for x, y in zip(a, b)) and any(x > y for x, y in zip(a, b))


def pareto_lines(lines: list[TableLine], objectives=FRONT_OBJECTIVES) -> list[TableLine]:
    """The lines of ``lines`` that no other line dominates, in their given order.

    Parameters
    ----------
    lines : list of TableLine
        Table lines (:func:`aesdse.report.lines.aggregate`).
    objectives : sequence of (str, str)
        ``(attribute, "max" or "min")`` pairs, attributes of :data:`OBJECTIVE_METRICS`.

    Lines without a number for one of the objectives (an area estimate has no throughput) are
    not on the front. Lines with equal numbers in every objective are all kept.
    """
    objectives = _check(objectives)
    scored = [(line, _score(line, objectives)) for line in lines]
    scored = [(line, score) for line, score in scored if score is not None]
    return [line for line, score in scored
            if not any(_dominates(other, score) for _, other in scored)]


def _objective_text(objectives) -> str:
    return ", ".join(f"{goal} {OBJECTIVE_METRICS[key]}" for key, goal in objectives)


def front_table(rows: list[Row], objectives=FRONT_OBJECTIVES, *, fmax: str = "median",
                title: str | None = None, runs: dict | None = None,
                provenance: dict | None = None) -> Report:
    """The Pareto front of the verified rows among ``rows``, as a metrics table of its lines.

    Parameters
    ----------
    rows : list of Row
        Stored rows, oldest first (failed ones are left out: they have no numbers).
    objectives : sequence of (str, str)
        ``(attribute, "max" or "min")``, default :data:`FRONT_OBJECTIVES`.
    fmax : str
        Seed aggregation (:data:`aesdse.report.kinds.FMAX_STATS`); the objectives are those of
        the aggregated lines.
    title, runs, provenance
        As :func:`aesdse.report.metrics.metrics_report` takes them.

    Returns
    -------
    Report
        Kind ``front``: the metrics table of the front's lines (leading columns: the parameters
        that vary among the verified rows it was chosen from), with a note naming the objectives and how many
        configurations the front was chosen from. Its JSON is ``{"objectives": [{"metric",
        "goal"}], "configurations", "rows": [...]}``, ``rows`` the metrics report's objects.

    Raises
    ------
    ValueError
        For an unknown objective, goal or statistic.
    """
    objectives = _check(objectives)
    verified = [r for r in rows if r.status == "ok"]
    lines, _ = aggregate(verified, fmax)
    front = pareto_lines(lines, objectives)
    heading = f"{title}: Pareto front" if title else "Pareto front"
    report = metrics_table([m for line in front for m in line.members], heading, fmax, runs,
                           provenance, among=verified)
    table = report.tables[0]
    missing = len(lines) - sum(_score(line, objectives) is not None for line in lines)
    note = (f"Pareto front ({_objective_text(objectives)}): {len(front)} of {len(lines)} "
            f"verified configurations"
            + (f" ({missing} without all of these numbers left out)" if missing else "")
            + "; no other configuration is as good in every objective and better in one.")
    table = replace(table, after=(Notes((note,)),) + table.after)
    data = {"objectives": [{"metric": key, "goal": goal} for key, goal in objectives],
            "configurations": len(lines), "rows": report.json}
    return replace(report, kind="front", blocks=(table,), json=data, title=title)
