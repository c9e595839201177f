"""Scojo-PECT (``schedsim.policies.scojo``) as compiled decisions on the shared engine.

The calendar (hourly intervals, a short slice when a short job waits at an interval's
start, then medium and long), the class clocks, each class's conservative or slack
selection in its own time, preemption at slice boundaries through the engine's
suspensions, and non-type backfilling. The same comparisons and floating-point
operations, in the same order, as the Python policy under ``schedsim.engine``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import typeof, types

from schedsim.kernel import loop
from schedsim.kernel.arrays import copy_into, copy_skipping, fill_skipping, gather_into
from schedsim.kernel.cache import kernel
from schedsim.kernel.loop import (
    NONE,
    SUSPENDED,
    compiled_policy,
    resume_job,
    rigid_engine,
    start_job,
    suspend_job,
    wake_up,
)
from schedsim.kernel.profile import earliest, grown, holding, reserve
from schedsim.kernel.records import Record, new, record_type
from schedsim.policies.compiled.slack import (
    SEARCH_SCRATCH,
    SLACK_CONSTANTS,
    compress,
    fair_start,
    fit_scratch,
    new_search_scratch,
    reserve_all,
    select,
    slack_factor,
    slack_search,
)

SHORT, MEDIUM, LONG = 0, 1, 2
NONTYPE_CODES = {"all": 0, "short": 1, "none": 2}
_ALL, _SHORT_ONLY, _NONE = 0, 1, 2
_f8, _i8, _i1, _b1 = types.float64, types.int64, types.int8, types.boolean


class Calendar(NamedTuple):
    """``ScojoSettings``' calendar and non-type backfilling, as a compiled run reads them."""

    interval: float
    short_slice: float
    medium_share: float
    nontype: int  # NONTYPE_CODES
    slack: bool  # slack selection in every class, else conservative
    nontype_slack: bool  # non-type backfilling chooses by slack, else first fit


CALENDAR = typeof(Calendar(1.0, 1.0, 1.0, 1, True, True))


def calendar(settings, slack: bool) -> Calendar:  # type: ignore[no-untyped-def]
    """The compiled form of a ``ScojoSettings`` (``ScojoSlackSettings`` when ``slack``)."""
    return Calendar(float(settings.interval), float(settings.short_slice),
                    float(settings.medium_share), NONTYPE_CODES[settings.nontype], slack,
                    slack and settings.nontype_selection == "slack")


# -- the calendar ------------------------------------------------------------------------
@kernel
def slice_at(now, cal, decided):
    """(class, begin, end) of the slice holding ``now`` (``ScojoPECT.slice_at``);
    ``decided[number]`` is 1 when interval ``number`` begins with a short slice."""
    interval = cal.interval
    number = math.floor(now / interval)
    begin = number * interval
    first = begin
    if number < decided.shape[0] and decided[number] == 1:
        first = begin + min(cal.short_slice, interval)
        if begin <= now < first:
            return SHORT, begin, first
    middle = first + cal.medium_share * (begin + interval - first)
    if middle > first and first <= now < middle:
        return MEDIUM, first, middle
    end = begin + interval
    if end > middle and middle <= now < end:
        return LONG, middle, end
    raise ValueError("scojo: no slice holds the time")


@record_type
class ScojoState(Record):
    """Scojo-PECT's calendar, class clocks and queues, and with slack selection the
    selectors' fair starts and counts (per class)."""


