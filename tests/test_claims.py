"""Claim checks on synthetic aggregated tables: every verdict is reachable.

The tables have the columns ``results/tables/<target>.csv`` has (see
schedsim.experiments.cli.aggregate_table): policy, load, mean_interarrival, the
swept parameters, and ``<metric>_mean/_ci_low/_ci_high/_ci_half``.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest

from schedsim import claims
from schedsim.claims import NOT_CHECKABLE, NOT_REPRODUCED, REPRODUCED, Outcome
from schedsim.experiments.families import hrf

LOADS = (("light", 2000.0), ("middle", 1000.0), ("heavy", 600.0))
SETTINGS = {"trend_min_rho": 0.7, "stable_above": 0.3, "stable_max_cv": 0.1}
MetricFn = Callable[[str, int, float], tuple[float, float, float]]


def interval_columns(metric: str, mean: float, half: float) -> dict[str, float]:
    return {f"{metric}_mean": mean, f"{metric}_ci_low": mean - half,
            f"{metric}_ci_high": mean + half, f"{metric}_ci_half": half}


def sweep_table(x: str, values: list[float], metrics: MetricFn, half: float = 1.0,
                policies: tuple[str, ...] = ("HRFFcfs", "HRFBf")) -> pd.DataFrame:
    """A sweep table; ``metrics(policy, load_index, x) -> (ATT, AWT, ART)``."""
    rows = []
    for policy in policies:
        for load_index, (load, gap) in enumerate(LOADS):
            for value in values:
                att, awt, art = metrics(policy, load_index, value)
                rows.append({"policy": policy, "load": load, "mean_interarrival": gap, x: value,
                             **interval_columns("ATT", att, half),
                             **interval_columns("AWT", awt, half),
                             **interval_columns("ART", art, half)})
    return pd.DataFrame(rows)


def combined_table(att: Callable[[str, int], float], half: float = 1.0) -> pd.DataFrame:
    rows = []
    for policy in ("HRFFcfs", "HRFBf", "SbmGrdyFcfs", "SbmGrdyBf", "SbmFairFcfs", "SbmFairBf",
                   "SchFairFcfs", "SchFairBf"):
        for load_index, (load, gap) in enumerate(LOADS):
            value = att(policy, load_index)
            rows.append({"policy": policy, "load": load, "mean_interarrival": gap,
                         **interval_columns("ATT", value, half),
                         **interval_columns("AWT", value / 2, half),
                         **interval_columns("ART", value / 2, half)})
    return pd.DataFrame(rows)


def check(claim_id: str, tables: dict[str, pd.DataFrame]) -> Outcome:
    entry = next(c for c in claims.registered("hrf") if c.claim_id == claim_id)
    return entry.evaluate(tables, SETTINGS)


ALPHAS = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2]
THRESHOLDS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


def paper_like_alpha(policy: str, load: int, alpha: float) -> tuple[float, float, float]:
    """AWT up, ART down; HRFFcfs best alpha 0.8 / 0.7 / 0.5, HRFBf 0.6 / 1.2 / 1.2."""
    best = {"HRFFcfs": (0.8, 0.7, 0.5), "HRFBf": (0.6, 1.2, 1.2)}[policy][load]
    att = 1000.0 + 1000.0 * (alpha - best) ** 2
    return att, 100.0 * alpha, 1000.0 - 100.0 * alpha


def flat_alpha(policy: str, load: int, alpha: float) -> tuple[float, float, float]:
    return 1000.0, 500.0, 500.0


def test_every_hrf_target_has_claims() -> None:
    targets = {c.target for c in claims.registered("hrf")}
    assert targets == {hrf.T1, hrf.F5, hrf.F6, hrf.F7}


def test_t1_claims_on_the_computed_example() -> None:
    tables = {hrf.T1: hrf.example_table()}
    assert check("T1-att", tables).verdict == REPRODUCED
    assert check("T1-hrf-picks-A", tables).verdict == REPRODUCED
    wrong = tables[hrf.T1].assign(ATT=lambda t: t["ATT"] + 1.0, hrf_choice="B")
    assert check("T1-att", {hrf.T1: wrong}).verdict == NOT_REPRODUCED
    assert check("T1-hrf-picks-A", {hrf.T1: wrong}).verdict == NOT_REPRODUCED


@pytest.mark.parametrize("claim_id", ["F5-awt-rises", "F5-art-falls", "F5-fcfs-best-alpha",
                                      "F5-bf-best-alpha"])
def test_f5_claims_each_verdict(claim_id: str) -> None:
    good = {hrf.F5: sweep_table("alpha", ALPHAS, paper_like_alpha)}
    flat = {hrf.F5: sweep_table("alpha", ALPHAS, flat_alpha)}
    assert check(claim_id, good).verdict == REPRODUCED
    assert check(claim_id, flat).verdict == NOT_REPRODUCED
    assert check(claim_id, {}).verdict == NOT_CHECKABLE


def test_trend_needs_separated_end_intervals() -> None:
    wide = {hrf.F5: sweep_table("alpha", ALPHAS, paper_like_alpha, half=1000.0)}
    outcome = check("F5-awt-rises", wide)
    assert outcome.verdict == NOT_REPRODUCED
    assert "end CIs overlap" in outcome.our_value


def seeds_table(table: pd.DataFrame, x: str, offsets: dict[int, float],
                slope_noise: dict[int, float]) -> pd.DataFrame:
    """Per-seed values: the table's means + a per-seed offset + per-seed noise x slope."""
    rows = []
    for _, row in table.iterrows():
        for seed, offset in offsets.items():
            shift = offset + slope_noise[seed] * row[x]
            rows.append({"policy": row["policy"], "load": row["load"], x: row[x], "seed": seed,
                         **{m: row[f"{m}_mean"] + shift for m in ("ATT", "AWT", "ART")}})
    return pd.DataFrame(rows)


