"""Where the design points of a sweep run: in this process, in local worker processes, or on
Dask workers (a LocalCluster, or a cluster behind a scheduler address).

Every executor runs :func:`aesdse.engine.point.run_point` and hands the rows back to the sweep, which
alone writes the database: each point is stored once, whoever ran it and however often. Workers report the stage each point enters (for the progress display)
through a queue (processes) or Dask's event log (``Worker.log_event``).

Every executor also takes synthesis-only tasks (``submit(..., stage="synthesis")``:
:func:`aesdse.engine.synthesis.synthesize_point`, the cheap first look of ``aesdse explore``),
whose result is a :class:`~aesdse.engine.synthesis.SynthesisFigures` instead of a row.

A remote Dask worker does not share the client's file system: it runs the point in a temporary
directory with its own staged cache and sends the artifacts back as an archive
(:func:`aesdse.engine.point.run_point_packed`), which the client unpacks under ``results/runs/<key>/``.

A Dask worker that dies while it runs a point (killed, out of memory, its machine gone) does not
lose the point: the scheduler runs the task again on another worker (up to Dask's
``distributed.scheduler.allowed-failures`` times), and the client hears of it through the
scheduler's ``remove-worker`` event: the executor names the point in its ``rerun`` set and
the progress display shows it as re-run, so the sweep's summary can say so.
"""

import logging
import multiprocessing
import os
import queue
import signal
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from ..flow.tools import kill_tool_processes, tool_versions
from .point import run_point, run_point_packed
from .synthesis import synthesize_point

__all__ = ["EXECUTORS", "RERUN_STAGE", "make_executor", "InlineExecutor", "ProcessExecutor", "DaskExecutor"]

#: Executor names accepted by :func:`make_executor` (and ``aesdse sweep --executor``).
EXECUTORS = ("local", "dask-local", "dask")

_STAGE_TOPIC = "aesdse-stage"

#: The scheduler's topic of cluster events (``remove-worker`` among them).
_CLUSTER_TOPIC = "all"

#: What a task runs: the whole point (a row) or its synthesis only (its figures).
STAGES = ("point", "synthesis")

#: The stage a point is shown in after the worker running it was lost.
RERUN_STAGE = "re-run: worker lost"


def make_executor(kind: str, *, jobs: int = 1, scheduler: str | None = None,
                  use_cache: bool = True, results_dir: str = "results"):
    """The executor named ``kind`` (one of :data:`EXECUTORS`)."""
    if kind == "local":
        if jobs <= 1:
            return InlineExecutor(results_dir, use_cache)
        return ProcessExecutor(jobs, results_dir, use_cache)
    if kind == "dask-local":
        return DaskExecutor(results_dir, use_cache, workers=jobs)
    if kind == "dask":
        if not scheduler:
            raise ValueError("The dask executor needs a scheduler address, e.g. "
                             "--scheduler tcp://HOST:8786")
        return DaskExecutor(results_dir, use_cache, scheduler=scheduler)
    raise ValueError(f"Executor must be one of {', '.join(EXECUTORS)}, not {kind!r}")


