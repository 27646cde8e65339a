"""The place-and-route stage of one point (:func:`aesdse.engine.point.run_point`): one nextpnr
run from the stage cache or run (:func:`pnr_once`), with the point's floorplan applied to its
netlist first; the point's own run at its target frequency and seed
(:func:`place_and_route_point`), or the Fmax search's batches of runs
(:func:`search_point_fmax`, :mod:`aesdse.engine.fmax_search`) and the runs a row keeps of it
(:data:`SEARCH_FILE`, :func:`search_runs`).
"""

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

from archs.floorplans import FLOORPLAN_CELLS

from ..experiment import DesignPoint
from ..flow.critical_path import NetlistCells, critical_paths
from ..flow.floorplan import FloorplanError, apply_floorplan
from ..flow.nextpnr import parse_report, place_and_route
from ..flow.tools import kill_tool_processes
from ..metrics import system_clock_mhz
from ..store.database import PnrRun, Row
from .fmax_search import Trial, search
from .keys import pnr_flow_args, pnr_key
from .runner import PointRun, StageFailed

__all__ = ["SEARCH_FILE", "FLOORPLAN_FILE", "pnr_once", "apply_point_floorplan",
           "place_and_route_point", "search_point_fmax", "search_runs"]

#: File, in a searching point's artifacts, that lists every run of its Fmax search.
SEARCH_FILE = "fmax_search.json"


def pnr_once(point: DesignPoint, run: PointRun, synth: dict, synth_entry, freq_mhz: float,
              seed: int, directory: Path, label: str, require_clock: bool = True) -> dict:
    """One nextpnr run in ``directory`` (from the cache or run): ``{"ok", "seconds",
    "utilization", "fmax", "reason", "cached"}``; a failed run is not cached. Without
    ``require_clock`` a report without Fmax passes (the harness alone: only its area counts)."""
    floorplan = point.flow.floorplan

    def produce():
        # Each run reads the netlist from its own directory (YoWASP sees only the cwd).
        run.fetch(synth_entry, "netlist.json", directory / "netlist.json")
        if floorplan != "none":
            apply_point_floorplan(point, directory)
        try:
            pnr = place_and_route("netlist.json", directory, point.target, freq_mhz, seed,
                                  point.flow.pnr_timeout_s, require_clock=require_clock,
                                  extra_args=tuple(pnr_flow_args(point)))
        finally:
            if directory != run.work:
                (directory / "netlist.json").unlink(missing_ok=True)
        if not pnr.ok:
            raise StageFailed("failed-flow", f"nextpnr: {pnr.reason}",
                              pnr_seconds=pnr.seconds)
        return {"seconds": pnr.seconds}

    directory.mkdir(parents=True, exist_ok=True)
    try:
        meta, _, hit = run.stage("pnr", pnr_key(point, synth["netlist"], freq_mhz, seed),
                                 ("report.json", "nextpnr.log")
                                 + ((FLOORPLAN_FILE,) if floorplan != "none" else ()),
                                 produce, label=label, directory=directory)
    except StageFailed as failed:
        return {"ok": False, "seconds": failed.fields.get("pnr_seconds"), "utilization": {},
                "fmax": {}, "reason": failed.reason, "cached": False}
    utilization, fmax = parse_report(json.loads((directory / "report.json").read_text()))
    return {"ok": True, "seconds": meta["seconds"], "utilization": utilization, "fmax": fmax,
            "reason": None, "cached": hit}


#: The sites a floorplan fixed, kept beside the point's nextpnr report: cell name -> site.
FLOORPLAN_FILE = "floorplan.json"


def apply_point_floorplan(point: DesignPoint, directory: Path) -> None:
    """Fix the block RAMs of ``directory/netlist.json`` to the sites of the point's floorplan
    (:mod:`aesdse.flow.floorplan`) and write them to :data:`FLOORPLAN_FILE`; a netlist the
    floorplan cannot place fails the point with the reason."""
    path = directory / "netlist.json"
    netlist = json.loads(path.read_text())
    try:
        sites = apply_floorplan(netlist, point.flow.floorplan, point.target.device,
                                FLOORPLAN_CELLS.get(point.arch))
    except FloorplanError as error:
        raise StageFailed("failed-flow", f"floorplan: {error}") from None
    path.write_text(json.dumps(netlist))
    (directory / FLOORPLAN_FILE).write_text(json.dumps(
        {"floorplan": point.flow.floorplan, "device": point.target.device, "sites": sites},
        indent=1))


