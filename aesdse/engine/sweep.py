"""Sweep: run the pending design points of an experiment and store a row for each.

This module is the scheduler only. The flow of one point is :func:`aesdse.engine.point.run_point`
(generate -> verify -> synthesize -> place and route -> metrics, with the stage cache); where
points run is :mod:`aesdse.engine.executors` (this process, worker processes, Dask). Only the process
that called :func:`sweep` writes the database.

Scheduling
----------
* Points whose key is stored are skipped (resume after Ctrl-C or ``kill -9``: run the same
  command again); ``force`` redoes them. A point whose code or tools changed has a new key and
  runs again; its old row stays (reports mark it stale, ``aesdse db`` lists and prunes).
* Points that share a netlist (other seeds or frequencies of one design) wait for the first of
  them, so the design is elaborated, simulated and synthesized once, then taken from the cache.
* An Fmax search fills every slot with its own nextpnr runs: it runs alone.
* Before running a point the sweep claims it in the database (:meth:`aesdse.store.database.Store.claim`):
  a point claimed by another live sweep on the same database is not run twice; its row is taken
  when that sweep stores it.
"""

import json
import os
import shutil
import socket
import time
import traceback
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path

from .cache import owner_tag
from ..experiment import DesignPoint, Experiment
from ..flow.tools import ToolNotFound, tool_versions
from .point import REJECTED_FILE, search_runs, unpack_artifacts
from .progress import Progress
from ..store.database import Row, Store

__all__ = ["sweep", "SweepSummary", "clean_stale"]

#: Seconds between renewals of this sweep's claims (other hosts see a claim older than
#: :data:`aesdse.store.database.CLAIM_STALE_S` as abandoned).
CLAIM_RENEW_S = 60.0


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
    return (point.arch, point.params, point.device_family, point.verify, point.flow.nowidelut,
            point.flow.abc9, point.flow.dff, point.flow.abc_area)


def _stored_rows(store: Store, keys) -> dict:
    return {r.key: r for r in store.rows(keys)}


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
        Take stages from the stage cache under ``results_dir/cache``.
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
    owner = owner_tag()
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
            store.release(owner, [key])
            warn(f"{labels[key]} could not run (not stored, retried next time): {text}")
            return
        if isinstance(result, tuple):
            result = unpack_artifacts(*result, results_dir)
        row = result
        tag = json.dumps(row.tool_versions, sort_keys=True)
        if tag not in seen_versions:
            seen_versions.add(tag)
            warn(f"{row.host} ran other tool versions than this client "
                 f"({row.tool_versions} vs {versions}): their numbers are not comparable")
        store.put(row, search_runs(row), owner=owner)
        rejected = Path(row.artifacts or ".") / REJECTED_FILE
        if row.artifacts and rejected.is_file():
            warn(f"{labels[key]}: corrupted stage cache entries were not used and were "
                 f"replaced: {'; '.join(rejected.read_text().split(chr(10))[:3]).strip('; ')}")
        summary.done += 1
        for name in (row.cache_hits or "").split(","):
            if name:
                summary.stage_hits[name] = summary.stage_hits.get(name, 0) + 1
        if row.status != "ok":
            summary.failed.append(row)
        progress.point_done(row, row.wall_seconds)

    def stored_meanwhile(key) -> bool:
        """Another sweep on this database stored the point: take its row."""
        if key in redo:
            return False
        row = store.get(key)
        if row is None:
            return False
        summary.cached += 1
        if row.status != "ok":
            summary.failed.append(row)
        progress.stored_meanwhile(row)
        return True

    try:
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
            elsewhere = {}  # key -> (point, owner): claimed by another live sweep
            leaders = {}  # synthesis group -> key of the point now producing its netlist
            settled = set()  # groups whose first point has finished
            # An Fmax search fills every slot with its own nextpnr runs (a thread pool in the
            # worker running it): it starts when nothing else runs, and nothing starts beside it.
            search_width = local_jobs if executor == "local" else ex.search_width
            exclusive = None  # key of the Fmax search now running
            renewed = time.monotonic()
            while queue or ex.in_flight or elsewhere:
                # Submit lazily, a little ahead of the free slots, looking at the database
                # first: another sweep on it may have finished or be running the point. Points
                # that share a netlist wait for the first of them (the design is elaborated,
                # simulated and synthesized once, then taken from the cache); other designs
                # fill the free slots meanwhile.
                while (queue and exclusive is None
                       and ex.in_flight < ex.slots + (1 if ex.slots > 1 else 0)):
                    chosen = next((item for item in queue
                                   if _synth_group(item[0]) not in leaders), None)
                    if chosen is None:
                        break
                    searching = chosen[0].flow.fmax_search is not None
                    if searching and ex.in_flight:
                        break  # wait for the running points to finish
                    queue.remove(chosen)
                    point, key = chosen
                    if stored_meanwhile(key):
                        continue
                    if not store.claim(key, owner):
                        elsewhere[key] = point
                        continue
                    if use_cache and _synth_group(point) not in settled:
                        leaders[_synth_group(point)] = key
                    if searching:
                        exclusive = key
                        ex.submit(key, point, experiment.name, versions, pnr_jobs=search_width)
                    else:
                        ex.submit(key, point, experiment.name, versions)
                for key, result in ex.poll(0.25 if ex.in_flight else 0.0):
                    if key == exclusive:
                        exclusive = None
                    for group, leader in list(leaders.items()):
                        if leader == key:
                            del leaders[group]
                            settled.add(group)
                    record(key, result)
                if elsewhere:
                    # Points another sweep runs: its row, or its claim gone (that sweep died):
                    # then the point is ours to run.
                    others = store.claimed_by_others(elsewhere, owner)
                    for key in [k for k in elsewhere if k not in others]:
                        point = elsewhere.pop(key)
                        if not stored_meanwhile(key):
                            queue.append((point, key))
                    if elsewhere and not ex.in_flight and not queue:
                        progress.stage(next(iter(elsewhere)), "another sweep",
                                       f"waiting for {len(elsewhere)} points run by "
                                       f"{sorted(set(others.values()))[0]}")
                        time.sleep(0.5)
                if time.monotonic() - renewed > CLAIM_RENEW_S:
                    store.renew_claims(owner)
                    renewed = time.monotonic()
    finally:
        store.release(owner)
    summary.seconds = time.perf_counter() - start
    return summary
