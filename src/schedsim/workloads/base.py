"""The registry of synthetic workload models behind ``schedsim generate`` and ``models``.

A model is a :class:`WorkloadModel`: a name, a description, its parameters
(:class:`~schedsim.params.ParamSpec`), and a ``generate`` function that returns
the workload file's text in pieces (SWF, or CWF for models with control commands),
made as they are written (:func:`text_pieces`), so that a large file is never whole in
memory. Models register themselves with :func:`register` when their module is imported;
:func:`all_models` imports the known modules.

Every model takes a seed in ``0 .. 2^32 - 1`` (``SEED_RANGE``): the drand48 generators
keep 32 bits of a seed, so a larger one would give another seed's jobs under its own
name. A workload has at most ``MAX_JOBS`` jobs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.params import ParamSpec, parse_params

GenerateFn = Callable[[int, int, Mapping[str, Any]], Iterable[str]]
SEED_RANGE = (0, 2**32 - 1)
# Ten million jobs: several times the largest log of the Parallel Workloads Archive, and
# within a workstation's memory: a model holds its jobs while it draws them (one million
# took 0.2 GB for lublin99 to 0.55 GB for cirne01 at the peak); the text is written in
# pieces, never whole.
MAX_JOBS = 10_000_000


def check_seed(seed: int, where: str) -> int:
    """``seed`` if it is in ``SEED_RANGE``; else an InputError naming ``where``."""
    low, high = SEED_RANGE
    if isinstance(seed, bool) or not isinstance(seed, int) or not low <= seed <= high:
        raise InputError(f"{where}: seed {seed!r} is out of range; allowed: an integer in "
                         f"[{low}, {high}]")
    return seed


def text_pieces(header: Sequence[str], lines: Iterable[str], chunk: int = 8_192
                ) -> Iterator[str]:
    """``"\n".join([*header, *lines]) + "\n"`` in pieces of ``chunk`` lines, each made
    when it is asked for."""
    if header:
        yield "\n".join(header) + "\n"
    part: list[str] = []
    for line in lines:
        part.append(line)
        if len(part) == chunk:
            yield "\n".join(part) + "\n"
            part = []
    if part:
        yield "\n".join(part) + "\n"


@dataclass(frozen=True)
class WorkloadModel:
    """A synthetic workload model.

    ``generate(jobs, seed, params)`` receives a checked job count and seed and checked
    parameters (all names of ``params`` with defaults filled in) and returns the file
    text in pieces.
    """

    name: str
    description: str
    params: tuple[ParamSpec, ...]
    generate: GenerateFn
    file_format: str = "swf"
    source: str = ""

    def check(self, jobs: int, seed: int, given: Mapping[str, Any]) -> dict[str, Any]:
        """The checked parameters (defaults filled in), once the job count and the seed
        are checked too; InputError naming the first bad one."""
        owner = f"generate {self.name}"
        if isinstance(jobs, bool) or not isinstance(jobs, int) or not 0 < jobs <= MAX_JOBS:
            raise InputError(f"{owner}: --jobs={jobs} is out of range; allowed: an integer "
                             f"in [1, {MAX_JOBS}]")
        check_seed(seed, owner)
        return parse_params(self.params, given, owner)

    def pieces(self, jobs: int, seed: int, given: Mapping[str, Any]) -> Iterator[str]:
        """The file text in pieces; the job count, seed and parameters are checked first."""
        return iter(self.generate(jobs, seed, self.check(jobs, seed, given)))

    def run(self, jobs: int, seed: int, given: Mapping[str, Any]) -> str:
        """The whole file text (:meth:`pieces` joined)."""
        return "".join(self.pieces(jobs, seed, given))

    def check_output_name(self, path: str | Path) -> None:
        """A file this model writes is named ``*.<format>``: a CWF file under a ``.swf`` name
        would be read as SWF."""
        if not str(path).endswith(f".{self.file_format}"):
            raise InputError(f"generate {self.name} writes {self.file_format.upper()}: the "
                             f"output {path} must end in .{self.file_format}")


_MODELS: dict[str, WorkloadModel] = {}

# Modules that define models, imported on first use (by name: a rule that runs one
# model does not depend on the others' code, experiments.provenance).
MODEL_MODULES = (
    "schedsim.workloads.lublin",
    "schedsim.workloads.lublin_los",
    "schedsim.workloads.cirne",
    "schedsim.workloads.hyperexp",
    "schedsim.workloads.months",
)


def register(model: WorkloadModel) -> WorkloadModel:
    if model.name in _MODELS and _MODELS[model.name] is not model:
        raise ValueError(f"workload model {model.name!r} registered twice")
    _MODELS[model.name] = model
    return model


def all_models() -> dict[str, WorkloadModel]:
    for module in MODEL_MODULES:
        importlib.import_module(module)
    return dict(sorted(_MODELS.items()))


def get_model(name: str) -> WorkloadModel:
    models = all_models()
    if name not in models:
        raise InputError(f"unknown workload model {name!r}; known models: {', '.join(models)}")
    return models[name]