def place_and_route_point(point: DesignPoint, run: PointRun, synth: dict, synth_entry,
                          known: dict) -> dict:
    """The point's own place and route, at its target frequency and seed."""
    result = pnr_once(point, run, synth, synth_entry, point.flow.freq_mhz, point.flow.seed,
                       run.work, "place-and-route")
    (run.work / "netlist.json").unlink(missing_ok=True)  # large; the cache keeps it
    if not result["ok"]:
        raise StageFailed("failed-flow", result["reason"], pnr_seconds=result["seconds"],
                          **known)
    if result["cached"]:
        run.hits.append("pnr")
    return result


def search_point_fmax(point: DesignPoint, run: PointRun, synth: dict, synth_entry,
                      pnr_jobs: int, known: dict) -> dict:
    """The Fmax search of a point (:mod:`aesdse.engine.fmax_search`): batches of nextpnr runs in a
    thread pool (each run is a subprocess), each in ``pnr/<MHz>MHz-seed<n>/`` and cached like a
    plain place and route at that frequency and seed. Writes :data:`SEARCH_FILE`; returns the
    best run, with its target and seed."""
    settings = point.flow.fmax_search
    width = settings.batch or max(1, pnr_jobs)
    multipliers = (known.get("manifest") or {}).get("clock_multipliers")
    results: dict = {}
    batches = [0]

    def one(trial: Trial):
        name = f"pnr/{trial.target_mhz:g}MHz-seed{trial.seed}"
        result = pnr_once(point, run, synth, synth_entry, trial.target_mhz, trial.seed,
                           run.work / name, f"place-and-route (Fmax search batch {batches[0]})")
        results[(trial.target_mhz, trial.seed)] = {**result, "dir": name}
        # Scored by the system clock the run allows (each clock over its multiple, and the
        # paths between clocks), as compute_metrics limits the row.
        report = run.work / name / "report.json"
        paths = critical_paths(json.loads(report.read_text()), NetlistCells()) \
            if result["ok"] and report.exists() else ()
        return system_clock_mhz(result["fmax"], multipliers, paths)

    def run_batch(trials):
        batches[0] += 1
        if len(trials) == 1 or width == 1:
            return [one(t) for t in trials]
        pool = ThreadPoolExecutor(max_workers=min(width, len(trials)))
        futures = [pool.submit(one, t) for t in trials]
        try:
            return [f.result() for f in futures]
        except BaseException:
            # Interrupted (SIGTERM of a worker, Ctrl-C) or a tool missing: the other runs'
            # tools must not outlive this point.
            pool.shutdown(wait=False, cancel_futures=True)
            kill_tool_processes()
            raise
        finally:
            pool.shutdown(wait=True)

    outcome = search(run_batch, settings, width,
                          key=lambda t: pnr_key(point, synth["netlist"], t.target_mhz, t.seed))
    (run.work / "netlist.json").unlink(missing_ok=True)
    seconds = sum(r["seconds"] or 0.0 for r in results.values())
    if results and all(r["cached"] for r in results.values()):
        run.hits.append("pnr")
    _write_search_file(run.work, settings, width, outcome, results)
    best = outcome.best
    if best is None:
        first = next((r["reason"] for r in results.values() if r["reason"]), "no run")
        raise StageFailed("failed-flow", f"nextpnr: no run of the Fmax search routed: {first}",
                          pnr_seconds=seconds, **known)
    chosen = results[(best.target_mhz, best.seed)]
    for name in ("report.json", "nextpnr.log"):  # the best run is the point's own report
        shutil.copyfile(run.work / chosen["dir"] / name, run.work / name)
    return {**chosen, "seconds": seconds, "freq_mhz": best.target_mhz, "seed": best.seed}


def _write_search_file(work: Path, settings, width, outcome, results) -> None:
    runs = []
    for r in outcome.runs:
        info = results[(r.target_mhz, r.seed)]
        runs.append({"batch": r.batch, "target_mhz": r.target_mhz, "seed": r.seed,
                     "achieved_mhz": r.achieved_mhz, "ok": r.ok, "seconds": info["seconds"],
                     "report": f"{info['dir']}/report.json" if r.ok else None,
                     "cached": info["cached"],
                     "reason": info["reason"].splitlines()[0] if info["reason"] else None})
    (work / SEARCH_FILE).write_text(json.dumps({
        "settings": asdict(settings), "width": width, "stop": outcome.stop,
        "bracket": list(outcome.bracket), "fmax_mhz": outcome.fmax_mhz,
        "definition": "highest achieved Fmax among the runs that routed",
        "runs": runs}, indent=2) + "\n")


def search_runs(row: Row) -> list | None:
    """The Fmax-search runs of a row (from its artifacts' :data:`SEARCH_FILE`) as
    :class:`~aesdse.store.database.PnrRun`, or None for a point without a search."""
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
