"""Every registered claim can fail (claims.md, "What makes a rule fair": it can fail).

From the tables of the .test configuration (a snapshot in tests/data/claim_tables/,
refreshed by ``python scripts/snapshot_claim_tables.py``), each claim's inputs are built
with the paper's statement reversed: the compared policies swapped, the trend turned
round, the paper's number moved away. The values are imposed on the rows of the
claim's own tables (the same targets, points and replications), with a common
per-replication factor of 1 +- 0.001, so that every imposed difference is significant.
The claim must then be ``contradicted``. A claim without a reversal must be one of the
informational (or not checkable) claims listed here, each for the reason its note gives.

Targets the .test configuration leaves off are stood in for by the target of the same
shape (GOAL-F6 by GOAL-F4, the synthetic months by the months), and a table with fewer
than three replications gets copies of its rows as further replications.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from schedsim import claims
from schedsim.experiments.families import (
    goal,
    goal_claims,
    hrf,
    hrf_claims,  # noqa: F401  (registers the claims)
    ihap,
    ihap_claims,  # noqa: F401
    los,
    los_claims,  # noqa: F401
    slack,
    slack_claims,
)
from schedsim.tables import matches
from schedsim.verdicts import CONTRADICTED, INFORMATIONAL, NOT_CHECKABLE

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "claim_tables"
FAMILIES = ("hrf", "los", "goal", "ihap", "slack")
NOISE = 1e-3
STAND_INS = {goal.F6: goal.F4, goal.F3L: goal.F3, goal.F4L: goal.F4, goal.F6L: goal.F4}
SYNTHETIC = {goal.F3L, goal.F4L, goal.F6L}


@dataclass(frozen=True)
class Impose:
    """Set ``metric`` of the per-replication rows of ``target`` matching ``where``."""

    target: str
    metric: str
    where: Mapping[str, Any]
    value: float | Callable[[Mapping[str, Any]], float]


Reversal = list[Impose] | Callable[[dict[str, pd.DataFrame]], dict[str, pd.DataFrame]]


def const(target: str, metric: str, value: float, **where: Any) -> Impose:
    return Impose(target, metric, where, value)


def slope(target: str, metric: str, x: str, direction: int, **where: Any) -> Impose:
    """``metric`` rising (+1) or falling (-1) with the column ``x``."""
    return Impose(target, metric, where, lambda row: 1000.0 + 100.0 * direction * float(row[x]))


def loser(target: str, metrics: Iterable[str], policy: str, lower_is_better: bool = True,
          **where: Any) -> list[Impose]:
    """Every row at 1000 (or 0.5), ``policy`` clearly worse: 1500 (or 0.25)."""
    good, bad = (1000.0, 1500.0) if lower_is_better else (0.5, 0.25)
    out = []
    for metric in metrics:
        out += [const(target, metric, good, **where),
                const(target, metric, bad, policy=policy, **where)]
    return out


def winner(target: str, metrics: Iterable[str], policy: str, lower_is_better: bool = True,
           **where: Any) -> list[Impose]:
    """Every row at 1000 (or 0.5), ``policy`` clearly better."""
    return loser(target, metrics, policy, not lower_is_better, **where)


def reversed_ranks(target: str, metric: str, order: list[str], **where: Any) -> list[Impose]:
    """The claimed order (best first, lower is better) turned round, 50% steps."""
    return [const(target, metric, 1000.0 * 1.5 ** (len(order) - 1 - i), policy=p, **where)
            for i, p in enumerate(order)]


# --- the tables ---------------------------------------------------------------------------


def snapshot() -> dict[str, pd.DataFrame]:
    tables = {path.name[: -len(".csv")]: pd.read_csv(path) for path in sorted(DATA.glob("*.csv"))}
    for target, source in STAND_INS.items():
        for suffix in ("", ".seeds"):
            frame = tables[f"{source}{suffix}"].assign(target=target)
            if target in SYNTHETIC:
                frame = frame.drop(columns=[c for c in ("month",) if c in frame])
            tables[f"{target}{suffix}"] = frame
    return {name: with_replications(frame) if name.endswith(".seeds") else frame
            for name, frame in tables.items()}


def with_replications(seeds: pd.DataFrame, least: int = 3) -> pd.DataFrame:
    """At least ``least`` replications: copies of the rows under new replication ids."""
    if "seed" not in seeds:
        return seeds  # an example target: no replications
    ids = sorted(seeds["seed"].unique())
    copies = [seeds]
    for extra in range(max(0, least - len(ids))):
        copies.append(seeds.assign(seed=seeds["seed"] + 1000 * (extra + 1)))
    return pd.concat(copies, ignore_index=True)


def factor(seeds: pd.Series) -> pd.Series:
    """1 + NOISE x (+1, -1, +0.5, -0.5, ...) by replication, common to every row."""
    order = {s: i for i, s in enumerate(sorted(seeds.unique()))}
    return seeds.map(lambda s: 1.0 + NOISE * (1 if order[s] % 2 == 0 else -1)
                     / (1 + order[s] // 2))


def apply(tables: dict[str, pd.DataFrame], imposed: Iterable[Impose]) -> dict[str, pd.DataFrame]:
    out = dict(tables)
    touched: dict[str, set[str]] = {}
    for item in imposed:
        name = f"{item.target}.seeds"
        seeds = out[name].copy()
        mask = pd.Series(True, index=seeds.index)
        for column, value in item.where.items():
            mask &= matches(seeds[column], value)
        assert mask.any(), f"no rows of {name} match {dict(item.where)}"
        rows = seeds[mask]
        base = (rows.apply(item.value, axis=1) if callable(item.value)
                else pd.Series(float(item.value), index=rows.index))
        seeds[item.metric] = seeds[item.metric].astype(float)
        seeds.loc[mask, item.metric] = base * factor(seeds["seed"])[mask]
        out[name] = seeds
        touched.setdefault(item.target, set()).add(item.metric)
    for target, metrics in touched.items():
        out[target] = remean(out[target], out[f"{target}.seeds"], metrics)
    return out


def remean(table: pd.DataFrame, seeds: pd.DataFrame, metrics: Iterable[str]) -> pd.DataFrame:
    """``<metric>_mean`` of the table recomputed from the imposed per-replication values."""
    keys = [c for c in table.columns if c in seeds.columns and c not in ("seed", "n_points")]
    wanted = [m for m in metrics if f"{m}_mean" in table]
    if not wanted:
        return table
    means = seeds.groupby(keys, dropna=False, as_index=False, sort=False)[wanted].mean()
    means = means.rename(columns={m: f"{m}_mean" for m in wanted})
    merged = table.drop(columns=[f"{m}_mean" for m in wanted]).merge(means, on=keys,
                                                                     how="left")
    assert len(merged) == len(table)
    return merged[list(table.columns)]


# --- the reversals --------------------------------------------------------------------------


FCFS_POLICIES = ("SbmGrdyFcfs", "SbmFairFcfs", "SchFairFcfs")
BF_POLICIES = ("HRFBf", "SbmGrdyBf", "SbmFairBf", "SchFairBf")


def hrf_t1_off(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    return {**tables, hrf.T1: tables[hrf.T1].assign(ATT=tables[hrf.T1]["ATT"] + 1.0)}


HRF: dict[str, Reversal] = {
    "T1-att": hrf_t1_off,
    "F5-awt-rises": [slope(hrf.F5, "AWT", "alpha", -1)],
    "F5-art-falls": [slope(hrf.F5, "ART", "alpha", +1)],
    "F5-alpha-by-selection": [slope(hrf.F5, "ATT", "alpha", +1, policy="HRFBf"),
                              slope(hrf.F5, "ATT", "alpha", -1, policy="HRFFcfs")],
    "F5-fcfs-heavy-rises": [slope(hrf.F5, "ATT", "alpha", -1, policy="HRFFcfs")],
    "F5-bf-heavier-falls": [slope(hrf.F5, "ATT", "alpha", +1, policy="HRFBf")],
    "F5-fcfs-interior-min": [slope(hrf.F5, "ATT", "alpha", +1)],
    "F5-bf-light-interior-min": [slope(hrf.F5, "ATT", "alpha", +1)],
    "F6-awt-rises": [slope(hrf.F6, "AWT", "threshold", -1)],
    "F6-art-falls": [slope(hrf.F6, "ART", "threshold", +1)],
    "F6-att-stable": [Impose(hrf.F6, "ATT", {}, lambda r: 1000.0 * (1 + r["threshold"]) ** 3)],
    "F6-small-threshold": [slope(hrf.F6, "ART", "threshold", +1)],
    "F7-hrffcfs-best-fcfs": loser(hrf.F7, ["ATT"], "HRFFcfs"),
    "F7-hrfbf-best-bf": loser(hrf.F7, ["ATT"], "HRFBf"),
    "F7-hrfbf-best-overall": loser(hrf.F7, ["ATT"], "HRFBf"),
    "F7-bf-beats-fcfs": [const(hrf.F7, "ATT", 1000.0),
                         *(const(hrf.F7, "ATT", 2000.0, policy=p) for p in BF_POLICIES)],
    "F7-bf-gain-is-wait": [const(hrf.F7, "AWT", 1000.0), const(hrf.F7, "ART", 1000.0),
                           *(const(hrf.F7, "ART", 2000.0, policy=p)
                             for p in ("HRFFcfs", *FCFS_POLICIES))],
    "F7-att-grows-with-load": [slope(hrf.F7, "ATT", "mean_interarrival", +1)],
    "F7-middle-order": reversed_ranks(hrf.F7, "ATT", ["HRFBf", "HRFFcfs", "SbmFairFcfs",
                                                      "SchFairFcfs", "SbmGrdyFcfs"]),
    "F7-sbmgrdy-shortest-art": loser(hrf.F7, ["ART"], "SbmGrdyFcfs"),
    "F7-sbmgrdy-longest-att": winner(hrf.F7, ["ATT"], "SbmGrdyFcfs"),
    "F7-schfair-beats-sbmfair": loser(hrf.F7, ["ATT"], "SchFairFcfs"),
    "F7-schfair-close-middle": loser(hrf.F7, ["ATT"], "SchFairFcfs"),
    "F7-up-to-71": [const(hrf.F7, "ATT", 1000.0)],
    "F7-hrffcfs-shares": [const(hrf.F7, "ATT", 1000.0)],
    "F7-sbmgrdy-times": [const(hrf.F7, "ATT", 1000.0)],
    "F7-hrfbf-half-of-fcfs": [const(hrf.F7, "ATT", 1000.0)],
}

UTIL, WAIT = "utilization", "AWT"


def los_flat_gains(plain: Iterable[str], elastic: str, winners: Iterable[str]) -> list[Impose]:
    """No gain on the non-elastic targets, a large one on the elastic target."""
    out = [const(t, m, 1000.0) for t in plain for m in (WAIT, "slowdown")]
    out += [const(elastic, m, 1000.0) for m in (WAIT, "slowdown")]
    out += [const(elastic, m, 500.0, policy=p) for p in winners for m in (WAIT, "slowdown")]
    return out


def los_no_gain(target: str) -> list[Impose]:
    return [const(target, m, 1000.0) for m in (UTIL, WAIT, "slowdown")]


LOS: dict[str, Reversal] = {
    "F1-los-beats-easy": loser(los.F1, [WAIT], "LOS"),
    "F5-dlos-beats-wait": loser(los.F5, [WAIT], "Delayed-LOS"),
    "F5-dlos-beats-util": loser(los.F5, [UTIL], "Delayed-LOS", lower_is_better=False),
    "F5-cs-knee": [slope(los.F5, WAIT, "c_s", +1, policy="Delayed-LOS")],
    "F5-util-knee": [slope(los.F5, UTIL, "c_s", -1, policy="Delayed-LOS")],
    "F6-dlos-beats-wait": loser(los.F6, [WAIT], "Delayed-LOS"),
    "F6-dlos-beats-util": loser(los.F6, [UTIL], "Delayed-LOS", lower_is_better=False),
    "F7-dlos-best-wait": loser(los.F7, [WAIT], "Delayed-LOS"),
    "F7-dlos-best-util": loser(los.F7, [UTIL], "Delayed-LOS", lower_is_better=False),
    "F7-los-worse-than-easy": [*winner(los.F7, [WAIT], "LOS"),
                               *winner(los.F7, [UTIL], "LOS", lower_is_better=False)],
    "F8-gap-narrows": [const(los.F7, WAIT, 1000.0), const(los.F8, WAIT, 1000.0),
                       Impose(los.F8, WAIT, {"policy": "Delayed-LOS"},
                              lambda r: 1000.0 - 500.0 * (float(r["ps"]) - 0.2))],
    "F8-dlos-close-to-easy": loser(los.F8, [WAIT], "Delayed-LOS"),
    "F8-both-beat-los": winner(los.F8, [WAIT], "LOS"),
    "F9-hybrid-beats-wait": loser(los.F9, [WAIT], "Hybrid-LOS"),
    "F9-hybrid-beats-util": loser(los.F9, [UTIL], "Hybrid-LOS", lower_is_better=False),
    "F10-hybrid-beats-wait": loser(los.F10, [WAIT], "Hybrid-LOS"),
    "F10-hybrid-beats-util": loser(los.F10, [UTIL], "Hybrid-LOS", lower_is_better=False),
    "F11-e-ordering": [*loser(los.F11, [WAIT], "Delayed-LOS-E"),
                       const(los.F11, WAIT, 1500.0, policy="Hybrid-LOS-E")],
    "F11-smaller-gains": los_flat_gains((los.F7, los.F9), los.F11,
                                        ("Delayed-LOS-E", "Hybrid-LOS-E")),
    "F11-smaller-gains-like-for-like": los_flat_gains((los.F8,), los.F11, ("Delayed-LOS-E",)),
    **{f"{t[4:]}-mean-size": [const(t, "mean_size", 1.0)]
       for t in (los.F5, los.F6, los.F7, los.F9)},
    "N10K-like-500": [Impose(los.N10K, WAIT, {},
                             lambda r: 2000.0 if "_n" in str(r["workload"]) else 1000.0)],
    "T4-magnitude": los_no_gain(los.F7),
    "T5-magnitude": los_no_gain(los.F9),
    "T6-magnitude": los_no_gain(los.F11),
    "T7-magnitude": los_no_gain(los.F11),
}

FCFS, LXF, GOAL, IDEA1 = goal.FCFS, goal.LXF, goal.GOAL, goal.IDEA1
PART = [f"p{p}_{m}" for p in (1, 2) for m in ("max_wait", "mean_wait", "mean_bsld")]


def goal_flipped(target: str, cases: Iterable[tuple[str, str, str]]) -> list[Impose]:
    """Per (metric, claimed better, claimed worse): the claimed better one clearly worse."""
    out = []
    for metric, better, worse in cases:
        out += [const(target, metric, 1000.0, policy=worse),
                const(target, metric, 1500.0, policy=better)]
    return out


GOAL_RULES: dict[str, Reversal] = {
    "F3-idea2-beats-idea1": loser(goal.F3, ["max_wait", "AWT"], GOAL),
    "F3-bsld-like-awt": loser(goal.F3, ["BSLD"], GOAL),
    "F3-idea1-cut-more": winner(goal.F3, ["search_stopped_share"], IDEA1),
    "F4-fcfs-best-max": goal_flipped(goal.F4, [("max_wait", FCFS, LXF)]),
    "F4-lxf-best-averages": goal_flipped(goal.F4, [(m, LXF, FCFS)
                                                   for m in ("AWT", "BSLD", "long_waits")]),
    "F4-goal-near-best": loser(goal.F4, goal.F4_METRICS, GOAL),
    "F5-partition-trends": goal_flipped(goal.F4, [(f"p{p}_{m}", b, w) for p in (1, 2)
                                                  for m, b, w in goal_claims.PARTITION_BEST]),
    "F5-partition-goal-near-best": loser(goal.F4, PART, GOAL),
    "F6-fcfs-best-max": goal_flipped(goal.F6, [("max_wait", FCFS, LXF)]),
    "F6-lxf-best-bsld": goal_flipped(goal.F6, [("BSLD", LXF, FCFS)]),
    "F6-goal-near-best": loser(goal.F6, goal_claims.F6_METRICS, GOAL),
    "F6-awt-like-bsld": goal_flipped(goal.F6, [("AWT", LXF, FCFS)]),
    "F7-partition-trends": goal_flipped(goal.F6, [("p1_mean_bsld", LXF, FCFS),
                                                  ("p2_mean_bsld", LXF, FCFS),
                                                  ("p2_max_wait", FCFS, LXF)]),
    "T2-backfill-more-on-p1": [const(goal.F4, "p1_jobs", 100.0),
                               const(goal.F4, "p2_jobs", 200.0)],
    "T2-backfill-larger-on-p2": [const(goal.F4, "p1_node_hours", 20.0),
                                 const(goal.F4, "p2_node_hours", 10.0)],
    "T2-goal-even": [const(goal.F4, "p1_jobs", 100.0, policy=GOAL),
                     const(goal.F4, "p2_jobs", 300.0, policy=GOAL)],
    **{f"T2-p1-share-{name}": [const(goal.F4, "p1_jobs", 0.0)]
       for name in ("fcfs", "lxf", "goal")},
    "F3L-idea2-beats-idea1": loser(goal.F3L, ["max_wait", "AWT"], GOAL),
    "F4L-fcfs-best-max": goal_flipped(goal.F4L, [("max_wait", FCFS, LXF)]),
    "F4L-lxf-best-averages": goal_flipped(goal.F4L, [(m, LXF, FCFS)
                                                     for m in ("AWT", "BSLD", "long_waits")]),
    "F4L-goal-near-best": loser(goal.F4L, goal.F4_METRICS, GOAL),
    "F6L-goal-near-best": loser(goal.F6L, goal_claims.F6_METRICS, GOAL),
}


def ihap_steeper(target: str, x: str) -> list[Impose]:
    """IHAP's MRT grows most with the swept CV."""
    return [const(target, "MRT", 1.0), slope(target, "MRT", x, +1, policy=ihap.IHAP)]


