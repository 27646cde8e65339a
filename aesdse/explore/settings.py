"""The ``explore:`` section of an experiment file and the space it searches, validated.

Schema (every key optional unless marked)::

    architectures:                 # the space: each entry's params as a value, a list, a range
      - arch: iterative            # or `all` (every allowed value); `params: all` frees them all
        params:
          sbox: all
          sbox_stages: {from: 0, to: 3}
          lanes: [1, 2]
    explore:
      objectives:                  # required: row metric -> min or max
        throughput_mbps: max
        luts: min
      constraints:                 # each "metric <= number" or "metric >= number", or "fits"
        - luts <= 3000
        - fmax_mhz >= 100
        - fits                     # fits the device (a point that does not is a failed row)
      budget:                      # at least one; each a positive number
        pnr_runs: 40               #   place-and-route runs of the search (seeds not counted)
        points: 100                #   candidates evaluated (synthesized, pruned or routed);
                                   #   default with synthesis_first: 10 x pnr_runs
        wall_s: 3600               #   seconds of the search
      seeds: 3                     # placer seeds of each front point (1: no extra seeds)
      seed_racing: front           # front: the front's points get every seed; halving:
                                   #   successive halving, 2, 4, ... seeds to the better half
      sampler: tpe                 # tpe (multi-objective TPE), nsga2 or random
      seed: 1                      # the sampler's seed
      synthesis_first: true        # synthesize first; prune what synthesis shows hopeless
      lut_margin: 0.1              # synthesis LUT4 may be this much below the routed count

The rest of the file (targets, flow, verify) is an ordinary experiment of one target and one
flow: every candidate is built, verified and measured with them. Errors name the file and
line and list the allowed names, as in the rest of the experiment file.
"""

import math
import re
from dataclasses import dataclass

import archs

from ..spec.yamlcheck import (LineList, YamlError, allowed, check_keys, item_line, kind, line_of,
                              show)

__all__ = ["METRICS", "SYNTHESIS_METRICS", "Objective", "Constraint", "Budget",
           "ExploreSettings", "SpaceEntry", "parse_explore", "parse_space", "SAMPLERS",
           "SEED_RACING"]

#: Row metrics an objective or constraint may name, with their meaning.
METRICS = {
    "throughput_mbps": "Mbit/s", "luts": "LUT4", "ffs": "flip-flops", "brams": "block RAMs",
    "slices": "slices", "fmax_mhz": "MHz", "latency_cycles": "cycles",
    "cycles_per_block": "cycles", "mbps_per_lut": "Mbit/s per LUT4",
    "mbps_per_slice": "Mbit/s per slice", "dsps": "DSP blocks", "carries": "carry cells",
}
#: Metrics a synthesis-only evaluation knows (or bounds): the rest need place and route.
SYNTHESIS_METRICS = ("luts", "ffs", "brams", "latency_cycles", "cycles_per_block")
DIRECTIONS = {"min": "min", "max": "max", "minimize": "min", "maximize": "max"}
SAMPLERS = ("tpe", "nsga2", "random")
#: How the extra placer seeds are given out (:meth:`aesdse.explore.search.Explorer.race_seeds`).
SEED_RACING = ("front", "halving")
BUDGETS = ("pnr_runs", "points", "wall_s")
_CONSTRAINT = re.compile(r"^\s*([a-z_0-9]+)\s*(<=|>=)\s*([-+0-9.eE]+)\s*$")


@dataclass(frozen=True)
class Objective:
    """One objective: a row metric and whether a smaller (``min``) or larger value is better."""
    metric: str
    direction: str

    def better(self, value: float) -> float:
        """``value`` as a number to minimize."""
        return value if self.direction == "min" else -value


@dataclass(frozen=True)
class Constraint:
    """``metric <= bound`` or ``metric >= bound``; ``metric`` None is "fits the device"."""
    metric: str | None
    op: str = "<="
    bound: float = 0.0

    def violation(self, value: float | None) -> float:
        """How far ``value`` breaks the constraint (0.0: it holds; infinity: unknown)."""
        if self.metric is None:
            return 0.0
        if value is None:
            return math.inf
        gap = value - self.bound if self.op == "<=" else self.bound - value
        return max(0.0, gap)

    @property
    def text(self) -> str:
        return "fits the device" if self.metric is None else \
            f"{self.metric} {self.op} {self.bound:g}"


@dataclass(frozen=True)
class Budget:
    """When the search stops: the first of these limits reached (None: no such limit)."""
    pnr_runs: int | None = None
    points: int | None = None
    wall_s: float | None = None


