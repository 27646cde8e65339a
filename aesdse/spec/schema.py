"""The experiment schema: every setting an experiment file can hold, declared once.

An experiment (:mod:`aesdse.experiment`) is a grid of architecture parameters x :class:`Target` x
:class:`FlowOptions` (with :class:`SearchSettings` when the Fmax is searched) x
:class:`VerifyOptions`. This module holds those declarations, their defaults and bounds
(:data:`LIMITS`) and the configuration key of a measurement (:func:`config_key`); the flow
options are those of :mod:`aesdse.spec.flow_options`, their one table. It imports nothing else
of aesdse, so loading, checking and storing a point never needs the simulator or
a tool.
"""

import hashlib
import json
import re
from dataclasses import dataclass, field, replace

from .flow_options import (FLOW_OPTIONS, MAX_FREQ_MHZ, MAX_PLACER_TIMING_WEIGHT, MAX_SEED,
                           MAX_TIMEOUT_S, options_dataclass, plain_data)

__all__ = ["LIMITS", "Target", "SearchSettings", "FlowOptions", "VerifyOptions",
           "CAVP_CHOICES", "MONTE_CARLO_OUTER", "VERIFY_BACKENDS", "VERIFY_NOT_PROVENANCE",
           "COMPILED_CHECKS", "AMARANTH_CHECKS", "CONFIG_IGNORED_FLOW",
           "config_key", "flow_choices", "PNR_CHOICES", "IDENTIFIER", "name_problem"]


#: Upper bounds of every count and number of an experiment file: far above any real experiment,
#: low enough that a typo (``seeds: 1000000000``) is an error at load time instead of a sweep
#: that never ends.
LIMITS = {
    "points": 10_000,           # design points per experiment, after grid expansion
    "seeds": 100,               # placer seeds per point (flow.seeds, fmax_search.seeds)
    "seed": MAX_SEED,           # a nextpnr --seed or verify seed value
    "random_vectors": 100_000,  # random vectors per point
    "timeout_s": MAX_TIMEOUT_S,  # synth_timeout_s, pnr_timeout_s, fmax_search.budget_s
    "freq_mhz": MAX_FREQ_MHZ,   # freq_mhz, fmax_search low_mhz/high_mhz
    "batch": 1000,              # fmax_search.batch
    "patience": 100,            # fmax_search.patience
    "name_chars": 100,          # the experiment's name (printable characters only)
    "placer_timing_weight": MAX_PLACER_TIMING_WEIGHT,  # nextpnr --placer-heap-timingweight
}


#: What a parameter or flow option name must look like: it becomes an SQL column name in
#: ``--where`` conditions and a Python keyword argument, so nothing but a plain identifier.
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def name_problem(name) -> str | None:
    """Why ``name`` cannot be an experiment's name, or None when it can.

    An experiment's name is stored with every row and becomes a file name (``aesdse db export
    --by-experiment DIR`` writes ``DIR/<name>.jsonl``), so it must be a plain name, never a path:
    at most ``LIMITS["name_chars"]`` printable characters, no ``/`` or ``\\``, and not starting
    with ``.`` (which would make ``..`` or a hidden file).
    """
    if not isinstance(name, str) or not name:
        return "must be a non-empty string"
    if len(name) > LIMITS["name_chars"] or not name.isprintable():
        return (f"must be at most {LIMITS['name_chars']} printable characters (no control "
                f"characters or line breaks)")
    if "/" in name or "\\" in name or name.startswith("."):
        return "must be a plain name, not a path (no '/' or '\\', not starting with '.')"
    if name != name.strip():
        return "must not start or end with a space"
    return None


@dataclass(frozen=True)
class Target:
    """A device to place and route on.

    Attributes
    ----------
    device : str
        Part name, one of :data:`DEVICES`.
    package : str or None
        Package, one of the part's (:class:`aesdse.flow.families.Part`); None for ``asic``.
    speed : int or None
        Speed grade, one of the part's (ECP5: 6, 7, 8; 8 is fastest); None for a part without
        speed grades (iCE40, ``asic``).
    """
    device: str = "LFE5U-85F"
    package: str | None = "CABGA381"
    speed: int | None = 8

    @property
    def label(self) -> str:
        """``LFE5U-85F-8CABGA381``, ``iCE40UP5K-sg48``, ``asic``."""
        if self.package is None:
            return self.device
        return f"{self.device}-{'' if self.speed is None else self.speed}{self.package}"


@dataclass(frozen=True)
class SearchSettings:
    """The ``flow: fmax_search`` options of an experiment.

    Attributes
    ----------
    low_mhz, high_mhz : float
        Initial bracket of targets.
    batch : int
        Runs per batch; 0: the number of free workers (``--jobs``), decided when the point runs.
    patience : int
        Batches without improvement before the search stops.
    budget_s : float
        Wall-time budget of the search (checked between batches).
    seeds : int
        Placer seeds run at each target (seeds 1..N).
    """
    low_mhz: float = 50.0
    high_mhz: float = 400.0
    batch: int = 0
    patience: int = 2
    budget_s: float = 1800.0
    seeds: int = 1


