"""The Standard Workload Format (SWF v2.2, Parallel Workloads Archive).

Reading keeps all 18 fields and the header comments, in columns (:func:`read_swf_table`:
a compiled scan, and the line-by-line reader that gives the same values and every error
message) or as records (:func:`read_swf`). ``workloads.columns`` turns the columns into
simulator jobs with the cleaning rules of docs/deviations.md (invalid SWF jobs), every rule
counted in a :class:`CleaningReport`; ``workloads.load`` is the one way in for a file.
Gzipped files are read directly.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from schedsim.atomic import write_text_atomic
from schedsim.errors import InputError
from schedsim.inputs import check_text, opened_input, read_input
from schedsim.machine import MAX_PROCS
from schedsim.numbers import to_float
from schedsim.workloads.base import text_pieces

if TYPE_CHECKING:
    from schedsim.workloads.swf_scan import Scanned

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


class Header:
    """The comment lines of a workload file (without their ';') with their line numbers,
    and the look-ups of its ``; Key: value`` lines (SWF and CWF alike)."""

    def __init__(self, lines: list[str], numbers: list[int], path: str) -> None:
        self.lines = lines
        self.numbers = numbers
        self.path = path

    def header_value(self, key: str) -> str | None:
        """Value of a header line ``; Key: value`` (first match, case-insensitive)."""
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*:\s*(.*?)\s*$", re.IGNORECASE)
        for line in self.lines:
            match = pattern.match(line)
            if match:
                return match.group(1)
        return None

    def positive_int(self, *keys: str) -> int | None:
        """The first of ``keys`` the header has, as an integer in 1..2^31 - 1, else None;
        a value that is not one is an error naming its header line."""
        for key in keys:
            value = self.header_value(key)
            if value is None:
                continue
            first = value.split()[0] if value.split() else ""
            if not (first.isascii() and first.isdigit()) or not 0 < int(first) <= MAX_PROCS:
                raise InputError(f"{self.where(key)}: header {key}: {value!r} is not a "
                                 f"positive integer of at most {MAX_PROCS}")
            return int(first)
        return None

    def max_procs(self) -> int | None:
        """``MaxProcs`` from the header, else ``MaxNodes``, else None."""
        return self.positive_int("MaxProcs", "MaxNodes")

    def allocation_unit(self) -> int | None:
        """``AllocationUnit`` (a schedsim header of ``lublin-los`` files), else None."""
        return self.positive_int("AllocationUnit")

    def where(self, key: str) -> str:
        """``path:line`` of the header line ``key`` (``path`` when unknown)."""
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*:", re.IGNORECASE)
        for line, number in zip(self.lines, self.numbers, strict=False):
            if pattern.match(line):
                return f"{self.path}:{number}"
        return self.path


@dataclass
class SwfLog:
    """A parsed SWF file: header comment lines (without ';') and records."""

    header: list[str]
    records: list[SwfRecord]
    path: str = ""
    line_numbers: list[int] = field(default_factory=list)
    header_line_numbers: list[int] = field(default_factory=list)

    def head(self) -> Header:
        """The header lines with their look-ups."""
        return Header(self.header, self.header_line_numbers, self.path)

    def header_value(self, key: str) -> str | None:
        """Value of a header line ``; Key: value`` (first match, case-insensitive)."""
        return self.head().header_value(key)

    def max_procs(self) -> int | None:
        """``MaxProcs`` from the header, else ``MaxNodes``, else None (:class:`Header`)."""
        return self.head().max_procs()


def parse_number(text: str, where: str, position: int, name: str) -> float:
    """One numeric field; a value below -1 is an error (-1 alone means unknown)."""
    try:
        value = to_float(text)
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

    The common case (ASCII without ``_``, every field a finite number >= -1, integer
    fields integral) is converted in one pass; any other line goes through the
    field-by-field checks, which name the offending field (``float`` alone would read
    ``1_000`` and digits of other scripts: :mod:`schedsim.numbers`).
    """
    if not all(part.isascii() and "_" not in part for part in parts):
        return _parse_record_checked(parts, where)
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
    """An SWF file (optionally gzipped) as records (:func:`read_swf_table`).

    ``extra_fields`` allows that many fields after the 18 (CWF has 3); they are
    checked for count only and ignored here. Raises InputError naming the file,
    the line and the field for malformed lines.
    """
    return table_records(read_swf_file(path, extra_fields))


