"""GOAL family policies: best fit, the best-fit backfills, and the goal-oriented search.

Hand-computed cases of the GOAL paper's setting (two partitions, exact run times) and
properties of the search against a brute-force enumeration of all orders.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.goal import (
    GoalSettings,
    Score,
    Search,
    SearchJob,
    best_fit_now,
    compiled_search,
    hierarchical_better,
    relative_gain,
    tradeoff_better,
)
from schedsim.policies.profile import Profile
from schedsim.policies.registry import make_policy

UNLIMITED = 10**9


def search(jobs: list[SearchJob], capacities: tuple[int, ...] = (4,), node_limit: int = UNLIMITED,
           omega: float = 0.0, **options: str) -> Search:
    found = Search(jobs, [Profile(0.0, c) for c in capacities], capacities, 0.0, omega,
                   GoalSettings(node_limit=node_limit, **options))
    found.run()
    return found


def snapshot_profiles(running: list[tuple[float, int, int]],
                      capacities: tuple[int, ...]) -> list[Profile]:
    """The partitions' profiles at 0 with running jobs given as (end, size, partition)."""
    return [Profile.holding(0.0, c, [(end, size) for end, size, q in running if q == p])
            for p, c in enumerate(capacities)]


def starts(found: Search) -> dict[int, float]:
    assert found.best is not None
    return {p.job: p.start for p in found.best}


# -- spec case 1: the search on one partition --------------------------------------------

CASE1 = [SearchJob(4, 100.0, 0.0), SearchJob(2, 10.0, 0.0), SearchJob(2, 10.0, 0.0)]


def test_node_limit_3_keeps_the_greedy_leaf() -> None:
    found = search(CASE1, node_limit=3)
    assert starts(found) == {0: 0.0, 1: 100.0, 2: 100.0}
    assert found.best_score == Score(200.0, pytest.approx(23 / 3))
    assert found.stats.nodes == 3 and found.stats.stopped


def test_node_limit_6_finds_the_short_jobs_first() -> None:
    found = search(CASE1, node_limit=6)
    assert starts(found) == {1: 0.0, 2: 0.0, 0: 10.0}
    assert found.best_score == Score(10.0, pytest.approx(3.1 / 3))


def test_full_search_visits_18_nodes_and_6_leaves() -> None:
    found = search(CASE1)
    assert (found.stats.nodes, found.stats.leaves, found.stats.stopped) == (18, 6, False)


# -- spec case 2: the starvation guard omega ----------------------------------------------

CASE2 = [SearchJob(4, 100.0, -1000.0), SearchJob(2, 10.0, 0.0), SearchJob(2, 10.0, 0.0)]


@pytest.mark.parametrize(("omega", "first"), [(1000.0, {0}), (2000.0, {1, 2})])
def test_omega_guards_the_old_job(omega: float, first: set[int]) -> None:
    found = search(CASE2, omega=omega)
    assert {j for j, start in starts(found).items() if start == 0.0} == first


def test_relative_gain_and_the_two_objectives() -> None:
    assert relative_gain(10.0, 200.0) == pytest.approx(0.95)
    assert relative_gain(0.0, 0.0) == 0.0
    assert relative_gain(10.0, 0.0) == -math.inf
    assert tradeoff_better(Score(10.0, 1.0), Score(200.0, 7.0))
    assert not tradeoff_better(Score(10.0, 1.0), Score(0.0, 11.0))  # Tw from 0 is infinite loss
    assert tradeoff_better(Score(0.0, 4.0), Score(0.0, 11.0))
    assert hierarchical_better(Score(0.0, 11.0), Score(10.0, 1.0))


# -- spec case 3: best fit ------------------------------------------------------------------


def test_best_fit_takes_the_fullest_partition_that_holds_the_job() -> None:
    assert best_fit_now(5, [10, 8]) == 1
    assert best_fit_now(9, [10, 8]) == 0
    assert best_fit_now(11, [10, 8]) is None
    assert best_fit_now(4, [4, 4]) == 0  # ties: the lower index