class _Executor:
    """Common part: ``on_stage(key, stage)`` is set by the sweep; ``slots`` points run at once;
    an Fmax search runs ``search_width`` nextpnr at once on the one worker that runs it;
    ``rerun`` holds the keys of the points a lost worker was running, which ran again on another
    worker (Dask only: a dead local worker process fails its point)."""
    slots = 1
    #: Run the netlist stage of each point (set by the sweep; :mod:`aesdse.engine.netlist_check`).
    netlist_verify = True

    @property
    def search_width(self) -> int:
        return self.slots

    def __init__(self, results_dir, use_cache):
        self.results_dir, self.use_cache = str(results_dir), use_cache
        self.on_stage = lambda key, stage: None
        self.rerun: set = set()

    def worker_versions(self) -> dict:
        """Host or worker -> tool versions, for workers that may differ from the client."""
        return {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close(exc[0] is not None)

    def close(self, abort: bool = False):
        pass


class InlineExecutor(_Executor):
    """One point at a time, in this process (``--jobs 1``)."""

    def __init__(self, results_dir, use_cache):
        super().__init__(results_dir, use_cache)
        self._queue = []

    @property
    def in_flight(self) -> int:
        return len(self._queue)

    def submit(self, key, point, experiment, versions, pnr_jobs=1, stage="point"):
        self._queue.append((key, point, experiment, versions, pnr_jobs, stage))

    def poll(self, timeout):
        if not self._queue:
            return []
        key, point, experiment, versions, pnr_jobs, stage = self._queue.pop(0)
        try:
            if stage == "synthesis":
                return [(key, synthesize_point(point, self.results_dir, key,
                                               lambda name: self.on_stage(key, name),
                                               use_cache=self.use_cache))]
            row = run_point(point, experiment, self.results_dir, versions, key,
                            lambda stage: self.on_stage(key, stage), use_cache=self.use_cache,
                            pnr_jobs=pnr_jobs, netlist_verify=self.netlist_verify)
        except Exception as e:
            return [(key, e)]
        return [(key, row)]


# --- worker processes -------------------------------------------------------------------------

_EVENTS = None
_IN_TASK = False
_TERMINATING = False


def _terminate(signum, frame):
    global _TERMINATING
    _TERMINATING = True
    if _IN_TASK:
        # Raised in the worker's main thread: run_tool's handler kills the tool's process
        # tree, then _process_task ends the worker.
        raise SystemExit(128 + signum)
    os._exit(128 + signum)


def _init_worker(events, parent: int):
    global _EVENTS
    _EVENTS = events
    signal.signal(signal.SIGTERM, _terminate)
    # Die with the sweep: a worker orphaned by `kill -9` of the sweep would go on running points
    # (and their tools) that nobody records. Linux only; elsewhere the worker stops at its next
    # point, when the broken pipe to the parent is noticed.
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


def _process_task(key, point, experiment, results_dir, versions, use_cache, pnr_jobs=1,
                  netlist_verify=True, stage="point"):
    global _IN_TASK

    def on_stage(stage):
        try:
            _EVENTS.put_nowait((key, stage))
        except Exception:  # the display is best effort; the result is not
            pass
    _IN_TASK = True
    try:
        if stage == "synthesis":
            return synthesize_point(point, results_dir, key, on_stage, use_cache=use_cache)
        return run_point(point, experiment, results_dir, versions, key, on_stage,
                         use_cache=use_cache, pnr_jobs=pnr_jobs, netlist_verify=netlist_verify)
    except BaseException:
        if _TERMINATING:
            # The pool would report the exit as this task's exception and wait for the next
            # task of a sweep that is gone (its queues never reach end of file): exit now.
            os._exit(1)
        raise
    finally:
        _IN_TASK = False


class ProcessExecutor(_Executor):
    """``jobs`` local worker processes (``--jobs N``, the default executor)."""

    def __init__(self, jobs, results_dir, use_cache):
        super().__init__(results_dir, use_cache)
        self.slots = jobs
        # spawn, not fork: the sweep may have threads (progress display, Dask) that a fork
        # would copy mid-operation, and a fresh worker sees the current environment.
        self._ctx = multiprocessing.get_context("spawn")
        self._events = self._ctx.Queue()
        self._pool = self._new_pool()
        self._futures = {}

    def _new_pool(self):
        return ProcessPoolExecutor(self.slots, mp_context=self._ctx, initializer=_init_worker,
                                   initargs=(self._events, os.getpid()))

    @property
    def in_flight(self) -> int:
        return len(self._futures)

    def submit(self, key, point, experiment, versions, pnr_jobs=1, stage="point"):
        args = (key, point, experiment, self.results_dir, versions, self.use_cache, pnr_jobs,
                self.netlist_verify, stage)
        try:
            future = self._pool.submit(_process_task, *args)
        except BrokenProcessPool:
            # A worker died (e.g. killed for memory): its points failed; start a fresh pool.
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
            future = self._pool.submit(_process_task, *args)
        self._futures[future] = key

    def _drain(self):
        while True:
            try:
                key, stage = self._events.get_nowait()
            except (queue.Empty, OSError, EOFError, ValueError):
                return
            self.on_stage(key, stage)

    def poll(self, timeout):
        self._drain()
        done, _ = wait(list(self._futures), timeout=timeout, return_when=FIRST_COMPLETED)
        self._drain()
        out = []
        for future in done:
            key = self._futures.pop(future)
            error = future.exception()
            out.append((key, error if error is not None else future.result()))
        return out

    def close(self, abort=False):
        if abort:
            for future in self._futures:
                future.cancel()
            # Workers still running a point are stopped (SIGTERM -> SystemExit -> their tool's
            # process tree is killed), not left to finish work nobody will record.
            for process in list(getattr(self._pool, "_processes", {}).values()):
                if process.is_alive():
                    process.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._events.close()
        self._events.join_thread()


# --- Dask ---------------------------------------------------------------------------------------


def _dask_task(key, point, experiment, results_dir, versions, use_cache, pack, pnr_jobs=1,
               netlist_verify=True, stage="point"):

    def on_stage(stage):
        try:
            from distributed import get_worker
            get_worker().log_event(_STAGE_TOPIC, [key, stage])
        except Exception:  # the display is best effort; the result is not
            pass
    if stage == "synthesis":
        if pack:  # the worker's own stage cache, as for its points
            import tempfile
            from .artifacts import default_worker_cache
            with tempfile.TemporaryDirectory(prefix="aesdse-synthesis-") as tmp:
                return synthesize_point(point, tmp, key, on_stage, use_cache=use_cache,
                                        cache_dir=default_worker_cache())
        return synthesize_point(point, results_dir, key, on_stage, use_cache=use_cache)
    if pack:
        return run_point_packed(point, experiment, versions, key, on_stage, use_cache=use_cache,
                                pnr_jobs=pnr_jobs, netlist_verify=netlist_verify)
    return run_point(point, experiment, results_dir, versions, key, on_stage,
                     use_cache=use_cache, pnr_jobs=pnr_jobs, netlist_verify=netlist_verify)


class DaskExecutor(_Executor):
    """Points as Dask tasks: on a LocalCluster of ``workers`` processes (one thread each), or on
    the cluster whose scheduler is at ``scheduler``.

    With a scheduler address the workers are taken to be remote: each point's artifacts come
    back to the client as an archive. A LocalCluster shares this machine's file system, so its
    workers write ``results/runs/`` directly; ``processes=False`` runs its workers as threads
    of this process (the tests).
    """

    def __init__(self, results_dir, use_cache, *, workers: int = 2, scheduler: str | None = None,
                 processes: bool = True):
        super().__init__(results_dir, use_cache)
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise RuntimeError("The dask executors need Dask: pip install 'aesdse[dask]'") \
                from None
        self._cluster = None
        self.remote = scheduler is not None
        if scheduler is None:
            self._cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                         processes=processes, dashboard_address=None,
                                         silence_logs=logging.ERROR)
            self.client = Client(self._cluster)
        else:
            self.client = Client(scheduler, timeout=30)
            self.client.wait_for_workers(1, timeout=120)
        info = self.client.scheduler_info()
        workers_info = info.get("workers", {}).values()
        self.slots = max(1, sum(w.get("nthreads", 1) for w in workers_info))
        # An Fmax search runs its nextpnr batch on the one worker that runs the point: a
        # LocalCluster's workers share this machine, a remote worker has its own threads.
        self._search_width = self.slots if not self.remote else max(
            [w.get("nthreads", 1) for w in workers_info] or [1])
        self._events = queue.Queue()
        self.client.subscribe_topic(_STAGE_TOPIC, lambda event: self._events.put(event[1]))
        self._lost = queue.Queue()
        self.client.subscribe_topic(_CLUSTER_TOPIC, self._on_cluster_event)
        self._futures = {}

    def _on_cluster_event(self, event) -> None:
        """A scheduler event (in the client's event loop): keep the tasks that a worker lost
        unexpectedly was processing; the scheduler runs them again elsewhere."""
        message = event[1] if isinstance(event, (tuple, list)) and len(event) > 1 else None
        if isinstance(message, dict) and message.get("action") == "remove-worker" \
                and not message.get("expected"):
            self._lost.put(set(message.get("processing-tasks") or ()))

    @property
    def in_flight(self) -> int:
        return len(self._futures)

    @property
    def search_width(self) -> int:
        return self._search_width

    def worker_versions(self) -> dict:
        return self.client.run(tool_versions) if self.remote else {}

    def submit(self, key, point, experiment, versions, pnr_jobs=1, stage="point"):
        future = self.client.submit(
            _dask_task, key, point, experiment, self.results_dir, versions, self.use_cache,
            self.remote, pnr_jobs, self.netlist_verify, stage,
            key=f"aesdse-{key}-{uuid.uuid4().hex[:8]}", pure=False)
        self._futures[future] = key

    def _drain(self):
        while True:
            try:
                lost = self._lost.get_nowait()
            except queue.Empty:
                break
            for future, key in self._futures.items():
                if future.key in lost:
                    self.rerun.add(key)
                    self.on_stage(key, RERUN_STAGE)
        while True:
            try:
                key, stage = self._events.get_nowait()
            except queue.Empty:
                return
            self.on_stage(key, stage)

    def poll(self, timeout):
        from distributed import wait as dask_wait
        self._drain()
        try:
            dask_wait(list(self._futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            pass
        self._drain()
        out = []
        for future in [f for f in self._futures if f.done()]:
            key = self._futures.pop(future)
            try:
                out.append((key, future.result()))
            except Exception as e:
                out.append((key, e))
        return out

    def close(self, abort=False):
        try:
            if self._futures:
                self.client.cancel(list(self._futures))
                if abort:
                    self.client.run(kill_tool_processes)
            self.client.unsubscribe_topic(_STAGE_TOPIC)
            self.client.unsubscribe_topic(_CLUSTER_TOPIC)
        finally:
            self.client.close()
            if self._cluster is not None:
                self._cluster.close()
