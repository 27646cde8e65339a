"""Verification in the sweep: what each row records about how it was checked, and the netlist
stage (issue 26).

What a row records
------------------
Every row's ``details`` holds, under :data:`VERIFICATION_KEY`, the record of its verification
(:func:`verification_record`): ``verified_with`` (the simulator of the verify stage,
``amaranth.sim`` or a compiled backend), ``vectors_checked``, ``checks`` (blocks checked by
source), ``fallback_reason`` (set when a compiled backend was asked for but the stage fell back
to amaranth.sim; the sweep prints a line for it, never silently), and the netlist stage's
outcome: ``netlist_verified`` (``"yes (verilator, N transfers)"`` or ``"not checked: <where and
why>"``) and ``netlist`` (its verdict, timings and model options). ``aesdse report --format
json`` shows them with the row's other details.

The netlist stage
-----------------
After synthesis, before place and route (the Xilinx estimates, which have none: after their
synthesis, the netlist kept in its cache entry), the netlist Yosys wrote is simulated with the
family's cell models (:mod:`aesdse.verify.netlist`) and plays the verify stage's script; its playback must
equal the RTL's edge for edge (:func:`aesdse.verify.netlist.first_difference`). A difference is
the row's status ``netlist-mismatch``, its reason the first differing transfer, and the point
gets no numbers. The script and the RTL's playback of it are made in the design stage
(:func:`rtl_script`, file :data:`SCRIPT_FILE`), so the netlist stage elaborates nothing; the
stage itself is cached in the stage cache under ``netlist/``, keyed by the netlist digest,
family, script digest, cell models, model options, compiler and Yosys (:func:`netlist_key`).
Compiled models go in ``<stage cache>/models``, or ``$AESDSE_MODEL_CACHE`` when it is set
(:func:`model_cache_dir`), shared with the compiled backends of the verify stage.

What the netlist stage plays, and with what
--------------------------------------------
A netlist model simulates every cell of the netlist, and building it dominates the stage: the
C++ of a 12k-LUT4 netlist is tens of megabytes. So the stage plays a short script, not the
verify stage's (which may hold 1,000 random blocks per key size, the Monte Carlo test and every
CAVP file): the checks of :func:`aesdse.verify.script.netlist_checking_script`, within
``VerifyOptions.netlist_blocks`` blocks (default 64) and with the verify stage's stalls. The RTL
has passed the whole set in the verify stage; the netlist must play the short one edge for edge
as the RTL does. A standalone S-box (family ``sbox``), which has plain ports and no streams, is
played inside a small stream adapter (:class:`aesdse.verify.sbox_stream.SBoxStreamAdapter`: a
byte in, its substitute ``latency`` edges later) on all 256 inputs of each direction it has
(:func:`aesdse.verify.sbox_stream.sbox_script`), its netlist taking the place of the adapter's
core module as a byte-stream core's does in its adapter.

The model is built with Verilator when the ``verilator`` package is installed
(:func:`netlist_backend`, :data:`NETLIST_VERILATOR_OPTIONS`: ``g++ -O0``), else with CXXRTL
(:data:`NETLIST_MODEL_OPTIONS`: ``write_cxxrtl -O6``, ``g++ -O0``). Measured on this project's
2-core machine under a load average of about 6 (other jobs running; seconds are wall clock,
compile and link of a cold model, the runtime library of each backend built once per compiler
and flags and not counted; the Yosys step that reads the netlist with the ECP5 models before
that, 1-20 s; playing the 64-block script took under 1 s everywhere):

==================================  =========  ===========  ==========  =========================
ECP5 netlist (LUT4)                 RTLIL      CXXRTL -O6,  Verilator,  also tried (slower)
                                               g++ -O0      g++ -O0
==================================  =========  ===========  ==========  =========================
compact, 32-bit datapath (1.7k)     7 MB       13 s         11 s
tbox, bram_pumping 2 (2.4k, 4       11 MB      17 s         26 s
DP16KD)
iterative (4.0k)                    17.5 MB    63 s         27-54 s     CXXRTL -O0: 110 s, -O3:
                                                                        79 s (and a 30x slower
                                                                        model); Verilator with
                                                                        g++ -O1: 89 s; Yosys
                                                                        ``opt -fast`` first: no
                                                                        gain
multimode, 1 stream (12.3k)         82 MB      > 10 min,    114 s
                                               5 GB
unrolled record, 5_pipelined        72 MB      --           194 s
(19.9k LUT4, 23.8k FF)
==================================  =========  ===========  ==========  =========================

(The CXXRTL figure of the multimode netlist is the one of the issue that asked for this stage,
issue 26, with ``g++ -O0``.) Verilator is the netlist stage's backend: it builds the small
netlists in about the same time as CXXRTL and the large ones many times faster (its C++ is split
into files compiled two at a time), and its model plays the script 20-50 times faster. The fully pipelined record point
(experiments/records/5_pipelined.yaml: Yosys synthesis 131 s here, nextpnr 86-480 s) takes
about 15 s of Yosys and 194 s to build, under the load above.

A point whose netlist cannot be simulated keeps its numbers and records why ("not checked"): a
family without cell models (its driver's
:attr:`~aesdse.flow.families.base.FamilyDriver.cell_models`), a
core the script builder does not cover yet
(:class:`aesdse.verify.script.ScriptUnsupported`), cells without a model, no C++ compiler, or
the stage turned off (``aesdse sweep --no-netlist-verify``, or ``AESDSE_NETLIST_VERIFY=0`` in
the environment, the default of that flag). The ``asic`` estimate maps to the cells of
``aesdse/flow/ge.lib``, which have no simulation models: not checked. A compiler that crashes or
runs past its time limit on the netlist's model fails the point (``failed-verification``, with
the compiler's message), as a crash of the netlist's model does; neither is cached.

Families whose flow wraps the core in the measurement harness (:mod:`aesdse.flow.harness`:
iCE40 of those with models) have the core synthesized alone for this check (``core.il``,
written by the design stage; a synthesis cached like any other).
"""

