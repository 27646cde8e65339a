"""``aesdse sweep``: run every design point of an experiment and store the results."""

import json
import os
import sqlite3
import sys
from pathlib import Path

import click

from .common import SECONDS, db_option, executor_options, experiment_or_fail

__all__ = ["sweep"]


@click.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False))
@db_option
@executor_options(
    results_dir_help="Where per-point artifacts (Verilog, logs, reports) and the stage cache go.",
    jobs_help="Design points run in parallel (default: number of cores); with "
              "--executor dask-local, the number of Dask workers.",
    executor_help="local: worker processes on this machine; dask-local: a Dask LocalCluster; "
                  "dask: the Dask cluster at --scheduler (pip install 'aesdse[dask]').",
    scheduler_help="Dask scheduler for --executor dask, e.g. tcp://HOST:8786.")
@click.option("--timeout-synth", type=SECONDS, metavar="SECONDS",
              help="Yosys time limit per point (overrides the experiment's synth_timeout_s).")
@click.option("--timeout-pnr", type=SECONDS, metavar="SECONDS",
              help="nextpnr time limit per point (overrides the experiment's pnr_timeout_s).")
@click.option("--no-cache", is_flag=True,
              help="Do not take stages from the stage cache (results/cache); still fill it.")
@click.option("--force", is_flag=True, help="Redo points that are already in the database.")
@click.option("--retry-failed", is_flag=True,
              help="Run again the points stored as failed (any failed status); ok rows stay.")
@click.option("--no-netlist-verify", is_flag=True,
              help="Do not simulate the synthesized netlists with their family's cell models "
                   "(each row then says 'netlist not checked'; also AESDSE_NETLIST_VERIFY=0).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON summary object at the end instead of progress lines.")
@click.option("-q", "--quiet", is_flag=True, help="No progress display; only the summary.")
@click.option("--dry-run", is_flag=True,
              help="Validate EXPERIMENT and list its design points and how many are stored in "
                   "--db; run nothing, write nothing.")
def sweep(experiment, db_path, results_dir, jobs, executor, scheduler, timeout_synth,
          timeout_pnr, no_cache, force, retry_failed, no_netlist_verify, as_json, quiet,
          dry_run):
    """Run every design point of EXPERIMENT (a YAML file) and store the results.

    Each point is generated, verified in simulation (its latency and cycles per block are
    measured there), synthesized with Yosys and placed and routed with nextpnr. Points already
    in the database are skipped, so an interrupted sweep resumes where it stopped; each stage is
    also cached by the content of its inputs, so a new seed or frequency runs only nextpnr. A
    failing point (a tool crash or timeout included) is stored with its reason and logs and the
    sweep goes on; the exit code is 1 if any point failed. A tool that dies of a signal aesdse
    did not send (SIGBUS, SIGSEGV) runs once more; if it dies again the row says "transient"
    and the next sweep runs the point again. --retry-failed runs every failed point again.

    \b
    Example:
      aesdse sweep experiments/quickstart.yaml
      aesdse sweep experiments/quickstart.yaml --retry-failed
      aesdse sweep experiments/compact.yaml --jobs 2 --db results/compact.sqlite
      aesdse sweep experiments/compact.yaml --executor dask-local --jobs 2
      aesdse sweep experiments/compact.yaml --executor dask --scheduler tcp://head:8786
    """
    from ..engine.sweep import sweep as run_sweep
    from ..flow.tools import ToolNotFound
    from ..store.database import Store, StoreError
    exp = experiment_or_fail(experiment)
    if dry_run:
        _dry_run(exp, db_path, as_json)
        return
    if executor == "dask" and not scheduler:
        raise click.BadParameter("--executor dask needs --scheduler tcp://HOST:8786",
                                 param_hint="--scheduler")
    jobs = jobs or os.cpu_count() or 1
    echo = None if (as_json or quiet) else (lambda line: click.echo(line))
    if echo:
        click.echo(f"{exp.name}: {len(exp.points)} design points, database {db_path}")
    try:
        with Store(db_path) as store:
            summary = run_sweep(exp, store, results_dir, force=force, jobs=jobs, echo=echo,
                                executor=executor, scheduler=scheduler,
                                synth_timeout_s=timeout_synth, pnr_timeout_s=timeout_pnr,
                                use_cache=not no_cache, retry_failed=retry_failed,
                                netlist_verify=False if no_netlist_verify else None)
    except (ToolNotFound, StoreError) as e:
        raise click.ClickException(str(e)) from None
    except sqlite3.OperationalError as e:
        raise _database_fault(e, db_path) from None
    except (RuntimeError, OSError) as e:
        if executor == "local":
            raise
        raise click.ClickException(f"{executor} executor: {e}") from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted: finished points are stored; run the same command to resume",
                   err=True)
        sys.exit(130)
    failures = _report_summary(exp, summary, as_json)
    sys.exit(1 if failures or summary.errors else 0)


