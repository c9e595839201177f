"""The compiled engine's pieces against their Python references, value for value: the
availability profile (``schedsim.kernel.profile`` against ``Profile``), the minimum tree
(``schedsim.kernel.mintree`` against a scan), the SLACK placements, fair start and branch
and bound (``schedsim.policies.compiled.slack`` against ``SlackSelector``). Whole runs:
``tests/test_compiled_conformance.py``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.kernel import profile as kernel_profile
from schedsim.machine import Machine
from schedsim.policies.compiled import slack as compiled_slack
from schedsim.policies.profile import Profile
from schedsim.policies.registry import make_policy
from schedsim.policies.slack import SlackSelector, SlackSettings, compress, slack_factor

CAPACITY = 16
# one scratch for every search of this module, as a run reuses one across its calls: a
# search that read what an earlier one left in it would differ from the reference
SCRATCH = compiled_slack.new_search_scratch()


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


def to_arrays(profile: Profile, room: int = 64) -> tuple[np.ndarray, np.ndarray, int]:
    """A ``Profile`` as kernel arrays with ``room`` spare steps."""
    n = len(profile.times)
    times, free = np.zeros(n + room), np.zeros(n + room, np.int64)
    times[:n], free[:n] = profile.times, profile.free
    return times, free, n


def from_arrays(times: np.ndarray, free: np.ndarray, n: int) -> tuple[list[float], list[int]]:
    return times[:n].tolist(), free[:n].tolist()


@settings(max_examples=200, deadline=None)
@given(profile=profiles(), procs=st.integers(1, CAPACITY),
       duration=st.sampled_from([0.0, 5.0, 10.0, 35.0, 125.0]),
       not_before=st.sampled_from([90.0, 100.0, 105.0, 150.0, 400.0]))
def test_earliest_reserve_and_release_equal_the_python_profile(
        profile: Profile, procs: int, duration: float, not_before: float) -> None:
    times, free, n = to_arrays(profile)
    start, at_start, at_end = kernel_profile.earliest(times, free, n, procs, duration,
                                                      not_before)
    assert start == profile.earliest(procs, duration, not_before)
    i, k, n = kernel_profile.reserve(times, free, n, start, start + duration, procs,
                                     at_start, at_end)
    profile.reserve(start, start + duration, procs)
    assert from_arrays(times, free, n) == (profile.times, profile.free)
    n = kernel_profile.release(times, free, n, start, start + duration, procs, i, k)
    profile.release(start, start + duration, procs)
    assert from_arrays(times, free, n) == (profile.times, profile.free)


@settings(max_examples=150, deadline=None)
@given(profile=profiles(), now=st.sampled_from([90.0, 100.0, 130.0, 170.0, 500.0]))
def test_advance_equals_the_python_profile(profile: Profile, now: float) -> None:
    times, free, n = to_arrays(profile)
    base, n = kernel_profile.advance(times, free, 0, n, now)
    profile.advance(now)
    assert (times[base:base + n].tolist(), free[base:base + n].tolist()) == (profile.times,
                                                                             profile.free)


@settings(max_examples=150, deadline=None)
@given(profile=profiles(), queue=queues())
def test_place_queue_equals_the_python_profile(profile: Profile,
                                               queue: tuple[np.ndarray, np.ndarray]) -> None:
    sizes, estimates = queue
    starts, times, free, n = compiled_slack.place_queue(*to_arrays(profile, 0), sizes,
                                                        estimates, 100.0)
    expected = []
    for size, estimate in zip(sizes.tolist(), estimates.tolist(), strict=True):
        start = profile.earliest(size, estimate, 100.0)
        profile.reserve(start, start + estimate, size)
        expected.append(start)
    assert starts.tolist() == expected
    assert from_arrays(times, free, n) == (profile.times, profile.free)


@st.composite
def slots(draw: st.DrawFn, count: int) -> np.ndarray:
    """A plan's slots for ``count`` jobs: none (NaN), past (before 100) or later ones."""
    return np.array([draw(st.sampled_from([np.nan, 90.0, 100.0, 110.0, 160.0, 300.0]))
                     for _ in range(count)], np.float64)


