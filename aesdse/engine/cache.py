"""Stage cache: each flow stage's outputs, keyed by the content of its inputs, checked on read.

Four stages are cached, each in its own directory under ``results/cache/`` (the keys are made by
:mod:`aesdse.engine.point`, one function per stage):

``design``
    Generated RTLIL + manifest + the verification outcome, keyed by the design point's identity
    without its flow options and the generator fingerprint of its family
    (:mod:`aesdse.store.provenance`). A new seed, frequency or synthesis option never re-elaborates or
    re-simulates.
``synth``
    The Yosys netlist, cell statistics, Verilog and log, keyed by (RTLIL digest, top, target
    family, synthesis options, Yosys identifier).
``netlist``
    The verdict of the netlist stage (:mod:`aesdse.engine.netlist_check`: the synthesized netlist
    simulated with the family's cell models), keyed by (netlist digest, family, cell models,
    script digest, model options, compiler and Yosys identifiers). The compiled models
    themselves are cached under ``models/`` by :mod:`aesdse.verify.cxxrtl` (one directory per
    model, keyed by its source, compiler and flags), shared with the verify stage's compiled
    backends.
``pnr``
    nextpnr's report and log, keyed by (netlist digest, device, package, speed grade, target
    frequency, seed, nextpnr identifier).

Integrity, as in content-addressed build systems (Glasgow's ``build_plan``): an entry records
the SHA-256 of every file it holds and of its own metadata, and :meth:`StageCache.get` checks
them all. An entry that was corrupted or edited is a miss: it is removed, the stage runs again
and its new result replaces the entry; it is never used. Files go in and out of the cache as
copies, never as links, so editing a run directory cannot change the cache; cached files are made
read-only as a reminder.

An entry is a directory written under a temporary name and renamed into place, so an entry that
exists is complete. :meth:`StageCache.lock` serializes the processes that need one entry (two
sweeps sharing a results directory, Fmax-search threads): the first runs the stage, the others
wait and take its result from the cache instead of running the same tool again. Locks are
``flock`` locks on files under ``cache/.locks``, released by the kernel when a process dies.
Only successful tool runs are cached: a timeout or a crash may be the machine's fault, and is
retried.
"""

import contextlib
import hashlib
import json
import os
import shutil
import socket
import stat
import uuid
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CACHE_FORMAT", "CacheEntry", "StageCache", "stage_key", "file_digest",
           "owner_tag"]

#: Bumped when what an entry holds, or how a stage is run, changes.
CACHE_FORMAT = 2

_META = "meta.json"


