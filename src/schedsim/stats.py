"""Means and confidence intervals over independent replications (seeds) or batches.

The interval is the Student-t interval ``mean +/- t(1 - (1 - level) / 2, n - 1) s / sqrt(n)``
with ``s`` the sample standard deviation; with one replication the half-width is
NaN (no spread to measure). ``batch_means`` cuts one long run into batches,
drops the first ones (warm-up), and applies the same interval to the batch means
(the IHAP paper, sec. 5, uses 31 batches with the first discarded).

The t quantile is computed here from the closed-form t distribution function
for integer degrees of freedom (Abramowitz & Stegun 26.7.3-26.7.4), so the
package needs no scipy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A sample mean with its confidence interval."""

    mean: float
    half_width: float
    n: int
    level: float = DEFAULT_LEVEL

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with ``df`` (integer >= 1) degrees of freedom."""
    if df < 1:
        raise ValueError(f"t_cdf: df={df} must be >= 1")
    theta = math.atan(abs(t) / math.sqrt(df))
    two_sided = _two_sided(theta, df)
    return 0.5 + 0.5 * two_sided if t >= 0 else 0.5 - 0.5 * two_sided


def _two_sided(theta: float, df: int) -> float:
    """A(t | df) = P(|T| <= |t|), Abramowitz & Stegun 26.7.3 (odd df) and 26.7.4 (even)."""
    c2 = math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(2, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        return math.sin(theta) * total
    if df == 1:
        return 2.0 * theta / math.pi
    term = total = 1.0
    for k in range(3, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return 2.0 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"t_quantile: p={p} must be in (0, 1)")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low <= 1e-13 * max(1.0, high):
            break
    return 0.5 * (low + high)


def mean_ci(values: Iterable[float], level: float = DEFAULT_LEVEL) -> Interval:
    """Mean and Student-t confidence interval of independent replications."""
    data = [float(v) for v in values]
    n = len(data)
    if n == 0:
        return Interval(math.nan, math.nan, 0, level)
    mean = math.fsum(data) / n
    if n == 1:
        return Interval(mean, math.nan, 1, level)
    variance = math.fsum((x - mean) ** 2 for x in data) / (n - 1)
    quantile = t_quantile(0.5 + level / 2.0, n - 1)
    return Interval(mean, quantile * math.sqrt(variance / n), n, level)


def normal_quantile(p: float) -> float:
    """The ``p`` quantile of the standard normal distribution (bisection on ``math.erf``)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"normal_quantile: p={p} must be in (0, 1)")
    low, high = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if 0.5 * (1.0 + math.erf(mid / math.sqrt(2.0))) < p:
            low = mid
        else:
            high = mid
        if high - low <= 1e-13:
            break
    return 0.5 * (low + high)


def chi2_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of chi-square with ``df`` degrees of freedom, by the Wilson-Hilferty
    approximation ``df (1 - 2/(9 df) + z sqrt(2/(9 df)))^3`` (relative error at the 5% and
    95% points: under 3% for df >= 4, under 0.1% for df >= 29)."""
    if df < 1:
        raise ValueError(f"chi2_quantile: df={df} must be >= 1")
    spread = 2.0 / (9.0 * df)
    return df * max(0.0, 1.0 - spread + normal_quantile(p) * math.sqrt(spread)) ** 3


def relative_half_width(values: Iterable[float],
                        level: float = DEFAULT_LEVEL) -> tuple[float, float, float]:
    """The relative error of a mean: the half-width of its Student-t interval over the
    absolute mean, with an interval of its own (same ``level``): the standard deviation's
    chi-square interval, over the mean's far and near ends. Returns (low, estimate, high);
    NaN for fewer than two values, ``high`` infinite when the interval reaches 0."""
    data = [float(v) for v in values]
    interval = mean_ci(data, level)
    if interval.n < 2:
        return math.nan, math.nan, math.nan
    df = interval.n - 1
    quantile = t_quantile(0.5 + level / 2.0, df)
    sd = interval.half_width / quantile * math.sqrt(interval.n)
    sd_low = sd * math.sqrt(df / chi2_quantile(0.5 + level / 2.0, df))
    sd_high = sd * math.sqrt(df / chi2_quantile(0.5 - level / 2.0, df))
    mean, half = abs(interval.mean), interval.half_width
    scale = quantile / math.sqrt(interval.n)
    high = scale * sd_high / (mean - half) if mean > half else math.inf
    return scale * sd_low / (mean + half), half / mean if mean else math.inf, high


def batch_means(
    series: Sequence[float], batches: int, discard: int = 1, level: float = DEFAULT_LEVEL
) -> Interval:
    """Batch-means interval: ``batches`` equal batches, the first ``discard`` dropped.

    Trailing observations that do not fill a whole batch are ignored.
    """
    if batches <= discard:
        raise ValueError(f"batch_means: batches={batches} must exceed discard={discard}")
    size = len(series) // batches
    if size == 0:
        raise ValueError(f"batch_means: {len(series)} observations cannot fill {batches} batches")
    means = [math.fsum(series[b * size:(b + 1) * size]) / size for b in range(discard, batches)]
    return mean_ci(means, level)


def seed_means(frame: pd.DataFrame, group_by: Sequence[str],
               metrics: Sequence[str]) -> pd.DataFrame:
    """Per group and seed: the mean of every metric over the rows that differ otherwise.

    Rows of one group and seed that differ in a parameter not in ``group_by`` are
    averaged (the HRF paper's "combined" performance over a parameter grid, sec.
    6.3); ``n_points`` counts them. Groups keep their first appearance order.
    """
    per_seed = frame.groupby([*group_by, "seed"], sort=False, dropna=False)
    seeded = per_seed[list(metrics)].mean().reset_index()
    seeded.insert(len(group_by) + 1, "n_points", per_seed.size().to_numpy())
    return seeded


def summarize_seeds(
    frame: pd.DataFrame, group_by: Sequence[str], metrics: Sequence[str],
    level: float = DEFAULT_LEVEL,
) -> pd.DataFrame:
    """Per group: mean and CI over seeds of every metric (of :func:`seed_means`).

    Columns of the result: ``group_by``, ``n_seeds``, ``n_points``, and per metric
    ``<m>_mean``, ``<m>_ci_low``, ``<m>_ci_high``, ``<m>_ci_half``.
    """
    import pandas as pd

    keys = list(group_by)
    seeded = seed_means(frame, keys, metrics)
    rows = []
    for group, part in seeded.groupby(keys, sort=False, dropna=False):
        row = dict(zip(keys, group if isinstance(group, tuple) else (group,), strict=True))
        row["n_seeds"] = len(part)
        row["n_points"] = int(part["n_points"].iloc[0])
        for metric in metrics:
            row.update(_interval_columns(metric, mean_ci(part[metric], level)))
        rows.append(row)
    return pd.DataFrame(rows)


def _interval_columns(metric: str, interval: Interval) -> dict[str, float]:
    return {f"{metric}_mean": interval.mean, f"{metric}_ci_low": interval.low,
            f"{metric}_ci_high": interval.high, f"{metric}_ci_half": interval.half_width}
