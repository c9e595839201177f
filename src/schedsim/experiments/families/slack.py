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
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from schedsim.claims import claim
from schedsim.experiments.families.slack_measure import CLASSES, TAUS
from schedsim.experiments.family import POSITIVE, Family, Variant, axis_schemas, options_schema
from schedsim.experiments.kinds import SEEDS_SUFFIX, example_function
from schedsim.experiments.spec import TargetSpec, fmt_value
from schedsim.plots import COLORS, LINESTYLES, MARKERS, STYLE, register_figure
from schedsim.policies.slack import SlackSettings, slack_factor
from schedsim.tables import per_seed, select
from schedsim.verdicts import (
    Judgement,
    Pair,
    beats,
    combine,
    flattens,
    formula,
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
ORIGINAL, SLACK, PLAIN, PLAIN_SLACK = ("scojo-conservative", "scojo-slack", "conservative",
                                       "slack-backfill")
METRICS = (*(f"{prefix}_{c}" for prefix in TAUS for c in CLASSES), "utilization", "AWT",
           "ATT", "unfair", "preferential", "unfair_mean_s", "preferential_mean_s",
           "nodes_per_call", "bound_hits")
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
FIG6_PAPER = (1.50, 1.2155, 1.2008)  # read off Fig. 6 and its text (sec. 4.3.1)


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


@register_figure("slack-factor")
def slack_factor_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(5.0, 3.4), layout="constrained")
        ax = fig.subplots()
        ax.plot(table["wait_s"], table["slack_factor"], color=COLORS[0], label="eq. 5 (ours)")
        marked = table[table["paper"].notna()]
        ax.scatter(marked["wait_s"], marked["paper"], color=COLORS[1], marker="x", zorder=4,
                   label="thesis, Fig. 6")
        ax.set_xlabel("predicted wait T_wait (s)")
        ax.set_ylabel("slack factor F_slack")
        ax.legend()
    return fig


# ----------------------------------------------------------------------------- figure


def _curves(table: pd.DataFrame, spec: TargetSpec) -> list[tuple[str, pd.DataFrame]]:
    """One curve per policy and goal, and per workload unless the workload is the x."""
    by_workload = spec.x != "aarr" and "aarr" in table and table["aarr"].nunique() > 1
    workloads = sorted(table["aarr"].unique()) if by_workload else [None]
    out = []
    for aarr in workloads:
        for policy in spec.policies:
            rows = select(table, {"policy": policy} if aarr is None else
                          {"policy": policy, "aarr": aarr})
            goals = sorted({g for g in rows.get("goal", []) if isinstance(g, str)})
            for goal in goals or [None]:
                part = rows if goal is None else rows[rows["goal"] == goal]
                name = spec.show(policy) + (f" {goal}" if goal else "")
                if aarr is not None:
                    name += f", {WORKLOAD_NAMES.get(float(aarr), '')} (aarr {aarr:g})"
                out.append((name, part))
    return out


@register_figure("slack-rr")
def rr_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """The figure's metrics (default RR of long, medium and all jobs), one panel each, one
    line per policy and goal against the target's x, with 95% intervals; a target with a
    single x shows bars."""
    import matplotlib
    from matplotlib.figure import Figure

    x = spec.x or "aarr"
    metrics = list(spec.figure.metrics) or ["RR_long", "RR_medium", "RR_all"]
    curves = _curves(table, spec)
    as_bars = x not in table or table[x].nunique() <= 1
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(4.0 * len(metrics), 3.6), layout="constrained")
        axes = list(fig.subplots(1, len(metrics), squeeze=False).flat)
        for ax, metric in zip(axes, metrics, strict=True):
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
                ax.set_xticks(range(len(curves)), [name for name, _ in curves], rotation=35,
                              ha="right", fontsize=7)
                if x in table and table[x].nunique() == 1:
                    ax.set_title(f"{x} = {fmt_value(float(table[x].iloc[0]))}", fontsize=8)
            else:
                ax.set_xlabel(x)
            ax.set_ylabel(metric)
        if not as_bars:
            axes[-1].legend(fontsize=7)
    return fig


# ----------------------------------------------------------------------------- helpers


def seeds_of(tables: Mapping[str, pd.DataFrame], target: str) -> pd.DataFrame:
    return tables[f"{target}{SEEDS_SUFFIX}"]


def level(settings: Mapping[str, Any]) -> float:
    return float(settings.get("level", 0.95))


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
       "constants falls from about 1.50 at a 5,000 s wait to 1.21 at 65,000 s and 1.20 at "
       "125,000 s (sec. 4.3.1, Fig. 6)", "1.50 / 1.2155 / 1.2008")
def claim_f6(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    table = tables[F6]
    tol = float(settings.get("formula_tol", 0.01))
    checks = []
    for wait, paper in zip(FIG6_WAITS, FIG6_PAPER, strict=True):
        ours = float(table.loc[table["wait_s"] == wait, "slack_factor"].iloc[0])
        checks.append(formula(ours, paper, tol))
    return combine(checks, "eq. 5 at 5,000 / 65,000 / 125,000 s")


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
                     level=level(settings))
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
                 level=level(settings))


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


