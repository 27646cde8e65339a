"""A point's artifact directory: written under a temporary name and published whole.

Artifacts are written to ``runs/.tmp-<key>-<pid>@<host>`` (:func:`tmp_name`) and renamed to
``runs/<key>`` when the point is finished (:func:`publish`), before the sweep stores the row,
so a killed sweep leaves nothing that looks finished but is not. A remote worker's artifacts
come back as an archive that :func:`unpack_artifacts` puts in place the same way.
"""

import io
import os
import shutil
import tarfile
import uuid
from dataclasses import replace
from pathlib import Path

from ..store.database import Row
from .cache import owner_tag

__all__ = ["tmp_name", "publish", "default_worker_cache", "unpack_artifacts", "REJECTED_FILE"]

#: File, in a point's artifacts, listing the cache entries found corrupted (and replaced).
REJECTED_FILE = "cache-rejected.txt"


def tmp_name(key: str) -> str:
    # The owner's pid and host are in the name, so a later sweep can tell a dead sweep's
    # leftovers (removed by aesdse.engine.sweep.clean_stale) from a running sweep's work in progress.
    return f".tmp-{key}-{owner_tag()}"


def publish(work: Path, final: Path) -> None:
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


def default_worker_cache() -> str:
    """Stage cache of a remote worker: ``$AESDSE_CACHE_DIR``, else ``~/.cache/aesdse``."""
    return os.environ.get("AESDSE_CACHE_DIR") or str(Path.home() / ".cache" / "aesdse")


def unpack_artifacts(row: Row, blob: bytes, results_dir) -> Row:
    """Write a remote point's artifact archive to ``results_dir/runs/<key>/`` (atomically)."""
    runs = Path(results_dir) / "runs"
    final, work = runs / row.key, runs / tmp_name(row.key)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        tar.extractall(work, filter="data")  # "data": no absolute paths, links or devices
    publish(work, final)
    return replace(row, artifacts=str(final))
