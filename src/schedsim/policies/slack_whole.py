"""Whole runs of the SLACK policies compiled with numba: Scojo-PECT
(``schedsim.policies.scojo``) and slack-based backfilling on the plain machine
(``schedsim.policies.slack``).

The engine with :class:`~schedsim.policies.scojo.ScojoPECT` calls the policy about four
times per job (arrivals, completions and the slice boundaries of the hourly calendar), and
each call assembles the running and suspended jobs, the class queue and the non-type
candidates in Python. This module runs the same model in one compiled loop: the engine's
instants (completions, then arrivals, then due wake-ups, then one scheduling call; an
instant is also made by a completion entry that became stale when its job was
suspended), its suspension and resumption arithmetic, and the policy's calendar, class
clocks, conservative or slack selection per class and non-type backfilling, with the
same floating-point operations in the same order. ``tests/test_slack_whole.py``
requires the schedule (every start, end and segment) and the fairness statistics to be
equal to the engine's on hypothesis workloads for every setting. The plain machine's
loop is the same without the calendar: fair start time at every arrival, one selection
per instant, a wake-up at the earliest reserved start.

Jobs are numbered in arrival order (submit time, then workload order) inside the kernel;
the wrapper maps them back. Only rigid jobs on one partition of processors of speed 1,
without elastic commands or a load model, are run here (the policies' ``simulate_whole``
fall back to the engine otherwise).

The runs compile ``slack_kernel``'s functions into their own code, and numba's on-disk cache
checks only the file of the function it caches: a change to ``slack_kernel.py`` comes with a
new ``KERNEL_REVISION`` here, or the cached runs would keep the old kernels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from schedsim.policies.slack_kernel import (
    _earliest,
    _grown,
    _reserve,
    compress_queue,
    fair_start,
    place_queue,
    reserve_all,
    slack_search,
)
from schedsim.schedule import Schedule, SimulationError

if TYPE_CHECKING:
    from schedsim.jobs import Job
    from schedsim.machine import Machine
    from schedsim.policies.scojo import ScojoPECT
    from schedsim.policies.slack import SlackBackfill, SlackSettings

KERNEL_REVISION = 2  # the slack_kernel.py the runs compile (module docstring)
SHORT, MEDIUM, LONG = 0, 1, 2
NONTYPE_CODES = {"all": 0, "short": 1, "none": 2}
_ALL, _SHORT_ONLY, _NONE = 0, 1, 2
_WAITING, _RUNNING, _DONE, _SUSPENDED = 1, 2, 3, 4
_COMPLETION, _WAKE = 0, 1


# -- a binary heap of (time, kind) entries: the engine's future instants ------------------
@njit(cache=True)
def _push(heap_time, heap_kind, size, time, kind):
    if size == heap_time.shape[0]:
        grown_time = np.empty(2 * size, np.float64)
        grown_kind = np.empty(2 * size, np.int8)
        grown_time[:size] = heap_time
        grown_kind[:size] = heap_kind
        heap_time, heap_kind = grown_time, grown_kind
    i = size
    heap_time[i] = time
    heap_kind[i] = kind
    while i > 0:
        parent = (i - 1) // 2
        if heap_time[parent] <= heap_time[i]:
            break
        heap_time[parent], heap_time[i] = heap_time[i], heap_time[parent]
        heap_kind[parent], heap_kind[i] = heap_kind[i], heap_kind[parent]
        i = parent
    return heap_time, heap_kind, size + 1


@njit(cache=True)
def _pop(heap_time, heap_kind, size):
    kind = heap_kind[0]
    size -= 1
    heap_time[0] = heap_time[size]
    heap_kind[0] = heap_kind[size]
    i = 0
    while True:
        low = i
        for child in (2 * i + 1, 2 * i + 2):
            if child < size and heap_time[child] < heap_time[low]:
                low = child
        if low == i:
            break
        heap_time[low], heap_time[i] = heap_time[i], heap_time[low]
        heap_kind[low], heap_kind[i] = heap_kind[i], heap_kind[low]
        i = low
    return kind, size


# -- the calendar ------------------------------------------------------------------------
@njit(cache=True)
def _slice_at(now, interval, short_slice, medium_share, decided):
    """(class, begin, end) of the slice holding ``now`` (``ScojoPECT.slice_at``);
    ``decided[number]`` is 1 when interval ``number`` begins with a short slice."""
    number = math.floor(now / interval)
    begin = number * interval
    first = begin
    if number < decided.shape[0] and decided[number] == 1:
        first = begin + min(short_slice, interval)
        if begin <= now < first:
            return SHORT, begin, first
    middle = first + medium_share * (begin + interval - first)
    if middle > first and first <= now < middle:
        return MEDIUM, first, middle
    end = begin + interval
    if end > middle and middle <= now < end:
        return LONG, middle, end
    raise ValueError("scojo kernel: no slice holds the time")


@njit(cache=True)
def _advance_clocks(clock, clock_at, now, interval, short_slice, medium_share, decided):
    """``ScojoPECT._advance_clocks``: the time since ``clock_at`` to the classes whose
    slices it spanned; returns the new ``clock_at``."""
    t = clock_at
    while t < now:
        klass, _, end = _slice_at(t, interval, short_slice, medium_share, decided)
        step = min(end, now) - t
        clock[klass] += step
        t += step
    return now


# -- profiles ----------------------------------------------------------------------------
@njit(cache=True)
def _holding(now, capacity, ends, procs, count):
    """``Profile.holding`` over the first ``count`` (end, procs) pairs, as kernel arrays."""
    order = np.argsort(ends[:count])
    times = np.empty(count + 1, np.float64)
    free = np.empty(count + 1, np.int64)
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


@njit(cache=True)
def _own_ends(c, clock, now, klass, size, est_end, est_left, running, n_running,
              suspended, n_suspended, ends, procs):
    """``ScojoPECT._own_jobs_ends``: class ``c``'s running and suspended jobs in its own
    time, written to ``ends``/``procs``; returns their count."""
    count = 0
    for r in range(n_running):
        job = running[r]
        if klass[job] == c:
            ends[count] = clock + max(est_end[job] - now, 0.0)
            procs[count] = size[job]
            count += 1
    for r in range(n_suspended):
        job = suspended[r]
        if klass[job] == c:
            ends[count] = clock + est_left[job]
            procs[count] = size[job]
            count += 1
    return count


@njit(cache=True)
def _slack_factor(t_wait, slack_up, slack_down, k1, k2, wait_unit):
    """F_slack of eq. 5 (``slack.slack_factor``, the same operations)."""
    return min(slack_up, k2 * math.exp(k1 * t_wait / wait_unit) + slack_down)


# -- the whole run -----------------------------------------------------------------------
@njit(cache=True)
def scojo_run(submit, runtime, estimate, size, klass, capacity, interval, short_slice,
                 medium_share, nontype, slack, fst_fcfs, slack_up, slack_down,
                 slack_minimal, k1, k2, wait_unit, lookahead, goal_g1, max_nodes):
    """Run the jobs (in arrival order). Returns first start, last end, the segments of the
    jobs that were ever suspended (job, begin, end in time order), and with slack
    selection each job's fair start and its start in class time (NaN: none) and per class
    the calls, the branch and bound's nodes and the calls ``max_nodes`` stopped."""
    n = submit.shape[0]
    state = np.zeros(n, np.int8)
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    est_end = np.zeros(n)
    remaining = np.zeros(n)
    est_left = np.zeros(n)
    segment_begin = np.zeros(n)
    ever_suspended = np.zeros(n, np.bool_)
    seg_job = np.empty(1024, np.int64)
    seg_begin = np.empty(1024, np.float64)
    seg_end = np.empty(1024, np.float64)
    n_seg = 0
    running = np.empty(n, np.int64)
    n_running = 0
    suspended = np.empty(n, np.int64)
    n_suspended = 0
    queues = np.empty((3, n), np.int64)
    slots = np.empty((3, n), np.float64)
    lengths = np.zeros(3, np.int64)
    free = capacity
    waiting = 0
    heap_time = np.empty(1024, np.float64)
    heap_kind = np.empty(1024, np.int8)
    heap_size = 0
    next_arrival = 0
    decided = np.full(1024, -1, np.int8)  # per interval: -1 undecided, 0 / 1 short slice
    clock = np.zeros(3)
    clock_at = 0.0
    wake_at = -np.inf
    fair = np.full(n, np.nan)
    submitted = np.zeros(n)
    full_slack = np.zeros(n)
    started_class = np.full(n, np.nan)
    calls = np.zeros(3, np.int64)
    nodes = np.zeros(3, np.int64)
    hits = np.zeros(3, np.int64)
    ends = np.empty(n + capacity, np.float64)
    end_procs = np.empty(n + capacity, np.int64)
    is_started = np.zeros(n, np.bool_)
    due = np.zeros(n, np.bool_)
    candidates = np.empty(n, np.int64)
    while True:
        now = np.inf
        if heap_size > 0:
            now = heap_time[0]
        if next_arrival < n and submit[next_arrival] < now:
            now = submit[next_arrival]
        if now == np.inf:
            break
        wake_due = False
        while heap_size > 0 and heap_time[0] == now:
            kind, heap_size = _pop(heap_time, heap_kind, heap_size)
            if kind == _WAKE:
                wake_due = True
        r = 0
        while r < n_running:  # completions (order among them changes nothing)
            job = running[r]
            if end[job] == now:
                state[job] = _DONE
                free += size[job]
                if ever_suspended[job]:
                    seg_job, seg_begin, seg_end, n_seg = _segment(
                        seg_job, seg_begin, seg_end, n_seg, job, segment_begin[job], now)
                n_running -= 1
                for q in range(r, n_running):
                    running[q] = running[q + 1]
            else:
                r += 1
        while next_arrival < n and submit[next_arrival] == now:  # arrivals
            job = next_arrival
            next_arrival += 1
            state[job] = _WAITING
            waiting += 1
            c = klass[job]
            if slack:
                clock_at = _advance_clocks(clock, clock_at, now, interval, short_slice,
                                           medium_share, decided)
                count = _own_ends(c, clock[c], now, klass, size, est_end, est_left, running,
                                  n_running, suspended, n_suspended, ends, end_procs)
                number = math.floor(now / interval)
                if number < decided.shape[0] and decided[number] >= 0:
                    piece, begin, piece_end = _slice_at(now, interval, short_slice,
                                                        medium_share, decided)
                    if piece == c and now > begin:
                        for q in range(n_running):
                            other = running[q]
                            if klass[other] != c:
                                span = min(max(est_end[other] - now, 0.0), piece_end - now)
                                ends[count] = clock[c] + span
                                end_procs[count] = size[other]
                                count += 1
                times, frees, steps = _holding(clock[c], capacity, ends, end_procs, count)
                mine = queues[c, :lengths[c]]
                fair[job] = fair_start(times, frees, steps, size[mine], estimate[mine],
                                       clock[c], size[job], estimate[job], fst_fcfs)
                submitted[job] = clock[c]
                full_slack[job] = _slack_factor(fair[job] - clock[c], slack_up, slack_down,
                                                k1, k2, wait_unit)
            queues[c, lengths[c]] = job
            slots[c, lengths[c]] = np.nan
            lengths[c] += 1
        if waiting == 0 and n_suspended == 0 and not wake_due:
            continue
        # -- one scheduling call (ScojoPECT.schedule) --------------------------------------
        number = math.floor(now / interval)
        if number >= decided.shape[0]:
            grown = np.full(max(2 * decided.shape[0], number + 1), -1, np.int8)
            grown[:decided.shape[0]] = decided
            decided = grown
        if decided[number] < 0:
            short_pending = lengths[SHORT] > 0
            for q in range(n_suspended):
                if klass[suspended[q]] == SHORT:
                    short_pending = True
            decided[number] = 1 if now == number * interval and short_pending else 0
        clock_at = _advance_clocks(clock, clock_at, now, interval, short_slice, medium_share,
                                   decided)
        c, piece_begin, piece_end = _slice_at(now, interval, short_slice, medium_share,
                                              decided)
        had_running = n_running > 0
        busy = False
        left = piece_end - now
        count = 0  # the class's profile: (end in class time, processors)
        if now == piece_begin:  # a slice boundary: suspend everything, resume the class
            for q in range(n_running):
                job = running[q]
                remaining[job] = max((end[job] - now) * 1.0, 0.0)
                est_left[job] = max(est_end[job] - now, 0.0)
                free += size[job]
                seg_job, seg_begin, seg_end, n_seg = _segment(
                    seg_job, seg_begin, seg_end, n_seg, job,
                    segment_begin[job] if ever_suspended[job] else start[job], now)
                ever_suspended[job] = True
                end[job] = np.nan
                state[job] = _SUSPENDED
                suspended[n_suspended] = job
                n_suspended += 1
            n_running = 0
            suspended[:n_suspended].sort()  # arrival order
            kept = 0
            for q in range(n_suspended):
                job = suspended[q]
                if klass[job] == c and size[job] <= free:
                    free -= size[job]
                    end[job] = now + remaining[job] / 1.0
                    est_end[job] = now + est_left[job]
                    state[job] = _RUNNING
                    segment_begin[job] = now
                    running[n_running] = job
                    n_running += 1
                    heap_time, heap_kind, heap_size = _push(heap_time, heap_kind, heap_size,
                                                            end[job], _COMPLETION)
                    busy = True
                    ends[count] = clock[c] + est_left[job]
                    end_procs[count] = size[job]
                    count += 1
                else:
                    suspended[kept] = job
                    kept += 1
            n_suspended = kept
        else:
            for q in range(n_running):
                job = running[q]
                rest = max(est_end[job] - now, 0.0)
                ends[count] = clock[c] + (rest if klass[job] == c else min(rest, left))
                end_procs[count] = size[job]
                count += 1
        for q in range(n_suspended):  # the class's own suspended jobs hold their place
            job = suspended[q]
            if klass[job] == c:
                ends[count] = clock[c] + est_left[job]
                end_procs[count] = size[job]
                count += 1
        times, frees, steps = _holding(clock[c], capacity, ends, end_procs, count)
        m = lengths[c]
        mine = queues[c, :m].copy()
        placed_times, placed_free, placed_n = times, frees, steps
        if m > 0:
            if slack:
                starts, found_nodes, hit = _select_slack(
                    times, frees, steps, clock[c], capacity, free, mine, size, estimate,
                    submitted, fair, full_slack, slack_minimal, lookahead, goal_g1,
                    max_nodes)
                calls[c] += 1
                nodes[c] += found_nodes
                hits[c] += hit
                placed_times, placed_free, placed_n = reserve_all(
                    times, frees, steps, starts, size[mine], estimate[mine])
            else:
                starts, placed_times, placed_free, placed_n = _compress(
                    times, frees, steps, size[mine], estimate[mine], slots[c, :m], clock[c])
                slots[c, :m] = starts
            for q in range(m):
                job = mine[q]
                if starts[q] <= clock[c] and size[job] <= free:
                    free = _start(job, now, free, size, runtime, estimate, state, start, end,
                                  est_end, running, n_running)
                    n_running += 1
                    heap_time, heap_kind, heap_size = _push(heap_time, heap_kind, heap_size,
                                                            end[job], _COMPLETION)
                    waiting -= 1
                    busy = True
                    started_class[job] = clock[c]
                    is_started[job] = True
        if nontype != _NONE and free > 0:  # non-type backfilling (ScojoPECT._nontype)
            n_due = 0
            if nontype == _ALL:
                for d in (MEDIUM, LONG):
                    if d == c or lengths[d] == 0:
                        continue
                    smallest = size[queues[d, 0]]
                    for q in range(1, lengths[d]):
                        smallest = min(smallest, size[queues[d, q]])
                    if smallest > free:
                        continue
                    own = _own_ends(d, clock[d], now, klass, size, est_end, est_left,
                                    running, n_running, suspended, n_suspended, ends,
                                    end_procs)
                    d_times, d_free, d_steps = _holding(clock[d], capacity, ends, end_procs,
                                                        own)
                    md = lengths[d]
                    theirs = queues[d, :md]
                    d_starts, _, _, _ = _compress(d_times, d_free, d_steps, size[theirs],
                                                  estimate[theirs], slots[d, :md], clock[d])
                    slots[d, :md] = d_starts
                    for q in range(md):
                        if d_starts[q] == clock[d]:
                            due[theirs[q]] = True
                            n_due += 1
            n_candidates = 0
            if c != SHORT:
                for q in range(lengths[SHORT]):
                    job = queues[SHORT, q]
                    if estimate[job] <= left:
                        candidates[n_candidates] = job
                        n_candidates += 1
            for d in (MEDIUM, LONG):
                if d != c and n_due > 0:
                    for q in range(lengths[d]):
                        job = queues[d, q]
                        if due[job]:
                            candidates[n_candidates] = job
                            n_candidates += 1
            if nontype == _ALL:
                for q in range(n_suspended):
                    job = suspended[q]
                    if klass[job] != c:
                        candidates[n_candidates] = job
                        n_candidates += 1
            if n_candidates > 0:
                candidates[:n_candidates].sort()  # arrival order
                work_times, work_free = _grown(placed_times, placed_free, placed_n,
                                               2 * n_candidates + 2)
                work_n = placed_n
                for q in range(n_candidates):
                    job = candidates[q]
                    paused = state[job] == _SUSPENDED
                    span = min(est_left[job] if paused else estimate[job], left)
                    if size[job] > free or _earliest(work_times, work_free, work_n,
                                                     size[job], span, clock[c]) != clock[c]:
                        continue
                    work_n = _reserve(work_times, work_free, work_n, clock[c],
                                      clock[c] + span, size[job])
                    if paused:
                        free -= size[job]
                        end[job] = now + remaining[job] / 1.0
                        est_end[job] = now + est_left[job]
                        state[job] = _RUNNING
                        segment_begin[job] = now
                        running[n_running] = job
                        n_running += 1
                        kept = 0
                        for k in range(n_suspended):
                            if suspended[k] != job:
                                suspended[kept] = suspended[k]
                                kept += 1
                        n_suspended = kept
                    else:
                        free = _start(job, now, free, size, runtime, estimate, state, start,
                                      end, est_end, running, n_running)
                        n_running += 1
                        waiting -= 1
                        started_class[job] = clock[klass[job]]
                        is_started[job] = True
                    heap_time, heap_kind, heap_size = _push(heap_time, heap_kind, heap_size,
                                                            end[job], _COMPLETION)
                    busy = True
            if n_due > 0:
                for d in (MEDIUM, LONG):
                    for q in range(lengths[d]):
                        due[queues[d, q]] = False
        for d in range(3):  # the started jobs leave their queues
            kept = 0
            for q in range(lengths[d]):
                job = queues[d, q]
                if not is_started[job]:
                    queues[d, kept] = job
                    slots[d, kept] = slots[d, q]
                    kept += 1
            lengths[d] = kept
        pending = (lengths.sum() > 0 or n_suspended > 0 or had_running or busy)
        if pending and (wake_at <= now or piece_end < wake_at):
            wake_at = piece_end
            heap_time, heap_kind, heap_size = _push(heap_time, heap_kind, heap_size,
                                                    piece_end, _WAKE)
    return (start, end, seg_job[:n_seg], seg_begin[:n_seg], seg_end[:n_seg], fair,
            started_class, calls, nodes, hits, state)


