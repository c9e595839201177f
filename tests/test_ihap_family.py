"""The IHAP family: claims on per-batch tables whose verdicts are known by construction,
the precision columns of its tables, its machine and its plan."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedsim.experiments.families import ihap, ihap_claims
from schedsim.stats import t_quantile
from schedsim.verdicts import CONTRADICTED, INCONCLUSIVE, REPRODUCED

ROOT = Path(__file__).resolve().parents[1]
BATCHES = 30


def noise(batch: int) -> float:
    """A fixed, zero-mean wobble per batch (shared by the policies: paired)."""
    return 0.02 * ((batch * 7) % 5 - 2)


def seeds_table(target: str, mrt: dict[str, dict[float, float]],
                power: dict[str, dict[float, float]] | None = None) -> pd.DataFrame:
    """policy -> x -> mean MRT; one row per batch with a small paired wobble."""
    axis = ihap_claims.axis_of(target)
    rows = []
    for policy, curve in mrt.items():
        for x, value in curve.items():
            for batch in range(2, BATCHES + 2):
                row = {"policy": policy, "workload": f"{axis}{x}", "seed": batch,
                       "utilization": 0.8, "cva": 1.0, "cvs": 4.0,
                       "MRT": value * (1 + noise(batch) + 0.001 * (batch % 3))}
                row[axis] = x
                if power:
                    row["power"] = power[policy][x] * (1 + noise(batch))
                rows.append(row)
    return pd.DataFrame(rows)


def tables(target: str, mrt: dict[str, dict[float, float]],
           power: dict[str, dict[float, float]] | None = None,
           rel_half: float = 0.01) -> dict[str, pd.DataFrame]:
    seeds = seeds_table(target, mrt, power)
    table = seeds.groupby(["policy", ihap_claims.axis_of(target)], as_index=False)["MRT"].mean()
    table = table.rename(columns={"MRT": "MRT_mean"})
    table["MRT_ci_half"] = table["MRT_mean"] * rel_half
    table["MRT_rel_half"] = rel_half
    return {target: table, f"{target}.seeds": seeds}


def check(claim_id: str, data: dict[str, pd.DataFrame], settings: dict | None = None) -> str:
    from schedsim.claims import registered

    entry = next(c for c in registered("ihap") if c.claim_id == claim_id)
    return entry.evaluate(data, settings or {}).verdict


UTILIZATIONS = (0.3, 0.5, 0.7, 0.9)


def curve(values: tuple[float, ...], xs: tuple[float, ...] = UTILIZATIONS) -> dict[float, float]:
    return dict(zip(xs, values, strict=True))


def test_ihap_best_from_medium_load() -> None:
    """IHAP lowest from U 0.5 on (worse at 0.3, outside the claimed range): reproduced; HAP
    lowest at 0.9: contradicted."""
    good = tables(ihap.F1, {"MAP": curve((1, 2, 3, 4)), "HAP": curve((1, 2, 3, 4)),
                            "IHAP": curve((1.5, 1.5, 2, 3))})
    assert check("F1-ihap-best-medium-high", good) == REPRODUCED
    bad = tables(ihap.F1, {"MAP": curve((1, 2, 3, 4)), "HAP": curve((1, 2, 3, 2)),
                           "IHAP": curve((1.5, 1.5, 2, 3))})
    assert check("F1-ihap-best-medium-high", bad) == CONTRADICTED
    assert check("F1-ihap-best-medium-high", good, {"medium_from": 0.3}) == CONTRADICTED


def test_less_power_needs_both_baselines() -> None:
    mrt = {p: curve((1, 2, 3, 4)) for p in ("MAP", "HAP", "IHAP")}
    power = {"MAP": curve((9, 9, 9, 9)), "HAP": curve((8, 8, 8, 8)),
             "IHAP": curve((5, 5, 5, 5))}
    assert check("F1-ihap-less-power", tables(ihap.F1, mrt, power)) == REPRODUCED
    power["HAP"] = curve((4, 4, 4, 4))
    assert check("F1-ihap-less-power", tables(ihap.F1, mrt, power)) == CONTRADICTED


CVS = (1.0, 2.0, 4.0, 6.0)


def test_mrt_rises_with_the_cv() -> None:
    rising = tables(ihap.F3, {p: curve((1, 2, 3, 5), CVS) for p in ("MAP", "HAP", "IHAP")})
    assert check("F3-mrt-rises", rising) == REPRODUCED
    falling = tables(ihap.F3, {"MAP": curve((1, 2, 3, 5), CVS), "HAP": curve((1, 2, 3, 5), CVS),
                               "IHAP": curve((5, 3, 2, 1), CVS)})
    assert check("F3-mrt-rises", falling) == CONTRADICTED


def test_least_sensitive_is_the_smallest_ratio() -> None:
    """MRT(6) / MRT(1): MAP 5, HAP 4, IHAP 2 -> reproduced; IHAP 6 -> contradicted."""
    base = {"MAP": curve((1, 2, 3, 5), CVS), "HAP": curve((1, 2, 3, 4), CVS)}
    calm = tables(ihap.F3, {**base, "IHAP": curve((1, 1.5, 1.8, 2), CVS)})
    assert check("F3-ihap-least-sensitive", calm) == REPRODUCED
    wild = tables(ihap.F3, {**base, "IHAP": curve((0.5, 1, 2, 3), CVS)})
    assert check("F3-ihap-least-sensitive", wild) == CONTRADICTED


@pytest.mark.parametrize("relative, verdict", [(0.02, REPRODUCED), (0.045, INCONCLUSIVE),
                                               (0.05, INCONCLUSIVE), (0.10, CONTRADICTED)])
def test_relative_error_rule(relative: float, verdict: str) -> None:
    """Family rule R1 on per-batch MRTs whose 90% half-width is about ``relative`` of the
    mean: the estimate has an interval of its own (about 0.8x to 1.3x with 30 batches), so
    5% itself is undecided."""
    spread = relative * math.sqrt(BATCHES) / t_quantile(0.95, BATCHES - 1)
    rows = [{"policy": p, "workload": f"utilization{x}", "seed": batch, "utilization": x,
             "MRT": 10.0 * (1 + spread * ((batch * 7) % 5 - 2) / math.sqrt(2))}
            for p in ("MAP", "HAP", "IHAP") for x in (0.3, 0.9)
            for batch in range(2, BATCHES + 2)]
    seeds = pd.DataFrame(rows)
    data = {ihap.F1: seeds.groupby(["policy", "utilization"], as_index=False)["MRT"].mean(),
            f"{ihap.F1}.seeds": seeds}
    found = ihap_claims.precise(data, ihap.F1, {"max_relative_error": 0.05, "level": 0.90})
    assert found.verdict == verdict
    estimate = float(found.ours.split("%")[0].removeprefix("largest "))
    assert estimate == pytest.approx(100 * relative, rel=0.05)


def test_relative_half_width_interval() -> None:
    from schedsim.stats import chi2_quantile, relative_half_width

    assert chi2_quantile(0.95, 29) == pytest.approx(42.557, rel=1e-3)
    assert chi2_quantile(0.05, 29) == pytest.approx(17.708, rel=1e-3)
    low, estimate, high = relative_half_width([9.0, 10.0, 11.0, 10.0, 9.5, 10.5], 0.9)
    assert low < estimate < high
    assert estimate == pytest.approx(0.058169, rel=1e-4)  # t(0.95, 5) s / sqrt(6) / mean
    assert all(math.isnan(v) for v in relative_half_width([1.0]))


def test_missing_policy_is_not_checkable() -> None:
    data = tables(ihap.F2, {"MAP": curve((1, 2), (1.0, 6.0))})
    assert check("F2-ihap-best", data) == "not checkable"
    assert check("F2-ihap-least-sensitive", data) == "not checkable"


def test_close_policies_are_inconclusive() -> None:
    """Equal means everywhere: nobody significantly better."""
    data = tables(ihap.F2, {p: curve((1, 2, 3, 4), CVS) for p in ("MAP", "HAP", "IHAP")})
    assert check("F2-ihap-best", data) in (INCONCLUSIVE, REPRODUCED)
    assert check("F2-ihap-best", data) != CONTRADICTED


def test_precision_columns_in_the_table() -> None:
    from schedsim.aggregate import _with_precision
    from schedsim.experiments.spec import FigureSpec, TargetSpec

    spec = TargetSpec("ihap", ihap.F1, "sweep", FigureSpec("ihap-mrt", ()),
                      precision={"MRT": 0.05})
    table = pd.DataFrame({"MRT_mean": [2.0, 4.0], "MRT_ci_half": [0.05, 0.4]})
    out = _with_precision(table, spec)
    assert list(out["MRT_rel_half"]) == [0.025, 0.1]
    assert list(out["MRT_precise"]) == [True, False]


def test_machine_and_variants() -> None:
    section = yaml.safe_load((ROOT / "config/config.yaml").read_text())["ihap"]
    machine = ihap.FAMILY.machine(section)
    assert machine.procs == 64 and sum(machine.speeds) == 96.0
    assert machine.speeds[:32] == (1.0,) * 32 and machine.speeds[32:] == (2.0,) * 32
    assert machine.load is not None and machine.load.params == {"max_percent": 30}
    variants = ihap.FAMILY.variants(section, {"cva": [1, 6]}, "")
    assert [v.name for v in variants] == ["utilization0.8_cva1_cvs4", "utilization0.8_cva6_cvs4"]
    assert variants[1].params == {"utilization": 0.8, "cv_arrival": 6.0, "cv_demand": 4.0}
    assert tuple(ihap.FAMILY.axes) == ("utilization", "cva", "cvs")  # the planner checks them


def test_an_unknown_variant_axis_is_named_at_planning_time() -> None:
    from schedsim.errors import InputError
    from schedsim.experiments.plan import build_plan

    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    for name in ("hrf", "los", "goal", "slack"):
        config[name] = {"enabled": False}
    config["ihap"]["sensitivity"] = {}
    config["ihap"]["targets"] = {"IHAP-X": {"policies": ["IHAP"], "variants": {"load": 0.5}}}
    with pytest.raises(InputError, match="IHAP-X: unknown variant axis 'load'; the ihap "
                                         "family's axes: utilization, cva, cvs"):
        build_plan(config)


def test_plan_shares_the_common_point() -> None:
    """U 0.8, CVa 1, CVs 4 is in all three figures: simulated once per policy."""
    from schedsim.experiments.plan import build_plan

    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    for name in ("hrf", "los", "goal", "slack", "cross"):
        config[name] = {"enabled": False}
    config["ihap"]["sensitivity"] = {}
    plan = build_plan(config, ROOT)
    runs = {p.run_path for p in plan.points.values()}
    assert len(runs) == 4 * (9 + 6 + 6 - 2)
    assert all(p.batches == (31, 7000, 1) for p in plan.points.values())


def test_readings_of_pmax_unit_and_execution_model() -> None:
    """The default reading runs equal split with Pmax in processors; ``e1-pooled`` reruns
    every policy on the pooled machine; ``o3-pmax-bpus`` reruns HAP and the IHAPs with
    ``pmax_unit: bpus`` and reads MAP's default run (MAP sizes in processors)."""
    from schedsim.experiments.plan import build_plan

    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    for name in ("hrf", "los", "goal", "slack"):
        config[name] = {"enabled": False}
    readings = config["ihap"]["sensitivity"]
    config["ihap"]["sensitivity"] = {r: readings[r] for r in ("o3-pmax-bpus", "e1-pooled")}
    points = [p for p in build_plan(config, ROOT).points.values() if p.family == "ihap"]
    default = [p for p in points if "@" not in p.target]
    assert {p.machine.execution for p in default} == {"equal_split"}
    assert not any(p.fixed.get("pmax_unit") for p in default)
    pooled = [p for p in points if p.target.endswith("@e1-pooled")]
    assert {p.machine.execution for p in pooled} == {"pooled"}
    assert {p.policy for p in pooled} == {"MAP", "HAP", "IHAP", "IHAP-FCFS"}
    bpus = [p for p in points if p.target.endswith("@o3-pmax-bpus")]
    assert {p.policy for p in bpus} == {"HAP", "IHAP", "IHAP-FCFS"}
    assert {p.fixed["pmax_unit"] for p in bpus} == {"bpus"}
    assert {p.machine.execution for p in bpus} == {"equal_split"}


def test_an_unknown_execution_model_is_named() -> None:
    from schedsim.errors import InputError
    from schedsim.machinespec import parse_machine

    with pytest.raises(InputError, match=re.escape(
            "ihap.machine: execution='fastest' is not an execution model; allowed: "
            "equal_split, pooled")):
        parse_machine({"procs": 64, "execution": "fastest"}, "ihap.machine")


def test_an_execution_model_needs_processors_of_different_rates() -> None:
    """On processors of one speed without a load both models are one: stating one is an
    error."""
    from schedsim.errors import InputError
    from schedsim.experiments.plan import build_plan

    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    for name in ("hrf", "los", "goal", "slack"):
        config[name] = {"enabled": False}
    config["ihap"]["sensitivity"] = {}
    config["ihap"]["machine"] = {"procs": 64, "load": None, "execution": "pooled"}
    config["ihap"]["options"]["fast_procs"] = 0
    with pytest.raises(InputError, match="neither different speeds nor a background load"):
        build_plan(config, ROOT)
