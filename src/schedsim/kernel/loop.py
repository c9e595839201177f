"""The compiled engine: :mod:`schedsim.engine`'s event loop and mechanisms over arrays,
shared by every policy that has a compiled path.

A compiled policy supplies its decisions, not a loop (as a Batsim 5 policy sits behind a
small decision interface): a record of its own state (``schedsim.kernel.records``) and
three functions, registered with :func:`compiled_policy` for the record's type,

* ``submit(policy, engine, job)``: ``job`` arrived (after the engine marked it waiting);
* ``finish(policy, engine, job)``: ``job`` completed (its processors are free);
* ``schedule(policy, engine)``: one scheduling call; the policy decides through
  :func:`start_job`, :func:`start_on`, :func:`suspend_job`, :func:`resume_job` and
  :func:`wake_up`, which check the decision and apply it at once (a policy that reads
  the engine after a decision sees it applied, where the Python policies keep track of
  their own decisions).

:func:`run` is the loop, specialised by numba for each policy's record type: at every
instant ``t`` the completions at ``t`` (in the order their completion events were
pushed: start order, as the engine's heap), the arrivals at ``t`` (arrival order), the
wake-ups due at ``t``, with a load model the redraw of the loads and the re-timing of
the jobs whose processors' rates changed, then one scheduling call if jobs wait, jobs
are suspended or a wake-up is due; an event pushed at ``t`` by that call (a job of run
time 0) makes a second round at ``t``. Jobs are numbered in arrival order (submit time,
then workload order); ``schedsim.kernel.whole`` maps them back.

What the compiled engine models (the rest goes through ``schedsim.engine``): rigid jobs
on processors of speed 1 (started by count, in any partition), and jobs with work (the
IHAP paper's BPU-seconds) on a machine that tracks processors (speeds, named processors),
optionally under a load model given as rows of integer load percents, one row per
redraw, under either execution model of the machine (``Machine.execution``: equal split,
one task per processor; pooled, one task over all of them); suspension and resumption
of rigid jobs with their run segments; wake-ups. No elastic commands, dedicated jobs,
moldable jobs or stop conditions.

A decision the engine refuses sets ``engine.error`` (a code below) and ``error_job``;
the loop stops after the call and the caller raises ``SimulationError``.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core.extending import overload

from schedsim.kernel import events
from schedsim.kernel.cache import kernel
from schedsim.kernel.codes import (
    BAD_PROCESSORS,
    BAD_SIZE,
    DONE,
    NO_ROOM,
    NOT_RUNNING,
    NOT_SUSPENDED,
    NOT_WAITING,
    OUT_OF_LOADS,
    PAST_WAKE_UP,
    RUNNING,
    SUSPENDED,
    WAITING,
)
from schedsim.kernel.records import Record, new, record_type

# event priorities (schedsim.engine: Completion 0, WakeUpDue 90)
COMPLETION, WAKE = 0, 90
NONE = -1  # end of the running list


@record_type
class EngineState(Record):
    """The compiled engine's state (fields in ``ENGINE_FIELDS``)."""