import gc
import hashlib
import json
import os
import time
import warnings
from dataclasses import asdict
from pathlib import Path

import archs
from amaranth.hdl import UnusedElaboratable
from archs.bytestream import ByteStreamAdapter

from .cache import StageCache, stage_key
from ..flow.tools import find_tool
from ..verify.cxxrtl import CompileError, Compiler, ModelOptions, PlayError, script_text
from ..verify.verilator import VerilatorOptions, verilator_root
from ..verify.netlist import (NetlistToolCrashed, NetlistUnsupported, cell_models,
                              first_difference, netlist_model, play_netlist, wrapper_rtlil)
from ..verify.script import (InputTransfer, OutputStream, Playback, Script, ScriptMismatch,
                             ScriptUnsupported, check_playback, common_interface,
                             netlist_checking_script)
from ..verify.sbox_stream import SBoxStreamAdapter, sbox_script
from ..verify.verify import select_player

__all__ = ["VERIFICATION_KEY", "SCRIPT_FILE", "NETLIST_DIR", "NETLIST_FILES", "CHECK_FILE",
           "NETLIST_MODEL_OPTIONS", "NETLIST_VERILATOR_OPTIONS", "NETLIST_BACKEND",
           "netlist_backend", "netlist_options", "TURNED_OFF", "ENVIRONMENT_SWITCH",
           "netlist_verify_default", "model_cache_dir", "verification_record", "rtl_script",
           "script_to_json", "script_from_json", "wrapper_from_json", "netlist_key",
           "check_netlist",
           "netlist_summary", "unchecked", "estimate_unchecked_reason", "OLD_ESTIMATE_REASON"]

#: Key of the verification record in a row's ``details``.
VERIFICATION_KEY = "verification"
#: File, in a design stage's outputs, with the script and the RTL's playback of it.
SCRIPT_FILE = "netlist_script.json"
#: Directory, in a point's artifacts, of the netlist stage.
NETLIST_DIR = "netlist"
#: File, in :data:`NETLIST_DIR`, with the stage's verdict.
CHECK_FILE = "netlist_check.json"
#: Files of the netlist stage kept in the artifacts and the cache (the flat RTLIL and the
#: netlist itself are large and left out).
NETLIST_FILES = ("netlist_sim.ys", "netlist_sim.log", CHECK_FILE)
#: How CXXRTL netlist models are built: ``-O0``, since a netlist model plays one short script
#: once, and its C++ compiles about twice as fast as at ``-O1`` (tests/test_verify_netlist.py).
NETLIST_MODEL_OPTIONS = ModelOptions(cxx_flags=("-O0",))
#: How Verilator netlist models are built (module documentation: measured faster to build).
NETLIST_VERILATOR_OPTIONS = VerilatorOptions(cxx_flags=("-O0",))
#: The simulator of the netlist stage when Verilator is found (:func:`netlist_backend`).
NETLIST_BACKEND = "verilator"
#: Why a netlist was not checked when the stage is off.
TURNED_OFF = "turned off (--no-netlist-verify)"
#: Environment variable whose value ``0`` turns the netlist stage off by default.
ENVIRONMENT_SWITCH = "AESDSE_NETLIST_VERIFY"


