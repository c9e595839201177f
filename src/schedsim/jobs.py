"""Jobs as the simulator sees them.

A :class:`Job` is rigid (``runtime`` on ``procs`` processors), moldable (a
``speedup`` model gives the runtime on any processor count), or carries
``work`` in basic-processor-unit seconds for heterogeneous machines. Dedicated
jobs carry a ``requested_start``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

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


@dataclass(frozen=True, slots=True)
class RuntimeChange:
    """An elastic control command: change a job's run time and estimate by ``delta``.

    ``delta`` > 0 is a time extension, < 0 a reduction (LOS paper, sec. IV-D).
    Applied at ``time`` to a waiting or running job; ignored for a finished job.
    """

    time: float
    job_id: int
    delta: float
