"""The outcome of a run (:class:`Schedule`) and its feasibility check.

This module sits below both the engine (which builds schedules) and the metrics
(which read them), so neither imports the other.

A job runs in one or more *segments* ``[start, end)``: one for a job that was
never suspended, several for a job that was suspended and resumed. For speed the
schedule keeps, per job, the first segment's start, the last segment's end, the
processor count and the partition (the same for every segment), and stores the
segments themselves only for jobs that were ever suspended.

A run stopped early (``simulate(..., stop_when_started=...)``) has
``stopped_at`` set: jobs not started by then have NaN start and end; running jobs
keep their projected end; suspended jobs have NaN end.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from schedsim.jobs import Job
from schedsim.machine import Machine

Segment = tuple[float, float]


class SimulationError(RuntimeError):
    """A policy made an invalid decision, or left jobs that never start; or a schedule
    is infeasible."""


@dataclass
class Schedule:
    """Per job (by ``Job.index``): start, end, processor count, partition.

    Attributes:
        machine, jobs: what was simulated (``jobs[i].index == i``).
        start: start of each job's first segment (NaN: never started).
        end: end of each job's last segment (NaN: not finished).
        procs, partition: the allocation (the same in every segment).
        processors: per job index, the processors of its first segment, recorded
            only when the policy named them or the machine tracks processors.
        split: per job index, only for jobs that were ever suspended, every
            segment as ``(start, end, processors)``; see :meth:`segments`.
        stopped_at: the time at which a stop condition ended the run, else None.
        statistics: what the policy counted over the run (its ``statistics()``, or a
            compiled run's counts), e.g. the slack policies' fairness counts.
    """

    machine: Machine
    jobs: Sequence[Job]
    start: list[float]
    end: list[float]
    procs: list[int]
    partition: list[int]
    processors: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    split: dict[int, list[tuple[float, float, tuple[int, ...]]]] = field(default_factory=dict)
    stopped_at: float | None = None
    statistics: dict[str, float] = field(default_factory=dict)

    def segments(self, index: int) -> list[Segment]:
        """Run segments ``(start, end)`` of job ``index``, in time order.

        One segment for a job that was never suspended; none for a job that never
        started.
        """
        runs = self.split.get(index)
        if runs is not None:
            return [(start, end) for start, end, _ in runs]
        start = self.start[index]
        return [] if math.isnan(start) else [(start, self.end[index])]

    def busy_time(self, index: int) -> float:
        """Seconds job ``index`` spent running (sum of its segments, left to right)."""
        runs = self.split.get(index)
        if runs is None:
            return sum(end - start for start, end in self.segments(index))
        total = 0
        for start, end, _ in runs:  # (a suspended job's many segments: no lists made)
            total += end - start
        return total


def validate_schedule(schedule: Schedule) -> None:
    """Raise SimulationError unless the schedule is feasible.

    Checks: every job ran (finite start and end) unless the run was stopped,
    segments in time order with end >= start, no start before submit, allocation
    within its partition, and at no instant more processors in use in a partition
    than it has, over all segments (an end frees processors before a start at the
    same instant). A stopped schedule may leave jobs unstarted (NaN start) or
    suspended (NaN end).
    """
    machine = schedule.machine
    stopped = schedule.stopped_at is not None
    events: list[tuple[float, int, int, int]] = []
    for job, start, end, procs, part in zip(
        schedule.jobs, schedule.start, schedule.end, schedule.procs, schedule.partition,
        strict=True,
    ):
        if not (start == start and end == end):
            if stopped and _unfinished_ok(schedule, job, start):
                continue
            raise SimulationError(f"job {job.id} never ran")
        if start < job.submit:
            raise SimulationError(f"job {job.id} starts at {start} before its submit "
                                  f"{job.submit}")
        if not 0 <= part < len(machine.partitions) or procs <= 0:
            raise SimulationError(f"job {job.id}: invalid allocation {procs} in partition {part}")
        _add_segments(events, job, schedule.segments(job.index), procs, part)
    _check_capacity(machine, events)


def _unfinished_ok(schedule: Schedule, job: Job, start: float) -> bool:
    """In a stopped run: a job never started, or a started (suspended) one whose
    segments are recorded, is acceptable."""
    if start != start:
        return True
    if job.index in schedule.split:
        procs, part = schedule.procs[job.index], schedule.partition[job.index]
        return procs > 0 and 0 <= part < len(schedule.machine.partitions)
    return False


def _add_segments(events: list[tuple[float, int, int, int]], job: Job,
                  segments: list[Segment], procs: int, part: int) -> None:
    previous_end = -math.inf
    for start, end in segments:
        if end < start:
            raise SimulationError(f"job {job.id} ends at {end} before its start {start}")
        if start < previous_end:
            raise SimulationError(f"job {job.id}: segment at {start} overlaps the previous "
                                  f"one (ending {previous_end})")
        previous_end = end
        events.append((start, 1, procs, part))
        events.append((end, 0, -procs, part))


def _check_capacity(machine: Machine, events: list[tuple[float, int, int, int]]) -> None:
    events.sort()
    used = [0] * len(machine.partitions)
    for time, _, delta, part in events:
        used[part] += delta
        if used[part] > machine.partitions[part]:
            raise SimulationError(f"t={time}: {used[part]} processors in use in partition "
                                  f"{part} of {machine.partitions[part]}")
