"""Which backend plays the verify stage's scripts, and which checks options left unset mean.

:func:`resolved_backend` reads ``"auto"`` (and the environment variable :data:`BACKEND_ENV`);
:func:`plays_compiled` says whether the backend chosen plays on a compiled model (Verilator,
CXXRTL) or on amaranth.sim; :func:`resolved_options` gives the checks left unset in
:class:`aesdse.spec.schema.VerifyOptions` the defaults of that backend
(:data:`aesdse.spec.schema.COMPILED_CHECKS` or :data:`aesdse.spec.schema.AMARANTH_CHECKS`).
Every consumer of the checks (:mod:`aesdse.verify.vectors`, :mod:`aesdse.verify.blocks`,
:func:`aesdse.verify.verify.verify_component`, :class:`aesdse.experiment.DesignPoint`) resolves
them so.
"""

import functools
import os

from ..spec.schema import VERIFY_BACKENDS, VerifyOptions
from .compiler import CompileError, find_compiler, verilator_root

__all__ = ["BACKEND_ENV", "resolved_backend", "plays_compiled", "resolved_options"]

#: Environment variable naming the backend ``"auto"`` means for a whole run (unset: Verilator
#: when available, else amaranth.sim).
BACKEND_ENV = "AESDSE_VERIFY_BACKEND"


def resolved_backend(backend: str) -> str:
    """``backend`` checked, with ``"auto"`` replaced by the backend :data:`BACKEND_ENV` names
    when that is set (``"auto"`` otherwise: Verilator when found, else amaranth.sim)."""
    if backend not in VERIFY_BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(VERIFY_BACKENDS)}, not {backend!r}")
    chosen = os.environ.get(BACKEND_ENV)
    if backend != "auto" or not chosen:
        return backend
    if chosen not in VERIFY_BACKENDS or chosen == "auto":
        raise ValueError(f"{BACKEND_ENV} must be one of "
                         f"{', '.join(b for b in VERIFY_BACKENDS if b != 'auto')}, "
                         f"not {chosen!r}")
    return chosen


@functools.lru_cache(maxsize=None)
def _verilator_found(cxx: str | None, path: str | None) -> bool:
    """Verilator and a C++ compiler are found (cached per ``AESDSE_CXX`` and ``PATH``: a point
    of an experiment asks, and there may be thousands)."""
    try:
        verilator_root()
        find_compiler()
    except CompileError:
        return False
    return True


def plays_compiled(backend: str) -> bool:
    """Whether the verify stage of ``backend`` (as :func:`aesdse.verify.verify.select_player`
    chooses it) plays on a compiled model: ``"verilator"`` and ``"cxxrtl"`` do, ``"amaranth"`` does not, ``"auto"``
    does when Verilator and a compiler are found (or :data:`BACKEND_ENV` names another)."""
    backend = resolved_backend(backend)
    if backend == "auto":
        return _verilator_found(os.environ.get("AESDSE_CXX"), os.environ.get("PATH"))
    return backend != "amaranth"


def resolved_options(options: VerifyOptions) -> VerifyOptions:
    """``options`` with the checks left unset given the defaults of the backend that will play
    them (:meth:`aesdse.spec.schema.VerifyOptions.resolved`, :func:`plays_compiled`)."""
    return options if options.is_resolved else options.resolved(plays_compiled(options.backend))
