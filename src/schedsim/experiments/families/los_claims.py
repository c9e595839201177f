"""LOS family: its claims, each a small function registered with
:func:`schedsim.claims.claim` and judged by a rule of :mod:`schedsim.verdicts`
(``LosFamily.claims_module``: only the claims job imports them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from schedsim.claims import claim
from schedsim.experiments.families.los import (
    F1,
    F5,
    F6,
    F7,
    F8,
    F9,
    F10,
    F11,
    FAMILY_NAME,
    N10K,
    PAPER_TABLES,
    T4,
    T5,
    T6,
    T7,
    TABLE_METRICS,
    MissingPolicy,
    panel_loads,
    show,
)
from schedsim.stats import mean_ci
from schedsim.tables import per_seed, seeds_of, select
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
    trend,
)

if TYPE_CHECKING:
    import pandas as pd


def chosen_cs(table: pd.DataFrame, panel: str | None = None) -> dict[str, int]:
    """Policy -> the C_s its load-sweep rows ran with (policies with a C_s only)."""
    rows = table if panel is None else select(table, {"panel": panel})
    rows = rows[rows["c_s"].notna()]
    return {str(p): int(v) for p, v in rows.groupby("policy", sort=False)["c_s"].first().items()}


# ----------------------------------------------------------------------------- per-seed values


def panels_of(tables: Mapping[str, pd.DataFrame], target: str) -> list[str]:
    return list(dict.fromkeys(tables[target]["panel"].astype(str)))


def _panel(tables: Mapping[str, pd.DataFrame], target: str, index: int = 0) -> str:
    found = panels_of(tables, target)
    return found[index] if index < len(found) else ""


def load_pairs(tables: Mapping[str, pd.DataFrame], target: str, panel: str, first: str,
               second: str, metric: str) -> list[Pair]:
    """``first`` vs ``second`` per seed at every load of a panel."""
    return load_pairs_from(seeds_of(tables, target), tables[target], panel, first, second,
                           metric, target)


def load_pairs_from(seeds: pd.DataFrame, table: pd.DataFrame, panel: str, first: str,
                    second: str, metric: str, target: str = "") -> list[Pair]:
    """:func:`load_pairs` on a target's per-seed table and table."""
    where = {"panel": panel}
    present = set(select(seeds, where)["policy"])
    for policy in (first, second):
        if policy not in present:
            raise MissingPolicy(f"{show(policy)} was not run in panel {panel} of {target}")
    return [Pair(f"{show(first)} vs {show(second)} {panel} load {load:g}",
                 per_seed(seeds, metric, {**where, "load": load, "policy": first}),
                 per_seed(seeds, metric, {**where, "load": load, "policy": second}))
            for load in panel_loads(table, panel)]


def lower_is_better(metric: str) -> bool:
    return metric != "utilization"


def beats_all(tables: Mapping[str, pd.DataFrame], target: str,
              pairs: Sequence[tuple[str, str, str]], metric: str) -> Judgement:
    """Each (panel, winner, loser): winner beats loser on ``metric`` over the panel's loads."""
    try:
        return combine([beats(load_pairs(tables, target, panel, first, second, metric),
                              lower_is_better(metric)) for panel, first, second in pairs],
                       metric)
    except MissingPolicy as err:
        return not_checkable(str(err.args[0]))


def cs_series(tables: Mapping[str, pd.DataFrame], target: str, policy: str,
              metric: str) -> list[tuple[float, pd.Series]]:
    """(C_s, per-seed metric) of ``policy`` in a C_s sweep, C_s ascending."""
    seeds = seeds_of(tables, target)
    swept = sorted({int(v) for v in select(seeds, {"policy": policy})["c_s"].dropna()})
    return [(float(v), per_seed(seeds, metric, {"policy": policy, "c_s": float(v)}))
            for v in swept]


def _cs_policy_of(table: pd.DataFrame) -> str | None:
    swept = table[table["c_s"].notna()]["policy"].unique()
    return str(swept[0]) if len(swept) else None


