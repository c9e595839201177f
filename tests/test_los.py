"""LOS family: packing DPs, the paper's Fig. 2, reservations, skip counts, dedicated jobs.

LOS paper: Kumar, Shae & Jamjoom (IPDPSW 2012), sec. III-V, Algorithms 1-3.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import Decision, EngineView, Schedule, Start, simulate
from schedsim.errors import InputError
from schedsim.jobs import DEDICATED, Job, RuntimeChange
from schedsim.machine import Machine
from schedsim.policies.backfill import shadow_and_extra
from schedsim.policies.los import LOS, DelayedLOS, DelayedLOSSettings, LOSSettings
from schedsim.policies.los_dp import basic_dp, packing_dp, reservation_dp
from schedsim.policies.registry import all_policies, get_policy, make_policy

from conftest import trace_path

PAPER_NAMES = ("LOS", "Delayed-LOS", "Hybrid-LOS", "EASY-D", "LOS-D", "EASY-E", "LOS-E",
               "Delayed-LOS-E", "EASY-DE", "LOS-DE", "Hybrid-LOS-E")
DEDICATED_NAMES = ("EASY-D", "LOS-D", "Hybrid-LOS", "EASY-DE", "LOS-DE", "Hybrid-LOS-E")


def run(name: str, machine: Machine, jobs: Sequence[Job],
        changes: Sequence[RuntimeChange] = (), **params: object) -> Schedule:
    return simulate(jobs, machine, make_policy(name, params, machine), changes, check=True)


def start_of(schedule: Schedule, job_id: int) -> float:
    return next(s for j, s in zip(schedule.jobs, schedule.start, strict=True) if j.id == job_id)


# -- the DPs against brute force ----------------------------------------------

def brute_force(sizes: Sequence[int], capacity: int,
                freezes: Sequence[tuple[Sequence[int], int]]) -> list[int]:
    """Best set by enumeration; ties: leave out the latest candidates (prefer the head)."""
    best: tuple[int, tuple[int, ...]] | None = None
    chosen: list[int] = []
    for take in itertools.product((0, 1), repeat=len(sizes)):
        members = [i for i, t in enumerate(take) if t]
        if sum(sizes[i] for i in members) > capacity:
            continue
        if any(sum(frozen[i] for i in members) > limit for frozen, limit in freezes):
            continue
        key = (-sum(sizes[i] for i in members), tuple(reversed(take)))
        if best is None or key < best:
            best, chosen = key, members
    return chosen


@st.composite
def packing_problems(draw: st.DrawFn, freeze_count: int) -> tuple:
    sizes = draw(st.lists(st.integers(1, 12), max_size=9))
    capacity = draw(st.integers(0, 16))
    freezes = []
    for _ in range(freeze_count):
        held = draw(st.lists(st.booleans(), min_size=len(sizes), max_size=len(sizes)))
        frozen = [s if h else 0 for s, h in zip(sizes, held, strict=True)]
        freezes.append((frozen, draw(st.integers(0, 16))))
    return sizes, capacity, freezes


@settings(max_examples=300, deadline=None)
@given(packing_problems(0))
def test_basic_dp_matches_brute_force(problem: tuple) -> None:
    sizes, capacity, _ = problem
    assert basic_dp(sizes, capacity) == brute_force(sizes, capacity, [])


@settings(max_examples=300, deadline=None)
@given(packing_problems(1))
def test_reservation_dp_matches_brute_force(problem: tuple) -> None:
    sizes, capacity, freezes = problem
    (frozen, extra), = freezes
    assert reservation_dp(sizes, capacity, frozen, extra) == brute_force(sizes, capacity, freezes)


@settings(max_examples=200, deadline=None)
@given(packing_problems(2))
def test_two_freeze_dp_matches_brute_force(problem: tuple) -> None:
    sizes, capacity, freezes = problem
    assert packing_dp(sizes, capacity, freezes) == brute_force(sizes, capacity, freezes)


def test_dp_ties_prefer_jobs_nearer_the_head() -> None:
    assert basic_dp([3, 3, 3], 3) == [0]
    assert basic_dp([2, 1, 3], 3) == [0, 1]
    assert reservation_dp([4, 4], 4, [4, 0], 0) == [1]


# -- the paper's Fig. 2 ---------------------------------------------------------

@pytest.mark.parametrize(("machine", "scale"), [(Machine(10), 1), (Machine(320, 32), 32)])
def test_fig2_los_starts_the_head_delayed_los_the_rear_two(machine: Machine, scale: int) -> None:
    jobs = [Job(1, 0, 10, 7 * scale, 10), Job(2, 0, 10, 4 * scale, 10),
            Job(3, 0, 10, 6 * scale, 10)]
    assert run("LOS", machine, jobs).start == [0, 10, 10]
    assert run("Delayed-LOS", machine, jobs).start == [10, 0, 0]


def test_sizes_round_up_to_the_unit() -> None:
    machine = Machine(320, 32)
    jobs = [Job(1, 0, 10, 33, 10), Job(2, 0, 10, 200, 10), Job(3, 0, 10, 64, 10)]
    schedule = run("Delayed-LOS", machine, jobs)
    assert schedule.procs == [64, 224, 64]


# -- reservations and skip counts ---------------------------------------------

@st.composite
def batch_workloads(draw: st.DrawFn, procs: int = 10) -> list[Job]:
    jobs = []
    for number in range(1, draw(st.integers(1, 16)) + 1):
        runtime = draw(st.integers(1, 40))
        jobs.append(Job(number, draw(st.integers(0, 60)), runtime, draw(st.integers(1, procs)),
                        runtime + draw(st.integers(0, 30))))
    return jobs


class Recorder:
    """Wraps a policy; records the head, its size and the free processors at each call."""

    def __init__(self, policy: LOS) -> None:
        self.policy = policy
        self.calls: list[tuple[Job, bool, float, set[int]]] = []

    def submit(self, job: Job, view: EngineView) -> None:
        self.policy.submit(job, view)

    def finish(self, job: Job, view: EngineView) -> None:
        self.policy.finish(job, view)

    def change(self, job: Job, view: EngineView) -> None:
        self.policy.change(job, view)

    def schedule(self, view: EngineView) -> Iterable[Decision]:
        queue = self.policy.queue
        head = queue[0] if queue else None
        decisions = list(self.policy.schedule(view))
        if head is not None:
            free = view.free[0]
            fits = head.procs <= free
            shadow = view.now if fits else shadow_and_extra(
                view.now, free, view.running.values(), head.procs)[0]
            started = {d.job.index for d in decisions if isinstance(d, Start)}
            self.calls.append((head, fits, shadow, started))
        return decisions


@settings(max_examples=150, deadline=None)
@given(batch_workloads())
def test_los_never_delays_a_head_past_its_reservation(jobs: list[Job]) -> None:
    machine = Machine(10)
    recorder = Recorder(LOS(LOSSettings(), machine))
    schedule = simulate(jobs, machine, recorder, check=True)
    for head, fits, shadow, _ in recorder.calls:
        if not fits:
            assert schedule.start[head.index] <= shadow


@settings(max_examples=150, deadline=None)
@given(batch_workloads(), st.integers(0, 4))
def test_delayed_los_skips_a_fitting_head_at_most_c_s_times(jobs: list[Job], c_s: int) -> None:
    machine = Machine(10)
    recorder = Recorder(DelayedLOS(DelayedLOSSettings(c_s=c_s), machine))
    simulate(jobs, machine, recorder, check=True)
    skips: dict[int, int] = {}
    for head, fits, _, started in recorder.calls:
        if fits and head.index not in started:
            skips[head.index] = skips.get(head.index, 0) + 1
    assert all(count <= c_s for count in skips.values())


@pytest.mark.parametrize(("c_s", "head_start"), [(0, 0), (1, 10), (2, 20), (3, 30)])
def test_delayed_los_starts_the_head_after_c_s_skips(c_s: int, head_start: float) -> None:
    jobs = [Job(1, 0, 100, 7, 100)]
    for number, submit in enumerate((0, 10, 20), start=1):
        jobs += [Job(2 * number, submit, 10, 4, 10), Job(2 * number + 1, submit, 10, 6, 10)]
    schedule = run("Delayed-LOS", Machine(10), jobs, c_s=c_s)
    assert schedule.start[0] == head_start


@settings(max_examples=100, deadline=None)
@given(batch_workloads())
def test_delayed_los_with_c_s_zero_is_los(jobs: list[Job]) -> None:
    machine = Machine(10)
    assert run("Delayed-LOS", machine, jobs, c_s=0).start == run("LOS", machine, jobs).start


def test_lookahead_limits_the_window() -> None:
    jobs = [Job(1, 0, 100, 8, 100), Job(2, 0, 10, 10, 10), Job(3, 0, 10, 5, 10),
            Job(4, 0, 10, 2, 10)]
    assert start_of(run("LOS", Machine(10), jobs, lookahead=3), 4) == 0
    assert start_of(run("LOS", Machine(10), jobs, lookahead=2), 4) > 0
    assert start_of(run("LOS", Machine(10), jobs), 4) == 0  # default: the whole queue


@pytest.mark.parametrize(("head_rule", "starts"), [
    # paper (D1): A and B start, C (6) does not fit in 1 and is reserved at 10 (B ends);
    # D (2) does not fit now either.
    ("paper", [0, 0, 10, 20]),
    # note: A starts, then Basic_DP over B, C, D in 6 units packs C alone (6).
    ("note", [0, 10, 0, 20]),
    # literal (Algorithm 1, C_s = 0): one head per event: A at 0, B when A ends, ...
    ("literal", [0, 100, 110, 120]),
])
def test_los_head_rules(head_rule: str, starts: list[float]) -> None:
    jobs = [Job(1, 0, 100, 4, 100), Job(2, 0, 10, 5, 10), Job(3, 0, 10, 6, 10),
            Job(4, 0, 10, 2, 10)]
    schedule = run("LOS", Machine(10), jobs, head_rule=head_rule)
    assert [start_of(schedule, i) for i in (1, 2, 3, 4)] == starts


@pytest.mark.parametrize(("head_rule", "starts"), [
    ("paper", [0, 0, 10, 20]),       # with C_s = 0 every fitting head must start: as LOS
    ("literal", [0, 100, 110, 120]),  # Algorithm 1, lines 3-5: that head alone, per event
])
def test_delayed_los_head_rules(head_rule: str, starts: list[float]) -> None:
    jobs = [Job(1, 0, 100, 4, 100), Job(2, 0, 10, 5, 10), Job(3, 0, 10, 6, 10),
            Job(4, 0, 10, 2, 10)]
    schedule = run("Delayed-LOS", Machine(10), jobs, c_s=0, head_rule=head_rule)
    assert [start_of(schedule, i) for i in (1, 2, 3, 4)] == starts


# -- dedicated jobs ----------------------------------------------------------

def dedicated_scenario() -> list[Job]:
    """A (6) runs to 100; head H (10) waits; B (4) would backfill across D's start at 50.

    C (4) ends at 40, before D's requested start, so it may start at once.
    """
    return [Job(1, 0, 100, 6, 100), Job(2, 0, 50, 10, 50), Job(3, 0, 90, 4, 90),
            Job(4, 0, 40, 4, 40),
            Job(5, 0, 10, 4, 10, kind=DEDICATED, requested_start=50)]


@pytest.mark.parametrize("name", DEDICATED_NAMES)
def test_dedicated_job_with_enough_capacity_starts_on_time(name: str) -> None:
    schedule = run(name, Machine(10), dedicated_scenario())
    assert start_of(schedule, 5) == 50
    assert start_of(schedule, 4) == 0


@pytest.mark.parametrize("name", ["easy", "LOS", "Delayed-LOS"])
def test_batch_policies_delay_the_dedicated_job(name: str) -> None:
    assert start_of(run(name, Machine(10), dedicated_scenario()), 5) != 50


@st.composite
def hybrid_workloads(draw: st.DrawFn) -> tuple[list[Job], float]:
    requested = draw(st.integers(1, 200))
    jobs = [Job(1, 0, draw(st.integers(1, 40)), draw(st.integers(1, 10)), 40,
                kind=DEDICATED, requested_start=requested)]
    jobs += draw(batch_workloads())
    for number, job in enumerate(jobs[1:], start=2):
        job.id = number
    return jobs, requested


@settings(max_examples=150, deadline=None)
@given(hybrid_workloads())
def test_hybrid_los_starts_a_dedicated_job_on_time(case: tuple[list[Job], float]) -> None:
    jobs, requested = case
    schedule = run("Hybrid-LOS", Machine(10), jobs, c_s=10**6)
    assert start_of(schedule, 1) == requested


def test_hybrid_los_gives_a_due_dedicated_job_skip_count_c_s() -> None:
    """Algorithm 3: the moved job is not skipped, though 4 + 6 would pack better."""
    jobs = [Job(1, 0, 10, 7, 10, kind=DEDICATED, requested_start=10),
            Job(2, 10, 10, 4, 10), Job(3, 10, 10, 6, 10)]
    assert run("Hybrid-LOS", Machine(10), jobs).start == [10, 20, 20]


# -- elastic control commands -------------------------------------------------

ELASTIC_CASES = {
    # B (2) runs 150 by estimate, past the head's shadow time 100: it may not start
    # until a reduction at t=10 brings its estimate to 50.
    "reduce-waiting": ([Job(1, 0, 100, 8, 100), Job(2, 1, 10, 10, 10),
                        Job(3, 1, 50, 2, 150)], [RuntimeChange(10, 3, -100)]),
    # An extension of the running job A moves the shadow time from 100 to 200.
    "extend-running": ([Job(1, 0, 100, 8, 100), Job(2, 1, 10, 10, 10),
                        Job(3, 1, 120, 2, 120)], [RuntimeChange(10, 1, 100)]),
}


@pytest.mark.parametrize("case", sorted(ELASTIC_CASES))
@pytest.mark.parametrize("name", PAPER_NAMES)
def test_policies_replan_at_an_elastic_command(name: str, case: str) -> None:
    jobs, changes = ELASTIC_CASES[case]
    assert start_of(run(name, Machine(10), jobs, changes), 3) == 10
    assert start_of(run(name, Machine(10), jobs), 3) != 10


# -- every registered name -----------------------------------------------------

def random_workload(seed: int, count: int = 300) -> tuple[list[Job], list[RuntimeChange]]:
    """Jobs on 320 processors (units of 32), a third dedicated, with time commands."""
    rng = random.Random(seed)
    jobs: list[Job] = []
    changes: list[RuntimeChange] = []
    submit = 0.0
    for number in range(1, count + 1):
        submit += rng.expovariate(1 / 90)
        runtime = rng.uniform(5, 1500)
        estimate = runtime * rng.uniform(1, 3)
        procs = rng.randint(1, 320)
        if rng.random() < 0.3:
            start = submit + rng.expovariate(1 / 900)
            jobs.append(Job(number, submit, runtime, procs, estimate, kind=DEDICATED,
                            requested_start=start))
        else:
            jobs.append(Job(number, submit, runtime, procs, estimate))
        if rng.random() < 0.3:
            delta = rng.expovariate(1 / 300) * (1 if rng.random() < 2 / 3 else -1)
            changes.append(RuntimeChange(submit + rng.uniform(0, 2000), number, delta))
    return jobs, changes


def test_all_names_are_registered_with_their_parameters() -> None:
    policies = all_policies()
    for name in PAPER_NAMES:
        assert policies[name].family == "los"
        assert name.lower() not in policies  # one spelling per policy
    assert [s.name for s in get_policy("LOS").specs()] == ["lookahead", "head_rule"]
    specs = {s.name: s.default for s in get_policy("Hybrid-LOS").specs()}
    assert specs == {"lookahead": 0, "c_s": 7, "head_rule": "paper"}
    with pytest.raises(InputError):
        make_policy("Delayed-LOS", {"head_rule": "note"}, Machine(10))
    with pytest.raises(InputError):
        make_policy("Delayed-LOS", {"c_s": -1}, Machine(10))


@pytest.mark.parametrize("name", sorted(n for n, e in all_policies().items()
                                        if e.family == "los"))
def test_every_name_runs_a_random_workload(name: str) -> None:
    jobs, changes = random_workload(7)
    schedule = run(name, Machine(320, 32), jobs, changes)
    if name.upper() in {n.upper() for n in DEDICATED_NAMES}:
        for job, start in zip(schedule.jobs, schedule.start, strict=True):
            assert job.requested_start is None or start >= job.requested_start


def test_elastic_names_schedule_like_their_base() -> None:
    jobs, changes = random_workload(3)
    machine = Machine(320, 32)
    for name in ("EASY-D", "LOS", "Delayed-LOS", "LOS-D", "Hybrid-LOS"):
        elastic = f"{name}E" if name.endswith("-D") else f"{name}-E"
        assert run(name, machine, jobs, changes).start == \
            run(elastic, machine, jobs, changes).start


@pytest.mark.trace
def test_los_on_the_kth_log() -> None:
    from schedsim.workloads.load import load_workload

    workload = load_workload(trace_path("KTH-SP2-1996-2.swf.gz"))
    schedule = run("LOS", workload.machine, workload.jobs)
    assert len(schedule.start) == len(workload.jobs)
