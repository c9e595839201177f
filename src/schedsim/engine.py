"""The discrete-event loop.

Equal-time order (a documented invariant; algorithms.md 0.3): at every instant
``t`` the engine

1. processes every job completion at ``t``;
2. processes every job arrival at ``t``, in workload (file) order;
3. applies every runtime change (elastic control command) at ``t``, in file order;
4. drops the policy wake-ups due at ``t``;
5. calls the policy's ``schedule`` once, and applies its decisions in the order
   returned.

So every processor freed at ``t`` is free for every decision taken at ``t``, and a
job arriving at ``t`` is seen by the scheduling call at ``t``. Completions at the
same instant are processed in the order their jobs started (stable), like SimPy's
(time, priority, insertion counter) order.

The engine never names a policy: it tells the policy what happened (``submit``,
``finish``, ``change``), asks it for decisions (:class:`Start`, :class:`WakeUp`),
and checks every decision, raising :class:`SimulationError` with the job and
the time on a violation (more processors than free, start before submit, a job
started twice, an allocation that is not a multiple of the machine's unit, ...).
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from schedsim.jobs import DEDICATED, Job, RuntimeChange
from schedsim.machine import Machine

NOT_ARRIVED, WAITING, RUNNING, DONE = 0, 1, 2, 3


class SimulationError(RuntimeError):
    """A policy made an invalid decision, or left jobs that never start."""


@dataclass(frozen=True, slots=True)
class Start:
    """Decision: start ``job`` now on ``procs`` processors of ``partition``.

    ``processors`` optionally names the processors (heterogeneous machines);
    when empty on such a machine the engine takes the lowest-numbered free ones.
    """

    job: Job
    procs: int
    partition: int = 0
    processors: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class WakeUp:
    """Decision: call the policy again at ``time`` even if nothing else happens."""

    time: float


Decision = Start | WakeUp


class RunningJob:
    """A job on the machine, as policies see it (estimated end, never the actual one)."""

    __slots__ = ("est_end", "job", "partition", "processors", "procs", "start")

    def __init__(
        self, job: Job, start: float, procs: int, partition: int,
        processors: tuple[int, ...], est_end: float,
    ) -> None:
        self.job = job
        self.start = start
        self.procs = procs
        self.partition = partition
        self.processors = processors
        self.est_end = est_end


class EngineView(Protocol):
    """What a policy may read. Policies never write to it."""

    now: float
    machine: Machine
    free: list[int]
    running: dict[int, RunningJob]

    @property
    def free_total(self) -> int: ...

    def free_processors(self, partition: int = 0) -> list[int]: ...


class Policy(Protocol):
    """A scheduling policy: keeps its own queue, answers with decisions."""

    def submit(self, job: Job, view: EngineView) -> None:
        """``job`` arrived (called in file order, before ``schedule``)."""

    def finish(self, job: Job, view: EngineView) -> None:
        """``job`` completed; its processors are already free."""

    def change(self, job: Job, view: EngineView) -> None:
        """``job``'s estimate changed (elastic command); running jobs' est_end moved."""

    def schedule(self, view: EngineView) -> Iterable[Decision]:
        """Decisions for ``view.now``; called once per instant at which anything happened."""


@dataclass
class Schedule:
    """The outcome of a run: per job (by ``Job.index``) start, end, processors, partition."""

    machine: Machine
    jobs: list[Job]
    start: list[float]
    end: list[float]
    procs: list[int]
    partition: list[int]


class Engine:
    """Runs one policy over one workload on one machine."""

    def __init__(self, machine: Machine, policy: Policy, check: bool = False) -> None:
        self.machine = machine
        self.policy = policy
        self.check = check
        self.now = 0.0
        self.free = list(machine.partitions)
        self.running: dict[int, RunningJob] = {}
        self._free_ids: list[set[int]] = self._initial_free_ids() if machine.speeds else []

    # -- read-only view -------------------------------------------------
    @property
    def free_total(self) -> int:
        return sum(self.free)

    def free_processors(self, partition: int = 0) -> list[int]:
        if not self._free_ids:
            raise SimulationError("free_processors: the machine does not track processors "
                                  "(give it per-processor speeds)")
        return sorted(self._free_ids[partition])

    # -- the loop --------------------------------------------------------
    def run(self, jobs: Sequence[Job], changes: Sequence[RuntimeChange] = ()) -> Schedule:
        """Simulate ``jobs`` (and elastic ``changes``) to the last completion."""
        # Elastic commands mutate runtime and estimate: work on copies then.
        jobs = [copy.copy(job) for job in jobs] if changes else list(jobs)
        for index, job in enumerate(jobs):
            job.index = index
        n = len(jobs)
        self._jobs = jobs
        self._state = [NOT_ARRIVED] * n
        self._start = [float("nan")] * n
        self._end = [float("nan")] * n
        self._procs = [0] * n
        self._part = [-1] * n
        self._by_id = {job.id: job for job in jobs} if changes else {}
        self._completions: list[tuple[float, int, int]] = []
        self._wakeups: list[float] = []
        self._seq = 0
        arrivals = sorted(jobs, key=lambda j: (j.submit, j.index))
        commands = sorted(enumerate(changes), key=lambda ic: (ic[1].time, ic[0]))
        self._loop(arrivals, [c for _, c in commands])
        waiting = [j.id for j, s in zip(jobs, self._state, strict=True) if s != DONE]
        if waiting:
            raise SimulationError(
                f"the policy never started {len(waiting)} job(s), first job id {waiting[0]}"
            )
        schedule = Schedule(self.machine, jobs, self._start, self._end, self._procs, self._part)
        if self.check:
            from schedsim.metrics import validate_schedule

            validate_schedule(schedule)
        return schedule

    def _loop(self, arrivals: list[Job], commands: list[RuntimeChange]) -> None:
        inf = float("inf")
        completions = self._completions
        wakeups = self._wakeups
        policy = self.policy
        state = self._state
        n_arr, n_cmd = len(arrivals), len(commands)
        ai = ci = 0
        waiting = 0
        while True:
            t = arrivals[ai].submit if ai < n_arr else inf
            if completions and completions[0][0] < t:
                t = completions[0][0]
            if ci < n_cmd and commands[ci].time < t:
                t = commands[ci].time
            if wakeups and wakeups[0] < t:
                t = wakeups[0]
            if t == inf:
                return
            self.now = t
            while completions and completions[0][0] == t:
                _, _, index = heapq.heappop(completions)
                if self._end[index] == t and state[index] == RUNNING:
                    self._complete(index)
            while ai < n_arr and arrivals[ai].submit == t:
                job = arrivals[ai]
                ai += 1
                state[job.index] = WAITING
                waiting += 1
                if job.kind == DEDICATED and job.requested_start is not None:
                    heapq.heappush(wakeups, max(job.requested_start, t))
                policy.submit(job, self)
            while ci < n_cmd and commands[ci].time == t:
                self._apply_change(commands[ci])
                ci += 1
            while wakeups and wakeups[0] <= t:
                heapq.heappop(wakeups)
            if waiting:
                waiting -= self._apply(policy.schedule(self))

    # -- decisions ---------------------------------------------------------
    def _apply(self, decisions: Iterable[Decision]) -> int:
        started = 0
        for decision in decisions:
            if type(decision) is Start:
                self._start_job(decision)
                started += 1
            elif isinstance(decision, WakeUp):
                if decision.time <= self.now:
                    raise SimulationError(f"t={self.now}: wake-up at {decision.time} is not "
                                          "in the future")
                heapq.heappush(self._wakeups, decision.time)
            else:
                raise SimulationError(f"t={self.now}: unknown decision {decision!r}")
        return started

    def _start_job(self, decision: Start) -> None:
        job, procs, part = decision.job, decision.procs, decision.partition
        self._check_start(job, procs, part)
        processors = self._take_processors(decision) if self._free_ids else decision.processors
        index = job.index
        now = self.now
        runtime = self._runtime(job, procs, processors)
        est = runtime if job.work is not None else job.estimate_on(procs)
        self.free[part] -= procs
        self._state[index] = RUNNING
        self._start[index] = now
        self._end[index] = end = now + runtime
        self._procs[index] = procs
        self._part[index] = part
        self.running[index] = RunningJob(job, now, procs, part, processors, now + est)
        self._seq += 1
        heapq.heappush(self._completions, (end, self._seq, index))

    def _check_start(self, job: Job, procs: int, part: int) -> None:
        index = job.index
        if not 0 <= index < len(self._jobs) or self._jobs[index] is not job:
            raise SimulationError(f"t={self.now}: job {job.id} is not part of this run")
        if self._state[index] != WAITING:
            what = {NOT_ARRIVED: "has not been submitted yet", RUNNING: "is already running",
                    DONE: "has already run"}[self._state[index]]
            raise SimulationError(f"t={self.now}: job {job.id} {what}")
        if not 0 <= part < len(self.free):
            raise SimulationError(f"t={self.now}: job {job.id}: no partition {part}")
        unit = self.machine.unit
        if procs <= 0 or procs % unit:
            raise SimulationError(f"t={self.now}: job {job.id}: {procs} processors is not a "
                                  f"positive multiple of the unit {unit}")
        if job.speedup is None and job.work is None and procs != self.machine.round_up(job.procs):
            raise SimulationError(f"t={self.now}: rigid job {job.id} needs "
                                  f"{self.machine.round_up(job.procs)} processors, got {procs}")
        if procs > self.free[part]:
            raise SimulationError(f"t={self.now}: job {job.id} asks {procs} processors, "
                                  f"only {self.free[part]} free in partition {part}")

    def _runtime(self, job: Job, procs: int, processors: tuple[int, ...]) -> float:
        if job.work is not None and processors:
            speeds = self.machine.speeds
            # BPU-proportional split (algorithms.md 5.3): T = W / sum of speeds.
            return job.work / sum(speeds[p] for p in processors)
        return job.runtime_on(procs)

    def _take_processors(self, decision: Start) -> tuple[int, ...]:
        free_ids = self._free_ids[decision.partition]
        chosen = decision.processors or tuple(sorted(free_ids)[: decision.procs])
        if len(chosen) != decision.procs or not free_ids.issuperset(chosen):
            raise SimulationError(f"t={self.now}: job {decision.job.id}: processors {chosen} "
                                  f"are not {decision.procs} free processors of partition "
                                  f"{decision.partition}")
        free_ids.difference_update(chosen)
        return tuple(chosen)

    # -- events -----------------------------------------------------------
    def _complete(self, index: int) -> None:
        record = self.running.pop(index)
        self._state[index] = DONE
        self.free[record.partition] += record.procs
        if self._free_ids:
            self._free_ids[record.partition].update(record.processors)
        self.policy.finish(record.job, self)

    def _apply_change(self, command: RuntimeChange) -> None:
        """Elastic control command: move run time and estimate by ``delta``.

        A waiting job's runtime and estimate change (never below 1 s); a running job's
        end and estimated end move by ``delta`` (never before now); a finished or
        unknown job is left alone.
        """
        job = self._by_id.get(command.job_id)
        if job is None or self._state[job.index] in (DONE, NOT_ARRIVED):
            return
        index = job.index
        if self._state[index] == WAITING:
            job.runtime = max(1.0, job.runtime + command.delta)
            job.estimate = max(job.runtime, job.estimate + command.delta)
        else:
            record = self.running[index]
            new_end = max(self.now, self._end[index] + command.delta)
            job.runtime = new_end - record.start
            job.estimate = max(job.runtime, job.estimate + command.delta)
            record.est_end = record.start + job.estimate
            self._end[index] = new_end
            self._seq += 1
            heapq.heappush(self._completions, (new_end, self._seq, index))
        self.policy.change(job, self)

    def _initial_free_ids(self) -> list[set[int]]:
        out: list[set[int]] = []
        first = 0
        for size in self.machine.partitions:
            out.append(set(range(first, first + size)))
            first += size
        return out


def simulate(
    jobs: Sequence[Job], machine: Machine, policy: Policy,
    changes: Sequence[RuntimeChange] = (), check: bool = False,
) -> Schedule:
    """Run ``policy`` over ``jobs`` on ``machine`` and return the schedule."""
    return Engine(machine, policy, check=check).run(jobs, changes)
