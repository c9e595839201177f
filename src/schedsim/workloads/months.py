"""Calendar months of a real log, as the GOAL paper evaluates them (sec. 3.1, 3.3).

* A month is a calendar month in the log's own time zone (SWF header
  ``TimeZoneString``, times counted from ``UnixStartTime``).
* Month M is simulated on an empty machine with the jobs submitted from a week
  before its first day (warm-up) to 31 days after its last day; the run stops once
  every job submitted in M has started, and only those jobs are measured.
* HPC2N's nodes have two processors: a job's nodes are ceil(processors / 2), capped
  at the largest partition (64 nodes, sec. 3.1); run times are exact (estimate =
  run time, sec. 3.3).
* The secondary synthetic workload (``lublin_month``): Lublin99 jobs for 128 nodes,
  arrival times scaled to an offered load of 0.70, one 30-day "month" per seed after a
  week of warm-up, with the same tail and the same 64-node cap.

docs/deviations-goal.md records these choices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from schedsim.jobs import Job

DAY = 86400.0
WARMUP = 7 * DAY
TAIL = 31 * DAY
LONG_WAIT = DAY  # the paper counts the jobs that wait more than 24 hours


def month_start(unix_start: float, time_zone: str, year: int, month: int) -> float:
    """Seconds from the log's start to local midnight of the first day of the month."""
    first = datetime(year, month, 1, tzinfo=ZoneInfo(time_zone))
    return first.timestamp() - unix_start


def next_month(year: int, month: int) -> tuple[int, int]:
    return (year + 1, 1) if month == 12 else (year, month + 1)


@dataclass(frozen=True)
class MonthWindow:
    """The jobs simulated for one month, and which of them are measured.

    ``jobs`` keep the log's times; ``measured`` are positions in ``jobs`` of the jobs
    submitted in ``[start, end)``.
    """

    label: str
    start: float
    end: float
    jobs: list[Job]
    measured: tuple[int, ...]


def month_window(jobs: Sequence[Job], unix_start: float, time_zone: str, year: int,
                 month: int, warmup: float = WARMUP, tail: float = TAIL) -> MonthWindow:
    """The jobs of month ``year-month`` with their warm-up and tail (module docstring)."""
    start = month_start(unix_start, time_zone, year, month)
    end = month_start(unix_start, time_zone, *next_month(year, month))
    window = [job for job in jobs if start - warmup <= job.submit < end + tail]
    measured = tuple(i for i, job in enumerate(window) if start <= job.submit < end)
    return MonthWindow(f"{year:04d}-{month:02d}", start, end, window, measured)


def dual_cpu_nodes(jobs: Sequence[Job], largest: int = 64) -> list[Job]:
    """Copies with nodes = min(largest, ceil(processors / 2)) and exact estimates."""
    return [replace(job, procs=min(largest, math.ceil(job.procs / 2)), estimate=job.runtime,
                    index=-1) for job in jobs]


def month_metrics(submit: Sequence[float], start: Sequence[float], runtime: Sequence[float],
                  nodes: Sequence[int], partition: Sequence[int], measured: Sequence[int],
                  partitions: int, tau: float = 10.0) -> dict[str, float]:
    """The paper's monthly metrics over the measured jobs (sec. 3.3, Table 2).

    Over all measured jobs: maximum and mean wait, mean bounded slowdown
    max(1, (wait + run) / max(run, tau)), and the number that waited more than 24 h.
    Per partition p (``p1_...``, 1-based as in the paper): jobs, mean node-hours,
    maximum and mean wait, mean bounded slowdown.
    """
    def summary(rows: Sequence[int]) -> dict[str, float]:
        waits = [start[i] - submit[i] for i in rows]
        slow = [max(1.0, (start[i] - submit[i] + runtime[i]) / max(runtime[i], tau))
                for i in rows]
        count = len(rows)
        return {"jobs": float(count),
                "max_wait": max(waits) if waits else math.nan,
                "mean_wait": math.fsum(waits) / count if count else math.nan,
                "mean_bsld": math.fsum(slow) / count if count else math.nan,
                "node_hours": math.fsum(nodes[i] * runtime[i] for i in rows) / 3600.0 / count
                if count else math.nan}

    overall = summary(measured)
    out = {"jobs": overall["jobs"], "max_wait": overall["max_wait"],
           "mean_wait": overall["mean_wait"], "mean_bsld": overall["mean_bsld"],
           "long_waits": float(sum(1 for i in measured if start[i] - submit[i] > LONG_WAIT))}
    for p in range(partitions):
        for key, value in summary([i for i in measured if partition[i] == p]).items():
            out[f"p{p + 1}_{key}"] = value
    return out


def lublin_month(seed: int, nodes: int = 128, load: float = 0.70, days: float = 30.0,
                 largest: int = 64, warmup: float = WARMUP, tail: float = TAIL) -> MonthWindow:
    """One synthetic month: Lublin99 jobs for ``nodes`` nodes (srand48 ``seed``), sizes
    capped at ``largest``, arrival times scaled so that the offered load of the whole
    series is ``load``; the month is ``[warmup, warmup + days)`` and the series runs
    at least ``tail`` beyond it (more jobs are generated until it does)."""
    from schedsim.workloads.lublin import generate_lublin, records_to_jobs
    from schedsim.workloads.scaling import scale_to_load

    start, end = warmup, warmup + days * DAY
    count = 4096
    while True:
        jobs = [replace(job, procs=min(largest, job.procs)) for job in
                records_to_jobs(generate_lublin(count, seed, uhi=math.log2(nodes)))]
        scaled = scale_to_load(jobs, nodes, load)
        if scaled[-1].submit >= end + tail:
            break
        count *= 2
    window = [job for job in scaled if job.submit < end + tail]
    measured = tuple(i for i, job in enumerate(window) if start <= job.submit < end)
    return MonthWindow(f"lublin-seed{seed}", start, end, window, measured)
