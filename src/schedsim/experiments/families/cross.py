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

Both use the paired-difference rule of :func:`schedsim.verdicts.paired`. Choices:
docs/deviations-cross.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedsim.experiments.family import Family, Variant
from schedsim.experiments.kinds import SEEDS_SUFFIX, derived_function
from schedsim.experiments.spec import TargetSpec
from schedsim.plots import COLORS, MARKERS, METRIC_LABELS, STYLE, register_figure
from schedsim.tables import per_seed, select
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


# ----------------------------------------------------------------------------- figures


def forest(ax: Any, labels: Sequence[str], groups: Mapping[str, pd.DataFrame],
           title: str) -> None:
    """One row per label, one marker per group with its interval: each group's rows are
    indexed by label with columns ``x``, ``low``, ``high`` (display units)."""
    count = max(len(groups), 1)
    for g_index, (group, part) in enumerate(groups.items()):
        shift = 0.6 * (g_index - (count - 1) / 2) / count
        rows = [(y + shift, part.loc[label]) for y, label in enumerate(labels)
                if label in part.index]
        xs = [float(row["x"]) for _, row in rows]
        errors = [[_finite(row["x"] - row["low"]) for _, row in rows],
                  [_finite(row["high"] - row["x"]) for _, row in rows]]
        ax.errorbar(xs, [y for y, _ in rows], xerr=errors, fmt=MARKERS[g_index % len(MARKERS)],
                    color=COLORS[g_index % len(COLORS)], capsize=2, markersize=4,
                    linewidth=1, label=group)
    ax.set_yticks(range(len(labels)), labels)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)


def _finite(value: float) -> float:
    return 0.0 if math.isnan(value) else float(value)


def relative(part: pd.DataFrame, label: pd.Series) -> pd.DataFrame:
    """A paired-difference table's rows as forest rows: % of the compared-with mean."""
    return part.assign(x=100 * part["rel_mean"], low=100 * part["rel_low"],
                       high=100 * part["rel_high"]).set_index(label.loc[part.index])


@register_figure("cross-logs")
def cross_logs_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """One panel per metric: each policy's paired difference from the baseline on every
    log, relative to the baseline's mean (%, symmetric log scale), with its interval."""
    import matplotlib
    from matplotlib.figure import Figure

    baseline = str(table["baseline"].iloc[0])
    metrics = list(dict.fromkeys(table["metric"]))
    rows = table[table["policy"] != baseline]
    shown = rows["policy"].map(spec.show)
    policies = list(dict.fromkeys(shown))
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(4.2 * len(metrics), 0.32 * len(policies) + 1.6),
                     layout="constrained")
        axes = fig.subplots(1, len(metrics), squeeze=False)[0]
        for ax, metric in zip(axes, metrics, strict=True):
            part = rows[rows["metric"] == metric]
            groups = {log: relative(logs, shown) for log, logs in part.groupby("log", sort=False)}
            forest(ax, policies, groups, f"{METRIC_LABELS.get(metric, metric)}: "
                   f"% vs {spec.show(baseline)}")
            ax.axvline(0, color="grey", linewidth=0.8)
            ax.set_xscale("symlog", linthresh=10)
        if not any(ax.has_data() for ax in axes):
            raise ValueError(f"{spec.target}: nothing to draw besides {baseline}")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 5),
                   frameon=False)
        level = float(table["level"].iloc[0])
        fig.suptitle(f"{spec.target}: every rigid-job policy of the five papers on real logs, "
                     f"paired difference from {spec.show(baseline)} over the logs' segments "
                     f"({100 * level:g}% intervals; left of 0 is lower)", fontsize=9)
    return fig


@register_figure("cross-log")
def cross_log_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """One panel per metric of the figure: each policy's mean with its interval, one
    marker per workload variant (a log at one offered load)."""
    import matplotlib
    from matplotlib.figure import Figure

    metrics = list(spec.figure.metrics) or ["AWT"]
    policies = [spec.show(p) for p in spec.policies]
    column = _variant_column(table)
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(3.6 * len(metrics), 0.32 * len(policies) + 1.4),
                     layout="constrained")
        axes = fig.subplots(1, len(metrics), squeeze=False)[0]
        for ax, metric in zip(axes, metrics, strict=True):
            groups = {}
            for variant, part in table.groupby(column, sort=False):
                mean, half = part[f"{metric}_mean"], part[f"{metric}_ci_half"].fillna(0.0)
                groups[_log_name(str(variant))] = part.assign(
                    x=mean, low=mean - half, high=mean + half).set_index(
                    part["policy"].map(spec.show))
            forest(ax, policies, groups, METRIC_LABELS.get(metric, metric))
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 5),
                   frameon=False)
        fig.suptitle(f"{spec.target}: mean of {int(table['n_seeds'].max())} "
                     f"{spec.seed_unit}, 95% CI", fontsize=9)
    return fig


@register_figure("versus-best")
def versus_best_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """One row per target: the policy's paired difference from the target's best paper
    policy, relative to that policy's mean (%), with its interval."""
    import matplotlib
    import pandas as pd
    from matplotlib.figure import Figure

    labels = pd.Series([f"{r.target}: vs {r.best_paper_policy} ({r.metric})"
                        for r in table.itertuples()], index=table.index)
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(7.5, 0.35 * len(labels) + 1.4), layout="constrained")
        ax = fig.subplots()
        policy = str(table["policy"].iloc[0])
        forest(ax, list(labels), {spec.show(policy): relative(table, labels)},
               f"{spec.show(policy)}: % difference from each target's best paper policy")
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.set_xscale("symlog", linthresh=10)
        level = float(table["level"].iloc[0])
        fig.suptitle(f"{spec.target}: paired over each target's replications "
                     f"({100 * level:g}% intervals; left of 0 is lower)", fontsize=9)
    return fig


