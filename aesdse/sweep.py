"""Sweep: run every stage for the pending design points of an experiment and store the results.

:func:`run_point` is the whole per-point pipeline (generate -> verify -> synthesize -> place and
route -> metrics) as one plain function of picklable inputs returning a :class:`~aesdse.store.Row`,
so it runs the same in this process, in a worker process or on a remote Dask worker
(:mod:`aesdse.executors`). Only the process that called :func:`sweep` writes the database.

Staged caching (:mod:`aesdse.cache`): the design (RTLIL and verification), the synthesis and the
place and route of a point are each looked up by the content of their inputs before they run, so
a new seed or target frequency runs only nextpnr and a flow option never re-simulates.

Failure isolation: a point whose generation, verification or tool run fails (including a tool
timeout, which kills the tool's process tree) becomes a failed row with its reason and the log
tail; the sweep goes on. Artifacts are written to a temporary directory (``runs/.tmp-...``) and
renamed into place when the point is finished, and the row is committed after that, so a killed
sweep leaves nothing that looks finished but is not; re-running it skips finished keys only and
removes the temporary directories of dead processes.
"""

import io
import json
import os
import shutil
import socket
import tarfile
import tempfile
import time
import traceback
import uuid
from collections import deque
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import archs

from .cache import StageCache, code_fingerprint, file_digest, owner_tag, stage_key
from .experiment import DesignPoint, Experiment
from .fmax_search import Trial, search as search_fmax
from .flow.nextpnr import parse_report, place_and_route
from .flow.tools import ToolNotFound, find_tool, tool_versions
from .flow.yosys import SynthOptions, synthesize
from .generate import GenerateError, build_component, generate
from .metrics import compute_metrics
from .progress import Progress
from .store import PnrRun, Row, Store
from .verify import verify_component

__all__ = ["run_point", "run_point_packed", "sweep", "SweepSummary", "Progress",
           "default_worker_cache"]


def _base_row(point: DesignPoint, experiment: str, key: str, versions: dict) -> dict:
    return dict(key=key, experiment=experiment, arch=point.arch, params=point.params_dict,
                target=point.target.label, flow=point.flow.as_dict(), seed=point.flow.seed,
                freq_mhz=point.flow.freq_mhz, tool_versions=versions,
                host=socket.gethostname())


def _tmp_name(key: str) -> str:
    # The owner's pid and host are in the name, so a later sweep can tell a dead sweep's
    # leftovers (removed by clean_stale) from a running sweep's work in progress (left alone).
    return f".tmp-{key}-{owner_tag()}"


def _publish(work: Path, final: Path) -> None:
    """Rename the finished ``work`` directory to ``final``, replacing an older result."""
    for _ in range(10):
        try:
            work.rename(final)
            return
        except OSError:
            if not final.exists():
                raise
        # rename() does not replace a non-empty directory: move the old one aside first.
        # Another process may do the same at the same time; whoever renames last wins.
        trash = final.with_name(f".old-{final.name}-{uuid.uuid4().hex[:8]}-{owner_tag()}")
        try:
            final.rename(trash)
        except OSError:
            continue
        shutil.rmtree(trash, ignore_errors=True)
    work.rename(final)


@dataclass
class _Verified:
    """What the verify stage leaves for the later stages (and the design cache keeps)."""
    ok: bool
    reason: str | None
    latency_cycles: int | None
    cycles_per_block: float | None
    sim_seconds: float | None


