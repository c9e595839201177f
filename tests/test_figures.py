"""Figures drawn as judged, the summary page, and representative schedules (planning).

The paired differences a figure draws are the verdicts' own (``schedsim.verdicts.paired``
on the per-seed tables), read back here from the drawn artists; the summary page leads
with an overview whose shares follow the claims' rule for "explained".
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from schedsim.experiments.plan import build_plan
from schedsim.experiments.schedules import plan_schedules, resolve
from schedsim.experiments.spec import FigureSpec, TargetSpec
from schedsim.plots import Difference, draw, paired_differences
from schedsim.stats import Interval
from schedsim.summary import Pictures, family_share, summary_html
from schedsim.verdicts import paired

from helpers import drawn_differences

ROOT = Path(__file__).resolve().parents[1]
SEEDS = (1, 2, 3, 4)


def grid_spec(**figure: Any) -> TargetSpec:
    return TargetSpec(family="los", target="LOS-X", kind="sweep",
                      figure=FigureSpec("grid", ("AWT",), **figure),
                      policies=("easy", "LOS", "Delayed-LOS"), variants=("v",),
                      variant_labels={"v": {"panel": "cs", "ps": 0.5}},
                      group_by=("policy", "variant", "c_s"), x="c_s", sweep={"c_s": (1, 2)},
                      panels=(), metrics=("AWT",), policy_labels={"easy": "EASY"})


def seeds_table() -> pd.DataFrame:
    """Per-seed AWT: Delayed-LOS takes c_s (1, 2), easy and LOS do not (c_s empty)."""
    rows = []
    for seed in SEEDS:
        rows.append({"policy": "easy", "variant": "v", "c_s": math.nan, "seed": seed,
                     "AWT": 100.0 + 10 * seed, "panel": "cs", "ps": 0.5})
        rows.append({"policy": "LOS", "variant": "v", "c_s": math.nan, "seed": seed,
                     "AWT": 104.0 + 9 * seed, "panel": "cs", "ps": 0.5})
        for c_s, gain in ((1, seed - 2.5), (2, 20.0 + seed)):
            rows.append({"policy": "Delayed-LOS", "variant": "v", "c_s": float(c_s),
                         "seed": seed, "AWT": 100.0 + 10 * seed - gain, "panel": "cs",
                         "ps": 0.5})
    return pd.DataFrame(rows)


def aggregated(seeds: pd.DataFrame) -> pd.DataFrame:
    from schedsim.stats import summarize_seeds

    table = summarize_seeds(seeds, ["policy", "variant", "c_s"], ["AWT"], 0.95)
    table["panel"], table["ps"] = "cs", 0.5
    table.attrs["seeds"] = seeds
    return table


def per_seed(seeds: pd.DataFrame, policy: str, c_s: float | None) -> pd.Series:
    rows = seeds[seeds["policy"] == policy]
    rows = rows[rows["c_s"].isna()] if c_s is None else rows[rows["c_s"] == c_s]
    return rows.set_index("seed")["AWT"]


def test_a_pair_is_the_verdicts_paired_difference() -> None:
    seeds = seeds_table()
    spec = grid_spec(compare=(("Delayed-LOS", "easy"), ("Delayed-LOS", "LOS")))
    found = paired_differences(seeds, spec, "AWT")
    assert [(d.label, d.x) for d in found] == [
        ("Delayed-LOS \u2212 EASY", 1.0), ("Delayed-LOS \u2212 EASY", 2.0),
        ("Delayed-LOS \u2212 LOS", 1.0), ("Delayed-LOS \u2212 LOS", 2.0)]
    spec_easy = per_seed(seeds, "easy", None)
    for diff, c_s in zip(found[:2], (1.0, 2.0), strict=True):
        expected = paired(per_seed(seeds, "Delayed-LOS", c_s), spec_easy, 0.95)
        assert diff.interval == expected  # A - B, easy's single point matched at every C_s
    assert found[0].interval.mean == pytest.approx(0.0)
    assert not found[0].significant  # gains of -1.5 .. 1.5: the interval covers 0
    assert found[1].significant and found[1].interval.high < 0


def test_compare_x_is_each_curve_minus_its_reference() -> None:
    seeds = seeds_table()
    spec = grid_spec(compare_x=1.0)
    found = paired_differences(seeds, spec, "AWT")
    assert [d.x for d in found] == [1.0, 2.0]
    assert found[0].interval.mean == 0.0
    expected = paired(per_seed(seeds, "Delayed-LOS", 2.0), per_seed(seeds, "Delayed-LOS", 1.0))
    assert found[1].interval == expected


def test_the_drawn_intervals_are_the_computed_ones() -> None:
    seeds = seeds_table()
    spec = grid_spec(compare=(("Delayed-LOS", "easy"),))
    spec = TargetSpec(**{**spec.__dict__, "panels": ()})
    fig = draw(aggregated(seeds), _with_panel(spec))
    drawn = [point for series in drawn_differences(fig)["paired-difference:AWT"]
             for point in series]
    expected = paired_differences(seeds, spec, "AWT")
    assert len(drawn) == len(expected)
    for (label, _, mean, low, high), diff in zip(drawn, expected, strict=True):
        assert label == diff.label and mean == pytest.approx(diff.interval.mean)
        assert (low, high) == pytest.approx((diff.interval.low, diff.interval.high)) or \
            math.isnan(diff.interval.half_width)


def _with_panel(spec: TargetSpec) -> TargetSpec:
    from schedsim.experiments.spec import PanelSpec

    return TargetSpec(**{**spec.__dict__, "panels": (PanelSpec("cs", spec.policies),)})


def test_one_legend_never_draws_two_names_alike() -> None:
    """Panels with policies of their own (LOS-F11: EASY-E in one, EASY-DE in the other)
    and differences of their own share the figure's one legend: every name in it is drawn
    in a style (colour, marker, line) no other name has."""
    from schedsim.experiments.spec import PanelSpec

    base = seeds_table()
    other = base.assign(policy=base["policy"] + "-D", panel="het", variant="w")
    seeds = pd.concat([base, other], ignore_index=True)
    table = aggregated(seeds)
    table["panel"] = table["variant"].map({"v": "cs", "w": "het"})
    spec = TargetSpec(**{**grid_spec().__dict__,
                         "policies": ("easy", "LOS", "Delayed-LOS", "easy-D", "LOS-D",
                                      "Delayed-LOS-D"),
                         "variants": ("v", "w"),
                         "variant_labels": {"v": {"panel": "cs", "ps": 0.5},
                                            "w": {"panel": "het", "ps": 0.5}},
                         "panels": (PanelSpec("cs", ("easy", "LOS", "Delayed-LOS")),
                                    PanelSpec("het", ("easy-D", "LOS-D", "Delayed-LOS-D"))),
                         "figure": FigureSpec("grid", ("AWT",), compare=(
                             ("Delayed-LOS", "easy"), ("Delayed-LOS", "LOS"),
                             ("Delayed-LOS-D", "easy-D"), ("Delayed-LOS-D", "LOS-D")))})
    styles = legend_styles(draw(table, spec))
    assert len(styles) == 10  # six policies, four differences
    assert all(len(drawn) == 1 for drawn in styles.values()), styles
    assert len({next(iter(drawn)) for drawn in styles.values()}) == len(styles), styles


@pytest.mark.parametrize("target", ["SLACK-F9", "SLACK-F17"])
def test_slack_machines_in_one_legend_never_draw_two_names_alike(target: str) -> None:
    """SLACK-F9 and F17 draw the time-sliced and the plain machine in rows of their own,
    and their paired differences as curves (F17) or rows of a forest (F9, one x); the
    figure's one legend names each policy, goal and difference in a style of its own."""
    import numpy as np

    from schedsim.experiments.family import FIGURES, get_family, load_part
    from schedsim.stats import summarize_seeds

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for family in ("hrf", "los", "goal", "ihap"):
        config[family] = {"enabled": False}
    config["slack"]["sensitivity"] = {}
    spec = build_plan(config, ROOT).targets[target]
    metrics = list(spec.figure.metrics)
    draws = np.random.default_rng(1)
    rows = [{"policy": policy, "workload": variant, "goal": goal, "seed": seed, **labels,
             **{metric: float(draws.uniform(1, 5)) for metric in metrics}}
            for policy in spec.policies for variant, labels in spec.variant_labels.items()
            for goal in (("G1", "G2") if policy in ("scojo-slack", "slack-backfill")
                         else (None,))
            for seed in SEEDS]
    seeds = pd.DataFrame(rows)
    table = summarize_seeds(seeds, list(spec.group_by), metrics, 0.95).merge(
        seeds[["workload", "aarr", "load_name", "panel"]].drop_duplicates(), on="workload")
    table.attrs["seeds"] = seeds
    load_part(get_family(spec.family), FIGURES)
    styles = legend_styles(draw(table, spec))
    assert len(styles) == 10  # two machines' three curves (or bars) each, four differences
    assert all(len(drawn) == 1 for drawn in styles.values()), styles
    assert len({next(iter(drawn)) for drawn in styles.values()}) == len(styles), styles