SCOJO_STATE = ScojoState([
    ("cal", CALENDAR), ("constants", SLACK_CONSTANTS), ("capacity", _i8),
    ("klass", _i8[::1]),
    ("queues", _i8[:, ::1]), ("slots", _f8[:, ::1]), ("lengths", _i8[::1]),
    ("decided", _i1[::1]),  # per interval: -1 undecided, 0 / 1 short slice
    ("clock", _f8[::1]), ("clock_at", _f8), ("wake_at", _f8),
    ("fair", _f8[::1]), ("submitted", _f8[::1]), ("full_slack", _f8[::1]),
    ("started_class", _f8[::1]),  # a job's start in its class's time (NaN: not started)
    ("calls", _i8[::1]), ("nodes", _i8[::1]), ("hits", _i8[::1]),
    ("ends", _f8[::1]), ("end_procs", _i8[::1]),  # scratch: a profile's (end, processors)
    ("is_started", _b1[::1]), ("due", _b1[::1]), ("candidates", _i8[::1]),
    # scratch of a call: the queue positions of the class's jobs it started as planned
    ("started_at", _i8[::1]), ("n_started_at", _i8),
    ("search", SEARCH_SCRATCH)])  # the slack search's arrays, for the whole run


@kernel
def _advance_clocks(policy, now):
    """``ScojoPECT._advance_clocks``: the time since ``clock_at`` to the classes whose
    slices it spanned."""
    t = policy.clock_at
    while t < now:
        klass, _, end = slice_at(t, policy.cal, policy.decided)
        step = min(end, now) - t
        policy.clock[klass] += step
        t += step
    policy.clock_at = now


@kernel
def _own_ends(policy, eng, c):
    """``ScojoPECT._own_jobs_ends``: class ``c``'s running and suspended jobs in its own
    time, written to the scratch (end, processors); returns their count."""
    clock, klass, now = policy.clock[c], policy.klass, eng.now
    ends, procs = policy.ends, policy.end_procs
    count = 0
    job = loop.first_running(eng)
    while job != NONE:
        if klass[job] == c:
            ends[count] = clock + max(eng.est_end[job] - now, 0.0)
            procs[count] = eng.procs[job]
            count += 1
        job = loop.next_running(eng, job)
    for r in range(eng.n_suspended):
        job = eng.suspended[r]
        if klass[job] == c:
            ends[count] = clock + eng.est_left[job]
            procs[count] = eng.procs[job]
            count += 1
    return count


@kernel
def _scojo_submit(policy, eng, job):
    """``ScojoPECT.submit``: with slack selection the job's fair start and slot in its
    class's time (inside the class's own slice, the other classes' running jobs count
    until the slice ends), then the job joins its class's queue."""
    now = eng.now
    c = policy.klass[job]
    if policy.cal.slack:
        _advance_clocks(policy, now)
        clock = policy.clock[c]
        count = _own_ends(policy, eng, c)
        number = math.floor(now / policy.cal.interval)
        if number < policy.decided.shape[0] and policy.decided[number] >= 0:
            piece, begin, piece_end = slice_at(now, policy.cal, policy.decided)
            if piece == c and now > begin:
                other = loop.first_running(eng)
                while other != NONE:
                    if policy.klass[other] != c:
                        span = min(max(eng.est_end[other] - now, 0.0), piece_end - now)
                        policy.ends[count] = clock + span
                        policy.end_procs[count] = eng.procs[other]
                        count += 1
                    other = loop.next_running(eng, other)
        times, frees, steps = holding(clock, policy.capacity, policy.ends, policy.end_procs,
                                      count, 0)
        length = policy.lengths[c]
        mine = policy.queues[c, :length]
        policy.fair[job], slot = fair_start(
            times, frees, steps, eng.size[mine], eng.estimate[mine], policy.slots[c, :length],
            clock, eng.size[job], eng.estimate[job], policy.constants.fst_fcfs)
        policy.submitted[job] = clock
        policy.full_slack[job] = slack_factor(policy.fair[job] - clock, policy.constants)
    else:  # conservative selection: a slot at the class's next compression
        slot = np.nan
    policy.queues[c, policy.lengths[c]] = job
    policy.slots[c, policy.lengths[c]] = slot
    policy.lengths[c] += 1


