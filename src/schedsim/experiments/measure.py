"""How a family's simulations are run and measured: the hooks the point runner calls.

A family names its measuring module (``Family.measure``; this one by default), which
defines ``MEASURE``, an instance of :class:`Measure` or a subclass. The point runner
(``schedsim.experiments.run``) knows no family: it asks the point's measure for each
simulation (``simulate``), for the metrics of one row (``metrics``) and, for a batch-means
point, for the rows of the batches (``batch_rows``). The measuring module is kept apart
from the family's claims and figures so that a simulation's code version covers what the
simulation runs and nothing else (an edit of a figure reruns no simulation).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from schedsim.errors import InputError

if TYPE_CHECKING:
    from schedsim.jobs import Job, RuntimeChange
    from schedsim.machine import Machine
    from schedsim.schedule import Schedule

DEFAULT = "schedsim.experiments.measure"


@dataclass
class SeedWorkload:
    """One seed's input of a point: jobs, elastic commands, and what rows record of it."""

    jobs: Sequence[Job]
    changes: list[RuntimeChange] = field(default_factory=list)
    info: dict[str, float] = field(default_factory=dict)
    measured: tuple[int, ...] | None = None  # positions of the measured jobs (a month)


def common_metrics(schedule: Schedule) -> dict[str, float]:
    """The summary metrics of a finished run under the names used in tables; ``slowdown``
    is the LOS paper's (mean wait + mean run) / mean run of the run."""
    from schedsim.metrics import summarize

    summary = summarize(schedule)
    return {"jobs": summary.jobs, "ATT": summary.mean_response, "AWT": summary.mean_wait,
            "ART": summary.mean_runtime, "BSLD": summary.mean_bounded_slowdown,
            "max_wait": summary.max_wait, "utilization": summary.utilization,
            "makespan": summary.makespan, "slowdown": summary.slowdown_of_means}


class Measure:
    """The default: run the whole workload through the engine (``schedsim.engine.simulate``,
    which takes a policy's compiled path where it has one), and measure the common
    metrics. A workload with a measured window or a batch-means point needs a family that
    defines how to measure them."""

    def simulate(self, workload: SeedWorkload, machine: Machine, policy: Any,
                 load: Any) -> Schedule:
        from schedsim.engine import simulate

        if workload.measured is not None:
            raise InputError(f"{type(self).__name__}: the workload has a measured window "
                             "(MeasuredFrom/MeasuredTo) but its family measures whole runs; "
                             "use a family with a month protocol (goal)")
        return simulate(workload.jobs, machine, policy, workload.changes, load_model=load)

    def metrics(self, schedule: Schedule, workload: SeedWorkload) -> dict[str, float]:
        """One row's metrics of one simulation."""
        return common_metrics(schedule)

    def batch_rows(self, schedule: Schedule, workload: SeedWorkload, machine: Machine,
                   batches: Sequence[int]) -> list[dict[str, float]]:
        """The rows of a batch-means point (each with its number under ``batch``)."""
        raise InputError(f"{type(self).__name__}: this family defines no batch means; "
                         "remove `batches:` or use a family that measures batches (ihap)")


MEASURE = Measure()


def find_measure(module: str) -> Measure:
    """The ``MEASURE`` of a measuring module."""
    found = getattr(importlib.import_module(module), "MEASURE", None)
    if not isinstance(found, Measure):
        raise InputError(f"{module}: defines no MEASURE (a schedsim.experiments.measure."
                         "Measure)")
    return found