def ihap_noisy(target: str) -> list[Impose]:
    """Batch means that spread by +-50%: no 5% relative error."""
    return [Impose(target, "MRT", {}, lambda r: 1.0 + 0.5 * (1 if int(r["seed"]) % 2 else -1))]


IHAP: dict[str, Reversal] = {
    "F1-ihap-best-medium-high": loser(ihap.F1, ["MRT"], ihap.IHAP),
    "F1-ihap-less-power": loser(ihap.F1, ["power"], ihap.IHAP),
    "F1-hap-map-wait-longer": loser(ihap.F1, ["AWT"], ihap.IHAP),
    "F1-bigger-partitions-low": loser(ihap.F1, ["procs_per_job"], ihap.IHAP),
    "F2-mrt-rises": [slope(ihap.F2, "MRT", "cva", -1)],
    "F3-mrt-rises": [slope(ihap.F3, "MRT", "cvs", -1)],
    "F2-ihap-best": loser(ihap.F2, ["MRT"], ihap.IHAP),
    "F3-ihap-best": loser(ihap.F3, ["MRT"], ihap.IHAP),
    "F2-ihap-least-sensitive": ihap_steeper(ihap.F2, "cva"),
    "F3-ihap-least-sensitive": ihap_steeper(ihap.F3, "cvs"),
    "F1-relative-error": ihap_noisy(ihap.F1),
    "F2-relative-error": ihap_noisy(ihap.F2),
    "F3-relative-error": ihap_noisy(ihap.F3),
}

