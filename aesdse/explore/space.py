"""The searched space as the sampler sees it, and the repair of a suggestion the family rejects.

Implementation notes
--------------------
Optuna's distributions are fixed per parameter name for the whole study, while a family's
rules ("pipeline stages only with a logic S-box") make the valid values of one parameter depend
on the others. So each free parameter gets one fixed categorical distribution over its candidate
values, named ``<arch>.<parameter>`` (an architecture choice ``arch`` when the space has more
than one), and a suggestion that :meth:`archs.Family.check_params` rejects is *repaired*: from a
valid start of the entry (its defaults, else a valid point found by sampling the space), the
suggested values are applied one at a time, in an order drawn from the trial number, each kept
only if the family accepts the point so far. The repaired point is what is built and recorded
as the trial; the suggestions that needed it are counted. Invalid combinations are never
built.
"""

import random
from dataclasses import dataclass

import archs

__all__ = ["Candidate", "SearchSpace", "EmptySpace"]

#: Entries of at most this many combinations are enumerated (valid points listed once).
ENUMERATE_LIMIT = 20_000


class EmptySpace(ValueError):
    """An architectures entry of the space holds no combination its family accepts."""


@dataclass(frozen=True)
class Candidate:
    """One design of the space: an architecture and its parameters as sorted (name, value)
    pairs (:meth:`archs.Family.point_params`), so candidates hash and compare by value."""
    arch: str
    params: tuple

    @property
    def label(self) -> str:
        return self.arch + "".join(f" {k}={v}" for k, v in self.params)


class SearchSpace:
    """The space of an exploration (its :class:`~aesdse.explore.settings.SpaceEntry` tuple).

    Parameters
    ----------
    entries : tuple of SpaceEntry
    seed : int
        Seeds the search for a valid start and the repair order.
    """

    def __init__(self, entries, seed: int = 1):
        self.entries = {entry.arch: entry for entry in entries}
        self.seed = seed
        self._starts: dict = {}
        self._valid: dict = {}

    def distributions(self, arch: str | None = None) -> dict:
        """Optuna distributions: the architecture (when several) and the free parameters of
        ``arch`` (all architectures when None)."""
        from optuna.distributions import CategoricalDistribution
        out = {}
        if len(self.entries) > 1:
            out["arch"] = CategoricalDistribution(tuple(self.entries))
        for name, entry in self.entries.items():
            if arch is not None and name != arch:
                continue
            for param, values in entry.domains:
                if len(values) > 1:
                    out[f"{name}.{param}"] = CategoricalDistribution(values)
        return out

    def trial_params(self, candidate: Candidate) -> dict:
        """A candidate as the sampler's parameters (for trials built from stored rows)."""
        out = {"arch": candidate.arch} if len(self.entries) > 1 else {}
        given = {**archs.FAMILIES[candidate.arch].defaults(), **dict(candidate.params)}
        entry = self.entries[candidate.arch]
        for param, values in entry.domains:
            if len(values) > 1:
                out[f"{candidate.arch}.{param}"] = given[param]
        return out

    def contains(self, arch: str, params: dict) -> bool:
        """Whether a stored point (``arch``, its full ``params``) lies in the space."""
        entry = self.entries.get(arch)
        if entry is None:
            return False
        fam = archs.FAMILIES[arch]
        full = {**fam.defaults(), **params}
        return all(full.get(name) in values for name, values in entry.domains)

    def candidate(self, arch: str, params: dict) -> Candidate:
        fam = archs.FAMILIES[arch]
        return Candidate(arch, fam.point_params({**fam.defaults(), **params}.items()))

    def suggest(self, trial) -> tuple[Candidate, bool]:
        """Ask ``trial`` (an Optuna trial) for a point; returns the valid candidate and whether
        the suggestion had to be repaired."""
        arch = trial.suggest_categorical("arch", tuple(self.entries)) \
            if len(self.entries) > 1 else next(iter(self.entries))
        entry = self.entries[arch]
        values = {}
        for param, domain in entry.domains:
            values[param] = trial.suggest_categorical(f"{arch}.{param}", domain) \
                if len(domain) > 1 else domain[0]
        return self.repair(arch, values, trial.number)

    def repair(self, arch: str, values: dict, number: int) -> tuple[Candidate, bool]:
        """The suggested ``values`` if the family accepts them, else the walk of the module
        documentation from a valid start; ``(candidate, repaired)``."""
        fam = archs.FAMILIES[arch]
        if fam.check_params(dict(values)) is None:
            return self.candidate(arch, values), False
        point = dict(self.start(arch))
        order = [p for p, domain in self.entries[arch].domains if len(domain) > 1]
        random.Random(self.seed * 1_000_003 + number).shuffle(order)
        for param in order:
            trial = dict(point, **{param: values[param]})
            if fam.check_params(trial) is None:
                point = trial
        return self.candidate(arch, point), True

    def start(self, arch: str) -> dict:
        """A valid point of ``arch``'s entry: its defaults (each fixed parameter at its value),
        else one found by sampling the entry."""
        if arch in self._starts:
            return self._starts[arch]
        fam, entry = archs.FAMILIES[arch], self.entries[arch]
        defaults = fam.defaults()
        point = {p: (defaults[p] if defaults[p] in domain else domain[0])
                 for p, domain in entry.domains}
        if fam.check_params(point) is not None:
            valid = self.valid_points(arch)
            if valid:
                point = dict(valid[0].params)
            else:
                rng = random.Random(self.seed)
                for _ in range(5000):
                    point = {p: rng.choice(domain) for p, domain in entry.domains}
                    if fam.check_params(point) is None:
                        break
                else:
                    raise EmptySpace(f"the space of {arch} (line {entry.line}) holds no "
                                     f"combination {arch} accepts in 5,000 samples")
        self._starts[arch] = point
        return point

    def valid_points(self, arch: str) -> list | None:
        """Every valid candidate of ``arch``'s entry, when it has at most
        :data:`ENUMERATE_LIMIT` combinations (else None)."""
        if arch in self._valid:
            return self._valid[arch]
        entry = self.entries[arch]
        if entry.size > ENUMERATE_LIMIT:
            self._valid[arch] = None
            return None
        import itertools
        fam = archs.FAMILIES[arch]
        names = [p for p, _ in entry.domains]
        found = []
        for combo in itertools.product(*(domain for _, domain in entry.domains)):
            values = dict(zip(names, combo))
            if fam.check_params(values) is None:
                found.append(self.candidate(arch, values))
        if not found:
            raise EmptySpace(f"the space of {arch} (line {entry.line}) holds no combination "
                             f"{arch} accepts")
        self._valid[arch] = found
        return found

    def unseen(self, seen: set, rng: random.Random) -> Candidate | None:
        """A valid candidate not in ``seen`` (when the sampler keeps proposing known points):
        drawn from the enumerated points, else by sampling and repair; None when every
        enumerable entry is exhausted."""
        pools = []
        for arch in self.entries:
            valid = self.valid_points(arch)
            if valid is None:
                entry = self.entries[arch]
                for n in range(200):
                    values = {p: rng.choice(domain) for p, domain in entry.domains}
                    candidate, _ = self.repair(arch, values, rng.randrange(1 << 30))
                    if candidate not in seen:
                        return candidate
            else:
                pools += [c for c in valid if c not in seen]
        return rng.choice(pools) if pools else None
