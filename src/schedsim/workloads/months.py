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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from schedsim.jobs import Job
from schedsim.params import ParamSpec
from schedsim.workloads.base import WorkloadModel, register

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


# ----------------------------------------------------------------------------- files and logs

MEASURED_FROM, MEASURED_TO = "MeasuredFrom", "MeasuredTo"  # header keys of a month file
CONVERSIONS = ("none", "dual-cpu-nodes")


def convert(jobs: Sequence[Job], conversion: str, node_cap: int | None) -> list[Job]:
    """A log's jobs in the machine's units: ``dual-cpu-nodes`` (:func:`dual_cpu_nodes`,
    capped at ``node_cap`` or 64) or ``none`` (sizes capped at ``node_cap`` if given)."""
    if conversion == "dual-cpu-nodes":
        return dual_cpu_nodes(jobs, node_cap or 64)
    if conversion != "none":
        raise ValueError(f"trace conversion {conversion!r}: allowed values "
                         f"{', '.join(CONVERSIONS)}")
    if node_cap is None:
        return list(jobs)
    return [replace(job, procs=min(node_cap, job.procs), index=-1) for job in jobs]


def log_clock(header_value: Callable[[str], str | None], path: str) -> tuple[float, str]:
    """``UnixStartTime`` and ``TimeZoneString`` of a log's header (InputError if absent)."""
    from schedsim.errors import InputError

    start, zone = header_value("UnixStartTime"), header_value("TimeZoneString")
    if start is None or zone is None:
        raise InputError(f"{path}: header lacks UnixStartTime or TimeZoneString, which "
                         "calendar months need")
    try:
        ZoneInfo(zone)
        return float(start), zone
    except (ValueError, KeyError) as err:
        raise InputError(f"{path}: header UnixStartTime {start!r} / TimeZoneString {zone!r}: "
                         f"{err}") from None


def measured_window(header_value: Callable[[str], str | None],
                    path: str) -> tuple[float, float] | None:
    """The ``[MeasuredFrom, MeasuredTo)`` window of a month file's header, or None."""
    from schedsim.errors import InputError

    low, high = header_value(MEASURED_FROM), header_value(MEASURED_TO)
    if low is None and high is None:
        return None
    try:
        window = (float(low or ""), float(high or ""))
    except ValueError:
        raise InputError(f"{path}: header {MEASURED_FROM} {low!r} / {MEASURED_TO} {high!r}: "
                         "both must be numbers (seconds)") from None
    if not window[0] < window[1]:
        raise InputError(f"{path}: header {MEASURED_FROM} {low} must be below "
                         f"{MEASURED_TO} {high}")
    return window


def month_swf(window: MonthWindow, nodes: int, notes: Sequence[str] = (),
              month: str = "") -> str:
    """A month as SWF text: the header names the measured window (and the calendar month
    of a log's month); estimates are exact."""
    return "".join(month_swf_pieces(window, nodes, notes, month))


def month_swf_pieces(window: MonthWindow, nodes: int, notes: Sequence[str] = (),
                     month: str = "") -> Iterator[str]:
    """:func:`month_swf` in pieces (``swf.swf_pieces``)."""
    from schedsim.workloads.swf import format_number, swf_pieces

    count = len(window.jobs)
    header = ["Version: 2.2", f"MaxJobs: {count}", f"MaxRecords: {count}",
              f"MaxNodes: {nodes}", f"MaxProcs: {nodes}",
              f"{MEASURED_FROM}: {format_number(window.start)}",
              f"{MEASURED_TO}: {format_number(window.end)}",
              *([f"Month: {month}"] if month else []), *(f"Note: {note}" for note in notes)]
    records = ((job.id, job.submit, -1, job.runtime, job.procs, -1, -1, job.procs, job.estimate,
                -1, 1, -1, -1, -1, 1, -1, -1, -1) for job in window.jobs)
    return swf_pieces(header, records)


def _generate_month(jobs: int, seed: int, values: Mapping[str, Any]) -> Iterator[str]:
    window = lublin_month(seed, int(values["nodes"]), float(values["load"]),
                          float(values["days"]), int(values["largest"]))
    notes = (f"schedsim {LUBLIN_MONTH}, srand48 seed {seed}: Lublin99 for {values['nodes']} "
             f"nodes, sizes capped at {values['largest']}, arrivals scaled to offered load "
             f"{values['load']:g}; measured: {values['days']:g} days after a 7-day warm-up",)
    return month_swf_pieces(window, int(values["nodes"]), notes)


