"""The compiled whole runs of the SLACK policies (schedsim.policies.slack_whole) against the
engine calling ScojoPECT or SlackBackfill: the same schedule (starts, ends, segments,
allocations) and the same fairness and search statistics, for every selection and
open-point setting."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.jobs import Job, RuntimeChange
from schedsim.machine import Machine
from schedsim.policies.profile import Profile
from schedsim.policies.registry import make_policy
from schedsim.policies.slack_whole import _holding
from schedsim.workloads.lublin import generate_lublin

MACHINE = Machine(8)


@st.composite
def workloads(draw: st.DrawFn) -> list[Job]:
    """Arrivals close together and far apart, every class, exact and inexact estimates
    (over- and underestimates), zero-length jobs, several jobs at one instant."""
    out, submit = [], 0.0
    for number in range(1, draw(st.integers(1, 30)) + 1):
        # steps that land on slice boundaries (600, 1080, 1500, 1800, 3600 ...) too
        submit += draw(st.sampled_from([0, 0, 10, 60, 300, 480, 600, 900, 1_080, 3_600]))
        runtime = float(draw(st.sampled_from([0, 50, 200, 599, 900, 2_000, 5_000, 12_000])))
        estimate = runtime * draw(st.sampled_from([1.0, 1.0, 2.0, 0.5]))
        out.append(Job(number, submit, runtime, draw(st.integers(1, 8)), estimate))
    return out


SETTINGS = st.fixed_dictionaries({
    "nontype": st.sampled_from(["all", "short", "none"]),
    "short_slice": st.sampled_from([600.0, 300.0]),
    "medium_share": st.sampled_from([0.3, 0.5]),
})
SLACK_SETTINGS = st.fixed_dictionaries({
    "goal": st.sampled_from(["G1", "G2"]),
    "fst": st.sampled_from(["fcfs", "conservative"]),
    "lookahead": st.integers(1, 6),
    "slack_up": st.sampled_from([1.0, 1.5]),
    "max_nodes": st.sampled_from([3, 5000]),
})


def both(jobs: list[Job], name: str, params: dict[str, Any],
         machine: Machine = MACHINE) -> tuple[Any, Any, Any, Any]:
    """(engine schedule, its policy, whole-run schedule, its policy)."""
    engine_policy = make_policy(name, params, machine)
    engine_policy.whole_run = False
    expected = simulate([copy.copy(j) for j in jobs], machine, engine_policy, check=True)
    whole_policy = make_policy(name, params, machine)
    assert whole_policy.simulate_whole is not None
    got = simulate([copy.copy(j) for j in jobs], machine, whole_policy, check=True)
    return expected, engine_policy, got, whole_policy


def assert_same(expected: Any, engine_policy: Any, got: Any, whole_policy: Any) -> None:
    assert got.start == expected.start
    assert got.end == expected.end
    assert got.procs == expected.procs
    assert got.split == expected.split
    assert whole_policy.run_statistics() == engine_policy.run_statistics()
    assert getattr(whole_policy, "class_of", None) == getattr(engine_policy, "class_of", None)


@settings(max_examples=150, deadline=None)
@given(jobs=workloads(), params=SETTINGS)
def test_scojo_conservative_whole_run_equals_the_engine(jobs: list[Job],
                                                        params: dict[str, Any]) -> None:
    assert_same(*both(jobs, "scojo-conservative", params))


@settings(max_examples=150, deadline=None)
@given(jobs=workloads(), params=SETTINGS, slack=SLACK_SETTINGS)
def test_scojo_slack_whole_run_equals_the_engine(jobs: list[Job], params: dict[str, Any],
                                                 slack: dict[str, Any]) -> None:
    expected, engine_policy, got, whole_policy = both(jobs, "scojo-slack",
                                                      {**params, **slack})
    assert_same(expected, engine_policy, got, whole_policy)
    for engine_selector, whole_selector in zip(engine_policy.selectors,
                                               whole_policy.selectors, strict=True):
        assert whole_selector.fair_start == engine_selector.fair_start
        assert whole_selector.calls == engine_selector.calls
    assert whole_policy.started == engine_policy.started


@settings(max_examples=150, deadline=None)
@given(jobs=workloads(), slack=SLACK_SETTINGS)
def test_slack_backfill_whole_run_equals_the_engine(jobs: list[Job],
                                                    slack: dict[str, Any]) -> None:
    expected, engine_policy, got, whole_policy = both(jobs, "slack-backfill", slack)
    assert_same(expected, engine_policy, got, whole_policy)
    assert whole_policy.fair_start == engine_policy.fair_start
    assert whole_policy.started == engine_policy.started
    assert whole_policy.selector.calls == engine_policy.selector.calls


@pytest.mark.parametrize("name, params", [
    ("scojo-conservative", {}), ("scojo-conservative", {"nontype": "short"}),
    ("scojo-slack", {}), ("scojo-slack", {"goal": "G2", "nontype": "none"}),
    ("scojo-slack", {"fst": "conservative", "lookahead": 30}),
    ("slack-backfill", {}), ("slack-backfill", {"goal": "G2", "fst": "conservative"}),
])
def test_a_paper_like_workload_gives_the_engine_schedule(name: str,
                                                         params: dict[str, Any]) -> None:
    """1,500 typeless Lublin99 jobs on 128 processors at W1's load: long queues, every
    class, thousands of suspensions."""
    jobs = [Job(j.job_id, float(j.submit), float(j.runtime), j.nodes, float(j.runtime))
            for j in generate_lublin(1_500, 71, typed=False, aarr=10.23, arar=1.0)]
    expected, engine_policy, got, whole_policy = both(jobs, name, params, Machine(128))
    assert len(expected.split) > 100 or name == "slack-backfill"
    assert_same(expected, engine_policy, got, whole_policy)


def test_runs_the_kernel_does_not_model_go_through_the_engine() -> None:
    jobs = [Job(1, 0.0, 100.0, 2, 100.0), Job(2, 5.0, 50.0, 3, 50.0)]
    policy = make_policy("scojo-slack", {}, MACHINE)
    assert policy.simulate_whole(jobs) is not None
    worked = [Job(1, 0.0, 100.0, 2, 100.0, work=200.0)]
    assert make_policy("scojo-slack", {}, MACHINE).simulate_whole(worked) is None
    wide = [Job(1, 0.0, 100.0, 9, 100.0)]
    for name in ("scojo-slack", "slack-backfill"):
        assert make_policy(name, {}, MACHINE).simulate_whole(worked) is None
        assert make_policy(name, {}, MACHINE).simulate_whole(wide) is None
        assert make_policy(name, {}, Machine(8, partitions=(4, 4))).simulate_whole(jobs) is None
    # elastic commands: the engine runs it (and the policy watched every call)
    policy = make_policy("scojo-conservative", {}, MACHINE)
    schedule = simulate([copy.copy(j) for j in jobs], MACHINE, policy,
                        [RuntimeChange(10.0, 1, 20.0)], check=True)
    assert schedule.end[0] == 120.0 and policy.has_short


@settings(max_examples=150, deadline=None)
@given(ends=st.lists(st.tuples(st.sampled_from([90.0, 100.0, 105.0, 130.0, 250.0]),
                               st.integers(1, 4)), max_size=8))
def test_the_compiled_profile_of_running_jobs_equals_profile_holding(
        ends: list[tuple[float, int]]) -> None:
    expected = Profile.holding(100.0, 16, ends)
    times, free, n = _holding(100.0, 16, np.array([e for e, _ in ends] or [0.0]),
                              np.array([p for _, p in ends] or [0], np.int64), len(ends))
    assert (times[:n].tolist(), free[:n].tolist()) == (expected.times, expected.free)