RR = ("RR_long", "RR_medium", "RR_all")


def slack_worse(target: str, **where: Any) -> list[Impose]:
    """Slack-based backfilling worse than the original in every class."""
    return [*(const(target, m, 1.0, **where) for m in RR),
            *(const(target, m, 2.0, policy=slack.SLACK, **where) for m in RR)]


def slack_gain_by_load(target: str, gain: Callable[[float], float]) -> list[Impose]:
    """The original at 1, slack-based backfilling at 1 - gain(aarr) (all jobs)."""
    return [const(target, "RR_all", 1.0),
            Impose(target, "RR_all", {"policy": slack.SLACK},
                   lambda r: 1.0 - gain(float(r["aarr"])))]


def slack_param(target: str, param: str, default: float) -> list[Impose]:
    return [Impose(target, "RR_all", {},
                   lambda r: 1.0 if abs(float(r[param]) - default) < 1e-9 else 2.0)]


SLACK: dict[str, Reversal] = {
    "F9-g1-improvement": slack_worse(slack.F9),
    "F9-g2-improvement": slack_worse(slack.F9),
    "F9-g2-over-g1": [const(slack.F9, "RR_all", 1.0),
                      const(slack.F9, "RR_all", 2.0, policy=slack.SLACK, goal="G2")],
    "F9-fairness-counts": [const(slack.F9, m, 0.0) for m in slack_claims.PAPER_FAIRNESS],
    "F9-unfair-medium": [const(slack.F9, "unfair_medium", 0.0)],
    "T2-workload": [const(slack.F9, m, 0.0) for m in slack_claims.PAPER_TABLE2],
    "F9-long-medium-similar": [const(slack.F9, "RR_long", 2.0, policy=slack.ORIGINAL),
                               const(slack.F9, "RR_long", 1.0, policy=slack.SLACK),
                               const(slack.F9, "RR_medium", 1.0)],
    "F11-lookahead-flattens": [slope(slack.F11, "RR_all", "lookahead", +1)],
    "F15-slack-up": [slope(slack.F15, "RR_all", "slack_up", +1)],
    "T4-utilization-order": [slope(slack.T4, "utilization", "aarr", +1)],
    "F17-smaller-at-light-load": slack_gain_by_load(slack.F17,
                                                    lambda a: 0.0 if a == 10.05 else 0.5),
    "F17-light-values": slack_worse(slack.F17),
    "F17-w4-values": slack_worse(slack.F17),
    "F17-every-load": slack_worse(slack.F17),
    "F23-w2-over-w4": slack_gain_by_load(slack.F17, lambda a: 0.0 if a == 10.33 else 0.5),
    **{f"{t[6:]}-insensitive": slack_param(t, p, d) for t, p, d in slack_claims.OTHER_PARAMS},
}