@njit(cache=True)
def _start(job, now, free, size, runtime, estimate, state, start, end, est_end, running,
           n_running):
    """The engine's start of a rigid job now; returns the free processors."""
    state[job] = _RUNNING
    start[job] = now
    end[job] = now + runtime[job]
    est_end[job] = now + estimate[job]
    running[n_running] = job
    return free - size[job]


@njit(cache=True)
def _segment(seg_job, seg_begin, seg_end, n_seg, job, begin, end):
    if n_seg == seg_job.shape[0]:
        seg_job = np.concatenate((seg_job, np.empty(n_seg, np.int64)))
        seg_begin = np.concatenate((seg_begin, np.empty(n_seg, np.float64)))
        seg_end = np.concatenate((seg_end, np.empty(n_seg, np.float64)))
    seg_job[n_seg] = job
    seg_begin[n_seg] = begin
    seg_end[n_seg] = end
    return seg_job, seg_begin, seg_end, n_seg + 1


@njit(cache=True)
def _compress(times, free, n, sizes, estimates, previous, clock):
    """``ScojoPECT._place_class_conservatively``: keep the reservations if they fit, else
    place from scratch; (starts, the profile holding every job)."""
    found, work_times, work_free, work_n, fitted = compress_queue(
        times, free, n, sizes, estimates, previous, clock)
    if not fitted:
        found, work_times, work_free, work_n = place_queue(times, free, n, sizes, estimates,
                                                           clock)
    return found, work_times, work_free, work_n


