"""LOS family: Delayed-LOS and Hybrid-LOS (the LOS paper, 003_899453b78b1e7163.txt, sec. IV-V).

Kumar, Shae & Jamjoom, "Scheduling batch and heterogeneous jobs with runtime
elasticity in a parallel processing environment" (IPDPSW 2012). Targets
(docs/reproduction.md, LOS section):

* LOS-F1: EASY vs LOS mean wait vs load on a real log (the paper: SDSC SP2; we:
  KTH SP2), the load set by scaling the arrival times (a sweep over a ``trace``);
* LOS-F5, LOS-F6 (and the auxiliary LOS-CS20 for P_S 0.2): utilization and wait
  vs the maximum skip count C_s at load 0.9 (sweeps of ``c_s``); each chooses the
  best C_s of its P_S (``choose``, written to ``results/chosen/<target>.json``);
* LOS-F7 ... LOS-F11: utilization and wait vs offered load 0.5 ... 1.0 (sweeps of
  the ``load`` axis, one panel per workload case); a policy with a ``c_s``
  parameter takes its panel's chosen C_s (``chosen``);
* LOS-T4 ... LOS-T7: maximum % improvement over a load sweep (Tables IV-VII),
  derived from the tables of LOS-F7, LOS-F9 and LOS-F11.

Workloads come from the ``lublin-los`` model (CWF, 320 processors in units of 32),
one per (P_S, P_D, elastic or not, load, seed), each calibrated to its offered load
(model parameter ``load``). Every claim of the paper is one small function
registered with :func:`schedsim.claims.claim` and judged by one rule of
:mod:`schedsim.verdicts`; the rules' parameters are ``los.claims`` in the config.
Choices the paper leaves open: docs/deviations-los.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from schedsim import plots
from schedsim.claims import claim
from schedsim.experiments.family import (
    POSITIVE,
    SHARE,
    Family,
    Variant,
    axis_product,
    axis_schemas,
    options_schema,
)
from schedsim.experiments.kinds import SEEDS_SUFFIX, derived_function
from schedsim.experiments.spec import TargetSpec, fmt_value
from schedsim.plots import COLORS, STYLE, panels, register_figure, register_labels
from schedsim.stats import mean_ci
from schedsim.tables import mean_of, paired_difference, per_seed, seeds_of, select
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

FAMILY_NAME = "los"
F1, F5, F6, CS20 = "LOS-F1", "LOS-F5", "LOS-F6", "LOS-CS20"
F7, F8, F9, F10, F11 = "LOS-F7", "LOS-F8", "LOS-F9", "LOS-F10", "LOS-F11"
N10K = "LOS-N10K"
T4, T5, T6, T7 = "LOS-T4", "LOS-T5", "LOS-T6", "LOS-T7"
CS_KIND, LOAD_KIND, TRACE_KIND, TABLE_KIND = "cs-sweep", "load-sweep", "trace-sweep", "improvement"
METRICS = ("utilization", "AWT", "slowdown", "BSLD", "max_wait", "ATT", "ART",
           "offered_load", "barr", "natural_load", "dedicated_on_time", "dedicated_lateness",
           "elastic_running_share", "mean_size")
PAPER_TABLE_NAMES = {"LOS-T4": "Table IV", "LOS-T5": "Table V", "LOS-T6": "Table VI",
                     "LOS-T7": "Table VII"}
TABLE_METRICS = (("utilization", "Utilization", +1), ("AWT", "Job waiting time", -1),
                 ("slowdown", "Slowdown", -1))

# LOS paper, Tables IV-VII: maximum % improvement (utilization, wait, slowdown) of the
# new algorithm over the first and the second baseline column.
PAPER_TABLES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    T4: ((4.1, 31.88, 30.3), (1.52, 21.65, 20.41)),
    T5: ((4.55, 25.31, 24.29), (2.33, 18.24, 17.43)),
    T6: ((4.93, 18.94, 18.39), (1.78, 12.19, 11.79)),
    T7: ((1.88, 20.76, 19.81), (3.02, 10.18, 14.6)),
}


# ----------------------------------------------------------------------------- family


class LosFamily(Family):
    """Config section ``los``: variant axes ``ps``, ``pd``, ``elastic``, ``load`` and ``jobs``.

    One ``lublin-los`` workload per (P_S, P_D, elastic or not, offered load, seed),
    calibrated to its load (model parameter ``load``); ``pd`` defaults to 0,
    ``elastic`` to false, ``load`` to ``options.loads``, ``jobs`` to the section's
    ``jobs`` (N_J; sec. V compares 10,000-job runs with 500-job ones). Elastic
    workloads take ``options.elastic`` (P_E, P_R; sec. IV-D).
    """

    name = FAMILY_NAME
    variant_column = "workload"
    workload_ext = "cwf"
    metrics = METRICS
    measure = "schedsim.experiments.families.los_measure"
    param_columns = ("c_s",)
    axes = axis_schemas(ps=SHARE, pd=SHARE, elastic={"type": "boolean"}, load=POSITIVE,
                        jobs={"type": "integer", "minimum": 1})
    options = options_schema(
        ("loads",), loads={"type": "array", "items": POSITIVE, "minItems": 1},
        elastic={"type": "object", "additionalProperties": False,
                 "properties": {"pe": SHARE, "pr": SHARE}},
        load_tolerance=POSITIVE)
    policy_families = ("los", "backfill")
    workload_info = True

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        options = section["options"]
        if "ps" not in values:
            raise ValueError("los: every variant needs the axis ps (P_S, the share of small "
                             "jobs): give variants: {ps: ...}")
        axes = {"ps": values["ps"], "pd": values.get("pd", 0.0),
                "elastic": values.get("elastic", False),
                "load": values.get("load", options["loads"]),
                "jobs": values.get("jobs", section["jobs"])}
        return [self.variant(options, case, panel, int(section["jobs"]))
                for case in axis_product(axes)]

    @staticmethod
    def variant(options: Mapping[str, Any], case: Mapping[str, Any], panel: str,
                default_jobs: int) -> Variant:
        ps, pd, elastic, load = (float(case["ps"]), float(case["pd"]), bool(case["elastic"]),
                                 float(case["load"]))
        jobs = int(case["jobs"])
        name = f"ps{fmt_value(ps)}_pd{fmt_value(pd)}{'_el' if elastic else ''}" \
               f"_load{fmt_value(load)}{'' if jobs == default_jobs else f'_n{jobs}'}"
        rates = options.get("elastic") or {}
        params = {"ps": ps, "pd": pd, "load": load,
                  "load_tolerance": float(options.get("load_tolerance", 0.001)),
                  "pe": float(rates.get("pe", 0.2)) if elastic else 0.0,
                  "pr": float(rates.get("pr", 0.1)) if elastic else 0.0}
        if jobs != default_jobs:
            params[JOBS_PARAM] = jobs
        labels = {"panel": panel, "ps": ps, "pd": pd, "elastic": elastic, "load": load}
        return Variant(name, params, labels)

    def workload(self, section: Mapping[str, Any], variant: Variant) -> dict[str, Any]:
        """The generic workload, with the variant's job count (axis ``jobs``) as N_J."""
        params = dict(variant.params)
        jobs = params.pop(JOBS_PARAM, None)
        found = super().workload(section, Variant(variant.name, params, variant.labels))
        return {**found, "jobs": int(jobs)} if jobs is not None else found


