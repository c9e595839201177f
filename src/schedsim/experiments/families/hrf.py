"""HRF family: moldable allocation (the HRF paper, 000_79ccd2f7a7fd721f.txt, sec. 4 and 6).

Targets (docs/reproduction.md, HRF section):

* HRF-T1: the worked example of sec. 4.1 (Table 1, Fig. 3), computed, not swept.
* HRF-F5: ATT, AWT, ART vs alpha at threshold 0.9 (Fig. 5 a-c).
* HRF-F6: the same vs threshold at alpha 1 (Fig. 6 a-c).
* HRF-F7: "combined" ATT, AWT, ART of the 8 policies: the mean over the alpha x
  threshold grid (Fig. 7 a-c, sec. 6.3).

Workload variants are the three loads (sec. 6.1.2: mean inter-arrival about
2000, 1000, 600 s). Each claim of the paper is one small function registered
with :func:`schedsim.claims.claim`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from schedsim.claims import NOT_CHECKABLE, Outcome, claim, verdict_of
from schedsim.experiments.family import Family, Variant
from schedsim.experiments.kinds import SEEDS_SUFFIX, example_function
from schedsim.experiments.spec import TargetSpec
from schedsim.plots import PANEL_LETTERS, STYLE, panels, register_figure
from schedsim.stats import Interval
from schedsim.tables import paired_difference, select, spearman

if TYPE_CHECKING:
    import pandas as pd

FAMILY_NAME = "hrf"
T1, F5, F6, F7 = "HRF-T1", "HRF-F5", "HRF-F6", "HRF-F7"
FCFS_SUFFIX, BF_SUFFIX = "Fcfs", "Bf"


class HrfFamily(Family):
    """Config section ``hrf``: one variant axis, ``load``, whose values are the named
    loads of ``options.loads`` (sec. 6.1.2: mean inter-arrival about 2000, 1000, 600 s)."""

    name = FAMILY_NAME
    variant_column = "load"

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        loads = section["options"]["loads"]
        wanted = values.get("load")
        if wanted is not None:
            names = set(wanted) if isinstance(wanted, list) else {wanted}
            unknown = names - {load["name"] for load in loads}
            if unknown:
                raise ValueError(f"hrf: unknown load(s) {', '.join(sorted(unknown))}")
            loads = [load for load in loads if load["name"] in names]
        procs = int(section["machine"]["procs"])
        return [Variant(load["name"], {"mean_interarrival": float(load["mean_interarrival"]),
                                       "procs": procs},
                        {"mean_interarrival": float(load["mean_interarrival"])})
                for load in loads]


FAMILY = HrfFamily()


# ----------------------------------------------------------------------------- HRF-T1

# HRF paper, sec. 4.1, Table 1: runtime (s) of J1..J3 on one and on two processors.
TABLE1_RUNTIMES = ((10.0, 5.0), (10.0, 7.0), (10.0, 9.0))
# Fig. 3: processors given to J1, J2, J3 by strategies A, B, C (five in all).
TABLE1_STRATEGIES = {"A": (2, 2, 1), "B": (2, 1, 2), "C": (1, 2, 2)}
TABLE1_PAPER_ATT = {"A": 9.0, "B": 9.67, "C": 11.0}
TABLE1_PROCS = 3
TABLE1_BUDGET = 5  # sec. 5: alpha = 5/3 on m = 3 processors


def table1_schedule(allocation: Sequence[int]) -> list[dict[str, float]]:
    """Schedule the three jobs of Table 1 with ``allocation`` on 3 processors.

    Jobs are taken in order J1, J2, J3 and each starts as soon as its processors
    are free without delaying an earlier one (EASY with exact runtimes), which
    is how Fig. 3 packs them; all arrive at 0.
    """
    from schedsim.engine import simulate
    from schedsim.jobs import Job
    from schedsim.machine import Machine
    from schedsim.policies.registry import make_policy

    jobs = [Job(id=i + 1, submit=0.0, runtime=TABLE1_RUNTIMES[i][procs - 1], procs=procs,
                estimate=TABLE1_RUNTIMES[i][procs - 1]) for i, procs in enumerate(allocation)]
    machine = Machine(TABLE1_PROCS)
    schedule = simulate(jobs, machine, make_policy("easy", {}, machine))
    return [{"job": f"J{job.id}", "procs": procs, "start": start, "end": end,
             "turnaround": end - job.submit}
            for job, start, end, procs in zip(jobs, schedule.start, schedule.end,
                                              schedule.procs, strict=True)]


def table1_att() -> dict[str, float]:
    """Average turnaround time of strategies A, B, C (paper: 9, 9.67, 11 s)."""
    return {name: sum(r["turnaround"] for r in table1_schedule(alloc)) / len(alloc)
            for name, alloc in TABLE1_STRATEGIES.items()}


def hrf_example_allocation() -> tuple[int, ...]:
    """HRF's allocation (Algorithm 1) of the Table 1 jobs: budget 5 on 3 processors.

    The HRF allocation scheme with its default settings, alpha = 5/3 and threshold =
    2/3 (at most two processors a job, sec. 4.1).
    """
    from schedsim.machine import Machine
    from schedsim.policies.moldable import HrfSettings, hrf_allocation

    settings = HrfSettings(alpha=TABLE1_BUDGET / TABLE1_PROCS, threshold=2 / TABLE1_PROCS)
    return hrf_allocation(TABLE1_RUNTIMES, Machine(TABLE1_PROCS), settings)


def hrf_example_choice() -> str:
    """The strategy (A, B, C) HRF's allocation coincides with, or 'other'."""
    allocation = hrf_example_allocation()
    for name, alloc in TABLE1_STRATEGIES.items():
        if tuple(allocation) == alloc:
            return name
    return "other"


