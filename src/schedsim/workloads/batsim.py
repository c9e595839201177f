"""Batsim's formats: its JSON workloads (read and written) and its ``jobs.csv`` schedules.

A Batsim workload (Batsim documentation, "Workload") is a JSON object with ``nb_res``
(the resources it was made for), ``jobs`` (each with ``id``, ``subtime``, ``res``,
``profile`` and an optional ``walltime``) and ``profiles`` (name -> profile). A job of
a real log is a *delay* profile of its run time. The fields both formats carry map
one to one, so SWF -> Batsim JSON -> SWF keeps them exactly:

=====================  ==========================  =================================
SWF field              Batsim job                  note
=====================  ==========================  =================================
1 job number           ``id``                      a string of the number
2 submit time          ``subtime``
4 run time             its profile's ``delay``     profiles shared by equal delays
8 requested procs      ``res``                     field 5 when field 8 is unknown
9 requested time       ``walltime``                absent when unknown (-1)
header ``MaxProcs``    ``nb_res``
=====================  ==========================  =================================

Records Batsim cannot hold (no run time, no processor count) are left out and counted.
Reading accepts delay profiles (``delay``, or ``DelayProfile`` of later Batsim
versions) and job ids that are numbers or ``workload!number``; the jobs become SWF
records, so a Batsim workload is cleaned and simulated exactly as an SWF log is.

A schedule is written as Batsim's ``jobs.csv`` (documentation, "Jobs" output): one row
per job with its columns in Batsim's order, times in seconds, and the processors in
``allocated_resources`` as Batsim writes interval sets (``0-3 8``: processors 0 to 3
and 8, counted across partitions). A policy that does not name processors gets them
here: at each start, in time order, the lowest-numbered free processors of its
partition. A job suspended and resumed (time slicing) gets one row per run segment,
its id followed by ``.1``, ``.2`` ...
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.workloads.swf import SwfLog, SwfRecord, format_number

DELAY_TYPES = ("delay", "DelayProfile")
JOBS_CSV_COLUMNS = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time",
    "finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
    "consumed_energy", "metadata",
)


# ----------------------------------------------------------------------------- workloads


def _number(value: float) -> int | float:
    """An integral float as an int (``10`` rather than ``10.0`` in the JSON text)."""
    return int(value) if float(value).is_integer() else float(value)


def swf_to_batsim(log: SwfLog, nb_res: int | None = None,
                  description: str = "") -> tuple[dict[str, Any], int]:
    """The Batsim workload of an SWF log and how many records it could not hold."""
    jobs, profiles, left_out = [], {}, 0
    for record in log.records:
        res = record.req_procs if record.req_procs > 0 else record.alloc_procs
        if record.run < 0 or res <= 0:
            left_out += 1
            continue
        name = f"delay{format_number(record.run)}"
        profiles.setdefault(name, {"type": DELAY_TYPES[0], "delay": _number(record.run)})
        job: dict[str, Any] = {"id": str(record.job), "subtime": _number(record.submit),
                               "res": int(res), "profile": name}
        if record.req_time >= 0:
            job["walltime"] = _number(record.req_time)
        jobs.append(job)
    size = nb_res or log.max_procs() or max((job["res"] for job in jobs), default=1)
    workload = {"nb_res": int(size), "jobs": jobs, "profiles": profiles}
    if description:
        workload["description"] = description
    return workload, left_out


def batsim_text(workload: Mapping[str, Any]) -> str:
    """The workload as JSON text: one job or profile a line, keys sorted."""
    jobs = ",\n    ".join(json.dumps(job, sort_keys=True) for job in workload["jobs"])
    profiles = ",\n    ".join(f"{json.dumps(name)}: {json.dumps(p, sort_keys=True)}"
                               for name, p in sorted(workload["profiles"].items()))
    head = "".join(f"  {json.dumps(key)}: {json.dumps(workload[key])},\n"
                   for key in sorted(workload) if key not in ("jobs", "profiles"))
    return (f"{{\n{head}  \"jobs\": [\n    {jobs}\n  ],\n"
            f"  \"profiles\": {{\n    {profiles}\n  }}\n}}\n")


def read_batsim(path: str | Path, raw: bytes | None = None) -> SwfLog:
    """A Batsim JSON workload (the file ``path``, or its bytes ``raw`` when read already)
    as SWF records (module docstring); every error names the file and the job."""
    path = Path(path)
    try:
        data = json.loads((path.read_bytes() if raw is None else raw).decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a UTF-8 text file") from None
    except json.JSONDecodeError as err:
        raise InputError(f"{path}:{err.lineno}: not valid JSON: {err.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), list) \
            or not isinstance(data.get("profiles"), dict):
        raise InputError(f"{path}: a Batsim workload is an object with nb_res, jobs (a list) "
                         "and profiles (an object)")
    nb_res = data.get("nb_res")
    if isinstance(nb_res, bool) or not isinstance(nb_res, int) or nb_res <= 0:
        raise InputError(f"{path}: nb_res={nb_res!r} must be a positive integer")
    records = [_record(path, position, job, data["profiles"])
               for position, job in enumerate(data["jobs"], start=1)]
    header = ["Version: 2.2", f"Conversion: read from the Batsim workload {path.name}",
              f"MaxProcs: {nb_res}"]
    return SwfLog(header, records, str(path), list(range(1, len(records) + 1)),
                  list(range(len(header))))


def _record(path: Path, position: int, job: Any, profiles: Mapping[str, Any]) -> SwfRecord:
    where = f"{path}: job {position}"
    if not isinstance(job, dict):
        raise InputError(f"{where}: a job is an object with id, subtime, res and profile")
    missing = [key for key in ("id", "subtime", "res", "profile") if key not in job]
    if missing:
        raise InputError(f"{where}: no {missing[0]}")
    where = f"{path}: job {job['id']!r}"
    number = _job_number(job["id"], where)
    submit = _field(job["subtime"], where, "subtime")
    res = job["res"]
    if isinstance(res, bool) or not isinstance(res, int) or res <= 0:
        raise InputError(f"{where}: res={res!r} must be a positive integer")
    walltime = job.get("walltime", -1)
    walltime = -1.0 if walltime in (None, -1) else _field(walltime, where, "walltime")
    profile = profiles.get(job["profile"])
    if not isinstance(profile, dict):
        raise InputError(f"{where}: profile {job['profile']!r} is not among the profiles")
    if profile.get("type") not in DELAY_TYPES:
        raise InputError(f"{where}: profile {job['profile']!r} is of type "
                         f"{profile.get('type')!r}, whose run time needs a platform; only "
                         f"delay profiles ({', '.join(DELAY_TYPES)}) are read")
    run = _field(profile.get("delay"), where, f"profile {job['profile']!r} delay")
    return SwfRecord(number, submit, -1, run, -1, -1, -1, res, walltime, -1, -1, -1, -1, -1, -1,
                     -1, -1, -1)


def _job_number(value: Any, where: str) -> int:
    text = str(value).rpartition("!")[2] if isinstance(value, str) else value
    try:
        number = int(text)
    except (TypeError, ValueError):
        raise InputError(f"{where}: the id must be a number or workload!number") from None
    if number < 0 or isinstance(value, bool) or (isinstance(value, float)
                                                   and not value.is_integer()):
        raise InputError(f"{where}: the id must be a non-negative whole number")
    return number


def _field(value: Any, where: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(
            value) or value < 0:
        raise InputError(f"{where}: {name}={value!r} must be a number >= 0")
    return float(value)


def convert_text(source: str | Path, out: str | Path,
                 nb_res: int | None = None) -> tuple[str, str]:
    """The text of ``out`` converted from ``source`` (SWF -> Batsim JSON, or Batsim JSON
    -> SWF, by the names' endings) and a note of what was left out ("" if nothing)."""
    from schedsim.workloads.swf import read_swf, swf_text

    source, out = str(source), str(out)
    if source.endswith((".swf", ".swf.gz")) and out.endswith(".json"):
        workload, left_out = swf_to_batsim(read_swf(source), nb_res,
                                           f"converted from {Path(source).name} by schedsim")
        note = f"{left_out} records without a run time or processor count left out" \
            if left_out else ""
        return batsim_text(workload), note
    if source.endswith(".json") and out.endswith(".swf"):
        if nb_res is not None:
            raise InputError("--procs sets nb_res when writing a Batsim workload; a Batsim "
                             "workload's nb_res becomes MaxProcs")
        log = read_batsim(source)
        return swf_text(log.header, log.records), ""
    raise InputError(f"convert {source} -> {out}: give an SWF source (.swf, .swf.gz) and a "
                     ".json output, or a Batsim .json source and a .swf output")


# ----------------------------------------------------------------------------- jobs.csv


@dataclass(frozen=True)
class Run:
    """One row of a jobs.csv: a job's run (or one run segment of a suspended job)."""

    job_id: str
    submit: float
    requested: int
    requested_time: float
    start: float
    end: float
    procs: int
    partition: int
    runtime: float
    processors: tuple[int, ...] = ()
    metadata: str = ""


def interval_set(processors: Iterable[int]) -> str:
    """Batsim's canonical interval-set text: ``[0, 1, 2, 3, 8]`` -> ``0-3 8``."""
    ids = sorted(set(processors))
    parts, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return " ".join(parts)


def assign_processors(runs: Sequence[Run], partitions: Sequence[int]) -> list[tuple[int, ...]]:
    """The processors of every run: those the runs name (when all do), or at each start
    the lowest-numbered free ones of its partition (ends free processors before starts
    at the same instant). Raises InputError when a start finds too few free."""
    named_all = all(run.processors for run in runs)
    offsets = [sum(partitions[:p]) for p in range(len(partitions))]
    free = [list(range(offsets[p], offsets[p] + size)) for p, size in enumerate(partitions)]
    events = sorted([(run.end, 0, i) for i, run in enumerate(runs)]
                    + [(run.start, 1, i) for i, run in enumerate(runs)])
    taken: list[tuple[int, ...]] = [()] * len(runs)
    for _, is_start, i in events:
        run = runs[i]
        pool = free[run.partition]
        if not is_start:
            for processor in taken[i]:
                heapq.heappush(pool, processor)
            continue
        if named_all:
            named = set(run.processors)
            kept = [p for p in pool if p not in named]
            heapq.heapify(kept)
            free[run.partition] = kept
            taken[i] = tuple(run.processors)
            continue
        if len(pool) < run.procs:
            raise InputError(f"job {run.job_id}: {run.procs} processors at {run.start}, only "
                             f"{len(pool)} free in partition {run.partition}")
        taken[i] = tuple(heapq.heappop(pool) for _ in range(run.procs))
    return taken


def jobs_csv_text(runs: Sequence[Run], partitions: Sequence[int], workload_name: str) -> str:
    """Batsim's jobs.csv of the runs, in job order."""
    import csv
    import io

    allocated = assign_processors(runs, partitions)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(JOBS_CSV_COLUMNS)
    for run, processors in zip(runs, allocated, strict=True):
        execution, waiting = run.end - run.start, run.start - run.submit
        turnaround = run.end - run.submit
        stretch = turnaround / execution if execution > 0 else math.nan
        writer.writerow([run.job_id, workload_name, f"delay{format_number(run.runtime)}",
                         _text(run.submit), run.requested, _text(run.requested_time), 1,
                         "COMPLETED_SUCCESSFULLY", _text(run.start), _text(execution),
                         _text(run.end), _text(waiting), _text(turnaround), _text(stretch),
                         interval_set(processors), "", run.metadata])
    return out.getvalue()


def _text(value: float) -> str:
    return "" if math.isnan(value) else format_number(value)


def schedule_runs(schedule: Any) -> list[Run]:
    """The runs of a :class:`schedsim.schedule.Schedule` (a suspended job: one per segment)."""
    runs = []
    for job, start, end, procs, part in zip(schedule.jobs, schedule.start, schedule.end,
                                            schedule.procs, schedule.partition, strict=True):
        base = {"submit": job.submit, "requested": job.procs, "requested_time": job.estimate,
                "procs": procs, "partition": part, "runtime": job.runtime}
        segments = schedule.split.get(job.index)
        if segments is None:
            runs.append(Run(str(job.id), start=start, end=end,
                            processors=schedule.processors.get(job.index, ()), **base))
            continue
        for k, (begin, finish, named) in enumerate(segments, start=1):
            runs.append(Run(f"{job.id}.{k}", start=begin, end=finish, processors=named,
                            metadata=json.dumps({"job": job.id, "segment": k,
                                                 "segments": len(segments)}), **base))
    return runs
