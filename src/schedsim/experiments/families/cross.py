"""Across the papers: every rigid-job policy of the five papers on the same real logs,
and a policy of one's own against each target's best paper policy.

The policies that schedule rigid jobs on one partition of plain processors: FCFS, EASY
and conservative backfilling (the common baselines), LOS and Delayed-LOS (LOS paper),
slack-based backfilling on the plain machine (SLACK), best-fit FCFS- and LXF-backfill
and the goal-oriented search (GOAL) on one partition. Each log is a generic ``sweep``
target with ``trace:``: its first jobs cut into consecutive segments (the
replications, the same segments for every policy), each scaled to one offered load
(Shmueli & Feitelson's arrival-time scaling, as the LOS paper's Fig. 1 does). Two
derived targets read them:

* ``cross-versus-baseline``: per log, policy and metric, the policy's mean and its paired
  difference from the baseline (EASY) over the segments, with its interval, absolute
  and relative to the baseline's mean; drawn by the figure ``cross-logs``;
* ``versus-best``: a policy of one's own (config/examples/my-policy.yaml) against each
  source target's best paper policy (lowest mean of the metric over the target's points),
  paired per replication; drawn by the figure ``versus-best``.

Both use the paired-difference rule of :func:`schedsim.verdicts.paired`. The figures:
:mod:`~schedsim.experiments.families.cross_figures`. Choices: docs/deviations-cross.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedsim.experiments.family import Family, Variant, derived_function
from schedsim.experiments.spec import TargetSpec
from schedsim.tables import SEEDS_SUFFIX, per_seed, select
from schedsim.verdicts import paired

if TYPE_CHECKING:
    import pandas as pd


FAMILY_NAME = "cross"
LOWER_IS_BETTER = {"AWT": True, "BSLD": True, "ATT": True, "max_wait": True,
                   "utilization": False}
DIFF_COLUMNS = ("diff_mean", "diff_low", "diff_high", "rel_mean", "rel_low", "rel_high")


class CrossFamily(Family):
    """Config section ``cross``: every target reads a real log (``trace:``) or derives a
    table from other targets; there are no generated workloads."""

    name = FAMILY_NAME
    figures_module = "schedsim.experiments.families.cross_figures"
    generated_workloads = False

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        raise ValueError("cross: a sweep target reads a real log; give it trace: "
                         "{name: <log>, loads: [...]}")


FAMILY = CrossFamily()


# ----------------------------------------------------------------------------- paired rows


def _seed_tables(tables: Mapping[str, pd.DataFrame],
                 source: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    return tables[source], tables[f"{source}{SEEDS_SUFFIX}"]


def versus(a: pd.Series, b: pd.Series, b_mean: float, level: float) -> dict[str, float]:
    """The paired difference ``a - b`` over common replications (:func:`paired`), and the
    same relative to ``b``'s mean."""
    diff = paired(a, b, level)
    scale = abs(b_mean) if b_mean else math.nan
    return {"n": float(diff.n), "diff_mean": diff.mean, "diff_low": diff.low,
            "diff_high": diff.high, "rel_mean": diff.mean / scale,
            "rel_low": diff.low / scale, "rel_high": diff.high / scale}


def reading(row: Mapping[str, float], lower_is_better: bool) -> str:
    """``better`` or ``worse`` when the interval excludes 0, else ``no difference``."""
    if row["diff_low"] > 0 or row["diff_high"] < 0:
        return "better" if (row["diff_high"] < 0) == lower_is_better else "worse"
    return "no difference"


