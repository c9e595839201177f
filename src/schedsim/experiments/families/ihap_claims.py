"""IHAP family: its claims, each a small function registered with
:func:`schedsim.claims.claim` and judged by a rule of :mod:`schedsim.verdicts`
(``IhapFamily.claims_module``: only the claims job imports them)."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedsim.claims import claim
from schedsim.experiments.families.ihap import (
    F1,
    F2,
    F3,
    FAMILY_NAME,
    HAP,
    IHAP,
    IHAP_FCFS,
    MAP,
)
from schedsim.tables import claim_level, missing_policies, per_seed, seeds_of
from schedsim.verdicts import (
    CONTRADICTED,
    INCONCLUSIVE,
    REPRODUCED,
    Judgement,
    Pair,
    beats,
    best_of,
    combine,
    informational,
    not_checkable,
    trend,
)

if TYPE_CHECKING:
    import pandas as pd


PAPER_POLICIES = (MAP, HAP, IHAP)
DEFAULT_LEVEL = 0.90
level = functools.partial(claim_level, default=DEFAULT_LEVEL)  # the family's claims.level


# ----------------------------------------------------------------------------- helpers


def axis_of(target: str) -> str:
    return {F1: "utilization", F2: "cva", F3: "cvs"}[target]


def xs(tables: Mapping[str, pd.DataFrame], target: str) -> list[float]:
    return sorted({float(v) for v in seeds_of(tables, target)[axis_of(target)]})


def series(tables: Mapping[str, pd.DataFrame], target: str, policy: str, metric: str,
           x: float) -> pd.Series:
    """``metric`` of ``policy`` per batch at ``x`` on the target's axis."""
    return per_seed(seeds_of(tables, target), metric, {"policy": policy, axis_of(target): x})


def label(target: str, x: float) -> str:
    return f"{ {'utilization': 'U', 'cva': 'CVa', 'cvs': 'CVs'}[axis_of(target)]}={x:g}"


def points(tables: Mapping[str, pd.DataFrame], target: str, policies: Sequence[str],
           metric: str, keep: Any = None) -> list[tuple[str, dict[str, pd.Series]]]:
    return [(label(target, x), {p: series(tables, target, p, metric, x) for p in policies})
            for x in xs(tables, target) if keep is None or keep(x)]


# ----------------------------------------------------------------------------- claims


def ihap_best(tables: Mapping[str, pd.DataFrame], target: str, settings: Mapping[str, Any],
              keep: Any = None) -> Judgement:
    missing = missing_policies(tables, target, *PAPER_POLICIES)
    if missing:
        return not_checkable(missing)
    chosen = points(tables, target, PAPER_POLICIES, "MRT", keep)
    if not chosen:
        return not_checkable(f"{target} has no point in the claimed range")
    return best_of(chosen, IHAP, level=level(settings))


def rises(tables: Mapping[str, pd.DataFrame], target: str,
          settings: Mapping[str, Any]) -> Judgement:
    missing = missing_policies(tables, target, *PAPER_POLICIES)
    if missing:
        return not_checkable(missing)
    curves = [(p, [(x, series(tables, target, p, "MRT", x)) for x in xs(tables, target)])
              for p in PAPER_POLICIES]
    return trend(curves, +1, float(settings.get("min_rho", 0.7)), level(settings))


def least_sensitive(tables: Mapping[str, pd.DataFrame], target: str,
                    settings: Mapping[str, Any]) -> Judgement:
    """Family rule R2 (docs/deviations-ihap.md): per batch, MRT at the largest CV over MRT at
    the smallest (the same batch of the same seed: common random numbers); ``best_of`` on
    that ratio, lower is better."""
    missing = missing_policies(tables, target, *PAPER_POLICIES)
    if missing:
        return not_checkable(missing)
    values = xs(tables, target)
    if len(values) < 2:
        return not_checkable(f"{target} has fewer than two CV values")
    low, high = values[0], values[-1]
    ratios = {p: series(tables, target, p, "MRT", high) / series(tables, target, p, "MRT", low)
              for p in PAPER_POLICIES}
    judged = best_of([(f"MRT({high:g}) / MRT({low:g})", ratios)], IHAP, level=level(settings))
    return Judgement(judged.verdict, judged.ours, f"{judged.rule} on the per-batch ratio "
                     "(family rule R2)", judged.note)


