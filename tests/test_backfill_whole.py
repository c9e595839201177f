"""The compiled whole FCFS, EASY and conservative runs (schedsim.policies.backfill_whole)
against the engine calling the policies: the same starts, ends and allocations."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.backfill import EASY
from schedsim.policies.registry import NoSettings, make_policy


@st.composite
def workloads(draw: st.DrawFn) -> list[Job]:
    """Bursts and gaps, estimates exact, over and under the run time, zero run times."""
    out, submit = [], 0.0
    for number in range(1, draw(st.integers(1, 40)) + 1):
        submit += draw(st.sampled_from([0, 0, 1, 5, 30, 200]))
        runtime = float(draw(st.sampled_from([0, 1, 10, 25, 60, 300])))
        estimate = draw(st.sampled_from([runtime, runtime, 2 * runtime + 5, runtime / 2]))
        out.append(Job(number, submit, runtime, draw(st.integers(1, 16)), estimate))
    return out


def both(jobs: list[Job], name: str, machine: Machine) -> tuple[object, object]:
    engine = make_policy(name, {}, machine)
    engine.whole_run = False
    whole = make_policy(name, {}, machine)
    return (simulate([copy.copy(j) for j in jobs], machine, engine, check=True),
            simulate([copy.copy(j) for j in jobs], machine, whole, check=True))


@settings(max_examples=300, deadline=None)
@given(jobs=workloads(), name=st.sampled_from(["fcfs", "easy", "conservative"]),
       machine=st.sampled_from([Machine(16), Machine(24), Machine(32, unit=4)]))
def test_whole_runs_equal_the_engine(jobs: list[Job], name: str, machine: Machine) -> None:
    if name == "conservative":  # it assumes jobs of positive length that end by their
        # estimates (as SWF cleaning leaves them): otherwise the policy itself overcommits
        jobs = [Job(j.id, j.submit, max(j.runtime, 1.0), j.procs,
                    max(j.estimate, j.runtime, 1.0)) for j in jobs]
    expected, got = both(jobs, name, machine)
    assert (got.start, got.end, got.procs) == (expected.start, expected.end, expected.procs)


@pytest.mark.parametrize("name", ["fcfs", "easy", "conservative"])
def test_a_long_run_gives_the_engine_schedule(name: str) -> None:
    """3,000 jobs at a high load on 64 processors, estimates off by 2x either way: queues
    of hundreds, backfilling at most calls, jobs running past their estimates."""
    rng = np.random.default_rng(5)
    jobs = []
    submit = 0.0
    for number in range(1, 3_001):
        submit += float(rng.exponential(40.0))
        runtime = float(rng.integers(1, 4_000))
        estimate = runtime * float(rng.choice([0.5, 1.0, 1.0, 3.0] if name != "conservative"
                                              else [1.0, 1.0, 3.0]))
        jobs.append(Job(number, round(submit), runtime, int(rng.integers(1, 65)), estimate))
    expected, got = both(jobs, name, Machine(64))
    assert got.start == expected.start and got.end == expected.end


def test_a_subclass_or_a_partitioned_machine_goes_through_the_engine() -> None:
    class Watched(EASY):
        calls = 0

        def schedule(self, view):  # type: ignore[no-untyped-def]
            Watched.calls += 1
            return super().schedule(view)

    jobs = [Job(1, 0.0, 10.0, 2, 10.0), Job(2, 1.0, 5.0, 4, 5.0)]
    policy = Watched(NoSettings(), Machine(4))
    simulate(jobs, Machine(4), policy)
    assert Watched.calls > 0
    assert make_policy("easy", {}, Machine(4, partitions=(2, 2))).simulate_whole(jobs) is None
    assert make_policy("easy", {}, Machine(4)).simulate_whole(
        [Job(1, 0.0, 10.0, 5, 10.0)]) is None
