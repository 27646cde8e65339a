"""Where the search's candidates are measured: the engine (the real flow, rows stored), or a
table of rows measured once (the benchmark's replay).

Both offer the same small interface to :class:`aesdse.explore.search.Explorer`: ``slots`` and
``in_flight``; ``submit(candidate, seed, stage)`` with ``stage`` ``"synthesis"`` (figures only)
or ``"point"`` (the whole flow: a row); ``poll(timeout)`` -> finished
``(candidate, seed, stage, result)``; ``known_rows(space)`` -> ``(stored, reference)`` rows
(warm start); ``close()``.
"""

import time
from collections import deque
from dataclasses import replace
from pathlib import Path

from ..engine.synthesis import SynthesisFigures
from ..store.database import Row, Store
from .space import Candidate, SearchSpace

__all__ = ["EngineEvaluator", "TableEvaluator"]


class EngineEvaluator:
    """Candidates run by the sweep's executors (:mod:`aesdse.engine.executors`): a free worker
    takes the next candidate at once. A whole point's row is stored by the sweep's recorder
    (:class:`aesdse.engine.sweep.SweepRecorder`: claimed, stored once, its artifacts kept), so
    ``report``, ``plot`` and ``db compare`` read it like any other. A candidate that another
    live sweep or explore on the same database has claimed is not run twice: its row is taken
    when it is stored, and the candidate is run here only if that claim dies without a row (as
    :class:`aesdse.engine.sweep.SweepScheduler` does). This explore's own claims are renewed
    every :data:`aesdse.engine.sweep.CLAIM_RENEW_S` seconds, so other hosts do not take them
    for abandoned.

    Parameters
    ----------
    plan : ExplorePlan
    store : Store
    results_dir : str
    executor, jobs, scheduler
        As ``aesdse sweep``'s options.
    processes : bool
        A ``dask-local`` cluster of worker processes (False: threads, for tests).
    reference : list of path, optional
        Reference result files (``results/reference/*.jsonl``) whose rows measure a candidate
        of the space: they warm-start the search and are not run again.
    """

    def __init__(self, plan, store: Store, results_dir, *, executor: str = "local",
                 jobs: int = 1, scheduler: str | None = None, use_cache: bool = True,
                 processes: bool = True, reference=None):
        from ..engine.cache import owner_tag
        from ..engine.executors import DaskExecutor, ProcessExecutor, make_executor
        from ..engine.netlist_check import netlist_verify_default
        from ..engine.progress import Progress
        from ..engine.sweep import SweepRecorder, SweepSummary, clean_stale
        from ..flow.tools import tool_versions
        self.plan, self.store, self.results_dir = plan, store, str(results_dir)
        self.reference = list(reference or [])
        self.versions = tool_versions()
        clean_stale(self.results_dir)
        if executor == "dask-local":
            self.ex = DaskExecutor(self.results_dir, use_cache, workers=jobs,
                                   processes=processes)
        elif executor == "local" and jobs <= 1 and plan.settings.budget.wall_s is not None:
            # A wall-time budget interrupts a running candidate (abort): one worker process,
            # not this process, runs it.
            self.ex = ProcessExecutor(1, self.results_dir, use_cache)
        else:
            self.ex = make_executor(executor, jobs=jobs, scheduler=scheduler,
                                    use_cache=use_cache, results_dir=self.results_dir)
        self.ex.netlist_verify = netlist_verify_default()
        self.labels: dict = {}
        self.summary = SweepSummary()
        self.recorder = SweepRecorder(store, self.summary, Progress(0, None, live=False),
                                      owner=owner_tag(), labels=self.labels,
                                      versions=self.versions, results_dir=self.results_dir)
        self.pending: dict = {}
        self.ready: deque = deque()
        self.elsewhere: dict = {}  # key -> (candidate, seed, point): claimed by another sweep
        self.renewed = time.monotonic()
        self.closed = False

    @property
    def slots(self) -> int:
        return self.ex.slots

    @property
    def in_flight(self) -> int:
        return len(self.pending) + len(self.ready) + len(self.elsewhere)

    def key(self, candidate: Candidate, seed: int) -> str:
        return self.plan.point(candidate.arch, candidate.params, seed).key(self.versions)

    def known_rows(self, space: SearchSpace) -> tuple[list, list]:
        """``(stored, reference)``: the database's rows of this exploration's measurement
        (same key: same code and tools) of candidates in ``space``, and the reference rows
        that measure one (same configuration) and are not stored."""
        found = []
        names = tuple(space.entries)
        marks = ",".join("?" * len(names))
        for row in self.store.rows(where=f"arch IN ({marks})", params=names):
            if space.contains(row.arch, row.params) and row.key == self.key(
                    space.candidate(row.arch, row.params), row.seed):
                found.append(row)
        reference = []
        if self.reference:
            from ..store.exchange import read_rows
            stored = {r.config_key for r in found}
            items, _ = read_rows(self.reference, skip_malformed=True)
            for row, _ in items:
                if row.arch in names and space.contains(row.arch, row.params) \
                        and row.config_key not in stored \
                        and row.config_key == self.plan.point(
                            row.arch, space.candidate(row.arch, row.params).params,
                            row.seed).config_key():
                    reference.append(row)
        return found, reference

    def submit(self, candidate: Candidate, seed: int, stage: str) -> None:
        point = self.plan.point(candidate.arch, candidate.params, seed)
        key = point.key(self.versions)
        tag = key if stage == "point" else f"synthesis-{key}"
        self.labels[tag] = f"{point.label} seed={seed}"
        if stage == "point":
            stored = self.store.get(key)
            if stored is not None:  # stored meanwhile (another sweep, or before a kill)
                self.ready.append((candidate, seed, stage, stored))
                return
            if not self.store.claim(key, self.recorder.owner, unless_stored=True):
                self.elsewhere[key] = (candidate, seed, point)
                return
        self._run(tag, candidate, seed, stage, point)

    def _run(self, tag, candidate, seed, stage, point) -> None:
        self.pending[tag] = (candidate, seed, stage)
        self.ex.submit(tag, point, self.plan.name, self.versions, stage=stage)

    def _look_elsewhere(self) -> None:
        """Candidates another sweep runs: its row once stored; if its claim is gone without a
        row (that sweep died), the candidate is claimed and run here."""
        from ..engine.sweep import CLAIM_RENEW_S
        if time.monotonic() - self.renewed > CLAIM_RENEW_S:
            self.store.renew_claims(self.recorder.owner)
            self.renewed = time.monotonic()
        if not self.elsewhere:
            return
        others = self.store.claimed_by_others(self.elsewhere, self.recorder.owner)
        for key in [k for k in self.elsewhere if k not in others]:
            candidate, seed, point = self.elsewhere.pop(key)
            stored = self.store.get(key)
            if stored is not None:
                self.recorder.take_stored(stored)
                self.ready.append((candidate, seed, "point", stored))
            elif self.store.claim(key, self.recorder.owner, unless_stored=True):
                self._run(key, candidate, seed, "point", point)
            else:  # claimed or stored again meanwhile
                self.elsewhere[key] = (candidate, seed, point)

    def poll(self, timeout: float) -> list:
        self._look_elsewhere()
        out = list(self.ready)
        self.ready.clear()
        if not out and self.elsewhere and not self.pending:
            # Only waiting for other sweeps: look again soon, without spinning (an inline
            # executor with nothing to run returns at once).
            time.sleep(min(timeout, 0.5))
            return out
        for tag, result in self.ex.poll(0.0 if out else timeout):
            candidate, seed, stage = self.pending.pop(tag)
            if stage == "point":
                self.recorder.record(tag, result)
                if not isinstance(result, BaseException):
                    result = self.store.get(tag) or result
            elif isinstance(result, BaseException):
                result = SynthesisFigures("failed-flow", f"{type(result).__name__}: {result}")
            out.append((candidate, seed, stage, result))
        return out

    def close(self, abort: bool = False) -> None:
        """Release this explore's claims and stop the executor; ``abort``: stop the candidates
        still running too (they are not stored, so a resumed explore runs them again)."""
        if self.closed:
            return
        self.closed = True
        self.pending.clear()
        self.ready.clear()
        self.elsewhere.clear()
        try:
            self.store.release(self.recorder.owner)
        finally:
            self.ex.close(abort)