_f8, _i8, _i4, _i1, _b1 = types.float64, types.int64, types.int32, types.int8, types.boolean
# per-job processor counts, partitions and links of the running list are int32 (a job
# count and a machine size are below 2^31): 16 bytes a job less than int64
ENGINE_FIELDS = [
    # the jobs, in arrival order
    ("n", _i8), ("submit", _f8[::1]), ("runtime", _f8[::1]), ("estimate", _f8[::1]),
    ("size", _i8[::1]),  # processors of a rigid job (its request rounded to the unit)
    ("work", _f8[::1]),  # BPU-seconds of a job with work (NaN: rigid; empty: all rigid)
    # the machine
    ("unit", _i8), ("free", _i8[::1]),  # free processors per partition
    ("tracked", _b1), ("owner", _i8[::1]),  # per processor: the job on it, or -1
    ("first", _i8[::1]),  # first processor of each partition, and the total at the end
    ("speed", _f8[::1]), ("rate", _f8[::1]),  # per processor: speed, current rate
    # the processors each job started on: alloc[alloc_at[job]:alloc_at[job] + procs[job]]
    ("alloc_at", _i8[::1]), ("alloc", _i8[::1]), ("n_alloc", _i8),
    # the clock and the jobs' state
    ("now", _f8), ("state", _i1[::1]), ("start", _f8[::1]), ("end", _f8[::1]),
    ("est_end", _f8[::1]), ("procs", _i4[::1]), ("partition", _i4[::1]),
    ("waiting", _i8),
    # running jobs in start order (a doubly linked list over jobs)
    ("run_first", _i8), ("run_last", _i8), ("run_next", _i4[::1]),
    ("run_prev", _i4[::1]), ("n_running", _i8),
    # suspended jobs in suspension order, and what they keep
    ("suspended", _i8[::1]), ("n_suspended", _i8), ("remaining", _f8[::1]),
    ("est_left", _f8[::1]),
    # run segments of the jobs ever suspended
    ("ever_suspended", _b1[::1]), ("segment_start", _f8[::1]),
    ("seg_job", _i8[::1]), ("seg_begin", _f8[::1]), ("seg_end", _f8[::1]), ("n_seg", _i8),
    # events: the heap, the next arrival, a due wake-up
    ("heap_time", _f8[::1]), ("heap_key", _i8[::1]), ("heap_job", _i8[::1]),
    ("heap_size", _i8), ("counter", _i8), ("next_arrival", _i8), ("wake_due", _b1),
    ("live_key", _i8[::1]),  # per job, the key of its current completion entry (drop_stale)
    ("drop_stale", _b1),  # drop re-timed jobs' old completion entries (see _redraw)
    # background load: one row of percents per redraw
    ("loaded", _b1), ("loads", _i1[:, ::1]), ("load_row", _i8), ("redraw_due", _b1),
    ("load", _i1[::1]),  # the current percents
    ("touched", _b1[::1]),  # scratch of a redraw, per job
    # progress of jobs with work (schedsim.engine's tasks): per job the time it was last
    # brought up to date; pooled, per job the work left and the rate since; equal split,
    # the same per processor (a processor runs one task of one job)
    ("equal_split", _b1), ("since", _f8[::1]), ("left", _f8[::1]), ("pace", _f8[::1]),
    ("task_left", _f8[::1]), ("task_pace", _f8[::1]),
    # a refused decision
    ("error", _i8), ("error_job", _i8),
]
ENGINE = EngineState(ENGINE_FIELDS)


