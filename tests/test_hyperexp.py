"""Workload model hyperexp and the IHAP machine (IHAP paper sec. 4, Table 1).

Statistical checks use tolerances of 5 standard errors computed from the exact
moments of the distribution under test (false-alarm rate ~ 6e-7 for a normal
statistic); each such test also asserts that its tolerance is tight enough to
reject a distribution 5-10 % off, so it can fail.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from numpy.random import PCG64, Generator

from schedsim.errors import InputError
from schedsim.params import parse_params
from schedsim.workloads import hyperexp
from schedsim.workloads.base import get_model

Z = 5.0


def _params(**given: object) -> dict:
    return parse_params(hyperexp.PARAMS, given, "test")


def _h2_raw_moment(mean: float, cv: float, k: int) -> float:
    """E[X^k] of the balanced-means H2: k! (p1 / mu1^k + p2 / mu2^k)."""
    p1, mu1, mu2 = hyperexp.h2_balanced(mean, cv)
    return math.factorial(k) * (p1 / mu1**k + (1 - p1) / mu2**k)


def _moment_bounds(mean: float, cv: float, count: int) -> tuple[float, float, float, float]:
    """Relative tolerances (Z standard errors) on the sample mean and second moment, and
    the implied bounds on the sample CV."""
    m1, m2, m4 = (_h2_raw_moment(mean, cv, k) for k in (1, 2, 4))
    tol1 = Z * math.sqrt((m2 - m1**2) / count) / m1
    tol2 = Z * math.sqrt((m4 - m2**2) / count) / m2
    cv_low = math.sqrt(max(0.0, (1 + cv**2) * (1 - tol2) / (1 + tol1) ** 2 - 1))
    cv_high = math.sqrt((1 + cv**2) * (1 + tol2) / (1 - tol1) ** 2 - 1)
    return tol1, tol2, cv_low, cv_high


@pytest.mark.parametrize(("cv", "p1", "mu1", "mu2"), [
    (2.0, 0.88730, 0.17746, 0.02254),  # balanced means (docs/workloads-cirne-hyperexp.md), D = 10
    (3.5, 0.96072, 0.19214, 0.00786),
    (5.0, 0.98038, 0.19608, 0.00392),
])
def test_h2_parameters_known_values(cv: float, p1: float, mu1: float, mu2: float) -> None:
    got = hyperexp.h2_balanced(10.0, cv)
    assert got == pytest.approx((p1, mu1, mu2), abs=6e-6)


@pytest.mark.parametrize("cv", [1.0, 1.5, 4.0, 10.0])
def test_h2_exact_moments(cv: float) -> None:
    p1, mu1, mu2 = hyperexp.h2_balanced(16.0, cv)
    assert p1 / mu1 == pytest.approx(8.0) and (1 - p1) / mu2 == pytest.approx(8.0)
    assert _h2_raw_moment(16.0, cv, 1) == pytest.approx(16.0)
    assert _h2_raw_moment(16.0, cv, 2) == pytest.approx(256.0 * (1 + cv**2))


@pytest.mark.parametrize(("mean", "cv", "count"), [(16.0, 4.0, 4_000_000),
                                                   (16.0, 1.0, 1_000_000),
                                                   (0.3125, 3.0, 2_000_000)])
def test_h2_sample_mean_and_cv(mean: float, cv: float, count: int) -> None:
    rngs = Generator(PCG64(101)), Generator(PCG64(202))
    sample = hyperexp.draw_h2(*rngs, mean, cv, count)
    tol1, tol2, cv_low, cv_high = _moment_bounds(mean, cv, count)
    assert abs(sample.mean() / mean - 1) < tol1
    assert abs(np.mean(sample**2) / _h2_raw_moment(mean, cv, 2) - 1) < tol2
    cv_hat = sample.std() / sample.mean()
    assert cv_low < cv_hat < cv_high
    assert cv_high / cv - 1 < 0.05 and 1 - cv_low / cv < 0.05  # power: 5 % off would fail


def test_generated_service_demand_and_arrival_cv() -> None:
    count = 300_000
    jobs = hyperexp.generate_hyperexp_jobs(count, 3, _params(cv_arrival=2.0))
    work = np.array([j.work for j in jobs])
    gaps = np.diff([j.submit for j in jobs])
    rate = hyperexp.arrival_rate(_params(cv_arrival=2.0))
    # Wiring check (the sampler itself is tested tightly above): power 15 % / 10 %.
    for sample, mean, cv, power in ((work, 16.0, 4.0, 0.15), (gaps, 1 / rate, 2.0, 0.10)):
        tol1, _, cv_low, cv_high = _moment_bounds(mean, cv, len(sample))
        assert abs(sample.mean() / mean - 1) < tol1
        assert cv_low < sample.std() / sample.mean() < cv_high
        assert cv_high / cv - 1 < power


@pytest.mark.parametrize(("basis", "capacity"), [("processors", 64.0), ("bpus", 96.0)])
def test_measured_utilization_near_target(basis: str, capacity: float) -> None:
    # Utilization estimate = mean work x (jobs - 1) / span / capacity. Relative
    # standard error ~ sqrt(CVs^2 + CVa^2) / sqrt(jobs) = sqrt(17 / 200000) = 0.92 %.
    count = 200_000
    params = _params(utilization=0.8, util_basis=basis)
    assert hyperexp.arrival_rate(params) == pytest.approx(0.8 * capacity / 16.0)
    jobs = hyperexp.parse_hyperexp_swf(get_model("hyperexp").run(count, 9, params))
    tolerance = Z * math.sqrt((4.0**2 + 1.0**2) / count)
    assert tolerance < 0.05  # power: a 5 % error in the rate would fail
    assert abs(hyperexp.measured_utilization(jobs, capacity) / 0.8 - 1) < tolerance


def test_pmax_in_range_and_uniform() -> None:
    count = 100_000
    jobs = hyperexp.generate_hyperexp_jobs(count, 4, _params())
    pmax = np.array([j.procs for j in jobs])
    assert pmax.min() == 1 and pmax.max() == 32
    assert set(np.unique(pmax)) == set(range(1, 33))
    sd = math.sqrt((32**2 - 1) / 12)
    assert abs(pmax.mean() - 16.5) < Z * sd / math.sqrt(count)


def test_same_seed_same_text_and_different_seeds_differ() -> None:
    model = get_model("hyperexp")
    first = model.run(500, 21, {"utilization": 0.6})
    assert first == model.run(500, 21, {"utilization": 0.6})
    assert first != model.run(500, 22, {"utilization": 0.6})


def test_round_trip_through_swf(tmp_path: Path) -> None:
    params = _params(cv_arrival=3.0)
    made = hyperexp.generate_hyperexp_jobs(2000, 5, params)
    path = tmp_path / "h.swf"
    path.write_text(hyperexp.format_hyperexp_swf(made, 5, params), encoding="ascii")
    back = hyperexp.read_hyperexp_swf(path)
    for a, b in zip(made, back, strict=True):
        assert (a.id, a.submit, a.runtime, a.procs, a.work) == (b.id, b.submit, b.runtime,
                                                               b.procs, b.work)
        assert b.work == pytest.approx(b.runtime * b.procs) and b.estimate == b.runtime
        assert b.runtime_on(b.procs) == pytest.approx(b.runtime)


def test_load_workload_reads_the_model_s_jobs(tmp_path: Path) -> None:
    """load_workload reads a hyperexp file with the SWF reader and the model's meaning of
    its fields, and keeps each job's line for writing a schedule back."""
    from schedsim.workloads.load import load_workload

    params = _params()
    made = hyperexp.generate_hyperexp_jobs(300, 2, params)
    path = tmp_path / "h.swf"
    path.write_text(hyperexp.format_hyperexp_swf(made, 2, params), encoding="ascii")
    loaded = load_workload(path, procs=64)

    def fields(jobs: list) -> list[tuple]:
        return [(j.id, j.submit, j.runtime, j.procs, j.estimate, j.work) for j in jobs]

    assert fields(loaded.jobs) == fields(made) and loaded.rows is not None
    assert len(loaded.rows) == 300 and loaded.report is None
    assert "generate hyperexp" in (loaded.header_value("Conversion") or "")


