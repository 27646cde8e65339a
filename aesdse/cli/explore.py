"""``aesdse explore``: search the design space of an experiment's ``explore:`` section."""

import json
import os
import sys
from pathlib import Path

import click

from ..report.kinds import FORMATS
from .common import SECONDS, db_option, executor_options

__all__ = ["explore"]


def _overrides(objectives, constraints, pnr_runs, points, wall_s, seeds, sampler,
               seed_racing=None) -> dict:
    """The command line's replacements of the file's ``explore:`` settings, checked by the
    file's own parser (so a bad metric reads the same as in the file)."""
    from ..explore.settings import Budget, parse_explore
    from ..spec.yamlcheck import YamlError
    out = {}
    try:
        if objectives:
            pairs = dict(o.split(":", 1) if ":" in o else (o, "") for o in objectives)
            out["objectives"] = parse_explore({"objectives": pairs}, 0).objectives
        if constraints:
            out["constraints"] = parse_explore({"objectives": {"luts": "min"},
                                                "constraints": list(constraints)}, 0).constraints
    except YamlError as e:
        raise click.BadParameter(e.message) from None
    if any(v is not None for v in (pnr_runs, points, wall_s)):
        out["budget"] = Budget(pnr_runs=pnr_runs, points=points, wall_s=wall_s)
    if seeds is not None:
        out["seeds"] = seeds
    if sampler is not None:
        out["sampler"] = sampler
    if seed_racing is not None:
        out["seed_racing"] = seed_racing
    return out


@click.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False))
@db_option
@executor_options(results_dir_help="Where per-point artifacts and the stage cache go.",
                  jobs_help="Candidates evaluated at once (default: number of cores).",
                  executor_help="Where candidates run, as for aesdse sweep.",
                  scheduler_help="Dask scheduler for --executor dask.")
@click.option("--objective", "objectives", multiple=True, metavar="METRIC:min|max",
              help="Replace the file's objectives (repeat for several).")
@click.option("--constraint", "constraints", multiple=True, metavar="'METRIC <= N'",
              help="Replace the file's constraints (repeat; 'fits' for fits the device).")
@click.option("--budget-pnr", "pnr_runs", type=click.IntRange(min=1),
              help="Place-and-route runs of the search.")
@click.option("--budget-points", "points", type=click.IntRange(min=1),
              help="Candidates evaluated (routed or pruned).")
@click.option("--budget-wall", "wall_s", type=SECONDS, metavar="SECONDS",
              help="Seconds of the search.")
@click.option("--seeds", type=click.IntRange(min=1), help="Placer seeds of each front point.")
@click.option("--seed-racing", type=click.Choice(["front", "halving"]),
              help="Who gets the extra seeds: the front's points (front, the default) or, by "
                   "successive halving, the better half 2, the better half of those 4, ... "
                   "(halving).")
@click.option("--sampler", type=click.Choice(["tpe", "nsga2", "random"]),
              help="The search's sampler (default: the file's, else tpe).")
@click.option("--no-reference", is_flag=True,
              help="Do not warm-start from the shipped results/reference rows.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="markdown",
              show_default=True, help="Format of the front's table.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object at the end instead of progress lines and a table.")
def explore(experiment, db_path, results_dir, jobs, executor, scheduler, objectives,
            constraints, pnr_runs, points, wall_s, seeds, seed_racing, sampler, no_reference,
            fmt, as_json):
    """Search the design space of EXPERIMENT for the front of its objectives.

    EXPERIMENT's architectures are the space (parameters as lists, ranges {from, to} or
    all) and its explore: section says what to optimize, the constraints and the budget.
    Each candidate is verified and synthesized first; one that synthesis shows infeasible or
    dominated is pruned, the others are placed and routed and stored as ordinary rows (report,
    plot and db compare read them). Rows already stored warm-start the search and are not run
    again; a killed explore resumes where it stopped. The front's points then get their other
    placer seeds and are shown with their median and spread (--seed-racing halving: the
    seeds are raced by successive halving instead). Exit code 1 when no point meets the
    constraints.

    \b
    Example:
      aesdse explore experiments/explore/iterative_logic.yaml
      aesdse explore experiments/explore/iterative_logic.yaml --budget-pnr 10 --json
      aesdse explore x.yaml --constraint 'luts <= 3000' --objective throughput_mbps:max
    """
    from ..experiment import ExperimentError
    from ..explore import explore as run_explore
    from ..explore.output import front_table, result_json, summary_lines
    from ..explore.plan import load_plan
    from ..flow.tools import ToolNotFound
    from ..reproduce import REFERENCE_DIR
    from ..store.database import Store, StoreError
    from ..store.exchange import reference_files
    try:
        plan = load_plan(experiment, _overrides(objectives, constraints, pnr_runs, points,
                                                wall_s, seeds, sampler, seed_racing))
    except ExperimentError as e:
        raise click.ClickException(str(e)) from None
    reference = [] if no_reference or not REFERENCE_DIR.is_dir() else \
        reference_files([REFERENCE_DIR])
    echo = None if as_json else click.echo
    Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    try:
        with Store(db_path) as store:
            result = run_explore(plan, store, results_dir, db_path=db_path, executor=executor,
                                 jobs=jobs or os.cpu_count() or 1, scheduler=scheduler,
                                 echo=echo, reference=reference)
    except (ToolNotFound, StoreError, ValueError) as e:
        raise click.ClickException(str(e)) from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted: finished points are stored; run the same command to resume",
                   err=True)
        sys.exit(130)
    if as_json:
        click.echo(json.dumps(result_json(plan, result), default=str))
    else:
        for line in summary_lines(plan, result):
            click.echo(line)
        if result.front:
            click.echo(front_table(result, fmt, title=f"{plan.name}: the front"))
    sys.exit(1 if result.infeasible else 0)
