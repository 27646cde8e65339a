"""An exploration's result as text: the summary lines, the front as a table (the report's
metrics table, :func:`aesdse.report.metrics.metrics_table`, in any of its formats: each front
point's seeds aggregated to the median with their spread), and one JSON object."""

from ..report.formats import render
from ..report.metrics import metrics_table
from .front import row_values

__all__ = ["summary_lines", "front_table", "result_json"]


def summary_lines(plan, result) -> list:
    """What the search did and found, for the terminal."""
    r = result
    lines = [f"{plan.name}: stopped by {r.stopped_by}: {r.evaluated} placed and routed "
             f"({r.pnr_runs} P&R runs, +{r.seed_runs} for more placer seeds), "
             f"{r.pruned} pruned by synthesis (P&R runs saved), {r.failed} failed, "
             f"{r.warm} known before (not run again), {r.repaired} suggestions repaired"
             + (f", {r.interrupted} running candidates interrupted (run again on resume)"
                if r.interrupted else "")]
    if r.front:
        lines.append(f"front: {len(r.front)} designs, hypervolume {r.hypervolume:.4g}")
    else:
        wanted = ", ".join(c.text for c in plan.settings.constraints) or "the objectives"
        lines.append(f"no evaluated point meets the constraints ({wanted})"
                     + ("; closest:" if r.closest or r.closest_pruned
                        else "; nothing was measured"))
        for row in r.closest:
            lines.append(f"  {row.arch} {row.params}: {_shown(plan, row_values(row))}")
        for pruned in [] if r.closest else r.closest_pruned:
            lines.append(f"  {pruned['label']}: {_shown(plan, pruned['synthesis'])} "
                         f"(synthesis; pruned: {pruned['why']})")
    return lines


def _shown(plan, values: dict) -> str:
    """The constrained metrics of ``values``."""
    return ", ".join(f"{c.metric} {values.get(c.metric):.4g}" for c in plan.settings.constraints
                     if c.metric and values.get(c.metric) is not None)


def front_table(result, fmt: str = "markdown", title: str | None = None) -> str:
    """The front's rows (every seed) as the report's metrics table, led by the parameters that
    vary among every row the exploration knows (so a front of one point says what it is)."""
    rows = [row for summary in result.front for row in summary.rows]
    report = metrics_table(rows, title, "median", among=[r for r in result.rows
                                                         if r.status == "ok"] or rows)
    return render(report, fmt)


def result_json(plan, result) -> dict:
    """The result as one JSON-ready object."""
    r = result
    return {
        "experiment": plan.name, "stopped_by": r.stopped_by, "interrupted": r.interrupted,
        "evaluated": r.evaluated,
        "pruned": r.pruned, "failed": r.failed, "repaired": r.repaired,
        "pnr_runs": r.pnr_runs, "seed_runs": r.seed_runs, "pnr_runs_saved": r.pruned,
        "seed_racing": plan.settings.seed_racing,
        "warm_start": r.warm, "hypervolume": r.hypervolume,
        "objectives": {o.metric: o.direction for o in plan.settings.objectives},
        "constraints": [c.text for c in plan.settings.constraints],
        "front": [{"arch": s.first.arch, "params": s.first.params,
                   "seeds": [row.seed for row in s.rows], "keys": [row.key for row in s.rows],
                   "median": s.median, "spread": {k: list(v) for k, v in s.spread.items()}}
                  for s in r.front],
        "infeasible": r.infeasible,
        "closest": [{"arch": row.arch, "params": row.params, "key": row.key,
                     **{k: v for k, v in row_values(row).items() if v is not None}}
                    for row in r.closest],
        "closest_pruned": r.closest_pruned,
        "pruned_points": r.pruned_points,
    }