LUBLIN_MONTH = "lublin-month"
register(WorkloadModel(
    name=LUBLIN_MONTH,
    description="one synthetic month for the GOAL paper's protocol: Lublin99, scaled to an "
                "offered load, a warm-up week, the measured window in the header",
    params=(ParamSpec("nodes", int, 128, "machine nodes (Lublin's uhi = log2 nodes)", low=2),
            ParamSpec("load", float, 0.70, "offered load of the series", low=0.01, high=2.0),
            ParamSpec("days", float, 30.0, "length of the measured month in days", low=1.0),
            ParamSpec("largest", int, 64, "cap on a job's nodes (the largest partition)",
                      low=1)),
    generate=_generate_month,
    file_format="swf",
    source="GOAL paper sec. 3 protocol; Lublin & Feitelson, JPDC 63(11), 2003",
))


# ----------------------------------------------------------------------------- a log's month

MONTH = "Month"  # header key of a month cut from a log (YYYY-MM)
SWF_MONTH = "swf-month"


def _cut_month(jobs: int, seed: int, values: Mapping[str, Any]) -> Iterator[str]:
    """One calendar month of a real log as a month file (the GOAL paper's protocol)."""
    from schedsim.errors import InputError
    from schedsim.workloads.load import load_workload

    label = str(values["month"])
    try:
        year, month = (int(x) for x in label.split("-"))
        datetime(year, month, 1)
    except ValueError:
        raise InputError(f"generate {SWF_MONTH}: month={label!r} is not YYYY-MM") from None
    log = load_workload(str(values["log"]), estimates=str(values["estimates"]))
    unix_start, time_zone = log_clock(log.header_value, str(values["log"]))
    cap = int(values["node_cap"]) or None
    converted = convert(log.jobs, str(values["conversion"]), cap)
    window = month_window(converted, unix_start, time_zone, year, month)
    nodes = log.machine.procs
    if values["conversion"] == "dual-cpu-nodes":
        nodes = math.ceil(nodes / 2)
    notes = (f"schedsim {SWF_MONTH}: {label} of {Path(str(values['log'])).name} in "
             f"{time_zone}, conversion "
             f"{values['conversion']}, sizes capped at {cap or 'none'}, estimates "
             f"{values['estimates']}; a week of warm-up and a 31-day tail",)
    return month_swf_pieces(window, nodes, notes, label)


register(WorkloadModel(
    name=SWF_MONTH,
    description="one calendar month cut from a real log for the GOAL paper's protocol "
                "(warm-up week, 31-day tail, the measured window and the month in the header)",
    params=(ParamSpec("log", str, "", "the log's file (SWF, optionally gzipped)"),
            ParamSpec("month", str, "", "the month, YYYY-MM in the log's time zone"),
            ParamSpec("conversion", str, "none", "processors to machine units",
                      choices=CONVERSIONS),
            ParamSpec("node_cap", int, 0, "cap on a job's size after the conversion (0: none)",
                      low=0),
            ParamSpec("estimates", str, "exact", "estimates given to the schedulers",
                      choices=("requested", "exact"))),
    generate=_cut_month,
    file_format="swf",
    source="GOAL paper sec. 3.1 and 3.3",
))


def month_info(jobs: Sequence[Job], measured: Sequence[int], window: tuple[float, float],
               nodes: int) -> dict[str, float]:
    """What a month's rows record of its workload: jobs, demand and job size (GOAL Table 1).

    ``demand`` is the measured jobs' node-seconds over the machine's node-seconds in
    the month; ``job_nodehours_*`` the mean, median and maximum node-hours per job.
    """
    import numpy as np

    sizes = np.array([jobs[i].procs * jobs[i].runtime / 3600.0 for i in measured])
    span = window[1] - window[0]
    return {"month_jobs": float(len(measured)),
            "demand": float(sizes.sum() * 3600.0 / (nodes * span)) if span > 0 else math.nan,
            "job_nodehours_mean": float(sizes.mean()) if len(sizes) else math.nan,
            "job_nodehours_median": float(np.median(sizes)) if len(sizes) else math.nan,
            "job_nodehours_max": float(sizes.max()) if len(sizes) else math.nan}