@njit(cache=True)
def _select_slack(times, free, n, now, capacity, free_now, mine, size, estimate, submitted,
                  fair, full_slack, slack_minimal, lookahead, goal_g1, max_nodes):
    """``SlackSelector.select``: the FCFS prefix that fits, then the branch and bound over
    the rest, else conservative; (starts in queue order, nodes, whether max_nodes hit)."""
    m = mine.shape[0]
    work_times, work_free = _grown(times, free, n, 2 * m + 2)
    work_n = n
    starts = np.empty(m, np.float64)
    first = 0
    while first < m and size[mine[first]] <= free_now:
        job = mine[first]
        work_n = _reserve(work_times, work_free, work_n, now, now + estimate[job], size[job])
        starts[first] = now
        free_now -= size[job]
        first += 1
    if first == m:
        return starts, 0, 0
    rest = mine[first:]
    found, best, found_nodes, hit = slack_search(
        work_times, work_free, work_n, now, capacity, free_now, size[rest], estimate[rest],
        submitted[rest], fair[rest], full_slack[rest], slack_minimal, lookahead, goal_g1,
        max_nodes)
    if not found:
        best = place_queue(work_times, work_free, work_n, size[rest], estimate[rest], now)[0]
    starts[first:] = best
    return starts, found_nodes, 1 if hit else 0


