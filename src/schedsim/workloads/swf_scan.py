"""SWF text to columns and back at compiled speed (``scan_columns``, ``format_rows``).

One numba pass over the file's bytes finds the header lines, the job lines and their
fields, and converts every field written as a plain decimal number (optional sign, at
most 15 digits, at most one point: correctly rounded, so the same double as Python's
``float``). Any other field (an exponent, ``inf``, more digits ...) is converted
afterwards as the line-by-line reader converts it (``numbers.to_float``). The
result is then checked column-wise (field counts, finite, at least -1, at most 2^53,
integral where SWF wants an integer). Text the pass does not model byte for byte the
way Python reads text (bytes outside ASCII, control characters that ``str.split``
treats as blanks, a carriage return that is not part of a CRLF) and every check that
fails go to the line-by-line reader, which gives the same values or the error naming the
file, the line and the field: the fast path never decides an error message.
"""

from __future__ import annotations

import numpy as np

from schedsim.kernel.cache import kernel
from schedsim.numbers import to_float

MAX_FIELDS = 21  # SWF's 18, and the 3 of CWF
_HEADER, _DATA = 1, 2
_CHECK_ROWS = 65_536


@kernel
def _is_blank(byte):
    return byte == 32 or byte == 9 or byte == 11 or byte == 12 or byte == 13


@kernel
def next_field(raw, k, end):
    """(first, end) offsets of the next whitespace-separated field of ``raw[k:end]``;
    first == end when the line has no field left."""
    while k < end and _is_blank(raw[k]):
        k += 1
    start = k
    while k < end and not _is_blank(raw[k]):
        k += 1
    return start, k


@kernel
def _unmodelled(raw, i, n):
    """A byte outside ASCII, a control character other than the blanks and the newline,
    or a carriage return that does not end a CRLF."""
    byte = raw[i]
    if byte >= 128:
        return True
    if byte == 13:
        return i + 1 >= n or raw[i + 1] != 10
    return byte < 32 and not (byte == 9 or byte == 10 or byte == 11 or byte == 12)


@kernel
def scan(raw, width):
    """(kind per line: 0 blank / 1 header / 2 data, per header line: first and end
    offsets, per job line in order: its line index, its field count and its first ``width``
    values (NaN where Python must convert, or missing), the fields to convert (job line,
    field, first, end offsets), ok). ``ok`` is False for text the pass does not model
    (module docstring)."""
    n = raw.shape[0]
    lines = 1
    for i in range(n):
        byte = raw[i]
        if byte == 10:
            lines += 1
        elif _unmodelled(raw, i, n):
            return (np.zeros(0, np.int8), np.zeros((0, 2), np.int64), np.zeros(0, np.int64),
                    np.zeros(0, np.int32), np.zeros((0, width)), np.zeros((0, 4), np.int64),
                    False)
    kind = np.zeros(lines, np.int8)
    span = np.zeros((64, 2), np.int64)  # of the header lines only
    n_header = 0
    row_line = np.empty(lines, np.int64)
    counts = np.empty(lines, np.int32)
    values = np.empty((lines, width))  # rows in use are filled; the rest is never touched
    slow = np.zeros((1024, 4), np.int64)
    n_slow = 0
    rows = 0
    line = 0
    i = 0
    while i <= n and line < lines:
        end = i
        while end < n and raw[end] != 10:
            end += 1
        first = i
        while first < end and _is_blank(raw[first]):
            first += 1
        if first < end:
            if raw[first] == 59:  # ';'
                kind[line] = _HEADER
                if n_header == span.shape[0]:
                    grown_span = np.zeros((2 * n_header, 2), np.int64)
                    grown_span[:n_header] = span
                    span = grown_span
                span[n_header, 0] = first
                span[n_header, 1] = end
                n_header += 1
            else:
                kind[line] = _DATA
                field = 0
                k = first
                while k < end:
                    start, k = next_field(raw, k, end)
                    if start >= end:
                        break
                    if field < width:
                        value, exact = _number(raw, start, k)
                        values[rows, field] = value if exact else np.nan
                        if not exact:
                            if n_slow == slow.shape[0]:
                                grown = np.zeros((2 * n_slow, 4), np.int64)
                                grown[:n_slow] = slow
                                slow = grown
                            slow[n_slow, 0] = rows
                            slow[n_slow, 1] = field
                            slow[n_slow, 2] = start
                            slow[n_slow, 3] = k
                            n_slow += 1
                    field += 1
                for missing in range(field, width):
                    values[rows, missing] = np.nan
                counts[rows] = field
                row_line[rows] = line
                rows += 1
        line += 1
        i = end + 1
    return (kind, span[:n_header], row_line[:rows], counts[:rows], values[:rows],
            slow[:n_slow], True)


@kernel
def _number(raw, start, end):
    """A plain decimal token -> (value, True): optional sign, digits with at most one
    point, at most 15 digits in all. Its value is the integer of its digits over a power
    of ten; both are exact in a float, so the one division is correctly rounded, the
    same double as Python's ``float`` (Clinger's fast path). Anything else ->
    (0, False)."""
    negative = False
    k = start
    if raw[k] == 45 or raw[k] == 43:  # '-', '+'
        negative = raw[k] == 45
        k += 1
    total = 0
    digits = 0
    decimals = 0
    point = False
    while k < end:
        byte = raw[k]
        if byte == 46 and not point:  # '.'
            point = True
        elif 48 <= byte <= 57:
            total = total * 10 + (byte - 48)
            digits += 1
            if point:
                decimals += 1
        else:
            return 0.0, False
        k += 1
    if digits == 0 or digits > 15:
        return 0.0, False
    value = float(total)
    if decimals:
        value = value / 10.0 ** decimals
    return -value if negative else value, True


def scan_columns(raw: bytes, fields: tuple[int, ...], int_fields: tuple[int, ...],
                 max_value: float
                 ) -> tuple[list[str], list[int], np.ndarray, np.ndarray] | None:
    """Header lines (without ';'), their line numbers, the job lines' values (one row per
    job line, ``max(fields)`` columns) and their line numbers; None where the
    line-by-line reader must decide (module docstring)."""
    width = max(fields)
    kind, span, row_line, counts, table, slow, ok = scan(np.frombuffer(raw, np.uint8), width)
    if not ok or not np.isin(counts, fields).all():
        return None
    for row, field, first, end in slow.tolist():
        try:
            table[row, field] = to_float(raw[first:end].decode("ascii"))
        except ValueError:
            return None
    for first in range(0, table.shape[0], _CHECK_ROWS):  # in slices: small temporaries
        part = table[first:first + _CHECK_ROWS]
        part_counts = counts[first:first + _CHECK_ROWS]
        for count in fields:  # a shorter line's missing fields are not checked
            rows = part[part_counts == count, :count] if len(fields) > 1 else part
            if rows.size and not (np.isfinite(rows).all() and rows.min() >= -1
                                  and rows.max() <= max_value):
                return None
        ints = part[:, list(int_fields)]
        if ints.size and not (ints == np.floor(ints)).all():
            return None
    header_lines = np.flatnonzero(kind == _HEADER)
    header = [raw[first + 1:end].decode("ascii").rstrip() for first, end in span.tolist()]
    return header, (header_lines + 1).tolist(), table, row_line + 1


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
