"""How the GOAL family's simulations are measured: the month protocol (GOAL paper, sec.
3.3). A workload whose header gives a measured window (a month) runs until every job
submitted in the window has started; its row holds the month's metrics over those jobs
(``schedsim.workloads.months.month_metrics``: AWT, BSLD, max_wait, long_waits, per
partition ...) and the goal policy's search statistics (``search_*``). A whole workload
is measured as in every family."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schedsim.experiments.measure import Measure, SeedWorkload, common_metrics

if TYPE_CHECKING:
    from schedsim.machine import Machine
    from schedsim.schedule import Schedule


class MonthMeasure(Measure):
    """The month protocol for workloads with a measured window."""

    def simulate(self, workload: SeedWorkload, machine: Machine, policy: Any,
                 load: Any) -> Schedule:
        from schedsim.engine import simulate

        return simulate(workload.jobs, machine, policy, workload.changes, load_model=load,
                        stop_when_started=workload.measured)

    def metrics(self, schedule: Schedule, workload: SeedWorkload) -> dict[str, float]:
        from schedsim.workloads.months import month_metrics

        if workload.measured is None:
            return common_metrics(schedule)
        runtime = [job.runtime for job in schedule.jobs]
        metrics = month_metrics([job.submit for job in schedule.jobs], schedule.start, runtime,
                                schedule.procs, schedule.partition, workload.measured,
                                len(schedule.machine.partitions))
        metrics["AWT"] = metrics.pop("mean_wait")
        metrics["BSLD"] = metrics.pop("mean_bsld")
        return {**metrics, **{f"search_{k}": v for k, v in schedule.statistics.items()}}


MEASURE = MonthMeasure()