@pytest.mark.parametrize("policy", ["bf-fcfs-backfill", "bf-lxf-backfill", "goal-oriented"])
def test_every_goal_policy_places_a_5_node_job_on_the_8_node_partition(policy: str) -> None:
    machine = Machine(18, partitions=(10, 8))
    schedule = simulate([Job(1, 0.0, 10.0, 5, 10.0)], machine,
                        make_policy(policy, {}, machine), check=True)
    assert schedule.partition == [1]


# -- spec case 4: FCFS-backfill with one reservation ---------------------------------------


def test_fcfs_backfill_reserves_on_the_partition_that_frees_first() -> None:
    # Partition 0 full until 100, partition 1 has 2 nodes busy until 50; then H (4 nodes,
    # 10 s), B (2, 60 s), C (2, 40 s). H is reserved on partition 1 at 50; B would end
    # after 50 there; C ends by 50 and starts now.
    jobs = [Job(1, 0.0, 100.0, 4, 100.0), Job(2, 0.0, 50.0, 2, 50.0), Job(3, 0.0, 10.0, 4, 10.0),
            Job(4, 0.0, 60.0, 2, 60.0), Job(5, 0.0, 40.0, 2, 40.0)]
    machine = Machine(8, partitions=(4, 4))
    schedule = simulate(jobs, machine, make_policy("bf-fcfs-backfill", {}, machine), check=True)
    assert schedule.start == [0.0, 0.0, 50.0, 60.0, 0.0]
    assert schedule.partition == [0, 1, 1, 1, 1]


@pytest.mark.parametrize("reservations, d_start", [("one", 0.0), ("per_partition", 50.0)])
def test_a_reservation_per_partition_blocks_a_long_backfill(reservations: str,
                                                           d_start: float) -> None:
    # Partitions 4+4: X (2 nodes, 100 s) on 0, Y (4, 50 s) on 1; then A (4, 10 s),
    # B (4, 10 s), D (2, 200 s). A is reserved on partition 1 at 50. With one reservation
    # D starts now on partition 0; with one per partition B reserves partition 0 at 100,
    # which D (ending at 200) would delay, so D waits until 50, when B's reservation
    # has moved to partition 1 (at 60) and partition 0 is free of reservations.
    jobs = [Job(1, 0.0, 100.0, 2, 100.0), Job(2, 0.0, 50.0, 4, 50.0),
            Job(3, 0.0, 10.0, 4, 10.0), Job(4, 0.0, 10.0, 4, 10.0),
            Job(5, 0.0, 200.0, 2, 200.0)]
    machine = Machine(8, partitions=(4, 4))
    policy = make_policy("bf-fcfs-backfill", {"reservations": reservations}, machine)
    schedule = simulate(jobs, machine, policy, check=True)
    assert schedule.start == [0.0, 0.0, 50.0, 60.0, d_start]
    assert schedule.partition == [0, 1, 1, 1, 0]


def test_lxf_backfill_orders_by_expansion_factor() -> None:
    # One 2-node partition busy until 100: at 100, the short job waiting since 0 has
    # XF 11 and goes before the long one waiting since 0 (XF 1.1), unlike FCFS.
    jobs = [Job(1, 0.0, 100.0, 2, 100.0), Job(2, 0.0, 1000.0, 2, 1000.0),
            Job(3, 0.0, 10.0, 2, 10.0)]
    machine = Machine(2)
    lxf = simulate(jobs, machine, make_policy("bf-lxf-backfill", {}, machine), check=True)
    fcfs = simulate(jobs, machine, make_policy("bf-fcfs-backfill", {}, machine), check=True)
    assert lxf.start == [0.0, 110.0, 100.0]
    assert fcfs.start == [0.0, 100.0, 1100.0]


