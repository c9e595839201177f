"""One workload job: every seed file of a :class:`~schedsim.experiments.spec.WorkloadBatch`.

A variant's seed files are written by one process, one after another, each
byte for byte what ``schedsim generate`` writes for that seed (the parameters go
through the same ``KEY=VALUE`` parsing) and each atomically (a temporary file
beside it, then a rename), so an interrupted job leaves whole files or none.
This module imports only the workload registry: the workflow hashes it, with the
model's module, as the code version of the workload rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from schedsim.atomic import write_text_atomic
from schedsim.errors import InputError
from schedsim.experiments.spec import WorkloadBatch
from schedsim.params import split_assignments
from schedsim.workloads.base import get_model


def assignments(params: Mapping[str, Any]) -> list[str]:
    """The ``--param KEY=VALUE`` items of ``schedsim generate`` for ``params``."""
    return [f"{key}={value}" for key, value in params.items()]


def check_outputs(batch: WorkloadBatch, outputs: Sequence[str]) -> None:
    """Refuse outputs that are not one ``seed<N>.<ext>`` file per seed, in seed order."""
    if len(outputs) != len(batch.seeds):
        raise InputError(f"{batch.name}: {len(outputs)} output files for "
                         f"{len(batch.seeds)} seeds")
    for seed, out in zip(batch.seeds, outputs, strict=True):
        if Path(out).name != f"seed{seed}.{batch.ext}":
            raise InputError(f"{batch.name}: output {out} is not the file of seed {seed} "
                             f"(seed{seed}.{batch.ext})")


def generate_batch(batch: WorkloadBatch, outputs: Sequence[str] | None = None) -> list[str]:
    """Write every seed file of ``batch`` (to ``outputs``, else to ``batch.paths``);
    return the paths written."""
    paths = list(outputs) if outputs is not None else batch.paths
    check_outputs(batch, paths)
    model = get_model(batch.model)
    params = split_assignments(assignments(batch.params), f"generate {batch.model}")
    for seed, path in zip(batch.seeds, paths, strict=True):
        write_text_atomic(path, model.run(batch.jobs, seed, params))
    return paths
