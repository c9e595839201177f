"""MAP, HAP and IHAP (IHAP paper, eq. 2-8): hand-computed cases (partition sizes,
allocation, the cap Pmax in processors or BPUs, FCFS against FPFS, under either execution
model of the machine) and invariants."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedsim.engine import simulate
from schedsim.errors import InputError
from schedsim.jobs import Job
from schedsim.loadmodel import ScriptedLoads
from schedsim.machine import EQUAL_SPLIT, POOLED, Machine
from schedsim.policies.registry import make_policy

SMALL = Machine(4, speeds=(1.0, 1.0, 2.0, 2.0))
POOLED_SMALL = replace(SMALL, execution=POOLED)


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


@pytest.mark.parametrize("name, processors, pooled_end, split_end", [
    # PS 3: CP 1.6 + 1.4; pooled rate 3.0; split 15 each, 15 / 1.4 on processor 2
    ("IHAP", (2, 3), 10.0, 15 / 1.4),
    # PS 4: 1.6 + 1.4 + 1.0; pooled rate 4.0; split 10 each, 10 / 1.0 on processor 1
    ("HAP", (1, 2, 3), 7.5, 10.0),
    # PS 3 on w = (0.9, 1, 0.7, 0.8): all four; pooled rate 4.9; split 7.35 / 0.9
    ("MAP", (0, 1, 2, 3), 6.0, 7.35 / 0.9),
])
def test_allocation_on_a_loaded_heterogeneous_machine(name: str, processors: tuple[int, ...],
                                                      pooled_end: float,
                                                      split_end: float) -> None:
    """Spec case 2: speeds (1, 1, 2, 2), loads (10, 0, 30, 20)%, one job of Pmax 4 (the
    cap does not bind: either unit of Pmax gives these)."""
    job = work_job(1, 0.0, 4, {"IHAP": 30.0, "HAP": 30.0, "MAP": 29.4}[name])
    for machine, end in ((POOLED_SMALL, pooled_end), (SMALL, split_end)):
        loads = ScriptedLoads({0.0: (0.10, 0.0, 0.30, 0.20)})
        schedule = simulate([job], machine, make_policy(name, {}, machine), load_model=loads)
        assert schedule.processors[0] == processors
        assert schedule.end[0] == pytest.approx(end, abs=1e-9), machine.execution


# Four processors of 1 BPU, every one loaded 30% (CP 0.7): IHAP's N = 2.8, HAP's 4.
LOADED_FOUR = Machine(4, speeds=(1.0,) * 4)


def loaded_four(name: str, params: dict, jobs: list[Job]):  # type: ignore[no-untyped-def]
    return simulate(jobs, LOADED_FOUR, make_policy(name, params, LOADED_FOUR), check=True,
                    load_model=ScriptedLoads({0.0: (0.3,) * 4}))


@pytest.mark.parametrize("name, params, processors", [
    ("IHAP", {}, (0, 1)),                     # PS 2 (2.8 / 2 + 1/2): 2 processors = Pmax
    ("IHAP", {"pmax_unit": "bpus"}, (0, 1, 2)),  # tau min(2, 2) BPUs: 0.7 x 3 = 2.1
    ("HAP", {}, (0, 1)),                      # PS 3 (4 / 2 + 1/2): Pmax 2 reached first
    ("HAP", {"pmax_unit": "bpus"}, (0, 1, 2)),   # tau min(3, 2) = 2 BPUs: three processors
    ("MAP", {}, (0, 1)),                      # PS 3 processors' capacity: Pmax 2 first
])
def test_a_job_never_takes_more_than_pmax_processors(name: str, params: dict,
                                                     processors: tuple[int, ...]) -> None:
    """O3: Pmax 2, 14 BPU-s. In processors (the default) the job holds 2 processors and
    ends at 14 / 1.4 = 10; in BPUs it needs 2 BPUs of power, 3 loaded processors, and
    ends at 14 / 2.1 (either execution model: the processors are alike)."""
    schedule = loaded_four(name, params, [work_job(1, 0.0, 2, 14.0)])
    assert schedule.processors[0] == processors
    assert schedule.end[0] == pytest.approx(14.0 / (0.7 * len(processors)))


@pytest.mark.parametrize("params, start", [({}, 1.0), ({"pmax_unit": "bpus"}, 100 / 2.1)])
def test_a_job_fits_when_pmax_processors_are_idle(params: dict, start: float) -> None:
    """O3, the fit test: J1 (Pmax 2) holds processors 0 and 1 (in BPUs: 0, 1 and 2). At 1,
    J2 (Pmax 2, PS 2 = 2.8 / 2.5 + 1/2 rounded up) fits on the two idle processors, 1.4 BPU,
    because it can use no more than two; in BPUs it needs 2 BPUs and waits for J1's end."""
    jobs = [work_job(1, 0.0, 2, 100.0), work_job(2, 1.0, 2, 7.0)]
    schedule = loaded_four("IHAP", params, jobs)
    assert schedule.start[1] == pytest.approx(start)
    if not params:
        assert schedule.processors[1] == (2, 3)
        assert schedule.end[1] == pytest.approx(1.0 + 3.5 / 0.7)


