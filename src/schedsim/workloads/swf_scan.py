"""SWF text to columns and back at compiled speed (``scan_columns``; the text of rows:
``swf_kernels.format_rows``).

A numba pass over the file's bytes (``swf_kernels.scan_block``, a block of job lines at a time;
a file is read a piece of whole lines at a time, :func:`line_pieces`) finds the header
lines, the job lines and their fields, and converts every field written as a plain
decimal number (optional sign, at most 15 digits, at most one point: correctly rounded,
so the same double as Python's ``float``). Any other field (an exponent, ``inf``, more
digits ...) is converted afterwards as the line-by-line reader converts it
(``numbers.to_float``). Each block is then checked (field counts, finite, at least -1,
at most 2^53, integral where SWF wants an integer) and added to the columns, each held
in the narrowest type that holds its values exactly (:class:`NarrowColumns`). Text the
pass does not model byte for byte the way Python reads text (bytes outside ASCII,
control characters that ``str.split`` treats as blanks, a carriage return that is not
part of a CRLF) and every check that fails go to the line-by-line reader, which gives
the same values or the error naming the file, the line and the field: the fast path
never decides an error message.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from schedsim.kernel import ahead
from schedsim.numbers import to_float

if TYPE_CHECKING:  # reached by name (ahead.functions: no numba where the library runs);
    from schedsim.workloads import swf_kernels  # noqa: F401  imported here for code versions

KERNELS = "schedsim.workloads.swf_kernels"  # the compiled parts, through ahead.functions

BLOCK_ROWS = 65_536  # job lines per block: a block of 18 float64 columns is 9 MB
PIECE_BYTES = 1 << 22  # bytes of a file read at a time (more when a line is longer)
_MIN_LINE_BYTES = 36  # of a job line: 18 one-digit fields, 17 blanks and a newline
_HEADER_ROOM = 1_024  # header lines per call of scan_block
_SLOW_ROOM = 4_096  # fields per call of scan_block that Python converts


_INTEGER_TYPES = tuple(np.dtype(t) for t in (np.int8, np.int16, np.int32))


def narrowest(low: float, high: float, integers: bool) -> np.dtype:
    """The smallest of int8, int16 and int32 that holds integers from ``low`` to
    ``high``, else float64."""
    if integers:
        for dtype in _INTEGER_TYPES:
            limits = np.iinfo(dtype)
            if limits.min <= low and high <= limits.max:
                return dtype
    return np.dtype(np.float64)


class NarrowColumns:
    """Columns of numbers (float64 in, exact out) added a block at a time, each held in
    the narrowest type that holds every value it has been given exactly: a value
    repeated on every row (no memory per row; read-only), int8, int16, int32 or float64.
    A column is widened when a block needs it: its rows so far are copied once per
    widening (at most three: int8, int16, int32, float64)."""

    def __init__(self, width: int, capacity: int) -> None:
        self.width, self.capacity, self.rows = width, capacity, 0
        self.repeated: list[float] = [0.0] * width  # a column's one value, while it has one
        self.arrays: list[np.ndarray | None] = [None] * width  # None: repeated so far

    def add(self, block: np.ndarray, rows: int) -> None:
        """Append the first ``rows`` columns of ``block`` (one row per field)."""
        if rows == 0:
            return
        width = self.width
        low, high = np.empty(width), np.empty(width)
        integers, repeated = np.empty(width, np.bool_), np.empty(width, np.bool_)
        ahead.functions(KERNELS).value_ranges(block, rows, width, low, high, integers,
                                              repeated)
        done = self.rows
        if done + rows > self.capacity:
            self._grow(done + rows)
        for field in range(width):
            array = self.arrays[field]
            first = float(block[field, 0])
            if array is None:
                value = self.repeated[field]
                if repeated[field] and (done == 0 or _same(first, value)):
                    self.repeated[field] = first
                    continue
                dtype = narrowest(low[field], high[field], integers[field])
                if done:
                    dtype = np.promote_types(dtype, narrowest(value, value, _whole(value)))
                array = np.empty(self.capacity, dtype)
                array[:done] = value
            else:
                dtype = np.promote_types(array.dtype,
                                         narrowest(low[field], high[field], integers[field]))
                if dtype != array.dtype:
                    wider = np.empty(self.capacity, dtype)
                    wider[:done] = array[:done]
                    array = wider
            array[done:done + rows] = block[field, :rows]
            self.arrays[field] = array
        self.rows = done + rows

    def _grow(self, rows: int) -> None:
        """Room for ``rows`` rows (at least twice the room so far): held rows copied once."""
        self.capacity = max(rows, 2 * self.capacity)
        self.arrays = [None if array is None else _with_room(array, self.rows, self.capacity)
                       for array in self.arrays]

    def columns(self) -> list[np.ndarray]:
        """Every column, ``rows`` long (a repeated value as a read-only broadcast)."""
        rows = self.rows
        return [np.broadcast_to(np.float64(value), (rows,)) if array is None
                else array[:rows] for array, value in zip(self.arrays, self.repeated,
                                                          strict=True)]


def _with_room(array: np.ndarray, rows: int, capacity: int,
               dtype: np.dtype | None = None) -> np.ndarray:
    """A new array of ``capacity`` (of ``dtype``, else the same type) starting with the
    first ``rows`` values of ``array``; the rest is not written (it takes no memory until
    it is)."""
    wider = np.empty(capacity, dtype or array.dtype)
    wider[:rows] = array[:rows]
    return wider


def _same(a: float, b: float) -> bool:
    return a == b and np.signbit(a) == np.signbit(b)


def _whole(value: float) -> bool:
    return value == np.floor(value) and not (value == 0 and np.signbit(value))


Scanned = tuple[list[str], list[int], list[np.ndarray], np.ndarray]


def scan_columns(raw: bytes, fields: tuple[int, ...], int_fields: tuple[int, ...],
                 max_value: float) -> Scanned | None:
    """Header lines (without ';'), their line numbers, the columns of the job lines'
    first ``min(fields)`` values (:class:`NarrowColumns`) and the job lines' numbers;
    None where the line-by-line reader must decide (module docstring)."""
    data = np.frombuffer(raw, np.uint8)
    bound = data.shape[0] // _MIN_LINE_BYTES + 1  # job lines, at most
    return scan_pieces([(data, True)], fields, int_fields, max_value,
                       min(BLOCK_ROWS, bound), bound)


def scan_stream(stream: BinaryIO, fields: tuple[int, ...], int_fields: tuple[int, ...],
                max_value: float, size: int | None = None) -> Scanned | None:
    """:func:`scan_columns` of the bytes of ``stream``, holding one piece of them at a
    time (``size``: the stream's length where it is known, to size the columns once)."""
    bound = BLOCK_ROWS if size is None else size // _MIN_LINE_BYTES + 1
    return scan_pieces(line_pieces(stream), fields, int_fields, max_value,
                       min(BLOCK_ROWS, bound), bound)


def line_pieces(stream: BinaryIO) -> Iterator[tuple[np.ndarray, bool]]:
    """The bytes of ``stream`` in pieces of whole lines, each with whether it is the last:
    every piece but the last ends with a newline and is at most the buffer's size
    (``PIECE_BYTES``, doubled whenever one line is longer). A piece is read-only and valid
    until the next is asked for (the pieces share one buffer)."""
    buffer = bytearray(PIECE_BYTES)
    held = 0
    while True:
        got = stream.readinto(memoryview(buffer)[held:])
        held += got
        if not got:
            yield _read_only(buffer, held), True
            return
        if held < len(buffer):
            continue
        cut = buffer.rfind(b"\n", 0, held) + 1
        if cut == 0:  # one line fills the buffer: a larger buffer
            buffer = buffer + bytearray(len(buffer))
            continue
        yield _read_only(buffer, cut), False
        buffer[:held - cut] = buffer[cut:held]
        held -= cut


def _read_only(buffer: bytearray, length: int) -> np.ndarray:
    """The first ``length`` bytes of ``buffer``, read-only: the type the scan compiles
    for (the bytes of a whole file are read-only)."""
    piece = np.frombuffer(buffer, np.uint8, length)
    piece.flags.writeable = False
    return piece


def scan_pieces(pieces: Iterable[tuple[np.ndarray, bool]], fields: tuple[int, ...],
                int_fields: tuple[int, ...], max_value: float, block_rows: int,
                capacity: int) -> Scanned | None:
    """:func:`scan_columns` of a text given in pieces of whole lines (:func:`line_pieces`),
    with room for ``block_rows`` job lines per block and ``capacity`` in the columns
    (grown as needed)."""
    kernels = ahead.functions(KERNELS)
    width = max(fields)
    block = np.empty((width, block_rows))
    counts = np.empty(block_rows, np.int64)
    numbers = np.empty(block_rows, np.int64)
    header_spans = np.empty((_HEADER_ROOM, 3), np.int64)
    slow = np.empty((max(_SLOW_ROOM, width), 4), np.int64)
    integral = np.zeros(width, np.bool_)
    integral[list(int_fields)] = True
    accepted = np.array(fields, np.int64)
    columns = NarrowColumns(min(fields), capacity)
    line_numbers = np.empty(capacity, np.int32)
    header: list[str] = []
    header_numbers: list[int] = []
    line = 0
    for data, last in pieces:
        if kernels.modelled_lines(data) < 0:
            return None
        at = 0
        limit = data.shape[0] if last else data.shape[0] - 1
        while at <= limit:
            at, line, rows, n_header, n_slow = kernels.scan_block(
                data, at, limit, line, block, counts, numbers, header_spans, slow)
            for row, field, first, end in slow[:n_slow].tolist():
                try:
                    block[field, row] = to_float(data[first:end].tobytes().decode("ascii"))
                except ValueError:
                    return None
            if not kernels.block_ok(block, rows, counts, accepted, integral, max_value):
                return None
            line_numbers = _numbers_with_room(line_numbers, columns.rows, rows, line)
            line_numbers[columns.rows:columns.rows + rows] = numbers[:rows]
            columns.add(block, rows)
            for first, end, number in header_spans[:n_header].tolist():
                header.append(data[first + 1:end].tobytes().decode("ascii").rstrip())
                header_numbers.append(number)
    return header, header_numbers, columns.columns(), line_numbers[:columns.rows]


def _numbers_with_room(numbers: np.ndarray, held: int, rows: int, line: int) -> np.ndarray:
    """``numbers`` with room for ``rows`` more line numbers after ``held``, up to ``line``
    (int32 until a line number needs int64)."""
    dtype = np.dtype(np.int64) if line >= 2**31 else numbers.dtype
    if held + rows <= numbers.shape[0] and dtype == numbers.dtype:
        return numbers
    return _with_room(numbers, held, max(held + rows, 2 * numbers.shape[0]), dtype)
