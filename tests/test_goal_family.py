"""The GOAL family: its claims on per-month tables whose verdicts are known by
construction, its derived tables, and its plan (shared runs, months as replications)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedsim.experiments.families import goal, goal_claims
from schedsim.verdicts import (
    CONTRADICTED,
    INCONCLUSIVE,
    INFORMATIONAL,
    REPRODUCED,
    Judgement,
)

ROOT = Path(__file__).resolve().parents[1]
MONTHS = (200306, 200307, 200308, 200309, 200310, 200311, 200312, 200401, 200402, 200403)


def seeds_table(values: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    """policy -> metric -> one value per month."""
    rows = []
    for policy, metrics in values.items():
        count = len(next(iter(metrics.values())))
        for i in range(count):
            rows.append({"policy": policy, "workload": "HPC2N", "seed": i + 1,
                         "month": float(MONTHS[i]), **{m: v[i] for m, v in metrics.items()}})
    return pd.DataFrame(rows)


def tables(target: str, values: dict[str, dict[str, list[float]]]) -> dict[str, pd.DataFrame]:
    seeds = seeds_table(values)
    return {target: seeds, f"{target}.seeds": seeds}


def wobble(base: float, count: int = 10) -> list[float]:
    return [base * (1 + 0.01 * ((i * 7) % 5 - 2)) for i in range(count)]


def check(claim_id: str, data: dict[str, pd.DataFrame], settings: dict | None = None) -> str:
    return check_judgement(claim_id, data, settings).verdict


def check_judgement(claim_id: str, data: dict[str, pd.DataFrame],
                    settings: dict | None = None) -> Judgement:
    from schedsim.claims import registered

    entry = next(c for c in registered("goal") if c.claim_id == claim_id)
    return entry.evaluate(data, settings or {})


def test_paper_shares_of_partition_one() -> None:
    # The spec's means over the paper's ten months (Table 2).
    assert round(goal.paper_p1_share(goal.FCFS), 3) == 0.669
    assert round(goal.paper_p1_share(goal.LXF), 3) == 0.652
    assert round(goal.paper_p1_share(goal.GOAL), 3) == 0.521


def test_fcfs_best_max_wait_both_ways() -> None:
    good = tables(goal.F4, {goal.FCFS: {"max_wait": wobble(100)},
                            goal.LXF: {"max_wait": wobble(200)}})
    bad = tables(goal.F4, {goal.FCFS: {"max_wait": wobble(300)},
                           goal.LXF: {"max_wait": wobble(200)}})
    assert check("F4-fcfs-best-max", good) == REPRODUCED
    assert check("F4-fcfs-best-max", bad) == CONTRADICTED


@pytest.mark.parametrize("factor, verdict", [(0.5, REPRODUCED), (1.02, REPRODUCED),
                                             (1.5, CONTRADICTED)])
def test_goal_best_or_close(factor: float, verdict: str) -> None:
    """At or below the best backfill, or within 10% of it; 50% worse contradicts."""
    metrics = goal_claims.F6_METRICS
    data = tables(goal.F6, {goal.FCFS: {m: wobble(100) for m in metrics},
                            goal.LXF: {m: wobble(120) for m in metrics},
                            goal.GOAL: {m: [v * factor for v in wobble(100)] for m in metrics}})
    assert check("F6-goal-near-best", data, {"near_best_tolerance": 0.10}) == verdict


def test_goal_close_to_the_best_is_close_to_each_backfill() -> None:
    """LXF-backfill best: 15% above it is not close to the best, though within 10% of
    FCFS-backfill's; no best is picked from the means."""
    metrics = goal_claims.F6_METRICS
    data = tables(goal.F6, {goal.FCFS: {m: wobble(120) for m in metrics},
                            goal.LXF: {m: wobble(100) for m in metrics},
                            goal.GOAL: {m: wobble(115) for m in metrics}})
    assert check("F6-goal-near-best", data, {"near_best_tolerance": 0.10}) == CONTRADICTED


def test_a_policy_not_run_makes_the_claim_not_checkable() -> None:
    data = tables(goal.F4, {goal.FCFS: {"max_wait": wobble(100)}})
    assert check("F4-fcfs-best-max", data) == "not checkable"


def test_gap_in_the_busiest_months_is_reported_not_judged() -> None:
    """One run per month: the gap has no interval, so the claim is informational; the
    busiest months are the log's months with the most jobs (a workload property)."""
    jobs = [1000.0] * 10
    jobs[6], jobs[7] = 5000.0, 4000.0
    idea1 = {"max_wait": wobble(100), "AWT": wobble(100), "month_jobs": jobs}
    idea2 = {"max_wait": wobble(100), "AWT": wobble(100), "month_jobs": jobs}
    for metric in ("max_wait", "AWT"):
        idea2[metric] = [v - (50 if i == 7 else 1) for i, v in enumerate(idea2[metric])]
    found = check_judgement("F3-gap-busiest", tables(goal.F3, {goal.IDEA1: idea1,
                                                               goal.GOAL: idea2}))
    assert found.verdict == INFORMATIONAL
    assert "AWT: months by gap 2004-01," in found.ours
    assert "(a workload property): 2003-12, 2004-01" in found.note
    assert check("F3-gap-dec-jan", tables(goal.F3, {goal.IDEA1: idea1,
                                                    goal.GOAL: idea2})) == INFORMATIONAL