def test_goal_policy_starts_the_best_plans_jobs_now() -> None:
    jobs = [Job(1, 0.0, 100.0, 4, 100.0), Job(2, 0.0, 10.0, 2, 10.0), Job(3, 0.0, 10.0, 2, 10.0)]
    machine = Machine(4)
    greedy = make_policy("goal-oriented", {"node_limit": 3}, machine)
    assert simulate(jobs, machine, greedy, check=True).start == [0.0, 100.0, 100.0]
    searching = make_policy("goal-oriented", {"node_limit": 6}, machine)
    assert simulate(jobs, machine, searching, check=True).start == [10.0, 0.0, 0.0]
    assert searching.searches >= 1 and searching.nodes >= 6


# -- idea 1: the partition inside the tree ------------------------------------------------

ALIKE = [SearchJob(1, 10.0, 0.0) for _ in range(4)]  # fits both partitions of (4, 4)


@pytest.mark.parametrize(("n", "tree", "nodes", "leaves"), [
    (3, "idea1", 114, 48), (4, "idea1", 944, 384), (3, "idea2", 18, 6), (4, "idea2", 84, 24)])
def test_full_search_counts_by_hand(n: int, tree: str, nodes: int, leaves: int) -> None:
    """n jobs that fit both partitions of (4, 4), unlimited search.

    A node at depth d has b_d children: idea 1, (n - d) jobs x 2 partitions; idea 2,
    n - d. Iteration k places every child above depth k, all but the first at depth
    k, then one path down to a leaf, so with P_k = b_0 ... b_(k-1) it makes
    b_0 + b_0 b_1 + ... + P_k (placements above and at depth k, the latter
    P_k (b_k - 1)) + (n - 1 - k) P_k (b_k - 1) placements below, and P_k (b_k - 1)
    leaves; iteration -1 is the greedy path (n nodes, 1 leaf).

    idea 1, n = 3, b = (6, 4, 2):
      k = -1: 3 nodes, 1 leaf
      k =  0: 5 x 3 = 15 nodes, 5 leaves
      k =  1: 6 + 6 x 3 x 2 = 42 nodes, 18 leaves
      k =  2: 6 + 24 + 24 x 1 = 54 nodes, 24 leaves
      in all 114 nodes, 48 leaves = 3! x 2^3.
    idea 1, n = 4, b = (8, 6, 4, 2):
      k = -1: 4 nodes, 1 leaf
      k =  0: 7 x 4 = 28 nodes, 7 leaves
      k =  1: 8 + 8 x 5 x 3 = 128 nodes, 40 leaves
      k =  2: 8 + 48 + 48 x 3 x 2 = 344 nodes, 144 leaves
      k =  3: 8 + 48 + 192 + 192 x 1 = 440 nodes, 192 leaves
      in all 944 nodes, 384 leaves = 4! x 2^4 (without k = 3: 504 and 192).
    idea 2 has one child at depth n - 1, so iteration n - 1 has no leaf and is not run:
      n = 3, b = (3, 2, 1): 3 + 2 x 3 + (3 + 3 x 1 x 2) = 18 nodes, 1 + 2 + 3 = 6 leaves;
      n = 4, b = (4, 3, 2, 1): 4 + 3 x 4 + (4 + 4 x 2 x 3) + (4 + 12 + 12 x 1 x 2)
      = 84 nodes, 1 + 3 + 8 + 12 = 24 leaves.
    """
    found = search(ALIKE[:n], (4, 4), tree=tree)
    assert (found.stats.nodes, found.stats.leaves, found.stats.stopped) == (nodes, leaves, False)


