"""The flow of one design point, top to bottom: generate -> verify -> synthesize -> verify the
netlist -> place and route -> metrics -> a :class:`~aesdse.store.database.Row`.

:func:`run_point` is a plain function of picklable inputs, so it runs the same in the sweep's
process, in a worker process or on a remote Dask worker (:mod:`aesdse.engine.executors`); it never
touches the database (only the sweep writes it).

Stages and their cache
----------------------
Every stage goes through :meth:`aesdse.engine.runner.PointRun.stage`: take the stage's outputs
from the stage cache (:mod:`aesdse.engine.cache`, checked against their digests) or run it and
store them. This module runs the design, synthesis, harness and metrics stages; the netlist
stage's place in the flow is :mod:`aesdse.engine.netlist_stage`, place and route and the Fmax
search :mod:`aesdse.engine.pnr_stage`. Each stage's cache key is computed by one function of
:mod:`aesdse.engine.keys` (:func:`design_key`, :func:`synth_key`, :func:`pnr_key`), so a new
seed or target frequency runs only nextpnr, and a flow option never re-simulates.

Verification in the sweep
-------------------------
Correct before measured, twice: the verify stage simulates the design (its record, the simulator
and what it checked, goes into the row's ``details``), and after synthesis the netlist stage
simulates the netlist Yosys wrote with the family's cell models, on the same script, before
place and route (:mod:`aesdse.engine.netlist_check`, which says what is recorded, where a netlist
cannot be simulated and why). A netlist that plays the script otherwise than the RTL is a
``netlist-mismatch`` row without numbers. ``run_point(netlist_verify=False)`` (``aesdse sweep
--no-netlist-verify``) turns the netlist stage off; the row then says so.

Failures
--------
A point whose generation, verification or tool run fails (a tool timeout included, which kills
the tool's process tree) becomes a failed row with its reason and the log tail, never a number.
A verification verdict is cached (the same design fails the same way); a crash of the simulator
or a tool is not (it may be the machine's).

Artifacts are written to a temporary directory and published whole as ``runs/<key>`` when the
point is finished (:mod:`aesdse.engine.artifacts`), before the sweep stores the row, so a killed
sweep leaves nothing that looks finished but is not.
"""

import hashlib
import io
import json
import shutil
import socket
import tarfile
import tempfile
import time
import traceback
from dataclasses import asdict
from pathlib import Path

import archs

from .cache import CacheEntry, StageCache, file_digest
from ..flow.families import family_info, fits, speed_limits
from ..flow.families.base import EstimateFailed
from ..experiment import DesignPoint
from ..flow.critical_path import (BREAKDOWN_INSTANCES, CriticalPath, NetlistCells,
                                  critical_paths, instance_breakdown, netlist_cells)
from ..flow.tools import tool_versions
from ..flow.yosys import synthesize
from ..generate import GenerateError, build_component, generate
from ..metrics import common_resources, compute_metrics, synthesized_resources
from ..fingerprint import design_identity, generator_fingerprint
from ..store.database import Row
from ..verify.cxxrtl import CompileError
from ..verify.verify import verify_component
from .artifacts import REJECTED_FILE, default_worker_cache, publish, tmp_name, unpack_artifacts
from .keys import design_key, pnr_key, synth_key, synth_options
from .netlist_check import (SCRIPT_FILE, VERIFICATION_KEY, estimate_unchecked_reason,
                            model_cache_dir, netlist_summary, netlist_verify_default, unchecked,
                            verification_record)
from .netlist_stage import CORE_FILE, keeps_netlist, netlist_script, verify_netlist
from .pnr_stage import (SEARCH_FILE, place_and_route_point, pnr_once, search_point_fmax,
                        search_runs)
from .runner import PointRun, StageFailed, synthesis_metadata

