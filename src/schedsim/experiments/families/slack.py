"""The SLACK family: slack-based fair backfilling inside Scojo-PECT time slicing.

W. Jin, "Backfilling with Fairness and Slack for Parallel Job Scheduling", MSc thesis,
University of Windsor, 2009 (the thesis). 128 processors, 10,000 typeless ``lublin99``
jobs per workload, the thesis's alpha read as the arrival gamma's shape (``aarr``, with
``arar`` 1): 10.05 (W4, very heavy), 10.23 (W1, high), 10.33 (W2, normal), 10.43 and
10.73 (W3, light); eleven seeds (sec. 5.1, Table 2).

Policies: ``scojo-conservative`` (the thesis's "original" Scojo-PECT), ``scojo-slack``
(goals G1 and G2, the sweep parameter ``goal``), and the same ideas on a plain machine:
``conservative`` and ``slack-backfill``. Every run records the relative response time
(response / max(run time, tau), tau 10 s and 60 s) of long, medium, short and all jobs,
utilization, and for the slack policies sec. 5.4's unfair and preferential counts.

Targets: SLACK-F6 (the slack factor, eq. 5), SLACK-F9 (W1, both goals), SLACK-F11
(lookahead on W1 and W2), SLACK-F15 (SLACK_UP on W1), SLACK-T4 (utilization per
workload) and SLACK-F17 (every workload). Open points: docs/deviations-slack.md;
results: docs/results-slack.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from schedsim import plots
from schedsim.claims import claim
from schedsim.experiments.families.slack_measure import CLASSES, TAUS, WORKLOAD_SHARES
from schedsim.experiments.family import POSITIVE, Family, Variant, axis_schemas, options_schema
from schedsim.experiments.kinds import SEEDS_SUFFIX, derived_function, example_function
from schedsim.experiments.spec import TargetSpec, fmt_value
from schedsim.plots import (
    COLORS,
    LINESTYLES,
    MARKERS,
    MINUS,
    PAPER_STYLE,
    STYLE,
    Difference,
    PaperValue,
    register_figure,
    register_labels,
    register_paper_values,
)
from schedsim.policies.slack import SlackSettings, slack_factor
from schedsim.tables import claim_level, per_seed, seeds_of, select
from schedsim.verdicts import (
    Judgement,
    Pair,
    beats,
    close,
    combine,
    flattens,
    informational,
    magnitude,
    not_checkable,
    ordering,
    trend,
)

if TYPE_CHECKING:
    import pandas as pd

FAMILY_NAME = "slack"
F6, F9, F11, F15, T4, F17 = ("SLACK-F6", "SLACK-F9", "SLACK-F11", "SLACK-F15", "SLACK-T4",
                             "SLACK-F17")
F23 = "SLACK-F23"
# Sec. 5.3: the four parameters that "do not change the performance significantly", each
# swept by its own target: (target, parameter, Table 3's value).
OTHER_PARAMS = (("SLACK-DOWN", "slack_down", 1.2), ("SLACK-MINIMAL", "slack_minimal", 1.1),
                ("SLACK-K1", "k1", -0.5), ("SLACK-K2", "k2", 0.4))
ORIGINAL, SLACK, PLAIN, PLAIN_SLACK = ("scojo-conservative", "scojo-slack", "conservative",
                                       "slack-backfill")
METRICS = (*(f"{prefix}_{c}" for prefix in TAUS for c in CLASSES), "utilization", "AWT",
           "ATT", "unfair", "preferential", "unfair_mean_s", "preferential_mean_s",
           "nodes_per_call", "bound_hits", "unfair_short", "unfair_medium", "unfair_long",
           "past_bound",
           *WORKLOAD_SHARES)
WORKLOAD_NAMES = {10.05: "W4", 10.23: "W1", 10.33: "W2", 10.43: "W3", 10.73: "W3"}
W1, W2 = 10.23, 10.33


class SlackFamily(Family):
    """Config section ``slack``: variant axis ``aarr`` (default ``options.aarr``), one
    ``lublin99`` workload each (``workload.params`` give typed=false and arar)."""

    name = FAMILY_NAME
    variant_column = "workload"
    metrics = METRICS
    measure = "schedsim.experiments.families.slack_measure"
    axes = axis_schemas(aarr=POSITIVE)
    options = options_schema(aarr=POSITIVE)
    policy_families = ("slack", "backfill")

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        given = values.get("aarr", (section.get("options") or {}).get("aarr", W1))
        out = []
        for aarr in given if isinstance(given, list | tuple) else [given]:
            value = float(aarr)
            out.append(Variant(f"aarr{fmt_value(value)}", {"aarr": value},
                               {"panel": panel, "aarr": value,
                                "load_name": WORKLOAD_NAMES.get(value, "")}))
        return out


FAMILY = SlackFamily()


# ----------------------------------------------------------------------------- SLACK-F6


FIG6_WAITS = (5_000.0, 65_000.0, 125_000.0)
FIG6_PAPER = (1.50, 1.21, 1.20)  # the text of sec. 4.3.1 (Fig. 6): "almost 1.50", 1.21, 1.20


@example_function("slack-factor")
def slack_factor_table(spec: TargetSpec | None = None) -> pd.DataFrame:
    """F_slack (eq. 5, Table 3's constants) over predicted waits 0..150,000 s, with the
    thesis's three values beside ours."""
    import pandas as pd

    settings = SlackSettings()
    waits = sorted({*np.arange(0.0, 150_001.0, 2_500.0).tolist(), *FIG6_WAITS})
    paper = dict(zip(FIG6_WAITS, FIG6_PAPER, strict=True))
    return pd.DataFrame({"wait_s": waits,
                         "slack_factor": [slack_factor(w, settings) for w in waits],
                         "paper": [paper.get(w, math.nan) for w in waits]})


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
    with matplotlib.rc_context(STYLE):
        fig, grid = plots.grid_of(rows, len(metrics), width=4.4, height=3.1)
        for row, (machine, policies) in enumerate(machines):
            for column, metric in enumerate(metrics):
                ax = grid[row][column]
                _rr_panel(ax, table, spec, metric, x, _curves(table, spec, policies))
                ax.set_title(f"{plots.letter(row * len(metrics) + column)} {machine}: "
                             f"{plots.name_of(spec, metric)}")
        for offset, (title, by_metric) in enumerate(blocks, start=len(machines)):
            for column, metric in enumerate(metrics):
                ax = grid[offset][column]
                _draw_block(ax, by_metric[metric], spec, metric, x, column == 0)
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
              curves: list[tuple[str, pd.DataFrame]]) -> None:
    as_bars = x not in table or table[x].nunique() <= 1
    paper = [v for v in plots.paper_values(spec) if v.metric == metric]
    for number, (name, part) in enumerate(curves):
        part = part.sort_values(x) if x in part else part
        mean = part[f"{metric}_mean"]
        err = [mean - part[f"{metric}_ci_low"], part[f"{metric}_ci_high"] - mean]
        style = {"color": COLORS[number % len(COLORS)], "label": name}
        if as_bars:
            ax.bar([number] * len(part), mean, yerr=err, capsize=3, **style)
        else:
            ax.errorbar(part[x], mean, yerr=err, marker=MARKERS[number % len(MARKERS)],
                        linestyle=LINESTYLES[number % len(LINESTYLES)], markersize=4,
                        capsize=2, **style)
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
                tick_labels: bool) -> None:
    if all(math.isnan(d.x) for d in diffs) or len({d.x for d in diffs}) <= 1:
        plots.draw_difference_forest(ax, diffs, spec, metric, tick_labels=tick_labels)
        ax.tick_params(axis="y", labelsize=7)
    else:
        plots.draw_difference_curves(ax, diffs, spec, metric)
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


