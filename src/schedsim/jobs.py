"""Jobs as the simulator sees them.

A :class:`Job` is rigid (``runtime`` on ``procs`` processors), moldable (a
``speedup`` model gives the runtime on any processor count), or carries
``work`` in basic-processor-unit seconds for heterogeneous machines. Dedicated
jobs carry a ``requested_start``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Protocol, overload

import numpy as np

BATCH = "batch"
DEDICATED = "dedicated"


class SpeedupModel(Protocol):
    """Runtime of a moldable job as a function of its processor count."""

    def runtime(self, procs: int) -> float: ...


@dataclass(slots=True, eq=False)
class Job:
    """One job of a workload.

    Attributes:
        id: job number (SWF field 1).
        submit: submit time in seconds.
        runtime: actual run time on ``procs`` processors (the simulator's truth).
        procs: requested processors (for moldable jobs: the upper bound the
            model allows, usually the machine size).
        estimate: requested time, the scheduler's view of the run time.
        kind: ``"batch"`` or ``"dedicated"``.
        requested_start: for dedicated jobs, the time the user asked it to start.
        speedup: for moldable jobs, the runtime model T(n).
        work: for heterogeneous machines, work in BPU-seconds (its run on given
            processors follows the machine's execution model, ``Machine.execution``:
            equal split, ``work / p`` on each of its p processors, the slowest ending
            it; pooled, ``work / s`` on processors whose speeds sum to s).
        user, group, app, queue, partition: SWF fields 12-16, -1 when unknown.
        index: position in the workload (set by the engine).
    """

    id: int
    submit: float
    runtime: float
    procs: int
    estimate: float
    kind: str = BATCH
    requested_start: float | None = None
    speedup: SpeedupModel | None = None
    work: float | None = None
    user: int = -1
    group: int = -1
    app: int = -1
    queue: int = -1
    partition: int = -1
    index: int = -1

    @property
    def moldable(self) -> bool:
        return self.speedup is not None

    def runtime_on(self, procs: int) -> float:
        """Actual run time when given ``procs`` processors of speed 1."""
        if self.speedup is not None:
            return self.speedup.runtime(procs)
        if self.work is not None:
            return self.work / procs
        return self.runtime

    def estimate_on(self, procs: int) -> float:
        """The scheduler's run-time estimate on ``procs`` processors.

        Moldable jobs: the model's exact runtime (HRF paper, sec. 6.1: estimates are
        exact). Rigid jobs: the requested time.
        """
        if self.speedup is not None:
            return self.speedup.runtime(procs)
        if self.work is not None:
            return self.estimate * self.procs / procs
        return self.estimate

    def __copy__(self) -> Job:
        """A shallow copy (``copy.copy``): every field's value, through the constructor
        (a subclass's own fields too). The engine copies every job of a run with elastic
        commands; the generic copy of a slotted class took 6 us a job, this one 0.8."""
        values = _job_fields if type(self) is Job else operator.attrgetter(
            *(f.name for f in fields(self)))
        return type(self)(*values(self))


# Every field of a Job, in the constructor's order (read when the class is defined).
_job_fields = operator.attrgetter(*(f.name for f in fields(Job)))


@dataclass(frozen=True, slots=True)
class RuntimeChange:
    """An elastic control command: change a job's run time and estimate by ``delta``.

    ``delta`` > 0 is a time extension, < 0 a reduction (LOS paper, sec. IV-D).
    Applied at ``time`` to a waiting or running job; ignored for a finished job.
    """

    time: float
    job_id: int
    delta: float


@dataclass(frozen=True)
class JobFields:
    """The fields of batch jobs as columns, in workload order (what a compiled run and the
    metrics read), named as the ``Job`` fields: ``id`` and ``procs`` int64, the times
    float64; ``work`` float64, every job's, or None when the jobs are rigid."""

    id: np.ndarray
    submit: np.ndarray
    runtime: np.ndarray
    procs: np.ndarray
    estimate: np.ndarray
    work: np.ndarray | None = None


class ColumnJobs(Sequence[Job]):
    """Batch jobs held as columns: a workload of hundreds of thousands of jobs that a
    compiled run reads as columns (the IHAP paper's 217,000-job runs) never makes its
    ``Job`` objects. They are made, all of them and once, when a job is first asked for
    (an element or an iteration), each with its position as ``index`` (by ``make`` when
    given: a reader's fuller objects); from then on the objects are the jobs (a run may
    change them) and :func:`unmade_fields` gives None, so that every reader reads the
    objects."""

    def __init__(self, fields: JobFields,
                 make: Callable[[], list[Job]] | None = None) -> None:
        self._fields: JobFields | None = fields
        self._count = int(fields.submit.shape[0])
        self._make = make
        self._jobs: list[Job] | None = None

    @property
    def unmade(self) -> JobFields | None:
        """The columns while no ``Job`` object has been made, else None."""
        return self._fields

    def made(self) -> list[Job]:
        """The ``Job`` objects (made on the first call)."""
        if self._jobs is None:
            from schedsim.gcpause import gc_paused

            fields = self._fields
            assert fields is not None
            with gc_paused():  # many objects, no cycle
                self._jobs = self._make() if self._make is not None else _objects(fields)
            self._fields = None
        return self._jobs

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Job: ...

    @overload
    def __getitem__(self, index: slice) -> list[Job]: ...

    def __getitem__(self, index: int | slice) -> Job | list[Job]:
        return self.made()[index]

    def __iter__(self) -> Iterator[Job]:
        return iter(self.made())


def _objects(fields: JobFields) -> list[Job]:
    work = fields.work.tolist() if fields.work is not None else [None] * len(fields.submit)
    return [Job(i, s, r, p, e, BATCH, None, None, w, index=k)
            for k, (i, s, r, p, e, w) in enumerate(zip(
                fields.id.tolist(), fields.submit.tolist(), fields.runtime.tolist(),
                fields.procs.tolist(), fields.estimate.tolist(), work, strict=True))]


def unmade_fields(jobs: Iterable[Job]) -> JobFields | None:
    """The columns of ``jobs`` when they are a :class:`ColumnJobs` whose objects were not
    made (a reader may then read the columns instead of the objects), else None."""
    return jobs.unmade if isinstance(jobs, ColumnJobs) else None


def job_column(jobs: Sequence[Job], name: str, dtype: type = np.float64) -> np.ndarray:
    """Field ``name`` of every job (a :class:`JobFields` name), workload order: the
    column while the objects are not made (work: while the jobs have it), else read from
    the objects."""
    fields = unmade_fields(jobs)
    values = getattr(fields, name) if fields is not None else None
    if values is not None:
        return np.asarray(values, dtype)
    return np.array([getattr(job, name) for job in jobs], dtype)
