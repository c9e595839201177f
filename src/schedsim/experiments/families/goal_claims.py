"""GOAL family: its claims, each a small function registered with
:func:`schedsim.claims.claim` and judged by a rule of :mod:`schedsim.verdicts`
(``GoalFamily.claims_module``: only the claims job imports them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from schedsim.claims import claim
from schedsim.experiments.families.goal import (
    F3,
    F3L,
    F4,
    F4_METRICS,
    F4L,
    F6,
    F6L,
    F8,
    FAMILY_NAME,
    FCFS,
    GOAL,
    IDEA1,
    LXF,
    T1,
    T2,
    month_label,
    paper_p1_share,
    show,
)
from schedsim.tables import missing_policies, per_seed, seeds_of, select, spearman
from schedsim.verdicts import (
    Judgement,
    Pair,
    at_or_below,
    beats,
    close,
    combine,
    informational,
    magnitude,
    not_checkable,
)

if TYPE_CHECKING:
    import pandas as pd


BACKFILLS = (FCFS, LXF)


def series(tables: Mapping[str, pd.DataFrame], target: str, policy: str, metric: str,
           where: Mapping[str, Any] | None = None) -> pd.Series:
    """``metric`` of ``policy`` per replication (month or seed) of a target."""
    return per_seed(seeds_of(tables, target), metric, {"policy": policy, **(where or {})})


def unit(tables: Mapping[str, pd.DataFrame], target: str) -> str:
    return "months" if "month" in seeds_of(tables, target) else "seeds"


def ratio(tables: Mapping[str, pd.DataFrame], target: str, policy: str, numerator: str,
          denominator: str) -> pd.Series:
    return (series(tables, target, policy, numerator)
            / series(tables, target, policy, denominator))


# ----------------------------------------------------------------------------- claims: rules


def pair(tables: Mapping[str, pd.DataFrame], target: str, a: str, b: str,
         metric: str) -> Pair:
    """One point: A's and B's ``metric`` paired over the target's months (or seeds)."""
    return Pair(f"{metric} over the {unit(tables, target)}", series(tables, target, a, metric),
                series(tables, target, b, metric))


def near_best(tables: Mapping[str, pd.DataFrame], target: str, policy: str,
              others: Sequence[str], metric: str, tol: float) -> Judgement:
    """``policy`` is best or close to the best on ``metric`` (docs/deviations-goal.md C1):
    ``at_or_below`` within ``tol`` of every other policy. Being within ``tol`` of the best
    is being within it of each, so no best is picked from the results."""
    parts = []
    for other in others:
        found = at_or_below([pair(tables, target, policy, other, metric)], tol)
        parts.append(replace(found, ours=f"{metric} vs {show(other)}: {found.ours}"))
    return combine(parts, f"{metric} within {tol:.0%} of every other")


def fcfs_best_max(tables: Mapping[str, pd.DataFrame], target: str) -> Judgement:
    missing = missing_policies(tables, target, FCFS, LXF)
    return not_checkable(missing) if missing else beats([pair(tables, target, FCFS, LXF,
                                                              "max_wait")])


def lxf_best_averages(tables: Mapping[str, pd.DataFrame], target: str,
                      metrics: Sequence[str]) -> Judgement:
    missing = missing_policies(tables, target, FCFS, LXF)
    if missing:
        return not_checkable(missing)
    return combine([beats([pair(tables, target, LXF, FCFS, m)]) for m in metrics],
                   "LXF-backfill beats FCFS-backfill")


def goal_near_best(tables: Mapping[str, pd.DataFrame], target: str, metrics: Sequence[str],
                   settings: Mapping[str, Any]) -> Judgement:
    missing = missing_policies(tables, target, GOAL, FCFS, LXF)
    if missing:
        return not_checkable(missing)
    tol = float(settings.get("near_best_tolerance", 0.10))
    return combine([near_best(tables, target, GOAL, BACKFILLS, m, tol) for m in metrics],
                   "goal-oriented best or close to best")


