"""Means, Student-t intervals and batch means (schedsim.stats)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from schedsim.stats import batch_means, mean_ci, summarize_seeds, t_cdf, t_quantile

# Two-sided 95% critical values of Student's t (standard tables).
T_975 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 9: 2.2622, 10: 2.2281,
         19: 2.0930, 29: 2.0452, 30: 2.0423, 60: 2.0003, 120: 1.9799}


@pytest.mark.parametrize(("df", "expected"), sorted(T_975.items()))
def test_t_quantile_matches_tables(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_t_quantile_is_symmetric_and_inverts_the_cdf() -> None:
    for df in (1, 2, 7, 40):
        for p in (0.6, 0.9, 0.995):
            q = t_quantile(p, df)
            assert t_quantile(1 - p, df) == pytest.approx(-q)
            assert t_cdf(q, df) == pytest.approx(p, abs=1e-10)


def test_t_cdf_limits() -> None:
    assert t_cdf(0.0, 5) == 0.5
    assert t_cdf(1.0, 1) == pytest.approx(0.75)  # Cauchy: 1/2 + atan(1)/pi
    assert t_cdf(1e9, 3) == pytest.approx(1.0)


def test_t_quantile_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        t_cdf(1.0, 0)


def test_mean_ci_known_values() -> None:
    interval = mean_ci([1.0, 2.0, 3.0, 4.0])
    # s = sqrt(5/3), half = t(0.975, 3) s / 2
    assert interval.mean == 2.5
    assert interval.half_width == pytest.approx(3.182446305 * math.sqrt(5 / 3) / 2)
    assert interval.low < 2.5 < interval.high
    assert interval.n == 4


def test_mean_ci_degenerate_samples() -> None:
    one = mean_ci([7.0])
    assert one.mean == 7.0 and math.isnan(one.half_width)
    empty = mean_ci([])
    assert empty.n == 0 and math.isnan(empty.mean)
    same = mean_ci([3.0, 3.0, 3.0])
    assert same.half_width == 0.0


def test_mean_ci_other_level_is_narrower() -> None:
    data = [1.0, 5.0, 2.0, 8.0, 3.0]
    assert mean_ci(data, level=0.9).half_width < mean_ci(data).half_width


def test_batch_means_discards_the_first_batch_and_the_tail() -> None:
    series = [100.0] * 10 + [1.0, 2.0] * 15 + [999.0]  # 41 values, 4 batches of 10
    interval = batch_means(series, batches=4, discard=1)
    assert interval.n == 3
    assert interval.mean == pytest.approx(1.5)
    with pytest.raises(ValueError):
        batch_means(series, batches=1, discard=1)
    with pytest.raises(ValueError):
        batch_means([1.0], batches=4, discard=1)


def test_summarize_seeds_combines_points_within_each_seed() -> None:
    frame = pd.DataFrame({
        "policy": ["P"] * 4 + ["Q"] * 4,
        "alpha": [0.5, 1.0, 0.5, 1.0] * 2,
        "seed": [1, 1, 2, 2] * 2,
        "ATT": [10.0, 20.0, 30.0, 40.0, 1.0, 1.0, 3.0, 3.0],
    })
    table = summarize_seeds(frame, ["policy"], ["ATT"])
    p = table[table["policy"] == "P"].iloc[0]
    # per-seed means 15 and 35 -> mean 25; s = 20 / sqrt(2), half = t(0.975, 1) s / sqrt(2)
    assert p["ATT_mean"] == 25.0
    assert p["ATT_ci_half"] == pytest.approx(12.7062 * 10, rel=1e-4)
    assert p["n_seeds"] == 2 and p["n_points"] == 2
    assert list(table["policy"]) == ["P", "Q"]
    by_alpha = summarize_seeds(frame, ["policy", "alpha"], ["ATT"])
    assert len(by_alpha) == 4 and set(by_alpha["n_points"]) == {1}
