"""The ``aesdse`` command line: a thin layer that parses, calls one stage, and renders."""

import json
import os
import sys
from pathlib import Path

import click

import archs

from .experiment import ExperimentError, load_experiment, make_point
from .flow.tools import ToolNotFound, tool_versions
from .generate import GenerateError, generate, write_verilog
from .report.table import FORMATS, render
from .store import Store

__all__ = ["main"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _db_option(f):
    return click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
                        default=Path("results/aesdse.sqlite"), show_default=True,
                        help="Results database (SQLite).")(f)


def _experiment(path):
    try:
        return load_experiment(path)
    except ExperimentError as e:
        raise click.ClickException(str(e)) from None


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="aesdse")
def main():
    """Design-space exploration for AES hardware.

    Generate AES architectures in Amaranth, verify each against FIPS-197, NIST SP 800-38A and
    random vectors from the `cryptography` package, synthesize with Yosys, place and route with
    nextpnr, and compare area, Fmax and throughput from one results database.

    \b
    Typical session:
      aesdse list archs                             what can be generated
      aesdse sweep experiments/quickstart.yaml      run every design point
      aesdse report experiments/quickstart.yaml     the comparison table
    """


@main.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False))
@_db_option
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("results"), show_default=True,
              help="Where per-point artifacts (Verilog, logs, reports) go.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Design points run in parallel (default: number of cores).")
@click.option("--force", is_flag=True, help="Redo points that are already in the database.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON summary object at the end instead of progress lines.")
def sweep(experiment, db_path, results_dir, jobs, force, as_json):
    """Run every design point of EXPERIMENT (a YAML file) and store the results.

    Each point is generated, verified in simulation (its latency and cycles per block are
    measured there), synthesized with Yosys and placed and routed with nextpnr. Points already
    in the database are skipped, so an interrupted sweep resumes where it stopped. A failing
    point is stored with its reason and logs and the sweep goes on; the exit code is 1 if any
    point failed.

    \b
    Example:
      aesdse sweep experiments/quickstart.yaml
      aesdse sweep experiments/compact.yaml --jobs 2 --db results/compact.sqlite
    """
    from .sweep import sweep as run_sweep
    exp = _experiment(experiment)
    jobs = jobs or os.cpu_count() or 1
    echo = None if as_json else (lambda line: click.echo(line))
    if echo:
        click.echo(f"{exp.name}: {len(exp.points)} design points, database {db_path}")
    try:
        with Store(db_path) as store:
            summary = run_sweep(exp, store, results_dir, force=force, jobs=jobs, echo=echo)
    except ToolNotFound as e:
        raise click.ClickException(str(e)) from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted: finished points are stored; run the same command to resume",
                   err=True)
        sys.exit(130)
    failures = [{"arch": r.arch, "params": r.params, "status": r.status,
                 "reason": (r.reason or "").splitlines()[0] if r.reason else None,
                 "artifacts": r.artifacts} for r in summary.failed]
    if as_json:
        click.echo(json.dumps({"experiment": exp.name, "points": summary.total,
                               "ran": summary.done, "cached": summary.cached,
                               "failed": failures, "seconds": round(summary.seconds, 2)}))
    else:
        click.echo(f"done in {summary.seconds:.1f} s: {summary.done} run, {summary.cached} "
                   f"cached, {len(failures)} failed")
        for f in failures:
            click.echo(f"  FAILED {f['status']}: {f['arch']} {f['params']}: {f['reason']}"
                       f" (logs: {f['artifacts']})")
    sys.exit(1 if failures else 0)


@main.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@_db_option
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="markdown",
              show_default=True, help="Table format.")