@njit(cache=True)
def plain_run(submit, runtime, estimate, size, capacity, fst_fcfs, slack_up, slack_down,
              slack_minimal, k1, k2, wait_unit, lookahead, goal_g1, max_nodes):
    """``SlackBackfill`` under the engine, in arrival order: (start, end, fair start,
    calls, nodes, calls max_nodes stopped, state)."""
    n = submit.shape[0]
    state = np.zeros(n, np.int8)
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    est_end = np.zeros(n)
    running = np.empty(n, np.int64)
    n_running = 0
    queue = np.empty(n, np.int64)
    length = 0
    free = capacity
    heap_time = np.empty(1024, np.float64)
    heap_kind = np.empty(1024, np.int8)
    heap_size = 0
    next_arrival = 0
    wake_at = -np.inf
    fair = np.full(n, np.nan)
    submitted = np.zeros(n)
    full_slack = np.zeros(n)
    ends = np.empty(n, np.float64)
    end_procs = np.empty(n, np.int64)
    calls = 0
    nodes = 0
    hits = 0
    while True:
        now = np.inf
        if heap_size > 0:
            now = heap_time[0]
        if next_arrival < n and submit[next_arrival] < now:
            now = submit[next_arrival]
        if now == np.inf:
            break
        wake_due = False
        while heap_size > 0 and heap_time[0] == now:
            kind, heap_size = _pop(heap_time, heap_kind, heap_size)
            if kind == _WAKE:
                wake_due = True
        r = 0
        while r < n_running:
            job = running[r]
            if end[job] == now:
                state[job] = _DONE
                free += size[job]
                n_running -= 1
                for q in range(r, n_running):
                    running[q] = running[q + 1]
            else:
                r += 1
        while next_arrival < n and submit[next_arrival] == now:
            job = next_arrival
            next_arrival += 1
            state[job] = _WAITING
            times, frees, steps = _running_profile(now, capacity, est_end, size, running,
                                                   n_running, ends, end_procs)
            mine = queue[:length]
            fair[job] = fair_start(times, frees, steps, size[mine], estimate[mine], now,
                                   size[job], estimate[job], fst_fcfs)
            submitted[job] = now
            full_slack[job] = _slack_factor(fair[job] - now, slack_up, slack_down, k1, k2,
                                            wait_unit)
            queue[length] = job
            length += 1
        if length == 0 and not wake_due:
            continue
        times, frees, steps = _running_profile(now, capacity, est_end, size, running,
                                               n_running, ends, end_procs)
        calls += 1
        mine = queue[:length].copy()
        starts, found_nodes, hit = _select_slack(
            times, frees, steps, now, capacity, free, mine, size, estimate, submitted, fair,
            full_slack, slack_minimal, lookahead, goal_g1, max_nodes)
        nodes += found_nodes
        hits += hit
        kept = 0
        earliest = np.inf
        for q in range(length):
            job = mine[q]
            if starts[q] <= now and size[job] <= free:
                free = _start(job, now, free, size, runtime, estimate, state, start, end,
                              est_end, running, n_running)
                n_running += 1
                heap_time, heap_kind, heap_size = _push(heap_time, heap_kind, heap_size,
                                                        end[job], _COMPLETION)
            else:
                queue[kept] = job
                kept += 1
                if starts[q] > now:
                    earliest = min(earliest, starts[q])
        length = kept
        if earliest < np.inf and (wake_at <= now or earliest < wake_at):
            wake_at = earliest
            heap_time, heap_kind, heap_size = _push(heap_time, heap_kind, heap_size,
                                                    earliest, _WAKE)
    return start, end, fair, calls, nodes, hits, state


