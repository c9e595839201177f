"""Whole FCFS, EASY and conservative runs compiled with numba
(``schedsim.policies.backfill``).

The engine calling :class:`~schedsim.policies.backfill.FCFS` or
:class:`~schedsim.policies.backfill.EASY`, in one loop over arrays: at every instant the
jobs whose end is now complete, the arrivals join the queue in arrival order (submit
time, then workload order), and while jobs wait one scheduling call starts the queue's
head while it fits and, for EASY, computes the head's shadow time and extra processors
from the estimated ends of the running jobs (those just started included; a job past its
estimate counted as ending now; equal ends released together) and makes one backfill
pass in queue order (a job that fits now and ends by the shadow time, or fits in the
extra processors, which it then uses up; the pass stops when no processor is free).
Conservative backfilling keeps its profile between calls as the policy does (advanced
to now, new jobs placed at their earliest slot, due jobs started in queue order, a
wake-up at the earliest reservation) and rebuilds it with compression after a job ends
before its estimate. The same comparisons and floating-point operations as the
policies;
``tests/test_backfill_whole.py`` requires the engine's starts and ends from it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from schedsim.policies.slack_kernel import _bisect_right, _earliest, _reserve
from schedsim.policies.slack_whole import _pop as _pop_time
from schedsim.policies.slack_whole import _push as _push_time


@njit(cache=True)
def _shadow_and_extra(now, free, needed, ends, procs, count):
    """``backfill.shadow_and_extra`` over ``count`` (estimated end, processors) pairs."""
    if needed <= free:
        return now, free - needed
    order = np.argsort(ends[:count], kind="mergesort")
    available = free
    i = 0
    while i < count:
        end = ends[order[i]]
        while i < count and ends[order[i]] == end:
            available += procs[order[i]]
            i += 1
        if available >= needed:
            return end, available - needed
    return np.inf, -1  # never: the caller keeps jobs within the machine


@njit(cache=True)
def backfill_run(submit, runtime, estimate, size, capacity, easy):
    """Start and end of every job (arrival order), and how many never started. Every
    size is at least 1, so at most ``capacity`` jobs run and wait in the heap."""
    n = submit.shape[0]
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    est_end = np.zeros(n)
    most = capacity + 1  # running jobs (each holds a processor), heap entries
    running = np.empty(most, np.int64)
    n_running = 0
    queue = np.empty(n, np.int64)
    head = 0  # the queue is queue[head:tail]
    tail = 0
    free = capacity
    # completions: a binary heap of (end, job)
    heap_end = np.empty(most, np.float64)
    heap_job = np.empty(most, np.int64)
    heap_size = 0
    ends = np.empty(most, np.float64)
    end_procs = np.empty(most, np.int64)
    keep = np.empty(n, np.bool_)
    next_arrival = 0
    done = 0
    while done < n:
        now = np.inf
        if heap_size > 0:
            now = heap_end[0]
        if next_arrival < n and submit[next_arrival] < now:
            now = submit[next_arrival]
        if now == np.inf:
            break
        while heap_size > 0 and heap_end[0] == now:
            job = heap_job[0]
            heap_size = _pop(heap_end, heap_job, heap_size)
            free += size[job]
            done += 1
            for r in range(n_running):
                if running[r] == job:
                    n_running -= 1
                    running[r] = running[n_running]
                    break
        while next_arrival < n and submit[next_arrival] == now:
            queue[tail] = next_arrival
            tail += 1
            next_arrival += 1
        if head == tail:
            continue
        while head < tail and size[queue[head]] <= free:  # the FCFS prefix
            job = queue[head]
            head += 1
            free -= size[job]
            start[job] = now
            end[job] = now + runtime[job]
            est_end[job] = now + estimate[job]
            running[n_running] = job
            n_running += 1
            heap_size = _push(heap_end, heap_job, heap_size, end[job], job)
        if not easy or tail - head < 2 or free == 0:
            continue
        for r in range(n_running):
            ends[r] = max(est_end[running[r]], now)
            end_procs[r] = size[running[r]]
        shadow, spare = _shadow_and_extra(now, free, size[queue[head]], ends, end_procs,
                                          n_running)
        started = False
        for q in range(head + 1, tail):
            keep[q] = True
        last = tail
        for q in range(head + 1, tail):
            job = queue[q]
            if size[job] > free:
                continue
            finish = now + estimate[job]
            held = finish > shadow
            if held and size[job] > spare:
                continue
            if held:
                spare -= size[job]
            keep[q] = False
            started = True
            free -= size[job]
            start[job] = now
            end[job] = now + runtime[job]
            est_end[job] = now + estimate[job]
            running[n_running] = job
            n_running += 1
            heap_size = _push(heap_end, heap_job, heap_size, end[job], job)
            if free == 0:
                last = q + 1
                break
        if started:
            kept = head + 1
            for q in range(head + 1, last):
                if keep[q]:
                    queue[kept] = queue[q]
                    kept += 1
            for q in range(last, tail):
                queue[kept] = queue[q]
                kept += 1
            tail = kept
    return start, end, n - done


@njit(cache=True)
def _push(heap_end, heap_job, size, end, job):
    """Push (end, job) (the order of equal ends changes nothing: completions at one instant
    only give processors back)."""
    i = size
    heap_end[i] = end
    heap_job[i] = job
    while i > 0:
        parent = (i - 1) // 2
        if heap_end[parent] <= heap_end[i]:
            break
        heap_end[parent], heap_end[i] = heap_end[i], heap_end[parent]
        heap_job[parent], heap_job[i] = heap_job[i], heap_job[parent]
        i = parent
    return size + 1


@njit(cache=True)
def _pop(heap_end, heap_job, size):
    size -= 1
    heap_end[0] = heap_end[size]
    heap_job[0] = heap_job[size]
    i = 0
    while True:
        low = i
        for child in (2 * i + 1, 2 * i + 2):
            if child < size and heap_end[child] < heap_end[low]:
                low = child
        if low == i:
            break
        heap_end[low], heap_end[i] = heap_end[i], heap_end[low]
        heap_job[low], heap_job[i] = heap_job[i], heap_job[low]
        i = low
    return size


def run_columns(submit: np.ndarray, runtime: np.ndarray, estimate: np.ndarray,
                size: np.ndarray, capacity: int, policy: str) -> tuple[np.ndarray, np.ndarray]:
    """Start and end of every job under ``policy`` (fcfs, easy, conservative), in the given
    order (jobs ``0..n-1`` in workload order; every size at most ``capacity``)."""
    order = np.lexsort((np.arange(submit.shape[0]), submit))  # arrival order
    if policy == "conservative":
        start, end, never = conservative_run(submit[order], runtime[order], estimate[order],
                                             size[order], capacity)
    else:
        start, end, never = backfill_run(submit[order], runtime[order], estimate[order],
                                         size[order], capacity, policy == "easy")
    if never:
        raise ValueError(f"backfill kernel: {never} job(s) never started")
    out_start = np.empty_like(start)
    out_end = np.empty_like(end)
    out_start[order] = start
    out_end[order] = end
    return out_start, out_end


@njit(cache=True)
def _advance(times, free, base, n, now):
    """``Profile.advance`` on the profile ``times[base:base + n]``: drop the steps that
    ended before ``now`` by moving ``base`` (no copying); (base, n)."""
    if now <= times[base]:
        return base, n
    i = _bisect_right(times[base:], n, now) - 1
    if i > 0:
        base += i
        n -= i
    times[base] = now
    return base, n


@njit(cache=True)
def conservative_run(submit, runtime, estimate, size, capacity):
    """``Conservative`` under the engine (arrival order): start and end of every job, and
    how many never started. The profile persists between calls (advanced to now) and is
    rebuilt with compression after a job ends before its estimate."""
    n = submit.shape[0]
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    est_end = np.zeros(n)
    reserved = np.full(n, np.nan)  # NaN: no reservation (not yet placed, or started)
    running = np.empty(capacity + 1, np.int64)
    n_running = 0
    queue = np.empty(n, np.int64)
    length = 0
    fresh = np.empty(n, np.int64)  # arrived since the last call, not yet placed
    n_fresh = 0
    # the profile is times[base:base + steps] (free_steps alike); a rebuild adds at most 2
    # steps per job, twice; ``base`` moves forward as time passes and is reset when the
    # room after it runs short
    room = 4 * n + 2 * capacity + 8
    times = np.empty(2 * room, np.float64)
    free_steps = np.empty(2 * room, np.int64)
    times[0] = 0.0
    free_steps[0] = capacity
    base = 0
    steps = 1
    dirty = False
    heap_end = np.empty(capacity + 1, np.float64)
    heap_job = np.empty(capacity + 1, np.int64)
    heap_size = 0
    wakes = np.empty(1024, np.float64)
    wake_kind = np.empty(1024, np.int8)
    n_wakes = 0
    wake_at = 0.0
    next_arrival = 0
    done = 0
    while done < n:
        now = np.inf
        if heap_size > 0:
            now = heap_end[0]
        if n_wakes > 0 and wakes[0] < now:
            now = wakes[0]
        if next_arrival < n and submit[next_arrival] < now:
            now = submit[next_arrival]
        if now == np.inf:
            break
        wake_due = False
        while n_wakes > 0 and wakes[0] == now:
            _, n_wakes = _pop_time(wakes, wake_kind, n_wakes)
            wake_due = True
        while heap_size > 0 and heap_end[0] == now:
            job = heap_job[0]
            heap_size = _pop(heap_end, heap_job, heap_size)
            for r in range(n_running):
                if running[r] == job:
                    n_running -= 1
                    running[r] = running[n_running]
                    break
            done += 1
            if est_end[job] > now:  # ended before its estimate: compress at the next call
                dirty = True
        while next_arrival < n and submit[next_arrival] == now:
            queue[length] = next_arrival
            length += 1
            fresh[n_fresh] = next_arrival
            n_fresh += 1
            next_arrival += 1
        if length == 0 and not wake_due:
            continue
        if base > room:  # move the profile back to the front of its arrays
            times[:steps] = times[base:base + steps].copy()
            free_steps[:steps] = free_steps[base:base + steps].copy()
            base = 0
        if dirty:  # Conservative._rebuild
            base = 0
            times[0] = now
            free_steps[0] = capacity
            steps = 1
            for r in range(n_running):
                job = running[r]
                steps = _reserve(times, free_steps, steps, now, max(est_end[job], now),
                                 size[job])
            for q in range(length):
                job = queue[q]
                if reserved[job] == reserved[job]:
                    begin = max(reserved[job], now)
                    steps = _reserve(times, free_steps, steps, begin, begin + estimate[job],
                                     size[job])
            for q in range(length):
                job = queue[q]
                if reserved[job] == reserved[job]:
                    begin = max(reserved[job], now)
                    steps = _reserve(times, free_steps, steps, begin, begin + estimate[job],
                                     -size[job])
                slot = _earliest(times, free_steps, steps, size[job], estimate[job], now)
                steps = _reserve(times, free_steps, steps, slot, slot + estimate[job],
                                 size[job])
                reserved[job] = slot
            dirty = False
        else:
            base, steps = _advance(times, free_steps, base, steps, now)
            view_times, view_free = times[base:], free_steps[base:]
            for f in range(n_fresh):
                job = fresh[f]
                slot = _earliest(view_times, view_free, steps, size[job], estimate[job], now)
                steps = _reserve(view_times, view_free, steps, slot, slot + estimate[job],
                                 size[job])
                reserved[job] = slot
        n_fresh = 0
        kept = 0
        earliest = np.inf
        for q in range(length):  # Conservative._start_due, in queue order
            job = queue[q]
            if reserved[job] <= now:
                reserved[job] = np.nan
                start[job] = now
                end[job] = now + runtime[job]
                est_end[job] = now + estimate[job]
                running[n_running] = job
                n_running += 1
                heap_size = _push(heap_end, heap_job, heap_size, end[job], job)
            else:
                queue[kept] = job
                kept += 1
                earliest = min(earliest, reserved[job])
        length = kept
        if length > 0 and (wake_at <= now or earliest < wake_at):
            wake_at = earliest
            wakes, wake_kind, n_wakes = _push_time(wakes, wake_kind, n_wakes, earliest, 1)
    return start, end, n - done
