"""SWF text to columns and back at compiled speed (``scan_columns``, ``format_rows``).

A numba pass over the file's bytes (:func:`scan_block`, a block of job lines at a time;
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
from typing import BinaryIO

import numpy as np

from schedsim.kernel.cache import kernel
from schedsim.numbers import to_float

BLOCK_ROWS = 65_536  # job lines per block: a block of 18 float64 columns is 9 MB
PIECE_BYTES = 1 << 22  # bytes of a file read at a time (more when a line is longer)
_MIN_LINE_BYTES = 36  # of a job line: 18 one-digit fields, 17 blanks and a newline
_HEADER_ROOM = 1_024  # header lines per call of scan_block
_SLOW_ROOM = 4_096  # fields per call of scan_block that Python converts
_POWERS_OF_TEN = np.array([10.0**k for k in range(16)])  # each exact in a float


@kernel(forceinline=True)
def _is_blank(byte):
    return byte == 32 or byte == 9 or byte == 11 or byte == 12 or byte == 13


@kernel
def modelled_lines(raw):
    """The number of lines of ``raw`` (its newlines + 1), or -1 when it holds a byte the
    scan does not model: a byte outside ASCII, a control character other than the blanks
    and the newline, or a carriage return that does not end a CRLF."""
    lines = 1
    returns = 0
    odd = False
    for i in range(raw.shape[0]):
        byte = raw[i]
        lines += byte == 10
        returns += byte == 13
        odd |= (byte >= 128) | ((byte < 32) & (byte != 9) & (byte != 10) & (byte != 11)
                                & (byte != 12) & (byte != 13))
    if odd:
        return -1
    if returns:
        for i in range(raw.shape[0]):
            if raw[i] == 13 and (i + 1 == raw.shape[0] or raw[i + 1] != 10):
                return -1
    return lines


@kernel
def scan_block(raw, at, limit, line, block, counts, numbers, header, slow):
    """The lines of ``raw`` that start from offset ``at`` (the start of line index
    ``line``) to offset ``limit`` (the length of ``raw`` when it ends the file: an empty
    last line counts; else the offset of its final newline): each job line's first
    ``block.shape[0]`` values into the next column of ``block`` (NaN where Python must
    convert the field, or where the line has no such field), its field count into
    ``counts`` and its line number into ``numbers``; each header line's (first, end
    offset, line number) into ``header``; each field Python must convert as (column,
    field, first, end offset) into ``slow``. Stops when ``block``, ``header`` or
    ``slow`` could overflow, or at the end: returns the offset and line index to go on
    from and the job lines, header lines and slow fields written."""
    n = raw.shape[0]
    width, room = block.shape
    rows = 0
    n_header = 0
    n_slow = 0
    while at <= limit and rows < room and n_header < header.shape[0] \
            and n_slow + width <= slow.shape[0]:
        end = at
        while end < n and raw[end] != 10:
            end += 1
        k = at
        while k < end and _is_blank(raw[k]):
            k += 1
        if k < end and raw[k] == 59:  # ';'
            header[n_header, 0] = k
            header[n_header, 1] = end
            header[n_header, 2] = line + 1
            n_header += 1
        elif k < end:
            field = 0
            while k < end:  # a field from k: one pass converts a plain decimal number
                first = k
                negative = raw[k] == 45  # '-'
                if negative or raw[k] == 43:  # '+'
                    k += 1
                total = 0
                digits = 0
                decimals = 0
                point = False
                plain = True
                while k < end:
                    byte = raw[k]
                    if 48 <= byte <= 57:
                        total = total * 10 + (byte - 48)
                        digits += 1
                        decimals += point
                    elif byte == 46 and not point:  # '.'
                        point = True
                    elif _is_blank(byte):
                        break
                    else:
                        plain = False
                    k += 1
                if field < width:
                    if plain and 0 < digits <= 15:
                        # the integer of the digits over a power of ten, both exact in a
                        # float: one correctly rounded division (Clinger's fast path)
                        value = float(total)
                        if decimals:
                            value = value / _POWERS_OF_TEN[decimals]
                        block[field, rows] = -value if negative else value
                    else:
                        block[field, rows] = np.nan
                        slow[n_slow, 0] = rows
                        slow[n_slow, 1] = field
                        slow[n_slow, 2] = first
                        slow[n_slow, 3] = k
                        n_slow += 1
                field += 1
                while k < end and _is_blank(raw[k]):
                    k += 1
            for missing in range(field, width):
                block[missing, rows] = np.nan
            counts[rows] = field
            numbers[rows] = line + 1
            rows += 1
        line += 1
        at = end + 1
    return at, line, rows, n_header, n_slow


@kernel
def block_ok(block, rows, counts, fields, integral, max_value):
    """Whether each of the first ``rows`` job lines of ``block`` has a field count in
    ``fields`` and each of its values is finite, at least -1, at most ``max_value`` and an
    integer where ``integral[field]``."""
    for row in range(rows):
        known = False
        for count in fields:
            known |= counts[row] == count
        if not known:
            return False
    for field in range(block.shape[0]):
        column = block[field]
        for row in range(rows):
            value = column[row]
            if field < counts[row] and not (
                    -1.0 <= value <= max_value
                    and (not integral[field] or value == np.floor(value))):
                return False
    return True


@kernel
def value_ranges(block, rows, width, low, high, integers, repeated):
    """Per field of the first ``width`` over the first ``rows`` columns of ``block``: the
    least and the largest value, whether every value is an integer (-0.0 is not: its
    sign would be lost) and whether every value is the first (0.0 and -0.0 differ)."""
    for field in range(width):
        column = block[field]
        first = column[0]
        least = first
        most = first
        whole = True
        same = True
        for row in range(rows):
            value = column[row]
            least = min(least, value)
            most = max(most, value)
            zero_sign = value == 0 and np.signbit(value)
            whole &= value == np.floor(value) and not zero_sign
            same &= value == first and np.signbit(value) == np.signbit(first)
        low[field] = least
        high[field] = most
        integers[field] = whole
        repeated[field] = same


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
        value_ranges(block, rows, width, low, high, integers, repeated)
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
        if modelled_lines(data) < 0:
            return None
        at = 0
        limit = data.shape[0] if last else data.shape[0] - 1
        while at <= limit:
            at, line, rows, n_header, n_slow = scan_block(data, at, limit, line, block, counts,
                                                          numbers, header_spans, slow)
            for row, field, first, end in slow[:n_slow].tolist():
                try:
                    block[field, row] = to_float(data[first:end].tobytes().decode("ascii"))
                except ValueError:
                    return None
            if not block_ok(block, rows, counts, accepted, integral, max_value):
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


@kernel
def _write_integer(out, at, value):
    """The decimal digits of ``value`` (an int64), with a '-' if negative, at ``out[at:]``;
    returns the offset after them."""
    if value < 0:
        out[at] = 45  # '-'
        at += 1
        value = -value
    first = at
    while True:
        out[at] = 48 + value % 10
        at += 1
        value //= 10
        if value == 0:
            break
    last = at - 1
    while first < last:
        out[first], out[last] = out[last], out[first]
        first += 1
        last -= 1
    return at


@kernel
def format_rows(values, given, given_text, given_ends):
    """The text of ``values`` (rows x fields) as lines of space-separated fields, each line
    ending with a newline: a value as its integer's digits, except the cells ``given`` (flat
    indices, increasing), whose text is ``given_text[given_ends[i - 1]:given_ends[i]]``
    (``swf.format_number``'s for the values that are not integers below 2^63)."""
    rows, width = values.shape
    out = np.empty(rows * width * 21 + given_text.shape[0], np.uint8)
    at = 0
    next_given = 0
    for row in range(rows):
        for field in range(width):
            if field:
                out[at] = 32  # ' '
                at += 1
            if next_given < given.shape[0] and given[next_given] == row * width + field:
                begin = given_ends[next_given - 1] if next_given else 0
                for k in range(begin, given_ends[next_given]):
                    out[at] = given_text[k]
                    at += 1
                next_given += 1
            else:
                at = _write_integer(out, at, np.int64(values[row, field]))
        out[at] = 10  # '\n'
        at += 1
    return out[:at]
