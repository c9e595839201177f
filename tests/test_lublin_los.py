"""lublin-los: sizes, dedicated and elastic fractions, CWF output, load calibration."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from schedsim.errors import InputError
from schedsim.jobs import DEDICATED
from schedsim.workloads.base import get_model
from schedsim.workloads.cwf import iter_lines, read_cwf
from schedsim.workloads.lublin_los import (
    PAPER_MEAN_SIZES,
    expected_mean_size,
    find_barr_for_load,
    generate_los,
    mean_job_size,
    measure_load,
    offered_load,
)

N = 5000


@pytest.fixture(scope="module")
def workload():
    return generate_los(N, 11, pd=0.5)


def four_sigma(p: float, n: int) -> float:
    """Four standard deviations of a binomial fraction."""
    return 4 * (p * (1 - p) / n) ** 0.5


def test_sizes_are_multiples_of_32_up_to_320(workload) -> None:
    sizes = {job.procs for job in workload.jobs}
    assert sizes == {32 * k for k in range(1, 11)}


def test_small_fraction_close_to_ps(workload) -> None:
    small = sum(job.procs <= 96 for job in workload.jobs) / N
    assert abs(small - 0.5) < four_sigma(0.5, N)


def test_dedicated_fraction_and_start_times(workload) -> None:
    dedicated = [j for j in workload.jobs if j.kind == DEDICATED]
    assert abs(len(dedicated) / N - 0.5) < four_sigma(0.5, N)
    delays = [j.requested_start - j.submit for j in dedicated]
    assert min(delays) >= 1
    # Exp(3600): sd of the mean of n draws is 3600 / sqrt(n)
    assert abs(statistics.fmean(delays) - 3600) < 4 * 3600 / len(delays) ** 0.5
    assert all(j.requested_start is None for j in workload.jobs if j.kind != DEDICATED)


def test_command_fractions_amounts_and_times(workload) -> None:
    by_id = {job.id: job for job in workload.jobs}
    extensions = [c for c in workload.changes if c.delta > 0]
    reductions = [c for c in workload.changes if c.delta < 0]
    assert abs(len(extensions) / N - 0.2) < four_sigma(0.2, N)
    assert abs(len(reductions) / N - 0.1) < four_sigma(0.1, N)
    assert len({c.job_id for c in workload.changes}) == len(workload.changes)  # one per job
    for change in workload.changes:
        job = by_id[change.job_id]
        assert job.submit <= change.time < job.submit + job.runtime
    assert all(by_id[c.job_id].runtime + c.delta >= 1 for c in reductions)
    mean_ext = statistics.fmean(c.delta for c in extensions)
    assert abs(mean_ext - 1800) < 4 * 1800 / len(extensions) ** 0.5


def test_estimates_are_exact_runtimes(workload) -> None:
    assert all(job.estimate == job.runtime for job in workload.jobs)


def test_cwf_text_sorted_and_readable(tmp_path: Path) -> None:
    text = get_model("lublin-los").run(400, 3, {"pd": "0.3"})
    rows = list(iter_lines(text))
    times = [float(r[1]) for r in rows]
    assert times == sorted(times)
    assert all(len(r) == 21 for r in rows)
    path = tmp_path / "los.cwf"
    path.write_text(text)
    jobs, changes, header = read_cwf(path)
    again = generate_los(400, 3, pd=0.3)
    assert [(j.id, j.submit, j.runtime, j.procs, j.kind, j.requested_start) for j in jobs] == \
        [(j.id, j.submit, j.runtime, j.procs, j.kind, j.requested_start) for j in again.jobs]
    assert sorted(changes, key=lambda c: c.job_id) == sorted(again.changes,
                                                              key=lambda c: c.job_id)
    assert " MaxNodes: 320" in header.lines and len(rows) == 400 + len(changes)


def test_determinism() -> None:
    model = get_model("lublin-los")
    text = model.run(200, 4, {})
    assert model.run(200, 4, {}) == text
    assert model.run(200, 5, {}) != text


def test_common_random_numbers_across_knobs() -> None:
    """pd, pe, pr and barr change only their own part of the workload."""
    base = generate_los(300, 8)
    other = generate_los(300, 8, pd=0.9, pe=0.0, pr=0.5, barr=0.55)
    assert [(j.procs, j.runtime) for j in base.jobs] == [(j.procs, j.runtime) for j in other.jobs]
    assert [j.submit for j in base.jobs] != [j.submit for j in other.jobs]
    sizes_only = generate_los(300, 8, ps=0.9)
    assert [j.submit for j in sizes_only.jobs] == [j.submit for j in base.jobs]


def test_size_in_units_gives_shorter_jobs() -> None:
    processors = generate_los(2000, 2).jobs
    units = generate_los(2000, 2, p_size_unit="units").jobs
    assert statistics.median(j.runtime for j in units) < \
        statistics.median(j.runtime for j in processors) / 10


@pytest.mark.parametrize(("params", "message"), [
    ({"ps": "1.5"}, "parameter ps='1.5' is invalid; allowed: float in [0, 1]"),
    ({"barr": "3"}, "parameter barr='3' is invalid; allowed: float in [0.05, 2]"),
    ({"p_size_unit": "nodes"}, "allowed: one of processors, units"),
    ({"pe": "0.7", "pr": "0.4"}, "pe=0.7 + pr=0.4 > 1"),
    ({"large_max_units": "11"}, "jobs of up to 352 processors do not fit processors=320"),
    ({"small_min_units": "3", "small_max_units": "2"}, "small_min_units=3 > small_max_units=2"),
])
def test_bad_parameters(params: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        get_model("lublin-los").run(10, 1, params)
    assert message in str(err.value)


@pytest.mark.parametrize("target", [0.6, 0.9])
def test_find_barr_for_load_hits_target(target: float) -> None:
    seeds = (1, 2)
    barr = find_barr_for_load(target, ps=0.5, jobs=1000, seeds=seeds, tolerance=0.01)
    assert abs(measure_load(barr, 1000, seeds, ps=0.5) - target) <= 0.01
    # the same load measured on the generated workloads themselves
    loads = []
    for seed in seeds:
        jobs = generate_los(1000, seed, ps=0.5, barr=barr).jobs
        loads.append(offered_load([(j.procs, int(j.runtime)) for j in jobs],
                                  [int(j.submit) for j in jobs], 320))
    assert abs(sum(loads) / len(loads) - target) <= 0.01


def test_find_barr_for_load_range_check() -> None:
    with pytest.raises(InputError, match=r"allowed: float in \[0.5, 1\]"):
        find_barr_for_load(1.5)


@pytest.mark.parametrize("ps", sorted(PAPER_MEAN_SIZES))
def test_mean_size_matches_expectation(ps: float) -> None:
    measured = mean_job_size(ps, jobs=2000, seeds=(1, 2))
    # sd of one size <= 94 processors (mixture of U{1..3}x32 and U{4..10}x32)
    assert abs(measured - expected_mean_size(ps)) < 4 * 94 / 4000**0.5


def test_loads_into_the_simulator(tmp_path: Path) -> None:
    from schedsim.workloads.load import load_workload

    path = tmp_path / "los.cwf"
    path.write_text(get_model("lublin-los").run(100, 1, {"pd": "0.5"}))
    loaded = load_workload(path)
    assert loaded.machine.procs == 320 and len(loaded.jobs) == 100
    assert read_cwf(path)[2].allocation_unit() == 32
