"""The example policy's own tests: a worked case, and EASY when every estimate is equal."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from my_policy import ShortestJobFirst, SJFSettings

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy


def starts(jobs: list[Job], policy: object, machine: Machine) -> list[float]:
    return list(simulate(jobs, machine, policy).start)


def test_the_shortest_fitting_job_backfills_first() -> None:
    # Job 1 holds 2 of 4 processors until 100; at t=1 job 2 (4 processors) reserves 100,
    # and jobs 3 (80 s) and 4 (60 s) both fit before it, but only one at a time: EASY
    # takes job 3 (first in the queue), shortest-job-first job 4.
    machine = Machine(4)
    jobs = [Job(1, 0, 100, 2, 100), Job(2, 1, 100, 4, 100), Job(3, 1, 80, 2, 80),
            Job(4, 1, 60, 2, 60)]
    assert starts(jobs, ShortestJobFirst(SJFSettings(), machine), machine) == [0, 100, 200, 1]
    assert starts(jobs, make_policy("easy", {}, machine), machine) == [0, 100, 1, 200]


def test_area_order_prefers_the_smaller_area() -> None:
    # Job 3: 2 processors x 50 s = 100; job 4: 1 processor x 60 s = 60: the area order
    # backfills job 4 first, the estimate order job 3; both fit in the 2 free processors
    # only one after the other, before job 2's reservation at 100 with no extra.
    machine = Machine(4)
    jobs = [Job(1, 0, 100, 2, 100), Job(2, 1, 100, 4, 100), Job(3, 1, 50, 2, 50),
            Job(4, 1, 60, 1, 60)]
    by_area = starts(jobs, ShortestJobFirst(SJFSettings("area"), machine), machine)
    by_estimate = starts(jobs, ShortestJobFirst(SJFSettings(), machine), machine)
    assert by_area[3] == 1 and by_area[2] > 1
    assert by_estimate[2] == 1 and by_estimate[3] > 1


jobs_strategy = st.lists(st.tuples(st.integers(0, 500), st.integers(1, 300),
                                   st.integers(1, 8)), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(rows=jobs_strategy)
def test_with_equal_estimates_it_is_easy(rows: list[tuple[int, int, int]]) -> None:
    # One estimate for all: the shortest-first order is the arrival order, so the
    # schedule is EASY's, start for start.
    machine = Machine(8)
    jobs = [Job(i + 1, float(submit), float(run), procs, 300.0)
            for i, (submit, run, procs) in enumerate(sorted(rows))]
    mine = starts(jobs, ShortestJobFirst(SJFSettings(), machine), machine)
    assert mine == starts(jobs, make_policy("easy", {}, machine), machine)
