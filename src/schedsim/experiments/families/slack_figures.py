"""SLACK family: its figures the generic ones cannot draw, its columns' labels and the
paper's values drawn beside ours (``SlackFamily.figures_module``: only its figure jobs import
them)."""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from schedsim import plots
from schedsim.experiments.families.slack import (
    F9,
    F11,
    F17,
    FAMILY_NAME,
    FIG6_WAITS,
    ORIGINAL,
    PAPER_F9,
    PAPER_F17,
    PAPER_T4,
    PLAIN,
    PLAIN_SLACK,
    SLACK,
    T4,
    W1,
    W2,
    WORKLOAD_NAMES,
    improvement,
    values,
)
from schedsim.experiments.families.slack_measure import CLASSES, TAUS
from schedsim.experiments.spec import TargetSpec
from schedsim.plots import (
    COLORS,
    MINUS,
    PAPER_STYLE,
    STYLE,
    Difference,
    PaperValue,
    register_figure,
    register_labels,
    register_paper_values,
)
from schedsim.tables import SEEDS_SUFFIX, select

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pandas as pd


FIG6_PRINTED = (1.50, 1.21, 1.20)  # sec. 4.3.1's text: "almost 1.50", "1.21", "1.20"


@register_figure("slack-factor")
def slack_factor_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """Eq. 5 over the predicted wait, with the values the thesis prints in sec. 4.3.1 (its
    Fig. 6 is not in our copy) and eq. 5's own values at those three waits."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(5.6, 3.6), layout="constrained")
        ax = fig.subplots()
        ax.plot(table["wait_s"], table["slack_factor"], color=COLORS[0],
                label="eq. 5 with Table 3's constants (ours)")
        marked = table[table["wait_s"].isin(FIG6_WAITS)]
        ax.scatter(marked["wait_s"], marked["slack_factor"], color=COLORS[0], marker="o",
                   zorder=4, label="eq. 5 at 5,000 / 65,000 / 125,000 s (ours)")
        ax.scatter(FIG6_WAITS, FIG6_PRINTED, label="thesis, sec. 4.3.1: 1.50, 1.21, 1.20",
                   **PAPER_STYLE)
        for wait, ours, printed in zip(marked["wait_s"], marked["slack_factor"], FIG6_PRINTED,
                                       strict=True):
            ax.annotate(f"ours {ours:.4f}\nthesis {printed:.2f}", (wait, max(ours, printed)),
                        textcoords="offset points", xytext=(0, 10), ha="center", fontsize=7)
        ax.set_xlabel("predicted waiting time $T_{wait}$ (s)")
        ax.set_ylabel("slack factor $F_{slack}$")
        ax.set_ylim(1.1, 1.65)
        ax.grid(alpha=0.3)
        fig.legend(loc="outside lower center", frameon=False, ncols=1)
        plots.suptitle(fig, f"{spec.target}: the slack factor of eq. 5 (thesis Fig. 6)")
    return fig


# ----------------------------------------------------------------------------- figure

MACHINES = (("Scojo-PECT (time-sliced)", (ORIGINAL, SLACK)), ("plain machine", (PLAIN,
                                                                                PLAIN_SLACK)))
F11_FLAT_FROM = {W1: 20.0, W2: 30.0}  # sec. 5.3: no gain beyond lookahead 20 (W1), 30 (W2)

register_labels(FAMILY_NAME, {
    "aarr": "workload $\\alpha$ (Lublin's aarr)", "lookahead": "lookahead (jobs)",
    "slack_up": "SLACK_UP", "goal": "goal",
    **{f"{prefix}_{klass}": f"RR{'' if prefix == 'RR' else ' (tau 60 s)'}, "
       f"{'all jobs' if klass == 'all' else klass + ' jobs'}"
       for prefix in TAUS for klass in CLASSES},
    "utilization": "utilization"})


def _curves(table: pd.DataFrame, spec: TargetSpec,
            policies: tuple[str, ...]) -> list[tuple[str, pd.DataFrame]]:
    """One curve per policy and goal, and per workload unless the workload is the x."""
    by_workload = spec.x != "aarr" and "aarr" in table and table["aarr"].nunique() > 1
    workloads = sorted(table["aarr"].unique()) if by_workload else [None]
    out = []
    for aarr in workloads:
        for policy in [p for p in spec.policies if p in policies]:
            rows = select(table, {"policy": policy} if aarr is None else
                          {"policy": policy, "aarr": aarr})
            goals = sorted({g for g in rows.get("goal", []) if isinstance(g, str)})
            for goal in goals or [None]:
                part = rows if goal is None else rows[rows["goal"] == goal]
                out.append((_curve_name(spec, policy, goal, aarr), part))
    return out


def _curve_name(spec: TargetSpec, policy: str, goal: str | None, aarr: float | None) -> str:
    name = spec.show(policy) + (f" {goal}" if goal else "")
    if aarr is not None:
        name += f", {WORKLOAD_NAMES.get(float(aarr), '')} ($\\alpha$ {aarr:g})"
    return name


def _machines(spec: TargetSpec) -> list[tuple[str, tuple[str, ...]]]:
    """The machines whose policies the target runs: time-sliced and plain apart, so that
    neither's relative response times squash the other's."""
    return [(name, policies) for name, policies in MACHINES
            if any(p in spec.policies for p in policies)]


@register_figure("slack-rr")
def rr_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """The figure's metrics (default RR of long, medium and all jobs), one column each, one
    row per machine (time-sliced, plain), one line per policy and goal against the
    target's x with its interval (bars where the target has one x); below, the paired
    differences the claims test and, where the thesis prints improvements, every seed's %
    improvement beside the thesis's value."""
    import matplotlib

    x = spec.x or "aarr"
    metrics = list(spec.figure.metrics) or ["RR_long", "RR_medium", "RR_all"]
    seeds = plots.seeds_of(table, spec)
    machines = _machines(spec)
    blocks = _difference_blocks(seeds, spec, metrics, machines)
    printed = _printed_improvements(spec, metrics)
    rows = len(machines) + len(blocks) + (1 if printed else 0)
    curves = [_curves(table, spec, policies) for _, policies in machines]
    styles = plots.styles_by_name(name for machine in curves for name, _ in machine)
    difference_styles = plots.styles_by_name(
        (d.label for _, by_metric in blocks for diffs in by_metric.values() for d in diffs),
        differences=True)
    with matplotlib.rc_context(STYLE):
        fig, grid = plots.grid_of(rows, len(metrics), width=4.4, height=3.1)
        for row, (machine, _) in enumerate(machines):
            for column, metric in enumerate(metrics):
                ax = grid[row][column]
                _rr_panel(ax, table, spec, metric, x, curves[row], styles)
                ax.set_title(f"{plots.letter(row * len(metrics) + column)} {machine}: "
                             f"{plots.name_of(spec, metric)}")
        for offset, (title, by_metric) in enumerate(blocks, start=len(machines)):
            for column, metric in enumerate(metrics):
                ax = grid[offset][column]
                _draw_block(ax, by_metric[metric], spec, metric, x, column == 0,
                            difference_styles)
                ax.set_title(f"{plots.letter(offset * len(metrics) + column)} {title}", fontsize=8)
        if printed:
            for column, metric in enumerate(metrics):
                if metric.startswith(tuple(TAUS)):
                    _improvement_panel(grid[-1][column], seeds, spec, metric, printed,
                                       column == 0)
                else:  # the thesis prints improvements of relative response times only
                    grid[-1][column].set_visible(False)
        plots.outside_legend(fig, [ax for line in grid for ax in line], columns=3)
        plots.suptitle(fig, f"{spec.target}: mean of {plots.replications(table)} {spec.seed_unit}, "
                     f"{spec.level:.0%} CI; {plots.significance_note(spec)}")
    return fig