@dataclass(frozen=True)
class ExploreSettings:
    """A validated ``explore:`` section (module documentation)."""
    objectives: tuple
    constraints: tuple = ()
    budget: Budget = Budget(pnr_runs=40)
    seeds: int = 3
    seed_racing: str = "front"
    sampler: str = "tpe"
    seed: int = 1
    synthesis_first: bool = True
    lut_margin: float = 0.1


@dataclass(frozen=True)
class SpaceEntry:
    """One architecture of the space: each parameter's candidate values (one value: fixed).

    Attributes
    ----------
    arch : str
    domains : tuple of (name, tuple of values)
        In the family's parameter order.
    line : int
        The line of the entry's ``arch`` (errors about the entry point there).
    """
    arch: str
    domains: tuple
    line: int = 0

    @property
    def free(self) -> list:
        """The parameters with more than one value."""
        return [name for name, values in self.domains if len(values) > 1]

    @property
    def size(self) -> int:
        return math.prod(len(values) for _, values in self.domains)


def _objectives(raw, line) -> tuple:
    if not isinstance(raw, dict) or not raw:
        raise YamlError(line, f"objectives: a mapping of metric to min or max, e.g. "
                              f"{{throughput_mbps: max, luts: min}}; metrics: {allowed(METRICS)}")
    out = []
    for metric, direction in raw.items():
        if metric not in METRICS:
            raise YamlError(line_of(raw, metric), f"objectives: unknown metric {show(metric)}; "
                                                  f"allowed: {allowed(METRICS)}")
        if direction not in DIRECTIONS:
            raise YamlError(line_of(raw, metric), f"{metric}: {show(direction)} is not one of: "
                                                  f"min, max")
        out.append(Objective(metric, DIRECTIONS[direction]))
    return tuple(out)


def _constraint(text, line) -> Constraint:
    if text == "fits":
        return Constraint(None)
    match = _CONSTRAINT.match(text) if isinstance(text, str) else None
    if match is None:
        raise YamlError(line, f"constraints: {show(text)} must be 'METRIC <= NUMBER', "
                              f"'METRIC >= NUMBER' or 'fits'")
    metric, op, number = match.groups()
    if metric not in METRICS:
        raise YamlError(line, f"constraints: unknown metric {show(metric)}; allowed: "
                              f"{allowed(METRICS)}")
    try:
        bound = float(number)
    except ValueError:
        bound = math.nan
    if not math.isfinite(bound):
        raise YamlError(line, f"constraints: {show(number)} in {show(text)} is not a number")
    return Constraint(metric, op, bound)


def _budget(raw, line) -> Budget:
    if not isinstance(raw, dict) or not raw:
        raise YamlError(line, f"budget: a mapping of at least one of {allowed(BUDGETS)} to a "
                              f"positive number")
    check_keys(raw, BUDGETS, "budget", line)
    values = {}
    for name, value in raw.items():
        whole = name != "wall_s"
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)) \
                or not math.isfinite(value):
            raise YamlError(line_of(raw, name), f"{name}: {show(value)} must be "
                            f"{'a whole number' if whole else 'a number of seconds'}, "
                            f"not {kind(value)}")
        if value <= 0:
            raise YamlError(line_of(raw, name), f"{name}: {show(value)}: a budget must be "
                                                f"positive (0 or less would run nothing)")
        values[name] = value if whole else float(value)
    return Budget(**values)


def _whole(raw, name, default, low):
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise YamlError(line_of(raw, name), f"{name}: {show(value)} must be a whole number of "
                                            f"at least {low}")
    return value