def run_point(point: DesignPoint, experiment: str, results_dir: str, versions: dict,
              key: str | None = None, on_stage=None, *, cache_dir: str | None = None,
              use_cache: bool = True, pnr_jobs: int = 1) -> Row:
    """Run all stages for one design point; never raises for a bad design or a tool failure.

    Parameters
    ----------
    point : DesignPoint
    experiment : str
        Experiment name recorded with the row.
    results_dir : str
        Root of the artifacts; this point's go to ``results_dir/runs/<key>/``.
    versions : dict
        Tool versions of the sweep's client (part of the key). The row records the versions
        of the tools that actually ran, found on this machine.
    key : str, optional
        The point's key (default: computed from ``versions``).
    on_stage : callable, optional
        Called with the stage name as each stage starts (progress display).
    cache_dir : str, optional
        Staged cache root (default ``results_dir/cache``).
    use_cache : bool
        Look stages up in the cache (results are stored in it either way).
    pnr_jobs : int
        nextpnr runs at once in an Fmax search whose ``batch`` is 0 (the free workers).

    Raises
    ------
    ToolNotFound
        If Yosys or nextpnr is missing: no point can succeed, the sweep must stop.
    """
    start = time.perf_counter()
    key = key or point.key(versions)
    stage = on_stage or (lambda name: None)
    base = _base_row(point, experiment, key, tool_versions())
    cache = StageCache(cache_dir or Path(results_dir) / "cache")
    hits = []
    runs = Path(results_dir) / "runs"
    final = runs / key
    work = runs / _tmp_name(key)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    def lookup(stage_name, stage_id):
        return cache.get(stage_name, stage_id) if use_cache else None

    def finish(**fields) -> Row:
        _publish(work, final)
        return Row(**base, artifacts=str(final), cache_hits=",".join(hits) or None,
                   wall_seconds=time.perf_counter() - start, **fields)

    # --- design: generate + verify, cached by the point's design identity ---------------------
    stage("generate")
    design_id = stage_key("design", {
        "arch": point.arch, "params": point.params_dict, "family": point.target.family,
        "verify": asdict(point.verify), "code": code_fingerprint()})
    entry = lookup("design", design_id)
    if entry is not None:
        meta = cache.meta(entry)
        for name in ("design.il", "manifest.json", "verify.txt"):
            cache.copy_out(entry, name, work / name)
        top, digest, manifest = meta["top"], meta["digest"], meta["manifest"]
        verified = _Verified(**meta["verification"])
        hits.append("design")
    else:
        try:
            design = generate(point)
        except GenerateError as e:
            (work / "error.txt").write_text(str(e) + "\n")
            return finish(status="failed-generate", reason=str(e))
        top, digest, manifest = design.top, design.digest, design.manifest
        (work / "design.il").write_text(design.rtlil)
        (work / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        stage("verify")
        fam = archs.family(point.arch)
        try:
            v = verify_component(lambda: build_component(point), fam.kind, point.verify,
                                 key_sizes=fam.key_sizes, directions=fam.directions)
        except Exception as e:  # a simulator crash is this point's failure, not the sweep's
            reason = f"simulation crashed: {type(e).__name__}: {e}"
            (work / "verify.txt").write_text(reason + "\n" + traceback.format_exc())
            verified = _Verified(False, reason, None, None, None)
        else:
            verified = _Verified(v.ok, v.reason, v.latency_cycles, v.cycles_per_block,
                                 v.sim_seconds)
            (work / "verify.txt").write_text(
                f"ok={v.ok} vectors={v.vectors_checked} latency={v.latency_cycles} "
                f"cycles_per_block={v.cycles_per_block}\n{v.reason or ''}\n")
            # A crash is not cached (it may be the machine's); a verdict is.
            cache.put("design", design_id,
                      {n: work / n for n in ("design.il", "manifest.json", "verify.txt")},
                      {"top": top, "digest": digest, "manifest": manifest,
                       "verification": asdict(verified)})
    if not verified.ok:
        return finish(status="failed-verification", reason=verified.reason, rtlil_digest=digest,
                      manifest=manifest, sim_seconds=verified.sim_seconds)
    common = dict(rtlil_digest=digest, manifest=manifest, sim_seconds=verified.sim_seconds)

    # --- synthesis, cached by (RTLIL, top, family, options, Yosys version) --------------------
    options = SynthOptions(point.flow.nowidelut, point.flow.abc9, point.flow.dff)
    verilog = f"{top}.v"
    options_id = asdict(options)
    if not options.dff:  # added later: keep the cache keys of earlier syntheses
        del options_id["dff"]
    synth_id = stage_key("synth", {
        "rtlil": digest, "top": top, "family": point.target.family, "options": options_id,
        "yosys": find_tool("yosys").version})
    synth_entry = lookup("synth", synth_id)
    if synth_entry is not None:
        meta = cache.meta(synth_entry)
        for name in ("yosys.log", "stat.json", verilog):
            if (synth_entry / name).exists():
                cache.copy_out(synth_entry, name, work / name)
        synth_seconds, cells, netlist_digest = meta["seconds"], meta["cells"], meta["netlist"]
        hits.append("synth")
    else:
        stage("synthesize")
        synth = synthesize("design.il", top, work, options, point.flow.synth_timeout_s,
                           verilog_file=verilog)
        if not synth.ok:
            return finish(status="failed-flow", reason=f"yosys: {synth.reason}",
                          synth_seconds=synth.seconds, **common)
        synth_seconds, cells = synth.seconds, synth.cells
        netlist_digest = file_digest(work / synth.netlist)
        synth_entry = cache.put(
            "synth", synth_id,
            {n: work / n for n in ("netlist.json", "stat.json", "yosys.log", verilog)
             if (work / n).exists()},
            {"seconds": synth_seconds, "cells": cells, "netlist": netlist_digest})

    if point.flow.fmax_search is not None:
        # --- Fmax search: batches of place-and-route runs, each cached as a plain one --------
        result, infos = _search_pnr(point, work, cache, use_cache, synth_entry, netlist_digest,
                                    pnr_jobs, stage)
        pnr_seconds = sum(i["seconds"] or 0.0 for i in infos.values())
        if infos and all(i["cached"] for i in infos.values()):
            hits.append("pnr")
        best = result.best
        (work / "netlist.json").unlink(missing_ok=True)
        if best is None:
            first = next((i["reason"] for i in infos.values() if i["reason"]), "no run")
            return finish(status="failed-flow",
                          reason=f"nextpnr: no run of the Fmax search routed: {first}",
                          synth_seconds=synth_seconds, pnr_seconds=pnr_seconds, **common)
        chosen = infos[(best.target_mhz, best.seed)]
        for name in ("report.json", "nextpnr.log"):  # the best run is the point's own report
            shutil.copyfile(work / chosen["dir"] / name, work / name)
        utilization, fmax = chosen["utilization"], chosen["fmax"]
        base.update(freq_mhz=best.target_mhz, seed=best.seed)
    else:
        utilization, fmax, pnr_seconds, reason = _single_pnr(
            point, work, cache, lookup, synth_entry, netlist_digest, stage, hits)
        if reason is not None:
            return finish(status="failed-flow", reason=f"nextpnr: {reason}",
                          synth_seconds=synth_seconds, pnr_seconds=pnr_seconds, **common)
    # The synthesized netlist is large and kept in the cache (or re-creatable from design.il).
    (work / "netlist.json").unlink(missing_ok=True)

    stage("metrics")
    try:
        m = compute_metrics(utilization, fmax, verified.cycles_per_block,
                            verified.latency_cycles, carries=cells.get("CCU2C", 0),
                            block_bits=archs.family(point.arch).block_bits)
    except ValueError as e:
        return finish(status="failed-flow", reason=f"metrics: {e}", synth_seconds=synth_seconds,
                      pnr_seconds=pnr_seconds, **common)
    return finish(status="ok", synth_seconds=synth_seconds, pnr_seconds=pnr_seconds,
                  **asdict(m), **common)


def _single_pnr(point, work, cache, lookup, synth_entry, netlist_digest, stage, hits):
    """Place and route of a point at its own frequency and seed: ``(utilization, fmax, seconds,
    reason)``, ``reason`` being None unless nextpnr failed."""
    # --- place and route, cached by (netlist, device, package, speed, MHz, seed, version) -----
    target = point.target
    pnr_id = stage_key("pnr", {
        "netlist": netlist_digest, "device": target.device, "package": target.package,
        "speed": target.speed, "freq_mhz": point.flow.freq_mhz, "seed": point.flow.seed,
        "nextpnr": find_tool("nextpnr-ecp5").version})
    pnr_entry = lookup("pnr", pnr_id)
    if pnr_entry is not None:
        for name in ("report.json", "nextpnr.log"):
            cache.copy_out(pnr_entry, name, work / name)
        utilization, fmax = parse_report(json.loads((work / "report.json").read_text()))
        pnr_seconds = cache.meta(pnr_entry)["seconds"]
        hits.append("pnr")
    else:
        if not (work / "netlist.json").exists():
            cache.copy_out(synth_entry, "netlist.json", work / "netlist.json")
        stage("place-and-route")
        pnr = place_and_route("netlist.json", work, target, point.flow.freq_mhz,
                              point.flow.seed, point.flow.pnr_timeout_s)
        if not pnr.ok:
            return None, None, pnr.seconds, pnr.reason
        utilization, fmax, pnr_seconds = pnr.utilization, pnr.fmax_mhz, pnr.seconds
        cache.put("pnr", pnr_id, {n: work / n for n in ("report.json", "nextpnr.log")},
                  {"seconds": pnr_seconds})
    return utilization, fmax, pnr_seconds, None


#: File, in a searching point's artifacts, that lists every run of its Fmax search.
SEARCH_FILE = "fmax_search.json"


def _search_pnr(point, work: Path, cache: StageCache, use_cache: bool, synth_entry,
                netlist_digest: str, pnr_jobs: int, stage):
    """The Fmax search of a point (:mod:`aesdse.fmax_search`): batches of nextpnr runs in a
    thread pool (each run is a subprocess), each run in ``work/pnr/<MHz>MHz-seed<n>/`` and cached
    under the same key as a plain place and route at that frequency and seed, which is also the
    search's duplicate key. Writes :data:`SEARCH_FILE`; returns ``(SearchResult, infos)`` with
    ``infos[(target, seed)]`` = the run's details."""
    from concurrent.futures import ThreadPoolExecutor
    settings = point.flow.fmax_search
    width = settings.batch or max(1, pnr_jobs)
    target = point.target
    nextpnr_version = find_tool("nextpnr-ecp5").version
    infos: dict = {}
    batches = [0]

    def pnr_id(trial: Trial) -> str:
        return stage_key("pnr", {
            "netlist": netlist_digest, "device": target.device, "package": target.package,
            "speed": target.speed, "freq_mhz": trial.target_mhz, "seed": trial.seed,
            "nextpnr": nextpnr_version})

    def one(trial: Trial):
        name = f"pnr/{trial.target_mhz:g}MHz-seed{trial.seed}"
        run_dir = work / name
        run_dir.mkdir(parents=True, exist_ok=True)
        info = {"dir": name, "cached": False, "reason": None, "seconds": None,
                "utilization": {}, "fmax": {}}
        infos[(trial.target_mhz, trial.seed)] = info
        entry = cache.get("pnr", pnr_id(trial)) if use_cache else None
        if entry is not None:
            for n in ("report.json", "nextpnr.log"):
                cache.copy_out(entry, n, run_dir / n)
            info["utilization"], info["fmax"] = parse_report(
                json.loads((run_dir / "report.json").read_text()))
            info.update(cached=True, seconds=cache.meta(entry)["seconds"])
        else:
            # Each run reads the netlist from its own directory (YoWASP sees only the cwd).
            if synth_entry is not None:
                cache.copy_out(synth_entry, "netlist.json", run_dir / "netlist.json")
            else:  # the cache refused the netlist: synthesis left it in the work directory
                shutil.copyfile(work / "netlist.json", run_dir / "netlist.json")
            pnr = place_and_route("netlist.json", run_dir, target, trial.target_mhz, trial.seed,
                                  point.flow.pnr_timeout_s)
            (run_dir / "netlist.json").unlink(missing_ok=True)
            info["seconds"] = pnr.seconds
            if not pnr.ok:
                info["reason"] = pnr.reason
                return None
            info["utilization"], info["fmax"] = pnr.utilization, pnr.fmax_mhz
            cache.put("pnr", pnr_id(trial),
                      {n: run_dir / n for n in ("report.json", "nextpnr.log")},
                      {"seconds": pnr.seconds})
        # The slowest clock limits the core, as in compute_metrics.
        return min(info["fmax"].values()) if info["fmax"] else None

    def run_batch(trials):
        batches[0] += 1
        stage(f"place-and-route (Fmax search batch {batches[0]}, {len(trials)} runs)")
        if len(trials) == 1 or width == 1:
            return [one(t) for t in trials]
        pool = ThreadPoolExecutor(max_workers=min(width, len(trials)))
        futures = [pool.submit(one, t) for t in trials]
        try:
            return [f.result() for f in futures]
        except BaseException:
            # Interrupted (SIGTERM of a worker, Ctrl-C) or a tool missing: the other runs'
            # tools must not outlive this point.
            from .executors import _kill_tool_children
            pool.shutdown(wait=False, cancel_futures=True)
            _kill_tool_children()
            raise
        finally:
            pool.shutdown(wait=True)

    result = search_fmax(run_batch, settings, width, key=pnr_id)
    runs = []
    for r in result.runs:
        info = infos[(r.target_mhz, r.seed)]
        runs.append({"batch": r.batch, "target_mhz": r.target_mhz, "seed": r.seed,
                     "achieved_mhz": r.achieved_mhz, "ok": r.ok, "seconds": info["seconds"],
                     "report": f"{info['dir']}/report.json" if r.ok else None,
                     "cached": info["cached"],
                     "reason": info["reason"].splitlines()[0] if info["reason"] else None})
    (work / SEARCH_FILE).write_text(json.dumps({
        "settings": asdict(settings), "width": width, "stop": result.stop,
        "bracket": list(result.bracket), "fmax_mhz": result.fmax_mhz,
        "definition": "highest achieved Fmax among the runs that routed",
        "runs": runs}, indent=2) + "\n")
    return result, infos


def search_runs(row: Row) -> list | None:
    """The Fmax-search runs of a row (from its artifacts' :data:`SEARCH_FILE`) as
    :class:`~aesdse.store.PnrRun`, or None for a point without a search."""
    if not (row.flow or {}).get("fmax_search") or not row.artifacts:
        return None
    try:
        doc = json.loads((Path(row.artifacts) / SEARCH_FILE).read_text())
    except (OSError, ValueError):
        return None
    return [PnrRun(point_key=row.key, batch=r["batch"], target_mhz=r["target_mhz"],
                   seed=r["seed"], achieved_mhz=r["achieved_mhz"], ok=r["ok"],
                   seconds=r["seconds"],
                   report_path=str(Path(row.artifacts) / r["report"]) if r["report"] else None,
                   reason=r["reason"]) for r in doc["runs"]]


def default_worker_cache() -> str:
    """Staged cache of a remote worker: ``$AESDSE_CACHE_DIR``, else ``~/.cache/aesdse``."""
    return os.environ.get("AESDSE_CACHE_DIR") or str(Path.home() / ".cache" / "aesdse")


def run_point_packed(point: DesignPoint, experiment: str, versions: dict, key: str,
                     on_stage=None, *, use_cache: bool = True, pnr_jobs: int = 1) -> tuple:
    """:func:`run_point` on a machine that does not share the client's file system.

    The point runs in a temporary directory, with the worker's own staged cache
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
                        cache_dir=default_worker_cache(), use_cache=use_cache, pnr_jobs=pnr_jobs)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            tar.add(row.artifacts, arcname=".")
        return row, buf.getvalue()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def unpack_artifacts(row: Row, blob: bytes, results_dir) -> Row:
    """Write a remote point's artifact archive to ``results_dir/runs/<key>/`` (atomically)."""
    runs = Path(results_dir) / "runs"
    final, work = runs / row.key, runs / _tmp_name(row.key)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        tar.extractall(work, filter="data")  # "data": no absolute paths, links or devices
    _publish(work, final)
    return replace(row, artifacts=str(final))


def clean_stale(results_dir) -> int:
    """Remove the temporary directories that dead sweeps on this host left under
    ``results_dir/runs`` and ``results_dir/cache/*``; returns how many."""
    host = socket.gethostname()
    removed = 0
    for root in [Path(results_dir) / "runs", *Path(results_dir, "cache").glob("*")]:
        if not root.is_dir():
            continue
        for path in [*root.glob(".tmp-*"), *root.glob(".old-*")]:
            # Names end in -<pid>@<host> (owner_tag); the key and host contain no "@".
            before, _, owner_host = path.name.partition("@")
            pid = before.rsplit("-", 1)[-1]
            if owner_host != host or not pid.isdigit() or _alive(int(pid)):
                continue
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class SweepSummary:
    """What a sweep did.

    Attributes
    ----------
    total : int
        Design points in the experiment.
    cached : int
        Points already in the database (not run).
    done : int
        Points run (each stored).
    failed : list of Row
        Failed points, run now or stored before.
    seconds : float
    keys : list of str
        Keys of every point, in experiment order.
    stage_hits : dict
        Stage -> points that took that stage from the staged cache.
    warnings : list of str
    errors : list of str
        Points that could not run at all (an internal error, not stored: retried next time).
    """
    total: int = 0
    cached: int = 0
    done: int = 0
    failed: list = field(default_factory=list)
    seconds: float = 0.0
    keys: list = field(default_factory=list)
    stage_hits: dict = field(default_factory=lambda: {"design": 0, "synth": 0, "pnr": 0})
    warnings: list = field(default_factory=list)
    errors: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.errors


def _timed_out_shorter(row: Row, point: DesignPoint) -> bool:
    """A stored timeout that the current (longer) time limit may get past."""
    if row.status != "failed-flow" or not row.reason:
        return False
    for prefix, name in (("yosys: timeout", "synth_timeout_s"),
                         ("nextpnr: timeout", "pnr_timeout_s")):
        if row.reason.startswith(prefix):
            return getattr(point.flow, name) > float(row.flow.get(name, 0))
    return False


def _synth_group(point: DesignPoint) -> tuple:
    """Points with equal groups share their design and netlist (differ in place and route)."""
    return (point.arch, point.params, point.target.family, point.verify, point.flow.nowidelut,
            point.flow.abc9, point.flow.dff)


def _stored_rows(store: Store, keys) -> dict:
    keys = list(keys)
    out = {}
    for i in range(0, len(keys), 500):  # SQLite limits the variables of one statement
        out.update((r.key, r) for r in store.rows(keys[i:i + 500]))
    return out


def sweep(experiment: Experiment, store: Store, results_dir, *, force: bool = False,
          jobs: int = 1, echo=print, executor: str = "local", scheduler: str | None = None,
          synth_timeout_s: float | None = None, pnr_timeout_s: float | None = None,
          use_cache: bool = True, live: bool | None = None) -> SweepSummary:
    """Run the pending points of ``experiment`` and store a row for each.

    Points whose key is already stored are skipped unless ``force`` (a stored tool timeout is
    retried when the time limit is now longer). Only this process writes the database.

    Parameters
    ----------
    jobs : int
        Points run at once: in-process when 1, else in that many worker processes
        (``executor="local"``) or Dask workers (``"dask-local"``). A point with an Fmax search
        runs alone, its nextpnr batches using every slot (``fmax_search: batch: 0``).
    echo : callable or None
        Line printer for progress; None: silent.
    executor : str
        ``"local"``, ``"dask-local"`` (a Dask LocalCluster of ``jobs`` worker processes) or
        ``"dask"`` (the cluster at ``scheduler``, e.g. ``tcp://host:8786``).
    synth_timeout_s, pnr_timeout_s : float, optional
        Override the experiment's tool time limits (not part of the key).
    use_cache : bool
        Use the staged cache under ``results_dir/cache``.
    live : bool, optional
        Redraw a status line in place (default: when stdout is a terminal).
    """
    from .executors import make_executor
    start = time.perf_counter()
    results_dir = str(results_dir)
    versions = tool_versions()
    keyed = [(point, point.key(versions)) for point in experiment.points]
    summary = SweepSummary(total=len(keyed), keys=[k for _, k in keyed])

    def effective(point: DesignPoint) -> DesignPoint:
        changes = {}
        if synth_timeout_s is not None:
            changes["synth_timeout_s"] = float(synth_timeout_s)
        if pnr_timeout_s is not None:
            changes["pnr_timeout_s"] = float(pnr_timeout_s)
        return replace(point, flow=replace(point.flow, **changes)) if changes else point

    stored = _stored_rows(store, {k for _, k in keyed}) if not force else {}
    cached_rows, pending = [], []
    for point, key in keyed:
        point = effective(point)
        row = stored.get(key)
        if row is not None and not _timed_out_shorter(row, point):
            cached_rows.append(row)
        else:
            pending.append((point, key))
    summary.cached = len(cached_rows)
    summary.failed += [r for r in cached_rows if r.status != "ok"]
    if not pending:
        # Nothing to run: no executor, no worker, no elaboration.
        if echo is not None and cached_rows:
            echo(f"all {len(cached_rows)} points already in the database")
        summary.seconds = time.perf_counter() - start
        return summary

    clean_stale(results_dir)
    redo = {key for _, key in pending if key in stored or force}
    labels = {key: f"{p.label} fmax_search" if p.flow.fmax_search else
              f"{p.label} @{p.flow.freq_mhz:g}MHz seed={p.flow.seed}" for p, key in pending}
    local_jobs = jobs  # an Fmax search runs this many nextpnr at once, even as the only point
    seen_versions = {json.dumps(versions, sort_keys=True)}
    if executor == "local" and len(pending) == 1:
        jobs = 1  # one point: no worker process to start
    ex = make_executor(executor, jobs=jobs, scheduler=scheduler, use_cache=use_cache,
                       results_dir=results_dir)
    progress = Progress(len(keyed), echo, live=live, slots=ex.slots)

    def warn(text):
        summary.warnings.append(text)
        progress.warn(text)

    def record(key, result):
        if isinstance(result, ToolNotFound):
            raise result
        if isinstance(result, BaseException):
            text = "".join(traceback.format_exception_only(type(result), result)).strip()
            summary.errors.append(f"{labels[key]}: {text}")
            progress.running.pop(key, None)
            warn(f"{labels[key]} could not run (not stored, retried next time): {text}")
            return
        if isinstance(result, tuple):
            result = unpack_artifacts(*result, results_dir)
        row = replace(result, experiment=experiment.name)
        tag = json.dumps(row.tool_versions, sort_keys=True)
        if tag not in seen_versions:
            seen_versions.add(tag)
            warn(f"{row.host} ran other tool versions than this client "
                 f"({row.tool_versions} vs {versions}): their numbers are not comparable")
        store.put(row, search_runs(row))
        summary.done += 1
        for name in (row.cache_hits or "").split(","):
            if name:
                summary.stage_hits[name] = summary.stage_hits.get(name, 0) + 1
        if row.status != "ok":
            summary.failed.append(row)
        progress.point_done(row, row.wall_seconds)

    with ex, progress:
        for host, worker_versions in ex.worker_versions().items():
            tag = json.dumps(worker_versions, sort_keys=True)
            if tag not in seen_versions:
                seen_versions.add(tag)
                warn(f"worker {host} has other tool versions than this client "
                     f"({worker_versions} vs {versions}): their numbers are not comparable")
        ex.on_stage = lambda key, stage: progress.stage(key, labels.get(key, key), stage)
        progress.cached_points(cached_rows)
        queue = deque(pending)
        leaders = {}  # synthesis group -> key of the point now producing its netlist
        settled = set()  # groups whose first point has finished
        # An Fmax search fills every slot with its own nextpnr runs (a thread pool in the
        # worker running it): it starts when nothing else runs, and nothing starts beside it.
        search_width = local_jobs if executor == "local" else ex.search_width
        exclusive = None  # key of the Fmax search now running
        while queue or ex.in_flight:
            # Submit lazily, a little ahead of the free slots, and look at the database first:
            # another sweep on the same database may have finished the point meanwhile. Points
            # that share a netlist (other seeds or frequencies) wait for the first of them, so
            # the design is elaborated, simulated and synthesized once, then taken from the
            # cache; other designs fill the free slots meanwhile.
            while (queue and exclusive is None
                   and ex.in_flight < ex.slots + (1 if ex.slots > 1 else 0)):
                chosen = next((item for item in queue if _synth_group(item[0]) not in leaders),
                              None)
                if chosen is None:
                    break
                searching = chosen[0].flow.fmax_search is not None
                if searching and ex.in_flight:
                    break  # wait for the running points to finish
                queue.remove(chosen)
                point, key = chosen
                if key not in redo:
                    row = store.get(key)
                    if row is not None:
                        summary.cached += 1
                        if row.status != "ok":
                            summary.failed.append(row)
                        progress.stored_meanwhile(row)
                        continue
                if use_cache and _synth_group(point) not in settled:
                    leaders[_synth_group(point)] = key
                if searching:
                    exclusive = key
                    ex.submit(key, point, experiment.name, versions, pnr_jobs=search_width)
                else:
                    ex.submit(key, point, experiment.name, versions)
            for key, result in ex.poll(0.25):
                if key == exclusive:
                    exclusive = None
                for group, leader in list(leaders.items()):
                    if leader == key:
                        del leaders[group]
                        settled.add(group)
                record(key, result)
    summary.seconds = time.perf_counter() - start
    return summary