@kernel
def new_engine(submit, runtime, estimate, size, work, partitions, unit):
    """An engine at time 0 for jobs given in arrival order, on a machine of
    ``partitions`` (processors per partition) and allocation ``unit``."""
    n = submit.shape[0]
    eng = new(ENGINE)
    eng.n = n
    eng.submit = submit
    eng.runtime = runtime
    eng.estimate = estimate
    eng.size = size
    eng.work = work
    eng.unit = unit
    eng.free = partitions.copy()
    eng.tracked = False
    eng.first = np.zeros(partitions.shape[0] + 1, np.int64)
    eng.first[1:] = np.cumsum(partitions)
    eng.owner = np.empty(0, np.int64)
    eng.speed = np.empty(0, np.float64)
    eng.rate = np.empty(0, np.float64)
    eng.alloc_at = np.zeros(0, np.int64)
    eng.alloc = np.zeros(0, np.int64)
    eng.n_alloc = 0
    eng.now = 0.0
    eng.state = np.zeros(n, np.int8)
    eng.start = np.full(n, np.nan)
    eng.end = np.full(n, np.nan)
    eng.est_end = np.zeros(n)
    eng.procs = np.zeros(n, np.int32)
    eng.partition = np.full(n, -1, np.int32)
    eng.waiting = 0
    eng.run_first = NONE
    eng.run_last = NONE
    eng.run_next = np.full(n, NONE, np.int32)
    eng.run_prev = np.full(n, NONE, np.int32)
    eng.n_running = 0
    eng.suspended = np.empty(n, np.int64)
    eng.n_suspended = 0
    # remaining, est_left, segment_start and live_key are written before they are read (a
    # job's on its suspension or resumption; live_key only where drop_stale): left empty,
    # they take no memory in a run that does not use them (numba's zeros are written)
    eng.remaining = np.empty(n)
    eng.est_left = np.empty(n)
    eng.ever_suspended = np.zeros(n, np.bool_)
    eng.segment_start = np.empty(n)
    eng.seg_job = np.empty(16, np.int64)
    eng.seg_begin = np.empty(16, np.float64)
    eng.seg_end = np.empty(16, np.float64)
    eng.n_seg = 0
    eng.heap_time = np.empty(64, np.float64)
    eng.heap_key = np.empty(64, np.int64)
    eng.heap_job = np.empty(64, np.int64)
    eng.heap_size = 0
    eng.counter = 0
    eng.live_key = np.empty(n, np.int64)
    eng.drop_stale = False
    eng.next_arrival = 0
    eng.wake_due = False
    eng.loaded = False
    eng.loads = np.zeros((0, 0), np.int8)
    eng.load_row = 0
    eng.redraw_due = False
    eng.load = np.zeros(0, np.int8)
    eng.touched = np.zeros(0, np.bool_)
    eng.equal_split = False
    eng.since = np.zeros(0)
    eng.left = np.zeros(0)
    eng.pace = np.zeros(0)
    eng.task_left = np.zeros(0)
    eng.task_pace = np.zeros(0)
    eng.error = 0
    eng.error_job = -1
    return eng


@kernel
def rigid_engine(submit, runtime, estimate, size, capacity):
    """An engine for rigid jobs (arrival order) on one partition of ``capacity``
    processors of speed 1, sizes already rounded to the unit (no job has work: ``work``
    is empty)."""
    return new_engine(submit, runtime, estimate, size, np.empty(0),
                      np.array([capacity], np.int64), 1)


@kernel
def track_processors(eng, speed, loads, equal_split):
    """Name processors (``speed``: each one's speed), under the execution model
    ``equal_split`` (else pooled) and, with ``loads`` of at least one row, under a
    background load: row r holds every processor's load in percent from the r-th redraw
    on (the IHAP paper's execution model, ``schedsim.engine``)."""
    procs = speed.shape[0]
    eng.tracked = True
    eng.owner = np.full(procs, -1, np.int64)
    eng.speed = speed
    eng.rate = speed.copy()
    eng.alloc_at = np.zeros(eng.n, np.int64)
    eng.alloc = np.empty(max(eng.n, 16), np.int64)
    eng.load = np.zeros(procs, np.int8)
    eng.equal_split = equal_split
    eng.since = np.zeros(eng.n)
    if equal_split:
        eng.task_left = np.zeros(procs)
        eng.task_pace = np.zeros(procs)
    else:
        eng.left = np.zeros(eng.n)
        eng.pace = np.zeros(eng.n)
    if loads.shape[0] > 0:
        eng.loaded = True
        eng.loads = loads
        eng.touched = np.zeros(eng.n, np.bool_)


# -- what a policy reads ----------------------------------------------------------------
@kernel(forceinline=True)
def first_running(eng):
    """The running job that started first (or resumed first), -1 if none."""
    return eng.run_first


@kernel(forceinline=True)
def next_running(eng, job):
    """The running job after ``job`` in start order, -1 after the last."""
    return eng.run_next[job]


@kernel
def running_ends(eng, ends, procs):
    """The running jobs' estimated ends (now for a job past its estimate) and processors,
    in start order, written to ``ends`` and ``procs``; returns their count."""
    now = eng.now
    count = 0
    job = eng.run_first
    while job != NONE:
        ends[count] = max(eng.est_end[job], now)
        procs[count] = eng.procs[job]
        count += 1
        job = eng.run_next[job]
    return count


