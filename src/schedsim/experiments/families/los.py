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
:mod:`schedsim.verdicts` (:mod:`~schedsim.experiments.families.los_claims`); the rules'
parameters are ``los.claims`` in the config. Figures:
:mod:`~schedsim.experiments.families.los_figures`.
Choices the paper leaves open: docs/deviations-los.md.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from schedsim.experiments.family import (
    POSITIVE,
    SHARE,
    Family,
    Variant,
    axis_product,
    axis_schemas,
    derived_function,
    options_schema,
)
from schedsim.experiments.spec import TargetSpec, fmt_value
from schedsim.tables import SEEDS_SUFFIX, mean_of, paired_difference, select

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
    claims_module = "schedsim.experiments.families.los_claims"
    figures_module = "schedsim.experiments.families.los_figures"
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


class MissingPolicy(KeyError):
    """A policy a claim compares was not run."""