def legend_styles(fig: Any) -> dict[str, set[tuple[str, str, str]]]:
    """Each name of the figure's one legend: the styles (colour, marker, line) it is drawn
    in on the panels (an error bar's: its data line's; a bar's: its colour; points not
    counted)."""
    from matplotlib.colors import to_hex

    styles: dict[str, set[tuple[str, str, str]]] = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            line = getattr(handle, "lines", [handle])[0]
            if hasattr(handle, "patches"):
                drawn = (to_hex(handle.patches[0].get_facecolor()), "bar", "")
            elif hasattr(line, "get_marker"):
                drawn = (to_hex(line.get_color()), line.get_marker(), line.get_linestyle())
            else:
                continue
            styles.setdefault(label, set()).add(drawn)
    (legend,) = fig.legends
    assert set(styles) <= {text.get_text() for text in legend.get_texts()}
    return styles


def test_a_figure_without_its_per_seed_table_says_what_it_needs() -> None:
    table = aggregated(seeds_table())
    table.attrs.clear()
    with pytest.raises(ValueError, match="per-seed table"):
        draw(table, _with_panel(grid_spec()))


def test_figure_compare_is_checked_at_planning() -> None:
    config = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
    config["los"]["targets"]["LOS-F5"]["figure"]["compare"] = [["Delayed-LOS", "EASY-D"]]
    with pytest.raises(ValueError, match=re.escape("LOS-F5: figure.compare [Delayed-LOS, EASY-D]")):
        build_plan(config)
    config = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
    config["hrf"]["targets"]["HRF-F5"]["figure"]["compare_x"] = 0.55
    with pytest.raises(ValueError, match=re.escape("compare_x=0.55: must be one of the swept")):
        build_plan(config)


