"""The policy registry: names -> (class, frozen settings dataclass, presets).

A policy class takes ``(settings, machine)``. Its settings are a frozen
dataclass whose fields are declared with :func:`setting`, so that the command
line and the workflow config can list, default and range-check them.
"""

from __future__ import annotations

import importlib
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from schedsim.engine import Policy
from schedsim.errors import InputError
from schedsim.machine import Machine
from schedsim.params import ParamSpec, parse_params


def setting(
    default: Any, help: str, low: float | None = None, high: float | None = None,
    choices: tuple[Any, ...] | None = None,
) -> Any:
    """A settings-dataclass field with its help text and allowed range."""
    return field(default=default,
                 metadata={"help": help, "low": low, "high": high, "choices": choices})


def param_specs(settings_cls: type) -> tuple[ParamSpec, ...]:
    """The ParamSpecs of a settings dataclass, in field order."""
    hints = typing.get_type_hints(settings_cls)
    specs = []
    for f in fields(settings_cls):
        meta = f.metadata
        default = None if f.default is MISSING else f.default
        specs.append(ParamSpec(f.name, hints[f.name], default, meta.get("help", ""),
                               meta.get("low"), meta.get("high"), meta.get("choices")))
    return tuple(specs)


@dataclass(frozen=True)
class NoSettings:
    """A policy without parameters."""


@dataclass(frozen=True)
class PolicyEntry:
    """A registered policy name."""

    name: str
    family: str
    description: str
    factory: Callable[[Any, Machine], Policy]
    settings_cls: type
    presets: Mapping[str, Any] = field(default_factory=dict)

    def specs(self) -> tuple[ParamSpec, ...]:
        """Parameters a user may set (presets are fixed by the name)."""
        return tuple(s for s in param_specs(self.settings_cls) if s.name not in self.presets)

    def settings(self, given: Mapping[str, Any]) -> Any:
        values = parse_params(self.specs(), given, f"policy {self.name}")
        values.update(self.presets)
        return self.settings_cls(**values)

    def make(self, given: Mapping[str, Any], machine: Machine) -> Policy:
        return self.factory(self.settings(given), machine)


_POLICIES: dict[str, PolicyEntry] = {}

POLICY_MODULES = (
    "schedsim.policies.backfill",
    "schedsim.policies.moldable",
    "schedsim.policies.los",
)


def register_policy(
    name: str, family: str, description: str, settings_cls: type = NoSettings,
    presets: Mapping[str, Any] | None = None,
) -> Callable[[type], type]:
    """Class decorator: register the class under ``name`` (may be stacked)."""

    def wrap(cls: type) -> type:
        entry = PolicyEntry(name, family, description, cls, settings_cls, dict(presets or {}))
        if name in _POLICIES and _POLICIES[name].factory is not cls:
            raise ValueError(f"policy {name!r} registered twice")
        _POLICIES[name] = entry
        return cls

    return wrap


def all_policies() -> dict[str, PolicyEntry]:
    for module in POLICY_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise
    return dict(sorted(_POLICIES.items(), key=lambda kv: (kv[1].family, kv[0])))


def get_policy(name: str) -> PolicyEntry:
    policies = all_policies()
    if name not in policies:
        raise InputError(f"unknown policy {name!r}; known policies: {', '.join(policies)}")
    return policies[name]


def make_policy(name: str, params: Mapping[str, Any], machine: Machine) -> Policy:
    """Build policy ``name`` with ``params`` (checked) for ``machine``."""
    return get_policy(name).make(params, machine)