def table_records(table: SwfTable) -> SwfLog:
    """A table as records (integer fields as Python ints, the others as floats)."""
    columns = table.columns
    converted = [np.asarray(columns.fields[i], np.int64).tolist() if i in _INT_FIELDS
                 else columns.column(i).tolist() for i in range(N_FIELDS)]
    records = list(map(SwfRecord, *converted))
    return SwfLog(table.header.lines, records, table.path, table.line_numbers.tolist(),
                  table.header.numbers)


class SwfColumns:
    """The 18 fields of job lines in columns (file order), each in the narrowest type
    that holds its values exactly (``swf_scan.NarrowColumns``): a value repeated on every
    line (a read-only broadcast, no memory per line), int8, int16, int32 or float64.
    A million ``lublin99`` lines take 15 bytes each here, against 144 as float64 rows."""

    def __init__(self, fields: Sequence[np.ndarray]) -> None:
        self.fields = tuple(fields)

    @classmethod
    def of_rows(cls, values: np.ndarray) -> SwfColumns:
        """The columns of rows of the 18 fields (an n x 18 array)."""
        from schedsim.workloads.swf_scan import NarrowColumns

        rows = np.asarray(values, np.float64).reshape(-1, N_FIELDS)
        columns = NarrowColumns(N_FIELDS, rows.shape[0])
        columns.add(np.ascontiguousarray(rows.T), rows.shape[0])
        return cls(columns.columns())

    def __len__(self) -> int:
        return int(self.fields[0].shape[0])

    def column(self, field: int) -> np.ndarray:
        """Field ``field`` (from 0) as float64: the stored array where it is one."""
        return np.asarray(self.fields[field], np.float64)

    def take(self, kept: np.ndarray) -> SwfColumns:
        """The lines where ``kept`` (booleans, one per line) is true."""
        count = int(np.count_nonzero(kept))
        return SwfColumns([np.broadcast_to(values[:1], (count,)) if _repeated(values)
                           else values[kept] for values in self.fields])

    def rows(self, first: int = 0, last: int | None = None) -> np.ndarray:
        """Lines ``first`` to ``last`` (excluded; default: the last line) as float64 rows
        of the 18 fields."""
        stop = len(self) if last is None else min(last, len(self))
        out = np.empty((max(stop - first, 0), N_FIELDS))
        for i, values in enumerate(self.fields):
            out[:, i] = values[first:stop]
        return out


def _repeated(values: np.ndarray) -> bool:
    """Whether a column is one value broadcast over its lines."""
    return values.shape[0] > 0 and values.strides[0] == 0


@dataclass
class SwfTable:
    """A parsed SWF file in columns: its header and the 18 fields of its job lines
    (:class:`SwfColumns`; -1 means unknown), with the lines' numbers."""

    header: Header
    columns: SwfColumns
    path: str
    line_numbers: np.ndarray


SWF_TEXT = "SWF (ASCII)"


def read_swf_table(raw: bytes, path: str, extra_fields: int = 0) -> SwfTable:
    """The SWF text ``raw`` (the bytes of the file ``path``) in columns.

    One reader, two implementations: the compiled scan (``swf_scan``) decides the common
    case; whatever it does not model goes to :func:`read_swf_lines`, which gives the same
    values or the error naming the file, the line and the field (tests/test_swf_scan.py
    holds the two equal, on the fuzz corpus too).
    """
    from schedsim.workloads.swf_scan import scan_columns

    scanned = scan_columns(raw, _accepted_fields(extra_fields), _INT_INDEXES, MAX_VALUE)
    if scanned is None:
        return records_table(read_swf_lines(raw, path, extra_fields))
    return _scanned_table(scanned, path)


def read_swf_file(path: str | Path, extra_fields: int = 0) -> SwfTable:
    """:func:`read_swf_table` of the file ``path`` (optionally gzipped), read a piece at
    a time (``swf_scan.line_pieces``): a large file's bytes are never held whole, except
    by the line-by-line reader where the scan does not decide."""
    from schedsim.workloads.swf_scan import scan_stream

    size = None
    with opened_input(path) as stream:
        if isinstance(stream, io.BufferedReader):
            size = os.fstat(stream.fileno()).st_size
        scanned = scan_stream(stream, _accepted_fields(extra_fields), _INT_INDEXES,
                              MAX_VALUE, size)
    if scanned is None:
        return records_table(read_swf_lines(read_input(path), str(path), extra_fields))
    return _scanned_table(scanned, str(path))


