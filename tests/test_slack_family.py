"""The SLACK family: per-class relative response times of a hand-made schedule, claims on
per-seed tables whose verdicts are known by construction, the reading that overrides a
claim setting, the plan of the configs and the F6 table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedsim.claims import registered, sensitivity
from schedsim.engine import simulate
from schedsim.experiments.families import slack, slack_claims  # noqa: F401  (its claims)
from schedsim.experiments.families.slack_measure import relative_responses, workload_shares
from schedsim.experiments.measure import SeedWorkload, find_measure
from schedsim.experiments.plan import build_plan
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy
from schedsim.verdicts import CONTRADICTED, REPRODUCED

ROOT = Path(__file__).resolve().parents[1]
SEEDS = (71, 3, 7, 13, 23, 31, 35, 70, 73, 99, 103)


def test_relative_responses_per_class_by_hand() -> None:
    """Machine of 2: a long job (estimate 20,000 s) runs 0..20,000; a medium job of 1,000 s
    and a short job of 5 s arrive at 0 and wait for it under FCFS-like conservative
    backfilling on 2 processors (each needs 2). RR = response / max(run, tau)."""
    jobs = [Job(1, 0.0, 20_000.0, 2, 20_000.0), Job(2, 0.0, 1_000.0, 2, 1_000.0),
            Job(3, 0.0, 5.0, 2, 5.0)]
    machine = Machine(2)
    schedule = simulate(jobs, machine, make_policy("conservative", {}, machine))
    got = relative_responses(schedule)
    assert got["RR_long"] == 1.0
    assert got["RR_medium"] == pytest.approx(21_000 / 1_000)
    assert got["RR_short"] == pytest.approx(21_005 / 10)  # tau 10 s: max(5, 10)
    assert got["RR60_short"] == pytest.approx(21_005 / 60)
    assert got["RR_all"] == pytest.approx((1.0 + 21.0 + 2_100.5) / 3)


def test_workload_shares_by_hand() -> None:
    """Table 2's characteristics of the jobs above plus a serial and a 3-processor job:
    classes by run time, work = processors x run time, power-of-two among parallel jobs."""
    jobs = [Job(1, 0.0, 20_000.0, 2, 20_000.0), Job(2, 0.0, 1_000.0, 2, 1_000.0),
            Job(3, 0.0, 5.0, 2, 5.0), Job(4, 0.0, 5.0, 1, 5.0), Job(5, 0.0, 700.0, 3, 700.0)]
    machine = Machine(4)
    got = workload_shares(simulate(jobs, machine, make_policy("conservative", {}, machine)))
    work = 40_000 + 2_000 + 10 + 5 + 2_100
    assert got["jobs_long"] == pytest.approx(1 / 5) and got["jobs_medium"] == pytest.approx(2 / 5)
    assert got["jobs_short"] == pytest.approx(2 / 5)
    assert got["work_long"] == pytest.approx(40_000 / work)
    assert got["work_short"] == pytest.approx(15 / work)
    assert got["serial"] == pytest.approx(1 / 5)
    assert got["power_of_two"] == pytest.approx(3 / 4)


def test_scojo_slack_counts_unfair_jobs_per_class() -> None:
    """The unfair jobs of each class's selector add up to the run's unfair count, the same
    from the compiled run and the Python policy (seed 1: unfair jobs in every class)."""
    import random

    rng = random.Random(1)
    jobs, submit = [], 0.0
    for i in range(300):
        submit += rng.expovariate(1 / 200)
        runtime = rng.choice([50, 300, 2000, 20000]) * rng.uniform(0.5, 1.5)
        jobs.append(Job(i, submit, runtime, rng.choice([1, 2, 4, 8, 16, 32]),
                        runtime * rng.uniform(1, 3)))
    machine = Machine(32)
    got = simulate(jobs, machine, make_policy("scojo-slack", {}, machine)).statistics
    assert got["unfair"] == got["unfair_short"] + got["unfair_medium"] + got["unfair_long"]
    assert min(got["unfair_short"], got["unfair_medium"], got["unfair_long"]) > 0
    python = make_policy("scojo-slack", {"compiled": False}, machine)
    assert simulate(jobs, machine, python).statistics == got
    plain = make_policy("scojo-conservative", {}, machine)
    assert "unfair_medium" not in simulate(jobs, machine, plain).statistics


def test_slack_runs_report_fairness_counts() -> None:
    """The family's run metrics include sec. 5.4's counts for a slack policy (a job that
    backfills ahead of its fair start is preferential) and none for conservative."""
    jobs = [Job(0, 0.0, 100.0, 4, 100.0), Job(1, 1.0, 50.0, 8, 50.0),
            Job(2, 2.0, 10.0, 1, 10.0)]
    machine = Machine(8)
    measure = find_measure(slack.FAMILY.measure)
    policy = make_policy("slack-backfill", {}, machine)
    got = measure.metrics(simulate(jobs, machine, policy, check=True), SeedWorkload(jobs))
    assert {"unfair", "preferential", "nodes_per_call", "bound_hits", "RR_all"} <= set(got)
    assert got["unfair"] + got["preferential"] <= 3
    plain = make_policy("conservative", {}, machine)
    assert "unfair" not in measure.metrics(simulate(jobs, machine, plain), SeedWorkload(jobs))


def test_the_slack_factor_table_has_the_thesis_values() -> None:
    table = slack.slack_factor_table()
    marked = table[table["paper"].notna()]
    assert list(marked["wait_s"]) == [5_000.0, 65_000.0, 125_000.0]
    assert (marked["slack_factor"] - marked["paper"]).abs().max() < 0.01


# -- claims on constructed tables ------------------------------------------------------------


def seeds_table(improvements: dict[tuple[float, str], float | dict[str, float]],
                base: float = 10.0, spread: float = 0.2) -> pd.DataFrame:
    """Per (aarr, goal): the original's RR is ``base`` (+ a per-seed wobble), the slack
    policy's is ``improvement`` % lower (one value, or one per class)."""
    rows = []
    for number, seed in enumerate(SEEDS):
        wobble = spread * ((number * 7) % 5 - 2)
        for aarr in sorted({a for a, _ in improvements}):
            original = base + wobble
            rows.append(row("scojo-conservative", aarr, None, seed, original))
            for (a, goal), percent in improvements.items():
                if a == aarr:
                    per_class = percent if isinstance(percent, dict) else {}
                    value = {k: original * (1 - (per_class.get(k, percent if not per_class
                                                               else 0.0) + 0.1 * wobble)
                                            / 100) for k in slack.CLASSES}
                    rows.append(row("scojo-slack", aarr, goal, seed, value))
    return pd.DataFrame(rows)


