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
from .report.plot import AREAS as PLOT_AREAS, KINDS as PLOT_KINDS, METRICS as PLOT_METRICS
from .report.table import FMAX_STATS, FORMATS, render
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
              help="Where per-point artifacts (Verilog, logs, reports) and the stage cache go.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Design points run in parallel (default: number of cores); with "
                   "--executor dask-local, the number of Dask workers.")
@click.option("--executor", type=click.Choice(["local", "dask-local", "dask"]), default="local",
              show_default=True,
              help="local: worker processes on this machine; dask-local: a Dask LocalCluster; "
                   "dask: the Dask cluster at --scheduler (pip install 'aesdse[dask]').")
@click.option("--scheduler", metavar="ADDRESS",
              help="Dask scheduler for --executor dask, e.g. tcp://HOST:8786.")
@click.option("--timeout-synth", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Yosys time limit per point (overrides the experiment's synth_timeout_s).")
@click.option("--timeout-pnr", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="nextpnr time limit per point (overrides the experiment's pnr_timeout_s).")
@click.option("--no-cache", is_flag=True,
              help="Do not take stages from the stage cache (results/cache); still fill it.")
@click.option("--force", is_flag=True, help="Redo points that are already in the database.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON summary object at the end instead of progress lines.")
@click.option("-q", "--quiet", is_flag=True, help="No progress display; only the summary.")
def sweep(experiment, db_path, results_dir, jobs, executor, scheduler, timeout_synth,
          timeout_pnr, no_cache, force, as_json, quiet):
    """Run every design point of EXPERIMENT (a YAML file) and store the results.

    Each point is generated, verified in simulation (its latency and cycles per block are
    measured there), synthesized with Yosys and placed and routed with nextpnr. Points already
    in the database are skipped, so an interrupted sweep resumes where it stopped; each stage is
    also cached by the content of its inputs, so a new seed or frequency runs only nextpnr. A
    failing point (a tool crash or timeout included) is stored with its reason and logs and the
    sweep goes on; the exit code is 1 if any point failed.

    \b
    Example:
      aesdse sweep experiments/quickstart.yaml
      aesdse sweep experiments/compact.yaml --jobs 2 --db results/compact.sqlite
      aesdse sweep experiments/compact.yaml --executor dask-local --jobs 2
      aesdse sweep experiments/compact.yaml --executor dask --scheduler tcp://head:8786
    """
    from .sweep import sweep as run_sweep
    exp = _experiment(experiment)
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
                                use_cache=not no_cache)
    except ToolNotFound as e:
        raise click.ClickException(str(e)) from None
    except (RuntimeError, OSError) as e:
        if executor == "local":
            raise
        raise click.ClickException(f"{executor} executor: {e}") from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted: finished points are stored; run the same command to resume",
                   err=True)
        sys.exit(130)
    failures = [{"arch": r.arch, "params": r.params, "freq_mhz": r.freq_mhz, "seed": r.seed,
                 "status": r.status,
                 "reason": (r.reason or "").splitlines()[0] if r.reason else None,
                 "artifacts": r.artifacts} for r in summary.failed]
    if as_json:
        click.echo(json.dumps({"experiment": exp.name, "points": summary.total,
                               "ran": summary.done, "cached": summary.cached,
                               "cache_hits": summary.stage_hits, "failed": failures,
                               "errors": summary.errors, "warnings": summary.warnings,
                               "seconds": round(summary.seconds, 2)}))
    else:
        hits = ", ".join(f"{n} {stage}" for stage, n in summary.stage_hits.items() if n)
        click.echo(f"done in {summary.seconds:.1f} s: {summary.done} run, {summary.cached} "
                   f"cached, {len(failures)} failed" + (f" (stage cache: {hits})" if hits else ""))
        for f in failures:
            click.echo(f"  FAILED {f['status']}: {f['arch']} {f['params']} "
                       f"@{f['freq_mhz']:g} MHz seed {f['seed']}: {f['reason']}"
                       f" (logs: {f['artifacts']})")
        for e in summary.errors:
            click.echo(f"  ERROR (not stored, retried next time): {e}")
    sys.exit(1 if failures or summary.errors else 0)


@main.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@_db_option
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="markdown",
              show_default=True, help="Table format.")
@click.option("--arch", help="Only this architecture.")
@click.option("--target", help="Only this target: a device (LFE5U-85F) or a full label "
                               "(LFE5U-85F-8CABGA381).")