#: The place-and-route choices of :class:`FlowOptions`: each left out of its plain data at its
#: default (nextpnr's own placer and router, no floorplan).
PNR_CHOICES = tuple(o.name for o in FLOW_OPTIONS if o.omitted_at_default and o.type is not bool)


class _FlowOptionsMethods:
    def as_dict(self) -> dict:
        """The options as plain data (:func:`aesdse.spec.flow_options.plain_data`):
        ``fmax_search`` only when set, and each option added after rows existed only away
        from its default, so the keys and stored ``flow`` of points without them are what
        they were before they existed."""
        return plain_data(self)


#: Synthesis and place-and-route options of one design point: a field per row of
#: :data:`aesdse.spec.flow_options.FLOW_OPTIONS`, and ``fmax_search``.
FlowOptions = options_dataclass(
    "FlowOptions", FLOW_OPTIONS, __name__,
    """Synthesis and place-and-route options of one design point: one field per flow option
    (:data:`aesdse.spec.flow_options.FLOW_OPTIONS`, where each is declared), and
    ``fmax_search`` (:class:`SearchSettings` or None): search the target frequency
    (:mod:`aesdse.engine.fmax_search`); ``freq_mhz`` and ``seed`` are then unused.""",
    extra=[("fmax_search", SearchSettings | None, field(default=None))],
    base=_FlowOptionsMethods)


#: Values of :attr:`VerifyOptions.cavp`.
CAVP_CHOICES = ("sample", "all")
#: Outer iterations of the AESAVS Monte Carlo test (NIST AESAVS section 6.4).
MONTE_CARLO_OUTER = 100


@dataclass(frozen=True)
class VerifyOptions:
    """How hard to check a design point.

    Attributes
    ----------
    random_vectors : int or None
        Random (key, block) pairs checked against the ``cryptography`` oracle, on top of the
        standard vectors. None (left unset), like ``monte_carlo`` and ``cavp``: the value of
        :data:`COMPILED_CHECKS` when the verify stage's backend is a compiled one, else of
        :data:`AMARANTH_CHECKS` (:meth:`resolved`).
    seed : int
        Seed of the random vectors and of the random stalls (a failure can be replayed).
    stall_probability : float
        Probability, per cycle, that the testbench holds back input or output.
    measure_blocks : int
        Blocks streamed back to back for the cycles-per-block measurement.
    max_cycles : int
        Cycle budget of a run, at least: a run that has not finished after
        :meth:`cycle_budget` cycles fails as a hang.
    max_cycles_per_block : int
        Cycle budget per block sent, for long runs (:meth:`cycle_budget`).
    monte_carlo : bool or None
        Also check the AESAVS Monte Carlo test (NIST AESAVS section 6.4): 100 outer iterations
        of 1,000 chained blocks, ECB for every core and CBC for a core with the ``cbc`` mode, in
        every key size and direction the core supports (:mod:`aesdse.verify.vectors`).
    monte_carlo_outer : int
        Outer iterations of the Monte Carlo test, 1 to 100; AESAVS takes 100. Fewer only for a
        short check (tests): the first iterations are those of the full test.
    cavp : str or None
        Known-answer vectors: ``"sample"``, FIPS-197 Appendices B and C and SP 800-38A Appendix
        F; ``"all"``, those and every NIST CAVP AESAVS KAT and MMT file (ECB, and CBC and the
        RFC 3686 CTR vectors for a core with those modes) of ``cryptography-vectors``.
    backend : str
        Simulator that plays the verify stage's scripts, one of :data:`VERIFY_BACKENDS`:
        ``"auto"`` (Verilator when it and a C++ compiler are found, else amaranth.sim, the
        reason recorded), ``"verilator"``, ``"cxxrtl"`` or ``"amaranth"``
        (:mod:`aesdse.verify.verify`). The backends give identical results, so it is not part of
        a point's provenance.
    netlist_blocks : int
        Budget of the netlist stage's checking script, in blocks (transfers of the ``i``
        stream): the standard vectors and messages, and as many random vectors as fit
        (:func:`aesdse.verify.script.netlist_checking_script`). A netlist model is large (a
        12k-LUT netlist's C++ takes minutes to compile) and plays every cycle of every cell, so
        it plays this short script, not the verify stage's. Not part of a point's provenance
        (it does not change the verify stage); part of the netlist stage's cache key.
    """
    random_vectors: int | None = None
    seed: int = 1
    stall_probability: float = 0.25
    measure_blocks: int = 12
    max_cycles: int = 200_000
    max_cycles_per_block: int = 1_000
    monte_carlo: bool | None = None
    monte_carlo_outer: int = MONTE_CARLO_OUTER
    cavp: str | None = None
    backend: str = "auto"
    netlist_blocks: int = 64

    def __post_init__(self):
        if self.backend not in VERIFY_BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(VERIFY_BACKENDS)}, "
                             f"not {self.backend!r}")
        if self.cavp is not None and self.cavp not in CAVP_CHOICES:
            raise ValueError(f"cavp must be one of {', '.join(CAVP_CHOICES)}, not {self.cavp!r}")
        if not 0 <= self.netlist_blocks <= LIMITS["random_vectors"]:
            raise ValueError(f"netlist_blocks must be 0 to {LIMITS['random_vectors']}, "
                             f"not {self.netlist_blocks!r}")
        if not 1 <= self.monte_carlo_outer <= MONTE_CARLO_OUTER:
            raise ValueError(f"monte_carlo_outer must be 1 to {MONTE_CARLO_OUTER}, "
                             f"not {self.monte_carlo_outer!r}")

    def resolved(self, compiled: bool) -> "VerifyOptions":
        """These options with every field left unset (None) given its default: that of
        :data:`COMPILED_CHECKS` for a compiled backend (``compiled``), else of
        :data:`AMARANTH_CHECKS` (issue 26: the stronger checks are cheap on the compiled
        backends only). A value set explicitly always stays."""
        defaults = COMPILED_CHECKS if compiled else AMARANTH_CHECKS
        return replace(self, **{name: value for name, value in defaults.items()
                                if getattr(self, name) is None})

    @property
    def is_resolved(self) -> bool:
        """Every field has a value (:meth:`resolved`)."""
        return all(getattr(self, name) is not None for name in COMPILED_CHECKS)

    def cycle_budget(self, blocks: int) -> int:
        """Cycles a run that sends ``blocks`` blocks (or wide transfers) may take before it is a
        hang: ``max_cycles``, or ``max_cycles_per_block`` per block when that is more.

        A run grows with the checks asked for (2,000 blocks of the compact 8-bit core, with the
        default stalls, took 356,082 cycles; a Monte Carlo test sends 100,000 blocks per key
        size and direction), so a fixed budget cannot fit all. The bound per block is above
        five times the slowest core measured (about 180 cycles per block with stalls); the
        fixed part keeps the budget of short runs as it was (up to 200 blocks).
        """
        return max(self.max_cycles, self.max_cycles_per_block * blocks)