@derived_function("cross-versus-baseline")
def versus_baseline(spec: TargetSpec, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per source (a log) and policy: each metric's mean and its paired difference from
    the baseline's over the replications (``args``: baseline, metrics, level)."""
    import pandas as pd

    baseline = str(spec.args.get("baseline", "easy"))
    metrics = list(spec.args.get("metrics", ("AWT", "BSLD", "utilization")))
    level = float(spec.args.get("level", 0.95))
    rows = []
    for source in spec.sources:
        table, seeds = _seed_tables(tables, source)
        variant_column = _variant_column(table)
        for variant in dict.fromkeys(table[variant_column]):
            at = {variant_column: variant}
            if select(table, {**at, "policy": baseline}).empty:
                raise ValueError(f"{spec.target}: {source} has no {baseline} rows to compare "
                                 "with")
            for policy in dict.fromkeys(table["policy"]):
                for metric in metrics:
                    base = per_seed(seeds, metric, {**at, "policy": baseline})
                    mine = per_seed(seeds, metric, {**at, "policy": policy})
                    row = {"source": source, "log": _log_name(variant),
                           "policy": policy, "metric": metric,
                           "mean": float(mine.mean()), "baseline_mean": float(base.mean()),
                           **versus(mine, base, float(base.mean()), level)}
                    row["reading"] = reading(row, LOWER_IS_BETTER.get(metric, True)) \
                        if policy != baseline else "baseline"
                    rows.append(row)
    return pd.DataFrame(rows).assign(baseline=baseline, level=level)


def _variant_column(table: pd.DataFrame) -> str:
    """The variant column of a sweep's table: the one after target and policy
    (``aggregate``: target, then the group keys, policy and variant first)."""
    if list(table.columns[:2]) != ["target", "policy"] or len(table.columns) < 3:
        raise ValueError(f"not a sweep target's table (columns {list(table.columns)[:4]})")
    return str(table.columns[2])


def _log_name(variant: str) -> str:
    """``KTH-SP2 at load 0.9`` for the variant ``KTH-SP2_load0.9`` of a trace target."""
    name, _, load = str(variant).rpartition("_load")
    return f"{name} at load {load}" if name else str(variant)


# ----------------------------------------------------------------------------- versus best


def configurations(seeds: pd.DataFrame, variant_column: str,
                   skip: Sequence[str]) -> dict[str, pd.DataFrame]:
    """The per-seed rows of each paper policy with one value of each parameter the
    target sweeps for it (several values at one variant, e.g. LOS-F5's C_s or SLACK's
    goal), named ``policy`` or ``policy (param value, ...)``; a parameter that takes one
    value per variant (a chosen C_s) is part of the policy. Policies in ``skip`` are
    left out."""
    keys = [c for c in seeds.columns[: seeds.columns.get_loc("seed")]
            if c not in ("target", "policy", variant_column)]
    out: dict[str, pd.DataFrame] = {}
    for policy, rows in seeds.groupby("policy", sort=False):
        if policy in skip:
            continue
        swept = [c for c in keys if rows.groupby(variant_column)[c].nunique().max() > 1]
        if not swept:
            out[str(policy)] = rows
            continue
        for values, part in rows.groupby(swept, sort=True):
            named = ", ".join(f"{p} {v:g}" if isinstance(v, float) else f"{p} {v}"
                              for p, v in zip(swept, values, strict=True))
            out[f"{policy} ({named})"] = part
    return out


def replication_means(rows: pd.DataFrame, metric: str) -> pd.Series:
    """Per replication (seed), the metric's mean over the rows (the target's variants)."""
    return rows.groupby("seed")[metric].mean()


@derived_function("versus-best")
def versus_best(spec: TargetSpec, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per source target: ``args.policy`` against the paper policy (and parameter values)
    with the lowest mean ``metric`` over the target's points, paired per replication
    (each replication's mean over the target's variants)."""
    import pandas as pd

    mine = str(spec.args["policy"])
    metric_of = dict(spec.args.get("metrics") or {})
    default_metric = str(spec.args.get("metric", "AWT"))
    level = float(spec.args.get("level", 0.95))
    rows = []
    for source in spec.sources:
        table, seeds = _seed_tables(tables, source)
        metric = str(metric_of.get(source, default_metric))
        lower = LOWER_IS_BETTER.get(metric, True)
        variant_column = _variant_column(table)
        if metric not in seeds:
            raise ValueError(f"{spec.target}: {source} has no metric {metric}")
        own = seeds[seeds["policy"] == mine]
        if own.empty:
            raise ValueError(f"{spec.target}: {source} does not run {mine}; add it to the "
                             "target's policies or drop the source")
        variants = set(own[variant_column])
        means = {name: replication_means(part, metric)
                 for name, part in configurations(seeds, variant_column, [mine]).items()
                 if set(part[variant_column]) == variants}
        if not means:
            raise ValueError(f"{spec.target}: no paper policy of {source} runs the variants "
                             f"{mine} runs")
        best = (min if lower else max)(means, key=lambda name: means[name].mean())
        ours = replication_means(own, metric)
        row = {"target": source, "metric": metric, "policy": mine, "best_paper_policy": best,
               "mean": float(ours.mean()), "best_mean": float(means[best].mean()),
               **versus(ours, means[best], float(means[best].mean()), level)}
        row["reading"] = reading(row, lower)
        rows.append(row)
    return pd.DataFrame(rows).assign(level=level)