@click.option("--where", help="Extra SQL condition on the points table, e.g. \"luts < 1000\".")
@click.option("--fmax", "fmax", type=click.Choice(FMAX_STATS), default="median",
              show_default=True,
              help="Rows differing only by placer seed become one line with this Fmax and the "
                   "spread across seeds (all: one line per seed).")
@click.option("--compare", "compare_with", type=click.Choice(["published"]),
              help="Put each measured configuration beside the published rows it reproduces "
                   "(experiments/published), with ratios, the area convention and the papers' "
                   "consistency flags.")
@click.option("--resources", is_flag=True,
              help="Print the architectural resources each design counted in itself (S-boxes, "
                   "MixColumns units, memory bits, AddRoundKey width: 000 Table I) beside the "
                   "published counts, instead of the metrics table (Markdown).")
def report(experiment, db_path, fmt, arch, target, where, fmax, compare_with, resources):
    """Print the comparison table of EXPERIMENT's design points (or of the whole database).

    One line per design configuration (placer seeds aggregated, see --fmax): the parameters that
    vary, then LUT4, FF, block RAM, slices, Fmax, latency, cycles per block, throughput, and
    throughput per LUT4 and per slice. Failed points are listed below the table with their
    reason. Points of the experiment that have not been swept yet are counted on stderr.
    A point swept with `flow: fmax_search` shows its converged Fmax (the best achieved by any
    of its routed nextpnr runs), the spread of its runs near that Fmax and a [bimodal] flag.

    \b
    Example:
      aesdse report experiments/quickstart.yaml
      aesdse report experiments/quickstart.yaml --format json
      aesdse report --arch iterative --format latex --fmax best
      aesdse report experiments/compact.yaml --compare published
      aesdse report experiments/compact.yaml --resources
    """
    if not db_path.exists():
        raise click.ClickException(f"{db_path}: no results database; run `aesdse sweep` first")
    title, rows = _select(experiment, db_path, arch, target, where)
    if resources:
        from .published import load_papers
        from .report.resources import resources_markdown
        click.echo(resources_markdown(rows, load_papers(), title=title), nl=False)
        return
    if compare_with:
        from .published import PublishedDataError, load_papers
        from .report.compare import compare, render_compare
        try:
            papers = load_papers()
        except (PublishedDataError, FileNotFoundError) as e:
            raise click.ClickException(str(e)) from None
        text = render_compare(compare(rows, papers, fmax), fmt,
                              title=f"{title}: measured vs published" if title else None)
    else:
        runs = None
        if any((r.flow or {}).get("fmax_search") for r in rows):
            with Store(db_path) as store:
                runs = store.pnr_runs([r.key for r in rows])
        text = render(rows, fmt, title=title, fmax=fmax, runs=runs)
    click.echo(text, nl=False)


def _select(experiment, db_path, arch, target, where):
    """The stored rows of EXPERIMENT (all if None) that pass the filters, and a title."""
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
    if target:
        # A label is DEVICE-SPEEDPACKAGE (experiment.Target.label): a device name matches all.
        conditions.append("(target = ? OR target LIKE ?)")
        args += [target, f"{target}-%"]
    if where:
        conditions.append(where)
    try:
        with Store(db_path) as store:
            rows = store.rows(keys, where=" AND ".join(conditions) or None, params=tuple(args))
    except Exception as e:
        if type(e).__name__ == "OperationalError":
            raise click.ClickException(f"--where: {e}") from None
        raise
    if keys is not None and not (arch or target or where) and len(rows) < len(keys):
        click.echo(f"{len(keys) - len(rows)} of {len(keys)} points of {title} are not in "
                   f"{db_path} yet: run `aesdse sweep {experiment}`", err=True)
    return title, rows


@main.command()
@click.argument("experiment", type=click.Path(exists=True, dir_okay=False), required=False)
@_db_option
@click.option("-k", "--kind", type=click.Choice(PLOT_KINDS), default="pareto", show_default=True,
              help="pareto: area vs throughput with the Pareto front; sweep: metrics vs one "
                   "parameter; bars: throughput per area per design.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Output file; .png, .svg or .pdf picks the format.")
@click.option("--area", type=click.Choice(list(PLOT_AREAS)), default="luts", show_default=True,
              help="Area measure (pareto, bars): LUT4, ECP5 slices, or slice-equivalents with "
                   "block RAM at 72 slices per DP16KD.")
