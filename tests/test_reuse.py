"""Simulations an earlier point runs: found in the plan, their rows relabelled.

A run file made partly or wholly from relabelled rows must be the file the simulations
would have written, byte for byte (same rows, same schema, same metadata).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from schedsim.errors import InputError
from schedsim.experiments import run
from schedsim.experiments.cli import main
from schedsim.experiments.reuse import (
    Reuse,
    reusable_results,
    simulation_keys,
    simulation_sources,
)
from schedsim.experiments.spec import MachineSpec, PointSpec, to_json
from schedsim.workloads.base import get_model


def _moldable(tmp_path: Path) -> dict[str, str]:
    files = {}
    for seed in (1, 2):
        path = tmp_path / f"m{seed}.swf"
        path.write_text(get_model("cirne01").run(40, seed, {"mean_interarrival": 600.0,
                                                            "pattern": "anl", "procs": 32}))
        files[str(seed)] = str(path)
    return files


def _hrf_point(files: dict[str, str], policy: str, alpha: float,
               thresholds: tuple[float, ...] = (0.5, 1.0)) -> PointSpec:
    return PointSpec(family="hrf", target="HRF-F7", policy=policy, point=f"heavy_alpha{alpha}",
                     variant="heavy", variant_column="load",
                     labels={"mean_interarrival": 600.0}, machine=MachineSpec(32),
                     model="cirne01", seeds=(1, 2), workloads=files, params={"alpha": alpha},
                     inner={"threshold": thresholds})


def _run(spec: PointSpec, out: Path, *rows_from: Path) -> bytes:
    extra = [arg for path in rows_from for arg in ("--rows-from", str(path))]
    assert main(["run-point", "--spec", to_json(spec), "--code-version", "c", *extra,
                 "--out", str(out)]) == 0
    return out.read_bytes()


def test_a_parameter_the_policy_does_not_read_gives_the_same_simulations(
        tmp_path: Path) -> None:
    files = _moldable(tmp_path)
    fair = {f"p{a}": _hrf_point(files, "SbmFairFcfs", a) for a in (0.5, 0.8)}
    hrf = {f"h{a}": _hrf_point(files, "HRFFcfs", a) for a in (0.5, 0.8)}
    assert simulation_sources({**fair, **hrf}) == {"p0.8": Reuse(("p0.5",), simulates=False)}
    assert simulation_keys(replace(fair["p0.5"], chosen={"x": "c.json"})) is None
    other_seeds = replace(fair["p0.8"], seeds=(2, 1))  # the same simulations, other rows
    assert simulation_sources({"a": fair["p0.5"], "b": other_seeds}) == {
        "b": Reuse(("a",), simulates=False)}


def test_relabelled_rows_are_the_run_file_the_simulations_write(tmp_path: Path) -> None:
    files = _moldable(tmp_path)
    source, point = (_hrf_point(files, "SbmFairBf", a) for a in (0.5, 0.8))
    _run(source, tmp_path / "source.parquet")
    simulated = _run(point, tmp_path / "simulated.parquet")
    relabelled = _run(point, tmp_path / "relabelled.parquet", tmp_path / "source.parquet")
    assert relabelled == simulated


def test_relabelling_keeps_nan_columns_and_inner_values(tmp_path: Path) -> None:
    """A point with NaN-filled columns and its value under another name (a default)."""
    path = tmp_path / "w.swf"
    params = {"typed": False, "nodes": 16, "uhi": 4.0, "umed": 2.5}
    path.write_text(get_model("lublin99").run(60, 3, params))
    base = PointSpec(family="slack", target="SLACK-F9", policy="slack-backfill", point="w",
                     variant="w", variant_column="workload", labels={"aarr": 10.0},
                     machine=MachineSpec(16), model="lublin99", seeds=(3,),
                     workloads={"3": str(path)}, columns=("slack_up",),
                     inner={"goal": ("G1", "G2")})
    named = replace(base, target="SLACK-F11", point="w_lookahead20",
                    params={"lookahead": 20}, columns=(), labels={"aarr": 10.0, "panel": ""})
    assert simulation_sources({"a": base, "b": named}) == {"b": Reuse(("a",), simulates=False)}
    _run(base, tmp_path / "base.parquet")
    assert _run(named, tmp_path / "relabelled.parquet", tmp_path / "base.parquet") \
        == _run(named, tmp_path / "simulated.parquet")


def test_a_grid_that_crosses_another_simulates_only_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HRF-F7's alpha x threshold grid holds HRF-F5's threshold 0.9 and HRF-F6's alpha
    1.0: each simulation runs in the first point that has it."""
    files = _moldable(tmp_path)
    f5 = replace(_hrf_point(files, "HRFFcfs", 0.5), target="HRF-F5", inner={},
                 point="heavy_alpha0.5_threshold0.9", params={"alpha": 0.5, "threshold": 0.9})
    f6 = replace(_hrf_point(files, "HRFFcfs", 1.0, (0.4, 0.9)), target="HRF-F6", point="f6")
    f7 = {a: _hrf_point(files, "HRFFcfs", a, (0.4, 0.5, 0.9)) for a in (0.5, 1.0)}
    plan = {"f5": f5, "f6": f6, "f7a": f7[0.5], "f7b": f7[1.0]}
    assert simulation_sources(plan) == {"f7a": Reuse(("f5",), simulates=True),
                                        "f7b": Reuse(("f6",), simulates=True)}
    _run(f5, tmp_path / "f5.parquet")
    _run(f6, tmp_path / "f6.parquet")
    ran: list[dict] = []
    simulate_once = run.simulate_once
    monkeypatch.setattr(run, "simulate_once",
                        lambda *args: ran.append(args[3]) or simulate_once(*args))
    for alpha, source, left in ((0.5, "f5", [0.4, 0.5]), (1.0, "f6", [0.5])):
        simulated = _run(f7[alpha], tmp_path / "simulated.parquet")
        ran.clear()
        reused = _run(f7[alpha], tmp_path / "reused.parquet", tmp_path / f"{source}.parquet")
        assert reused == simulated
        assert [params["threshold"] for params in ran] == left * 2  # two seeds
    found = reusable_results(f7[1.0], [tmp_path / "f6.parquet"])
    assert len(found) == 4  # thresholds 0.4 and 0.9, two seeds: 0.5 is left to run


