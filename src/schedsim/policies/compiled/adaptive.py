"""MAP, HAP and IHAP (``schedsim.policies.adaptive``) as compiled decisions on the shared
engine, which tracks the processors, draws the background loads and re-times the jobs
(the IHAP paper's execution model, sec. 2-4).

At every call: each processor's weight w_k from the current loads (MAP: 1 - u_k in
processors, or 1 with nominal capacity; HAP: b_k (1 - u_k) in BPUs, or b_k; IHAP: the
available computing power b_k (1 - u_k)), N (MAP: processors; HAP: the machine's BPUs;
IHAP: the sum of the weights), the partition size PS (eq. 2, 5, 7) in integers; then the
queue in order: a job's target (``AdaptivePolicy.cap``: PS and at most Pmax processors,
or with Pmax in BPUs tau = min(PS, Pmax) and no count limit); it fits when the idle
processors' weights reach the target or enough of them are idle; it gets idle processors
in the order (-w, -b, k) until their weights reach the target or they are as many as the
limit; FCFS stops at the first job that does not fit, FPFS passes it over. Weights are
integers in 1/(scale x 100) of the policy's unit, as the Python policy's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import typeof, types

from schedsim.kernel import loop, mintree
from schedsim.kernel.cache import kernel
from schedsim.kernel.loop import compiled_policy, new_engine, start_on, track_processors
from schedsim.kernel.records import Record, new, record_type

MAP_KIND, HAP_KIND, IHAP_KIND = 0, 1, 2
PERCENT = 100
_i8 = types.int64


class AdaptiveConstants(NamedTuple):
    """An ``AdaptivePolicy``'s settings as a compiled run reads them."""

    kind: int  # MAP_KIND, HAP_KIND, IHAP_KIND: the weights and N
    nominal: bool  # MAP and HAP: capacity nominal, else available
    fpfs: bool  # fit-processors-first-served, else FCFS
    nearest: bool  # PS rounded to nearest, else as printed (ceil(x + 1/2))
    f_num: int  # f = f_num / f_den
    f_den: int
    sized_job_waits: bool
    scale: int  # speeds are integers in 1/scale units
    pmax_bpus: bool  # Pmax in BPUs (eq. 8 as printed), else a count of processors (O3)


ADAPTIVE_CONSTANTS = typeof(AdaptiveConstants(0, True, True, True, 1, 2, True, 1, True))


@kernel
def partition_size(n_num, n_den, f_num, f_den, waiting, running, nearest):
    """PS = max(1, ceil(N / (W + f R + 1) + 1/2)) in integers
    (``AdaptivePolicy.partition_size``; ``waiting`` already less the sized job when it
    does not count)."""
    den = f_den * (waiting + 1) + f_num * running
    top = 2 * n_num * f_den + n_den * den
    bottom = 2 * n_den * den
    size = top // bottom if nearest else -((-top) // bottom)
    return max(1, size)


@record_type
class AdaptiveState(Record):
    """MAP, HAP, IHAP: the queue (``waiting`` jobs; ``queue``: a minimum tree over the job
    numbers, arrival order, holding each waiting job's Pmax), integer speeds and per-call
    scratch."""


ADAPTIVE_STATE = AdaptiveState([
    ("constants", ADAPTIVE_CONSTANTS), ("pmax", _i8[::1]), ("speed_int", _i8[::1]),
    ("queue", _i8[::1]), ("waiting", _i8), ("weight", _i8[::1]), ("chosen", _i8[::1]),
    ("order", _i8[::1]), ("keys", _i8[::1]), ("span", _i8)])


@kernel
def _weights(policy, percents):
    """w_k per processor (``MAP.weights``, ``HAP.weights``, ``IHAP.weights``)."""
    constants, speed_int, out = policy.constants, policy.speed_int, policy.weight
    for k in range(speed_int.shape[0]):
        if constants.kind == MAP_KIND:
            out[k] = (constants.scale * PERCENT if constants.nominal
                      else constants.scale * (PERCENT - percents[k]))
        elif constants.kind == HAP_KIND and constants.nominal:
            out[k] = speed_int[k] * PERCENT
        else:
            out[k] = speed_int[k] * (PERCENT - percents[k])


@kernel
def _enqueue(policy, eng, job):
    mintree.set_value(policy.queue, job, policy.pmax[job])
    policy.waiting += 1


@kernel(forceinline=True)
def _cap(constants, size, pmax, unit, procs):
    """(need, most) of a job: ``AdaptivePolicy.cap`` in integer weights."""
    if constants.pmax_bpus:
        return min(size, pmax) * unit, procs + 1
    return size * unit, pmax


@kernel(_nrt=False)
def _idle_order(weight, speed_int, span, owner, order, keys):
    """The idle processors in the order they are given out, (-w, -b, k), into ``order``
    (``keys``: scratch as long); returns how many. Each is inserted in turn by the key
    w ``span`` + b (``span``: max b + 1): no array is made, and numba's sort of a few
    dozen keys cost more than the rest of a call (docs/performance.md, "The idle
    order")."""
    count = 0
    for k in range(speed_int.shape[0]):
        if owner[k] >= 0:
            continue
        key = weight[k] * span + speed_int[k]
        at = count  # after every larger key, and every equal one (k grows)
        while at > 0 and keys[at - 1] < key:
            keys[at] = keys[at - 1]
            order[at] = order[at - 1]
            at -= 1
        keys[at] = key
        order[at] = k
        count += 1
    return count


