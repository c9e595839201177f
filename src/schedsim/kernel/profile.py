"""The availability profile over arrays: the compiled form of
:class:`schedsim.policies.profile.Profile`, the one every compiled policy uses.

A profile is ``times`` and ``free`` (arrays with room to grow) and ``n``, the steps in
use: ``free[i]`` processors are free during ``[times[i], times[i + 1])``, the last step
extending to infinity; times strictly increase. Functions that add steps return the new
``n``; the caller keeps room for them (two steps per reservation). The same comparisons
and floating-point operations, in the same order, as ``Profile``
(``tests/test_kernel_profile.py``).

Several functions take and return *hints*: indices of the steps that hold a time, as a
reservation found or made them. A hint is checked before use and a wrong one costs a
binary search (pass -1 for none); a search that places and undoes many jobs (the GOAL
paper's schedule trees) passes them back to skip most searches.

These functions neither allocate nor return arrays (but :func:`grown` and
:func:`holding`), so that compiled code that runs without numba's reference counting
can inline them (``schedsim.policies.compiled.goal``). They are inlined by LLVM
(numba's ``forceinline``), not into numba's IR: each is compiled once, and the caller's
loop is optimized with their code in it (docs/performance.md, "Inlined by LLVM";
``tests/test_kernel_inlining.py``).
"""

from __future__ import annotations

import numpy as np

from schedsim.kernel.arrays import copy_into, unsigned
from schedsim.kernel.cache import kernel

inline = kernel(_nrt=False, forceinline=True)


@inline
def step_at(times, n, t):
    """Index of the step that holds time ``t`` (0 if ``t`` is before the first step)."""
    low, high = 0, n
    while low < high:
        middle = (low + high) // 2
        if t < times[unsigned(middle)]:
            high = middle
        else:
            low = middle + 1
    return max(low - 1, 0)


@inline
def step_near(times, n, t, hint):
    """:func:`step_at`, trying step ``hint`` first: the step ``i`` that holds ``t`` is the
    one with ``times[i] <= t < times[i + 1]`` (the last has no end; 0 when ``t`` is
    earlier than the profile)."""
    if 0 <= hint < n and (hint + 1 == n or t < times[unsigned(hint + 1)]) and (
            hint == 0 or times[unsigned(hint)] <= t):
        return hint
    return step_at(times, n, t)


@inline
def earliest(times, free, n, procs, duration, not_before):
    """``Profile.earliest``: the earliest ``t >= not_before`` with ``procs`` free throughout
    ``[t, t + duration)``; with the step holding ``t`` and the step holding ``t +
    duration`` (hints for :func:`reserve`). ``procs`` must fit the last step."""
    i = step_near(times, n, not_before, 0)
    while True:
        while free[unsigned(i)] < procs:
            i += 1
        start = max(times[unsigned(i)], not_before)
        end = start + duration
        k = i + 1
        while k < n and times[unsigned(k)] < end and free[unsigned(k)] >= procs:
            k += 1
        if k == n or times[unsigned(k)] >= end:
            if k < n and times[unsigned(k)] == end:
                return start, i, k
            return start, i, k - 1
        i = k


@inline
def split(times, free, n, t, hint):
    """Make ``t`` a step boundary: (its index, steps in use)."""
    i = step_near(times, n, t, hint)
    if times[unsigned(i)] == t:
        return i, n
    for j in range(n, i + 1, -1):
        times[unsigned(j)] = times[unsigned(j - 1)]
        free[unsigned(j)] = free[unsigned(j - 1)]
    times[unsigned(i + 1)] = t
    free[unsigned(i + 1)] = free[unsigned(i)]
    return i + 1, n + 1


@inline
def reserve(times, free, n, start, end, procs, at_start, at_end):
    """``Profile.reserve``: take ``procs`` processors during ``[start, end)`` (negative: give
    back). (The boundary steps at start and end, steps in use); ``at_start`` and
    ``at_end`` are hints, returned unchanged when ``end <= start``."""
    if end <= start:
        return at_start, at_end, n
    before = n
    i, n = split(times, free, n, start, at_start)
    k, n = split(times, free, n, end, at_end + n - before)
    for j in range(i, k):
        free[unsigned(j)] -= procs
    return i, k, n


@inline
def place(times, free, n, procs, duration, not_before):
    """:func:`earliest` then :func:`reserve` there, with the steps the search found as
    hints: (start, steps in use)."""
    start, at_start, at_end = earliest(times, free, n, procs, duration, not_before)
    _, _, n = reserve(times, free, n, start, start + duration, procs, at_start, at_end)
    return start, n


@inline
def _drop_if_redundant(times, free, n, t, hint):
    i = step_near(times, n, t, hint)
    if i > 0 and times[unsigned(i)] == t and free[unsigned(i)] == free[unsigned(i - 1)]:
        for j in range(i, n - 1):
            times[unsigned(j)] = times[unsigned(j + 1)]
            free[unsigned(j)] = free[unsigned(j + 1)]
        return n - 1
    return n


@inline
def release(times, free, n, start, end, procs, at_start, at_end):
    """``Profile.release``: undo a :func:`reserve` (whose boundary steps are the hints)
    and drop the boundaries at end and start that no longer change the free count;
    returns the steps in use."""
    if end <= start:
        return n
    i, k, n = reserve(times, free, n, start, end, -procs, at_start, at_end)
    n = _drop_if_redundant(times, free, n, end, k)
    return _drop_if_redundant(times, free, n, start, i)


@inline
def advance(times, free, base, n, now):
    """``Profile.advance`` on the profile ``times[base:base + n]``: drop the steps that
    ended before ``now`` by moving ``base`` (no copying); (base, n)."""
    if now <= times[unsigned(base)]:
        return base, n
    i = step_at(times[base:], n, now)
    if i > 0:
        base += i
        n -= i
    times[unsigned(base)] = now
    return base, n


@kernel
def grown(times, free, n, room):
    """Copies of the profile's ``n`` steps with room for ``room`` more."""
    out_times = np.empty(n + room, np.float64)
    out_free = np.empty(n + room, np.int64)
    copy_into(out_times, 0, times, 0, n)
    copy_into(out_free, 0, free, 0, n)
    return out_times, out_free


@kernel
def holding(now, capacity, ends, procs, count, room):
    """``Profile.holding``: ``capacity`` processors from ``now`` with ``procs[k]`` taken
    until ``ends[k]`` for the first ``count`` pairs (ends at or before now take nothing),
    with room for ``room`` more steps; (times, free, n)."""
    order = np.argsort(ends[:count])
    times = np.empty(count + 1 + room, np.float64)
    free = np.empty(count + 1 + room, np.int64)
    taken = 0
    for k in range(count):
        if ends[k] > now:
            taken += procs[k]
    times[0] = now
    free[0] = capacity - taken
    n = 1
    for k in order:
        end = ends[k]
        if end <= now:
            continue
        if times[n - 1] == end and n > 1:
            free[n - 1] += procs[k]
        else:
            times[n] = end
            free[n] = free[n - 1] + procs[k]
            n += 1
    return times, free, n