def job_list(sizes: np.ndarray, estimates: np.ndarray) -> list[Job]:
    return [Job(index, 0.0, estimate, size, estimate, index=index) for index, (size, estimate)
            in enumerate(zip(sizes.tolist(), estimates.tolist(), strict=True))]


@settings(max_examples=150, deadline=None)
@given(profile=profiles(), queue=queues(), keep=st.booleans(), data=st.data())
def test_compress_equals_the_python_compress(profile: Profile,
                                             queue: tuple[np.ndarray, np.ndarray],
                                             keep: bool, data: st.DataObject) -> None:
    """Conservative backfilling keeping reservations (and a plan held as it is, ``keep``),
    compiled against ``slack.compress``: the same starts and profile."""
    sizes, estimates = queue
    previous = data.draw(slots(len(sizes)))
    starts, times, free, n = compiled_slack.compress(*to_arrays(profile, 0), sizes,
                                                     estimates, previous, 100.0, keep)
    expected, placed = compress(profile, job_list(sizes, estimates), sizes.tolist(),
                                previous.tolist(), 100.0, keep)
    assert starts.tolist() == expected
    assert from_arrays(times, free, n) == (placed.times, placed.free)


@settings(max_examples=150, deadline=None)
@given(profile=profiles(), queue=queues(), size=st.integers(1, CAPACITY),
       estimate=st.sampled_from([0.0, 10.0, 45.0]), fst=st.sampled_from(["fcfs",
                                                                         "conservative"]),
       data=st.data())
def test_fair_start_equals_the_python_admission(profile: Profile,
                                                queue: tuple[np.ndarray, np.ndarray],
                                                size: int, estimate: float, fst: str,
                                                data: st.DataObject) -> None:
    """The fair start time and the slot of a new job around a plan (``admit``)."""
    sizes, estimates = queue
    previous = data.draw(slots(len(sizes)))
    got = compiled_slack.fair_start(*to_arrays(profile, 0), sizes, estimates, previous,
                                    100.0, size, estimate, fst == "fcfs")
    selector = SlackSelector(SlackSettings(fst=fst), lambda job: job.procs, CAPACITY)
    new = Job(99, 0.0, estimate, size, estimate, index=len(sizes))
    own = selector.admit(new, profile, job_list(sizes, estimates), previous.tolist(), 100.0)
    assert got == (selector.fair_start[new.index], own)


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
    compiled = kernel_profile.holding(100.0, CAPACITY,
                                      np.array([end for end, _ in ends] + [0.0]),
                                      np.array([procs for _, procs in ends] + [0], np.int64),
                                      len(ends), 0)
    assert from_arrays(*compiled) == (expected.times, expected.free)


def test_the_node_limit_is_counted_when_it_binds() -> None:
    """Half the machine runs until 100; a whole-machine job waits; twelve one-processor
    jobs of 10 s could backfill in many sets: with max_nodes 3 the search stops early and
    the count says so; with 5,000 it does not."""
    jobs = [Job(0, 0.0, 100.0, 4, 100.0), Job(1, 1.0, 50.0, 8, 50.0)]
    jobs += [Job(i, 1.0, 10.0, 1, 10.0) for i in range(2, 14)]
    machine = Machine(8)
    for max_nodes, stopped in ((3, True), (5000, False)):
        for compiled in (True, False):
            policy = make_policy("slack-backfill", {"max_nodes": max_nodes,
                                                    "compiled": compiled}, machine)
            statistics = simulate(jobs, machine, policy, check=True).statistics
            assert statistics["nodes_per_call"] > 0
            assert (statistics["bound_hits"] > 0) == stopped


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


def selector_of(settings_: SlackSettings, jobs: list[Job], submitted: list[float],
                fair: list[float]) -> SlackSelector:
    """A selector on ``CAPACITY`` processors that knows the jobs' submissions and fair
    starts."""
    selector = SlackSelector(settings_, lambda job: job.procs, CAPACITY)
    for job, at, fst in zip(jobs, submitted, fair, strict=True):
        selector.submitted[job.index] = at
        selector.fair_start[job.index] = fst
    return selector


