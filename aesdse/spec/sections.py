"""The ``flow`` and ``verify`` sections of an experiment file, checked against the schema.

:func:`flow_columns` reads ``flow``: every option of the one table
(:data:`aesdse.spec.flow_options.FLOW_OPTIONS`) checked against its type, choices and bounds, a
grid option as the list of values the grid takes, and the Fmax search's settings
(:class:`aesdse.spec.schema.SearchSettings`). :func:`parse_verify` reads ``verify``
(:class:`aesdse.spec.schema.VerifyOptions`). Errors are :class:`aesdse.spec.yamlcheck.YamlError`
with the line; :mod:`aesdse.experiment` reads the rest of the file and names the file.
"""

from .flow_options import FLOW_OPTIONS, OPTIONS
from .schema import CAVP_CHOICES, LIMITS, VERIFY_BACKENDS, SearchSettings, VerifyOptions
from .yamlcheck import LineDict, YamlError, as_list, bounded, check_keys, line_of, one_of, typed

__all__ = ["FLOW_KEYS", "SEARCH_KEYS", "flow_columns", "parse_verify"]


#: The keys of an experiment's ``flow`` mapping: the flow options (one table,
#: :data:`aesdse.spec.flow_options.FLOW_OPTIONS`) and the Fmax search.
FLOW_KEYS = tuple(o.key for o in FLOW_OPTIONS) + ("fmax_search",)
SEARCH_KEYS = ("low_mhz", "high_mhz", "batch", "patience", "budget_s", "seeds")
#: fmax_search settings: (lowest, lowest excluded, highest).
_SEARCH_BOUNDS = {"low_mhz": (0, True, LIMITS["freq_mhz"]),
                  "high_mhz": (0, True, LIMITS["freq_mhz"]),
                  "batch": (0, False, LIMITS["batch"]),
                  "patience": (1, False, LIMITS["patience"]),
                  "budget_s": (0, True, LIMITS["timeout_s"]),
                  "seeds": (1, False, LIMITS["seeds"])}


def _parse_search(flow):
    """``flow: fmax_search`` -> SearchSettings (or None when absent or false)."""
    raw = flow.get("fmax_search")
    if raw is None or raw is False:
        return None
    if raw is True:
        raw = LineDict()
        raw.line, raw.key_lines = line_of(flow, "fmax_search"), {}
    for other in ("freq_mhz", "seeds"):
        if other in flow:
            raise YamlError(line_of(flow, other),
                         f"{other}: not allowed with fmax_search, which chooses the targets "
                         f"(low_mhz..high_mhz) and runs fmax_search.seeds placer seeds at each")
    check_keys(raw, SEARCH_KEYS, "fmax_search", line_of(flow, "fmax_search"))
    values = {}
    for name in SEARCH_KEYS:
        default = getattr(SearchSettings, name)
        integer = isinstance(default, int)
        value = typed(raw, name, raw.get(name, default), 0, (int,) if integer else (int, float),
                      "a whole number" if integer else "a number")
        low, low_open, high = _SEARCH_BOUNDS[name]
        unit = " MHz" if name.endswith("_mhz") else " seconds" if name.endswith("_s") else ""
        bounded(raw, name, value, 0, low, high, unit, low_open=low_open)
        values[name] = value if integer else float(value)
    if values["low_mhz"] >= values["high_mhz"]:
        raise YamlError(line_of(raw, "low_mhz"), f"low_mhz: {values['low_mhz']!r} must be below "
                                            f"high_mhz ({values['high_mhz']!r})")
    return SearchSettings(**values)


def flow_columns(doc) -> tuple[dict, dict]:
    """The flow options as grid columns, name -> the list of values the grid takes (table
    order, the seeds last: a point's seeds are neighbours in a sweep), and the options that
    are the same for every point (the tools' time limits, the Fmax search)."""
    flow = doc.get("flow")
    if flow is None:
        flow = LineDict()
    check_keys(flow, FLOW_KEYS, "flow", line_of(doc, "flow"))
    columns, fixed = {}, {}
    for option in FLOW_OPTIONS:
        if option.name == "seed":
            continue
        if option.grid:
            columns[option.name] = _option_column(flow, option)
        else:
            fixed[option.name] = _option_value(flow, option,
                                               flow.get(option.key, option.default), 0)
    _check_requirements(flow, columns)
    columns["seed"] = _seed_column(flow)
    fixed["fmax_search"] = _parse_search(flow)
    return columns, fixed