JOBS_PARAM = "jobs"  # a variant's N_J, taken out of the model parameters by ``workload``


FAMILY = LosFamily()


# ----------------------------------------------------------------------------- table helpers


DISPLAY_NAMES = {"easy": "EASY"}  # the paper's names of our policies


def show(policy: str, labels: Mapping[str, str] | None = None) -> str:
    """The display name of a policy (``labels`` first, then the paper's: easy -> EASY)."""
    return str((labels or {}).get(policy, DISPLAY_NAMES.get(policy, policy)))


def panel_loads(table: pd.DataFrame, panel: str) -> list[float]:
    """The loads of a panel, ascending."""
    return sorted({float(v) for v in select(table, {"panel": panel})["load"]})


def chosen_cs(table: pd.DataFrame, panel: str | None = None) -> dict[str, int]:
    """Policy -> the C_s its load-sweep rows ran with (policies with a C_s only)."""
    rows = table if panel is None else select(table, {"panel": panel})
    rows = rows[rows["c_s"].notna()]
    return {str(p): int(v) for p, v in rows.groupby("policy", sort=False)["c_s"].first().items()}


def best_cs(table: pd.DataFrame, policy: str, metric: str = "AWT") -> int:
    """The C_s with the lowest mean ``metric`` of ``policy`` in a C_s sweep (ties: smallest)."""
    rows = table[(table["policy"] == policy) & table["c_s"].notna()]
    rows = rows.sort_values([f"{metric}_mean", "c_s"], kind="stable")
    return int(rows["c_s"].iloc[0])


# ----------------------------------------------------------------------------- improvement


def improvement(new: float, base: float, sign: int) -> float:
    """% improvement of ``new`` over ``base``: higher is better (sign +1) or lower (-1)."""
    if base == 0 or math.isnan(base) or math.isnan(new):
        return math.nan
    return 100.0 * sign * (new - base) / base


