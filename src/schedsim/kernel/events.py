"""The event heap of the compiled engine: entries ``(time, key, job)`` in the order of
``schedsim.engine``'s heap, (time, kind priority, insertion counter): ``key`` is the
kind's priority times 2^48 plus the insertion counter.

The heap lives in the engine's record (fields ``heap_time``, ``heap_key``, ``heap_job``,
``heap_size``); :func:`push` grows its arrays when they are full.
"""

from __future__ import annotations

import numpy as np

from schedsim.kernel.cache import kernel

COUNTER_BITS = 48


@kernel(inline="always")
def key_of(priority, counter):
    return (priority << COUNTER_BITS) + counter


@kernel(inline="always")
def priority_of(key):
    return key >> COUNTER_BITS


@kernel(inline="always")
def _before(times, keys, a, b):
    return times[a] < times[b] or (times[a] == times[b] and keys[a] < keys[b])


@kernel
def _grow(eng):
    size = eng.heap_size
    eng.heap_time = np.concatenate((eng.heap_time, np.empty(size, np.float64)))
    eng.heap_key = np.concatenate((eng.heap_key, np.empty(size, np.int64)))
    eng.heap_job = np.concatenate((eng.heap_job, np.empty(size, np.int64)))


@kernel
def push(eng, time, key, job):
    """Add an entry."""
    if eng.heap_size == eng.heap_time.shape[0]:
        _grow(eng)
    times, keys, jobs = eng.heap_time, eng.heap_key, eng.heap_job
    i = eng.heap_size
    eng.heap_size = i + 1
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


@kernel
def pop(eng):
    """Remove the first entry (read it at index 0 before)."""
    times, keys, jobs = eng.heap_time, eng.heap_key, eng.heap_job
    size = eng.heap_size - 1
    eng.heap_size = size
    times[0] = times[size]
    keys[0] = keys[size]
    jobs[0] = jobs[size]
    i = 0
    while True:
        low = i
        for child in (2 * i + 1, 2 * i + 2):
            if child < size and _before(times, keys, child, low):
                low = child
        if low == i:
            break
        times[low], times[i] = times[i], times[low]
        keys[low], keys[i] = keys[i], keys[low]
        jobs[low], jobs[i] = jobs[i], jobs[low]
        i = low
