"""The Standard Workload Format (SWF v2.2, Parallel Workloads Archive).

Reading keeps all 18 fields and the header comments; :func:`to_jobs` turns the
records into simulator jobs with the cleaning rules of docs/deviations.md, invalid SWF jobs, every
rule counted in a :class:`CleaningReport`. Gzipped files are read directly.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from schedsim.atomic import write_text_atomic
from schedsim.errors import InputError
from schedsim.jobs import Job
from schedsim.machine import MAX_PROCS

FIELD_NAMES = (
    "job number", "submit time", "wait time", "run time", "allocated processors",
    "average CPU time", "used memory", "requested processors", "requested time",
    "requested memory", "status", "user id", "group id", "executable number",
    "queue number", "partition number", "preceding job", "think time",
)
N_FIELDS = len(FIELD_NAMES)
_INT_FIELDS = frozenset({0, 4, 7, 10, 11, 12, 13, 14, 15, 16})
_INT_INDEXES = tuple(sorted(_INT_FIELDS))
# The largest number a field may hold: 2^53, below which every integer is exact in a
# float (a time of 2^53 s is 285 million years); larger values are refused.
MAX_VALUE = float(2**53)


class SwfRecord(NamedTuple):
    """One SWF job line; -1 means unknown (SWF convention)."""

    job: int
    submit: float
    wait: float
    run: float
    alloc_procs: int
    avg_cpu: float
    used_mem: float
    req_procs: int
    req_time: float
    req_mem: float
    status: int
    user: int
    group: int
    app: int
    queue: int
    partition: int
    preceding: int
    think: float


@dataclass
class SwfLog:
    """A parsed SWF file: header comment lines (without ';') and records."""

    header: list[str]
    records: list[SwfRecord]
    path: str = ""
    line_numbers: list[int] = field(default_factory=list)
    header_line_numbers: list[int] = field(default_factory=list)

    def header_value(self, key: str) -> str | None:
        """Value of a header line ``; Key: value`` (first match, case-insensitive)."""
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*:\s*(.*?)\s*$", re.IGNORECASE)
        for line in self.header:
            match = pattern.match(line)
            if match:
                return match.group(1)
        return None

    def max_procs(self) -> int | None:
        """``MaxProcs`` from the header, else ``MaxNodes``, else None.

        A value that is not a positive integer is an error naming its header line.
        """
        for key in ("MaxProcs", "MaxNodes"):
            value = self.header_value(key)
            if value is None:
                continue
            first = value.split()[0] if value.split() else ""
            if not first.isdigit() or not 0 < int(first) <= MAX_PROCS:
                raise InputError(f"{self.where(key)}: header {key}: {value!r} is not a positive "
                                 f"integer of at most {MAX_PROCS}; give the machine size with "
                                 "--procs")
            return int(first)
        return None

    def where(self, key: str) -> str:
        """``path:line`` of the header line ``key`` (``path`` when unknown)."""
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*:", re.IGNORECASE)
        for line, number in zip(self.header, self.header_line_numbers, strict=False):
            if pattern.match(line):
                return f"{self.path}:{number}"
        return self.path


def open_text(path: str | Path) -> Iterator[str]:
    """Lines of a text file, gunzipped when its name ends in .gz."""
    path = Path(path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as handle:
                yield from handle
        else:
            with open(path, encoding="utf-8", errors="replace") as handle:
                yield from handle
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    except (EOFError, zlib.error):
        raise InputError(f"{path}: truncated or corrupt gzip file") from None


def parse_number(text: str, where: str, position: int, name: str) -> float:
    """One numeric field; a value below -1 is an error (-1 alone means unknown)."""
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: field {position} ({name}): {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(f"{where}: field {position} ({name}): {text!r} is not a finite number")
    if value < -1:
        raise InputError(f"{where}: field {position} ({name}): {text} is negative "
                         "(only -1, meaning unknown, is allowed)")
    if value > MAX_VALUE:
        raise InputError(f"{where}: field {position} ({name}): {text} exceeds the maximum "
                         f"{MAX_VALUE:.0f}")
    return value


def parse_record(parts: list[str], where: str) -> SwfRecord:
    """The first 18 fields of a split line as a record.

    The common case (every field a finite number >= -1, integer fields integral)
    is converted in one pass; any other line goes through the field-by-field
    checks, which name the offending field.
    """
    try:
        values: list[float | int] = list(map(float, parts[:N_FIELDS]))
    except ValueError:
        return _parse_record_checked(parts, where)
    total = sum(values)
    if total != total or total in _INFINITIES or min(values) < -1 or max(values) > MAX_VALUE:
        return _parse_record_checked(parts, where)
    for i in _INT_INDEXES:
        value = values[i]
        if not value.is_integer():  # type: ignore[union-attr]
            return _parse_record_checked(parts, where)
        values[i] = int(value)
    return SwfRecord(*values)


_INFINITIES = (float("inf"), float("-inf"))


def _parse_record_checked(parts: list[str], where: str) -> SwfRecord:
    """:func:`parse_record`, one field at a time, raising InputError at the first bad one."""
    values: list[float | int] = []
    for i in range(N_FIELDS):
        value = parse_number(parts[i], where, i + 1, FIELD_NAMES[i])
        if i in _INT_FIELDS:
            if not value.is_integer():
                raise InputError(f"{where}: field {i + 1} ({FIELD_NAMES[i]}): {parts[i]!r} "
                                 "is not an integer")
            values.append(int(value))
        else:
            values.append(value)
    return SwfRecord(*values)


def read_swf(path: str | Path, extra_fields: int = 0) -> SwfLog:
    """Parse an SWF file (optionally gzipped).

    ``extra_fields`` allows that many fields after the 18 (CWF has 3); they are
    checked for count only and ignored here. Raises InputError naming the file,
    the line and the field for malformed lines.
    """
    table = read_swf_table(path, extra_fields)
    columns = table.values.T
    converted = [columns[i].astype(np.int64).tolist() if i in _INT_FIELDS
                 else columns[i].tolist() for i in range(N_FIELDS)]
    records = list(map(SwfRecord, *converted))
    return SwfLog(table.header, records, table.path, table.line_numbers.tolist(),
                  table.header_line_numbers)


@dataclass
class SwfTable:
    """A parsed SWF file in columns: header lines (without ';') and one row of the 18
    fields per job line (float64; -1 means unknown), with the lines' numbers."""

    header: list[str]
    values: np.ndarray
    path: str
    line_numbers: np.ndarray
    header_line_numbers: list[int]

    def log(self) -> SwfLog:
        """The header as an ``SwfLog`` without records (for its header lookups)."""
        return SwfLog(self.header, [], self.path, [], self.header_line_numbers)