def test_map_has_no_pmax_unit_to_choose() -> None:
    """MAP sizes in processors: "Pmax BPUs" does not apply to it."""
    with pytest.raises(InputError, match="pmax_unit"):
        make_policy("MAP", {"pmax_unit": "bpus"}, SMALL)


def fcfs_fpfs_jobs() -> list[Job]:
    return [work_job(1, 0.0, 2, 100.0), work_job(2, 1.0, 4, 4.0), work_job(3, 1.5, 4, 10.0),
            work_job(4, 1.6, 1, 1.0)]


BPU_CAP = {"pmax_unit": "bpus"}


def test_hap_serves_first_come_first_served() -> None:
    """Spec case 4 (Pmax in BPUs, pooled): J1 gets {2}; J2 gets {3, 0} (tau 3) and ends at
    2.333; J3 waits; HAP starts J4 only at 2.333, after J3."""
    schedule = simulate(fcfs_fpfs_jobs(), POOLED_SMALL,
                        make_policy("HAP", BPU_CAP, POOLED_SMALL), check=True)
    assert schedule.processors[0] == (2,) and schedule.processors[1] == (0, 3)
    assert schedule.end[1] == pytest.approx(1.0 + 4.0 / 3.0)
    assert schedule.start[2] == pytest.approx(1.0 + 4.0 / 3.0)
    assert schedule.start[3] == pytest.approx(1.0 + 4.0 / 3.0)


def test_ihap_passes_over_a_job_that_does_not_fit() -> None:
    """Spec case 4 (Pmax in BPUs, pooled): IHAP starts J4 at 1.6 on processor 1; its FCFS
    ablation does not."""
    ihap = simulate(fcfs_fpfs_jobs(), POOLED_SMALL, make_policy("IHAP", BPU_CAP, POOLED_SMALL),
                    check=True)
    assert ihap.start[3] == 1.6 and ihap.processors[3] == (1,)
    ablation = simulate(fcfs_fpfs_jobs(), POOLED_SMALL,
                        make_policy("IHAP-FCFS", BPU_CAP, POOLED_SMALL), check=True)
    assert ablation.start[3] == pytest.approx(1.0 + 4.0 / 3.0)


def default_jobs() -> list[Job]:
    return [work_job(1, 0.0, 1, 100.0), work_job(2, 1.0, 4, 12.0), work_job(3, 2.0, 4, 8.0),
            work_job(4, 3.0, 1, 3.0)]


@pytest.mark.parametrize("name, j4_start", [("HAP", 7.0), ("IHAP", 3.0)])
def test_fcfs_and_fpfs_under_the_defaults(name: str, j4_start: float) -> None:
    """Pmax in processors, equal split, speeds (1, 1, 2, 2), no load (N = 6). J1 (Pmax 1)
    gets {2} (PS 4, one processor); J2 (Pmax 4, 12 BPU-s) at 1: PS 3 (6 / 2.5 + 1/2
    rounded up), {3, 0}, tasks of 6 on speeds 2 and 1: ends at 1 + 6 = 7 (pooled: 5);
    J3 (Pmax 4) at 2: PS 3, one idle processor of 1 BPU: waits; J4 (Pmax 1) at 3: PS 2,
    one idle processor is its Pmax: IHAP starts it at 3 on {1}, HAP stops at J3 and starts
    J4 at 7, after J3 ({0, 3})."""
    schedule = simulate(default_jobs(), SMALL, make_policy(name, {}, SMALL), check=True)
    assert schedule.processors[0] == (2,) and schedule.processors[1] == (0, 3)
    assert schedule.end[1] == pytest.approx(7.0)
    assert schedule.start[3] == pytest.approx(j4_start)
    if name == "HAP":
        assert schedule.start[2] == pytest.approx(7.0) and schedule.processors[2] == (0, 3)
        assert schedule.processors[3] == (1,)
    else:
        assert schedule.processors[3] == (1,) and schedule.end[3] == pytest.approx(6.0)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 5.0), st.floats(0.1, 5.0)), min_size=1, max_size=30))
def test_one_processor_follows_the_lindley_recursion(gaps_and_demands) -> None:
    """Spec case 5: one processor, no load, Pmax 1: W(n+1) = max(0, W(n) + S(n) - A(n+1))."""
    submit, jobs = 0.0, []
    for number, (gap, demand) in enumerate(gaps_and_demands, start=1):
        submit += gap
        jobs.append(work_job(number, submit, 1, demand))
    machines = [Machine(1, speeds=(1.0,), execution=e) for e in (EQUAL_SPLIT, POOLED)]
    expected, wait = [], 0.0
    for i, job in enumerate(jobs):
        if i:
            wait = max(0.0, wait + jobs[i - 1].work - (job.submit - jobs[i - 1].submit))
        expected.append(wait)
    for name in ("MAP", "HAP", "IHAP"):
        for machine in machines:
            schedule = simulate(jobs, machine, make_policy(name, {}, machine), check=True)
            waits = [s - j.submit for s, j in zip(schedule.start, schedule.jobs, strict=True)]
            assert waits == pytest.approx(expected, abs=1e-9), (name, machine.execution)


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
    assert schedule.processors[0] == (2, 3)  # PS 4 BPUs: 2 + 2


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
