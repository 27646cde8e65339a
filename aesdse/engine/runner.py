"""The stage runner of one point: :class:`PointRun` takes each stage from the stage cache or
runs it and stores it; :class:`StageFailed` is a stage's failure, which becomes the point's
failed row (:func:`aesdse.engine.point.run_point`); :func:`synthesis_metadata` is what a
synthesis stage keeps, for the point's own synthesis and the core's alone
(:mod:`aesdse.engine.netlist_stage`)."""

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .cache import CacheEntry, StageCache, file_digest

__all__ = ["StageFailed", "PointRun", "synthesis_metadata"]


class StageFailed(Exception):
    """A stage failed for this point: it becomes a row of ``status`` with ``reason``."""

    def __init__(self, status: str, reason: str, **fields):
        super().__init__(reason)
        self.status, self.reason, self.fields = status, reason, fields


@dataclass
class PointRun:
    """The working state of one point: its run directory, the cache and what came from it.

    Attributes
    ----------
    work : Path
        Where this point's artifacts are written (published as ``runs/<key>`` at the end).
    cache : StageCache
    use_cache : bool
        Take stages from the cache (results are stored in it either way).
    on_stage : callable
        Called with a stage's name when it starts running (the progress display).
    hits : list of str
        Stages taken from the cache.
    netlist_verify : bool
        Run the netlist stage (:mod:`aesdse.engine.netlist_check`).
    """
    work: Path
    cache: StageCache
    use_cache: bool = True
    on_stage: Callable[[str], None] = lambda name: None
    hits: list = field(default_factory=list)
    netlist_verify: bool = True

    def stage(self, name: str, key: str, files: tuple, produce: Callable[[], dict], *,
              label: str | None = None, directory: Path | None = None,
              restore: tuple | None = None,
              required: tuple = ()) -> tuple[dict, CacheEntry | None, bool]:
        """Take stage ``name`` from the cache, or run it and store it.

        Parameters
        ----------
        files : tuple of str
            The files of the stage's outputs in ``directory`` (default: the run directory).
        produce : callable
            Runs the stage: writes ``files`` and returns its metadata (JSON data); raises
            :class:`StageFailed` when the stage failed (nothing is cached then).
        restore : tuple of str, optional
            The files copied into ``directory`` on a cache hit (default: all ``files``; large
            ones can be fetched later with :meth:`fetch`).
        required : tuple of str, optional
            Files a cached entry must hold to be used: an entry stored before the stage kept
            them (a Xilinx estimate before issue 45 kept no netlist) is discarded and the stage
            runs again.

        Returns
        -------
        (meta, entry, hit)
            The metadata, the cache entry (None if the cache refused to store it) and whether
            it came from the cache.
        """
        directory = directory or self.work
        if not self.use_cache:
            self.on_stage(label or name)
            meta = produce()
            entry = self.cache.put(name, key, {f: directory / f for f in files
                                               if (directory / f).exists()}, meta)
            return meta, entry, False
        # Locked: a process needing the same entry meanwhile waits, then hits.
        with self.cache.lock(name, key):
            entry = self.cache.get(name, key)
            if entry is not None and any(need not in entry for need in required):
                self.cache.discard(name, key)
                entry = None
            if entry is not None:
                for file in (files if restore is None else restore):
                    if file in entry:
                        self.cache.copy_out(entry, file, directory / file)
                return entry.meta, entry, True
            self.on_stage(label or name)
            meta = produce()
            entry = self.cache.put(name, key, {f: directory / f for f in files
                                               if (directory / f).exists()}, meta)
        return meta, entry, False

    def fetch(self, entry: CacheEntry | None, name: str, dest: Path) -> None:
        """Put file ``name`` of a stage's output at ``dest`` (unless it is there already): from
        its cache entry, or from the run directory when the cache did not store it."""
        if dest.exists():
            return
        if entry is not None and name in entry:
            self.cache.copy_out(entry, name, dest)
        else:
            shutil.copyfile(self.work / name, dest)


def synthesis_metadata(synth, directory: Path) -> dict:
    """The cached metadata of a successful synthesis stage (:class:`aesdse.flow.yosys.Synthesis`
    in ``directory``): seconds, cell counts, netlist digest, and the tool workarounds it needed
    (only if any, so that the metadata of every other synthesis stays as it was)."""
    meta = {"seconds": synth.seconds, "cells": synth.cells,
            "netlist": file_digest(directory / synth.netlist)}
    if synth.workarounds:
        meta["workarounds"] = list(synth.workarounds)
    return meta