__all__ = ["run_point", "build_row", "run_point_packed", "unpack_artifacts", "design_key", "synth_key",
           "pnr_key", "PointRun", "StageFailed", "search_runs", "SEARCH_FILE", "REJECTED_FILE",
           "CRITICAL_PATHS_FILE", "synthesis_metadata", "design_checked", "synthesis_checked",
           "default_worker_cache"]

#: File, in a point's artifacts, with the summaries of its worst paths (also in the row's details).
CRITICAL_PATHS_FILE = "critical_paths.json"


#: LUT4 a logic S-box takes at least, for the capacity check before synthesis: half the smallest
#: measured (issue 15: the tower S-box 64 LUT4 on ECP5, the Reyhani-Masoleh 2018 circuit 58 LUT4
#: on iCE40), so the bound stays below what any S-box circuit has been mapped to.
SBOX_LUT4_LOWER_BOUND = 32


def rtlil_flip_flops(rtlil_text: str) -> int:
    """Flip-flop bits of an RTLIL netlist before synthesis (the ``WIDTH`` of every ``$dff``-like
    cell), known without running a tool. Not a lower bound: synthesis merges flip-flops with the
    same input, clock and reset, a few in one core but whole key pipelines in lanes fed the same
    key (``archs.LANE_KEYS``). Three fully pipelined sbox_stages-6 lanes count 93,705 here, but
    one such pipeline keeps 22,866 after synthesis (68,598 for three, fewer with their key
    pipelines merged; issue 15, experiments/one_chip.yaml). So the capacity check before
    synthesis (:func:`capacity_before_synthesis`) does not use it; the synthesized flip-flops
    are checked before place and route. Kept in the design stage's metadata."""
    count, in_dff = 0, False
    for line in rtlil_text.splitlines():
        words = line.split()
        if words[:1] == ["cell"] and len(words) > 1:
            in_dff = words[1] in ("$dff", "$adff", "$sdff", "$dffe", "$adffe", "$sdffe",
                                  "$sdffce", "$aldff", "$aldffe", "$dffsr", "$dffsre")
        elif in_dff and words[:2] == ["parameter", "\\WIDTH"]:
            count += int(words[2])
        elif words[:1] == ["end"]:
            in_dff = False
    return count


# --- the point --------------------------------------------------------------------------------


def run_point(point: DesignPoint, experiment: str, results_dir: str, versions: dict,
              key: str | None = None, on_stage=None, *, cache_dir: str | None = None,
              use_cache: bool = True, pnr_jobs: int = 1,
              netlist_verify: bool | None = None) -> Row:
    """Run every stage of one design point; never raises for a bad design or a tool failure.

    Parameters
    ----------
    point : DesignPoint
    experiment : str
        Experiment name recorded with the row.
    results_dir : str
        Root of the artifacts; this point's go to ``results_dir/runs/<key>/``.
    versions : dict
        Tool identifiers of the sweep's client (part of the key). The row records those of the
        tools that actually ran, found on this machine.
    key : str, optional
        The point's key (default: computed from ``versions``).
    on_stage : callable, optional
        Called with the stage name as each stage starts (progress display).
    cache_dir : str, optional
        Stage cache root (default ``results_dir/cache``).
    use_cache : bool
        Take stages from the cache (results are stored in it either way).
    pnr_jobs : int
        nextpnr runs at once in an Fmax search whose ``batch`` is 0 (the free workers).
    netlist_verify : bool, optional
        Run the netlist stage (default: :func:`aesdse.engine.netlist_check.netlist_verify_default`).

    Raises
    ------
    ToolNotFound
        If Yosys or nextpnr is missing: no point can succeed, the sweep must stop.
    """
    start = time.perf_counter()
    key = key or point.key(versions)
    runs = Path(results_dir) / "runs"
    work = runs / tmp_name(key)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    run = PointRun(work, StageCache(cache_dir or Path(results_dir) / "cache"), use_cache,
                   on_stage or (lambda name: None),
                   netlist_verify=(netlist_verify_default() if netlist_verify is None
                                   else netlist_verify))
    try:
        status, reason, measured = "ok", None, _flow(point, run, pnr_jobs)
    except StageFailed as failed:
        (work / "error.txt").write_text(failed.reason + "\n")
        status, reason, measured = failed.status, failed.reason, failed.fields
    if run.cache.rejected:
        # Said by the sweep: a corrupted or edited cache entry was found, not used, replaced.
        (work / REJECTED_FILE).write_text("\n".join(run.cache.rejected) + "\n")
    final = runs / key
    publish(work, final)
    return build_row(point, key, experiment, status, measured, reason=reason,
                     artifacts=str(final), cache_hits=",".join(run.hits) or None,
                     wall_seconds=time.perf_counter() - start)


