"""Which RTLIL a design converts to, remembered beside the compiled models.

A compiled model is found in the model cache by the digest of the core's RTLIL (with the backend,
compiler and flags). Getting that digest means elaborating the core and converting it to RTLIL,
which for a large core is most of a verify stage that finds its model cached (the T-box core:
several seconds of Amaranth's conversion before a model that plays in about one). A caller that
can name the design by what determines its RTLIL, its *identity* (the sweep: the generator
fingerprint of the family's sources, the family, its parameters and the device family it is
built for), lets the verify stage look the digest up here instead.

Only the lookup trusts the identity: a model is still built from the RTLIL actually converted
and stored under that RTLIL's own digest, so a wrong or stale identity can at worst pick a model
of another design whose cache entry exists, which is why the identity must name everything that
decides the RTLIL (the generator fingerprint covers the sources and the Amaranth version).

Entries are small files ``designs/<sha256 of the identity>`` holding the RTLIL's SHA-256, written
whole (a temporary file renamed into place), so concurrent runs may share the cache.
"""

import hashlib
import os
import tempfile
from pathlib import Path

__all__ = ["rtlil_digest", "known_digest", "remember_digest"]


def rtlil_digest(text: str) -> str:
    """SHA-256 (hex) of an RTLIL text: the design's part of a model's cache key."""
    return hashlib.sha256(text.encode()).hexdigest()


def _entry(cache_dir: Path, identity: str) -> Path:
    return Path(cache_dir) / "designs" / hashlib.sha256(identity.encode()).hexdigest()


def known_digest(cache_dir: Path, identity: str) -> str | None:
    """The RTLIL digest remembered for ``identity``, or None."""
    try:
        digest = _entry(cache_dir, identity).read_text().strip()
    except OSError:
        return None
    return digest if len(digest) == 64 and all(c in "0123456789abcdef" for c in digest) else None


def remember_digest(cache_dir: Path, identity: str, digest: str) -> None:
    """Remember that ``identity`` converts to RTLIL of SHA-256 ``digest``."""
    entry = _entry(cache_dir, identity)
    entry.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".entry-")
    with os.fdopen(handle, "w") as f:
        f.write(digest + "\n")
    os.replace(temporary, entry)