@kernel
def _decide_interval(policy, eng, now):
    """An interval's first call decides whether it begins with a short slice: only at its
    very start, and only when a short job waits or is suspended."""
    number = math.floor(now / policy.cal.interval)
    decided = policy.decided
    if number >= decided.shape[0]:
        grown_decided = np.full(max(2 * decided.shape[0], number + 1), -1, np.int8)
        grown_decided[:decided.shape[0]] = decided
        policy.decided = grown_decided
        decided = grown_decided
    if decided[number] < 0:
        short_pending = policy.lengths[SHORT] > 0
        for q in range(eng.n_suspended):
            if policy.klass[eng.suspended[q]] == SHORT:
                short_pending = True
        decided[number] = 1 if now == number * policy.cal.interval and short_pending else 0


@kernel
def _preempt(policy, eng, c):
    """A slice boundary: suspend every running job, then resume the class's suspended jobs
    that fit, in arrival order; their (end in class time, processors) go to the scratch.
    (count written, whether a job resumed)."""
    job = loop.first_running(eng)
    while job != NONE:
        following = loop.next_running(eng, job)
        suspend_job(eng, job)
        job = following
    paused = np.sort(eng.suspended[:eng.n_suspended])  # arrival order
    count = 0
    resumed = False
    for q in range(paused.shape[0]):
        job = paused[q]
        if policy.klass[job] == c and eng.procs[job] <= eng.free[0]:
            resume_job(eng, job)
            resumed = True
            policy.ends[count] = policy.clock[c] + eng.est_left[job]
            policy.end_procs[count] = eng.procs[job]
            count += 1
    return count, resumed


@kernel
def _kept_plan(policy, eng, d, theirs):
    """``ScojoPECT._kept_plan``: the starts of the plan class ``d`` keeps, per waiting job
    ``theirs``. Under slack selection, when every job holds a slot, the plan is the slots
    (a past slot counts as now): what ``compress`` keeping them gives, without building
    the profile it would place a slotless job on."""
    length = theirs.shape[0]
    slots = policy.slots[d, :length]
    clock = policy.clock[d]
    if policy.cal.slack and not np.isnan(slots).any():
        kept = np.empty(length, np.float64)
        for q in range(length):
            kept[q] = clock if slots[q] < clock else slots[q]
        return kept
    own = _own_ends(policy, eng, d)
    d_times, d_free, d_steps = holding(clock, policy.capacity, policy.ends, policy.end_procs,
                                       own, 0)
    return compress(d_times, d_free, d_steps, eng.size[theirs], eng.estimate[theirs], slots,
                    clock, policy.cal.slack)[0]


@kernel
def _due_elsewhere(policy, eng, c, free):
    """``ScojoPECT._due_elsewhere``: marks the waiting medium and long jobs of the other
    classes whose slot in the plan their class keeps (``ScojoPECT._kept_plan``) is now
    (only classes with a job of at most ``free`` processors); returns how many."""
    n_due = 0
    for d in (MEDIUM, LONG):
        length = policy.lengths[d]
        if d == c or length == 0:
            continue
        theirs = policy.queues[d, :length]
        smallest = eng.size[theirs[0]]
        for q in range(1, length):
            smallest = min(smallest, eng.size[theirs[q]])
        if smallest > free:
            continue
        d_starts = _kept_plan(policy, eng, d, theirs)
        copy_into(policy.slots[d], 0, d_starts, 0, length)
        for q in range(length):
            if d_starts[q] <= policy.clock[d]:
                policy.due[theirs[q]] = True
                n_due += 1
    return n_due


