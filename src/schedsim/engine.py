"""The discrete-event loop.

Events live in one heap ordered by ``(time, kind priority, insertion counter)``.
An event kind is a small :class:`EventKind` subclass with a ``priority`` and an
``apply(engine, payload)`` method; the built-in kinds, by priority, are

====================  ========  =====================================================
kind                  priority  what ``apply`` does
====================  ========  =====================================================
:class:`Completion`   0         completes a job whose end is now (by identity)
:class:`Arrival`      10        submits a job to the policy (in file order)
:class:`ElasticChange` 20       applies an elastic control command (in file order)
:class:`LoadChange`   30        marks a load change asked for by the load model
:class:`WakeUpDue`    90        drops a due wake-up (the policy will be called)
====================  ========  =====================================================

A new kind (say, a time-slice boundary) picks an unused priority and is pushed
with :meth:`Engine.push_event`. Arrivals and elastic commands are fed lazily: the
next one is pushed when the previous one is popped, so the heap holds about one
entry per running job.

Equal-time order (a documented invariant; docs/deviations.md, equal-time order): at every instant
``t`` the engine

1. processes every job completion at ``t``, in the order the jobs started;
2. processes every job arrival at ``t``, in workload (file) order;
3. applies every runtime change (elastic control command) at ``t``, in file order;
4. drops the policy wake-ups due at ``t``;
5. with a load model only: redraws the loads if a job arrived or completed at
   ``t`` or the model asked for a change at ``t``, then recomputes the rates and
   ends of the running jobs whose processors' rates changed (IHAP paper's
   execution model: complete, arrive, redraw, re-time, schedule);
6. calls the policy's ``schedule`` once, if jobs wait, jobs are suspended or a
   wake-up is due, and applies its decisions in the order returned.

So every processor freed at ``t`` is free for every decision taken at ``t``, and a
job arriving at ``t`` is seen by the scheduling call at ``t``. Completions at the
same instant are processed in the order their jobs started (stable), like SimPy's
(time, priority, insertion counter) order. An event pushed at ``t`` whose
priority is lower than the one being processed (an elastic command that ends a
job now; a job of run time 0) starts a second round at ``t``, after the
scheduling call. The end a job had before it was re-timed or suspended
stays in the heap and is skipped when popped, but its time is an instant all the
same (as with elastic commands before).

The engine never names a policy: it tells the policy what happened (``submit``,
``finish``, ``change``), asks it for decisions (:class:`Start`, :class:`Suspend`,
:class:`Resume`, :class:`WakeUp`), and checks every decision, raising
:class:`SimulationError` with the job and the time on a violation (more
processors than free, start before submit, a job started twice, an allocation
that is not a multiple of the machine's unit, suspending a job that is not
running, ...).

Progress. The rate of processor k is ``speed_k * (1 - load_k)`` (its speed without a
load model). A job whose progress depends on these rates (every job under a load
model; a job with ``work``, in BPU-seconds, on a machine with speeds) is tracked as
tasks, following the machine's execution model (``Machine.execution``; IHAP paper,
sec. 4.2):

* ``equal_split``: one task per processor, each carrying 1/p of the job's work and
  progressing at its own processor's rate; the job ends when its slowest task does
  (the processors of finished tasks stay allocated until then);
* ``pooled``: one task over all the job's processors, progressing at the sum of
  their rates.

A job with ``work`` progresses at its processors' rates in BPUs; any other job
(rigid or moldable) runs its run time at nominal speed, each task at its
processors' rate relative to their speed (pooled: ``sum(rate_k) / sum(speed_k)``),
so zero loads give the schedule without a load model. Every tracked job is re-timed
when a rate of its processors changes. Its estimated end stays ``start +
estimate``; a job with ``work`` has an exact estimate, so its estimated end follows
every re-timing. Other jobs run their run time (``Job.runtime_on``) and nothing is
re-timed.

A suspended job frees its processors and keeps its remaining work (in BPU-seconds
for a job with ``work``, in seconds of nominal run time otherwise; under equal split
the sum over its tasks, split equally again when it resumes); it resumes with the
same processor count in the same partition.
"""

from __future__ import annotations

