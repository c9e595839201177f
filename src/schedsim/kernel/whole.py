"""The Python side of a compiled whole run: jobs to columns in arrival order, the
compiled engine's results back to a :class:`~schedsim.schedule.Schedule`.

Every compiled policy's entry function returns an :class:`Outcome` (the engine's arrays,
in arrival order) and its own statistics; :func:`schedule_of` checks the outcome (a
refused decision, a job never started) and maps it back to the workload's order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from schedsim.jobs import BATCH, Job, job_column, unmade_fields
from schedsim.kernel.codes import DONE, ERRORS
from schedsim.machine import Machine
from schedsim.schedule import Schedule, SimulationError


@dataclass
class Columns:
    """The jobs of a run in arrival order (submit time, then workload order): ``order[i]``
    is the position in the workload of the i-th job to arrive; ``in_order`` says that
    this is the workload's order (the usual case: the columns are then the given arrays,
    not copies, and ``order`` is made only when asked for)."""

    arrival_order: np.ndarray | None  # None: the workload's order
    submit: np.ndarray
    runtime: np.ndarray
    estimate: np.ndarray
    size: np.ndarray  # processors of a rigid job: its request rounded up to the unit
    work: np.ndarray  # NaN for a rigid job; empty when every job is rigid

    @property
    def in_order(self) -> bool:
        return self.arrival_order is None

    @property
    def order(self) -> np.ndarray:
        return np.arange(self.submit.shape[0]) if self.arrival_order is None \
            else self.arrival_order

    def positions(self) -> Sequence[int] | np.ndarray:
        """``order`` without an array where it is the workload's (for error messages)."""
        return range(self.submit.shape[0]) if self.arrival_order is None \
            else self.arrival_order


