"""The AES hardware of aesdse: one module per architecture family, shared primitives in ``prims``.

:data:`FAMILIES` is the explicit registry the tool reads: every family states its parameters with
their allowed values and defaults, what kind of verification it needs, and what it supports (key
sizes, directions, modes), so the CLI, the YAML validator and the manifest all come from one place.
The parameters themselves are declared once, on the core's class (its ``PARAMS``, see
:mod:`archs.params`) or the wrapper's, and the class's ``check`` and constructor read them.

The GCM families (``gcm_iterative``, ``gcm_unrolled``, ``gcm_compact``; :mod:`archs.gcm`) pair
a cipher family with a GHASH multiplier: their parameters are those of the cipher that the
pairing takes and the GHASH parameters (:data:`archs.gcm.GHASH_PARAMS`). They are ``"cipher"``
cores with the ``"gcm"`` mode, verified on GCM messages (:mod:`aesdse.verify.blocks`).
"""

import itertools
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from .buffered import Buffered
from .compact import Compact
from .gcm import GCM_WRAPPER_PARAM, GHASH_PARAMS, GCMCore, check_ghash
from .iterative import Iterative
from .masked import Masked
from .lanes import (LANE_HAND_OUT_PARAM, LANE_KEYS, LANE_KEYS_PARAM, Lanes, ParallelLanes,
                    check_lane_hand_out, check_lane_keys)
from .multimode import Multimode
from .params import Param
from .presets import GROUPS, PRESETS, Preset
from .prims.keyschedule import ROUNDS
from .sbox_standalone import StandaloneSBox
from .tbox import TBox
from .unrolled import Unrolled

__all__ = ["Param", "Preset", "Family", "FAMILIES", "family", "LANE_KEYS"]


@dataclass(frozen=True)
class Family:
    """An architecture family: how to build it and how to verify it.

    Attributes
    ----------
    name : str
        Registry name, used in YAML and on the command line.
    build : callable
        ``build(device_family=..., **params)`` returns the
        :class:`amaranth.lib.wiring.Component`; ``device_family`` is the device family the
        netlist is for: ``"generic"`` (simulation, portable Verilog) or a device family such as
        ``"ecp5"`` (may instantiate device primitives with the same cycle behaviour as the
        generic build).
    params : tuple of Param
        The parameters and their allowed values.
    kind : str
        ``"cipher"`` (the common AES interface of :mod:`archs.interface`, verified by the block
        testbench; a GCM core, with the ``"gcm"`` mode, on GCM messages) or ``"sbox"`` (a
        standalone S-box with ``i``/``o`` bytes, verified exhaustively).
    doc : str
        One-line description with the paper it follows.
    key_sizes, directions, modes : tuple
        What the family's cores support; a point's parameters may narrow them (``key_bits``),
        and its manifest states the built core's (:func:`aesdse.generate.supported`).
    module : str or None
        The module defining the family, for its generator fingerprint.
    wrappers : tuple of str
        Modules of wrappers the registry may put around the core (:mod:`archs.lanes`), also
        part of the generator fingerprint.
    """
    name: str
    build: Callable[..., Any]
    params: tuple
    kind: str
    doc: str
    key_sizes: tuple = (128,)
    #: Bits one verified "block" carries: 128 for a cipher, 8 for a standalone S-box (the
    #: throughput of a point is block_bits x Fmax / cycles per block).
    block_bits: int = 128
    directions: tuple = ("encrypt",)
    modes: tuple = ("ecb",)
    hidden: tuple = field(default=())
    #: The module that defines the family (e.g. ``"archs.compact"``): its sources and those it
    #: imports make the family's generator fingerprint (:mod:`aesdse.store.provenance`), so editing one
    #: family does not invalidate the results of the others. None: every module of ``archs``.
    module: str | None = None
    #: ``check(**params)`` raises ``ValueError`` (the rule in words) for a combination of allowed
    #: values the family cannot build, without building anything; None: every combination works.
    check: Callable[..., Any] | None = None
    wrappers: tuple = ()
    groups: dict = field(default_factory=dict)
    presets: dict = field(default_factory=dict)
    #: ``random_bits(**params)``: the fresh random bits a masked core takes every cycle (the
    #: sweep records them per block, with the cycles per block measured in simulation); None:
    #: the family takes none.
    random_bits: Callable[..., int] | None = None

    def point_params(self, pairs) -> tuple:
        """The ``(name, value)`` pairs a design point records, sorted: ``pairs`` without the
        parameters that are :attr:`Param.omitted_at_default` and at their default."""
        omitted = {p.name: p.default for p in self.params if p.omitted_at_default}
        return tuple(sorted((k, v) for k, v in pairs
                            if not (k in omitted and type(v) is type(omitted[k])
                                    and v == omitted[k])))

    def check_params(self, params: dict) -> str | None:
        """Why the family cannot build ``params`` (a complete parameter dict), or None.

        Experiment files call this for every point of their grid, so a combination that cannot
        be built is an error at load time, not a failed point in the middle of a sweep."""
        if self.check is None:
            return None
        try:
            self.check(**params)
        except ValueError as error:
            return str(error)
        return None

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}

    def group_of(self, name: str) -> str | None:
        """The group (:data:`archs.presets.GROUPS`) parameter ``name`` is in, or None."""
        for group, members in self.groups.items():
            if name in members:
                return group
        return None

    def preset(self, name: str) -> dict:
        """The parameters of preset ``name`` (:data:`archs.presets.PRESETS`), defaults filled
        in; ``ValueError`` names the family's presets."""
        try:
            return {**self.defaults(), **self.presets[name].params}
        except KeyError:
            raise ValueError(f"{self.name} has no preset {name!r}; presets: "
                             f"{', '.join(sorted(self.presets)) or 'none'}") from None

    def sample(self, rng, start: dict | None = None, passes: int = 3) -> dict:
        """A random valid parameter dict (complete).

        Uniform draws of every parameter are almost never valid for a family whose
        parameters depend on each other (none of 3,000 of the unrolled core's are), so this
        walks from a valid point instead: ``start`` (default: the defaults, or with an even
        chance a random preset), then ``passes`` times over the parameters in a random order,
        each set to a random value that the family's ``check`` accepts together with the
        others (the current value always is). Every point it returns can be built; which
        points it reaches depends on the walk, not on a uniform measure over the valid set.
        ``rng``: a :class:`random.Random`."""
        if start is None:
            names = sorted(self.presets)
            start = self.preset(rng.choice(names)) if names and rng.random() < 0.5 \
                else self.defaults()
        values = dict(start)
        problem = self.check_params(values)
        if problem:
            raise ValueError(f"{self.name}: the start of the walk is not valid: {problem}")
        for _ in range(passes):
            order = [p for p in self.params]
            rng.shuffle(order)
            for p in order:
                choices = list(p.choices)
                rng.shuffle(choices)
                for value in choices:
                    trial = {**values, p.name: value}
                    if value == values[p.name] or self.check_params(trial) is None:
                        values = trial
                        break
        return values

    def valid_points(self, limit: int = 100_000) -> list[dict]:
        """Every valid parameter dict of the family, in grid order; ``ValueError`` when the
        grid of all allowed values has more than ``limit`` points (then :meth:`sample`)."""
        size = 1
        for p in self.params:
            size *= len(p.choices)
        if size > limit:
            raise ValueError(f"{self.name}: {size:,} combinations of allowed values, more than "
                             f"{limit:,}: sample them (Family.sample)")
        names = [p.name for p in self.params]
        points = [dict(zip(names, combo))
                  for combo in itertools.product(*(p.choices for p in self.params))]
        return [point for point in points if self.check_params(point) is None]


