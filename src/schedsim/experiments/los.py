"""LOS family: Delayed-LOS and Hybrid-LOS (the LOS paper, 003_899453b78b1e7163.txt, sec. IV-V).

Kumar, Shae & Jamjoom, "Scheduling batch and heterogeneous jobs with runtime
elasticity in a parallel processing environment" (IPDPSW 2012). Targets
(REPRODUCTION.md, LOS section):

* LOS-F1: EASY vs LOS mean wait vs load on a real log (the paper: SDSC SP2; we:
  KTH SP2), the load set by scaling the arrival times (a *trace sweep*);
* LOS-F5, LOS-F6 (and the auxiliary LOS-CS20 for P_S 0.2): utilization and wait
  vs the maximum skip count C_s at load 0.9 (*C_s sweeps*); the best C_s of each
  P_S is chosen from them;
* LOS-F7 ... LOS-F11: utilization and wait vs offered load 0.5 ... 1.0 (*load
  sweeps*); a policy with a ``c_s`` parameter takes the best C_s of its panel's
  C_s sweep (``cs_from``), read from that target's aggregated table;
* LOS-T4 ... LOS-T7: maximum % improvement over a load sweep (Tables IV-VII),
  *derived* from the tables of LOS-F7, LOS-F9 and LOS-F11.

Workloads come from the ``lublin-los`` model (CWF, 320 processors in units of 32),
one per (P_S, P_D, elastic or not, load, seed), each calibrated to its offered load
(model parameter ``load``). Every claim of the paper is one small function
registered with :func:`schedsim.claims.claim`; the criteria are ``los.claims`` in
the config. Choices the paper leaves open: docs/deviations-los.md (E1-E10).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedsim.claims import NOT_CHECKABLE, Outcome, claim, verdict_of
from schedsim.experiments.common import (
    RESULTS,
    SEEDS_SUFFIX,
    TRACE_MODEL,
    SweepFamily,
    Variant,
    fmt_value,
    workload_path,
)
from schedsim.stats import Interval, mean_ci

if TYPE_CHECKING:
    import pandas as pd

FAMILY_NAME = "los"
F1, F5, F6, CS20 = "LOS-F1", "LOS-F5", "LOS-F6", "LOS-CS20"
F7, F8, F9, F10, F11 = "LOS-F7", "LOS-F8", "LOS-F9", "LOS-F10", "LOS-F11"
T4, T5, T6, T7 = "LOS-T4", "LOS-T5", "LOS-T6", "LOS-T7"
CS_KIND, LOAD_KIND, TRACE_KIND, TABLE_KIND = "cs-sweep", "load-sweep", "trace-sweep", "improvement"
METRICS = ("utilization", "AWT", "slowdown", "BSLD", "max_wait", "ATT", "ART",
           "offered_load", "barr", "natural_load")
GROUP_BY = ["policy", "workload", "c_s"]
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


# ----------------------------------------------------------------------------- config


@dataclass(frozen=True)
class Case:
    """A workload case: small-job and dedicated probabilities, elastic commands or not."""

    ps: float
    pd: float = 0.0
    elastic: bool = False

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> Case:
        return cls(float(entry["ps"]), float(entry.get("pd", 0.0)),
                   bool(entry.get("elastic", False)))

    def variant(self, section: Mapping[str, Any], load: float, panel: str) -> Variant:
        name = f"ps{fmt_value(self.ps)}_pd{fmt_value(self.pd)}" \
               f"{'_el' if self.elastic else ''}_load{fmt_value(load)}"
        elastic = section.get("elastic", {})
        params = {"ps": self.ps, "pd": self.pd, "load": float(load),
                  "load_tolerance": float(section.get("load_tolerance", 0.001)),
                  "pe": float(elastic.get("pe", 0.2)) if self.elastic else 0.0,
                  "pr": float(elastic.get("pr", 0.1)) if self.elastic else 0.0}
        labels = {"panel": panel, "ps": self.ps, "pd": self.pd, "elastic": self.elastic,
                  "load": float(load)}
        return Variant(name, params, labels)


def target_kind_of(spec: Mapping[str, Any]) -> str:
    """The kind of a LOS target, from the keys of its config entry."""
    if "trace" in spec:
        return TRACE_KIND
    if "source" in spec:
        return TABLE_KIND
    if "panels" in spec:
        return LOAD_KIND
    if "c_s" in spec:
        return CS_KIND
    raise ValueError(f"{FAMILY_NAME}: cannot tell the kind of a target with keys {sorted(spec)}")


def accepts(policy: str, param: str) -> bool:
    """Does ``policy`` take the parameter ``param`` (e.g. c_s)?"""
    from schedsim.policies.registry import get_policy

    return param in {s.name for s in get_policy(policy).specs()}


def cs_policy(spec: Mapping[str, Any]) -> str:
    """The policy of a C_s sweep whose C_s is swept (the first one that takes c_s)."""
    found = [p for p in spec["policies"] if accepts(p, "c_s")]
    if not found:
        raise ValueError(f"{FAMILY_NAME}: a C_s sweep needs a policy with parameter c_s; "
                         f"got {spec['policies']}")
    return found[0]


def panels_of(section: Mapping[str, Any], target: str) -> list[dict[str, Any]]:
    """Panels of a target: name, policies, case, loads and the C_s source (load sweeps)."""
    spec = section["targets"][target]
    kind = target_kind_of(spec)
    if kind == CS_KIND:
        return [{"name": "cs", "policies": list(spec["policies"]), "case": Case.of(spec),
                 "loads": [float(spec["load"])], "cs_from": None}]
    if kind == LOAD_KIND:
        loads = [float(v) for v in spec.get("loads") or section["loads"]]
        return [{"name": p["name"], "policies": list(p["policies"]), "case": Case.of(p),
                 "loads": loads, "cs_from": p.get("cs_from")} for p in spec["panels"]]
    return []


def trace_path(config: Mapping[str, Any], spec: Mapping[str, Any], base: Path) -> Path | None:
    """The file of the trace a trace sweep names (relative paths from ``base``), or None."""
    name = spec["trace"]
    raw = config.get("traces", {}).get(name)
    return (base / raw).resolve() if raw else None


# ----------------------------------------------------------------------------- family


class LosFamily(SweepFamily):
    """Config section ``los`` -> workloads, points and targets."""

    name = FAMILY_NAME
    variant_column = "workload"
    workload_ext = "cwf"

    def variants(self, section: Mapping[str, Any]) -> list[Variant]:
        """Every workload variant of the enabled simulated targets (no duplicates)."""
        seen: dict[str, Variant] = {}
        for target in self.targets(section):
            for variant in self.target_variants(section, target):
                seen.setdefault(variant.name, variant)
        return list(seen.values())

    def target_variants(self, section: Mapping[str, Any], target: str) -> list[Variant]:
        return [panel["case"].variant(section, load, panel["name"])
                for panel in panels_of(section, target) for load in panel["loads"]]

    def target_kind(self, target: str, spec: Mapping[str, Any]) -> str:
        return target_kind_of(spec)

    def plan_targets(self, config: Mapping[str, Any], section: Mapping[str, Any],
                     base: Path) -> list[str]:
        """Enabled targets, minus a trace sweep whose trace is missing (when it may be
        skipped) and the tables whose source target is not planned."""
        planned = []
        for target in self.targets(section):
            spec = section["targets"][target]
            kind = target_kind_of(spec)
            if kind == TRACE_KIND and not self._trace_ready(config, target, spec, base):
                continue
            if kind == TABLE_KIND and spec["source"] not in planned:
                continue
            planned.append(target)
        return planned

    @staticmethod
    def _trace_ready(config: Mapping[str, Any], target: str, spec: Mapping[str, Any],
                     base: Path) -> bool:
        path = trace_path(config, spec, base)
        if path is not None and path.is_file():
            return True
        if spec.get("missing_trace", "fail") == "skip":
            return False
        where = f"traces.{spec['trace']} = {path}" if path else f"no traces.{spec['trace']}"
        raise ValueError(f"{target} needs the real log {spec['trace']!r} but {where} is not a "
                         f"file (relative paths are read from {base}). Put the Parallel "
                         f"Workloads Archive file there and name it under `traces:`, or set "
                         f"los.targets.{target}.missing_trace: skip (or enabled: false).")

    def plan_target(self, config: Mapping[str, Any], section: Mapping[str, Any], target: str,
                    seeds: Sequence[int], base: Path) -> tuple[dict[str, dict[str, Any]],
                                                               list[str]]:
        spec = section["targets"][target]
        kind = target_kind_of(spec)
        if kind == TABLE_KIND:
            source = spec["source"]
            return {}, [f"{RESULTS}/tables/{source}.csv",
                        f"{RESULTS}/tables/{source}{SEEDS_SUFFIX}.csv"]
        if kind == TRACE_KIND:
            specs = self._trace_points(config, section, target, base)
        else:
            specs = self._model_points(section, target, seeds)
        return specs, list(specs)

    def _model_points(self, section: Mapping[str, Any], target: str,
                      seeds: Sequence[int]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for panel in panels_of(section, target):
            for load in panel["loads"]:
                variant = panel["case"].variant(section, load, panel["name"])
                for policy in panel["policies"]:
                    path, spec = self._point(section, target, policy, variant, seeds)
                    spec.update(self._cs_params(section, target, policy, panel))
                    if path in out:
                        raise ValueError(f"{FAMILY_NAME}: {target} runs {policy} twice on "
                                         f"{variant.name}")
                    out[path] = spec
        return out

    def _point(self, section: Mapping[str, Any], target: str, policy: str, variant: Variant,
               seeds: Sequence[int]) -> tuple[str, dict[str, Any]]:
        path = f"{RESULTS}/runs/{target}/{policy}/{variant.name}.parquet"
        spec = {
            "family": self.name, "target": target, "policy": policy, "point": variant.name,
            "variant": variant.name, "variant_column": self.variant_column,
            "labels": dict(variant.labels), "procs": int(section["procs"]),
            "model": section["workload"]["model"],
            "fixed": dict(section.get("policy_params", {}).get(policy, {})),
            "params": {}, "inner": {}, "columns": ["c_s"], "workload_info": True,
            "seeds": [int(s) for s in seeds],
            "workloads": {str(s): workload_path(self.name, variant.name, s, self.workload_ext)
                          for s in seeds},
        }
        return path, spec

    def _cs_params(self, section: Mapping[str, Any], target: str, policy: str,
                   panel: Mapping[str, Any]) -> dict[str, Any]:
        """``inner`` (C_s sweep) or ``derived`` (load sweep) C_s of a policy taking c_s."""
        if not accepts(policy, "c_s"):
            return {}
        spec = section["targets"][target]
        if target_kind_of(spec) == CS_KIND:
            return {"inner": {"c_s": [int(v) for v in spec["c_s"]]}}
        source = panel.get("cs_from")
        if source is None:
            return {}
        if source not in self.targets(section) or \
                target_kind_of(section["targets"][source]) != CS_KIND:
            raise ValueError(f"{target}: panel {panel['name']} takes C_s from {source}, which "
                             "is not an enabled C_s sweep; enable it or set cs_from: null")
        metric = section.get("cs_metric", "AWT")
        return {"derived": {"c_s": {
            "table": f"{RESULTS}/tables/{source}.csv", "column": "c_s",
            "where": {"policy": cs_policy(section["targets"][source])},
            "argmin": f"{metric}_mean"}}}

    def _trace_points(self, config: Mapping[str, Any], section: Mapping[str, Any],
                      target: str, base: Path) -> dict[str, dict[str, Any]]:
        spec = section["targets"][target]
        path = str(trace_path(config, spec, base))
        segments = int(spec.get("segments", 10))
        out = {}
        for load in spec["loads"]:
            name = f"{spec['trace']}_load{fmt_value(float(load))}"
            for policy in spec["policies"]:
                out[f"{RESULTS}/runs/{target}/{policy}/{name}.parquet"] = {
                    "family": self.name, "target": target, "policy": policy, "point": name,
                    "variant": name, "variant_column": self.variant_column,
                    "labels": {"panel": spec["trace"], "load": float(load)},
                    "procs": int(spec["procs"]), "model": TRACE_MODEL,
                    "fixed": dict(section.get("policy_params", {}).get(policy, {})),
                    "params": {}, "inner": {}, "columns": ["c_s"],
                    "seeds": list(range(1, segments + 1)),
                    "workloads": {str(s): path for s in range(1, segments + 1)},
                    "trace": {"path": path, "estimates": spec.get("estimates", "requested"),
                              "segments": segments, "max_jobs": spec.get("max_jobs"),
                              "load": float(load)}}
        return out

    def target_spec(self, section: Mapping[str, Any], target: str) -> dict[str, Any]:
        spec = section["targets"][target]
        kind = target_kind_of(spec)
        base = {"family": self.name, "target": target, "kind": kind,
                "variant_column": self.variant_column, "group_by": list(GROUP_BY),
                "combine": [], "metrics": list(METRICS), "procs": section.get("procs"),
                "policy_labels": dict(section.get("policy_labels", {})),
                "figure_metrics": list(spec.get("metrics", ["utilization", "AWT"]))}
        if kind == TABLE_KIND:
            return {**base, "sources": [spec["source"]], "panel": spec["panel"],
                    "policy": spec["policy"], "baselines": list(spec["baselines"]),
                    "policies": [spec["policy"], *spec["baselines"]], "variants": [],
                    "variant_labels": {}, "x": None, "sweep": {}}
        if kind == TRACE_KIND:
            variants = [f"{spec['trace']}_load{fmt_value(float(v))}" for v in spec["loads"]]
            labels = {v: {"panel": spec["trace"], "load": float(x)}
                      for v, x in zip(variants, spec["loads"], strict=True)}
            panels = [{"name": spec["trace"], "policies": list(spec["policies"])}]
            return {**base, "policies": list(spec["policies"]), "variants": variants,
                    "variant_labels": labels, "x": "load", "panels": panels,
                    "sweep": {"load": [float(v) for v in spec["loads"]]},
                    "trace": spec["trace"], "figure_metrics": ["AWT"]}
        variants = self.target_variants(section, target)
        panels = [{"name": p["name"], "policies": p["policies"], "ps": p["case"].ps,
                   "pd": p["case"].pd, "elastic": p["case"].elastic, "cs_from": p["cs_from"]}
                  for p in panels_of(section, target)]
        policies = list(dict.fromkeys(p for panel in panels for p in panel["policies"]))
        out = {**base, "policies": policies, "variants": [v.name for v in variants],
               "variant_labels": {v.name: dict(v.labels) for v in variants}, "panels": panels}
        if kind == CS_KIND:
            return {**out, "x": "c_s", "sweep": {"c_s": [int(v) for v in spec["c_s"]]},
                    "cs_policy": cs_policy(spec), "cs_metric": section.get("cs_metric", "AWT")}
        return {**out, "x": "load", "sweep": {"load": panels_of(section, target)[0]["loads"]}}

    def workload_spec(self, section: Mapping[str, Any], variant: Variant) -> dict[str, Any]:
        workload = section["workload"]
        params = {**workload.get("params", {}), **variant.params}
        return {"model": workload["model"], "jobs": int(section["jobs"]),
                "params": dict(sorted(params.items()))}

    def derived_table(self, spec: Mapping[str, Any], inputs: Sequence[str]) -> pd.DataFrame:
        import pandas as pd

        tables = {Path(p).stem: pd.read_csv(p) for p in inputs}
        source = spec["sources"][0]
        return improvement_table(tables[source], tables.get(f"{source}{SEEDS_SUFFIX}"), spec)


FAMILY = LosFamily()


# ----------------------------------------------------------------------------- table helpers


DISPLAY_NAMES = {"easy": "EASY"}  # the paper's names of our policies


def show(policy: str, labels: Mapping[str, str] | None = None) -> str:
    """The display name of a policy (``labels`` first, then the paper's: easy -> EASY)."""
    return str((labels or {}).get(policy, DISPLAY_NAMES.get(policy, policy)))


def _matches(column: pd.Series, value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return column.isna()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return column.astype(str) == str(value)
    return (column - float(value)).abs() < 1e-9


def select(table: pd.DataFrame, where: Mapping[str, Any]) -> pd.DataFrame:
    """Rows of ``table`` whose columns equal ``where`` (floats within 1e-9, NaN = NaN)."""
    mask = table.index == table.index
    for column, value in where.items():
        mask &= _matches(table[column], value)
    return table[mask]


def per_seed(seeds: pd.DataFrame, metric: str, where: Mapping[str, Any]) -> pd.Series:
    """``metric`` per seed of the rows selected by ``where`` (one row per seed)."""
    return select(seeds, where).set_index("seed")[metric]


def paired(seeds: pd.DataFrame | None, metric: str, first: Mapping[str, Any],
           second: Mapping[str, Any]) -> Interval:
    """Mean and 95% CI over seeds of ``metric`` at ``second`` minus at ``first``.

    Every policy of a seed runs on the same workload (common random numbers), so
    the paired difference is the sharp comparison. NaN without a per-seed table.
    """
    if seeds is None:
        return Interval(math.nan, math.nan, 0)
    a, b = per_seed(seeds, metric, first), per_seed(seeds, metric, second)
    common = a.index.intersection(b.index)
    return mean_ci((b[common] - a[common]).to_numpy())


def mean_of(table: pd.DataFrame, metric: str, where: Mapping[str, Any]) -> float:
    rows = select(table, where)
    return float(rows[f"{metric}_mean"].iloc[0]) if len(rows) else math.nan


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
        diff = paired(seeds, metric, {**where, "policy": baseline}, {**where, "policy": policy})
        ends = sorted(100.0 * sign * v / base for v in (diff.low, diff.high))
        best = {"ours": value, "load": load, "ci_low": ends[0], "ci_high": ends[1]}
    return best


def improvement_table(table: pd.DataFrame, seeds: pd.DataFrame | None,
                      spec: Mapping[str, Any]) -> pd.DataFrame:
    """Tables IV-VII: rows utilization, wait, slowdown; per baseline ours, paper, load, CI."""
    import pandas as pd

    paper = PAPER_TABLES.get(spec["target"])
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


# ----------------------------------------------------------------------------- comparisons


@dataclass(frozen=True)
class Comparison:
    """``better`` against ``worse`` at one point: the means and the paired difference."""

    where: Mapping[str, Any]
    mean_better: float
    mean_worse: float
    diff: Interval  # better minus worse, per seed
    sign: int  # +1: higher is better (utilization); -1: lower is better

    @property
    def significant_win(self) -> bool:
        return _excludes_zero(self.diff, self.sign)

    @property
    def significant_loss(self) -> bool:
        return _excludes_zero(self.diff, -self.sign)

    @property
    def ahead_on_means(self) -> bool:
        return self.sign * (self.mean_better - self.mean_worse) >= 0


def _excludes_zero(diff: Interval, sign: int) -> bool:
    if math.isnan(diff.half_width):
        return False
    return diff.low > 0 if sign > 0 else diff.high < 0


def compare(tables: Mapping[str, pd.DataFrame], target: str, better: Mapping[str, Any],
            worse: Mapping[str, Any], points: Iterable[Mapping[str, Any]],
            metric: str) -> list[Comparison]:
    """``better`` vs ``worse`` (column selections) at each point (more selections)."""
    table, seeds = tables[target], tables.get(f"{target}{SEEDS_SUFFIX}")
    sign = +1 if metric == "utilization" else -1
    out = []
    for point in points:
        first, second = {**point, **worse}, {**point, **better}
        out.append(Comparison(dict(point), mean_of(table, metric, second),
                              mean_of(table, metric, first),
                              paired(seeds, metric, first, second), sign))
    return out


def load_points(table: pd.DataFrame, panel: str) -> list[dict[str, Any]]:
    return [{"panel": panel, "load": load} for load in panel_loads(table, panel)]


def cs_points(table: pd.DataFrame, policy: str) -> list[tuple[dict[str, Any], int]]:
    """(selection of the C_s-sweep row, C_s) for every swept C_s of ``policy``."""
    values = sorted({int(v) for v in table[table["policy"] == policy]["c_s"].dropna()})
    return [({"policy": policy, "c_s": float(v)}, v) for v in values]


def verdict_beats(comparisons: Sequence[Comparison], at_or_below: bool = False) -> bool:
    """No significant loss anywhere; unless ``at_or_below``, a significant win somewhere."""
    if not comparisons or any(math.isnan(c.mean_better) or math.isnan(c.mean_worse)
                              for c in comparisons):
        return False
    no_loss = not any(c.significant_loss for c in comparisons)
    return no_loss and (at_or_below or any(c.significant_win for c in comparisons))


def describe(comparisons: Sequence[Comparison], what: str) -> str:
    """``what: ahead on the means at a/n; significantly better at b/n (...); worse at ...``."""
    n = len(comparisons)
    ahead = sum(c.ahead_on_means for c in comparisons)
    wins = [_point_name(c.where) for c in comparisons if c.significant_win]
    losses = [_point_name(c.where) for c in comparisons if c.significant_loss]
    prefix = "load " if comparisons and "load" in comparisons[0].where else ""
    text = f"{what}: ahead on the means at {ahead}/{n}; significantly better at {len(wins)}/{n}"
    text += f" ({prefix}{', '.join(wins)})" if 0 < len(wins) < n else ""
    return text + (f"; significantly worse at {prefix}{', '.join(losses)}" if losses else "")


def _point_name(where: Mapping[str, Any]) -> str:
    if "c_s" in where:
        return f"C_s {int(where['c_s'])}"
    if "load" in where:
        return f"{where['load']:g}"
    return ",".join(str(v) for v in where.values())


BEATS_NOTE = ("criterion: at no point significantly worse (paired 95% CI over seeds of the "
              "difference excludes 0 on the wrong side) and significantly better at one point "
              "at least")
AT_OR_BELOW_NOTE = ("criterion: at no point significantly worse (paired 95% CI over seeds of "
                    "the difference excludes 0 on the wrong side)")


def beats_claim(tables: Mapping[str, pd.DataFrame], target: str,
                pairs: Sequence[tuple[str, str, str]], metric: str,
                at_or_below: bool = False) -> Outcome:
    """Each (panel, better, worse) of a load sweep: better beats worse on ``metric``."""
    table = tables[target]
    parts, failed = [], []
    for panel, better, worse in pairs:
        present = set(select(table, {"panel": panel})["policy"])
        if better not in present or worse not in present:
            return Outcome("", NOT_CHECKABLE, f"{better} or {worse} not run in panel {panel}")
        found = compare(tables, target, {"policy": better}, {"policy": worse},
                        load_points(table, panel), metric)
        name = f"{show(better)} vs {show(worse)}" + (f" ({panel})" if len(pairs) > 1 and
                                                          panel else "")
        parts.append(describe(found, name))
        if not verdict_beats(found, at_or_below):
            failed.append(name)
    note = f"fails for {'; '.join(failed)}" if failed else "holds for every pair"
    return Outcome("; ".join(parts), verdict_of(not failed),
                   f"{note} ({metric}, loads as x; "
                   f"{AT_OR_BELOW_NOTE if at_or_below else BEATS_NOTE})")


def _trend_and_cv(curve: Sequence[tuple[int, float]]) -> tuple[float, float]:
    """Spearman rho of (C_s, mean) and the coefficient of variation of the means."""
    import pandas as pd

    xs = pd.Series([x for x, _ in curve], dtype=float)
    ys = pd.Series([y for _, y in curve], dtype=float)
    rho = float(xs.rank().corr(ys.rank())) if len(curve) >= 3 else math.nan
    cv = float(ys.std(ddof=1) / ys.mean()) if len(curve) >= 2 and ys.mean() else math.nan
    return rho, cv


def cs_curve(table: pd.DataFrame, policy: str, metric: str, low: int = 0,
             high: int = 10**9) -> list[tuple[int, float]]:
    """(C_s, mean metric) of ``policy`` in a C_s sweep, for C_s in [low, high]."""
    return [(v, mean_of(table, metric, where)) for where, v in cs_points(table, policy)
            if low <= v <= high]


# ----------------------------------------------------------------------------- claims: F1


@claim(FAMILY_NAME, F1, "F1-los-at-or-below-easy", "On the real log, LOS's mean wait is at "
       "or below EASY's at every load (load set by scaling arrival times; sec. III, Fig. 1)",
       "LOS at or below EASY (SDSC SP2 log)")
def claim_f1(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table = tables[F1]
    panel = str(table["panel"].iloc[0])
    return beats_claim(tables, F1, [(panel, "LOS", "easy")], "AWT", at_or_below=True)


# ----------------------------------------------------------------------------- claims: F5, F6


def cs_beats(tables: Mapping[str, pd.DataFrame], target: str, metric: str) -> Outcome:
    """The C_s-swept policy beats every other policy of a C_s sweep, at every C_s."""
    table = tables[target]
    policy = _cs_policy_of(table)
    if policy is None:
        return Outcome("", NOT_CHECKABLE, "no policy with a C_s was run")
    parts, failed = [], []
    for other in [p for p in table["policy"].unique() if p != policy]:
        found = [compare(tables, target, where, {"policy": other, "c_s": math.nan}, [{}],
                         metric)[0] for where, _ in cs_points(table, policy)]
        found = [Comparison({"c_s": v}, c.mean_better, c.mean_worse, c.diff, c.sign)
                 for c, (_, v) in zip(found, cs_points(table, policy), strict=True)]
        name = f"{policy} vs {show(other)}"
        parts.append(describe(found, name))
        if not verdict_beats(found):
            failed.append(name)
    return Outcome("; ".join(parts), verdict_of(not failed),
                   (f"fails for {'; '.join(failed)}" if failed else "holds for every pair")
                   + f" ({metric}, C_s as x; {BEATS_NOTE})")


def _cs_policy_of(table: pd.DataFrame) -> str | None:
    swept = table[table["c_s"].notna()]["policy"].unique()
    return str(swept[0]) if len(swept) else None


@claim(FAMILY_NAME, F5, "F5-dlos-beats-wait", "Load 0.9, P_S 0.5: Delayed-LOS has a lower "
       "mean wait than LOS and EASY (sec. V-A, Fig. 5)", "lower at every C_s 1-20")
def claim_f5_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return cs_beats(tables, F5, "AWT")


@claim(FAMILY_NAME, F5, "F5-dlos-beats-util", "Load 0.9, P_S 0.5: Delayed-LOS has a higher "
       "mean utilization than LOS and EASY (sec. V-A, Fig. 5)", "higher at every C_s 1-20")
def claim_f5_util(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return cs_beats(tables, F5, "utilization")


@claim(FAMILY_NAME, F5, "F5-cs-knee", "Delayed-LOS's mean wait falls as C_s grows until about "
       "7-8, then stays stable (sec. V-A, Fig. 5)", "falls until C_s 7-8, then flat")
def claim_f5_knee(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table, seeds = tables[F5], tables.get(f"{F5}{SEEDS_SUFFIX}")
    policy = _cs_policy_of(table)
    until, flat_from = int(settings.get("fall_until", 8)), int(settings.get("f5_flat_from", 8))
    min_rho, max_cv = float(settings.get("trend_min_rho", 0.7)), \
        float(settings.get("flat_max_cv", 0.05))
    falling = cs_curve(table, policy, "AWT", high=until) if policy else []
    flat = cs_curve(table, policy, "AWT", low=flat_from) if policy else []
    if len(falling) < 2 or len(flat) < 2:
        return Outcome("", NOT_CHECKABLE, f"need 2+ C_s values in [1, {until}] and in "
                                          f"[{flat_from}, 20]")
    rho, _ = _trend_and_cv(falling)
    _, cv = _trend_and_cv(flat)
    drop = paired(seeds, "AWT", {"policy": policy, "c_s": float(falling[0][0])},
                  {"policy": policy, "c_s": float(falling[-1][0])})
    falls = (math.isnan(rho) or rho <= -min_rho) and _excludes_zero(drop, -1)
    holds = falls and cv <= max_cv
    ours = (f"C_s {falling[0][0]}->{falling[-1][0]}: rho {rho:+.2f}, change {drop.mean:+.0f} s "
            f"[{drop.low:+.0f}, {drop.high:+.0f}]; C_s >= {flat_from}: CV {cv:.3f}; best C_s "
            f"{best_cs(table, policy)}")
    return Outcome(ours, verdict_of(holds),
                   f"criterion: over C_s {falling[0][0]}..{until} Spearman rho <= -{min_rho} "
                   f"(with 3+ values) and the paired 95% CI of the change excludes 0 below; "
                   f"over C_s >= {flat_from} the coefficient of variation of the mean wait "
                   f"is at most {max_cv}")


@claim(FAMILY_NAME, F6, "F6-cs-insensitive", "Load 0.9, P_S 0.8: Delayed-LOS is insensitive "
       "to C_s above about 3 (sec. V-A, Fig. 6)", "flat for C_s > 3")
def claim_f6_flat(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table = tables[F6]
    policy = _cs_policy_of(table)
    flat_from, max_cv = int(settings.get("f6_flat_from", 4)), \
        float(settings.get("flat_max_cv", 0.05))
    flat = cs_curve(table, policy, "AWT", low=flat_from) if policy else []
    if len(flat) < 2:
        return Outcome("", NOT_CHECKABLE, f"need 2+ C_s values >= {flat_from}")
    _, cv = _trend_and_cv(flat)
    means = [m for _, m in flat]
    return Outcome(f"C_s >= {flat_from}: CV {cv:.3f} (mean wait {min(means):.0f}-"
                   f"{max(means):.0f} s); best C_s {best_cs(table, policy)}",
                   verdict_of(cv <= max_cv),
                   f"criterion: coefficient of variation of the mean wait over C_s >= "
                   f"{flat_from} at most {max_cv}")


# ----------------------------------------------------------------------------- claims: F7-F11


def _panel(tables: Mapping[str, pd.DataFrame], target: str, index: int = 0) -> str:
    panels = list(dict.fromkeys(tables[target]["panel"].astype(str)))
    return panels[index] if index < len(panels) else ""


@claim(FAMILY_NAME, F7, "F7-dlos-best-wait", "P_S 0.2: Delayed-LOS has a lower mean wait than "
       "LOS and EASY over the loads 0.5-1.0 (sec. V-A, Fig. 7)", "Delayed-LOS best")
def claim_f7_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    panel = _panel(tables, F7)
    return beats_claim(tables, F7, [(panel, "Delayed-LOS", "LOS"),
                                    (panel, "Delayed-LOS", "easy")], "AWT")


@claim(FAMILY_NAME, F7, "F7-dlos-best-util", "P_S 0.2: Delayed-LOS has a higher mean "
       "utilization than LOS and EASY (sec. V-A, Fig. 7)", "Delayed-LOS best")
def claim_f7_util(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    panel = _panel(tables, F7)
    return beats_claim(tables, F7, [(panel, "Delayed-LOS", "LOS"),
                                    (panel, "Delayed-LOS", "easy")], "utilization")


@claim(FAMILY_NAME, F7, "F7-los-worse-than-easy", "P_S 0.2: LOS performs worse than EASY "
       "(higher mean wait; sec. V-A, Fig. 7)", "LOS worse than EASY")
def claim_f7_los(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return beats_claim(tables, F7, [(_panel(tables, F7), "easy", "LOS")], "AWT")


@claim(FAMILY_NAME, F8, "F8-dlos-close-to-easy", "P_S 0.5 and 0.8: Delayed-LOS's mean wait is "
       "close to EASY's (sec. V-A, Fig. 8)", "close at P_S 0.5 and 0.8")
def claim_f8_close(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table = tables[F8]
    max_rel = float(settings.get("close_max_rel", 0.1))
    parts, failed = [], []
    for panel in dict.fromkeys(table["panel"].astype(str)):
        found = compare(tables, F8, {"policy": "Delayed-LOS"}, {"policy": "easy"},
                        load_points(table, panel), "AWT")
        far = [c for c in found if (c.significant_win or c.significant_loss)
               and abs(c.mean_better - c.mean_worse) > max_rel * c.mean_worse]
        ratios = ", ".join(f"{c.where['load']:g}: x{c.mean_better / c.mean_worse:.2f}"
                           for c in found if c.mean_worse)
        parts.append(f"{panel}: Delayed-LOS/EASY {ratios}")
        if far or not found:
            failed.append(f"{panel} at {', '.join(_point_name(c.where) for c in far)}")
    return Outcome("; ".join(parts), verdict_of(not failed),
                   (f"far at {'; '.join(failed)}" if failed else "close at every load")
                   + f" (criterion: at every load the paired 95% CI of the difference includes "
                   f"0 or the difference is at most {max_rel:.0%} of EASY's mean wait)")


@claim(FAMILY_NAME, F8, "F8-both-beat-los", "P_S 0.5 and 0.8: Delayed-LOS and EASY both have a "
       "lower mean wait than LOS (sec. V-A, Fig. 8)", "both beat LOS")
def claim_f8_los(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    panels = list(dict.fromkeys(tables[F8]["panel"].astype(str)))
    pairs = [(p, new, "LOS") for p in panels for new in ("Delayed-LOS", "easy")]
    return beats_claim(tables, F8, pairs, "AWT")


def _hybrid_claim(tables: Mapping[str, pd.DataFrame], target: str, metric: str) -> Outcome:
    panel = _panel(tables, target)
    return beats_claim(tables, target, [(panel, "Hybrid-LOS", "LOS-D"),
                                        (panel, "Hybrid-LOS", "EASY-D")], metric)


@claim(FAMILY_NAME, F9, "F9-hybrid-beats-wait", "P_D 0.5, P_S 0.2: Hybrid-LOS has a lower mean "
       "wait than EASY-D and LOS-D (sec. V-B, Fig. 9)", "Hybrid-LOS best")
def claim_f9_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return _hybrid_claim(tables, F9, "AWT")


@claim(FAMILY_NAME, F9, "F9-hybrid-beats-util", "P_D 0.5, P_S 0.2: Hybrid-LOS has a higher "
       "mean utilization than EASY-D and LOS-D (sec. V-B, Fig. 9)", "Hybrid-LOS best")
def claim_f9_util(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return _hybrid_claim(tables, F9, "utilization")


@claim(FAMILY_NAME, F10, "F10-hybrid-beats-wait", "P_D 0.9, P_S 0.5: Hybrid-LOS has a lower "
       "mean wait than EASY-D and LOS-D (sec. V-B, Fig. 10)", "Hybrid-LOS best")
def claim_f10_wait(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return _hybrid_claim(tables, F10, "AWT")


@claim(FAMILY_NAME, F10, "F10-hybrid-beats-util", "P_D 0.9, P_S 0.5: Hybrid-LOS has a higher "
       "mean utilization than EASY-D and LOS-D (sec. V-B, Fig. 10)", "Hybrid-LOS best")
def claim_f10_util(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return _hybrid_claim(tables, F10, "utilization")


@claim(FAMILY_NAME, F11, "F11-e-ordering", "Elastic workloads: Delayed-LOS-E beats LOS-E and "
       "EASY-E (batch, P_S 0.5), Hybrid-LOS-E beats LOS-DE and EASY-DE (heterogeneous, P_S 0.5, "
       "P_D 0.5) in mean wait (sec. V-C, Fig. 11)", "the -E versions keep their ordering")
def claim_f11_order(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    batch, het = _panel(tables, F11, 0), _panel(tables, F11, 1)
    return beats_claim(tables, F11, [(batch, "Delayed-LOS-E", "LOS-E"),
                                     (batch, "Delayed-LOS-E", "EASY-E"),
                                     (het, "Hybrid-LOS-E", "LOS-DE"),
                                     (het, "Hybrid-LOS-E", "EASY-DE")], "AWT")


@claim(FAMILY_NAME, F11, "F11-smaller-gains", "With elastic commands the maximum gains in wait "
       "and slowdown are smaller than without (Table VI < IV, VII < V; sec. V-C)",
       "VI < IV and VII < V for wait and slowdown (8 cells)", needs=(T4, T5, T6, T7))
def claim_f11_gains(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    parts, failed = [], []
    for elastic, plain in ((T6, T4), (T7, T5)):
        for b_index in (0, 1):
            for metric in ("AWT", "slowdown"):
                e, p = _cell(tables[elastic], metric, b_index), _cell(tables[plain], metric,
                                                                      b_index)
                name = f"{elastic[-2:]}/{plain[-2:]} col {b_index + 1} {metric}"
                parts.append(f"{name}: {e:.1f} vs {p:.1f}")
                if not e < p:
                    failed.append(name)
    return Outcome("; ".join(parts), verdict_of(not failed),
                   f"not smaller: {', '.join(failed)}" if failed else "every cell smaller "
                   "(criterion: each elastic maximum improvement below its non-elastic one)")


def _cell(table: pd.DataFrame, metric: str, b_index: int) -> float:
    row = table[table["column"] == metric].iloc[0]
    ours = [c for c in table.columns if c.endswith("_ours")]
    return float(row[ours[b_index]])


def _cs_chosen(tables: Mapping[str, pd.DataFrame], target: str) -> Outcome:
    table = tables[target]
    parts = [f"{panel}: " + ", ".join(f"{p} C_s = {v}" for p, v in
                                      chosen_cs(table, panel).items())
             for panel in dict.fromkeys(table["panel"].astype(str))]
    return Outcome("; ".join(parts), NOT_CHECKABLE,
                   "informational: the C_s with the lowest mean wait in the panel's C_s sweep "
                   "(config cs_from, cs_metric); the paper gives no values")


for _target in (F7, F8, F9, F10, F11):
    claim(FAMILY_NAME, _target, f"{_target[4:]}-cs-chosen", "C_s of Delayed-LOS / Hybrid-LOS "
          "in this load sweep: the empirical best for the P_S at hand (sec. V-A)",
          "best C_s per P_S (values not given; Fig. 5 suggests 7-8 at P_S 0.5)")(
        lambda tables, settings, _t=_target: _cs_chosen(tables, _t))


# ----------------------------------------------------------------------------- claims: T4-T7


def order_claim(tables: Mapping[str, pd.DataFrame], target: str,
                settings: Mapping[str, Any]) -> Outcome:
    """Every cell of an improvement table within a factor of the paper's (and positive)."""
    table = tables[target]
    factor = float(settings.get("order_factor", 2.0))
    ours_cols = [c for c in table.columns if c.endswith("_ours")]
    parts, failed = [], []
    for _, row in table.iterrows():
        for column in ours_cols:
            baseline = column[: -len("_ours")]
            ours, paper = float(row[column]), float(row[f"{baseline}_paper"])
            name = f"{row['metric']} vs {show(baseline)}"
            parts.append(f"{name} {ours:.2f}% (paper {paper:g}%)")
            if not (ours > 0 and paper / factor <= ours <= paper * factor):
                failed.append(name)
    return Outcome("; ".join(parts), verdict_of(not failed),
                   (f"outside: {', '.join(failed)}" if failed else "every cell within")
                   + f" (criterion: each maximum % improvement positive and within a factor "
                   f"{factor:g} of the paper's)")


for _target, _text in ((T4, "Delayed-LOS over LOS and EASY, P_S 0.2 (Table IV, Fig. 7)"),
                       (T5, "Hybrid-LOS over LOS-D and EASY-D, P_D 0.5, P_S 0.2 (Table V, "
                            "Fig. 9)"),
                       (T6, "Delayed-LOS-E over LOS-E and EASY-E (Table VI, Fig. 11)"),
                       (T7, "Hybrid-LOS-E over LOS-DE and EASY-DE (Table VII, Fig. 11)")):
    _paper = PAPER_TABLES[_target]
    claim(FAMILY_NAME, _target, f"{_target[4:]}-order", f"Maximum % improvement of {_text}: "
          "gains of the order of the paper's", "utilization, wait, slowdown: "
          f"{' / '.join(f'{v:g}' for v in _paper[0])} % and "
          f"{' / '.join(f'{v:g}' for v in _paper[1])} %")(
        lambda tables, settings, _t=_target: order_claim(tables, _t, settings))
