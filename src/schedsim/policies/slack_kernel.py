"""The placement loops of the SLACK policies compiled with numba.

Conservative placement of a queue on a profile, the fair start time at submission, and the
branch and bound of one scheduling call with its slack check (``schedsim.policies.slack``)
are written over arrays so that numba compiles them. They do the same comparisons and
floating-point operations in the same order as the pure-Python ``Profile`` and
``SlackSelector``; ``tests/test_slack_kernel.py`` requires equal results from both.
Compilation is cached on disk (numba's ``cache=True``).

A profile is three values: ``times`` and ``free`` (arrays with room to grow) and ``n``,
the number of steps in use; ``free[i]`` processors are free during ``[times[i],
times[i + 1])``, the last step extending to infinity (as ``Profile``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from schedsim.policies.profile import Profile


@njit(cache=True)
def _bisect_right(times, n, t):
    low, high = 0, n
    while low < high:
        middle = (low + high) // 2
        if t < times[middle]:
            high = middle
        else:
            low = middle + 1
    return low


@njit(cache=True)
def _earliest(times, free, n, procs, duration, not_before):
    i = max(0, _bisect_right(times, n, not_before) - 1)
    while True:
        while free[i] < procs:
            i += 1
        start = max(times[i], not_before)
        end = start + duration
        k = i + 1
        while k < n and times[k] < end and free[k] >= procs:
            k += 1
        if k == n or times[k] >= end:
            return start
        i = k


@njit(cache=True)
def _split(times, free, n, t):
    i = _bisect_right(times, n, t) - 1
    if times[i] == t:
        return i, n
    for j in range(n, i + 1, -1):
        times[j] = times[j - 1]
        free[j] = free[j - 1]
    times[i + 1] = t
    free[i + 1] = free[i]
    return i + 1, n + 1


@njit(cache=True)
def _reserve(times, free, n, start, end, procs):
    if end <= start:
        return n
    i, n = _split(times, free, n, start)
    k, n = _split(times, free, n, end)
    for j in range(i, k):
        free[j] -= procs
    return n


@njit(cache=True)
def _grown(times, free, n, room):
    out_times = np.empty(n + room, np.float64)
    out_free = np.empty(n + room, np.int64)
    out_times[:n] = times[:n]
    out_free[:n] = free[:n]
    return out_times, out_free


@njit(cache=True)
def place_queue(times, free, n, sizes, estimates, not_before):
    """Place every job in order at its earliest slot; the starts and the final profile."""
    m = len(sizes)
    work_times, work_free = _grown(times, free, n, 2 * m + 2)
    starts = np.empty(m, np.float64)
    for p in range(m):
        start = _earliest(work_times, work_free, n, sizes[p], estimates[p], not_before)
        n = _reserve(work_times, work_free, n, start, start + estimates[p], sizes[p])
        starts[p] = start
    return starts, work_times, work_free, n


@njit(cache=True)
def compress_queue(times, free, n, sizes, estimates, previous, not_before):
    """Conservative backfilling that keeps reservations: every job with a reservation
    (``previous``; NaN or earlier than ``not_before``: none) holds it, then in queue order
    each job gives its slot back and takes its earliest one, which is never later; jobs
    without one are placed at their earliest slot. (starts, final profile, whether the
    held reservations fitted; when they do not, nothing is placed.)"""
    m = len(sizes)
    work_times, work_free = _grown(times, free, n, 4 * m + 2)
    starts = np.empty(m, np.float64)
    previous = previous.copy()
    for p in range(m):
        if previous[p] < not_before:  # a slot in the past is no reservation
            previous[p] = np.nan
    for p in range(m):
        if not np.isnan(previous[p]):
            n = _reserve(work_times, work_free, n, previous[p], previous[p] + estimates[p],
                         sizes[p])
    for i in range(n):
        if work_free[i] < 0:
            return starts, work_times, work_free, n, False
    for p in range(m):
        if not np.isnan(previous[p]):
            n = _reserve(work_times, work_free, n, previous[p], previous[p] + estimates[p],
                         -sizes[p])
        start = _earliest(work_times, work_free, n, sizes[p], estimates[p], not_before)
        n = _reserve(work_times, work_free, n, start, start + estimates[p], sizes[p])
        starts[p] = start
    return starts, work_times, work_free, n, True


@njit(cache=True)
def reserve_all(times, free, n, starts, sizes, estimates):
    """The profile with every job reserved at its given start."""
    m = len(sizes)
    work_times, work_free = _grown(times, free, n, 2 * m + 2)
    for p in range(m):
        n = _reserve(work_times, work_free, n, starts[p], starts[p] + estimates[p], sizes[p])
    return work_times, work_free, n


@njit(cache=True)
def fair_start(times, free, n, sizes, estimates, now, size, estimate, after_earlier):
    """A new job's fair start time: the earlier jobs placed conservatively, then the job,
    no earlier than the latest of their starts when ``after_earlier`` (fst: fcfs)."""
    m = len(sizes)
    work_times, work_free = _grown(times, free, n, 2 * m + 2)
    latest = now
    for p in range(m):
        start = _earliest(work_times, work_free, n, sizes[p], estimates[p], now)
        n = _reserve(work_times, work_free, n, start, start + estimates[p], sizes[p])
        latest = max(latest, start)
    not_before = latest if after_earlier else now
    return _earliest(work_times, work_free, n, size, estimate, not_before)


@njit(cache=True)
def _place_unchosen(work_times, work_free, n, now, sizes, estimates, bounds, chosen, starts,
                    first, last):
    """The slack check's re-placement of the jobs ``first`` to ``last - 1`` not in
    ``chosen``, in queue order, each at its earliest slot; stops at the first job placed
    after its bound. (steps in use, whether every job kept its bound); ``starts`` filled.

    The slack checks' placements are most of a search: ``_earliest`` and ``_reserve`` are
    written out here, the same operations, because numba's calls (inlined or not) update
    the reference counts of the profile's arrays at every placement, which took about a
    third of a slack-backfill run."""
    for p in range(first, last):
        if chosen[p]:
            continue
        procs = sizes[p]
        duration = estimates[p]
        # _earliest(work_times, work_free, n, procs, duration, now)
        low, high = 0, n
        while low < high:
            middle = (low + high) // 2
            if now < work_times[middle]:
                high = middle
            else:
                low = middle + 1
        i = max(0, low - 1)
        while True:
            while work_free[i] < procs:
                i += 1
            start = max(work_times[i], now)
            end = start + duration
            k = i + 1
            while k < n and work_times[k] < end and work_free[k] >= procs:
                k += 1
            if k == n or work_times[k] >= end:
                break
            i = k
        # _reserve(work_times, work_free, n, start, end, procs)
        if start < end:
            lo = -1
            for t in (start, end):
                low, high = 0, n
                while low < high:
                    middle = (low + high) // 2
                    if t < work_times[middle]:
                        high = middle
                    else:
                        low = middle + 1
                j = low - 1
                if work_times[j] != t:
                    for q in range(n, j + 1, -1):
                        work_times[q] = work_times[q - 1]
                        work_free[q] = work_free[q - 1]
                    work_times[j + 1] = t
                    work_free[j + 1] = work_free[j]
                    j += 1
                    n += 1
                if lo < 0:
                    lo = j
            for q in range(lo, j):
                work_free[q] -= procs
        if start > bounds[p]:
            return n, False
        starts[p] = start
    return n, True


@njit(cache=True)
def _metrics(capacity, busy, fair, starts):
    """(U, OU, SU) of a placement that passed the slack check."""
    m = len(starts)
    late = 0.0
    early = 0.0
    for p in range(m):
        late += max(starts[p] - fair[p], 0.0)
    for p in range(m):
        early += max(fair[p] - starts[p], 0.0)
    return busy / capacity, late / m, early / m


@njit(cache=True)
def _check_window(times, free, n, work_times, work_free, now, capacity, free_now, sizes,
                  estimates, bounds, chosen, starts, window):
    """The slack check of the set ``chosen`` up to the end of the window: the profile
    copied, the chosen jobs reserved from now, the other window jobs re-placed. (steps in
    use, whether every re-placed job kept its bound, processors busy with the set
    started); ``starts`` filled up to ``window``."""
    work_times[:n] = times[:n]
    work_free[:n] = free[:n]
    busy = capacity - free_now
    for p in range(window):
        if chosen[p]:
            n = _reserve(work_times, work_free, n, now, now + estimates[p], sizes[p])
            starts[p] = now
            busy += sizes[p]
    n, passed = _place_unchosen(work_times, work_free, n, now, sizes, estimates, bounds,
                                chosen, starts, 0, window)
    return n, passed, busy


# -- the tails of one search --------------------------------------------------------------
# The jobs after the lookahead window are never chosen: the slack check re-places them, in
# queue order, on the profile left by the window's jobs, and that profile (steps and free
# processors, bit for bit) with the call's fixed queue and bounds determines their starts
# and whether each keeps its bound. Different sets often leave the same profile (a window
# job that the re-placement puts at now anyway reserves what choosing it reserves), so a
# search keeps, per distinct profile, the outcome of its tail: a hash table from the
# profile to an entry; an entry's profile is stored (times as their bits, then the free
# processors) so that a match is checked exactly.

@njit(cache=True)
def _fingerprint(bits, free, n):
    """A hash of the profile ``(bits, free)`` of ``n`` steps (``bits``: the times' bits)."""
    h = np.int64(n)
    for i in range(n):
        h = (h ^ bits[i]) * np.int64(1099511628211)
        h = (h ^ free[i]) * np.int64(1099511628211)
    return h


@njit(cache=True)
def _tail_find(table, keys, offsets, store, key, bits, free, n):
    """(the entry holding the profile, or -1; the table slot that holds or would hold it)."""
    mask = table.shape[0] - 1
    slot = key & mask
    while True:
        entry = table[slot]
        if entry < 0:
            return -1, slot
        if keys[entry] == key and offsets[entry + 1] - offsets[entry] == 2 * n:
            at = offsets[entry]
            same = True
            for i in range(n):
                if store[at + i] != bits[i] or store[at + n + i] != free[i]:
                    same = False
                    break
            if same:
                return entry, slot
        slot = (slot + 1) & mask


@njit(cache=True)
def _tail_add(table, keys, offsets, store, outcomes, tails, entries, slot, key, bits, free,
              n, passed, starts, first):
    """The tables with a new entry in ``slot``: the profile, whether its tail passed and
    the tail's starts (``starts[first:]``); arrays that are full come back grown."""
    tail = starts.shape[0] - first
    room = keys.shape[0]
    if entries == room:
        room *= 2
        grown_keys = np.empty(room, np.int64)
        grown_keys[:entries] = keys[:entries]
        grown_offsets = np.empty(room + 1, np.int64)
        grown_offsets[:entries + 1] = offsets[:entries + 1]
        grown_outcomes = np.empty(room, np.bool_)
        grown_outcomes[:entries] = outcomes[:entries]
        grown_tails = np.empty(room * tail, np.float64)
        grown_tails[:entries * tail] = tails[:entries * tail]
        keys, offsets, outcomes, tails = grown_keys, grown_offsets, grown_outcomes, grown_tails
    at = offsets[entries]
    if at + 2 * n > store.shape[0]:
        grown_store = np.empty(max(2 * store.shape[0], at + 2 * n), np.int64)
        grown_store[:at] = store[:at]
        store = grown_store
    store[at:at + n] = bits[:n]
    store[at + n:at + 2 * n] = free[:n]
    offsets[entries + 1] = at + 2 * n
    keys[entries] = key
    outcomes[entries] = passed
    tails[entries * tail:(entries + 1) * tail] = starts[first:]
    table[slot] = entries
    entries += 1
    if 2 * entries > table.shape[0]:  # at most half full: short probes
        table = np.full(2 * table.shape[0], -1, np.int64)
        mask = table.shape[0] - 1
        for entry in range(entries):
            slot = keys[entry] & mask
            while table[slot] >= 0:
                slot = (slot + 1) & mask
            table[slot] = entry
    return table, keys, offsets, store, outcomes, tails, entries


@njit(cache=True)
def _better(goal_g1, u, ou, su, best_u, best_ou, best_su):
    if goal_g1:
        if ou != best_ou:
            return ou < best_ou
        if u != best_u:
            return u > best_u
        return su < best_su
    if u != best_u:
        return u > best_u
    if ou != best_ou:
        return ou < best_ou
    return su < best_su


@njit(cache=True)
def bounds_at(now, submitted, fair, full_slack, slack_minimal):
    """Every job's latest start at ``now`` (``SlackSelector.bound``: eq. 5 and 7, the same
    operations): submit + F_part (FST - submit); F_part 1 when FST is the submission."""
    m = len(submitted)
    out = np.empty(m, np.float64)
    for p in range(m):
        t_wait = fair[p] - submitted[p]
        if t_wait <= 0:
            part = 1.0
        else:
            minimal = min(slack_minimal, full_slack[p])
            part = min(full_slack[p],
                       minimal + (now - submitted[p]) * (full_slack[p] - minimal) / t_wait)
        out[p] = submitted[p] + part * t_wait
    return out


@njit(cache=True)
def slack_search(times, free, n, now, capacity, free_now, sizes, estimates, submitted, fair,
                 full_slack, slack_minimal, lookahead, goal_g1, max_nodes):
    """The branch and bound of one call over the first ``lookahead`` of the waiting jobs
    (``SlackSelector.search``): (found, starts of the best set's placement, nodes tried,
    whether ``max_nodes`` stopped the search). ``submitted``, ``fair`` and ``full_slack``
    (F_slack) give each job's bound (``bounds_at``). Every set tried gets the slack check's
    result; the re-placement of the jobs after the window is taken from an earlier set
    that left the same profile (the tails above)."""
    bounds = bounds_at(now, submitted, fair, full_slack, slack_minimal)
    m = len(sizes)
    window = min(lookahead, m)
    work_times, work_free = _grown(times, free, n, 2 * m + 2)
    work_bits = work_times.view(np.int64)
    chosen = np.zeros(m, np.bool_)
    starts = np.empty(m, np.float64)
    best = np.empty(m, np.float64)
    path = np.empty(window, np.int64)
    tail = m - window
    table = np.full(16, -1, np.int64)  # the tails (above): slot -> entry, -1 for none
    keys = np.empty(8, np.int64)
    offsets = np.zeros(9, np.int64)
    store = np.empty(8 * 2 * (n + 2 * window + 2), np.int64)
    outcomes = np.empty(8, np.bool_)
    tails = np.empty(8 * tail, np.float64)
    entries = 0
    found = False
    best_u = best_ou = best_su = 0.0
    nodes = 0
    hit = False
    depth = 0
    left = free_now
    position = 0
    while True:
        while position < window and sizes[position] > left:
            position += 1
        if position < window:
            if nodes == max_nodes:
                hit = True
                break
            nodes += 1
            chosen[position] = True
            work_n, passed, busy = _check_window(times, free, n, work_times, work_free,
                                                 now, capacity, free_now, sizes, estimates,
                                                 bounds, chosen, starts, window)
            if passed and tail > 0:
                key = _fingerprint(work_bits, work_free, work_n)
                entry, slot = _tail_find(table, keys, offsets, store, key, work_bits,
                                         work_free, work_n)
                if entry >= 0:
                    passed = outcomes[entry]
                    if passed:
                        starts[window:] = tails[entry * tail:(entry + 1) * tail]
                else:
                    profile_n = work_n
                    profile_bits = work_bits[:work_n].copy()
                    profile_free = work_free[:work_n].copy()
                    work_n, passed = _place_unchosen(work_times, work_free, work_n, now,
                                                     sizes, estimates, bounds, chosen, starts,
                                                     window, m)
                    table, keys, offsets, store, outcomes, tails, entries = _tail_add(
                        table, keys, offsets, store, outcomes, tails, entries, slot, key,
                        profile_bits, profile_free, profile_n, passed, starts, window)
            if passed:
                u, ou, su = _metrics(capacity, busy, fair, starts)
                if not found or _better(goal_g1, u, ou, su, best_u, best_ou, best_su):
                    found = True
                    best_u, best_ou, best_su = u, ou, su
                    best[:] = starts
                path[depth] = position
                depth += 1
                left -= sizes[position]
                position += 1
            else:
                chosen[position] = False
                position += 1
        else:
            if depth == 0:
                break
            depth -= 1
            last = path[depth]
            chosen[last] = False
            left += sizes[last]
            position = last + 1
    return found, best, nodes, hit


def to_arrays(profile: Profile) -> tuple[np.ndarray, np.ndarray, int]:
    """A ``Profile`` as kernel arrays."""
    return (np.array(profile.times, np.float64), np.array(profile.free, np.int64),
            len(profile.times))


def from_arrays(times: np.ndarray, free: np.ndarray, n: int) -> Profile:
    """Kernel arrays as a ``Profile``."""
    profile = Profile.__new__(Profile)
    profile.times = times[:n].tolist()
    profile.free = free[:n].tolist()
    return profile