def test_idea1_searches_cut_more_often() -> None:
    """Sec. 4.1's reason: idea 1's searches stop at the node limit more often."""
    idea2 = {"search_stopped_share": wobble(0.1)}
    more = tables(goal.F3, {goal.IDEA1: {"search_stopped_share": wobble(0.3)},
                            goal.GOAL: idea2})
    less = tables(goal.F3, {goal.IDEA1: {"search_stopped_share": wobble(0.05)},
                            goal.GOAL: idea2})
    assert check("F3-idea1-cut-more", more) == REPRODUCED
    assert check("F3-idea1-cut-more", less) == CONTRADICTED


def test_idea2_must_beat_idea1_not_only_tie() -> None:
    tie = tables(goal.F3, {goal.IDEA1: {"max_wait": wobble(100), "AWT": wobble(100)},
                           goal.GOAL: {"max_wait": wobble(100), "AWT": wobble(100)}})
    assert check("F3-idea2-beats-idea1", tie) == INCONCLUSIVE
    better = tables(goal.F3, {goal.IDEA1: {"max_wait": wobble(100), "AWT": wobble(100)},
                              goal.GOAL: {"max_wait": wobble(90), "AWT": wobble(90)}})
    assert check("F3-idea2-beats-idea1", better) == REPRODUCED


def test_partition_claims_and_table() -> None:
    data = tables(goal.F4, {
        policy: {"jobs": [100.0] * 10, "p1_jobs": wobble(p1), "p2_jobs": wobble(100 - p1),
                 "p1_node_hours": wobble(size1), "p2_node_hours": wobble(size2)}
        for policy, p1, size1, size2 in ((goal.FCFS, 67, 10, 30), (goal.LXF, 65, 11, 29),
                                         (goal.GOAL, 50, 20, 20))})
    assert check("T2-backfill-more-on-p1", data) == REPRODUCED
    assert check("T2-backfill-larger-on-p2", data) == REPRODUCED
    assert check("T2-goal-even", data, {"even_tolerance": 0.25}) == REPRODUCED
    from schedsim.experiments.spec import FigureSpec, TargetSpec

    spec = TargetSpec("goal", goal.T2, "derived", FigureSpec("table"), sources=(goal.F4,))
    table = goal.partitions(spec, data)
    row = table[(table["policy"] == goal.GOAL) & (table["month"] == "2004-01")].iloc[0]
    assert row["paper_p1_jobs"] == 1692 and row["paper_p2_jobs"] == 1464
    assert row["p1_share"] == pytest.approx(row["p1_jobs"] / 100)


def test_node_limit_claims_are_reported() -> None:
    """One month: no difference has an interval, so the claims cannot fail: informational,
    on partition 1 (Fig. 8a) and partition 2 (Fig. 8b)."""
    rows = [{"policy": goal.GOAL, "workload": "HPC2N", "seed": 1, "node_limit": float(limit),
             "p1_max_wait": 1000.0 / limit, "p2_max_wait": 10.0}
            for limit in (2000, 4000, 8000)]
    frame = pd.DataFrame(rows)
    data = {goal.F8: frame, f"{goal.F8}.seeds": frame}
    found = check_judgement("F8-limit-helps", data)
    assert found.verdict == INFORMATIONAL
    assert found.ours.startswith("p1_max_wait L 2000: 0") and "rho -1.00" in found.ours
    assert check_judgement("F8-p2-not-worse", data).ours.startswith("p2_max_wait")


# ----------------------------------------------------------------------------- the plan


def full_config() -> dict:
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def test_the_goal_plan_shares_runs_and_labels_months() -> None:
    from schedsim.experiments.plan import build_plan

    config = full_config()
    for name in ("hrf", "los"):
        config[name]["enabled"] = False
    if not (ROOT.parent / "shared" / "traces" / "HPC2N-2002-2.1-cln.swf.gz").exists():
        pytest.skip("the HPC2N log is not on this machine")
    config["traces"]["search"] = [str(ROOT.parent / "shared" / "traces")]
    plan = build_plan(config, ROOT)
    f3, f4 = plan.inputs_of["GOAL-F3"], plan.inputs_of["GOAL-F4"]
    assert [p for p in f3 if "/goal-oriented/" in p] == [p for p in f4 if "/goal-oriented/" in p]
    spec = plan.targets["GOAL-F4"]
    assert spec.seed_unit == "months" and spec.seed_labels["8"] == "2004-01"
    point = plan.points[f4[0]]
    assert point.model == "swf-month" and point.trace is None
    assert point.workloads["1"] == "results/workloads/goal/HPC2N_2003-06/seed1.swf"
    assert point.machine.partitions == (64, 64) and len(point.seeds) == 10
    # each month is cut once, from the log, and shared by every target that runs it
    month = plan.workloads["results/workloads/goal/HPC2N_2004-01/seed1.swf"]
    assert month["model"] == "swf-month" and month["params"]["month"] == "2004-01"
    assert month["input"].endswith("HPC2N-2002-2.1-cln.swf.gz")
    f8 = plan.points[plan.inputs_of["GOAL-F8"][0]]
    assert f8.workloads == {"1": "results/workloads/goal/HPC2N_2004-01/seed1.swf"}
    assert plan.points[plan.inputs_of["GOAL-F6"][0]].machine.partitions == (32, 64)
    f8 = [plan.points[p] for p in plan.inputs_of["GOAL-F8"]]
    assert sorted(p.params.get("node_limit", 0) for p in f8) == [
        0, 0, 2000, 4000, 8000, 16000, 32000, 64000, 128000]
    assert plan.targets["GOAL-F4L"].seed_unit == "seeds"