def assert_same_search(profile: Profile, jobs: list[Job], submitted: list[float],
                       fair: list[float], lookahead: int, goal: str, max_nodes: int) -> None:
    """``slack_search`` (which re-places the jobs after the window once per profile the
    window leaves) against ``SlackSelector.search`` (which re-places every job for every
    set), at 100: the same best placement, sets tried and stops by ``max_nodes``."""
    settings_ = SlackSettings(lookahead=lookahead, goal=goal, max_nodes=max_nodes)
    selector = selector_of(settings_, jobs, submitted, fair)
    free_now = profile.free[0]
    expected = selector.search(100.0, profile, free_now, jobs)
    found, best, nodes, hit = compiled_slack.slack_search(
        *to_arrays(profile, 0), 100.0, CAPACITY, free_now,
        np.array([job.procs for job in jobs], np.int64),
        np.array([job.estimate for job in jobs], np.float64), np.array(submitted),
        np.array(fair), np.array([slack_factor(f - s, settings_)
                                  for s, f in zip(submitted, fair, strict=True)]),
        compiled_slack.slack_constants(settings_), min(lookahead, len(jobs)), True,
        SCRATCH)
    assert (nodes, bool(hit)) == (selector.nodes, selector.bound_hits > 0)
    assert found == (expected is not None)
    if expected is not None:
        assert best.tolist() == [expected.placement[job.index] for job in jobs]


def assert_same_backfill_search(profile: Profile, candidates: list[tuple[int, float]],
                                jobs: list[Job], submitted: list[float], fair: list[float],
                                lookahead: int, goal: str, max_nodes: int) -> None:
    """Non-type backfilling by slack: ``slack_search`` with the candidates as its window,
    not placed, against ``SlackSelector.search_backfill``: the same best set (start now,
    the others NaN), the same placement of the waiting jobs, sets tried and stops."""
    settings_ = SlackSettings(lookahead=lookahead, goal=goal, max_nodes=max_nodes)
    selector = selector_of(settings_, jobs, submitted, fair)
    free_now = profile.free[0]
    expected = selector.search_backfill(100.0, profile, free_now, candidates, jobs)
    window = min(lookahead, len(candidates))
    zeros = [0.0] * window
    found, best, nodes, hit = compiled_slack.slack_search(
        *to_arrays(profile, 0), 100.0, CAPACITY, free_now,
        np.array([size for size, _ in candidates[:window]] + [job.procs for job in jobs],
                 np.int64),
        np.array([span for _, span in candidates[:window]] + [job.estimate for job in jobs],
                 np.float64),
        np.array(zeros + submitted), np.array(zeros + fair),
        np.array(zeros + [slack_factor(f - s, settings_)
                          for s, f in zip(submitted, fair, strict=True)]),
        compiled_slack.slack_constants(settings_), window, False, SCRATCH)
    assert (nodes, bool(hit)) == (selector.nodes, selector.bound_hits > 0)
    assert found == (expected is not None)
    if expected is not None:
        assert [p for p in range(window) if best[p] == 100.0] == list(expected.chosen)
        assert all(np.isnan(best[p]) for p in range(window) if p not in expected.chosen)
        assert best[window:].tolist() == [expected.placement[job.index] for job in jobs]


@settings(max_examples=400, deadline=None)
@given(search=searches(), lookahead=st.integers(1, 5), goal=st.sampled_from(["G1", "G2"]),
       max_nodes=st.sampled_from([2, 7, 5000]))
def test_the_compiled_search_equals_the_python_search(
        search: tuple[Profile, list[Job], list[float], list[float]], lookahead: int,
        goal: str, max_nodes: int) -> None:
    assert_same_search(*search, lookahead, goal, max_nodes)


@settings(max_examples=300, deadline=None)
@given(search=searches(), candidates=st.lists(st.tuples(
           st.sampled_from([1, 2, 3, 8, 16]), st.sampled_from([0.0, 5.0, 10.0, 35.0, 90.0])),
           max_size=8),
       lookahead=st.integers(1, 5), goal=st.sampled_from(["G1", "G2"]),
       max_nodes=st.sampled_from([2, 7, 5000]))
def test_the_compiled_backfill_search_equals_the_python_one(
        search: tuple[Profile, list[Job], list[float], list[float]],
        candidates: list[tuple[int, float]], lookahead: int, goal: str,
        max_nodes: int) -> None:
    profile, jobs, submitted, fair = search
    assert_same_backfill_search(profile, candidates, jobs, submitted, fair, lookahead, goal,
                                max_nodes)