@example_function("hrf-table1")
def example_table(spec: TargetSpec | None = None) -> pd.DataFrame:
    """The HRF-T1 table: one row per (strategy, job) with its schedule and the ATTs."""
    import pandas as pd

    target = spec.target if spec is not None else T1
    choice = hrf_example_choice()
    allocation = hrf_example_allocation()
    rows = []
    for name, alloc in TABLE1_STRATEGIES.items():
        schedule = table1_schedule(alloc)
        att = sum(r["turnaround"] for r in schedule) / len(schedule)
        for index, record in enumerate(schedule):
            rows.append({"target": target, "strategy": name, **record,
                         "runtime": record["end"] - record["start"], "ATT": att,
                         "paper_ATT": TABLE1_PAPER_ATT[name],
                         "hrf_procs": allocation[index], "hrf_choice": choice})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- table helpers


def loads_by_weight(table: pd.DataFrame) -> list[str]:
    """Load names from light to heavy (decreasing mean inter-arrival time)."""
    order = table.groupby("load", sort=False)["mean_interarrival"].first()
    return list(order.sort_values(ascending=False).index)


def series(table: pd.DataFrame, policy: str, load: str, x: str, metric: str) -> pd.DataFrame:
    """Columns x, mean, low, high of one curve, sorted by x."""
    import pandas as pd

    part = select(table, {"policy": policy, "load": load}).sort_values(x)
    return pd.DataFrame({"x": part[x].to_numpy(), "mean": part[f"{metric}_mean"].to_numpy(),
                         "low": part[f"{metric}_ci_low"].to_numpy(),
                         "high": part[f"{metric}_ci_high"].to_numpy()})


def seeds_table(tables: Mapping[str, pd.DataFrame], target: str) -> pd.DataFrame | None:
    """The per-seed table of ``target`` (``<target>.seeds``), if given."""
    return tables.get(f"{target}{SEEDS_SUFFIX}")


def trend(curve: pd.DataFrame, sign: int, min_rho: float,
          paired: Interval | None = None) -> tuple[bool, str]:
    """Does ``curve`` rise (sign +1) or fall (-1)?

    Holds when Spearman's rho of mean vs x is at least ``min_rho`` in the
    direction ``sign`` and the change between the two ends is significant: the
    95% CI of the paired per-seed difference (last minus first x) excludes 0 on
    the claimed side; without per-seed values, the two ends' own CIs must not
    overlap (means only when there is no interval, i.e. one seed).
    """
    rho = spearman(curve["x"], curve["mean"])
    first, last = curve.iloc[0], curve.iloc[-1]
    if paired is not None and not math.isnan(paired.half_width):
        apart = paired.low > 0 if sign > 0 else paired.high < 0
        change = f", end change {paired.mean:+.0f} s [{paired.low:+.0f}, {paired.high:+.0f}]"
    elif math.isnan(first["low"]) or math.isnan(last["low"]):
        apart, change = sign * (last["mean"] - first["mean"]) > 0, " (no CI)"
    else:
        apart = last["low"] > first["high"] if sign > 0 else last["high"] < first["low"]
        change = "" if apart else " (end CIs overlap)"
    holds = bool(not math.isnan(rho) and sign * rho >= min_rho and apart)
    return holds, f"rho={rho:+.2f}{change}"


