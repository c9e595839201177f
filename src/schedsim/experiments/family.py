"""Paper families as plug-ins: the base class, and the registry that finds them by name.

A family is a module that defines a :class:`Family` subclass and assigns an
instance to ``FAMILY``: its workload variants (the values of its variant axes and
how they become workload-model parameters and table labels), its machine
description and, registered from the same module, its derived tables and worked
examples (:func:`derived_function`, :func:`example_function`). Its claims
(:func:`schedsim.claims.claim`) and any figure the generic ones cannot draw
(:func:`schedsim.plots.register_figure`) are registered by the modules it names
(``claims_module``, ``figures_module``), or by the same module: each stage imports only
the parts it runs (:func:`family_modules`).

A config section ``<name>`` finds its module as ``schedsim.experiments.families.<name>``,
or as the module named by the section's ``module`` key (a family kept outside the
package). Targets are generic (:mod:`schedsim.experiments.kinds`).
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from schedsim.experiments.spec import DERIVED, EXAMPLE, MachineSpec, TargetSpec
from schedsim.machinespec import parse_machine

if TYPE_CHECKING:
    import pandas as pd

PACKAGE = "schedsim.experiments.families"
# Summary metrics of one run, under the names used in run files and tables
# (schedsim.experiments.measure.common_metrics).
METRICS = ("ATT", "AWT", "ART", "BSLD", "max_wait", "utilization", "makespan")


@dataclass(frozen=True)
class Variant:
    """A workload variant: its name (in file names), model parameters and table labels."""

    name: str
    params: Mapping[str, Any]
    labels: Mapping[str, Any]


class Family:
    """A paper family. Subclasses set the class attributes and :meth:`variants`.

    Attributes:
        name: the config section.
        variant_column: the column naming the variant in run files and tables.
        workload_ext: extension of the generated workload files (swf, cwf).
        metrics: table metrics, in column order.
        param_columns: parameter columns every row has (NaN where a policy does
            not take the parameter), e.g. the LOS family's ``c_s``.
        workload_info: record the workload file's offered load (and its header's
            ``Barr``) in every row.
        measure: the module that runs and measures the family's simulations
            (``schedsim.experiments.measure``: its ``MEASURE``), kept apart from the
            claims and figures so that editing those reruns no simulation.
        claims_module: the module that registers the family's claims, kept apart from
            its tables and figures so that editing a claim reruns only the claims ("":
            the family's own module registers them).
        figures_module: the module that registers the family's figures, labels and
            paper values, kept apart so that editing a figure reruns only the figures
            ("": the family's own module registers them).
        axes: the variant axes a target's ``variants`` may name, each with the JSON
            schema of one value (a target may give one value or a list; None: not
            checked).
        options: the JSON schema of the section's ``options`` (None: not checked).
        policy_families: the policy families (``schedsim policies``) whose policies run
            on this family's workloads and machine (None: any policy; a plugin policy
            runs wherever its needs are met).
        generated_workloads: the section describes generated workloads and their
            machine (``machine``, ``jobs`` and ``workload.model`` are required); False
            for a family whose targets read real logs or other targets only.
    """

    name = ""
    variant_column = "variant"
    workload_ext = "swf"
    metrics: tuple[str, ...] = METRICS
    param_columns: tuple[str, ...] = ()
    workload_info = False
    measure = "schedsim.experiments.measure"
    claims_module = ""
    figures_module = ""
    axes: Mapping[str, Mapping[str, Any]] | None = None
    options: Mapping[str, Any] | None = None
    policy_families: tuple[str, ...] | None = None
    generated_workloads = True

    def machine(self, section: Mapping[str, Any]) -> MachineSpec:
        """The machine description of the section (``machine:``), checked."""
        return parse_machine(section["machine"], f"{self.name}.machine")

    def variants(self, section: Mapping[str, Any], values: Mapping[str, Any],
                 panel: str) -> list[Variant]:
        """The variants for the axis ``values`` of a target or panel (value or list each)."""
        raise NotImplementedError

    def workload(self, section: Mapping[str, Any], variant: Variant) -> dict[str, Any]:
        """What ``schedsim generate`` needs for one variant: model, jobs, params (sorted)."""
        workload = section["workload"]
        params = {**workload.get("params", {}), **variant.params}
        return {"model": workload["model"], "jobs": int(section["jobs"]),
                "params": dict(sorted(params.items()))}


NUMBER = {"type": "number"}
POSITIVE = {"type": "number", "exclusiveMinimum": 0}
SHARE = {"type": "number", "minimum": 0, "maximum": 1}


def axis_schemas(**axes: Mapping[str, Any]) -> Mapping[str, Mapping[str, Any]]:
    """A family's variant axes, each with the JSON schema of one value (read-only)."""
    return MappingProxyType(axes)


def options_schema(required: tuple[str, ...] = (), **properties: Mapping[str, Any]
                   ) -> Mapping[str, Any]:
    """The JSON schema of an ``options`` mapping with these keys (no others)."""
    return MappingProxyType({"type": "object", "additionalProperties": False,
                             "required": list(required), "properties": properties})


def axis_product(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every combination of the axis values (a scalar is one value), in axis order."""
    lists = {k: list(v) if isinstance(v, list | tuple) else [v] for k, v in values.items()}
    return [dict(zip(lists, combo, strict=True)) for combo in itertools.product(*lists.values())]


_FAMILIES: dict[str, Family] = {}


def register_family(family: Family) -> Family:
    """Make ``family`` known under its name (modules outside the package call this)."""
    _FAMILIES[family.name] = family
    return family


def get_family(name: str, module: str | None = None) -> Family:
    """The family of config section ``name`` (importing its module on first use)."""
    if name not in _FAMILIES:
        found = importlib.import_module(module or f"{PACKAGE}.{name}").FAMILY
        if found.name != name:
            raise ValueError(f"family module {found.__module__} defines {found.name!r}, "
                             f"not {name!r}")
        register_family(found)
    return _FAMILIES[name]


CLAIMS = "claims"
FIGURES = "figures"


def family_modules(family: Family, part: str = "") -> tuple[str, ...]:
    """The modules a stage imports for ``family``: its own module and, for ``part``
    (:data:`CLAIMS` or :data:`FIGURES`), the module that registers that part when the
    family keeps it apart."""
    own = type(family).__module__
    if not part:
        return (own,)
    apart = {CLAIMS: family.claims_module, FIGURES: family.figures_module}[part]
    return (own, apart) if apart else (own,)


def load_part(family: Family, part: str) -> None:
    """Register ``family``'s claims or figures (:func:`family_modules`)."""
    for module in family_modules(family, part)[1:]:
        importlib.import_module(module)


Tables = Mapping[str, "pd.DataFrame"]
DerivedFn = Callable[[TargetSpec, Tables], "pd.DataFrame"]
ExampleFn = Callable[[TargetSpec], "pd.DataFrame"]

_DERIVED: dict[str, DerivedFn] = {}
_EXAMPLES: dict[str, ExampleFn] = {}


def derived_function(name: str) -> Callable[[DerivedFn], DerivedFn]:
    """Decorator: register ``fn(spec, tables) -> table`` for ``kind: derived`` targets."""
    def wrap(fn: DerivedFn) -> DerivedFn:
        _DERIVED[name] = fn
        return fn
    return wrap


def example_function(name: str) -> Callable[[ExampleFn], ExampleFn]:
    """Decorator: register ``fn(spec) -> table`` for ``kind: example`` targets."""
    def wrap(fn: ExampleFn) -> ExampleFn:
        _EXAMPLES[name] = fn
        return fn
    return wrap


def table_function(spec: TargetSpec) -> Callable[..., pd.DataFrame]:
    """The registered function of a derived or example target (ValueError: none)."""
    registry: Mapping[str, Callable[..., pd.DataFrame]] = \
        _DERIVED if spec.kind == DERIVED else _EXAMPLES if spec.kind == EXAMPLE else {}
    if spec.function not in registry:
        raise ValueError(f"{spec.target}: unknown {spec.kind} function {spec.function!r}; "
                         f"known: {', '.join(sorted(registry)) or '(none)'}")
    return registry[spec.function]


def find_family(name: str) -> Family | None:
    """The family ``name`` if it is registered or in the package, else None (a family kept
    outside the package that was not imported)."""
    try:
        return get_family(name)
    except ImportError:
        return None


def enabled_families(config: Mapping[str, Any]) -> list[str]:
    """Config sections that are families (a mapping with ``targets``) and enabled."""
    return [name for name, section in config.items()
            if isinstance(section, Mapping) and section.get("enabled", False)
            and "targets" in section]
