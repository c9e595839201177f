"""LOS family: point planning, derived C_s, improvement tables, claims (every verdict).

Claim checks run on synthetic per-seed tables aggregated the way the workflow does
(``schedsim.stats``), so their columns are those of ``results/tables/<target>.csv``
and ``<target>.seeds.csv``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from schedsim import claims
from schedsim.claims import CONTRADICTED, INCONCLUSIVE, INFORMATIONAL, NOT_CHECKABLE, REPRODUCED
from schedsim.experiments.commands.choose import choose
from schedsim.experiments.families import los, los_claims
from schedsim.experiments.plan import build_plan
from schedsim.experiments.run import run_point
from schedsim.experiments.spec import MachineSpec, PointSpec, point_from_json, to_json
from schedsim.jobs import Job
from schedsim.stats import seed_means, summarize_seeds
from schedsim.verdicts import Judgement
from schedsim.workloads.cwf import read_cwf
from schedsim.workloads.lublin_los import generate_los
from schedsim.workloads.scaling import offered_load, scale_to_load, segments

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {"fall_until": 8, "f6_flat_from": 4, "n10k_tolerance": 0.1,
            "close_tolerance": 0.1}
SEEDS = range(1, 6)
LOADS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
KEYS = ["policy", "workload", "c_s", "panel", "load"]


# ----------------------------------------------------------------------------- planning


UNREACHABLE = "http://127.0.0.1:9/"


def offline(config: dict[str, Any], search: list[str]) -> dict[str, Any]:
    """The config with these search directories and every log's URL unreachable."""
    config = copy.deepcopy(config)
    config["traces"]["search"] = search
    for log in config["traces"]["logs"].values():
        log["url"] = UNREACHABLE + log["file"]
        log["sha256"] = None
    return config


