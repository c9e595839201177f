"""Slack-based fair backfilling on a plain machine (Jin 2009, sec. 4.3): the slack formulas,
hand-computed schedules, the branch and bound against brute force, and invariants."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies import slack as slack_module
from schedsim.policies.registry import make_policy
from schedsim.policies.slack import (
    SlackSettings,
    part_slack,
    past_bound,
    slack_factor,
)

TABLE3 = SlackSettings()


def job(number: int, submit: float, procs: int, runtime: float) -> Job:
    return Job(number, submit, runtime, procs, runtime)


def starts(jobs: list[Job], procs: int, **params: object) -> list[float]:
    machine = Machine(procs)
    schedule = simulate(jobs, machine, make_policy("slack-backfill", params, machine),
                        check=True)
    return list(schedule.start)


# -- formulas (eq. 5 and 7) ---------------------------------------------------------------


def test_slack_factor_and_its_part() -> None:
    assert slack_factor(10_000, TABLE3) == pytest.approx(1.4426, abs=5e-5)
    assert slack_factor(0, SlackSettings(slack_up=2.0)) == pytest.approx(1.6)
    # Fig. 6: 1.50 at 5,000 s (capped), 1.2155 at 65,000 s, 1.2008 at 125,000 s
    assert slack_factor(5_000, TABLE3) == 1.5
    assert slack_factor(65_000, TABLE3) == pytest.approx(1.2155, abs=5e-5)
    assert slack_factor(125_000, TABLE3) == pytest.approx(1.2008, abs=5e-5)
    for waited, expected in ((0, 1.1), (10_000, 1.2236), (30_000, 1.3472)):
        assert part_slack(waited, 20_000, TABLE3) == pytest.approx(expected, abs=5e-5)
    assert part_slack(50, 0, TABLE3) == 1.0  # predicted to start at once: no slack


# -- hand-computed schedules ----------------------------------------------------------------


@pytest.mark.parametrize("b_submit, b_runtime, a_start, b_start", [
    (0, 105, 105, 0),      # A's bound at 0 is 110: B may delay it to 105
    (0, 115, 100, 200),    # ... not to 115: B is refused and waits for A
    (50, 75, 125, 50),     # at 50 the bound is 130 (F_part 1.3): A to 125 is allowed
    (50, 85, 100, 200),    # ... A to 135 is not
])
def test_slack_admits_a_backfill_up_to_the_bound(b_submit: float, b_runtime: float,
                                                 a_start: float, b_start: float) -> None:
    """N = 4: R (2 processors) runs until 100; A (4, 100 s) has FST 100."""
    jobs = [job(1, 0, 2, 100), job(2, 0, 4, 100), job(3, b_submit, 2, b_runtime)]
    assert starts(jobs, 4, goal="G2")[1:] == [a_start, b_start]


@pytest.mark.parametrize("goal, started_at_zero", [("G1", 2), ("G2", 3)])
def test_goals_pick_different_sets(goal: str, started_at_zero: int) -> None:
    """N = 8: R (4) until 100; H (8) with bound 110; X (2, 50 s) delays no one; Y (4, 105 s)
    delays H to 105 (X and Y together do not fit). At time 0, G1 (least unfairness) starts
    X and G2 (utilization) starts Y."""
    jobs = [job(1, 0, 4, 100), job(2, 0, 8, 100), job(3, 0, 2, 50), job(4, 0, 4, 105)]
    result = starts(jobs, 8, goal=goal)
    assert [i for i in (2, 3) if result[i] == 0] == [started_at_zero]


def test_lookahead_one_never_reaches_the_second_waiting_job() -> None:
    jobs = [job(1, 0, 2, 100), job(2, 0, 4, 100), job(3, 0, 2, 105)]
    assert starts(jobs, 4, lookahead=1)[2] == 200
    assert starts(jobs, 4, lookahead=2)[2] == 0


# -- branch and bound against brute force -------------------------------------------------


def random_jobs(draw: st.DrawFn, count: int) -> list[Job]:
    out, submit = [], 0.0
    for number in range(1, count + 1):
        submit += draw(st.sampled_from([0, 0, 5, 20]))
        out.append(job(number, submit, draw(st.integers(1, 8)),
                       float(draw(st.integers(1, 12)) * 10)))
    return out


@st.composite
def workloads(draw: st.DrawFn, low: int = 3, high: int = 14) -> list[Job]:
    return random_jobs(draw, draw(st.integers(low, high)))


class Recorder:
    """Wraps a selector's search: at every call, the brute-force best set beside its own."""

    def __init__(self, selector) -> None:  # type: ignore[no-untyped-def]
        self.selector = selector
        self.mismatches: list[str] = []
        self.calls = 0
        self.original = selector.search
        selector.search = self.search

    def search(self, now, profile, free, waiting):  # type: ignore[no-untyped-def]
        found = self.original(now, profile, free, waiting)
        selector = self.selector
        window = waiting[:selector.settings.lookahead]
        best = None
        for count in range(1, len(window) + 1):
            for chosen in itertools.combinations(range(len(window)), count):
                if sum(selector.size(window[i]) for i in chosen) > free:
                    continue
                choice = selector.check(now, profile, free, waiting, chosen)
                if choice is not None and (best is None or selector._better(choice, best)):
                    best = choice
        self.calls += 1
        if (found and found.chosen) != (best and best.chosen):
            self.mismatches.append(f"t={now}: search {found and found.chosen}, "
                                   f"brute force {best and best.chosen}")
        return found


