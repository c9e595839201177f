"""Moldable policies: HRF and the Srinivasan schemes x FCFS / EASY (HRF paper, Table 2)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import RunningJob, Schedule, simulate
from schedsim.errors import InputError
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.compiled.hrf import highest_revenue_first_rows
from schedsim.policies.moldable import (
    TABLE_2,
    Candidates,
    EasySelection,
    FairShare,
    FairShareSettings,
    FcfsSelection,
    HrfAllocation,
    HrfSettings,
    JobSizes,
    MoldablePolicy,
    MoldableSettings,
    RuntimeRows,
    ScheduleFairAllocation,
    ScheduleFairSettings,
    SubmitFairAllocation,
    SubmitFairSettings,
    SubmitGreedyAllocation,
    SubmitGreedySettings,
    SystemState,
    highest_revenue_first,
    hrf_allocation,
    processor_budget,
    threshold_cap,
)
from schedsim.policies.registry import get_policy, make_policy
from schedsim.speedup import DowneySpeedup

MOLDABLE_NAMES = tuple(TABLE_2)


@dataclass(frozen=True)
class TableSpeedup:
    """T(n) from a table; flat beyond its last entry."""

    times: tuple[float, ...]

    def runtime(self, procs: int) -> float:
        return self.times[min(procs, len(self.times)) - 1]


def moldable_job(index: int, times: tuple[float, ...], submit: float = 0.0,
                 procs: int | None = None) -> Job:
    job = Job(id=index + 1, submit=submit, runtime=times[-1], procs=procs or len(times),
              estimate=times[-1], speedup=TableSpeedup(times))
    job.index = index
    return job


def rigid_job(index: int, procs: int, runtime: float) -> Job:
    job = Job(id=index + 1, submit=0.0, runtime=runtime, procs=procs, estimate=runtime)
    job.index = index
    return job


def state(capacity: int, queue: list[Job], running: tuple[RunningJob, ...] = (),
          selection: FcfsSelection | None = None, now: float = 0.0) -> SystemState:
    free = capacity - sum(r.procs for r in running)
    return SystemState(now, capacity, free, list(running), queue, selection or EasySelection())


def running(job: Job, procs: int, end: float) -> RunningJob:
    return RunningJob(job, 0.0, procs, 0, (), end)


def average_turnaround(schedule: Schedule) -> float:
    ends = zip(schedule.end, schedule.jobs, strict=True)
    return sum(end - job.submit for end, job in ends) / len(schedule.jobs)


# -- the known answer: HRF paper sec. 4.1, Table 1 and Figure 3 -----------------------

# Table 1: three jobs submitted at 0 s, on one or two processors; 3 processors in all.
TABLE_1 = ((10.0, 5.0), (10.0, 7.0), (10.0, 9.0))
STRATEGIES = {"A": (2, 2, 1), "B": (2, 1, 2), "C": (1, 2, 2)}  # Fig. 3: sizes of J1, J2, J3


def table_1_jobs() -> list[Job]:
    return [moldable_job(i, times) for i, times in enumerate(TABLE_1)]


class FixedSizes:
    """A test allocation scheme: given sizes, in job order."""

    settings = MoldableSettings()

    def __init__(self, sizes: tuple[int, ...]) -> None:
        self.sizes = sizes

    def submitted(self, job: Job, state: SystemState) -> None:
        pass

    def started(self, job: Job) -> None:
        pass

    def prepare(self, state: SystemState) -> None:
        pass

    def size(self, job: Job) -> int:
        return self.sizes[job.index]


@pytest.mark.parametrize(("strategy", "expected"), [("A", 9.0), ("B", 29 / 3), ("C", 11.0)])
def test_table_1_strategies_give_the_papers_turnaround_times(strategy: str,
                                                             expected: float) -> None:
    machine = Machine(3)
    policy = MoldablePolicy(FixedSizes(STRATEGIES[strategy]), EasySelection(), machine)
    schedule = simulate(table_1_jobs(), machine, policy, check=True)
    assert average_turnaround(schedule) == pytest.approx(expected)


def test_table_1_strategy_a_needs_j3_beside_j1_so_fcfs_gives_more() -> None:
    # Fig. 3(a) runs J3 on the processor J1 leaves free; strict FCFS holds J3 behind J2.
    machine = Machine(3)
    policy = MoldablePolicy(FixedSizes(STRATEGIES["A"]), FcfsSelection(), machine)
    schedule = simulate(table_1_jobs(), machine, policy, check=True)
    assert average_turnaround(schedule) == pytest.approx(32 / 3)


def test_hrf_with_budget_5_picks_strategy_a() -> None:
    # Sec. 5: alpha = 5/3 on 3 processors is a budget of 5; the first processor of each
    # job is part of it, leaving 2 steps, which go to J1 (RP 5) and J2 (RP 3), not J3 (RP 1).
    assert processor_budget(5 / 3, 3) == 5
    assert highest_revenue_first(TABLE_1, extra_steps=2) == [1, 1, 0]
    machine = Machine(3)
    allocation = HrfAllocation(HrfSettings(alpha=5 / 3, threshold=1.0), machine)
    jobs = table_1_jobs()
    allocation.submitted(jobs[0], state(3, []))
    allocation.prepare(state(3, jobs))
    assert tuple(allocation.size(job) for job in jobs) == STRATEGIES["A"]


def test_hrf_allocation_of_the_table_1_jobs_is_strategy_a() -> None:
    # The sec. 4.1 example as the HRF-T1 target computes it: at most two processors a
    # job (threshold 2/3 of 3), budget 5 (alpha 5/3).
    settings = HrfSettings(alpha=5 / 3, threshold=2 / 3)
    assert hrf_allocation(TABLE_1, Machine(3), settings) == STRATEGIES["A"]


def test_hrfbf_reaches_strategy_a_turnaround() -> None:
    machine = Machine(3)
    policy = make_policy("HRFBf", {"alpha": 5 / 3, "threshold": 1.0}, machine)
    schedule = simulate(table_1_jobs(), machine, policy, check=True)
    assert schedule.procs == [2, 2, 1]
    assert average_turnaround(schedule) == pytest.approx(9.0)


def test_hrf_reallocating_after_each_start_loses_strategy_a() -> None:
    # The literal sec. 5 reading: after J1 starts, J2 and J3 share the budget again and
    # J3 gets 2 processors, so it cannot run beside J1 (see docs/deviations-hrf.md).
    machine = Machine(3)
    policy = make_policy("HRFBf", {"alpha": 5 / 3, "threshold": 1.0,
                                   "hrf_reallocation": "per-queue-change"}, machine)
    schedule = simulate(table_1_jobs(), machine, policy, check=True)
    assert schedule.procs == [2, 2, 2]
    assert average_turnaround(schedule) == pytest.approx(38 / 3)


# -- HRF: heap order, caps, budget ---------------------------------------------------

# Runtimes on 1..4 processors (cap 4 = threshold 0.5 of 8). RPs: A 40, 20, 10; B 30, 8, 4;
# C 1, 1, 1.
HAND_TABLES = ((100.0, 60.0, 40.0, 30.0), (50.0, 20.0, 12.0, 8.0), (30.0, 29.0, 28.0, 27.0))


def test_hrf_gives_steps_in_revenue_order() -> None:
    # 5 steps: A(40) B(30) A(20) A(10, A reaches its cap) B(8).
    assert highest_revenue_first(HAND_TABLES, 5) == [3, 2, 0]
    # 8 steps continue with B(4, cap), C(1), C(1).
    assert highest_revenue_first(HAND_TABLES, 8) == [3, 3, 2]


def test_hrf_drops_budget_once_every_job_is_at_its_cap() -> None:
    assert highest_revenue_first(HAND_TABLES, 1000) == [3, 3, 3]


def test_hrf_ties_go_to_the_earlier_job_and_zero_revenue_is_not_allocated() -> None:
    assert highest_revenue_first(((10.0, 6.0), (10.0, 6.0)), 1) == [1, 0]
    assert highest_revenue_first(((10.0, 10.0, 4.0), (9.0, 8.0)), 5) == [0, 1]
    assert highest_revenue_first(((10.0, 10.0, 4.0), (9.0, 8.0)), 5, min_revenue=-1.0) == [2, 1]


def literal_algorithm_1(tables: list[list[float]], extra_steps: int,
                        min_revenue: float) -> list[int]:
    """HRF paper, Algorithm 1 lines 5-12 as written: each step scans every considering
    job for the highest revenue (ties: the earlier job); O(steps x n)."""
    steps = [0] * len(tables)
    considering = [len(t) > 1 and t[0] - t[1] > min_revenue for t in tables]
    while extra_steps > 0 and any(considering):
        best = max((i for i in range(len(tables)) if considering[i]),
                   key=lambda i: (tables[i][steps[i]] - tables[i][steps[i] + 1], -i))
        steps[best] += 1
        extra_steps -= 1
        k, table = steps[best], tables[best]
        considering[best] = k + 1 < len(table) and table[k] - table[k + 1] > min_revenue
    return steps


# runtimes on few distinct values, so that revenues tie often
_runtime = st.sampled_from([1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 40.0, 100.0])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_runtime, min_size=1, max_size=7), max_size=20),
       st.integers(0, 40), st.sampled_from([0.0, -1.0, 2.0]), st.randoms())
def test_hrf_gives_every_step_as_algorithm_1_does(tables: list[list[float]],
                                                  extra_steps: int, min_revenue: float,
                                                  rng: random.Random) -> None:
    """The Python function and the compiled one HRF runs (on rows of an array that jobs
    have entered and left in any order) both give each step as Algorithm 1 does."""
    expected = literal_algorithm_1(tables, extra_steps, min_revenue)
    assert highest_revenue_first(tables, extra_steps, min_revenue) == expected
    rows = RuntimeRows(7)
    others = [moldable_job(100 + i, (9.0, 1.0)) for i in range(rng.randrange(20))]
    rows.rows(others, [Candidates((1, 2), (9.0, 1.0))] * len(others))
    for job in rng.sample(others, rng.randrange(len(others) + 1)):
        rows.forget(job.index)
    queue = [moldable_job(i, tuple(table)) for i, table in enumerate(tables)]
    candidates = [Candidates(tuple(range(1, len(t) + 1)), tuple(t)) for t in tables]
    at = rows.rows(queue, candidates)
    assert highest_revenue_first_rows(rows.runtimes, rows.lengths, at, extra_steps,
                                      min_revenue).tolist() == expected


def hrf_sizes(settings: HrfSettings, machine: Machine,
              tables: tuple[tuple[float, ...], ...]) -> list[int]:
    allocation = HrfAllocation(settings, machine)
    jobs = [moldable_job(i, times) for i, times in enumerate(tables)]
    allocation.submitted(jobs[0], state(machine.procs, []))
    allocation.prepare(state(machine.procs, jobs))
    return [allocation.size(job) for job in jobs]


def test_hrf_allocation_budget_threshold_and_initial_processors() -> None:
    machine = Machine(8)
    # Budget 8 includes the 3 first processors: 5 steps.
    assert hrf_sizes(HrfSettings(alpha=1.0, threshold=0.5), machine,
                     HAND_TABLES) == [4, 3, 1]
    # Budget 8 on top of the first processors (Algorithm 1 read literally): 8 steps.
    literal = HrfSettings(alpha=1.0, threshold=0.5, budget_includes_initial=False)
    assert hrf_sizes(literal, machine, HAND_TABLES) == [4, 4, 3]
    # threshold 0.3 of 8 = 2.4: floor caps at 2, ceil (Algorithm 1 line 7) at 3.
    assert hrf_sizes(HrfSettings(threshold=0.3), machine, HAND_TABLES) == [2, 2, 2]
    ceil = HrfSettings(threshold=0.3, threshold_rounding="ceil")
    assert hrf_sizes(ceil, machine, HAND_TABLES) == [3, 3, 2]


def test_hrf_steps_in_allocation_units() -> None:
    machine = Machine(8, unit=2)
    tables = ((80.0, 60.0, 50.0, 40.0, 35.0, 30.0, 28.0, 26.0),
              (80.0, 41.0, 30.0, 21.0, 18.0, 15.0, 14.0, 13.0))
    # Sizes 2, 4, 6, 8 (cap 8); budget 8 - 2 - 2 = 2 steps of 2 processors. RPs per
    # step, T(2)-T(4), T(4)-T(6): job 0: 20, 10; job 1: 20, 6. Job 0 wins the tie, then job 1.
    assert hrf_sizes(HrfSettings(threshold=1.0), machine, tables) == [4, 4]


def test_rounding_of_budget_and_threshold() -> None:
    assert processor_budget(0.29, 100) == 29
    assert processor_budget(0.7, 128) == 89
    assert threshold_cap(0.9, 128, 1, "floor") == 115
    assert threshold_cap(0.9, 128, 1, "ceil") == 116
    assert threshold_cap(0.001, 128, 4, "floor") == 4
    assert threshold_cap(1.0, 128, 32, "ceil") == 128


# -- Submit-time Greedy -------------------------------------------------------------

GREEDY_TIMES = (40.0, 24.0, 15.0, 12.0)


def test_greedy_picks_the_earliest_completion() -> None:
    # 4 processors, 2 busy until t=10. Ends: 1 -> 40, 2 -> 24, 3 -> 10+15=25, 4 -> 10+12=22.
    blocker = rigid_job(0, 2, 10.0)
    job = moldable_job(1, GREEDY_TIMES)
    machine = Machine(4)
    greedy = SubmitGreedyAllocation(SubmitGreedySettings(threshold=1.0), machine)
    greedy.submitted(job, state(4, [], [running(blocker, 2, 10.0)]))
    assert greedy.size(job) == 4
    # threshold 0.75 caps at 3: 2 (end 24) beats 3 (end 25).
    capped = SubmitGreedyAllocation(SubmitGreedySettings(threshold=0.75), machine)
    capped.submitted(job, state(4, [], [running(blocker, 2, 10.0)]))
    assert capped.size(job) == 2


def test_greedy_plans_the_queue_in_the_selections_order() -> None:
    # 2 busy until 10; queued rigid job Q (4 processors, 5 s) is planned at [10, 15).
    # EASY plan: the new job may run before Q: 2 processors at [0, 5) end first.
    # FCFS plan: not before Q's start, so at 15: 4 processors end at 18.
    machine = Machine(4)
    blocker = rigid_job(0, 2, 10.0)
    queued = rigid_job(1, 4, 5.0)
    job = moldable_job(2, (8.0, 5.0, 4.0, 3.0))
    for selection, expected in ((EasySelection(), 2), (FcfsSelection(), 4)):
        greedy = SubmitGreedyAllocation(SubmitGreedySettings(threshold=1.0), machine)
        greedy.submitted(queued, state(4, [], [running(blocker, 2, 10.0)], selection))
        greedy.submitted(job, state(4, [queued], [running(blocker, 2, 10.0)], selection))
        assert greedy.size(queued) == 4
        assert greedy.size(job) == expected


def test_greedy_prefers_the_smaller_size_on_equal_completion() -> None:
    job = moldable_job(0, (10.0, 10.0, 10.0))
    greedy = SubmitGreedyAllocation(SubmitGreedySettings(threshold=1.0), Machine(3))
    greedy.submitted(job, state(3, []))
    assert greedy.size(job) == 1


# -- fair share (HRF paper sec. 3.1; docs/deviations-hrf.md G3) ---------------------

# Sequential run times (weights) 100, 400, 900, sum 1400; square roots 10, 20, 30, sum 60;
# m = 16. Linear speedup up to 16 processors.
FAIR_JOBS = tuple(tuple(work / n for n in range(1, 17)) for work in (100.0, 400.0, 900.0))


def fair_jobs() -> list[Job]:
    return [moldable_job(i, times) for i, times in enumerate(FAIR_JOBS)]


def test_fair_limits_proportional_to_the_weight() -> None:
    jobs = fair_jobs()
    whole = FairShare(FairShareSettings(), 16, 1)
    system = state(16, jobs[1:], [running(jobs[0], 1, 50.0)])
    total = whole.weight_sum(system)
    assert total == pytest.approx(1400.0)
    # 16 x 100/1400 = 1.14, 16 x 400/1400 = 4.57, 16 x 900/1400 = 10.29.
    assert [whole.limit(job, total) for job in jobs] == [1, 4, 10]
    queue_only = FairShare(FairShareSettings(fair_weights_over="queue"), 16, 1)
    total = queue_only.weight_sum(system)
    # 16 x 400/1300 = 4.92, 16 x 900/1300 = 11.08.
    assert [queue_only.limit(job, total) for job in jobs[1:]] == [4, 11]
    assert FairShare(FairShareSettings(), 16, 4).limit(jobs[0], 1400.0) == 4


def test_fair_limits_from_square_root_weights() -> None:
    jobs = fair_jobs()
    whole = FairShare(FairShareSettings(fair_share="sqrt"), 16, 1)
    system = state(16, jobs[1:], [running(jobs[0], 1, 50.0)])
    total = whole.weight_sum(system)
    assert total == pytest.approx(60.0)
    # 16 x 10/60 = 2.67, 16 x 20/60 = 5.33, 16 x 30/60 = 8.
    assert [whole.limit(job, total) for job in jobs] == [2, 5, 8]
    queue_only = FairShare(FairShareSettings(fair_weights_over="queue", fair_share="sqrt"),
                           16, 1)
    total = queue_only.weight_sum(system)
    # 16 x 20/50 = 6.4, 16 x 30/50 = 9.6.
    assert [queue_only.limit(job, total) for job in jobs[1:]] == [6, 9]


@pytest.mark.parametrize(("share", "expected"), [("weight", [16, 12, 10]),
                                                 ("sqrt", [16, 10, 6])])
def test_submit_fair_is_greedy_within_the_fair_limit(share: str, expected: list[int]) -> None:
    jobs = fair_jobs()
    fair = SubmitFairAllocation(SubmitFairSettings(threshold=1.0, fair_share=share),
                                Machine(16))
    fair.submitted(jobs[0], state(16, []))
    fair.submitted(jobs[1], state(16, [jobs[0]]))
    fair.submitted(jobs[2], state(16, jobs[:2]))
    # Job 0 alone: limit 16, all 16 end at 6.25.
    # weight: job 1, K = {0, 1}: limit 16 x 400/500 -> 12, ends 6.25 + 33.3; job 2,
    #   K = all: limit 10; 10 processors from 39.6 end at 129.6, 4 from 6.25 at 231.25.
    # sqrt: job 1 limit 16 x 20/30 -> 10, ends at 46.25; job 2 limit 8; 6 processors
    #   free from 6.25 end at 156.25, 8 (from 46.25) at 158.75, 7 at 174.8: 6.
    assert [fair.size(job) for job in jobs] == expected


@pytest.mark.parametrize(("share", "sizes"), [("weight", (15, 12)), ("sqrt", (13, 12))])
def test_schedule_fair_limits_the_head_by_its_current_share(share: str,
                                                            sizes: tuple[int, int]) -> None:
    times = tuple(3600.0 / n for n in range(1, 17))  # linear speedup
    jobs = [moldable_job(0, (100.0,) * 16), moldable_job(1, times)]
    # weight: K = both jobs, 100 and 3600: job 1 may take 16 x 3600/3700 = 15.6 -> 15.
    # sqrt: 10 and 60: 16 x 60/70 = 13.7 -> 13.
    stf = ScheduleFairAllocation(ScheduleFairSettings(threshold=1.0, fair_share=share),
                                 Machine(16))
    stf.prepare(state(16, [jobs[1]], [running(jobs[0], 1, 100.0)]))
    assert stf.size(jobs[1]) == sizes[0]
    # With 4 busy until t=100: 12 processors now end at 300; 13 or more start at 100
    # and end later (15: 340; 13: 376.9).
    stf.prepare(state(16, [jobs[1]], [running(jobs[0], 4, 100.0)]))
    assert stf.size(jobs[1]) == sizes[1]


def test_greedy_max_processors_takes_the_largest_allowed_size() -> None:
    job = moldable_job(0, (10.0, 10.0, 10.0, 10.0))
    settings = SubmitGreedySettings(threshold=0.75, greedy_size="max-processors")
    greedy = SubmitGreedyAllocation(settings, Machine(4))
    greedy.submitted(job, state(4, []))
    assert greedy.size(job) == 3  # threshold 0.75 x 4; the earliest completion would give 1
    earliest = SubmitGreedyAllocation(SubmitGreedySettings(threshold=0.75), Machine(4))
    earliest.submitted(job, state(4, []))
    assert earliest.size(job) == 1


# -- sizes and registry ---------------------------------------------------------------


def test_job_sizes_are_capped_by_the_job_and_threshold() -> None:
    sizes = JobSizes(MoldableSettings(threshold=0.5), Machine(16, unit=2))
    assert sizes.of(moldable_job(0, (5.0,) * 20)).sizes == (2, 4, 6, 8)
    assert sizes.of(moldable_job(1, (5.0,) * 5, procs=5)).sizes == (2, 4, 6)
    assert sizes.of(rigid_job(2, 3, 7.0)) == Candidates((4,), (7.0,))


def test_table_2_names_compose_an_allocation_and_a_selection_scheme() -> None:
    for name, composed in TABLE_2.items():
        entry = get_policy(name)
        assert entry.family == "moldable"
        assert entry.settings({}) == composed.allocation.settings_type()
        policy = make_policy(name, {}, Machine(8))
        assert type(policy.allocation) is composed.allocation
        assert type(policy.selection) is composed.selection
    policy = make_policy("SchFairFcfs", {}, Machine(8))
    assert isinstance(policy.allocation, ScheduleFairAllocation)
    assert type(policy.selection) is FcfsSelection
    assert get_policy("SchFairFcfs").settings({}) == ScheduleFairSettings()
    with pytest.raises(InputError):
        make_policy("SbmFairBf", {"fair_weights_over": "all"}, Machine(8))
    with pytest.raises(InputError):
        make_policy("HRFBf", {"threshold": 1.5}, Machine(8))
    with pytest.raises(InputError):
        make_policy("moldable", {"allocation": "hrf"}, Machine(8))


def test_every_table_2_name_takes_every_schemes_parameters() -> None:
    # HRF paper, sec. 6.3 averages all 8 policies over one alpha x threshold grid: a
    # scheme accepts (and checks) the others' parameters, and ignores them.
    names = {spec.name for spec in get_policy("HRFBf").specs()}
    assert names == {"alpha", "threshold", "threshold_rounding", "budget_includes_initial",
                     "hrf_reallocation", "min_revenue", "fair_weights_over", "fair_share",
                     "greedy_size"}
    for name in TABLE_2:
        assert {spec.name for spec in get_policy(name).specs()} == names
    greedy = get_policy("SbmGrdyBf")
    assert greedy.settings({"alpha": 0.5, "threshold": 0.4}) == SubmitGreedySettings(
        threshold=0.4)
    alpha = next(spec for spec in greedy.specs() if spec.name == "alpha")
    assert alpha.default == 1.0 and alpha.help.startswith("no effect on Submit-time Greedy")
    with pytest.raises(InputError):
        make_policy("SbmGrdyBf", {"alpha": -1.0}, Machine(8))
    assert get_policy("HRFFcfs").settings({"fair_weights_over": "queue"}) == HrfSettings()


# -- whole runs ------------------------------------------------------------------------


def random_moldable_jobs(rng: random.Random, count: int, machine_procs: int) -> list[Job]:
    jobs, submit = [], 0.0
    for index in range(count):
        submit += rng.expovariate(1 / 300)
        speedup = DowneySpeedup(rng.uniform(60, 20_000), rng.uniform(1, 64), rng.uniform(0, 2))
        procs = min(machine_procs, speedup.max_useful_procs)
        runtime = speedup.runtime(procs)
        jobs.append(Job(id=index + 1, submit=round(submit), runtime=runtime, procs=procs,
                        estimate=runtime, speedup=speedup))
    return jobs


def size_cap(job: Job, settings: MoldableSettings, machine: Machine) -> int:
    cap = threshold_cap(settings.threshold, machine.procs, machine.unit,
                        settings.threshold_rounding)
    return min(machine.round_up(job.procs), cap)


@pytest.mark.parametrize("name", MOLDABLE_NAMES)
@pytest.mark.parametrize("unit", [1, 4])
def test_every_policy_runs_a_random_workload(name: str, unit: int) -> None:
    machine = Machine(64, unit=unit)
    jobs = random_moldable_jobs(random.Random(7), 60, machine.procs)
    schedule = simulate(jobs, machine, make_policy(name, {}, machine), check=True)
    entry = get_policy(name)
    for job, procs in zip(schedule.jobs, schedule.procs, strict=True):
        assert procs % unit == 0
        assert unit <= procs <= size_cap(job, entry.settings({}), machine)


def test_runs_are_deterministic() -> None:
    machine = Machine(64)
    jobs = random_moldable_jobs(random.Random(3), 40, machine.procs)
    first = simulate(jobs, machine, make_policy("SchFairBf", {}, machine))
    second = simulate(jobs, machine, make_policy("SchFairBf", {}, machine))
    assert (first.start, first.procs) == (second.start, second.procs)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    count=st.integers(1, 25),
    name=st.sampled_from(MOLDABLE_NAMES),
    unit=st.sampled_from([1, 2, 8]),
    alpha=st.floats(0.0, 2.0),
    threshold=st.floats(0.05, 1.0),
    literal=st.booleans(),
)
def test_property_feasible_schedules(seed: int, count: int, name: str, unit: int, alpha: float,
                                     threshold: float, literal: bool) -> None:
    machine = Machine(32, unit=unit)
    params = {"alpha": alpha, "threshold": threshold, "budget_includes_initial": not literal,
              "hrf_reallocation": "per-queue-change" if literal else "per-instant",
              "threshold_rounding": "ceil" if literal else "floor"}
    jobs = random_moldable_jobs(random.Random(seed), count, machine.procs)
    entry = get_policy(name)
    schedule = simulate(jobs, machine, entry.make(params, machine), check=True)
    chosen = entry.settings(params)
    assert len(schedule.start) == count
    events = sorted([(s, 1, p) for s, p in zip(schedule.start, schedule.procs, strict=True)]
                    + [(e, 0, -p) for e, p in zip(schedule.end, schedule.procs, strict=True)])
    in_use = 0
    for _, _, delta in events:
        in_use += delta
        assert in_use <= machine.procs
    for job, start, procs in zip(schedule.jobs, schedule.start, schedule.procs, strict=True):
        assert start >= job.submit
        assert unit <= procs <= size_cap(job, chosen, machine)
        assert procs % unit == 0


def test_easy_never_delays_the_heads_reservation() -> None:
    # 4 processors; A holds 3 until 10. Head H wants 4 (reservation at 10, extra 0).
    # At t=1, B (1 processor, 20 s) would run past 10: not backfilled; C (1 processor,
    # 9 s) ends exactly at the shadow time: backfilled (docs/deviations.md, EASY boundary).
    machine = Machine(4)
    jobs = [moldable_job(0, (30.0, 30.0, 10.0)),
            moldable_job(1, (8.0, 4.0, 2.0, 1.0), submit=1.0),
            moldable_job(2, (20.0,), submit=1.0),
            moldable_job(3, (9.0,), submit=1.0)]
    policy = MoldablePolicy(FixedSizes((3, 4, 1, 1)), EasySelection(), machine)
    schedule = simulate(jobs, machine, policy, check=True)
    assert schedule.start == [0.0, 10.0, 11.0, 1.0]
