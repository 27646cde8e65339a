"""``aesdse explore``: a constrained multi-objective search of the design space.

Modules, in the order of the data flow: :mod:`.settings` (the ``explore:`` section and the
space), :mod:`.plan` (an exploration file), :mod:`.space` (the sampler's parameters and the
repair of invalid suggestions), :mod:`.evaluators` (the engine, or a table replay),
:mod:`.pruning` (cheap first), :mod:`.search` (the loop), :mod:`.front` (Pareto front and
hypervolume), :mod:`.journal` (the state kept next to the database), :mod:`.output` (the front
as a table and JSON). docs/explore.md says how it works and what is measured.
"""

from pathlib import Path

__all__ = ["explore"]


def explore(plan, store, results_dir, *, db_path=None, executor: str = "local", jobs: int = 1,
            scheduler: str | None = None, use_cache: bool = True, echo=None,
            reference=None, processes: bool = True):
    """Run the exploration ``plan`` against ``store`` (module documentation); returns its
    :class:`~aesdse.explore.search.ExploreResult`.

    Parameters
    ----------
    db_path : path, optional
        The database's file: the journal is kept beside it (default: ``store.path``).
    executor, jobs, scheduler, use_cache
        As ``aesdse sweep``.
    reference : list of path, optional
        Reference result files whose rows warm-start the search.
    """
    from .evaluators import EngineEvaluator
    from .journal import Journal, journal_path
    from .search import Explorer
    evaluator = EngineEvaluator(plan, store, results_dir, executor=executor, jobs=jobs,
                                scheduler=scheduler, use_cache=use_cache, processes=processes,
                                reference=reference)
    journal = Journal(journal_path(Path(db_path or store.path), plan.name))
    return Explorer(plan, evaluator, journal, echo=echo).run()