# -- decisions --------------------------------------------------------------------------
@kernel(forceinline=True)
def _refuse(eng, code, job):
    if eng.error == 0:
        eng.error = code
        eng.error_job = job


@kernel
def start_job(eng, job, procs, partition):
    """Decision: start a rigid ``job`` now on ``procs`` processors of ``partition``
    (``Start``); False, with the error set, when the engine refuses it."""
    if eng.state[job] != WAITING:
        _refuse(eng, NOT_WAITING, job)
        return False
    if procs != eng.size[job]:
        _refuse(eng, BAD_SIZE, job)
        return False
    if procs > eng.free[partition]:
        _refuse(eng, NO_ROOM, job)
        return False
    now = eng.now
    eng.free[partition] -= procs
    eng.state[job] = RUNNING
    eng.start[job] = now
    eng.procs[job] = procs
    eng.partition[job] = partition
    end = now + eng.runtime[job]
    eng.end[job] = end
    eng.est_end[job] = now + eng.estimate[job]
    eng.waiting -= 1
    _append_running(eng, job)
    _push(eng, end, COMPLETION, job)
    return True


@kernel
def start_on(eng, job, chosen, count, partition):
    """Decision: start a job with work now on the processors ``chosen[:count]`` (in
    increasing order) of ``partition``: it runs its work at their rates under the
    machine's execution model (``Start`` with named processors)."""
    if eng.state[job] != WAITING:
        _refuse(eng, NOT_WAITING, job)
        return False
    if count <= 0 or count % eng.unit or count > eng.free[partition]:
        _refuse(eng, NO_ROOM, job)
        return False
    owner = eng.owner
    low, high = eng.first[partition], eng.first[partition + 1]
    for i in range(count):
        k = chosen[i]
        if not (low <= k < high) or owner[k] >= 0 or (i > 0 and k <= chosen[i - 1]):
            _refuse(eng, BAD_PROCESSORS, job)
            return False
    now = eng.now
    at = eng.n_alloc
    if at + count > eng.alloc.shape[0]:
        eng.alloc = np.concatenate((eng.alloc, np.empty(eng.alloc.shape[0] + count, np.int64)))
    eng.alloc_at[job] = at
    alloc = eng.alloc
    for i in range(count):
        k = chosen[i]
        owner[k] = job
        alloc[at + i] = k
    eng.n_alloc = at + count
    eng.free[partition] -= count
    eng.state[job] = RUNNING
    eng.start[job] = now
    eng.procs[job] = count
    eng.partition[job] = partition
    end = _begin_progress(eng, job)
    eng.est_end[job] = now + (end - now)
    eng.end[job] = end
    eng.waiting -= 1
    _append_running(eng, job)
    _push(eng, end, COMPLETION, job)
    return True


@kernel
def suspend_job(eng, job):
    """Decision: suspend a running rigid job now (``Suspend``): it frees its processors and
    keeps its remaining run time and estimate; its segment is recorded."""
    if eng.state[job] != RUNNING:
        _refuse(eng, NOT_RUNNING, job)
        return False
    now = eng.now
    _remove_running(eng, job)
    eng.remaining[job] = max((eng.end[job] - now) * 1.0, 0.0)
    eng.est_left[job] = max(eng.est_end[job] - now, 0.0)
    eng.free[eng.partition[job]] += eng.procs[job]
    _close_segment(eng, job, now)
    eng.ever_suspended[job] = True
    eng.end[job] = np.nan
    eng.state[job] = SUSPENDED
    eng.suspended[eng.n_suspended] = job
    eng.n_suspended += 1
    return True