def build_row(point: DesignPoint, key: str, experiment: str, status: str, measured: dict, *,
              reason: str | None = None, artifacts: str | None = None,
              cache_hits: str | None = None, wall_seconds: float | None = None) -> Row:
    """The stored row of one point: the only place a :class:`~aesdse.store.database.Row` of a
    run is assembled.

    Parameters
    ----------
    point : DesignPoint
        What was run: its configuration and provenance columns come from it.
    key : str
        The point's key.
    experiment : str
        Experiment name recorded with the row.
    status : str
        One of :data:`aesdse.store.database.STATUSES`.
    measured : dict
        The columns the stages filled (numbers, digests, seconds, details); an Fmax search's
        ``freq_mhz`` and ``seed`` (its best run) replace the point's.
    reason : str, optional
        Why the point failed.
    artifacts, cache_hits, wall_seconds
        The published run directory, the stages taken from the cache, the point's wall time.
    """
    columns = dict(key=key, experiment=experiment, arch=point.arch, params=point.params_dict,
                   target=point.target.label, flow=point.flow.as_dict(), seed=point.flow.seed,
                   freq_mhz=point.flow.freq_mhz, tool_versions=tool_versions(),
                   host=socket.gethostname(), config_key=point.config_key(),
                   generator=generator_fingerprint(point.arch), verify=asdict(point.verify))
    columns.update(measured)
    return Row(**columns, status=status, reason=reason, artifacts=artifacts,
               cache_hits=cache_hits, wall_seconds=wall_seconds)


def _flow(point: DesignPoint, run: PointRun, pnr_jobs: int) -> dict:
    """The stages of a point, in order; returns the row's measured fields or raises
    :class:`StageFailed` with the fields known so far."""
    design, known = design_checked(point, run)

    # A family without place and route (the asic and Xilinx targets): an estimate.
    top = design["top"]
    if family_info(point.device_family).pnr_tool is None:
        return _area_estimate(point, run, design, known)

    synth, synth_entry = synthesis_checked(point, run, design, top, known)
    # Correct before measured, at the netlist level too: before place and route.
    verify_netlist(point, run, design, synth, synth_entry, known)

    # Place and route: one run, or an Fmax search of many (whose best run gives the row's
    # target frequency and seed).
    if point.flow.fmax_search is None:
        pnr = place_and_route_point(point, run, synth, synth_entry, known)
    else:
        pnr = search_point_fmax(point, run, synth, synth_entry, pnr_jobs, known)
        known.update(freq_mhz=pnr["freq_mhz"], seed=pnr["seed"])
    known["pnr_seconds"] = pnr["seconds"]
    return _metrics(point, run, design, synth, synth_entry, pnr, known)


def random_bits_details(point: DesignPoint, cycles_per_block: float | None) -> dict | None:
    """The fresh random bits a masked point takes: ``{"per_cycle", "per_block"}``, per block
    with the cycles per block measured in simulation (a masked core takes all of its random
    bits every cycle, :attr:`archs.Family.random_bits`); None for a family that takes none."""
    count = archs.family(point.arch).random_bits
    if count is None or cycles_per_block is None:
        return None
    per_cycle = count(**point.params_dict)
    return {"per_cycle": per_cycle, "per_block": per_cycle * cycles_per_block}