def row(policy: str, aarr: float, goal: str | None, seed: int,
        value: float | dict[str, float]) -> dict:
    out = {"policy": policy, "aarr": aarr, "goal": goal, "seed": seed,
           "utilization": 1.0 / aarr}
    for prefix in slack.TAUS:
        for klass in slack.CLASSES:
            out[f"{prefix}_{klass}"] = value[klass] if isinstance(value, dict) else value
    return out


def check(claim_id: str, tables: dict[str, pd.DataFrame], settings: dict | None = None) -> str:
    entry = next(c for c in registered("slack") if c.claim_id == claim_id)
    return entry.evaluate(tables, settings or {}).verdict


def f9_tables(g1: float, g2: float) -> dict[str, pd.DataFrame]:
    return {"SLACK-F9": pd.DataFrame(),
            "SLACK-F9.seeds": seeds_table({(10.23, "G1"): g1, (10.23, "G2"): g2})}


def test_f9_improvement_reproduced_near_the_paper_and_contradicted_when_worse() -> None:
    assert check("F9-g1-improvement", f9_tables(8.5, 9.0)) == CONTRADICTED  # 10.49 outside
    assert check("F9-g1-improvement", f9_tables(-5.0, -5.0)) == CONTRADICTED
    paper = {(10.23, goal): dict(values) for goal, values in slack.PAPER_F9.items()}
    data = {"SLACK-F9": pd.DataFrame(), "SLACK-F9.seeds": seeds_table(paper, spread=2.0)}
    assert check("F9-g1-improvement", data) == REPRODUCED
    assert check("F9-g2-improvement", data) == REPRODUCED


def test_g2_over_g1() -> None:
    assert check("F9-g2-over-g1", f9_tables(5.0, 8.0)) == REPRODUCED
    assert check("F9-g2-over-g1", f9_tables(8.0, 5.0)) == CONTRADICTED


def test_f17_smaller_at_light_load() -> None:
    cases = {(10.05, "G1"): 6.0, (10.05, "G2"): 6.0, (10.43, "G1"): 4.0,
             (10.43, "G2"): 4.0, (10.73, "G1"): 3.5, (10.73, "G2"): 3.5}
    data = {"SLACK-F17": pd.DataFrame(), "SLACK-F17.seeds": seeds_table(cases)}
    assert check("F17-smaller-at-light-load", data) == REPRODUCED
    reversed_cases = {k: (9.5 - v) for k, v in cases.items()}
    data = {"SLACK-F17": pd.DataFrame(), "SLACK-F17.seeds": seeds_table(reversed_cases)}
    assert check("F17-smaller-at-light-load", data) == CONTRADICTED