def _check_requirements(flow, columns) -> None:
    """No point of the grid may take an option away from its default without what it requires
    (:attr:`aesdse.spec.flow_options.FlowOption.requires`: ``placer_timing_weight`` needs
    ``placer: heap``)."""
    for name, values in columns.items():
        option = OPTIONS[name]
        if option.requires and any(value != option.default for value in values):
            other, needed = option.requires
            if any(value != needed for value in columns[other]):
                raise YamlError(line_of(flow, name), f"{name}: an option of the {needed} "
                                                     f"{other}; with it, {other} must be {needed}")


def _option_value(flow, option, value, index):
    """One value of flow option ``option`` (:class:`aesdse.spec.flow_options.FlowOption`),
    checked against its type, choices and bounds; a number of type ``float`` as a float."""
    if option.type is bool:
        return typed(flow, option.key, value, index, (bool,), "true or false")
    if option.choices:
        return one_of(flow, option.key, value, index, option.choices)
    kinds = (int,) if option.type is int else (int, float)
    typed(flow, option.key, value, index, kinds, option.what)
    low, high, low_open = option.bounds
    bounded(flow, option.key, value, index, low, high, option.unit, low_open=low_open)
    return option.type(value)


def _option_column(flow, option) -> list:
    """The values of grid option ``option``: a scalar or a non-empty list."""
    values = as_list(flow.get(option.key, option.default))
    if not values:
        low, high, _ = option.bounds or (None, None, None)
        hint = f"allowed values: {option.values}" if option.type is bool or option.choices \
            else f"give {option.what} from {low:g} to {high:g}{option.unit}"
        raise YamlError(line_of(flow, option.key), f"{option.key}: empty list; {hint}")
    return [_option_value(flow, option, v, n) for n, v in enumerate(values)]


def _seed_column(flow) -> list:
    """``seeds``: a count (seeds 1..N) or an explicit list of seeds."""
    seeds = flow.get("seeds", 1)
    if isinstance(seeds, list):
        if not seeds:
            raise YamlError(line_of(flow, "seeds"), "seeds: empty list; give a count (seeds 1..N) "
                                                    "or at least one seed")
        if len(seeds) > LIMITS["seeds"]:
            raise YamlError(line_of(flow, "seeds"), f"seeds: {len(seeds)} seeds; at most "
                                               f"{LIMITS['seeds']} are allowed")
        return [_option_value(flow, OPTIONS["seed"], s, n) for n, s in enumerate(seeds)]
    count = typed(flow, "seeds", seeds, 0, (int,), "a count or a list of seeds")
    bounded(flow, "seeds", count, 0, 1, LIMITS["seeds"], " (a count of placer seeds)")
    return list(range(1, count + 1))


def parse_verify(doc) -> VerifyOptions:
    """An experiment's ``verify`` mapping -> :class:`VerifyOptions` (the defaults when absent)."""
    raw = doc.get("verify")
    if raw is None:
        return VerifyOptions()
    check_keys(raw, ("random_vectors", "seed", "monte_carlo", "cavp", "backend",
                     "netlist_blocks"), "verify", line_of(doc, "verify"))
    # random_vectors, monte_carlo and cavp left out stay None: their defaults depend on the
    # backend (VerifyOptions.resolved, DesignPoint).
    count = raw.get("random_vectors")
    if count is not None:
        count = typed(raw, "random_vectors", count, 0, (int,), "a number of vectors")
        bounded(raw, "random_vectors", count, 0, 0, LIMITS["random_vectors"])
    seed = typed(raw, "seed", raw.get("seed", 1), 0, (int,), "a number")
    bounded(raw, "seed", seed, 0, 0, LIMITS["seed"])
    monte_carlo = raw.get("monte_carlo")
    if monte_carlo is not None:
        monte_carlo = one_of(raw, "monte_carlo", monte_carlo, 0, (False, True))
    cavp = raw.get("cavp")
    if cavp is not None:
        cavp = one_of(raw, "cavp", cavp, 0, CAVP_CHOICES)
    backend = one_of(raw, "backend", raw.get("backend", "auto"), 0, VERIFY_BACKENDS)
    budget = typed(raw, "netlist_blocks",
                   raw.get("netlist_blocks", VerifyOptions.netlist_blocks), 0, (int,),
                   "a number of blocks")
    bounded(raw, "netlist_blocks", budget, 0, 0, LIMITS["random_vectors"])
    return VerifyOptions(random_vectors=count, seed=seed, monte_carlo=monte_carlo, cavp=cavp,
                         backend=backend, netlist_blocks=budget)