def test_utilization_changes_only_arrival_times() -> None:
    low = hyperexp.generate_hyperexp_jobs(100, 8, _params(utilization=0.4))
    high = hyperexp.generate_hyperexp_jobs(100, 8, _params(utilization=0.8))
    assert [j.work for j in low] == [j.work for j in high]
    assert high[-1].submit == pytest.approx(low[-1].submit / 2, rel=1e-9)


@pytest.mark.parametrize(("given", "fragment"), [
    ({"utilization": "0"}, "utilization='0' is invalid; allowed: float in [0.01, 2]"),
    ({"cv_arrival": "0.5"}, "cv_arrival='0.5' is invalid; allowed: float in [1, 20]"),
    ({"util_basis": "nodes"}, "allowed: one of processors, bpus"),
    ({"pmax": "65"}, "pmax=65 is invalid; allowed: int in [1, procs=64]"),
])
def test_out_of_range_parameter_is_input_error(given: dict, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        get_model("hyperexp").run(10, 1, given)
    assert fragment in str(caught.value)


def test_reader_rejects_malformed_line() -> None:
    with pytest.raises(InputError, match=r"x\.swf:1: expected 18 fields, found 4"):
        hyperexp.parse_hyperexp_swf("1 0.0 -1 2.0\n", "x.swf")
    line = "1 0.0 -1 2.0 0 -1 -1 0 2.0 -1 1 -1 -1 -1 -1 -1 -1 -1"
    with pytest.raises(InputError, match=r"x\.swf:2: a hyperexp job needs field 8 \(Pmax\) "
                                         r">= 1 and field 4 \(run time\) >= 0, got 0 and 2"):
        hyperexp.parse_hyperexp_swf(f"; MaxProcs: 4\n{line}\n", "x.swf")


def test_ihap_machine_default() -> None:
    machine = hyperexp.ihap_machine()
    assert machine.procs == 64 and machine.heterogeneous
    assert machine.speeds == (1.0,) * 32 + (2.0,) * 32
    assert sum(machine.speeds) == 96.0


def test_background_load_on_grid_and_deterministic() -> None:
    first = hyperexp.BackgroundLoad.from_seed(64, 17)
    second = hyperexp.BackgroundLoad.from_seed(64, 17)
    seen: list[float] = []
    for _ in range(300):
        loads = first.redraw()
        assert loads == second.redraw() and loads == first.loads and len(loads) == 64
        seen.extend(loads)
    percent = np.array(seen) * 100
    assert np.all(np.abs(percent - np.rint(percent)) < 1e-9)
    assert set(np.rint(percent).astype(int)) == set(range(31))  # all 31 grid values
    # Mean 15 %, sd of U{0..30} = sqrt((31^2 - 1) / 12) %.
    sd = math.sqrt((31**2 - 1) / 12)
    assert abs(percent.mean() - 15.0) < Z * sd / math.sqrt(len(seen))
    assert hyperexp.BackgroundLoad.from_seed(64, 18).loads != hyperexp.BackgroundLoad.from_seed(
        64, 17).loads


def test_background_load_computing_power_eq6() -> None:
    load = hyperexp.BackgroundLoad.from_seed(4, 1, max_percent=30, step_percent=10)
    assert set(load.grid) == {0.0, 0.1, 0.2, 0.3}
    speeds = (1.0, 1.0, 2.0, 2.0)
    power = load.computing_power(speeds)
    assert power == tuple(s * (1 - u) for s, u in zip(speeds, load.loads, strict=True))
    assert load.available_power(speeds) == pytest.approx(sum(power))


def test_background_load_bad_grid_rejected() -> None:
    with pytest.raises(InputError):
        hyperexp.BackgroundLoad.from_seed(4, 1, max_percent=30, step_percent=7)
