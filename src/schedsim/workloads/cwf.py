"""The Cloud Workload Format (CWF): SWF plus dedicated start times and elastic commands.

LOS paper (Kumar, Shae, Jamjoom, IPDPSW 2012), sec. IV-C and Fig. 4. A CWF file is
an SWF file (comment lines start with ``;``) whose lines have three more fields:

==  =====================  ==========================================================
19  Requested Start Time   dedicated job: the time it asked to start; -1 for a batch job
20  Request Type           ``S`` submission; ``ET``/``RT`` extend/reduce time;
                           ``EP``/``RP`` extend/reduce processors
21  Amount                 ``S``: -1; ``ET``/``RT``: seconds; ``EP``/``RP``: processors
==  =====================  ==========================================================

Exact meaning used here (LOS paper, sec. III-C and Fig. 4):

* ``S`` line: a job. Fields 1-18 as SWF: 1 job number, 2 submit time, 4 run time,
  5/8 processors (8 preferred, 5 when 8 is -1), 9 requested time (the estimate;
  the run time when -1), 12-16 user, group, application, queue, partition.
  Field 19 >= 0 makes it a dedicated job that asked to start then (it must not
  be before the submit time); -1 makes it a batch job.
* ``ET`` line: at time field 2, job field 1 (an earlier ``S`` line) asks for
  ``amount`` more seconds: its requested time *and* its run time grow by
  ``amount`` (an elastic control command changes the kill-by time and thus the
  actual execution time, sec. III-C). Read as ``RuntimeChange(delta=+amount)``.
* ``RT`` line: the same with ``delta = -amount`` (the engine keeps run times
  positive; generators never write a reduction that reaches 0).
* ``EP`` / ``RP`` lines: change the job's processor count by ``amount``. They are
  part of the format and the writer accepts them, but the simulator's rigid jobs
  cannot change size, so :func:`read_cwf` rejects them with an InputError.
* Command lines use only fields 1, 2, 20 and 21; fields 3-19 are written as -1.
* Lines are sorted by field 2 (stable: at equal times, submissions first, each
  group in generation order).

A plain SWF line (18 fields) is read as an ``S`` line of a batch job. Gzip data (a
name ending in ``.gz`` or not) is decompressed on the fly (``inputs.read_input``).
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from pathlib import Path

import numpy as np

from schedsim.errors import InputError
from schedsim.inputs import check_text, read_input
from schedsim.jobs import BATCH, DEDICATED, Job, RuntimeChange
from schedsim.numbers import to_float
from schedsim.workloads.base import text_pieces
from schedsim.workloads.swf import MAX_VALUE, Header

SUBMIT = "S"
EXTEND_TIME = "ET"
EXTEND_PROCS = "EP"
REDUCE_TIME = "RT"
REDUCE_PROCS = "RP"
REQUEST_TYPES = (SUBMIT, EXTEND_TIME, EXTEND_PROCS, REDUCE_TIME, REDUCE_PROCS)

SWF_FIELDS = 18
CWF_FIELDS = 21
FIELD_NAMES = (
    "job number", "submit time", "wait time", "run time", "allocated processors",
    "average CPU time", "used memory", "requested processors", "requested time",
    "requested memory", "status", "user", "group", "executable", "queue", "partition",
    "preceding job", "think time", "requested start time", "request type", "amount",
)

# --------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------


def format_number(value: float) -> str:
    """Integers without a decimal point, other values as the shortest exact repr."""
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def submission_fields(job: Job) -> list[str]:
    """The 21 fields of a job's ``S`` line."""
    start = -1.0 if job.requested_start is None else job.requested_start
    values: list[float] = [
        job.id, job.submit, -1, job.runtime, job.procs, -1, -1, job.procs, job.estimate,
        -1, 1, job.user, job.group, job.app, job.queue, job.partition, -1, -1, start,
    ]
    return [format_number(v) for v in values] + [SUBMIT, "-1"]


def command_fields(job_id: int, time: float, request: str, amount: float) -> list[str]:
    """The 21 fields of an elastic control command line (fields 3-19 are -1)."""
    if request not in REQUEST_TYPES or request == SUBMIT:
        raise ValueError(f"not a command request type: {request!r}")
    return [format_number(job_id), format_number(time), *["-1"] * 17,
            request, format_number(amount)]