def idea2_beats(tables: Mapping[str, pd.DataFrame], target: str,
                metrics: Sequence[str] = ("max_wait", "AWT")) -> Judgement:
    missing = missing_policies(tables, target, GOAL, IDEA1)
    if missing:
        return not_checkable(missing)
    return combine([beats([pair(tables, target, GOAL, IDEA1, m)]) for m in metrics],
                   "idea 2 beats idea 1")


def every_month(tables: Mapping[str, pd.DataFrame], target: str,
                cases: Sequence[tuple[str, str, str]]) -> Judgement:
    """Per (better, worse, metric): the months in which ``better`` is at or below ``worse``."""
    missing = missing_policies(tables, target, *{p for a, b, _ in cases for p in (a, b)})
    if missing:
        return not_checkable(missing)
    parts = []
    for better, worse, metric in cases:
        gap = series(tables, target, worse, metric) - series(tables, target, better, metric)
        parts.append(f"{show(better)} at or below {show(worse)} on {metric}: "
                     f"{int((gap >= 0).sum())} of {len(gap)} {unit(tables, target)}")
    return informational("; ".join(parts), "the paper: 'on all months'; one run per month "
                         "has no interval: counted, not judged (the paired claims judge)")


# ----------------------------------------------------------------------------- claims: F3


@claim(FAMILY_NAME, F3, "F3-idea2-beats-idea1", "64+64: idea 2 outperforms idea 1 on maximum "
       "and mean wait (sec. 4.1, Fig. 3), paired over the months",
       "idea 2 better on all measures, all months")
