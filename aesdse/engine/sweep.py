"""Sweep: run the pending design points of an experiment and store a row for each.

This module decides which points run and records their rows: :func:`plan_sweep` (stored, to
run), :class:`SweepScheduler` (feeds the executor: claims, shared netlists, Fmax searches
alone) and :class:`SweepRecorder` (stored rows, summary, progress). The flow of one point is
:func:`aesdse.engine.point.run_point` (generate -> verify -> synthesize -> place and route ->
metrics, with the stage cache); where points run is :mod:`aesdse.engine.executors` (this
process, worker processes, Dask). Only the process that called :func:`sweep` writes the
database.

Scheduling
----------
* Points whose key is stored are skipped (resume after Ctrl-C or ``kill -9``: run the same
  command again); ``force`` redoes them, ``retry_failed`` the failed ones. Stored failures that
  are not the design's run again anyway: a model the compiler could not build, a timeout under
  a shorter limit, and a tool that died twice of a signal aesdse did not send (its reason, or
  its netlist stage's, says :data:`aesdse.flow.tools.TRANSIENT`). A point whose code or tools changed has a new key and
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
import sqlite3
import time
import traceback
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path

from .cache import owner_tag
from .netlist_check import VERIFICATION_KEY, netlist_verify_default
from ..spec.schema import flow_choices
from ..experiment import DesignPoint, Experiment
from ..flow.tools import TRANSIENT, ToolNotFound, tool_versions
from .artifacts import REJECTED_FILE, unpack_artifacts
from .pnr_stage import search_runs
from .progress import Progress
from ..store.database import Row, Store

__all__ = ["sweep", "SweepSummary", "SweepPlan", "plan_sweep", "SweepRecorder", "SweepScheduler",
           "clean_stale"]

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
    rerun : list of str
        Keys of the points whose Dask worker was lost while it ran them: the scheduler ran them
        again on another worker (each is still stored once).
    fallbacks : list of dict
        Points run now whose verify stage fell back to amaranth.sim from a compiled backend:
        ``{"key", "point", "reason"}`` (:mod:`aesdse.engine.netlist_check`).
    netlist : dict
        Points run now by the outcome of their netlist stage: ``verified``, ``not checked``,
        ``mismatch`` (points stopped before it are not counted).
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
    rerun: list = field(default_factory=list)
    fallbacks: list = field(default_factory=list)
    netlist: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.errors


#: Reasons of a failed verify stage that are the compiler's (its error or time limit), not the
#: design's: a resume tries such a point again (its design stage is not cached either).
MODEL_BUILD_FAILURES = ("model could not be built", "compiling the simulation model failed")


def _model_build_failed(row: Row) -> bool:
    return row.status == "failed-verification" and \
        any(marker in (row.reason or "") for marker in MODEL_BUILD_FAILURES)


def _transient(row: Row) -> bool:
    """A tool of the point died twice of a signal aesdse did not send (the row failed, or its
    netlist stage could not run): no verdict on the design, run it again."""
    if TRANSIENT in (row.reason or ""):
        return True
    record = (row.details or {}).get(VERIFICATION_KEY) or {}
    return TRANSIENT in (record.get("netlist_verified") or "")


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


@dataclass(frozen=True)
class SweepPlan:
    """Which points of an experiment a sweep runs (:func:`plan_sweep`).

    Attributes
    ----------
    keys : list of str
        Keys of every point, in experiment order.
    cached : list of Row
        Stored rows of the points not run again.
    pending : list of (DesignPoint, str)
        Points to run (with the sweep's time limits) and their keys, in experiment order.
    redo : set of str
        Pending keys that are run although stored (``force``, or a stored timeout that the longer
        time limit may get past): a row another sweep stores meanwhile is not taken for them.
    labels : dict
        Key -> what the progress lines call the pending point.
    """
    keys: list
    cached: list
    pending: list
    redo: set
    labels: dict


def plan_sweep(experiment: Experiment, store: Store, versions: dict, *, force: bool = False,
               synth_timeout_s: float | None = None, pnr_timeout_s: float | None = None,
               retry_failed: bool = False) -> SweepPlan:
    """Split the points of ``experiment`` into those stored (skipped) and those to run
    (module documentation); ``retry_failed`` runs every stored failed point again too."""
    changes = {}
    if synth_timeout_s is not None:
        changes["synth_timeout_s"] = float(synth_timeout_s)
    if pnr_timeout_s is not None:
        changes["pnr_timeout_s"] = float(pnr_timeout_s)
    keyed = [(point, point.key(versions)) for point in experiment.points]
    stored = {r.key: r for r in store.rows({k for _, k in keyed})} if not force else {}
    cached, pending = [], []
    for point, key in keyed:
        if changes:  # the time limits are not part of the key
            point = replace(point, flow=replace(point.flow, **changes))
        row = stored.get(key)
        if row is not None and not _timed_out_shorter(row, point) \
                and not _model_build_failed(row) and not _transient(row) \
                and not (retry_failed and row.status != "ok"):
            cached.append(row)
        else:
            pending.append((point, key))
    labels = {key: (f"{p.label} fmax_search" if p.flow.fmax_search else
                    f"{p.label} @{p.flow.freq_mhz:g}MHz seed={p.flow.seed}")
              + flow_choices(p.flow.as_dict()) for p, key in pending}
    return SweepPlan(keys=[k for _, k in keyed], cached=cached, pending=pending,
                     redo={key for _, key in pending if key in stored or force}, labels=labels)


class SweepRecorder:
    """Turns what the executor hands back into stored rows, the summary and progress lines.

    Only this object writes rows (:meth:`record`); it also accounts for rows another sweep on the
    database stored (:meth:`take_stored`).

    Parameters
    ----------
    store : Store
    summary : SweepSummary
        Filled as results come.
    progress : Progress
    owner : str
        This sweep's claim owner (:func:`aesdse.engine.cache.owner_tag`).
    labels : dict
        Key -> the point's name in messages.
    versions : dict
        The client's tool identifiers (a worker that ran others is warned about).
    results_dir : str
        Where a remote point's artifacts are unpacked.
    """

    def __init__(self, store: Store, summary: SweepSummary, progress: Progress, *, owner: str,
                 labels: dict, versions: dict, results_dir: str):
        self.store, self.summary, self.progress = store, summary, progress
        self.owner, self.labels, self.versions = owner, labels, versions
        self.results_dir = results_dir
        self.seen_versions = {json.dumps(versions, sort_keys=True)}

    def warn(self, text: str) -> None:
        self.summary.warnings.append(text)
        self.progress.warn(text)

    def check_versions(self, who: str, verb: str, versions: dict) -> None:
        """Warn once per set of tool versions that differ from the client's."""
        tag = json.dumps(versions, sort_keys=True)
        if tag not in self.seen_versions:
            self.seen_versions.add(tag)
            self.warn(f"{who} {verb} other tool versions than this client "
                      f"({versions} vs {self.versions}): their numbers are not comparable")

    def record(self, key: str, result) -> None:
        """Store the row of a finished point (a :class:`Row`, or a remote ``(Row, archive)``);
        an exception is an error of the point (not stored, retried by the next sweep), but a
        missing tool stops the sweep."""
        if isinstance(result, ToolNotFound):
            raise result
        if isinstance(result, BaseException):
            text = "".join(traceback.format_exception_only(type(result), result)).strip()
            self.summary.errors.append(f"{self.labels[key]}: {text}")
            self.progress.running.pop(key, None)
            self.store.release(self.owner, [key])
            self.warn(f"{self.labels[key]} could not run (not stored, retried next time): {text}")
            return
        row = unpack_artifacts(*result, self.results_dir) if isinstance(result, tuple) else result
        self.check_versions(row.host, "ran", row.tool_versions)
        self.put(key, row, search_runs(row))
        rejected = Path(row.artifacts or ".") / REJECTED_FILE
        if row.artifacts and rejected.is_file():
            self.warn(f"{self.labels[key]}: corrupted stage cache entries were not used and were "
                      f"replaced: {'; '.join(rejected.read_text().split(chr(10))[:3]).strip('; ')}")
        self.summary.done += 1
        for name in (row.cache_hits or "").split(","):
            if name:
                self.summary.stage_hits[name] = self.summary.stage_hits.get(name, 0) + 1
        if row.status != "ok":
            self.summary.failed.append(row)
        self.progress.point_done(row, row.wall_seconds)
        self.note_verification(key, row)

    def put(self, key: str, row: Row, runs) -> None:
        """Store a finished row. While another process holds the database's write lock, keep
        trying for :data:`~aesdse.store.database.LOCK_WAIT_S` (saying so once); when the
        database stays locked or cannot be written (a full disk, read-only media), keep the row
        in ``<results dir>/unsaved-rows.jsonl`` and stop the sweep with
        :class:`~aesdse.store.database.StoreUnavailable`: no finished result is lost."""
        from ..store import database
        started, said = time.monotonic(), False
        while True:
            try:
                self.store.put(row, runs, owner=self.owner)
                return
            except sqlite3.OperationalError as e:
                problem = database.write_problem(e)
                if problem is None:
                    raise
                locked = "locked" in str(e) or "busy" in str(e)
                if locked and time.monotonic() - started < database.LOCK_WAIT_S:
                    if not said:
                        self.warn(f"{self.store.path} is locked by another process: waiting up "
                                  f"to {database.LOCK_WAIT_S:g} s to store {self.labels[key]}")
                        said = True
                    time.sleep(0.2)
                    continue
                kept = keep_unsaved(row, runs, self.store, self.results_dir)
                raise database.StoreUnavailable(
                    f"{self.store.path}: {problem}; {kept}; the sweep stopped (finished points "
                    f"before it are stored; run it again to resume)") from None

    def note_verification(self, key: str, row: Row) -> None:
        """Count the row's netlist stage outcome; say (a line, once per reason) when its verify
        stage fell back to amaranth.sim: never silently."""
        record = (row.details or {}).get(VERIFICATION_KEY) or {}
        outcome = (record.get("netlist") or {}).get("verdict")
        if outcome:
            name = "verified" if outcome == "yes" else outcome
            self.summary.netlist[name] = self.summary.netlist.get(name, 0) + 1
        reason = record.get("fallback_reason")
        if reason:
            label = self.labels.get(key, key)
            if not any(f["reason"] == reason for f in self.summary.fallbacks):
                self.warn(f"{label}: verified with {record.get('verified_with')} instead of "
                          f"a compiled backend: {reason}")
            self.summary.fallbacks.append({"key": key, "point": label, "reason": reason})

    def take_stored(self, row: Row) -> None:
        """Count a row that another sweep on the database stored as this sweep's cached row."""
        self.summary.cached += 1
        if row.status != "ok":
            self.summary.failed.append(row)
        self.progress.stored_meanwhile(row)


def _release(store: Store, owner: str) -> None:
    """Drop this sweep's claims; when the database cannot be written (locked, full) they stay,
    and the next sweep takes them over (their process has ended)."""
    try:
        store.release(owner)
    except sqlite3.Error:
        pass


#: File, in the results directory, of finished rows that could not be stored in the database.
UNSAVED_FILE = "unsaved-rows.jsonl"


def keep_unsaved(row: Row, runs, store: Store, results_dir) -> str:
    """Append ``row`` to :data:`UNSAVED_FILE` (the format of ``aesdse db export``); returns
    what to tell the user: how to load it, or why it could not be kept either."""
    from ..store.exchange import row_record
    path = Path(results_dir) / UNSAVED_FILE
    line = json.dumps(row_record(row, runs, store=store, host_paths=False), sort_keys=True)
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
    except OSError as e:
        return f"the finished row of {row.key} could not be kept in {path} either ({e.strerror})"
    return f"the finished row is kept in {path}: load it with `aesdse db import {path}`"


#: Stage labels a point reaches only after its netlist and netlist check are stored in the stage
#: cache (:func:`aesdse.engine.point.run_point`: place and route, an Fmax search's batches, the
#: metrics).
NETLIST_CACHED_STAGES = ("place-and-route", "metrics")


class SweepScheduler:
    """Feeds the executor the pending points of a :class:`SweepPlan`, one ready point at a time.

    * Submits lazily, a little ahead of the free slots, looking at the database first: another
      sweep on it may have finished the point (its row is taken) or be running it (claimed:
      the point waits until that sweep stores it or dies).
    * Points that share a netlist wait for the first of them (the design is elaborated,
      simulated and synthesized once, then taken from the cache); other designs fill the free
      slots meanwhile. Where the workers share this machine's stage cache, they wait only until
      the first point reaches place and route (:meth:`stage_seen`): its netlist and netlist
      check are cached then, and the other seeds of a large design place and route beside it
      instead of after it.
    * An Fmax search fills every slot with its own nextpnr runs (a thread pool in the worker
      running it): it starts when nothing else runs, and nothing starts beside it.
    """

    def __init__(self, executor, store: Store, recorder: SweepRecorder, plan: SweepPlan, *,
                 experiment: str, versions: dict, use_cache: bool, search_width: int):
        self.ex, self.store, self.recorder, self.plan = executor, store, recorder, plan
        self.experiment, self.versions = experiment, versions
        self.use_cache, self.search_width = use_cache, search_width
        self.queue = deque(plan.pending)
        self.elsewhere: dict = {}  # key -> point: claimed by another live sweep
        self.leaders: dict = {}  # synthesis group -> key of the point now producing its netlist
        self.settled: set = set()  # groups whose first point has finished
        self.exclusive: str | None = None  # key of the Fmax search now running
        # A remote Dask worker has its own stage cache: a netlist made there is not found here.
        self.shared_cache = use_cache and not getattr(executor, "remote", False)

    def run(self) -> None:
        """Run every pending point; returns when each is stored (here or by another sweep)."""
        owner = self.recorder.owner
        renewed = time.monotonic()
        while self.queue or self.ex.in_flight or self.elsewhere:
            self._submit_ready()
            for key, result in self.ex.poll(0.25 if self.ex.in_flight else 0.0):
                self._finished(key)
                self.recorder.record(key, result)
            if self.elsewhere:
                self._look_elsewhere()
            if time.monotonic() - renewed > CLAIM_RENEW_S:
                self.store.renew_claims(owner)
                renewed = time.monotonic()

    def _submit_ready(self) -> None:
        ex = self.ex
        while (self.queue and self.exclusive is None
               and ex.in_flight < ex.slots + (1 if ex.slots > 1 else 0)):
            chosen = next((item for item in self.queue
                           if _synth_group(item[0]) not in self.leaders), None)
            if chosen is None:
                break
            searching = chosen[0].flow.fmax_search is not None
            if searching and ex.in_flight:
                break  # wait for the running points to finish
            self.queue.remove(chosen)
            point, key = chosen
            if self._stored_meanwhile(key):
                continue
            if not self.store.claim(key, self.recorder.owner,
                                    unless_stored=key not in self.plan.redo):
                self.elsewhere[key] = point  # stored or claimed meanwhile: looked at again
                continue
            if self.use_cache and _synth_group(point) not in self.settled:
                self.leaders[_synth_group(point)] = key
            if searching:
                self.exclusive = key
                ex.submit(key, point, self.experiment, self.versions,
                          pnr_jobs=self.search_width)
            else:
                ex.submit(key, point, self.experiment, self.versions)

    def stage_seen(self, key: str, stage: str) -> None:
        """Point ``key`` began ``stage`` (the executor's stage events). Once the first point of
        a synthesis group is in place and route or later, the group's design, netlist and
        netlist check are in the shared stage cache: the points that share them may start."""
        if not self.shared_cache or not stage.startswith(NETLIST_CACHED_STAGES):
            return
        for group, leader in list(self.leaders.items()):
            if leader == key:
                del self.leaders[group]
                self.settled.add(group)

    def _finished(self, key: str) -> None:
        """Point ``key`` came back: its netlist is in the cache, its slots are free."""
        if key == self.exclusive:
            self.exclusive = None
        for group, leader in list(self.leaders.items()):
            if leader == key:
                del self.leaders[group]
                self.settled.add(group)

    def _look_elsewhere(self) -> None:
        """Points another sweep runs: its row, or its claim gone (that sweep died): then the
        point is ours to run."""
        others = self.store.claimed_by_others(self.elsewhere, self.recorder.owner)
        for key in [k for k in self.elsewhere if k not in others]:
            point = self.elsewhere.pop(key)
            if not self._stored_meanwhile(key):
                self.queue.append((point, key))
        if self.elsewhere and not self.ex.in_flight and not self.queue:
            self.recorder.progress.stage(next(iter(self.elsewhere)), "another sweep",
                                         f"waiting for {len(self.elsewhere)} points run by "
                                         f"{sorted(set(others.values()))[0]}")
            time.sleep(0.5)

    def _stored_meanwhile(self, key: str) -> bool:
        """Another sweep on this database stored the point: take its row."""
        if key in self.plan.redo:
            return False
        row = self.store.get(key)
        if row is None:
            return False
        self.recorder.take_stored(row)
        return True


def sweep(experiment: Experiment, store: Store, results_dir, *, force: bool = False,
          jobs: int = 1, echo=print, executor: str = "local", scheduler: str | None = None,
          synth_timeout_s: float | None = None, pnr_timeout_s: float | None = None,
          use_cache: bool = True, live: bool | None = None,
          netlist_verify: bool | None = None, retry_failed: bool = False) -> SweepSummary:
    """Run the pending points of ``experiment`` and store a row for each.

    Points whose key is already stored are skipped unless ``force`` (a stored tool timeout is
    retried when the time limit is now longer, a tool's transient crash always, every failed
    point with ``retry_failed``). Only this process writes the database.

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
    netlist_verify : bool, optional
        Simulate each synthesized netlist with its family's cell models
        (:mod:`aesdse.engine.netlist_check`; default: on unless ``AESDSE_NETLIST_VERIFY=0``).
    retry_failed : bool
        Run the stored points of any failed status again (``--retry-failed``); ok rows stay.
    """
    start = time.perf_counter()
    results_dir = str(results_dir)
    versions = tool_versions()
    plan = plan_sweep(experiment, store, versions, force=force, synth_timeout_s=synth_timeout_s,
                      pnr_timeout_s=pnr_timeout_s, retry_failed=retry_failed)
    summary = SweepSummary(total=len(plan.keys), keys=list(plan.keys), cached=len(plan.cached),
                           failed=[r for r in plan.cached if r.status != "ok"])
    if not plan.pending:
        # Nothing to run: no executor, no worker, no elaboration.
        if echo is not None and plan.cached:
            echo(f"all {len(plan.cached)} points already in the database")
        summary.seconds = time.perf_counter() - start
        return summary

    from .executors import make_executor   # not for a re-run with every point stored
    clean_stale(results_dir)
    owner = owner_tag()
    search_jobs = jobs  # an Fmax search runs this many nextpnr at once, even as the only point
    if executor == "local" and len(plan.pending) == 1:
        jobs = 1  # one point: no worker process to start
    ex = make_executor(executor, jobs=jobs, scheduler=scheduler, use_cache=use_cache,
                       results_dir=results_dir)
    ex.netlist_verify = netlist_verify_default() if netlist_verify is None else netlist_verify
    progress = Progress(len(plan.keys), echo, live=live, slots=ex.slots)
    recorder = SweepRecorder(store, summary, progress, owner=owner, labels=plan.labels,
                             versions=versions, results_dir=results_dir)
    try:
        with ex, progress:
            for host, worker_versions in ex.worker_versions().items():
                recorder.check_versions(f"worker {host}", "has", worker_versions)
            scheduler = SweepScheduler(ex, store, recorder, plan, experiment=experiment.name,
                                       versions=versions, use_cache=use_cache,
                                       search_width=search_jobs if executor == "local"
                                       else ex.search_width)

            def on_stage(key, stage):
                progress.stage(key, plan.labels.get(key, key), stage)
                scheduler.stage_seen(key, stage)
            ex.on_stage = on_stage
            progress.cached_points(plan.cached)
            scheduler.run()
    finally:
        _release(store, owner)
        summary.rerun = sorted(ex.rerun)
    summary.seconds = time.perf_counter() - start
    return summary
