"""MAP, HAP and IHAP (IHAP paper, eq. 2-8): hand-computed cases of the IHAP spec,
section 5, and invariants."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.loadmodel import ScriptedLoads
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy

SMALL = Machine(4, speeds=(1.0, 1.0, 2.0, 2.0))


def ihap_machine() -> Machine:
    return Machine(64, speeds=(1.0,) * 32 + (2.0,) * 32)


def work_job(number: int, submit: float, pmax: int, demand: float) -> Job:
    """A job of ``demand`` BPU-seconds and maximum parallelism ``pmax``."""
    return Job(number, submit, demand, pmax, demand, work=demand)


@pytest.mark.parametrize("waiting, running, sizes", [
    (1, 0, (33, 49, 42)), (2, 1, (19, 28, 24)), (3, 4, (12, 17, 15)), (10, 10, (5, 7, 6)),
    (100, 20, (2, 2, 2)),
])
def test_partition_sizes_at_fifteen_percent(waiting: int, running: int,
                                            sizes: tuple[int, int, int]) -> None:
    """Spec case 1: f = 1/2, every load 15% (IHAP's N = 81.6)."""
    machine = ihap_machine()
    percents = [15] * 64
    for name, expected in zip(("MAP", "HAP", "IHAP"), sizes, strict=True):
        policy = make_policy(name, {}, machine)
        numerator = policy.numerator(percents)
        assert policy.partition_size(numerator, waiting, running) == expected, name
    assert make_policy("IHAP", {}, machine).numerator(percents) == Fraction(816, 10)


@pytest.mark.parametrize("name, waiting, running, size", [
    ("MAP", 1, 0, 65),   # 64 / 1 + 1/2 -> 65
    ("MAP", 2, 1, 27),   # 64 / (1 + 0.5 + 1) = 25.6, + 1/2 -> 27
    ("HAP", 2, 1, 39),   # 96 / 2.5 = 38.4, + 1/2 -> 39
])
def test_partition_size_without_the_sized_job(name: str, waiting: int, running: int,
                                              size: int) -> None:
    """O1 read the other way: W counts the other waiting jobs only."""
    machine = ihap_machine()
    policy = make_policy(name, {"sized_job_waits": False}, machine)
    assert policy.partition_size(policy.numerator([15] * 64), waiting, running) == size


@pytest.mark.parametrize("name, processors, end", [
    ("IHAP", (2, 3), 10.0),       # tau 3: CP 1.6 + 1.4, rate 3.0
    ("HAP", (1, 2, 3), 7.5),      # tau 4: 1.6 + 1.4 + 1.0, rate 4.0
    ("MAP", (0, 1, 2, 3), 6.0),   # tau 3 on w = (0.9, 1, 0.7, 0.8): all four, rate 4.9
])
def test_allocation_on_a_loaded_heterogeneous_machine(name: str, processors: tuple[int, ...],
                                                      end: float) -> None:
    """Spec case 2: speeds (1, 1, 2, 2), loads (10, 0, 30, 20)%, one job of Pmax 4."""
    loads = ScriptedLoads({0.0: (0.10, 0.0, 0.30, 0.20)})
    job = work_job(1, 0.0, 4, {"IHAP": 30.0, "HAP": 30.0, "MAP": 29.4}[name])
    schedule = simulate([job], SMALL, make_policy(name, {}, SMALL), load_model=loads)
    assert schedule.processors[0] == processors
    assert schedule.end[0] == pytest.approx(end, abs=1e-9)


def fcfs_fpfs_jobs() -> list[Job]:
    return [work_job(1, 0.0, 2, 100.0), work_job(2, 1.0, 4, 4.0), work_job(3, 1.5, 4, 10.0),
            work_job(4, 1.6, 1, 1.0)]


def test_hap_serves_first_come_first_served() -> None:
    """Spec case 4: J1 gets {2}; J2 gets {3, 0} (tau 3) and ends at 2.333; J3 waits; HAP
    starts J4 only at 2.333, after J3."""
    schedule = simulate(fcfs_fpfs_jobs(), SMALL, make_policy("HAP", {}, SMALL), check=True)
    assert schedule.processors[0] == (2,) and schedule.processors[1] == (0, 3)
    assert schedule.end[1] == pytest.approx(1.0 + 4.0 / 3.0)
    assert schedule.start[2] == pytest.approx(1.0 + 4.0 / 3.0)
    assert schedule.start[3] == pytest.approx(1.0 + 4.0 / 3.0)


def test_ihap_passes_over_a_job_that_does_not_fit() -> None:
    """Spec case 4: IHAP starts J4 at 1.6 on processor 1; its FCFS ablation does not."""
    ihap = simulate(fcfs_fpfs_jobs(), SMALL, make_policy("IHAP", {}, SMALL), check=True)
    assert ihap.start[3] == 1.6 and ihap.processors[3] == (1,)
    ablation = simulate(fcfs_fpfs_jobs(), SMALL, make_policy("IHAP-FCFS", {}, SMALL),
                        check=True)
    assert ablation.start[3] == pytest.approx(1.0 + 4.0 / 3.0)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 5.0), st.floats(0.1, 5.0)), min_size=1, max_size=30))
