"""An exploration file -> :class:`ExplorePlan`: the space, the search settings, and the one
target, flow and verification every candidate is measured with.

The file is an experiment file (:mod:`aesdse.experiment`) with an ``explore:`` section
(:mod:`aesdse.explore.settings`); its ``architectures`` are the space, whose parameters may be
lists, ranges or ``all``. Everything else is validated by the experiment parser, on a copy of
the file whose architectures are the families at their defaults.
"""

from dataclasses import dataclass, replace
from pathlib import Path

from ..experiment import DesignPoint, ExperimentError, parse_document
from ..spec.schema import Target, FlowOptions, VerifyOptions
from ..spec.yamlcheck import LineDict, LineList, YamlError, line_of, load
from .settings import ExploreSettings, parse_explore, parse_space

__all__ = ["ExplorePlan", "load_plan", "parse_plan"]


@dataclass(frozen=True)
class ExplorePlan:
    """What ``aesdse explore`` searches and how.

    Attributes
    ----------
    name : str
        The experiment's name (rows are stored under it).
    path : str
    space : tuple of SpaceEntry
    settings : ExploreSettings
    target, flow, verify
        What every candidate is measured with; ``flow.seed`` is the first placer seed.
    """
    name: str
    path: str
    space: tuple
    settings: ExploreSettings
    target: Target
    flow: FlowOptions
    verify: VerifyOptions

    def point(self, arch: str, params: tuple, seed: int | None = None) -> DesignPoint:
        """The design point of a candidate (``params`` as the family's sorted pairs)."""
        flow = self.flow if seed is None else replace(self.flow, seed=seed)
        return DesignPoint(arch, params, self.target, flow, self.verify)


def _base_document(doc: LineDict, space) -> LineDict:
    """``doc`` without ``explore`` and with one default entry per architecture: what the
    experiment parser checks (targets, flow, verify) without the space's lists and ranges."""
    base = LineDict((k, v) for k, v in doc.items() if k != "explore")
    base.line, base.key_lines = doc.line, dict(doc.key_lines)
    entries = LineList({"arch": entry.arch} for entry in space)
    entries.line = line_of(doc, "architectures")
    entries.item_lines = [entry.line for entry in space]
    base["architectures"] = entries
    return base


def parse_plan(data, path: str = "<string>", overrides: dict | None = None) -> ExplorePlan:
    """Validate an exploration given as YAML text or bytes; ``overrides`` replace fields of
    the parsed :class:`ExploreSettings` (the command line's options).

    Raises
    ------
    ExperimentError
        ``path:line: message`` naming the allowed values.
    """
    try:
        doc = load(data)
        if not isinstance(doc, dict):
            raise YamlError(1, "an exploration must be a mapping with keys name, "
                               "architectures, explore, ...")
        if "explore" not in doc:
            raise YamlError(line_of(doc), "no explore: section (objectives, constraints, "
                                          "budget); `aesdse sweep` runs a plain experiment")
        space = parse_space(doc.get("architectures"), line_of(doc, "architectures"))
        settings = parse_explore(doc["explore"], line_of(doc, "explore"))
        experiment = parse_document(_base_document(doc, space), path)
    except YamlError as e:
        raise ExperimentError(f"{path}:{e.line}: {e.message}") from None
    measured = {(p.target, replace(p.flow, seed=0), p.verify) for p in experiment.points}
    if len(measured) != 1:
        raise ExperimentError(f"{path}:{line_of(doc, 'flow')}: an exploration measures every "
                              f"candidate on one target with one flow; give single values "
                              f"(placer seeds: explore: seeds)")
    first = experiment.points[0]
    if overrides:
        settings = replace(settings, **overrides)
    return ExplorePlan(name=experiment.name, path=str(path), space=space, settings=settings,
                       target=first.target, flow=first.flow, verify=first.verify)


def load_plan(path, overrides: dict | None = None) -> ExplorePlan:
    """Read and validate an exploration file (:func:`parse_plan`)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ExperimentError(f"{path}: cannot read: {e.strerror}") from None
    return parse_plan(data, str(path), overrides)