def _builder(core, *, build_only=()):
    """``build`` of a family whose core is the class ``core``: checks the parameters
    (``core.check``) before constructing it, so a bad design point raises before an
    Elaboratable exists (one that is never elaborated warns when it is collected).
    ``build_only``: keywords the constructor takes but ``check`` does not (not parameters)."""
    def build(device_family="generic", **params):
        extra = {name: params.pop(name) for name in build_only if name in params}
        core.check(device_family=device_family, **params)
        return core(device_family=device_family, **params, **extra)
    return build


def _buffered(build, check):
    """``(build, check)`` with the ``fifo_depth`` parameter of :class:`archs.buffered.Buffered`:
    the core behind input and output FIFOs of that depth, the core itself for 0."""
    def check_buffered(fifo_depth=0, **params):
        Buffered.check(fifo_depth)
        check(**params)

    def build_buffered(device_family="generic", fifo_depth=0, **params):
        Buffered.check(fifo_depth)
        core = build(device_family=device_family, **params)
        return Buffered(core, fifo_depth) if fifo_depth else core
    return build_buffered, check_buffered


def _laned(build, check):
    """``(build, check)`` of a family with the ``lanes`` and ``parallel_lanes`` parameters
    (:mod:`archs.lanes`): N copies of the core behind an in-order distributor (one block port)
    or side by side (a wide port of N blocks), the core itself for one."""
    def check_laned(lanes=1, parallel_lanes=1, lane_keys="shared", lane_hand_out="all_valid",
                    **params):
        port_width = params.get("port_width", 128)
        Lanes.check(lanes, port_width=port_width)
        ParallelLanes.check(parallel_lanes, lanes=lanes, port_width=port_width)
        check_lane_hand_out(lane_hand_out, parallel_lanes=parallel_lanes)
        check_lane_keys(lane_keys, lanes=lanes, parallel_lanes=parallel_lanes,
                        key_schedule=params.get("key_schedule", "on_the_fly"))
        check(**params)

    def build_laned(device_family="generic", lanes=1, parallel_lanes=1, lane_keys="shared",
                    lane_hand_out="all_valid", **params):
        # raise before elaboration
        check_laned(lanes, parallel_lanes, lane_keys, lane_hand_out, **params)
        if lanes == 1 and parallel_lanes == 1:
            return build(device_family=device_family, **params)
        # Per lane: every lane after the first gets a key register without a reset, so that
        # Yosys does not merge the lanes' identical key pipelines into one (see LANE_KEYS).
        cores = [build(device_family=device_family, **params,
                       **({"key_register_reset": n == 0} if lane_keys == "per_lane" else {}))
                 for n in range(max(lanes, parallel_lanes))]
        if parallel_lanes > 1:
            ParallelLanes.check_core(cores[0])
            return ParallelLanes(cores, hand_out=lane_hand_out)
        Lanes.check_core(cores[0])
        return Lanes(cores)
    return build_laned, check_laned


