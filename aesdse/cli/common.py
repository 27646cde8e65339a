"""What the commands share: their common options, parameter types, and the few steps every
command takes the same way (load an experiment, open the database read-only, write a report).

Nothing here imports an architecture, a tool or a renderer: ``aesdse --help`` and the choices of
every option are built without them (:mod:`aesdse.report.kinds` holds the report names).
"""

import math
from pathlib import Path

import click

__all__ = ["CONTEXT", "db_option", "EXECUTOR_CHOICES", "executor_options", "where_option",
           "current_only_option", "bram_rate_option", "FiniteFloatRange", "Seconds", "SECONDS", "LazyChoice", "experiment_or_fail",
           "experiment_or_space_or_fail",
           "open_readonly", "warn_unreadable", "write_report", "show"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def db_option(f):
    return click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
                        default=Path("results/aesdse.sqlite"), show_default=True,
                        help="Results database (SQLite).")(f)


#: Where a command's points run (:data:`aesdse.engine.executors.EXECUTORS`, written out here so
#: that the command line is built without the engine).
EXECUTOR_CHOICES = ("local", "dask-local", "dask")


def executor_options(*, results_dir_help: str, jobs_help: str, executor_help: str,
                     scheduler_help: str):
    """The options of a command that runs design points (``sweep``, ``explore``):
    ``--results-dir``, ``-j/--jobs``, ``--executor`` and ``--scheduler``, declared once; each
    command words their help for what it runs."""
    options = (
        click.option("--results-dir", type=click.Path(file_okay=False, path_type=Path),
                     default=Path("results"), show_default=True, help=results_dir_help),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help=jobs_help),
        click.option("--executor", type=click.Choice(list(EXECUTOR_CHOICES)), default="local",
                     show_default=True, help=executor_help),
        click.option("--scheduler", metavar="ADDRESS", help=scheduler_help),
    )

    def decorate(f):
        for option in reversed(options):
            f = option(f)
        return f
    return decorate


def where_option(f):
    from ..spec.flow_options import FLOW_OPTIONS
    later = ", ".join(f"flow_{o.name}" for o in FLOW_OPTIONS if o.omitted_at_default)
    return click.option(
        "--where", metavar="CONDITION",
        help="SQL condition on the rows: any column of the points table, any architecture "
             "parameter by name, any flow option as flow_<option> "
             f"({', '.join(f'flow_{o.name}' for o in FLOW_OPTIONS)}; {later} are NULL at "
             "their defaults), e.g. \"round_units = 2 AND sbox = 'composite'\" or "
             "\"luts < 5000 AND flow_nowidelut = 1\". Read-only, one expression.")(f)


def current_only_option(f):
    return click.option(
        "--current-only", is_flag=True,
        help="Only rows this checkout would produce (same generator sources and tool "
             "versions). Default: the newest row of each configuration, marked stale when "
             "they differ.")(f)


class FiniteFloatRange(click.FloatRange):
    """A :class:`click.FloatRange` that refuses ``nan`` and infinities (``nan`` passes every
    range comparison)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


def bram_rate_option(f):
    from ..flow.families import SLICES_PER_BRAM_KBIT
    return click.option(
        "--bram-slices-per-kbit", "bram_rate", type=FiniteFloatRange(0, 1e6),
        default=SLICES_PER_BRAM_KBIT, show_default=True,
        help="Slice-equivalents per Kbit of block RAM in slice-equivalent areas (001 Sec. 4: a "
             "32 Kb BRAM = 128 slices, so 4; an 18 Kbit ECP5 DP16KD is then 72).")(f)


def experiment_or_fail(path):
    """The experiment of YAML file ``path``; a bad file is a one-line error naming its line."""
    from ..experiment import ExperimentError, load_experiment
    try:
        return load_experiment(path)
    except ExperimentError as e:
        raise click.ClickException(str(e)) from None


def experiment_or_space_or_fail(path):
    """The experiment of YAML file ``path``, or for an ``aesdse explore`` file whose space is
    not a grid, an :class:`~aesdse.experiment.Experiment` with ``space`` set (its rows are
    those stored under its name); a bad file is a one-line error naming its line."""
    from ..experiment import Experiment, ExperimentError, load_experiment
    try:
        return load_experiment(path)
    except ExperimentError as e:
        error = e
    from ..explore.plan import load_plan
    try:
        plan = load_plan(path)
    except ExperimentError:
        raise click.ClickException(str(error)) from None
    return Experiment(name=plan.name, description="", path=str(path), points=(), space=True)


class Seconds(click.ParamType):
    """A time limit: a finite number of seconds above 0, at most the experiment files' limit."""
    name = "seconds"

    def convert(self, value, param, ctx):
        from ..spec.schema import LIMITS
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or not 0 < seconds <= LIMITS["timeout_s"]:
            self.fail(f"{value!r} must be above 0 and at most {LIMITS['timeout_s']:g} seconds",
                      param, ctx)
        return seconds


SECONDS = Seconds()



class LazyChoice(click.Choice):
    """A :class:`click.Choice` whose choices are read when first needed (to check a value or to
    show a command's help), not when the command line is built: ``load`` may import what the
    other commands need not (the architecture registry and Amaranth)."""

    def __init__(self, load, case_sensitive: bool = True):
        self._load = load
        self._choices = None
        self.case_sensitive = case_sensitive

    @property
    def choices(self):
        if self._choices is None:
            self._choices = tuple(self._load())
        return self._choices

    @choices.setter
    def choices(self, value):
        self._choices = tuple(value)


def open_readonly(db_path):
    """The results database at ``db_path``, read-only; a missing or unreadable one is a
    one-line error."""
    from ..store.database import Store, StoreError
    try:
        return Store(db_path, readonly=True)
    except StoreError as e:
        raise click.ClickException(str(e)) from None


def warn_unreadable(store) -> None:
    """Name on stderr every row a selection left out because it could not be read."""
    for key, reason in sorted(store.unreadable.items()):
        click.echo(f"warning: row {key} of {store.path} is unreadable and left out: {reason}",
                   err=True)


def write_report(text: str, output) -> None:
    """Print a report, or write it to ``output`` (and say so on stderr)."""
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise click.ClickException(f"{output}: cannot write ({e.strerror or e})") from None
    click.echo(f"wrote {output}", err=True)


def show(value):
    """A parameter value as a YAML file writes it (booleans in lower case)."""
    return str(value).lower() if isinstance(value, bool) else str(value)