def _rr_panel(ax: Any, table: pd.DataFrame, spec: TargetSpec, metric: str, x: str,
              curves: list[tuple[str, pd.DataFrame]],
              styles: Mapping[str, Mapping[str, Any]]) -> None:
    as_bars = x not in table or table[x].nunique() <= 1
    paper = [v for v in plots.paper_values(spec) if v.metric == metric]
    for number, (name, part) in enumerate(curves):
        part = part.sort_values(x) if x in part else part
        mean = part[f"{metric}_mean"]
        err = [mean - part[f"{metric}_ci_low"], part[f"{metric}_ci_high"] - mean]
        style = styles[name]
        if as_bars:
            ax.bar([number] * len(part), mean, yerr=err, capsize=3, color=style["color"],
                   label=name)
        else:
            ax.errorbar(part[x], mean, yerr=err, markersize=4, capsize=2, label=name,
                        **style)
    if as_bars:
        ax.set_xticks(range(len(curves)), [name for name, _ in curves], rotation=30,
                      ha="right", fontsize=7)
    else:
        ax.set_xlabel(plots.name_of(spec, x))
        plots.set_x_ticks(ax, sorted(table[x].dropna().unique()))
    if paper and not as_bars:
        plots.draw_paper(ax, paper, None, f"thesis ({paper[0].source})")
    plots.metric_axis(ax, spec, metric)
    ax.grid(alpha=0.3)


