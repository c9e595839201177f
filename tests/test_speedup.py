"""Downey's speedup model (Downey 1997; HRF paper sec. 2.2; docs/workloads-cirne-hyperexp.md)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedsim.speedup import DowneySpeedup, downey_max_useful, downey_speedup

EPS = 1e-9
A_VALUES = (1.0, 1.5, 2.0, 7.3, 64.0, 900.0)
SIGMA_VALUES = (0.0, 0.3, 0.999, 1.0, 1.001, 2.5, 9.0)

avg_parallelism = st.floats(min_value=1.0, max_value=5000.0)
sigmas = st.floats(min_value=0.0, max_value=10.0)
counts = st.floats(min_value=1.0, max_value=20000.0)


def _close(x: float, y: float, rel: float = 1e-6) -> bool:
    return math.isclose(x, y, rel_tol=rel, abs_tol=rel)


@pytest.mark.parametrize("a", A_VALUES)
@pytest.mark.parametrize("sigma", SIGMA_VALUES)
def test_speedup_on_one_processor_is_one(a: float, sigma: float) -> None:
    assert downey_speedup(1, a, sigma) == 1.0
    assert downey_speedup(1 + 1e-12, a, sigma) == pytest.approx(1.0, rel=1e-9)


def test_low_variance_known_values() -> None:
    # A = 10, sigma = 0.5: n <= A, A <= n <= 2A-1, n >= 2A-1.
    assert downey_speedup(5, 10, 0.5) == pytest.approx(50 / 11)
    assert downey_speedup(15, 10, 0.5) == pytest.approx(150 / (0.5 * 9.5 + 15 * 0.75))
    assert downey_speedup(19, 10, 0.5) == pytest.approx(10.0)
    assert downey_speedup(500, 10, 0.5) == 10.0


def test_high_variance_known_values() -> None:
    # A = 10, sigma = 2: breakpoint A + A sigma - sigma = 28.
    assert downey_speedup(5, 10, 2.0) == pytest.approx(150 / 38)
    assert downey_speedup(28, 10, 2.0) == pytest.approx(10.0)
    assert downey_speedup(29, 10, 2.0) == 10.0


def test_zero_sigma_is_linear_up_to_a() -> None:
    for n in (1, 2, 5, 9, 10, 11, 40):
        assert downey_speedup(n, 10.0, 0.0) == pytest.approx(min(n, 10.0))


@pytest.mark.parametrize("a", A_VALUES)
@pytest.mark.parametrize("sigma", (0.0, 0.3, 0.999, 1.0))
def test_low_variance_continuous_at_breakpoints(a: float, sigma: float) -> None:
    for edge in (a, 2 * a - 1):
        if edge > 1:
            left, right = downey_speedup(edge - EPS, a, sigma), downey_speedup(edge + EPS, a, sigma)
            assert _close(left, right), (edge, left, right)
    assert _close(downey_speedup(2 * a - 1, a, sigma), a)


@pytest.mark.parametrize("a", A_VALUES)
@pytest.mark.parametrize("sigma", (1.0, 1.001, 2.5, 9.0))
def test_high_variance_continuous_at_breakpoint(a: float, sigma: float) -> None:
    edge = a + a * sigma - sigma
    if edge > 1:
        left, right = downey_speedup(edge - EPS, a, sigma), downey_speedup(edge + EPS, a, sigma)
        assert _close(left, right), (edge, left, right)
    assert _close(downey_speedup(edge, a, sigma), a)


@pytest.mark.parametrize("a", A_VALUES)
def test_regimes_agree_at_sigma_one(a: float) -> None:
    for n in (1, 1.5, 2, a / 2 + 1, a, 1.5 * a, 2 * a - 1, 3 * a):
        n = max(1.0, n)
        below = downey_speedup(n, a, 1.0)
        above = downey_speedup(n, a, 1.0 + 1e-12)
        assert _close(below, above, 1e-9), (n, below, above)


@given(a=avg_parallelism, sigma=sigmas, n=counts)
def test_speedup_bounded_by_n_and_a(a: float, sigma: float, n: float) -> None:
    s = downey_speedup(n, a, sigma)
    assert 1.0 - 1e-9 <= s <= min(n, a) * (1 + 1e-12) + 1e-9


@given(a=avg_parallelism, sigma=sigmas, n=counts, step=st.floats(0.0, 5000.0))
def test_speedup_non_decreasing(a: float, sigma: float, n: float, step: float) -> None:
    assert downey_speedup(n + step, a, sigma) >= downey_speedup(n, a, sigma) * (1 - 1e-12)


@given(a=avg_parallelism, sigma=sigmas, extra=st.integers(0, 1000))
def test_speedup_reaches_a_at_max_useful(a: float, sigma: float, extra: int) -> None:
    edge = downey_max_useful(a, sigma)
    assert downey_speedup(edge + extra, a, sigma) == pytest.approx(a, rel=1e-9)
    # mathematically S < A below the edge, unless A = 1 (then S = 1 everywhere)
    if edge > 1 and sigma >= 1e-3 and a > 1:
        assert downey_speedup(edge - 1, a, sigma) < a


@given(length=st.floats(1.0, 1e7), a=avg_parallelism, sigma=sigmas,
       procs=st.integers(1, 4096))
def test_downey_runtime_is_l_over_s(length: float, a: float, sigma: float, procs: int) -> None:
    model = DowneySpeedup(length, a, sigma)
    assert model.runtime(1) == pytest.approx(length, rel=1e-12)
    assert model.runtime(procs) == pytest.approx(length / downey_speedup(procs, a, sigma))
    assert model.runtime(procs) <= model.runtime(1) * (1 + 1e-12)


def test_max_useful_values() -> None:
    assert downey_max_useful(10, 0.5) == 19
    assert downey_max_useful(10, 2.0) == 28
    assert downey_max_useful(1, 3.0) == 1
    assert downey_max_useful(7.3, 1.0) == math.ceil(2 * 7.3 - 1)


@pytest.mark.parametrize(("length", "a", "sigma"), [(0.0, 2.0, 1.0), (5.0, 0.5, 1.0),
                                                      (5.0, 2.0, -0.1)])
def test_bad_parameters_rejected(length: float, a: float, sigma: float) -> None:
    with pytest.raises(ValueError):
        DowneySpeedup(length, a, sigma)


def test_fewer_than_one_processor_rejected() -> None:
    with pytest.raises(ValueError):
        downey_speedup(0.5, 4.0, 1.0)


@given(work=st.floats(min_value=1e-3, max_value=1e7), a=avg_parallelism, sigma=sigmas,
       unit=st.sampled_from((1, 2, 4, 8, 32)), count=st.integers(min_value=1, max_value=300))
def test_runtime_table_equals_runtime_size_by_size(work: float, a: float, sigma: float,
                                                  unit: int, count: int) -> None:
    """The array-computed table is the scalar model's run times, bit for bit."""
    model = DowneySpeedup(work, a, sigma)
    table = model.runtimes(unit, count)
    assert len(table) == count
    for k, runtime in enumerate(table):
        assert runtime == model.runtime(unit * (k + 1))  # exact, not approx


@pytest.mark.parametrize("a", A_VALUES)
@pytest.mark.parametrize("sigma", SIGMA_VALUES)
def test_runtime_table_on_the_regime_edges(a: float, sigma: float) -> None:
    model = DowneySpeedup(3600.0, a, sigma)
    count = int(2 * a + a * sigma) + 3
    assert model.runtimes(1, count) == tuple(model.runtime(n) for n in range(1, count + 1))
