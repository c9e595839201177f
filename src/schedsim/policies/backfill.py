"""FCFS, EASY (aggressive) backfilling and conservative backfilling for rigid jobs.

Definitions follow (Lifka 1995; Mu'alem & Feitelson,
IEEE TPDS 12(6), 2001). Shared rules:

* The queue is in arrival order (submit time, then file order).
* A job's size is its requested processors rounded up to the machine's unit.
* The scheduler decides with estimates (``Job.estimate``); a running job is
  expected to end at ``start + estimate`` (``RunningJob.est_end``), never later
  than ``now`` from the scheduler's point of view.
* These policies use partition 0 of the machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from schedsim.engine import Decision, EngineView, RunningJob, Start, WakeUp
from schedsim.jobs import Job
from schedsim.kernel.whole import (
    Columns,
    Outcome,
    check,
    columns,
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

if TYPE_CHECKING:  # reached by name (ahead.functions: no numba where the library runs);
    from schedsim.policies.compiled import backfill  # noqa: F401  here for code versions


def shadow_and_extra(
    now: float, free: int, running: Iterable[RunningJob], needed: int
) -> tuple[float, int]:
    """Shadow time and extra processors of a head job needing ``needed`` processors.

    The shadow time is the earliest estimated instant at which ``needed``
    processors are free; extra processors are those free at the shadow time
    beyond ``needed`` (docs/deviations.md, EASY extra processors). Jobs that end at
    the same instant are released together, so ``extra`` counts all of them. A running job that has
    overrun its estimate is taken to end now.
    """
    if needed <= free:
        return now, free - needed
    available = free
    ends = sorted((max(r.est_end, now), r.procs) for r in running)
    i, n = 0, len(ends)
    while i < n:
        end = ends[i][0]
        while i < n and ends[i][0] == end:
            available += ends[i][1]
            i += 1
        if available >= needed:
            return end, available - needed
    raise ValueError(f"a job of {needed} processors can never fit ({available} in all)")


@dataclass(frozen=True)
class CompiledSettings:
    """Settings of a policy with a compiled path and no parameters of its own."""

    compiled: bool = setting(True, "run the compiled path where it models the run (rigid "
                             "batch jobs on processors of speed 1); false: the Python "
                             "policy in the engine, the same schedule, slower")


class FCFS(QueuePolicy[CompiledSettings]):
    """First come, first served: start queue heads while they fit; never skip the head."""

    def size(self, job: Job) -> int:
        return self.machine.round_up(job.procs)

    def simulate_compiled(self, jobs: Sequence[Job], load_model: object = None
                          ) -> Schedule | None:
        """FCFS, EASY and conservative themselves (not a subclass) on rigid batch jobs in
        one partition of processors of speed 1: the whole run on the compiled engine (the
        engine's schedule, ``tests/test_compiled_conformance.py``); None otherwise."""
        if (type(self) not in _COMPILED or self.queue or load_model is not None
                or len(self.machine.partitions) > 1 or not models_rigid(jobs, self.machine)):
            return None
        cols = job_columns(jobs, self.machine.unit)
        return schedule_of(self._run(cols), cols, self.machine, jobs)

    def simulate_columns(self, submit: np.ndarray, runtime: np.ndarray, estimate: np.ndarray,
                         procs: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The whole run of rigid jobs given as columns (workload order): start, end and
        processors of each; None where the compiled run does not model it."""
        machine = self.machine
        if (type(self) not in _COMPILED or self.queue or not self.settings.compiled
                or len(machine.partitions) > 1 or machine.speeds or submit.size == 0):
            return None
        cols = columns(submit, runtime, estimate, procs, machine.unit)
        if cols.size.min() <= 0 or cols.size.max() > machine.partitions[0]:
            return None
        outcome = self._run(cols)
        check(outcome, cols.positions())
        return (in_workload_order(outcome.start, cols), in_workload_order(outcome.end, cols),
                in_workload_order(cols.size, cols))

    def _run(self, cols: Columns) -> Outcome:
        from schedsim.kernel import ahead

        compiled = ahead.functions("schedsim.policies.compiled.backfill")
        capacity = self.machine.partitions[0]
        if _COMPILED[type(self)] == "conservative":
            found = compiled.conservative_run(cols.submit, cols.runtime, cols.estimate,
                                              cols.size, capacity)
        else:
            found = compiled.fcfs_easy_run(cols.submit, cols.runtime, cols.estimate,
                                           cols.size, capacity, type(self) is EASY)
        return Outcome.of(found)

    def schedule(self, view: EngineView) -> list[Decision]:
        decisions: list[Decision] = []
        free = self._start_prefix(view, decisions)
        if self.queue:
            self._backfill(view, free, decisions)
        return decisions

    def _start_prefix(self, view: EngineView, decisions: list[Decision]) -> int:
        """Start jobs from the head while they fit; return the processors left free."""
        queue = self.queue
        free = view.free[0]
        started = 0
        for job in queue:
            size = self.size(job)
            if size > free:
                break
            decisions.append(Start(job, size))
            free -= size
            started += 1
        if started:
            del queue[:started]
        return free

    def _backfill(self, view: EngineView, free: int, decisions: list[Decision]) -> None:
        """FCFS never backfills."""


register_policy("fcfs", "backfill", "First come, first served, no backfilling",
                CompiledSettings)(FCFS)


@dataclass(slots=True)
class Reservation:
    """Processors promised to a waiting job from ``time`` on.

    A backfilled job still running (by estimate) at ``time`` holds its processors
    past it and must fit in ``spare``, which it then uses up. With
    ``ends_before_ok`` a job ending exactly at ``time`` does not count as
    running then (EASY, docs/deviations.md, EASY boundary); without it, it does (the LOS
    paper's freeze, Algorithm 2, line 19).
    """

    time: float
    spare: int
    ends_before_ok: bool = True

    def held_past(self, end: float) -> bool:
        return end > self.time if self.ends_before_ok else end >= self.time


class EASY(FCFS):
    """EASY (aggressive) backfilling: only the queue head holds a reservation.

    After starting the FCFS prefix, the head's shadow time and extra processors
    are computed from the running jobs' estimated ends (including the jobs just
    started). One pass over the rest of the queue, in queue order, starts a job
    that fits in the free processors now and either ends by the shadow time
    (``now + estimate <= shadow``: a job ending exactly at the shadow time may
    backfill, docs/deviations.md, EASY boundary) or uses at most the extra processors, which it
    then consumes. Variants add reservations by overriding :meth:`reservations`.
    """

    def _backfill(self, view: EngineView, free: int, decisions: list[Decision]) -> None:
        queue = self.queue
        if len(queue) < 2 or free == 0:
            return
        now = view.now
        running = [*view.running.values(), *_just_started(decisions, now)]
        reservations = self.reservations(now, free, running)
        started: list[int] = []
        for position in range(1, len(queue)):
            job = queue[position]
            size = self.size(job)
            if size > free:
                continue
            end = now + job.estimate_on(size)
            held = [r for r in reservations if r.held_past(end)]
            if any(size > r.spare for r in held):
                continue
            for reservation in held:
                reservation.spare -= size
            decisions.append(Start(job, size))
            started.append(position)
            free -= size
            if free == 0:
                break
        for position in reversed(started):
            del queue[position]

    def reservations(self, now: float, free: int, running: list[RunningJob]) -> list[Reservation]:
        """The head's reservation at its shadow time, with the extra processors as spare."""
        shadow, extra = shadow_and_extra(now, free, running, self.size(self.queue[0]))
        return [Reservation(shadow, extra)]


def _just_started(decisions: list[Decision], now: float) -> list[RunningJob]:
    """Running-job records for the starts decided in this call (not yet applied)."""
    return [RunningJob(d.job, now, d.procs, d.partition, (), now + d.job.estimate_on(d.procs))
            for d in decisions if isinstance(d, Start)]


register_policy("easy", "backfill", "EASY (aggressive) backfilling: the head job holds "
                "a reservation; others backfill if they do not delay it",
                CompiledSettings)(EASY)


class Conservative(FCFS):
    """Conservative backfilling: every waiting job holds a reservation.

    Each arriving job is placed at the earliest time ``t >= now`` at which its
    size is free throughout ``[t, t + estimate)`` in the profile of running jobs
    and earlier reservations, and starts if ``t == now``. When a job ends before
    its estimate, or an estimate changes, the profile is rebuilt and every
    waiting job, in arrival order, is taken out and put back at its earliest
    feasible time while all other reservations stay (compression,
    docs/deviations.md); its old slot is still feasible, so it never moves later.
    Jobs start at their reserved time: the policy asks the engine for a wake-up
    at the earliest reservation.
    """

    def __init__(self, settings: CompiledSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        self.reserved: dict[int, float] = {}
        self.expected_end: dict[int, float] = {}
        self.profile = Profile(0.0, machine.partitions[0])
        self.dirty = False
        self.wake_at = 0.0
        self.new: list[Job] = []

    def submit(self, job: Job, view: EngineView) -> None:
        super().submit(job, view)
        self.new.append(job)

    def finish(self, job: Job, view: EngineView) -> None:
        # A job ending at its estimated end leaves the profile exact; an earlier end
        # frees capacity that reservations may use.
        if self.expected_end.pop(job.index) > view.now:
            self.dirty = True

    def change(self, job: Job, view: EngineView) -> None:
        self.dirty = True

    def schedule(self, view: EngineView) -> list[Decision]:
        now = view.now
        if self.dirty:
            self._rebuild(view)
        else:
            self.profile.advance(now)
            for job in self.new:
                self._place(job, now)
        self.new.clear()
        decisions = self._start_due(now)
        if self.reserved:
            self._wake_at_next_reservation(now, decisions)
        return decisions

    def _wake_at_next_reservation(self, now: float, decisions: list[Decision]) -> None:
        """Ask for a call at the earliest reserved time: single-pass compression can
        leave a reservation at an instant at which nothing else happens."""
        earliest = min(self.reserved.values())
        if self.wake_at <= now or earliest < self.wake_at:
            self.wake_at = earliest
            decisions.append(WakeUp(earliest))

    def _rebuild(self, view: EngineView) -> None:
        """Compression: rebuild the profile from running jobs and the current
        reservations, then move each waiting job, in arrival order, to its earliest
        feasible time with every other reservation held fixed (never later)."""
        now = view.now
        profile = Profile.holding(now, self.machine.partitions[0],
                                  [(record.est_end, record.procs)
                                   for record in view.running.values() if record.partition == 0])
        reserved = self.reserved
        for job in self.queue:
            if job.index in reserved:
                start = max(reserved[job.index], now)
                profile.reserve(start, start + job.estimate, self.size(job))
        self.profile = profile
        for job in self.queue:
            if job.index in reserved:
                start = max(reserved[job.index], now)
                profile.reserve(start, start + job.estimate, -self.size(job))
            self._place(job, now)
        self.dirty = False

    def _place(self, job: Job, now: float) -> None:
        size = self.size(job)
        start = self.profile.earliest(size, job.estimate, now)
        self.profile.reserve(start, start + job.estimate, size)
        self.reserved[job.index] = start

    def _start_due(self, now: float) -> list[Decision]:
        decisions: list[Decision] = []
        keep: list[Job] = []
        for job in self.queue:
            if self.reserved[job.index] <= now:
                decisions.append(Start(job, self.size(job)))
                del self.reserved[job.index]
                self.expected_end[job.index] = now + job.estimate
            else:
                keep.append(job)
        if decisions:
            self.queue = keep
        return decisions


register_policy("conservative", "backfill", "Conservative backfilling: every job holds a "
                "reservation; backfilling never delays any of them",
                CompiledSettings)(Conservative)

# the policies whose whole run is compiled (``policies.compiled.backfill``), by kind
_COMPILED: dict[type, str] = {FCFS: "fcfs", EASY: "easy", Conservative: "conservative"}