def _difference_blocks(seeds: pd.DataFrame, spec: TargetSpec, metrics: list[str],
                       machines: list[tuple[str, tuple[str, ...]]]
                       ) -> list[tuple[str, dict[str, list[Difference]]]]:
    """Rows of paired differences: per machine its policy pairs (``figure.compare``); for
    SLACK-F11 each curve minus itself at the lookahead the thesis says it flattens from;
    for ``compare_x`` each curve minus itself there; for Table 4 each workload minus the
    next (the ordering claim's pairs)."""
    base = spec.base or spec.target
    if base == F11:
        return [("minus the same curve at lookahead 20 (W1) / 30 (W2)",
                 {m: _flat_from_differences(seeds, spec, m) for m in metrics})]
    if base == T4:
        return [("each workload minus the next lighter one, paired",
                 {m: _adjacent_differences(seeds, spec, m) for m in metrics})]
    if spec.figure.compare_x is not None:
        return [(f"minus the same curve at {plots.name_of(spec, str(spec.x))} = "
                 f"{spec.figure.compare_x:g}",
                 {m: plots.paired_differences(seeds, spec, m) for m in metrics})]
    out = []
    for machine, policies in machines:
        by_metric = {m: [d for d in plots.paired_differences(seeds, spec, m)
                         if d.a in policies and d.b in policies] for m in metrics}
        if any(by_metric.values()):
            out.append((f"{machine}: A {MINUS} B, paired", by_metric))
    return out


def _flat_from_differences(seeds: pd.DataFrame, spec: TargetSpec,
                           metric: str) -> list[Difference]:
    out = []
    for aarr, x0 in F11_FLAT_FROM.items():
        found = plots.curve_differences(seeds, spec, metric, x0)
        out += [replace(d, label=f"{d.label}, {WORKLOAD_NAMES[aarr]} (minus {x0:g})")
                for d in found if _aarr_of(seeds, d) == aarr]
    return out


def _adjacent_differences(seeds: pd.DataFrame, spec: TargetSpec,
                          metric: str) -> list[Difference]:
    from schedsim.verdicts import paired

    found = sorted({float(v) for v in seeds["aarr"]})
    out = []
    for heavier, lighter in pairwise(found):
        ours = values({f"{T4}{SEEDS_SUFFIX}": seeds}, T4, metric, policy=ORIGINAL,
                      aarr=heavier)
        theirs = values({f"{T4}{SEEDS_SUFFIX}": seeds}, T4, metric, policy=ORIGINAL,
                        aarr=lighter)
        out.append(Difference(f"$\\alpha$ {heavier:g} {MINUS} {lighter:g}", ORIGINAL, ORIGINAL,
                              "", "", metric, math.nan, paired(ours, theirs, spec.level)))
    return out


def _aarr_of(seeds: pd.DataFrame, diff: Difference) -> float:
    rows = seeds[seeds["workload"] == diff.variant]
    return float(rows["aarr"].iloc[0]) if len(rows) else math.nan


def _draw_block(ax: Any, diffs: list[Difference], spec: TargetSpec, metric: str, x: str,
                tick_labels: bool, styles: Mapping[str, Mapping[str, Any]]) -> None:
    if all(math.isnan(d.x) for d in diffs) or len({d.x for d in diffs}) <= 1:
        plots.draw_difference_forest(ax, diffs, spec, metric, tick_labels=tick_labels,
                                     styles=styles)
        ax.tick_params(axis="y", labelsize=7)
    else:
        plots.draw_difference_curves(ax, diffs, spec, metric, styles)
        ax.set_xlabel(plots.name_of(spec, x))


