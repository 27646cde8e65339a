"""The AES hardware of aesdse: one module per architecture family, shared primitives in ``prims``.

:data:`FAMILIES` is the explicit registry the tool reads: every family states its parameters with
their allowed values and defaults, what kind of verification it needs, and what it supports (key
sizes, directions, modes), so the CLI, the YAML validator and the manifest all come from one place.
"""

from dataclasses import dataclass, field
from typing import Any, Callable

from .prims.sbox import SBOX_KINDS

__all__ = ["Param", "Family", "FAMILIES", "family"]


@dataclass(frozen=True)
class Param:
    """One parameter of an architecture family.

    Attributes
    ----------
    name : str
        Keyword argument of the family's constructor.
    choices : tuple
        Allowed values; the first is not special, ``default`` is.
    default : Any
        Value used when an experiment does not set the parameter.
    doc : str
        One line for ``aesdse list archs``.
    omitted_at_default : bool
        A parameter added after results were stored: at its default a design point does not
        record it (:meth:`Family.point_params`), so the configuration keys of rows made before
        it existed, which had the default behaviour, still match.
    """
    name: str
    choices: tuple
    default: Any
    doc: str
    omitted_at_default: bool = False


@dataclass(frozen=True)
class Family:
    """An architecture family: how to build it and how to verify it.

    Attributes
    ----------
    name : str
        Registry name, used in YAML and on the command line.
    build : callable
        ``build(target=..., **params)`` returns the :class:`amaranth.lib.wiring.Component`;
        ``target`` is the device family the netlist is for: ``"generic"`` (simulation, portable
        Verilog) or a device family such as ``"ecp5"`` (may instantiate device primitives with
        the same cycle behaviour as the generic build).
    params : tuple of Param
        The parameters and their allowed values.
    kind : str
        ``"cipher"`` (the common AES interface of :mod:`archs.interface`, verified by the block
        testbench) or ``"sbox"`` (a standalone S-box with ``i``/``o`` bytes, verified exhaustively).
    doc : str
        One-line description with the paper it follows.
    key_sizes, directions, modes : tuple
        What the core supports, for the manifest.
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


def _iterative(target="generic", **params):
    from .iterative import Iterative
    # Validate before constructing: a component whose constructor raises is never elaborated,
    # and Amaranth warns about it when it is collected.
    _check_iterative(**params)
    return Iterative(target=target, **params)


def _sbox(target="generic", **params):
    from .sbox_standalone import StandaloneSBox
    StandaloneSBox.check(target=target, **params)   # raise before an Elaboratable exists
    return StandaloneSBox(target=target, **params)


def _unrolled(target="generic", key_register_reset=True, **params):
    from .unrolled import Unrolled
    Unrolled.check(target=target, **params)     # raise before an Elaboratable exists
    return Unrolled(target=target, key_register_reset=key_register_reset, **params)


def _compact(target="generic", **params):
    from .compact import Compact
    Compact.check(target=target, **params)      # raise before an Elaboratable exists
    return Compact(target=target, **params)


def _multimode(target="generic", fifo_depth=0, **params):
    from .buffered import Buffered
    from .multimode import Multimode
    Buffered.check(fifo_depth)
    Multimode.check(target=target, **params)    # raise before an Elaboratable exists
    core = Multimode(target=target, **params)
    return Buffered(core, fifo_depth) if fifo_depth else core


# Parameter checks without building: what each family's builder validates first.

def _check_iterative(sbox="lut", sbox_stages=0):
    from .prims.sbox import sbox_latency
    sbox_latency(sbox, stages=sbox_stages)


def _check_compact(**params):
    from .compact import Compact
    Compact.check(**params)


def _check_sbox(**params):
    from .sbox_standalone import StandaloneSBox
    StandaloneSBox.check(**params)


def _check_multimode(fifo_depth=0, **params):
    from .buffered import Buffered
    from .multimode import Multimode
    Buffered.check(fifo_depth)
    Multimode.check(**params)


def _check_unrolled(**params):
    from .unrolled import Unrolled
    Unrolled.check(**params)


def _laned(build, check=None):
    """``(build, check)`` of a family with the ``lanes`` and ``parallel_lanes`` parameters
    (:mod:`archs.lanes`): N copies of the core behind an in-order distributor (one block port)
    or side by side (a wide port of N blocks), the core itself for one."""
    def check_laned(lanes=1, parallel_lanes=1, lane_keys="shared", **params):
        from .lanes import Lanes, ParallelLanes
        port_width = params.get("port_width", 128)
        Lanes.check(lanes, port_width=port_width)
        ParallelLanes.check(parallel_lanes, lanes=lanes, port_width=port_width)
        if lane_keys not in LANE_KEYS:
            raise ValueError(f"Lane keys must be one of {', '.join(LANE_KEYS)}, "
                             f"not {lane_keys!r}")
        if lane_keys == "per_lane" and (
                max(lanes, parallel_lanes) == 1
                or params.get("key_schedule", "on_the_fly") != "on_the_fly"):
            raise ValueError("Per-lane key pipelines need two or more lanes of a core with "
                             "round keys on the fly")
        if check is not None:
            check(**params)

    def build_laned(target="generic", lanes=1, parallel_lanes=1, lane_keys="shared", **params):
        from .lanes import Lanes, ParallelLanes
        check_laned(lanes, parallel_lanes, lane_keys, **params)  # raise before elaboration
        if lanes == 1 and parallel_lanes == 1:
            return build(target=target, **params)
        # Per lane: every lane after the first gets a key register without a reset, so that
        # Yosys does not merge the lanes' identical key pipelines into one (see LANE_KEYS).
        cores = [build(target=target, **params,
                       **({"key_register_reset": n == 0} if lane_keys == "per_lane" else {}))
                 for n in range(max(lanes, parallel_lanes))]
        if parallel_lanes > 1:
            ParallelLanes.check_core(cores[0])
            return ParallelLanes(cores)
        Lanes.check_core(cores[0])
        return Lanes(cores)
    return build_laned, check_laned


def _tbox(target="generic", **params):
    from .tbox import TBox
    TBox.check(**params)                        # raise before an Elaboratable exists
    return TBox(target=target, **params)


def _check_tbox(**params):
    from .tbox import TBox
    TBox.check(**params)


_SBOX_PARAM = Param("sbox", tuple(SBOX_KINDS), "lut",
                    "S-box implementation family (archs.prims.sbox)")

# Lane counts (archs.lanes.LANES, repeated here so that listing the families imports no HDL).
_LANES_PARAM = Param("lanes", (1, 2, 4, 8), 1,
                     "copies of the core behind an in-order distributor (archs.lanes): blocks "
                     "in turn to each, results in input order; throughput scales with area",
                     omitted_at_default=True)
# Parallel lane counts (archs.lanes.PARALLEL_LANES), offered by the families whose blocks and
# results carry data alone.
_PARALLEL_LANES_PARAM = Param("parallel_lanes", (1, 2, 3), 1,
                              "copies of the core side by side behind a wide port of N blocks "
                              "per transfer (archs.lanes.ParallelLanes): N pipelines, each a "
                              "block per cycle", omitted_at_default=True)
#: How the lanes of a core with round keys on the fly get their key pipelines. The lanes are
#: copies fed the same key, so their key registers, key windows and key S-boxes are identical
#: logic on identical inputs, and Yosys merges them (opt_merge): "shared" is that, one key
#: pipeline for all lanes (two fully pipelined lanes: about 5,000 LUT4 and 11,000 flip-flops
#: fewer), placed between them; "per_lane" keeps one per lane (their key registers differ in
#: their reset), which routes two such lanes at 205.8 MHz where shared placed at an estimated
#: 101 MHz (experiments/one_chip.yaml).
LANE_KEYS = ("shared", "per_lane")
_LANE_KEYS_PARAM = Param("lane_keys", LANE_KEYS, "shared",
                         "with lanes and round keys on the fly: one key pipeline merged by Yosys "
                         "for all lanes (shared) or one per lane (per_lane)",
                         omitted_at_default=True)
_ITERATIVE = _laned(_iterative, _check_iterative)
_COMPACT = _laned(_compact, _check_compact)
_UNROLLED = _laned(_unrolled, _check_unrolled)
_TBOX = _laned(_tbox, _check_tbox)

#: Family name -> :class:`Family`.
FAMILIES = {
    "iterative": Family(
        name="iterative", module="archs.iterative", build=_ITERATIVE[0],
        check=_ITERATIVE[1], kind="cipher", wrappers=("archs.lanes",),
        doc="AES-128 encryption, 128-bit datapath, one round per step, on-the-fly key expansion",
        params=(
            _SBOX_PARAM,
            Param("sbox_stages", (0, 1, 2, 3, 4, 5, 6), 0,
                  "pipeline registers inside each S-box (logic families only)"),
            _LANES_PARAM,
            _PARALLEL_LANES_PARAM,
        )),
    "compact": Family(
        name="compact", module="archs.compact", build=_COMPACT[0],
        check=_COMPACT[1], kind="cipher", modes=("ecb", "ctr"), wrappers=("archs.lanes",),
        doc="compact AES-128, 8/32/64-bit folded datapath, ShiftRows by addressing a state "
            "memory, on-the-fly key schedule, ECB or CTR stream cipher (seed 000)",
        params=(
            Param("datapath_width", (8, 32, 64), 32, "bits of the state processed per cycle"),
            _SBOX_PARAM,
            Param("sbox_stages", (0, 1, 2, 3, 4, 5, 6), 0,
                  "pipeline registers inside each S-box (logic families only)"),
            Param("shared_memory", (False, True), False,
                  "one state memory updated in place (000 Fig. 16) instead of input and output"),
            Param("mode", ("ecb",), "ecb",
                  "ecb: the common block interface; Compact(mode='ctr') is the CTR stream cipher "
                  "(same datapath, tested in tests/test_archs_compact.py)"),
            Param("port_width", (128, 8), 128,
                  "bits per key, block and result transfer: 8 = byte streams (8-bit datapath, "
                  "combinational S-boxes; verified through archs.bytestream.ByteStreamAdapter)",
                  omitted_at_default=True),
            _LANES_PARAM,
            _PARALLEL_LANES_PARAM,
        )),
    "sbox": Family(
        name="sbox", module="archs.sbox_standalone", build=_sbox,
        check=_check_sbox, kind="sbox", block_bits=8,
        doc="one S-box between input and output registers, for S-box sweeps (seed 002 Fig. 3/4)",
        directions=("encrypt", "decrypt"), modes=(),
        params=(
            _SBOX_PARAM,
            Param("sbox_stages", (0, 1, 2, 3, 4, 5, 6), 0,
                  "pipeline registers inside the S-box (logic families only)"),
            Param("direction", ("encrypt", "decrypt", "shared"), "encrypt",
                  "SubBytes, InvSubBytes, or the shared enc/dec S-box (a registered decrypt "
                  "input; verified as SubBytes)"),
        )),
    "unrolled": Family(
        name="unrolled", module="archs.unrolled", build=_UNROLLED[0],
        check=_UNROLLED[1], kind="cipher", wrappers=("archs.lanes",),
        doc="AES encryption with 1..Nr round units, looped (seed 004) or fully pipelined "
            "(seed 002), inner-round S-box pipelining, interleaved blocks in every stage",
        params=(
            Param("round_units", (1, 2, 3, 4, 5, 6, 7, 10, 12, 14), 10,
                  "physical round units, a divisor of the round count (rounds = units: no loop)"),
            Param("schedule", ("split", "alternate"), "split",
                  "loop order: each unit its own rounds (004 design 1) or A,B,A,B (design 2)"),
            _SBOX_PARAM,
            Param("sbox_stages", (0, 1, 2, 3, 4, 5, 6), 0,
                  "pipeline registers inside each S-box (a round is 1 + latency stages)"),
            Param("bram_rounds", (0, 5), 0,
                  "first N rounds and the key schedule with block-RAM S-boxes (002 section 4)"),
            Param("key_schedule", ("on_the_fly", "precomputed"), "on_the_fly",
                  "round keys carried with every block (key agile) or expanded once per key"),
            Param("key_bits", (128, 192, 256), 128, "key size of the core"),
            Param("lean_control", (False, True), False,
                  "fully pipelined only: free-running entry and exit registers, registered "
                  "credit and output-valid flags, a power-of-two output buffer without a full "
                  "flag (one cycle more latency; for a fast clock)",
                  omitted_at_default=True),
            Param("key_lead", (False, True), False,
                  "fully pipelined, on-the-fly keys, logic S-boxes with 1+ stages: the key "
                  "S-boxes one stage shorter and the expansion step registered a stage ahead, "
                  "so the last stage has only MixColumns and AddRoundKey",
                  omitted_at_default=True),
            Param("sbox_output_copies", (1, 2), 1,
                  "composite/tower S-boxes with 6 stages: 2 copies of each S-box's output "
                  "register, MixColumns rows 0-1 reading one and rows 2-3 the other (half the "
                  "fanout on the critical net of the fully pipelined core)",
                  omitted_at_default=True),
            _LANES_PARAM,
            _PARALLEL_LANES_PARAM,
            _LANE_KEYS_PARAM,
        )),
    "tbox": Family(
        name="tbox", module="archs.tbox", build=_TBOX[0], check=_TBOX[1], kind="cipher",
        wrappers=("archs.lanes",),
        directions=("encrypt", "decrypt"),
        doc="AES-128 encryption and decryption from joint T-box/T^-1-box tables in block RAM, "
            "one round per step, optionally double-pumped block RAM (seed 001); ECP5 needs 16/8 "
            "DP16KD for the 128-bit core (001's 4 are impossible: a DP16KD port is x18)",
        params=(
            Param("bram_pumping", (1, 2), 1,
                  "block-RAM reads per port per system cycle (2: block RAM on a 2x clock)"),
            Param("datapath_width", (64, 128), 128,
                  "128: 16 lookups, a round per cycle; 64: 8 lookups, two cycles per round"),
            Param("interleaved_blocks", (1, 2, 3, 4), 1,
                  "independent blocks in turn through the round loop: 2 = block-RAM output "
                  "register on (two cycles a round), 3 = also a register after the XOR network "
                  "(three), 4 = also one before it (four); 128-bit datapath and pumping 1 only",
                  omitted_at_default=True),
            _LANES_PARAM,
        )),
    "multimode": Family(
        name="multimode", module="archs.multimode", build=_multimode,
        check=_check_multimode, kind="cipher", key_sizes=(128, 192, 256),
        wrappers=("archs.buffered",),
        directions=("encrypt", "decrypt"), modes=("ecb", "cbc", "ctr", "ccm"),
        doc="AES encryption and decryption, 128/192/256-bit keys and ECB/CBC/CTR/CCM chosen per "
            "block, on-the-fly key generation both ways, shared enc/dec inverter (seed 003)",
        params=(
            Param("sbox", ("lut", "composite", "tower"), "lut",
                  "GF(2^8) inverter family of the shared enc/dec S-boxes (003 section III.B)"),
            Param("key_bits", (128, 192, 256), 128,
                  "key size of the measured stream (the core takes all three at run time; "
                  "the netlist does not depend on it)"),
            Param("streams", (1, 2), 1,
                  "1: one round per cycle; 2: register after the inverter (003 section III.C), "
                  "two streams interleaved, each at half rate, full utilization together",
                  omitted_at_default=True),
            Param("fifo_depth", (0, 2, 4, 8), 0,
                  "blocks of the input and output FIFOs around the core (003 Fig. 10; "
                  "archs.buffered), 0: none", omitted_at_default=True),
            Param("affine_retimed", (False, True), False,
                  "True: bare shared inverters, the affine map merged with MixColumns and the "
                  "inverse affine map with InvMixColumns (003 section III.B, Fig. 8(b))",
                  omitted_at_default=True),
        )),
}


def family(name: str) -> Family:
    """Look up a family by name; ``ValueError`` names the known ones."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f"Architecture must be one of {', '.join(sorted(FAMILIES))}, "
                         f"not {name!r}") from None
