"""One workload job: every seed file of one workload variant (a
:class:`~schedsim.experiments.spec.WorkloadBatch`), in one process.

The files are written one after another, each byte for byte what ``schedsim
generate`` writes for its seed (the parameters go through the same ``KEY=VALUE``
parsing) and each atomically (a temporary file beside it, then a rename), so an
interrupted job leaves whole files or none. The workflow hashes this module, with
the model's module, as the code version of the workload rules; it imports only
the workload registry and its helpers (not the specs), so that only a change of
what the files contain reruns them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from schedsim.atomic import write_text_atomic
from schedsim.errors import InputError
from schedsim.params import split_assignments
from schedsim.workloads.base import get_model


def assignments(params: Mapping[str, Any]) -> list[str]:
    """The ``--param KEY=VALUE`` items of ``schedsim generate`` for ``params``."""
    return [f"{key}={value}" for key, value in params.items()]


def check_outputs(seeds: Sequence[int], outputs: Sequence[str]) -> None:
    """Refuse outputs that are not one ``seed<N>.<ext>`` file per seed, in seed order."""
    if len(outputs) != len(seeds):
        raise InputError(f"{len(outputs)} output files for {len(seeds)} seeds")
    for seed, out in zip(seeds, outputs, strict=True):
        if not Path(out).name.startswith(f"seed{seed}."):
            raise InputError(f"output {out} is not the file of seed {seed} (seed{seed}.<ext>)")


def generate_files(model: str, jobs: int, params: Mapping[str, Any], seeds: Sequence[int],
                   outputs: Sequence[str]) -> None:
    """Write the workload of each seed of ``seeds`` to the output at the same position."""
    check_outputs(seeds, outputs)
    generator = get_model(model)
    for path in outputs:
        generator.check_output_name(path)
    given = split_assignments(assignments(params), f"generate {model}")
    for seed, path in zip(seeds, outputs, strict=True):
        write_text_atomic(path, generator.pieces(jobs, seed, given))
