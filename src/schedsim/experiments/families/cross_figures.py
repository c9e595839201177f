"""The cross family: its figures the generic ones cannot draw
(``CrossFamily.figures_module``: only its figure jobs import them)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedsim.experiments.families.cross import (
    _log_name,
    _variant_column,
)
from schedsim.experiments.spec import TargetSpec
from schedsim.plots import COLORS, MARKERS, METRIC_LABELS, STYLE, register_figure

if TYPE_CHECKING:
    import pandas as pd


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
