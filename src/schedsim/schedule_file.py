"""A schedule as a file: the SWF that ``schedsim simulate`` writes, and what it records
beyond SWF's fields.

SWF gives per job its submit time (field 2), wait (3), run time (4: last end minus
first start) and processors allocated (5). What a run records beyond that is written as
header comment lines, so that the file stays a valid SWF file for every other reader:

* ``; Partitions: 32 64`` -- the partition sizes, on a machine of more than one;
* ``; Run: <job> partition=<p> segments=<start>:<end>,... processors=<ranges>|...`` --
  one line per job that ran in a partition other than a single machine's, was suspended
  (more than one run segment), or ran on named processors (``Schedule.processors`` and
  ``Schedule.split``). ``p`` counts from 1 as SWF's field 16 does; processors are global
  numbers from 0, as ranges (``0-31,64``), one list per segment, ``-`` where not named.

:func:`allocation_notes` writes these lines, :func:`read_schedule` reads a schedule file
back into columns (:class:`ScheduleData`) for drawing it (``schedsim.gantt``);
:func:`schedule_swf` writes the whole file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from schedsim.errors import InputError

if TYPE_CHECKING:
    from schedsim.jobs import Job
    from schedsim.machine import Machine
    from schedsim.schedule import Schedule
    from schedsim.workloads.swf import SwfColumns

PARTITIONS_KEY = "Partitions"
RUN_KEY = "Run"
NOT_NAMED = "-"

Processors = tuple[int, ...]
RunSegment = tuple[float, float, Processors]


def _number(value: float) -> str:
    """A time as SWF writes numbers: integers without a point, others with up to 6 decimals."""
    from schedsim.workloads.swf import format_number

    return format_number(value)


def processor_ranges(processors: Iterable[int]) -> str:
    """``(0, 1, 2, 5)`` -> ``"0-2,5"`` (sorted; ``-`` for none)."""
    ordered = sorted(set(processors))
    if not ordered:
        return NOT_NAMED
    parts, first, last = [], ordered[0], ordered[0]
    for number in ordered[1:]:
        if number == last + 1:
            last = number
            continue
        parts.append(f"{first}-{last}" if last > first else f"{first}")
        first = last = number
    parts.append(f"{first}-{last}" if last > first else f"{first}")
    return ",".join(parts)


def parse_ranges(text: str, where: str) -> Processors:
    """``"0-2,5"`` -> ``(0, 1, 2, 5)``; ``-`` -> ``()``."""
    if text == NOT_NAMED:
        return ()
    out: list[int] = []
    try:
        for part in text.split(","):
            first, _, last = part.partition("-")
            low, high = int(first), int(last or first)
            if low < 0 or high < low:
                raise ValueError(part)
            out.extend(range(low, high + 1))
    except ValueError:
        raise InputError(f"{where}: processors {text!r} are not ranges such as 0-31,40") from None
    return tuple(out)


def allocation_notes(schedule: Schedule) -> list[str]:
    """The header lines (without ';') that record partitions, run segments and named
    processors of ``schedule`` (none for a plain run on one partition)."""
    partitions = schedule.machine.partitions
    several = len(partitions) > 1
    lines = [f" {PARTITIONS_KEY}: {' '.join(str(p) for p in partitions)}"] if several else []
    for index, job in enumerate(schedule.jobs):
        runs = schedule.split.get(index)
        named = schedule.processors.get(index, ())
        if not (several or runs or named) or math.isnan(schedule.start[index]):
            continue
        if runs is None:
            runs = [(schedule.start[index], schedule.end[index], named)]
        segments = ",".join(f"{_number(s)}:{_number(e)}" for s, e, _ in runs)
        lists = "|".join(processor_ranges(p) for _, _, p in runs)
        lines.append(f" {RUN_KEY}: {job.id} partition={schedule.partition[index] + 1} "
                     f"segments={segments} processors={lists}")
    return lines


def schedule_header(policy: str, path: str, machine: Machine) -> list[str]:
    """The header lines (without ';') of a schedule: policy, workload, machine size."""
    from schedsim import __version__

    return [f" Schedule: policy {policy} by schedsim {__version__}", f" Workload: {path}",
            f" MaxProcs: {machine.procs}"]


def schedule_swf(schedule: Schedule, source: str, policy: str) -> str:
    """The schedule as SWF (what ``schedsim simulate --out`` writes) for jobs that come
    without their workload's lines (:func:`job_rows`): field 3 = wait, 4 = run time,
    5 = processors allocated, and the header lines of :func:`schedule_header` and
    :func:`allocation_notes`."""
    from schedsim.workloads.columns import swf_lines

    header = "".join(f";{h}\n" for h in (*schedule_header(policy, source, schedule.machine),
                                          *allocation_notes(schedule)))
    lines = b"".join(swf_lines(job_rows(schedule.jobs), np.array(schedule.start),
                               np.array(schedule.end), np.array(schedule.procs, dtype=np.int64)))
    return header + lines.decode("ascii")


def job_rows(jobs: Sequence[Job]) -> SwfColumns:
    """SWF lines (18 fields) for jobs read from a file without them (CWF): field 8 the
    processors, 9 the estimate, 11 status 1, 12-16 user, group, application, queue,
    partition, the others -1 (unknown)."""
    from schedsim.workloads.swf import SwfColumns

    rows = np.full((len(jobs), 18), -1.0)
    rows[:, 10] = 1
    for i, job in enumerate(jobs):
        rows[i, [0, 1, 7, 8, 11, 12, 13, 14, 15]] = (
            job.id, job.submit, job.procs, job.estimate, job.user, job.group, job.app,
            job.queue, job.partition)
    return SwfColumns.of_rows(rows)


@dataclass
class ScheduleData:
    """A schedule file in columns, one entry per job that ran (workload order).

    ``start`` is the first segment's start, ``end`` the last segment's end; ``runs``
    holds, for the jobs whose file records more (several segments, named processors),
    every segment ``(start, end, processors)``; ``partition`` counts from 0.
    """

    path: str
    ids: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    procs: np.ndarray
    partition: np.ndarray
    machine: int
    partitions: tuple[int, ...]
    runs: dict[int, list[RunSegment]] = field(default_factory=dict)  # by position
    header: list[str] = field(default_factory=list)

    def header_value(self, key: str) -> str | None:
        prefix = f"{key.lower()}:"
        for line in self.header:
            text = line.strip()
            if text.lower().startswith(prefix):
                return text[len(prefix):].strip()
        return None

    def segments(self, position: int) -> list[RunSegment]:
        """Run segments of the job at ``position`` (one, on unnamed processors, unless the
        file records more)."""
        found = self.runs.get(position)
        if found is not None:
            return found
        return [(float(self.start[position]), float(self.end[position]), ())]


def read_schedule(path: str | Path, procs: int | None = None) -> ScheduleData:
    """A schedule file (``schedsim simulate --out``) in columns.

    The machine size is ``procs`` when given, else the file's ``MaxProcs`` header. A job
    line whose wait or run time is unknown (-1) did not run and is left out; a file in
    which no job ran is not a schedule.
    """
    from schedsim.workloads.swf import read_swf_file

    path = Path(path)
    table = read_swf_file(path)
    log = table.header
    ids, submit, wait, run, allocated = (table.columns.column(i) for i in range(5))
    ran = (wait >= 0) & (run >= 0) & (allocated > 0)
    if not ran.any():
        raise InputError(f"{path}: no job line has a wait, a run time and processors "
                         "(fields 3, 4, 5): not a schedule written by `schedsim simulate`")
    machine = procs or log.max_procs()
    if machine is None:
        raise InputError(f"{path}: no MaxProcs header; give the machine size with --procs")
    ids, submit, wait, run, allocated = (column[ran] for column in
                                         (ids, submit, wait, run, allocated))
    partitions = _partitions(log.header_value(PARTITIONS_KEY), machine, path)
    data = ScheduleData(str(path), ids.astype(np.int64), submit, submit + wait,
                        submit + wait + run, allocated.astype(np.int64),
                        np.zeros(len(ids), np.int64), machine, partitions, {},
                        table.header.lines)
    _read_runs(data, table.header.lines, table.header.numbers)
    too_large = data.procs > max(partitions)
    if too_large.any():
        job = int(data.ids[np.flatnonzero(too_large)[0]])
        raise InputError(f"{path}: job {job} ran on more processors than a partition of the "
                         f"machine has ({max(partitions)}); give the machine size with --procs")
    return data


def _partitions(text: str | None, machine: int, path: Path) -> tuple[int, ...]:
    if text is None:
        return (machine,)
    try:
        sizes = tuple(int(part) for part in text.split())
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) <= 0 or sum(sizes) != machine:
        raise InputError(f"{path}: header {PARTITIONS_KEY}: {text!r} must be positive sizes "
                         f"summing to the machine's {machine} processors")
    return sizes


def _read_runs(data: ScheduleData, header: Sequence[str], numbers: Sequence[int]) -> None:
    """Fill ``data.partition`` and ``data.runs`` from the ``Run`` header lines."""
    position = {int(job): i for i, job in enumerate(data.ids)}
    prefix = f"{RUN_KEY.lower()}:"
    for line, number in zip(header, numbers, strict=False):
        text = line.strip()
        if not text.lower().startswith(prefix):
            continue
        where = f"{data.path}:{number}"
        job, fields = _run_fields(text[len(prefix):], where)
        index = position.get(job)
        if index is None:
            raise InputError(f"{where}: header {RUN_KEY}: job {job} has no job line that ran")
        part = int(fields.get("partition", "1")) - 1
        if not 0 <= part < len(data.partitions):
            raise InputError(f"{where}: partition={part + 1} is not one of the "
                             f"{len(data.partitions)} partitions")
        data.partition[index] = part
        data.runs[index] = _segments(fields, where)


def _run_fields(text: str, where: str) -> tuple[int, dict[str, str]]:
    parts = text.split()
    try:
        job = int(parts[0])
        fields = dict(part.split("=", 1) for part in parts[1:])
    except (IndexError, ValueError):
        raise InputError(f"{where}: header {RUN_KEY}: expected '<job> partition=<p> "
                         "segments=<start>:<end>,... processors=<ranges>|...'") from None
    return job, fields


def _segments(fields: dict[str, str], where: str) -> list[RunSegment]:
    spans = fields.get("segments", "").split(",")
    lists = fields.get("processors", NOT_NAMED).split("|")
    if len(lists) == 1 and len(spans) > 1:
        lists = lists * len(spans)
    if len(lists) != len(spans):
        raise InputError(f"{where}: {len(spans)} segments but {len(lists)} processor lists")
    out = []
    for span, ranges in zip(spans, lists, strict=True):
        try:
            start, end = (float(v) for v in span.split(":"))
        except ValueError:
            raise InputError(f"{where}: segment {span!r} is not <start>:<end>") from None
        if not (math.isfinite(start) and math.isfinite(end) and end >= start):
            raise InputError(f"{where}: segment {span!r} must have finite start <= end")
        out.append((start, end, parse_ranges(ranges, where)))
    return out