def design_checked(point: DesignPoint, run: PointRun) -> tuple[dict, dict]:
    """Generate and verify (correct before measured), then check the capacity before any tool
    runs: ``(design stage metadata, the row's fields known so far)``."""
    design, _, hit = run.stage("design", design_key(point),
                               ("design.il", "manifest.json", "verify.txt", "harness.il",
                                SCRIPT_FILE, CORE_FILE),
                               lambda: _generate_and_verify(point, run), label="generate")
    if hit:
        run.hits.append("design")
    verified = design["verification"]
    details = dict(verified["details"] or {})
    # A design stage cached before the record existed was simulated by amaranth.sim.
    details[VERIFICATION_KEY] = dict(verified.get("record") or {"verified_with": "amaranth.sim"})
    known = dict(rtlil_digest=design["digest"], manifest=design["manifest"],
                 sim_seconds=verified["sim_seconds"], details=details)
    if not verified["ok"]:
        raise StageFailed("failed-verification", verified["reason"], **known)
    randomness = random_bits_details(point, verified["cycles_per_block"])
    if randomness is not None:
        details["randomness"] = randomness

    too_big = capacity_before_synthesis(point.target.device, design["manifest"])
    if too_big:
        raise StageFailed("does-not-fit", too_big, **known)
    return design, known


def capacity_before_synthesis(device: str, manifest: dict) -> str | None:
    """Why a design cannot fit ``device``, known before any tool runs, or None.

    Only lower bounds refuse a design here: :data:`SBOX_LUT4_LOWER_BOUND` LUT4 per logic S-box
    of the manifest. The flip-flops of the RTLIL netlist (:func:`rtlil_flip_flops`) are not one
    (synthesis merges registers with the same input, whole key pipelines of lanes), so they are
    checked after synthesis, with the synthesized counts (:func:`synthesis_checked`).
    """
    min_luts = SBOX_LUT4_LOWER_BOUND * (manifest.get("logic_sboxes") or 0)
    too_big = fits(device, luts=min_luts)
    if too_big:
        return (f"{too_big} ({SBOX_LUT4_LOWER_BOUND} LUT4 per logic S-box, a lower bound, "
                f"before synthesis; no tool was run)")
    return None


def synthesis_checked(point: DesignPoint, run: PointRun, design: dict, top: str,
                       known: dict) -> tuple[dict, CacheEntry | None]:
    """Synthesize (adds ``synth_seconds`` to ``known``), then check the capacity again before
    place and route: ``(synthesis stage metadata, its cache entry)``."""
    synth, synth_entry, hit = run.stage(
        "synth", synth_key(point, design["digest"], top),
        ("netlist.json", "stat.json", "yosys.log", f"{top}.v"),
        lambda: _synthesize(point, run, top, known), label="synthesize",
        restore=("stat.json", "yosys.log", f"{top}.v"))
    if hit:
        run.hits.append("synth")
    known["synth_seconds"] = synth["seconds"]
    family = point.device_family
    # Capacity again after synthesis, before place and route: LUT4, FF and block RAM.
    synthesized = synthesized_resources(family, synth["cells"])
    if synthesized:
        too_big = fits(point.target.device, **synthesized)
        if too_big:
            raise StageFailed("does-not-fit", f"{too_big} (after synthesis; nextpnr was not "
                                              f"run)", **known)
    return synth, synth_entry


