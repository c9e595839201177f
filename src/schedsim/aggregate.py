"""Run files of a sweep target -> its table (mean and CI per point) and per-seed table.

Rows are grouped by the target's ``group_by`` columns; parameters in ``combine``
are averaged per seed first (:func:`schedsim.stats.seed_means`). The variant's
label columns follow the group keys. Rows come in config order: policy, variant,
then the other keys ascending.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedsim.atomic import write_bytes_atomic
from schedsim.errors import InputError
from schedsim.stats import seed_means, summarize_seeds

if TYPE_CHECKING:
    import pandas as pd

    from schedsim.experiments.spec import TargetSpec


def aggregate_runs(spec: TargetSpec, runs: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The aggregated table of one sweep target and its per-seed table."""
    import pandas as pd

    if not runs:
        raise InputError(f"{spec.target}: no run files given")
    frame = pd.concat([pd.read_parquet(path) for path in runs], ignore_index=True)
    metrics = [m for m in spec.metrics if m in frame]
    group_by = list(spec.group_by)
    labels = _variant_labels(frame, spec)
    table = _labelled(summarize_seeds(frame, group_by, metrics, spec.level), labels, spec)
    table = _with_precision(table, spec)
    seeds = _labelled(seed_means(frame, group_by, metrics), labels, spec)
    return table, _ordered(seeds.sort_values("seed", kind="stable"), spec)


def _with_precision(table: pd.DataFrame, spec: TargetSpec) -> pd.DataFrame:
    """Per metric of ``spec.precision``: the interval's half-width relative to the mean and
    whether it is within the limit (the IHAP paper's "relative errors not exceeding 5%
    under the 90% confidence interval")."""
    for metric, limit in spec.precision.items():
        if f"{metric}_mean" not in table:
            continue
        relative = table[f"{metric}_ci_half"] / table[f"{metric}_mean"].abs()
        table[f"{metric}_rel_half"] = relative
        table[f"{metric}_precise"] = relative <= limit
    return table


def _labelled(table: pd.DataFrame, labels: pd.DataFrame, spec: TargetSpec) -> pd.DataFrame:
    """Add the variant's label columns after the group keys, and the target first."""
    table = table.merge(labels, on=spec.variant_column, how="left")
    keys = list(spec.group_by)
    label_names = [c for c in labels if c not in keys]
    table = table[keys + label_names + [c for c in table if c not in keys + label_names]]
    table.insert(0, "target", spec.target)
    return _ordered(table, spec)


def _variant_labels(frame: pd.DataFrame, spec: TargetSpec) -> pd.DataFrame:
    column = spec.variant_column
    label_names = sorted({k for v in spec.variant_labels.values() for k in v})
    return frame.groupby(column, sort=False)[label_names].first().reset_index()


def _ordered(table: pd.DataFrame, spec: TargetSpec) -> pd.DataFrame:
    """Rows in config order: policy, variant, then the remaining keys ascending."""
    column = spec.variant_column
    policy_rank = {p: i for i, p in enumerate(spec.policies)}
    variant_rank = {v: i for i, v in enumerate(spec.variants)}
    table = table.assign(_p=table["policy"].map(policy_rank), _v=table[column].map(variant_rank))
    rest = [c for c in spec.group_by if c not in ("policy", column)]
    return table.sort_values(["_p", "_v", *rest], kind="stable").drop(columns=["_p", "_v"])


def write_csv(table: Any, path: str | Path) -> None:
    """CSV with fixed float formatting, written atomically."""
    text = table.to_csv(index=False, float_format="%.10g", lineterminator="\n")
    write_bytes_atomic(path, text.encode("utf-8"))
