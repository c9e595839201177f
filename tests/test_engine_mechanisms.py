"""Engine mechanisms: typed events, suspend/resume with run segments, progress under
background load, named processors, the stop condition, when the policy is called."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine import Scripted, greedy

from schedsim.engine import (
    Engine,
    EngineView,
    EventKind,
    Resume,
    SimulationError,
    Start,
    Suspend,
    WakeUp,
    simulate,
)
from schedsim.errors import InputError
from schedsim.jobs import Job, RuntimeChange
from schedsim.loadmodel import ScriptedLoads
from schedsim.machine import EQUAL_SPLIT, POOLED, Machine
from schedsim.metrics import job_table, summarize, validate_schedule
from schedsim.policies.registry import make_policy
from schedsim.schedule import Schedule


# -- typed events ------------------------------------------------------------------
class Mark(EventKind):
    """A custom kind between arrivals (10) and elastic commands (20)."""

    priority = 15

    def __init__(self, log: list[tuple[str, int, float]]) -> None:
        self.log = log

    def apply(self, engine: Engine, payload: Any) -> None:
        self.log.append(("mark", payload, engine.now))


class LoggingPolicy(Scripted):
    def __init__(self, log: list[tuple[str, int, float]]) -> None:
        super().__init__(lambda v, q: [Start(j, j.procs) for j in q[:1]] if v.free[0] else [])
        self.log = log

    def submit(self, job: Job, view: EngineView) -> None:
        self.log.append(("submit", job.id, view.now))
        super().submit(job, view)

    def finish(self, job: Job, view: EngineView) -> None:
        self.log.append(("finish", job.id, view.now))

    def change(self, job: Job, view: EngineView) -> None:
        self.log.append(("change", job.id, view.now))

    def schedule(self, view: EngineView) -> list:
        self.log.append(("schedule", -1, view.now))
        return super().schedule(view)


def test_custom_event_kind_runs_at_its_priority_among_the_built_in_kinds() -> None:
    log: list[tuple[str, int, float]] = []
    jobs = [Job(1, 0, 10, 4, 10), Job(2, 10, 5, 4, 5), Job(3, 10, 5, 4, 20)]
    mark = Mark(log)
    engine = Engine(Machine(4), LoggingPolicy(log))
    engine.run(jobs, [RuntimeChange(10, 3, 1.0)], events=[(10, mark, 7), (0, mark, 6)])
    at_10 = [entry[:2] for entry in log if entry[2] == 10]
    assert at_10 == [("finish", 1), ("submit", 2), ("submit", 3), ("mark", 7),
                     ("change", 3), ("schedule", -1)]
    assert log[:2] == [("submit", 1, 0), ("mark", 6, 0)]


def test_completions_at_one_instant_come_in_start_order() -> None:
    log: list[tuple[str, int, float]] = []
    policy = LoggingPolicy(log)
    policy.decide = lambda v, q: [Start(j, j.procs) for j in reversed(q)]
    jobs = [Job(1, 0, 10, 1, 10), Job(2, 0, 10, 1, 10), Job(3, 0, 10, 1, 10)]
    simulate(jobs, Machine(4), policy)
    assert [e[1] for e in log if e[0] == "finish"] == [3, 2, 1]


def test_push_event_rejects_the_past() -> None:
    engine = Engine(Machine(4), greedy())
    engine.now = 5.0
    with pytest.raises(SimulationError, match="in the past"):
        engine.push_event(1.0, Mark([]))


# -- suspend and resume --------------------------------------------------------------
def preempting_policy() -> Scripted:
    """Job 1 runs from 0; at 30 it is suspended for job 2; it resumes when job 2 ends."""
    def decide(view: EngineView, queue: list[Job]) -> list:
        if view.now == 0:
            return [Start(queue[0], 4), WakeUp(30)]
        if view.now == 30:
            return [Suspend(view.running[0].job), Start(queue[0], 4)]
        return [Resume(view.suspended[0].job)] if view.suspended and view.free[0] == 4 else []
    return Scripted(decide)


def test_suspended_job_keeps_its_remaining_work_and_records_segments() -> None:
    jobs = [Job(1, 0, 100, 4, 100), Job(2, 10, 20, 4, 20)]
    schedule = simulate(jobs, Machine(4), preempting_policy(), check=True)
    assert schedule.start == [0, 30]
    assert schedule.end == [120, 50]
    assert schedule.segments(0) == [(0, 30), (50, 120)]
    assert schedule.segments(1) == [(30, 50)]
    assert list(schedule.split) == [0]  # only the suspended job stores segments
    table = job_table(schedule)
    assert list(table["runtime"]) == [100, 20]
    summary = summarize(schedule)
    assert summary.utilization == pytest.approx((100 * 4 + 20 * 4) / (4 * 120))
    assert summary.mean_wait == pytest.approx((0 + 20) / 2)


def test_resumed_job_estimate_counts_only_what_is_left() -> None:
    seen: list[float] = []

    def decide(view: EngineView, queue: list[Job]) -> list:
        if view.now == 0:
            return [Start(queue[0], 2), WakeUp(10)]
        if view.now == 10:
            return [Suspend(view.running[0].job), WakeUp(20)]
        if view.now == 20:
            return [Resume(view.suspended[0].job), WakeUp(25)]
        return []
    policy = Scripted(decide)
    original = policy.schedule

    def schedule(view: EngineView) -> list:
        out = original(view)
        seen.extend(r.est_end for r in view.running.values())
        return out
    policy.schedule = schedule  # type: ignore[method-assign]
    result = simulate([Job(1, 0, 30, 2, 50)], Machine(2), policy, check=True)
    assert result.end == [40]
    assert seen[-1] == 60  # resumed at 20 with 40 s of its 50 s estimate left


@pytest.mark.parametrize(("decision", "message"), [
    (lambda job: Suspend(job), "cannot suspend job 2: it is waiting"),
    (lambda job: Resume(job), "cannot resume job 2: it is not suspended"),
])
def test_invalid_suspend_or_resume_raises_with_job_and_time(decision: Any, message: str) -> None:
    def decide(view: EngineView, queue: list[Job]) -> list:
        return [Start(queue[0], 2)] if view.now == 0 else [decision(queue[-1])]
    jobs = [Job(1, 0, 10, 2, 10), Job(2, 5, 10, 2, 10)]
    with pytest.raises(SimulationError, match=rf"t=5.*{message}"):
        simulate(jobs, Machine(2), Scripted(decide))


def test_resume_checks_capacity_like_start() -> None:
    def decide(view: EngineView, queue: list[Job]) -> list:
        if view.now == 0:
            return [Start(queue[0], 2), WakeUp(5)]
        if view.now == 5:
            return [Suspend(view.running[0].job), Start(queue[0], 2), WakeUp(6)]
        return [Resume(view.suspended[0].job)] if view.now == 6 else []
    jobs = [Job(1, 0, 10, 2, 10), Job(2, 1, 10, 2, 10)]
    with pytest.raises(SimulationError, match=r"t=6: job 1 asks 2 processors, only 0 free"):
        simulate(jobs, Machine(2), Scripted(decide))


def test_validate_catches_over_use_across_segments() -> None:
    jobs = [Job(1, 0, 20, 2, 20), Job(2, 0, 10, 2, 10)]
    for index, job in enumerate(jobs):
        job.index = index
    fine = Schedule(Machine(2), jobs, [0, 5], [25, 15], [2, 2], [0, 0],
                    split={0: [(0, 5, ()), (15, 25, ())]})
    validate_schedule(fine)
    overlapping = Schedule(Machine(2), jobs, [0, 5], [24, 15], [2, 2], [0, 0],
                           split={0: [(0, 5, ()), (14, 24, ())]})
    with pytest.raises(SimulationError, match="t=14: 4 processors in use"):
        validate_schedule(overlapping)


# -- progress under background load (IHAP paper, sec. 4.2-4.3) ----------------------------
def one_job_on_two_processors(script: dict[float, tuple[float, float]], execution: str,
                              later: list[Job] = ()) -> tuple[Schedule, list]:
    """30 BPU-seconds on processors of 2 and 1 BPU under scripted loads (``later``: jobs
    that wait for free processors)."""
    seen: list[tuple[float, tuple[float, ...]]] = []

    def decide(view: EngineView, queue: list[Job]) -> list:
        seen.append((view.now, tuple(view.loads)))
        return [Start(j, j.procs) for j in queue[:1] if j.procs <= view.free[0]]
    machine = Machine(2, speeds=(2.0, 1.0), execution=execution)
    jobs = [Job(1, 0, 0, 2, 0, work=30.0), *later]
    schedule = simulate(jobs, machine, Scripted(decide), load_model=ScriptedLoads(script),
                        check=True)
    return schedule, seen


def test_pooled_work_progresses_at_the_sum_of_effective_rates() -> None:
    schedule, seen = one_job_on_two_processors({0.0: (0.25, 0.10)}, POOLED)
    assert schedule.end == [pytest.approx(12.5)]  # rate 2 x 0.75 + 1 x 0.9 = 2.4
    assert seen == [(0.0, (0.25, 0.10))]  # the policy sees the loads redrawn at the arrival


def test_pooled_load_change_re_times_the_running_job() -> None:
    schedule, _ = one_job_on_two_processors({0.0: (0.25, 0.10), 5.0: (0.0, 0.30)}, POOLED)
    assert schedule.end == [pytest.approx(5 + 18 / 2.7)]  # 11.667


def test_equal_split_ends_with_the_slowest_task() -> None:
    """Tasks of 15 BPU-s at 2 x 0.75 = 1.5 (ends at 10) and 1 x 0.9 = 0.9 (16.667)."""
    schedule, _ = one_job_on_two_processors({0.0: (0.25, 0.10)}, EQUAL_SPLIT)
    assert schedule.end == [pytest.approx(15 / 0.9)]


def test_equal_split_load_change_re_times_every_task() -> None:
    """At 5 the tasks have 15 - 7.5 = 7.5 and 15 - 4.5 = 10.5 left; at the new rates 2.0
    and 0.7 they end at 8.75 and 5 + 15 = 20."""
    schedule, _ = one_job_on_two_processors({0.0: (0.25, 0.10), 5.0: (0.0, 0.30)},
                                            EQUAL_SPLIT)
    assert schedule.end == [pytest.approx(20.0)]


def test_equal_split_a_finished_task_keeps_its_processor() -> None:
    """The fast task ends at 10; a load change on its processor at 12 leaves the end at
    16.667, and a one-processor job that arrives at 11 waits for it."""
    later = [Job(2, 11, 0, 1, 0, work=1.0)]
    schedule, _ = one_job_on_two_processors({0.0: (0.25, 0.10), 12.0: (0.5, 0.10)},
                                            EQUAL_SPLIT, later)
    assert schedule.end[0] == pytest.approx(15 / 0.9)
    assert schedule.start[1] == schedule.end[0]
    assert schedule.end[1] == pytest.approx(15 / 0.9 + 1 / 1.0)  # processor 0 at 2 x 0.5


@pytest.mark.parametrize("execution, end", [(POOLED, 10 / 0.75), (EQUAL_SPLIT, 10 / 0.5)])
def test_rigid_job_runs_at_its_processors_relative_rates(execution: str, end: float) -> None:
    """10 s of nominal run time on processors loaded 50% and 0%: pooled at the mean rate
    0.75; equal split each task needs 10 s, the loaded one at rate 0.5."""
    jobs = [Job(1, 0, 10, 2, 10)]
    schedule = simulate(jobs, Machine(2, execution=execution), greedy(),
                        load_model=ScriptedLoads({0: (0.5, 0.0)}))
    assert schedule.end == [pytest.approx(end)]


@pytest.mark.parametrize("execution, end", [(POOLED, 6 / 3), (EQUAL_SPLIT, 3 / 1)])
def test_work_on_processors_of_different_speeds_without_load(execution: str,
                                                             end: float) -> None:
    """6 BPU-s on speeds 1 and 2: pooled 6 / 3; equal split 3 on the slow processor."""
    schedule = simulate([Job(1, 0, 0, 2, 0, work=6.0)],
                        Machine(2, speeds=(1.0, 2.0), execution=execution), greedy())
    assert schedule.end == [pytest.approx(end)]


@pytest.mark.parametrize("execution, end", [(POOLED, 20 + 12 / 3), (EQUAL_SPLIT, 20 + 6 / 1)])
def test_a_suspended_job_keeps_the_work_its_tasks_have_left(execution: str,
                                                           end: float) -> None:
    """30 BPU-s on speeds 2 and 1, suspended at 6 and resumed at 20: 12 left either way
    (equal split: 15 - 12 and 15 - 6), split equally again on resuming."""
    def decide(view: EngineView, queue: list[Job]) -> list:
        if view.now == 0:
            return [Start(queue[0], 2), WakeUp(6)]
        if view.now == 6:
            return [Suspend(view.running[0].job), WakeUp(20)]
        return [Resume(view.suspended[0].job)] if view.now == 20 else []
    schedule = simulate([Job(1, 0, 0, 2, 0, work=30.0)],
                        Machine(2, speeds=(2.0, 1.0), execution=execution), Scripted(decide),
                        check=True)
    assert schedule.segments(0) == [(0, 6), (20, pytest.approx(end))]


def test_an_unknown_execution_model_is_refused() -> None:
    with pytest.raises(InputError, match="allowed: equal_split, pooled"):
        Machine(2, execution="fastest")


def test_zero_loads_give_the_schedule_without_a_load_model() -> None:
    jobs = [Job(i, (i * 7) % 40, 5 + (i * 13) % 30, 1 + (i * 5) % 8, 40) for i in range(1, 30)]
    machine = Machine(8)
    plain = simulate(jobs, machine, make_policy("easy", {}, machine))
    loaded = simulate(jobs, machine, make_policy("easy", {}, machine),
                      load_model=ScriptedLoads({0: (0.0,) * 8}))
    assert (loaded.start, loaded.end) == (plain.start, plain.end)


def test_loads_are_redrawn_at_arrivals_and_departures() -> None:
    class Counting:
        def __init__(self) -> None:
            self.calls: list[float] = []

        def redraw(self, now: float) -> None:
            self.calls.append(now)
    model = Counting()
    jobs = [Job(1, 0, 10, 1, 10), Job(2, 3, 10, 1, 10)]
    simulate(jobs, Machine(2), greedy(), load_model=model)
    assert model.calls == [0, 3, 10, 13]


# -- named processors -----------------------------------------------------------------
def test_named_processors_are_recorded() -> None:
    named = Scripted(lambda v, q: [Start(j, 2, 0, (5, 7)) for j in q])
    schedule = simulate([Job(1, 0, 10, 2, 10)], Machine(8), named)
    assert schedule.processors == {0: (5, 7)}
    plain = simulate([Job(1, 0, 10, 2, 10)], Machine(8), greedy())
    assert plain.processors == {}
    tracked = simulate([Job(1, 0, 10, 2, 10)], Machine(4, speeds=(1, 1, 2, 2)), greedy())
    assert tracked.processors == {0: (0, 1)}


def test_named_processors_must_be_distinct_and_as_many_as_asked() -> None:
    bad = Scripted(lambda v, q: [Start(j, 2, 0, (5, 5)) for j in q])
    with pytest.raises(SimulationError, match="not 2 distinct processors"):
        simulate([Job(1, 0, 10, 2, 10)], Machine(8), bad)


# -- stop condition ---------------------------------------------------------------------
def test_run_stops_once_the_given_jobs_started() -> None:
    jobs = [Job(1, 0, 100, 4, 100), Job(2, 10, 50, 2, 50), Job(3, 20, 50, 4, 50)]
    schedule = simulate(jobs, Machine(4), greedy(), stop_when_started={0, 1}, check=True)
    assert schedule.stopped_at == 100
    assert schedule.start[:2] == [0, 100] and schedule.end[:2] == [100, 150]
    assert math.isnan(schedule.start[2]) and math.isnan(schedule.end[2])
    assert summarize(schedule).jobs == 2


def test_stop_set_positions_are_checked() -> None:
    with pytest.raises(ValueError, match="positions"):
        simulate([Job(1, 0, 1, 1, 1)], Machine(1), greedy(), stop_when_started={3})


# -- when the policy is called -------------------------------------------------------------
def test_policy_is_called_for_suspended_jobs_and_due_wake_ups() -> None:
    def decide(view: EngineView, queue: list[Job]) -> list:
        if view.now == 0:
            return [Start(queue[0], 1), Start(queue[1], 1), WakeUp(7)]
        if view.now == 2:
            return [Suspend(view.running[1].job), Start(queue[0], 1)]
        if view.now == 6:
            return [Resume(view.suspended[1].job)]
        return []
    policy = Scripted(decide)
    jobs = [Job(1, 0, 6, 1, 6), Job(2, 0, 4, 1, 4), Job(3, 2, 1, 1, 1)]
    schedule = simulate(jobs, Machine(2), policy, check=True)
    # 3: job 3 ends and only a suspended job is left; 4: job 2's stale end (an instant
    # all the same); 7: a due wake-up while nothing waits
    assert policy.calls == [0, 2, 3, 4, 6, 7]
    assert schedule.segments(1) == [(0, 2), (6, 8)]


# -- a property: any sequence of suspensions keeps the schedule feasible --------------------
@st.composite
def preemption_cases(draw: st.DrawFn) -> tuple[list[Job], list[int]]:
    n = draw(st.integers(1, 8))
    jobs = [Job(i, draw(st.integers(0, 30)), draw(st.integers(1, 20)), draw(st.integers(1, 4)),
                20) for i in range(1, n + 1)]
    return jobs, draw(st.lists(st.integers(0, 1000), min_size=1, max_size=10))


@given(preemption_cases())
@settings(max_examples=60, deadline=None)
def test_random_suspensions_keep_work_and_feasibility(case: tuple[list[Job], list[int]]) -> None:
    jobs, coins = case
    step = [0]

    def decide(view: EngineView, queue: list[Job]) -> list:
        step[0] += 1
        coin = coins[step[0] % len(coins)]
        out: list = []
        free = view.free[0]
        calm = step[0] > 40  # no more suspensions, resume everything: the run ends
        if view.running and coin % 3 == 0 and not calm:
            victim = sorted(view.running)[coin % len(view.running)]
            out.append(Suspend(view.running[victim].job))
            free += view.running[victim].procs
        for _, paused in sorted(view.suspended.items()):
            if paused.procs <= free and (coin % 2 or calm):
                out.append(Resume(paused.job))
                free -= paused.procs
        for job in list(queue):
            if job.procs <= free:
                out.append(Start(job, job.procs))
                free -= job.procs
        if view.running or view.suspended:
            out.append(WakeUp(view.now + 1 + coin % 5))
        return out
    schedule = simulate(jobs, Machine(4), Scripted(decide), check=True)
    for job in schedule.jobs:
        assert schedule.busy_time(job.index) == pytest.approx(job.runtime)