@kernel
def _nontype_candidates(policy, eng, c, left, free):
    """``ScojoPECT._nontype_candidates``: written to the scratch ``candidates`` in arrival
    order; returns how many."""
    mode = policy.cal.nontype
    n_due = _due_elsewhere(policy, eng, c, free) if mode == _ALL else 0
    candidates = policy.candidates
    n_candidates = 0
    if c != SHORT:
        for q in range(policy.lengths[SHORT]):
            job = policy.queues[SHORT, q]
            if eng.estimate[job] <= left:
                candidates[n_candidates] = job
                n_candidates += 1
    for d in (MEDIUM, LONG):
        if d != c and n_due > 0:
            for q in range(policy.lengths[d]):
                job = policy.queues[d, q]
                if policy.due[job]:
                    candidates[n_candidates] = job
                    n_candidates += 1
    if mode == _ALL:
        for q in range(eng.n_suspended):
            job = eng.suspended[q]
            if policy.klass[job] != c:
                candidates[n_candidates] = job
                n_candidates += 1
    if n_due > 0:
        for d in (MEDIUM, LONG):
            for q in range(policy.lengths[d]):
                policy.due[policy.queues[d, q]] = False
    candidates[:n_candidates].sort()  # arrival order
    return n_candidates


@kernel
def _span(eng, job, left):
    """How long a non-type candidate holds its processors: until its (remaining) estimate
    ends or the slice does."""
    paused = eng.state[job] == SUSPENDED
    return min(eng.est_left[job] if paused else eng.estimate[job], left)


@kernel
def _first_fit(policy, eng, c, left, free, candidates, chosen, placed_times, placed_free,
               placed_n):
    """``ScojoPECT._first_fit``: marks in ``chosen`` the candidates that fit, in arrival
    order, without moving a reservation of the class (its plan is ``placed_*``)."""
    clock = policy.clock[c]
    work_times, work_free = grown(placed_times, placed_free, placed_n,
                                  2 * candidates.shape[0] + 2)
    work_n = placed_n
    for q in range(candidates.shape[0]):
        job = candidates[q]
        span = _span(eng, job, left)
        size = eng.size[job]
        if size > free or earliest(work_times, work_free, work_n, size, span,
                                   clock)[0] != clock:
            continue
        _, _, work_n = reserve(work_times, work_free, work_n, clock, clock + span, size,
                               -1, -1)
        chosen[q] = True
        free -= size


@kernel
def _nontype_by_slack(policy, eng, c, left, free, candidates, chosen, times, frees, steps,
                      mine):
    """``ScojoPECT._nontype_by_slack``: the branch and bound over the first ``lookahead``
    candidates with the slack check of class ``c``'s waiting jobs (``slack_search``, its
    window not placed), on the class's profile ``times, frees, steps`` with the jobs of
    ``mine`` it started now; marks the best set in ``chosen`` and keeps the check's
    placement as the class's plan. Returns whether a set passed."""
    clock = policy.clock[c]
    started_at = policy.started_at[:policy.n_started_at]
    n_started = started_at.shape[0]
    own = mine[started_at]
    waiting = np.empty(mine.shape[0] - n_started, np.int64)
    copy_skipping(waiting, mine, started_at)
    s_times, s_free, s_n = reserve_all(times, frees, steps, np.full(n_started, clock),
                                       eng.size[own], eng.estimate[own])
    window = min(policy.constants.lookahead, candidates.shape[0])
    m = window + waiting.shape[0]
    scratch = policy.search
    fit_scratch(scratch, m, s_n + 2 * m + 2)
    sizes, spans = scratch.sizes[:m], scratch.spans[:m]
    submitted, fair, full_slack = scratch.submitted[:m], scratch.fair[:m], scratch.full_slack[:m]
    for p in range(window):
        sizes[p] = eng.size[candidates[p]]
        spans[p] = _span(eng, candidates[p], left)
        submitted[p] = fair[p] = full_slack[p] = 0.0
    gather_into(sizes, window, eng.size, waiting)
    gather_into(spans, window, eng.estimate, waiting)
    gather_into(submitted, window, policy.submitted, waiting)
    gather_into(fair, window, policy.fair, waiting)
    gather_into(full_slack, window, policy.full_slack, waiting)
    found, best, found_nodes, hit = slack_search(
        s_times, s_free, s_n, clock, policy.capacity, free, sizes, spans, submitted, fair,
        full_slack, policy.constants, window, False, scratch)
    policy.calls[c] += 1
    policy.nodes[c] += found_nodes
    policy.hits[c] += 1 if hit else 0
    if not found:
        return False
    for p in range(window):
        chosen[p] = best[p] == clock
    fill_skipping(policy.slots[c], started_at, best, window)
    return True