def stage_key(stage: str, identity: dict) -> str:
    """Hash of a stage's input ``identity`` (plain JSON data)."""
    from .. import __version__
    blob = json.dumps({"stage": stage, "format": CACHE_FORMAT, "aesdse": __version__,
                       **identity}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def owner_tag() -> str:
    """``<pid>@<host>``: ends every temporary name, so that leftovers of dead processes can be
    told from work in progress (:func:`aesdse.engine.sweep.clean_stale`), and names a sweep's claims."""
    return f"{os.getpid()}@{socket.gethostname()}"


def file_digest(path) -> str:
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _meta_digest(meta: dict, files: dict) -> str:
    return hashlib.sha256(json.dumps({"meta": meta, "files": files},
                                     sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """A checked cache entry.

    Attributes
    ----------
    path : Path
        Its directory.
    meta : dict
        What the stage recorded besides its files.
    files : dict
        File name -> SHA-256 of every file it holds.
    """
    path: Path
    meta: dict
    files: dict

    def __contains__(self, name: str) -> bool:
        return name in self.files


class StageCache:
    """Cache entries under ``root`` (``results/cache``).

    Attributes
    ----------
    rejected : list of str
        ``stage/key: reason`` of every entry found corrupted (and removed) by this object.
    """

    def __init__(self, root):
        self.root = Path(root)
        self.rejected = []

    def entry_path(self, stage: str, key: str) -> Path:
        return self.root / stage / key

    @contextlib.contextmanager
    def lock(self, stage: str, key: str):
        """Hold the entry ``stage/key`` while checking and filling it (see the module
        documentation); a no-op where ``fcntl`` does not exist."""
        try:
            import fcntl
        except ImportError:  # not POSIX: two processes may run the same stage, one copy wins
            yield
            return
        path = self.root / ".locks" / f"{stage}-{key}"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def get(self, stage: str, key: str) -> CacheEntry | None:
        """The entry, checked against its digests; None on a miss. A corrupted entry is
        removed and is a miss."""
        path = self.entry_path(stage, key)
        try:
            doc = json.loads((path / _META).read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            return self._reject(stage, key, f"unreadable {_META}: {e}")
        if not isinstance(doc, dict) or doc.get("format") != CACHE_FORMAT:
            return self._reject(stage, key, "written by another cache format")
        meta, files = doc.get("meta"), doc.get("files")
        if not isinstance(meta, dict) or not isinstance(files, dict) \
                or doc.get("digest") != _meta_digest(meta, files):
            return self._reject(stage, key, f"{_META} does not match its digest")
        for name, digest in files.items():
            try:
                actual = file_digest(path / name)
            except OSError:
                return self._reject(stage, key, f"{name} is missing")
            if actual != digest:
                return self._reject(stage, key, f"{name} does not match its digest")
        return CacheEntry(path, meta, files)

    def _reject(self, stage, key, reason) -> None:
        self.rejected.append(f"{stage}/{key}: {reason}")
        _remove(self.entry_path(stage, key))
        return None

    def discard(self, stage: str, key: str) -> None:
        """Remove the entry ``stage/key`` (sound, but stored before its stage kept a file it
        now needs; :meth:`aesdse.engine.runner.PointRun.stage`): not a rejected one."""
        _remove(self.entry_path(stage, key))

    def put(self, stage: str, key: str, files: dict, meta: dict) -> CacheEntry | None:
        """Store an entry: ``files`` maps entry file name -> source path (copied) or str/bytes
        (written). Returns the entry, or None when the disk refused."""
        final = self.entry_path(stage, key)
        existing = self.get(stage, key)
        if existing is not None:
            return existing
        tmp = final.parent / f".tmp-{key}-{uuid.uuid4().hex[:8]}-{owner_tag()}"
        try:
            tmp.mkdir(parents=True)
            digests = {}
            for name, source in files.items():
                if isinstance(source, (str, bytes)):
                    data = source.encode() if isinstance(source, str) else source
                    (tmp / name).write_bytes(data)
                else:
                    shutil.copyfile(source, tmp / name)
                digests[name] = file_digest(tmp / name)
                _read_only(tmp / name)
            # The metadata last: the mark of a complete entry (the rename below publishes it).
            (tmp / _META).write_text(json.dumps({
                "format": CACHE_FORMAT, "meta": meta, "files": digests,
                "digest": _meta_digest(meta, digests)}, sort_keys=True))
            _read_only(tmp / _META)
            try:
                tmp.rename(final)
            except OSError:
                # Another process published the same entry first: same inputs, same content.
                pass
        except OSError:
            return None
        finally:
            _remove(tmp)
        return self.get(stage, key)

    @staticmethod
    def copy_out(entry: CacheEntry, name: str, dest: Path) -> None:
        """Copy ``name`` out of ``entry`` to ``dest`` (a copy: editing it cannot change the
        cache), writable."""
        dest = Path(dest)
        dest.unlink(missing_ok=True)
        shutil.copyfile(entry.path / name, dest)


def _read_only(path: Path) -> None:
    mode = path.stat().st_mode
    path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def _remove(path: Path) -> None:
    """Remove a directory tree (read-only files in writable directories go too)."""
    if not path.exists():
        return
    # Rename first, so that a reader never sees half an entry.
    trash = path.with_name(f".old-{path.name}-{uuid.uuid4().hex[:8]}-{owner_tag()}")
    try:
        path.rename(trash)
    except OSError:
        trash = path
    shutil.rmtree(trash, ignore_errors=True)