def change_fields(change: RuntimeChange) -> list[str]:
    """A :class:`RuntimeChange` as an ``ET`` (delta > 0) or ``RT`` (delta < 0) line."""
    if change.delta == 0:
        raise ValueError(f"job {change.job_id}: a runtime change of 0 has no CWF line")
    request = EXTEND_TIME if change.delta > 0 else REDUCE_TIME
    return command_fields(change.job_id, change.time, request, abs(change.delta))


def format_cwf(
    jobs: Sequence[Job], changes: Sequence[RuntimeChange], header: Sequence[str] = ()
) -> str:
    """The whole CWF text: header comment lines, then all lines sorted by time (stable)."""
    return "".join(cwf_pieces(jobs, changes, header))


def cwf_pieces(jobs: Sequence[Job], changes: Sequence[RuntimeChange],
               header: Sequence[str] = ()) -> Iterator[str]:
    """:func:`format_cwf` in pieces, each line made when its piece is asked for
    (``base.text_pieces``): submissions and commands sorted by time, stably (at equal
    times submissions first, each group in the given order)."""
    times = [job.submit for job in jobs] + [change.time for change in changes]
    order = sorted(range(len(times)), key=times.__getitem__)
    count = len(jobs)

    def line(i: int) -> str:
        fields = submission_fields(jobs[i]) if i < count else change_fields(changes[i - count])
        return " ".join(fields)

    return text_pieces([_comment(h) for h in header], map(line, order))


def write_cwf(
    path: str | Path, jobs: Sequence[Job], changes: Sequence[RuntimeChange],
    header: Sequence[str] = (),
) -> None:
    """Write :func:`format_cwf` to ``path`` (gzip-compressed when it ends in ``.gz``)."""
    text = format_cwf(jobs, changes, header)
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt", encoding="ascii") as out:
            out.write(text)
    else:
        Path(path).write_text(text, encoding="ascii")


def _comment(line: str) -> str:
    return line if line.startswith(";") else "; " + line


# --------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------


@dataclass
class _LineReader:
    """Field access for one line, with errors that name the file, line and field."""

    source: str
    number: int
    fields: list[str]

    def fail(self, field: int, message: str) -> InputError:
        name = FIELD_NAMES[field - 1]
        return InputError(f"{self.source}:{self.number}: field {field} ({name}): {message}")

    def number_at(self, field: int) -> float:
        text = self.fields[field - 1]
        try:
            value = to_float(text)
        except ValueError:
            raise self.fail(field, f"{text!r} is not a number") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise self.fail(field, f"{text!r} is not a finite number")
        if value > MAX_VALUE:
            raise self.fail(field, f"{text} exceeds the maximum {MAX_VALUE:.0f}")
        if field <= SWF_FIELDS and value < -1:
            raise self.fail(field, f"{text} is negative (only -1, meaning unknown, is allowed)")
        return value

    def integer_at(self, field: int) -> int:
        value = self.number_at(field)
        if not value.is_integer():
            raise self.fail(field, f"{self.fields[field - 1]!r} is not an integer")
        return int(value)

    def request(self) -> str:
        if len(self.fields) == SWF_FIELDS:
            return SUBMIT
        text = self.fields[19].upper()
        if text not in REQUEST_TYPES:
            raise self.fail(20, f"{self.fields[19]!r} is not one of {', '.join(REQUEST_TYPES)}")
        return text


def read_cwf(path: str | Path) -> tuple[list[Job], list[RuntimeChange], Header]:
    """Read a CWF (or SWF) file (:func:`parse_cwf` of its checked bytes)."""
    return parse_cwf(read_input(path), str(path))