@kernel(_nrt=False)
def _sort_small(values, count):
    """``values[:count]`` in increasing order, in place (insertion: a job's processors
    are a few)."""
    for i in range(1, count):
        value = values[i]
        at = i
        while at > 0 and values[at - 1] > value:
            values[at] = values[at - 1]
            at -= 1
        values[at] = value


@kernel
def _adaptive_schedule(policy, eng):
    """One call of ``AdaptivePolicy.schedule``."""
    constants, weight, speed_int = policy.constants, policy.weight, policy.speed_int
    procs = speed_int.shape[0]
    unit = constants.scale * PERCENT
    _weights(policy, eng.load)
    if constants.kind == MAP_KIND:
        numerator, denominator = procs, 1
    elif constants.kind == HAP_KIND:
        numerator, denominator = speed_int.sum(), constants.scale
    else:
        numerator, denominator = weight.sum(), unit
    order = policy.order  # the idle processors' order, made when a first job starts
    ordered = -1  # how many processors ``order`` holds (-1: not made yet)
    owner, queue, chosen, pmax = eng.owner, policy.queue, policy.chosen, policy.pmax
    idle_weight = 0
    idle_count = 0
    for k in range(procs):
        if owner[k] < 0:
            idle_weight += weight[k]
            idle_count += 1
    waiting, running = policy.waiting, eng.n_running
    if not constants.sized_job_waits:
        waiting -= 1
    size = partition_size(numerator, denominator, constants.f_num, constants.f_den, waiting,
                          running, constants.nearest)
    position = 0  # the queue in order: the jobs before this number were looked at
    while True:
        job = mintree.first_at_most(queue, position, mintree.ABSENT - 1)
        if job < 0:
            break
        need, most = _cap(constants, size, pmax[job], unit, procs)
        if idle_weight < need and idle_count < most:
            # FCFS, or no job fits: no idle processor, or (Pmax in BPUs) not even tau = 1
            if not constants.fpfs or idle_count == 0 \
                    or (constants.pmax_bpus and idle_weight < unit):
                break  # the rest wait
            # FPFS: the jobs are passed over up to the first that fits; with PS units
            # short, that is one whose Pmax (in units, or processors) the idle ones cover
            limit = idle_weight // unit if constants.pmax_bpus else idle_count
            job = mintree.first_at_most(queue, job + 1, limit)
            if job < 0:
                break
            need, most = _cap(constants, size, pmax[job], unit, procs)
        if ordered < 0:
            ordered = _idle_order(weight, speed_int, policy.span, owner, order, policy.keys)
        total_weight = 0
        count = 0
        for i in range(ordered):
            k = order[i]
            if owner[k] < 0:
                chosen[count] = k
                count += 1
                total_weight += weight[k]
                if total_weight >= need or count == most:
                    break
        _sort_small(chosen, count)
        start_on(eng, job, chosen, count, 0)
        mintree.set_value(queue, job, mintree.ABSENT)
        policy.waiting -= 1
        position = job + 1
        idle_weight -= total_weight
        idle_count -= count
        waiting -= 1
        running += 1
        size = partition_size(numerator, denominator, constants.f_num, constants.f_den,
                              waiting, running, constants.nearest)


compiled_policy(AdaptiveState, _adaptive_schedule, submit=_enqueue, events_only=True)


@kernel
def adaptive_run(submit, work, pmax, speed, speed_int, loads, equal_split, constants):
    """A whole MAP, HAP or IHAP run of jobs with work (arrival order) on one partition of
    processors of ``speed``, under ``loads`` (rows of percents, one per redraw; no rows:
    no background load) and the machine's execution model (``equal_split``, else
    pooled): the engine's outcome (``loop.outcome``) and the redraws used."""
    n = submit.shape[0]
    procs = speed.shape[0]
    eng = new_engine(submit, np.zeros(n), np.zeros(n), np.zeros(n, np.int64), work,
                     np.array([procs], np.int64), 1)
    track_processors(eng, speed, loads, equal_split)
    # the policy decides only at events: a re-timed job's old completion entry would make
    # an instant at which nothing happens (loop.compiled_policy, events_only)
    eng.drop_stale = True
    policy = new(ADAPTIVE_STATE)
    policy.constants = constants
    policy.pmax = pmax
    policy.speed_int = speed_int
    policy.queue = mintree.new_tree(n)
    policy.waiting = 0
    policy.weight = np.zeros(procs, np.int64)
    policy.chosen = np.zeros(procs, np.int64)
    policy.order = np.zeros(procs, np.int64)
    policy.keys = np.zeros(procs, np.int64)
    policy.span = speed_int.max() + 1  # (constant: the idle order's keys)
    loop.run(policy, eng)
    return loop.outcome(eng), eng.load_row