def _metrics(point: DesignPoint, run: PointRun, design: dict, synth: dict, synth_entry,
             pnr: dict, known: dict) -> dict:
    """The measurement harness alone (where the design sits in one), then the metrics, from
    nextpnr's report and the simulation's cycle counts only: the row's measured fields."""
    # The measurement harness alone, on the same device, to subtract (every family without an
    # out-of-context mode: iCE40, MachXO2/3, Nexus, Gowin, GateMate).
    family = point.device_family
    harness = None
    resources = {"family": family, "pnr": pnr["utilization"], "synth": synth["cells"]}
    if design.get("harness_digest"):
        harness = _measure_harness(point, run, design, known)
        resources["harness"] = harness

    run.on_stage("metrics")
    verified = design["verification"]
    fam = archs.family(point.arch)
    # Where the time goes: the worst path of each clock (issue 15), and between two clocks
    # (they limit the system clock too).
    paths, instances = _critical_paths(run, synth_entry)
    try:
        m = compute_metrics(pnr["utilization"], pnr["fmax"], verified["cycles_per_block"],
                            verified["latency_cycles"], block_bits=fam.block_bits,
                            limits=speed_limits(point.target.device, point.target.speed),
                            clock_multipliers=design["manifest"].get("clock_multipliers"),
                            family=family, synth_cells=synth["cells"],
                            harness=harness["common"] if harness else None,
                            critical_paths=paths)
    except ValueError as e:
        raise StageFailed("failed-flow", f"metrics: {e}", **known) from None
    # The family's own resource names (and the harness's share) are kept with the row.
    details = dict(known.get("details") or {})
    details["resources"] = resources
    details["critical_paths"] = [path.as_dict() for path in paths]
    if instances:
        details["instances"] = instances
    if synth.get("workarounds"):
        details["synth_workarounds"] = synth["workarounds"]
    fields = asdict(m)
    limit = fields.pop("fmax_limit")
    if limit is not None:
        details["fmax_limit"] = limit
    return {**known, **fields, "details": details}


def _critical_paths(run: PointRun, synth_entry) -> tuple[list[CriticalPath], dict]:
    """The summaries (:class:`~aesdse.flow.critical_path.CriticalPath`) of the worst
    paths in the point's ``report.json``, with cell types and fanouts from the synthesized
    netlist (read where the cache keeps it; unknown types if neither cache nor run has it);
    and the share in area and paths of each :data:`~aesdse.flow.critical_path
    .BREAKDOWN_INSTANCES` instance the netlist has (:func:`~aesdse.flow.critical_path
    .instance_breakdown`; instance name -> breakdown, empty for most designs)."""
    if synth_entry is not None and "netlist.json" in synth_entry:
        netlist_file = synth_entry.path / "netlist.json"
    else:
        netlist_file = run.work / "netlist.json"
    try:
        netlist = json.loads(netlist_file.read_text())
        cells = netlist_cells(netlist)
    except (OSError, ValueError):
        netlist, cells = None, NetlistCells()
    report = json.loads((run.work / "report.json").read_text())
    paths = critical_paths(report, cells)
    # Beside the full paths of report.json, in the artifacts too.
    (run.work / CRITICAL_PATHS_FILE).write_text(
        json.dumps([path.as_dict() for path in paths], indent=2) + "\n")
    instances = {}
    for name in BREAKDOWN_INSTANCES if netlist is not None else ():
        breakdown = instance_breakdown(netlist, report, name)
        if breakdown is not None:
            instances[name] = breakdown
    return paths, instances


