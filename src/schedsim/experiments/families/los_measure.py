"""How the LOS family's simulations are measured: the common metrics, the timeliness of
dedicated jobs, the share of elastic commands that reached a running job (LOS paper,
sec. IV-D, V) and the mean job size (the paper's n-bar, sec. V)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from schedsim.experiments.measure import Measure, SeedWorkload, common_metrics

if TYPE_CHECKING:
    from schedsim.jobs import RuntimeChange
    from schedsim.schedule import Schedule

ON_TIME_SLACK = 1.0  # seconds


def dedicated_timeliness(schedule: Schedule) -> dict[str, float]:
    """Share of dedicated jobs started at their requested time, and their mean lateness.

    A dedicated job is on time when it starts within 1 s of its ``requested_start``
    (it may not start earlier); lateness is ``start - requested_start`` in seconds.
    NaN for both when the workload has no dedicated job.
    """
    late = [start - job.requested_start for job, start in zip(schedule.jobs, schedule.start,
                                                              strict=True)
            if job.requested_start is not None]
    if not late:
        return {"dedicated_on_time": math.nan, "dedicated_lateness": math.nan}
    return {"dedicated_on_time": sum(1 for x in late if x <= ON_TIME_SLACK) / len(late),
            "dedicated_lateness": math.fsum(late) / len(late)}


def elastic_running_share(schedule: Schedule, changes: Sequence[RuntimeChange]) -> float:
    """Share of elastic commands issued while their job was running (NaN: no command).

    The others reach a job that is still waiting (or already done, or not yet arrived).
    """
    if not changes:
        return math.nan
    index = {job.id: i for i, job in enumerate(schedule.jobs)}
    running = 0
    for command in changes:
        i = index.get(command.job_id)
        if i is not None and schedule.start[i] <= command.time < schedule.end[i]:
            running += 1
    return running / len(changes)


def mean_size(schedule: Schedule) -> float:
    """The mean job size in processors (the paper's n-bar, sec. V)."""
    sizes = [job.procs for job in schedule.jobs]
    return sum(sizes) / len(sizes) if sizes else math.nan


class LosMeasure(Measure):
    """The common metrics, then dedicated timeliness, the elastic running share and the
    mean job size."""

    def metrics(self, schedule: Schedule, workload: SeedWorkload) -> dict[str, float]:
        return {**common_metrics(schedule), **dedicated_timeliness(schedule),
                "elastic_running_share": elastic_running_share(schedule, workload.changes),
                "mean_size": mean_size(schedule)}


MEASURE = LosMeasure()
