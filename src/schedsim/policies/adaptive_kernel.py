"""MAP, HAP and IHAP under i.i.d. background loads, the whole run compiled with numba.

The same model as the engine with a :class:`~schedsim.loadmodel.UniformLoads` load model
and an :class:`~schedsim.policies.adaptive.AdaptivePolicy` (IHAP paper, sec. 3-4; spec
section 2): at every instant, completions, then arrivals, then new loads for every
processor (when a job arrived or completed), the running jobs whose processors' rates
changed re-timed, then the policy. The load draws come from the load model's own
generator in the engine's order, and every floating-point operation on a job's progress
is the engine's, in the engine's order, so the schedules are identical start for start
and end for end (``tests/test_adaptive_kernel.py`` compares them). Compilation is cached
on disk (numba's ``cache=True``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from schedsim.engine import SimulationError

if TYPE_CHECKING:
    from schedsim.jobs import Job
    from schedsim.loadmodel import UniformLoads
    from schedsim.machine import Machine
    from schedsim.policies.adaptive import AdaptivePolicy

MAP_KIND, HAP_KIND, IHAP_KIND = 0, 1, 2
PERCENT = 100
_ROWS_PER_DRAW = 8192


@njit(cache=True)
def _weights(kind, nominal, speed_int, scale, percents, out):
    for k in range(speed_int.shape[0]):
        if kind == MAP_KIND:
            out[k] = scale * PERCENT if nominal else scale * (PERCENT - percents[k])
        elif kind == HAP_KIND and nominal:
            out[k] = speed_int[k] * PERCENT
        else:
            out[k] = speed_int[k] * (PERCENT - percents[k])


@njit(cache=True)
def _partition_size(n_num, n_den, f_num, f_den, waiting, running, nearest):
    """PS = max(1, ceil(N / (W + f R + 1) + 1/2)) in integers (AdaptivePolicy.partition_size;
    ``waiting`` already less the sized job when it does not count)."""
    den = f_den * (waiting + 1) + f_num * running
    top = 2 * n_num * f_den + n_den * den
    bottom = 2 * n_den * den
    size = top // bottom if nearest else -((-top) // bottom)
    return max(1, size)


@njit(cache=True)
def adaptive_kernel(submit, work, pmax, speed, speed_int, scale, loads, kind, nominal,
                    fpfs, nearest, f_num, f_den, sized_job_waits):
    """Run the jobs (in the engine's arrival order); return start, end, processors per job
    and the number of load rows used (-1: ``loads`` ran out)."""
    n = submit.shape[0]
    procs = speed.shape[0]
    unit = scale * PERCENT
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    nprocs = np.zeros(n, np.int64)
    owner = np.full(procs, -1, np.int64)
    rate = speed.copy()
    weight = np.zeros(procs, np.int64)
    order = np.arange(procs)
    # running jobs in start order: job, remaining work, progress time, rate, processors
    run_job = np.zeros(procs, np.int64)
    run_left = np.zeros(procs)
    run_time = np.zeros(procs)
    run_rate = np.zeros(procs)
    run_procs = np.zeros((procs, procs), np.int64)
    run_count = 0
    queue = np.zeros(n, np.int64)
    queue_len = 0
    next_arrival = 0
    row = 0
    numerator, denominator = 0, 1
    affected = np.zeros(n, np.bool_)
    chosen = np.zeros(procs, np.int64)
    while True:
        now = np.inf
        if next_arrival < n:
            now = submit[next_arrival]
        for s in range(run_count):
            if end[run_job[s]] < now:
                now = end[run_job[s]]
        if now == np.inf:
            break
        changed = False
        s = 0
        while s < run_count:  # completions, keeping start order
            job = run_job[s]
            if end[job] == now:
                for i in range(nprocs[job]):
                    owner[run_procs[s, i]] = -1
                for r in range(s, run_count - 1):
                    run_job[r] = run_job[r + 1]
                    run_left[r] = run_left[r + 1]
                    run_time[r] = run_time[r + 1]
                    run_rate[r] = run_rate[r + 1]
                    run_procs[r, :] = run_procs[r + 1, :]
                run_count -= 1
                changed = True
            else:
                s += 1
        while next_arrival < n and submit[next_arrival] == now:
            queue[queue_len] = next_arrival
            queue_len += 1
            next_arrival += 1
            changed = True
        if not changed:
            continue
        if row >= loads.shape[0]:
            return start, end, nprocs, -1
        percents = loads[row]
        row += 1
        for k in range(procs):  # new loads: the jobs whose processors' rates changed
            new_rate = speed[k] * (1.0 - percents[k] / 100.0)
            if new_rate != rate[k] and owner[k] >= 0:
                affected[owner[k]] = True
            rate[k] = new_rate
        for s in range(run_count):
            job = run_job[s]
            if affected[job]:
                affected[job] = False
                left = run_left[s] - run_rate[s] * (now - run_time[s])
                run_left[s] = max(0.0, left)
                run_time[s] = now
                total = 0.0
                for i in range(nprocs[job]):
                    total += rate[run_procs[s, i]]
                run_rate[s] = total
                end[job] = now + run_left[s] / total
        _weights(kind, nominal, speed_int, scale, percents, weight)
        if kind == MAP_KIND:
            numerator, denominator = procs, 1
        elif kind == HAP_KIND:
            numerator, denominator = speed_int.sum(), scale
        else:
            numerator, denominator = weight.sum(), unit
        keys = (weight.max() - weight) * (speed_int.max() + 1) * procs \
            + (speed_int.max() - speed_int) * procs + np.arange(procs)
        order = np.argsort(keys)
        if queue_len == 0:
            continue
        idle_weight = 0
        for k in range(procs):
            if owner[k] < 0:
                idle_weight += weight[k]
        waiting, running = queue_len, run_count
        if not sized_job_waits:
            waiting -= 1
        size = _partition_size(numerator, denominator, f_num, f_den, waiting, running, nearest)
        kept = 0
        for q in range(queue_len):
            job = queue[q]
            tau = min(size, pmax[job])
            if idle_weight < tau * unit:
                if not fpfs or idle_weight < unit:  # FCFS, or not even tau = 1 fits
                    if kept == q:  # nothing started before: the queue stays as it is
                        kept = queue_len
                        break
                    for r in range(q, queue_len):  # the rest wait, in order
                        queue[kept] = queue[r]
                        kept += 1
                    break
                queue[kept] = job
                kept += 1
                continue
            need = tau * unit
            total_weight = 0
            count = 0
            for i in range(procs):
                k = order[i]
                if owner[k] < 0:
                    chosen[count] = k
                    count += 1
                    total_weight += weight[k]
                    if total_weight >= need:
                        break
            picked = np.sort(chosen[:count])
            total = 0.0
            for i in range(count):
                k = picked[i]
                owner[k] = job
                total += rate[k]
                run_procs[run_count, i] = k
            run_job[run_count] = job
            run_left[run_count] = work[job]
            run_time[run_count] = now
            run_rate[run_count] = total
            run_count += 1
            start[job] = now
            end[job] = now + work[job] / total
            nprocs[job] = count
            idle_weight -= total_weight
            waiting -= 1
            running += 1
            size = _partition_size(numerator, denominator, f_num, f_den, waiting, running,
                                   nearest)
        queue_len = kept
    return start, end, nprocs, row


def policy_kind(policy: AdaptivePolicy) -> int:
    """The kernel's code for ``policy``'s weights and numerator."""
    from schedsim.policies.adaptive import HAP, IHAP, MAP

    for cls, code in ((IHAP, IHAP_KIND), (HAP, HAP_KIND), (MAP, MAP_KIND)):
        if isinstance(policy, cls):
            return code
    raise ValueError(f"no compiled kernel for {type(policy).__name__}")


def simulate_adaptive(jobs: Sequence[Job], machine: Machine, policy: AdaptivePolicy,
                      load: UniformLoads) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start, end and processor count per job (in ``jobs`` order), as the engine gives them
    for ``policy`` on ``machine`` under ``load``; ``load``'s generator is consumed."""
    from schedsim.policies.adaptive import FPFS, NEAREST, NOMINAL

    n = len(jobs)
    arrival = sorted(range(n), key=lambda i: (jobs[i].submit, i))
    submit = np.array([jobs[i].submit for i in arrival], dtype=float)
    work = np.array([_work(jobs[i]) for i in arrival], dtype=float)
    pmax = np.array([jobs[i].procs for i in arrival], dtype=np.int64)
    speed = np.array(machine.speeds or (1.0,) * machine.procs, dtype=float)
    settings = policy.settings
    loads = _draw_loads(load, 2 * n + 1, machine.procs)
    start, end, nprocs, used = adaptive_kernel(
        submit, work, pmax, speed, np.array(policy.speeds, dtype=np.int64), policy.scale,
        loads, policy_kind(policy), settings.capacity == NOMINAL, policy.order == FPFS,
        settings.rounding == NEAREST, policy.f.numerator, policy.f.denominator,
        settings.sized_job_waits)
    if used < 0:
        raise SimulationError("adaptive kernel: more load draws than arrivals and departures")
    back = np.empty(n, dtype=np.int64)
    back[np.array(arrival, dtype=np.int64)] = np.arange(n)
    if np.isnan(start).any():
        first = int(np.flatnonzero(np.isnan(start[back]))[0])
        raise SimulationError(f"the policy never started job id {jobs[first].id}")
    return start[back], end[back], nprocs[back]


def _work(job: Job) -> float:
    if job.work is None:
        raise ValueError(f"job {job.id}: the adaptive kernel needs jobs with work")
    return job.work


def _draw_loads(load: UniformLoads, rows: int, procs: int) -> np.ndarray:
    """``rows`` successive redraws of ``load`` as integer percents (the same stream as
    ``rows`` calls of its ``redraw``)."""
    background = load.background
    levels = len(background.grid)
    step = round(background.grid[1] * PERCENT) if levels > 1 else 0
    out = np.empty((rows, procs), dtype=np.int8)
    for first in range(0, rows, _ROWS_PER_DRAW):
        count = min(_ROWS_PER_DRAW, rows - first)
        picks = background.rng.integers(0, levels, size=(count, procs))
        out[first:first + count] = picks * step
    return out