def test_full_idea1_search_counts_by_hand_when_one_job_fits_one_partition() -> None:
    """Partitions (4, 2); A and B (1 node) fit both, C (3 nodes) only partition 0.

    Children in order A:0, A:1, B:0, B:1, C:0 (job:partition); a node's children are
    two per unplaced A or B and one for C.
      k = -1: A:0 B:0 C:0, 3 nodes, 1 leaf
      k =  0: 4 children but the first at depth 0, each 3 nodes: 12 nodes, 4 leaves
      k =  1: depth 0 all 5; below A:x ({B, C} left: B:0 B:1 C:0) all but the first, 2,
              each then 1 node: 4; the same below B:x; below C:0 ({A, B} left, 4
              children) 3 + 3: 5 + 4 x 4 + 6 = 27 nodes, 2 x 2 + 2 x 2 + 3 = 11 leaves
      k =  2: a job is placed above depth 2 only if A or B is left after it. Depth 0:
              all 5. Below A:x only C:0 (after B:x only C would be left), then B's
              second partition: 2 nodes, 1 leaf; the same below B:x; below C:0 all 4,
              each then 1 node: 8 nodes, 4 leaves. 5 + 4 x 2 + 8 = 21 nodes, 8 leaves
      in all 63 nodes, 24 leaves = 3! orders x 2 x 2 x 1 partitions.
    """
    jobs = [SearchJob(1, 10.0, 0.0), SearchJob(1, 10.0, 0.0), SearchJob(3, 10.0, 0.0)]
    found = search(jobs, (4, 2), tree="idea1")
    assert (found.stats.nodes, found.stats.leaves, found.stats.stopped) == (63, 24, False)


def snapshot_profiles_at_1000() -> list[Profile]:
    """Partitions (6, 10) at 1000: 4 of 6 nodes busy until 1185, 6 of 10 until 1100."""
    return [Profile.holding(1000.0, 6, [(1185.0, 4)]), Profile.holding(1000.0, 10, [(1100.0, 6)])]


def compiled_plan(jobs: list[SearchJob], profiles: list[Profile], capacities: tuple[int, ...],
                  now: float, omega: float, options: GoalSettings, order: list[int]
                  ) -> tuple[list[tuple[int, int, float]], int, int, bool]:
    """``compiled_search`` on the search's jobs as objects: the plan as (job, partition,
    start) in plan order, nodes, leaves, stopped."""
    placed, parts, starts, nodes, leaves, stopped = compiled_search(
        np.array([job.size for job in jobs], np.int64),
        np.array([job.runtime for job in jobs], np.float64),
        np.array([job.submit for job in jobs], np.float64), profiles, capacities, now, omega,
        options, np.array(order, np.int64))
    plan = list(zip(placed.tolist(), parts.tolist(), starts.tolist(), strict=True))
    return plan, nodes, leaves, stopped


def test_idea1_tries_the_second_partition_for_the_last_job() -> None:
    """Omega 2000; one waiting job of 4 nodes and 10 s submitted at 882. Partition 0:
    start 1185, X = (303 + 10) / 10 = 31.3; partition 1: start 1000, X = 12.8; Tw 0
    on both. The greedy leaf takes partition 0, the discrepancy at depth 0 partition 1."""
    jobs, capacities, options = [SearchJob(4, 10.0, 882.0)], (6, 10), GoalSettings(tree="idea1")
    found = Search(jobs, snapshot_profiles_at_1000(), capacities, 1000.0, 2000.0, options)
    assert [(p.job, p.partition, p.start) for p in found.run()] == [(0, 1, 1000.0)]
    assert found.best_score == Score(0.0, pytest.approx(12.8))
    compiled = compiled_plan(jobs, snapshot_profiles_at_1000(), capacities, 1000.0, 2000.0,
                               options, [0])
    assert compiled == ([(0, 1, 1000.0)], 2, 2, False)


@pytest.mark.parametrize(("policy", "options"), [
    ("goal-oriented-idea1", {"compiled": True}),
    ("goal-oriented-idea1", {"compiled": False}),
    ("goal-oriented", {}), ("bf-fcfs-backfill", {})])
