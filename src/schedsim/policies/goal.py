"""Goal-oriented scheduling on multi-partition machines, and its best-fit backfilling baselines.

Paper: A. Prasitsupparote and S. Vasupongayya, "Impact of Multi-partition Systems on
Goal-oriented Parallel Computer Job Scheduling Policies" (the GOAL paper). Every
choice the paper leaves open is a named setting; docs/deviations-goal.md says what
the paper says, what we do, and why.

* Best fit (sec. 3.2): a job goes to "the partition with the least number of
  available nodes that is large enough"; ties go to the lower partition index.
* Best-fit FCFS-backfill and LXF-backfill (sec. 3.2): EASY on several partitions with
  one reservation, for the first job in priority order that fits nowhere.
* The goal-oriented policy (sec. 2): a depth-bounded discrepancy search over the
  orders of the waiting jobs (schedule trees of "idea 1" or "idea 2"), each leaf a
  plan judged by the Tradeoff(Tw:avgX) objective; the jobs whose planned start in the
  best leaf is now start. The search stops at a node limit (4000 in the paper).

Run times are exact (the paper's sec. 3.3): plans use ``Job.estimate``, which equals
the run time in the workloads these policies are used with. Sizes are in nodes
(machine unit 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from operator import attrgetter

import numpy as np

from schedsim.engine import Decision, EngineView, RunningJob, Start
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.backfill import shadow_and_extra
from schedsim.policies.base import QueuePolicy
from schedsim.policies.profile import Profile
from schedsim.policies.registry import register_policy, setting

FCFS_ORDER, LXF_ORDER = "fcfs", "lxf"
TAU = 10.0  # seconds: the bounded-slowdown threshold of avgX
_PROCS, _ESTIMATE, _SUBMIT = attrgetter("procs"), attrgetter("estimate"), attrgetter("submit")


# ----------------------------------------------------------------------------- best fit


def best_fit_now(size: int, free: Sequence[int]) -> int | None:
    """The partition with the fewest free nodes that still holds ``size``, or None."""
    best: int | None = None
    for index, nodes in enumerate(free):
        if nodes >= size and (best is None or nodes < free[best]):
            best = index
    return best


def expansion_factor(job: Job, now: float) -> float:
    """XF = (wait so far + run time) / run time (LXF: the largest first)."""
    return (now - job.submit + job.estimate) / max(job.estimate, 1e-9)


def priority_order(queue: Sequence[Job], now: float, order: str) -> list[Job]:
    """The waiting jobs in FCFS order, or by XF, largest first (ties: FCFS)."""
    if order == FCFS_ORDER:
        return list(queue)
    return sorted(queue, key=lambda job: -expansion_factor(job, now))


# ----------------------------------------------------------------------------- baselines


@dataclass(frozen=True)
class BestFitBackfillSettings:
    """Settings of best-fit FCFS-backfill and LXF-backfill (GOAL paper, sec. 3.2)."""

    reserve: str = setting("top", "which job gets the one reservation: the first job in "
                           "priority order that fits nowhere (top) or the oldest waiting "
                           "job (oldest); the same for FCFS (docs/deviations-goal.md)",
                           choices=("top", "oldest"))
    reservations: str = setting("one", "one reservation on the whole machine (the paper's "
                                "EASY, the default) or one per partition: a job that fits "
                                "no admissible partition reserves its best partition that "
                                "has no reservation yet (docs/deviations-goal.md)",
                                choices=("one", "per_partition"))


class BestFitBackfill(QueuePolicy[BestFitBackfillSettings]):
    """EASY on several partitions, each start by best fit (GOAL paper, sec. 3.2).

    1. In priority order, start every job that fits some partition now, until the first
       job R that fits nowhere.
    2. R gets the only reservation: on each partition large enough, its shadow time and
       extra nodes over that partition's running jobs; the reservation partition
       minimises (shadow time, extra nodes, index).
    3. One pass over the other jobs in priority order: a job may start on a partition
       with enough free nodes that is not the reservation partition, or on it if it
       ends by the shadow time or fits in the extra nodes (which it then uses up); the
       best fit among those.
    """

    order = FCFS_ORDER

    def schedule(self, view: EngineView) -> list[Decision]:
        now = view.now
        cycle = _Cycle(now, list(view.free), list(view.running.values()))
        waiting = priority_order(self.queue, now, self.order)
        for job in waiting:  # step 1
            partition = best_fit_now(self.size(job), cycle.free)
            if partition is None:
                break
            cycle.start(job, self.size(job), partition)
        rest = [job for job in waiting if id(job) not in cycle.started]
        if rest:
            reserved = self._reserved(rest, cycle.free)
            self._backfill([job for job in rest if job is not reserved], reserved, cycle)
        self.queue = [job for job in self.queue if id(job) not in cycle.started]
        return cycle.decisions

    def size(self, job: Job) -> int:
        return self.machine.round_up(job.procs)

    def _reserved(self, rest: list[Job], free: list[int]) -> Job:
        """The job of the reservation: the first of ``rest`` (it fits nowhere), or under
        ``reserve: oldest`` the oldest waiting job that fits nowhere."""
        if self.settings.reserve == "oldest":
            blocked = [job for job in rest if best_fit_now(self.size(job), free) is None]
            return min(blocked, key=lambda job: job.submit)
        return rest[0]

    def _backfill(self, rest: list[Job], reserved: Job, cycle: _Cycle) -> None:
        """Steps 2 and 3: the reservation, then one pass over the other jobs. Under
        ``reservations: per_partition`` a job of the pass that fits no admissible
        partition reserves its best partition without a reservation, if any is left."""
        held: dict[int, tuple[float, int]] = {}  # partition -> (shadow time, extra nodes)
        if not self._reserve(self.size(reserved), cycle, held):
            raise ValueError(f"a job of {self.size(reserved)} nodes fits no partition "
                             f"{self.machine.partitions}")
        for job in rest:
            need, ends = self.size(job), cycle.now + job.estimate
            allowed = [nodes if p not in held or ends <= held[p][0] or need <= held[p][1]
                       else -1 for p, nodes in enumerate(cycle.free)]
            partition = best_fit_now(need, allowed)
            if partition is None:
                if self.settings.reservations == "per_partition":
                    self._reserve(need, cycle, held)
                continue
            if partition in held and ends > held[partition][0]:
                held[partition] = (held[partition][0], held[partition][1] - need)
            cycle.start(job, need, partition)

    def _reserve(self, size: int, cycle: _Cycle, held: dict[int, tuple[float, int]]) -> bool:
        """Reserve, among the partitions large enough and not yet reserved, the one with
        the smallest (shadow time, extra nodes, index); False if there is none."""
        options = []
        for p, capacity in enumerate(self.machine.partitions):
            if capacity >= size and p not in held:
                mine = [r for r in cycle.running if r.partition == p]
                shadow, extra = shadow_and_extra(cycle.now, cycle.free[p], mine, size)
                options.append((shadow, extra, p))
        if not options:
            return False
        shadow, extra, partition = min(options)
        held[partition] = (shadow, extra)
        return True


@dataclass
class _Cycle:
    """One scheduling call of a baseline: free nodes, running jobs, starts so far."""

    now: float
    free: list[int]
    running: list[RunningJob]
    decisions: list[Decision] = field(default_factory=list)
    started: set[int] = field(default_factory=set)

    def start(self, job: Job, size: int, partition: int) -> None:
        self.decisions.append(Start(job, size, partition))
        self.free[partition] -= size
        self.running.append(RunningJob(job, self.now, size, partition, (), self.now + job.estimate))
        self.started.add(id(job))


class BestFitLXFBackfill(BestFitBackfill):
    """LXF-backfill: the same, in order of expansion factor, largest first."""

    order = LXF_ORDER


# ----------------------------------------------------------------------------- the search


@dataclass(frozen=True)
class GoalSettings:
    """Settings of the goal-oriented policy (GOAL paper, sec. 2; docs/deviations-goal.md)."""

    node_limit: int = setting(4000, "the search stops before a placement once this many "
                              "placements were made and a complete plan exists (sec. 3.2)",
                              low=1)
    tree: str = setting("idea2", "idea2: children are jobs, each placed by best fit; idea1: "
                        "children are (job, partition) pairs (sec. 2.2)",
                        choices=("idea2", "idea1"))
    idea1_order: str = setting("partition_first", "idea 1: a job's partitions in index order "
                               "(the paper) or best fit first", choices=("partition_first",
                                                                         "best_fit_first"))
    branching: str = setting(FCFS_ORDER, "the order of a node's children: FCFS or largest "
                             "expansion factor first", choices=(FCFS_ORDER, LXF_ORDER))
    objective: str = setting("tradeoff", "tradeoff: 1% of Tw is worth 1% of avgX; "
                             "hierarchical: Tw first, then avgX",
                             choices=("tradeoff", "hierarchical"))
    bound: str = setting("history", "the wait bound omega of Tw: the largest wait of any job "
                         "started so far (history), the largest planned wait of the FCFS "
                         "plan (fcfs_leaf), or `omega` (fixed)",
                         choices=("history", "fcfs_leaf", "fixed"))
    omega: float = setting(0.0, "the wait bound in seconds when bound is fixed", low=0.0)
    compiled: bool = setting(True, "run the compiled search "
                             "(schedsim.policies.compiled.goal); false: the plain Python "
                             "search it is tested against (the same plans, slower)")


@dataclass(frozen=True, slots=True)
class Placement:
    """One job of a plan: where and when it starts."""

    job: int  # index into the search's job list
    partition: int
    start: float


@dataclass
class SearchStats:
    """What one search did: placements made, complete plans judged, and whether the limit
    cut it short."""

    nodes: int = 0
    leaves: int = 0
    stopped: bool = False


@dataclass(frozen=True)
class Score:
    """The objective of a plan: Tw (total wait above omega) and avgX (mean bounded
    expansion factor)."""

    total_excess_wait: float
    mean_expansion: float


def relative_gain(new: float, old: float) -> float:
    """(old - new) / old; 0 when both are 0; minus infinity when only ``old`` is 0."""
    if old > 0:
        return (old - new) / old
    return 0.0 if new == old else -math.inf


def tradeoff_better(new: Score, old: Score) -> bool:
    """Tradeoff(Tw:avgX): a 1% cut of Tw is worth a 1% cut of avgX."""
    gain = relative_gain(new.total_excess_wait, old.total_excess_wait) \
        + relative_gain(new.mean_expansion, old.mean_expansion)
    return gain > 1e-12


def hierarchical_better(new: Score, old: Score) -> bool:
    return (new.total_excess_wait, new.mean_expansion) < \
        (old.total_excess_wait, old.mean_expansion)


OBJECTIVES: dict[str, Callable[[Score, Score], bool]] = {
    "tradeoff": tradeoff_better, "hierarchical": hierarchical_better}


@dataclass
class SearchJob:
    """What the search knows of a waiting job."""

    size: int
    runtime: float
    submit: float


@dataclass
class Search:
    """Depth-bounded discrepancy search over the orders of ``jobs`` (Walsh 1997).

    Iteration k takes every child at depths below k, every child but the first at
    depth k, and the first child below, so it visits the leaves whose deepest
    discrepancy is at depth k; iteration -1 is the greedy path. Over iterations
    -1 ... n-1 every leaf is visited once. At depth n-1 one job is left: under idea 2
    it is one child, so iteration n-1 has no leaf and is not run; under idea 1 it is
    a child per partition large enough for it, and iteration n-1 runs if some job has
    two such partitions, placing a job above depth n-1 only if a job with two is left
    after it (every other path ends in a one-child node). A node is one placement
    (revisits count). Before each placement the search stops once ``node_limit``
    placements were made and a leaf exists; the greedy path always completes.
    """

    jobs: Sequence[SearchJob]
    profiles: list[Profile]
    capacities: Sequence[int]
    now: float
    omega: float
    settings: GoalSettings
    stats: SearchStats = field(default_factory=SearchStats)
    best: list[Placement] | None = None
    best_score: Score | None = None

    def run(self) -> list[Placement]:
        n = len(self.jobs)
        self._order = self.branching_order()
        # the unplaced jobs as a doubly linked list over positions of the branching order
        # (head n, tail n + 1): a placement unlinks one, its undo relinks it (LIFO)
        head, tail = n, n + 1
        self._next = [*range(1, n + 1), 0, -1]
        self._prev = [*range(-1, n - 1), -1, n - 1]
        if n:
            self._next[n - 1], self._prev[0] = tail, head
        else:
            self._next[head], self._prev[tail] = tail, head
        self._path: list[Placement] = []
        self._positions: list[int] = []
        self._excess = 0.0
        self._expansion = 0.0
        # idea 1: 1 for a job with two partitions large enough, and how many are unplaced
        self._forks_of = [int(self.settings.tree == "idea1"
                              and sum(c >= job.size for c in self.capacities) > 1)
                          for job in self.jobs]
        self._forks = sum(self._forks_of)
        deepest = n - 1 if self._forks else n - 2
        for depth_of_discrepancy in range(-1, max(deepest + 1, 0)):
            self._explore(0, depth_of_discrepancy)
            if self.stats.stopped:
                break
        assert self.best is not None
        return self.best

    def _explore(self, depth: int, k: int) -> None:
        if depth == len(self.jobs):
            self._leaf()
            return
        children = self.children()
        chosen = children if depth < k else islice(children, 1, None) if depth == k \
            else islice(children, 1)
        needs_a_fork_left = k == len(self.jobs) - 1 and depth < k  # iteration n-1
        for position, partition, start in chosen:
            if needs_a_fork_left and self._forks == self._forks_of[self._order[position]]:
                continue  # no job with two partitions is left after this one: no leaf below
            if self.stats.nodes >= self.settings.node_limit and self.best is not None:
                self.stats.stopped = True
                return
            self._place(position, partition, start)
            self._explore(depth + 1, k)
            self._undo()
            if self.stats.stopped:
                return

    def children(self) -> Iterator[tuple[int, int, float | None]]:
        """(position in the branching order, partition, start if known) of each child,
        computed lazily: idea 2, each unplaced job with its best-fit partition and start;
        idea 1, each unplaced job with each partition large enough."""
        tail, order, jobs = len(self.jobs) + 1, self._order, self.jobs
        position = self._next[len(self.jobs)]
        while position != tail:
            j = order[position]
            if self.settings.tree == "idea2":
                yield position, *self.best_fit(j)
            else:
                partitions = [p for p, c in enumerate(self.capacities) if c >= jobs[j].size]
                if self.settings.idea1_order == "best_fit_first":
                    partitions.sort(key=lambda p, j=j: self._fit_key(j, p))
                for partition in partitions:
                    yield position, partition, None
            position = self._next[position]

    def branching_order(self) -> list[int]:
        """Job indices in the order children are tried (setting ``branching``)."""
        jobs = self.jobs
        indices = list(range(len(jobs)))
        if self.settings.branching == LXF_ORDER:
            indices.sort(key=lambda j: -(self.now - jobs[j].submit + jobs[j].runtime)
                         / max(jobs[j].runtime, 1e-9))
        return indices

    def best_fit(self, j: int) -> tuple[int, float]:
        """(partition, start): among partitions large enough, the earliest start, then the
        fewest free nodes at that start, then the lowest index."""
        size = self.jobs[j].size
        start, _, p = min(self._fit_key(j, p) for p, c in enumerate(self.capacities)
                          if c >= size)
        return p, start

    def _fit_key(self, j: int, p: int) -> tuple[float, int, int]:
        job, profile = self.jobs[j], self.profiles[p]
        start = profile.earliest(job.size, job.runtime, self.now)
        return start, _free_at(profile, start), p

    def _place(self, position: int, p: int, start: float | None = None) -> None:
        j = self._order[position]
        job = self.jobs[j]
        if start is None:
            start = self.profiles[p].earliest(job.size, job.runtime, self.now)
        self.profiles[p].reserve(start, start + job.runtime, job.size)
        self._path.append(Placement(j, p, start))
        self._positions.append(position)
        self._next[self._prev[position]] = self._next[position]
        self._prev[self._next[position]] = self._prev[position]
        self._forks -= self._forks_of[j]
        wait = start - job.submit
        self._excess += max(0.0, wait - self.omega)
        self._expansion += max(1.0, (wait + job.runtime) / max(job.runtime, TAU))
        self.stats.nodes += 1

    def _undo(self) -> None:
        placement = self._path.pop()
        job = self.jobs[placement.job]
        self.profiles[placement.partition].release(placement.start,
                                                   placement.start + job.runtime, job.size)
        position = self._positions.pop()
        self._next[self._prev[position]] = position
        self._prev[self._next[position]] = position
        self._forks += self._forks_of[placement.job]
        wait = placement.start - job.submit
        self._excess -= max(0.0, wait - self.omega)
        self._expansion -= max(1.0, (wait + job.runtime) / max(job.runtime, TAU))

    def _leaf(self) -> None:
        self.stats.leaves += 1
        score = Score(self._excess, self._expansion / len(self.jobs))
        if self.best_score is None or OBJECTIVES[self.settings.objective](score,
                                                                          self.best_score):
            self.best, self.best_score = list(self._path), score


def _free_at(profile: Profile, time: float) -> int:
    """Free nodes of ``profile`` at ``time``."""
    from bisect import bisect_right

    return profile.free[max(0, bisect_right(profile.times, time) - 1)]


def compiled_search(sizes: np.ndarray, runtimes: np.ndarray, submits: np.ndarray,
                    profiles: Sequence[Profile], capacities: Sequence[int], now: float,
                    omega: float, settings: GoalSettings, order: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int, bool]:
    """The compiled search (``policies.compiled.goal``) on the Python search's inputs as
    columns (the waiting jobs' sizes, run times as the search knows them and submit
    times, in queue order; ``order``: the branching order, as the queue's indices): the
    placements in plan order as arrays (job as its index in the queue, partition,
    start), nodes, leaves, stopped."""
    from schedsim.policies.compiled import goal

    n = sizes.shape[0]
    caps = np.array(capacities, dtype=np.int64)
    width = max(len(p.times) for p in profiles) + 2 * n + 4
    times = np.zeros((len(profiles), width))
    free = np.zeros((len(profiles), width), dtype=np.int64)
    length = np.zeros(len(profiles), dtype=np.int64)
    for p, profile in enumerate(profiles):
        count = len(profile.times)
        times[p, :count] = profile.times
        free[p, :count] = profile.free
        length[p] = count
    positions, parts, starts, nodes, leaves, stopped = goal.search_kernel(
        sizes[order], runtimes[order], submits[order], caps, times, free, length,
        float(now), float(omega), int(settings.node_limit),
        goal.IDEA2 if settings.tree == "idea2" else goal.IDEA1,
        goal.BEST_FIT_FIRST if settings.idea1_order == "best_fit_first"
        else goal.PARTITION_FIRST,
        goal.HIERARCHICAL if settings.objective == "hierarchical" else goal.TRADEOFF, TAU)
    return order[positions], parts, starts, int(nodes), int(leaves), bool(stopped)


def partition_profiles(view: EngineView, capacities: Sequence[int]) -> list[Profile]:
    """One profile per partition: the running jobs hold their nodes until their
    estimated ends (an end already past holds none)."""
    now = view.now
    held: list[list[tuple[float, int]]] = [[] for _ in capacities]
    for record in view.running.values():
        held[record.partition].append((record.est_end, record.procs))
    return [Profile.holding(now, capacity, ends)
            for capacity, ends in zip(capacities, held, strict=True)]


# ----------------------------------------------------------------------------- the policy


class GoalOriented(QueuePolicy[GoalSettings]):
    """The goal-oriented policy (GOAL paper, sec. 2): search, then start the jobs whose
    planned start in the best plan is now.

    Runs at every scheduling call (each arrival and departure). When no waiting job fits
    any partition now, it returns no start without searching. ``searches``,
    ``nodes`` and ``stopped`` count, over the run, the searches, their placements, and
    those the node limit cut short.
    """

    def __init__(self, settings: GoalSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.capacities = machine.partitions
        self.largest_wait = 0.0
        self.searches = 0
        self.nodes = 0
        self.stopped = 0

    def size(self, job: Job) -> int:
        return self.machine.round_up(job.procs)

    def statistics(self) -> dict[str, float]:
        """Over the run: searches, mean placements per search, share cut by the limit."""
        return {"searches": float(self.searches),
                "mean_nodes": self.nodes / self.searches if self.searches else 0.0,
                "stopped_share": self.stopped / self.searches if self.searches else 0.0}

    def schedule(self, view: EngineView) -> list[Decision]:
        queue = self.queue
        if not queue:
            return []
        sizes = self.machine.round_up(np.array(list(map(_PROCS, queue)), np.int64))
        if sizes.min() > max(view.free):  # no waiting job fits any partition now
            return []
        profiles = partition_profiles(view, self.capacities)
        settings = self.settings
        made: list[list[SearchJob]] = []

        def search_jobs() -> list[SearchJob]:
            """The waiting jobs as the search's objects, made once and only when read
            (the Python search, the FCFS plan's bound, the LXF order); the compiled
            search reads columns."""
            if not made:
                made.append([SearchJob(size, job.estimate, job.submit)
                             for size, job in zip(sizes.tolist(), queue, strict=True)])
            return made[0]

        omega = self.omega(view, search_jobs)
        if settings.compiled:
            order = np.arange(len(queue), dtype=np.int64) if settings.branching == FCFS_ORDER \
                else np.array(self._search(search_jobs(), profiles, view, omega)
                              .branching_order(), np.int64)
            placed, partitions, starts, nodes, _, stopped = compiled_search(
                sizes, np.array(list(map(_ESTIMATE, queue)), np.float64),
                np.array(list(map(_SUBMIT, queue)), np.float64), profiles, self.capacities,
                view.now, omega, settings, order)
            due = starts <= view.now
            starting = dict(zip(placed[due].tolist(), partitions[due].tolist(), strict=True))
        else:
            search = self._search(search_jobs(), profiles, view, omega)
            plan = search.run()
            nodes, stopped = search.stats.nodes, search.stats.stopped
            starting = {p.job: p.partition for p in plan if p.start <= view.now}
        self.searches += 1
        self.nodes += nodes
        self.stopped += int(stopped)
        return self._starts(starting, view.now)

    def _search(self, jobs: Sequence[SearchJob], profiles: list[Profile], view: EngineView,
                omega: float) -> Search:
        return Search(jobs, profiles, self.capacities, view.now, omega, self.settings)

    def omega(self, view: EngineView, search_jobs: Callable[[], Sequence[SearchJob]]
              ) -> float:
        """The wait bound of Tw for this snapshot (setting ``bound``; ``search_jobs``
        gives the waiting jobs, read only for the FCFS plan's bound)."""
        if self.settings.bound == "fixed":
            return self.settings.omega
        if self.settings.bound == "history":
            return self.largest_wait
        jobs = search_jobs()
        fcfs = Search(jobs, partition_profiles(view, self.capacities), self.capacities,
                      view.now, 0.0, GoalSettings(node_limit=1, tree="idea2"))
        plan = fcfs.run()
        return max(0.0, max(p.start - jobs[p.job].submit for p in plan))

    def _starts(self, starting: dict[int, int], now: float) -> list[Decision]:
        """Start the waiting jobs ``starting`` (index in the queue -> partition)."""
        decisions: list[Decision] = []
        for index in sorted(starting):
            job = self.queue[index]
            decisions.append(Start(job, self.size(job), starting[index]))
            self.largest_wait = max(self.largest_wait, now - job.submit)
        self.queue = [job for i, job in enumerate(self.queue) if i not in starting]
        return decisions


register_policy("bf-fcfs-backfill", "goal", "best-fit FCFS-backfill on several partitions, "
                "one reservation (GOAL paper, sec. 3.2)", BestFitBackfillSettings)(BestFitBackfill)
register_policy("bf-lxf-backfill", "goal", "best-fit LXF-backfill on several partitions, "
                "one reservation (GOAL paper, sec. 3.2)",
                BestFitBackfillSettings)(BestFitLXFBackfill)
register_policy("goal-oriented", "goal", "goal-oriented discrepancy search, Tradeoff(Tw:avgX) "
                "(GOAL paper, sec. 2)", GoalSettings)(GoalOriented)


@dataclass(frozen=True)
class GoalIdea1Settings(GoalSettings):
    """The goal-oriented policy's settings with idea 1 as the default tree."""

    tree: str = setting("idea1", "idea1: children are (job, partition) pairs; idea2: "
                        "children are jobs, each placed by best fit (sec. 2.2)",
                        choices=("idea1", "idea2"))


register_policy("goal-oriented-idea1", "goal", "the goal-oriented policy with the partition "
                "choice inside the search tree (GOAL paper, sec. 2.2, idea 1)",
                GoalIdea1Settings)(GoalOriented)