def test_rows_from_two_run_files_and_none_simulated(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A point whose simulations two earlier points hold between them runs none."""
    files = _moldable(tmp_path)
    low = replace(_hrf_point(files, "HRFBf", 0.8, (0.4,)), target="HRF-F6", point="low")
    high = replace(_hrf_point(files, "HRFBf", 0.8), target="HRF-F5", inner={},
                   point="high", params={"alpha": 0.8, "threshold": 1.0})
    grid = _hrf_point(files, "HRFBf", 0.8, (1.0, 0.4))
    assert simulation_sources({"low": low, "high": high, "grid": grid}) == {
        "grid": Reuse(("high", "low"), simulates=False)}
    _run(low, tmp_path / "low.parquet")
    _run(high, tmp_path / "high.parquet")
    simulated = _run(grid, tmp_path / "simulated.parquet")
    monkeypatch.setattr(run, "simulate_once", None)  # calling it fails the test
    assert _run(grid, tmp_path / "reused.parquet", tmp_path / "high.parquet",
                tmp_path / "low.parquet") == simulated


def test_a_run_file_of_other_simulations_is_refused(tmp_path: Path) -> None:
    files = _moldable(tmp_path)
    _run(_hrf_point(files, "HRFFcfs", 0.5), tmp_path / "source.parquet")
    with pytest.raises(InputError, match="runs none of the simulations"):
        reusable_results(_hrf_point(files, "HRFFcfs", 0.8), [tmp_path / "source.parquet"])


def test_a_point_that_is_always_simulated_is_refused(tmp_path: Path) -> None:
    files = _moldable(tmp_path)
    point = replace(_hrf_point(files, "SbmFairFcfs", 0.8), chosen={"alpha": "c.json"})
    with pytest.raises(InputError, match="always simulated"):
        reusable_results(point, [tmp_path / "source.parquet"])


def test_a_missing_run_file_or_another_file_is_named(tmp_path: Path) -> None:
    point = _hrf_point(_moldable(tmp_path), "SbmFairFcfs", 0.8)
    with pytest.raises(InputError, match="no such run file"):
        reusable_results(point, [tmp_path / "absent.parquet"])
    (tmp_path / "table.csv").write_text("policy,AWT\nHRFFcfs,1.0\n")
    with pytest.raises(InputError, match=r"table\.csv: not a run file"):
        reusable_results(point, [tmp_path / "table.csv"])
