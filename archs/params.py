"""Design-space parameters of the architecture families, each declared once.

A family's class states its parameters as a tuple of :class:`Param` (its ``PARAMS``); the
registry (:data:`archs.FAMILIES`) lists them, the experiment loader offers their ``choices``, and
the class's ``check`` and constructor take their defaults and per-value rules from them through
:func:`bind`. What depends on several parameters at once (an S-box family's pipeline stages, the
round units that divide the round count) stays in the family's own ``check``.

The parameters several families take (the S-box family and its pipeline stages) are declared
here (``*_PARAM``); a family whose documentation of one differs replaces only the ``doc``
(:func:`dataclasses.replace`). A feature that is off unless asked for is a :func:`switch`; a
part of a core whose options are some of the core's parameters picks them out with
:meth:`PartOptions.of`.
"""

from dataclasses import dataclass, fields
from types import SimpleNamespace
from typing import Any

from .prims.sbox import SBOX_KINDS, SBOX_STAGES

__all__ = ["Param", "switch", "bind", "PartOptions", "SBOX_PARAM", "SBOX_STAGES_PARAM"]


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
    omitted_at_default : bool
        A parameter added after results were stored: at its default a design point does not
        record it (:meth:`archs.Family.point_params`), so the configuration keys of rows made
        before it existed, which had the default behaviour, still match.
    error : str or None
        The rule for one value, in words (``"Streams must be 1 or 2"``): :meth:`check` raises
        ``ValueError("<error>, not <value>")`` for a value outside :attr:`accepted`. None: the
        family's ``check`` judges the value together with others (e.g. pipeline stages, which
        depend on the S-box family).
    values : tuple or None
        Values the constructor accepts when they are more than the ``choices`` experiments
        offer (the CTR mode of :class:`archs.compact.Compact`, tested on its own); None: the
        choices.
    """
    name: str
    choices: tuple
    default: Any
    doc: str
    omitted_at_default: bool = False
    error: str | None = None
    values: tuple | None = None

    @property
    def accepted(self) -> tuple:
        """The values the constructor accepts."""
        return self.choices if self.values is None else self.values

    def check(self, value) -> None:
        """Raise ``ValueError`` (:attr:`error`) for a value outside :attr:`accepted`.

        ``True`` is not ``1``: a value must equal an accepted one and be a bool exactly when
        that one is."""
        if self.error is None:
            return
        if not any(value == v and isinstance(value, bool) == isinstance(v, bool)
                   for v in self.accepted):
            raise ValueError(f"{self.error}, not {value!r}")


def switch(name: str, doc: str, *, error: str | None = None, omitted_at_default: bool = True,
           **kw) -> Param:
    """A parameter that turns one feature on: ``False`` (the default) or ``True``.

    Off is the design as it was before the switch existed, so by default a point does not
    record the switch at its default (:attr:`Param.omitted_at_default`). ``error`` is by default
    ``"<name in words> must be false or true"`` (``lean_control``: ``"Lean control ..."``).
    """
    if error is None:
        error = f"{name.replace('_', ' ').capitalize()} must be false or true"
    return Param(name, (False, True), False, doc, omitted_at_default=omitted_at_default,
                 error=error, **kw)


def bind(params: tuple, given: dict, owner: str) -> SimpleNamespace:
    """The values of ``params`` for the keyword arguments ``given``: each one given or its
    default, checked by :meth:`Param.check` in declaration order.

    Raises
    ------
    TypeError
        For a keyword that is not a parameter, as for a constructor without it (``owner`` is
        the class name).
    ValueError
        For a value its :class:`Param` does not accept.
    """
    names = {p.name for p in params}
    for name in given:
        if name not in names:
            raise TypeError(f"{owner}() got an unexpected keyword argument {name!r}")
    values = {}
    for p in params:
        values[p.name] = value = given.get(p.name, p.default)
        p.check(value)
    return SimpleNamespace(**values)


class PartOptions:
    """Base of a dataclass that holds the options of one part of a core (the datapath, the key
    path, the control of :class:`archs.unrolled.Unrolled`): its fields are named as the core's
    parameters it takes."""

    @classmethod
    def of(cls, values, **given):
        """The part's options among the core's bound parameter ``values`` (:func:`bind`);
        ``given``: the fields that are not parameters (a datapath's round count)."""
        return cls(**given, **{f.name: getattr(values, f.name) for f in fields(cls)
                               if f.name not in given})


#: The S-box family of a core's S-boxes (:mod:`archs.prims.sbox`).
SBOX_PARAM = Param("sbox", tuple(SBOX_KINDS), "lut",
             "S-box implementation family (archs.prims.sbox)",
             error=f"S-box family must be one of {', '.join(SBOX_KINDS)}")

#: Pipeline registers inside each S-box; which counts a family takes is the S-box family's rule
#: (:func:`archs.prims.sbox.sbox_latency`), judged by the core's ``check``.
SBOX_STAGES_PARAM = Param("sbox_stages",
                          tuple(sorted({n for counts in SBOX_STAGES.values() for n in counts})), 0,
                          "pipeline registers inside each S-box (logic families only)")