@kernel
def resume_job(eng, job):
    """Decision: resume a suspended job now with its processor count, in its partition
    (``Resume``)."""
    if eng.state[job] != SUSPENDED:
        _refuse(eng, NOT_SUSPENDED, job)
        return False
    part = eng.partition[job]
    if eng.procs[job] > eng.free[part]:
        _refuse(eng, NO_ROOM, job)
        return False
    kept = 0
    for q in range(eng.n_suspended):
        if eng.suspended[q] != job:
            eng.suspended[kept] = eng.suspended[q]
            kept += 1
    eng.n_suspended = kept
    now = eng.now
    end = now + eng.remaining[job] / 1.0
    eng.free[part] -= eng.procs[job]
    eng.state[job] = RUNNING
    eng.end[job] = end
    eng.est_end[job] = now + eng.est_left[job]
    eng.segment_start[job] = now
    _append_running(eng, job)
    _push(eng, end, COMPLETION, job)
    return True


@kernel
def wake_up(eng, time):
    """Decision: call the policy again at ``time`` (``WakeUp``), even if nothing else
    happens then."""
    if time <= eng.now:
        _refuse(eng, PAST_WAKE_UP, -1)
        return False
    _push(eng, time, WAKE, -1)
    return True


# -- mechanisms ---------------------------------------------------------------------------
@kernel
def _push(eng, time, priority, job):
    events.make_room(eng, 1)
    eng.counter += 1
    key = events.key_of(priority, eng.counter)
    if priority == COMPLETION and eng.drop_stale:
        eng.live_key[job] = key
    eng.heap_size = events.push(eng.heap_time, eng.heap_key, eng.heap_job, eng.heap_size,
                                time, key, job)


@kernel(forceinline=True)
def _append_running(eng, job):
    eng.run_prev[job] = eng.run_last
    eng.run_next[job] = NONE
    if eng.run_last == NONE:
        eng.run_first = job
    else:
        eng.run_next[eng.run_last] = job
    eng.run_last = job
    eng.n_running += 1


@kernel(forceinline=True)
def _remove_running(eng, job):
    before, after = eng.run_prev[job], eng.run_next[job]
    if before == NONE:
        eng.run_first = after
    else:
        eng.run_next[before] = after
    if after == NONE:
        eng.run_last = before
    else:
        eng.run_prev[after] = before
    eng.n_running -= 1


@kernel
def _close_segment(eng, job, end):
    begin = eng.segment_start[job] if eng.ever_suspended[job] else eng.start[job]
    count = eng.n_seg
    if count == eng.seg_job.shape[0]:
        eng.seg_job = np.concatenate((eng.seg_job, np.empty(count, np.int64)))
        eng.seg_begin = np.concatenate((eng.seg_begin, np.empty(count, np.float64)))
        eng.seg_end = np.concatenate((eng.seg_end, np.empty(count, np.float64)))
    eng.seg_job[count] = job
    eng.seg_begin[count] = begin
    eng.seg_end[count] = end
    eng.n_seg = count + 1


@kernel
def _complete(eng, job):
    """A completion event: False when stale (the job was re-timed or suspended)."""
    now = eng.now
    if eng.end[job] != now or eng.state[job] != RUNNING:
        return False
    _remove_running(eng, job)
    eng.state[job] = DONE
    eng.free[eng.partition[job]] += eng.procs[job]
    if eng.tracked:  # the job's processors: alloc[alloc_at[job]:][:procs[job]]
        owner, alloc, at = eng.owner, eng.alloc, eng.alloc_at[job]
        for i in range(at, at + eng.procs[job]):
            owner[alloc[i]] = -1
    if eng.ever_suspended[job]:
        _close_segment(eng, job, now)
    if eng.loaded:
        eng.redraw_due = True
    return True


# -- progress of jobs with work (schedsim.engine: _begin_progress, _advance, _retime) ----
@kernel
def _begin_progress(eng, job):
    """A started job's tasks: its work left whole (pooled) or split equally among its
    processors (equal split); returns its projected end."""
    eng.since[job] = eng.now
    if eng.equal_split:
        count, base = eng.procs[job], eng.alloc_at[job]
        share = eng.work[job] / count
        for i in range(count):
            eng.task_left[eng.alloc[base + i]] = share
    else:
        eng.left[job] = eng.work[job]
    return _projected_end(eng, job)