def parse_cwf(raw: bytes, source: str) -> tuple[list[Job], list[RuntimeChange], Header]:
    """The CWF text ``raw`` of the file ``source``: jobs in file order, runtime changes,
    header (comment lines).

    Dedicated jobs get ``kind=DEDICATED`` and ``requested_start``; others are batch.
    Malformed lines raise ``InputError("FILE:LINE: field N (name): message")``.
    """
    check_text(raw, source, CWF_TEXT)
    lines = list(_numbered_lines(raw, source))
    plain = iter(_plain_jobs([line.fields for line in lines if _submits(line.fields)]))
    jobs: list[Job] = []
    changes: list[RuntimeChange] = []
    header = Header([], [], source)
    by_id: dict[int, Job] = {}
    for line in lines:
        if line.fields[0].startswith(";"):
            header.lines.append(line.fields[0][1:].rstrip())
            header.numbers.append(line.number)
            continue
        if len(line.fields) not in (SWF_FIELDS, CWF_FIELDS):
            raise InputError(f"{line.source}:{line.number}: expected {CWF_FIELDS} fields (CWF) "
                             f"or {SWF_FIELDS} (SWF), found {len(line.fields)}")
        if line.request() == SUBMIT:
            job = next(plain) or _parse_job(line)
            if job.id in by_id:
                raise line.fail(1, f"job {job.id} is submitted twice")
            by_id[job.id] = job
            jobs.append(job)
        else:
            changes.append(_parse_command(line, by_id))
    return jobs, changes, header


CWF_TEXT = "CWF (ASCII)"


def _submits(fields: list[str]) -> bool:
    """Whether a line is a job's ``S`` line (or an SWF line) with its count of fields."""
    return len(fields) == SWF_FIELDS or (len(fields) == CWF_FIELDS
                                         and fields[19].upper() == SUBMIT)


def _numbered_lines(raw: bytes, source: str) -> Iterator[_LineReader]:
    """The file's lines that are not blank, numbered from 1 (comments whole, others as
    fields), split as a text stream splits them (at ``\\n``, ``\\r\\n`` and ``\\r``). A byte
    outside ASCII is an error before any line is read."""
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError(f"{source}:{line}: a byte outside ASCII; CWF and SWF files are "
                         "ASCII text") from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if stripped.startswith(";"):
            yield _LineReader(source, number, [stripped])
        elif stripped:
            yield _LineReader(source, number, stripped.split())


def _parse_job(line: _LineReader) -> Job:
    job_id = line.integer_at(1)
    if job_id < 1:
        raise line.fail(1, f"{job_id} must be a positive integer")
    submit = _non_negative(line, 2)
    runtime = _non_negative(line, 4)
    procs = line.integer_at(8)
    if procs <= 0:
        procs = line.integer_at(5)
    if procs <= 0:
        raise line.fail(8, "no processor count (fields 8 and 5 are both <= 0)")
    estimate = line.number_at(9)
    if estimate <= 0:
        estimate = runtime
    optional = [line.integer_at(f) for f in (12, 13, 14, 15, 16)]
    kind, requested_start = _dedicated_start(line, submit)
    return Job(id=job_id, submit=submit, runtime=runtime, procs=procs, estimate=estimate,
               kind=kind, requested_start=requested_start, user=optional[0],
               group=optional[1], app=optional[2], queue=optional[3], partition=optional[4])


_PLAIN_FIELDS = (0, 1, 3, 4, 7, 8, 11, 12, 13, 14, 15)  # fields 1, 2, 4, 5, 8, 9, 12-16
_CWF_PICK = itemgetter(*_PLAIN_FIELDS, 18)  # and 19, the requested start
_SWF_PICK = itemgetter(*_PLAIN_FIELDS)
_BATCH_START = ("-1",)
_INTEGERS = [0, 3, 4, 6, 7, 8, 9, 10]  # job number, fields 5 and 8, fields 12-16