def test_trend_uses_paired_differences_when_per_seed_values_exist() -> None:
    # Wide marginal CIs (large seed-to-seed offsets) but every seed rises: reproduced.
    table = sweep_table("alpha", ALPHAS, paper_like_alpha, half=1000.0)
    offsets = {1: -900.0, 2: 0.0, 3: 900.0}
    common = seeds_table(table, "alpha", offsets, {1: 0.0, 2: 0.0, 3: 0.0})
    outcome = check("F5-awt-rises", {hrf.F5: table, f"{hrf.F5}.seeds": common})
    assert outcome.verdict == REPRODUCED, outcome
    assert "end change +70 s [+70, +70]" in outcome.our_value
    # Seeds disagree on the direction of the change: not reproduced.
    noisy = seeds_table(table, "alpha", offsets, {1: -400.0, 2: 0.0, 3: 400.0})
    outcome = check("F5-awt-rises", {hrf.F5: table, f"{hrf.F5}.seeds": noisy})
    assert outcome.verdict == NOT_REPRODUCED
    assert "paired 95% CI" in outcome.note


def paper_like_threshold(policy: str, load: int, threshold: float) -> tuple[float, float, float]:
    """AWT up, ART down with threshold; ATT flat above 0.3, wild below."""
    att = 1000.0 if threshold > 0.3 else 3000.0 * (1.0 - threshold)
    return att, 100.0 * threshold, 1000.0 - 100.0 * threshold


def unstable_threshold(policy: str, load: int, threshold: float) -> tuple[float, float, float]:
    return 1000.0 * (1.0 + threshold) ** 3, 200.0 - 100.0 * threshold, 100.0 * threshold


@pytest.mark.parametrize("claim_id", ["F6-awt-rises", "F6-art-falls", "F6-att-stable"])
def test_f6_claims_each_verdict(claim_id: str) -> None:
    good = {hrf.F6: sweep_table("threshold", THRESHOLDS, paper_like_threshold)}
    bad = {hrf.F6: sweep_table("threshold", THRESHOLDS, unstable_threshold)}
    assert check(claim_id, good).verdict == REPRODUCED
    assert check(claim_id, bad).verdict == NOT_REPRODUCED
    assert check(claim_id, {}).verdict == NOT_CHECKABLE


def test_f6_stability_not_checkable_without_enough_thresholds() -> None:
    coarse = {hrf.F6: sweep_table("threshold", [0.1, 0.2, 0.5], paper_like_threshold)}
    assert check("F6-att-stable", coarse).verdict == NOT_CHECKABLE