def test_a_lone_waiting_job_starts_on_the_idle_partition(policy: str,
                                                         options: dict[str, bool]) -> None:
    # Partitions 4 + 4: J1 (4 nodes, 100 s) fills partition 0 at 0; J2 (2 nodes, 50 s)
    # arrives at 1 and starts at once on partition 1, not at 100 on partition 0.
    jobs = [Job(1, 0.0, 100.0, 4, 100.0), Job(2, 1.0, 50.0, 2, 50.0)]
    machine = Machine(8, partitions=(4, 4))
    schedule = simulate(jobs, machine, make_policy(policy, options, machine), check=True)
    assert schedule.start == [0.0, 1.0]
    assert schedule.partition == [0, 1]


def earliest_start(busy: list[tuple[float, float, int]], capacity: int, size: int,
                   runtime: float, now: float) -> float:
    """The earliest t >= now with ``size`` of ``capacity`` nodes free over [t, t + runtime),
    given the busy intervals (start, end, nodes): it is now or the end of an interval,
    and usage only rises at an interval's start."""
    def used(time: float) -> int:
        return sum(nodes for start, end, nodes in busy if start <= time < end)

    for t in sorted({now} | {end for _, end, _ in busy if end > now}):
        rises = [t] + [start for start, _, _ in busy if t < start < t + runtime]
        if all(used(time) + size <= capacity for time in rises):
            return t
    raise AssertionError("a job larger than its partition")


def brute_force_idea1(jobs: list[SearchJob], running: list[tuple[float, int, int]],
                      capacities: tuple[int, ...]) -> tuple[float, float, int]:
    """The lexicographically smallest (Tw, avgX) at now 0, omega 0, over every order of
    the jobs and every assignment of each job to a partition large enough (each job at
    its earliest start there after the jobs before it), and the number of such plans."""
    best: tuple[float, float] | None = None
    plans = 0
    for order in itertools.permutations(range(len(jobs))):
        choices = [[p for p, c in enumerate(capacities) if c >= jobs[j].size] for j in order]
        for assignment in itertools.product(*choices):
            busy = [[(0.0, end, size) for end, size, q in running if q == p]
                    for p in range(len(capacities))]
            excess = expansion = 0.0
            for j, p in zip(order, assignment, strict=True):
                job = jobs[j]
                start = earliest_start(busy[p], capacities[p], job.size, job.runtime, 0.0)
                busy[p].append((start, start + job.runtime, job.size))
                wait = start - job.submit
                excess += max(0.0, wait)
                expansion += max(1.0, (wait + job.runtime) / max(job.runtime, 10.0))
            key = (excess, expansion / len(jobs))
            best = key if best is None or key < best else best
            plans += 1
    assert best is not None
    return (*best, plans)


@dataclass
class LeafRecordingSearch(Search):
    """The search, keeping every leaf's (job, partition) sequence."""

    seen: list[tuple[tuple[int, int], ...]] = field(default_factory=list)

    def _leaf(self) -> None:
        self.seen.append(tuple((p.job, p.partition) for p in self._path))
        super()._leaf()


@st.composite
def idea1_snapshots(draw: st.DrawFn) -> tuple[list[SearchJob], list[tuple[float, int, int]],
                                              tuple[int, ...]]:
    """Up to four jobs on two or three partitions, some busy until a time (end, size,
    partition) at 0."""
    capacities = draw(st.sampled_from([(4, 4), (4, 3), (4, 2), (3, 3, 2)]))
    jobs = [SearchJob(draw(st.integers(1, max(capacities))), float(draw(st.integers(1, 50))),
                      -float(draw(st.integers(0, 100)))) for _ in range(draw(st.integers(1, 4)))]
    running = []
    for p, capacity in enumerate(capacities):
        size = draw(st.integers(0, capacity))
        if size:
            running.append((float(draw(st.integers(1, 60))), size, p))
    return jobs, running, capacities


