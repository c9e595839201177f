"""Workload batches: every seed file of a variant written by one process
(``python -m schedsim.experiments generate``), byte for byte what ``schedsim generate``
writes for each seed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schedsim import cli as schedsim_cli
from schedsim.experiments import cli as experiments_cli
from schedsim.experiments.plan import workload_batches
from schedsim.experiments.spec import WorkloadBatch, batch_from_json, to_json

# Parameters as the plan holds them (config values: floats, ints, booleans).
MODELS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "lublin99": ("swf", 400, {"aarr": 10.73, "arar": 1.0225, "typed": False}),
    "cirne01": ("swf", 60, {"mean_interarrival": 2000.0, "pattern": "anl", "procs": 128}),
    "lublin-los": ("cwf", 120, {"load": 0.9, "load_tolerance": 0.001, "pd": 0.0, "pe": 0.0,
                                "pr": 0.0, "ps": 0.2}),
    "hyperexp": ("swf", 500, {"cv_arrival": 1.0, "cv_demand": 4.0, "demand_mean": 16,
                              "pmax": 32, "procs": 64, "util_basis": "processors",
                              "utilization": 0.8}),
}
SEEDS = (1, 2, 7)


def single_file(tmp_path: Path, model: str, jobs: int, seed: int,
                params: dict[str, Any], ext: str) -> bytes:
    """``schedsim generate`` of one seed, given ``--param`` as the workflow used to give it."""
    out = tmp_path / "single" / f"seed{seed}.{ext}"
    out.parent.mkdir(parents=True, exist_ok=True)
    items = [arg for key, value in params.items() for arg in ("--param", f"{key}={value}")]
    argv = ["generate", model, "--jobs", str(jobs), "--seed", str(seed), *items, "--out",
            str(out)]
    assert schedsim_cli.main(argv) == 0
    return out.read_bytes()


@pytest.mark.parametrize("model", sorted(MODELS))
def test_batch_files_equal_single_schedsim_generate_runs(tmp_path: Path, model: str) -> None:
    ext, jobs, params = MODELS[model]
    batch = WorkloadBatch(name=f"fam/{model}", ext=ext, model=model, jobs=jobs,
                          params=params, seeds=SEEDS)
    outputs = [str(tmp_path / p) for p in batch.paths]
    argv = ["generate", "--spec", to_json(batch), "--out", *outputs]
    assert experiments_cli.main(argv) == 0
    for seed, out in zip(SEEDS, outputs, strict=True):
        assert Path(out).read_bytes() == single_file(tmp_path, model, jobs, seed, params, ext)
    leftovers = [p.name for p in Path(outputs[0]).parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []  # written through temporary files, all renamed


def test_outputs_must_be_the_seed_files_in_order(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    batch = WorkloadBatch(name="fam/v", ext="swf", model="lublin99", jobs=10, seeds=(1, 2))
    swapped = [str(tmp_path / "seed2.swf"), str(tmp_path / "seed1.swf")]
    assert experiments_cli.main(["generate", "--spec", to_json(batch), "--out", *swapped]) == 2
    assert experiments_cli.main(["generate", "--spec", to_json(batch), "--out",
                                 swapped[0]]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert len(errors) == 2 and "not the file of seed 1" in errors[0]
    assert not list(tmp_path.iterdir())


def entry(model: str, seed: int, **params: Any) -> dict[str, Any]:
    return {"model": model, "jobs": 100, "params": params, "seed": seed}


def test_workload_files_group_by_variant_with_sorted_seeds() -> None:
    workloads = {
        "results/workloads/los/a/seed2.cwf": entry("lublin-los", 2, load=0.5),
        "results/workloads/los/a/seed1.cwf": entry("lublin-los", 1, load=0.5),
        "results/workloads/los@lead/a/seed1.cwf": entry("lublin-los", 1, load=0.5),
        "results/workloads/goal/HPC2N_2003-06/seed1.swf": {
            **entry("swf-month", 1, month="2003-06"), "input": "logs/HPC2N.swf.gz"},
    }
    batches = workload_batches(workloads)
    assert list(batches) == ["los/a", "los@lead/a", "goal/HPC2N_2003-06"]
    assert batches["los/a"].seeds == (1, 2) and batches["los/a"].ext == "cwf"
    assert batches["los/a"].paths == ["results/workloads/los/a/seed1.cwf",
                                      "results/workloads/los/a/seed2.cwf"]
    assert batches["goal/HPC2N_2003-06"].input == "logs/HPC2N.swf.gz"
    assert sorted(p for b in batches.values() for p in b.paths) == sorted(workloads)
    for batch in batches.values():
        assert batch_from_json(to_json(batch)) == batch


def test_a_variant_whose_seed_files_differ_otherwise_is_refused() -> None:
    workloads = {"results/workloads/los/a/seed1.cwf": entry("lublin-los", 1, load=0.5),
                 "results/workloads/los/a/seed2.cwf": entry("lublin-los", 2, load=0.6)}
    with pytest.raises(ValueError, match="differ in more than the seed"):
        workload_batches(workloads)
    with pytest.raises(ValueError, match="not a workload file"):
        workload_batches({"results/workloads/los/a/seed3.cwf": entry("lublin-los", 1)})