# HRF paper, Fig. 7b (middle load); light and heavy scaled.
PAPER_F7 = {"SbmGrdyFcfs": 81444.0, "SbmGrdyBf": 60000.0, "SchFairFcfs": 30935.0,
            "SchFairBf": 20000.0, "SbmFairFcfs": 30400.0, "SbmFairBf": 21000.0,
            "HRFFcfs": 23617.0, "HRFBf": 13309.0}


def paper_like_att(policy: str, load: int) -> float:
    return PAPER_F7[policy] * (0.5, 1.0, 1.5)[load]


def reversed_att(policy: str, load: int) -> float:
    return 100000.0 / PAPER_F7[policy] * (1.5, 1.0, 0.5)[load]


def test_best_policy_notes_whether_the_paired_gap_is_significant() -> None:
    table = combined_table(paper_like_att)
    rows = []
    for _, row in table.iterrows():
        for seed, noise in ((1, -5000.0), (2, 0.0), (3, 5000.0)):
            jitter = noise if row["policy"] == "HRFBf" else 0.0
            rows.append({"policy": row["policy"], "load": row["load"], "seed": seed,
                         "ATT": row["ATT_mean"] + jitter})
    seeds = pd.DataFrame(rows)
    outcome = check("F7-hrfbf-best-bf", {hrf.F7: table, f"{hrf.F7}.seeds": seeds})
    assert outcome.verdict == REPRODUCED
    assert "not significantly below" in outcome.our_value
    steady = seeds.assign(ATT=lambda t: t.groupby(["policy", "load"])["ATT"].transform("mean"))
    outcome = check("F7-hrfbf-best-bf", {hrf.F7: table, f"{hrf.F7}.seeds": steady})
    assert "not significantly" not in outcome.our_value


@pytest.mark.parametrize("claim_id", ["F7-hrffcfs-best-fcfs", "F7-hrfbf-best-bf",
                                      "F7-hrfbf-best-overall", "F7-bf-beats-fcfs",
                                      "F7-att-grows-with-load", "F7-middle-order"])
def test_f7_claims_each_verdict(claim_id: str) -> None:
    assert check(claim_id, {hrf.F7: combined_table(paper_like_att)}).verdict == REPRODUCED
    assert check(claim_id, {hrf.F7: combined_table(reversed_att)}).verdict == NOT_REPRODUCED
    assert check(claim_id, {}).verdict == NOT_CHECKABLE


def test_f7_values_are_informational() -> None:
    outcome = check("F7-middle-values", {hrf.F7: combined_table(paper_like_att)})
    assert outcome.verdict == NOT_CHECKABLE
    assert "HRFBf 13,309 (paper x1.00)" in outcome.our_value


def test_f7_claims_not_checkable_without_the_hrf_policies() -> None:
    table = combined_table(paper_like_att)
    table = table[~table["policy"].str.startswith("HRF")]
    assert check("F7-hrffcfs-best-fcfs", {hrf.F7: table}).verdict == NOT_CHECKABLE
    assert check("F7-middle-order", {hrf.F7: table}).verdict == NOT_CHECKABLE


def test_a_broken_check_is_not_checkable_and_named() -> None:
    bad = {hrf.F5: pd.DataFrame({"policy": ["HRFFcfs"]})}
    outcome = check("F5-awt-rises", bad)
    assert outcome.verdict == NOT_CHECKABLE
    assert "check failed" in outcome.note


def test_evaluate_table_columns_and_captions() -> None:
    tables = {hrf.T1: hrf.example_table()}
    result = claims.evaluate(["hrf"], tables, {"hrf": SETTINGS})
    assert tuple(result.columns) == claims.COLUMNS
    assert set(result["verdict"]) <= set(claims.VERDICTS)
    assert set(result[result["target"] == hrf.F7]["verdict"]) == {NOT_CHECKABLE}
    text = claims.caption_rst(result, hrf.T1)
    assert "**T1-att**" in text and "*reproduced*" in text
    assert "No automatic claim" in claims.caption_rst(result, "X-1")


def test_registry_rejects_a_second_check_under_one_id() -> None:
    with pytest.raises(ValueError):
        claims.claim("hrf", hrf.F5, "F5-awt-rises", "dup", "dup")(lambda t, s: Outcome("", "x"))
    with pytest.raises(ValueError):
        Outcome("", "maybe")
