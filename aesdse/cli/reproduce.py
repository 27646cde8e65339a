"""``aesdse reproduce``: a seed paper's table, published vs. measured here."""

import os
import sys
from pathlib import Path

import click

from ..report.kinds import FMAX_STATS
from .common import db_option

__all__ = ["reproduce"]


@click.command()
@click.argument("paper")
@db_option
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
@click.option("--reference", "reference", is_flag=False, default=None, metavar="[PATH]",
              flag_value=str(Path(__file__).resolve().parents[2] / "results" / "reference"),
              type=click.Path(exists=True, path_type=Path),
              help="Read the rows from exported reference results (a .jsonl file or a directory "
                   "of them; alone: results/reference/ of this checkout) instead of --db; sweeps "
                   "nothing. Put it after PAPER.")
def reproduce(paper, db_path, results_dir, output, experiment_file, jobs, no_sweep, fmax,
              reference):
    """Reproduce seed paper PAPER: run its experiment if needed, print measured vs published,
    write figures.

    PAPER is a key (000 to 004, or 200: the GCM reference) or a short name (zhou_gaj,
    kundi_aziz, hodjat_verbauwhede, lin_huang, unrolled, lemsitzer, or an alias). The exit code is 2 when the paper cannot be reproduced
    yet (an architecture family or the experiment file is missing), 1 if a design point failed.

    With --no-sweep the rows come from --db when it holds rows of the paper's experiments, else
    from the reference results shipped in results/reference/*.jsonl (measured by aesdse and
    exported with `aesdse db export`), so a fresh clone prints the table in seconds. --reference
    reads reference results in any case. stderr names where the rows came from.

    \b
    Example:
      aesdse reproduce 000
      aesdse reproduce zhou_gaj --jobs 2
      aesdse reproduce 004 --no-sweep
      aesdse reproduce 002 --reference
      aesdse reproduce 002 --reference results/reference/pipelined.jsonl
    """
    from ..experiment import ExperimentError
    from ..flow.tools import ToolNotFound
    from ..reproduce import ReproduceError, reproduce as run
    from ..store.database import StoreError

    def echo(line):
        click.echo(line, err=True)  # progress on stderr: stdout is the table
    try:
        result = run(paper, db_path, results_dir, output, run_sweep=not no_sweep,
                     jobs=jobs or os.cpu_count() or 1, echo=echo,
                     experiment=experiment_file, fmax=fmax,
                     reference=None if reference is None else [reference])
    except ReproduceError as e:
        click.echo(f"Error: {e}", err=True)
        sys.exit(2)
    except (ExperimentError, ToolNotFound, StoreError) as e:
        raise click.ClickException(str(e)) from None
    click.echo(result.table, nl=False)
    click.echo("")
    click.echo(f"rows from {result.source}", err=True)
    if result.missing:
        click.echo(f"{result.missing} design points of {result.experiment} are not in "
                   f"{result.source}" + ("" if reference else " (run without --no-sweep)"),
                   err=True)
    for note in result.notes:
        click.echo(note, err=True)
    click.echo("wrote " + ", ".join(str(f) for f in result.files))
    sys.exit(1 if result.failed else 0)