REVERSALS = {"hrf": HRF, "los": LOS, "goal": GOAL_RULES, "ihap": IHAP, "slack": SLACK}

# Claims not judged, each for the reason its note gives (claims.md: "a statement whose
# check cannot fail ... is informational"; "not checkable": the data cannot be produced).
UNJUDGED = {
    "hrf": {"T1-hrf-picks-A", "F7-middle-values"},
    "los": {"F6-cs-insensitive", "F9-dedicated-on-time", "F10-dedicated-on-time",
            "F11-dedicated-on-time", "F11-elastic-running-share", "F7-cs-chosen",
            "F8-cs-chosen", "F9-cs-chosen", "F10-cs-chosen", "F11-cs-chosen",
            "T4-max-of-means", "T5-max-of-means", "T6-max-of-means", "T7-max-of-means"},
    "goal": {"F3-idea2-every-month", "F3-gap-busiest", "F3-gap-dec-jan", "F4-every-month",
             "F4-search-time", "F6-every-month", "F6-jan-fcfs-max", "F8-limit-helps",
             "F8-p2-not-worse", "T1-months"},
    "ihap": {"F1-low-utilization", "F1-fpfs-share"},
    "slack": {"F6-slack-factor", "F9-plain-machine", "F9-run-time-cost", "F15-flat-beyond",
              "T4-utilization-values"},
}