def precise(tables: Mapping[str, pd.DataFrame], target: str,
            settings: Mapping[str, Any]) -> Judgement:
    """Family rule R1 (docs/deviations-ihap.md): the relative error of every point's MRT (the
    half-width of its interval over the mean) is an estimate, judged by its own interval
    (:func:`schedsim.stats.relative_half_width`, the family's level). Reproduced if at
    every point the upper end is at most the limit; contradicted if at some point the lower
    end exceeds it; else inconclusive."""
    from schedsim.stats import relative_half_width

    limit = float(settings.get("max_relative_error", 0.05))
    found = {}
    for policy in dict.fromkeys(seeds_of(tables, target)["policy"]):
        for x in xs(tables, target):
            found[(policy, x)] = relative_half_width(series(tables, target, policy, "MRT", x),
                                                     level(settings))
    if not found:
        return not_checkable(f"{target} has no points")
    within = [key for key, (_, _, high) in found.items() if high <= limit]
    over = [key for key, (low, _, _) in found.items() if low > limit]
    worst = max(found, key=lambda key: found[key][1])
    low, est, high = found[worst]
    ours = (f"largest {est:.1%} [{low:.1%}, {high:.1%}] ({worst[0]}, "
            f"{label(target, worst[1])}); shown within {limit:.0%} at {len(within)} of "
            f"{len(found)} points, over it at {len(over)}")
    verdict = (CONTRADICTED if over else REPRODUCED if len(within) == len(found)
               else INCONCLUSIVE)
    shown = ", ".join(f"{p} {label(target, x)}" for p, x in over)
    return Judgement(verdict, ours, f"every point's MRT relative half-width <= {limit:.0%}, "
                     f"judged on its own {level(settings):.0%} interval (chi-square for the "
                     "spread; family rule R1)",
                     f"over the limit: {shown}" if shown else
                     f"{len(found) - len(within)} points undecided")


@claim(FAMILY_NAME, F1, "F1-ihap-best-medium-high", "IHAP has the shortest mean response time "
       "at medium to high utilization (sec. 5.1, Fig. 1)", "IHAP lowest MRT at U >= 0.5")