def per_seed_max_improvement(seeds: pd.DataFrame, panel: str, policy: str, baseline: str,
                             metric: str, sign: int) -> pd.Series:
    """Per seed: the largest % improvement of ``policy`` over ``baseline`` over the loads.

    The statistic of the LOS paper's Tables IV-VII, computed within each replication
    as the paper does within its single run.
    """
    import pandas as pd

    where = {"panel": panel}
    loads = sorted({float(v) for v in select(seeds, where)["load"]})
    cuts = []
    for load in loads:
        new = per_seed(seeds, metric, {**where, "load": load, "policy": policy})
        base = per_seed(seeds, metric, {**where, "load": load, "policy": baseline})
        cuts.append(100.0 * sign * (new - base) / base)
    return pd.concat(cuts, axis=1).max(axis=1)


# Tables IV-VII: their source load sweep and panel, the new policy, the baselines in order.
TABLE_SOURCES: dict[str, tuple[str, str, str, tuple[str, str]]] = {
    T4: (F7, "batch", "Delayed-LOS", ("LOS", "easy")),
    T5: (F9, "heterogeneous", "Hybrid-LOS", ("LOS-D", "EASY-D")),
    T6: (F11, "elastic-batch", "Delayed-LOS-E", ("LOS-E", "EASY-E")),
    T7: (F11, "elastic-heterogeneous", "Hybrid-LOS-E", ("LOS-DE", "EASY-DE")),
}


def table_statistic(tables: Mapping[str, pd.DataFrame], target: str, metric: str,
                    b_index: int) -> pd.Series:
    """Per seed, one cell of Table IV-VII (``target``): metric vs the b_index-th baseline."""
    source, panel, policy, baselines = TABLE_SOURCES[target]
    sign = next(s for m, _, s in TABLE_METRICS if m == metric)
    return per_seed_max_improvement(seeds_of(tables, source), panel, policy,
                                    baselines[b_index], metric, sign)


# ----------------------------------------------------------------------------- claims: F1


@claim(FAMILY_NAME, F1, "F1-los-beats-easy", "On the real log LOS 'clearly outperforms' EASY "
       "in mean wait (load set by scaling arrival times; sec. III, Fig. 1)",
       "LOS below EASY (SDSC SP2 log)")
