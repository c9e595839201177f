"""The policy registry: names -> (factory, frozen settings dataclass, unread parameters).

A factory (usually the policy class) takes ``(settings, machine)``. Its settings
are a frozen dataclass whose fields are declared with :func:`setting`, so that
the command line and the workflow config can list, default and range-check them.
"""

from __future__ import annotations

import importlib
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeVar

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
    """A registered policy name.

    ``unread`` are parameters the name accepts, checks and then drops: a family
    whose policies are all swept over one grid (e.g. the HRF paper's alpha x
    threshold, sec. 6.3) lists there the grid's parameters a policy does not read.
    """

    name: str
    family: str
    description: str
    factory: Callable[[Any, Machine], Policy]
    settings_cls: type
    unread: tuple[ParamSpec, ...] = ()

    def specs(self) -> tuple[ParamSpec, ...]:
        """Parameters a user may set: the settings' fields, then the unread ones."""
        return (*param_specs(self.settings_cls), *self.unread)

    def settings(self, given: Mapping[str, Any]) -> Any:
        values = parse_params(self.specs(), given, f"policy {self.name}")
        for spec in self.unread:
            del values[spec.name]
        return self.settings_cls(**values)

    def make(self, given: Mapping[str, Any], machine: Machine) -> Policy:
        return self.factory(self.settings(given), machine)


_POLICIES: dict[str, PolicyEntry] = {}

POLICY_MODULES = (
    "schedsim.policies.backfill",
    "schedsim.policies.moldable",
    "schedsim.policies.los",
    "schedsim.policies.goal",
    "schedsim.policies.adaptive",
    "schedsim.policies.slack",
    "schedsim.policies.scojo",
)


Factory = TypeVar("Factory", bound=Callable[[Any, Machine], Policy])


def register_policy(
    name: str, family: str, description: str, settings_cls: type = NoSettings,
    unread: tuple[ParamSpec, ...] = (),
) -> Callable[[Factory], Factory]:
    """Decorator: register a class, or any ``(settings, machine)`` factory, under ``name``.

    May be stacked. ``unread``: parameters accepted and ignored (:class:`PolicyEntry`).
    """

    def wrap(factory: Factory) -> Factory:
        entry = PolicyEntry(name, family, description, factory, settings_cls, unread)
        if name in _POLICIES and _POLICIES[name].factory is not factory:
            raise ValueError(f"policy {name!r} registered twice")
        _POLICIES[name] = entry
        return factory

    return wrap


def all_policies() -> dict[str, PolicyEntry]:
    for module in POLICY_MODULES:
        importlib.import_module(module)
    return dict(sorted(_POLICIES.items(), key=lambda kv: (kv[1].family, kv[0])))


def get_policy(name: str) -> PolicyEntry:
    """The entry of ``name``, importing policy modules only until it is found (a
    simulation job then loads no compiled kernels of other families)."""
    for module in POLICY_MODULES:
        if name in _POLICIES:
            return _POLICIES[name]
        importlib.import_module(module)
    policies = all_policies()
    if name not in policies:
        same = [known for known in policies if known.lower() == str(name).lower()]
        hint = f" (names are case-sensitive: did you mean {same[0]!r}?)" if same else ""
        raise InputError(f"unknown policy {name!r}{hint}; known policies: "
                         f"{', '.join(policies)}")
    return policies[name]


def make_policy(name: str, params: Mapping[str, Any], machine: Machine) -> Policy:
    """Build policy ``name`` with ``params`` (checked) for ``machine``."""
    return get_policy(name).make(params, machine)