@click.option("--x", "x_param", metavar="PARAM",
              help="sweep: the parameter on the x axis (an architecture parameter, freq_mhz, "
                   "seed or flow.OPTION).")
@click.option("--y", "y_metrics", metavar="METRIC", multiple=True,
              help="sweep: metric to plot, repeatable (one panel each); default fmax_mhz. "
                   f"One of: {', '.join(PLOT_METRICS)}.")
@click.option("--published", is_flag=True,
              help="pareto: overlay the seed papers' published points that have a comparable "
                   "area (other devices; marked as such).")
@click.option("--arch", help="Only this architecture.")
@click.option("--target", help="Only this target (device or full label).")
@click.option("--where", help="Extra SQL condition on the points table.")
@click.option("--title", help="Figure title.")
def plot(experiment, db_path, kind, output, area, x_param, y_metrics, published, arch, target,
         where, title):
    """Draw a figure of EXPERIMENT's design points (or of the whole database).

    Figures are sized for one paper column (3.5 in, 7 pt text) and deterministic: the same
    results give the same bytes. Placer seeds are aggregated by median Fmax (except with
    --x seed).

    \b
    Example:
      aesdse plot experiments/compact.yaml --kind pareto -o pareto.png
      aesdse plot experiments/compact.yaml --kind pareto --area slice-eq --published -o p.pdf
      aesdse plot experiments/pipelined.yaml --kind sweep --x sbox_stages --y luts -o s.svg
      aesdse plot --kind bars --area slices -o bars.png
    """
    from .report.plot import PlotError, plot as draw
    if not db_path.exists():
        raise click.ClickException(f"{db_path}: no results database; run `aesdse sweep` first")
    _, rows = _select(experiment, db_path, arch, target, where)
    papers = None
    if published:
        from .published import PublishedDataError, load_papers
        try:
            papers = load_papers()
        except (PublishedDataError, FileNotFoundError) as e:
            raise click.ClickException(str(e)) from None
    try:
        path = draw(rows, kind, output, area=area, x=x_param, y=y_metrics, published=papers,
                    title=title)
    except PlotError as e:
        raise click.ClickException(str(e)) from None
    click.echo(str(path))


@main.command()
@click.argument("paper")
@_db_option
@click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("results"), show_default=True,
              help="Sweep artifacts; figures go to RESULTS_DIR/reproduce/<key>_<name>/.")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path),
              help="Directory for the comparison and figures (instead of the default).")
@click.option("--experiment", "experiment_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Experiment file to use instead of the paper's own (see aesdse.reproduce).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Design points run in parallel (default: number of cores).")
@click.option("--no-sweep", is_flag=True, help="Do not run missing points; report what is stored.")
@click.option("--fmax", "fmax", type=click.Choice(FMAX_STATS), default="median",
              show_default=True, help="Seed aggregation of Fmax.")
def reproduce(paper, db_path, results_dir, output, experiment_file, jobs, no_sweep, fmax):
    """Reproduce seed paper PAPER: run its experiment if needed, print measured vs published,
    write figures.

    PAPER is a key (000 to 004) or a short name (zhou_gaj, kundi_aziz, hodjat_verbauwhede,
    lin_huang, unrolled, or an alias). The exit code is 2 when the paper cannot be reproduced
    yet (an architecture family or the experiment file is missing), 1 if a design point failed.

    \b
    Example:
      aesdse reproduce 000
      aesdse reproduce zhou_gaj --jobs 2
      aesdse reproduce 004 --no-sweep
    """
    from .reproduce import ReproduceError, reproduce as run

    def echo(line):
        click.echo(line, err=True)  # progress on stderr: stdout is the table
    try:
        result = run(paper, db_path, results_dir, output, run_sweep=not no_sweep,
                     jobs=jobs or os.cpu_count() or 1, echo=echo,
                     experiment=experiment_file, fmax=fmax)
    except ReproduceError as e:
        click.echo(f"Error: {e}", err=True)
        sys.exit(2)
    except (ExperimentError, ToolNotFound) as e:
        raise click.ClickException(str(e)) from None
    click.echo(result.table, nl=False)
    click.echo("")
    if result.missing:
        click.echo(f"{result.missing} design points of {result.experiment} are not in {db_path}"
                   f" (run without --no-sweep)", err=True)
    for note in result.notes:
        click.echo(note, err=True)
    click.echo("wrote " + ", ".join(str(f) for f in result.files))
    sys.exit(1 if result.failed else 0)


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