def test_t4_ordering() -> None:
    seeds = seeds_table({(a, "G1"): 5.0 for a in (10.05, 10.33, 10.43, 10.73)})
    data = {"SLACK-T4": pd.DataFrame(), "SLACK-T4.seeds": seeds}
    assert check("T4-utilization-order", data) == REPRODUCED  # 1/aarr falls with aarr
    seeds["utilization"] = seeds["aarr"] / 20
    assert check("T4-utilization-order", data) == CONTRADICTED


def curve_table(param: str, means: dict[float, float]) -> pd.DataFrame:
    rows = []
    for number, seed in enumerate(SEEDS):
        wobble = 0.05 * ((number * 7) % 5 - 2)
        for goal in ("G1", "G2"):
            for aarr in (10.23, 10.33):
                for x, mean in means.items():
                    out = row("scojo-slack", aarr, goal, seed, mean + wobble)
                    out[param] = x
                    rows.append(out)
    return pd.DataFrame(rows)


def test_f11_flattens_and_f15_falls_then_flattens() -> None:
    flat = {5.0: 12.0, 10.0: 11.0, 20.0: 10.0, 30.0: 10.0, 50.0: 10.0}
    data = {"SLACK-F11": pd.DataFrame(), "SLACK-F11.seeds": curve_table("lookahead", flat)}
    assert check("F11-lookahead-flattens", data) == REPRODUCED
    rising = {5.0: 10.0, 10.0: 11.0, 20.0: 12.0, 30.0: 12.0, 50.0: 12.0}
    data = {"SLACK-F11": pd.DataFrame(), "SLACK-F11.seeds": curve_table("lookahead", rising)}
    assert check("F11-lookahead-flattens", data) == CONTRADICTED
    ups = {1.0: 12.0, 1.1: 11.6, 1.2: 11.2, 1.3: 10.8, 1.4: 10.4, 1.5: 10.0, 1.6: 10.0}
    data = {"SLACK-F15": pd.DataFrame(), "SLACK-F15.seeds": curve_table("slack_up", ups)}
    assert check("F15-slack-up", data) == REPRODUCED


def test_a_reading_can_change_the_tau_a_claim_reads() -> None:
    """The tau-60 reading judges the same runs on the RR60 columns."""
    seeds = seeds_table({(10.23, "G1"): 2.0, (10.23, "G2"): 8.0})
    better_g1_at_60 = seeds_table({(10.23, "G1"): 8.0, (10.23, "G2"): 2.0})
    for prefix_col in [c for c in seeds.columns if c.startswith("RR60_")]:
        seeds[prefix_col] = better_g1_at_60[prefix_col]
    tables = {"SLACK-F9": pd.DataFrame(), "SLACK-F9.seeds": seeds,
              "SLACK-F9@tau-60": pd.DataFrame(), "SLACK-F9@tau-60.seeds": seeds}
    readings = {"tau-60": {"about": "tau 60", "targets": {"SLACK-F9": "SLACK-F9@tau-60"},
                           "claims": {"tau": 60}}}
    table = sensitivity("slack", tables, {"tau": 10}, readings)
    rows = table[table["claim_id"] == "F9-g2-over-g1"].set_index("reading")["verdict"]
    assert rows["default"] == REPRODUCED and rows["tau-60"] == CONTRADICTED


@pytest.mark.parametrize("config", ["config/config.yaml", ".test/config/config.yaml"])
def test_the_configs_plan_every_slack_target(config: str) -> None:
    plan = build_plan(yaml.safe_load((ROOT / config).read_text()), base=ROOT)
    for target in ("SLACK-F6", "SLACK-F9", "SLACK-F11", "SLACK-F15", "SLACK-T4",
                   "SLACK-F17"):
        assert target in plan.targets
    points = [p for p in plan.points.values() if p.family == "slack"]
    # SLACK-T4 and SLACK-F17 share their runs of the original scheduler
    shared = {p.run_path for p in points if p.policy == "scojo-conservative"
              and p.variant == "aarr10.05" and p.target in ("SLACK-T4", "SLACK-F17")}
    assert len(shared) == 1
    assert all(p.machine.procs == 128 for p in points)
