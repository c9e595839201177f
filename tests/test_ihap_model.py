"""The IHAP execution model and its statistics: M/G/1 known answers through batch means
(under either execution model: on one processor they coincide), the coverage of the 90%
batch interval, and invariants of MAP, HAP and IHAP runs under background load
(hypothesis)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.experiments.families.ihap_measure import MEASURE as BATCHES
from schedsim.experiments.run import SeedWorkload, simulate_batches
from schedsim.loadmodel import UniformLoads
from schedsim.machine import EQUAL_SPLIT, EXECUTION_MODELS, Machine
from schedsim.policies.adaptive import FCFS, AdaptivePolicy
from schedsim.policies.registry import make_policy
from schedsim.stats import mean_ci
from schedsim.workloads.hyperexp import PARAMS, generate_hyperexp_jobs, ihap_machine

ONE = {execution: Machine(1, speeds=(1.0,), execution=execution)
       for execution in EXECUTION_MODELS}


def single_server_jobs(count: int, seed: int, cv_demand: float) -> list:
    """M/G/1 with D = 1 and lambda = 1/2 (utilization 0.5 on one processor, Pmax 1)."""
    params = {**{p.name: p.default for p in PARAMS}, "procs": 1, "pmax": 1, "demand_mean": 1.0,
              "utilization": 0.5, "cv_demand": cv_demand, "cv_arrival": 1.0}
    return generate_hyperexp_jobs(count, seed, params)


@pytest.mark.parametrize("execution", EXECUTION_MODELS)
@pytest.mark.parametrize("cv_demand, response", [(2.0, 3.5), (1.0, 2.0)])
def test_mg1_mean_response_through_batch_means(cv_demand: float, response: float,
                                               execution: str) -> None:
    """Pollaczek-Khinchine: R = D + lambda E[S^2] / (2 (1 - rho)); CVs 2 -> 3.5, CVs 1 -> 2.0.
    The 90% interval over 30 kept batches of 2000 jobs covers it, for every policy, under
    either execution model."""
    jobs = single_server_jobs(31 * 2000, 5, cv_demand)
    rows = simulate_batches(SeedWorkload(jobs), ONE[execution], "IHAP", {}, None,
                            (31, 2000, 1), BATCHES)
    interval = mean_ci([r["MRT"] for r in rows], 0.90)
    assert interval.low <= response <= interval.high, interval
    # every policy gives the same schedule on one processor (test_adaptive's Lindley test)


def lindley_response(gaps: np.ndarray, services: np.ndarray) -> np.ndarray:
    """Response times of FCFS on one unit-speed server: W_n = X_n - min_{k <= n} X_k with
    X_n = sum_{i < n} (S_i - A_{i+1}) (the Lindley recursion, unrolled)."""
    steps = np.concatenate(([0.0], services[:-1] - gaps[1:]))
    walk = np.cumsum(steps)
    return walk - np.minimum.accumulate(walk) + services


def test_lindley_unrolled_equals_the_recursion() -> None:
    rng = np.random.default_rng(1)
    gaps, services = rng.exponential(2.0, 500), rng.exponential(1.0, 500)
    wait, expected = 0.0, []
    for i in range(500):
        if i:
            wait = max(0.0, wait + services[i - 1] - gaps[i])
        expected.append(wait + services[i])
    assert np.allclose(lindley_response(gaps, services), expected)


def test_batch_interval_coverage_on_mm1() -> None:
    """Over 100 fixed seeds of M/M/1 (rho 1/2, 31 batches of 1000, the first dropped), the
    90% batch-means interval covers the mean response 2.0 in 80-97% of the runs."""
    covered = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        gaps, services = rng.exponential(2.0, 31 * 1000), rng.exponential(1.0, 31 * 1000)
        response = lindley_response(gaps, services)
        batches = response[1000:].reshape(30, 1000).mean(axis=1)
        interval = mean_ci(batches, 0.90)
        covered += interval.low <= 2.0 <= interval.high
    assert 80 <= covered <= 97, covered


# ----------------------------------------------------------------------------- invariants


class RecordingLoads(UniformLoads):
    """Uniform loads that remember every draw and its time."""

    def __init__(self, procs: int, seed: int) -> None:
        super().__init__(procs, seed)
        self.history: list[tuple[float, tuple[float, ...]]] = []

    def redraw(self, now: float) -> Sequence[float]:
        loads = super().redraw(now)
        self.history.append((now, tuple(loads)))
        return loads


def checked(policy: AdaptivePolicy) -> tuple[AdaptivePolicy, list[str]]:
    """``policy`` with its allocations and FPFS passes checked as it runs."""
    problems: list[str] = []
    allocate, schedule = policy.allocate, policy.schedule

    def checked_allocate(need, most, idle, weights, idle_weight=None):  # type: ignore[no-untyped-def]
        chosen = allocate(need, most, idle, weights, idle_weight)
        if chosen:
            total = sum(weights[k] for k in chosen)
            reached = total >= need or len(chosen) == most
            if not reached or total - weights[chosen[-1]] >= need or len(chosen) > most:
                problems.append(f"allocation {chosen} for {need} (at most {most})")
        return chosen

    def checked_schedule(view):  # type: ignore[no-untyped-def]
        decisions = schedule(view)
        if policy.order == FCFS or not policy.queue:
            return decisions
        weights, numerator = policy._weighed(view.loads)
        busy = {k for d in decisions for k in d.processors}
        idle_weight = sum(weights[k] for k in view.free_processors() if k not in busy)
        idle_count = len(view.free_processors()) - len(busy)
        size = policy.partition_size(numerator, len(policy.queue),
                                     len(view.running) + len(decisions))
        for job in policy.queue:
            if policy.fits(*policy.cap(size, job.procs), idle_weight, idle_count):
                problems.append(f"t={view.now}: job {job.id} fits after the FPFS pass")
        return decisions

    policy.allocate = checked_allocate  # type: ignore[method-assign]
    policy.schedule = checked_schedule  # type: ignore[method-assign]
    return policy, problems


def rate_integral(loads: RecordingLoads, speeds: Sequence[float], processors: Sequence[int],
                  start: float, end: float) -> float:
    """The work ``processors`` can do over [start, end] under the recorded loads."""
    times = [t for t, _ in loads.history] + [float("inf")]
    total = 0.0
    for (t, values), following in zip(loads.history, times[1:], strict=True):
        low, high = max(t, start), min(following, end)
        if high > low:
            total += (high - low) * sum(speeds[k] * (1.0 - values[k]) for k in processors)
    return total


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), utilization=st.sampled_from([0.3, 0.7, 0.95]),
       name=st.sampled_from(["MAP", "HAP", "IHAP", "IHAP-FCFS"]),
       execution=st.sampled_from(EXECUTION_MODELS), bpus=st.booleans())
def test_invariants_of_a_loaded_run(seed: int, utilization: float, name: str, execution: str,
                                    bpus: bool) -> None:
    machine = replace(ihap_machine(), execution=execution)
    params = {**{p.name: p.default for p in PARAMS}, "utilization": utilization}
    jobs = generate_hyperexp_jobs(150, seed, params)
    chosen = {"pmax_unit": "bpus"} if bpus and name != "MAP" else {}
    # the Python policy in the engine: the test watches its decisions and the load draws
    policy, problems = checked(make_policy(name, {"compiled": False, **chosen}, machine))
    loads = RecordingLoads(machine.procs, seed)
    schedule = simulate(jobs, machine, policy, load_model=loads, check=True)
    assert not problems, problems[:3]
    # a processor serves one job at a time
    busy: dict[int, list[tuple[float, float]]] = {}
    for index, processors in schedule.processors.items():
        for k in processors:
            busy.setdefault(k, []).append((schedule.start[index], schedule.end[index]))
    for spans in busy.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in pairwise(spans))
    # FCFS starts in arrival order
    if policy.order == FCFS:
        assert schedule.start == sorted(schedule.start)
    # a job never holds more than Pmax processors (unless Pmax is in BPUs)
    if not chosen:
        assert all(len(schedule.processors[i]) <= job.procs for i, job in enumerate(jobs))
    # pooled: every job's demand is the integral of its processors' rates over its run;
    # equal split: each task carries demand / p, and the slowest, which ends the job, has
    # done exactly that over the run (the others finished earlier)
    for index, job in enumerate(jobs):
        processors, span = schedule.processors[index], (schedule.start[index],
                                                        schedule.end[index])
        if execution == EQUAL_SPLIT:
            done = min(rate_integral(loads, machine.speeds, (k,), *span) for k in processors)
            assert done == pytest.approx(job.work / len(processors), rel=1e-9)
        else:
            done = rate_integral(loads, machine.speeds, processors, *span)
            assert done == pytest.approx(job.work, rel=1e-9)
    # same seed, same schedule
    again = simulate(jobs, machine, make_policy(name, chosen, machine),
                     load_model=UniformLoads(machine.procs, seed))
    assert again.start == schedule.start and again.end == schedule.end
