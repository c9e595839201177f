"""SLACK family: its claims, each a small function registered with
:func:`schedsim.claims.claim` and judged by a rule of :mod:`schedsim.verdicts`
(``SlackFamily.claims_module``: only the claims job imports them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from schedsim.claims import claim
from schedsim.experiments.families.slack import (
    F6,
    F9,
    F11,
    F15,
    F17,
    F23,
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
    aarrs,
    goals_of,
    improvement,
    rr,
    values,
    where,
)
from schedsim.policies.slack import SlackSettings
from schedsim.tables import claim_level, seeds_of, select
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


# Sec. 5.3: the four parameters that "do not change the performance significantly", each
# swept by its own target: (target, parameter, Table 3's value).
OTHER_PARAMS = (("SLACK-DOWN", "slack_down", 1.2), ("SLACK-MINIMAL", "slack_minimal", 1.1),
                ("SLACK-K1", "k1", -0.5), ("SLACK-K2", "k2", 0.4))


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