@kernel
def _advance(eng, job):
    """Every task's remaining work brought to now at the rate it had."""
    now = eng.now
    elapsed = now - eng.since[job]
    if eng.equal_split:
        count, base = eng.procs[job], eng.alloc_at[job]
        for i in range(count):
            k = eng.alloc[base + i]
            eng.task_left[k] = max(0.0, eng.task_left[k] - eng.task_pace[k] * elapsed)
    else:
        eng.left[job] = max(0.0, eng.left[job] - eng.pace[job] * elapsed)
    eng.since[job] = now


@kernel
def _projected_end(eng, job):
    """The tasks' rates from their processors' current rates (pooled: summed in processor
    order) and the end of the slowest task; progress up to date."""
    count, base = eng.procs[job], eng.alloc_at[job]
    if eng.equal_split:
        longest = 0.0
        for i in range(count):
            k = eng.alloc[base + i]
            eng.task_pace[k] = eng.rate[k]
            time = eng.task_left[k] / eng.rate[k]
            if i == 0 or time > longest:
                longest = time
        return eng.now + longest
    pace = 0.0
    for i in range(count):
        pace += eng.rate[eng.alloc[base + i]]
    eng.pace[job] = pace
    return eng.now + eng.left[job] / pace


@kernel
def _redraw(eng):
    """New loads for every processor (the next row); the running jobs on a processor whose
    rate changed have their remaining work brought to now and get new rates and a new
    end, in start order."""
    row = eng.loads[eng.load_row]
    eng.load_row += 1
    rate, speed, owner, touched = eng.rate, eng.speed, eng.owner, eng.touched
    load = eng.load
    for k in range(rate.shape[0]):
        new_rate = speed[k] * (1.0 - row[k] / 100.0)
        job = owner[k]
        if job >= 0 and new_rate != rate[k]:
            touched[job] = True
        rate[k] = new_rate
        load[k] = row[k]
    ends, est_end, run_next = eng.end, eng.est_end, eng.run_next
    events.make_room(eng, eng.n_running)
    times, keys, entries, live_key = eng.heap_time, eng.heap_key, eng.heap_job, eng.live_key
    size, counter = eng.heap_size, eng.counter
    job = eng.run_first
    while job != NONE:
        if touched[job]:
            touched[job] = False
            _advance(eng, job)
            end = _projected_end(eng, job)
            ends[job] = end
            est_end[job] = end
            counter += 1
            key = events.key_of(COMPLETION, counter)
            if eng.drop_stale:
                live_key[job] = key
            size = events.push(times, keys, entries, size, end, key, job)
        job = run_next[job]
    eng.heap_size, eng.counter = size, counter
    if eng.drop_stale:
        eng.heap_size = events.drop(times, keys, entries, size, live_key, eng.state, RUNNING)


# -- the policy protocol ----------------------------------------------------------------
_DECISIONS: dict[type, tuple] = {}


@kernel
def nothing(policy, eng, job):
    """A ``submit`` or ``finish`` with nothing to do."""


def compiled_policy(record_class: type, schedule, submit=nothing, finish=nothing,  # type: ignore[no-untyped-def]
                    events_only: bool = False) -> None:
    """Register a compiled policy: its state's record class and its decision functions.

    ``events_only``: the policy's ``schedule`` decides nothing at an instant at which no
    job arrived or completed and no wake-up was due (its decisions depend only on what
    those change), so the loop skips its call there: an instant made only by a completion
    entry that a re-timing or a suspension left behind. The Python engine calls it there
    all the same; the conformance test holds the two equal."""
    _DECISIONS[record_class] = (submit, finish, schedule, events_only)


def policy_submit(policy, eng, job):  # type: ignore[no-untyped-def]
    """``job`` arrived: the policy's ``submit`` (compiled code only)."""
    raise NotImplementedError


def policy_finish(policy, eng, job):  # type: ignore[no-untyped-def]
    """``job`` completed: the policy's ``finish`` (compiled code only)."""
    raise NotImplementedError


