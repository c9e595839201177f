"""Scojo-PECT time slicing (Jin 2009, sec. 4.4): single-job timelines computed by hand, the
calendar, and invariants of sliced schedules."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import Phase, given, settings
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


@pytest.mark.parametrize("name, b_start", [("scojo-conservative", 2_000.0),
                                            ("scojo-slack", 3_600.0)])
def test_a_due_job_is_judged_from_the_plan_its_class_keeps(name: str, b_start: float) -> None:
    """Medium jobs A (8 processors, 2,000 s) and B (8, 900 s) at 0: the medium plan holds
    A at medium time 0 and B at 2,000. A runs in the medium slice [0, 1,080), is resumed
    in the long slice (non-type backfilling) and ends at 2,000 with the medium clock
    still at 1,080. Conservative selection compresses its reservations: B's slot moves to
    1,080, the medium clock, so B is due and starts at 2,000 in the long slice. Slack
    selection keeps the placement it committed: B's slot stays at medium time 2,000, not
    now, so B waits for the next medium slice (3,600)."""
    schedule, _ = run([job(1, 0, 8, 2_000), job(2, 0, 8, 900)], name)
    assert schedule.start == [0.0, b_start]
    assert schedule.end[0] == 2_000


@pytest.mark.parametrize("selection, starts", [("first_fit", [1_100.0, 1_100.0, 1_200.0]),
                                               ("slack", [1_200.0, 1_100.0, 1_100.0])])
def test_non_type_backfilling_by_slack_packs_the_slice(selection: str,
                                                       starts: list[float]) -> None:
    """Three short jobs of 5, 2 and 6 processors (100 s) arrive at 1,100 in the long slice
    (no short slice: none waited at 0) of an idle machine of 8. First fit in arrival
    order starts 5 + 2; slack-based non-type backfilling (no long job to delay, so every
    set passes with no unfairness) starts the set that fills the slice, 2 + 6, under
    either goal."""
    jobs = [job(1, 1_100, 5, 100), job(2, 1_100, 2, 100), job(3, 1_100, 6, 100)]
    for goal in ("G1", "G2"):
        schedule, _ = run(jobs, "scojo-slack", nontype_selection=selection, goal=goal)
        assert schedule.start == starts


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


@st.composite
def large_workloads(draw: st.DrawFn) -> list[Job]:
    """Up to 150 jobs of every class on 16 processors in bursts and lulls: long queues
    in each class, many suspensions, due jobs and non-type starts."""
    out, submit = [], 0.0
    for number in range(1, draw(st.integers(40, 150)) + 1):
        submit += draw(st.sampled_from([0, 0, 20, 90, 400, 1_500]))
        runtime = draw(st.sampled_from([30, 200, 599, 900, 2_500, 7_000, 11_000, 25_000]))
        procs = draw(st.sampled_from([1, 1, 2, 3, 4, 6, 8, 12, 16]))
        out.append(Job(number, submit, float(runtime), procs, float(runtime)))
    return out


def audit_module():  # type: ignore[no-untyped-def]
    """``scripts/audit_scojo_plans.py``, which watches the reference policy's plans."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "audit_scojo_plans.py"
    spec = importlib.util.spec_from_file_location("audit_scojo_plans", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


AUDIT = audit_module()


# A case the property below found (submit/run time/processors per job, numbered from 1,
# exact estimates): after a slack-based non-type backfilling of another class's slice
# keeps class 1's re-placed plan, job 42's slot there is the class's now; nothing starts
# it, and at the next call the selection finds no passing set and its fallback drops
# the slot as past ("a past slot is no reservation"), placing job 42 6,880 s of class
# time past its bound. Known and not fixed: which reading of Jin 2009 (sec. 4.3-4.4)
# should keep the slot changes SLACK's results. strict: a fix makes this test fail
# until the mark goes. The random property below finds the same fault with fst: fcfs too.
PAST_BOUND_CASE = (
    "0/11000/3 90/30/1 180/7000/16 270/11000/1 360/30/2 360/30/12 360/900/16 "
    "360/900/2 360/2500/8 360/2500/8 450/25000/12 1950/7000/6 1950/30/1 1950/2500/16 "
    "2040/30/1 3540/30/1 3540/30/1 5040/30/12 5040/25000/12 5440/30/1 5440/900/1 "
    "6940/11000/16 6940/30/1 8440/900/3 8440/30/4 8440/2500/16 8440/30/1 8440/599/1 "
    "8440/900/1 8440/25000/1 9940/2500/6 9940/25000/4 9940/30/1 9940/30/1 9940/30/1 "
    "10030/30/1 10030/30/1 11530/30/1 11530/30/1 11530/30/1 11530/30/1 11530/900/3 "
    "11530/30/1 11530/30/1 11530/30/1 11530/30/1 13030/30/1 13030/30/1 13030/30/12 "
    "14530/30/1 14530/30/1 14530/30/1 16030/30/1 16030/30/1 16030/30/1 16030/30/1 "
    "16030/30/1 16030/30/1 16430/30/1 16430/30/1 16430/200/1 16430/599/1 16430/900/1 "
    "16430/7000/1 16430/11000/1 17930/30/6 18330/30/1 19830/30/1 19830/30/1 "
    "19830/30/1 19830/30/1 19830/30/1 19830/30/1 20230/30/1 20230/30/1 20230/30/1 "
    "20230/30/1 20230/30/1 20230/30/1 20230/30/1 20630/30/1 20630/30/1 20630/30/1 "
    "20720/30/1 21120/30/1 21210/30/1 21210/599/1 21210/900/1 21610/2500/8 "
    "21610/2500/1 21610/30/1 21610/30/1 21610/30/1 21610/11000/1 21610/599/6 "
    "21610/30/1 21610/599/12 21610/30/1 21610/30/1 21610/30/1 21610/30/1 21610/30/1 "
    "21610/30/1 21610/30/4 21610/30/6 21610/30/16 21610/599/6 21610/599/1 21610/30/1 "
    "21610/900/8 21610/30/1 21610/30/1 21610/30/1 21610/30/1 21610/30/1 21610/30/1 "
    "21610/30/1 21610/30/1 21610/30/1 21610/30/1 21610/30/1 21610/30/1 21610/30/1 "
    "21610/30/1 21610/30/1 21610/30/1 21610/30/1 21610/30/1 21610/30/1 21610/30/1 "
    "21610/30/1 21610/30/1 21610/30/1 "
)


@pytest.mark.xfail(strict=True, reason="a job past its start bound after a non-type "
                   "backfilling re-placed its class's plan (the comment above)")
def test_a_kept_slot_at_now_is_not_dropped_as_past() -> None:
    jobs = [Job(number, float(submit), float(runtime), int(procs), float(runtime))
            for number, (submit, runtime, procs) in enumerate(
                (item.split("/") for item in PAST_BOUND_CASE.split()), start=1)]
    got = AUDIT.audit(jobs, Machine(16), {"goal": "G1", "fst": "conservative",
                                          "nontype": "all", "nontype_selection": "slack",
                                          "lookahead": 3})
    assert got.beyond_bound == 0, got


def _audit_large(jobs: list[Job], goal: str, fst: str, nontype: str, selection: str,
                 lookahead: int) -> None:
    got = AUDIT.audit(jobs, Machine(16), {"goal": goal, "fst": fst, "nontype": nontype,
                                          "nontype_selection": selection,
                                          "lookahead": lookahead})
    assert (got.not_due, got.beyond_bound) == (0, 0), got
    assert got.least_margin >= -1e-6


@settings(max_examples=25, deadline=None)
@given(jobs=large_workloads(), goal=st.sampled_from(["G1", "G2"]),
       fst=st.sampled_from(["fcfs", "conservative"]),
       nontype=st.sampled_from(["all", "all", "short"]), lookahead=st.sampled_from([3, 8]))
def test_large_workloads_start_due_jobs_by_the_kept_plan_within_the_bound(
        jobs: list[Job], goal: str, fst: str, nontype: str, lookahead: int) -> None:
    """Scojo-PECT with slack on workloads up to 150 jobs, watched from outside
    (``scripts/audit_scojo_plans.py``), non-type backfilling first fit: every due start
    is a job whose slot in its class's plan is now, and no job starts after submit +
    F_slack (FST - submit) in its class's time."""
    _audit_large(jobs, goal, fst, nontype, "first_fit", lookahead)


@pytest.mark.xfail(strict=False, reason="the known fault of the strict xfail above: a slot "
                   "at now that a non-type backfilling by slack kept is dropped as past; "
                   "found here with either fair start (docs/deviations-slack.md)")
@settings(max_examples=25, deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # no minutes of shrinking
@given(jobs=large_workloads(), goal=st.sampled_from(["G1", "G2"]),
       fst=st.sampled_from(["fcfs", "conservative"]),
       nontype=st.sampled_from(["all", "all", "short"]), lookahead=st.sampled_from([3, 8]))
def test_large_workloads_with_nontype_backfilling_by_slack(
        jobs: list[Job], goal: str, fst: str, nontype: str, lookahead: int) -> None:
    """The property above with non-type backfilling by slack (the default), which the
    known fault fails now and then: in a fresh clone's test run (fst conservative) and,
    with that fair start left out, in 1 of 30 seeds (fst fcfs), both with ``nontype:
    all`` and look-ahead 3."""
    _audit_large(jobs, goal, fst, nontype, "slack", lookahead)


def test_the_audit_script_prints_its_table() -> None:
    """The script's own run on a W1 cut (a few hundred jobs): a row, exit code 0."""
    lines: list[str] = []
    assert AUDIT.main(["--jobs", "300", "--seeds", "71", "--goals", "G2", "--fst",
                       "conservative"], out=lines.append) == 0
    assert len(lines) == 3 and lines[2].startswith("| 71 | G2 | conservative | 300 |")


def test_the_audit_script_reports_the_compiled_runs_bound(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--compiled-only`` on a W1 cut: the bound held, exit code 0; with the tolerance
    made -1e12 s every start is past its bound: the row says so, exit code 1."""
    from schedsim.policies import slack as slack_module

    def table() -> tuple[int, list[str]]:
        lines: list[str] = []
        code = AUDIT.main(["--compiled-only", "--jobs", "300", "--seeds", "71", "--goals",
                           "G1", "--fst", "fcfs"], out=lines.append)
        return code, lines

    code, lines = table()
    assert code == 0 and lines[2].startswith("| 71 | G1 | fcfs | 300 | held |")
    monkeypatch.setattr(slack_module, "FAIRNESS_TOLERANCE", -1e12)
    code, lines = table()
    assert code == 1 and "| broken: 300 job(s) past the bound |" in lines[2]