@claim(FAMILY_NAME, F9, "F9-fairness-counts", "About 800 of 10,000 jobs are treated unfairly "
       "(about 160 s late on average) and about 50 preferentially (about 20,000 s early) "
       "(sec. 5.4)", "~800 unfair (160 s), ~50 preferential (20,000 s)")
def claim_fairness(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F9, SLACK)
    if missing:
        return not_checkable(missing)
    parts = []
    for goal in ("G1", "G2"):
        got = {m: values(tables, F9, m, policy=SLACK, aarr=W1, goal=goal).mean()
               for m in ("unfair", "preferential", "unfair_mean_s", "preferential_mean_s")}
        parts.append(f"{goal}: {got['unfair']:.0f} unfair ({got['unfair_mean_s']:.0f} s), "
                     f"{got['preferential']:.0f} preferential "
                     f"({got['preferential_mean_s']:.0f} s)")
    return informational("; ".join(parts), "W1, mean over seeds; AST and FST in the job's "
                         "class time")


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
                checks.append(flattens(points, x0, level=level(settings)))
                names.append(f"{WORKLOAD_NAMES[aarr]} {goal}")
    if not checks:
        return not_checkable(f"{F11} has no curve through lookahead 20 (W1) or 30 (W2)")
    return combine(checks, ", ".join(names))


@claim(FAMILY_NAME, F15, "F15-slack-up", "RR falls as SLACK_UP grows and is best at about "
       "1.5, flat or worse beyond (sec. 5.3, Figs. 15-16)", "falls to 1.5, then flat")
def claim_f15(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F15, SLACK)
    if missing:
        return not_checkable(missing)
    metric = rr(settings, "all")
    rho = float(settings.get("min_rho", 0.7))
    checks, names = [], []
    for goal in goals_of(tables, F15):
        falling = curve(tables, F15, "slack_up", W1, goal, metric, upto=1.5)
        if len(falling) < 2 or abs(falling[-1][0] - 1.5) > 1e-9:
            continue
        checks.append(trend([(f"W1 {goal} up to 1.5", falling)], -1, rho, level(settings)))
        checks.append(flattens(curve(tables, F15, "slack_up", W1, goal, metric), 1.5,
                               level=level(settings)))
        names += [f"{goal} falls", f"{goal} flat from 1.5"]
    if not checks:
        return not_checkable(f"{F15} has no W1 curve from below 1.5 through 1.5")
    return combine(checks, ", ".join(names))


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
                    level=level(settings))


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


PAPER_F17_LIGHT = {(10.43, "G1"): 3.74, (10.43, "G2"): 4.51, (10.73, "G1"): 3.78,
                   (10.73, "G2"): 4.76}


@claim(FAMILY_NAME, F17, "F17-smaller-at-light-load", "The improvement over the original "
       "is smaller at light load (alpha 10.43, 10.73) than at very heavy load (10.05), for "
       "all jobs and both goals (sec. 5.4, Figs. 17-22)",
       "3.74-4.76% light vs 5-6% very heavy")
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
        checks.append(beats(pairs, lower_is_better=False, level=level(settings)))
    return combine(checks, f"improvement at 10.05 above that at {', '.join(map(str, lights))}")


@claim(FAMILY_NAME, F17, "F17-light-values", "At light load slack-based backfilling "
       "improves the original by 3.74% / 4.51% (10.43, G1 / G2) and 3.78% / 4.76% (10.73) "
       "for all jobs (sec. 5.4)", "3.74 / 4.51 / 3.78 / 4.76%")
def claim_f17_light(tables: Mapping[str, pd.DataFrame],
                    settings: Mapping[str, Any]) -> Judgement:
    missing = has_policies(tables, F17, ORIGINAL, SLACK)
    if missing:
        return not_checkable(missing)
    metric = rr(settings, "all")
    coverage = float(settings.get("coverage", 0.95))
    cases = [(aarr, goal, paper) for (aarr, goal), paper in PAPER_F17_LIGHT.items()
             if aarr in aarrs(tables, F17) and goal in goals_of(tables, F17)]
    if not cases:
        return not_checkable(f"{F17} runs neither light workload")
    checks = [magnitude(paper, improvement(tables, F17, metric, aarr, goal), coverage)
              for aarr, goal, paper in cases]
    return combine(checks, ", ".join(f"{aarr:g} {goal}" for aarr, goal, _ in cases))


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
    found = beats(pairs, level=level(settings))
    improvements = "; ".join(f"{goal} {aarr:g}: "
                             + describe(improvement(tables, F17, metric, aarr, goal))
                             for goal in goals_of(tables, F17) for aarr in aarrs(tables, F17))
    return Judgement(found.verdict, improvements, found.rule, found.note)