import copy
import functools
import heapq
import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from schedsim.jobs import DEDICATED, Job, RuntimeChange
from schedsim.loadmodel import LoadModel
from schedsim.machine import POOLED, Machine
from schedsim.schedule import Schedule, SimulationError, validate_schedule

__all__ = [
    "Arrival", "Completion", "Decision", "ElasticChange", "Engine", "EngineView", "EventKind",
    "LoadChange", "PausedJob", "Policy", "Resume", "RunningJob", "Schedule", "SimulationError",
    "Start", "Suspend", "WakeUp", "WakeUpDue", "simulate", "validate_schedule",
]

NOT_ARRIVED, WAITING, RUNNING, DONE, SUSPENDED = 0, 1, 2, 3, 4
_STATE_NAMES = {NOT_ARRIVED: "has not been submitted yet", WAITING: "is waiting",
                RUNNING: "is already running", DONE: "has already run",
                SUSPENDED: "is suspended (resume it)"}


@dataclass(frozen=True, slots=True)
class Start:
    """Decision: start ``job`` now on ``procs`` processors of ``partition``.

    ``processors`` optionally names the processors; on a machine that tracks
    processors (speeds or a load model) the engine checks they are free and,
    when none are named, takes the lowest-numbered free ones.
    """

    job: Job
    procs: int
    partition: int = 0
    processors: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Suspend:
    """Decision: stop running ``job`` now; it frees its processors and keeps its
    remaining work (a time-slicing scheduler's preemption)."""

    job: Job


@dataclass(frozen=True, slots=True)
class Resume:
    """Decision: resume suspended ``job`` now with its processor count, in its
    partition; ``processors`` optionally names them (as for :class:`Start`)."""

    job: Job
    processors: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class WakeUp:
    """Decision: call the policy again at ``time`` even if nothing else happens."""

    time: float


Decision = Start | Suspend | Resume | WakeUp


class RunningJob:
    """A job on the machine, as policies see it (estimated end, never the actual one).

    ``start`` is the start of the job's first segment.
    """

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


@dataclass(slots=True)
class PausedJob:
    """A suspended job: its allocation and what is left of its work and estimate."""

    job: Job
    procs: int
    partition: int
    processors: tuple[int, ...]
    remaining: float
    est_left: float


class EngineView(Protocol):
    """What a policy may read. Policies never write to it.

    ``loads`` holds every processor's background load (all 0 without a load
    model); ``suspended`` the suspended jobs by index.
    """

    now: float
    machine: Machine
    free: list[int]
    running: dict[int, RunningJob]
    suspended: dict[int, PausedJob]
    loads: Sequence[float]

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
        """Decisions for ``view.now``; called at every instant at which something
        happened while jobs wait or are suspended, and at every due wake-up."""


# -- progress of a tracked job -------------------------------------------------
class _Progress:
    """A tracked job's tasks (``Engine._begin_progress``): the processors of each, the
    work each has left at ``since``, the rate each progressed at since then, and the
    factor from its processors' summed rate to its own."""

    __slots__ = ("left", "pace", "scale", "since", "tasks")

    def __init__(self, since: float, tasks: tuple[tuple[int, ...], ...], left: list[float],
                 pace: list[float], scale: list[float]) -> None:
        self.since = since
        self.tasks = tasks
        self.left = left
        self.pace = pace
        self.scale = scale


# -- event kinds ------------------------------------------------------------
class EventKind:
    """A kind of event: ``priority`` orders kinds at equal times (lower first).

    Subclasses set ``priority`` (each kind its own) and implement :meth:`apply`,
    which may change the engine's state through its methods (e.g.
    :meth:`Engine.push_event`) and tell the policy what happened.
    """

    priority: ClassVar[int] = 50

    def apply(self, engine: Engine, payload: Any) -> None:
        raise NotImplementedError


class Completion(EventKind):
    """A job's (projected) end; stale entries (re-timed, suspended jobs) are skipped."""

    priority = 0

    def apply(self, engine: Engine, payload: Any) -> None:
        engine._on_completion(payload)


class Arrival(EventKind):
    """A job's submission; pushes the next arrival."""

    priority = 10

    def apply(self, engine: Engine, payload: Any) -> None:
        engine._on_arrival(payload)