def test_one_processor_follows_the_lindley_recursion(gaps_and_demands) -> None:
    """Spec case 5: one processor, no load, Pmax 1: W(n+1) = max(0, W(n) + S(n) - A(n+1))."""
    submit, jobs = 0.0, []
    for number, (gap, demand) in enumerate(gaps_and_demands, start=1):
        submit += gap
        jobs.append(work_job(number, submit, 1, demand))
    machine = Machine(1, speeds=(1.0,))
    expected, wait = [], 0.0
    for i, job in enumerate(jobs):
        if i:
            wait = max(0.0, wait + jobs[i - 1].work - (job.submit - jobs[i - 1].submit))
        expected.append(wait)
    for name in ("MAP", "HAP", "IHAP"):
        schedule = simulate(jobs, machine, make_policy(name, {}, machine), check=True)
        waits = [s - j.submit for s, j in zip(schedule.start, schedule.jobs, strict=True)]
        assert waits == pytest.approx(expected, abs=1e-9), name


def test_rounding_to_nearest_is_one_less_than_printed() -> None:
    machine = ihap_machine()
    printed = make_policy("MAP", {}, machine)
    nearest = make_policy("MAP", {"rounding": "nearest"}, machine)
    assert printed.partition_size(Fraction(64), 1, 0) == 33
    assert nearest.partition_size(Fraction(64), 1, 0) == 32
    assert nearest.partition_size(Fraction(1, 10), 5, 0) == 1


def test_nominal_capacity_counts_full_speeds() -> None:
    """O2: under capacity nominal HAP's fit ignores the loads: tau 4 on (1, 1, 2, 2) takes
    the two 2-BPU processors."""
    loads = ScriptedLoads({0.0: (0.10, 0.0, 0.30, 0.20)})
    schedule = simulate([work_job(1, 0.0, 4, 30.0)], SMALL,
                        make_policy("HAP", {"capacity": "nominal"}, SMALL), load_model=loads)
    assert schedule.processors[0] == (2, 3)


def test_batch_means_rows_follow_arrival_order() -> None:
    """One processor, jobs of 1 BPU-second every 2 s except a burst: 3 batches of 2 jobs,
    the first dropped; batch 2 = jobs 3, 4 and batch 3 = jobs 5, 6 (hand-computed)."""
    from schedsim.experiments.families.ihap_measure import MEASURE as BATCHES
    from schedsim.experiments.run import SeedWorkload, simulate_batches

    submits = [0.0, 2.0, 4.0, 4.0, 8.0, 10.0]  # job 4 waits 1 s behind job 3
    jobs = [work_job(i + 1, t, 1, 1.0) for i, t in enumerate(submits)]
    machine = Machine(1, speeds=(1.0,))
    rows = simulate_batches(SeedWorkload(jobs), machine, "IHAP", {}, None, (3, 2, 1), BATCHES)
    assert [r["batch"] for r in rows] == [2.0, 3.0]
    assert rows[0]["MRT"] == pytest.approx((1.0 + 2.0) / 2) and rows[0]["max_wait"] == 1.0
    assert rows[1]["MRT"] == pytest.approx(1.0) and rows[1]["AWT"] == 0.0
    assert rows[0]["power"] == pytest.approx(1.0)
    assert rows[0]["util_procs"] == pytest.approx(6.0 / 11.0)


def test_batch_means_need_enough_jobs() -> None:
    from schedsim.errors import InputError
    from schedsim.experiments.families.ihap_measure import MEASURE as BATCHES
    from schedsim.experiments.run import SeedWorkload, simulate_batches

    machine = Machine(1, speeds=(1.0,))
    with pytest.raises(InputError, match="batch means need 3 x 2 jobs; the workload has 1"):
        simulate_batches(SeedWorkload([work_job(1, 0.0, 1, 1.0)]), machine, "MAP", {}, None,
                         (3, 2, 1), BATCHES)


def test_a_family_level_sets_the_interval(tmp_path) -> None:
    """Tables of a batch-means family use its level (the IHAP paper's 90%)."""
    from schedsim.aggregate import aggregate_runs
    from schedsim.experiments.run import write_rows_parquet
    from schedsim.experiments.spec import FigureSpec, TargetSpec
    from schedsim.stats import mean_ci

    values = [1.0, 2.0, 4.0, 3.0]
    rows = [{"target": "T", "policy": "IHAP", "point": "p", "variant": "v", "seed": i + 1,
             "MRT": v} for i, v in enumerate(values)]
    path = tmp_path / "run.parquet"
    write_rows_parquet(rows, path, {})
    for level in (0.90, 0.95):
        spec = TargetSpec("ihap", "T", "sweep", FigureSpec("sweep"), policies=("IHAP",),
                          variants=("v",), variant_labels={"v": {}}, metrics=("MRT",),
                          group_by=("policy", "variant"), level=level)
        table, _ = aggregate_runs(spec, [str(path)])
        assert table["MRT_ci_half"].iloc[0] == pytest.approx(mean_ci(values, level).half_width)
