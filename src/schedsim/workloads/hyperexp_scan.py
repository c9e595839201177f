"""The job lines of a hyperexp SWF file in columns, at compiled speed (``scan_hyperexp``).

``hyperexp.parse_hyperexp_swf`` reads each job line with ``str.split`` and converts
fields 1 and 8 with ``int`` and fields 2 and 4 with ``float``; on the IHAP family's
217,000-job files that is most of a simulation's reading time. One numba pass over the
file's bytes does the same for text it models byte for byte the way Python reads it:
ASCII with blanks (space, tab) and newlines (LF, CRLF) only, job lines of exactly 18
fields, fields 1 and 8 written as plain integers (optional sign, at most 15 digits).
Fields 2 and 4 written as plain decimals (``swf_scan._number``: at most 15 digits,
correctly rounded, the same double as ``float``) are converted in the pass, any other
spelling afterwards by Python's ``float``. Anything else (another control character, a
form feed or vertical tab, which ``str.splitlines`` takes for a line break, a byte outside
ASCII, a field count other than 18, an integer ``int`` would read differently or not at
all) makes the pass give up: the caller then reads the file line by line, which gives the
same jobs or the error naming the file, the line and the field.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Fields are split as the SWF scan splits them; vertical tab and form feed, blanks there,
# never reach the split here (_unmodelled sends such text to the line reader).
from schedsim.workloads.swf_scan import _is_blank, _number, next_field

N_FIELDS = 18
_ID, _SUBMIT, _RUNTIME, _PMAX = 0, 1, 3, 7
_INT_DIGITS = 15


@njit(cache=True)
def _unmodelled(raw, i, n):
    """A byte outside ASCII, a control character other than tab and LF, or a carriage
    return that does not end a CRLF (form feed and vertical tab included: ``splitlines``
    breaks lines there, the pass would not)."""
    byte = raw[i]
    if byte >= 128:
        return True
    if byte == 13:
        return i + 1 >= n or raw[i + 1] != 10
    return byte < 32 and byte != 9 and byte != 10


@njit(cache=True)
def _integer(raw, start, end):
    """A token ``[+-]digits`` with 1 to 15 digits -> (value, True); else (0, False)."""
    k = start
    negative = raw[k] == 45  # '-'
    if negative or raw[k] == 43:  # '+'
        k += 1
    if end - k < 1 or end - k > _INT_DIGITS:
        return 0, False
    total = 0
    while k < end:
        byte = raw[k]
        if byte < 48 or byte > 57:
            return 0, False
        total = total * 10 + (byte - 48)
        k += 1
    return (-total if negative else total), True


@njit(cache=True)
def _count_lines(raw):
    """Lines of ``raw`` (newlines + 1), or -1 if a byte is one the pass does not model."""
    n = raw.shape[0]
    lines = 1
    for i in range(n):
        if raw[i] == 10:
            lines += 1
        elif _unmodelled(raw, i, n):
            return -1
    return lines


@njit(cache=True)
def scan_hyperexp(raw):
    """(ids, submits, run times, Pmax per job line, slow fields, ok) of the bytes ``raw``.

    Submits and run times are NaN where Python's ``float`` must convert the field; those
    fields are listed in ``slow`` as (job line, field, first, end offsets). ``ok`` is
    False, with empty results, for text the pass does not model (module docstring)."""
    n = raw.shape[0]
    lines = max(_count_lines(raw), 0)
    ids = np.empty(lines, np.int64)
    pmax = np.empty(lines, np.int64)
    submit = np.empty(lines)
    runtime = np.empty(lines)
    slow = np.empty((2 * lines, 4), np.int64)  # two fields per line at most; pages untouched
    n_slow = 0
    rows = 0
    i = 0
    ok = lines > 0
    while ok and i < n:
        end = i
        while end < n and raw[end] != 10:
            end += 1
        k = i
        while k < end and _is_blank(raw[k]):
            k += 1
        if k < end and raw[k] != 59:  # a job line (not blank, not ';')
            field = 0
            while True:
                start, k = next_field(raw, k, end)
                if start >= end:
                    break
                if field in (_ID, _PMAX):
                    whole, plain = _integer(raw, start, k)
                    ok = ok and plain
                    if field == _ID:
                        ids[rows] = whole
                    else:
                        pmax[rows] = whole
                elif field in (_SUBMIT, _RUNTIME):
                    value, exact = _number(raw, start, k)
                    if not exact:
                        value = np.nan
                        slow[n_slow, 0] = rows
                        slow[n_slow, 1] = field
                        slow[n_slow, 2] = start
                        slow[n_slow, 3] = k
                        n_slow += 1
                    if field == _SUBMIT:
                        submit[rows] = value
                    else:
                        runtime[rows] = value
                field += 1
            ok = ok and field == N_FIELDS
            rows += 1
        i = end + 1
    if not ok:
        rows, n_slow = 0, 0
    return ids[:rows], submit[:rows], runtime[:rows], pmax[:rows], slow[:n_slow], ok


def hyperexp_columns(raw: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(ids, submits, run times, Pmax) of the job lines of the file text ``raw``, the same
    values ``hyperexp.parse_hyperexp_swf`` reads; None where the line-by-line reader must
    decide: text the pass does not model, a field ``float`` rejects, Pmax below 1 or a run
    time that is not at least 0 (its errors)."""
    ids, submit, runtime, pmax, slow, ok = scan_hyperexp(np.frombuffer(raw, np.uint8))
    if not ok:
        return None
    columns = {_SUBMIT: submit, _RUNTIME: runtime}
    for row, field, first, end in slow.tolist():
        try:
            columns[field][row] = float(raw[first:end].decode("ascii"))
        except ValueError:
            return None
    if ids.size and not (pmax.min() >= 1 and (runtime >= 0).all()):
        return None
    return ids, submit, runtime, pmax
