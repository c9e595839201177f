"""The registry of synthetic workload models behind ``schedsim generate`` and ``models``.

A model is a :class:`WorkloadModel`: a name, a description, its parameters
(:class:`~schedsim.params.ParamSpec`), and a ``generate`` function that returns
the whole workload file as text (SWF, or CWF for models with control commands).
Models register themselves with :func:`register` when their module is imported;
:func:`all_models` imports the known modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from schedsim.errors import InputError
from schedsim.params import ParamSpec, parse_params

GenerateFn = Callable[[int, int, Mapping[str, Any]], str]


@dataclass(frozen=True)
class WorkloadModel:
    """A synthetic workload model.

    ``generate(jobs, seed, params)`` receives checked parameters (all names of
    ``params`` with defaults filled in) and returns the file text.
    """

    name: str
    description: str
    params: tuple[ParamSpec, ...]
    generate: GenerateFn
    file_format: str = "swf"
    source: str = ""

    def run(self, jobs: int, seed: int, given: Mapping[str, Any]) -> str:
        if jobs <= 0:
            raise InputError(f"generate {self.name}: --jobs={jobs} must be a positive integer")
        values = parse_params(self.params, given, f"generate {self.name}")
        return self.generate(jobs, seed, values)


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