def _area_estimate(point: DesignPoint, run: PointRun, design: dict, known: dict) -> dict:
    """A family without place and route (``asic``, the Xilinx area targets): its driver's
    :meth:`~aesdse.flow.families.base.FamilyDriver.estimate` as the synthesis stage, the row's
    columns and ``details[details_key]`` from its metadata; no Fmax and so no throughput (an
    estimate without place and route has no clock in MHz)."""
    verified = design["verification"]
    driver = family_info(point.device_family)

    def produce():
        try:
            return driver.estimate("design.il", design["top"], run.work, synth_options(point),
                                   point.flow.synth_timeout_s)
        except EstimateFailed as e:
            raise StageFailed("failed-flow", f"yosys ({driver.name}): {e.reason}",
                              synth_seconds=e.seconds, **known) from None

    kept = keeps_netlist(point.device_family)

    def produce_kept():
        meta = produce()
        if kept:
            meta["netlist"] = file_digest(run.work / "netlist.json")
        return meta

    # The netlist is kept in the cache entry, as a synthesis stage's, for the netlist stage;
    # an entry cached before the estimate kept it is made again.
    meta, entry, hit = run.stage("synth", synth_key(point, design["digest"], design["top"]),
                                 driver.estimate_files, produce_kept,
                                 label=f"synthesize ({driver.name})",
                                 restore=tuple(f for f in driver.estimate_files
                                               if f != "netlist.json"),
                                 required=("netlist.json",) if kept else ())
    if hit:
        run.hits.append("synth")
    known["synth_seconds"] = meta["seconds"]
    try:
        if kept:  # correct before measured: a mismatch is a row without numbers
            verify_netlist(point, run, design, meta, entry, known)
    finally:
        (run.work / "netlist.json").unlink(missing_ok=True)  # large; the cache keeps it
    columns, estimate_details = driver.estimate_columns(meta)
    details = dict(known.get("details") or {})
    if not kept:
        verdict = unchecked(estimate_unchecked_reason(point.device_family))
        details[VERIFICATION_KEY] = {**details.get(VERIFICATION_KEY, {}), "netlist": verdict,
                                     "netlist_verified": netlist_summary(verdict)}
    details[driver.details_key] = estimate_details
    return {**known, "synth_seconds": meta["seconds"], **columns,
            "cycles_per_block": verified["cycles_per_block"],
            "latency_cycles": verified["latency_cycles"], "details": details}


def _measure_harness(point: DesignPoint, run: PointRun, design: dict, known: dict) -> dict:
    """Synthesize, place and route the measurement harness alone (``harness.il``, written by
    the design stage) in ``harness/``, cached like any synthesis and place and route. Returns
    ``{"common": common columns, "pnr": utilization, "synth": cells, "fmax": ...,
    "definition": ...}``."""
    directory = run.work / "harness"
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(run.work / "harness.il", directory / "harness.il")

    def produce_synth():
        synth = synthesize("harness.il", "harness", directory, synth_options(point),
                           point.flow.synth_timeout_s, family=point.device_family)
        if not synth.ok:
            raise StageFailed("failed-flow", f"yosys (harness alone): {synth.reason}", **known)
        return synthesis_metadata(synth, directory)

    synth, synth_entry, _ = run.stage(
        "synth", synth_key(point, design["harness_digest"], "harness"),
        ("netlist.json", "stat.json", "yosys.log"), produce_synth,
        label="synthesize (harness alone)", directory=directory,
        restore=("stat.json", "yosys.log"))
    pnr = pnr_once(point, run, synth, synth_entry, point.flow.freq_mhz, point.flow.seed,
                   directory, "place-and-route (harness alone)", require_clock=False)
    (directory / "netlist.json").unlink(missing_ok=True)
    if not pnr["ok"]:
        raise StageFailed("failed-flow", f"harness alone: {pnr['reason']}", **known)
    family = point.device_family
    measured = {"common": common_resources(family, pnr["utilization"], synth["cells"]),
                "pnr": pnr["utilization"], "synth": synth["cells"], "fmax": pnr["fmax"],
                "definition": "core = whole design - harness alone (aesdse.flow.harness, same "
                              "device, flow options and seed); Fmax is the whole design's"}
    if synth.get("workarounds"):
        measured["synth_workarounds"] = synth["workarounds"]
    return measured