def claim_f1(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    log = _panel(tables, F1)  # the panel of a trace sweep is its log
    try:
        judged = beats(load_pairs(tables, F1, log, "LOS", "easy", "AWT"))
    except MissingPolicy as err:
        return not_checkable(str(err.args[0]))
    used = "the paper's log" if log == "SDSC-SP2" else "not the paper's SDSC SP2 log"
    return replace(judged, ours=f"on the log {log} ({used}): {judged.ours}")


# ----------------------------------------------------------------------------- claims: F5, F6


def cs_beats(tables: Mapping[str, pd.DataFrame], target: str, metric: str) -> Judgement:
    """The C_s-swept policy beats every other policy of a C_s sweep, at every C_s."""
    seeds = seeds_of(tables, target)
    policy = _cs_policy_of(tables[target])
    if policy is None:
        return not_checkable("no policy with a C_s was run")
    judged = []
    for other in [p for p in tables[target]["policy"].unique() if p != policy]:
        theirs = per_seed(seeds, metric, {"policy": other})
        judged.append(beats([Pair(f"{policy} vs {show(other)} C_s {x:g}", ours, theirs)
                             for x, ours in cs_series(tables, target, policy, metric)],
                            lower_is_better(metric)))
    return combine(judged, metric)


@claim(FAMILY_NAME, F5, "F5-dlos-beats-wait", "Load 0.9, P_S 0.5: Delayed-LOS has a lower "
       "mean wait than LOS and EASY (sec. V-A, Fig. 5)", "lower at every C_s 1-20")
def claim_f5_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return cs_beats(tables, F5, "AWT")


@claim(FAMILY_NAME, F5, "F5-dlos-beats-util", "Load 0.9, P_S 0.5: Delayed-LOS has a higher "
       "mean utilization than LOS and EASY (sec. V-A, Fig. 5)", "higher at every C_s 1-20")
def claim_f5_util(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return cs_beats(tables, F5, "utilization")


@claim(FAMILY_NAME, F5, "F5-cs-knee", "Delayed-LOS's mean wait falls as C_s grows until about "
       "7-8, then stays stable (sec. V-A, Fig. 5)", "falls until C_s 7-8, then flat")
def claim_f5_knee(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return knee(tables, F5, "AWT", -1, float(settings.get("fall_until", 8)))


@claim(FAMILY_NAME, F5, "F5-util-knee", "Delayed-LOS's mean utilization rises as C_s grows "
       "until about 7-8, then stays stable (sec. V-A, Fig. 5)", "rises until C_s 7-8, then flat")
def claim_f5_util_knee(tables: Mapping[str, pd.DataFrame],
                       settings: Mapping[str, Any]) -> Judgement:
    return knee(tables, F5, "utilization", +1, float(settings.get("fall_until", 8)))


def knee(tables: Mapping[str, pd.DataFrame], target: str, metric: str, direction: int,
         at: float) -> Judgement:
    """``flattens`` at C_s ``at`` of the C_s-swept policy's ``metric``."""
    policy = _cs_policy_of(tables[target])
    if policy is None:
        return not_checkable("no policy with a C_s was run")
    points = cs_series(tables, target, policy, metric)
    if at not in [x for x, _ in points] or points[-1][0] <= at or points[0][0] >= at:
        return not_checkable(f"need C_s values below, at and above {at:g}")
    return flattens(points, at, direction)


@claim(FAMILY_NAME, F6, "F6-dlos-beats-wait", "Load 0.9, P_S 0.8: Delayed-LOS has a lower "
       "mean wait than LOS and EASY (sec. V-A, Fig. 6: 'similar plots')", "lower at every C_s")
def claim_f6_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return cs_beats(tables, F6, "AWT")


@claim(FAMILY_NAME, F6, "F6-dlos-beats-util", "Load 0.9, P_S 0.8: Delayed-LOS has a higher "
       "mean utilization than LOS and EASY (sec. V-A, Fig. 6)", "higher at every C_s")
def claim_f6_util(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return cs_beats(tables, F6, "utilization")


@claim(FAMILY_NAME, F6, "F6-cs-insensitive", "Load 0.9, P_S 0.8: Delayed-LOS is insensitive "
       "to C_s above about 3 (sec. V-A, Fig. 6)", "flat for C_s > 3")
def claim_f6_flat(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    policy = _cs_policy_of(tables[F6])
    if policy is None:
        return not_checkable("no policy with a C_s was run")
    flat_from = float(settings.get("f6_flat_from", 4))
    points = cs_series(tables, F6, policy, "AWT")
    means = [float(v.mean()) for x, v in points if x >= flat_from]
    whole = [float(v.mean()) for _, v in points]
    if not means:
        return not_checkable(f"no C_s value >= {flat_from:g}")
    spread = (max(means) - min(means)) / min(means)
    return informational(f"mean wait over C_s >= {flat_from:g}: {min(means):,.0f}-"
                         f"{max(means):,.0f} s (spread {spread:.1%}); over every C_s: "
                         f"{min(whole):,.0f}-{max(whole):,.0f} s",
                         "not judged: the whole effect of C_s on Delayed-LOS's mean wait is "
                         "about 1% (Fig. 5's knee included), so a check of 'insensitive' "
                         "within a tolerance the paper does not give cannot fail")


# ----------------------------------------------------------------------------- claims: F7-F11


@claim(FAMILY_NAME, F7, "F7-dlos-best-wait", "P_S 0.2: Delayed-LOS has a lower mean wait than "
       "LOS and EASY over the loads 0.5-1.0 (sec. V-A, Fig. 7)", "Delayed-LOS best")
def claim_f7_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    panel = _panel(tables, F7)
    return beats_all(tables, F7, [(panel, "Delayed-LOS", "LOS"),
                                  (panel, "Delayed-LOS", "easy")], "AWT")


@claim(FAMILY_NAME, F7, "F7-dlos-best-util", "P_S 0.2: Delayed-LOS has a higher mean "
       "utilization than LOS and EASY (sec. V-A, Fig. 7)", "Delayed-LOS best")
def claim_f7_util(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    panel = _panel(tables, F7)
    return beats_all(tables, F7, [(panel, "Delayed-LOS", "LOS"),
                                  (panel, "Delayed-LOS", "easy")], "utilization")


@claim(FAMILY_NAME, F7, "F7-los-worse-than-easy", "P_S 0.2: LOS performs worse than EASY "
       "(higher mean wait and lower utilization; sec. V-A, Fig. 7)", "LOS worse than EASY")
def claim_f7_los(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    panel = _panel(tables, F7)
    return combine([beats_all(tables, F7, [(panel, "easy", "LOS")], metric)
                    for metric in ("AWT", "utilization")], "EASY beats LOS")


@claim(FAMILY_NAME, F8, "F8-gap-narrows", "As P_S grows from 0.2 (Fig. 7) to 0.5 and 0.8 "
       "(Fig. 8), Delayed-LOS's mean wait comes closer to EASY's (sec. V-A): per seed, EASY's "
       "mean wait minus Delayed-LOS's over EASY's, averaged over the loads, falls with P_S",
       "Delayed-LOS closer to EASY as P_S grows", needs=(F7, F8))
def claim_f8_narrows(tables: Mapping[str, pd.DataFrame],
                     settings: Mapping[str, Any]) -> Judgement:
    try:
        cases = [(tables[F7], seeds_of(tables, F7), _panel(tables, F7))]
        cases += [(tables[F8], seeds_of(tables, F8), panel) for panel in panels_of(tables, F8)]
        points = []
        for table, seeds, panel in cases:
            ps = float(select(table, {"panel": panel})["ps"].iloc[0])
            gaps = [(base - new) / base for new, base in
                    ((p.a, p.b) for p in load_pairs_from(seeds, table, panel, "Delayed-LOS",
                                                         "easy", "AWT"))]
            points.append((ps, sum(gaps) / len(gaps)))
    except MissingPolicy as err:
        return not_checkable(str(err.args[0]))
    return trend([("relative gap EASY - Delayed-LOS", points)], -1)


@claim(FAMILY_NAME, F8, "F8-dlos-close-to-easy", "P_S 0.5 and 0.8: Delayed-LOS's mean wait is "
       "close to EASY's (sec. V-A, Fig. 8)", "close at P_S 0.5 and 0.8")
def claim_f8_close(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    tol = float(settings.get("close_tolerance", 0.1))
    try:
        return combine([close(load_pairs(tables, F8, panel, "Delayed-LOS", "easy", "AWT"), tol)
                        for panel in panels_of(tables, F8)], "close")
    except MissingPolicy as err:
        return not_checkable(str(err.args[0]))


@claim(FAMILY_NAME, F8, "F8-both-beat-los", "P_S 0.5 and 0.8: Delayed-LOS and EASY both have a "
       "lower mean wait than LOS (sec. V-A, Fig. 8)", "both beat LOS")
def claim_f8_los(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    pairs = [(p, new, "LOS") for p in panels_of(tables, F8) for new in ("Delayed-LOS", "easy")]
    return beats_all(tables, F8, pairs, "AWT")


def _hybrid_claim(tables: Mapping[str, pd.DataFrame], target: str, metric: str) -> Judgement:
    panel = _panel(tables, target)
    return beats_all(tables, target, [(panel, "Hybrid-LOS", "LOS-D"),
                                      (panel, "Hybrid-LOS", "EASY-D")], metric)


@claim(FAMILY_NAME, F9, "F9-hybrid-beats-wait", "P_D 0.5, P_S 0.2: Hybrid-LOS has a lower mean "
       "wait than EASY-D and LOS-D (sec. V-B, Fig. 9)", "Hybrid-LOS best")
def claim_f9_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return _hybrid_claim(tables, F9, "AWT")


@claim(FAMILY_NAME, F9, "F9-hybrid-beats-util", "P_D 0.5, P_S 0.2: Hybrid-LOS has a higher "
       "mean utilization than EASY-D and LOS-D (sec. V-B, Fig. 9)", "Hybrid-LOS best")
def claim_f9_util(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return _hybrid_claim(tables, F9, "utilization")


@claim(FAMILY_NAME, F10, "F10-hybrid-beats-wait", "P_D 0.9, P_S 0.5: Hybrid-LOS has a lower "
       "mean wait than EASY-D and LOS-D (sec. V-B, Fig. 10)", "Hybrid-LOS best")
def claim_f10_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return _hybrid_claim(tables, F10, "AWT")


@claim(FAMILY_NAME, F10, "F10-hybrid-beats-util", "P_D 0.9, P_S 0.5: Hybrid-LOS has a higher "
       "mean utilization than EASY-D and LOS-D (sec. V-B, Fig. 10)", "Hybrid-LOS best")
def claim_f10_util(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    return _hybrid_claim(tables, F10, "utilization")


def dedicated_report(tables: Mapping[str, pd.DataFrame], target: str) -> Judgement:
    """Per panel and policy: share of dedicated jobs started on time, and their lateness."""
    seeds = seeds_of(tables, target)
    parts = []
    for panel in panels_of(tables, target):
        for policy in dict.fromkeys(select(seeds, {"panel": panel})["policy"]):
            rows = select(seeds, {"panel": panel, "policy": policy})
            share = mean_ci(rows["dedicated_on_time"].dropna())
            late = mean_ci(rows["dedicated_lateness"].dropna())
            if share.n:
                parts.append(f"{panel} {show(policy)}: on time {100 * share.mean:.1f}% "
                             f"[{100 * share.low:.1f}, {100 * share.high:.1f}], lateness "
                             f"{late.mean:.0f} s [{late.low:.0f}, {late.high:.0f}]")
    return informational("; ".join(parts), "over every load of the panel (means over "
                         "seeds and loads); a dedicated job is on time when it starts within "
                         "1 s of its requested start")


for _target in (F9, F10, F11):
    claim(FAMILY_NAME, _target, f"{_target[4:]}-dedicated-on-time", "Dedicated jobs: share "
          "started at their requested time and mean lateness, per policy (the paper reports "
          "neither)", "not given")(
        lambda tables, settings, _t=_target: dedicated_report(tables, _t))


@claim(FAMILY_NAME, F11, "F11-e-ordering", "Elastic workloads: Delayed-LOS-E beats LOS-E and "
       "EASY-E (batch, P_S 0.5), Hybrid-LOS-E beats LOS-DE and EASY-DE (heterogeneous, P_S 0.5, "
       "P_D 0.5) in mean wait and utilization (sec. V-C, Fig. 11)",
       "the -E versions keep their ordering")
def claim_f11_order(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    batch, het = _panel(tables, F11, 0), _panel(tables, F11, 1)
    pairs = [(batch, "Delayed-LOS-E", "LOS-E"), (batch, "Delayed-LOS-E", "EASY-E"),
             (het, "Hybrid-LOS-E", "LOS-DE"), (het, "Hybrid-LOS-E", "EASY-DE")]
    return combine([beats_all(tables, F11, pairs, metric) for metric in ("AWT", "utilization")],
                   "the -E ordering")


@claim(FAMILY_NAME, F11, "F11-elastic-running-share", "Elastic commands: the share that "
       "reaches a running job (the others reach a waiting job), per panel", "not given")
def claim_f11_running(tables: Mapping[str, pd.DataFrame],
                      settings: Mapping[str, Any]) -> Judgement:
    seeds = seeds_of(tables, F11)
    parts = []
    for panel in panels_of(tables, F11):
        for policy in dict.fromkeys(select(seeds, {"panel": panel})["policy"]):
            share = mean_ci(select(seeds, {"panel": panel, "policy": policy})
                            ["elastic_running_share"].dropna())
            parts.append(f"{panel} {show(policy)}: {100 * share.mean:.1f}% "
                         f"[{100 * share.low:.1f}, {100 * share.high:.1f}]")
    return informational("; ".join(parts), "commands are issued at times drawn from the "
                         "job's submit time on (docs/deviations-los.md), so many reach jobs "
                         "that still wait")


ELASTIC_CELLS = (("AWT", 0), ("AWT", 1), ("slowdown", 0), ("slowdown", 1))


@claim(FAMILY_NAME, F11, "F11-smaller-gains", "With elastic commands the maximum gains in wait "
       "and slowdown are smaller than without (Table VI < IV, VII < V; sec. V-C): per seed, "
       "each elastic cell below its non-elastic cell", "VI < IV and VII < V for wait and "
       "slowdown (8 cells)", needs=(T4, T5, T6, T7, F7, F9, F11))
def claim_f11_gains(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    pairs = [Pair(f"{elastic[4:]}/{plain[4:]} {metric} col {b_index + 1}",
                  table_statistic(tables, elastic, metric, b_index),
                  table_statistic(tables, plain, metric, b_index))
             for elastic, plain in ((T6, T4), (T7, T5)) for metric, b_index in ELASTIC_CELLS]
    return combine([beats([pair]) for pair in pairs], "smaller gains")


@claim(FAMILY_NAME, F11, "F11-smaller-gains-like-for-like", "Like for like at P_S 0.5 (not in "
       "the paper): Delayed-LOS-E's maximum gains over LOS-E and EASY-E (Fig. 11, elastic) are "
       "below Delayed-LOS's over LOS and EASY (Fig. 8, P_S 0.5, not elastic)", "not given",
       needs=(F8, F11))
def claim_f11_like(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    plain_panel = _panel(tables, F8, 0)
    plain_seeds, elastic_seeds = seeds_of(tables, F8), seeds_of(tables, F11)
    judged = []
    for metric, b_index in ELASTIC_CELLS:
        sign = next(s for m, _, s in TABLE_METRICS if m == metric)
        elastic = per_seed_max_improvement(elastic_seeds, _panel(tables, F11, 0),
                                           "Delayed-LOS-E", ("LOS-E", "EASY-E")[b_index],
                                           metric, sign)
        plain = per_seed_max_improvement(plain_seeds, plain_panel, "Delayed-LOS",
                                         ("LOS", "easy")[b_index], metric, sign)
        judged.append(beats([Pair(f"{metric} col {b_index + 1}", elastic, plain)]))
    return combine(judged, "smaller gains, like for like")


def _cs_chosen(tables: Mapping[str, pd.DataFrame], target: str) -> Judgement:
    table = tables[target]
    parts = [f"{panel}: " + ", ".join(f"{p} C_s = {v}" for p, v in
                                      chosen_cs(table, panel).items())
             for panel in panels_of(tables, target)]
    return informational("; ".join(parts), "the C_s with the lowest mean wait in the C_s "
                         "sweep of the panel's P_S (the panel's `chosen`); the paper gives "
                         "no values")


for _target in (F7, F8, F9, F10, F11):
    claim(FAMILY_NAME, _target, f"{_target[4:]}-cs-chosen", "C_s of Delayed-LOS / Hybrid-LOS "
          "in this load sweep: the empirical best for the P_S at hand (sec. V-A)",
          "best C_s per P_S (values not given; Fig. 5 suggests 7-8 at P_S 0.5)")(
        lambda tables, settings, _t=_target: _cs_chosen(tables, _t))


# LOS paper, sec. V: the mean job size n-bar (processors) of the workload of each figure.
PAPER_MEAN_SIZE = {F5: 139.35, F6: 89.72, F7: 180.84, F9: 177.7}


def mean_size_claim(tables: Mapping[str, pd.DataFrame], target: str) -> Judgement:
    """The paper's n-bar within the central 95% of our per-seed mean job sizes."""
    seeds = seeds_of(tables, target)
    first = seeds[seeds["policy"] == seeds["policy"].iloc[0]]
    if "load" in first and first["load"].notna().any():
        first = first[first["load"] == first["load"].min()]
    sizes = first.groupby("seed")["mean_size"].first()
    return magnitude(PAPER_MEAN_SIZE[target], sizes)


for _target, _case in ((F5, "P_S 0.5"), (F6, "P_S 0.8"), (F7, "P_S 0.2"),
                       (F9, "P_D 0.5, P_S 0.2")):
    claim(FAMILY_NAME, _target, f"{_target[4:]}-mean-size", f"{_case}: the mean job size "
          "n-bar of the figure's workload (sec. V), per seed", f"{PAPER_MEAN_SIZE[_target]:g} "
          "processors")(lambda tables, settings, _t=_target: mean_size_claim(tables, _t))


@claim(FAMILY_NAME, N10K, "N10K-like-500", "Runs of 10,000 jobs show no significant difference "
       "in the performance metrics from the 500-job runs (sec. V; our scenario, fixed before "
       "the run: Fig. 5's P_S 0.5, load 0.9, EASY, LOS and Delayed-LOS with its chosen C_s): "
       "per policy, mean wait and utilization of the long runs within the tolerance of the "
       "short ones", "no significant difference")
def claim_n10k(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Judgement:
    short, long = _panel(tables, N10K, 0), _panel(tables, N10K, 1)
    seeds = seeds_of(tables, N10K)
    tol = float(settings.get("n10k_tolerance", 0.1))
    checks = []
    for policy in dict.fromkeys(select(seeds, {"panel": short})["policy"]):
        for metric in ("AWT", "utilization"):
            checks.append(close([Pair(f"{show(policy)} {metric} {long} vs {short}",
                                      per_seed(seeds, metric, {"panel": long, "policy": policy}),
                                      per_seed(seeds, metric, {"panel": short,
                                                               "policy": policy}))], tol))
    if not checks:
        return not_checkable(f"{N10K} ran no policy")
    return combine(checks, "10,000 jobs like 500")


# ----------------------------------------------------------------------------- claims: T4-T7


def magnitude_claim(tables: Mapping[str, pd.DataFrame], target: str) -> Judgement:
    """Every cell of a Table IV-VII: the paper's value within our per-seed values."""
    paper = PAPER_TABLES[target]
    _, _, _, baselines = TABLE_SOURCES[target]
    judged = []
    for index, (metric, name, _) in enumerate(TABLE_METRICS):
        for b_index, baseline in enumerate(baselines):
            found = magnitude(paper[b_index][index],
                              table_statistic(tables, target, metric, b_index).dropna())
            judged.append(replace(found, ours=f"{name} vs {show(baseline)}: {found.ours}"))
    return combine(judged, "magnitude")


def max_of_means(tables: Mapping[str, pd.DataFrame], target: str) -> Judgement:
    """The table as computed on the means (the maximum over loads of the mean improvement)."""
    table = tables[target]
    parts = []
    for _, row in table.iterrows():
        for column in [c for c in table.columns if c.endswith("_ours")]:
            baseline = column[: -len("_ours")]
            parts.append(f"{row['metric']} vs {show(baseline)} {float(row[column]):.2f}% "
                         f"(paper {float(row[f'{baseline}_paper']):g}%)")
    return informational("; ".join(parts), "maximum over loads of the improvement of the "
                         "means over seeds (the figure's bars)")


for _target, _text in ((T4, "Delayed-LOS over LOS and EASY, P_S 0.2 (Table IV, Fig. 7)"),
                       (T5, "Hybrid-LOS over LOS-D and EASY-D, P_D 0.5, P_S 0.2 (Table V, "
                            "Fig. 9)"),
                       (T6, "Delayed-LOS-E over LOS-E and EASY-E (Table VI, Fig. 11)"),
                       (T7, "Hybrid-LOS-E over LOS-DE and EASY-DE (Table VII, Fig. 11)")):
    _paper = PAPER_TABLES[_target]
    _values = (f"utilization, wait, slowdown: {' / '.join(f'{v:g}' for v in _paper[0])} % and "
               f"{' / '.join(f'{v:g}' for v in _paper[1])} %")
    claim(FAMILY_NAME, _target, f"{_target[4:]}-magnitude", f"Maximum % improvement of {_text}: "
          "the paper's single-run values lie within the central 95% of our per-seed values",
          _values, needs=(_target, TABLE_SOURCES[_target][0]))(
        lambda tables, settings, _t=_target: magnitude_claim(tables, _t))
    claim(FAMILY_NAME, _target, f"{_target[4:]}-max-of-means", f"Maximum % improvement of "
          f"{_text}, on the means over seeds", _values)(
        lambda tables, settings, _t=_target: max_of_means(tables, _t))