def _report_summary(exp, summary, as_json: bool) -> list:
    """Print the sweep's summary (one JSON object, or lines); the failed points as dicts."""
    failures = [{"arch": r.arch, "params": r.params, "freq_mhz": r.freq_mhz, "seed": r.seed,
                 "status": r.status, "reason": (r.reason or "\n").splitlines()[0] or None,
                 "artifacts": r.artifacts} for r in summary.failed]
    if as_json:
        click.echo(json.dumps({"experiment": exp.name, "points": summary.total,
                               "ran": summary.done, "cached": summary.cached,
                               "cache_hits": summary.stage_hits, "failed": failures,
                               "errors": summary.errors, "warnings": summary.warnings,
                               "rerun_after_worker_lost": summary.rerun,
                               "verify_fallbacks": summary.fallbacks,
                               "netlist_verification": summary.netlist,
                               "seconds": round(summary.seconds, 2)}))
    else:
        hits = ", ".join(f"{n} {stage}" for stage, n in summary.stage_hits.items() if n)
        click.echo(f"done in {summary.seconds:.1f} s: {summary.done} run, {summary.cached} "
                   f"cached, {len(failures)} failed" + (f" (stage cache: {hits})" if hits else ""))
        if summary.rerun:
            click.echo(f"  {len(summary.rerun)} point{'s' * (len(summary.rerun) != 1)} re-run "
                       f"after a worker was lost (each stored once)")
        for f in failures:
            click.echo(f"  FAILED {f['status']}: {f['arch']} {f['params']} "
                       f"@{f['freq_mhz']:g} MHz seed {f['seed']}: {f['reason']}"
                       f" (logs: {f['artifacts']})")
        for e in summary.errors:
            click.echo(f"  ERROR (not stored, retried next time): {e}")
        _verification_lines(summary)
    return failures


def _database_fault(error: sqlite3.OperationalError, db_path) -> click.ClickException:
    """A sweep's database that could not be written (locked, full, read-only) as one line;
    any other SQLite error is re-raised (a bug)."""
    from ..store.database import write_problem
    problem = write_problem(error)
    if problem is None:
        raise error
    return click.ClickException(f"{db_path}: {problem}; finished points are stored; run the "
                                f"same command to resume")


def _verification_lines(summary) -> None:
    """How the points run were verified, where it is not the default: fallbacks to amaranth.sim
    and netlist stages that did not check."""
    if summary.fallbacks:
        reasons = sorted({f["reason"] for f in summary.fallbacks})
        click.echo(f"  {len(summary.fallbacks)} point{'s' * (len(summary.fallbacks) != 1)} "
                   f"verified with amaranth.sim instead of a compiled backend: "
                   + "; ".join(reasons))
    if summary.netlist:
        click.echo("  netlist verification: " + ", ".join(
            f"{n} {outcome}" for outcome, n in sorted(summary.netlist.items())))


def _dry_run(exp, db_path, as_json):
    """``sweep --dry-run``: the points, and which are stored (by key: same code and tools; or
    only by configuration: measured by other code or tools, which the sweep re-runs)."""
    from ..flow.tools import tool_versions
    from ..spec.schema import flow_choices
    from ..store.database import Store, StoreError
    versions = tool_versions()
    keys = [p.key(versions) for p in exp.points]
    stored, by_config = set(), set()
    if Path(db_path).is_file():
        try:
            with Store(db_path, readonly=True) as store:
                stored = {r.key for r in store.rows(keys)}
                by_config = {r.config_key for r in store.rows_by_config(
                    [p.config_key() for p in exp.points])}
        except StoreError as e:
            raise click.ClickException(str(e)) from None
    points = [{"key": key, "arch": p.arch, "params": p.params_dict, "target": p.target.label,
               "flow": p.flow.as_dict(), "stored": key in stored,
               "older_stored": key not in stored and p.config_key() in by_config}
              for p, key in zip(exp.points, keys)]
    done = sum(p["stored"] for p in points)
    if as_json:
        click.echo(json.dumps({"experiment": exp.name, "points": len(points), "stored": done,
                               "to_run": len(points) - done, "list": points}))
        return
    for p, point in zip(points, exp.points):
        state = "stored" if p["stored"] else "run (older row stored)" if p["older_stored"] \
            else "run"
        flow = ("fmax_search" if point.flow.fmax_search else
                f"@{point.flow.freq_mhz:g}MHz seed={point.flow.seed}") \
            + flow_choices(point.flow.as_dict())
        click.echo(f"{state:<22} {point.label} {point.target.label} {flow}")
    click.echo(f"{exp.name}: {len(points)} design points, {done} stored in {db_path}, "
               f"{len(points) - done} to run (dry run: nothing was run)")