@njit(cache=True)
def _running_profile(now, capacity, est_end, size, running, n_running, ends, end_procs):
    """``SlackBackfill._running_profile``: the running jobs until their estimated ends."""
    for r in range(n_running):
        job = running[r]
        ends[r] = max(est_end[job], now)
        end_procs[r] = size[job]
    return _holding(now, capacity, ends, end_procs, n_running)


def simulate_plain(jobs: Sequence[Job], policy: SlackBackfill) -> Schedule:
    """The schedule the engine gives for ``policy`` (slack-based backfilling on the plain
    machine) on ``jobs``; the selector's fair start times and counts and the policy's
    starts are left as a run through the engine leaves them."""
    from schedsim.policies.slack import FST_FCFS, G1

    jobs, arrival, ordered = _in_arrival_order(jobs)
    settings = policy.settings
    size = np.array([policy.size(job) for job in ordered], np.int64)
    start, end, fair, calls, nodes, hits, state = plain_run(
        np.array([job.submit for job in ordered], np.float64),
        np.array([job.runtime for job in ordered], np.float64),
        np.array([job.estimate for job in ordered], np.float64), size,
        policy.machine.partitions[0], settings.fst == FST_FCFS, *_slack_constants(settings),
        settings.goal == G1, settings.max_nodes)
    _check_all_ran(state, ordered)
    back = np.array(arrival, np.int64)
    selector = policy.selector
    for index, fst, began in zip(back.tolist(), fair.tolist(), start.tolist(), strict=True):
        selector.fair_start[index] = fst
        policy.started[index] = began
    selector.calls, selector.nodes, selector.bound_hits = int(calls), int(nodes), int(hits)
    return _schedule(policy.machine, jobs, back, start, end, size, {})


