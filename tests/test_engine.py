"""The engine's mechanisms, each with a small policy written for the test."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, fields

import pytest

from schedsim.engine import EngineView, SimulationError, Start, WakeUp, simulate
from schedsim.errors import InputError
from schedsim.jobs import DEDICATED, Job, RuntimeChange
from schedsim.machine import Machine
from schedsim.speedup import DowneySpeedup


class Scripted:
    """A policy whose ``schedule`` is a function of the view and its queue."""

    def __init__(self, decide: Callable[[EngineView, list[Job]], list]) -> None:
        self.decide = decide
        self.queue: list[Job] = []
        self.calls: list[float] = []
        self.events: list[tuple[str, int, float]] = []

    def submit(self, job: Job, view: EngineView) -> None:
        self.queue.append(job)
        self.events.append(("submit", job.id, view.now))

    def finish(self, job: Job, view: EngineView) -> None:
        self.events.append(("finish", job.id, view.now))

    def change(self, job: Job, view: EngineView) -> None:
        self.events.append(("change", job.id, view.now))

    def schedule(self, view: EngineView) -> list:
        self.calls.append(view.now)
        decisions = self.decide(view, self.queue)
        started = {d.job.index for d in decisions if isinstance(d, Start)}
        self.queue[:] = [j for j in self.queue if j.index not in started]
        return decisions


def greedy(size: Callable[[Job], int] = lambda j: j.procs) -> Scripted:
    def decide(view: EngineView, queue: list[Job]) -> list:
        free, out = view.free[0], []
        for job in queue:
            if size(job) <= free:
                out.append(Start(job, size(job)))
                free -= size(job)
        return out
    return Scripted(decide)


def test_equal_time_order_completions_then_arrivals_then_one_call() -> None:
    jobs = [Job(1, 0, 10, 4, 10), Job(2, 10, 5, 4, 5), Job(3, 10, 5, 2, 5)]
    policy = greedy()
    schedule = simulate(jobs, Machine(4), policy, check=True)
    assert policy.events[:4] == [("submit", 1, 0), ("finish", 1, 10), ("submit", 2, 10),
                                 ("submit", 3, 10)]
    assert policy.calls.count(10) == 1
    assert schedule.start == [0, 10, 15]


def test_invalid_decisions_raise_with_job_and_time() -> None:
    too_big = Scripted(lambda v, q: [Start(j, 5) for j in q])
    with pytest.raises(SimulationError, match=r"t=0.*job 1 needs 4 processors, got 5"):
        simulate([Job(1, 0, 10, 4, 10)], Machine(8), too_big)
    over = Scripted(lambda v, q: [Start(j, j.procs) for j in q])
    with pytest.raises(SimulationError, match="only 2 free"):
        simulate([Job(1, 0, 10, 6, 10), Job(2, 0, 10, 6, 10)], Machine(8), over)
    twice = Scripted(lambda v, q: [Start(q[0], 1), Start(q[0], 1)] if q else [])
    with pytest.raises(SimulationError, match="already running"):
        simulate([Job(1, 0, 10, 1, 10)], Machine(8), twice)


def test_jobs_never_started_are_reported() -> None:
    with pytest.raises(SimulationError, match="never started 1 job"):
        simulate([Job(1, 0, 10, 1, 10)], Machine(8), Scripted(lambda v, q: []))


def test_allocation_unit_is_enforced() -> None:
    machine = Machine(320, unit=32)
    jobs = [Job(1, 0, 10, 40, 10)]
    schedule = simulate(jobs, machine, greedy(lambda j: machine.round_up(j.procs)), check=True)
    assert schedule.procs == [64]
    with pytest.raises(SimulationError, match="multiple of the unit 32"):
        simulate([Job(1, 0, 10, 40, 10)], machine, greedy())


@dataclass(frozen=True)
class Linear:
    """Perfect speedup: T(n) = work / n."""

    work: float

    def runtime(self, procs: int) -> float:
        return self.work / procs


def test_moldable_job_runtime_comes_from_its_model() -> None:
    jobs = [Job(1, 0, 0, 8, 0, speedup=Linear(80))]
    schedule = simulate(jobs, Machine(8), greedy(lambda j: 4), check=True)
    assert (schedule.procs, schedule.end) == ([4], [20])


def test_dedicated_job_wakes_the_policy_at_its_requested_start() -> None:
    def decide(view: EngineView, queue: list[Job]) -> list:
        return [Start(j, j.procs) for j in queue if view.now >= (j.requested_start or 0)]
    policy = Scripted(decide)
    jobs = [Job(1, 0, 10, 2, 10, kind=DEDICATED, requested_start=500)]
    schedule = simulate(jobs, Machine(4), policy)
    assert schedule.start == [500]
    assert 500 in policy.calls


def test_policy_wake_up_decision() -> None:
    def decide(view: EngineView, queue: list[Job]) -> list:
        if view.now < 50:
            return [WakeUp(50)]
        return [Start(j, j.procs) for j in queue]
    schedule = simulate([Job(1, 0, 10, 2, 10)], Machine(4), Scripted(decide))
    assert schedule.start == [50]


def test_runtime_change_moves_a_running_jobs_end() -> None:
    jobs = [Job(1, 0, 100, 2, 100), Job(2, 0, 100, 2, 100)]
    changes = [RuntimeChange(50, 1, 30.0), RuntimeChange(50, 2, -70.0)]
    policy = greedy()
    schedule = simulate(jobs, Machine(4), policy, changes, check=True)
    assert schedule.end == [130, 50]
    assert ("change", 1, 50) in policy.events
    assert jobs[0].runtime == 100  # the caller's jobs are not mutated


def test_a_copied_job_has_every_field_and_is_its_own() -> None:
    """``copy.copy`` of a job (the engine's copies under elastic commands): every field's
    value, the speedup model shared, a new object; a subclass keeps its type and fields."""
    job = Job(7, 1.5, 20.0, 3, 30.0, kind=DEDICATED, requested_start=9.0,
              speedup=DowneySpeedup(20.0, 4.0, 1.0), work=60.0, user=2, group=3, app=4,
              queue=5, partition=6, index=8)
    clone = copy.copy(job)
    assert clone is not job
    assert [getattr(clone, f.name) for f in fields(Job)] == \
        [getattr(job, f.name) for f in fields(Job)]
    assert clone.speedup is job.speedup
    clone.runtime = 99.0
    assert job.runtime == 20.0

    @dataclass(slots=True, eq=False)
    class TaggedJob(Job):
        tag: str = ""

    tagged = copy.copy(TaggedJob(1, 0.0, 1.0, 1, 1.0, tag="mine"))
    assert type(tagged) is TaggedJob and tagged.tag == "mine"


def test_runtime_change_of_a_waiting_job() -> None:
    jobs = [Job(1, 0, 100, 4, 100), Job(2, 0, 100, 4, 100)]
    schedule = simulate(jobs, Machine(4), greedy(), [RuntimeChange(10, 2, 20.0)])
    assert schedule.start[1] == 100
    assert schedule.end[1] == 220
    assert schedule.jobs[1].estimate == 120


def test_partitions_are_separate() -> None:
    machine = Machine(8, partitions=(4, 4))

    def decide(view: EngineView, queue: list[Job]) -> list:
        out, free = [], list(view.free)
        for job in queue:
            for part, room in enumerate(free):
                if job.procs <= room:
                    out.append(Start(job, job.procs, part))
                    free[part] -= job.procs
                    break
        return out
    jobs = [Job(1, 0, 10, 3, 10), Job(2, 0, 10, 3, 10), Job(3, 0, 10, 2, 10)]
    schedule = simulate(jobs, machine, Scripted(decide), check=True)
    assert schedule.partition == [0, 1, 0]
    assert schedule.start == [0, 0, 10]


def test_heterogeneous_processors_set_the_runtime() -> None:
    machine = Machine(4, speeds=(1.0, 1.0, 2.0, 2.0))

    def decide(view: EngineView, queue: list[Job]) -> list:
        fast = [p for p in view.free_processors() if machine.speeds[p] == 2.0]
        return [Start(j, 2, 0, tuple(fast[:2])) for j in queue[:1]]
    jobs = [Job(1, 0, 0, 2, 0, work=120.0)]
    schedule = simulate(jobs, machine, Scripted(decide), check=True)
    assert schedule.end == [30.0]  # 120 BPU-s on speeds 2 + 2


def test_machine_rejects_bad_descriptions() -> None:
    with pytest.raises(InputError, match="unit"):
        Machine(100, unit=32)
    with pytest.raises(InputError, match="sum to 8"):
        Machine(8, partitions=(4, 3))
