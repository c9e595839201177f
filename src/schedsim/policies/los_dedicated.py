"""The dedicated-job queue component shared by Hybrid-LOS, LOS-D and EASY-D.

LOS paper (Kumar, Shae & Jamjoom), sec. III-B and Algorithms 2-3: dedicated
(interactive) jobs ask for an exact start time. They wait in their own queue
``W^d``, sorted by requested start time; batch jobs are scheduled around a
reservation ("freeze") for the first of them; when a dedicated job's requested
start time has come, it is moved to the head of the batch queue (Algorithm 3).
EASY-D and LOS-D are EASY and LOS "appended with the dedicated job queue"
(sec. V): they use this same component.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence

from schedsim.engine import EngineView, RunningJob
from schedsim.jobs import DEDICATED, Job
from schedsim.machine import Machine
from schedsim.policies.backfill import shadow_and_extra


def is_dedicated(job: Job) -> bool:
    """A job with a requested start time (the engine wakes the policy up then)."""
    return job.kind == DEDICATED and job.requested_start is not None


class DedicatedQueue:
    """``W^d``: waiting dedicated jobs by requested start time, then arrival order."""

    __slots__ = ("entries", "machine")

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.entries: list[tuple[float, int, Job]] = []

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, job: Job) -> None:
        assert job.requested_start is not None
        insort(self.entries, (job.requested_start, job.index, job))

    def pop_due(self, now: float) -> list[Job]:
        """Remove and return the jobs whose requested start is ``<= now``, in order.

        LOS paper, Algorithm 2, lines 6 and 40: ``w_1^d.start <= t``.
        """
        count = 0
        entries = self.entries
        while count < len(entries) and entries[count][0] <= now:
            count += 1
        due = [job for _, _, job in entries[:count]]
        del entries[:count]
        return due

    def freeze(self, now: float, free: int, running: Sequence[RunningJob]) -> tuple[float, int]:
        """Freeze end time ``fret_d`` and capacity ``frec_d`` (processors) for the first jobs.

        LOS paper, Algorithm 2, lines 9-31. The first start group is every waiting
        dedicated job whose requested start equals the first one (line 16,
        ``tot_start_num``). The capacity at that time is the machine minus the
        running jobs whose estimated end is not before it (lines 10-15). If the
        group fits, the freeze is at the requested start with what is left
        (lines 17-18); otherwise it moves to the earliest time the group fits, as
        for a batch head (lines 24-26, computed by ``shadow_and_extra``).
        Call only with waiting jobs whose requested start is after ``now``.
        """
        start = self.entries[0][0]
        round_up = self.machine.round_up
        group = 0
        for requested, _, job in self.entries:
            if requested != start:
                break
            group += round_up(job.procs)
        total = self.machine.partitions[0]
        busy = sum(record.procs for record in running if record.est_end >= start)
        if group <= total - busy:
            return start, total - busy - group
        # More than the machine can give at once: reserve for what it can (our choice).
        return shadow_and_extra(now, free, running, min(group, total))


class DedicatedJobs:
    """Policy mixin: route dedicated jobs to a :class:`DedicatedQueue` and promote them.

    The host policy provides ``queue`` (the batch queue, a list) and ``submit``
    for batch jobs. A due dedicated job goes to the head of the batch queue
    (LOS paper, Algorithm 3), behind the dedicated jobs promoted before it that
    still wait, so that they keep their requested-start order.
    """

    queue: list[Job]

    def __init__(self, settings: object, machine: Machine) -> None:
        super().__init__(settings, machine)  # type: ignore[call-arg]
        self.dedicated = DedicatedQueue(machine)
        self.promoted_jobs: set[int] = set()

    def submit(self, job: Job, view: EngineView) -> None:
        if is_dedicated(job):
            self.dedicated.add(job)
        else:
            super().submit(job, view)  # type: ignore[misc]

    def promote_due(self, now: float) -> None:
        """Move every due dedicated job to the head of the batch queue (Algorithm 3)."""
        due = self.dedicated.pop_due(now)
        if not due:
            return
        queue = self.queue
        promoted = self.promoted_jobs
        position = 0
        while position < len(queue) and queue[position].index in promoted:
            position += 1
        queue[position:position] = due
        for job in due:
            promoted.add(job.index)
            self.promoted(job)

    def promoted(self, job: Job) -> None:
        """Hook: ``job`` has just been moved to the batch queue."""