def _in_arrival_order(jobs: Sequence[Job]) -> tuple[list[Job], list[int], list[Job]]:
    """``jobs`` with ``index`` set to their position (as the engine does), the positions in
    arrival order (submit time, then position), and the jobs in that order."""
    jobs = list(jobs)
    for index, job in enumerate(jobs):
        job.index = index
    arrival = sorted(range(len(jobs)), key=lambda i: (jobs[i].submit, i))
    return jobs, arrival, [jobs[i] for i in arrival]


def _check_all_ran(state: np.ndarray, ordered: list[Job]) -> None:
    if (state != _DONE).any():
        first = int(np.flatnonzero(state != _DONE)[0])
        raise SimulationError(f"the policy never started {int((state != _DONE).sum())} "
                              f"job(s), first job id {ordered[first].id}")


def _schedule(machine: Machine, jobs: list[Job], back: np.ndarray, start: np.ndarray,
              end: np.ndarray, size: np.ndarray,
              split: dict[int, list[tuple[float, float, tuple[int, ...]]]]) -> Schedule:
    """The ``Schedule`` of kernel results (in arrival order) for ``jobs``."""
    n = len(jobs)
    first_start = np.empty(n)
    last_end = np.empty(n)
    procs = np.empty(n, np.int64)
    first_start[back] = start
    last_end[back] = end
    procs[back] = size
    return Schedule(machine, jobs, first_start.tolist(), last_end.tolist(), procs.tolist(),
                    [0] * n, {}, split, None)