PAPER_SOURCES = {F9: "sec. 5.2", F17: "sec. 5.4", T4: "Table 4"}


def _printed_improvements(spec: TargetSpec, metrics: list[str]
                          ) -> dict[tuple[float, str], dict[str, float]]:
    """The % improvements the thesis prints for this target: (aarr, goal) -> class -> %."""
    base = spec.base or spec.target
    if base == F9:
        return {(W1, goal): dict(values) for goal, values in PAPER_F9.items()}
    if base == F17:
        return {key: dict(values) for key, values in PAPER_F17.items()}
    return {}


def _improvement_panel(ax: Any, seeds: pd.DataFrame, spec: TargetSpec, metric: str,
                       printed: dict[tuple[float, str], dict[str, float]],
                       tick_labels: bool) -> None:
    """Every seed's % improvement of Scojo-PECT + slack over the original (the magnitude
    claims' values), with the thesis's printed % as a star."""
    klass = metric.split("_", 1)[1] if "_" in metric else metric
    target = spec.target
    tables = {f"{target}{SEEDS_SUFFIX}": seeds}
    labels: list[str] = []
    for (aarr, goal), by_class in printed.items():
        if aarr not in {float(v) for v in seeds["aarr"]}:
            continue
        found = improvement(tables, target, metric, aarr, goal)
        first = not labels
        labels.append(f"{goal}, {WORKLOAD_NAMES.get(aarr, '')} ($\\alpha$ {aarr:g})")
        position = len(labels) - 1
        ax.scatter(found, [position] * len(found), s=12, color="#555555", alpha=0.7,
                   label="% improvement, one dot per seed" if first else None)
        if len(found):
            ax.scatter([found.mean()], [position], marker="|", s=200, color="black",
                       label="% improvement, mean over seeds" if first else None)
        if klass in by_class:
            ax.scatter([by_class[klass]], [position],
                       label=f"thesis ({PAPER_SOURCES[spec.base or spec.target]})"
                       if first else None, **PAPER_STYLE)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(labels)), labels if tick_labels else [""] * len(labels),
                  fontsize=7)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xlabel(f"% improvement over {spec.show(ORIGINAL)}")
    ax.set_title(f"{spec.show(SLACK)}, % improvement per seed: {plots.name_of(spec, metric)}",
                 fontsize=8)
    ax.grid(alpha=0.3)


@register_paper_values(T4)
def table4_values(spec: TargetSpec) -> list[PaperValue]:
    """Table 4's utilizations (the original Scojo-PECT), as fractions at their alpha."""
    return [PaperValue("utilization", value / 100.0, ORIGINAL, x=aarr, source="Table 4")
            for aarr, value in PAPER_T4.items()]


@register_figure("slack-improvement")
def improvement_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """Figs. 23-24: bars of the % improvement per workload, one group per class, one panel
    per goal, with 95% intervals."""
    import matplotlib
    from matplotlib.figure import Figure

    goals = list(dict.fromkeys(table["goal"]))
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(4.6 * max(1, len(goals)), 3.6), layout="constrained")
        axes = list(fig.subplots(1, max(1, len(goals)), squeeze=False).flat)
        for ax, goal in zip(axes, goals, strict=False):
            part = table[table["goal"] == goal]
            loads = sorted(set(part["aarr"]))
            classes = list(dict.fromkeys(part["class"]))
            width = 0.8 / max(1, len(loads))
            for index, aarr in enumerate(loads):
                rows = part[part["aarr"] == aarr].set_index("class").loc[classes]
                mean = rows["improvement_mean"].to_numpy()
                err = [mean - rows["improvement_ci_low"].to_numpy(),
                       rows["improvement_ci_high"].to_numpy() - mean]
                ax.bar([c + (index - (len(loads) - 1) / 2) * width for c in range(len(classes))],
                       mean, width=width, yerr=err, capsize=2, color=COLORS[index % len(COLORS)],
                       label=f"{WORKLOAD_NAMES.get(aarr, '')} (aarr {aarr:g})")
            ax.set_xticks(range(len(classes)), classes)
            ax.axhline(0, color="black", linewidth=0.6)
            ax.set_ylabel("% improvement of RR over the original")
            ax.set_title(f"goal {goal}", fontsize=9)
            ax.legend(fontsize=7)
    return fig
