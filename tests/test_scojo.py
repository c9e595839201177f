"""Scojo-PECT time slicing (Jin 2009, sec. 4.4): single-job timelines computed by hand, the
calendar, and invariants of sliced schedules."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import Start, simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy
from schedsim.policies.slack import slack_factor

MACHINE = Machine(8)


def job(number: int, submit: float, procs: int, runtime: float) -> Job:
    return Job(number, submit, runtime, procs, runtime)


def run(jobs: list[Job], policy_name: str = "scojo-conservative",
        **params: object):  # type: ignore[no-untyped-def]
    """The engine's run (its policy keeps the calendar for inspection), checked equal to
    the compiled whole run."""
    policy = make_policy(policy_name, {**params, "compiled": False}, MACHINE)
    schedule = simulate(jobs, MACHINE, policy, check=True)
    whole = simulate(jobs, MACHINE, make_policy(policy_name, params, MACHINE), check=True)
    assert (whole.start, whole.end, whole.split) == (schedule.start, schedule.end,
                                                     schedule.split)
    return schedule, policy


@pytest.mark.parametrize("nontype, end, segments", [("none", 10_440.0, 3), ("all", 7_200.0, 4)])
def test_a_long_job_alone(nontype: str, end: float, segments: int) -> None:
    """A long job (estimate 3 h, so long by its estimate) that runs 7,200 s. Long slices
    are [1080, 3600) of every hour: 2520 + 2520 + 2160 s end it at 10,440 (relative
    response 1.45); with non-type backfilling it also runs in the medium slices and ends
    at 7,200 in 4 segments."""
    schedule, _ = run([Job(1, 0, 7_200, 4, 10_800)], nontype=nontype)
    assert schedule.end[0] == pytest.approx(end)
    assert len(schedule.segments(0)) == segments


def test_a_medium_job_alone_without_nontype() -> None:
    """Medium slices [0, 1080), [3600, 4680), [7200, 8280): 1080 + 1080 + 840 s."""
    schedule, _ = run([job(1, 0, 4, 3_000)], nontype="none")
    assert schedule.end[0] == pytest.approx(8_040)


@pytest.mark.parametrize("submit, start", [(100, 100), (900, 1_080)])
def test_a_short_job_backfills_when_it_ends_inside_the_slice(submit: float,
                                                             start: float) -> None:
    """No short job at 0: no short slice; a short job of 300 s at 100 runs in the medium
    slice (ends 400); at 900 it would cross 1080, so it starts in the long slice."""
    schedule, _ = run([job(1, submit, 2, 300)])
    assert schedule.start[0] == start and schedule.end[0] == start + 300


def test_a_waiting_short_job_opens_the_interval_with_a_short_slice() -> None:
    _, policy = run([job(1, 0, 2, 300)])
    slices = [(p.klass, p.begin, p.end) for p in policy.slices(0)]
    assert slices == [(0, 0, 600), (1, 600, 1_500), (2, 1_500, 3_600)]
    assert [(p.klass, p.begin, p.end) for p in policy.slices(1)] == [(1, 3_600, 4_680),
                                                                      (2, 4_680, 7_200)]


@st.composite
def workloads(draw: st.DrawFn) -> list[Job]:
    out, submit = [], 0.0
    for number in range(1, draw(st.integers(1, 12)) + 1):
        submit += draw(st.sampled_from([0, 30, 400, 2_000]))
        runtime = draw(st.sampled_from([50, 300, 599, 1_200, 5_000, 12_000]))
        out.append(job(number, submit, draw(st.integers(1, 8)), float(runtime)))
    return out


@settings(max_examples=60, deadline=None)
@given(jobs=workloads(), nontype=st.sampled_from(["all", "short", "none"]),
       name=st.sampled_from(["scojo-conservative", "scojo-slack"]))
def test_sliced_schedules(jobs: list[Job], nontype: str, name: str) -> None:
    """Never more processors than exist across segments (the engine's check); a job's
    segments sum to its run time; no segment crosses a slice boundary; determinism; with
    slack selection, no job starts after submit + F_slack (FST - submit) in its class's
    time."""
    # the Python policy in the engine: the test watches the scheduling calls
    policy = make_policy(name, {"nontype": nontype, "compiled": False}, MACHINE)
    started_at: dict[int, float] = {}  # job -> its class's clock when it started
    schedule_call = policy.schedule

    def recording(view):  # type: ignore[no-untyped-def]
        decisions = schedule_call(view)
        for decision in decisions:
            if isinstance(decision, Start):
                started_at[decision.job.index] = policy.clock[policy.klass(decision.job)]
        return decisions

    policy.schedule = recording  # type: ignore[method-assign]
    schedule = simulate(jobs, MACHINE, policy, check=True)
    if policy.selectors is not None:
        for index, item in enumerate(jobs):
            selector = policy.selectors[policy.klass(item)]
            submitted, fair = selector.submitted[index], selector.fair_start[index]
            limit = submitted + slack_factor(fair - submitted, selector.settings) * (
                fair - submitted)
            assert started_at[index] <= limit + 1e-6, (index, started_at[index], limit)
    for index, item in enumerate(jobs):
        pieces = schedule.segments(index)
        assert sum(end - start for start, end in pieces) == pytest.approx(item.runtime)
        for start, end in pieces:
            slice_ = policy.slice_at(start)
            assert end <= slice_.end + 1e-6, (index, start, end, slice_)
    again, _ = run(jobs, name, nontype=nontype)
    assert again.start == schedule.start and again.end == schedule.end


@pytest.mark.parametrize("name", ["scojo-conservative", "scojo-slack"])
def test_single_job_timelines_do_not_depend_on_the_selection(name: str) -> None:
    schedule, _ = run([Job(1, 0, 7_200, 4, 10_800)], name, nontype="none")
    assert schedule.end[0] == pytest.approx(10_440)
    schedule, _ = run([job(1, 900, 2, 300)], name)
    assert schedule.start[0] == 1_080


def test_relative_response_per_class() -> None:
    """RR = response / max(run time of the segments, tau): the long job alone without
    non-type backfilling has RR 10,440 / 7,200 = 1.45; a 5 s short job arriving at 100
    runs at once and has RR 5 / 10 = 0.5 (tau 10 s) or 5 / 60 (tau 60 s)."""
    from schedsim.metrics import mean_by_group, relative_response

    jobs = [Job(1, 0, 7_200, 4, 10_800), job(2, 100, 1, 5)]
    schedule, policy = run(jobs, nontype="short")
    classes = ["long" if policy.klass(j) == 2 else "short" for j in jobs]
    ratios = relative_response(schedule, 10.0)
    assert list(ratios) == pytest.approx([10_440 / 7_200, 0.5])
    assert relative_response(schedule, 60.0)[1] == pytest.approx(5 / 60)
    means = mean_by_group(ratios, classes)
    assert means == pytest.approx({"long": 1.45, "short": 0.5, "all": (1.45 + 0.5) / 2})


@st.composite
def busy_workloads(draw: st.DrawFn) -> list[Job]:
    """Many jobs arriving close together: queues in every class, slots inside slices."""
    out, submit = [], 0.0
    for number in range(1, draw(st.integers(5, 30)) + 1):
        submit += draw(st.sampled_from([0, 10, 60, 300]))
        runtime = draw(st.sampled_from([50, 200, 500, 900, 2_000, 5_000, 12_000]))
        out.append(job(number, submit, draw(st.integers(1, 8)), float(runtime)))
    return out


@settings(max_examples=150, deadline=None)
@given(jobs=busy_workloads(), nontype=st.sampled_from(["all", "short", "none"]))
def test_conservative_never_moves_a_reservation_later(jobs: list[Job], nontype: str) -> None:
    """Scojo-PECT with conservative backfilling: a waiting job's slot in its class's
    virtual machine (class time) never moves later from one scheduling call to the next
    (exact estimates), whatever non-type backfilling starts in between."""
    # the Python policy in the engine: the test watches the scheduling calls
    policy = make_policy("scojo-conservative", {"nontype": nontype, "compiled": False},
                         MACHINE)
    planned: dict[int, list[float]] = {}
    place = policy._place_class

    def recording(c, profile, free, mine):  # type: ignore[no-untyped-def]
        starts, placed = place(c, profile, free, mine)
        for job_, start in zip(mine, starts, strict=True):
            planned.setdefault(job_.index, []).append(start)
        return starts, placed

    policy._place_class = recording  # type: ignore[method-assign]
    simulate(jobs, MACHINE, policy, check=True)
    for index, slots in planned.items():
        later = [(a, b) for a, b in itertools.pairwise(slots) if b > a + 1e-6]
        assert not later, (index, slots)
