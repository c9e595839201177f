"""HRF family: its claims, each a small function registered with
:func:`schedsim.claims.claim` and judged by a rule of :mod:`schedsim.verdicts`
(``HrfFamily.claims_module``: only the claims job imports them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from schedsim.claims import claim
from schedsim.experiments.families.hrf import (
    F5,
    F6,
    F7,
    FAMILY_NAME,
    PAPER_MIDDLE_ATT,
    T1,
    TABLE1_PAPER_ATT,
    hrf_example_allocation,
    values,
)
from schedsim.stats import mean_ci
from schedsim.tables import select
from schedsim.verdicts import (
    CONTRADICTED,
    INCONCLUSIVE,
    NOT_CHECKABLE,
    REPRODUCED,
    Judgement,
    Pair,
    beats,
    best_of,
    close,
    combine,
    formula,
    informational,
    magnitude,
    not_checkable,
    ordering,
    trend,
)

if TYPE_CHECKING:
    import pandas as pd


FCFS_SUFFIX, BF_SUFFIX = "Fcfs", "Bf"


# ----------------------------------------------------------------------------- helpers


def loads_by_weight(table: pd.DataFrame) -> list[str]:
    """Load names from light to heavy (decreasing mean inter-arrival time)."""
    order = table.groupby("load", sort=False)["mean_interarrival"].first()
    return list(order.sort_values(ascending=False).index)


def curve(tables: Mapping[str, pd.DataFrame], target: str, x: str, metric: str,
          policy: str, load: str) -> list[tuple[float, pd.Series]]:
    """One sweep curve: (x, per-seed metric) for every x of (policy, load)."""
    table = tables[target]
    xs = sorted(set(select(table, {"policy": policy, "load": load})[x]))
    return [(float(v), values(tables, target, metric, policy=policy, load=load, **{x: v}))
            for v in xs]


def sweep_curves(tables: Mapping[str, pd.DataFrame], target: str, x: str, metric: str,
                 policies: Sequence[str] | None = None,
                 loads: Sequence[str] | None = None) -> list[tuple[str, Any]]:
    """Every (policy, load) curve of a sweep target, labelled ``policy/load``."""
    table = tables[target]
    chosen = policies if policies is not None else list(table["policy"].unique())
    return [(f"{policy}/{load}", curve(tables, target, x, metric, policy, load))
            for policy in chosen for load in (loads or loads_by_weight(table))]


def at_load(tables: Mapping[str, pd.DataFrame], metric: str, load: str,
            policies: Sequence[str]) -> dict[str, pd.Series]:
    """Combined ``metric`` per seed of each policy at one load (HRF-F7)."""
    return {p: values(tables, F7, metric, policy=p, load=load) for p in policies}


def f7_policies(tables: Mapping[str, pd.DataFrame], suffix: str = "") -> list[str]:
    return [p for p in tables[F7]["policy"].unique() if p.endswith(suffix)]


def middle_load(tables: Mapping[str, pd.DataFrame], target: str = F7) -> str:
    loads = loads_by_weight(tables[target])
    return loads[len(loads) // 2]


def twin_pairs(tables: Mapping[str, pd.DataFrame]) -> list[tuple[str, str]]:
    """(backfilling policy, its FCFS twin) pairs that were both run."""
    run = set(tables[F7]["policy"])
    return [(bf, bf[: -len(BF_SUFFIX)] + FCFS_SUFFIX) for bf in sorted(run)
            if bf.endswith(BF_SUFFIX) and bf[: -len(BF_SUFFIX)] + FCFS_SUFFIX in run]


def best_of_f7(tables: Mapping[str, pd.DataFrame], winner: str, suffix: str, metric: str = "ATT",
               loads: Sequence[str] | None = None, lower_is_better: bool = True) -> Judgement:
    policies = f7_policies(tables, suffix)
    if winner not in policies:
        return not_checkable(f"{winner} was not run")
    points = [(load, at_load(tables, metric, load, policies))
              for load in (loads or loads_by_weight(tables[F7]))]
    return best_of(points, winner, lower_is_better=lower_is_better)


# ----------------------------------------------------------------------------- claims: HRF-T1


@claim(FAMILY_NAME, T1, "T1-att", "Average turnaround of allocation strategies A, B, C "
       "on the Table 1 jobs (sec. 4.1, Fig. 3)", "A 9 s, B 9.67 s, C 11 s")
def claim_t1_att(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    att = tables[T1].groupby("strategy", sort=False)["ATT"].first()
    return combine([formula(float(att[k]), v, float(settings.get("t1_tolerance", 0.01)))
                    for k, v in TABLE1_PAPER_ATT.items()], "T1 ATT")


@claim(FAMILY_NAME, T1, "T1-hrf-picks-A", "HRF allocates like strategy A on the Table 1 jobs "
       "(sec. 4.1); our reading H1 (the budget alpha*m counts each job's first processor) was "
       "read off this example, so the example cannot confirm it", "A (2, 2, 1)")
def claim_t1_choice(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    table = tables[T1]
    choice = str(table["hrf_choice"].iloc[0])
    ours = tuple(int(v) for v in table.groupby("job", sort=True)["hrf_procs"].first())
    literal = hrf_example_allocation(budget_includes_initial=False)
    return informational(choice if choice == str(ours) else f"{choice} {ours}",
                         "true by construction: reading H1's budget was read off this "
                         "example (nothing read off a result confirms it); the literal "
                         f"Algorithm 1 gives {literal} (sensitivity table, literal-budget)")


# ----------------------------------------------------------------------------- claims: HRF-F5


@claim(FAMILY_NAME, F5, "F5-awt-rises", "AWT increases with alpha (HRFFcfs and HRFBf, "
       "every load; sec. 6.2)", "increasing")
def claim_f5_awt(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return trend(sweep_curves(tables, F5, "alpha", "AWT"), +1, _rho(settings))


@claim(FAMILY_NAME, F5, "F5-art-falls", "ART decreases with alpha (HRFFcfs and HRFBf, "
       "every load; sec. 6.2)", "decreasing")
def claim_f5_art(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return trend(sweep_curves(tables, F5, "alpha", "ART"), -1, _rho(settings))


@claim(FAMILY_NAME, F5, "F5-alpha-by-selection", "At heavier load, a larger alpha helps "
       "backfilling and hurts FCFS: HRFBf's ATT at alpha 1.2 is below its ATT at 0.5 (middle "
       "and heavy load), HRFFcfs's at 0.5 below its ATT at 1.2 (heavy load) (sec. 6.2)",
       "HRFBf falls, HRFFcfs rises with alpha at heavier load")
def claim_f5_selection(tables: Mapping[str, pd.DataFrame],
                       settings: Mapping[str, Any]) -> Judgement:
    loads = loads_by_weight(tables[F5])
    low, high = min(tables[F5]["alpha"]), max(tables[F5]["alpha"])

    def att(policy: str, alpha: float, load: str) -> pd.Series:
        return values(tables, F5, "ATT", policy=policy, load=load, alpha=alpha)

    backfill = beats([Pair(f"HRFBf/{load}", att("HRFBf", high, load), att("HRFBf", low, load))
                      for load in loads[1:]])
    fcfs = beats([Pair(f"HRFFcfs/{loads[-1]}", att("HRFFcfs", low, loads[-1]),
                       att("HRFFcfs", high, loads[-1]))])
    return combine([backfill, fcfs], "alpha by selection")


@claim(FAMILY_NAME, F5, "F5-fcfs-heavy-rises", "HRFFcfs's ATT increases monotonically with "
       "alpha at heavy load (sec. 6.2, Fig. 5c)", "increasing")
def claim_f5_fcfs_heavy(tables: Mapping[str, pd.DataFrame],
                        settings: Mapping[str, Any]) -> Judgement:
    heavy = loads_by_weight(tables[F5])[-1]
    return trend(sweep_curves(tables, F5, "alpha", "ATT", ["HRFFcfs"], [heavy]), +1,
                 _rho(settings))


@claim(FAMILY_NAME, F5, "F5-bf-heavier-falls", "HRFBf's ATT decreases monotonically with "
       "alpha at middle and heavy load (sec. 6.2, Fig. 5b-c)", "decreasing")
def claim_f5_bf_heavier(tables: Mapping[str, pd.DataFrame],
                        settings: Mapping[str, Any]) -> Judgement:
    loads = loads_by_weight(tables[F5])[1:]
    return trend(sweep_curves(tables, F5, "alpha", "ATT", ["HRFBf"], loads), -1,
                 _rho(settings))


@claim(FAMILY_NAME, F5, "F5-fcfs-interior-min", "HRFFcfs's ATT first falls, then rises with "
       "alpha at light and middle load, lowest at alpha 0.8 and 0.7 (sec. 6.2, Fig. 5a-b): "
       "the ATT there is below the ATT at both ends", "minimum at 0.8 (light), 0.7 (middle)")
def claim_f5_fcfs_min(tables: Mapping[str, pd.DataFrame],
                      settings: Mapping[str, Any]) -> Judgement:
    loads = loads_by_weight(tables[F5])
    judged = [below_both_ends(dict(curve(tables, F5, "alpha", "ATT", "HRFFcfs", load)),
                              f"HRFFcfs/{load}", best)
              for load, best in zip(loads[:2], PAPER_FCFS_BEST_ALPHA, strict=True)]
    unchecked = [j for j in judged if j.verdict == NOT_CHECKABLE]
    return unchecked[0] if unchecked else combine(judged, "interior minimum")


@claim(FAMILY_NAME, F5, "F5-bf-light-interior-min", "HRFBf's ATT first falls, then rises "
       "with alpha at light load (sec. 6.2, Fig. 5a): some interior alpha (the paper names "
       "none, so every one is a candidate) has an ATT below the ATT at both ends",
       "interior minimum")
def claim_f5_bf_min(tables: Mapping[str, pd.DataFrame],
                    settings: Mapping[str, Any]) -> Judgement:
    light = loads_by_weight(tables[F5])[0]
    return interior_minimum(dict(curve(tables, F5, "alpha", "ATT", "HRFBf", light)),
                            f"HRFBf/{light}")


PAPER_FCFS_BEST_ALPHA = (0.8, 0.7)  # HRF paper, sec. 6.2: light, middle


def below_both_ends(points: Mapping[float, pd.Series], label: str, alpha: float,
                    level: float = 0.95) -> Judgement:
    """The ATT at ``alpha`` beats the ATT at the first and at the last alpha (both)."""
    if alpha not in points:
        return not_checkable(f"HRF-F5 sweeps no alpha {alpha:g}, where the paper puts "
                             f"the lowest ATT of {label} (alphas run: "
                             f"{', '.join(f'{a:g}' for a in sorted(points))})")
    ends = (min(points), max(points))
    return combine([beats([Pair(f"{label} alpha {alpha:g} vs {end:g}", points[alpha],
                                points[end])], level=level) for end in ends],
                   f"{label} alpha {alpha:g} below both ends")


def interior_minimum(points: Mapping[float, pd.Series], label: str,
                     level: float = 0.95) -> Judgement:
    """Family rule F5-min (docs/deviations-hrf.md): every interior alpha is a candidate, each
    tested by :func:`below_both_ends` at the Bonferroni level ``1 - (1 - level) / k`` for
    ``k`` candidates. Reproduced if some candidate is below both ends; contradicted if every
    candidate is significantly above an end (the minimum is at an end); else inconclusive."""
    interior = sorted(points)[1:-1]
    if not interior:
        return not_checkable(f"{label}: no interior alpha")
    corrected = 1 - (1 - level) / len(interior)
    judged = [below_both_ends(points, label, alpha, corrected) for alpha in interior]
    verdicts = [j.verdict for j in judged]
    below = [f"{a:g}" for a, v in zip(interior, verdicts, strict=True) if v == REPRODUCED]
    verdict = (REPRODUCED if below else CONTRADICTED if all(v == CONTRADICTED for v in verdicts)
               else INCONCLUSIVE)
    note = (f"{len(interior)} interior candidates at {corrected:.4g} each (Bonferroni); "
            f"below both ends at: {', '.join(below) or 'none'}; "
            f"{verdicts.count(CONTRADICTED)} significantly above an end")
    return Judgement(verdict, "; ".join(j.ours for j in judged),
                     f"interior minimum: some interior alpha beats both ends at the "
                     f"Bonferroni level (family rule F5-min, {100 * level:g}% overall)", note)


def _rho(settings: Mapping[str, Any]) -> float:
    return float(settings.get("trend_min_rho", 0.7))


# ----------------------------------------------------------------------------- claims: HRF-F6


@claim(FAMILY_NAME, F6, "F6-awt-rises", "AWT increases with threshold (HRFFcfs and HRFBf, "
       "every load; sec. 6.2)", "increasing")
def claim_f6_awt(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return trend(sweep_curves(tables, F6, "threshold", "AWT"), +1, _rho(settings))


@claim(FAMILY_NAME, F6, "F6-art-falls", "ART decreases with threshold (HRFFcfs and HRFBf, "
       "every load; sec. 6.2)", "decreasing")
def claim_f6_art(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return trend(sweep_curves(tables, F6, "threshold", "ART"), -1, _rho(settings))


@claim(FAMILY_NAME, F6, "F6-att-stable", "ATT is stable for threshold > 0.3 (sec. 6.2): "
       "every ATT above 0.3 is close to the ATT at the first threshold above 0.3",
       "stable above 0.3")
def claim_f6_stable(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    above = float(settings.get("stable_above", 0.3))
    tol = float(settings.get("stable_tolerance", 0.1))
    pairs = []
    for label, points in sweep_curves(tables, F6, "threshold", "ATT"):
        upper = [(x, v) for x, v in points if x > above + 1e-9]
        if len(upper) < 2:
            return not_checkable(f"fewer than 2 thresholds above {above}")
        first_x, first = upper[0]
        pairs += [Pair(f"{label} {x:g} vs {first_x:g}", v, first) for x, v in upper[1:]]
    return close(pairs, tol)


def f6_reference(points: Sequence[tuple[float, pd.Series]],
                 above: float) -> tuple[list[tuple[float, pd.Series]], tuple[float, pd.Series]]:
    """The thresholds below ``above`` and the first threshold above it."""
    below = [(x, v) for x, v in points if x < above - 1e-9]
    upper = [(x, v) for x, v in points if x > above + 1e-9]
    if not below or not upper:
        raise ValueError(f"need thresholds below and above {above:g}")
    return below, upper[0]


def apart(pairs: Sequence[Pair], tol: float, label: str) -> Judgement:
    """Family rule F6-apart (docs/deviations-hrf.md): A deviates from B by more than ``tol``
    (of B's mean) at some point. Reproduced if at some point the paired interval lies
    entirely outside +-tol (``close`` contradicted there); contradicted if at every point it
    lies inside (``close`` reproduced); else inconclusive."""
    judged = [close([pair], tol) for pair in pairs]
    verdicts = [j.verdict for j in judged]
    verdict = (REPRODUCED if CONTRADICTED in verdicts else
               CONTRADICTED if all(v == REPRODUCED for v in verdicts) else INCONCLUSIVE)
    outside = [pair.label for pair, v in zip(pairs, verdicts, strict=True) if v == CONTRADICTED]
    return Judgement(verdict, "; ".join(j.ours for j in judged),
                     f"apart(some point entirely outside +-{tol:g} x |mean of B|, 95% paired "
                     f"CI; family rule F6-apart)",
                     f"{label}: entirely outside at {', '.join(outside) or 'no point'}")


@claim(FAMILY_NAME, F6, "F6-small-threshold", "Below threshold 0.3 ART is very high and AWT "
       "very low, so ATT deviates from its stable level (sec. 6.2, Fig. 6): per curve, at "
       "the smallest threshold ART is above and AWT below their values at the first threshold "
       "above 0.3, and ATT at some threshold below 0.3 differs from it by more than the "
       "stable tolerance", "ART high, AWT low, ATT fluctuant below 0.3")
def claim_f6_small(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    above = float(settings.get("stable_above", 0.3))
    tol = float(settings.get("stable_tolerance", 0.1))
    checks = []
    for metric, lower in (("ART", False), ("AWT", True)):
        pairs = []
        for label, points in sweep_curves(tables, F6, "threshold", metric):
            below, (ref_x, ref) = f6_reference(points, above)
            pairs.append(Pair(f"{label} {below[0][0]:g} vs {ref_x:g}", below[0][1], ref))
        checks.append(combine([beats([pair], lower_is_better=lower) for pair in pairs],
                              f"{metric} {'below' if lower else 'above'} at the smallest "
                              "threshold"))
    for label, points in sweep_curves(tables, F6, "threshold", "ATT"):
        below, (ref_x, ref) = f6_reference(points, above)
        checks.append(apart([Pair(f"{label} {x:g} vs {ref_x:g}", v, ref) for x, v in below],
                            tol, f"{label} ATT"))
    return combine(checks, "small thresholds")


# ----------------------------------------------------------------------------- claims: HRF-F7


@claim(FAMILY_NAME, F7, "F7-hrffcfs-best-fcfs", "HRFFcfs has the lowest combined ATT of the "
       "FCFS policies at every load (sec. 6.3)", "best at light, middle, heavy")
def claim_f7_fcfs(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return best_of_f7(tables, "HRFFcfs", FCFS_SUFFIX)


@claim(FAMILY_NAME, F7, "F7-hrfbf-best-bf", "HRFBf has the lowest combined ATT of the "
       "backfilling policies at every load (sec. 6.3)", "best at light, middle, heavy")
def claim_f7_bf(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return best_of_f7(tables, "HRFBf", BF_SUFFIX)


@claim(FAMILY_NAME, F7, "F7-hrfbf-best-overall", "HRFBf has the lowest combined ATT of all "
       "8 policies at every load (sec. 6.4)", "best at every load")
def claim_f7_overall(tables: Mapping[str, pd.DataFrame],
                     settings: Mapping[str, Any]) -> Judgement:
    return best_of_f7(tables, "HRFBf", "")


@claim(FAMILY_NAME, F7, "F7-bf-beats-fcfs", "Each backfilling policy has a lower combined "
       "ATT than its FCFS twin (sec. 6.3)", "all 4 pairs at every load")
def claim_f7_pairs(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    pairs = twin_pairs(tables)
    if not pairs:
        return not_checkable("no Bf/Fcfs pair was run")
    loads = loads_by_weight(tables[F7])
    return combine([beats([Pair(f"{bf}/{load}", values(tables, F7, "ATT", policy=bf, load=load),
                                values(tables, F7, "ATT", policy=fcfs, load=load))
                           for load in loads]) for bf, fcfs in pairs], "Bf vs Fcfs")


@claim(FAMILY_NAME, F7, "F7-bf-gain-is-wait", "Backfilling's reduction of combined ATT is "
       "mostly a reduction of combined AWT (sec. 6.3): for each Bf/Fcfs pair and load, the "
       "AWT reduction exceeds the ART reduction", "mostly waiting time")
def claim_f7_gain(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    pairs = twin_pairs(tables)
    if not pairs:
        return not_checkable("no Bf/Fcfs pair was run")

    def gain(metric: str, bf: str, fcfs: str, load: str) -> pd.Series:
        return (values(tables, F7, metric, policy=fcfs, load=load)
                - values(tables, F7, metric, policy=bf, load=load))

    return beats([Pair(f"{bf}/{load}", gain("AWT", bf, fcfs, load), gain("ART", bf, fcfs, load))
                  for bf, fcfs in pairs for load in loads_by_weight(tables[F7])],
                 lower_is_better=False)


@claim(FAMILY_NAME, F7, "F7-att-grows-with-load", "Combined ATT grows with the load, for "
       "every policy (sec. 6.3)", "light < middle < heavy")
def claim_f7_load(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    table = tables[F7]
    rate = {load: 1.0 / float(select(table, {"load": load})["mean_interarrival"].iloc[0])
            for load in loads_by_weight(table)}
    curves = [(policy, [(rate[load], values(tables, F7, "ATT", policy=policy, load=load))
                        for load in rate]) for policy in table["policy"].unique()]
    return trend(curves, +1, _rho(settings))


@claim(FAMILY_NAME, F7, "F7-middle-order", "At middle load the combined ATT orders "
       "SbmGrdyFcfs > SchFairFcfs > SbmFairFcfs > HRFFcfs > HRFBf (sec. 6.3, Fig. 7b); "
       "SchFairFcfs and SbmFairFcfs, 1.8% apart in the paper, are a near-tie", "81,444 > "
       "30,935 > 30,400 > 23,617 > 13,309 s")
def claim_f7_order(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = [p for p in PAPER_MIDDLE_ATT if p not in set(tables[F7]["policy"])]
    if missing:
        return not_checkable(f"not run: {', '.join(missing)}")
    middle = middle_load(tables)
    order = list(reversed(PAPER_MIDDLE_ATT))
    return ordering([(middle, at_load(tables, "ATT", middle, order))], order,
                    paper_values=PAPER_MIDDLE_ATT,
                    tol=float(settings.get("near_tie_tolerance", 0.05)))


@claim(FAMILY_NAME, F7, "F7-middle-values", "Combined ATT values at middle load (Fig. 7b); "
       "absolute values are compared, not required", "SbmGrdyFcfs 81,444; SbmFairFcfs "
       "30,400; SchFairFcfs 30,935; HRFFcfs 23,617; HRFBf 13,309 s")
def claim_f7_values(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    middle = middle_load(tables)
    run = set(tables[F7]["policy"])
    parts = []
    for policy, paper in PAPER_MIDDLE_ATT.items():
        if policy in run:
            ours = mean_ci(values(tables, F7, "ATT", policy=policy, load=middle))
            parts.append(f"{policy} {ours.mean:,.0f} [{ours.low:,.0f}, {ours.high:,.0f}] "
                         f"(paper x{ours.mean / paper:.2f})")
    return informational("; ".join(parts), "absolute values depend on the workload "
                                           "realisation: compared, not judged")


@claim(FAMILY_NAME, F7, "F7-sbmgrdy-shortest-art", "At middle load SbmGrdyFcfs has the "
       "shortest combined ART of the FCFS policies (sec. 6.3, Fig. 7b)", "shortest ART")
def claim_f7_grdy_art(tables: Mapping[str, pd.DataFrame],
                      settings: Mapping[str, Any]) -> Judgement:
    return best_of_f7(tables, "SbmGrdyFcfs", FCFS_SUFFIX, "ART", [middle_load(tables)])


@claim(FAMILY_NAME, F7, "F7-sbmgrdy-longest-att", "At middle load SbmGrdyFcfs has the "
       "longest combined ATT of the FCFS policies (sec. 6.3, Fig. 7b)", "81,444 s, the longest")
def claim_f7_grdy_att(tables: Mapping[str, pd.DataFrame],
                      settings: Mapping[str, Any]) -> Judgement:
    return best_of_f7(tables, "SbmGrdyFcfs", FCFS_SUFFIX, "ATT", [middle_load(tables)],
                      lower_is_better=False)


@claim(FAMILY_NAME, F7, "F7-schfair-beats-sbmfair", "SchFairFcfs has a lower combined ATT "
       "than SbmFairFcfs at light and heavy load (sec. 6.3, Fig. 7a, 7c)", "better")
def claim_f7_sch_beats(tables: Mapping[str, pd.DataFrame],
                       settings: Mapping[str, Any]) -> Judgement:
    loads = loads_by_weight(tables[F7])
    return beats([Pair(load, values(tables, F7, "ATT", policy="SchFairFcfs", load=load),
                       values(tables, F7, "ATT", policy="SbmFairFcfs", load=load))
                  for load in (loads[0], loads[-1])])


@claim(FAMILY_NAME, F7, "F7-schfair-close-middle", "At middle load SchFairFcfs is slightly "
       "worse than SbmFairFcfs (sec. 6.3, Fig. 7b): within the tolerance of each other",
       "30,935 vs 30,400 s (+1.8%)")
def claim_f7_sch_close(tables: Mapping[str, pd.DataFrame],
                       settings: Mapping[str, Any]) -> Judgement:
    middle = middle_load(tables)
    return close([Pair(middle, values(tables, F7, "ATT", policy="SchFairFcfs", load=middle),
                       values(tables, F7, "ATT", policy="SbmFairFcfs", load=middle))],
                 float(settings.get("slightly_tolerance", 0.05)))


PAPER_UP_TO = 71.0  # abstract and sec. 6.4: 1 - 23,617 / 81,444 (HRFFcfs vs SbmGrdyFcfs)


def middle_ratio(tables: Mapping[str, pd.DataFrame], numerator: str,
                 denominator: str) -> pd.Series:
    """Per seed, ``numerator``'s combined ATT over ``denominator``'s at middle load."""
    middle = middle_load(tables)
    return (values(tables, F7, "ATT", policy=numerator, load=middle)
            / values(tables, F7, "ATT", policy=denominator, load=middle)).dropna()


def ratio_magnitudes(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any],
                     cases: Sequence[tuple[str, str, float, str]], label: str) -> Judgement:
    """Per seed at middle load, each (numerator, denominator, paper value, form) as the paper
    states it: ``share`` = 100 x num / den (%), ``times`` = num / den, ``cut`` = 100 x (1 -
    num / den) (%); each paper value within the central 95% of ours (``magnitude``)."""
    run = set(tables[F7]["policy"])
    missing = sorted({p for num, den, _, _ in cases for p in (num, den)} - run)
    if missing:
        return not_checkable(f"not run: {', '.join(missing)}")
    judged = []
    for numerator, denominator, paper, form in cases:
        ratio = middle_ratio(tables, numerator, denominator)
        stat = {"share": 100.0 * ratio, "times": ratio, "cut": 100.0 * (1.0 - ratio)}[form]
        found = magnitude(paper, stat)
        judged.append(replace(found, ours=f"{numerator} / {denominator} ({form}): {found.ours}"))
    return combine(judged, label)


@claim(FAMILY_NAME, F7, "F7-up-to-71", "HRF reduces ATT by up to 71% compared with the other "
       "policies (abstract, sec. 6.4); the 71% is the paper's 1 - 23,617 / 81,444, HRFFcfs "
       "against SbmGrdyFcfs at middle load (sec. 6.3, Fig. 7b): per seed, that reduction",
       "71%")
def claim_f7_up_to(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return ratio_magnitudes(tables, settings, [("HRFFcfs", "SbmGrdyFcfs", PAPER_UP_TO, "cut")],
                            "up to 71%")


@claim(FAMILY_NAME, F7, "F7-hrffcfs-shares", "At middle load HRFFcfs's combined ATT is 77.7% "
       "of SbmFairFcfs's and 73.3% of SchFairFcfs's (sec. 6.3; the paper's own values give "
       "77.7% and 76.3%; its 29% of SbmGrdyFcfs is F7-up-to-71): per seed, those shares",
       "77.7%, 73.3%")
def claim_f7_shares(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return ratio_magnitudes(tables, settings, [("HRFFcfs", "SbmFairFcfs", 77.7, "share"),
                                               ("HRFFcfs", "SchFairFcfs", 73.3, "share")],
                            "HRFFcfs's shares")


@claim(FAMILY_NAME, F7, "F7-sbmgrdy-times", "At middle load SbmGrdyFcfs's combined ATT is "
       "2.63 times SchFairFcfs's and 3.45 times HRFFcfs's (sec. 6.3; 3.45 is the inverse of "
       "F7-up-to-71's 29%): per seed, those ratios", "2.63x, 3.45x")
def claim_f7_times(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return ratio_magnitudes(tables, settings, [("SbmGrdyFcfs", "SchFairFcfs", 2.63, "times"),
                                               ("SbmGrdyFcfs", "HRFFcfs", 3.45, "times")],
                            "SbmGrdyFcfs's ratios")


@claim(FAMILY_NAME, F7, "F7-hrfbf-half-of-fcfs", "At middle load HRFBf's combined ATT is "
       "50.3% better than HRFFcfs's (sec. 6.3; the paper's own values, 13,309 and 23,617 s, "
       "give 43.6%): per seed, the reduction", "50.3%")
def claim_f7_bf_cut(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return ratio_magnitudes(tables, settings, [("HRFBf", "HRFFcfs", 50.3, "cut")],
                            "HRFBf over HRFFcfs")
