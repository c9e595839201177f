"""FCFS, EASY and conservative backfilling (``schedsim.policies.backfill``) as compiled
decisions on the shared engine.

FCFS and EASY keep the waiting jobs in arrival order (``queue[head:tail]``); a call
starts the queue's head while it fits and, for EASY, computes the head's shadow time
and extra processors from the estimated ends of the running jobs (a job past its
estimate ends now; equal ends released together) and makes one backfill pass in queue
order: a job that fits now and ends by the shadow time, or fits in the extra
processors, which it then uses up; the pass stops when no processor is free.
Conservative keeps its profile between calls (advanced to now, new jobs placed at
their earliest slot, due jobs started in queue order, a wake-up at the earliest
reservation) and rebuilds it with compression after a job ended before its estimate.
The same comparisons and floating-point operations as the policies.
"""

from __future__ import annotations

import numpy as np
from numba import types

from schedsim.kernel import loop
from schedsim.kernel.backfilling import shadow_and_extra
from schedsim.kernel.cache import kernel
from schedsim.kernel.loop import (
    NONE,
    compiled_policy,
    rigid_engine,
    running_ends,
    start_job,
    wake_up,
)
from schedsim.kernel.profile import advance, earliest, reserve
from schedsim.kernel.records import Record, new, record_type

_f8, _i8, _b1 = types.float64, types.int64, types.boolean


@record_type
class BackfillQueue(Record):
    """FCFS and EASY: the queue and EASY's scratch space."""


BACKFILL_QUEUE = BackfillQueue([
    ("easy", _b1), ("queue", _i8[::1]), ("head", _i8), ("tail", _i8),
    ("ends", _f8[::1]), ("end_procs", _i8[::1]), ("keep", _b1[::1])])


@kernel
def _enqueue(policy, eng, job):
    policy.queue[policy.tail] = job
    policy.tail += 1


@kernel
def _fcfs_easy(policy, eng):
    """One call of FCFS or EASY (``FCFS.schedule``, ``EASY._backfill``)."""
    queue, size = policy.queue, eng.size
    free = eng.free[0]
    head, tail = policy.head, policy.tail
    while head < tail and size[queue[head]] <= free:  # the FCFS prefix
        start_job(eng, queue[head], size[queue[head]], 0)
        free -= size[queue[head]]
        head += 1
    policy.head = head
    if not policy.easy or tail - head < 2 or free == 0:
        return
    now = eng.now
    count = running_ends(eng, policy.ends, policy.end_procs)
    shadow, spare = shadow_and_extra(now, free, size[queue[head]], policy.ends,
                                     policy.end_procs, count)
    keep = policy.keep
    started = False
    for q in range(head + 1, tail):
        keep[q] = True
    last = tail
    for q in range(head + 1, tail):
        job = queue[q]
        if size[job] > free:
            continue
        held = now + eng.estimate[job] > shadow
        if held and size[job] > spare:
            continue
        if held:
            spare -= size[job]
        keep[q] = False
        started = True
        free -= size[job]
        start_job(eng, job, size[job], 0)
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
        policy.tail = kept


compiled_policy(BackfillQueue, _fcfs_easy, submit=_enqueue)


@kernel
def fcfs_easy_run(submit, runtime, estimate, size, capacity, easy):
    """A whole FCFS (``easy`` false) or EASY run of rigid jobs in arrival order, every
    size at most ``capacity``: the engine's outcome (``loop.outcome``)."""
    n = submit.shape[0]
    eng = rigid_engine(submit, runtime, estimate, size, capacity)
    policy = new(BACKFILL_QUEUE)
    policy.easy = easy
    policy.queue = np.empty(n, np.int64)
    policy.head = 0
    policy.tail = 0
    policy.ends = np.empty(capacity + 1, np.float64)
    policy.end_procs = np.empty(capacity + 1, np.int64)
    policy.keep = np.empty(n, np.bool_)
    loop.run(policy, eng)
    return loop.outcome(eng)


@record_type
class ConservativeState(Record):
    """Conservative backfilling: the queue, reservations and the kept profile."""


CONSERVATIVE_STATE = ConservativeState([
    ("queue", _i8[::1]), ("length", _i8), ("fresh", _i8[::1]), ("n_fresh", _i8),
    ("reserved", _f8[::1]),  # NaN: no reservation (not placed yet, or started)
    # the profile is times[base:base + steps] (free_steps alike); ``base`` moves forward as
    # time passes and goes back to 0 when the room after it runs short
    ("times", _f8[::1]), ("free_steps", _i8[::1]), ("base", _i8), ("steps", _i8),
    ("room", _i8), ("capacity", _i8), ("dirty", _b1), ("wake_at", _f8)])


