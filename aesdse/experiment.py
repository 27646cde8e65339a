"""Experiment stage: a YAML experiment file -> validated :class:`Experiment` -> design points.

An experiment is a grid: for each ``architectures`` entry, every combination of its parameter
values, on every target, with every combination of list-valued flow options and every seed.

Schema (every key optional unless marked)::

    name: quickstart                  # required: names the experiment in the database
    description: free text
    architectures:                    # required, a list
      - arch: iterative               # required, one of `aesdse list archs`
        params:                       # each value a scalar or a list (lists expand as a grid)
          sbox: [lut]
    targets:                          # default: one LFE5U-85F, CABGA381, speed 8
      - {device: LFE5U-85F, package: CABGA381, speed: 8}
    flow:                             # the flow options, each a scalar or (a grid option) a
      freq_mhz: 100                   # list: aesdse.spec.flow_options.FLOW_OPTIONS declares
      seeds: 1                        # them, with types, bounds and defaults (the table in
      nowidelut: false                # docs/experiments.md is made from it)
      placer: heap
      synth_timeout_s: 1800           # a tool that runs longer fails the point (timeout)
      fmax_search:                    # search the target frequency instead of freq_mhz/seeds
        low_mhz: 50                   #   initial bracket of nextpnr --freq targets
        high_mhz: 400
        batch: 0                      #   runs per batch; 0: the free workers (--jobs)
        patience: 2                   #   stop after this many batches without improvement
        budget_s: 1800                #   ... or when the search has run this long
        seeds: 1                      #   placer seeds run at each target
    verify:
      random_vectors: 1000            # random vectors per key size, on top of the standard ones
      seed: 1
      monte_carlo: true               # also the AESAVS Monte Carlo test (ECB; CBC with that mode)
      cavp: all                       # sample: FIPS-197 and SP 800-38A; all: + every CAVP KAT/MMT
                                      # (random_vectors, monte_carlo, cavp left out: the values
                                      # above on a compiled backend, 32, false and sample on
                                      # amaranth.sim)
      backend: auto                   # auto (Verilator, else amaranth.sim), verilator, cxxrtl, amaranth
      netlist_blocks: 64              # blocks of the netlist stage's (shorter) checking script
    explore:                          # `aesdse explore`'s search (`aesdse sweep` ignores it)

Errors are :class:`ExperimentError` and name the file, the line, the bad key or value and what
is allowed, e.g. ``experiments/x.yaml:7: sbox: 'lutt' is not one of: lut``. Unknown keys are
errors. Only the safe YAML loader is used, through :func:`aesdse.spec.yamlcheck.load`: non-UTF-8
bytes, control characters, nesting deeper than 50 levels, aliases and anchors, merge keys and
keys that are lists or mappings are errors with their line, and messages clip every value shown.

Every count and number has an upper bound (:data:`LIMITS`): at most 100 seeds, 100,000 random
vectors, 7 days per timeout, 1000 MHz, and 10,000 design points per experiment (counted before
the grid is expanded). Timeouts and frequencies must be finite. A combination of parameter values
that the family cannot build (``arch: unrolled`` with ``round_units: 3``: 3 does not divide the 10
rounds) is an error at the line of its ``arch`` (:meth:`archs.Family.check_params`).

``fmax_search`` (:mod:`aesdse.engine.fmax_search`) makes each point one search: synthesis once, then
batches of nextpnr runs at targets between ``low_mhz`` and ``high_mhz``; the point's Fmax is the
highest achieved Fmax among the runs that routed. The search chooses the targets and seeds, so
``freq_mhz`` and ``seeds`` are not allowed beside it (``fmax_search: {seeds: N}`` runs N placer
seeds at each target). ``fmax_search: true`` takes every default.
"""

import hashlib
import itertools
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import archs
from archs.floorplans import FLOORPLAN_CELLS

from .flow.families import DEVICES, family_of
from .flow.floorplan import floorplan_devices, floorplan_problem
from .spec.schema import (CONFIG_IGNORED_FLOW, LIMITS, VERIFY_NOT_PROVENANCE, FlowOptions, Target,
                          VerifyOptions, config_key, name_problem)
from .spec.sections import flow_columns, parse_verify
from .spec.yamlcheck import (LineDict, YamlError, allowed, as_list, check_keys, clip, item_line,
                             kind, line_of, load, one_of, show)

__all__ = ["ExperimentError", "DesignPoint", "Experiment", "load_experiment", "parse_experiment",
           "parse_document", "make_point"]


#: The longest top module name (:attr:`DesignPoint.top_name`): it names files (``<top>.v``,
#: ``<top>.json``), and a file name has at most 255 bytes; names that fit kept theirs.
TOP_NAME_LIMIT = 250