@kernel
def _nontype(policy, eng, c, left, placed_times, placed_free, placed_n, times, frees, steps,
             mine, starts):
    """``ScojoPECT._nontype``: among waiting short jobs that end inside the slice, due
    jobs of other classes and suspended jobs of other classes, the set chosen by slack
    (``nontype_slack``; first fit when none passes) or by first fit, started or resumed
    in arrival order. Returns whether a job started or resumed. The class's profile
    ``times, frees, steps``, its waiting jobs ``mine`` before this call's starts and their
    ``starts``; ``placed_*`` holds its plan under conservative selection."""
    free = eng.free[0]
    if policy.cal.nontype == _NONE or free <= 0:
        return False
    n_candidates = _nontype_candidates(policy, eng, c, left, free)
    if n_candidates == 0:
        return False
    candidates = policy.candidates[:n_candidates]
    chosen = np.zeros(n_candidates, np.bool_)
    found = False
    if policy.cal.nontype_slack:
        found = _nontype_by_slack(policy, eng, c, left, free, candidates, chosen, times,
                                  frees, steps, mine)
    if not found:
        if policy.cal.slack and mine.shape[0] > 0:
            placed_times, placed_free, placed_n = reserve_all(
                times, frees, steps, starts, eng.size[mine], eng.estimate[mine])
        _first_fit(policy, eng, c, left, free, candidates, chosen, placed_times, placed_free,
                   placed_n)
    busy = False
    for q in range(n_candidates):
        if not chosen[q]:
            continue
        job = candidates[q]
        if eng.state[job] == SUSPENDED:
            resume_job(eng, job)
        else:
            start_job(eng, job, eng.size[job], 0)
            policy.started_class[job] = policy.clock[policy.klass[job]]
            policy.is_started[job] = True
        busy = True
    return busy


@kernel
def _start_planned(policy, eng, mine, starts, clock):
    """Start the class's waiting jobs ``mine`` whose planned start ``starts`` is now (at
    most ``clock``) and that fit, in queue order, their positions in ``started_at``;
    returns whether one started. A function of its own: inside the scheduling call
    numba counted three arrays up and down at every job."""
    count = 0
    for q in range(mine.shape[0]):
        job = mine[q]
        if starts[q] <= clock and eng.size[job] <= eng.free[0]:
            start_job(eng, job, eng.size[job], 0)
            policy.started_at[count] = q
            count += 1
            policy.started_class[job] = clock
            policy.is_started[job] = True
    policy.n_started_at = count
    return count > 0