@settings(max_examples=60, deadline=None)
@given(idea1_snapshots(), st.sampled_from(["partition_first", "best_fit_first"]))
def test_unlimited_idea1_search_equals_brute_force(
    case: tuple[list[SearchJob], list[tuple[float, int, int]], tuple[int, ...]],
    idea1_order: str,
) -> None:
    jobs, running, capacities = case
    profiles = snapshot_profiles(running, capacities)
    found = LeafRecordingSearch(jobs, profiles, capacities, 0.0, 0.0, GoalSettings(
        node_limit=UNLIMITED, tree="idea1", idea1_order=idea1_order, objective="hierarchical"))
    found.run()
    tw, x, plans = brute_force_idea1(jobs, running, capacities)
    assert found.stats.leaves == plans == len(set(found.seen))  # every plan, once
    assert found.best_score is not None
    assert found.best_score.total_excess_wait == pytest.approx(tw)
    assert found.best_score.mean_expansion == pytest.approx(x)


# -- properties (spec 5) ------------------------------------------------------------------


@st.composite
def search_jobs(draw: st.DrawFn, max_jobs: int = 5) -> list[SearchJob]:
    count = draw(st.integers(1, max_jobs))
    return [SearchJob(draw(st.integers(1, 4)), float(draw(st.integers(1, 50))),
                      -float(draw(st.integers(0, 100)))) for _ in range(count)]


def brute_force_best(jobs: list[SearchJob], capacities: tuple[int, ...]) -> Score:
    """The lexicographically smallest (Tw, avgX) over every order, each job by best fit."""
    best: tuple[float, float] | None = None
    for order in itertools.permutations(range(len(jobs))):
        profiles = [Profile(0.0, c) for c in capacities]
        walker = Search(jobs, profiles, capacities, 0.0, 0.0, GoalSettings())
        excess = expansion = 0.0
        for j in order:
            p, start = walker.best_fit(j)
            profiles[p].reserve(start, start + jobs[j].runtime, jobs[j].size)
            wait = start - jobs[j].submit
            excess += max(0.0, wait)
            expansion += max(1.0, (wait + jobs[j].runtime) / max(jobs[j].runtime, 10.0))
        key = (excess, expansion / len(jobs))
        best = key if best is None or key < best else best
    assert best is not None
    return Score(*best)


@settings(max_examples=60, deadline=None)
@given(search_jobs(), st.sampled_from([(4,), (4, 3)]))
def test_unlimited_search_equals_brute_force(jobs: list[SearchJob],
                                             capacities: tuple[int, ...]) -> None:
    found = search(jobs, capacities, objective="hierarchical")
    assert found.stats.leaves == math.factorial(len(jobs))
    expected = brute_force_best(jobs, capacities)
    assert found.best_score is not None
    assert found.best_score.total_excess_wait == pytest.approx(expected.total_excess_wait)
    assert found.best_score.mean_expansion == pytest.approx(expected.mean_expansion)


@settings(max_examples=60, deadline=None)
@given(search_jobs(6), st.integers(1, 40), st.sampled_from(["idea1", "idea2"]))
def test_limited_search_properties(jobs: list[SearchJob], limit: int, tree: str) -> None:
    capacities = (4, 3)
    small = search(jobs, capacities, node_limit=limit, tree=tree, objective="hierarchical")
    larger = search(jobs, capacities, node_limit=2 * limit, tree=tree, objective="hierarchical")
    greedy = search(jobs, capacities, node_limit=1, tree=tree, objective="hierarchical")
    assert small.stats.nodes <= max(limit, len(jobs))
    for found in (small, larger):
        assert found.best_score is not None and greedy.best_score is not None
        assert not hierarchical_better(greedy.best_score, found.best_score)
        assert_feasible(found, jobs, capacities)
    assert larger.best_score is not None and small.best_score is not None
    assert not hierarchical_better(small.best_score, larger.best_score)