def netlist_verify_default() -> bool:
    """Whether the netlist stage runs when nobody said: yes, unless ``AESDSE_NETLIST_VERIFY``
    is ``0``."""
    return os.environ.get(ENVIRONMENT_SWITCH, "1").strip() != "0"


def netlist_backend() -> str:
    """The netlist stage's simulator: :data:`NETLIST_BACKEND` (Verilator) when the
    ``verilator`` package is installed, else ``"cxxrtl"`` (both play the same script with the
    same cycle protocol)."""
    try:
        verilator_root()
    except CompileError:
        return "cxxrtl"
    return NETLIST_BACKEND


def netlist_options(backend: str) -> ModelOptions | VerilatorOptions:
    """The model options of the netlist stage's ``backend``."""
    return NETLIST_VERILATOR_OPTIONS if backend == "verilator" else NETLIST_MODEL_OPTIONS


def model_cache_dir(cache: StageCache) -> Path:
    """Where compiled simulation models are cached: ``$AESDSE_MODEL_CACHE`` when it is set (one
    cache for every results directory of a user or machine: a model is keyed by its design
    digest, compiler and flags, so sharing it never mixes two designs), else ``models/`` in
    the stage cache."""
    env = os.environ.get("AESDSE_MODEL_CACHE")
    # absolute: the compiler runs in another directory
    return Path(env).resolve() if env else cache.root.resolve() / "models"


def verification_record(v) -> dict:
    """What a row records of its verify stage (module documentation), from a
    :class:`aesdse.verify.verify.Verification`."""
    return {"verified_with": getattr(v, "verified_with", "amaranth.sim"),
            "vectors_checked": v.vectors_checked,
            "checks": dict(getattr(v, "checks", None) or {}),
            "fallback_reason": getattr(v, "fallback_reason", None)}


def unchecked(reason: str) -> dict:
    """The netlist stage's verdict for a netlist that was not simulated, and why."""
    return {"verdict": "not checked", "reason": reason}


def netlist_summary(verdict: dict) -> str:
    """``"yes (<backend>, N transfers)"``, ``"not checked: <reason>"`` or ``"mismatch: <first
    difference>"``: the row's ``netlist_verified``."""
    if verdict["verdict"] == "yes":
        return f"yes ({verdict['backend']}, {verdict['transfers']} transfers)"
    return f"{verdict['verdict']}: {verdict['reason']}"


#: What a design stage cached by an aesdse before issue 45 recorded as its script for a Xilinx
#: estimate, whose netlist was not kept then (``{family}``): a script is made now instead.
OLD_ESTIMATE_REASON = "the {family} estimate keeps no netlist"


def estimate_unchecked_reason(family: str) -> str:
    """Why the netlist of an estimate family (no place and route) whose estimate keeps no
    netlist (``asic``; the Xilinx estimates keep theirs and are checked) is not simulated."""
    if family == "asic":
        return ("the asic estimate maps the design to the cells of aesdse/flow/ge.lib, which "
                "have no simulation models (the asic driver's cell models cover Yosys's "
                "internal gates only), and its mapped netlist is not kept")
    try:
        cell_models(family)
    except NetlistUnsupported as e:
        return str(e)
    return OLD_ESTIMATE_REASON.format(family=family)


# --- the script, made in the design stage ----------------------------------------------------


def script_to_json(script: Script, playback: Playback, wrapper: str | None = None) -> str:
    """``script`` and the RTL's ``playback`` of it as JSON text (:data:`SCRIPT_FILE`), with
    the RTLIL of the wrapper the netlist is simulated in, if any (a byte-stream core's
    adapter, :func:`aesdse.verify.netlist.wrapper_rtlil`; :func:`wrapper_from_json`)."""
    doc = {"script": asdict(script), "rtl": asdict(playback)}
    if wrapper is not None:
        doc["wrapper"] = wrapper
    return json.dumps(doc, sort_keys=True)


def wrapper_from_json(text: str) -> str | None:
    """The wrapper's RTLIL of a :data:`SCRIPT_FILE` text (None: the netlist alone)."""
    return json.loads(text).get("wrapper")


