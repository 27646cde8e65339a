"""Where aesdse may write or delete for a stored row: nothing named in a row leaves its place.

A row's columns come from files that other people write (``aesdse db import``) and databases
that other programs may have changed, so no column is used as a path to write or delete:

- :func:`own_artifact_dir`: ``db prune`` deletes only a row's own artifact directory: a real
  directory (not a link) named ``runs/<key>`` after its row's key, inside the database's
  directory or the results directory the user names, both resolved; a row that names anything
  else keeps its files where they are.
- :func:`export_file`: ``db export --by-experiment DIR`` writes ``DIR/<experiment>.jsonl`` only
  for an experiment name that is a plain name (:func:`aesdse.spec.schema.name_problem`) and a
  file that resolves inside ``DIR`` and is not a link.
"""

from pathlib import Path

from ..spec.schema import name_problem
from .rowcheck import KEY

__all__ = ["RUNS_DIR", "own_artifact_dir", "export_file", "PlaceError"]

#: Directory, in a results directory, of the per-point artifact directories (``runs/<key>``).
RUNS_DIR = "runs"


class PlaceError(ValueError):
    """A name from a row or a file would lead outside its directory."""


def own_artifact_dir(key: str, artifacts: str | None, roots) -> Path | None:
    """The artifact directory of row ``key`` that may be deleted, or None.

    That is the row's ``artifacts`` when it is a real directory (not a link) named
    ``runs/<key>`` whose resolved path lies inside one of the resolved ``roots``.

    Parameters
    ----------
    key : str
        The row's key.
    artifacts : str or None
        The row's ``artifacts`` column (as :class:`~aesdse.store.database.Store` returns it:
        absolute, or relative to the database's directory).
    roots : iterable of Path
        Directories whose artifacts may be deleted: the database's directory, and the results
        directory the user names.
    """
    if not artifacts or not isinstance(key, str) or not KEY.fullmatch(key):
        return None
    path = Path(artifacts)
    try:
        if not path.is_absolute() or path.is_symlink() or not path.is_dir():
            return None
        own = path.resolve()
        inside = any(own.is_relative_to(Path(root).resolve()) for root in roots)
    except (OSError, ValueError):  # a name too long, a NUL byte, a loop of links
        return None
    return own if inside and own.name == key and own.parent.name == RUNS_DIR else None


def export_file(directory: Path, experiment: str) -> Path:
    """``directory/<experiment>.jsonl``, checked to stay inside ``directory``.

    Raises
    ------
    PlaceError
        The experiment name is not a plain name, or the file would be a link or lie outside
        ``directory``.
    """
    problem = name_problem(experiment)
    if problem:
        raise PlaceError(f"experiment name {experiment[:60]!r} {problem}; it is not used as a "
                         f"file name (leave its rows out with --where, or export them with -o)")
    path = Path(directory) / f"{experiment}.jsonl"
    if path.is_symlink():
        raise PlaceError(f"{path} is a symbolic link; not writing through it")
    if path.resolve().parent != Path(directory).resolve():
        raise PlaceError(f"{path} lies outside {directory}")
    return path
