"""The compiled placement loops of the SLACK policies (schedsim.policies.slack_kernel) against
the pure-Python Profile and SlackSelector: equal results, value for value."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies import slack_kernel
from schedsim.policies.profile import Profile
from schedsim.policies.registry import make_policy
from schedsim.policies.slack import SlackSelector, SlackSettings, slack_factor

CAPACITY = 16


@st.composite
def profiles(draw: st.DrawFn) -> Profile:
    profile = Profile(100.0, CAPACITY)
    for _ in range(draw(st.integers(0, 6))):
        start = 100.0 + draw(st.integers(0, 20)) * 10
        procs = draw(st.integers(1, 6))
        length = draw(st.integers(1, 12)) * 10.0
        if profile.earliest(procs, length, start) == start:
            profile.reserve(start, start + length, procs)
    return profile


@st.composite
def queues(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    count = draw(st.integers(0, 12))
    sizes = [draw(st.integers(1, CAPACITY)) for _ in range(count)]
    estimates = [draw(st.sampled_from([0.0, 5.0, 10.0, 35.0, 60.0, 125.0])) for _ in sizes]
    return np.array(sizes, np.int64), np.array(estimates, np.float64)


@settings(max_examples=150, deadline=None)
@given(profile=profiles(), queue=queues())
def test_place_queue_equals_the_python_profile(profile: Profile,
                                               queue: tuple[np.ndarray, np.ndarray]) -> None:
    sizes, estimates = queue
    starts, times, free, n = slack_kernel.place_queue(*slack_kernel.to_arrays(profile), sizes,
                                                      estimates, 100.0)
    expected = []
    for size, estimate in zip(sizes.tolist(), estimates.tolist(), strict=True):
        start = profile.earliest(size, estimate, 100.0)
        profile.reserve(start, start + estimate, size)
        expected.append(start)
    assert starts.tolist() == expected
    again = slack_kernel.from_arrays(times, free, n)
    assert (again.times, again.free) == (profile.times, profile.free)


@settings(max_examples=150, deadline=None)
@given(profile=profiles(), queue=queues(), size=st.integers(1, CAPACITY),
       estimate=st.sampled_from([0.0, 10.0, 45.0]), after_earlier=st.booleans())
def test_fair_start_equals_the_python_placement(profile: Profile,
                                                queue: tuple[np.ndarray, np.ndarray],
                                                size: int, estimate: float,
                                                after_earlier: bool) -> None:
    sizes, estimates = queue
    got = slack_kernel.fair_start(*slack_kernel.to_arrays(profile), sizes, estimates, 100.0,
                                  size, estimate, after_earlier)
    latest = 100.0
    for other_size, other_estimate in zip(sizes.tolist(), estimates.tolist(), strict=True):
        start = profile.earliest(other_size, other_estimate, 100.0)
        profile.reserve(start, start + other_estimate, other_size)
        latest = max(latest, start)
    assert got == profile.earliest(size, estimate, latest if after_earlier else 100.0)


@settings(max_examples=150, deadline=None)
@given(ends=st.lists(st.tuples(st.sampled_from([90.0, 100.0, 105.0, 130.0, 250.0]),
                               st.integers(1, 4)), max_size=6))
def test_a_profile_built_at_once_equals_successive_reserves(
        ends: list[tuple[float, int]]) -> None:
    expected = Profile(100.0, CAPACITY)
    for end, procs in ends:
        expected.reserve(100.0, end, procs)
    got = Profile.holding(100.0, CAPACITY, ends)
    assert (got.times, got.free) == (expected.times, expected.free)


def jobs_from(draw: st.DrawFn, count: int) -> list[Job]:
    out, submit = [], 0.0
    for number in range(1, count + 1):
        submit += draw(st.sampled_from([0, 0, 5, 20, 400, 1_500]))
        runtime = float(draw(st.sampled_from([10, 60, 300, 700, 2_000, 11_000])))
        estimate = runtime * draw(st.sampled_from([1, 1, 2]))
        out.append(Job(number, submit, runtime, draw(st.integers(1, 8)), estimate))
    return out


@st.composite
def workloads(draw: st.DrawFn) -> list[Job]:
    return jobs_from(draw, draw(st.integers(2, 30)))


def run_both(jobs: list[Job], name: str, params: dict[str, object]):  # type: ignore[no-untyped-def]
    """(compiled schedule, Python schedule, compiled policy, Python policy): the compiled
    whole run against the engine calling the pure-Python selection."""
    machine = Machine(8)
    compiled = make_policy(name, params, machine)
    reference = make_policy(name, params, machine)
    if name == "slack-backfill":
        reference.selector.compiled = False
    else:
        reference = type(reference)(reference.settings, machine, compiled=False)
    return (simulate(jobs, machine, compiled, check=True),
            simulate(jobs, machine, reference, check=True), compiled, reference)


@settings(max_examples=60, deadline=None)
@given(jobs=workloads(), goal=st.sampled_from(["G1", "G2"]), lookahead=st.integers(1, 6),
       fst=st.sampled_from(["fcfs", "conservative"]), max_nodes=st.sampled_from([3, 5000]))
def test_slack_backfill_compiled_equals_python(jobs: list[Job], goal: str, lookahead: int,
                                               fst: str, max_nodes: int) -> None:
    got, expected, compiled, reference = run_both(
        jobs, "slack-backfill",
        {"goal": goal, "lookahead": lookahead, "fst": fst, "max_nodes": max_nodes})
    assert (got.start, got.end) == (expected.start, expected.end)
    assert compiled.run_statistics() == reference.run_statistics()
    assert (compiled.selector.calls, compiled.selector.nodes) == (reference.selector.calls,
                                                                  reference.selector.nodes)


@settings(max_examples=40, deadline=None)
@given(jobs=workloads(), name=st.sampled_from(["scojo-conservative", "scojo-slack"]),
       nontype=st.sampled_from(["all", "short", "none"]), goal=st.sampled_from(["G1", "G2"]))
def test_scojo_compiled_equals_python(jobs: list[Job], name: str, nontype: str,
                                      goal: str) -> None:
    params: dict[str, object] = {"nontype": nontype}
    if name == "scojo-slack":
        params.update(goal=goal, lookahead=4)
    got, expected, compiled, reference = run_both(jobs, name, params)
    assert (got.start, got.end, got.split) == (expected.start, expected.end, expected.split)
    assert compiled.run_statistics() == reference.run_statistics()


def test_the_node_limit_is_counted_when_it_binds() -> None:
    """Half the machine runs until 100; a whole-machine job waits; twelve one-processor
    jobs of 10 s could backfill in many sets: with max_nodes 3 the search stops early and
    the count says so; with 5,000 it does not."""
    jobs = [Job(0, 0.0, 100.0, 4, 100.0), Job(1, 1.0, 50.0, 8, 50.0)]
    jobs += [Job(i, 1.0, 10.0, 1, 10.0) for i in range(2, 14)]
    machine = Machine(8)
    for max_nodes, stopped in ((3, True), (5000, False)):
        policy = make_policy("slack-backfill", {"max_nodes": max_nodes}, machine)
        simulate(jobs, machine, policy, check=True)
        assert policy.selector.nodes > 0
        assert (policy.selector.bound_hits > 0) == stopped


@st.composite
def searches(draw: st.DrawFn) -> tuple[Profile, list[Job], list[float], list[float]]:
    """A profile at 100 and a queue longer than most windows: small jobs that the
    re-placement often puts at now (so that different sets leave the same profile at the
    window's end), and fair starts close to now (so that the jobs after the window often
    miss their bounds)."""
    profile = draw(profiles())
    jobs, submitted, fair = [], [], []
    for index in range(draw(st.integers(1, 14))):
        estimate = draw(st.sampled_from([0.0, 5.0, 10.0, 35.0, 60.0, 125.0]))
        jobs.append(Job(index, 0.0, estimate, draw(st.sampled_from([1, 1, 2, 3, 8, 16])),
                        estimate, index=index))
        submitted.append(float(draw(st.sampled_from([0, 50, 90, 100]))))
        fair.append(submitted[-1] + draw(st.sampled_from([0.0, 5.0, 20.0, 60.0, 200.0])))
    return profile, jobs, submitted, fair


def assert_same_search(profile: Profile, jobs: list[Job], submitted: list[float],
                       fair: list[float], lookahead: int, goal: str, max_nodes: int) -> None:
    """``slack_search`` (which re-places the jobs after the window once per profile the
    window leaves) against ``SlackSelector.search`` (which re-places every job for every
    set), at 100: the same best placement, sets tried and stops by ``max_nodes``."""
    settings_ = SlackSettings(lookahead=lookahead, goal=goal, max_nodes=max_nodes)
    selector = SlackSelector(settings_, lambda job: job.procs, CAPACITY, compiled=False)
    for job, at, fst in zip(jobs, submitted, fair, strict=True):
        selector.submitted[job.index] = at
        selector.fair_start[job.index] = fst
    free_now = profile.free[0]
    expected = selector.search(100.0, profile, free_now, jobs)
    found, best, nodes, hit = slack_kernel.slack_search(
        *slack_kernel.to_arrays(profile), 100.0, CAPACITY, free_now,
        np.array([job.procs for job in jobs], np.int64),
        np.array([job.estimate for job in jobs], np.float64), np.array(submitted),
        np.array(fair), np.array([slack_factor(f - s, settings_)
                                  for s, f in zip(submitted, fair, strict=True)]),
        settings_.slack_minimal, lookahead, goal == "G1", max_nodes)
    assert (nodes, bool(hit)) == (selector.nodes, selector.bound_hits > 0)
    assert found == (expected is not None)
    if expected is not None:
        assert best.tolist() == [expected.placement[job.index] for job in jobs]


@settings(max_examples=400, deadline=None)
@given(search=searches(), lookahead=st.integers(1, 5), goal=st.sampled_from(["G1", "G2"]),
       max_nodes=st.sampled_from([2, 7, 5000]))
def test_the_compiled_search_equals_the_python_search(
        search: tuple[Profile, list[Job], list[float], list[float]], lookahead: int,
        goal: str, max_nodes: int) -> None:
    assert_same_search(*search, lookahead, goal, max_nodes)


def test_sets_that_leave_the_same_steps_with_other_free_processors_differ_after_the_window(
        ) -> None:
    """Window of two: starting job 0 (8 processors) puts job 1 (12) at 110, starting job 1
    puts job 0 at 110: both sets leave steps at 100, 110 and 120, with 8 and 4 or 4 and 8
    processors free. Job 2 (6 processors, after the window, bound 100) then starts at 100
    only after the first set; the second set fails its check, though it would be the
    better set (every job at its fair start) with job 2 at 100."""
    jobs = [Job(0, 0.0, 10.0, 8, 10.0, index=0), Job(1, 0.0, 10.0, 12, 10.0, index=1),
            Job(2, 0.0, 10.0, 6, 10.0, index=2)]
    for goal in ("G1", "G2"):
        assert_same_search(Profile(100.0, CAPACITY), jobs, [0.0, 0.0, 100.0],
                           [110.0, 100.0, 100.0], 2, goal, 5000)