def claim_f1_best(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    start = float(settings.get("medium_from", 0.5))
    return ihap_best(tables, F1, settings, lambda x: x >= start - 1e-9)


@claim(FAMILY_NAME, F1, "F1-low-utilization", "At low utilization (below the claimed range) "
       "which policy has the shortest MRT (sec. 5.1 claims IHAP's lead only from medium "
       "loads)", "not stated")
def claim_f1_low(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    missing = missing_policies(tables, F1, *PAPER_POLICIES)
    if missing:
        return not_checkable(missing)
    start = float(settings.get("medium_from", 0.5))
    parts = []
    for name, values in points(tables, F1, PAPER_POLICIES, "MRT", lambda x: x < start - 1e-9):
        means = {p: float(v.mean()) for p, v in values.items()}
        best = min(means, key=lambda p: means[p])
        parts.append(f"{name}: {best} ({', '.join(f'{p} {m:.3g}' for p, m in means.items())})")
    return informational("; ".join(parts) or "no point below the range", "best mean MRT per "
                         "point: reported, not judged")


@claim(FAMILY_NAME, F1, "F1-ihap-less-power", "IHAP allocates less computing power per job "
       "than HAP and MAP at medium to high utilization (sec. 5.1: 'smaller partition "
       "sizes')", "IHAP below HAP and MAP")
def claim_f1_power(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    start = float(settings.get("medium_from", 0.5))
    return ihap_against_others(tables, settings, "power", lambda x: x >= start - 1e-9,
                               "IHAP's power below HAP's and MAP's")


@claim(FAMILY_NAME, F1, "F1-fpfs-share", "How much of IHAP's MRT gain over HAP comes from its "
       "partition sizes (IHAP-FCFS) and how much from fit-processors-first-served (sec. 5.1 "
       "names both causes)", "both causes, not separated")
def claim_f1_ablation(tables: Mapping[str, pd.DataFrame],
                      settings: Mapping[str, Any]) -> Judgement:
    missing = missing_policies(tables, F1, HAP, IHAP, IHAP_FCFS)
    if missing:
        return not_checkable(missing)
    start = float(settings.get("medium_from", 0.5))
    parts = []
    for x in xs(tables, F1):
        if x < start - 1e-9:
            continue
        hap, ihap, fcfs = (float(series(tables, F1, p, "MRT", x).mean())
                           for p in (HAP, IHAP, IHAP_FCFS))
        gain = hap - ihap
        share = (hap - fcfs) / gain if gain > 0 else math.nan
        parts.append(f"{label(F1, x)}: HAP {hap:.3g}, IHAP-FCFS {fcfs:.3g}, IHAP {ihap:.3g}"
                     + (f" (sizing {share:.0%} of the gain)" if gain > 0 else ""))
    return informational("; ".join(parts), "the ablation IHAP-FCFS: IHAP's partition sizes "
                         "served first come first served; reported, not judged")


@claim(FAMILY_NAME, F1, "F1-hap-map-wait-longer", "HAP's and MAP's jobs wait long for their "
       "larger partitions (sec. 5.1): IHAP's mean wait is below HAP's and MAP's at medium to "
       "high utilization", "HAP and MAP jobs wait longer")
def claim_f1_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    start = float(settings.get("medium_from", 0.5))
    return ihap_against_others(tables, settings, "AWT", lambda x: x >= start - 1e-9,
                               "IHAP's wait below HAP's and MAP's")


@claim(FAMILY_NAME, F1, "F1-bigger-partitions-low", "HAP and MAP produce bigger partitions "
       "than IHAP at low to medium utilization (sec. 5.1): IHAP's processors per job below "
       "HAP's and MAP's at utilization up to the medium one", "HAP and MAP bigger")
def claim_f1_partitions(tables: Mapping[str, pd.DataFrame],
                        settings: Mapping[str, Any]) -> Judgement:
    until = float(settings.get("low_medium_until", 0.5))
    return ihap_against_others(tables, settings, "procs_per_job", lambda x: x <= until + 1e-9,
                               "IHAP's partitions smaller than HAP's and MAP's")


def ihap_against_others(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any],
                        metric: str, keep: Any, what: str) -> Judgement:
    """IHAP beats HAP and MAP (lower is better) on ``metric`` at the utilizations ``keep``
    selects, paired over the batches."""
    missing = missing_policies(tables, F1, *PAPER_POLICIES)
    if missing:
        return not_checkable(missing)
    chosen = [x for x in xs(tables, F1) if keep(x)]
    if not chosen:
        return not_checkable(f"{F1} has no utilization in the claimed range")
    return combine([beats([Pair(label(F1, x), series(tables, F1, IHAP, metric, x),
                                series(tables, F1, other, metric, x)) for x in chosen],
                          level=level(settings)) for other in (HAP, MAP)], what)


@claim(FAMILY_NAME, F2, "F2-mrt-rises", "MRT increases with the inter-arrival CV for the three "
       "policies (sec. 5.2.1, Fig. 2)", "MRT rises with CVa")
def claim_f2_rises(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return rises(tables, F2, settings)


@claim(FAMILY_NAME, F2, "F2-ihap-best", "IHAP keeps the shortest MRT at every inter-arrival CV "
       "at 80% utilization (sec. 5.2.1)", "IHAP lowest at every CVa")
def claim_f2_best(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return ihap_best(tables, F2, settings)


@claim(FAMILY_NAME, F2, "F2-ihap-least-sensitive", "The arrival variance affects HAP and MAP "
       "more than IHAP (sec. 5.2.1): IHAP's MRT grows least from the smallest to the largest "
       "CVa", "IHAP least sensitive")
def claim_f2_sensitive(tables: Mapping[str, pd.DataFrame],
                       settings: Mapping[str, Any]) -> Judgement:
    return least_sensitive(tables, F2, settings)


@claim(FAMILY_NAME, F3, "F3-mrt-rises", "MRT increases with the service-demand CV for the three "
       "policies (sec. 5.2.2, Fig. 3)", "MRT rises with CVs")
def claim_f3_rises(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return rises(tables, F3, settings)


@claim(FAMILY_NAME, F3, "F3-ihap-best", "IHAP has the shortest MRT at every service-demand CV at "
       "80% utilization (sec. 5.2.2 and 6, Fig. 3)", "IHAP lowest at every CVs")
def claim_f3_best(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return ihap_best(tables, F3, settings)


@claim(FAMILY_NAME, F3, "F3-ihap-least-sensitive", "The service-demand variance affects HAP and "
       "MAP more than IHAP (sec. 5.2.2 and 6)", "IHAP least sensitive")
def claim_f3_sensitive(tables: Mapping[str, pd.DataFrame],
                       settings: Mapping[str, Any]) -> Judgement:
    return least_sensitive(tables, F3, settings)


for _target in (F1, F2, F3):
    def _precision(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any],
                   target: str = _target) -> Judgement:
        return precise(tables, target, settings)

    claim(FAMILY_NAME, _target, f"{_target[5:]}-relative-error", "Every point's MRT has a "
          "relative error of at most 5% under the 90% confidence interval with 31 batches of "
          "7000 jobs, the first discarded (sec. 5)", "<= 5% at every point")(_precision)
