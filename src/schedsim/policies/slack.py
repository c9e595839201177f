"""Slack-based fair backfilling (W. Jin, "Backfilling with Fairness and Slack for Parallel Job
Scheduling", MSc thesis, University of Windsor, 2009, sec. 4.2-4.3), on a plain machine.

* Every job gets a fair start time FST at submission (sec. 4.3.1, Fig. 5): the earlier
  waiting jobs are placed conservatively, then the job goes "in the back of fragments",
  no earlier than the latest of their starts (``fst: fcfs``); ``fst: conservative`` takes
  the job's own conservative slot instead.
* Its slack factor (eq. 5) F_slack = min(SLACK_UP, K2 exp(K1 T_wait / 10,000 s) +
  SLACK_DOWN), T_wait = FST - submit, and the part of it usable after waiting w (eq. 7)
  F_part = SLACK_MINIMAL + w (F_slack - SLACK_MINIMAL) / T_wait, at most F_slack; a job
  may be re-placed no later than its bound B = submit + F_part (FST - submit).
* At every scheduling call (sec. 4.3.3): the queue's head jobs that fit start; then a
  depth-first branch and bound over the next ``lookahead`` waiting jobs, in queue order,
  tries sets of jobs to start now. A set is cut when its sizes exceed the free processors
  or when, with it started, re-placing every other waiting job in queue order puts one of
  them after its bound (the slack check). Among the sets that pass, goal G1 takes the
  smallest overall unfairness OU (mean of max(AST - FST, 0) over the waiting jobs, AST the
  placement), then the highest momentary utilization U, then the smallest skip
  unfairness SU (mean of max(FST - AST, 0)), then queue order; G2 takes U first, then OU,
  then SU. The placement the check computed is committed; with no set passing, the
  queue is scheduled conservatively.

Open points (docs/deviations-slack.md): ``fst``, the absolute bound, ``max_nodes``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from schedsim.engine import Decision, EngineView, Start, WakeUp
from schedsim.jobs import Job
from schedsim.kernel.whole import (
    Outcome,
    in_workload_order,
    job_columns,
    models_rigid,
    schedule_of,
)
from schedsim.machine import Machine
from schedsim.policies.base import QueuePolicy
from schedsim.policies.profile import Profile
from schedsim.policies.registry import register_policy, setting
from schedsim.schedule import Schedule

G1, G2 = "G1", "G2"
FST_FCFS, FST_CONSERVATIVE = "fcfs", "conservative"


@dataclass(frozen=True)
class SlackSettings:
    """Table 3 of the thesis (workload W1) and the open points."""

    slack_up: float = setting(1.5, "SLACK_UP: the largest slack factor (eq. 5)", low=1.0)
    slack_down: float = setting(1.2, "SLACK_DOWN: added to the exponential (eq. 5)", low=0.0)
    slack_minimal: float = setting(1.1, "SLACK_MINIMAL: the slack usable at once (eq. 7)",
                                   low=1.0)
    k1: float = setting(-0.5, "K1: exponent per wait unit (eq. 5)")
    k2: float = setting(0.4, "K2: weight of the exponential (eq. 5)", low=0.0)
    wait_unit: float = setting(10_000.0, "seconds per unit of T_wait in eq. 5 (the unit "
                               "that reproduces Fig. 6)", low=1e-9)
    lookahead: int = setting(20, "waiting jobs the branch and bound considers (Table 3: 20 "
                             "for W1, 30 for W2)", low=1)
    goal: str = setting(G1, "G1: least overall unfairness first; G2: highest momentary "
                        "utilization first (sec. 4.3.3, step 9)", choices=(G1, G2))
    fst: str = setting(FST_FCFS, "fair start time: fcfs = in the back of fragments after the "
                       "earlier jobs' starts (Fig. 5); conservative = the job's own "
                       "conservative slot", choices=(FST_FCFS, FST_CONSERVATIVE))
    max_nodes: int = setting(5000, "largest number of sets the branch and bound tries per "
                             "call (then it keeps the best found)", low=1)
    compiled: bool = setting(True, "run the compiled path where it models the run (rigid "
                             "batch jobs on one partition of processors of speed 1); false: "
                             "the Python policy in the engine, the same schedule, slower")


def slack_factor(t_wait: float, settings: SlackSettings) -> float:
    """F_slack of eq. 5 for a predicted wait ``t_wait`` (seconds)."""
    return min(settings.slack_up,
               settings.k2 * math.exp(settings.k1 * t_wait / settings.wait_unit)
               + settings.slack_down)


def part_slack(waited: float, t_wait: float, settings: SlackSettings) -> float:
    """F_part of eq. 7 after ``waited`` seconds of a predicted wait ``t_wait``; 1 (no slack)
    when the job was predicted to start at once."""
    if t_wait <= 0:
        return 1.0
    full = slack_factor(t_wait, settings)
    minimal = min(settings.slack_minimal, full)
    return min(full, minimal + waited * (full - minimal) / t_wait)


def fairness_statistics(fair: np.ndarray, started: np.ndarray, calls: int, nodes: int,
                        bound_hits: int) -> dict[str, float]:
    """Sec. 5.4's counts over the jobs that started: unfair (AST after FST), preferential
    (AST before FST), the mean delay of the unfair and the mean advance of the
    preferential jobs (s; per job, ``fair`` the FST and ``started`` the AST in the job's
    machine clock, NaN where it has none); and the branch and bound's effort: sets tried
    per call and the calls ``max_nodes`` stopped."""
    known = ~(np.isnan(fair) | np.isnan(started))
    delta = started[known] - fair[known]
    late = delta[delta > FAIRNESS_TOLERANCE]
    early = -delta[delta < -FAIRNESS_TOLERANCE]
    return {"unfair": float(late.size), "preferential": float(early.size),
            "unfair_mean_s": math.fsum(late.tolist()) / late.size if late.size else 0.0,
            "preferential_mean_s": math.fsum(early.tolist()) / early.size if early.size
            else 0.0,
            "nodes_per_call": nodes / calls if calls else 0.0,
            "bound_hits": float(bound_hits)}


def past_bound(fair: np.ndarray, started: np.ndarray, submitted: np.ndarray,
               full_slack: np.ndarray) -> dict[str, float]:
    """The jobs that broke the invariant of S3 (``docs/deviations-slack.md``): started
    after submit + F_slack (FST - submit) in their machine's clock (per job in workload
    order, NaN where it has none), as the run's statistic ``past_bound``. Counted, not
    raised: a reading may break what the default keeps (the count is in every row)."""
    limit = submitted + full_slack * (fair - submitted)
    return {"past_bound": float(np.count_nonzero(started > limit + FAIRNESS_TOLERANCE))}


def selector_statistics(selectors: list[SlackSelector], started: dict[int, float],
                        exact: bool) -> dict[str, float]:
    """:func:`fairness_statistics` of a run through the engine (``started``: each started
    job's AST by index); with exact estimates (``exact``) also the jobs that started past
    their bound (:func:`past_bound`)."""
    jobs = 1 + max((*(index for selector in selectors for index in selector.fair_start),
                    *started), default=-1)
    fair, ast, submitted, full = (np.full(jobs, np.nan) for _ in range(4))
    for selector in selectors:
        for index, value in selector.fair_start.items():
            fair[index] = value
            submitted[index] = selector.submitted[index]
            full[index] = slack_factor(value - submitted[index], selector.settings)
    for index, value in started.items():
        ast[index] = value
    return {**fairness_statistics(fair, ast, sum(s.calls for s in selectors),
                                  sum(s.nodes for s in selectors),
                                  sum(s.bound_hits for s in selectors)),
            **(past_bound(fair, ast, submitted, full) if exact else {})}


FAIRNESS_TOLERANCE = 1e-6  # seconds: starts within this of the FST count as fair


@dataclass
class Choice:
    """A set of window jobs that passed the slack check, with its placement and metrics."""

    chosen: tuple[int, ...]
    placement: dict[int, float]
    utilization: float
    overall_unfairness: float
    skip_unfairness: float


def compress(profile: Profile, jobs: list[Job], sizes: list[int], previous: list[float],
              clock: float, keep: bool = False) -> tuple[list[float], Profile]:
    """Conservative backfilling that keeps the reservations ``previous`` (NaN: none) when
    they fit, else places every job from scratch; ``keep``: a plan held as it is, only the
    jobs without a slot placed. (The starts, the profile holding every job; the compiled
    ``compress``, ``policies.compiled.slack``.)"""
    work = profile.copy()
    if keep:  # a past slot counts as now
        previous = [slot if math.isnan(slot) else max(slot, clock) for slot in previous]
    else:  # a past slot is no reservation
        previous = [math.nan if slot < clock else slot for slot in previous]
    for job, size, slot in zip(jobs, sizes, previous, strict=True):
        if not math.isnan(slot):
            work.reserve(slot, slot + job.estimate, size)
    if not keep and min(work.free) < 0:  # the held reservations do not fit: from scratch
        work = profile.copy()
        previous = [math.nan] * len(jobs)
    starts = []
    for job, size, slot in zip(jobs, sizes, previous, strict=True):
        if not math.isnan(slot):
            if keep:
                starts.append(slot)
                continue
            work.reserve(slot, slot + job.estimate, -size)
        start = work.earliest(size, job.estimate, clock)
        work.reserve(start, start + job.estimate, size)
        starts.append(start)
    return starts, work


class SlackSelector:
    """The slack machinery of one virtual machine, in that machine's own clock: fair start
    times at submission, bounds, and the selection of one scheduling call. The plain
    machine uses real time; Scojo-PECT gives each job class one selector in class time."""

    def __init__(self, settings: SlackSettings, size: Callable[[Job], int],
                 capacity: int) -> None:
        self.settings = settings
        self.size = size
        self.capacity = capacity
        self.fair_start: dict[int, float] = {}
        self.submitted: dict[int, float] = {}  # submission, in this machine's clock
        self.calls = 0
        self.nodes = 0
        self.bound_hits = 0  # calls in which max_nodes stopped the search

    # -- fair start time (sec. 4.3.1) ---------------------------------------------------
    def admit(self, job: Job, base: Profile, earlier: list[Job], slots: list[float],
              now: float) -> float:
        """Record ``job``'s fair start time and return its slot in the plan: ``earlier``
        (the waiting jobs before it) hold their slots in the plan (``slots``; NaN: placed
        at their earliest) on ``base`` (the started jobs); the job's slot is its earliest
        start around them, its fair start time that slot (``fst: conservative``) or its
        earliest start no earlier than theirs (``fst: fcfs``, "in the back of
        fragments")."""
        starts, profile = compress(base, earlier, [self.size(other) for other in earlier],
                                   slots, now, keep=True)
        latest = now
        for start in starts:
            latest = max(latest, start)
        own = profile.earliest(self.size(job), job.estimate, now)
        self.fair_start[job.index] = (profile.earliest(self.size(job), job.estimate, latest)
                                      if self.settings.fst == FST_FCFS else own)
        self.submitted[job.index] = now
        return own

    def bound(self, job: Job, now: float) -> float:
        """The latest start the slack allows ``job`` at ``now``."""
        submitted, fst = self.submitted[job.index], self.fair_start[job.index]
        t_wait = fst - submitted
        return submitted + part_slack(now - submitted, t_wait, self.settings) * t_wait

    # -- one call (sec. 4.3.3) -------------------------------------------------------------
    def select(self, now: float, base: Profile, free: int, waiting: list[Job],
               previous: list[float]) -> dict[int, float]:
        """Where every waiting job goes (start times; those at ``now`` start now): the FCFS
        prefix, then the best set of the branch and bound; when no set passes, the whole
        queue by conservative backfilling that keeps the reservations ``previous`` (the
        plan committed before, per waiting job; NaN: none), so that the head jobs start
        only at their reservations and no slot moves later."""
        self.calls += 1
        profile = base.copy()
        placement: dict[int, float] = {}
        first = 0
        while first < len(waiting) and self.size(waiting[first]) <= free:
            job = waiting[first]
            profile.reserve(now, now + job.estimate, self.size(job))
            placement[job.index] = now
            free -= self.size(job)
            first += 1
        rest = waiting[first:]
        if not rest:
            return placement
        best = self.search(now, profile, free, rest)
        if best is not None:
            placement.update(best.placement)
            return placement
        starts, _ = compress(base, waiting, [self.size(job) for job in waiting], previous, now)
        return {job.index: start for job, start in zip(waiting, starts, strict=True)}

    def search(self, now: float, profile: Profile, free: int,
               waiting: list[Job]) -> Choice | None:
        """The best set of window jobs to start now by the goal, or None if none passes."""
        window = waiting[:self.settings.lookahead]
        return self._branch_and_bound(
            [self.size(job) for job in window], free,
            lambda chosen: self.check(now, profile, free, waiting, chosen))

    def search_backfill(self, now: float, profile: Profile, free: int,
                        candidates: list[tuple[int, float]],
                        waiting: list[Job]) -> Choice | None:
        """Slack-based non-type backfilling (sec. 4.4): the best set of the first
        ``lookahead`` candidates, each (processors, time it would hold them from now), to
        start now on this machine's ``profile``, or None if none passes. The slack check
        re-places ``waiting`` (this machine's waiting jobs), over which the goal's
        unfairness is measured; a candidate not chosen is not placed here."""
        self.calls += 1
        window = candidates[:self.settings.lookahead]
        return self._branch_and_bound(
            [size for size, _ in window], free,
            lambda chosen: self.check_backfill(now, profile, free, window, waiting, chosen))

    def _branch_and_bound(self, sizes: list[int], free: int,
                          check: Callable[[tuple[int, ...]], Choice | None]) -> Choice | None:
        """Sets of the window (jobs of ``sizes``) tried depth first, include-children in
        window order: (0), (0, 1), (0, 1, 2), ..., (1), ...; a set whose sizes exceed
        ``free`` or whose ``check`` fails is cut with its branch. The best by the goal."""
        best: Choice | None = None
        budget = self.settings.max_nodes
        stack: list[tuple[tuple[int, ...], int]] = [((), free)]
        while stack:
            chosen, left = stack.pop()
            if chosen:
                if budget == 0:
                    self.bound_hits += 1
                    break
                budget -= 1
                self.nodes += 1
                choice = check(chosen)
                if choice is None:
                    continue  # the slack check failed: the whole branch is cut
                if best is None or self._better(choice, best):
                    best = choice
            first = chosen[-1] + 1 if chosen else 0
            for position in range(len(sizes) - 1, first - 1, -1):
                if sizes[position] <= left:  # sizes over the free processors: cut
                    stack.append(((*chosen, position), left - sizes[position]))
        return best

    def check(self, now: float, base: Profile, free: int, waiting: list[Job],
              positions: tuple[int, ...]) -> Choice | None:
        """The slack check of the set ``positions`` of ``waiting``: its placement and
        metrics, or None if another waiting job would start after its bound."""
        profile = base.copy()
        placement: dict[int, float] = {}
        busy = self.capacity - free
        for position in positions:
            job = waiting[position]
            profile.reserve(now, now + job.estimate, self.size(job))
            placement[job.index] = now
            busy += self.size(job)
        return self._replaced(now, profile, waiting, placement, positions, busy)

    def check_backfill(self, now: float, base: Profile, free: int,
                       window: list[tuple[int, float]], waiting: list[Job],
                       positions: tuple[int, ...]) -> Choice | None:
        """The slack check of the non-type set ``positions`` of ``window`` (processors,
        time held): ``waiting`` re-placed around it (``search_backfill``)."""
        profile = base.copy()
        busy = self.capacity - free
        for position in positions:
            size, span = window[position]
            profile.reserve(now, now + span, size)
            busy += size
        return self._replaced(now, profile, waiting, {}, positions, busy)

    def _replaced(self, now: float, profile: Profile, waiting: list[Job],
                  placement: dict[int, float], positions: tuple[int, ...],
                  busy: int) -> Choice | None:
        """Every job of ``waiting`` not yet in ``placement`` placed at its earliest slot in
        queue order; None at the first one placed after its bound; else the choice with
        U (``busy`` processors), OU and SU over ``waiting`` (eq. 3-4; 0 without jobs)."""
        for job in waiting:
            if job.index in placement:
                continue
            start = self._place(profile, job, now)
            if start > self.bound(job, now):
                return None
            placement[job.index] = start
        fair = self.fair_start
        late = [max(placement[j.index] - fair[j.index], 0.0) for j in waiting]
        early = [max(fair[j.index] - placement[j.index], 0.0) for j in waiting]
        count = max(len(waiting), 1)
        return Choice(positions, placement, busy / self.capacity, sum(late) / count,
                      sum(early) / count)

    def _better(self, a: Choice, b: Choice) -> bool:
        """Whether ``a`` beats ``b`` under the goal (ties: queue order, the earlier set)."""
        if self.settings.goal == G1:
            key_a = (a.overall_unfairness, -a.utilization, a.skip_unfairness)
            key_b = (b.overall_unfairness, -b.utilization, b.skip_unfairness)
        else:
            key_a = (-a.utilization, a.overall_unfairness, a.skip_unfairness)
            key_b = (-b.utilization, b.overall_unfairness, b.skip_unfairness)
        if key_a != key_b:
            return key_a < key_b
        return a.chosen < b.chosen

    def _place(self, profile: Profile, job: Job, now: float) -> float:
        size = self.size(job)
        start = profile.earliest(size, job.estimate, now)
        profile.reserve(start, start + job.estimate, size)
        return start


class SlackBackfill(QueuePolicy[SlackSettings]):
    """Slack-based fair backfilling on a plain machine, in real time (module docstring)."""

    def __init__(self, settings: SlackSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.selector = SlackSelector(settings, self.size, machine.partitions[0])
        self.wake_at = -math.inf
        self.started: dict[int, float] = {}  # job index -> its start
        self.plan: dict[int, float] = {}  # the placement committed: waiting job -> start
        self.exact = True  # every job's estimate is its run time (the bound is promised)

    def simulate_compiled(self, jobs: Sequence[Job], load_model: object = None
                          ) -> Schedule | None:
        """The whole run on the compiled engine (``policies.compiled.slack``: this
        policy's schedule and statistics under the engine,
        ``tests/test_compiled_conformance.py``), or None where it does not model the run:
        anything but rigid batch jobs on one partition of processors of speed 1."""
        if (self.queue or load_model is not None or len(self.machine.partitions) > 1
                or not models_rigid(jobs, self.machine)):
            return None
        from schedsim.policies.compiled import slack

        cols = job_columns(jobs, self.machine.unit)
        found, fair, full_slack, calls, nodes, hits = slack.slack_plain_run(
            cols.submit, cols.runtime, cols.estimate, cols.size, self.machine.partitions[0],
            slack.slack_constants(self.settings))
        outcome = Outcome.of(found)
        statistics = fairness_statistics(fair, outcome.start, calls, nodes, hits)
        if np.array_equal(cols.estimate, cols.runtime):
            statistics |= past_bound(*(in_workload_order(values, cols) for values in
                                       (fair, outcome.start, cols.submit, full_slack)))
        return schedule_of(outcome, cols, self.machine, jobs, statistics)

    def statistics(self) -> dict[str, float]:
        """Fairness counts and search effort of the run (``fairness_statistics``), and with
        exact estimates the jobs past the start bound (``past_bound``)."""
        return selector_statistics([self.selector], self.started, self.exact)

    @property
    def fair_start(self) -> dict[int, float]:
        return self.selector.fair_start

    def size(self, job: Job) -> int:
        return self.machine.round_up(job.procs)

    def submit(self, job: Job, view: EngineView) -> None:
        self.exact = self.exact and job.estimate == job.runtime
        self.plan[job.index] = self.selector.admit(
            job, self._running_profile(view), self.queue,
            [self.plan[other.index] for other in self.queue], view.now)
        super().submit(job, view)

    def schedule(self, view: EngineView) -> list[Decision]:
        now = view.now
        placement = self.selector.select(now, self._running_profile(view), view.free[0],
                                         self.queue, [self.plan.get(job.index, math.nan)
                                                      for job in self.queue])
        decisions: list[Decision] = []
        keep = []
        free = view.free[0]
        for job in self.queue:
            # a slot at now may not fit: jobs of estimate 0 reserve nothing, and a job
            # running past its estimate holds processors the profile shows free; the job
            # then waits for the completion that frees them (an instant of its own)
            if placement[job.index] <= now and self.size(job) <= free:
                decisions.append(Start(job, self.size(job)))
                self.started[job.index] = now
                free -= self.size(job)
            else:
                keep.append(job)
        self.queue = keep
        self.plan = {job.index: placement[job.index] for job in keep}
        later = [placement[job.index] for job in keep if placement[job.index] > now]
        if later:
            earliest = min(later)
            if self.wake_at <= now or earliest < self.wake_at:
                self.wake_at = earliest
                decisions.append(WakeUp(earliest))
        return decisions

    def _running_profile(self, view: EngineView) -> Profile:
        now = view.now
        return Profile.holding(now, self.machine.partitions[0],
                               [(max(record.est_end, now), record.procs)
                                for record in view.running.values()])


register_policy("slack-backfill", "slack", "Slack-based fair backfilling with branch and bound "
                "over a lookahead window, goals G1/G2 (Jin 2009, sec. 4.3), plain machine",
                SlackSettings)(SlackBackfill)