def columns(submit: np.ndarray, runtime: np.ndarray, estimate: np.ndarray,
            procs: np.ndarray, unit: int, work: np.ndarray | None = None) -> Columns:
    """Columns in workload order -> :class:`Columns` in arrival order."""
    n = submit.shape[0]
    in_order = bool((submit[1:] >= submit[:-1]).all())
    order = None if in_order else np.lexsort((np.arange(n), submit))
    size = procs if unit == 1 else -(-procs // unit) * unit
    work = np.empty(0) if work is None else work

    def arrival(values: np.ndarray, dtype: type) -> np.ndarray:
        return np.ascontiguousarray(values if order is None or values.shape[0] == 0
                                    else values[order], dtype)

    return Columns(order, arrival(submit, np.float64), arrival(runtime, np.float64),
                   arrival(estimate, np.float64), arrival(size, np.int64),
                   arrival(work, np.float64))


def job_columns(jobs: Sequence[Job], unit: int) -> Columns:
    """:func:`columns` of jobs (``work`` NaN where a job has none): the columns of a
    :class:`~schedsim.jobs.ColumnJobs` whose objects were not made, else read from the
    objects, setting each job's ``index`` to its position, as the engine does."""
    fields = unmade_fields(jobs)
    if fields is None:
        for index, job in enumerate(jobs):
            job.index = index
        work = np.array([np.nan if job.work is None else job.work for job in jobs],
                        np.float64)
    else:
        work = fields.work if fields.work is not None else np.full(len(jobs), np.nan)
    return columns(job_column(jobs, "submit"), job_column(jobs, "runtime"),
                   job_column(jobs, "estimate"), job_column(jobs, "procs", np.int64), unit,
                   work)


def models_rigid(jobs: Sequence[Job], machine: Machine, partition: int = 0) -> bool:
    """Whether the compiled engine models ``jobs`` as rigid batch jobs on ``machine``'s
    processors of speed 1, each fitting ``partition``."""
    if machine.speeds or not jobs:
        return False
    capacity = machine.partitions[partition]
    fields = unmade_fields(jobs)
    if fields is not None:  # batch jobs, none moldable
        size = machine.round_up(fields.procs)  # (integer arithmetic: arrays too)
        return fields.work is None and bool(((size > 0) & (size <= capacity)).all())
    return all(job.speedup is None and job.work is None and job.kind == BATCH
               and 0 < machine.round_up(job.procs) <= capacity for job in jobs)


@dataclass
class Outcome:
    """What a compiled run gives back, in arrival order (``schedsim.kernel.loop``)."""

    start: np.ndarray
    end: np.ndarray
    procs: np.ndarray
    partition: np.ndarray
    state: np.ndarray
    error: int
    error_job: int
    seg_job: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    seg_begin: np.ndarray = field(default_factory=lambda: np.empty(0))
    seg_end: np.ndarray = field(default_factory=lambda: np.empty(0))
    alloc_at: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    alloc: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    @classmethod
    def of(cls, result: tuple) -> Outcome:  # type: ignore[type-arg]
        """From an entry function's engine tuple (``loop.outcome``)."""
        return cls(*result)


def check(outcome: Outcome, ids: Sequence[object] | np.ndarray, time: float | None = None
          ) -> None:
    """Raise ``SimulationError`` for a refused decision or a job that never started
    (``ids``: job ids in arrival order)."""
    if outcome.error > 0:
        job = outcome.error_job
        who = f"job {ids[job]}" if job >= 0 else "the policy"
        raise SimulationError(f"compiled run: {who} {ERRORS[outcome.error]}")
    if outcome.error < 0:
        raise SimulationError("compiled run: the load model ran out of draws")
    never = np.flatnonzero(outcome.state != DONE)
    if never.size:
        raise SimulationError(f"the policy never started {never.size} job(s), first job id "
                              f"{ids[int(never[0])]}")


def schedule_of(outcome: Outcome, cols: Columns, machine: Machine, jobs: Sequence[Job],
                statistics: Mapping[str, float] | None = None) -> Schedule:
    """The :class:`Schedule` of a checked outcome, in workload order (with the processors
    each job started on when the run tracked them)."""
    order = cols.order
    fields = unmade_fields(jobs)
    check(outcome, fields.id[order] if fields is not None
          else [jobs[i].id for i in order.tolist()])
    n = len(jobs)
    start, end = np.empty(n), np.empty(n)
    procs, partition = np.empty(n, np.int64), np.empty(n, np.int64)
    start[order], end[order] = outcome.start, outcome.end
    procs[order], partition[order] = outcome.procs, outcome.partition
    split: dict[int, list[tuple[float, float, tuple[int, ...]]]] = {}
    for job, begin, finish in zip(order[outcome.seg_job].tolist(), outcome.seg_begin.tolist(),
                                  outcome.seg_end.tolist(), strict=True):
        split.setdefault(job, []).append((begin, finish, ()))
    processors: Mapping[int, tuple[int, ...]] = {}
    if outcome.alloc.size:
        at = np.empty(n, np.int64)
        at[order] = outcome.alloc_at
        processors = ProcessorLists(at, procs, outcome.alloc)
    return Schedule(machine, jobs, start.tolist(), end.tolist(), procs.tolist(),
                    partition.tolist(), processors, split, None, dict(statistics or {}))


class ProcessorLists(Mapping[int, tuple[int, ...]]):
    """Job index -> the processors it started on, read from a compiled run's arrays when
    asked (a 217,000-job run would spend a second building every tuple): job ``i`` ran on
    ``alloc[at[i]:at[i] + count[i]]``."""

    def __init__(self, at: np.ndarray, count: np.ndarray, alloc: np.ndarray) -> None:
        self._at, self._count, self._alloc = at, count, alloc

    def __getitem__(self, index: int) -> tuple[int, ...]:
        if not 0 <= index < self._at.shape[0]:
            raise KeyError(index)
        at = int(self._at[index])
        return tuple(self._alloc[at:at + int(self._count[index])].tolist())

    def __iter__(self) -> Iterator[int]:
        return iter(range(self._at.shape[0]))

    def __len__(self) -> int:
        return int(self._at.shape[0])


def in_workload_order(values: np.ndarray, cols: Columns) -> np.ndarray:
    """Per-job values of a run (arrival order) in workload order (``values`` itself when
    the two orders are one)."""
    if cols.in_order:
        return values
    out = np.empty_like(values)
    out[cols.order] = values
    return out
