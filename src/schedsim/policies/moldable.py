"""Moldable-job policies: an allocation scheme composed with a selection scheme.

HRF paper = S. Wu, Q. Tuo, H. Jin, C. Yan, Q. Weng, "HRF: A Resource Allocation
Scheme for Moldable Jobs", CF'15. Sec. 3 splits a moldable policy in two:

* the **allocation scheme** decides the processor count ``x_i`` of every queued
  job: Highest Revenue First (sec. 5, Algorithm 1), Submit-time Greedy,
  Submit-time Fair and Schedule-time Fair (sec. 3.1, after Srinivasan et al.;
  docs/deviations-hrf.md);
* the **selection scheme** decides which queued job starts: FCFS, or aggressive
  (EASY) backfilling (sec. 3.2), here generic over "the size of this job".

The eight combinations are the policies of Table 2 (sec. 6.1.3), each registered
as its (allocation class, selection class) pair. Each allocation scheme reads its
own frozen settings (``HrfSettings``, ``SubmitGreedySettings``, ``SubmitFairSettings``,
``ScheduleFairSettings``; common fields in ``MoldableSettings``). Every choice the
paper leaves open is a named setting; docs/deviations-hrf.md says what the paper
says, what we do and why.

Shared rules: policies use partition 0; sizes are multiples of the machine's
unit, at least one unit, at most ``threshold x m`` (sec. 5) and at most the job's
own ``procs`` (its largest useful size); the scheduler's run-time estimate on
``x`` processors is the model's exact ``T(x)`` (``Job.estimate_on``, sec. 6.1).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from heapq import heapify, heappop, heappush
from typing import ClassVar, Protocol

import numpy as np

from schedsim.engine import Decision, EngineView, RunningJob, Start
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.params import ParamSpec
from schedsim.policies.backfill import shadow_and_extra
from schedsim.policies.base import QueuePolicy
from schedsim.policies.profile import Profile
from schedsim.policies.registry import param_specs, register_policy, setting
from schedsim.speedup import DowneySpeedup

ROUNDING_SLACK = 1e-9  # absorbs float error in alpha*m and threshold*m (e.g. 0.29*100)

SizeOf = Callable[[Job], int]


PER_INSTANT, PER_QUEUE_CHANGE = "per-instant", "per-queue-change"


@dataclass(frozen=True)
class MoldableSettings:
    """What every allocation scheme reads: the largest job size (HRF paper, sec. 5)."""

    threshold: float = setting(0.9, "largest job size as a fraction of the machine, caps "
                               "every allocation scheme (paper sweep 0.1..1.0)",
                               low=0.001, high=1.0)
    threshold_rounding: str = setting("floor", "threshold*m to whole units: floor (the text: "
                                      "a maximum percentage) or ceil (Algorithm 1 line 7)",
                                      choices=("floor", "ceil"))


@dataclass(frozen=True)
class HrfSettings(MoldableSettings):
    """Settings of Highest Revenue First (HRF paper, sec. 5, Algorithm 1)."""

    alpha: float = setting(1.0, "HRF processor budget as a fraction of the machine, alpha*m "
                           "(sec. 5; paper sweep 0.5..1.2)", low=0.0, high=100.0)
    budget_includes_initial: bool = setting(True, "the budget alpha*m includes each job's "
                                            "first processor (sec. 4.1 example); false: "
                                            "alpha*m on top (Algorithm 1 lines 2-5)")
    hrf_reallocation: str = setting(PER_INSTANT, "rerun Algorithm 1 once per scheduling "
                                    "instant at which the queue has changed, or after every "
                                    "queue change including each start",
                                    choices=(PER_INSTANT, PER_QUEUE_CHANGE))
    min_revenue: float = setting(0.0, "a processor goes to a job only if its revenue "
                                 "T(x)-T(x+1) in seconds exceeds this")


EARLIEST_COMPLETION, MAX_PROCESSORS = "earliest-completion", "max-processors"
WEIGHT_SHARE, SQRT_SHARE = "weight", "sqrt"


@dataclass(frozen=True)
class SubmitGreedySettings(MoldableSettings):
    """Settings of Submit-time Greedy (HRF paper, sec. 3.1)."""

    greedy_size: str = setting(EARLIEST_COMPLETION, "the size with the earliest estimated "
                               "completion (sec. 3.1: the shortest turnaround) or the most "
                               "processors allowed (sec. 3.3, 6.3: 'as many processors as "
                               "possible'); docs/deviations-hrf.md G1",
                               choices=(EARLIEST_COMPLETION, MAX_PROCESSORS))


@dataclass(frozen=True)
class FairShareSettings(MoldableSettings):
    """Settings of the fair-share schemes (HRF paper, sec. 3.1; docs/deviations-hrf.md)."""

    fair_weights_over: str = setting("system", "sum the weights over all jobs in the system "
                                     "or the queued jobs only (docs/deviations-hrf.md)",
                                     choices=("system", "queue"))
    fair_share: str = setting(WEIGHT_SHARE, "a job's share of the machine is proportional to "
                              "its weight w_i, the sequential run time (HRF paper sec. 3.1), "
                              "or to sqrt(w_i) (docs/deviations-hrf.md G3)",
                              choices=(WEIGHT_SHARE, SQRT_SHARE))


@dataclass(frozen=True)
class SubmitFairSettings(FairShareSettings):
    """Settings of Submit-time Fair (HRF paper, sec. 3.1)."""


@dataclass(frozen=True)
class ScheduleFairSettings(FairShareSettings):
    """Settings of Schedule-time Fair (HRF paper, sec. 3.1)."""


# -- what an allocation scheme sees ------------------------------------------------


class SelectionScheme(Protocol):
    """Which queued job starts now (HRF paper, sec. 3.2)."""

    def pick(self, state: SystemState, size_of: SizeOf) -> int | None:
        """Queue position of the job to start now, or None."""

    def planned_floor(self, planned_start: float, now: float) -> float:
        """Earliest planned start of the job after one planned at ``planned_start``."""


@dataclass(slots=True)
class SystemState:
    """The machine and the queue at one decision point (partition 0).

    ``running`` includes the jobs started earlier in the same scheduling call;
    ``queue`` is the policy's queue (for a submission: without the new job).
    """

    now: float
    capacity: int
    free: int
    running: list[RunningJob]
    queue: list[Job]
    selection: SelectionScheme


@dataclass(frozen=True, slots=True)
class Candidates:
    """A job's allowed sizes (increasing) and its estimated run time on each."""

    sizes: tuple[int, ...]
    runtimes: tuple[float, ...]

    def up_to(self, limit: int) -> Candidates:
        """The sizes not above ``limit`` (always keeps the smallest)."""
        count = max(1, bisect_left(self.sizes, limit + 1))
        return Candidates(self.sizes[:count], self.runtimes[:count])


