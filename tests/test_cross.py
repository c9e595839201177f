"""Across the papers: the paired tables against EASY and against each target's best paper
policy, their figures, and the summary page that leads with them."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedsim.experiments.families import cross, cross_figures  # noqa: F401  (its figures)
from schedsim.experiments.spec import FigureSpec, TargetSpec
from schedsim.plots import target_figure
from schedsim.summary import summary_html
from schedsim.verdicts import paired

ROOT = Path(__file__).resolve().parents[1]
RIGID = ["fcfs", "easy", "conservative", "LOS", "Delayed-LOS", "slack-backfill",
         "bf-fcfs-backfill", "bf-lxf-backfill", "goal-oriented"]


def seeds_table(target: str, values: dict[tuple[str, object], list[float]],
                param: str = "c_s") -> pd.DataFrame:
    """A per-seed table as aggregate writes it: target, policy, variant, param, seed, ...."""
    rows = []
    for (policy, value), metric in values.items():
        for seed, awt in enumerate(metric, start=1):
            rows.append({"target": target, "policy": policy, "workload": "w1",
                         param: value, "load": 0.9, "seed": seed, "n_points": 1,
                         "AWT": awt, "BSLD": awt / 10, "utilization": 0.8})
    return pd.DataFrame(rows)


def aggregated(seeds: pd.DataFrame) -> pd.DataFrame:
    keys = [c for c in seeds.columns[: seeds.columns.get_loc("seed")]]
    means = seeds.groupby(keys[1:], dropna=False, sort=False)["AWT"].mean().reset_index()
    means.insert(0, "target", seeds["target"].iloc[0])
    return means.rename(columns={"AWT": "AWT_mean"})


def derived(function: str, sources: list[str], args: dict[str, object]) -> TargetSpec:
    return TargetSpec(family="cross", target="CROSS-T", kind="derived",
                      figure=FigureSpec("table"), sources=tuple(sources), function=function,
                      args=args, module=cross.__name__)


def test_versus_baseline_is_the_paired_difference_over_replications() -> None:
    values = {("easy", math.nan): [100.0, 200.0, 300.0],
              ("fcfs", math.nan): [150.0, 255.0, 352.0]}
    seeds = seeds_table("CROSS-A", values)
    tables = {"CROSS-A": aggregated(seeds), "CROSS-A.seeds": seeds}
    table = cross.versus_baseline(derived("cross-versus-baseline", ["CROSS-A"],
                                          {"metrics": ["AWT"]}), tables)
    row = table[table["policy"] == "fcfs"].iloc[0]
    expected = paired(pd.Series([150.0, 255.0, 352.0]), pd.Series([100.0, 200.0, 300.0]))
    assert row["diff_mean"] == pytest.approx(expected.mean) == pytest.approx(52.3333333)
    assert (row["diff_low"], row["diff_high"]) == pytest.approx((expected.low, expected.high))
    assert row["rel_mean"] == pytest.approx(expected.mean / 200.0)
    assert row["reading"] == "worse" and row["n"] == 3
    assert table[table["policy"] == "easy"].iloc[0]["reading"] == "baseline"


def test_versus_best_picks_the_best_paper_configuration_and_pairs_with_it() -> None:
    values = {("easy", math.nan): [100.0, 120.0, 140.0],
              ("LOS", 1.0): [90.0, 100.0, 110.0],
              ("LOS", 4.0): [95.0, 99.0, 130.0],
              ("sjf-easy", math.nan): [80.0, 95.0, 100.0]}
    seeds = seeds_table("LOS-X", values)
    tables = {"LOS-X": aggregated(seeds), "LOS-X.seeds": seeds}
    table = cross.versus_best(derived("versus-best", ["LOS-X"], {"policy": "sjf-easy"}),
                              tables)
    row = table.iloc[0]
    assert row["best_paper_policy"] == "LOS (c_s 1)"
    expected = paired(pd.Series([80.0, 95.0, 100.0]), pd.Series([90.0, 100.0, 110.0]))
    assert row["diff_mean"] == pytest.approx(expected.mean)
    assert row["reading"] == ("better" if expected.high < 0 else "no difference")
    with pytest.raises(ValueError, match="does not run nope"):
        cross.versus_best(derived("versus-best", ["LOS-X"], {"policy": "nope"}), tables)


def test_a_parameter_chosen_once_per_variant_is_part_of_the_policy() -> None:
    seeds = seeds_table("LOS-Y", {("LOS", 3.0): [1.0, 2.0], ("easy", math.nan): [2.0, 3.0]})
    assert set(cross.configurations(seeds, "workload", [])) == {"LOS", "easy"}


def test_the_figures_draw(tmp_path: Path) -> None:
    values = {(p, math.nan): [100.0 + i, 120.0 + 2 * i, 90.0 + i] for i, p in enumerate(RIGID)}
    seeds = seeds_table("CROSS-A", values).assign(variant="KTH-SP2_load0.9")
    seeds = seeds.drop(columns=["workload"])
    seeds.insert(2, "variant", seeds.pop("variant"))
    tables = {"CROSS-A": aggregated(seeds), "CROSS-A.seeds": seeds}
    table = cross.versus_baseline(derived("cross-versus-baseline", ["CROSS-A"], {}), tables)
    spec = derived("cross-versus-baseline", ["CROSS-A"], {})
    for name, drawn in (("cross-logs", table),):
        target_figure(drawn, TargetSpec(**{**spec.__dict__, "figure": FigureSpec(name)}),
                      tmp_path / f"{name}.png", tmp_path / f"{name}.pdf")
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
    assert set(table["log"]) == {"KTH-SP2 at load 0.9"}
    best = cross.versus_best(derived("versus-best", ["CROSS-A"], {"policy": "fcfs"}), tables)
    assert best.iloc[0]["best_paper_policy"] == "easy"  # the lowest AWT but fcfs's
    target_figure(best, TargetSpec(**{**spec.__dict__, "figure": FigureSpec("versus-best")}),
                  tmp_path / "best.png", tmp_path / "best.pdf")
    assert (tmp_path / "best.png").stat().st_size > 1000


def test_the_summary_page_leads_with_the_cross_paper_figure(tmp_path: Path) -> None:
    claims = pd.DataFrame([{"target": "LOS-F7", "claim_id": "c", "statement": "s",
                            "paper_value": "", "our_value": "", "verdict": "reproduced",
                            "rule": "r", "note": ""}])
    from PIL import Image

    figures = {}
    for name in ("LOS-F7", "CROSS-LOGS"):
        figures[name] = tmp_path / f"{name}.png"
        Image.new("RGB", (20, 10), (10, 10, 200)).save(figures[name])
    page = summary_html(claims, figures, lead=["CROSS-LOGS"])
    assert page.index("alt='CROSS-LOGS'") < page.index("<h3 id='LOS-F7'>")
    assert page.count("alt='CROSS-LOGS'") == 1


def test_a_summary_page_without_any_claim_shows_the_cross_paper_figure(tmp_path: Path) -> None:
    """Only the cross section enabled: claims.csv has its header and no row."""
    claims = pd.DataFrame(columns=["target", "claim_id", "statement", "paper_value",
                                   "our_value", "verdict", "rule", "note"])
    from PIL import Image

    figure = tmp_path / "CROSS-LOGS.png"
    Image.new("RGB", (20, 10), (10, 10, 200)).save(figure)
    page = summary_html(claims, {"CROSS-LOGS": figure}, lead=["CROSS-LOGS"])
    assert page.count("alt='CROSS-LOGS'") == 1 and "no judged claim" in page


def test_the_config_runs_every_rigid_job_policy_on_the_five_logs() -> None:
    for path in ("config/config.yaml", ".test/config/config.yaml"):
        config = yaml.safe_load((ROOT / path).read_text())
        targets = config["cross"]["targets"]
        logs = [t["trace"]["name"] for t in targets.values() if "trace" in t]
        assert logs == ["KTH-SP2", "SDSC-BLUE", "HPC2N", "LLNL-Thunder", "LLNL-Atlas"]
        assert all(set(config["traces"]["logs"]) >= set(logs) for _ in logs)
        assert all(t["policies"] == RIGID for t in targets.values() if "trace" in t)
        assert targets["CROSS-LOGS"]["sources"] == [t for t in targets if t != "CROSS-LOGS"]