@functools.cache
def settings() -> dict[str, dict[str, Any]]:
    config = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
    return {family: dict(config[family].get("claims") or {}) for family in FAMILIES}


@pytest.fixture(scope="module")
def tables() -> dict[str, pd.DataFrame]:
    return snapshot()


CASES = [(family, entry.claim_id) for family in FAMILIES for entry in claims.registered(family)]


@pytest.mark.parametrize(("family", "claim_id"), CASES)
def test_every_claim_can_fail(tables: dict[str, pd.DataFrame], family: str,
                              claim_id: str) -> None:
    entry = next(c for c in claims.registered(family) if c.claim_id == claim_id)
    claimed = settings()[family]
    as_run = entry.evaluate(tables, claimed)
    if claim_id in UNJUDGED[family]:
        assert as_run.verdict in (INFORMATIONAL, NOT_CHECKABLE), as_run
        assert as_run.note, "an unjudged claim says why"
        assert claim_id not in REVERSALS[family]
        return
    assert as_run.verdict not in (INFORMATIONAL, NOT_CHECKABLE), (
        f"{claim_id} is not judged on the .test tables: {as_run.note}")
    reversal = REVERSALS[family][claim_id]
    reversed_tables = reversal(tables) if callable(reversal) else apply(tables, reversal)
    judged = entry.evaluate(reversed_tables, claimed)
    assert judged.verdict == CONTRADICTED, judged