def _accepted_fields(extra_fields: int) -> tuple[int, ...]:
    return (N_FIELDS, N_FIELDS + extra_fields) if extra_fields else (N_FIELDS,)


def _scanned_table(scanned: Scanned, path: str) -> SwfTable:
    header, header_numbers, columns, numbers = scanned
    return SwfTable(Header(header, header_numbers, path), SwfColumns(columns), path, numbers)


def records_table(log: SwfLog) -> SwfTable:
    """Records as a table (the inverse of :func:`table_records`)."""
    values = np.array(log.records, dtype=np.float64).reshape(len(log.records), N_FIELDS)
    return SwfTable(log.head(), SwfColumns.of_rows(values), log.path,
                    np.array(log.line_numbers, np.int64))


def read_swf_lines(raw: bytes, path: str, extra_fields: int = 0) -> SwfLog:
    """:func:`read_swf_table` one line and one field at a time: the reference, and the
    error messages. Lines end where Python's text files end them (LF, CRLF or CR)."""
    check_text(raw, path, SWF_TEXT)
    header: list[str] = []
    records: list[SwfRecord] = []
    numbers: list[int] = []
    header_numbers: list[int] = []
    lines = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", errors="replace")
    for number, line in enumerate(lines, start=1):
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
    return SwfLog(header, records, path, numbers, header_numbers)


@dataclass
class CleaningReport:
    """How many records each cleaning rule touched (docs/deviations.md, invalid SWF jobs)."""

    records: int = 0
    kept: int = 0
    dropped_runtime: int = 0
    dropped_procs_nonpositive: int = 0
    dropped_procs_too_large: int = 0
    dropped_submit_unknown: int = 0
    estimate_raised: int = 0
    estimate_exact: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def dropped(self) -> int:
        return self.dropped_runtime + self.dropped_procs_nonpositive + \
            self.dropped_procs_too_large + self.dropped_submit_unknown

    def as_dict(self) -> dict[str, int]:
        """The counts by rule (for the ``--metrics`` file)."""
        return {"records": self.records, "kept": self.kept,
                "dropped_runtime_nonpositive": self.dropped_runtime,
                "dropped_procs_nonpositive": self.dropped_procs_nonpositive,
                "dropped_procs_above_machine": self.dropped_procs_too_large,
                "dropped_submit_unknown": self.dropped_submit_unknown,
                "estimate_raised_to_runtime": self.estimate_raised,
                "estimate_replaced_by_runtime": self.estimate_exact}

    def summary(self) -> str:
        """One line: what cleaning dropped or changed, by rule."""
        return (f"{self.kept} of {self.records} jobs kept; dropped: {self.dropped_runtime} "
                f"with run time <= 0, {self.dropped_procs_nonpositive} with processors <= 0, "
                f"{self.dropped_procs_too_large} with more processors than the machine, "
                f"{self.dropped_submit_unknown} with an unknown submit time (-1); "
                f"{self.estimate_raised} estimates raised to the run time")

    def lines(self) -> list[str]:
        return [
            f"records read: {self.records}",
            f"jobs kept: {self.kept}",
            f"dropped, run time <= 0: {self.dropped_runtime}",
            f"dropped, processors <= 0: {self.dropped_procs_nonpositive}",
            f"dropped, processors > machine: {self.dropped_procs_too_large}",
            f"dropped, submit time unknown (-1): {self.dropped_submit_unknown}",
            f"estimate missing or below run time, raised to run time: {self.estimate_raised}",
            f"estimate replaced by run time (exact estimates): {self.estimate_exact}",
        ]


def format_number(value: float) -> str:
    """SWF number text: integers without a decimal point, others with up to 6 decimals."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.6f}".rstrip("0").rstrip(".")


def format_record(record: Iterable[float]) -> str:
    return " ".join(format_number(v) for v in record)


def swf_text(header: Iterable[str], records: Iterable[Iterable[float]]) -> str:
    """SWF file text from header lines (without ';') and records."""
    return "".join(swf_pieces(header, records))


def swf_pieces(header: Iterable[str], records: Iterable[Iterable[float]]) -> Iterator[str]:
    """:func:`swf_text` in pieces (``base.text_pieces``)."""
    lines = [f"; {h}".rstrip() if h and not h.startswith(" ") else f";{h}" for h in header]
    return text_pieces(lines, map(format_record, records))


def write_swf(path: str | Path, log: SwfLog) -> None:
    """Write ``log`` as SWF (atomically)."""
    write_text_atomic(path, swf_text(log.header, log.records))