def _family(core, *, params, wrap=None, build_only=(), **fields):
    """The :class:`Family` of the core class ``core``, which builds and checks through it
    (wrapped by ``wrap``, :func:`_laned` or :func:`_buffered`) and whose module is the core's.
    ``params``: ``core.PARAMS`` with those of the wrappers, in the order the family lists
    them."""
    build, check = _builder(core, build_only=build_only), core.check
    if wrap is not None:
        build, check = wrap(build, check)
    return Family(module=core.__module__, build=build, check=check, params=params, **fields)


_LANED = (Lanes.PARAM, ParallelLanes.PARAM, LANE_HAND_OUT_PARAM)


def _gcm_family(name, cipher, cipher_params, *, fixed=lambda params: {}, **fields):
    """The :class:`Family` of :class:`archs.gcm.GCMCore` around the cipher core class
    ``cipher``: its parameters are ``cipher_params`` (those of the cipher's ``PARAMS`` the
    pairing takes), :data:`archs.gcm.GCM_WRAPPER_PARAM` and :data:`archs.gcm.GHASH_PARAMS`. ``fixed(params)`` gives the cipher's
    keywords the pairing sets itself (the unrolled core's round units). A cipher parameter not
    in ``cipher_params`` is not a parameter of the family (an experiment naming it is an error
    at its line)."""
    ghash_defaults = {p.name: p.default for p in GHASH_PARAMS}
    wrapper = GCM_WRAPPER_PARAM.name
    params_of = tuple(cipher_params) + (GCM_WRAPPER_PARAM,) + GHASH_PARAMS
    names = {p.name for p in params_of}

    def split(params):
        ghash = {k: params.get(k, v) for k, v in ghash_defaults.items()}
        rest = {k: v for k, v in params.items() if k not in ghash_defaults and k != wrapper}
        return ghash, {**rest, **fixed(rest)}

    def check(device_family="generic", **params):
        unknown = sorted(set(params) - names)
        if unknown:
            raise ValueError(f"{name} takes no parameter {unknown[0]!r} (the GCM pairing of "
                             f"{cipher.__name__} does not take it); parameters: "
                             f"{', '.join(p.name for p in params_of)}")
        ghash, rest = split(params)
        GCM_WRAPPER_PARAM.check(params.get(wrapper, GCM_WRAPPER_PARAM.default))
        for p in GHASH_PARAMS:
            p.check(ghash[p.name])
        check_ghash(**ghash)
        cipher.check(device_family=device_family, **rest)

    def build(device_family="generic", **params):
        check(device_family, **params)  # raise before any Elaboratable exists
        ghash, rest = split(params)
        return GCMCore(cipher(device_family=device_family, **rest), **ghash,
                       gcm_wrapper=params.get(wrapper, GCM_WRAPPER_PARAM.default))
    return Family(name=name, module="archs.gcm", wrappers=(cipher.__module__,), build=build,
                  check=check, params=params_of, kind="cipher",
                  directions=("encrypt", "decrypt"), modes=("gcm",), **fields)


def _params(core, *names) -> tuple:
    """The parameters ``names`` of ``core.PARAMS``, in its order."""
    return tuple(p for p in core.PARAMS if p.name in names)


#: What the GCM families are (issue 24), for their one-line documentation.
_GCM_DOC = ("AES-GCM (SP 800-38D) around the {cipher} cipher and a GHASH multiplier "
            "(archs.gcm, archs.prims.ghash): encryption and decryption, IVs of any length, AAD "
            "and payload of any byte length, tag out or checked (auth_fail)")

