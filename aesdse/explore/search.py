"""The search loop of ``aesdse explore``: ask the sampler, measure cheap first, tell it back.

How a run goes
--------------
1. The study is rebuilt from what is known: stored rows of candidates in the space (this
   exploration's own, from before a kill, and any other sweep's with the same key: *warm
   start*), reference rows, and the journal's pruned candidates (:mod:`aesdse.explore.journal`).
   None of them runs again.
2. While the budget lasts, every free slot of the evaluator gets a candidate at once (no
   batches): the sampler's suggestion (ask), repaired to a valid point
   (:mod:`aesdse.explore.space`), never one seen before. With ``synthesis_first`` it is
   synthesized first and pruned when synthesis shows it infeasible or dominated
   (:mod:`aesdse.explore.pruning`); else, or if it survives, it is placed and routed. Its row
   (or its pruning) is told to the sampler: objectives and constraint violations; a failed
   row is a failed trial.
3. Seeds are noise: each point of the front then gets its other placer seeds, and the front is
   reported on the median over its seeds, with the spread. With ``seed_racing: halving`` the
   seeds are raced by successive halving (Jamieson and Talwalkar 2016, on non-dominated ranks):
   every feasible design has its first seed; the better half (whole ranks, the front always
   among them) gets 2 seeds, the better half of those 4, and so on up to ``seeds``. A design
   whose first draw was unlucky, just behind the front, gets its second seed and may join the
   front on its median; the front's points end with every seed, as with ``front``.

The P&R budget counts the search's place-and-route runs; the extra seeds of step 3 are counted
and reported apart.
"""

import math
import random
import time
import warnings
from dataclasses import dataclass, field

from .front import (objective_vector, pareto_front, hypervolume, reference_point, row_values,
                    summarize_seeds, closest, closest_pruned, violation)
from .journal import Journal
from .pruning import FamilyBounds, optimistic, prune_reason
from .space import Candidate, SearchSpace

__all__ = ["Explorer", "ExploreResult", "make_sampler"]

#: Candidates synthesized per P&R run of the budget when the budget sets no ``points``.
SYNTHESES_PER_PNR_RUN = 10

#: Successive halving's rate (``seed_racing: halving``): each rung keeps the better
#: 1/HALVING_RATE of the designs before it (whole ranks) and gives them HALVING_RATE times the
#: placer seeds.
HALVING_RATE = 2

#: Suggestions in a row that may repeat seen points before a random unseen point is taken
#: (near the end of a small space the sampler proposes little else, and each ask costs).
REPEATS = 3