def script_from_json(text: str) -> tuple[Script, Playback]:
    """The inverse of :func:`script_to_json`."""
    doc = json.loads(text)
    s, p = doc["script"], doc["rtl"]
    script = Script(inputs=tuple(s["inputs"]),
                    items=tuple(InputTransfer(**item) for item in s["items"]),
                    outputs=tuple(OutputStream(o["name"], tuple(o["expected"]), o["ready"],
                                               tuple(o["notes"]), tuple(o.get("checked", ())),
                                               tuple(tuple(f) for f in o.get("fields", ())),
                                               (tuple(o["order_by"]) if o.get("order_by")
                                                else None))
                                  for o in s["outputs"]),
                    clocks=tuple(tuple(c) for c in s["clocks"]), max_cycles=s["max_cycles"])
    playback = Playback(tuple(p["accepted"]),
                        tuple(tuple(tuple(t) for t in stream) for stream in p["produced"]),
                        p["hung"])
    return script, playback


def rtl_script(build, point, model_cache: Path | None = None) -> tuple[dict, str | None]:
    """The verification script of a point's core and the RTL's playback of it, for the netlist
    stage: ``(metadata, JSON text of SCRIPT_FILE or None)``. The metadata holds the script's
    ``digest`` and ``transfers``, or ``unsupported`` (why there is no script).

    The script of a cipher core is the verify stage's checks within the netlist budget
    (:func:`aesdse.verify.script.netlist_checking_script`, ``point.verify.netlist_blocks``);
    a standalone S-box's is all 256 inputs of each direction it has, played through its
    :class:`aesdse.verify.sbox_stream.SBoxStreamAdapter`
    (:func:`aesdse.verify.sbox_stream.sbox_script`). The RTL plays it on the verify stage's
    backend (``point.verify.backend``, models cached in ``model_cache``): the reference the
    netlist's playback must equal edge for edge.
    ``build()`` returns the core as the verify stage builds it; it is called only when a
    script is made (a component built and never elaborated is a warning in Amaranth).
    """
    fam = archs.family(point.arch)
    try:
        cell_models(point.device_family)
    except NetlistUnsupported as e:
        return {"unsupported": str(e)}, None
    start = time.perf_counter()
    with warnings.catch_warnings():
        # A core without a script is never elaborated; that is not a mistake of its design.
        warnings.simplefilter("ignore", UnusedElaboratable)
        interface = SBoxStreamAdapter if fam.kind == "sbox" else common_interface
        dut = interface(build())
        wrapper = _wrapper(build, dut)
        script = (sbox_script(dut, point.verify) if fam.kind == "sbox" else
                  _script_or_reason(netlist_checking_script, dut, point, fam))
        if isinstance(script, str):
            del dut
            gc.collect()
            return {"unsupported": script}, None
    try:
        player = select_player(lambda: interface(build()), dut, point.verify.backend,
                               model_cache)
    except CompileError as e:
        return {"unsupported": f"the RTL model for the reference playback failed: {e}"}, None
    playback = player.play(script)
    try:
        check_playback(script, playback)
    except ScriptMismatch as e:
        return {"unsupported": f"the RTL does not pass the script ({player.name}): {e}"}, None
    text = script_to_json(script, playback, wrapper)
    return {"digest": hashlib.sha256(text.encode()).hexdigest(),
            "transfers": len(script.items) + sum(len(o.expected) for o in script.outputs),
            "blocks": sum(1 for item in script.items if item.stream == "i"),
            "rtl_backend": player.name,
            "rtl_seconds": round(time.perf_counter() - start, 3)}, text


def _wrapper(build, dut) -> str | None:
    """The RTLIL of the wrapper the netlist of ``dut`` (a core ``build()`` made, behind the
    interface the script drives) is simulated in (:func:`aesdse.verify.netlist.wrapper_rtlil`),
    None for none. The netlist is the core alone, while the script drives a standalone S-box
    through its :class:`aesdse.verify.sbox_stream.SBoxStreamAdapter` and a byte-stream core
    through its :class:`archs.bytestream.ByteStreamAdapter`
    (:func:`aesdse.verify.script.common_interface`): the netlist takes the place of the
    adapter's core module."""
    if isinstance(dut, SBoxStreamAdapter):
        return wrapper_rtlil(SBoxStreamAdapter.around_netlist(dut))
    if isinstance(dut, ByteStreamAdapter):
        return wrapper_rtlil(ByteStreamAdapter(build()))
    return None