def assert_feasible(found: Search, jobs: list[SearchJob], capacities: tuple[int, ...]) -> None:
    assert found.best is not None
    assert sorted(p.job for p in found.best) == list(range(len(jobs)))
    for p in found.best:
        assert p.start >= 0.0 and capacities[p.partition] >= jobs[p.job].size
        busy = sum(jobs[q.job].size for q in found.best if q.partition == p.partition
                   and q.start <= p.start < q.start + jobs[q.job].runtime)
        assert busy <= capacities[p.partition]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 30), st.integers(1, 3)),
                min_size=1, max_size=8))
def test_profile_release_undoes_reserve_exactly(blocks: list[tuple[int, int, int]]) -> None:
    profile = Profile(0.0, 10)
    profile.reserve(0.0, 20.0, 4)  # a running job: a step the releases must keep
    before = (list(profile.times), list(profile.free))
    placed = []
    for offset, length, procs in blocks:
        start = profile.earliest(procs, float(length), float(offset))
        profile.reserve(start, start + length, procs)
        placed.append((start, start + length, procs))
    for start, end, procs in reversed(placed):
        profile.release(start, end, procs)
    assert (profile.times, profile.free) == before


# -- the compiled search gives the pure search's plan ---------------------------------------

numba = pytest.importorskip("numba")


@st.composite
def search_cases(draw: st.DrawFn) -> tuple[list[SearchJob], list[tuple[float, float, int, int]]]:
    jobs = draw(search_jobs(7))
    running = [(0.0, float(draw(st.integers(1, 60))), draw(st.integers(1, 3)),
                draw(st.integers(0, 1))) for _ in range(draw(st.integers(0, 3)))]
    return jobs, running


@settings(max_examples=150, deadline=None)
@given(search_cases(), st.integers(1, 200), st.sampled_from(["idea1", "idea2"]),
       st.sampled_from(["partition_first", "best_fit_first"]), st.sampled_from(["fcfs", "lxf"]),
       st.sampled_from(["tradeoff", "hierarchical"]), st.sampled_from([0.0, 30.0]))
def test_compiled_search_equals_the_pure_search(
    case: tuple[list[SearchJob], list[tuple[float, float, int, int]]], limit: int, tree: str,
    idea1_order: str, branching: str, objective: str, omega: float,
) -> None:
    jobs, running = case
    capacities = (4, 3)

    def profiles() -> list[Profile]:
        made = [Profile(0.0, c) for c in capacities]
        for start, end, size, partition in running:
            size = min(size, capacities[partition])
            if made[partition].earliest(size, end - start, start) == start:
                made[partition].reserve(start, end, size)
        return made

    options = GoalSettings(node_limit=limit, tree=tree, idea1_order=idea1_order,
                           branching=branching, objective=objective)
    pure = Search(jobs, profiles(), capacities, 0.0, omega, options)
    plan = pure.run()
    compiled, nodes, leaves, stopped = compiled_plan(jobs, profiles(), capacities, 0.0, omega,
                                                       options, pure.branching_order())
    assert compiled == [(p.job, p.partition, p.start) for p in plan]
    assert (nodes, leaves, stopped) == (pure.stats.nodes, pure.stats.leaves, pure.stats.stopped)


def assert_compiled_equals_pure(jobs: list[SearchJob], running: list[tuple[float, int, int]],
                                capacities: tuple[int, ...], options: GoalSettings,
                                omega: float = 0.0) -> None:
    """Both engines on the same snapshot: running jobs as (end, size, partition) from 0."""
    pure = Search(jobs, snapshot_profiles(running, capacities), capacities, 0.0, omega, options)
    plan = pure.run()
    compiled, nodes, leaves, stopped = compiled_plan(
        jobs, snapshot_profiles(running, capacities), capacities, 0.0, omega, options,
        pure.branching_order())
    assert compiled == [(p.job, p.partition, p.start) for p in plan]
    assert (nodes, leaves, stopped) == (pure.stats.nodes, pure.stats.leaves, pure.stats.stopped)