def _generate_and_verify(point: DesignPoint, run: PointRun) -> dict:
    """The design stage: elaborate to RTLIL, then simulate against the reference."""
    try:
        design = generate(point)
    except GenerateError as e:
        raise StageFailed("failed-generate", str(e)) from None
    (run.work / "design.il").write_text(design.rtlil)
    if design.harness_rtlil is not None:
        (run.work / "harness.il").write_text(design.harness_rtlil)
    (run.work / "manifest.json").write_text(json.dumps(design.manifest, indent=2) + "\n")
    run.on_stage("verify")
    fam = archs.family(point.arch)
    try:
        v = verify_component(lambda: build_component(point), fam.kind, point.verify,
                             key_sizes=fam.key_sizes, directions=fam.directions,
                             model_cache=model_cache_dir(run.cache),
                             design_identity=design_identity(point.arch, point.params_dict))
    except CompileError as e:  # no compiled model: this point fails, the sweep goes on
        reason = f"compiling the simulation model failed: {e}"
        (run.work / "verify.txt").write_text(reason + "\n")
        raise StageFailed("failed-verification", reason, rtlil_digest=design.digest,
                          manifest=design.manifest) from None
    except Exception as e:  # a simulator crash is this point's failure, not the sweep's
        reason = f"simulation crashed: {type(e).__name__}: {e}"
        (run.work / "verify.txt").write_text(reason + "\n" + traceback.format_exc())
        raise StageFailed("failed-verification", reason, rtlil_digest=design.digest,
                          manifest=design.manifest) from None
    if not v.ok and v.model_failed:
        # The compiler's failure (a time limit under load included), not the design's: the
        # point fails, but nothing is cached, so that a resume builds the model again.
        (run.work / "verify.txt").write_text(v.reason + "\n")
        raise StageFailed("failed-verification", v.reason, rtlil_digest=design.digest,
                          manifest=design.manifest)
    record = verification_record(v)
    (run.work / "verify.txt").write_text(
        f"ok={v.ok} vectors={v.vectors_checked} latency={v.latency_cycles} "
        f"cycles_per_block={v.cycles_per_block}\n{v.reason or ''}\n"
        + (json.dumps(v.details, indent=2) + "\n" if v.details else "")
        + json.dumps(record, indent=2) + "\n")
    return {"top": design.top, "digest": design.digest, "manifest": design.manifest,
            "flip_flops": rtlil_flip_flops(design.rtlil),
            "harness_digest": (hashlib.sha256(design.harness_rtlil.encode()).hexdigest()
                               if design.harness_rtlil is not None else None),
            "verification": {"ok": v.ok, "reason": v.reason, "latency_cycles": v.latency_cycles,
                             "cycles_per_block": v.cycles_per_block,
                             "sim_seconds": v.sim_seconds, "details": v.details or {},
                             "record": record},
            # Made with the design (so a cached design elaborates nothing), unless the netlist
            # stage is off: then only if the stage later needs it
            # (aesdse.engine.netlist_stage.netlist_verdict).
            "netlist_script": (netlist_script(point, run, design.harness_rtlil is not None)
                               if v.ok and run.netlist_verify else None)}


def _synthesize(point: DesignPoint, run: PointRun, top: str, known: dict) -> dict:
    synth = synthesize("design.il", top, run.work, synth_options(point),
                       point.flow.synth_timeout_s, verilog_file=f"{top}.v",
                       family=point.device_family)
    if not synth.ok:
        raise StageFailed("failed-flow", f"yosys: {synth.reason}", synth_seconds=synth.seconds,
                          **known)
    return synthesis_metadata(synth, run.work)





def run_point_packed(point: DesignPoint, experiment: str, versions: dict, key: str,
                     on_stage=None, *, use_cache: bool = True, pnr_jobs: int = 1,
                     netlist_verify: bool | None = None) -> tuple:
    """:func:`run_point` on a machine that does not share the client's file system.

    The point runs in a temporary directory, with the worker's own stage cache
    (:func:`default_worker_cache`); its artifacts come back as a gzipped tar archive.

    Returns
    -------
    (Row, bytes)
        The row (``artifacts`` names the worker's directory, now gone) and the archive of the
        point's artifact directory; :func:`unpack_artifacts` puts it in place on the client.
    """
    tmp = tempfile.mkdtemp(prefix="aesdse-point-")
    try:
        row = run_point(point, experiment, tmp, versions, key, on_stage,
                        cache_dir=default_worker_cache(), use_cache=use_cache, pnr_jobs=pnr_jobs,
                        netlist_verify=netlist_verify)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            tar.add(row.artifacts, arcname=".")
        return row, buf.getvalue()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