def max_improvement(table: pd.DataFrame, seeds: pd.DataFrame | None, panel: str, policy: str,
                    baseline: str, metric: str, sign: int) -> dict[str, float]:
    """The largest % improvement over the panel's loads, its load and a 95% CI.

    The improvement at a load is that of the means over seeds. The CI is the paired
    95% CI of the per-seed difference at that load, in % of the baseline's mean
    (the baseline mean taken as fixed).
    """
    best = {"ours": math.nan, "load": math.nan, "ci_low": math.nan, "ci_high": math.nan}
    for load in panel_loads(table, panel):
        where = {"panel": panel, "load": load}
        base = mean_of(table, metric, {**where, "policy": baseline})
        value = improvement(mean_of(table, metric, {**where, "policy": policy}), base, sign)
        if math.isnan(value) or (not math.isnan(best["ours"]) and value <= best["ours"]):
            continue
        diff = paired_difference(seeds, metric, {**where, "policy": baseline},
                                 {**where, "policy": policy})
        ends = sorted(100.0 * sign * v / base for v in (diff.low, diff.high))
        best = {"ours": value, "load": load, "ci_low": ends[0], "ci_high": ends[1]}
    return best


@derived_function("los-max-improvement")
def improvement_from_sources(spec: TargetSpec, tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Tables IV-VII from the source load sweep's table and per-seed table.

    ``args``: ``panel``, ``policy`` (the new algorithm) and ``baselines``.
    """
    source = spec.sources[0]
    return improvement_table(tables[source], tables.get(f"{source}{SEEDS_SUFFIX}"),
                             {"target": spec.target, **spec.args})


def improvement_table(table: pd.DataFrame, seeds: pd.DataFrame | None,
                      spec: Mapping[str, Any]) -> pd.DataFrame:
    """Tables IV-VII: rows utilization, wait, slowdown; per baseline ours, paper, load, CI."""
    import pandas as pd

    paper = PAPER_TABLES.get(spec["target"].split("@")[0])  # a reading's copy: the same table
    rows = []
    for index, (metric, name, sign) in enumerate(TABLE_METRICS):
        row: dict[str, Any] = {"target": spec["target"], "metric": name, "column": metric,
                               "policy": spec["policy"], "panel": spec["panel"]}
        for b_index, baseline in enumerate(spec["baselines"]):
            found = max_improvement(table, seeds, spec["panel"], spec["policy"], baseline,
                                    metric, sign)
            row[f"{baseline}_ours"] = found["ours"]
            row[f"{baseline}_paper"] = paper[b_index][index] if paper else math.nan
            row[f"{baseline}_load"] = found["load"]
            row[f"{baseline}_ci_low"] = found["ci_low"]
            row[f"{baseline}_ci_high"] = found["ci_high"]
        rows.append(row)
    return pd.DataFrame(rows)


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


class MissingPolicy(KeyError):
    """A policy a claim compares was not run."""


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


# ----------------------------------------------------------------------------- figures

PANEL_NAMES = {"cs": "", "ps0.5": "", "ps0.8": "", "batch": "batch",
               "heterogeneous": "heterogeneous", "elastic-batch": "batch",
               "elastic-heterogeneous": "heterogeneous"}

register_labels(FAMILY_NAME, {
    "c_s": "$C_s$", "ps": "$P_S$", "load": "load",
    "pd": lambda v: f"$P_D$ {float(v):g}" if float(v) else None,
    "elastic": lambda v: "elastic" if str(v).lower() == "true" else None,
    "panel": lambda name: PANEL_NAMES.get(str(name), str(name)),
    "AWT": "mean job waiting time (s)", "slowdown": "slowdown"})




@register_figure("los-improvement")
def improvement_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """LOS paper Tables IV-VII as bars: our maximum % improvement (95% CI) beside the paper's."""
    import matplotlib

    baselines = list(spec.args["baselines"])
    width = 0.8 / (2 * len(baselines))
    with matplotlib.rc_context(STYLE):
        fig, (ax,) = panels(1, width=6.4, height=3.6)
        for b_index, baseline in enumerate(baselines):
            ours = table[f"{baseline}_ours"].to_numpy()
            low = (ours - table[f"{baseline}_ci_low"].to_numpy()).clip(min=0)
            high = (table[f"{baseline}_ci_high"].to_numpy() - ours).clip(min=0)
            xs = [i + (2 * b_index - len(baselines) + 0.5) * width for i in range(len(table))]
            name = show(baseline, spec.policy_labels)
            ax.bar(xs, ours, width=width, color=COLORS[b_index], label=f"ours vs {name}",
                   yerr=[low, high], capsize=2, error_kw={"linewidth": 0.8})
            ax.bar([x + width for x in xs], table[f"{baseline}_paper"], width=width,
                   color="white", edgecolor=COLORS[b_index], hatch="//",
                   label=f"paper ({PAPER_TABLE_NAMES[spec.base or spec.target]}) vs {name}")
        ax.set_xticks(range(len(table)), list(table["metric"]))
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_ylabel("maximum % improvement over the loads")
        ax.grid(axis="y", alpha=0.3)
        fig.legend(loc="outside lower center", ncols=2, frameon=False)
        plots.suptitle(fig, f"{spec.target}: {show(spec.args['policy'], spec.policy_labels)} over "
                     f"{' and '.join(show(b, spec.policy_labels) for b in baselines)} "
                     f"({spec.sources[0]}, panel {spec.args['panel']}); bars: 95% CI at the "
                     "load of the maximum")
    return fig