class TableEvaluator:
    """Candidates looked up in rows measured once (a benchmark table): deterministic and
    instant. Synthesis figures are the routed row's LUT4, FF and block RAM (the replay measures
    the search, not a predictor); a seed the table lacks repeats its first seed; a candidate
    the table lacks is a failed row.

    Parameters
    ----------
    rows : list of Row
    slots : int
        Candidates "in flight" at once (as workers would be).
    """

    def __init__(self, rows, slots: int = 1):
        self.by_design: dict = {}
        for row in rows:
            self.by_design.setdefault((row.arch, tuple(sorted(row.params.items()))),
                                      {})[row.seed] = row
        self.slots = slots
        self.queue: deque = deque()
        self.pnr_lookups = 0

    @classmethod
    def from_file(cls, path, slots: int = 1) -> "TableEvaluator":
        from ..store.exchange import read_rows
        items, _ = read_rows([Path(path)])
        return cls([row for row, _ in items], slots)

    @property
    def in_flight(self) -> int:
        return len(self.queue)

    def known_rows(self, space) -> tuple[list, list]:
        return [], []

    def row(self, candidate: Candidate, seed: int) -> Row:
        seeds = self.by_design.get((candidate.arch, tuple(sorted(candidate.params))))
        if not seeds:
            return Row(key=f"missing-{hash(candidate) & 0xffffffff:08x}-{seed}",
                       experiment="table", arch=candidate.arch, params=dict(candidate.params),
                       target="table", flow={}, seed=seed, freq_mhz=0.0,
                       status="failed-flow", reason="not in the table")
        return seeds.get(seed) or next(iter(seeds.values()))

    def submit(self, candidate: Candidate, seed: int, stage: str) -> None:
        self.queue.append((candidate, seed, stage))

    def poll(self, timeout: float) -> list:
        out = []
        while self.queue:
            candidate, seed, stage = self.queue.popleft()
            row = self.row(candidate, seed)
            if stage == "synthesis":
                status = "ok" if row.status in ("ok", "failed-flow") else row.status
                out.append((candidate, seed, stage, SynthesisFigures(
                    status, row.reason if status != "ok" else None, luts=row.luts,
                    ffs=row.ffs, brams=row.brams, cycles_per_block=row.cycles_per_block,
                    latency_cycles=row.latency_cycles)))
            else:
                # Counted as a place-and-route run by the search, as a routed row is.
                self.pnr_lookups += 1
                if row.status == "ok" and row.pnr_seconds is None:
                    row = replace(row, pnr_seconds=0.0)
                out.append((candidate, seed, stage, row))
        if not out and timeout:
            time.sleep(min(timeout, 0.01))
        return out

    def close(self, abort: bool = False) -> None:
        if abort:
            self.queue.clear()