def parse_explore(raw, line: int) -> ExploreSettings:
    """The ``explore:`` mapping (at ``line``) -> :class:`ExploreSettings`; raises
    :class:`~aesdse.spec.yamlcheck.YamlError` at the offending line."""
    if not isinstance(raw, dict):
        raise YamlError(line, f"explore: a mapping with objectives, constraints, budget, ...; "
                              f"not {kind(raw)}")
    check_keys(raw, ("objectives", "constraints", "budget", "seeds", "seed_racing", "sampler",
                     "seed", "synthesis_first", "lut_margin"), "explore", line)
    if "objectives" not in raw:
        raise YamlError(line, "explore: missing key 'objectives'")
    objectives = _objectives(raw["objectives"], line_of(raw, "objectives"))
    constraints = raw.get("constraints") or []
    if not isinstance(constraints, list):
        raise YamlError(line_of(raw, "constraints"), "constraints: a list, e.g. "
                                                     "[luts <= 3000, fits]")
    parsed = tuple(_constraint(c, item_line(raw, "constraints", n))
                   for n, c in enumerate(constraints))
    budget = _budget(raw["budget"], line_of(raw, "budget")) if "budget" in raw else Budget(40)
    sampler = raw.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        raise YamlError(line_of(raw, "sampler"), f"sampler: {show(sampler)} is not one of: "
                                                 f"{allowed(SAMPLERS)}")
    racing = raw.get("seed_racing", ExploreSettings.seed_racing)
    if racing not in SEED_RACING:
        raise YamlError(line_of(raw, "seed_racing"), f"seed_racing: {show(racing)} is not one "
                                                     f"of: {allowed(SEED_RACING)}")
    first = raw.get("synthesis_first", True)
    if not isinstance(first, bool):
        raise YamlError(line_of(raw, "synthesis_first"), "synthesis_first: true or false")
    margin = raw.get("lut_margin", ExploreSettings.lut_margin)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) \
            or not 0 <= margin < 1:
        raise YamlError(line_of(raw, "lut_margin"), f"lut_margin: {show(margin)} must be a "
                                                    f"fraction from 0 to below 1")
    return ExploreSettings(objectives=objectives, constraints=parsed, budget=budget,
                           seeds=_whole(raw, "seeds", 3, 1), seed_racing=racing,
                           sampler=sampler,
                           seed=_whole(raw, "seed", 1, 0), synthesis_first=first,
                           lut_margin=float(margin))


def _domain(fam: archs.Family, name: str, value, line: int) -> tuple:
    """One parameter's candidate values: a value, a list, ``all`` or ``{from, to}``."""
    choices = fam.param(name).choices
    if value == "all" and "all" not in choices:
        return tuple(choices)
    if isinstance(value, dict):
        check_keys(value, ("from", "to"), f"the range of {name}", line)
        low, high = value.get("from"), value.get("to")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                   for v in (low, high)):
            raise YamlError(line, f"{name}: a range needs numbers from and to, e.g. "
                                  f"{{from: 0, to: 3}}")
        picked = tuple(c for c in choices if isinstance(c, (int, float))
                       and not isinstance(c, bool) and low <= c <= high)
        if not picked:
            raise YamlError(line, f"{name}: no allowed value from {low} to {high}; allowed "
                                  f"values: {allowed(choices)}")
        return picked
    values = value if isinstance(value, list) else [value]
    if not values:
        raise YamlError(line, f"{name}: empty list; allowed values: {allowed(choices)}")
    for v in values:
        if not any(type(v) is type(c) and v == c for c in choices):
            raise YamlError(line, f"{name}: {show(v)} is not one of: {allowed(choices)}")
    return tuple(dict.fromkeys(values))


def parse_space(entries, line: int) -> tuple:
    """The experiment's ``architectures`` as a space: a tuple of :class:`SpaceEntry`."""
    if not isinstance(entries, list) or not entries:
        raise YamlError(line, "architectures must be a non-empty list of {arch, params} mappings")
    space = []
    for n, entry in enumerate(entries):
        at = entries.item_lines[n] if isinstance(entries, LineList) else line
        if not isinstance(entry, dict) or "arch" not in entry:
            raise YamlError(at, f"an architectures entry needs 'arch'; allowed: "
                                f"{allowed(archs.FAMILIES)}")
        check_keys(entry, ("arch", "params"), "an architectures entry of an exploration", at)
        arch = entry["arch"]
        if arch not in archs.FAMILIES:
            raise YamlError(line_of(entry, "arch"), f"arch: {show(arch)} is not one of: "
                                                    f"{allowed(sorted(archs.FAMILIES))}")
        fam = archs.FAMILIES[arch]
        params = entry.get("params") or {}
        names = [p.name for p in fam.params]
        if params == "all":
            params = {name: "all" for name in names}
        if not isinstance(params, dict):
            raise YamlError(line_of(entry, "params"), f"params: a mapping of parameter to "
                                                      f"values, or all; not {kind(params)}")
        for name in params:
            if name not in names:
                raise YamlError(line_of(params, name), f"params of {arch}: unknown parameter "
                                                       f"{show(name)}; allowed: {allowed(names)}")
        defaults = fam.defaults()
        domains = tuple((name, _domain(fam, name, params[name], line_of(params, name))
                         if name in params else (defaults[name],)) for name in names)
        space.append(SpaceEntry(arch, domains, line_of(entry, "arch")))
    return tuple(space)