def read_swf_table(path: str | Path, extra_fields: int = 0) -> SwfTable:
    """``read_swf`` in columns: the compiled scan (``swf_scan``), or where it does not
    decide, the line-by-line reader (the same values, or its error)."""
    from schedsim.workloads.swf_scan import read_bytes, scan_columns

    raw = read_bytes(path)
    fields = (N_FIELDS, N_FIELDS + extra_fields) if extra_fields else (N_FIELDS,)
    scanned = scan_columns(raw, fields, _INT_INDEXES, MAX_VALUE)
    del raw
    if scanned is not None:
        header, header_numbers, values, numbers = scanned
        if values.shape[1] > N_FIELDS:
            values = np.ascontiguousarray(values[:, :N_FIELDS])
        return SwfTable(header, values, str(path), numbers, header_numbers)
    log = _read_swf_lines(path, extra_fields)
    values = np.array(log.records, dtype=np.float64).reshape(len(log.records), N_FIELDS)
    return SwfTable(log.header, values, log.path, np.array(log.line_numbers, np.int64),
                    log.header_line_numbers)


def _read_swf_lines(path: str | Path, extra_fields: int = 0) -> SwfLog:
    """``read_swf`` one line and one field at a time (the reference, and the errors)."""
    header: list[str] = []
    records: list[SwfRecord] = []
    numbers: list[int] = []
    header_numbers: list[int] = []
    for number, line in enumerate(open_text(path), start=1):
        text = line.strip()
        if not text:
            continue
        if text.startswith(";"):
            header.append(text[1:].rstrip())
            header_numbers.append(number)
            continue
        parts = text.split()
        if len(parts) not in (N_FIELDS, N_FIELDS + extra_fields):
            expected = f"{N_FIELDS}" + (f" or {N_FIELDS + extra_fields}" if extra_fields else "")
            raise InputError(f"{path}:{number}: expected {expected} fields, found {len(parts)}")
        records.append(parse_record(parts, f"{path}:{number}"))
        numbers.append(number)
    return SwfLog(header, records, str(path), numbers, header_numbers)