class ElasticChange(EventKind):
    """An elastic control command (LOS paper, sec. IV-D); pushes the next command."""

    priority = 20

    def apply(self, engine: Engine, payload: Any) -> None:
        engine._on_elastic_change(payload)


class LoadChange(EventKind):
    """A time at which the load model said its loads change by themselves."""

    priority = 30

    def apply(self, engine: Engine, payload: Any) -> None:
        engine._load_change_due = True


class WakeUpDue(EventKind):
    """A policy wake-up (or a dedicated job's requested start) that is due."""

    priority = 90

    def apply(self, engine: Engine, payload: Any) -> None:
        engine._on_wake_up(payload)


_COMPLETION, _ARRIVAL, _CHANGE = Completion.priority, Arrival.priority, ElasticChange.priority
LOAD_CHANGE = LoadChange()


class Engine:
    """Runs one policy over one workload on one machine (optionally under a load model)."""

    def __init__(self, machine: Machine, policy: Policy, check: bool = False,
                 load_model: LoadModel | None = None) -> None:
        self.machine = machine
        self.policy = policy
        self.check = check
        self.load_model = load_model
        self.now = 0.0
        self.free = list(machine.partitions)
        self.running: dict[int, RunningJob] = {}
        self.suspended: dict[int, PausedJob] = {}
        tracked = bool(machine.speeds) or load_model is not None
        # Per-processor background loads; empty (all zero) on a machine that does not
        # track processors, so that a plain machine costs nothing per processor.
        self.loads: list[float] = [0.0] * machine.procs if tracked else []
        self._free_ids: list[set[int]] = self._initial_free_ids() if tracked else []
        # Heap entries: (time, priority, counter, handler, payload); handler(payload).
        self._events: list[tuple[float, int, int, Callable[[Any], None], Any]] = []
        self._seq = 0

    # -- read-only view -------------------------------------------------
    @property
    def free_total(self) -> int:
        return sum(self.free)

    def free_processors(self, partition: int = 0) -> list[int]:
        if not self._free_ids:
            raise SimulationError("free_processors: the machine does not track processors "
                                  "(give it per-processor speeds or a load model)")
        return sorted(self._free_ids[partition])

    # -- events -----------------------------------------------------------
    def push_event(self, time: float, kind: EventKind, payload: Any = None) -> None:
        """Schedule an event of ``kind`` at ``time`` (not before now)."""
        if time < self.now:
            raise SimulationError(f"t={self.now}: event {type(kind).__name__} at {time} is in "
                                  "the past")
        self._seq += 1
        handler = functools.partial(kind.apply, self)
        heapq.heappush(self._events, (time, kind.priority, self._seq, handler, payload))

    # -- the loop --------------------------------------------------------
    def run(
        self, jobs: Sequence[Job], changes: Sequence[RuntimeChange] = (),
        stop_when_started: Collection[int] | None = None,
        events: Iterable[tuple[float, EventKind, Any]] = (),
    ) -> Schedule:
        """Simulate ``jobs`` (and elastic ``changes``) to the last completion.

        ``stop_when_started``: positions in ``jobs``; the run stops after the
        scheduling call at which the last of them started (see :class:`Schedule`
        for what a stopped schedule holds). ``events``: extra ``(time, kind,
        payload)`` events.
        """
        # Elastic commands mutate runtime and estimate: work on copies then.
        jobs = [copy.copy(job) for job in jobs] if changes else list(jobs)
        for index, job in enumerate(jobs):
            job.index = index
        self._setup(jobs, changes, stop_when_started)
        try:
            for time, kind, payload in events:
                self.push_event(time, kind, payload)
            stopped = self._loop()
        finally:
            self._drop_handlers()
        return self._schedule(jobs, stopped)

    def _drop_handlers(self) -> None:
        """Break the engine <-> bound-handler reference cycles, so that the engine and
        its per-job lists are freed by reference counting (no cyclic GC pass)."""
        self._events.clear()
        self._completion = self._on_arrival_bound = self._change_handler = None  # type: ignore[assignment]

    def _setup(self, jobs: list[Job], changes: Sequence[RuntimeChange],
               stop_when_started: Collection[int] | None) -> None:
        n = len(jobs)
        self._jobs = jobs
        self._state = [NOT_ARRIVED] * n
        self._start = [float("nan")] * n
        self._end = [float("nan")] * n
        self._procs = [0] * n
        self._part = [-1] * n
        self._by_id = {job.id: job for job in jobs} if changes else {}
        self._processors: dict[int, tuple[int, ...]] = {}
        self._split: dict[int, list[tuple[float, float, tuple[int, ...]]]] = {}
        self._segment_start: dict[int, float] = {}
        self._waiting = 0
        self._wake_due = False
        self._stop = self._stop_set(stop_when_started, n)
        self._arrivals = sorted(jobs, key=lambda j: (j.submit, j.index))
        self._commands = [c for _, c in sorted(enumerate(changes),
                                               key=lambda ic: (ic[1].time, ic[0]))]
        self._next_arrival = self._next_command = 0
        # Bound handlers made once (an attribute access would make one per event).
        self._completion = self._on_completion
        self._on_arrival_bound = self._on_arrival
        self._change_handler = self._on_elastic_change
        self._progress: dict[int, _Progress] = {}
        if self._free_ids:
            self._setup_rates()
        if self.load_model is not None:
            self._completion = self._on_completion_loaded
            self._setup_loads()
        self._push_next_arrival()
        self._push_next_change()

    @staticmethod
    def _stop_set(positions: Collection[int] | None, n: int) -> set[int] | None:
        if positions is None:
            return None
        out = set(positions)
        bad = [p for p in out if not 0 <= p < n]
        if bad:
            raise ValueError(f"stop_when_started: positions {sorted(bad)[:5]} are not in "
                             f"0..{n - 1}")
        return out

    def _loop(self) -> bool:
        """Process instants until no event is left (False) or the stop set started (True)."""
        events = self._events
        pop = heapq.heappop
        policy = self.policy
        loaded = self.load_model is not None
        stop = self._stop
        while events:
            t = events[0][0]
            self.now = t
            last = -1
            while events:
                entry = events[0]
                if entry[0] != t or entry[1] < last:
                    break
                pop(events)
                last = entry[1]
                entry[3](entry[4])
            if loaded:
                self._after_round()
            if self._waiting or self.suspended or self._wake_due:
                if self._wake_due:
                    self._wake_due = False
                self._apply(policy.schedule(self))
                if stop is not None and not stop:
                    return True
        return False

    def _schedule(self, jobs: list[Job], stopped: bool) -> Schedule:
        if stopped:
            for index, record in self.running.items():
                if index in self._split:
                    self._close_segment(index, self._end[index], record.processors)
        else:
            waiting = [j.id for j, s in zip(jobs, self._state, strict=True) if s != DONE]
            if waiting:
                raise SimulationError(
                    f"the policy never started {len(waiting)} job(s), first job id {waiting[0]}"
                )
        schedule = Schedule(self.machine, jobs, self._start, self._end, self._procs,
                            self._part, self._processors, self._split,
                            self.now if stopped else None)
        if self.check:
            validate_schedule(schedule)
        return schedule

    def _push_next_arrival(self) -> None:
        position = self._next_arrival
        if position < len(self._arrivals):
            job = self._arrivals[position]
            self._next_arrival = position + 1
            heapq.heappush(self._events,
                           (job.submit, _ARRIVAL, position, self._on_arrival_bound, job))

    def _push_next_change(self) -> None:
        position = self._next_command
        if position < len(self._commands):
            command = self._commands[position]
            self._next_command = position + 1
            heapq.heappush(self._events,
                           (command.time, _CHANGE, position, self._change_handler, command))

    def _on_arrival(self, job: Job) -> None:
        self._state[job.index] = WAITING
        self._waiting += 1
        if job.kind == DEDICATED and job.requested_start is not None:
            self._push_wake_up(max(job.requested_start, self.now))
        self.policy.submit(job, self)
        if self.load_model is not None:
            self._redraw_due = True
        position = self._next_arrival  # push the next arrival (inlined: hot path)
        if position < len(self._arrivals):
            job = self._arrivals[position]
            self._next_arrival = position + 1
            heapq.heappush(self._events,
                           (job.submit, _ARRIVAL, position, self._on_arrival_bound, job))

    def _push_completion(self, end: float, index: int) -> None:
        self._seq += 1
        heapq.heappush(self._events, (end, _COMPLETION, self._seq, self._completion, index))

    def _push_wake_up(self, time: float) -> None:
        self._seq += 1
        heapq.heappush(self._events, (time, WakeUpDue.priority, self._seq, self._on_wake_up, None))

    def _on_wake_up(self, payload: Any) -> None:
        self._wake_due = True

    def _on_elastic_change(self, command: RuntimeChange) -> None:
        self._apply_change(command)
        self._push_next_change()

    def _on_completion(self, index: int) -> None:
        if self._end[index] != self.now or self._state[index] != RUNNING:
            return  # stale: the job was re-timed or suspended
        record = self.running.pop(index)
        self._state[index] = DONE
        self.free[record.partition] += record.procs
        if self._free_ids:
            self._free_ids[record.partition].update(record.processors)
        if self._split and index in self._split:
            self._close_segment(index, self.now, record.processors)
        progress = self._progress
        if progress and index in progress:
            self._end_progress(index, record.processors)
        self.policy.finish(record.job, self)

    def _on_completion_loaded(self, index: int) -> None:
        if self._end[index] == self.now and self._state[index] == RUNNING:
            self._on_completion(index)
            self._redraw_due = True

    # -- decisions ---------------------------------------------------------
    def _apply(self, decisions: Iterable[Decision]) -> None:
        started = 0
        for decision in decisions:
            kind = type(decision)
            if kind is Start:
                self._start_job(decision)  # type: ignore[arg-type]
                started += 1
            elif isinstance(decision, WakeUp):
                if decision.time <= self.now:
                    raise SimulationError(f"t={self.now}: wake-up at {decision.time} is not "
                                          "in the future")
                self._push_wake_up(decision.time)
            elif isinstance(decision, Suspend):
                self._suspend(decision.job)
            elif isinstance(decision, Resume):
                self._resume(decision)
            elif isinstance(decision, Start):
                self._start_job(decision)
                started += 1
            else:
                raise SimulationError(f"t={self.now}: unknown decision {decision!r}")
        self._waiting -= started

    def _start_job(self, decision: Start) -> None:
        job, procs, part = decision.job, decision.procs, decision.partition
        self._check_start(job, procs, part)
        if self._free_ids:
            processors = self._take_processors(job, procs, part, decision.processors)
        else:
            processors = decision.processors
            if processors:
                self._check_named(job, procs, processors)
        index = job.index
        now = self.now
        runtime = self._runtime(job, procs, processors)
        est = runtime if job.work is not None else job.estimate_on(procs)
        self.free[part] -= procs
        self._state[index] = RUNNING
        self._start[index] = now
        if self._tracked(job):
            remaining = job.work if job.work is not None else runtime
            end = self._begin_progress(index, job, processors, remaining)
            if job.work is not None:
                est = end - now
        else:
            end = now + runtime
        self._end[index] = end
        self._procs[index] = procs
        self._part[index] = part
        if processors:
            self._processors[index] = processors
        self.running[index] = RunningJob(job, now, procs, part, processors, now + est)
        self._seq += 1
        heapq.heappush(self._events, (end, _COMPLETION, self._seq, self._completion, index))
        if self._stop is not None:
            self._stop.discard(index)

    def _check_start(self, job: Job, procs: int, part: int) -> None:
        index = job.index
        if not 0 <= index < len(self._jobs) or self._jobs[index] is not job:
            raise SimulationError(f"t={self.now}: job {job.id} is not part of this run")
        if self._state[index] != WAITING:
            raise SimulationError(f"t={self.now}: job {job.id} {_STATE_NAMES[self._state[index]]}")
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
            self._check_room(job, procs, part)

    def _known_index(self, job: Job) -> int:
        index = job.index
        if not 0 <= index < len(self._jobs) or self._jobs[index] is not job:
            raise SimulationError(f"t={self.now}: job {job.id} is not part of this run")
        return index

    def _check_room(self, job: Job, procs: int, part: int) -> None:
        if procs > self.free[part]:
            raise SimulationError(f"t={self.now}: job {job.id} asks {procs} processors, "
                                  f"only {self.free[part]} free in partition {part}")

    def _runtime(self, job: Job, procs: int, processors: tuple[int, ...]) -> float:
        """The run time of an untracked job (a job with ``work`` on a machine with speeds
        is tracked: its end comes from its tasks, ``_begin_progress``)."""
        return job.runtime_on(procs)

    def _tracked(self, job: Job) -> bool:
        """Whether the job's progress depends on its processors' rates (module docstring)."""
        return self.load_model is not None or (job.work is not None
                                               and bool(self.machine.speeds))

    def _nominal_rate(self, job: Job, procs: int, processors: tuple[int, ...]) -> float:
        """Work units per second without load: BPU for a job with ``work`` (under equal
        split p times its slowest processor's speed), else 1."""
        if job.work is None:
            return 1.0
        if processors and self.machine.speeds:
            speeds = [self.machine.speeds[p] for p in processors]
            if self.machine.execution == POOLED:
                return float(sum(speeds))
            return float(len(speeds) * min(speeds))
        return float(procs)

    def _take_processors(self, job: Job, procs: int, part: int,
                         named: tuple[int, ...]) -> tuple[int, ...]:
        free_ids = self._free_ids[part]
        chosen = named or tuple(sorted(free_ids)[:procs])
        if len(chosen) != procs or not free_ids.issuperset(chosen):
            raise SimulationError(f"t={self.now}: job {job.id}: processors {chosen} "
                                  f"are not {procs} free processors of partition {part}")
        free_ids.difference_update(chosen)
        return tuple(chosen)

    def _check_named(self, job: Job, procs: int, named: tuple[int, ...]) -> None:
        """Processors named on a machine that does not track them: only counted."""
        if named and (len(named) != procs or len(set(named)) != procs):
            raise SimulationError(f"t={self.now}: job {job.id}: processors {named} are not "
                                  f"{procs} distinct processors")

    # -- suspend and resume -------------------------------------------------
    def _suspend(self, job: Job) -> None:
        index = self._known_index(job)
        state = self._state[index]
        if state != RUNNING:
            why = "is already suspended" if state == SUSPENDED else _STATE_NAMES[state]
            raise SimulationError(f"t={self.now}: cannot suspend job {job.id}: it {why}")
        now = self.now
        record = self.running.pop(index)
        if index in self._progress:
            remaining = self._end_progress(index, record.processors)
        else:
            remaining = (self._end[index] - now) * self._nominal_rate(job, record.procs,
                                                                       record.processors)
        self._release(record)
        self._close_segment(index, now, record.processors)
        self._end[index] = float("nan")
        self._state[index] = SUSPENDED
        self.suspended[index] = PausedJob(job, record.procs, record.partition, record.processors,
                                          max(remaining, 0.0), max(record.est_end - now, 0.0))

    def _resume(self, decision: Resume) -> None:
        job = decision.job
        index = self._known_index(job)
        if self._state[index] != SUSPENDED:
            raise SimulationError(f"t={self.now}: cannot resume job {job.id}: it is not "
                                  "suspended")
        paused = self.suspended[index]
        procs, part = paused.procs, paused.partition
        self._check_room(job, procs, part)
        if self._free_ids:
            processors = self._take_processors(job, procs, part, decision.processors)
        else:
            processors = decision.processors
            self._check_named(job, procs, processors)
        del self.suspended[index]
        now = self.now
        if self._tracked(job):
            end = self._begin_progress(index, job, processors, paused.remaining)
        else:
            end = now + paused.remaining / self._nominal_rate(job, procs, processors)
        est_end = end if job.work is not None else now + paused.est_left
        self.free[part] -= procs
        self._state[index] = RUNNING
        self._end[index] = end
        self._segment_start[index] = now
        self.running[index] = RunningJob(job, self._start[index], procs, part, processors,
                                         est_end)
        self._push_completion(end, index)

    def _close_segment(self, index: int, end: float, processors: tuple[int, ...]) -> None:
        start = self._segment_start.get(index, self._start[index])
        self._split.setdefault(index, []).append((start, end, processors))

    def _release(self, record: RunningJob) -> None:
        self.free[record.partition] += record.procs
        if self._free_ids:
            self._free_ids[record.partition].update(record.processors)

    # -- elastic commands -------------------------------------------------------
    def _apply_change(self, command: RuntimeChange) -> None:
        """Elastic control command: move run time and estimate by ``delta``.

        A waiting job's runtime and estimate change (never below 1 s); a running job's
        end and estimated end move by ``delta`` (never before now); a suspended job's
        remaining work and estimate move by ``delta`` (never below 0); a finished or
        unknown job is left alone.
        """
        job = self._by_id.get(command.job_id)
        if job is None or self._state[job.index] in (DONE, NOT_ARRIVED):
            return
        index = job.index
        state = self._state[index]
        if state == WAITING:
            job.runtime = max(1.0, job.runtime + command.delta)
            job.estimate = max(job.runtime, job.estimate + command.delta)
        elif state == SUSPENDED:
            self._change_suspended(self.suspended[index], command.delta)
        elif index in self._progress or index in self._split:
            self._change_progress(index, command.delta)
        else:
            record = self.running[index]
            new_end = max(self.now, self._end[index] + command.delta)
            job.runtime = new_end - record.start
            job.estimate = max(job.runtime, job.estimate + command.delta)
            record.est_end = record.start + job.estimate
            self._end[index] = new_end
            self._push_completion(new_end, index)
        self.policy.change(job, self)

    def _change_suspended(self, paused: PausedJob, delta: float) -> None:
        job = paused.job
        rate = self._nominal_rate(job, paused.procs, paused.processors)
        paused.remaining = max(0.0, paused.remaining + delta * rate)
        job.runtime = max(0.0, job.runtime + delta)
        job.estimate = max(job.runtime, job.estimate + delta)
        paused.est_left = max(0.0, paused.est_left + delta)

    def _change_progress(self, index: int, delta: float) -> None:
        """An elastic command on a job that was resumed, or on a loaded machine:
        move its remaining work by ``delta`` seconds at nominal speed."""
        record = self.running[index]
        job = record.job
        rate = self._nominal_rate(job, record.procs, record.processors)
        old_end = self._end[index]
        if index in self._progress:
            progress = self._progress[index]
            self._advance(progress)
            ways = len(progress.left)
            progress.left = [max(0.0, left + delta * rate / ways) for left in progress.left]
            new_end = self._retime(index, record)
        else:
            new_end = max(self.now, old_end + delta)
            self._end[index] = new_end
            self._push_completion(new_end, index)
        job.runtime = max(0.0, job.runtime + new_end - old_end)
        old_estimate = job.estimate
        job.estimate = max(job.runtime, job.estimate + delta)
        record.est_end += job.estimate - old_estimate

    # -- progress at the processors' rates -----------------------------------------
    def _setup_rates(self) -> None:
        procs = self.machine.procs
        self._speeds: tuple[float, ...] = self.machine.speeds or (1.0,) * procs
        self._rates = list(self._speeds)
        self._owner = [-1] * procs

    def _setup_loads(self) -> None:
        self._redraw_due = False
        self._load_change_due = False
        self._ask_next_load_change(-math.inf)

    def _ask_next_load_change(self, now: float) -> None:
        next_change = getattr(self.load_model, "next_change", None)
        time = next_change(now) if next_change is not None else None
        if time is not None:
            if time <= now:
                raise SimulationError(f"t={now}: the load model's next change at {time} is "
                                      "not in the future")
            self.push_event(time, LOAD_CHANGE)

    def _after_round(self) -> None:
        """Redraw the loads after arrivals or completions (IHAP execution model) or
        at a change the model asked for; re-time the jobs whose rates changed."""
        if not (self._redraw_due or self._load_change_due):
            return
        asked = self._load_change_due
        self._redraw_due = self._load_change_due = False
        assert self.load_model is not None
        loads = self.load_model.redraw(self.now)
        if loads is not None:
            self._set_loads(loads)
        if asked:
            self._ask_next_load_change(self.now)

    def _set_loads(self, loads: Sequence[float]) -> None:
        if len(loads) != self.machine.procs or any(not 0.0 <= u < 1.0 for u in loads):
            raise SimulationError(f"t={self.now}: the load model must give {self.machine.procs} "
                                  "loads in [0, 1)")
        rates = [s * (1.0 - u) for s, u in zip(self._speeds, loads, strict=True)]
        owner = self._owner
        affected = {owner[k] for k, (old, new) in enumerate(zip(self._rates, rates, strict=True))
                    if old != new and owner[k] >= 0}
        self.loads = list(loads)
        self._rates = rates
        for index, record in self.running.items():  # start order: stable completion order
            if index in affected:
                self._advance(self._progress[index])
                self._retime(index, record)

    def _begin_progress(self, index: int, job: Job, processors: tuple[int, ...],
                        remaining: float) -> float:
        """Register a job on its processors as tasks (the machine's execution model):
        ``remaining`` split equally among them; return its projected end."""
        for k in processors:
            self._owner[k] = index
        tasks = ((processors,) if self.machine.execution == POOLED
                 else tuple((k,) for k in processors))
        ways = len(tasks)
        if job.work is not None:
            scale = [1.0] * ways
        else:  # nominal seconds: a task runs at its processors' rate over their speed
            scale = [1.0 / (ways * sum(self._speeds[k] for k in task)) for task in tasks]
        progress = _Progress(self.now, tasks, [remaining / ways] * ways, [0.0] * ways, scale)
        self._progress[index] = progress
        return self._projected_end(progress)

    def _end_progress(self, index: int, processors: tuple[int, ...]) -> float:
        """Unregister a job; return its remaining work (summed over its tasks)."""
        for k in processors:
            self._owner[k] = -1
        progress = self._progress.pop(index)
        self._advance(progress)
        return sum(progress.left)

    def _advance(self, progress: _Progress) -> None:
        """Bring every task's remaining work to now at its current rate."""
        elapsed = self.now - progress.since
        progress.left = [max(0.0, left - pace * elapsed)
                         for left, pace in zip(progress.left, progress.pace, strict=True)]
        progress.since = self.now

    def _projected_end(self, progress: _Progress) -> float:
        """The tasks' rates from their processors' current rates, and the end of the
        slowest task (progress up to date)."""
        rates = self._rates
        progress.pace = [scale * sum(rates[k] for k in task)
                         for scale, task in zip(progress.scale, progress.tasks, strict=True)]
        return self.now + max(left / pace
                              for left, pace in zip(progress.left, progress.pace, strict=True))

    def _retime(self, index: int, record: RunningJob) -> float:
        """New rates and projected end of a running job whose progress is up to date."""
        end = self._projected_end(self._progress[index])
        self._end[index] = end
        if record.job.work is not None:
            record.est_end = end
        self._push_completion(end, index)
        return end

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
    load_model: LoadModel | None = None,
    stop_when_started: Collection[int] | None = None,
) -> Schedule:
    """Run ``policy`` over ``jobs`` on ``machine`` and return the schedule.

    ``load_model``: background loads (see :mod:`schedsim.loadmodel`).
    ``stop_when_started``: positions in ``jobs``; stop once all of them started
    (the GOAL paper's monthly evaluation reads only those jobs).

    A policy whose settings say ``compiled`` runs on the compiled engine
    (``schedsim.kernel``) through its ``simulate_compiled(jobs, load_model)``, which gives
    this engine's schedule (``tests/test_compiled_conformance.py``) or None for a run the
    compiled path does not model (elastic commands and stop conditions never are); the
    engine runs the others. A policy's ``statistics()``, when it has one, is kept in the
    schedule's ``statistics``.
    """
    compiled = getattr(policy, "simulate_compiled", None)
    if (compiled is not None and getattr(getattr(policy, "settings", None), "compiled", False)
            and not changes and stop_when_started is None):
        schedule = compiled(jobs, load_model)
        if schedule is not None:
            if check:
                validate_schedule(schedule)
            return schedule
    engine = Engine(machine, policy, check=check, load_model=load_model)
    schedule = engine.run(jobs, changes, stop_when_started=stop_when_started)
    statistics = getattr(policy, "statistics", None)
    if statistics is not None:
        schedule.statistics = statistics()
    return schedule
