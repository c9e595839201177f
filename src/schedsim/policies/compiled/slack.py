"""Slack-based fair backfilling (``schedsim.policies.slack``) as compiled decisions.

The selector of one virtual machine in its own clock (``SlackSelector``): the fair start
time at submission, the bounds of eq. 5 and 7, and the selection of one scheduling call
(the FCFS prefix, then the branch and bound over the lookahead window with its slack
check, else conservative placement); and the policy on the plain machine
(``SlackBackfill``): fair start at every arrival, one selection per call, the jobs
placed at now started, a wake-up at the earliest later start. Scojo-PECT uses the same
selector per job class (``schedsim.policies.compiled.scojo``). The same comparisons and
floating-point operations, in the same order, as the Python policies.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import typeof, types
from numba.experimental import structref

from schedsim.kernel import loop
from schedsim.kernel.arrays import copy_into, gather_into
from schedsim.kernel.cache import kernel
from schedsim.kernel.loop import (
    compiled_policy,
    rigid_engine,
    running_ends,
    start_job,
    wake_up,
)
from schedsim.kernel.profile import earliest, grown, holding, place, reserve
from schedsim.kernel.records import Record, new, record_type

_f8, _i8, _b1 = types.float64, types.int64, types.boolean


class SlackConstants(NamedTuple):
    """The settings of ``SlackSettings`` a compiled run reads (eq. 5 and 7, sec. 4.3.3)."""

    slack_up: float
    slack_down: float
    slack_minimal: float
    k1: float
    k2: float
    wait_unit: float
    lookahead: int
    goal_g1: bool  # goal G1 (least overall unfairness first), else G2
    fst_fcfs: bool  # fair start in the back of the earlier jobs' placement (fst: fcfs)
    max_nodes: int


SLACK_CONSTANTS = typeof(SlackConstants(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1, True, True, 1))


def slack_constants(settings) -> SlackConstants:  # type: ignore[no-untyped-def]
    """The compiled form of a ``SlackSettings``."""
    return SlackConstants(float(settings.slack_up), float(settings.slack_down),
                          float(settings.slack_minimal), float(settings.k1),
                          float(settings.k2), float(settings.wait_unit),
                          int(settings.lookahead), settings.goal == "G1",
                          settings.fst == "fcfs", int(settings.max_nodes))


@kernel
def slack_factor(t_wait, constants):
    """F_slack of eq. 5 (``slack.slack_factor``)."""
    return min(constants.slack_up,
               constants.k2 * math.exp(constants.k1 * t_wait / constants.wait_unit)
               + constants.slack_down)


# -- placements on a profile ------------------------------------------------------------
@kernel
def place_queue(times, free, n, sizes, estimates, not_before):
    """Place every job in order at its earliest slot; (starts, the final profile)."""
    m = len(sizes)
    work_times, work_free = grown(times, free, n, 2 * m + 2)
    starts = np.empty(m, np.float64)
    n = _place_in_order(work_times, work_free, n, sizes, estimates, not_before, starts)
    return starts, work_times, work_free, n


@kernel(_nrt=False)
def _place_in_order(work_times, work_free, n, sizes, estimates, not_before, starts):
    """:func:`place_queue` on a profile with room: ``starts`` filled; steps in use.
    Compiled without reference counting, as every function here that only borrows
    arrays (a search calls them per node: numba's counting was most of its time)."""
    for p in range(len(sizes)):
        starts[p], n = place(work_times, work_free, n, sizes[p], estimates[p], not_before)
    return n


@kernel
def compress_queue(times, free, n, sizes, estimates, previous, not_before, keep):
    """Conservative backfilling that keeps reservations: every job with a reservation
    (``previous``; NaN or earlier than ``not_before``: none) holds it, then in queue order
    each job gives its slot back and takes its earliest one, which is never later; jobs
    without one are placed at their earliest slot. (starts, final profile, whether the
    held reservations fitted; when they do not, nothing is placed.) ``keep``: a plan held
    as it is (a slot earlier than ``not_before`` counts as ``not_before``), only the jobs
    without a slot placed, and always fitted."""
    m = len(sizes)
    work_times, work_free = grown(times, free, n, 4 * m + 2)
    starts = np.empty(m, np.float64)
    n, fitted = _compress_in_place(work_times, work_free, n, sizes, estimates,
                                   previous.copy(), not_before, keep, starts)
    return starts, work_times, work_free, n, fitted


@kernel(_nrt=False)
def _compress_in_place(work_times, work_free, n, sizes, estimates, previous, not_before,
                       keep, starts):
    """:func:`compress_queue` on a profile with room, ``previous`` a copy it may change:
    ``starts`` filled; (steps in use, whether the held reservations fitted)."""
    m = len(sizes)
    for p in range(m):
        if previous[p] < not_before:
            # a slot in the past is no reservation; in a kept plan it is now
            previous[p] = not_before if keep else np.nan
    for p in range(m):
        if not np.isnan(previous[p]):
            _, _, n = reserve(work_times, work_free, n, previous[p], previous[p] + estimates[p],
                              sizes[p], -1, -1)
    if not keep:
        for i in range(n):
            if work_free[i] < 0:
                return n, False
    for p in range(m):
        if not np.isnan(previous[p]):
            if keep:
                starts[p] = previous[p]
                continue
            _, _, n = reserve(work_times, work_free, n, previous[p], previous[p] + estimates[p],
                              -sizes[p], -1, -1)
        starts[p], n = place(work_times, work_free, n, sizes[p], estimates[p], not_before)
    return n, True


@kernel
def compress(times, free, n, sizes, estimates, previous, clock, keep):
    """``slack.compress``: keep the reservations if they fit, else place from scratch
    (``keep``: the plan held as it is); (starts, the profile holding every job)."""
    found, work_times, work_free, work_n, fitted = compress_queue(
        times, free, n, sizes, estimates, previous, clock, keep)
    if not fitted:
        found, work_times, work_free, work_n = place_queue(times, free, n, sizes, estimates,
                                                           clock)
    return found, work_times, work_free, work_n


@kernel
def reserve_all(times, free, n, starts, sizes, estimates):
    """The profile with every job reserved at its given start."""
    work_times, work_free = grown(times, free, n, 2 * len(sizes) + 2)
    return work_times, work_free, _reserve_each(work_times, work_free, n, starts, sizes,
                                                estimates)


@kernel(_nrt=False)
def _reserve_each(work_times, work_free, n, starts, sizes, estimates):
    """:func:`reserve_all` on a profile with room; steps in use."""
    for p in range(len(sizes)):
        _, _, n = reserve(work_times, work_free, n, starts[p], starts[p] + estimates[p],
                          sizes[p], -1, -1)
    return n


@kernel
def fair_start(times, free, n, sizes, estimates, previous, now, size, estimate,
               after_earlier):
    """``SlackSelector.admit``: a new job's (fair start time, slot in the plan): the
    earlier jobs hold their slots ``previous`` (NaN: placed at their earliest), the job's
    slot is its earliest start around them, its fair start that slot or, when
    ``after_earlier`` (fst: fcfs), its earliest start no earlier than theirs."""
    starts, work_times, work_free, work_n, _ = compress_queue(
        times, free, n, sizes, estimates, previous, now, True)
    latest = now
    for p in range(len(sizes)):
        latest = max(latest, starts[p])
    own = earliest(work_times, work_free, work_n, size, estimate, now)[0]
    if not after_earlier:
        return own, own
    return earliest(work_times, work_free, work_n, size, estimate, latest)[0], own


# -- the branch and bound of one call (sec. 4.3.3) ----------------------------------------
@kernel(_nrt=False)
def _place_unchosen(work_times, work_free, n, now, sizes, estimates, bounds, chosen, starts,
                    first, last):
    """The slack check's re-placement of the jobs ``first`` to ``last - 1`` not in
    ``chosen``, in queue order, each at its earliest slot; stops at the first job placed
    after its bound. (steps in use, whether every job kept its bound); ``starts`` filled.
    Compiled without reference counting: it only borrows arrays (most of a search's time
    is here)."""
    for p in range(first, last):
        if chosen[p]:
            continue
        start, n = place(work_times, work_free, n, sizes[p], estimates[p], now)
        if start > bounds[p]:
            return n, False
        starts[p] = start
    return n, True


@kernel(_nrt=False)
def _metrics(capacity, busy, fair, starts, first):
    """(U, OU, SU) of a placement that passed the slack check, OU and SU over the jobs
    from ``first`` on (0 without jobs)."""
    m = len(starts)
    late = 0.0
    early = 0.0
    for p in range(first, m):  # two sums in one pass, each in the order of the Python one
        late += max(starts[p] - fair[p], 0.0)
        early += max(fair[p] - starts[p], 0.0)
    count = max(m - first, 1)
    return busy / capacity, late / count, early / count


@kernel(_nrt=False)
def _check_window(times, free, n, work_times, work_free, now, capacity, free_now, sizes,
                  estimates, bounds, chosen, starts, window, place_window):
    """The slack check of the set ``chosen`` up to the end of the window: the profile
    copied, the chosen jobs reserved from now, the other window jobs re-placed (not
    placed, their starts NaN, unless ``place_window``). (steps in use, whether every
    re-placed job kept its bound, processors busy with the set started); ``starts``
    filled up to ``window``."""
    copy_into(work_times, 0, times, 0, n)
    copy_into(work_free, 0, free, 0, n)
    busy = capacity - free_now
    for p in range(window):
        if chosen[p]:
            _, _, n = reserve(work_times, work_free, n, now, now + estimates[p], sizes[p],
                              -1, -1)
            starts[p] = now
            busy += sizes[p]
        elif not place_window:
            starts[p] = np.nan
    if not place_window:
        return n, True, busy
    n, passed = _place_unchosen(work_times, work_free, n, now, sizes, estimates, bounds,
                                chosen, starts, 0, window)
    return n, passed, busy


# The jobs after the lookahead window are never chosen: the slack check re-places them, in
# queue order, on the profile left by the window's jobs, and that profile (steps and free
# processors, bit for bit) with the call's fixed queue and bounds determines their starts
# and whether each keeps its bound. Different sets often leave the same profile (a window
# job that the re-placement puts at now anyway reserves what choosing it reserves), so a
# search keeps, per distinct profile, the outcome of its tail: a hash table from the
# profile to an entry; an entry's profile is stored (times as their bits, then the free
# processors) so that a match is checked exactly.

@kernel(_nrt=False)
def _fingerprint(bits, free, n):
    """A hash of the profile ``(bits, free)`` of ``n`` steps (``bits``: the times' bits)."""
    h = np.int64(n)
    for i in range(n):
        h = (h ^ bits[i]) * np.int64(1099511628211)
        h = (h ^ free[i]) * np.int64(1099511628211)
    return h


@record_type
class TailTable(Record):
    """The tails of one search, per distinct profile (the comment above)."""


TAIL_TABLE = TailTable([
    ("slots", _i8[::1]),  # hash slot -> entry, -1 for none
    ("keys", _i8[::1]), ("offsets", _i8[::1]), ("store", _i8[::1]),
    ("passed", _b1[::1]), ("starts", _f8[::1]), ("entries", _i8), ("tail", _i8)])


@kernel
def _new_tails(tail, steps):
    table = new(TAIL_TABLE)
    table.slots = np.full(16, -1, np.int64)
    table.keys = np.empty(8, np.int64)
    table.offsets = np.zeros(9, np.int64)
    table.store = np.empty(8 * 2 * steps, np.int64)
    table.passed = np.empty(8, np.bool_)
    table.starts = np.empty(8 * tail, np.float64)
    table.entries = 0
    table.tail = tail
    return table


@kernel
def _clear_tails(table, tail):
    """The table emptied for a search whose tails hold ``tail`` jobs; its arrays are kept
    (a run makes one table, not one per call): only the slots in use are cleared."""
    slots, keys = table.slots, table.keys
    mask = slots.shape[0] - 1
    for entry in range(table.entries):
        slot = keys[entry] & mask
        while slots[slot] != entry:
            slot = (slot + 1) & mask
        slots[slot] = -1
    table.entries = 0
    table.tail = tail
    if table.starts.shape[0] < keys.shape[0] * tail:
        table.starts = np.empty(keys.shape[0] * tail, np.float64)


@kernel
def _tail_find(table, key, bits, free, n):
    """(the entry holding the profile, or -1; the hash slot that holds or would hold it)."""
    slots, keys, offsets, store = table.slots, table.keys, table.offsets, table.store
    mask = slots.shape[0] - 1
    slot = key & mask
    while True:
        entry = slots[slot]
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


@kernel
def _tail_open(table, slot, key, bits, free, n):
    """A new entry in ``slot`` holding the profile ``(bits, free)`` of ``n`` steps, before
    its tail is placed on it; full arrays are grown. Returns the entry, whose outcome
    :func:`_tail_close` sets."""
    tail, entries = table.tail, table.entries
    room = table.keys.shape[0]
    if entries == room:
        room *= 2
        keys = np.empty(room, np.int64)
        copy_into(keys, 0, table.keys, 0, entries)
        offsets = np.empty(room + 1, np.int64)
        copy_into(offsets, 0, table.offsets, 0, entries + 1)
        outcomes = np.empty(room, np.bool_)
        copy_into(outcomes, 0, table.passed, 0, entries)
        tails = np.empty(room * tail, np.float64)
        copy_into(tails, 0, table.starts, 0, entries * tail)
        table.keys, table.offsets, table.passed, table.starts = keys, offsets, outcomes, tails
    at = table.offsets[entries]
    if at + 2 * n > table.store.shape[0]:
        store = np.empty(max(2 * table.store.shape[0], at + 2 * n), np.int64)
        copy_into(store, 0, table.store, 0, at)
        table.store = store
    copy_into(table.store, at, bits, 0, n)
    copy_into(table.store, at + n, free, 0, n)
    table.offsets[entries + 1] = at + 2 * n
    table.keys[entries] = key
    table.slots[slot] = entries
    table.entries = entries + 1
    if 2 * table.entries > table.slots.shape[0]:  # at most half full: short probes
        slots = np.full(2 * table.slots.shape[0], -1, np.int64)
        mask = slots.shape[0] - 1
        for other in range(table.entries):
            at_slot = table.keys[other] & mask
            while slots[at_slot] >= 0:
                at_slot = (at_slot + 1) & mask
            slots[at_slot] = other
        table.slots = slots
    return entries


@kernel
def _tail_close(table, entry, passed, starts, first):
    """The outcome of ``entry``'s tail: whether it passed, and its starts
    (``starts[first:]``)."""
    table.passed[entry] = passed
    copy_into(table.starts, entry * table.tail, starts, first, table.tail)


# The arrays of a search, kept by the policy for its whole run and reused by every call
# (sized for the longest queue so far): a Scojo-PECT run calls the search about 40,000
# times, and allocating and freeing its dozen arrays at each call was about a tenth of
# such a run.
@record_type
class SearchScratch(Record):
    """The arrays of :func:`slack_search`, reused across its calls."""


class SearchScratchHandle(structref.StructRefProxy):
    """A :class:`SearchScratch` held by Python (tests search with one scratch throughout)."""


structref.define_boxing(SearchScratch, SearchScratchHandle)

SEARCH_SCRATCH = SearchScratch([
    # slack_search's own, per job and the profile it works on
    ("chosen", _b1[::1]), ("starts", _f8[::1]), ("best", _f8[::1]), ("path", _i8[::1]),
    ("bounds", _f8[::1]), ("work_times", _f8[::1]), ("work_free", _i8[::1]),
    ("tails", TAIL_TABLE),
    # a caller's: the searched jobs' columns, the profile searched and select's starts
    ("sizes", _i8[::1]), ("spans", _f8[::1]), ("submitted", _f8[::1]), ("fair", _f8[::1]),
    ("full_slack", _f8[::1]), ("base_times", _f8[::1]), ("base_free", _i8[::1]),
    ("selected", _f8[::1])])


@kernel
def new_search_scratch():
    """Arrays for :func:`slack_search`, grown by it as needed."""
    scratch = new(SEARCH_SCRATCH)
    _size_per_job(scratch, 16)
    scratch.work_times = np.empty(64, np.float64)
    scratch.work_free = np.empty(64, np.int64)
    scratch.base_times = np.empty(64, np.float64)
    scratch.base_free = np.empty(64, np.int64)
    scratch.tails = _new_tails(1, 16)
    return scratch


@kernel
def _size_per_job(scratch, m):
    scratch.chosen = np.empty(m, np.bool_)
    scratch.starts = np.empty(m, np.float64)
    scratch.best = np.empty(m, np.float64)
    scratch.path = np.empty(m, np.int64)
    scratch.bounds = np.empty(m, np.float64)
    scratch.sizes = np.empty(m, np.int64)
    scratch.spans = np.empty(m, np.float64)
    scratch.submitted = np.empty(m, np.float64)
    scratch.fair = np.empty(m, np.float64)
    scratch.full_slack = np.empty(m, np.float64)
    scratch.selected = np.empty(m, np.float64)


@kernel
def fit_scratch(scratch, m, steps):
    """Room in ``scratch`` for ``m`` jobs and profiles of ``steps`` steps."""
    if scratch.chosen.shape[0] < m:
        _size_per_job(scratch, max(m, 2 * scratch.chosen.shape[0]))
    if scratch.work_times.shape[0] < steps:
        room = max(steps, 2 * scratch.work_times.shape[0])
        scratch.work_times = np.empty(room, np.float64)
        scratch.work_free = np.empty(room, np.int64)
        scratch.base_times = np.empty(room, np.float64)
        scratch.base_free = np.empty(room, np.int64)


@kernel(_nrt=False)
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


@kernel(_nrt=False)
def _bounds_into(out, now, submitted, fair, full_slack, slack_minimal):
    """Every job's latest start at ``now``, into ``out`` (``SlackSelector.bound``: eq. 5
    and 7, the same operations): submit + F_part (FST - submit); F_part 1 when FST is the
    submission."""
    for p in range(len(submitted)):
        t_wait = fair[p] - submitted[p]
        if t_wait <= 0:
            part = 1.0
        else:
            minimal = min(slack_minimal, full_slack[p])
            part = min(full_slack[p],
                       minimal + (now - submitted[p]) * (full_slack[p] - minimal) / t_wait)
        out[p] = submitted[p] + part * t_wait


@kernel
def slack_search(times, free, n, now, capacity, free_now, sizes, estimates, submitted, fair,
                 full_slack, constants, window, place_window, scratch):
    """The branch and bound of one call over the first ``window`` jobs: (found, starts of
    the best set's placement, nodes tried, whether ``max_nodes`` stopped the search).
    ``place_window``: the jobs are one queue, the window its first ``lookahead``, and the
    slack check re-places every job not chosen (``SlackSelector.search``); else the
    window holds non-type candidates (estimates: the time they hold processors), the
    check re-places only the jobs after it and the goal measures them
    (``SlackSelector.search_backfill``; a candidate not chosen has start NaN). Every set
    tried gets the slack check's result; the re-placement of the jobs after the window
    is taken from an earlier set that left the same profile (the tails above).
    ``scratch`` (:func:`new_search_scratch`) holds the arrays; ``best`` is a view of it,
    valid until the next call with it."""
    m = len(sizes)
    fit_scratch(scratch, m, n + 2 * m + 2)
    bounds = scratch.bounds[:m]
    _bounds_into(bounds, now, submitted, fair, full_slack, constants.slack_minimal)
    measured = 0 if place_window else window
    # non-type candidates with no waiting job behind them: no check to make
    nothing_placed = not place_window and m == window
    work_times, work_free = scratch.work_times, scratch.work_free
    work_bits = work_times.view(np.int64)
    chosen = scratch.chosen[:m]
    for p in range(m):
        chosen[p] = False
    starts = scratch.starts[:m]
    best = scratch.best[:m]
    path = scratch.path
    tail = m - window
    tails = scratch.tails
    _clear_tails(tails, tail)
    found = False
    best_u = best_ou = best_su = 0.0
    nodes = 0
    hit = False
    depth = 0
    left = free_now
    position = 0
    work_n = n
    while True:
        while position < window and sizes[position] > left:
            position += 1
        if position < window:
            if nodes == constants.max_nodes:
                hit = True
                break
            nodes += 1
            chosen[position] = True
            if nothing_placed:  # every set passes: only its processors count
                passed, busy = True, capacity - left + sizes[position]
            else:
                work_n, passed, busy = _check_window(times, free, n, work_times, work_free,
                                                     now, capacity, free_now, sizes,
                                                     estimates, bounds, chosen, starts,
                                                     window, place_window)
            if passed and tail > 0:
                key = _fingerprint(work_bits, work_free, work_n)
                entry, slot = _tail_find(tails, key, work_bits, work_free, work_n)
                if entry >= 0:
                    passed = tails.passed[entry]
                    if passed:
                        copy_into(starts, window, tails.starts, entry * tail, tail)
                else:
                    entry = _tail_open(tails, slot, key, work_bits, work_free, work_n)
                    work_n, passed = _place_unchosen(work_times, work_free, work_n, now,
                                                     sizes, estimates, bounds, chosen, starts,
                                                     window, m)
                    _tail_close(tails, entry, passed, starts, window)
            if passed:
                u, ou, su = _metrics(capacity, busy, fair, starts, measured)
                if not found or _better(constants.goal_g1, u, ou, su, best_u, best_ou,
                                        best_su):
                    found = True
                    best_u, best_ou, best_su = u, ou, su
                    if nothing_placed:
                        for p in range(window):
                            starts[p] = now if chosen[p] else np.nan
                    copy_into(best, 0, starts, 0, m)
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


@kernel
def select(times, free, n, now, capacity, free_now, mine, size, estimate, submitted, fair,
           full_slack, previous, constants, scratch):
    """``SlackSelector.select``: the FCFS prefix that fits, then the branch and bound over
    the rest; when no set passes, the whole queue by conservative backfilling keeping the
    reservations ``previous`` (per job of ``mine``). (starts in queue order, nodes,
    whether max_nodes hit); ``scratch``: the search's arrays (:func:`slack_search`), which
    also hold the starts returned, valid until the next call with it."""
    m = mine.shape[0]
    fit_scratch(scratch, m, n + 2 * m + 2)
    work_times, work_free = scratch.base_times, scratch.base_free
    copy_into(work_times, 0, times, 0, n)
    copy_into(work_free, 0, free, 0, n)
    work_n = n
    starts = scratch.selected[:m]
    first = 0
    while first < m and size[mine[first]] <= free_now:
        job = mine[first]
        _, _, work_n = reserve(work_times, work_free, work_n, now, now + estimate[job],
                               size[job], -1, -1)
        starts[first] = now
        free_now -= size[job]
        first += 1
    if first == m:
        return starts, 0, 0
    rest = mine[first:]
    k = m - first
    gather_into(scratch.sizes, 0, size, rest)
    gather_into(scratch.spans, 0, estimate, rest)
    gather_into(scratch.submitted, 0, submitted, rest)
    gather_into(scratch.fair, 0, fair, rest)
    gather_into(scratch.full_slack, 0, full_slack, rest)
    found, best, found_nodes, hit = slack_search(
        work_times, work_free, work_n, now, capacity, free_now, scratch.sizes[:k],
        scratch.spans[:k], scratch.submitted[:k], scratch.fair[:k], scratch.full_slack[:k],
        constants, min(constants.lookahead, k), True, scratch)
    if not found:
        return (compress(times, free, n, size[mine], estimate[mine], previous, now, False)[0],
                found_nodes, 1 if hit else 0)
    copy_into(starts, first, best, 0, m - first)
    return starts, found_nodes, 1 if hit else 0


# -- the plain machine (SlackBackfill) ------------------------------------------------------
@record_type
class SlackPlain(Record):
    """Slack-based backfilling on the plain machine: queue, fair starts and counts."""


SLACK_PLAIN = SlackPlain([
    ("constants", SLACK_CONSTANTS), ("capacity", _i8), ("queue", _i8[::1]), ("length", _i8),
    ("fair", _f8[::1]), ("submitted", _f8[::1]), ("full_slack", _f8[::1]),
    ("ends", _f8[::1]), ("end_procs", _i8[::1]), ("calls", _i8), ("nodes", _i8),
    ("hits", _i8), ("wake_at", _f8),
    ("plan", _f8[::1]),  # per job: its start in the placement committed (NaN: none)
    ("search", SEARCH_SCRATCH)])


@kernel
def running_profile(eng, ends, end_procs, capacity):
    """``SlackBackfill._running_profile``: the running jobs until their estimated ends."""
    count = running_ends(eng, ends, end_procs)
    return holding(eng.now, capacity, ends, end_procs, count, 0)


@kernel
def _plain_submit(policy, eng, job):
    now = eng.now
    times, frees, steps = running_profile(eng, policy.ends, policy.end_procs, policy.capacity)
    mine = policy.queue[:policy.length]
    policy.fair[job], policy.plan[job] = fair_start(
        times, frees, steps, eng.size[mine], eng.estimate[mine], policy.plan[mine], now,
        eng.size[job], eng.estimate[job], policy.constants.fst_fcfs)
    policy.submitted[job] = now
    policy.full_slack[job] = slack_factor(policy.fair[job] - now, policy.constants)
    policy.queue[policy.length] = job
    policy.length += 1


@kernel
def _plain_schedule(policy, eng):
    """``SlackBackfill.schedule``."""
    now = eng.now
    times, frees, steps = running_profile(eng, policy.ends, policy.end_procs, policy.capacity)
    policy.calls += 1
    length = policy.length
    mine = policy.queue[:length].copy()
    free = eng.free[0]
    starts, found_nodes, hit = select(times, frees, steps, now, policy.capacity, free, mine,
                                      eng.size, eng.estimate, policy.submitted, policy.fair,
                                      policy.full_slack, policy.plan[mine], policy.constants,
                                      policy.search)
    policy.nodes += found_nodes
    policy.hits += hit
    kept = 0
    first_start = np.inf
    for q in range(length):
        job = mine[q]
        # a slot at now may not fit: jobs of estimate 0 reserve nothing, and a job running
        # past its estimate holds processors the profile shows free (SlackBackfill)
        if starts[q] <= now and eng.size[job] <= free:
            start_job(eng, job, eng.size[job], 0)
            free -= eng.size[job]
        else:
            policy.queue[kept] = job
            policy.plan[job] = starts[q]
            kept += 1
            if starts[q] > now:
                first_start = min(first_start, starts[q])
    policy.length = kept
    if first_start < np.inf and (policy.wake_at <= now or first_start < policy.wake_at):
        policy.wake_at = first_start
        wake_up(eng, first_start)


compiled_policy(SlackPlain, _plain_schedule, submit=_plain_submit)


@kernel
def slack_plain_run(submit, runtime, estimate, size, capacity, constants):
    """A whole slack-backfilling run of rigid jobs (arrival order) on the plain machine:
    the engine's outcome (``loop.outcome``), each job's fair start and F_slack, and the
    calls, nodes and calls ``max_nodes`` stopped."""
    n = submit.shape[0]
    eng = rigid_engine(submit, runtime, estimate, size, capacity)
    policy = new(SLACK_PLAIN)
    policy.constants = constants
    policy.capacity = capacity
    policy.queue = np.empty(n, np.int64)
    policy.length = 0
    policy.fair = np.full(n, np.nan)
    policy.submitted = np.zeros(n)
    policy.full_slack = np.zeros(n)
    policy.ends = np.empty(n, np.float64)
    policy.end_procs = np.empty(n, np.int64)
    policy.calls = 0
    policy.nodes = 0
    policy.hits = 0
    policy.wake_at = -np.inf
    policy.plan = np.full(n, np.nan)
    policy.search = new_search_scratch()
    loop.run(policy, eng)
    return (loop.outcome(eng), policy.fair, policy.full_slack, policy.calls, policy.nodes,
            policy.hits)
