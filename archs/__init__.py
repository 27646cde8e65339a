"""The AES hardware of aesdse: one module per architecture family, shared primitives in ``prims``.

:data:`FAMILIES` is the explicit registry the tool reads: every family states its parameters with
their allowed values and defaults, what kind of verification it needs, and what it supports (key
sizes, directions, modes), so the CLI, the YAML validator and the manifest all come from one place.
"""

from dataclasses import dataclass, field
from typing import Any, Callable

from .prims.sbox import SBOX_FAMILIES

__all__ = ["Param", "Family", "FAMILIES", "family"]


@dataclass(frozen=True)
class Param:
    """One parameter of an architecture family.

    Attributes
    ----------
    name : str
        Keyword argument of the family's constructor.
    choices : tuple
        Allowed values; the first is not special, ``default`` is.
    default : Any
        Value used when an experiment does not set the parameter.
    doc : str
        One line for ``aesdse list archs``.
    """
    name: str
    choices: tuple
    default: Any
    doc: str


@dataclass(frozen=True)
class Family:
    """An architecture family: how to build it and how to verify it.

    Attributes
    ----------
    name : str
        Registry name, used in YAML and on the command line.
    build : callable
        ``build(target=..., **params)`` returns the :class:`amaranth.lib.wiring.Component`;
        ``target`` is the device family the netlist is for: ``"generic"`` (simulation, portable
        Verilog) or a device family such as ``"ecp5"`` (may instantiate device primitives with
        the same cycle behaviour as the generic build).
    params : tuple of Param
        The parameters and their allowed values.
    kind : str
        ``"cipher"`` (the common AES interface of :mod:`archs.interface`, verified by the block
        testbench) or ``"sbox"`` (a standalone S-box with ``i``/``o`` bytes, verified exhaustively).
    doc : str
        One-line description with the paper it follows.
    key_sizes, directions, modes : tuple
        What the core supports, for the manifest.
    """
    name: str
    build: Callable[..., Any]
    params: tuple
    kind: str
    doc: str
    key_sizes: tuple = (128,)
    directions: tuple = ("encrypt",)
    modes: tuple = ("ecb",)
    hidden: tuple = field(default=())

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}


def _iterative(target="generic", **params):
    from .iterative import Iterative
    return Iterative(target=target, **params)


_SBOX_PARAM = Param("sbox", tuple(SBOX_FAMILIES), "lut",
                    "S-box implementation family (archs.prims.sbox)")

#: Family name -> :class:`Family`.
FAMILIES = {
    "iterative": Family(
        name="iterative", build=_iterative, kind="cipher",
        doc="AES-128 encryption, 128-bit datapath, one round per step, on-the-fly key expansion",
        params=(
            _SBOX_PARAM,
            Param("sbox_stages", (0,), 0, "pipeline registers inside each S-box"),
        )),
}


def family(name: str) -> Family:
    """Look up a family by name; ``ValueError`` names the known ones."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f"Architecture must be one of {', '.join(sorted(FAMILIES))}, "
                         f"not {name!r}") from None