@click.option("--arch", help="Only this architecture.")
@click.option("--where", help="Extra SQL condition on the points table, e.g. \"luts < 1000\".")
def report(experiment, db_path, fmt, arch, where):
    """Print the comparison table of EXPERIMENT's design points (or of the whole database).

    One row per verified point: the parameters that vary, then LUT4, FF, block RAM, slices,
    Fmax, latency, cycles per block, throughput, and throughput per LUT4 and per slice. Failed
    points are listed below the table with their reason. Points of the experiment that have not
    been swept yet are counted on stderr.

    \b
    Example:
      aesdse report experiments/quickstart.yaml
      aesdse report experiments/quickstart.yaml --format json
      aesdse report --arch iterative --format latex
    """
    if not db_path.exists():
        raise click.ClickException(f"{db_path}: no results database; run `aesdse sweep` first")
    keys, title = None, None
    if experiment:
        exp = _experiment(experiment)
        versions = tool_versions()
        keys = [p.key(versions) for p in exp.points]
        title = exp.name
    conditions, args = [], []
    if arch:
        conditions.append("arch = ?")
        args.append(arch)
    if where:
        conditions.append(where)
    try:
        with Store(db_path) as store:
            rows = store.rows(keys, where=" AND ".join(conditions) or None, params=tuple(args))
    except Exception as e:
        if type(e).__name__ == "OperationalError":
            raise click.ClickException(f"--where: {e}") from None
        raise
    if keys is not None and len(rows) < len(keys):
        click.echo(f"{len(keys) - len(rows)} of {len(keys)} points of {title} are not in "
                   f"{db_path} yet: run `aesdse sweep {experiment}`", err=True)
    click.echo(render(rows, fmt, title=title), nl=False)


def _parse_params(values):
    params = {}
    for item in values:
        if "=" not in item:
            raise click.BadParameter(f"{item!r} must be NAME=VALUE", param_hint="--param")
        name, value = item.split("=", 1)
        params[name] = _coerce(value)
    return params


def _coerce(text):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


@main.command("generate")
@click.argument("arch", type=click.Choice(sorted(archs.FAMILIES)))
@click.option("-p", "--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Architecture parameter (repeatable); see `aesdse list archs`.")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              default=Path("out"), show_default=True, help="Output directory.")
@click.option("--target", type=click.Choice(["generic", "ecp5"]), default="generic",
              show_default=True,
              help="Netlist flavour: portable, or with ECP5 primitives (e.g. DP16KD).")
def generate_cmd(arch, params, output, target):
    """Write the Verilog and JSON manifest of one design point of ARCH.

    The top module is named after the design point; output is deterministic. The manifest
    lists the architecture, its parameters, every port with its width, the key sizes,
    directions and modes supported and the byte-order convention.

    \b
    Example:
      aesdse generate iterative --param sbox=lut -o out/
    """
    try:
        point = make_point(arch, _parse_params(params))
        design = generate(point, target=target)
        verilog = write_verilog(design, output)
    except (ExperimentError, GenerateError, ToolNotFound) as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"{verilog}\n{verilog.with_suffix('.json')}")


@main.group("list")
def list_group():
    """List what aesdse knows."""


@list_group.command("archs")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_archs(as_json):
    """Architecture families, each parameter with its allowed values and default.

    \b
    Example:
      aesdse list archs
    """
    if as_json:
        click.echo(json.dumps({
            name: {"doc": f.doc, "kind": f.kind, "key_sizes": list(f.key_sizes),
                   "directions": list(f.directions), "modes": list(f.modes),
                   "params": {p.name: {"choices": list(p.choices), "default": p.default,
                                       "doc": p.doc} for p in f.params}}
            for name, f in sorted(archs.FAMILIES.items())}, indent=2))
        return
    for name, f in sorted(archs.FAMILIES.items()):
        click.echo(f"{name}: {f.doc}")
        for p in f.params:
            choices = ", ".join(_show(c) for c in p.choices)
            click.echo(f"  {p.name:<16} {{{choices}}} default {_show(p.default)}: {p.doc}")


def _show(value):
    return str(value).lower() if isinstance(value, bool) else str(value)
