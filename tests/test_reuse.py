"""Points that run an earlier point's simulations: found in the plan, rows relabelled.

A relabelled run file must be the file the simulations would have written, byte for
byte (same rows, same schema, same metadata).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from schedsim.errors import InputError
from schedsim.experiments.cli import main
from schedsim.experiments.reuse import equivalent_points, simulation_keys
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


def _hrf_point(files: dict[str, str], policy: str, alpha: float) -> PointSpec:
    return PointSpec(family="hrf", target="HRF-F7", policy=policy, point=f"heavy_alpha{alpha}",
                     variant="heavy", variant_column="load",
                     labels={"mean_interarrival": 600.0}, machine=MachineSpec(32),
                     model="cirne01", seeds=(1, 2), workloads=files, params={"alpha": alpha},
                     inner={"threshold": (0.5, 1.0)})


def _run(spec: PointSpec, out: Path, same_as: Path | None = None) -> bytes:
    extra = ["--same-as", str(same_as)] if same_as else []
    assert main(["run-point", "--spec", to_json(spec), "--code-version", "c", *extra,
                 "--out", str(out)]) == 0
    return out.read_bytes()


def test_a_parameter_the_policy_does_not_read_gives_the_same_simulations(
        tmp_path: Path) -> None:
    files = _moldable(tmp_path)
    fair = {f"p{a}": _hrf_point(files, "SbmFairFcfs", a) for a in (0.5, 0.8)}
    hrf = {f"h{a}": _hrf_point(files, "HRFFcfs", a) for a in (0.5, 0.8)}
    assert equivalent_points({**fair, **hrf}) == {"p0.8": "p0.5"}  # HRF reads alpha
    assert simulation_keys(replace(fair["p0.5"], chosen={"x": "c.json"})) is None
    other_seeds = replace(fair["p0.8"], seeds=(2, 1))
    assert equivalent_points({"a": fair["p0.5"], "b": other_seeds}) == {}


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
    assert equivalent_points({"a": base, "b": named}) == {"b": "a"}
    _run(base, tmp_path / "base.parquet")
    assert _run(named, tmp_path / "relabelled.parquet", tmp_path / "base.parquet") \
        == _run(named, tmp_path / "simulated.parquet")


def test_a_run_file_of_other_simulations_is_refused(tmp_path: Path) -> None:
    files = _moldable(tmp_path)
    _run(_hrf_point(files, "HRFFcfs", 0.5), tmp_path / "source.parquet")
    with pytest.raises(InputError, match="does not run the simulations"):
        from schedsim.experiments.reuse import rows_from_equivalent

        rows_from_equivalent(_hrf_point(files, "HRFFcfs", 0.8), tmp_path / "source.parquet")


def test_a_missing_run_file_is_named(tmp_path: Path) -> None:
    from schedsim.experiments.reuse import rows_from_equivalent

    point = _hrf_point(_moldable(tmp_path), "SbmFairFcfs", 0.8)
    with pytest.raises(InputError, match="no such run file"):
        rows_from_equivalent(point, tmp_path / "absent.parquet")
