"""How the IHAP family's simulations are measured: batch means (IHAP paper, sec. 5: 31
batches of 7,000 jobs, the first discarded). One long run is cut into batches of jobs in
arrival order; each kept batch is a row: mean response (MRT), mean and largest wait, the
mean computing power a job received over its run (work / run time in BPUs; processors for
a job without work) and processors per job, with the whole run's utilization in
processors and in computing power."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from schedsim.experiments.measure import Measure, SeedWorkload

if TYPE_CHECKING:
    from schedsim.machine import Machine
    from schedsim.schedule import Schedule


class BatchMeasure(Measure):
    """Batch means over one long run."""

    def batch_rows(self, schedule: Schedule, workload: SeedWorkload, machine: Machine,
                   batches: Sequence[int]) -> list[dict[str, float]]:
        import numpy as np

        from schedsim.jobs import unmade_fields
        from schedsim.metrics import job_table

        count, size, discard = batches
        jobs = workload.jobs
        table = job_table(schedule)
        start, end, procs, runtime = (table[name] for name in ("start", "end", "procs",
                                                               "runtime"))
        submit = table["submit"]
        wait = start - submit
        response = end - submit
        order = np.lexsort((np.arange(len(jobs)), submit))
        fields = unmade_fields(jobs)
        work = fields.work if fields is not None and fields.work is not None else np.array(
            [job.work if job.work is not None else job.runtime * job.procs for job in jobs],
            dtype=float)
        power = work / np.maximum(runtime, 1e-12)
        span = float(np.nanmax(end) - submit.min())
        speeds = machine.speeds or (1.0,) * machine.procs
        utilization = {"util_procs": float((runtime * procs).sum()) / (machine.procs * span),
                       "util_power": float(work.sum()) / (sum(speeds) * span)}
        rows = []
        for batch in range(discard, count):
            part = order[batch * size:(batch + 1) * size]
            rows.append({"batch": float(batch + 1), "MRT": float(response[part].mean()),
                         "AWT": float(wait[part].mean()),
                         "max_wait": float(wait[part].max()),
                         "power": float(power[part].mean()),
                         "procs_per_job": float(procs[part].mean()), **utilization})
        return rows


MEASURE = BatchMeasure()