# ----------------------------------------------------------------------------- summary


def claims() -> pd.DataFrame:
    rows = [("HRF-F5", "F5-a", "reproduced"), ("HRF-F5", "F5-b", "contradicted"),
            ("HRF-F7", "F7-c", "inconclusive"), ("HRF-F7", "F7-d", "informational"),
            ("LOS-T2", "T2-e", "not checkable")]
    return pd.DataFrame([{"target": t, "claim_id": c, "statement": f"statement {c}",
                          "paper_value": "p", "our_value": "o", "verdict": v, "rule": "r",
                          "note": ""} for t, c, v in rows])


def sensitivity() -> pd.DataFrame:
    return pd.DataFrame([
        {"claim_id": "F5-b", "target": "HRF-F5", "reading": "default", "about": "",
         "verdict": "contradicted", "changed": False, "our_value": "", "rule": ""},
        {"claim_id": "F5-b", "target": "HRF-F5", "reading": "other", "about": "x",
         "verdict": "reproduced", "changed": True, "our_value": "", "rule": ""}])


def test_explained_claims_follow_the_rule() -> None:
    assert family_share(claims(), "hrf", sensitivity()).explained == (("F5-b", "other"),)
    assert family_share(claims(), "hrf", None).explained == ()


def test_the_summary_leads_with_an_overview_and_links(tmp_path: Path) -> None:
    from PIL import Image

    png = tmp_path / "HRF-F5.png"
    Image.new("RGB", (40, 30), (200, 10, 10)).save(png)
    table = pd.DataFrame({"target": ["LOS-T2"], "month": ["2004-01"], "jobs": [3057.0]})
    pictures = Pictures({"HRF-F5": png}, {"LOS-T2": table}, {"HRF-F5": png},
                        {"HRF-F5": "HRFBf, seed 1"})
    page = summary_html(claims(), pictures, {"LOS-F1": "no log"},
                        {"HRF-sensitivity": sensitivity()})
    overview = page[page.index("id='overview-table'"):page.index("</table>")]
    assert "<td>" in overview and "2 of 3 (67%)" in overview  # F5-a and explained F5-b
    assert page.index("id='overview'") < page.index("id='contents'") < page.index("<img")
    assert "href='#sens-hrf-F5-b'" in page and "id='sens-hrf-F5-b'" in page
    assert "href='#fig-HRF-F5'" in page and "id='fig-HRF-F5'" in page
    assert "id='claim-hrf-F5-b'" in page and "href='#claim-hrf-F5-b'" in page
    assert "<td class='num'>3,057</td>" not in page and "<td class='num'>3057</td>" in page
    assert "Representative schedule: HRFBf, seed 1" in page
    assert "src='http" not in page and "href='http" not in page  # self-contained


