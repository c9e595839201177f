"""GOAL family: its figures the generic ones cannot draw and its columns' labels
(``GoalFamily.figures_module``: only its figure jobs import them)."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from schedsim import plots
from schedsim.experiments.families.goal import (
    F4_METRICS,
    FAMILY_NAME,
    GOAL,
    PARTITION_METRICS,
    show,
)
from schedsim.experiments.spec import TargetSpec
from schedsim.plots import COLORS, LINESTYLES, MARKERS, STYLE, register_figure, register_labels

if TYPE_CHECKING:
    import pandas as pd


NAMES = {"max_wait": "maximum wait (s)", "AWT": "mean wait (s)", "mean_wait": "mean wait (s)",
         "BSLD": "mean bounded slowdown", "mean_bsld": "mean bounded slowdown",
         "long_waits": "jobs waiting > 24 h"}


# ----------------------------------------------------------------------------- figures


COUNTS = ("long_waits", "jobs")  # metrics that count jobs: integer axes

register_labels(FAMILY_NAME, {**NAMES, "node_limit": "node limit L",
                              **{f"p{p}_{m}": f"partition {p}: {NAMES.get(m, m.replace('_', ' '))}"
                                 for p in (1, 2) for m in PARTITION_METRICS}})


@register_figure("goal-months")
def months_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """One panel per metric (``figure.metrics``), months on the x axis, one line per policy
    (seeded targets, without months: the mean with its CI per policy); under each row of
    metrics, the paired differences over the months (or seeds) the claims test."""
    import matplotlib

    seeds = plots.seeds_of(table, spec)
    metrics = list(spec.figure.metrics) or list(F4_METRICS)
    columns = min(4, len(metrics))
    blocks = math.ceil(len(metrics) / columns)
    with matplotlib.rc_context(STYLE):
        fig, grid = plots.grid_of(2 * blocks, columns, width=4.3, height=3.1)
        for index, metric in enumerate(metrics):
            block, column = divmod(index, columns)
            ax, diff_ax = grid[2 * block][column], grid[2 * block + 1][column]
            if spec.seed_labels:
                _month_lines(ax, seeds, spec, metric)
            else:
                _policy_bars(ax, table, spec, metric)
            ax.set_title(f"{plots.letter(index)} {plots.name_of(spec, metric)}", fontsize=9)
            plots.metric_axis(ax, spec, metric)
            if metric.endswith(COUNTS):
                plots.integer_axis(ax)
            ax.grid(alpha=0.3)
            diffs = plots.paired_differences(seeds, spec, metric)
            plots.draw_difference_forest(diff_ax, diffs, spec, metric, tick_labels=column == 0)
            diff_ax.set_title(f"{plots.letter(len(metrics) + index)} "
                              f"{plots.difference_title(spec, metric)}", fontsize=8)
        for row in grid:
            for ax in row:
                if not ax.has_data():
                    ax.set_visible(False)
        plots.outside_legend(fig, [grid[0][0]])
        where = f" on {spec.trace}" if spec.trace else ""
        months = len(spec.seed_labels)
        what = (f"one run per month ({months} month{'s' if months > 1 else ''})"
                if spec.seed_labels
                else f"mean of {plots.replications(table)} {spec.seed_unit}, {spec.level:.0%} CI")
        plots.suptitle(fig, f"{spec.target}{where}: {what}; {plots.significance_note(spec)}")
    return fig


def _month_lines(ax: Any, seeds: pd.DataFrame, spec: TargetSpec, metric: str) -> None:
    labels = [spec.seed_labels[str(s)] for s in sorted(int(k) for k in spec.seed_labels)]
    for index, policy in enumerate(spec.policies):
        part = seeds[seeds["policy"] == policy]
        if "node_limit" in part:
            part = part[part["node_limit"].isna() | (part["node_limit"] == 4000)]
        part = part.sort_values("seed")
        ax.plot([int(s) - 1 for s in part["seed"]], part[metric],
                color=COLORS[index % len(COLORS)], marker=MARKERS[index % len(MARKERS)],
                linestyle=LINESTYLES[index % len(LINESTYLES)], label=show(policy, spec),
                linewidth=1.2, markersize=4)
    ax.set_xticks(range(len(labels)), [label[2:] for label in labels], rotation=45)
    ax.set_xlabel("month (yy-mm)")


def _policy_bars(ax: Any, table: pd.DataFrame, spec: TargetSpec, metric: str) -> None:
    for index, policy in enumerate(spec.policies):
        row = table[table["policy"] == policy]
        if row.empty or f"{metric}_mean" not in row:
            continue
        mean = float(row[f"{metric}_mean"].iloc[0])
        half = float(row[f"{metric}_ci_half"].fillna(0.0).iloc[0])
        ax.bar(index, mean, yerr=half, capsize=3, color=COLORS[index % len(COLORS)],
               label=show(policy, spec))
    ax.set_xticks(range(len(spec.policies)), ["" for _ in spec.policies])


@register_figure("goal-node-limit")
def node_limit_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """GOAL paper Fig. 8: maximum wait (overall, partition 1, partition 2) against the node
    limit (log scale), the backfills, which take no limit, as horizontal lines; below,
    the goal-oriented policy's change from the smallest limit (``figure.compare_x``). The
    caption says how many values each maximum takes: one job's wait decides it."""
    import matplotlib

    seeds = plots.seeds_of(table, spec)
    metrics = list(spec.figure.metrics) or ["max_wait", "p1_max_wait", "p2_max_wait"]
    with matplotlib.rc_context(STYLE):
        fig, grid = plots.grid_of(2, len(metrics), width=4.3, height=3.2)
        goal = table[(table["policy"] == GOAL) & table["node_limit"].notna()]
        goal = goal.sort_values("node_limit")
        limits = list(goal["node_limit"])
        for index, metric in enumerate(metrics):
            ax, diff_ax = grid[0][index], grid[1][index]
            ax.errorbar(goal["node_limit"], goal[f"{metric}_mean"],
                        yerr=goal[f"{metric}_ci_half"].fillna(0.0), color=COLORS[2],
                        marker="o", capsize=2.5, label=show(GOAL, spec))
            for number, policy in enumerate(p for p in spec.policies if p != GOAL):
                row = table[table["policy"] == policy]
                if not row.empty:
                    ax.axhline(float(row[f"{metric}_mean"].iloc[0]), color=COLORS[number],
                               linestyle=LINESTYLES[(number + 1) % len(LINESTYLES)],
                               label=show(policy, spec))
            ax.set_title(f"{plots.letter(index)} {plots.name_of(spec, metric)}", fontsize=9)
            plots.metric_axis(ax, spec, metric)
            diffs = plots.paired_differences(seeds, spec, metric) \
                if spec.figure.compare_x is not None else []
            plots.draw_difference_curves(diff_ax, diffs, spec, metric)
            diff_ax.set_title(f"{plots.letter(len(metrics) + index)} "
                              f"{plots.difference_title(spec, metric)}", fontsize=8)
            for axis in (ax, diff_ax):
                axis.set_xscale("log", base=2)
                axis.set_xticks(limits, [f"{x / 1000:g}k" if x >= 1000 else f"{x:g}"
                                         for x in limits])
                axis.minorticks_off()
                axis.grid(alpha=0.3)
            diff_ax.set_xlabel(plots.name_of(spec, "node_limit"))
        plots.outside_legend(fig, [grid[0][0]])
        where = f" on {spec.trace}" if spec.trace else ""
        note = textwrap.fill(_one_job_note(seeds, metrics), 150)
        months = [spec.seed_labels[k] for k in sorted(spec.seed_labels, key=int)]
        plots.suptitle(fig, f"{spec.target}{where}: {', '.join(months)}; "
                     f"{plots.significance_note(spec)}\n{note}")
    return fig


def _one_job_note(seeds: pd.DataFrame, metrics: Sequence[str]) -> str:
    """How many values the goal-oriented policy's maxima take over the limits: each is one
    job's wait, so a curve jumps when another job becomes the longest waiter."""
    rows = seeds[(seeds["policy"] == GOAL) & seeds["node_limit"].notna()]
    parts = []
    for metric in metrics:
        found = sorted({round(float(v)) for v in rows[metric].dropna()})
        if found:
            shown = (f"{found[0]:,} .. {found[-1]:,} s" if len(found) > 1 else f"{found[0]:,} s")
            parts.append(f"{name_of_goal(metric)}: {len(found)} values ({shown})")
    return ("Each maximum is one job's wait, decided by that job alone (a curve jumps when "
            "another job becomes the longest waiter); over the limits: " + "; ".join(parts))


def name_of_goal(metric: str) -> str:
    return _metric_name(metric).replace(" (s)", "")


def _metric_name(metric: str) -> str:
    if metric[:3] in ("p1_", "p2_"):
        return f"partition {metric[1]}: {NAMES.get(metric[3:], metric[3:].replace('_', ' '))}"
    return NAMES.get(metric, metric)
