"""Shortest-job-first backfilling with an EASY reservation: a policy of one's own.

The oldest waiting job holds a reservation (EASY: its shadow time, and the processors
left over then); the other waiting jobs are tried shortest estimate first, and one
starts when it fits now and does not delay that reservation. Run it with
``schedsim simulate WORKLOAD --policy examples/my_policy/my_policy.py:ShortestJobFirst``
(docs/your-policy.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from schedsim.engine import Decision, EngineView, RunningJob, Start
from schedsim.jobs import Job
from schedsim.policies.backfill import shadow_and_extra
from schedsim.policies.base import QueuePolicy
from schedsim.policies.registry import setting


@dataclass(frozen=True)
class SJFSettings:
    key: str = setting("estimate", "backfill order: shortest estimate first, or smallest "
                       "area (estimate x processors) first", choices=("estimate", "area"))


class ShortestJobFirst(QueuePolicy[SJFSettings]):
    """EASY with shortest-job-first backfilling."""

    name = "sjf-easy"
    settings_class = SJFSettings
    needs = ("rigid",)
    takes = ("elastic",)  # estimates are read afresh at every call

    def size(self, job: Job) -> int:
        return self.machine.round_up(job.procs)

    def order(self, job: Job) -> float:
        return job.estimate * (self.size(job) if self.settings.key == "area" else 1)

    def schedule(self, view: EngineView) -> list[Decision]:
        now, free, queue = view.now, view.free[0], self.queue
        decisions: list[Decision] = []
        while queue and self.size(queue[0]) <= free:  # the oldest jobs, while they fit
            job = queue.pop(0)
            decisions.append(Start(job, self.size(job)))
            free -= self.size(job)
        if len(queue) < 2 or free == 0:
            return decisions
        running = [*view.running.values(), *(
            RunningJob(d.job, now, d.procs, 0, (), now + d.job.estimate) for d in decisions)]
        shadow, extra = shadow_and_extra(now, free, running, self.size(queue[0]))
        for job in sorted(queue[1:], key=self.order):  # stable: ties stay in arrival order
            size, end = self.size(job), now + job.estimate
            if size > free or (end > shadow and size > extra):
                continue
            decisions.append(Start(job, size))
            queue.remove(job)
            free -= size
            extra -= size if end > shadow else 0
        return decisions