def simulate_scojo(jobs: Sequence[Job], policy: ScojoPECT) -> Schedule:
    """The schedule the engine gives for ``policy`` on ``jobs`` (``jobs[i].index`` set to
    ``i``, as the engine does); the policy's fairness statistics are left as a run
    through the engine leaves them."""
    from schedsim.policies.slack import FST_FCFS, G1, SlackSettings

    jobs, arrival, ordered = _in_arrival_order(jobs)
    settings = policy.settings
    slack = isinstance(settings, SlackSettings)
    klass = np.array([policy.klass(job) for job in ordered], np.int64)
    size = np.array([policy.size(job) for job in ordered], np.int64)
    out = scojo_run(
        np.array([job.submit for job in ordered], np.float64),
        np.array([job.runtime for job in ordered], np.float64),
        np.array([job.estimate for job in ordered], np.float64), size, klass,
        policy.capacity, settings.interval, settings.short_slice, settings.medium_share,
        NONTYPE_CODES[settings.nontype], slack, slack and settings.fst == FST_FCFS,
        *_slack_constants(settings) if slack else (1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1),
        slack and settings.goal == G1, settings.max_nodes if slack else 1)
    start, end, seg_job, seg_begin, seg_end, fair, started_class, calls, nodes, hits, state = out
    _check_all_ran(state, ordered)
    back = np.array(arrival, np.int64)  # kernel number -> position in ``jobs``
    split: dict[int, list[tuple[float, float, tuple[int, ...]]]] = {}
    for job, begin, finish in zip(back[seg_job].tolist(), seg_begin.tolist(),
                                  seg_end.tolist(), strict=True):
        split.setdefault(job, []).append((begin, finish, ()))
    _leave_statistics(policy, back.tolist(), klass.tolist(), fair.tolist(),
                      started_class.tolist(), calls, nodes, hits)
    return _schedule(policy.machine, jobs, back, start, end, size, split)


def _slack_constants(settings: SlackSettings) -> tuple[float, float, float, float, float,
                                                        float, int]:
    return (settings.slack_up, settings.slack_down, settings.slack_minimal, settings.k1,
            settings.k2, settings.wait_unit, settings.lookahead)


def _leave_statistics(policy: ScojoPECT, back: list[int], klass: list[int],
                      fair: list[float], started_class: list[float], calls: np.ndarray,
                      nodes: np.ndarray, hits: np.ndarray) -> None:
    """The policy's class of every job, and with slack selection the selectors' fair
    start times (in admission order), the class-time starts and the search counts."""
    for index, c in zip(back, klass, strict=True):
        policy.class_of[index] = c
    if policy.selectors is None:
        return
    for index, c, fst, began in zip(back, klass, fair, started_class, strict=True):
        policy.selectors[c].fair_start[index] = fst
        if began == began:
            policy.started[index] = began
    for c, selector in enumerate(policy.selectors):
        selector.calls = int(calls[c])
        selector.nodes = int(nodes[c])
        selector.bound_hits = int(hits[c])