# ----------------------------------------------------------------------------- helpers


def rr(settings: Mapping[str, Any], klass: str) -> str:
    """The relative-response column of a class under the claims' tau (10 s or 60 s)."""
    return f"{'RR60' if float(settings.get('tau', 10)) == 60 else 'RR'}_{klass}"


def where(policy: str, aarr: float, goal: str | None = None,
          **params: float) -> dict[str, Any]:
    found: dict[str, Any] = {"policy": policy, "aarr": aarr, **params}
    if goal is not None:
        found["goal"] = goal
    return found


def values(tables: Mapping[str, pd.DataFrame], target: str, metric: str,
           **keys: Any) -> pd.Series:
    return per_seed(seeds_of(tables, target), metric, where(**keys))


def improvement(tables: Mapping[str, pd.DataFrame], target: str, metric: str, aarr: float,
                goal: str, new: str = SLACK, base: str = ORIGINAL) -> pd.Series:
    """Per seed: % improvement of ``new`` (with ``goal``) over ``base`` in ``metric``."""
    ours = values(tables, target, metric, policy=new, aarr=aarr, goal=goal)
    baseline = values(tables, target, metric, policy=base, aarr=aarr)
    return (100.0 * (baseline - ours) / baseline).dropna()


def aarrs(tables: Mapping[str, pd.DataFrame], target: str) -> list[float]:
    return sorted({float(v) for v in seeds_of(tables, target)["aarr"]})


