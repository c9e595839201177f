"""Property-based invariants of the engine and the backfilling policies (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import EngineView, simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.metrics import summarize_columns, summarize_table, validate_schedule
from schedsim.policies.backfill import EASY, Conservative, _just_started, shadow_and_extra
from schedsim.policies.registry import NoSettings, make_policy

PROCS = 8


@st.composite
def workloads(draw: st.DrawFn, exact: bool = False) -> list[Job]:
    n = draw(st.integers(1, 14))
    jobs = []
    for number in range(1, n + 1):
        submit = draw(st.integers(0, 60))
        runtime = draw(st.integers(1, 40))
        over = 0 if exact else draw(st.integers(0, 40))
        procs = draw(st.integers(1, PROCS))
        jobs.append(Job(number, submit, runtime, procs, runtime + over))
    return jobs


class RecordingEASY(EASY):
    """EASY that records (head job, shadow time) whenever the head cannot start."""

    def __init__(self, machine: Machine) -> None:
        super().__init__(NoSettings(), machine)
        self.promises: list[tuple[int, float]] = []

    def schedule(self, view: EngineView) -> list:
        decisions = super().schedule(view)
        if self.queue:
            head = self.queue[0]
            started = list(decisions)
            running = list(view.running.values()) + _just_started(started, view.now)
            free = view.free[0] - sum(d.procs for d in started)
            shadow, _ = shadow_and_extra(view.now, free, running, head.procs)
            self.promises.append((head.index, shadow))
        return decisions


class RecordingConservative(Conservative):
    """Conservative backfilling that records every reservation it makes."""

    def __init__(self, machine: Machine) -> None:
        super().__init__(NoSettings(), machine)
        self.promises: list[tuple[int, float]] = []

    def schedule(self, view: EngineView) -> list:
        decisions = super().schedule(view)
        self.promises.extend(self.reserved.items())
        return decisions


@settings(max_examples=150, deadline=None)
@given(workloads(), st.sampled_from(["fcfs", "easy", "conservative"]))
def test_schedules_are_feasible(jobs: list[Job], policy: str) -> None:
    """Never more processors than exist, no start before submit, every job once."""
    machine = Machine(PROCS)
    schedule = simulate(jobs, machine, make_policy(policy, {}, machine), check=True)
    validate_schedule(schedule)
    assert all(s >= j.submit for s, j in zip(schedule.start, jobs, strict=True))
    assert all(e - s == j.runtime for s, e, j in zip(schedule.start, schedule.end, jobs,
                                                       strict=True))


@settings(max_examples=150, deadline=None)
@given(workloads())
def test_easy_never_delays_the_head_reservation(jobs: list[Job]) -> None:
    machine = Machine(PROCS)
    policy = RecordingEASY(machine)
    schedule = simulate(jobs, machine, policy)
    for index, shadow in policy.promises:
        assert schedule.start[index] <= shadow


@settings(max_examples=150, deadline=None)
@given(workloads())
def test_conservative_never_delays_any_reservation(jobs: list[Job]) -> None:
    machine = Machine(PROCS)
    policy = RecordingConservative(machine)
    schedule = simulate(jobs, machine, policy)
    for index, reserved in policy.promises:
        assert schedule.start[index] <= reserved


@settings(max_examples=150, deadline=None)
@given(workloads(exact=True))
def test_conservative_never_later_than_fcfs_with_exact_estimates(jobs: list[Job]) -> None:
    """With exact estimates each job's reservation at arrival is no later than its FCFS
    start (earlier jobs hold reservations no later than their FCFS starts and so
    occupy no more processors at any instant after them), and reservations only
    move earlier."""
    machine = Machine(PROCS)
    fcfs = simulate(jobs, machine, make_policy("fcfs", {}, machine))
    conservative = simulate(jobs, machine, make_policy("conservative", {}, machine))
    for c, f in zip(conservative.start, fcfs.start, strict=True):
        assert c <= f


@settings(max_examples=100, deadline=None)
@given(workloads())
def test_fcfs_starts_in_arrival_order(jobs: list[Job]) -> None:
    machine = Machine(PROCS)
    schedule = simulate(jobs, machine, make_policy("fcfs", {}, machine))
    order = sorted(range(len(jobs)), key=lambda i: (jobs[i].submit, i))
    started = [schedule.start[i] for i in order]
    assert started == sorted(started)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 600), seed=st.integers(0, 2**32 - 1), tau=st.sampled_from([10.0, 0.5]))
def test_the_summary_of_columns_is_the_summary_of_the_job_table(n: int, seed: int,
                                                                tau: float) -> None:
    """``summarize_columns`` (in-place, for a million jobs) gives every value of
    ``summarize_table`` over the module's definitions bit for bit: long enough runs for
    numpy's pairwise sums, times that are not integers."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.uniform(0, 1e5, n))
    start = submit + rng.exponential(500.0, n) * (rng.random(n) < 0.7)
    end = start + rng.uniform(0.01, 3e4, n)
    procs = rng.integers(1, 65, n)
    runtime, response = end - start, end - submit
    table = {"submit": submit, "end": end, "runtime": runtime, "procs": procs,
             "wait": start - submit, "response": response,
             "bounded_slowdown": np.maximum(1.0, response / np.maximum(runtime, tau))}
    expected = summarize_table(table, 64).as_dict()
    got = summarize_columns(submit, start, end, procs, 64, tau).as_dict()
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        assert np.array_equal(got[name], value) and type(got[name]) is type(value), name