class ExperimentError(ValueError):
    """An experiment file is invalid; the message names file, line and the allowed values."""


@dataclass(frozen=True)
class DesignPoint:
    """One point of the design space: what to build, for which device, with which flow.

    ``params`` is a tuple of (name, value) pairs sorted by name, so points hash and compare by
    value. :meth:`key` is the identity used by the results database, :meth:`config_key` what a
    report selects by.
    """
    arch: str
    params: tuple
    target: Target = Target()
    flow: FlowOptions = FlowOptions()
    verify: VerifyOptions = field(default_factory=VerifyOptions)

    def __post_init__(self):
        # Checks left unset get the defaults of the backend that will play them (issue 26:
        # the strong set on a compiled backend), so that the point's key, its stage keys and
        # its row hold the checks that really ran.
        if not self.verify.is_resolved:
            from .verify.backends import resolved_options
            object.__setattr__(self, "verify", resolved_options(self.verify))

    @property
    def device_family(self) -> str:
        """The device family of the point's target (``"ecp5"``), as the architectures' ``target``
        argument."""
        return family_of(self.target.device)

    @property
    def params_dict(self) -> dict:
        return dict(self.params)

    @property
    def label(self) -> str:
        """Readable name: the architecture and its parameters."""
        return self.arch + "".join(f" {k}={v}" for k, v in self.params)

    @property
    def top_name(self) -> str:
        """Verilog top module name: the architecture and parameter values, as an identifier.

        It also names the point's files (``<top>.v``), so a name longer than
        :data:`TOP_NAME_LIMIT` keeps its start and ends in a hash of the whole: file systems
        refuse names over 255 bytes (Yosys's write_verilog failed on a 14-parameter point)."""
        parts = [self.arch] + [f"{k}_{v}" for k, v in self.params]
        name = "".join(c if c.isalnum() or c == "_" else "_" for c in "_".join(parts).lower())
        if len(name) <= TOP_NAME_LIMIT:
            return name
        digest = hashlib.sha256(name.encode()).hexdigest()[:16]
        return f"{name[:TOP_NAME_LIMIT - len(digest) - 1]}_{digest}"

    def config_key(self) -> str:
        """What this point measures, as a key (:func:`aesdse.store.database.config_key`): architecture,
        parameters, target and flow options with the seed, not the code or the tools that
        measure it. Reports select stored rows by it."""
        return config_key(self.arch, self.params_dict, self.target.label, self.flow.as_dict())

    def provenance(self, tool_versions: dict | None = None) -> dict:
        """What measures this point: the generator fingerprint of its family
        (:mod:`aesdse.store.provenance`), the verification options, the tool identifiers and the
        aesdse version."""
        from . import __version__
        from .flow.families import family_info
        from .fingerprint import generator_fingerprint
        # Only the tools this point runs: an optional family's tool installed or updated does
        # not change the keys of the other families' points.
        used = family_info(self.device_family).tools
        tools = {k: v for k, v in (tool_versions or {}).items() if k in used}
        # The verify backend is left out: the backends give identical results (a point
        # verified by another backend is the same point; aesdse.verify.verify); so is the
        # netlist stage's budget (VERIFY_NOT_PROVENANCE).
        verify = {k: v for k, v in asdict(self.verify).items() if k not in VERIFY_NOT_PROVENANCE}
        return {"generator": generator_fingerprint(self.arch), "verify": verify,
                "tools": tools, "aesdse": __version__}

    def key(self, tool_versions: dict | None = None) -> str:
        """The point's key in the results database: its configuration and its provenance. Two
        points with the same key give the same result; a changed generator or tool gives a new
        key (the old row stays, marked stale in reports)."""
        flow = {k: v for k, v in self.flow.as_dict().items() if k not in CONFIG_IGNORED_FLOW}
        identity = {"arch": self.arch, "params": self.params_dict, "target": asdict(self.target),
                    "flow": flow, **self.provenance(tool_versions)}
        blob = json.dumps(identity, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file and its design points (``space``: an exploration's, none)."""
    name: str
    description: str
    path: str
    points: tuple
    space: bool = False


# --- validation -------------------------------------------------------------------------------
#
# The architectures and targets here; the flow and verify sections in aesdse.spec.sections.

def _part_value(t, key, default, choices, device):
    """A target's ``package`` or ``speed``: one of the part's ``choices``; absent (or null)
    when the part has none."""
    if not choices:
        if t.get(key) is not None:
            raise YamlError(item_line(t, key, 0), f"{key}: {device} has no {key}; leave it out")
        return None
    if key not in t:
        return default if default in choices else choices[0]
    return one_of(t, key, t[key], 0, choices)


def _flat_params(params, fam: archs.Family, line) -> LineDict:
    """An entry's ``params`` with its groups (``keys: {key_schedule: ..., ...}``,
    :data:`archs.presets.GROUPS`) flattened to parameter names; each name keeps its line."""
    check_keys(params, [p.name for p in fam.params] + list(fam.groups), f"params of {fam.name}",
               line)
    flat = LineDict()
    flat.line, flat.key_lines = params.line, {}
    for key, value in params.items():
        if key not in fam.groups:
            members = [(key, value, line_of(params, key))]
        else:
            if not isinstance(value, dict):
                raise YamlError(line_of(params, key),
                                f"{key}: a group of {fam.name}'s parameters, given as a mapping "
                                f"of {allowed(fam.groups[key])}; not {kind(value)}")
            check_keys(value, fam.groups[key], f"the {key} group of {fam.name}",
                       line_of(params, key))
            members = [(name, v, line_of(value, name)) for name, v in value.items()]
        for name, v, at in members:
            if name in flat:
                raise YamlError(at, f"{name}: given twice (a parameter is given once, by its "
                                    f"name or in its group {fam.group_of(name)})")
            flat[name] = v
            flat.key_lines[name] = at
    return flat


def _param_columns(entry, fam: archs.Family, line):
    """Per parameter, the list of (name, value) pairs the grid takes: the entry's ``params``
    (groups flattened), else its ``preset``'s value, else the default."""
    params = entry.get("params", LineDict())
    if params is None:
        params = LineDict()
    params = _flat_params(params, fam, line_of(entry, "params") if "params" in entry else line)
    base = fam.defaults()
    if "preset" in entry:
        base = fam.preset(one_of(entry, "preset", entry["preset"], 0, sorted(fam.presets))) \
            if fam.presets else None
        if base is None:
            raise YamlError(line_of(entry, "preset"), f"preset: {fam.name} has no presets")
    grid = []
    for p in fam.params:
        if p.name not in params:
            grid.append([(p.name, base[p.name])])
            continue
        values = as_list(params[p.name])
        if not values:
            raise YamlError(line_of(params, p.name), f"{p.name}: empty list; allowed values: "
                                                f"{allowed(p.choices)}")
        grid.append([(p.name, one_of(params, p.name, v, n, p.choices))
                     for n, v in enumerate(values)])
    return grid


def _parse_targets(doc):
    raw = doc.get("targets")
    if raw is None:
        return [Target()]
    if not isinstance(raw, list) or not raw:
        raise YamlError(line_of(doc, "targets"), "targets must be a non-empty list of "
                                            "{device, package, speed} mappings")
    targets = []
    for n, t in enumerate(raw):
        check_keys(t, ("device", "package", "speed"), "a target", item_line(doc, "targets", n))
        device = one_of(t, "device", t.get("device", Target.device), 0, DEVICES)
        part = DEVICES[device]
        # Defaults: the default target's (ECP5: CABGA381, speed 8) for a part of its family that
        # has them, else the part's first package and first speed grade (the fastest: the
        # family drivers list them so). The allowed values are the part's own.
        default_family = part.family == family_of(Target.device)
        package = _part_value(t, "package", Target.package if default_family else None,
                              part.packages, device)
        speed = _part_value(t, "speed", Target.speed if default_family else None, part.speeds,
                            device)
        targets.append(Target(device, package, speed))
    return targets


def _check_floorplan(doc, flows, targets):
    """A floorplan needs a block-RAM site table of every target's device."""
    if all(flow.floorplan == "none" for flow in flows):
        return
    missing = sorted({t.device for t in targets} - set(floorplan_devices()))
    if missing:
        raise YamlError(line_of(doc["flow"], "floorplan"),
                        f"floorplan: no block-RAM site table for {', '.join(missing)}; "
                        f"floorplans other than none need one of these devices: "
                        f"{', '.join(floorplan_devices())}")


def _check_point(fam: archs.Family, params: tuple, line: int) -> None:
    """Raise at ``line`` (the architectures entry) when the family rejects the combination."""
    problem = fam.check_params(dict(params))
    if problem:
        shown = ", ".join(f"{k}={v}" for k, v in params)
        raise YamlError(line, f"{fam.name} with {clip(shown, 160)}: {problem}")


def _parse(doc, path) -> Experiment:
    if not isinstance(doc, dict):
        raise YamlError(1, f"an experiment must be a mapping with keys name, architectures, ...; "
                        f"found {kind(doc)}")
    check_keys(doc, ("name", "description", "architectures", "targets", "flow", "verify",
                     "explore"), "the experiment")
    if "name" not in doc:
        raise YamlError(line_of(doc), "missing key 'name'")
    name = doc["name"]
    problem = name_problem(name)
    if problem:
        raise YamlError(line_of(doc, "name"), f"name: {show(name)} {problem}")
    description = doc.get("description", "")
    if description is None:
        description = ""
    if not isinstance(description, str):
        raise YamlError(line_of(doc, "description"),
                     f"description: {show(description)} must be text, not {kind(description)}")
    entries = doc.get("architectures")
    if not isinstance(entries, list) or not entries:
        raise YamlError(line_of(doc, "architectures") if "architectures" in doc else line_of(doc),
                     "architectures must be a non-empty list of {arch, params} mappings")
    targets = _parse_targets(doc)
    flow_grid, fixed = flow_columns(doc)
    verify = parse_verify(doc)
    # Count the grid before expanding it: a typo must not make a million points first.
    grids, total = [], 0
    for n, entry in enumerate(entries):
        entry_line = item_line(doc, "architectures", n)
        check_keys(entry, ("arch", "preset", "params"), "an architectures entry", entry_line)
        if "arch" not in entry:
            raise YamlError(line_of(entry),
                            f"missing key 'arch'; allowed: {allowed(archs.FAMILIES)}")
        arch = one_of(entry, "arch", entry["arch"], 0, sorted(archs.FAMILIES))
        fam = archs.FAMILIES[arch]
        columns = _param_columns(entry, fam, entry_line)
        total += math.prod(len(c) for c in columns) * len(targets) \
            * math.prod(len(c) for c in flow_grid.values())
        grids.append((fam, columns, line_of(entry, "arch")))
    if total > LIMITS["points"]:
        raise YamlError(line_of(doc, "architectures"),
                     f"the experiment expands to {total:,} design points; at most "
                     f"{LIMITS['points']:,} are allowed (split it, or use fewer values)")
    flows = [FlowOptions(**dict(zip(flow_grid, values)), **fixed)
             for values in itertools.product(*flow_grid.values())]
    _check_floorplan(doc, flows, targets)
    points, seen = [], set()
    for fam, columns, line in grids:
        for combo in itertools.product(*columns):
            params = fam.point_params(combo)
            _check_point(fam, params, line)
            for floorplan in sorted({flow.floorplan for flow in flows}):
                problem = floorplan_problem(floorplan, fam.name, dict(params), FLOORPLAN_CELLS)
                if problem:
                    raise YamlError(line, f"{fam.name}: {problem}")
            for target in targets:
                for flow in flows:
                    point = DesignPoint(fam.name, params, target, flow, verify)
                    if point not in seen:
                        seen.add(point)
                        points.append(point)
    return Experiment(name=name, description=description, path=str(path),
                      points=tuple(points))


def parse_experiment(text: str | bytes, path: str = "<string>") -> Experiment:
    """Validate an experiment given as YAML text (or its UTF-8 bytes); errors are reported
    against ``path`` (and say to explore a file whose ``explore:`` space is not a grid)."""
    doc = None
    try:
        doc = load(text)
        return _parse(doc, path)
    except YamlError as e:
        space = isinstance(doc, dict) and "explore" in doc
        hint = " (this file's space is for `aesdse explore`)" if space else ""
        raise ExperimentError(f"{path}:{e.line}: {e.message}{hint}") from None


def parse_document(doc, path: str = "<string>") -> Experiment:
    """Validate an experiment loaded by :func:`aesdse.spec.yamlcheck.load` (``explore``)."""
    try:
        return _parse(doc, path)
    except YamlError as e:
        raise ExperimentError(f"{path}:{e.line}: {e.message}") from None


def load_experiment(path) -> Experiment:
    """Read and validate an experiment file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ExperimentError(f"{path}: cannot read: {e.strerror}") from None
    return parse_experiment(data, str(path))


def make_point(arch: str, params: dict | None = None, *, preset: str | None = None,
               **kwargs) -> DesignPoint:
    """A single design point with validated parameters (defaults filled in), for the CLI and
    tests: ``make_point("iterative", {"sbox": "lut"})``; ``preset``: the family's preset
    (:data:`archs.presets.PRESETS`) that ``params`` override. The values are checked as in an
    experiment file (``1`` is not ``true``), and so is the combination."""
    fam = archs.family(arch)
    try:
        merged = fam.preset(preset) if preset is not None else fam.defaults()
    except ValueError as e:
        raise ExperimentError(str(e)) from None
    for name, value in (params or {}).items():
        try:
            p = fam.param(name)
        except KeyError:
            raise ExperimentError(f"{arch} has no parameter {name!r}; parameters: "
                                  f"{allowed(p.name for p in fam.params)}") from None
        try:
            merged[name] = one_of({}, name, value, 0, p.choices)
        except YamlError as e:
            raise ExperimentError(e.message) from None
    problem = fam.check_params(merged)
    if problem:
        raise ExperimentError(f"{arch}: {problem}")
    return DesignPoint(arch, fam.point_params(merged.items()), **kwargs)
