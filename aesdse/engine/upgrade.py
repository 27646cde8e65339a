"""Carry stored rows over a change of generator fingerprint that left the netlist unchanged.

A row's key contains the generator fingerprint of its family
(:func:`aesdse.fingerprint.generator_fingerprint`), a digest of the source files that generate and
verify its designs *and of their paths*. Moving or reorganising those files changes every
fingerprint although no design changed; the rows would all be stale and every sweep would run
them again. :func:`carry_over` rebuilds the design point of each such row from its stored
configuration, generates its design again and, when the RTLIL is byte-identical (its digest
equals the row's ``rtlil_digest``), gives the row the current fingerprint and the key the current
code computes for it (with the row's own tool versions: a row measured by other tools stays
stale for them). Any other row is left as it is, stale.
"""

from dataclasses import dataclass, field

from ..experiment import DesignPoint
from ..fingerprint import generator_fingerprint
from ..flow.families import part_of
from ..generate import GenerateError, generate
from ..spec.schema import FlowOptions, SearchSettings, Target, VerifyOptions
from ..store.database import Row, Store

__all__ = ["CarryOver", "carry_over", "point_of_row", "target_of_label"]


@dataclass
class CarryOver:
    """What :func:`carry_over` did.

    Attributes
    ----------
    carried : list of dict
        ``{"old_key", "key", "arch", "target"}`` of each row given the current fingerprint.
    left : list of dict
        ``{"key", "arch", "target", "reason"}`` of each row left stale, with why.
    current : int
        Rows whose fingerprint was already current (not looked at).
    """
    carried: list = field(default_factory=list)
    left: list = field(default_factory=list)
    current: int = 0

    def as_dict(self) -> dict:
        return {"carried": self.carried, "left": self.left, "current": self.current}


def target_of_label(label: str) -> Target | None:
    """The :class:`~aesdse.spec.schema.Target` whose label is ``label``
    (``"LFE5U-85F-8CABGA381"``), or None when no known part, package and speed give it."""
    part = part_of(label)
    if part is None:
        return None
    for package in part.packages or (None,):
        for speed in part.speeds or (None,):
            target = Target(part.name, package, speed)
            if target.label == label:
                return target
    return None


def point_of_row(row: Row) -> DesignPoint:
    """The design point a stored row measured, from its configuration columns.

    Raises
    ------
    ValueError
        When the row's target, flow or verification options cannot be rebuilt.
    """
    target = target_of_label(row.target)
    if target is None:
        raise ValueError(f"unknown target {row.target!r}")
    if row.verify is None:
        raise ValueError("verification options not recorded")
    flow = dict(row.flow)
    if flow.get("fmax_search") is not None:
        flow["fmax_search"] = SearchSettings(**flow["fmax_search"])
    try:
        return DesignPoint(row.arch, tuple(sorted(row.params.items())), target,
                           FlowOptions(**flow), VerifyOptions(**row.verify))
    except TypeError as e:  # an option this code no longer knows
        raise ValueError(f"configuration not rebuilt: {e}") from None


def _design_digest(point: DesignPoint, digests: dict) -> str:
    """RTLIL digest of ``point``'s design, generated once per architecture, parameters and
    device family (seeds, frequencies and flow options share it)."""
    group = (point.arch, point.params, point.device_family)
    if group not in digests:
        digests[group] = generate(point).digest
    return digests[group]


def _carry_one(store: Store, row: Row, current: str, digests: dict) -> tuple[str, str]:
    """Carry ``row`` over if its design is unchanged: ``("carried", new key)`` or ``("left",
    reason)``."""
    if row.rtlil_digest is None:
        return "left", "no RTLIL digest stored (the design was never generated)"
    try:
        point = point_of_row(row)
        digest = _design_digest(point, digests)
    except (ValueError, GenerateError) as e:
        return "left", (str(e).splitlines() or [type(e).__name__])[0]
    except Exception as e:  # noqa: BLE001 -- a design this code cannot build stays stale
        return "left", f"not generated: {type(e).__name__}: {e}".splitlines()[0]
    if digest != row.rtlil_digest:
        return "left", "generated netlist changed"
    key = point.key(row.tool_versions)
    if not store.rekey(row.key, key, current):
        return "left", f"a row with the current key {key} is already stored"
    return "carried", key


def carry_over(store: Store) -> CarryOver:
    """Give every row whose generator fingerprint is not its family's current one, but whose
    design this code generates byte-identical, the current fingerprint and key.

    Rows are looked at newest first, so when two old rows of one configuration would take the
    same key, the newest takes it (the other stays, an older stale row). Fmax-search runs follow
    their row (:meth:`~aesdse.store.database.Store.rekey`); the artifacts stay where the row's
    ``artifacts`` column says.
    """
    out = CarryOver()
    digests: dict = {}
    for row in reversed(store.rows()):
        try:
            current = generator_fingerprint(row.arch)
        except ValueError:  # a family that no longer exists
            out.left.append({"key": row.key, "arch": row.arch, "target": row.target,
                             "reason": f"family {row.arch} no longer exists"})
            continue
        if row.generator == current:
            out.current += 1
            continue
        outcome, detail = _carry_one(store, row, current, digests)
        if outcome == "carried":
            out.carried.append({"old_key": row.key, "key": detail, "arch": row.arch,
                                "target": row.target})
        else:
            out.left.append({"key": row.key, "arch": row.arch, "target": row.target,
                             "reason": detail})
    return out