def policy_schedule(policy, eng):  # type: ignore[no-untyped-def]
    """One scheduling call: the policy's ``schedule`` (compiled code only)."""
    raise NotImplementedError


def _decision(policy_type, which):  # type: ignore[no-untyped-def]
    found = _DECISIONS.get(type(policy_type))
    if found is None:
        raise TypeError(f"no compiled policy is registered for {policy_type}")
    return found[which]


def _job_event(which: int):  # type: ignore[no-untyped-def]
    def typed(policy, eng, job):  # type: ignore[no-untyped-def]
        decide = _decision(policy, which)
        return lambda policy, eng, job: decide(policy, eng, job)
    return typed


overload(policy_submit, jit_options={"cache": True})(_job_event(0))
overload(policy_finish, jit_options={"cache": True})(_job_event(1))


@overload(policy_schedule, jit_options={"cache": True})
def _policy_schedule(policy, eng):  # type: ignore[no-untyped-def]
    decide = _decision(policy, 2)
    return lambda policy, eng: decide(policy, eng)


def policy_events_only(policy):  # type: ignore[no-untyped-def]
    """Whether the policy decides only at instants at which something happened."""
    raise NotImplementedError


@overload(policy_events_only, jit_options={"cache": True})
def _policy_events_only(policy):  # type: ignore[no-untyped-def]
    if _decision(policy, 3):
        return lambda policy: True
    return lambda policy: False


# -- the loop -----------------------------------------------------------------------------
@kernel
def run(policy, eng):
    """Run to the last completion (or to a refused decision: ``eng.error``)."""
    n = eng.n
    submit = eng.submit
    while True:
        now = np.inf
        if eng.heap_size > 0:
            now = eng.heap_time[0]
        if eng.next_arrival < n and submit[eng.next_arrival] < now:
            now = submit[eng.next_arrival]
        if now == np.inf:
            return
        eng.now = now
        happened = False  # a completion, an arrival or a due wake-up
        times, keys, entries = eng.heap_time, eng.heap_key, eng.heap_job
        while eng.heap_size > 0 and times[0] == now \
                and events.priority_of(keys[0]) == COMPLETION:
            job = entries[0]
            eng.heap_size = events.pop(times, keys, entries, eng.heap_size)
            if _complete(eng, job):
                happened = True
                policy_finish(policy, eng, job)
        while eng.next_arrival < n and submit[eng.next_arrival] == now:
            happened = True
            job = eng.next_arrival
            eng.next_arrival += 1
            eng.state[job] = WAITING
            eng.waiting += 1
            policy_submit(policy, eng, job)
            if eng.loaded:
                eng.redraw_due = True
        times, keys, entries = eng.heap_time, eng.heap_key, eng.heap_job  # pushes may grow them
        while eng.heap_size > 0 and times[0] == now:  # wake-ups
            eng.heap_size = events.pop(times, keys, entries, eng.heap_size)
            eng.wake_due = True
        if eng.redraw_due:
            eng.redraw_due = False
            if eng.load_row == eng.loads.shape[0]:
                eng.error = OUT_OF_LOADS
                return
            _redraw(eng)
        if (eng.waiting > 0 or eng.n_suspended > 0 or eng.wake_due) and (
                happened or eng.wake_due or not policy_events_only(policy)):
            eng.wake_due = False
            policy_schedule(policy, eng)
            if eng.error != 0:
                return


@kernel
def outcome(eng):
    """The run's results for ``schedsim.kernel.whole.Outcome``: start, end, processors,
    partition and state per job, the error, the segments of suspended jobs, and on a
    machine that tracks processors the processors each job started on."""
    count = eng.n_seg
    return (eng.start, eng.end, eng.procs, eng.partition, eng.state, eng.error,
            eng.error_job, eng.seg_job[:count].copy(), eng.seg_begin[:count].copy(),
            eng.seg_end[:count].copy(), eng.alloc_at, eng.alloc[:eng.n_alloc].copy())