def test_compiled_search_when_a_release_drops_an_earlier_step() -> None:
    # the first job (3 of 4 nodes over [10, 20)) leaves a boundary at 10 with the same free
    # count on both sides; undoing the second job ([0, 10)) drops it, so the first job's
    # boundary indices are stale when it is undone, and the later orders that place the
    # third job need the profile put back right
    jobs = [SearchJob(3, 10.0, 0.0), SearchJob(1, 10.0, 0.0), SearchJob(4, 5.0, 0.0)]
    assert_compiled_equals_pure(jobs, [(10.0, 3, 0)], (4,), GoalSettings(node_limit=UNLIMITED))


@st.composite
def coarse_cases(draw: st.DrawFn, max_jobs: int = 7, max_partitions: int = 4,
                 ) -> tuple[list[SearchJob], list[tuple[float, int, int]], tuple[int, ...]]:
    """Snapshots whose times are multiples of 5 on one to four partitions, so that steps
    often meet and reservations often leave boundaries with equal free counts around."""
    capacities = tuple(draw(st.lists(st.integers(2, 6), min_size=1, max_size=max_partitions)))
    widest = max(capacities)
    jobs = [SearchJob(draw(st.integers(1, widest)), 5.0 * draw(st.integers(1, 6)),
                      -5.0 * draw(st.integers(0, 10)))
            for _ in range(draw(st.integers(1, max_jobs)))]
    running = []
    used = [0] * len(capacities)
    for _ in range(draw(st.integers(0, 8))):
        p = draw(st.integers(0, len(capacities) - 1))
        size = draw(st.integers(1, capacities[p]))
        if used[p] + size <= capacities[p]:
            used[p] += size
            running.append((5.0 * draw(st.integers(1, 8)), size, p))
    return jobs, running, capacities


@settings(max_examples=200, deadline=None)
@given(coarse_cases(), st.integers(1, 300), st.sampled_from(["idea1", "idea2"]),
       st.sampled_from(["partition_first", "best_fit_first"]), st.sampled_from(["fcfs", "lxf"]))
def test_compiled_search_equals_the_pure_search_on_coarse_times(
    case: tuple[list[SearchJob], list[tuple[float, int, int]], tuple[int, ...]], limit: int,
    tree: str, idea1_order: str, branching: str,
) -> None:
    jobs, running, capacities = case
    assert_compiled_equals_pure(jobs, running, capacities,
                                GoalSettings(node_limit=limit, tree=tree, idea1_order=idea1_order,
                                             branching=branching))


@settings(max_examples=100, deadline=None)
@given(coarse_cases(max_jobs=4, max_partitions=3), st.data(), st.sampled_from(["idea1", "idea2"]),
       st.sampled_from(["partition_first", "best_fit_first"]), st.sampled_from(["fcfs", "lxf"]),
       st.sampled_from(["tradeoff", "hierarchical"]))
def test_compiled_search_equals_the_pure_search_at_every_node_limit(
    case: tuple[list[SearchJob], list[tuple[float, int, int]], tuple[int, ...]],
    data: st.DataObject, tree: str, idea1_order: str, branching: str, objective: str,
) -> None:
    """Small snapshots, the limit drawn up to the full search's node count plus one, so
    that it may fall in any iteration, the last (idea 1's discrepancy at depth n-1)
    included, or not at all."""
    jobs, running, capacities = case
    options = GoalSettings(node_limit=UNLIMITED, tree=tree, idea1_order=idea1_order,
                           branching=branching, objective=objective)
    full = Search(jobs, snapshot_profiles(running, capacities), capacities, 0.0, 0.0, options)
    full.run()
    limit = data.draw(st.integers(1, full.stats.nodes + 1), label="node_limit")
    assert_compiled_equals_pure(jobs, running, capacities, replace(options, node_limit=limit))
