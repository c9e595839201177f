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
registered with :func:`schedsim.claims.claim`; the criteria are ``los.claims`` in
the config. Choices the paper leaves open: docs/deviations-los.md (E1-E10).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schedsim.claims import NOT_CHECKABLE, Outcome, claim, verdict_of
from schedsim.experiments.family import Family, Variant, axis_product
from schedsim.experiments.kinds import SEEDS_SUFFIX, derived_function
from schedsim.experiments.spec import TargetSpec, fmt_value
from schedsim.plots import COLORS, STYLE, panels, register_figure
from schedsim.stats import Interval
from schedsim.tables import coefficient_of_variation, mean_of, paired_difference, select, spearman

if TYPE_CHECKING:
    import pandas as pd

FAMILY_NAME = "los"
F1, F5, F6, CS20 = "LOS-F1", "LOS-F5", "LOS-F6", "LOS-CS20"
F7, F8, F9, F10, F11 = "LOS-F7", "LOS-F8", "LOS-F9", "LOS-F10", "LOS-F11"
T4, T5, T6, T7 = "LOS-T4", "LOS-T5", "LOS-T6", "LOS-T7"
CS_KIND, LOAD_KIND, TRACE_KIND, TABLE_KIND = "cs-sweep", "load-sweep", "trace-sweep", "improvement"
METRICS = ("utilization", "AWT", "slowdown", "BSLD", "max_wait", "ATT", "ART",
           "offered_load", "barr", "natural_load")
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
    """Config section ``los``: variant axes ``ps``, ``pd``, ``elastic`` and ``load``.

    One ``lublin-los`` workload per (P_S, P_D, elastic or not, offered load, seed),
    calibrated to its load (model parameter ``load``); ``pd`` defaults to 0,
    ``elastic`` to false, ``load`` to ``options.loads``. Elastic workloads take
    ``options.elastic`` (P_E, P_R; sec. IV-D).
    """

    name = FAMILY_NAME
    variant_column = "workload"
    workload_ext = "cwf"
    metrics = METRICS
    param_columns = ("c_s",)
    workload_info = True

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        options = section["options"]
        axes = {"ps": values["ps"], "pd": values.get("pd", 0.0),
                "elastic": values.get("elastic", False),
                "load": values.get("load", options["loads"])}
        return [self.variant(options, case, panel) for case in axis_product(axes)]

    @staticmethod
    def variant(options: Mapping[str, Any], case: Mapping[str, Any], panel: str) -> Variant:
        ps, pd, elastic, load = (float(case["ps"]), float(case["pd"]), bool(case["elastic"]),
                                 float(case["load"]))
        name = f"ps{fmt_value(ps)}_pd{fmt_value(pd)}{'_el' if elastic else ''}" \
               f"_load{fmt_value(load)}"
        rates = options.get("elastic") or {}
        params = {"ps": ps, "pd": pd, "load": load,
                  "load_tolerance": float(options.get("load_tolerance", 0.001)),
                  "pe": float(rates.get("pe", 0.2)) if elastic else 0.0,
                  "pr": float(rates.get("pr", 0.1)) if elastic else 0.0}
        labels = {"panel": panel, "ps": ps, "pd": pd, "elastic": elastic, "load": load}
        return Variant(name, params, labels)


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
                              paired_difference(seeds, metric, first, second), sign))
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
    xs, ys = [float(x) for x, _ in curve], [float(y) for _, y in curve]
    return spearman(xs, ys), coefficient_of_variation(ys)


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
    log = str(table["panel"].iloc[0])  # the panel of a trace sweep is its log
    found = beats_claim(tables, F1, [(log, "LOS", "easy")], "AWT", at_or_below=True)
    used = "the paper's log" if log == "SDSC-SP2" else "not the paper's SDSC SP2 log"
    return Outcome(f"on the log {log} ({used}): {found.our_value}", found.verdict,
                   found.note)


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
    drop = paired_difference(seeds, "AWT", {"policy": policy, "c_s": float(falling[0][0])},
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


# ----------------------------------------------------------------------------- figure: T4-T7


@register_figure("los-improvement")
def improvement_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """LOS paper Tables IV-VII as bars: our maximum % improvement (95% CI) beside the paper's."""
    import matplotlib

    baselines = list(spec.args["baselines"])
    width = 0.8 / (2 * len(baselines))
    with matplotlib.rc_context(STYLE):
        fig, (ax,) = panels(1, width=6.4, height=3.8)
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
                   label=f"paper vs {name}")
        ax.set_xticks(range(len(table)), list(table["metric"]))
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_ylabel("maximum % improvement over the loads")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(frameon=False)
        fig.suptitle(f"{spec.target}: {show(spec.args['policy'], spec.policy_labels)} over "
                     f"{' and '.join(show(b, spec.policy_labels) for b in baselines)} "
                     f"({spec.sources[0]}, panel {spec.args['panel']}); bars: 95% CI at the "
                     "load of the maximum", fontsize=9)
    return fig