#: Family name -> :class:`Family`.
FAMILIES = {
    "iterative": _family(
        Iterative, name="iterative", kind="cipher", params=Iterative.PARAMS + _LANED, wrap=_laned,
        wrappers=("archs.lanes",),
        doc="AES-128 encryption, 128-bit datapath, one round per step, on-the-fly key expansion"),
    "compact": _family(
        Compact, name="compact", kind="cipher", modes=("ecb", "ctr"),
        params=Compact.PARAMS + _LANED, wrap=_laned, wrappers=("archs.lanes",),
        doc="compact AES-128, 8/32/64-bit folded datapath, ShiftRows by addressing a state "
            "memory, on-the-fly key schedule, ECB or CTR stream cipher (seed 000)"),
    "sbox": _family(
        StandaloneSBox, name="sbox", kind="sbox", block_bits=8, params=StandaloneSBox.PARAMS,
        doc="one S-box between input and output registers, for S-box sweeps (seed 002 Fig. 3/4)",
        directions=("encrypt", "decrypt"), modes=()),
    "unrolled": _family(
        Unrolled, name="unrolled", kind="cipher",
        params=Unrolled.PARAMS + _LANED + (LANE_KEYS_PARAM,), wrap=_laned,
        wrappers=("archs.lanes",),
        build_only=("key_register_reset",),
        doc="AES encryption with 1..Nr round units, looped (seed 004) or fully pipelined "
            "(seed 002), inner-round S-box pipelining, interleaved blocks in every stage"),
    "tbox": _family(
        TBox, name="tbox", kind="cipher", params=TBox.PARAMS + (Lanes.PARAM,), wrap=_laned,
        wrappers=("archs.lanes",), directions=("encrypt", "decrypt"),
        doc="AES-128 encryption and decryption from joint T-box/T^-1-box tables in block RAM, "
            "one round per step, optionally double-pumped block RAM (seed 001); ECP5 needs 16/8 "
            "DP16KD for the 128-bit core (a DP16KD port is x18), 8/4 with compressed entries"),
    "multimode": _family(
        Multimode, name="multimode", kind="cipher", key_sizes=(128, 192, 256),
        # The wrapper's fifo_depth after streams (sbox, key_bits, streams), where it has always
        # been listed.
        params=(*Multimode.PARAMS[:3], Buffered.PARAM, *Multimode.PARAMS[3:]), wrap=_buffered,
        wrappers=("archs.buffered",),
        directions=("encrypt", "decrypt"), modes=("ecb", "cbc", "ctr", "ccm"),
        doc="AES encryption and decryption, 128/192/256-bit keys and ECB/CBC/CTR/CCM chosen per "
            "block, on-the-fly key generation both ways, shared enc/dec inverter (seed 003)"),
    "masked": _family(
        Masked, name="masked", kind="cipher", params=Masked.PARAMS,
        random_bits=Masked.random_bits_per_cycle,
        doc="masked AES-128 encryption (issue 49): the iterative round on d + 1 shares, "
            "tower-field S-boxes with DOM-indep or HPC2 gadgets, random bits from a built-in "
            "generator (for measurement, not a security claim)"),
    "gcm_iterative": _gcm_family(
        "gcm_iterative", Iterative, Iterative.PARAMS,
        doc=_GCM_DOC.format(cipher="iterative (one round per cycle, AES-128)")),
    "gcm_unrolled": _gcm_family(
        "gcm_unrolled", Unrolled,
        _params(Unrolled, "sbox", "sbox_stages", "bram_rounds", "key_schedule", "key_bits",
                "lean_control", "key_lead", "sbox_output_copies", "banked_buffer"),
        # Fully pipelined: as many round units as rounds (one block per cycle).
        fixed=lambda params: {"round_units": ROUNDS[params.get("key_bits", 128)]},
        key_sizes=(128, 192, 256),
        doc=_GCM_DOC.format(cipher="fully pipelined unrolled (one block per cycle; key_bits "
                                   "chooses the key size)")),
    "gcm_compact": _gcm_family(
        "gcm_compact", Compact,
        _params(Compact, "datapath_width", "sbox", "sbox_stages", "shared_memory", "mixcolumns"),
        doc=_GCM_DOC.format(cipher="compact (folded datapath, 128-bit port, AES-128)")),
}


# The groups and presets (archs.presets) are names for parameters and designs, not part of how
# a family builds: they are attached here, outside the entries the fingerprints digest.
FAMILIES = {name: replace(fam, groups=GROUPS.get(name, {}), presets=PRESETS.get(name, {}))
            for name, fam in FAMILIES.items()}


def family(name: str) -> Family:
    """Look up a family by name; ``ValueError`` names the known ones."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f"Architecture must be one of {', '.join(sorted(FAMILIES))}, "
                         f"not {name!r}") from None
