"""How the SLACK family's simulations are measured: the common metrics, the mean relative
response time per Scojo-PECT class (thesis sec. 5.1) and the slack policies' fairness
counts and search effort (sec. 5.4; the schedule's statistics)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from schedsim.experiments.measure import Measure, SeedWorkload, common_metrics

if TYPE_CHECKING:
    from schedsim.schedule import Schedule

CLASSES = ("long", "medium", "short", "all")
TAUS = {"RR": 10.0, "RR60": 60.0}
SHORT_LIMIT, MEDIUM_LIMIT = 600.0, 10_800.0  # the classes of Scojo-PECT (by estimate)


def relative_responses(schedule: Schedule) -> dict[str, float]:
    """Mean relative response time per class (by estimate) and over all jobs, for tau 10
    and 60 s: response / max(time the job ran, tau) (thesis sec. 5.1)."""
    import numpy as np

    from schedsim.metrics import job_table

    table = job_table(schedule)
    estimate = np.array([job.estimate for job in schedule.jobs], dtype=float)
    classes = {"long": estimate >= MEDIUM_LIMIT,
               "medium": (estimate >= SHORT_LIMIT) & (estimate < MEDIUM_LIMIT),
               "short": estimate < SHORT_LIMIT, "all": np.ones(len(estimate), bool)}
    out = {}
    for prefix, tau in TAUS.items():
        rr = table["response"] / np.maximum(table["runtime"], tau)
        for name, mask in classes.items():
            out[f"{prefix}_{name}"] = float(rr[mask].mean()) if mask.any() else math.nan
    return out


class SlackMeasure(Measure):
    """The common metrics, relative responses per class and the policy's statistics."""

    def metrics(self, schedule: Schedule, workload: SeedWorkload) -> dict[str, float]:
        return {**common_metrics(schedule), **relative_responses(schedule),
                **schedule.statistics}


MEASURE = SlackMeasure()