def test_a_backfill_set_without_waiting_jobs_is_chosen_by_utilization() -> None:
    """No waiting job to delay: every set passes with OU = SU = 0, so G1 and G2 both take
    the set that fills the most of 16 free processors: candidates of 8, 3, 9 and 2
    processors give {3, 9, 2} (14), where first fit in arrival order takes 8, 3 and 2
    (13)."""
    candidates = [(8, 10.0), (3, 5.0), (9, 10.0), (2, 10.0)]
    for goal in ("G1", "G2"):
        assert_same_backfill_search(Profile(100.0, CAPACITY), candidates, [], [], [], 4,
                                    goal, 5000)
        selector = SlackSelector(SlackSettings(goal=goal), lambda job: job.procs, CAPACITY)
        best = selector.search_backfill(100.0, Profile(100.0, CAPACITY), CAPACITY,
                                        candidates, [])
        assert best is not None and best.chosen == (1, 2, 3)
        assert (best.utilization, best.overall_unfairness) == (14 / 16, 0.0)


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


@settings(max_examples=200, deadline=None)
@given(size=st.integers(1, 40), data=st.data())
def test_the_minimum_tree_finds_what_a_scan_finds(size: int, data: st.DataObject) -> None:
    """``kernel.mintree``: after any sequence of sets, the first position from ``start``
    with a value at most ``limit`` is the one a plain scan finds."""
    from schedsim.kernel import mintree

    tree = mintree.new_tree(size)
    values = [mintree.ABSENT] * size
    for _ in range(data.draw(st.integers(0, 60))):
        position = data.draw(st.integers(0, size - 1))
        value = data.draw(st.one_of(st.just(mintree.ABSENT), st.integers(0, 9)))
        mintree.set_value(tree, position, value)
        values[position] = value
        start = data.draw(st.integers(0, size + 2))
        limit = data.draw(st.one_of(st.just(mintree.ABSENT - 1), st.integers(-1, 10)))
        expected = next((p for p in range(start, size) if values[p] <= limit), -1)
        assert mintree.first_at_most(tree, start, limit) == expected


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_the_array_copies_equal_numpy_slicing(data: st.DataObject) -> None:
    """``kernel.arrays``: each copy writes what numpy's slicing and fancy indexing write,
    and nothing outside its range."""
    from schedsim.kernel import arrays

    values = st.lists(st.floats(-1e9, 1e9), min_size=0, max_size=30)
    source = np.array(data.draw(values), np.float64)
    size = len(source)
    first = data.draw(st.integers(0, size))
    count = data.draw(st.integers(0, size - first))
    target = np.array(data.draw(st.lists(st.floats(-1e9, 1e9), min_size=count,
                                         max_size=count + 10)), np.float64)
    at = data.draw(st.integers(0, len(target) - count))
    expected = target.copy()
    expected[at:at + count] = source[first:first + count]
    arrays.copy_into(target, at, source, first, count)
    assert target.tolist() == expected.tolist()

    index = np.array(data.draw(st.lists(st.integers(0, max(size - 1, 0)), max_size=10)
                               if size else st.just([])), np.int64)
    target = np.zeros(len(index) + 3)
    expected = target.copy()
    expected[2:2 + len(index)] = source[index]
    arrays.gather_into(target, 2, source, index)
    assert target.tolist() == expected.tolist()

    skip = np.array(sorted(data.draw(st.sets(st.integers(0, max(size - 1, 0)), max_size=size)
                                     if size else st.just(set()))), np.int64)
    kept = np.delete(source, skip)
    target = np.full(len(kept) + 2, -1.0)
    arrays.copy_skipping(target, source, skip)
    assert target.tolist() == [*kept.tolist(), -1.0, -1.0]

    target = np.full(size + 2, -1.0)
    padded = np.concatenate((np.full(first, 7.0), kept))
    arrays.fill_skipping(target, skip, padded, first)
    expected = np.full(size + 2, -1.0)
    expected[np.setdiff1d(np.arange(size), skip)] = kept
    assert target.tolist() == expected.tolist()