def goals_of(tables: Mapping[str, pd.DataFrame], target: str) -> list[str]:
    """The goals the target ran (G1, G2, in that order)."""
    found = set(seeds_of(tables, target).get("goal", []))
    return [goal for goal in ("G1", "G2") if goal in found]


def has_policies(tables: Mapping[str, pd.DataFrame], target: str, *policies: str) -> str | None:
    found = set(seeds_of(tables, target)["policy"])
    missing = [p for p in policies if p not in found]
    return f"{target} has no runs of {', '.join(missing)}" if missing else None


def describe(series: pd.Series) -> str:
    data = series.dropna()
    if data.empty:
        return "no values"
    return f"{data.mean():.2f}% (seeds {data.min():.2f}..{data.max():.2f})"


# ----------------------------------------------------------------------------- claims


@claim(FAMILY_NAME, F6, "F6-slack-factor", "The slack factor of eq. 5 with Table 3's "
       "constants falls from almost 1.50 at a 5,000 s wait to 1.21 at 65,000 s and 1.20 at "
       "125,000 s (sec. 4.3.1, Fig. 6)", "1.50 / 1.21 / 1.20")
def claim_f6(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    table = tables[F6]
    ours = [float(table.loc[table["wait_s"] == wait, "slack_factor"].iloc[0])
            for wait in FIG6_WAITS]
    return informational(" / ".join(f"{v:.4f}" for v in ours) + " at 5,000 / 65,000 / "
                         "125,000 s", "true by construction: the unit of T_wait in eq. 5 "
                         "(10,000 s, `wait_unit`) was chosen so that this curve matches "
                         "Fig. 6, so the figure cannot confirm it (docs/deviations-slack.md S1)")


PAPER_F9 = {"G1": {"long": 10.49, "medium": 7.89, "all": 6.92},
            "G2": {"long": 9.73, "medium": 11.99, "all": 8.13}}


def improvement_check(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any],
                      target: str, aarr: float, goal: str,
                      paper: Mapping[str, float]) -> Judgement:
    """Sign (slack beats the original, paired) and magnitude (the paper's % inside the
    central ``coverage`` of our per-seed improvements), per class."""
    missing = has_policies(tables, target, ORIGINAL, SLACK)
    if missing:
        return not_checkable(missing)
    coverage = float(settings.get("coverage", 0.95))
    checks = []
    for klass, paper_value in paper.items():
        metric = rr(settings, klass)
        sign = beats([Pair(f"{klass} aarr {aarr:g} {goal}",
                           values(tables, target, metric, policy=SLACK, aarr=aarr, goal=goal),
                           values(tables, target, metric, policy=ORIGINAL, aarr=aarr))],
                     level=claim_level(settings))
        size = magnitude(paper_value, improvement(tables, target, metric, aarr, goal),
                         coverage)
        checks.append(combine([sign, size], f"{klass} {paper_value}%"))
    return combine(checks, f"{goal}: improvement over the original, long / medium / all")


@claim(FAMILY_NAME, F9, "F9-g1-improvement", "On W1 slack-based backfilling with goal G1 "
       "improves the original Scojo-PECT's relative response time by 10.49% (long), 7.89% "
       "(medium), 6.92% (all jobs) (sec. 5.2, Fig. 9)", "10.49 / 7.89 / 6.92%")
