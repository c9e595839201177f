"""The event heap of the compiled engine: entries ``(time, key, job)`` in the order of
``schedsim.engine``'s heap, (time, kind priority, insertion counter): ``key`` is the
kind's priority times 2^48 plus the insertion counter.

The heap lives in the engine's record (fields ``heap_time``, ``heap_key``, ``heap_job``,
``heap_size``); :func:`make_room` grows its arrays before pushes, and :func:`push` and
:func:`pop` work on the arrays themselves, so that a caller that pushes many entries (a
redraw re-timing every running job) reads the record's fields once.
"""

from __future__ import annotations

import numpy as np

from schedsim.kernel.cache import kernel

COUNTER_BITS = 48


@kernel(_nrt=False, forceinline=True)
def key_of(priority, counter):
    return (priority << COUNTER_BITS) + counter


@kernel(_nrt=False, forceinline=True)
def priority_of(key):
    return key >> COUNTER_BITS


@kernel(_nrt=False, forceinline=True)
def _before(times, keys, a, b):
    return times[a] < times[b] or (times[a] == times[b] and keys[a] < keys[b])


@kernel
def make_room(eng, entries):
    """Grow the heap's arrays, if needed, to hold ``entries`` more entries."""
    size = eng.heap_size
    room = eng.heap_time.shape[0]
    if size + entries <= room:
        return
    room = max(2 * room, size + entries)
    times = np.empty(room, np.float64)
    keys = np.empty(room, np.int64)
    jobs = np.empty(room, np.int64)
    times[:size] = eng.heap_time[:size]
    keys[:size] = eng.heap_key[:size]
    jobs[:size] = eng.heap_job[:size]
    eng.heap_time, eng.heap_key, eng.heap_job = times, keys, jobs


@kernel(_nrt=False)
def push(times, keys, jobs, size, time, key, job):
    """Add an entry to a heap of ``size`` entries with room for it; returns the size."""
    i = size
    times[i] = time
    keys[i] = key
    jobs[i] = job
    while i > 0:
        parent = (i - 1) // 2
        if not _before(times, keys, i, parent):
            break
        times[parent], times[i] = times[i], times[parent]
        keys[parent], keys[i] = keys[i], keys[parent]
        jobs[parent], jobs[i] = jobs[i], jobs[parent]
        i = parent
    return size + 1


@kernel(_nrt=False)
def pop(times, keys, jobs, size):
    """Remove the first entry (read it at index 0 before); returns the size."""
    size -= 1
    times[0] = times[size]
    keys[0] = keys[size]
    jobs[0] = jobs[size]
    _sift_down(times, keys, jobs, size, 0)
    return size


@kernel(_nrt=False)
def _sift_down(times, keys, jobs, size, i):
    """Move the entry at ``i`` down a heap of ``size`` entries to its place."""
    while True:
        low = i
        for child in (2 * i + 1, 2 * i + 2):
            if child < size and _before(times, keys, child, low):
                low = child
        if low == i:
            return
        times[low], times[i] = times[i], times[low]
        keys[low], keys[i] = keys[i], keys[low]
        jobs[low], jobs[i] = jobs[i], jobs[low]
        i = low


@kernel(_nrt=False)
def drop(times, keys, jobs, size, live_key, state, running):
    """Remove the completion entries that are no longer their job's current one (the job
    was re-timed, or no longer runs); keeps every other entry; returns the size. The
    order in which entries leave the heap depends on their (time, key) alone, which no
    two entries share, so rebuilding the heap changes no order."""
    kept = 0
    for i in range(size):
        job = jobs[i]
        if job >= 0 and (state[job] != running or keys[i] != live_key[job]):
            continue
        times[kept] = times[i]
        keys[kept] = keys[i]
        jobs[kept] = job
        kept += 1
    for start in range(kept // 2 - 1, -1, -1):  # heapify
        _sift_down(times, keys, jobs, kept, start)
    return kept