def _script_or_reason(make, dut, point, fam) -> Script | str:
    """``make(dut, ...)``, or why the script builder has no script for the core."""
    try:
        return make(dut, point.verify, key_sizes=fam.key_sizes, directions=fam.directions)
    except ScriptUnsupported as e:
        return f"aesdse.verify.script makes no script for this core yet: {e}"


# --- the netlist stage -----------------------------------------------------------------------


def netlist_key(netlist_digest: str, family: str, top: str, script_digest: str,
                compiler: Compiler, backend: str = "cxxrtl") -> str:
    """The netlist stage: the netlist, its family's cell models, the top module, the script
    (with the RTL's playback; hence the budget ``netlist_blocks`` it was cut to), the backend
    and its model options, the compiler and the Yosys that reads the models."""
    return stage_key("netlist", {
        "netlist": netlist_digest, "family": family, "top": top, "script": script_digest,
        "models": asdict(cell_models(family)), "options": asdict(netlist_options(backend)),
        "backend": backend, "compiler": compiler.identity,
        "yosys": find_tool("yosys").version})


def check_netlist(workdir: Path, netlist_file: str, top: str, family: str, script_json: str, *,
                  model_cache: Path, compiler: Compiler, backend: str = "cxxrtl") -> dict:
    """Simulate ``workdir/netlist_file`` with the family's cell models on the script of
    ``script_json`` (:data:`SCRIPT_FILE`) with ``backend`` (``"cxxrtl"`` or ``"verilator"``,
    :func:`netlist_backend`) and compare with the RTL's playback. Writes
    :data:`NETLIST_FILES` in ``workdir``; returns the verdict: ``{"verdict": "yes" | "mismatch"
    | "not checked", "reason", "transfers", "backend", "compiler", "timings"}``.

    Raises
    ------
    aesdse.verify.cxxrtl.CompileError
        The compiler failed or ran past its time limit.
    aesdse.verify.cxxrtl.PlayError
        The netlist's model crashed or ran past its time limit.
    """
    script, rtl = script_from_json(script_json)
    transfers = len(script.items) + sum(len(o.expected) for o in script.outputs)
    timings: dict = {}
    options = netlist_options(backend)
    base = {"backend": backend, "compiler": compiler.identity,
            "options": asdict(options), "transfers": transfers,
            "models": list(cell_models(family).files), "timings": timings}
    try:
        model = netlist_model(netlist_file, top, family, workdir, cache_dir=model_cache,
                              options=options, compiler=compiler, timings=timings,
                              wrapper=wrapper_from_json(script_json))
    except NetlistToolCrashed as e:  # not a verdict: not cached, checked by the next sweep
        verdict = {**base, **unchecked(str(e)), "transient": True}
    except NetlistUnsupported as e:
        verdict = {**base, **unchecked(str(e))}
    except (OSError, ValueError) as e:  # no flat netlist written, or a netlist not JSON
        what = (f"{e.strerror}: {Path(e.filename).name}" if isinstance(e, OSError)
                and e.filename else f"{type(e).__name__}: {e}")
        verdict = {**base, **unchecked(f"yosys did not turn the netlist into a model ({what})")}
    else:
        verdict = _play_verdict(model, script, rtl, family, options, timings, base)
    (workdir / CHECK_FILE).write_text(json.dumps(verdict, indent=2) + "\n")
    (workdir / "netlist_sim.il").unlink(missing_ok=True)  # large; the cache keeps the model
    return verdict


def _play_verdict(model, script, rtl, family, options, timings, base) -> dict:
    """Play the netlist's model and compare it with the RTL's playback. A model that runs past
    its time limit fails the point, except on a family whose models are not proven on
    sequential netlists (:attr:`aesdse.verify.netlist.CellModels.proven`): there it is no
    verdict on the design, and the row says so."""
    start = time.perf_counter()
    try:
        playback = play_netlist(model, script, timeout=options.compile_timeout_s)
    except PlayError as e:
        if cell_models(family).proven or "time limit" not in str(e):
            raise
        return {**base, **unchecked(f"{e}: the {family} cell models are proven by aesdse's "
                                    f"tests on combinational netlists only")}
    timings["play_s"] = time.perf_counter() - start
    difference = first_difference(script, rtl, playback)
    return ({**base, "verdict": "yes", "reason": None} if difference is None else
            {**base, "verdict": "mismatch", "reason": difference})
