"""Which stored rows a report shows: rows selected by what they mean, not by recomputed keys.

A point's key includes its provenance (the generator's source fingerprint, tool versions), so
after an edit or a tool upgrade the keys an experiment computes no longer match the stored rows.
Reports therefore select by *configuration* (:meth:`aesdse.experiment.DesignPoint.config_key`:
architecture, parameters, target, flow options and seed). When several rows share a
configuration (made by different sources or tool versions), the newest is shown, the others are
counted (``older``), and a shown row whose provenance differs from the current checkout is
marked *stale* with the reasons (``generator changed``, ``yosys 0.70 -> 0.71``), never hidden.
``current_only`` keeps the strict behaviour: only rows whose key the current checkout computes.

The database is opened read-only; user conditions (``where``) go through
:meth:`aesdse.store.database.Store.select_keys`.
"""

from dataclasses import dataclass, field

from ..store.provenance import Checkout, stale_reasons
from ..store.database import Row, Store

__all__ = ["Selection", "select_rows"]


@dataclass
class Selection:
    """The rows a report shows, and what it should say about them.

    Attributes
    ----------
    rows : list of Row
        The newest row of each selected configuration, oldest first.
    older : dict
        Configuration key -> rows of that configuration not shown (older ones).
    stale : dict
        Row key -> reasons the row no longer matches the current checkout (shown rows only;
        absent when current).
    missing : int
        Points of the experiment with no row at all.
    total : int
        Points of the experiment (0 without one).
    title : str or None
        The experiment's name.
    """
    rows: list = field(default_factory=list)
    older: dict = field(default_factory=dict)
    stale: dict = field(default_factory=dict)
    missing: int = 0
    total: int = 0
    title: str | None = None

    def provenance(self, row: Row) -> tuple[list, int]:
        """``(stale reasons, older rows)`` of a shown row."""
        return self.stale.get(row.key, []), self.older.get(row.config_key, 0)


def select_rows(store: Store, experiment=None, *, arch: str | None = None,
                target: str | None = None, where: str | None = None,
                current_only: bool = False, checkout: Checkout) -> Selection:
    """The rows of ``experiment`` (all rows if None) that pass the filters.

    Parameters
    ----------
    experiment : Experiment, optional
    arch : str, optional
        Only this architecture.
    target : str, optional
        A device (``LFE5U-85F``: every package and speed grade) or a full target label.
    where : str, optional
        A user's SQL condition (:meth:`aesdse.store.database.Store.select_keys`), on the shown rows.
    current_only : bool
        Only rows whose key the current checkout computes for the experiment's points (without
        an experiment: rows whose generator and tools are the current ones): no stale rows, no
        older ones.
    checkout : Checkout
        What the current checkout records (:func:`aesdse.fingerprint.current_checkout`): rows
        that differ are stale.

    Raises
    ------
    aesdse.store.database.WhereError
        For a bad ``where``.
    """
    tools = checkout.tools
    sel = Selection(title=experiment.name if experiment is not None else None)
    if experiment is not None and experiment.space:  # an exploration: what it evaluated
        rows = store.rows(where="experiment = ?", params=(experiment.name,))
        if current_only:
            rows = [r for r in rows
                    if not stale_reasons(r.generator, r.tool_versions, r.arch, checkout)]
    elif experiment is not None:
        sel.total = len(experiment.points)
        if current_only:
            rows = store.rows([p.key(tools) for p in experiment.points])
        else:
            rows = store.rows_by_config({p.config_key() for p in experiment.points})
    else:
        rows = store.rows()
        if current_only:  # no experiment to compute keys from: compare each row's provenance
            rows = [r for r in rows
                    if not stale_reasons(r.generator, r.tool_versions, r.arch, checkout)]
    newest: dict = {}
    for row in rows:  # oldest first: the last row of a configuration is its newest
        if row.config_key in newest:
            sel.older[row.config_key] = sel.older.get(row.config_key, 0) + 1
        newest[row.config_key] = row
    shown = list(newest.values())
    if experiment is not None and not experiment.space:
        sel.missing = len({p.config_key() for p in experiment.points} - set(newest))
    if arch:
        shown = [r for r in shown if r.arch == arch]
    if target:
        # A label is DEVICE-SPEEDPACKAGE (experiment.Target.label): a device name matches all.
        shown = [r for r in shown if r.target == target or r.target.startswith(f"{target}-")]
    if where:
        keys = store.select_keys(where)
        shown = [r for r in shown if r.key in keys]
    sel.rows = sorted(shown, key=lambda r: (r.created_at or "", r.key))
    if not current_only:
        for row in sel.rows:
            reasons = stale_reasons(row.generator, row.tool_versions, row.arch, checkout)
            if reasons:
                sel.stale[row.key] = reasons
    shown_configs = {r.config_key for r in sel.rows}
    sel.older = {c: n for c, n in sel.older.items() if c in shown_configs}
    return sel