def trend_claim(tables: Mapping[str, pd.DataFrame], target: str, x: str, metric: str,
                sign: int, settings: Mapping[str, Any]) -> Outcome:
    """A trend claim over every (policy, load) curve of a sweep target."""
    table, seeds = tables[target], seeds_table(tables, target)
    min_rho = float(settings.get("trend_min_rho", 0.7))
    parts, failed = [], []
    for policy in table["policy"].unique():
        for load in loads_by_weight(table):
            curve = series(table, policy, load, x, metric)
            paired = None if seeds is None else paired_difference(
                seeds, metric, {"policy": policy, "load": load, x: float(curve["x"].iloc[0])},
                {"policy": policy, "load": load, x: float(curve["x"].iloc[-1])})
            holds, text = trend(curve, sign, min_rho, paired)
            parts.append(f"{policy}/{load}: {text}")
            if not holds:
                failed.append(f"{policy}/{load}")
    note = f"fails for {', '.join(failed)}" if failed else "holds on every curve"
    ends = "paired 95% CI of the end-to-end change excludes 0" if seeds is not None \
        else "end-point 95% CIs apart"
    return Outcome("; ".join(parts), verdict_of(not failed),
                   f"{note} (criterion: Spearman rho {'>=' if sign > 0 else '<='} "
                   f"{'' if sign > 0 else '-'}{min_rho} and {ends})")


def best_x(table: pd.DataFrame, policy: str, load: str, x: str) -> float:
    """The x value with the lowest mean ATT of one curve."""
    curve = series(table, policy, load, x, "ATT")
    return float(curve["x"].iloc[int(curve["mean"].to_numpy().argmin())])


def combined(table: pd.DataFrame, load: str) -> dict[str, pd.Series]:
    """Rows of a combined (HRF-F7) table at one load, by policy."""
    part = table[table["load"] == load]
    return {row["policy"]: row for _, row in part.iterrows()}


def best_of_suffix(tables: Mapping[str, pd.DataFrame], winner: str, suffix: str) -> Outcome:
    """Is ``winner`` the lowest combined ATT of the policies ending in ``suffix``, at every load?

    The verdict is on the means; the note says whether the gap to the runner-up is
    significant (paired 95% CI over seeds, else the two CIs apart).
    """
    table, seeds = tables[F7], seeds_table(tables, F7)
    parts, failed = [], []
    for load in loads_by_weight(table):
        rows = {p: r for p, r in combined(table, load).items() if p.endswith(suffix)}
        if winner not in rows:
            return Outcome("", NOT_CHECKABLE, f"{winner} was not run")
        ranked = sorted(rows, key=lambda p: rows[p]["ATT_mean"])
        runner = ranked[1] if ranked[0] == winner and len(ranked) > 1 else ranked[0]
        parts.append(f"{load}: best {ranked[0]} ({rows[ranked[0]]['ATT_mean']:.0f} s)")
        if ranked[0] != winner:
            failed.append(load)
        elif not _significant(seeds, load, winner, runner, rows):
            parts[-1] += f", not significantly below {runner}"
    return Outcome("; ".join(parts), verdict_of(not failed),
                   f"not best at {', '.join(failed)}" if failed else "best at every load "
                   "(verdict on the means; significance vs the runner-up noted)")


def _significant(seeds: pd.DataFrame | None, load: str, winner: str, runner: str,
                 rows: Mapping[str, pd.Series]) -> bool:
    """Winner's combined ATT significantly below the runner-up's."""
    if seeds is None:
        return _separated(rows[winner], rows[runner])
    diff = paired_difference(seeds, "ATT", {"policy": runner, "load": load},
                             {"policy": winner, "load": load})
    return not math.isnan(diff.half_width) and diff.high < 0


