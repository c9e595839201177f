"""Offered load of a job list, and real traces cut into segments scaled to a load.

Shmueli & Feitelson (JPDC 2005, sec. 4.1), followed by the LOS paper for its
Fig. 1, vary the load of a real log by multiplying every arrival time by a
constant factor. The offered load is the LOS paper's (sec. III, Fig. 1): the
sum of size x runtime over the jobs, divided by the log's duration and the
machine size; the duration is the span of the submit times.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from schedsim.errors import InputError
from schedsim.jobs import Job


def offered_load(jobs: Sequence[Job], procs: int) -> float:
    """sum(procs x runtime) / (procs of the machine x (last submit - first submit))."""
    if not jobs:
        raise InputError("offered load of an empty job list")
    submits = [job.submit for job in jobs]
    span = max(submits) - min(submits)
    if span <= 0:
        raise InputError("offered load needs at least two distinct submit times")
    return sum(job.procs * job.runtime for job in jobs) / (procs * span)


def scale_to_load(jobs: Sequence[Job], procs: int, load: float) -> list[Job]:
    """Copies of ``jobs`` whose submit times, measured from the first, are stretched
    by one factor so that the offered load is ``load``."""
    if load <= 0:
        raise InputError(f"scale_to_load: load={load} must be positive")
    factor = offered_load(jobs, procs) / load
    first = min(job.submit for job in jobs)
    return [dataclasses.replace(job, submit=first + (job.submit - first) * factor)
            for job in jobs]


def segments(jobs: Sequence[Job], count: int, max_jobs: int | None = None) -> list[list[Job]]:
    """The first ``max_jobs`` jobs (all when None) in submit order, cut into ``count``
    consecutive segments of equal size (the last ``n mod count`` jobs are dropped)."""
    ordered = sorted(jobs, key=lambda job: (job.submit, job.id))[:max_jobs]
    size = len(ordered) // count
    if count < 1 or size < 2:
        raise InputError(f"cannot cut {len(ordered)} jobs into {count} segments of at least "
                         "2 jobs")
    return [ordered[i * size:(i + 1) * size] for i in range(count)]