@settings(max_examples=60, deadline=None)
@given(jobs=workloads(), goal=st.sampled_from(["G1", "G2"]), lookahead=st.integers(1, 10))
def test_branch_and_bound_equals_brute_force(jobs: list[Job], goal: str, lookahead: int) -> None:
    machine = Machine(8)
    policy = make_policy("slack-backfill", {"goal": goal, "lookahead": lookahead,
                                            "compiled": False}, machine)
    recorder = Recorder(policy.selector)
    simulate(jobs, machine, policy, check=True)
    assert not recorder.mismatches, recorder.mismatches[:3]


# -- invariants -------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(jobs=workloads(3, 25), goal=st.sampled_from(["G1", "G2"]),
       fst=st.sampled_from(["fcfs", "conservative"]))
def test_no_job_starts_after_its_full_slack(jobs: list[Job], goal: str, fst: str) -> None:
    """Every job starts by submit + F_slack (FST - submit); with SLACK_UP 1, by its FST.
    The engine's check: never more processors than exist, every job once, no start before
    submit; the same input gives the same schedule."""
    machine = Machine(8)
    for slack_up in (1.5, 1.0):
        params = {"goal": goal, "fst": fst, "slack_up": slack_up}
        # the Python policy in the engine keeps its fair starts for inspection
        policy = make_policy("slack-backfill", {**params, "compiled": False}, machine)
        schedule = simulate(jobs, machine, policy, check=True)
        for index, item in enumerate(jobs):
            fair = policy.fair_start[index]
            wait = fair - item.submit
            limit = item.submit + slack_factor(wait, policy.settings) * wait
            assert schedule.start[index] <= limit + 1e-9, (index, fair, slack_up)
        again = simulate(jobs, machine, make_policy("slack-backfill", params, machine))
        assert again.start == schedule.start


def test_fair_unfair_and_preferential_counts() -> None:
    """N = 4, the first case above: R starts at its FST 0 (fair), B at 0 before its FST 200
    (preferential), A at 105 after its FST 100 (unfair)."""
    from schedsim.metrics import start_fairness

    jobs = [job(1, 0, 2, 100), job(2, 0, 4, 100), job(3, 0, 2, 105)]
    machine = Machine(4)
    policy = make_policy("slack-backfill", {"goal": "G2", "compiled": False}, machine)
    schedule = simulate(jobs, machine, policy, check=True)
    fair = [policy.fair_start[i] for i in range(3)]
    assert fair == [0, 100, 200]
    assert start_fairness(schedule.start, fair) == {"unfair": 1, "preferential": 1, "fair": 1}


# -- the start bound (S3), checked by every run with exact estimates -----------------------


def test_the_start_bound_counts_the_late_jobs() -> None:
    """Submit 0, FST 100, F_slack 1.5: the bound is 150. A start at 150 (or within the
    tolerance of 1e-6 s) is in time; at 150.01 it is past the bound."""
    fair, submitted, full = np.array([100.0, 100.0]), np.zeros(2), np.full(2, 1.5)
    assert past_bound(fair, np.array([150.0, 150.0 + 1e-7]), submitted, full) == \
        {"past_bound": 0.0}
    assert past_bound(fair, np.array([150.0, 150.01]), submitted, full) == {"past_bound": 1.0}


@pytest.mark.parametrize("policy", ["slack-backfill", "scojo-slack"])
@pytest.mark.parametrize("compiled", [True, False])
def test_a_run_counts_the_jobs_past_the_bound(policy: str, compiled: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """With the tolerance made -1e12 s every start is past its bound: a run with exact
    estimates counts both jobs (the engine's and the compiled path alike), none at the
    real tolerance; with estimates that are not the run times the bound is not promised
    and not counted."""
    machine = Machine(8)
    exact = [job(1, 0, 4, 100), job(2, 10, 8, 50)]
    made = make_policy(policy, {"compiled": compiled}, machine)
    assert simulate(exact, machine, made).statistics["past_bound"] == 0
    monkeypatch.setattr(slack_module, "FAIRNESS_TOLERANCE", -1e12)
    made = make_policy(policy, {"compiled": compiled}, machine)
    assert simulate(exact, machine, made).statistics["past_bound"] == 2
    inexact = [Job(1, 0, 100, 4, 200), Job(2, 10, 50, 8, 50)]
    made = make_policy(policy, {"compiled": compiled}, machine)
    schedule = simulate(inexact, machine, made)
    assert schedule.start == [0.0, 100.0] and "past_bound" not in schedule.statistics