def _plain_jobs(rows: list[list[str]]) -> list[Job | None]:
    """:func:`_parse_job` of the job lines ``rows`` (their fields) whose fields it reads
    are plain numbers in range and agree (a positive id, integers where it wants them,
    a dedicated start not before the submission): the same jobs, the checks made on
    arrays of every line at once. None for any other line, which :func:`_parse_job`
    reads and names the fault of. The fields are ASCII without blanks, where ``float``
    reads what ``to_float`` reads but for ``_`` in digits."""
    picked = [_CWF_PICK(fields) if len(fields) == CWF_FIELDS
              else _SWF_PICK(fields) + _BATCH_START for fields in rows]
    width = len(_PLAIN_FIELDS) + 1
    try:
        values = np.fromiter(map(float, chain.from_iterable(picked)), np.float64,
                             count=width * len(picked)).reshape(len(picked), width)
    except ValueError:  # a field that is not a number: only its line is refused
        values = np.array([_numbers(texts) for texts in picked],
                          np.float64).reshape(len(picked), width)
    if "_" in "".join(chain.from_iterable(picked)):
        for row, texts in enumerate(picked):
            if "_" in "".join(texts):
                values[row] = np.nan
    read = values[:, :-1]
    job_id, submit, runtime, requested, procs, estimate = read[:, :6].T
    start = values[:, -1]
    integers = read[:, _INTEGERS]
    ok = (read.min(axis=1) >= -1) & (read.max(axis=1) <= MAX_VALUE)  # no NaN either
    ok &= (np.floor(integers) == integers).all(axis=1)
    ok &= (job_id >= 1) & (submit >= 0) & (runtime >= 0)
    procs = np.where(procs > 0, procs, requested)
    ok &= procs > 0
    dedicated = start != -1
    ok &= ~dedicated | ((submit <= start) & (start <= MAX_VALUE))
    estimate = np.where(estimate > 0, estimate, runtime)
    ints = np.where(ok[:, None], integers, 0).astype(np.int64)
    ints[:, 2] = np.where(ok, procs, 0)
    jobs: list[Job | None] = []
    for good, (job, _, count, user, group, app, queue, partition), submitted, ran, \
            wanted, special, begin in zip(
                ok.tolist(), ints.tolist(), submit.tolist(), runtime.tolist(),
                estimate.tolist(), dedicated.tolist(), start.tolist(), strict=True):
        jobs.append(Job(id=job, submit=submitted, runtime=ran, procs=count,
                        estimate=wanted, kind=DEDICATED if special else BATCH,
                        requested_start=begin if special else None, user=user,
                        group=group, app=app, queue=queue, partition=partition)
                    if good else None)
    return jobs


def _numbers(texts: tuple[str, ...]) -> list[float]:
    """The fields as numbers, all NaN when one is not a number."""
    try:
        return list(map(float, texts))
    except ValueError:
        return [math.nan] * len(texts)


def _dedicated_start(line: _LineReader, submit: float) -> tuple[str, float | None]:
    if len(line.fields) == SWF_FIELDS:
        return BATCH, None
    start = line.number_at(19)
    if start == -1:
        return BATCH, None
    if start < submit:
        raise line.fail(19, f"{format_number(start)} is before the submit time "
                            f"{format_number(submit)}; allowed: -1 or >= submit time")
    return DEDICATED, start


def _non_negative(line: _LineReader, field: int) -> float:
    value = line.number_at(field)
    if value < 0:
        raise line.fail(field, f"{format_number(value)} is negative; allowed: >= 0")
    return value


def _parse_command(line: _LineReader, by_id: dict[int, Job]) -> RuntimeChange:
    request = line.request()
    if request in (EXTEND_PROCS, REDUCE_PROCS):
        raise line.fail(20, f"{request} (processor change) is not supported: jobs are rigid; "
                            f"allowed: S, ET, RT")
    job_id = line.integer_at(1)
    job = by_id.get(job_id)
    if job is None:
        raise line.fail(1, f"{request} command for job {job_id}, which has no earlier S line")
    time = _non_negative(line, 2)
    if time < job.submit:
        raise line.fail(2, f"{request} command at {format_number(time)} is before job "
                           f"{job_id}'s submit time {format_number(job.submit)}")
    amount = line.number_at(21)
    if amount <= 0:
        raise line.fail(21, f"{format_number(amount)} must be > 0 seconds for {request}")
    delta = amount if request == EXTEND_TIME else -amount
    return RuntimeChange(time=time, job_id=job_id, delta=delta)


def iter_lines(text: str) -> Iterable[list[str]]:
    """The non-comment lines of a CWF text as field lists (for tests and tools)."""
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped and not stripped.startswith(";"):
            yield stripped.split()
