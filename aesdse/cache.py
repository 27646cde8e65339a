"""Staged cache: each flow stage's outputs, keyed by the content of its inputs.

Three stages are cached, each in its own directory under ``results/cache/``:

``design``
    Generated RTLIL + manifest + the verification outcome, keyed by the design point's identity
    without its flow options (architecture, parameters, target family, verification options)
    and a fingerprint of the generator and verifier source code. A new seed, frequency or
    synthesis option never re-elaborates or re-simulates.
``synth``
    The Yosys netlist, cell statistics, Verilog and log, keyed by (RTLIL digest, top, target
    family, synthesis options, Yosys version).
``pnr``
    nextpnr's report and log, keyed by (netlist digest, device, package, speed grade, target
    frequency, seed, nextpnr version).

So adding a seed or a target frequency re-runs only nextpnr. Only successful tool runs are
cached: a timeout or a crash may be the machine's fault, and is retried.

An entry is a directory written under a temporary name and renamed into place, so an entry that
exists is complete; two processes filling the same entry at once both succeed and one copy wins.
"""

import hashlib
import json
import os
import shutil
import socket
import uuid
from functools import lru_cache
from importlib import metadata
from pathlib import Path

__all__ = ["STAGES", "StageCache", "stage_key", "code_fingerprint", "file_digest", "owner_tag"]

#: Cached stages, in flow order.
STAGES = ("design", "synth", "pnr")

#: Bumped when what an entry holds, or how a stage is run, changes.
CACHE_FORMAT = 1


def stage_key(stage: str, identity: dict) -> str:
    """Hash of a stage's input ``identity`` (plain JSON data)."""
    from . import __version__
    blob = json.dumps({"stage": stage, "format": CACHE_FORMAT, "aesdse": __version__,
                       **identity}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


@lru_cache(maxsize=None)
def code_fingerprint() -> str:
    """Digest of the source code that generates and verifies designs (``archs`` and the
    generate/verify/reference modules), so an edited architecture misses the design cache."""
    import archs
    roots = [Path(archs.__file__).parent]
    here = Path(__file__).parent
    files = sorted(p for root in roots for p in root.rglob("*.py"))
    files += [here / n for n in ("generate.py", "verify.py", "reference.py", "vectors.py")]
    h = hashlib.sha256()
    try:  # the HDL's version changes the netlist as much as the architecture's code does
        h.update(metadata.version("amaranth").encode() + b"\0")
    except metadata.PackageNotFoundError:
        pass
    for path in files:
        try:
            h.update(str(path.relative_to(path.parents[1])).encode() + b"\0")
            h.update(path.read_bytes())
        except (OSError, ValueError):
            continue
    return h.hexdigest()[:24]


def owner_tag() -> str:
    """``<pid>@<host>``: ends every temporary name, so that leftovers of dead processes can be
    told from work in progress (:func:`aesdse.sweep.clean_stale`)."""
    return f"{os.getpid()}@{socket.gethostname()}"


def file_digest(path) -> str:
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class StageCache:
    """Cache entries under ``root`` (``results/cache``); ``enabled=False`` makes every lookup
    miss and every store a no-op."""

    def __init__(self, root, enabled: bool = True):
        self.root = Path(root)
        self.enabled = enabled

    def entry(self, stage: str, key: str) -> Path:
        return self.root / stage / key

    def get(self, stage: str, key: str) -> Path | None:
        """The entry directory, or None on a miss. Its ``meta.json`` is read with :meth:`meta`."""
        if not self.enabled:
            return None
        path = self.entry(stage, key)
        return path if (path / "meta.json").is_file() else None

    @staticmethod
    def meta(path: Path) -> dict:
        return json.loads((path / "meta.json").read_text())

    def put(self, stage: str, key: str, files: dict, meta: dict) -> Path | None:
        """Store an entry: ``files`` maps entry file name -> source path (copied) or str/bytes
        (written). Returns the entry, or None when disabled or the disk refused."""
        if not self.enabled:
            return None
        final = self.entry(stage, key)
        if (final / "meta.json").is_file():
            return final
        tmp = final.parent / f".tmp-{key}-{uuid.uuid4().hex[:8]}-{owner_tag()}"
        try:
            tmp.mkdir(parents=True)
            for name, source in files.items():
                if isinstance(source, (str, bytes)):
                    data = source.encode() if isinstance(source, str) else source
                    (tmp / name).write_bytes(data)
                else:
                    # A hard link: the run directory and the entry share the (large) file.
                    try:
                        os.link(source, tmp / name)
                    except OSError:
                        shutil.copyfile(source, tmp / name)
            # meta.json last: the mark of a complete entry (the rename below is what publishes it).
            (tmp / "meta.json").write_text(json.dumps(meta, sort_keys=True))
            try:
                tmp.rename(final)
            except OSError:
                # Another process published the same entry first: same inputs, same content.
                pass
        except OSError:
            return None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return final if (final / "meta.json").is_file() else None

    @staticmethod
    def copy_out(entry: Path, name: str, dest: Path) -> None:
        """Put ``entry/name`` at ``dest``, as a hard link when possible (no copy of large
        netlists), else as a copy."""
        src = entry / name
        dest.unlink(missing_ok=True)
        try:
            os.link(src, dest)
        except OSError:
            shutil.copyfile(src, dest)