def make_sampler(name: str, seed: int, budget_points: int | None = None,
                 conditional: bool = False):
    """The Optuna sampler ``name`` (``tpe``, ``nsga2`` or ``random``); ``conditional``: the
    space has several architectures, whose parameters exist only with their ``arch`` (TPE
    then models each group of parameters that occur together apart)."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if name == "nsga2":
        population = max(4, min(50, (budget_points or 40) // 5))
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=population)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=8, multivariate=True,
                                          group=conditional, constant_liar=True)


@dataclass
class ExploreResult:
    """What an exploration found and what it cost.

    Attributes
    ----------
    front : list of DesignSummary
        The feasible designs no other dominates (on their median over seeds).
    rows : list of Row
        Every row known of the space's candidates (all seeds).
    evaluated, pruned, failed, repaired : int
        Candidates placed and routed by this exploration; pruned by synthesis; failed rows;
        suggestions the family rejected and that were repaired.
    pnr_runs, seed_runs : int
        Place-and-route runs of the search, and of the extra placer seeds (step 3).
    warm : int
        Candidates known before this exploration (stored or reference rows), not run again.
    stopped_by : str
        What ended the search: a budget, or ``space exhausted``.
    hypervolume : float
        Of the front, against :attr:`reference`.
    closest : list of Row
        When nothing is feasible: the ok rows nearest to meeting the constraints.
    interrupted : int
        Candidates stopped while running because the wall-time budget was spent (not stored:
        a resumed explore runs them again).
    closest_pruned : list of dict
        When nothing is feasible: the pruned candidates whose synthesis figures came nearest
        (``{"label", "why", "synthesis"}``; all that is known of a point pruned early).
    pruned_points : list of dict
        ``{"label", "why"}`` of each pruned candidate.
    """
    front: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    evaluated: int = 0
    pruned: int = 0
    failed: int = 0
    repaired: int = 0
    pnr_runs: int = 0
    seed_runs: int = 0
    warm: int = 0
    stopped_by: str = ""
    interrupted: int = 0
    hypervolume: float = 0.0
    reference: tuple | None = None
    closest: list = field(default_factory=list)
    closest_pruned: list = field(default_factory=list)
    pruned_points: list = field(default_factory=list)

    @property
    def infeasible(self) -> bool:
        return not self.front


class Explorer:
    """One exploration (module documentation).

    Parameters
    ----------
    plan : ExplorePlan
    evaluator
        :class:`~aesdse.explore.evaluators.EngineEvaluator` or
        :class:`~aesdse.explore.evaluators.TableEvaluator`.
    journal : Journal
    echo : callable, optional
        Prints the progress line after each finished candidate.
    sampler : optional
        An Optuna sampler (default: :func:`make_sampler` of the settings).
    """

    def __init__(self, plan, evaluator, journal: Journal | None = None, *, echo=None,
                 sampler=None):
        import optuna
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.plan, self.settings, self.evaluator = plan, plan.settings, evaluator
        self.journal = journal or Journal()
        self.echo = echo
        self.space = SearchSpace(plan.space, plan.settings.seed)
        self.study = optuna.create_study(
            directions=["minimize"] * len(self.settings.objectives),
            sampler=sampler or make_sampler(self.settings.sampler, self.settings.seed,
                                            self.settings.budget.points, len(plan.space) > 1))
        self.rng = random.Random(self.settings.seed)
        self.result = ExploreResult()
        self.rows: dict = {}  # candidate -> its rows, by seed
        self.seen: set = set()
        self.flight: dict = {}  # (candidate, seed) -> asked trial or None
        self.first_seed = plan.flow.seed
        self.depths: dict = {}  # candidate -> logic depth of its synthesized netlist
        self.row_depths: dict = {}  # row key -> logic depth (the families' depth models)
        self.generations: dict = {}  # candidate -> a genetic sampler's generation attrs
        self.started = time.monotonic()
        self._last_progress = None  # the progress line last printed

    # --- the study ------------------------------------------------------------------------

    def _add_trial(self, candidate: Candidate, values, constraints: list | None) -> None:
        """Record a finished candidate the sampler did not suggest as it is (repaired, drawn
        at random, known before; or rebuilt on resume, with the sampler's generation it had):
        ``values`` None is a failed trial."""
        import optuna
        from optuna.trial import TrialState
        params = self.space.trial_params(candidate)
        distributions = self.space.distributions(candidate.arch)
        trial = optuna.trial.create_trial(
            state=TrialState.COMPLETE if values is not None else TrialState.FAIL,
            values=list(values) if values is not None else None, params=params,
            distributions={k: distributions[k] for k in params},
            user_attrs={"candidate": candidate.label},
            system_attrs=self._generation_of(candidate) or None,
            constraints=({f"c{n}": v for n, v in enumerate(constraints)}
                         if constraints and values is not None else None))
        self.study.add_trial(trial)

    def _generation_of(self, candidate: Candidate) -> dict:
        """The generation attributes a genetic sampler (NSGA-II) keeps on ``candidate``'s trial:
        journaled ones (a resume), else the current generation (a trial the sampler did not
        ask for joins the population being built), else none (another sampler)."""
        if candidate in self.generations:
            return dict(self.generations[candidate])
        import optuna
        sampler = self.study.sampler
        if not isinstance(sampler, optuna.samplers.NSGAIISampler):
            return {}
        key = sampler._get_generation_key()   # "NSGAIISampler:generation" (optuna._ga)
        current = [t.system_attrs[key] for t in self.study.get_trials(deepcopy=False)
                   if key in t.system_attrs]
        return {key: max(current, default=0)}

    def _tell(self, candidate: Candidate, trial, values, constraints) -> None:
        """Tell the sampler a candidate's outcome, through its asked trial if it has one."""
        if trial is None:
            self._add_trial(candidate, values, constraints)
            self._journal_generation(candidate, -1)   # the trial just added
            return
        from optuna.trial import TrialState
        trial.set_user_attr("candidate", candidate.label)
        if values is None:
            self.study.tell(trial, state=TrialState.FAIL)
        else:
            for n, v in enumerate(constraints or []):
                trial.set_constraint(f"c{n}", v)
            self.study.tell(trial, list(values))
        self._journal_generation(candidate, trial.number)

    def _journal_generation(self, candidate: Candidate, number: int) -> None:
        """Journal the generation a genetic sampler (NSGA-II) gave trial ``number`` (-1: the
        last), so that a resumed study rebuilds its trials in their generations, and NSGA-II
        goes on from its last population instead of starting over with every rebuilt trial in
        none."""
        import optuna
        if not isinstance(self.study.sampler, optuna.samplers.NSGAIISampler):
            return
        # A study numbers its trials 0, 1, ...; no deep copies (study.trials makes one of every
        # trial, each time).
        frozen = self.study.get_trials(deepcopy=False)[number]
        attrs = {k: v for k, v in frozen.system_attrs.items() if k.endswith(":generation")}
        if attrs:
            self.generations[candidate] = attrs
            self.journal.add("generation", arch=candidate.arch, params=list(candidate.params),
                             attrs=attrs)

    def _constraints(self, values: dict) -> list:
        """Each constraint's violation relative to its bound (0: holds; an unknown value
        counts as far off), for the sampler."""
        out = []
        for c in self.settings.constraints:
            gap = c.violation(values.get(c.metric)) if c.metric else 0.0
            out.append(min(gap / max(abs(c.bound), 1e-9), 1e6))
        return out

    def _outcome(self, row) -> tuple:
        """``(values, constraints)`` of a row for the sampler (values None: failed)."""
        if row.status != "ok":
            return None, None
        values = row_values(row)
        return objective_vector(values, self.settings), self._constraints(values)

    # --- warm start and resume ------------------------------------------------------------

    def restore(self) -> None:
        """Rebuild the study from the known rows and the journal (step 1)."""
        for event in self.journal.of("generation"):
            self.generations[Candidate(event["arch"], tuple(map(tuple, event["params"])))] = \
                event["attrs"]
        mine = {(e["arch"], tuple(map(tuple, e["params"])), e["seed"])
                for e in self.journal.of("evaluated")}
        self.row_depths.update({e["key"]: e["logic_depth"]
                                for e in self.journal.of("evaluated") if e.get("logic_depth")})
        stored, reference = self.evaluator.known_rows(self.space)
        in_database = {id(row) for row in stored}
        for row in stored + reference:
            candidate = self.space.candidate(row.arch, row.params)
            self.rows.setdefault(candidate, []).append(row)
            own = (candidate.arch, candidate.params, row.seed)
            if own not in mine and row.experiment == self.plan.name \
                    and id(row) in in_database:
                # Stored under this exploration's name, but killed before its journal line:
                # its own (so the journal and the database agree again).
                self._journal_row(candidate, row)
                mine.add(own)
            if row.seed == self.first_seed and candidate not in self.seen:
                self.seen.add(candidate)
                self._add_trial(candidate, *self._outcome(row))
                if own in mine:
                    self.result.evaluated += 1
                    self.result.failed += row.status != "ok"
                else:
                    self.result.warm += 1
        for event in self.journal.of("pruned"):
            candidate = Candidate(event["arch"], tuple(map(tuple, event["params"])))
            if candidate not in self.seen:
                self.seen.add(candidate)
                self.result.pruned += 1
                self.result.pruned_points.append({"label": candidate.label,
                                                  "why": event["why"],
                                                  "synthesis": event.get("synthesis"),
                                                  "bound": event.get("bound")})
                self._add_trial(candidate, event.get("values"), event.get("constraints"))
        events = self.journal.of("evaluated")
        self.result.pnr_runs = sum(e["pnr"] for e in events if e["seed"] == self.first_seed)
        self.result.seed_runs = sum(e["pnr"] for e in events if e["seed"] != self.first_seed)
        self.result.repaired = len(self.journal.of("repaired"))

    # --- choosing candidates --------------------------------------------------------------

    def _budget_left(self) -> str | None:
        """The budget that is used up (counting candidates in flight), or None."""
        budget, r = self.settings.budget, self.result
        flying = len(self.flight)
        if budget.pnr_runs is not None and r.pnr_runs + flying >= budget.pnr_runs:
            return f"P&R budget ({budget.pnr_runs} runs)"
        points = budget.points
        if points is None and budget.pnr_runs is not None and self.settings.synthesis_first:
            # Synthesis is cheap, not free: without a points budget, at most this many
            # candidates per P&R run of the budget are synthesized.
            points = SYNTHESES_PER_PNR_RUN * budget.pnr_runs
        if points is not None and r.evaluated + r.pruned + flying >= points:
            return f"points budget ({points})"
        if budget.wall_s is not None and time.monotonic() - self.started >= budget.wall_s:
            return f"wall-time budget ({budget.wall_s:g} s)"
        return None

    def _next(self):
        """``(candidate, trial)`` of the next unseen candidate, or None (space exhausted)."""
        from optuna.trial import TrialState
        for _ in range(REPEATS):
            trial = self.study.ask()
            candidate, repaired = self.space.suggest(trial)
            if repaired:
                self.result.repaired += 1
                self.journal.add("repaired", arch=candidate.arch,
                                 params=list(candidate.params))
            if candidate in self.seen:
                self.study.tell(trial, state=TrialState.PRUNED)
                continue
            if repaired:  # recorded as the repaired point when it is measured
                self.study.tell(trial, state=TrialState.PRUNED)
                trial = None
            return candidate, trial
        candidate = self.space.unseen(self.seen, self.rng)
        return None if candidate is None else (candidate, None)

    def _submit(self, candidate: Candidate, trial, seed: int) -> None:
        self.seen.add(candidate)
        self.flight[(candidate, seed)] = trial
        stage = "synthesis" if self.settings.synthesis_first and seed == self.first_seed \
            else "point"
        self.evaluator.submit(candidate, seed, stage)

    # --- results --------------------------------------------------------------------------

    def _measured(self) -> list:
        """``(label, vector)`` of the feasible measured candidates (first seeds)."""
        out = []
        for candidate, rows in self.rows.items():
            for row in rows:
                if row.seed == self.first_seed and row.status == "ok" \
                        and violation(row_values(row), self.settings) == 0:
                    vector = objective_vector(row_values(row), self.settings)
                    if vector is not None:
                        out.append((candidate.label, vector))
        return out

    def _synthesized(self, candidate: Candidate, seed: int, figures) -> None:
        """A synthesis-only result: prune the candidate, or place and route it."""
        trial = self.flight.get((candidate, seed))
        why = bound = None
        if figures.status == "does-not-fit":
            why = f"does not fit: {figures.reason}"
        elif figures.status == "ok":
            family_rows = [r for c, rows in self.rows.items() if c.arch == candidate.arch
                           for r in rows]
            self.depths[candidate] = figures.logic_depth
            bounds = FamilyBounds(family_rows, self.row_depths)
            why = prune_reason(figures, bounds, self.settings, self._measured())
            # The best it could have reached (Fmax bound, LUT4 less the margin): where a
            # figure of the exploration draws a pruned point.
            bound = optimistic(figures, bounds, self.settings)
        if why is None:  # worth placing and routing (a failed design fails fast, stored)
            self.evaluator.submit(candidate, seed, "point")
            return
        del self.flight[(candidate, seed)]
        values = figures.values() if figures.status == "ok" else None
        vector = objective_vector(values, self.settings) if values else None
        constraints = self._constraints(values) if vector is not None else None
        self.result.pruned += 1
        self.result.pruned_points.append({"label": candidate.label, "why": why,
                                          "synthesis": values, "bound": bound})
        self.journal.add("pruned", arch=candidate.arch, params=list(candidate.params), why=why,
                         synthesis=values, values=list(vector) if vector is not None else None,
                         constraints=constraints, bound=bound)
        self._tell(candidate, trial, vector, constraints)

    def _routed(self, candidate: Candidate, seed: int, row) -> None:
        """A whole point's row (or the error that kept it from being stored)."""
        trial = self.flight.pop((candidate, seed), None)
        first = seed == self.first_seed
        if isinstance(row, BaseException):
            self.result.failed += first
            if first:
                self._tell(candidate, trial, None, None)
            return
        self.rows.setdefault(candidate, []).append(row)
        ran_pnr = self._journal_row(candidate, row)
        if not first:
            self.result.seed_runs += ran_pnr
            return
        self.result.evaluated += 1
        self.result.pnr_runs += ran_pnr
        self.result.failed += row.status != "ok"
        self._tell(candidate, trial, *self._outcome(row))

    def _journal_row(self, candidate: Candidate, row) -> bool:
        """Journal a stored row of this exploration; whether it took a place-and-route run."""
        ran_pnr = row.pnr_seconds is not None or (row.reason or "").startswith("nextpnr")
        depth = self.depths.get(candidate)
        if depth is not None:
            self.row_depths[row.key] = depth
        self.journal.add("evaluated", arch=candidate.arch, params=list(candidate.params),
                         seed=row.seed, key=row.key, status=row.status, pnr=bool(ran_pnr),
                         logic_depth=depth)
        return ran_pnr

    def _collect(self, timeout: float) -> None:
        for candidate, seed, stage, result in self.evaluator.poll(timeout):
            if stage == "synthesis":
                self._synthesized(candidate, seed, result)
            else:
                self._routed(candidate, seed, result)
            self._progress()

    # --- the run --------------------------------------------------------------------------

    def search(self) -> None:
        """Step 2: fill free slots with candidates until the budget or the space runs out."""
        exhausted = False
        while True:
            stopped = self._budget_left()
            while not exhausted and stopped is None \
                    and self.evaluator.in_flight < self.evaluator.slots:
                chosen = self._next()
                if chosen is None:
                    exhausted = True
                    break
                self._submit(*chosen, self.first_seed)
                stopped = self._budget_left()
            if not self.flight and self.evaluator.in_flight == 0:
                break
            if self._wall_out():
                self._interrupt()
                break
            self._collect(0.25)
        self.result.stopped_by = "space exhausted" if exhausted else \
            (self._budget_left() or "budget")

    def race_seeds(self) -> None:
        """Step 3: the other placer seeds (up to ``seeds``) of each front point; again for
        the points a new median brings onto the front, until the front keeps its seeds."""
        if self.settings.seeds <= 1:
            return
        for _ in range(self.settings.seeds * 4):
            wanted = self._wanted_seeds()
            missing = [(c, seed) for c, seed in wanted
                       if seed not in {r.seed for r in self.rows.get(c, [])}
                       and (c, seed) not in self.flight]
            if not missing:
                return
            for candidate, seed in missing:
                if self._wall_out():
                    break
                while self.evaluator.in_flight >= self.evaluator.slots and not self._wall_out():
                    self._collect(0.25)
                if self._wall_out():
                    break
                self.flight[(candidate, seed)] = None
                self.evaluator.submit(candidate, seed, "point")
            while self.flight or self.evaluator.in_flight:
                if self._wall_out():
                    self._interrupt()
                    return
                self._collect(0.25)
            if self._wall_out():
                return

    def _wanted_seeds(self) -> list:
        """``(candidate, seed)`` of every placer seed the racing rule asks for now, on the
        medians known (module documentation, step 3)."""
        def seeds_of(designs, count):
            return [(self.space.candidate(s.first.arch, s.first.params), self.first_seed + n)
                    for s in designs for n in range(1, count)]
        if self.settings.seed_racing == "front":
            return seeds_of(self._front(), self.settings.seeds)
        wanted, count, pool = [], 1, self._feasible()
        while count < self.settings.seeds and pool:
            count = min(self.settings.seeds, count * HALVING_RATE)
            pool = self._better_part(pool, math.ceil(len(pool) / HALVING_RATE))
            wanted += seeds_of(pool, count)
        return list(dict.fromkeys(wanted))      # a rung repeats the seeds of the one before

    def _better_part(self, designs: list, keep: int) -> list:
        """The designs of the best non-dominated ranks, whole ranks, until ``keep`` or more
        (the first rank, the front, always whole)."""
        def vector(summary):
            return objective_vector(summary.median, self.settings)
        ranked, rest = [], list(designs)
        while rest and (not ranked or len(ranked) < keep):
            rank = pareto_front(rest, vector)
            if not rank:
                break
            ranked += rank
            taken = {id(s) for s in rank}
            rest = [s for s in rest if id(s) not in taken]
        return ranked

    def _feasible(self) -> list:
        """Every design with an ok row, summarized over its seeds, whose median meets the
        constraints."""
        return [s for s in summarize_seeds([r for rows in self.rows.values() for r in rows])
                if violation(s.median, self.settings) == 0]

    def _wall_out(self) -> bool:
        """The wall-time budget is spent."""
        wall = self.settings.budget.wall_s
        return wall is not None and time.monotonic() - self.started >= wall

    def _interrupt(self) -> None:
        """Stop the candidates still running (the wall-time budget is spent): they are not
        stored and not told to the sampler, so a resumed explore runs them again."""
        self.result.interrupted += self.evaluator.in_flight
        self.evaluator.close(abort=True)
        self.flight.clear()

    def _front(self) -> list:
        """The feasible designs no other dominates, on their median over seeds."""
        return pareto_front(self._feasible(),
                            lambda s: objective_vector(s.median, self.settings))

    def _progress(self) -> None:
        if self.echo is None:
            return
        r = self.result
        front = self._front()
        line = (f"{self.plan.name}: {r.evaluated} evaluated, {r.pruned} pruned, {r.failed} "
                f"failed, front {len(front)}, hypervolume {self._hypervolume(front):.4g}, "
                f"P&R {r.pnr_runs}" + (f"/{self.settings.budget.pnr_runs}"
                                       if self.settings.budget.pnr_runs else "")
                + (f" (+{r.seed_runs} seeds)" if r.seed_runs else ""))
        if line != self._last_progress:  # a synthesis alone changes nothing it shows
            self._last_progress = line
            self.echo(line)

    def _hypervolume(self, front) -> float:
        vectors = [objective_vector(row_values(r), self.settings)
                   for rows in self.rows.values() for r in rows if r.status == "ok"]
        reference = reference_point(vectors)
        self.result.reference = reference
        if reference is None:
            return 0.0
        return hypervolume([objective_vector(s.median, self.settings) for s in front],
                           reference)

    def run(self) -> ExploreResult:
        """Restore, search, race the seeds of the front; the result."""
        try:
            self.restore()
            self.search()
            self.race_seeds()
        finally:
            self.evaluator.close()
        result = self.result
        result.rows = [r for rows in self.rows.values() for r in rows]
        result.front = self._front()
        result.hypervolume = self._hypervolume(result.front)
        if not result.front:
            result.closest = closest(result.rows, self.settings)
            result.closest_pruned = closest_pruned(result.pruned_points, self.settings)
        return result