class JobSizes:
    """Allowed sizes of each job, cached: ``[unit, min(procs, threshold x m, capacity)]``.

    HRF paper, sec. 5: a job may use at most ``threshold x m`` processors. A rigid
    job (no speedup model) has the single size ``procs`` rounded up to the unit.
    """

    def __init__(self, settings: MoldableSettings, machine: Machine) -> None:
        self.unit = machine.unit
        self.capacity = machine.partitions[0] // machine.unit * machine.unit
        self.threshold_cap = threshold_cap(settings.threshold, self.capacity, self.unit,
                                           settings.threshold_rounding)
        self.machine = machine
        self._cache: dict[int, Candidates] = {}

    def of(self, job: Job) -> Candidates:
        found = self._cache.get(job.index)
        if found is None:
            found = self._cache[job.index] = self._build(job)
        return found

    def forget(self, job: Job) -> None:
        self._cache.pop(job.index, None)

    def _build(self, job: Job) -> Candidates:
        if not job.moldable:
            size = self.machine.round_up(job.procs)
            return Candidates((size,), (job.estimate_on(size),))
        largest = min(self.machine.round_up(job.procs), self.threshold_cap)
        count = largest // self.unit
        if isinstance(job.speedup, DowneySpeedup):
            # The job's whole table (up to its own size) is cached across thresholds.
            table = job.speedup.runtimes(self.unit, self.machine.round_up(job.procs) // self.unit)
            return Candidates(_sizes(self.unit, count), table[:count])
        sizes = _sizes(self.unit, count)
        return Candidates(sizes, tuple(job.estimate_on(size) for size in sizes))


@lru_cache(maxsize=4096)
def _sizes(unit: int, count: int) -> tuple[int, ...]:
    """``(unit, 2 unit, ..., count unit)``."""
    return tuple(range(unit, count * unit + 1, unit))


ROUNDINGS: dict[str, Callable[[float], int]] = {
    "floor": lambda units: math.floor(units + ROUNDING_SLACK),
    "ceil": lambda units: math.ceil(units - ROUNDING_SLACK),
}


def threshold_cap(threshold: float, capacity: int, unit: int, rounding: str) -> int:
    """``threshold x m`` in whole units (``ROUNDINGS[rounding]``), within [unit, capacity]."""
    whole = ROUNDINGS[rounding](threshold * capacity / unit)
    return min(capacity, max(1, whole) * unit)


def processor_budget(alpha: float, capacity: int) -> int:
    """HRF's budget ``alpha x m`` (Algorithm 1 line 5: a loop count, so rounded down)."""
    return max(0, math.floor(alpha * capacity + ROUNDING_SLACK))


# -- allocation schemes (HRF paper, sec. 3.1) --------------------------------------


class AllocationScheme(Protocol):
    """Decides the processor count ``x_i`` of each queued job (HRF paper, sec. 3.1)."""

    settings: MoldableSettings

    def submitted(self, job: Job, state: SystemState) -> None:
        """``job`` joins the queue (``state.queue`` does not hold it yet)."""

    def started(self, job: Job) -> None:
        """``job`` left the queue to run."""

    def prepare(self, state: SystemState) -> None:
        """A decision point: the state before the next pick."""

    def size(self, job: Job) -> int:
        """``x_i`` of a queued job, valid after :meth:`prepare`."""


class Allocation:
    """Base of the allocation schemes: settings, the jobs' allowed sizes, no-op hooks.

    A scheme names its settings dataclass (``settings_type``, which the registry
    builds for it) and its title in the HRF paper.
    """

    settings_type: ClassVar[type[MoldableSettings]] = MoldableSettings
    title: ClassVar[str] = ""

    def __init__(self, settings: MoldableSettings, machine: Machine) -> None:
        self.settings = settings
        self.job_sizes = JobSizes(settings, machine)

    def submitted(self, job: Job, state: SystemState) -> None:
        """``job`` joins the queue (``state.queue`` does not hold it yet)."""

    def started(self, job: Job) -> None:
        """``job`` left the queue to run."""

    def prepare(self, state: SystemState) -> None:
        """A decision point: the state before the next pick."""

    def size(self, job: Job) -> int:
        raise NotImplementedError


# -- Highest Revenue First (HRF paper, sec. 5) --------------------------------------


def highest_revenue_first(runtime_tables: Sequence[Sequence[float]], extra_steps: int,
                          min_revenue: float = 0.0) -> list[int]:
    """HRF paper, sec. 5, Algorithm 1: extra allocation steps given to each job.

    ``runtime_tables[i][k]`` is ``T_i`` on job i's k-th allowed size (k = 0 is the
    first processor every job holds, lines 2-4; the last entry is its cap). Each
    of the ``extra_steps`` steps (lines 5-12) goes to the job with the highest
    revenue per processor ``RP_i = T_i(x_i) - T_i(x_i + 1)`` (sec. 4.2); a job at
    its cap leaves the considering jobs without using budget (lines 9-10), and
    so does a job whose next step earns no more than ``min_revenue``. Leftover
    budget is dropped once no job is left. Ties go to the earlier queue position.
    A max-heap of the RPs gives O(n + steps log n).
    """
    steps = [0] * len(runtime_tables)
    heap = [(table[1] - table[0], i) for i, table in enumerate(runtime_tables)
            if len(table) > 1 and table[0] - table[1] > min_revenue]
    heapify(heap)
    while extra_steps > 0 and heap:
        _, i = heappop(heap)
        steps[i] += 1
        extra_steps -= 1
        table, k = runtime_tables[i], steps[i]
        if k + 1 < len(table) and table[k] - table[k + 1] > min_revenue:
            heappush(heap, (table[k + 1] - table[k], i))
    return steps


class RuntimeRows:
    """The run-time tables of the queued jobs (``Candidates.runtimes``), each a row of one
    array kept across HRF's calls of Algorithm 1 (``policies.compiled.hrf``): a job's
    row is filled when it is first allocated and freed when it starts."""

    def __init__(self, width: int) -> None:
        self.runtimes = np.zeros((0, width))
        self.lengths = np.zeros(0, np.int64)
        self.row_of: dict[int, int] = {}  # job index -> row
        self.free: list[int] = []

    def rows(self, queue: Sequence[Job], candidates: Sequence[Candidates]) -> np.ndarray:
        """The rows of ``queue``'s jobs in queue order (filled for jobs without one)."""
        row_of = self.row_of
        rows = [row_of.get(job.index, -1) for job in queue]
        if -1 in rows:
            for position, row in enumerate(rows):
                if row < 0:
                    rows[position] = self._fill(queue[position].index,
                                                candidates[position].runtimes)
        return np.array(rows, np.int64)

    def forget(self, index: int) -> None:
        row = self.row_of.pop(index, None)
        if row is not None:
            self.free.append(row)

    def _fill(self, index: int, table: Sequence[float]) -> int:
        if not self.free:
            count = self.lengths.shape[0]
            grown = max(16, 2 * count)
            self.runtimes = np.concatenate(
                (self.runtimes, np.zeros((grown - count, self.runtimes.shape[1]))))
            self.lengths = np.concatenate((self.lengths, np.zeros(grown - count, np.int64)))
            self.free.extend(range(grown - 1, count - 1, -1))
        row = self.free.pop()
        self.runtimes[row, :len(table)] = table
        self.lengths[row] = len(table)
        self.row_of[index] = row
        return row


class HrfAllocation(Allocation):
    """HRF (HRF paper, sec. 5): reruns Algorithm 1 when the queue has changed.

    "Every time the state of the waiting queue changes (a job joins the queue or
    leaves the queue), we need to start a new allocation" (sec. 5). By default
    (``hrf_reallocation = per-instant``) the allocation made for the queue at an
    instant holds for every start at that instant, and the next instant
    reallocates if the queue changed (arrivals, or the starts): the reading under
    which the sec. 4.1 example gives Strategy A. ``per-queue-change`` also reruns
    it after each start inside one scheduling call.
    """

    settings_type = HrfSettings
    title = "Highest Revenue First"
    settings: HrfSettings

    def __init__(self, settings: HrfSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.budget = processor_budget(settings.alpha, self.job_sizes.capacity)
        self.reallocates_within_instant = settings.hrf_reallocation == PER_QUEUE_CHANGE
        self.sizes: dict[int, int] = {}
        self.queue_changed = False
        self.allocated_at = -math.inf
        self.tables = RuntimeRows(self.job_sizes.capacity // self.job_sizes.unit)

    def submitted(self, job: Job, state: SystemState) -> None:
        self.queue_changed = True

    def started(self, job: Job) -> None:
        self.queue_changed = True
        self.job_sizes.forget(job)
        self.tables.forget(job.index)
        del self.sizes[job.index]

    def prepare(self, state: SystemState) -> None:
        if self.queue_changed and self._due(state.now):
            self._allocate(state.queue)
            self.queue_changed = False
            self.allocated_at = state.now

    def size(self, job: Job) -> int:
        return self.sizes[job.index]

    def _due(self, now: float) -> bool:
        """Whether a changed queue is reallocated now."""
        return self.reallocates_within_instant or now != self.allocated_at

    def _allocate(self, queue: list[Job]) -> None:
        from schedsim.policies.compiled.hrf import highest_revenue_first_rows

        candidates = [self.job_sizes.of(job) for job in queue]
        tables = self.tables
        rows = tables.rows(queue, candidates)  # first: it may grow the arrays
        steps = highest_revenue_first_rows(tables.runtimes, tables.lengths, rows,
                                           self._extra_steps(candidates),
                                           self.settings.min_revenue).tolist()
        self.sizes = {job.index: c.sizes[k] for job, c, k in zip(queue, candidates, steps,
                                                                  strict=True)}

    def _extra_steps(self, candidates: list[Candidates]) -> int:
        """Budget left for Algorithm 1 lines 5-12, in allocation units."""
        initial = sum(c.sizes[0] for c in candidates) if self.settings.budget_includes_initial \
            else 0
        return max(0, self.budget - initial) // self.job_sizes.unit


@dataclass(frozen=True)
class RuntimeTable:
    """A speedup model from a table: ``runtimes[n - 1]`` on n processors, flat beyond it."""

    runtimes: tuple[float, ...]

    def runtime(self, procs: int) -> float:
        return self.runtimes[min(procs, len(self.runtimes)) - 1]


def hrf_allocation(runtime_tables: Sequence[Sequence[float]], machine: Machine,
                   settings: HrfSettings) -> tuple[int, ...]:
    """HRF's sizes for jobs queued together at time 0 (HRF paper, sec. 4.1 and Algorithm 1).

    ``runtime_tables[i][n - 1]`` is job i's run time on n processors, and
    ``len(runtime_tables[i])`` its largest size. The jobs are submitted in order,
    then Algorithm 1 runs once for the whole queue, as at the single scheduling
    instant of the sec. 4.1 example (Table 1 gives (2, 2, 1) on 3 processors with
    alpha 5/3 and threshold 2/3).
    """
    jobs = [Job(id=index + 1, submit=0.0, runtime=table[-1], procs=len(table),
                estimate=table[-1], speedup=RuntimeTable(tuple(table)), index=index)
            for index, table in enumerate(runtime_tables)]
    allocation = HrfAllocation(settings, machine)
    capacity = machine.partitions[0]
    for position, job in enumerate(jobs):
        queue = jobs[:position]
        allocation.submitted(job, SystemState(0.0, capacity, capacity, [], queue,
                                              FcfsSelection()))
    allocation.prepare(SystemState(0.0, capacity, capacity, [], jobs, FcfsSelection()))
    return tuple(allocation.size(job) for job in jobs)


# -- Submit-time Greedy and Submit-time Fair (HRF paper sec. 3.1; docs/deviations-hrf.md) -


def earliest_completion_size(candidates: Candidates, completion: Callable[[int, float], float],
                             now: float) -> int:
    """The size with the earliest estimated completion; ties go to the smaller size.

    ``completion(size, runtime)`` is the planned end on ``size`` processors. Sizes
    are tried largest first and one whose run time alone ends after the best
    completion so far is skipped unplanned (the start is never before ``now``).
    """
    best_size, best_end = candidates.sizes[-1], math.inf
    for size, runtime in zip(reversed(candidates.sizes), reversed(candidates.runtimes),
                             strict=True):
        if now + runtime > best_end:
            continue
        end = completion(size, runtime)
        if end <= best_end:
            best_size, best_end = size, end
    return best_size


class WhatIfPlan:
    """A tentative schedule: running jobs' estimated ends plus the queue placed in order.

    Each queued job takes the earliest time, not before the selection scheme's
    floor (FCFS: the previous job's start; EASY: now, a conservative placement,
    docs/deviations-hrf.md), at which its size is free for its estimated run time.
    """

    def __init__(self, state: SystemState, size_of: SizeOf) -> None:
        now = state.now
        profile = Profile.holding(now, state.capacity,
                                  [(record.est_end, record.procs) for record in state.running])
        floor = now
        for job in state.queue:
            size = size_of(job)
            runtime = job.estimate_on(size)
            start = profile.earliest(size, runtime, floor)
            profile.reserve(start, start + runtime, size)
            floor = state.selection.planned_floor(start, now)
        self.profile = profile
        self.floor = floor

    def completion(self, size: int, runtime: float) -> float:
        return self.profile.earliest(size, runtime, self.floor) + runtime


class SubmitGreedyAllocation(Allocation):
    """Submit-time Greedy: at submission, the size with the earliest completion.

    HRF paper, sec. 3.1 (after Srinivasan et al. / Cirne & Berman): the size is
    chosen once, given the current schedule (a :class:`WhatIfPlan`), and never
    changes; sizes are capped by ``threshold x m`` like every scheme here.
    """

    settings_type: ClassVar[type[MoldableSettings]] = SubmitGreedySettings
    title = "Submit-time Greedy"

    def __init__(self, settings: MoldableSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.sizes: dict[int, int] = {}
        # Submit-time Fair keeps the earliest-completion size (its settings have no choice)
        self.greedy_size = getattr(settings, "greedy_size", EARLIEST_COMPLETION)

    def submitted(self, job: Job, state: SystemState) -> None:
        candidates = self.job_sizes.of(job).up_to(self._limit(job, state))
        if self.greedy_size == MAX_PROCESSORS:
            self.sizes[job.index] = candidates.sizes[-1]
        else:
            plan = WhatIfPlan(state, self.size)
            self.sizes[job.index] = earliest_completion_size(candidates, plan.completion,
                                                             state.now)
        self.job_sizes.forget(job)

    def started(self, job: Job) -> None:
        del self.sizes[job.index]

    def size(self, job: Job) -> int:
        return self.sizes[job.index]

    def _limit(self, job: Job, state: SystemState) -> int:
        """Largest size the scheme may choose (beyond the threshold cap)."""
        return self.job_sizes.capacity


def sequential_estimate(job: Job) -> float:
    """The fair-share weight ``w_i``: estimated sequential run time (docs/deviations-hrf.md)."""
    return job.estimate_on(1) if job.moldable else job.estimate * job.procs


def jobs_in_system(state: SystemState) -> list[Job]:
    """Running and queued jobs (docs/deviations-hrf.md, our default)."""
    return [record.job for record in state.running] + state.queue


def queued_jobs(state: SystemState) -> list[Job]:
    return list(state.queue)


FAIR_SETS: dict[str, Callable[[SystemState], list[Job]]] = {
    "system": jobs_in_system,
    "queue": queued_jobs,
}


class FairShare:
    """The fair-share limit (HRF paper sec. 3.1: "restricted by its weight, which refers
    to the sequential runtime of the job"; docs/deviations-hrf.md G3).

    ``Pfair_i = max(unit, floor_unit(m x f(w_i) / sum_{k in K} f(w_k)))`` with
    ``f(w) = w`` (default, as the paper words it) or ``f(w) = sqrt(w)`` (setting
    ``fair_share``), K from ``FAIR_SETS`` (all jobs in the system, or the queued
    ones) plus job i itself.
    """

    def __init__(self, settings: FairShareSettings, capacity: int, unit: int) -> None:
        self.weighted_jobs = FAIR_SETS[settings.fair_weights_over]
        self.transform: Callable[[float], float] = math.sqrt \
            if settings.fair_share == SQRT_SHARE else float
        self.capacity = capacity
        self.unit = unit
        self._shares: dict[int, float] = {}

    def weight_sum(self, state: SystemState, newcomer: Job | None = None) -> float:
        """``sum_{k in K} f(w_k)``; ``newcomer`` is a job not yet in the queue."""
        total = sum(self._weight(job) for job in self.weighted_jobs(state))
        return total + self._weight(newcomer) if newcomer is not None else total

    def limit(self, job: Job, weight_sum: float) -> int:
        share = self.capacity * self._weight(job) / weight_sum
        return max(1, math.floor(share / self.unit + ROUNDING_SLACK)) * self.unit

    def _weight(self, job: Job) -> float:
        found = self._shares.get(job.index)
        if found is None:
            found = self._shares[job.index] = self.transform(sequential_estimate(job))
        return found


class SubmitFairAllocation(SubmitGreedyAllocation):
    """Submit-time Fair: Submit-time Greedy limited by the fair share at submission."""

    settings_type = SubmitFairSettings
    title = "Submit-time Fair"

    def __init__(self, settings: FairShareSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.fair = FairShare(settings, self.job_sizes.capacity, self.job_sizes.unit)

    def _limit(self, job: Job, state: SystemState) -> int:
        return self.fair.limit(job, self.fair.weight_sum(state, newcomer=job))


# -- Schedule-time Fair (HRF paper sec. 3.1; docs/deviations-hrf.md) ---------------------


class AvailabilitySteps:
    """Free processors over time if nothing else starts: now, then at each estimated end."""

    def __init__(self, state: SystemState) -> None:
        now = state.now
        times, frees = [now], [state.free]
        for end, procs in sorted((max(r.est_end, now), r.procs) for r in state.running):
            if end == times[-1]:
                frees[-1] += procs
            else:
                times.append(end)
                frees.append(frees[-1] + procs)
        self.times = times
        self.frees = frees

    def completion(self, size: int, runtime: float) -> float:
        return self.times[bisect_left(self.frees, size)] + runtime


class ScheduleFairAllocation(Allocation):
    """Schedule-time Fair: the size is chosen anew at every decision until the job starts.

    Each queued job gets the size, at most its current fair share, with the
    earliest completion if it were the next job to start (running jobs' estimated
    ends only; docs/deviations-hrf.md). Sizes are recomputed at every
    decision point and memoised within it.
    """

    settings_type = ScheduleFairSettings
    title = "Schedule-time Fair"

    def __init__(self, settings: FairShareSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.fair = FairShare(settings, self.job_sizes.capacity, self.job_sizes.unit)
        self._steps: AvailabilitySteps | None = None
        self._state: SystemState | None = None
        self._weight_sum = 0.0
        self._sizes: dict[int, int] = {}

    def started(self, job: Job) -> None:
        self.job_sizes.forget(job)

    def prepare(self, state: SystemState) -> None:
        self._state = state
        self._steps = None
        self._weight_sum = self.fair.weight_sum(state)
        self._sizes.clear()

    def size(self, job: Job) -> int:
        found = self._sizes.get(job.index)
        if found is None:
            found = self._sizes[job.index] = self._choose(job)
        return found

    def _choose(self, job: Job) -> int:
        assert self._state is not None, "prepare() first"
        if self._steps is None:
            self._steps = AvailabilitySteps(self._state)
        candidates = self.job_sizes.of(job).up_to(self.fair.limit(job, self._weight_sum))
        return earliest_completion_size(candidates, self._steps.completion, self._state.now)


# -- selection schemes (HRF paper, sec. 3.2) ---------------------------------------


class FcfsSelection:
    """FCFS: only the queue head may start, when its size fits; the head waits otherwise."""

    title: ClassVar[str] = "FCFS"

    def pick(self, state: SystemState, size_of: SizeOf) -> int | None:
        if size_of(state.queue[0]) <= state.free:
            return 0
        if state.free == 0:
            return None
        return self._backfill(state, size_of)

    def planned_floor(self, planned_start: float, now: float) -> float:
        """FCFS starts jobs in queue order."""
        return planned_start

    def _backfill(self, state: SystemState, size_of: SizeOf) -> int | None:
        """FCFS never backfills."""
        return None


class EasySelection(FcfsSelection):
    """Aggressive (EASY) backfilling: the head holds a reservation at its chosen size.

    The first job in queue order that fits now and ends by the head's shadow
    time, or uses at most the extra processors, starts (Mu'alem & Feitelson 2001;
    docs/deviations.md, EASY boundary).
    Called again after each start, with the started jobs among the running ones,
    which keeps ``extra`` exact.
    """

    title = "aggressive (EASY) backfilling"

    def planned_floor(self, planned_start: float, now: float) -> float:
        """Backfilling lets a later job start before an earlier one (conservative plan)."""
        return now

    def _backfill(self, state: SystemState, size_of: SizeOf) -> int | None:
        queue, now, free = state.queue, state.now, state.free
        shadow, extra = shadow_and_extra(now, free, state.running, size_of(queue[0]))
        for position in range(1, len(queue)):
            job = queue[position]
            size = size_of(job)
            if size <= free and (now + job.estimate_on(size) <= shadow or size <= extra):
                return position
        return None


# -- the policy ------------------------------------------------------------------


class MoldablePolicy(QueuePolicy[MoldableSettings]):
    """A moldable policy = an allocation scheme + a selection scheme (HRF paper, sec. 3).

    Its settings are the allocation scheme's.
    """

    def __init__(self, allocation: AllocationScheme, selection: SelectionScheme,
                 machine: Machine) -> None:
        super().__init__(allocation.settings, machine)
        self.allocation = allocation
        self.selection = selection

    def submit(self, job: Job, view: EngineView) -> None:
        self.allocation.submitted(job, self._state(view))
        super().submit(job, view)

    def schedule(self, view: EngineView) -> list[Decision]:
        decisions: list[Decision] = []
        state = self._state(view)
        while self.queue:
            self.allocation.prepare(state)
            position = self.selection.pick(state, self.allocation.size)
            if position is None:
                break
            decisions.append(self._start(position, state))
        return decisions

    def _start(self, position: int, state: SystemState) -> Start:
        job = self.queue[position]
        size = self.allocation.size(job)
        del self.queue[position]
        self.allocation.started(job)
        state.free -= size
        state.running.append(RunningJob(job, state.now, size, 0, (),
                                        state.now + job.estimate_on(size)))
        return Start(job, size)

    def _state(self, view: EngineView) -> SystemState:
        running = [r for r in view.running.values() if r.partition == 0]
        return SystemState(view.now, self.machine.partitions[0], view.free[0], running,
                           self.queue, self.selection)


@dataclass(frozen=True)
class Composed:
    """A moldable policy's factory: an allocation scheme class with a selection scheme class."""

    allocation: type[Allocation]
    selection: type[FcfsSelection]

    def __call__(self, settings: MoldableSettings, machine: Machine) -> MoldablePolicy:
        return MoldablePolicy(self.allocation(settings, machine), self.selection(), machine)

    def description(self) -> str:
        return (f"{self.allocation.title} allocation with {self.selection.title} "
                "(HRF paper, Table 2)")


TABLE_2: dict[str, Composed] = {  # HRF paper, Table 2 (sec. 6.1.3)
    "HRFFcfs": Composed(HrfAllocation, FcfsSelection),
    "HRFBf": Composed(HrfAllocation, EasySelection),
    "SbmGrdyFcfs": Composed(SubmitGreedyAllocation, FcfsSelection),
    "SbmGrdyBf": Composed(SubmitGreedyAllocation, EasySelection),
    "SbmFairFcfs": Composed(SubmitFairAllocation, FcfsSelection),
    "SbmFairBf": Composed(SubmitFairAllocation, EasySelection),
    "SchFairFcfs": Composed(ScheduleFairAllocation, FcfsSelection),
    "SchFairBf": Composed(ScheduleFairAllocation, EasySelection),
}


def unread_params(scheme: type[Allocation]) -> tuple[ParamSpec, ...]:
    """The other schemes' parameters, which a ``scheme`` policy accepts and ignores.

    HRF paper, sec. 6.3: all eight Table 2 policies are averaged over the same
    alpha x threshold grid, so every Table 2 name takes every scheme's parameters
    (with the same defaults and ranges); the help text says which have no effect.
    """
    schemes = list(dict.fromkeys(composed.allocation for composed in TABLE_2.values()))
    own = {spec.name for spec in param_specs(scheme.settings_type)}
    readers: dict[str, list[str]] = {}
    specs: dict[str, ParamSpec] = {}
    for other in schemes:
        for spec in param_specs(other.settings_type):
            if spec.name not in own:
                specs.setdefault(spec.name, spec)
                readers.setdefault(spec.name, []).append(other.title)
    return tuple(replace(spec, help=f"no effect on {scheme.title} (a "
                         f"{' and '.join(readers[name])} parameter; all 8 policies share "
                         f"one alpha x threshold grid, sec. 6.3): {spec.help}")
                 for name, spec in specs.items())


for _name, _composed in TABLE_2.items():
    register_policy(_name, "moldable", _composed.description(),
                    _composed.allocation.settings_type,
                    unread=unread_params(_composed.allocation))(_composed)