def claim_f3(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return idea2_beats(tables, F3)


@claim(FAMILY_NAME, F3, "F3-bsld-like-awt", "64+64: on mean bounded slowdown idea 2 outperforms "
       "idea 1 as on mean wait (sec. 4.1: 'the average bounded slowdown performance is similar "
       "to that of the average wait'), paired over the months", "as on mean wait")
def claim_f3_bsld(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return idea2_beats(tables, F3, ("BSLD",))


@claim(FAMILY_NAME, F3, "F3-idea2-every-month", "64+64: months in which idea 2's maximum and "
       "mean wait are at or below idea 1's (sec. 4.1: all months)", "10 of 10 months")
def claim_f3_months(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return every_month(tables, F3, [(GOAL, IDEA1, "max_wait"), (GOAL, IDEA1, "AWT")])


@claim(FAMILY_NAME, F3, "F3-idea1-cut-more", "64+64: idea 1's doubled search space makes its "
       "searches stop at the node limit more often than idea 2's (sec. 4.1): the share of "
       "searches cut by the limit, paired over the months", "idea 1 cut more often")
def claim_f3_cut(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = missing_policies(tables, F3, GOAL, IDEA1)
    if missing:
        return not_checkable(missing)
    return beats([pair(tables, F3, IDEA1, GOAL, "search_stopped_share")],
                 lower_is_better=False)


@claim(FAMILY_NAME, F3, "F3-gap-busiest", "64+64: the gap between the ideas (idea 1 minus "
       "idea 2) is largest in the busiest months (sec. 4.1: 12/03 and 1/04, 'caused by the "
       "number of waiting jobs')", "largest gap in the busiest months")
def claim_f3_gap(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = missing_policies(tables, F3, GOAL, IDEA1)
    if missing:
        return not_checkable(missing)
    seeds = seeds_of(tables, F3)
    label = {s: month_label(m) for s, m in zip(seeds["seed"], seeds["month"], strict=True)}
    jobs = series(tables, F3, GOAL, "month_jobs")
    busiest = [label[s] for s in jobs.sort_values(ascending=False, kind="stable").index[:2]]
    parts = []
    for metric in ("max_wait", "AWT"):
        gap = series(tables, F3, IDEA1, metric) - series(tables, F3, GOAL, metric)
        order = [label[s] for s in gap.sort_values(ascending=False, kind="stable").index]
        parts.append(f"{metric}: months by gap {', '.join(order)}")
    return informational("; ".join(parts), "not judged: one run per month, so a month's gap "
                         "has no interval and 'largest in the busiest months' would rest on "
                         "one argmax of single runs; the months with the most jobs of our log "
                         f"(a workload property): {', '.join(busiest)}; F3-idea1-cut-more "
                         "judges the paper's reason")


@claim(FAMILY_NAME, F3, "F3-gap-dec-jan", "64+64: the gap between the ideas in December 2003 "
       "and January 2004 (the paper's largest; its IA-64 months, ours HPC2N)",
       "largest in 12/03 and 1/04")
def claim_f3_decjan(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = missing_policies(tables, F3, GOAL, IDEA1)
    if missing:
        return not_checkable(missing)
    seeds = seeds_of(tables, F3)
    label = {s: month_label(m) for s, m in zip(seeds["seed"], seeds["month"], strict=True)}
    gap = series(tables, F3, IDEA1, "AWT") - series(tables, F3, GOAL, "AWT")
    shown = [f"{label[s]} {gap[s]:,.0f} s" for s in gap.index
             if label[s] in ("2003-12", "2004-01")]
    order = [label[s] for s in gap.sort_values(ascending=False, kind="stable").index]
    return informational(f"mean-wait gap {'; '.join(shown) or 'months not run'}; months by "
                         f"gap: {', '.join(order)}", "another machine's log in the same "
                         "calendar months: not judged")
F6_METRICS = ("max_wait", "BSLD")


@claim(FAMILY_NAME, F4, "F4-fcfs-best-max", "64+64: FCFS-backfill has a lower maximum wait "
       "than LXF-backfill (sec. 4.2, Fig. 4a)", "FCFS-backfill best maximum wait")
def claim_f4_fcfs(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return fcfs_best_max(tables, F4)


@claim(FAMILY_NAME, F4, "F4-lxf-best-averages", "64+64: LXF-backfill has a lower mean wait, "
       "mean bounded slowdown and count of jobs waiting > 24 h than FCFS-backfill "
       "(sec. 4.2, Fig. 4b-d)", "FCFS-backfill worst averages")
def claim_f4_lxf(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return lxf_best_averages(tables, F4, ("AWT", "BSLD", "long_waits"))


@claim(FAMILY_NAME, F4, "F4-goal-near-best", "64+64: the goal-oriented policy is best or "
       "close to best on all four measures (sec. 4.2, 5)", "best or close to best")
def claim_f4_goal(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return goal_near_best(tables, F4, F4_METRICS, settings)


@claim(FAMILY_NAME, F4, "F4-every-month", "64+64: months in which FCFS-backfill's maximum "
       "wait and LXF-backfill's averages are the better ones (sec. 4.2: the backfills 'cannot "
       "achieve good performances on all three measures simultaneously on all months')",
       "on all months")
def claim_f4_months(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return every_month(tables, F4, [(FCFS, LXF, "max_wait"), (LXF, FCFS, "AWT"),
                                    (LXF, FCFS, "BSLD"), (LXF, FCFS, "long_waits")])


@claim(FAMILY_NAME, F4, "F4-search-time", "A search of 4,000 nodes takes only a few tens of "
       "milliseconds (sec. 3.2)", "a few tens of ms")
def claim_f4_time(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return not_checkable("a wall-clock time depends on the machine, and the result tables "
                         "hold no timings so that they stay byte-identical from run to run; "
                         "the search's speed is measured in benchmarks/ (docs/performance.md)")


PARTITION_BEST = (("max_wait", FCFS, LXF), ("mean_wait", LXF, FCFS), ("mean_bsld", LXF, FCFS))


def partition_trends(tables: Mapping[str, pd.DataFrame], target: str,
                     cases: Sequence[tuple[int, str, str, str]]) -> Judgement:
    """Per (partition, metric, better, worse): ``better`` beats ``worse`` on the partition's
    metric, paired over the months."""
    missing = missing_policies(tables, target, FCFS, LXF)
    if missing:
        return not_checkable(missing)
    return combine([beats([pair(tables, target, better, worse, f"p{part}_{metric}")])
                    for part, metric, better, worse in cases], "per-partition trends")


@claim(FAMILY_NAME, F4, "F5-partition-trends", "64+64: on each partition the backfills' trends "
       "are those of the whole machine (sec. 4.2, Fig. 5): FCFS-backfill has the lower maximum "
       "wait, LXF-backfill the lower mean wait and mean bounded slowdown", "as overall")
def claim_f5_trends(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return partition_trends(tables, F4, [(part, metric, better, worse) for part in (1, 2)
                                         for metric, better, worse in PARTITION_BEST])


@claim(FAMILY_NAME, F4, "F5-partition-goal-near-best", "64+64: on each partition the "
       "goal-oriented policy is best or close to best on maximum wait, mean wait and mean "
       "bounded slowdown (sec. 4.2, Fig. 5: 'still produces good scheduling performances on "
       "each partition')", "best or close to best on each partition")
def claim_f5_goal(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return goal_near_best(tables, F4, [f"p{part}_{metric}" for part in (1, 2)
                                       for metric, _, _ in PARTITION_BEST], settings)


@claim(FAMILY_NAME, F6, "F6-fcfs-best-max", "32+64: FCFS-backfill has a lower maximum wait "
       "than LXF-backfill (sec. 4.3: same ordering as on 64+64)", "as on 64+64")
def claim_f6_fcfs(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return fcfs_best_max(tables, F6)


@claim(FAMILY_NAME, F6, "F6-lxf-best-bsld", "32+64: LXF-backfill has a lower mean bounded "
       "slowdown than FCFS-backfill (sec. 4.3, Fig. 6b)", "as on 64+64")
def claim_f6_lxf(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return lxf_best_averages(tables, F6, ("BSLD",))


@claim(FAMILY_NAME, F6, "F6-goal-near-best", "32+64: the goal-oriented policy is best or "
       "close to best on maximum wait and mean bounded slowdown (sec. 4.3, 5)",
       "best or close to best")
def claim_f6_goal(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return goal_near_best(tables, F6, F6_METRICS, settings)


@claim(FAMILY_NAME, F6, "F6-awt-like-bsld", "32+64: mean wait has the trends of mean bounded "
       "slowdown (sec. 4.3: 'similar trends'): LXF-backfill has the lower mean wait, and the "
       "goal-oriented policy is best or close to best on it", "as bounded slowdown")
def claim_f6_awt(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = missing_policies(tables, F6, GOAL, FCFS, LXF)
    if missing:
        return not_checkable(missing)
    return combine([lxf_best_averages(tables, F6, ("AWT",)),
                    goal_near_best(tables, F6, ("AWT",), settings)], "mean wait like BSLD")


@claim(FAMILY_NAME, F6, "F6-every-month", "32+64: months in which FCFS-backfill's maximum wait "
       "and LXF-backfill's mean bounded slowdown are the better ones (sec. 4.3: 'on all "
       "months')", "on all months")
def claim_f6_months(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return every_month(tables, F6, [(FCFS, LXF, "max_wait"), (LXF, FCFS, "BSLD")])


@claim(FAMILY_NAME, F6, "F7-partition-trends", "32+64: mean bounded slowdown on both partitions "
       "and maximum wait on partition 2 follow the whole machine's trends (sec. 4.3, Fig. 7): "
       "LXF-backfill the lower mean bounded slowdown, FCFS-backfill the lower maximum wait on "
       "partition 2 (partition 1's maximum wait differs, F6-jan-fcfs-max)", "as overall")
def claim_f7_trends(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return partition_trends(tables, F6, [(1, "mean_bsld", LXF, FCFS),
                                         (2, "mean_bsld", LXF, FCFS),
                                         (2, "max_wait", FCFS, LXF)])


@claim(FAMILY_NAME, F6, "F6-jan-fcfs-max", "32+64, January 2004: FCFS-backfill's maximum wait "
       "is much worse than the others' overall and on partition 2, similar on partition 1 "
       "(sec. 4.3, Fig. 6a, 7)", "FCFS-backfill significantly worse")
def claim_f6_jan(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    seeds = seeds_of(tables, F6)
    jan = seeds[seeds["month"] == 200401] if "month" in seeds else seeds.iloc[0:0]
    if jan.empty:
        return not_checkable("January 2004 was not run")
    parts = []
    for metric in ("max_wait", "p1_max_wait", "p2_max_wait"):
        values = ", ".join(f"{show(p)} {float(select(jan, {'policy': p})[metric].iloc[0]):,.0f}"
                           for p in (FCFS, LXF, GOAL) if p in set(jan["policy"]))
        parts.append(f"{metric}: {values}")
    return informational("; ".join(parts), "one month: reported, not judged")


# ----------------------------------------------------------------------------- claims: T2


def _partition_claim(tables: Mapping[str, pd.DataFrame], policies: Sequence[str],
                     test: Any, label: str) -> Judgement:
    missing = missing_policies(tables, F4, *policies)
    if missing:
        return not_checkable(missing)
    return combine([test(p) for p in policies], label)


def backfills_above(tables: Mapping[str, pd.DataFrame], higher: str, lower: str,
                    label: str) -> Judgement:
    """Both backfills: ``higher`` beats ``lower`` (higher is better), paired by month."""
    return _partition_claim(tables, BACKFILLS, lambda p: beats(
        [Pair(f"{show(p)} {higher} vs {lower}", series(tables, F4, p, higher),
              series(tables, F4, p, lower))], lower_is_better=False), label)


@claim(FAMILY_NAME, T2, "T2-backfill-more-on-p1", "64+64: both backfills start more jobs on "
       "partition 1 than on partition 2 (sec. 4.2, Table 2)", "more jobs on partition 1",
       needs=(F4,))
def claim_t2_jobs(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return backfills_above(tables, "p1_jobs", "p2_jobs", "more jobs on partition 1")


@claim(FAMILY_NAME, T2, "T2-backfill-larger-on-p2", "64+64: both backfills run larger jobs "
       "(mean node-hours) on partition 2 (sec. 4.2, Table 2)", "larger jobs on partition 2",
       needs=(F4,))
def claim_t2_size(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return backfills_above(tables, "p2_node_hours", "p1_node_hours", "larger jobs on partition 2")


@claim(FAMILY_NAME, T2, "T2-goal-even", "64+64: the goal-oriented policy spreads jobs evenly: "
       "as many jobs, of similar mean node-hours, on both partitions (sec. 4.2, Table 2)",
       "evenly distributed", needs=(F4,))
def claim_t2_even(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    tol = float(settings.get("even_tolerance", 0.25))
    return _partition_claim(tables, (GOAL,), lambda p: combine([close(
        [Pair(f"{m} p1 vs p2", series(tables, F4, p, f"p1_{m}"),
              series(tables, F4, p, f"p2_{m}"))], tol) for m in ("jobs", "node_hours")],
        "even"), "goal-oriented even")


def _share_claim(policy: str) -> Any:
    def check(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
        missing = missing_policies(tables, F4, policy)
        if missing:
            return not_checkable(missing)
        return magnitude(paper_p1_share(policy), ratio(tables, F4, policy, "p1_jobs", "jobs"))
    return check


for _policy, _id in ((FCFS, "fcfs"), (LXF, "lxf"), (GOAL, "goal")):
    claim(FAMILY_NAME, T2, f"T2-p1-share-{_id}", f"64+64: share of jobs started on partition 1 "
          f"by {show(_policy)}, over the months (Table 2)",
          f"{paper_p1_share(_policy):.3f} (mean of the paper's months)",
          needs=(F4,))(_share_claim(_policy))


# ----------------------------------------------------------------------------- claims: F8


@claim(FAMILY_NAME, F8, "F8-limit-helps", "32+64, January 2004: the goal-oriented policy's "
       "maximum wait on partition 1 falls as the node limit grows from 2000 to 128000 "
       "(sec. 4.3, Fig. 8a, partition 1)", "smaller maximum wait with a larger limit")
def claim_f8(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return limit_report(tables, "p1_max_wait")


@claim(FAMILY_NAME, F8, "F8-p2-not-worse", "32+64, January 2004: a larger node limit does not "
       "make partition 2's maximum wait worse (sec. 4.3, Fig. 8b, partition 2)",
       "not degraded")
def claim_f8_p2(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return limit_report(tables, "p2_max_wait")


def limit_report(tables: Mapping[str, pd.DataFrame], metric: str) -> Judgement:
    """The goal-oriented policy's ``metric`` at each node limit (one month: reported)."""
    curve = limit_curve(tables, F8, metric)
    if len(curve) < 2:
        return not_checkable("fewer than two node limits were run")
    values = ", ".join(f"L {x:g}: " + "/".join(f"{v:,.0f}" for v in s) for x, s in curve)
    means = [float(s.mean()) for _, s in curve]
    rho = spearman([x for x, _ in curve], means)
    return informational(f"{metric} {values} s (Spearman rho {rho:.2f})", "not judged: the "
                         "paper's January 2004 is one month, one run per node limit, so no "
                         "difference has an interval and no verdict could be contradicted "
                         "(docs/deviations-goal.md P3)")


def limit_curve(tables: Mapping[str, pd.DataFrame], target: str,
                metric: str) -> list[tuple[float, pd.Series]]:
    seeds = seeds_of(tables, target)
    rows = seeds[(seeds["policy"] == GOAL) & seeds["node_limit"].notna()]
    return [(float(x), part.set_index("seed")[metric])
            for x, part in rows.groupby("node_limit", sort=True)]


# ----------------------------------------------------------------------------- claims: synthetic


@claim(FAMILY_NAME, F3L, "F3L-idea2-beats-idea1", "Synthetic months, 64+64: idea 2 "
       "outperforms idea 1 on maximum and mean wait (sec. 4.1)", "idea 2 better")
def claim_f3l(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return idea2_beats(tables, F3L)


@claim(FAMILY_NAME, F4L, "F4L-fcfs-best-max", "Synthetic months, 64+64: FCFS-backfill has a "
       "lower maximum wait than LXF-backfill (sec. 4.2)", "FCFS-backfill best maximum wait")
def claim_f4l_fcfs(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return fcfs_best_max(tables, F4L)


@claim(FAMILY_NAME, F4L, "F4L-lxf-best-averages", "Synthetic months, 64+64: LXF-backfill "
       "beats FCFS-backfill on mean wait, bounded slowdown and jobs waiting > 24 h (sec. 4.2)",
       "FCFS-backfill worst averages")
def claim_f4l_lxf(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return lxf_best_averages(tables, F4L, ("AWT", "BSLD", "long_waits"))


@claim(FAMILY_NAME, F4L, "F4L-goal-near-best", "Synthetic months, 64+64: the goal-oriented "
       "policy is best or close to best on all four measures (sec. 4.2, 5)",
       "best or close to best")
def claim_f4l_goal(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return goal_near_best(tables, F4L, F4_METRICS, settings)


@claim(FAMILY_NAME, F6L, "F6L-goal-near-best", "Synthetic months, 32+64: the goal-oriented "
       "policy is best or close to best on maximum wait and bounded slowdown (sec. 4.3)",
       "best or close to best")
def claim_f6l_goal(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return goal_near_best(tables, F6L, F6_METRICS, settings)


# ----------------------------------------------------------------------------- T1: workload


@claim(FAMILY_NAME, T1, "T1-months", "Our months (HPC2N, dual-CPU nodes, capped at 64) beside "
       "the paper's IA-64 months (Table 1): demand and jobs per month",
       "demand 67-80%, 1,400-4,149 jobs per month")
def claim_t1(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    table = tables[T1]
    return informational(f"demand {table['demand'].min():.0%}-{table['demand'].max():.0%}, "
                         f"{int(table['jobs'].min()):,}-{int(table['jobs'].max()):,} jobs "
                         "per month", "another machine's log: reported, not judged")