# ----------------------------------------------------------------------------- schedules


def test_schedule_blocks_pick_one_point() -> None:
    config = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
    plan = build_plan(config)
    found = plan_schedules(config, plan)
    spec = found["LOS-F5"]
    assert spec.point.policy == "Delayed-LOS" and spec.inner == {"c_s": 8}
    assert spec.end == 7 * 86400.0 and spec.seed == plan.points[spec.point.run_path].seeds[0]
    points = [plan.points[p] for p in plan.inputs_of["LOS-F5"]]
    for block, message in (
            ({"policy": "EASY-D"}, "not one the target runs"),
            ({"policy": "Delayed-LOS", "values": {"c_s": 3}}, "pick no point"),
            ({"policy": "Delayed-LOS"}, "give c_s in values"),
            ({"policy": "Delayed-LOS", "values": {"c_s": 8}, "seed": 99}, "seed 99"),
            ({"policy": "Delayed-LOS", "values": {"c_s": 8}, "end": "soon"}, "end='soon'"),
            ({"policy": "Delayed-LOS", "values": {"c_s": 8}, "start": "2d", "end": "1d"},
             "must be after")):
        with pytest.raises(ValueError, match=message):
            resolve("LOS-F5", block, points)


def test_a_schedule_block_on_a_derived_target_is_an_error() -> None:
    config = yaml.safe_load((ROOT / ".test" / "config" / "config.yaml").read_text())
    config["los"]["targets"]["LOS-T4"]["schedule"] = {"policy": "LOS"}
    with pytest.raises(ValueError, match="LOS-T4: schedule: a derived target"):
        plan_schedules(config, build_plan(config))


def test_difference_significance_is_the_verdicts() -> None:
    inside = Difference("a", "A", "B", "", "", "AWT", 1.0, Interval(1.0, 2.0, 4))
    outside = Difference("a", "A", "B", "", "", "AWT", 1.0, Interval(-3.0, 2.0, 4))
    none = Difference("a", "A", "B", "", "", "AWT", 1.0, Interval(-3.0, math.nan, 1))
    assert not inside.significant and outside.significant and not none.significant


def test_a_figure_does_not_depend_on_how_its_spec_was_read(tmp_path: Path) -> None:
    """The rule passes the spec as JSON (keys sorted); a figure drawn from the plan (config
    order) must be the same bytes."""
    from schedsim.experiments.spec import target_from_json, to_json
    from schedsim.plots import save_one

    spec = _with_panel(grid_spec(compare=(("Delayed-LOS", "easy"),)))
    spec = TargetSpec(**{**spec.__dict__,
                         "variant_labels": {"v": {"ps": 0.5, "load": 0.9, "panel": "cs"}}})
    for name, drawn in (("plan", spec), ("json", target_from_json(to_json(spec)))):
        save_one(draw(aggregated(seeds_table()), drawn), tmp_path / f"{name}.png")
    assert (tmp_path / "plan.png").read_bytes() == (tmp_path / "json.png").read_bytes()
