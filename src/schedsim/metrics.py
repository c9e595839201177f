"""Per-job records and summary metrics of a schedule; schedule validation.

Definitions (docs/reproduction.md, conventions; docs/deviations.md, utilization
window and bounded slowdown):
wait = start - submit; response = end - submit; bounded slowdown =
max(1, response / max(runtime, tau)) with tau = 10 s by default; utilization =
busy processor-seconds / (processors x (last end - first submit)).

A job suspended and resumed runs in several segments: its ``runtime`` is the sum
of its segments, wait is its first start - submit, and busy processor-seconds
count only its segments. A schedule stopped early (``Schedule.stopped_at``) is
summarized over the jobs with a finite end (finished, or running with
its projected end).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from schedsim.jobs import job_column
from schedsim.schedule import Schedule, validate_schedule

__all__ = ["Summary", "job_table", "mean_by_group", "relative_response", "start_fairness",
           "summarize", "validate_schedule"]


@dataclass(frozen=True)
class Summary:
    """Summary metrics of one run."""

    jobs: int
    mean_wait: float
    mean_response: float
    mean_runtime: float
    mean_bounded_slowdown: float
    max_wait: float
    utilization: float
    makespan: float
    slowdown_of_means: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def job_table(schedule: Schedule, tau: float = 10.0) -> dict[str, np.ndarray]:
    """Columns of per-job records, in workload order."""
    jobs = schedule.jobs
    submit = job_column(jobs, "submit")
    start = np.array(schedule.start, dtype=float)
    end = np.array(schedule.end, dtype=float)
    runtime = end - start
    for index in schedule.split:
        runtime[index] = schedule.busy_time(index)
    wait = start - submit
    response = end - submit
    bsld = np.maximum(1.0, response / np.maximum(runtime, tau)) if len(jobs) else runtime
    return {
        "id": job_column(jobs, "id", np.int64),
        "submit": submit, "start": start, "end": end, "runtime": runtime,
        "procs": np.array(schedule.procs, dtype=np.int64),
        "partition": np.array(schedule.partition, dtype=np.int64),
        "wait": wait, "response": response, "bounded_slowdown": bsld,
    }


def summarize(schedule: Schedule, tau: float = 10.0) -> Summary:
    """Means of wait, response, bounded slowdown; max wait; utilization; makespan.

    ``slowdown_of_means`` is (mean wait + mean run) / mean run, the LOS paper's
    slowdown (sec. V).
    """
    table = job_table(schedule, tau)
    if schedule.stopped_at is not None:
        finished = np.isfinite(table["end"])
        table = {name: column[finished] for name, column in table.items()}
    return summarize_table(table, schedule.machine.procs)


def summarize_columns(submit: np.ndarray, start: np.ndarray, end: np.ndarray,
                      procs: np.ndarray, machine_procs: int, tau: float = 10.0) -> Summary:
    """``summarize`` of a finished run given as columns, every job in one segment: the
    same values, with at most two per-job arrays alive at a time (a million-job run)."""
    if len(submit) == 0:
        return summarize_table({"submit": submit}, machine_procs)
    scratch = end - start  # the run times
    busy = float((scratch * procs).sum())
    mean_run = float(scratch.mean())
    np.maximum(scratch, tau, out=scratch)
    response = end - submit
    mean_response = float(response.mean())
    np.divide(response, scratch, out=scratch)
    mean_bounded_slowdown = float(np.maximum(1.0, scratch, out=scratch).mean())
    wait = np.subtract(start, submit, out=response)
    return _summary(len(submit), float(submit.min()), float(end.max()), busy, mean_run,
                    float(wait.mean()), mean_response, mean_bounded_slowdown,
                    float(wait.max()), machine_procs)


def summarize_table(table: dict[str, np.ndarray], machine_procs: int) -> Summary:
    """The summary of a ``job_table`` (the columns it reads)."""
    n = len(table["submit"])
    if n == 0:
        return Summary(0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    return _summary(n, float(table["submit"].min()), float(table["end"].max()),
                    float((table["runtime"] * table["procs"]).sum()),
                    float(table["runtime"].mean()), float(table["wait"].mean()),
                    float(table["response"].mean()),
                    float(table["bounded_slowdown"].mean()), float(table["wait"].max()),
                    machine_procs)


def _summary(n: int, first_submit: float, last_end: float, busy: float, mean_run: float,
             mean_wait: float, mean_response: float, mean_bounded_slowdown: float,
             max_wait: float, machine_procs: int) -> Summary:
    span = last_end - first_submit
    return Summary(
        jobs=n,
        mean_wait=mean_wait,
        mean_response=mean_response,
        mean_runtime=mean_run,
        mean_bounded_slowdown=mean_bounded_slowdown,
        max_wait=max_wait,
        utilization=busy / (machine_procs * span) if span > 0 else 0.0,
        makespan=span,
        slowdown_of_means=(mean_wait + mean_run) / mean_run if mean_run > 0 else 1.0,
    )


def relative_response(schedule: Schedule, tau: float = 10.0) -> np.ndarray:
    """Per job: response time / max(run time, ``tau``), the run time being the sum of the
    job's segments (Jin 2009, sec. 5: relative response time, tau 10 s; a job suspended
    by time slicing counts only the time it ran)."""
    table = job_table(schedule, tau)
    return table["response"] / np.maximum(table["runtime"], tau)


def mean_by_group(values: Sequence[float] | np.ndarray, groups: Sequence[str]) -> dict[str, float]:
    """The mean of ``values`` per group label, and over all jobs under ``all``."""
    data = np.asarray(values, dtype=float)
    labels = np.asarray(groups)
    out = {str(g): float(data[labels == g].mean()) for g in dict.fromkeys(groups)}
    out["all"] = float(data.mean()) if data.size else math.nan
    return out


def start_fairness(starts: Sequence[float], fair_starts: Sequence[float],
                   tolerance: float = 1e-9) -> dict[str, int]:
    """How many jobs started after their fair start time (unfair), before it
    (preferential) and at it (fair) (Jin 2009, sec. 4.2 and 5.4)."""
    delta = np.asarray(starts, dtype=float) - np.asarray(fair_starts, dtype=float)
    return {"unfair": int((delta > tolerance).sum()),
            "preferential": int((delta < -tolerance).sum()),
            "fair": int((np.abs(delta) <= tolerance).sum())}