@kernel
def _conservative_submit(policy, eng, job):
    policy.queue[policy.length] = job
    policy.length += 1
    policy.fresh[policy.n_fresh] = job
    policy.n_fresh += 1


@kernel
def _conservative_finish(policy, eng, job):
    if eng.est_end[job] > eng.now:  # ended before its estimate: compress at the next call
        policy.dirty = True


@kernel
def _conservative(policy, eng):
    """One call of ``Conservative.schedule``."""
    now = eng.now
    times, free_steps = policy.times, policy.free_steps
    size, estimate, reserved, queue = eng.size, eng.estimate, policy.reserved, policy.queue
    base, steps, length = policy.base, policy.steps, policy.length
    if base > policy.room:  # move the profile back to the front of its arrays
        times[:steps] = times[base:base + steps].copy()
        free_steps[:steps] = free_steps[base:base + steps].copy()
        base = 0
    if policy.dirty:  # Conservative._rebuild
        base = 0
        times[0] = now
        free_steps[0] = policy.capacity
        steps = 1
        job = loop.first_running(eng)
        while job != NONE:
            _, _, steps = reserve(times, free_steps, steps, now, max(eng.est_end[job], now),
                                  eng.procs[job], -1, -1)
            job = loop.next_running(eng, job)
        for q in range(length):
            job = queue[q]
            if reserved[job] == reserved[job]:
                begin = max(reserved[job], now)
                _, _, steps = reserve(times, free_steps, steps, begin, begin + estimate[job],
                                      size[job], -1, -1)
        for q in range(length):
            job = queue[q]
            if reserved[job] == reserved[job]:
                begin = max(reserved[job], now)
                _, _, steps = reserve(times, free_steps, steps, begin, begin + estimate[job],
                                      -size[job], -1, -1)
            slot = earliest(times, free_steps, steps, size[job], estimate[job], now)[0]
            _, _, steps = reserve(times, free_steps, steps, slot, slot + estimate[job],
                                  size[job], -1, -1)
            reserved[job] = slot
        policy.dirty = False
    else:
        base, steps = advance(times, free_steps, base, steps, now)
        view_times, view_free = times[base:], free_steps[base:]
        for f in range(policy.n_fresh):
            job = policy.fresh[f]
            slot = earliest(view_times, view_free, steps, size[job], estimate[job], now)[0]
            _, _, steps = reserve(view_times, view_free, steps, slot, slot + estimate[job],
                                  size[job], -1, -1)
            reserved[job] = slot
    policy.base, policy.steps = base, steps
    policy.n_fresh = 0
    kept = 0
    first_slot = np.inf
    for q in range(length):  # Conservative._start_due, in queue order
        job = queue[q]
        if reserved[job] <= now:
            reserved[job] = np.nan
            start_job(eng, job, size[job], 0)
        else:
            queue[kept] = job
            kept += 1
            first_slot = min(first_slot, reserved[job])
    policy.length = kept
    if kept > 0 and (policy.wake_at <= now or first_slot < policy.wake_at):
        policy.wake_at = first_slot
        wake_up(eng, first_slot)


compiled_policy(ConservativeState, _conservative, submit=_conservative_submit,
                finish=_conservative_finish)


@kernel
def conservative_run(submit, runtime, estimate, size, capacity):
    """A whole conservative-backfilling run of rigid jobs in arrival order, every size at
    most ``capacity``: the engine's outcome (``loop.outcome``)."""
    n = submit.shape[0]
    eng = rigid_engine(submit, runtime, estimate, size, capacity)
    policy = new(CONSERVATIVE_STATE)
    policy.queue = np.empty(n, np.int64)
    policy.length = 0
    policy.fresh = np.empty(n, np.int64)
    policy.n_fresh = 0
    policy.reserved = np.full(n, np.nan)
    # a rebuild adds at most 2 steps per job, twice
    policy.room = 4 * n + 2 * capacity + 8
    policy.times = np.empty(2 * policy.room, np.float64)
    policy.free_steps = np.empty(2 * policy.room, np.int64)
    policy.times[0] = 0.0
    policy.free_steps[0] = capacity
    policy.base = 0
    policy.steps = 1
    policy.capacity = capacity
    policy.dirty = False
    policy.wake_at = 0.0
    loop.run(policy, eng)
    return loop.outcome(eng)
