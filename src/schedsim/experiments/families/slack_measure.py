"""How the SLACK family's simulations are measured: the common metrics, the mean relative
response time per Scojo-PECT class (thesis sec. 5.1), Table 2's workload shares, and the
slack policies' fairness counts (per class too) and search effort (sec. 5.4; the
schedule's statistics)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from schedsim.experiments.measure import Measure, SeedWorkload, common_metrics

if TYPE_CHECKING:
    from schedsim.schedule import Schedule

CLASSES = ("long", "medium", "short", "all")
TAUS = {"RR": 10.0, "RR60": 60.0}
SHORT_LIMIT, MEDIUM_LIMIT = 600.0, 10_800.0  # the classes of Scojo-PECT (by estimate)
WORKLOAD_SHARES = ("jobs_short", "jobs_medium", "jobs_long", "work_short", "work_medium",
                   "work_long", "serial", "power_of_two")


def relative_responses(schedule: Schedule) -> dict[str, float]:
    """Mean relative response time per class (by estimate) and over all jobs, for tau 10
    and 60 s: response / max(time the job ran, tau) (thesis sec. 5.1)."""
    import numpy as np

    from schedsim.jobs import job_column
    from schedsim.metrics import job_table

    table = job_table(schedule)
    estimate = job_column(schedule.jobs, "estimate")
    classes = {"long": estimate >= MEDIUM_LIMIT,
               "medium": (estimate >= SHORT_LIMIT) & (estimate < MEDIUM_LIMIT),
               "short": estimate < SHORT_LIMIT, "all": np.ones(len(estimate), bool)}
    out = {}
    for prefix, tau in TAUS.items():
        rr = table["response"] / np.maximum(table["runtime"], tau)
        for name, mask in classes.items():
            out[f"{prefix}_{name}"] = float(rr[mask].mean()) if mask.any() else math.nan
    return out


def workload_shares(schedule: Schedule) -> dict[str, float]:
    """Table 2's workload characteristics of the run's jobs: the share of short, medium and
    long jobs (by run time, sec. 5.1) and of their work (processors x run time), the share
    of serial jobs, and of power-of-two sizes among the parallel ones."""
    import numpy as np

    from schedsim.jobs import job_column

    runtime = job_column(schedule.jobs, "runtime")
    procs = job_column(schedule.jobs, "procs")
    if not len(runtime):
        return {name: math.nan for name in WORKLOAD_SHARES}
    work = runtime * procs
    classes = {"short": runtime < SHORT_LIMIT,
               "medium": (runtime >= SHORT_LIMIT) & (runtime < MEDIUM_LIMIT),
               "long": runtime >= MEDIUM_LIMIT}
    parallel = procs > 1
    sizes = procs.astype(np.int64)
    powers = parallel & (np.bitwise_and(sizes, sizes - 1) == 0)
    return {**{f"jobs_{c}": float(mask.mean()) for c, mask in classes.items()},
            **{f"work_{c}": float(work[mask].sum() / work.sum()) for c, mask in classes.items()},
            "serial": float((~parallel).mean()),
            "power_of_two": float(powers.sum() / parallel.sum()) if parallel.any() else math.nan}


class SlackMeasure(Measure):
    """The common metrics, relative responses per class, the workload's shares and the
    policy's statistics."""

    def metrics(self, schedule: Schedule, workload: SeedWorkload) -> dict[str, float]:
        return {**common_metrics(schedule), **relative_responses(schedule),
                **workload_shares(schedule), **schedule.statistics}


MEASURE = SlackMeasure()