#: Defaults of the checks of :class:`VerifyOptions` left unset, on a compiled backend (Verilator,
#: CXXRTL): at least 1,000 random blocks per point (per key size, each in every direction),
#: the AESAVS Monte Carlo test and every CAVP KAT/MMT file (issue 26).
COMPILED_CHECKS = {"random_vectors": 1000, "monte_carlo": True, "cavp": "all"}
#: The same on amaranth.sim (the Python simulator, tens to hundreds of times slower): the
#: defaults the project had before the compiled backends.
AMARANTH_CHECKS = {"random_vectors": 32, "monte_carlo": False, "cavp": "sample"}

#: Values of :attr:`VerifyOptions.backend`.
VERIFY_BACKENDS = ("auto", "verilator", "cxxrtl", "amaranth")

#: Verify options that are not part of a point's provenance: they do not change what the verify
#: stage checks (the backends give identical results; the netlist stage records its own
#: budget in its verdict).
VERIFY_NOT_PROVENANCE = ("backend", "netlist_blocks")


#: Flow options that do not change what a point measures (limits on the tools' run time).
CONFIG_IGNORED_FLOW = tuple(o.name for o in FLOW_OPTIONS if not o.measured)


def flow_choices(flow: dict) -> str:
    """The flow choices of a point's plain ``flow`` data (:meth:`FlowOptions.as_dict`) that
    tell it apart from a point of the same design, frequency and seed, for a label: the
    synthesis switches that are on and the nextpnr choices away from the defaults, as
    ``" (nowidelut, floorplan=lane_rows)"``; ``""`` when there are none."""
    shown = [k for k, v in sorted(flow.items()) if v is True]
    shown += [f"{k}={flow[k]}" for k in PNR_CHOICES if k in flow]
    return f" ({', '.join(shown)})" if shown else ""


def config_key(arch: str, params: dict, target: str, flow: dict) -> str:
    """What a row measures, as a key: architecture, parameters, target label and flow options
    (seed and target frequency included, tool time limits excluded). Computable both from a
    design point and from a stored row, so old rows get one too."""
    flow = {k: v for k, v in (flow or {}).items() if k not in CONFIG_IGNORED_FLOW}
    blob = json.dumps({"arch": arch, "params": params, "target": target, "flow": flow},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]
