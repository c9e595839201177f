"""Reading aggregated tables: row selection, paired differences over seeds, rank trends.

The claims of every family compare rows of ``results/tables/<target>.csv`` and of
its per-seed companion ``<target>.seeds.csv`` with these helpers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedsim.stats import DEFAULT_LEVEL, Interval, mean_ci

if TYPE_CHECKING:
    import pandas as pd

FLOAT_TOLERANCE = 1e-9


SEEDS_SUFFIX = ".seeds"  # results/tables/<target>.seeds.csv: per-seed values of a target


def seeds_of(tables: Mapping[str, pd.DataFrame], target: str) -> pd.DataFrame:
    """The per-seed table of ``target`` (``<target>.seeds``)."""
    return tables[f"{target}{SEEDS_SUFFIX}"]


def missing_policies(tables: Mapping[str, pd.DataFrame], target: str,
                     *policies: str) -> str | None:
    """Why a claim on ``target`` cannot be judged (policies it did not run), or None."""
    found = set(seeds_of(tables, target)["policy"])
    missing = [p for p in policies if p not in found]
    return f"{target} did not run {', '.join(missing)}" if missing else None


def claim_level(settings: Mapping[str, Any], default: float = DEFAULT_LEVEL) -> float:
    """The confidence level of a family's claims (its ``claims.level``, else ``default``)."""
    return float(settings.get("level", default))


def matches(column: pd.Series, value: Any) -> pd.Series:
    """Rows whose ``column`` equals ``value``: floats within 1e-9, NaN equals NaN,
    other values compared as text."""
    if isinstance(value, float) and math.isnan(value):
        return column.isna()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return column.astype(str) == str(value)
    return (column - float(value)).abs() < FLOAT_TOLERANCE


def select(table: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    """Rows of ``table`` whose columns equal ``where`` (see :func:`matches`)."""
    mask = table.index == table.index
    for column, value in where.items():
        mask &= matches(table[column], value)
    return table[mask]


def per_seed(seeds: pd.DataFrame, metric: str, where: Mapping[str, Any]) -> pd.Series:
    """``metric`` per seed of the rows selected by ``where`` (one row per seed)."""
    return select(seeds, where).set_index("seed")[metric]


def paired_difference(seeds: pd.DataFrame | None, metric: str, first: Mapping[str, Any],
                      second: Mapping[str, Any]) -> Interval:
    """Mean and 95% CI over seeds of ``metric`` at ``second`` minus at ``first``.

    Every policy and point of a seed runs on the same workload (common random
    numbers), so the paired difference is the sharp comparison. NaN without a
    per-seed table.
    """
    if seeds is None:
        return Interval(math.nan, math.nan, 0)
    a, b = per_seed(seeds, metric, first), per_seed(seeds, metric, second)
    common = a.index.intersection(b.index)
    return mean_ci((b[common] - a[common]).to_numpy())


def mean_of(table: pd.DataFrame, metric: str, where: Mapping[str, Any]) -> float:
    """The ``<metric>_mean`` of the first row selected by ``where`` (NaN if none)."""
    rows = select(table, where)
    return float(rows[f"{metric}_mean"].iloc[0]) if len(rows) else math.nan


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation (average ranks for ties); NaN for fewer than 3 points."""
    import pandas as pd

    if len(x) < 3:
        return math.nan
    return float(pd.Series(list(x), dtype=float).rank().corr(
        pd.Series(list(y), dtype=float).rank()))


def coefficient_of_variation(values: Sequence[float]) -> float:
    """Sample standard deviation over the mean; NaN for fewer than 2 values or mean 0."""
    import pandas as pd

    series = pd.Series(list(values), dtype=float)
    return float(series.std(ddof=1) / series.mean()) if len(series) >= 2 and series.mean() \
        else math.nan