def _separated(a: pd.Series, b: pd.Series) -> bool:
    """95% intervals of combined ATT do not overlap."""
    low_a, high_a, low_b, high_b = (a["ATT_ci_low"], a["ATT_ci_high"],
                                    b["ATT_ci_low"], b["ATT_ci_high"])
    if any(math.isnan(v) for v in (low_a, high_a, low_b, high_b)):
        return False
    return high_a < low_b or high_b < low_a


# ----------------------------------------------------------------------------- claims: HRF-T1


@claim(FAMILY_NAME, T1, "T1-att", "Average turnaround of allocation strategies A, B, C "
       "on the Table 1 jobs (sec. 4.1, Fig. 3)", "A 9 s, B 9.67 s, C 11 s")
def claim_t1_att(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table = tables[T1]
    att = table.groupby("strategy", sort=False)["ATT"].first()
    ours = ", ".join(f"{k} {v:.2f} s" for k, v in att.items())
    holds = all(abs(att[k] - v) < 0.01 for k, v in TABLE1_PAPER_ATT.items())
    return Outcome(ours, verdict_of(holds), "our engine, EASY packing, exact runtimes")


@claim(FAMILY_NAME, T1, "T1-hrf-picks-A", "HRF (Algorithm 1) allocates like strategy A "
       "on the Table 1 jobs", "A")
def claim_t1_choice(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    choice = str(tables[T1]["hrf_choice"].iloc[0])
    return Outcome(choice, verdict_of(choice == "A"))


# ----------------------------------------------------------------------------- claims: HRF-F5


@claim(FAMILY_NAME, F5, "F5-awt-rises", "AWT increases with alpha (HRFFcfs and HRFBf, "
       "every load; sec. 6.2)", "increasing")
def claim_f5_awt(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return trend_claim(tables, F5, "alpha", "AWT", +1, settings)


@claim(FAMILY_NAME, F5, "F5-art-falls", "ART decreases with alpha (HRFFcfs and HRFBf, "
       "every load; sec. 6.2)", "decreasing")
def claim_f5_art(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return trend_claim(tables, F5, "alpha", "ART", -1, settings)


@claim(FAMILY_NAME, F5, "F5-fcfs-best-alpha", "HRFFcfs: the best alpha (lowest ATT) is "
       "lower at heavier load (sec. 6.2)", "light 0.8, middle 0.7, heavy 0.5 (ATT rises "
       "monotonically)")
def claim_f5_fcfs(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return _best_alpha_trend(tables[F5], "HRFFcfs", decreasing=True)


@claim(FAMILY_NAME, F5, "F5-bf-best-alpha", "HRFBf: the best alpha is higher at heavier "
       "load (sec. 6.2)", "light interior minimum, middle and heavy 1.2 (ATT falls "
       "monotonically)")
def claim_f5_bf(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return _best_alpha_trend(tables[F5], "HRFBf", decreasing=False)


def _best_alpha_trend(table: pd.DataFrame, policy: str, decreasing: bool) -> Outcome:
    if policy not in set(table["policy"]):
        return Outcome("", NOT_CHECKABLE, f"{policy} was not run")
    loads = loads_by_weight(table)
    best = [best_x(table, policy, load, "alpha") for load in loads]
    ours = ", ".join(f"{load} {value:g}" for load, value in zip(loads, best, strict=True))
    steps = [b - a for a, b in itertools.pairwise(best)]
    sign = -1 if decreasing else 1
    holds = all(sign * s >= 0 for s in steps) and sign * (best[-1] - best[0]) > 0
    return Outcome(ours, verdict_of(holds), "argmin of the mean ATT per load "
                                            "(monotone from light to heavy, not all equal)")


# ----------------------------------------------------------------------------- claims: HRF-F6


@claim(FAMILY_NAME, F6, "F6-awt-rises", "AWT increases with threshold (HRFFcfs and HRFBf, "
       "every load; sec. 6.2)", "increasing")
def claim_f6_awt(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return trend_claim(tables, F6, "threshold", "AWT", +1, settings)


@claim(FAMILY_NAME, F6, "F6-art-falls", "ART decreases with threshold (HRFFcfs and HRFBf, "
       "every load; sec. 6.2)", "decreasing")
def claim_f6_art(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return trend_claim(tables, F6, "threshold", "ART", -1, settings)


@claim(FAMILY_NAME, F6, "F6-att-stable", "ATT is stable for threshold > 0.3 (sec. 6.2)",
       "stable above 0.3, fluctuating below")
def claim_f6_stable(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table = tables[F6]
    above = float(settings.get("stable_above", 0.3))
    max_cv = float(settings.get("stable_max_cv", 0.1))
    parts, failed = [], []
    for policy in table["policy"].unique():
        for load in loads_by_weight(table):
            curve = series(table, policy, load, "threshold", "ATT")
            means = curve[curve["x"] > above + 1e-9]["mean"]
            if len(means) < 2:
                return Outcome("", NOT_CHECKABLE, f"fewer than 2 thresholds above {above}")
            cv = float(means.std(ddof=1) / means.mean())
            parts.append(f"{policy}/{load}: CV {cv:.3f}")
            if cv > max_cv:
                failed.append(f"{policy}/{load}")
    note = f"CV above {max_cv} for {', '.join(failed)}" if failed else "every curve"
    return Outcome("; ".join(parts), verdict_of(not failed),
                   f"{note} (criterion: coefficient of variation of mean ATT over "
                   f"thresholds > {above} at most {max_cv})")


# ----------------------------------------------------------------------------- claims: HRF-F7


@claim(FAMILY_NAME, F7, "F7-hrffcfs-best-fcfs", "HRFFcfs has the lowest combined ATT of the "
       "FCFS policies at every load (sec. 6.3)", "best at light, middle, heavy")
def claim_f7_fcfs(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return best_of_suffix(tables, "HRFFcfs", FCFS_SUFFIX)


@claim(FAMILY_NAME, F7, "F7-hrfbf-best-bf", "HRFBf has the lowest combined ATT of the "
       "backfilling policies at every load (sec. 6.3)", "best at light, middle, heavy")
def claim_f7_bf(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return best_of_suffix(tables, "HRFBf", BF_SUFFIX)


@claim(FAMILY_NAME, F7, "F7-hrfbf-best-overall", "HRFBf has the lowest combined ATT of all "
       "8 policies at every load (sec. 6.4)", "best at every load")
def claim_f7_overall(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    return best_of_suffix(tables, "HRFBf", "")


@claim(FAMILY_NAME, F7, "F7-bf-beats-fcfs", "Each backfilling policy has a lower combined "
       "ATT than its FCFS twin, at every load (sec. 6.3)", "all 4 pairs at every load")
def claim_f7_pairs(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table = tables[F7]
    parts, failed = [], []
    for load in loads_by_weight(table):
        rows = combined(table, load)
        for bf in [p for p in rows if p.endswith(BF_SUFFIX)]:
            twin = bf[: -len(BF_SUFFIX)] + FCFS_SUFFIX
            if twin not in rows:
                continue
            ratio = rows[bf]["ATT_mean"] / rows[twin]["ATT_mean"]
            parts.append(f"{load} {bf}/{twin} {ratio:.2f}")
            if ratio >= 1.0:
                failed.append(f"{load} {bf}")
    if not parts:
        return Outcome("", NOT_CHECKABLE, "no Bf/Fcfs pair was run")
    return Outcome("; ".join(parts), verdict_of(not failed),
                   f"Bf not better: {', '.join(failed)}" if failed else "ratio Bf/Fcfs < 1 "
                   "for every pair")


@claim(FAMILY_NAME, F7, "F7-att-grows-with-load", "Combined ATT grows with the load, for "
       "every policy (sec. 6.3)", "light < middle < heavy")
def claim_f7_load(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table = tables[F7]
    loads = loads_by_weight(table)
    parts, failed = [], []
    for policy in table["policy"].unique():
        att = [combined(table, load)[policy]["ATT_mean"] for load in loads]
        parts.append(f"{policy}: " + " < ".join(f"{v:.0f}" for v in att))
        if any(b <= a for a, b in itertools.pairwise(att)):
            failed.append(policy)
    return Outcome("; ".join(parts), verdict_of(not failed),
                   f"not increasing for {', '.join(failed)}" if failed else "every policy")


# HRF paper, sec. 6.3: combined ATT at middle load (Fig. 7b).
PAPER_MIDDLE_ATT = {"SbmGrdyFcfs": 81444.0, "SchFairFcfs": 30935.0, "SbmFairFcfs": 30400.0,
                    "HRFFcfs": 23617.0, "HRFBf": 13309.0}


@claim(FAMILY_NAME, F7, "F7-middle-order", "At middle load the combined ATT orders "
       "SbmGrdyFcfs > SchFairFcfs > SbmFairFcfs > HRFFcfs > HRFBf (sec. 6.3, Fig. 7b)",
       "81,444 > 30,935 > 30,400 > 23,617 > 13,309 s")
def claim_f7_order(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table = tables[F7]
    loads = loads_by_weight(table)
    rows = combined(table, loads[len(loads) // 2])
    missing = [p for p in PAPER_MIDDLE_ATT if p not in rows]
    if missing:
        return Outcome("", NOT_CHECKABLE, f"not run: {', '.join(missing)}")
    ours = [rows[p]["ATT_mean"] for p in PAPER_MIDDLE_ATT]
    holds = all(a > b for a, b in itertools.pairwise(ours))
    return Outcome(" > ".join(f"{p} {v:,.0f}" for p, v in zip(PAPER_MIDDLE_ATT, ours,
                                                              strict=True)),
                   verdict_of(holds), f"load {loads[len(loads) // 2]}; ordering of the means")


@claim(FAMILY_NAME, F7, "F7-middle-values", "Combined ATT values at middle load (Fig. 7b); "
       "absolute values are compared, not required", "SbmGrdyFcfs 81,444; SbmFairFcfs "
       "30,400; SchFairFcfs 30,935; HRFFcfs 23,617; HRFBf 13,309 s")
def claim_f7_values(tables: Mapping[str, pd.DataFrame], settings: Mapping[str, Any]) -> Outcome:
    table = tables[F7]
    loads = loads_by_weight(table)
    rows = combined(table, loads[len(loads) // 2])
    parts = [f"{p} {rows[p]['ATT_mean']:,.0f} (paper x{rows[p]['ATT_mean'] / v:.2f})"
             for p, v in PAPER_MIDDLE_ATT.items() if p in rows]
    return Outcome("; ".join(parts), NOT_CHECKABLE,
                   "informational: absolute values depend on the workload realisation "
                   "(docs/reproduction.md: compare, don't require)")


# ----------------------------------------------------------------------------- figure: HRF-T1


@register_figure("hrf-gantt")
def example_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """Gantt charts of the worked example's strategies (HRF paper, Fig. 3)."""
    import matplotlib

    strategies = list(dict.fromkeys(table["strategy"]))
    with matplotlib.rc_context(STYLE):
        fig, axes = panels(len(strategies), width=3.6, height=2.6)
        for index, (ax, name) in enumerate(zip(axes, strategies, strict=True)):
            part = table[table["strategy"] == name]
            _gantt(ax, part, TABLE1_PROCS)
            chosen = " -- HRF's choice" if str(part["hrf_choice"].iloc[0]) == name else ""
            ax.set_title(f"({PANEL_LETTERS[index]}) strategy {name}: ATT "
                         f"{part['ATT'].iloc[0]:.2f} s (paper {part['paper_ATT'].iloc[0]:g})"
                         f"{chosen}")
        fig.suptitle(f"{spec.target}: worked example, simulated by our engine", fontsize=9)
    return fig


def _gantt(ax: Any, part: pd.DataFrame, procs: int) -> None:
    """Boxes of jobs on processors; each job takes the lowest-numbered free processors."""
    free_at = [0.0] * procs
    for row in part.sort_values(["start", "job"]).itertuples(index=False):
        lanes = [p for p in range(procs) if free_at[p] <= row.start + 1e-9][: int(row.procs)]
        for lane in lanes:
            free_at[lane] = row.end
            ax.barh(lane, row.end - row.start, left=row.start, height=0.8, color="#9ecae1",
                    edgecolor="black", linewidth=0.6)
            ax.text((row.start + row.end) / 2, lane, row.job, ha="center", va="center")
    ax.set_yticks(range(procs), [f"P{p + 1}" for p in range(procs)])
    ax.set_xlabel("time (s)")
    ax.set_xlim(0, float(part["end"].max()) + 1)