def test_every_claim_is_listed_once() -> None:
    for family in FAMILIES:
        ids = [entry.claim_id for entry in claims.registered(family)]
        assert len(ids) == len(set(ids))
        assert set(REVERSALS[family]) | UNJUDGED[family] == set(ids), family
        assert not set(REVERSALS[family]) & UNJUDGED[family]


def test_the_snapshot_has_every_target_the_claims_need() -> None:
    found = snapshot()
    for family in FAMILIES:
        for entry in claims.registered(family):
            for target in entry.needs:
                assert target in found and f"{target}.seeds" in found, target


def test_imposed_values_are_exact_up_to_the_common_factor(
        tables: dict[str, pd.DataFrame]) -> None:
    out = apply(tables, [const(hrf.F7, "ATT", 1000.0), const(hrf.F7, "ATT", 2000.0,
                                                             policy="HRFBf")])
    seeds = out[f"{hrf.F7}.seeds"]
    ratio = (seeds[seeds["policy"] == "HRFBf"].set_index(["load", "seed"])["ATT"]
             / seeds[seeds["policy"] == "HRFFcfs"].set_index(["load", "seed"])["ATT"])
    assert (abs(ratio - 2.0) < 1e-12).all()
    assert math.isclose(float(out[hrf.F7].query("policy == 'HRFBf'")["ATT_mean"].iloc[0]),
                        2000.0, rel_tol=NOISE)