@kernel
def _scojo_schedule(policy, eng):
    """One call of ``ScojoPECT.schedule``."""
    now = eng.now
    cal = policy.cal
    _decide_interval(policy, eng, now)
    _advance_clocks(policy, now)
    c, piece_begin, piece_end = slice_at(now, cal, policy.decided)
    had_running = eng.n_running > 0
    busy = False
    policy.n_started_at = 0
    left = piece_end - now
    clock = policy.clock[c]
    count = 0  # the class's profile: (end in class time, processors)
    if now == piece_begin:
        count, busy = _preempt(policy, eng, c)
    else:
        job = loop.first_running(eng)
        while job != NONE:
            rest = max(eng.est_end[job] - now, 0.0)
            policy.ends[count] = clock + (rest if policy.klass[job] == c else min(rest, left))
            policy.end_procs[count] = eng.procs[job]
            count += 1
            job = loop.next_running(eng, job)
    for q in range(eng.n_suspended):  # the class's own suspended jobs hold their place
        job = eng.suspended[q]
        if policy.klass[job] == c:
            policy.ends[count] = clock + eng.est_left[job]
            policy.end_procs[count] = eng.procs[job]
            count += 1
    times, frees, steps = holding(clock, policy.capacity, policy.ends, policy.end_procs,
                                  count, 0)
    m = policy.lengths[c]
    mine = policy.queues[c, :m].copy()
    # the profile holding the class's plan: made by conservative selection, built from
    # the slack selection's starts only when first fit needs it
    placed_times, placed_free, placed_n = times, frees, steps
    starts = np.empty(0, np.float64)
    if m > 0:
        if cal.slack:
            starts, found_nodes, hit = select(
                times, frees, steps, clock, policy.capacity, eng.free[0], mine, eng.size,
                eng.estimate, policy.submitted, policy.fair, policy.full_slack,
                policy.slots[c, :m], policy.constants, policy.search)
            policy.calls[c] += 1
            policy.nodes[c] += found_nodes
            policy.hits[c] += hit
        else:
            starts, placed_times, placed_free, placed_n = compress(
                times, frees, steps, eng.size[mine], eng.estimate[mine], policy.slots[c, :m],
                clock, False)
        copy_into(policy.slots[c], 0, starts, 0, m)  # the plan the class keeps
        if _start_planned(policy, eng, mine, starts, clock):
            busy = True
    if _nontype(policy, eng, c, left, placed_times, placed_free, placed_n, times, frees, steps,
                mine, starts):
        busy = True
    waiting = 0
    for d in range(3):  # the started jobs leave their queues
        kept = 0
        for q in range(policy.lengths[d]):
            job = policy.queues[d, q]
            if not policy.is_started[job]:
                policy.queues[d, kept] = job
                policy.slots[d, kept] = policy.slots[d, q]
                kept += 1
        policy.lengths[d] = kept
        waiting += kept
    pending = waiting > 0 or eng.n_suspended > 0 or had_running or busy
    if pending and (policy.wake_at <= now or piece_end < policy.wake_at):
        policy.wake_at = piece_end
        wake_up(eng, piece_end)


compiled_policy(ScojoState, _scojo_schedule, submit=_scojo_submit)


@kernel
def scojo_run(submit, runtime, estimate, size, klass, capacity, cal, constants):
    """A whole Scojo-PECT run of rigid jobs (arrival order) with their classes: the
    engine's outcome (``loop.outcome``) and, per job, the fair start, the start, the
    submission (all in class time) and F_slack, and per class the calls, the branch and
    bound's nodes and the calls ``max_nodes`` stopped (slack selection only)."""
    n = submit.shape[0]
    eng = rigid_engine(submit, runtime, estimate, size, capacity)
    policy = new(SCOJO_STATE)
    policy.cal = cal
    policy.constants = constants
    policy.capacity = capacity
    policy.klass = klass
    policy.queues = np.empty((3, n), np.int64)
    policy.slots = np.empty((3, n), np.float64)
    policy.lengths = np.zeros(3, np.int64)
    policy.decided = np.full(1024, -1, np.int8)
    policy.clock = np.zeros(3)
    policy.clock_at = 0.0
    policy.wake_at = -np.inf
    policy.fair = np.full(n, np.nan)
    policy.submitted = np.zeros(n)
    policy.full_slack = np.zeros(n)
    policy.started_class = np.full(n, np.nan)
    policy.calls = np.zeros(3, np.int64)
    policy.nodes = np.zeros(3, np.int64)
    policy.hits = np.zeros(3, np.int64)
    policy.ends = np.empty(n + capacity, np.float64)
    policy.end_procs = np.empty(n + capacity, np.int64)
    policy.is_started = np.zeros(n, np.bool_)
    policy.due = np.zeros(n, np.bool_)
    policy.candidates = np.empty(n, np.int64)
    policy.started_at = np.empty(n, np.int64)
    policy.n_started_at = 0
    policy.search = new_search_scratch()
    loop.run(policy, eng)
    return (loop.outcome(eng), policy.fair, policy.started_class, policy.submitted,
            policy.full_slack, policy.calls, policy.nodes, policy.hits)