def claim_f9_g1(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return improvement_check(tables, settings, F9, W1, "G1", PAPER_F9["G1"])


@claim(FAMILY_NAME, F9, "F9-g2-improvement", "On W1 goal G2 improves it by 9.73% (long), "
       "11.99% (medium), 8.13% (all jobs) (sec. 5.2, Fig. 10)", "9.73 / 11.99 / 8.13%")
def claim_f9_g2(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return improvement_check(tables, settings, F9, W1, "G2", PAPER_F9["G2"])


@claim(FAMILY_NAME, F9, "F9-g2-over-g1", "G2 performs a little better than G1 (sec. 5.2)",
       "G2 RR below G1's (all jobs)")
def claim_f9_goals(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F9, SLACK)
    if missing:
        return not_checkable(missing)
    metric = rr(settings, "all")
    return beats([Pair(f"W1 {metric}", values(tables, F9, metric, policy=SLACK, aarr=W1,
                                              goal="G2"),
                       values(tables, F9, metric, policy=SLACK, aarr=W1, goal="G1"))],
                 level=claim_level(settings))


@claim(FAMILY_NAME, F9, "F9-plain-machine", "The same selection on a plain machine (no time "
       "slicing): slack-backfill against conservative backfilling, W1 (not in the thesis)",
       "not run in the thesis")
def claim_f9_plain(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F9, PLAIN, PLAIN_SLACK)
    if missing:
        return not_checkable(missing)
    parts = [f"{goal} {klass}: " + describe(improvement(
        tables, F9, rr(settings, klass), W1, goal, PLAIN_SLACK, PLAIN))
        for goal in ("G1", "G2") for klass in ("long", "medium", "all")]
    return informational("; ".join(parts), "% improvement of slack-backfill over "
                         "conservative in relative response time, mean over seeds")


PAPER_FAIRNESS = {"unfair": 800.0, "unfair_mean_s": 160.0, "preferential": 50.0,
                  "preferential_mean_s": 20_000.0}


@claim(FAMILY_NAME, F9, "F9-fairness-counts", "About 800 of 10,000 jobs are treated unfairly "
       "(about 160 s late on average) and about 50 preferentially (about 20,000 s early) "
       "(sec. 5.4): W1, both goals, each count within our seeds' central 95%",
       "~800 unfair (160 s), ~50 preferential (20,000 s)")
def claim_fairness(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return fairness_magnitudes(tables, settings, PAPER_FAIRNESS, "sec. 5.4's counts")


@claim(FAMILY_NAME, F9, "F9-unfair-medium", "Of the about 800 unfair jobs about 500 are medium "
       "jobs (sec. 5.4): W1, both goals", "~500 medium")
def claim_unfair_medium(tables: Mapping[str, pd.DataFrame],
                        settings: Mapping[str, Any]) -> Judgement:
    return fairness_magnitudes(tables, settings, {"unfair_medium": 500.0}, "medium unfair jobs")


def fairness_magnitudes(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any],
                        paper: Mapping[str, float], label: str) -> Judgement:
    """Each of sec. 5.4's numbers within the central ``coverage`` of our per-seed values of
    the slack policy on W1, per goal (``magnitude``)."""
    missing = has_policies(tables, F9, SLACK)
    if missing:
        return not_checkable(missing)
    coverage = float(settings.get("coverage", 0.95))
    judged = []
    for goal in goals_of(tables, F9):
        for metric, value in paper.items():
            found = magnitude(value, values(tables, F9, metric, policy=SLACK, aarr=W1,
                                            goal=goal), coverage)
            judged.append(replace(found, ours=f"{goal} {metric}: {found.ours}"))
    return combine(judged, label)


@claim(FAMILY_NAME, F9, "F9-run-time-cost", "Slack-based backfilling runs about 40% longer "
       "than the original (10 against 7 minutes for the seeds' 10,000 jobs; sec. 5.2)",
       "+40%")
def claim_run_time(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return not_checkable("a run time depends on the machine and the implementation, and the "
                         "result tables hold no timings so that they stay byte-identical; "
                         "docs/performance.md times the family (the slack search's effort "
                         "per call is the column nodes_per_call)")


# Thesis, Table 2: the characteristics of its workloads (shares, %).
PAPER_TABLE2 = {"jobs_short": 64.0, "jobs_medium": 19.5, "jobs_long": 16.5, "work_short": 0.5,
                "work_medium": 26.0, "work_long": 73.5, "serial": 24.0, "power_of_two": 75.0}


@claim(FAMILY_NAME, F9, "T2-workload", "Table 2's workload characteristics: 64% short, 19.5% "
       "medium, 16.5% long jobs (by run time), holding 0.5%, 26.0% and 73.5% of the work; 24% "
       "serial jobs; 75% power-of-two sizes among the parallel ones (sec. 5.1): W1, per seed",
       "64 / 19.5 / 16.5; 0.5 / 26.0 / 73.5; 24; 75%")
def claim_table2(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F9, ORIGINAL)
    if missing:
        return not_checkable(missing)
    coverage = float(settings.get("coverage", 0.95))
    judged = []
    for metric, paper in PAPER_TABLE2.items():
        found = magnitude(paper, 100.0 * values(tables, F9, metric, policy=ORIGINAL, aarr=W1),
                          coverage)
        judged.append(replace(found, ours=f"{metric} %: {found.ours}"))
    return combine(judged, "Table 2")


@claim(FAMILY_NAME, F9, "F9-long-medium-similar", "Long and medium jobs gain similarly "
       "(sec. 5.2: 'long jobs and medium jobs perform similarly'; the thesis's own pairs, "
       "10.49 / 7.89% and 9.73 / 11.99%, differ by up to a third): per seed on W1, the long "
       "jobs' % improvement within the tolerance of the medium jobs'", "similar")
def claim_long_medium(tables: Mapping[str, pd.DataFrame],
                      settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F9, ORIGINAL, SLACK)
    if missing:
        return not_checkable(missing)
    tol = float(settings.get("similar_tolerance", 0.5))
    return close([Pair(f"{goal}: long vs medium improvement",
                       improvement(tables, F9, rr(settings, "long"), W1, goal),
                       improvement(tables, F9, rr(settings, "medium"), W1, goal))
                  for goal in goals_of(tables, F9)], tol, claim_level(settings))


def curve(tables: Mapping[str, pd.DataFrame], target: str, param: str, aarr: float,
          goal: str, metric: str, upto: float | None = None) -> list[tuple[float, pd.Series]]:
    seeds = seeds_of(tables, target)
    xs = sorted({float(v) for v in select(seeds, where(SLACK, aarr, goal))[param].dropna()})
    return [(x, values(tables, target, metric, policy=SLACK, aarr=aarr, goal=goal,
                       **{param: x}))
            for x in xs if upto is None or x <= upto + 1e-9]


@claim(FAMILY_NAME, F11, "F11-lookahead-flattens", "RR stops improving beyond a lookahead of "
       "20 jobs on W1 and 30 on W2, for both goals (sec. 5.3, Figs. 11-14)",
       "flat from 20 (W1) and 30 (W2)")
def claim_f11(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F11, SLACK)
    if missing:
        return not_checkable(missing)
    metric = rr(settings, "all")
    checks, names = [], []
    for aarr, x0 in ((W1, 20.0), (W2, 30.0)):
        for goal in goals_of(tables, F11):
            points = curve(tables, F11, "lookahead", aarr, goal, metric)
            if any(abs(x - x0) < 1e-9 for x, _ in points[1:]):
                checks.append(flattens(points, x0, level=claim_level(settings)))
                names.append(f"{WORKLOAD_NAMES[aarr]} {goal}")
    if not checks:
        return not_checkable(f"{F11} has no curve through lookahead 20 (W1) or 30 (W2)")
    return combine(checks, ", ".join(names))


@claim(FAMILY_NAME, F15, "F15-slack-up", "RR falls as SLACK_UP grows from 1.0 to 1.5, where "
       "it is best (sec. 5.3, Figs. 15-16)", "falls to 1.5")
def claim_f15(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F15, SLACK)
    if missing:
        return not_checkable(missing)
    metric = rr(settings, "all")
    rho = float(settings.get("min_rho", 0.7))
    curves = []
    for goal in goals_of(tables, F15):
        falling = curve(tables, F15, "slack_up", W1, goal, metric, upto=1.5)
        if len(falling) >= 2 and abs(falling[-1][0] - 1.5) <= 1e-9:
            curves.append((f"W1 {goal} up to 1.5", falling))
    if not curves:
        return not_checkable(f"{F15} has no W1 curve from below 1.5 through 1.5")
    return trend(curves, -1, rho, claim_level(settings))


@claim(FAMILY_NAME, F15, "F15-flat-beyond", "Beyond SLACK_UP 1.5 RR stays about the same or "
       "gets worse (sec. 5.3, Figs. 15-16)", "flat or worse beyond 1.5")
def claim_f15_flat(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F15, SLACK)
    if missing:
        return not_checkable(missing)
    metric = rr(settings, "all")
    parts = []
    for goal in goals_of(tables, F15):
        points = dict(curve(tables, F15, "slack_up", W1, goal, metric))
        parts += [f"{goal} {x:g}: {float(v.mean()):.3f}" for x, v in points.items()
                  if x >= 1.5 - 1e-9]
    cap = SlackSettings().k2 + SlackSettings().slack_down
    return informational("; ".join(parts) or "no SLACK_UP >= 1.5 was run",
                         f"true by construction: eq. 5 caps F_slack at K2 + SLACK_DOWN = "
                         f"{cap:g} (Table 3), so SLACK_UP 1.6 touches only jobs predicted to "
                         "wait under about 1.6 h and any larger value changes nothing; the "
                         "thesis's factors above 1.5 'only applied on smaller medium jobs' "
                         "(sec. 5.3) are not in eq. 5")


PAPER_T4 = {10.05: 85.29, 10.33: 76.43, 10.43: 71.90, 10.73: 63.29}


@claim(FAMILY_NAME, T4, "T4-utilization-order", "Utilization falls from the very heavy "
       "(alpha 10.05) through the normal (10.33) to the light workloads (10.43, 10.73) "
       "(sec. 5.4, Table 4)", "85.29 > 76.43 > 71.90 > 63.29%")
def claim_t4(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, T4, ORIGINAL)
    if missing:
        return not_checkable(missing)
    found = [a for a in PAPER_T4 if a in aarrs(tables, T4)]
    if len(found) < 2:
        return not_checkable(f"{T4} runs fewer than two of the workloads {list(PAPER_T4)}")
    series = {f"aarr {a:g}": values(tables, T4, "utilization", policy=ORIGINAL, aarr=a)
              for a in found}
    return ordering([("original Scojo-PECT", series)], list(series), lower_is_better=False,
                    level=claim_level(settings),
                    paper_values={f"aarr {a:g}": PAPER_T4[a] for a in found},
                    tol=float(settings.get("near_tie_tolerance", 0.05)))


@claim(FAMILY_NAME, T4, "T4-utilization-values", "Table 4's utilizations: 85.29 / 76.43 / "
       "71.90 / 63.29% for alpha 10.05 / 10.33 / 10.43 / 10.73", "85.29 / 76.43 / 71.90 / "
       "63.29%")
def claim_t4_values(tables: Mapping[str, pd.DataFrame],
                    settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, T4, ORIGINAL)
    if missing:
        return not_checkable(missing)
    parts = []
    for aarr, paper in PAPER_T4.items():
        if aarr in aarrs(tables, T4):
            ours = values(tables, T4, "utilization", policy=ORIGINAL, aarr=aarr)
            parts.append(f"aarr {aarr:g}: {100 * ours.mean():.2f}% (paper {paper}%)")
    return informational("; ".join(parts), "original Scojo-PECT, mean over seeds; values "
                         "reported, only the ordering is judged")


# Thesis, sec. 5.4 (Figs. 17-22): % improvement of RR (long, medium, all) per workload, goal.
PAPER_F17 = {(10.43, "G1"): {"long": 5.32, "medium": 4.7, "all": 3.74},
             (10.43, "G2"): {"long": 3.31, "medium": 7.9, "all": 4.51},
             (10.73, "G1"): {"long": 3.12, "medium": 7.32, "all": 3.78},
             (10.73, "G2"): {"long": 4.69, "medium": 8.76, "all": 4.76},
             (10.05, "G1"): {"long": 8.17, "medium": 7.59, "all": 5.8},
             (10.05, "G2"): {"long": 7.48, "medium": 9.86, "all": 5.05}}


@claim(FAMILY_NAME, F17, "F17-smaller-at-light-load", "The improvement over the original "
       "is smaller at light load (alpha 10.43, 10.73) than at very heavy load (10.05), for "
       "all jobs and both goals (sec. 5.4, Figs. 17-22)",
       "3.74-4.76% light vs 5.05-5.8% very heavy")
def claim_f17(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F17, ORIGINAL, SLACK)
    if missing:
        return not_checkable(missing)
    metric = rr(settings, "all")
    found = aarrs(tables, F17)
    lights = [light for light in (10.43, 10.73) if light in found]
    if 10.05 not in found or not lights:
        return not_checkable(f"{F17} lacks alpha 10.05 or both light workloads")
    checks = []
    for goal in goals_of(tables, F17):
        heavy = improvement(tables, F17, metric, 10.05, goal)
        pairs = [Pair(f"{goal}: 10.05 vs {light:g}", heavy,
                      improvement(tables, F17, metric, light, goal)) for light in lights]
        checks.append(beats(pairs, lower_is_better=False, level=claim_level(settings)))
    return combine(checks, f"improvement at 10.05 above that at {', '.join(map(str, lights))}")


def f17_improvements(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any],
                     loads: Sequence[float]) -> Judgement:
    """Figs. 17-22: per workload and goal, the improvement check of every class."""
    missing = has_policies(tables, F17, ORIGINAL, SLACK)
    if missing:
        return not_checkable(missing)
    cases = [(aarr, goal) for aarr in loads for goal in goals_of(tables, F17)
             if aarr in aarrs(tables, F17) and (aarr, goal) in PAPER_F17]
    if not cases:
        return not_checkable(f"{F17} runs none of the workloads {list(loads)}")
    return combine([improvement_check(tables, settings, F17, aarr, goal,
                                      PAPER_F17[(aarr, goal)]) for aarr, goal in cases],
                   ", ".join(f"{aarr:g} {goal}" for aarr, goal in cases))


@claim(FAMILY_NAME, F17, "F17-light-values", "At light load slack-based backfilling improves "
       "the original's RR by 5.32 / 4.7 / 3.74% (10.43, G1: long / medium / all), 3.31 / 7.9 "
       "/ 4.51% (10.43, G2), 3.12 / 7.32 / 3.78% (10.73, G1) and 4.69 / 8.76 / 4.76% (10.73, "
       "G2) (sec. 5.4, Figs. 17-20)", "5.32/4.7/3.74; 3.31/7.9/4.51; 3.12/7.32/3.78; "
       "4.69/8.76/4.76%")
def claim_f17_light(tables: Mapping[str, pd.DataFrame],
                    settings: Mapping[str, Any]) -> Judgement:
    return f17_improvements(tables, settings, (10.43, 10.73))


@claim(FAMILY_NAME, F17, "F17-w4-values", "On the very heavy W4 (alpha 10.05) it improves RR by "
       "8.17 / 7.59 / 5.8% (G1: long / medium / all) and 7.48 / 9.86 / 5.05% (G2) (sec. 5.4, "
       "Figs. 21-22)", "8.17/7.59/5.8; 7.48/9.86/5.05%")
def claim_f17_w4(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return f17_improvements(tables, settings, (10.05,))


@claim(FAMILY_NAME, F17, "F17-every-load", "Slack-based backfilling improves the original at "
       "every load, both goals (sec. 5.4: 'better results' throughout)",
       "improvement at every alpha")
def claim_f17_every(tables: Mapping[str, pd.DataFrame],
                    settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F17, ORIGINAL, SLACK)
    if missing:
        return not_checkable(missing)
    metric = rr(settings, "all")
    pairs = [Pair(f"{goal} aarr {aarr:g}",
                  values(tables, F17, metric, policy=SLACK, aarr=aarr, goal=goal),
                  values(tables, F17, metric, policy=ORIGINAL, aarr=aarr))
             for goal in goals_of(tables, F17) for aarr in aarrs(tables, F17)]
    found = beats(pairs, level=claim_level(settings))
    improvements = "; ".join(f"{goal} {aarr:g}: "
                             + describe(improvement(tables, F17, metric, aarr, goal))
                             for goal in goals_of(tables, F17) for aarr in aarrs(tables, F17))
    return Judgement(found.verdict, improvements, found.rule, found.note)



# ----------------------------------------------------------------------------- SLACK-F23


@derived_function("slack-improvement")
def improvement_table(spec: TargetSpec, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Figs. 23-24: per goal, workload and class, the mean % improvement of RR (tau 10 s)
    of Scojo-PECT with slack over the original, with its 95% interval over the seeds."""
    import pandas as pd

    from schedsim.stats import mean_ci

    source = spec.sources[0]
    view = {source: tables[source], f"{source}{SEEDS_SUFFIX}": tables[f"{source}{SEEDS_SUFFIX}"]}
    rows = []
    for goal in goals_of(view, source):
        for aarr in aarrs(view, source):
            for klass in ("long", "medium", "all"):
                found = mean_ci(improvement(view, source, f"RR_{klass}", aarr, goal))
                rows.append({"goal": goal, "aarr": aarr,
                             "workload": WORKLOAD_NAMES.get(aarr, ""), "class": klass,
                             "improvement_mean": found.mean, "improvement_ci_low": found.low,
                             "improvement_ci_high": found.high, "n_seeds": found.n})
    return pd.DataFrame(rows)


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


@claim(FAMILY_NAME, F23, "F23-w2-over-w4", "The improvement is larger on the normal W2 (alpha "
       "10.33) than on the very heavy W4 (10.05): 'it is not the higher workload is, the "
       "better performance is' (sec. 5.4, Figs. 23-24): per seed, the all-jobs improvement, "
       "both goals", "W2 above W4", needs=(F17,))
def claim_f23(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F17, ORIGINAL, SLACK)
    if missing:
        return not_checkable(missing)
    if not {W2, 10.05} <= set(aarrs(tables, F17)):
        return not_checkable(f"{F17} lacks W2 (10.33) or W4 (10.05)")
    metric = rr(settings, "all")
    return beats([Pair(f"{goal}: W2 vs W4", improvement(tables, F17, metric, W2, goal),
                       improvement(tables, F17, metric, 10.05, goal))
                  for goal in goals_of(tables, F17)], lower_is_better=False,
                 level=claim_level(settings))


# ----------------------------------------------------------------------------- sec. 5.3


def insensitive(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any], target: str,
                param: str, default: float) -> Judgement:
    """Every swept value's RR (all jobs) within ``insensitive_tolerance`` of the RR at Table
    3's value, per goal (``close``, paired over the seeds)."""
    missing = has_policies(tables, target, SLACK)
    if missing:
        return not_checkable(missing)
    metric = rr(settings, "all")
    tol = float(settings.get("insensitive_tolerance", 0.05))
    pairs = []
    for goal in goals_of(tables, target):
        points = dict(curve(tables, target, param, W1, goal, metric))
        base = next((v for x, v in points.items() if abs(x - default) < 1e-9), None)
        if base is None:
            return not_checkable(f"{target} did not run {param} = {default:g}")
        pairs += [Pair(f"{goal} {param} {x:g} vs {default:g}", v, base)
                  for x, v in points.items() if abs(x - default) >= 1e-9]
    if not pairs:
        return not_checkable(f"{target} runs no other value of {param}")
    return close(pairs, tol, claim_level(settings))


for _target, _param, _default in OTHER_PARAMS:
    claim(FAMILY_NAME, _target, f"{_target[6:]}-insensitive", f"Other values of "
          f"{_param.upper()} (Table 3: {_default:g}) do not change the performance "
          "significantly (sec. 5.3): W1, RR of all jobs at each swept value within the "
          "tolerance of the RR at Table 3's value, both goals", "no significant change")(
        lambda tables, settings, _t=_target, _p=_param, _d=_default:
        insensitive(tables, settings, _t, _p, _d))