def read_swf_header(path: str | Path) -> SwfLog:
    """The header lines before the first job line of an SWF file, without its records."""
    header: list[str] = []
    numbers: list[int] = []
    for number, line in enumerate(open_text(path), start=1):
        text = line.strip()
        if not text:
            continue
        if not text.startswith(";"):
            break
        header.append(text[1:].rstrip())
        numbers.append(number)
    return SwfLog(header, [], str(path), [], numbers)


@dataclass
class CleaningReport:
    """How many records each cleaning rule touched (docs/deviations.md, invalid SWF jobs)."""

    records: int = 0
    kept: int = 0
    dropped_runtime: int = 0
    dropped_procs_nonpositive: int = 0
    dropped_procs_too_large: int = 0
    estimate_raised: int = 0
    estimate_exact: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def dropped(self) -> int:
        return self.dropped_runtime + self.dropped_procs_nonpositive + \
            self.dropped_procs_too_large

    def as_dict(self) -> dict[str, int]:
        """The counts by rule (for the ``--metrics`` file)."""
        return {"records": self.records, "kept": self.kept,
                "dropped_runtime_nonpositive": self.dropped_runtime,
                "dropped_procs_nonpositive": self.dropped_procs_nonpositive,
                "dropped_procs_above_machine": self.dropped_procs_too_large,
                "estimate_raised_to_runtime": self.estimate_raised,
                "estimate_replaced_by_runtime": self.estimate_exact}

    def summary(self) -> str:
        """One line: what cleaning dropped or changed, by rule."""
        return (f"{self.kept} of {self.records} jobs kept; dropped: {self.dropped_runtime} "
                f"with run time <= 0, {self.dropped_procs_nonpositive} with processors <= 0, "
                f"{self.dropped_procs_too_large} with more processors than the machine; "
                f"{self.estimate_raised} estimates raised to the run time")

    def lines(self) -> list[str]:
        return [
            f"records read: {self.records}",
            f"jobs kept: {self.kept}",
            f"dropped, run time <= 0: {self.dropped_runtime}",
            f"dropped, processors <= 0: {self.dropped_procs_nonpositive}",
            f"dropped, processors > machine: {self.dropped_procs_too_large}",
            f"estimate missing or below run time, raised to run time: {self.estimate_raised}",
            f"estimate replaced by run time (exact estimates): {self.estimate_exact}",
        ]


def to_jobs(
    log: SwfLog, machine_procs: int, estimates: str = "requested"
) -> tuple[list[Job], CleaningReport]:
    """Jobs from SWF records, cleaned (docs/deviations.md, invalid SWF jobs).

    * processors = field 8 (requested) when > 0, else field 5 (allocated);
    * drop jobs with run time <= 0, processors <= 0 or processors > machine;
    * ``estimates="requested"``: estimate = field 9, raised to the run time when
      missing or below it (counted); ``"exact"``: estimate = run time.
    """
    if estimates not in ("requested", "exact"):
        raise InputError(f"estimates={estimates!r}; allowed: requested, exact")
    report = CleaningReport(records=len(log.records))
    jobs: list[Job] = []
    for rec in log.records:
        procs = rec.req_procs if rec.req_procs > 0 else rec.alloc_procs
        if rec.run <= 0:
            report.dropped_runtime += 1
            continue
        if procs <= 0:
            report.dropped_procs_nonpositive += 1
            continue
        if procs > machine_procs:
            report.dropped_procs_too_large += 1
            continue
        estimate = rec.req_time
        if estimates == "exact":
            estimate = rec.run
            report.estimate_exact += 1
        elif estimate < rec.run:
            estimate = rec.run
            report.estimate_raised += 1
        jobs.append(Job(id=rec.job, submit=rec.submit, runtime=rec.run, procs=procs,
                        estimate=estimate, user=rec.user, group=rec.group, app=rec.app,
                        queue=rec.queue, partition=rec.partition))
    report.kept = len(jobs)
    return jobs, report


def format_number(value: float) -> str:
    """SWF number text: integers without a decimal point, others with up to 6 decimals."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def format_record(record: Iterable[float]) -> str:
    return " ".join(format_number(v) for v in record)


def swf_text(header: Iterable[str], records: Iterable[Iterable[float]]) -> str:
    """SWF file text from header lines (without ';') and records."""
    lines = [f"; {h}".rstrip() if h and not h.startswith(" ") else f";{h}" for h in header]
    lines.extend(format_record(r) for r in records)
    return "\n".join(lines) + "\n"


def write_swf(path: str | Path, log: SwfLog) -> None:
    """Write ``log`` as SWF (atomically)."""
    write_text_atomic(path, swf_text(log.header, log.records))
