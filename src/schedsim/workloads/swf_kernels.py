"""The compiled parts of the SWF scan (``schedsim.workloads.swf_scan``, which feeds
them and has the whole story): the pass over a block of job lines, its checks, the
columns' value ranges, and the text of rows of values.

Compiled ahead of time too (``schedsim.kernel.ahead``): ``swf_scan`` reaches them
through ``ahead.functions``, so that a run of the ahead-of-time library never imports
numba.
"""

from __future__ import annotations

import numpy as np

from schedsim.kernel.cache import kernel

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