@pytest.fixture(scope="module")
def full_config(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """config/config.yaml with the KTH log a placeholder file, offline (planning only)."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    traces = tmp_path_factory.mktemp("traces")
    (traces / "KTH-SP2-1996-2.swf.gz").write_text("; MaxProcs: 100\n")
    return offline(config, [str(traces)])


def test_full_config_plans_every_los_target(full_config: dict[str, Any]) -> None:
    plan = build_plan(full_config)
    counts = {t: len(r) for t, r in plan.inputs_of.items() if t.startswith("LOS") and "@" not in t}
    assert counts == {"LOS-F1": 2 * 6, "LOS-F5": 3, "LOS-F6": 3, "LOS-CS20": 3,
                      "LOS-F7": 3 * 6, "LOS-F8": 2 * 3 * 6, "LOS-F9": 18, "LOS-F10": 18,
                      "LOS-F11": 2 * 3 * 6, "LOS-N10K": 2 * 3, "LOS-T4": 2, "LOS-T5": 2,
                      "LOS-T6": 2, "LOS-T7": 2}
    los_workloads = [p for p in plan.workloads if p.startswith("results/workloads/los/")]
    assert len(los_workloads) == (7 * 6 + 1) * 20 and all(p.endswith(".cwf")
                                                         for p in los_workloads)
    long = plan.workloads["results/workloads/los/ps0.5_pd0_load0.9_n10000/seed1.cwf"]
    assert long["jobs"] == 10000 and "jobs" not in long["params"]
    assert plan.inputs_of["LOS-T4"] == ["results/tables/LOS-F7.csv",
                                      "results/tables/LOS-F7.seeds.csv"]


def test_cs_sweep_points_run_every_cs_inside_one_job(full_config: dict[str, Any]) -> None:
    plan = build_plan(full_config)
    dlos = plan.points["results/runs/LOS-F5/Delayed-LOS/ps0.5_pd0_load0.9.parquet"]
    assert dlos.inner == {"c_s": tuple(range(1, 21))}
    assert len(dlos.seeds) == 20 and dlos.machine == MachineSpec(320, 32)
    assert dlos.columns == ("c_s",)
    easy = plan.points["results/runs/LOS-F5/easy/ps0.5_pd0_load0.9.parquet"]
    assert easy.inner == {} and easy.chosen == {} and easy.columns == ("c_s",)
    assert plan.targets["LOS-F5"].choose is not None
    assert plan.targets["LOS-F5"].choose.policy == "Delayed-LOS"


def test_load_sweep_points_take_the_best_cs_of_their_panel(full_config: dict[str, Any]) -> None:
    plan = build_plan(full_config)
    f7 = plan.points["results/runs/LOS-F7/Delayed-LOS/ps0.2_pd0_load0.7.parquet"]
    assert f7.chosen == {"c_s": "results/chosen/LOS-CS20.json"}
    assert "results/chosen/LOS-CS20.json" in f7.inputs
    f11 = plan.points["results/runs/LOS-F11/Hybrid-LOS-E/ps0.5_pd0.5_el_load1.parquet"]
    assert f11.chosen["c_s"] == "results/chosen/LOS-F5.json"
    assert plan.points["results/runs/LOS-F9/EASY-D/ps0.2_pd0.5_load0.5.parquet"].chosen == {}
    assert {t: f for t, f in plan.choosing.items() if "@" not in t} == {
        "LOS-F5": "results/chosen/LOS-F5.json", "LOS-F6": "results/chosen/LOS-F6.json",
        "LOS-CS20": "results/chosen/LOS-CS20.json"}


def test_workload_parameters_of_the_cases(full_config: dict[str, Any]) -> None:
    plan = build_plan(full_config)
    batch = plan.workloads["results/workloads/los/ps0.2_pd0_load0.5/seed3.cwf"]
    assert batch["model"] == "lublin-los" and batch["jobs"] == 500 and batch["seed"] == 3
    assert batch["params"] == {"load": 0.5, "load_tolerance": 0.001, "pd": 0.0, "pe": 0.0,
                               "pr": 0.0, "ps": 0.2}
    elastic = plan.workloads["results/workloads/los/ps0.5_pd0.5_el_load0.9/seed1.cwf"]
    assert (elastic["params"]["pe"], elastic["params"]["pr"], elastic["params"]["pd"]) == \
        (0.2, 0.1, 0.5)


def test_trace_points_are_scaled_segments(full_config: dict[str, Any]) -> None:
    plan = build_plan(full_config)
    spec = plan.points["results/runs/LOS-F1/LOS/KTH-SP2_load0.8.parquet"]
    assert spec.model == "trace" and spec.seeds == tuple(range(1, 11))
    assert spec.trace is not None and spec.trace.load == 0.8 and spec.trace.segments == 10
    assert spec.machine == MachineSpec(100) and spec.trace.estimates == "requested"


def test_the_paper_log_first_then_its_fallback(full_config: dict[str, Any]) -> None:
    plan = build_plan(full_config)
    assert plan.targets["LOS-F1"].trace is not None
    assert plan.targets["LOS-F1"].trace == ("KTH-SP2 (fallback: SDSC-SP2 could be neither "
                                            "found nor fetched)")
    assert "LOS-F1" not in plan.not_run and plan.fetches == {}


def test_a_log_found_nowhere_and_unreachable_leaves_its_target_out(
        full_config: dict[str, Any]) -> None:
    plan = build_plan(offline(full_config, []))
    assert "LOS-F1" not in plan.targets and "LOS-F5" in plan.targets
    # GOAL: the HPC2N targets (and the tables derived from them) are not run, with the
    # reason; the synthetic months still are.
    for target in ("GOAL-F3", "GOAL-F4", "GOAL-F6", "GOAL-F8"):
        assert "log HPC2N (HPC2N-2002-2.1-cln.swf.gz) is not in" in plan.not_run[target]
    assert plan.not_run["GOAL-T2"] == "its source GOAL-F4 was not run"
    assert "GOAL-F4L" in plan.targets
    why = plan.not_run["LOS-F1"]
    assert "log SDSC-SP2 (SDSC-SP2-1998-4.2-cln.swf.gz) is not in resources/traces" in why
    assert ("python -m schedsim.traces fetch --url http://127.0.0.1:9/KTH-SP2-1996-2.swf.gz "
            "--out resources/traces/KTH-SP2-1996-2.swf.gz") in why


def test_a_log_that_can_be_fetched_is_planned_with_the_fetch(
        full_config: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from schedsim.experiments import plan as planner

    monkeypatch.setattr(planner, "reachable", lambda url, timeout: None)
    plan = build_plan(offline(full_config, []))
    # LOS-F1's log, GOAL's HPC2N, then the cross-paper targets' other logs
    assert list(plan.fetches) == ["resources/traces/SDSC-SP2-1998-4.2-cln.swf.gz",
                                  "resources/traces/HPC2N-2002-2.1-cln.swf.gz",
                                  "resources/traces/KTH-SP2-1996-2.swf.gz",
                                  "resources/traces/SDSC-BLUE-2000-4.2-cln.swf.gz",
                                  "resources/traces/LLNL-Thunder-2007-1.1-cln.swf.gz",
                                  "resources/traces/LLNL-Atlas-2006-2.1-cln.swf.gz"]
    point = plan.points["results/runs/LOS-F1/LOS/SDSC-SP2_load0.8.parquet"]
    assert point.machine == MachineSpec(128)
    assert point.inputs == ["resources/traces/SDSC-SP2-1998-4.2-cln.swf.gz"]


def test_tables_of_a_disabled_source_are_left_out(full_config: dict[str, Any]) -> None:
    config = copy.deepcopy(full_config)
    config["los"]["targets"]["LOS-F11"]["enabled"] = False
    targets = build_plan(config).targets
    assert "LOS-T6" not in targets and "LOS-T7" not in targets and "LOS-T4" in targets


def test_a_panel_needs_an_enabled_cs_sweep(full_config: dict[str, Any]) -> None:
    config = copy.deepcopy(full_config)
    config["los"]["targets"]["LOS-CS20"]["enabled"] = False
    with pytest.raises(ValueError, match="LOS-CS20"):
        build_plan(config)


def test_test_config_plans_few_points() -> None:
    config = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
    plan = build_plan(offline(config, []))
    assert "LOS-F1" not in plan.targets and "LOS-F1" in plan.not_run
    assert len([p for p in plan.points if "/LOS-" in p]) <= 150
    assert plan.points["results/runs/LOS-F5/Delayed-LOS/ps0.5_pd0_load0.9.parquet"].inner \
        == {"c_s": (1, 4, 8, 12)}


# ----------------------------------------------------------------------------- running


def test_choose_takes_the_argmin_and_the_smallest_on_ties(
        full_config: dict[str, Any], tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("policy,c_s,AWT_mean\neasy,,5\nDelayed-LOS,1,30\nDelayed-LOS,3,20\n"
                     "Delayed-LOS,2,20\nDelayed-LOS,4,25\n")
    spec = build_plan(full_config).targets["LOS-F5"]
    assert choose(spec, table) == {"c_s": 2}
    table.write_text("policy,c_s,AWT_mean\neasy,,5\n")
    with pytest.raises(ValueError, match="no row"):
        choose(spec, table)


def test_specs_round_trip_through_json(full_config: dict[str, Any]) -> None:
    from schedsim.experiments.spec import target_from_json

    plan = build_plan(full_config)
    for point in plan.points.values():
        assert point_from_json(to_json(point)) == point
    for target in plan.targets.values():
        assert target_from_json(to_json(target)) == target


def test_run_point_on_a_calibrated_cwf_workload(tmp_path: Path) -> None:
    from schedsim.workloads.base import get_model

    path = tmp_path / "seed1.cwf"
    path.write_text(get_model("lublin-los").run(80, 1, {"ps": "0.5", "load": "0.9", "pe": "0.2",
                                                        "pr": "0.1"}))
    header = read_cwf(path)[2]
    assert header.header_value("TargetLoad") == "0.9" and float(header.header_value("Barr")) > 0
    spec = PointSpec(family="los", target="LOS-X", policy="Delayed-LOS-E", point="p",
                     variant="v", variant_column="workload", labels={"load": 0.9},
                     machine=MachineSpec(320, 32), model="lublin-los", seeds=(1,),
                     workloads={"1": str(path)}, inner={"c_s": (1, 3)}, columns=("c_s",),
                     workload_info=True)
    rows = run_point(spec)
    assert [r["c_s"] for r in rows] == [1, 3]
    assert rows[0]["jobs"] == 80 and rows[0]["barr"] == float(header.header_value("Barr"))
    assert abs(rows[0]["offered_load"] - 0.9) < 0.05
    assert rows[0]["slowdown"] == pytest.approx((rows[0]["AWT"] + rows[0]["ART"]) / rows[0]["ART"])
    assert run_point(spec) == rows  # deterministic


def test_scaling_segments_to_a_load() -> None:
    jobs = [Job(i, float(10 * i), 100.0, 4, 100.0) for i in range(1, 11)]
    assert offered_load(jobs, 8) == pytest.approx(10 * 400 / (8 * 90))
    scaled = scale_to_load(jobs, 8, 0.5)
    assert offered_load(scaled, 8) == pytest.approx(0.5)
    assert scaled[0].submit == jobs[0].submit and jobs[1].submit == 20.0  # copies
    parts = segments(list(reversed(jobs)), 3)
    assert [len(p) for p in parts] == [3, 3, 3] and parts[0][0].id == 1


def test_calibrated_generation_keeps_the_other_streams() -> None:
    from schedsim.params import parse_params
    from schedsim.workloads.lublin_los import PARAMS, calibrated_values

    values, lines = calibrated_values(300, 4, parse_params(PARAMS, {"load": 0.7}, "t"))
    plain = generate_los(300, 4, barr=values["barr"])
    assert [j.procs for j in plain.jobs] == [j.procs for j in generate_los(300, 4).jobs]
    assert lines[0] == "; TargetLoad: 0.7"
    assert abs(float(lines[2].split(":")[1]) - 0.7) < 0.03


# ----------------------------------------------------------------------------- synthetic tables


Metric = Callable[[str, float, Any, int], float]


def tables_of(target: str, frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Aggregated and per-seed tables of ``frame`` (one row per policy, point and seed)."""
    metrics = [m for m in ("AWT", "utilization", "slowdown") if m in frame]
    table = summarize_seeds(frame, KEYS, metrics)
    return {target: table, f"{target}.seeds": seed_means(frame, KEYS, metrics)}


def load_frame(panels: Mapping[str, Sequence[str]], awt: Metric,
               util: Metric | None = None, cs: Mapping[str, int] | None = None) -> pd.DataFrame:
    """Rows of a load sweep: ``awt(policy, load, panel, seed)`` per policy, load, seed."""
    rows = []
    for panel, policies in panels.items():
        for policy in policies:
            for load in LOADS:
                for seed in SEEDS:
                    rows.append({"policy": policy, "workload": f"{panel}_{load}",
                                 "c_s": float((cs or {}).get(policy, float("nan"))),
                                 "panel": panel, "load": load, "seed": seed,
                                 "AWT": awt(policy, load, panel, seed),
                                 "utilization": (util or _util)(policy, load, panel, seed),
                                 "slowdown": 1 + awt(policy, load, panel, seed) / 1000})
    return pd.DataFrame(rows)


def _util(policy: str, load: float, panel: Any, seed: int) -> float:
    return 0.8 * load


def ranked(order: Sequence[str], step: float = 0.1) -> Metric:
    """Wait per policy: the first of ``order`` lowest; seed noise common to all policies."""
    def awt(policy: str, load: float, panel: Any, seed: int) -> float:
        rank = order.index(policy) if policy in order else 0
        return 1000.0 * load * (1 + step * rank) * (1 + 0.05 * (seed - 3))
    return awt


def noisy(base: Metric) -> Metric:
    """``base`` plus policy-specific noise of mean 0 (no significant difference)."""
    def awt(policy: str, load: float, panel: Any, seed: int) -> float:
        sign = 1 if (seed + len(policy)) % 2 else -1
        return base(policy, load, panel, seed) * (1 + 0.3 * sign)
    return awt


def same(policy: str, load: float, panel: Any, seed: int) -> float:
    return 1000.0 * load * (1 + 0.05 * (seed - 3))


def cs_frame(dlos: Callable[[int], float], others: Mapping[str, float],
             values: Sequence[int] = tuple(range(1, 21))) -> pd.DataFrame:
    """Rows of a C_s sweep at load 0.9: Delayed-LOS wait dlos(C_s), the others flat."""
    rows = []
    for seed in SEEDS:
        noise = 1 + 0.02 * (seed - 3)
        for value in values:
            rows.append(_cs_row("Delayed-LOS", float(value), seed, dlos(value) * noise))
        for policy, wait in others.items():
            rows.append(_cs_row(policy, float("nan"), seed, wait * noise))
    return pd.DataFrame(rows)


def _cs_row(policy: str, c_s: float, seed: int, wait: float) -> dict[str, Any]:
    return {"policy": policy, "workload": "w", "c_s": c_s, "panel": "cs", "load": 0.9,
            "seed": seed, "AWT": wait, "utilization": 1e-5 * (1e5 - wait) / 1.0,
            "slowdown": 1 + wait / 1000}


def check(claim_id: str, tables: Mapping[str, pd.DataFrame]) -> Judgement:
    entry = next(c for c in claims.registered("los") if c.claim_id == claim_id)
    return entry.evaluate(tables, SETTINGS)


def test_every_los_target_has_claims() -> None:
    targets = {c.target for c in claims.registered("los")}
    assert targets == {los.F1, los.F5, los.F6, los.F7, los.F8, los.F9, los.F10, los.F11,
                       los.N10K, los.T4, los.T5, los.T6, los.T7}


def test_missing_tables_are_not_checkable() -> None:
    for entry in claims.registered("los"):
        assert entry.evaluate({}, SETTINGS).verdict == NOT_CHECKABLE


# ----------------------------------------------------------------------------- claims: F1, F5, F6


def f1(awt: Metric) -> dict[str, pd.DataFrame]:
    return tables_of(los.F1, load_frame({"KTH-SP2": ["easy", "LOS"]}, awt))


def test_f1_verdicts() -> None:
    """'Clearly outperforms': a tie is not support."""
    assert check("F1-los-beats-easy", f1(ranked(["LOS", "easy"]))).verdict == REPRODUCED
    assert check("F1-los-beats-easy", f1(noisy(same))).verdict == INCONCLUSIVE
    assert check("F1-los-beats-easy", f1(ranked(["easy", "LOS"]))).verdict == CONTRADICTED


def knee(value: int) -> float:
    return 1000.0 - 50.0 * min(value, 8)


def test_f5_beats_verdicts() -> None:
    good = tables_of(los.F5, cs_frame(knee, {"easy": 1000.0, "LOS": 1100.0}))
    assert check("F5-dlos-beats-wait", good).verdict == REPRODUCED
    assert check("F5-dlos-beats-util", good).verdict == REPRODUCED
    bad = tables_of(los.F5, cs_frame(knee, {"easy": 700.0, "LOS": 1100.0}))
    assert check("F5-dlos-beats-wait", bad).verdict == CONTRADICTED
    tied = tables_of(los.F5, cs_frame(lambda v: 1000.0, {"easy": 1000.0, "LOS": 1000.0}))
    assert check("F5-dlos-beats-wait", tied).verdict == INCONCLUSIVE


def test_f5_knee_verdicts() -> None:
    good = tables_of(los.F5, cs_frame(knee, {"easy": 1000.0}))
    assert check("F5-cs-knee", good).verdict == REPRODUCED
    rising = tables_of(los.F5, cs_frame(lambda v: 500.0 + 40.0 * v, {"easy": 1000.0}))
    assert check("F5-cs-knee", rising).verdict == CONTRADICTED
    coarse = tables_of(los.F5, cs_frame(knee, {"easy": 1000.0}, values=(1, 4)))
    assert check("F5-cs-knee", coarse).verdict == NOT_CHECKABLE


def test_f6_verdicts() -> None:
    """Insensitivity is reported, not judged (an effect of about 1% cannot fail a 10%
    tolerance); Fig. 6's Delayed-LOS beats LOS and EASY as in Fig. 5."""
    flat = tables_of(los.F6, cs_frame(lambda v: 900.0 if v < 3 else 800.0,
                                      {"easy": 1000.0, "LOS": 1100.0}))
    found = check("F6-cs-insensitive", flat)
    assert found.verdict == INFORMATIONAL and "(spread 0.0%)" in found.ours
    assert check("F6-dlos-beats-wait", flat).verdict == REPRODUCED
    assert check("F6-dlos-beats-util", flat).verdict == REPRODUCED
    one = tables_of(los.F6, cs_frame(knee, {"easy": 1000.0}, values=(1, 2)))
    assert check("F6-cs-insensitive", one).verdict == NOT_CHECKABLE


# ----------------------------------------------------------------------------- claims: F7-F11


BATCH = {"batch": ["easy", "LOS", "Delayed-LOS"]}


def utilization_ranked(order: Sequence[str]) -> Metric:
    """Utilization per policy: the first of ``order`` highest."""
    def util(policy: str, load: float, panel: Any, seed: int) -> float:
        return 0.8 * load - 0.01 * order.index(policy) + 0.001 * seed
    return util


def test_f7_verdicts() -> None:
    paper = tables_of(los.F7, load_frame(BATCH, ranked(["Delayed-LOS", "easy", "LOS"]),
                                         util=utilization_ranked(["Delayed-LOS", "easy",
                                                                  "LOS"]),
                                         cs={"Delayed-LOS": 7}))
    for claim_id in ("F7-dlos-best-wait", "F7-los-worse-than-easy"):
        assert check(claim_id, paper).verdict == REPRODUCED
    flipped = tables_of(los.F7, load_frame(BATCH, ranked(["LOS", "easy", "Delayed-LOS"]),
                                           util=utilization_ranked(["LOS", "easy",
                                                                    "Delayed-LOS"])))
    for claim_id in ("F7-dlos-best-wait", "F7-los-worse-than-easy"):
        assert check(claim_id, flipped).verdict == CONTRADICTED

    def util(policy: str, load: float, panel: Any, seed: int) -> float:
        return 0.8 * load + (0.01 if policy == "Delayed-LOS" else 0.0) + 0.001 * seed
    better = tables_of(los.F7, load_frame(BATCH, same, util=util))
    assert check("F7-dlos-best-util", better).verdict == REPRODUCED
    assert check("F7-dlos-best-util", tables_of(los.F7, load_frame(BATCH, same))).verdict == \
        INCONCLUSIVE
    chosen = check("F7-cs-chosen", paper)
    assert chosen.verdict == INFORMATIONAL and "Delayed-LOS C_s = 7" in chosen.ours


def test_f8_verdicts() -> None:
    panels = {"ps0.5": BATCH["batch"], "ps0.8": BATCH["batch"]}
    close = tables_of(los.F8, load_frame(panels, ranked(["Delayed-LOS", "easy", "LOS"],
                                                        step=0.05)))
    assert check("F8-dlos-close-to-easy", close).verdict == REPRODUCED
    assert check("F8-both-beat-los", close).verdict == REPRODUCED
    far = tables_of(los.F8, load_frame(panels, ranked(["Delayed-LOS", "LOS", "easy"],
                                                      step=0.3)))
    assert check("F8-dlos-close-to-easy", far).verdict == CONTRADICTED
    assert check("F8-both-beat-los", far).verdict == CONTRADICTED


@pytest.mark.parametrize("target", [los.F9, los.F10])
def test_hybrid_verdicts(target: str) -> None:
    prefix = target[4:]
    panels = {"heterogeneous": ["EASY-D", "LOS-D", "Hybrid-LOS"]}
    good = tables_of(target, load_frame(panels, ranked(["Hybrid-LOS", "EASY-D", "LOS-D"])))
    assert check(f"{prefix}-hybrid-beats-wait", good).verdict == REPRODUCED
    bad = tables_of(target, load_frame(panels, ranked(["EASY-D", "Hybrid-LOS", "LOS-D"])))
    assert check(f"{prefix}-hybrid-beats-wait", bad).verdict == CONTRADICTED
    assert check(f"{prefix}-hybrid-beats-util", bad).verdict == INCONCLUSIVE
    missing = tables_of(target, load_frame({"heterogeneous": ["EASY-D", "LOS-D"]}, same))
    assert check(f"{prefix}-hybrid-beats-wait", missing).verdict == NOT_CHECKABLE


def test_f11_ordering_verdicts() -> None:
    panels = {"elastic-batch": ["EASY-E", "LOS-E", "Delayed-LOS-E"],
              "elastic-heterogeneous": ["EASY-DE", "LOS-DE", "Hybrid-LOS-E"]}
    order = ["Delayed-LOS-E", "Hybrid-LOS-E", "EASY-E", "EASY-DE", "LOS-E", "LOS-DE"]
    good = load_frame(panels, ranked(order), util=utilization_ranked(order))
    assert check("F11-e-ordering", tables_of(los.F11, good)).verdict == REPRODUCED
    waits_only = load_frame(panels, ranked(order))  # utilization tied: not shown
    assert check("F11-e-ordering", tables_of(los.F11, waits_only)).verdict == INCONCLUSIVE
    bad = ranked(["EASY-E", "EASY-DE", "Delayed-LOS-E", "Hybrid-LOS-E", "LOS-E", "LOS-DE"])
    assert check("F11-e-ordering", tables_of(los.F11, load_frame(panels, bad))).verdict == \
        CONTRADICTED


# ----------------------------------------------------------------------------- tables T4-T7


def improvement_spec(target: str, panel: str, policy: str,
                     baselines: list[str]) -> dict[str, Any]:
    return {"target": target, "panel": panel, "policy": policy, "baselines": baselines}


def test_improvement_table_takes_the_maximum_over_loads() -> None:
    def awt(policy: str, load: float, panel: Any, seed: int) -> float:
        factor = {"Delayed-LOS": 0.7 if load == 0.8 else 0.9, "LOS": 1.0, "easy": 1.0}[policy]
        return 1000.0 * factor * (1 + 0.05 * (seed - 3))
    tables = tables_of(los.F7, load_frame(BATCH, awt))
    table = los.improvement_table(tables[los.F7], tables[f"{los.F7}.seeds"],
                                  improvement_spec(los.T4, "batch", "Delayed-LOS",
                                                   ["LOS", "easy"]))
    wait = table[table["column"] == "AWT"].iloc[0]
    assert wait["LOS_ours"] == pytest.approx(30.0) and wait["LOS_load"] == 0.8
    assert wait["LOS_paper"] == 31.88 and wait["easy_paper"] == 21.65
    assert wait["LOS_ci_low"] <= 30.0 <= wait["LOS_ci_high"]
    assert list(table["metric"]) == ["Utilization", "Job waiting time", "Slowdown"]


def t_table(target: str, scale: float) -> pd.DataFrame:
    paper = los.PAPER_TABLES[target]
    rows = []
    for index, (column, name, _) in enumerate(los.TABLE_METRICS):
        rows.append({"target": target, "metric": name, "column": column,
                     "A_ours": scale * paper[0][index], "A_paper": paper[0][index],
                     "B_ours": scale * paper[1][index], "B_paper": paper[1][index]})
    return pd.DataFrame(rows)


SPREAD = {1: 0.0, 2: 0.2, 3: 0.4, 4: 0.6, 5: 0.7}  # per-seed share cut from the baselines


def improving(new: str, share: Mapping[int, float]) -> tuple[Metric, Metric]:
    """Wait and utilization where ``new`` cuts the baselines' wait by ``share[seed]``
    and raises their utilization by a tenth of that, at every load."""
    def awt(policy: str, load: float, panel: Any, seed: int) -> float:
        return 1000.0 * load * (1 - share[seed] if policy == new else 1.0)

    def util(policy: str, load: float, panel: Any, seed: int) -> float:
        return 0.8 * load * (1 + 0.1 * share[seed] if policy == new else 1.0)
    return awt, util


def source_tables(target: str, share: Mapping[int, float]) -> dict[str, pd.DataFrame]:
    """Table IV-VII ``target`` and its source sweep, the new policy improving by ``share``."""
    source, panel, new, baselines = los_claims.TABLE_SOURCES[target]
    awt, util = improving(new, share)
    return {**tables_of(source, load_frame({panel: [new, *baselines]}, awt, util=util)),
            target: t_table(target, 1.0)}


@pytest.mark.parametrize("target", [los.T4, los.T5, los.T6, los.T7])
def test_magnitude_verdicts(target: str) -> None:
    claim_id = f"{target[4:]}-magnitude"
    spread = check(claim_id, source_tables(target, SPREAD))
    assert spread.verdict == REPRODUCED, spread
    high = check(claim_id, source_tables(target, dict.fromkeys(SPREAD, 0.9)))
    assert high.verdict == CONTRADICTED
    assert check(f"{target[4:]}-max-of-means", source_tables(target, SPREAD)).verdict == \
        INFORMATIONAL


def test_magnitude_is_computed_per_seed() -> None:
    tables = source_tables(los.T4, SPREAD)
    wait = los_claims.table_statistic(tables, los.T4, "AWT", 0)
    assert list(wait.round(6)) == [0.0, 20.0, 40.0, 60.0, 70.0]  # the maximum over loads


def gains(plain: float, elastic: float) -> dict[str, pd.DataFrame]:
    """Tables IV-VII and their sources: plain gains ``plain``, elastic gains ``elastic``."""
    tables: dict[str, pd.DataFrame] = {}
    for target, share in ((los.T4, plain), (los.T5, plain)):
        tables.update(source_tables(target, {s: share + 0.01 * s for s in SPREAD}))
    frames = []
    for target in (los.T6, los.T7):
        _, panel, new, baselines = los_claims.TABLE_SOURCES[target]
        awt, util = improving(new, {s: elastic + 0.01 * s for s in SPREAD})
        frames.append(load_frame({panel: [new, *baselines]}, awt, util=util))
        tables[target] = t_table(target, 1.0)
    tables.update(tables_of(los.F11, pd.concat(frames, ignore_index=True)))
    return tables


def test_smaller_gains_verdicts() -> None:
    assert check("F11-smaller-gains", gains(0.3, 0.1)).verdict == REPRODUCED
    assert check("F11-smaller-gains", gains(0.1, 0.3)).verdict == CONTRADICTED
    assert check("F11-smaller-gains", {}).verdict == NOT_CHECKABLE


def test_like_for_like_gains_compare_fig8_with_fig11() -> None:
    tables = gains(0.3, 0.1)
    awt, util = improving("Delayed-LOS", {s: 0.3 for s in SPREAD})
    tables.update(tables_of(los.F8, load_frame({"ps0.5": ["easy", "LOS", "Delayed-LOS"]}, awt,
                                               util=util)))
    assert check("F11-smaller-gains-like-for-like", tables).verdict == REPRODUCED
    awt, util = improving("Delayed-LOS", {s: 0.05 for s in SPREAD})
    tables.update(tables_of(los.F8, load_frame({"ps0.5": ["easy", "LOS", "Delayed-LOS"]}, awt,
                                               util=util)))
    assert check("F11-smaller-gains-like-for-like", tables).verdict == CONTRADICTED


def test_dedicated_and_elastic_reports_are_informational() -> None:
    frame = load_frame({"heterogeneous": ["EASY-D", "Hybrid-LOS"]}, same)
    frame["dedicated_on_time"] = [1.0 if p == "Hybrid-LOS" else 0.5 for p in frame["policy"]]
    frame["dedicated_lateness"] = [0.0 if p == "Hybrid-LOS" else 60.0 for p in frame["policy"]]
    metrics = ["AWT", "dedicated_on_time", "dedicated_lateness"]
    tables = {los.F9: summarize_seeds(frame, KEYS, metrics),
              f"{los.F9}.seeds": seed_means(frame, KEYS, metrics)}
    found = check("F9-dedicated-on-time", tables)
    assert found.verdict == INFORMATIONAL
    assert "Hybrid-LOS: on time 100.0%" in found.ours and "EASY-D: on time 50.0%" in found.ours


# ----------------------------------------------------------------------------- figures


def test_every_los_figure_draws(full_config: dict[str, Any], tmp_path: Path) -> None:
    from schedsim.plots import target_figure

    targets = build_plan(full_config).targets
    frame = load_frame(BATCH, ranked(["Delayed-LOS", "easy", "LOS"]), cs={"Delayed-LOS": 7})
    found = tables_of(los.F7, frame)
    table = found[los.F7]
    table.attrs["seeds"] = found[f"{los.F7}.seeds"]  # the paired differences
    target_figure(table, targets[los.F7], tmp_path / "f7.png", tmp_path / "f7.pdf")
    found = tables_of(los.F5, cs_frame(knee, {"easy": 1000.0}))
    cs = found[los.F5]
    cs.attrs["seeds"] = found[f"{los.F5}.seeds"]
    target_figure(cs, targets[los.F5], tmp_path / "f5.png", tmp_path / "f5.pdf")
    spec_t = targets[los.T4]
    baselines = spec_t.args["baselines"]
    t4 = t_table(los.T4, 1.0).rename(columns={"A_ours": f"{baselines[0]}_ours",
                                              "A_paper": f"{baselines[0]}_paper",
                                              "B_ours": f"{baselines[1]}_ours",
                                              "B_paper": f"{baselines[1]}_paper"})
    for baseline in baselines:
        t4[f"{baseline}_ci_low"], t4[f"{baseline}_ci_high"] = 0.0, 5.0
    target_figure(t4, spec_t, tmp_path / "t4.png", tmp_path / "t4.pdf")
    for name in ("f7", "f5", "t4"):
        assert (tmp_path / f"{name}.png").stat().st_size > 5000


def test_chosen_parameters_flow_between_targets_not_within(full_config: dict[str, Any]) -> None:
    """A point reads a chosen file of another target, so that grouping simulations per
    target on a cluster (profiles/slurm) never makes a group depend on itself."""
    plan = build_plan(full_config)
    readers = [p for p in plan.points.values() if p.chosen]
    assert readers and all(f"/{p.target}." not in path for p in readers
                           for path in p.chosen.values())
    profile = yaml.safe_load((ROOT / "profiles" / "slurm" / "config.yaml").read_text())
    assert "{target}" in profile["groups"]["simulate"]
