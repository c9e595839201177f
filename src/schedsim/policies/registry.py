"""The policy registry: names -> (factory, frozen settings dataclass, unread parameters,
what the policy needs of a run).

A factory (usually the policy class) takes ``(settings, machine)``. Its settings
are a frozen dataclass whose fields are declared with :func:`setting`, so that
the command line and the workflow config can list, default and range-check them.

Every entry declares what it needs of a run and what else it takes (:data:`FEATURES`:
job kinds, elastic commands, partitions, speeds, a load model); a run that lacks a
need, or has a feature the policy does not take, is refused with one line naming it
and how to meet it (:meth:`PolicyEntry.check_run`), never run as something else.

Policies outside the package (:mod:`schedsim.policies.plugins`) are found through the
entry-point group ``schedsim.policies`` or named as ``path/to/file.py:ClassName``.
"""

from __future__ import annotations

import importlib
import re
import typing
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

from schedsim.engine import Policy
from schedsim.errors import InputError
from schedsim.jobs import DEDICATED as DEDICATED_KIND
from schedsim.jobs import Job, RuntimeChange, unmade_fields
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


# ----------------------------------------------------------------------------- needs

RIGID, MOLDABLE, DIVISIBLE = "rigid", "moldable", "divisible"
DEDICATED, ELASTIC = "dedicated", "elastic"
PARTITIONS, SPEEDS, LOAD = "partitions", "speeds", "load"
MACHINE_FEATURES = frozenset({PARTITIONS, SPEEDS, LOAD})


@dataclass(frozen=True)
class Feature:
    """Something a run may offer: what it is, and how a run gets it."""

    what: str
    how: str


FEATURES: dict[str, Feature] = {
    RIGID: Feature("rigid jobs", "an SWF log or a rigid workload model "
                   "(`schedsim generate lublin99 ...`)"),
    MOLDABLE: Feature("moldable jobs (a speed-up model each)",
                      "a moldable workload (`schedsim generate cirne01 ...`)"),
    DIVISIBLE: Feature("jobs given as work in BPU-seconds, sized by the policy",
                       "such a workload (`schedsim generate hyperexp ...`)"),
    DEDICATED: Feature("dedicated jobs (a requested start time each)",
                       "a CWF workload with dedicated jobs (`schedsim generate lublin-los "
                       "--param pd=0.5 ...`)"),
    ELASTIC: Feature("elastic control commands",
                     "a CWF workload with commands (`schedsim generate lublin-los --param "
                     "pe=0.2 ...`)"),
    PARTITIONS: Feature("several partitions",
                        "--partitions 64,64, or partitions in the machine description"),
    SPEEDS: Feature("per-processor speeds",
                    "--speeds 32x1,32x2, or speeds in the machine description"),
    LOAD: Feature("a background-load model",
                  "--load uniform, or load in the machine description"),
}

ALTERNATIVE = "|"  # a need "speeds|load" is met by either


def check_features(names: Iterable[str], owner: str) -> tuple[str, ...]:
    """Check feature names (``a|b`` alternatives allowed) against :data:`FEATURES`."""
    out = tuple(names)
    for name in out:
        for part in name.split(ALTERNATIVE):
            if part not in FEATURES:
                raise InputError(f"{owner}: unknown feature {part!r}; known: "
                                 f"{', '.join(FEATURES)}")
    return out


def describe(need: str) -> str:
    """A need in words: ``speeds|load`` -> ``per-processor speeds or a background-load model``."""
    return " or ".join(FEATURES[part].what for part in need.split(ALTERNATIVE))


def run_features(jobs: Iterable[Job], machine: Machine, changes: Sequence[RuntimeChange] = (),
                 load: bool = False) -> frozenset[str]:
    """What a run offers: the kinds of its jobs, its elastic commands, its machine."""
    found = job_kinds(jobs)
    if changes:
        found.add(ELASTIC)
    return frozenset(found) | machine_features(machine.partitions, machine.speeds, load)


def job_kinds(jobs: Iterable[Job]) -> set[str]:
    """The kinds of ``jobs`` (rigid, divisible, moldable, dedicated); of jobs held as
    columns (batch jobs, all with work or all rigid), read from the columns."""
    fields = unmade_fields(jobs)
    if fields is not None:
        return {RIGID if fields.work is None else DIVISIBLE} if fields.submit.size else set()
    found: set[str] = set()
    for job in jobs:
        found.add(MOLDABLE if job.speedup is not None else
                  DIVISIBLE if job.work is not None else RIGID)
        if job.kind == DEDICATED_KIND:
            found.add(DEDICATED)
    return found


def machine_features(partitions: Sequence[int], speeds: Sequence[float],
                     load: bool) -> frozenset[str]:
    """What a machine offers: several partitions, speeds, a background-load model."""
    return frozenset(name for name, present in ((PARTITIONS, len(partitions) > 1),
                                                (SPEEDS, bool(speeds)), (LOAD, load))
                     if present)


# Needs of the built-in policies, by family, then by name (LOS paper, sec. V: the -D
# policies keep a dedicated-job queue, the -E ones are run with elastic commands).
_RIGID_ENGINE = (ELASTIC, SPEEDS, LOAD)  # the engine applies commands and models speeds, load
_FAMILY_NEEDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "backfill": ((RIGID,), _RIGID_ENGINE),
    "los": ((RIGID,), _RIGID_ENGINE),
    "goal": ((RIGID,), (PARTITIONS, SPEEDS, LOAD)),
    "slack": ((RIGID,), (SPEEDS, LOAD)),
    "moldable": ((MOLDABLE,), (SPEEDS, LOAD)),
    "ihap": ((DIVISIBLE, f"{SPEEDS}{ALTERNATIVE}{LOAD}"), (SPEEDS, LOAD)),
}
_NAME_NEEDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    **{name: ((RIGID, DEDICATED), _RIGID_ENGINE) for name in ("easy-d", "los-d", "hybrid-los")},
    **{name: ((RIGID, ELASTIC), (SPEEDS, LOAD)) for name in ("easy-e", "los-e", "delayed-los-e")},
    **{name: ((RIGID, DEDICATED, ELASTIC), (SPEEDS, LOAD))
       for name in ("easy-de", "los-de", "hybrid-los-e")},
}
DEFAULT_NEEDS: tuple[tuple[str, ...], tuple[str, ...]] = ((RIGID,), ())


def builtin_needs(name: str, family: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(needs, takes) of a policy registered without them: by name, else by family."""
    return _NAME_NEEDS.get(name.lower()) or _FAMILY_NEEDS.get(family, DEFAULT_NEEDS)


@dataclass(frozen=True)
class NoSettings:
    """A policy without parameters."""


@dataclass(frozen=True)
class PolicyEntry:
    """A registered policy name.

    ``unread`` are parameters the name accepts, checks and then drops: a family
    whose policies are all swept over one grid (e.g. the HRF paper's alpha x
    threshold, sec. 6.3) lists there the grid's parameters a policy does not read.
    ``needs`` are features (:data:`FEATURES`) a run must offer (``a|b``: either),
    ``takes`` the others it may offer; anything else a run offers is refused.
    ``source`` is where a policy from outside the package came from ("" for ours).
    """

    name: str
    family: str
    description: str
    factory: Callable[[Any, Machine], Policy]
    settings_cls: type
    unread: tuple[ParamSpec, ...] = ()
    needs: tuple[str, ...] = DEFAULT_NEEDS[0]
    takes: tuple[str, ...] = DEFAULT_NEEDS[1]
    source: str = ""

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

    def check_run(self, offered: Collection[str], scope: Collection[str] | None = None) -> None:
        """Refuse a run that lacks a need or offers what the policy does not take, with
        one line naming it and how to meet it. ``scope``: judge only these features
        (the machine's, at planning time, before any workload is read)."""
        def judged(name: str) -> bool:
            return scope is None or any(p in scope for p in name.split(ALTERNATIVE))

        unneeded = [f for f in FEATURES if f in offered and judged(f) and not any(
            f in name.split(ALTERNATIVE) for name in (*self.needs, *self.takes))]
        for need in self.needs:
            if judged(need) and not any(p in offered for p in need.split(ALTERNATIVE)):
                has = f"this run has {FEATURES[unneeded[0]].what}" if unneeded else \
                    "this run has none"
                how = "; or ".join(FEATURES[p].how for p in need.split(ALTERNATIVE))
                raise InputError(f"policy {self.name} needs {describe(need)}; {has}: give {how}")
        if unneeded:
            raise InputError(f"policy {self.name} does not take {FEATURES[unneeded[0]].what}, "
                             f"which this run has; {_takers(unneeded[0])}")

    def needs_text(self) -> str:
        """``needs ...; also takes ...`` for ``schedsim policies``."""
        takes = ", ".join(describe(t) for t in self.takes) or "nothing else"
        return f"needs {', '.join(describe(n) for n in self.needs)}; also takes {takes}"


def _takers(feature: str) -> str:
    """Which registered policies take ``feature`` (for an error message)."""
    names: dict[str, str] = {}
    for name, entry in sorted(all_policies().items()):
        if any(feature in n.split(ALTERNATIVE) for n in (*entry.needs, *entry.takes)):
            names.setdefault(name.lower(), name)  # one of a name and its lower-case alias
    if not names:
        return "no known policy takes them"
    return "policies that take them: " + ", ".join(names.values())


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
    unread: tuple[ParamSpec, ...] = (), needs: Iterable[str] | None = None,
    takes: Iterable[str] | None = None,
) -> Callable[[Factory], Factory]:
    """Decorator: register a class, or any ``(settings, machine)`` factory, under ``name``.

    May be stacked. ``unread``: parameters accepted and ignored; ``needs``, ``takes``:
    features of a run (:class:`PolicyEntry`); None: the built-in policies' declaration
    (:func:`builtin_needs`).
    """

    def wrap(factory: Factory) -> Factory:
        default_needs, default_takes = builtin_needs(name, family)
        owner = f"policy {name}"
        entry = PolicyEntry(name, family, description, factory, settings_cls, unread,
                            check_features(default_needs if needs is None else needs, owner),
                            check_features(default_takes if takes is None else takes, owner))
        add_policy(entry)
        return factory

    return wrap


def add_policy(entry: PolicyEntry) -> None:
    """Make ``entry`` known by its name; another factory under the same name is an error."""
    known = _POLICIES.get(entry.name)
    if known is not None and known.factory is not entry.factory:
        sources = " and ".join(e.source or "schedsim" for e in (known, entry))
        raise InputError(f"policy {entry.name!r} is registered twice ({sources}); rename one")
    _POLICIES[entry.name] = entry


def registered() -> Mapping[str, PolicyEntry]:
    """The policies registered so far (no module imported)."""
    return _POLICIES


def load_builtin() -> None:
    """Import every policy module of the package."""
    for module in POLICY_MODULES:
        importlib.import_module(module)


def all_policies() -> dict[str, PolicyEntry]:
    """Every policy: the package's, then those of the ``schedsim.policies`` entry points."""
    load_builtin()
    from schedsim.policies.plugins import find_entry_points

    for found in find_entry_points():
        register_found(found)
    return dict(sorted(_POLICIES.items(), key=lambda kv: (kv[1].family, kv[0])))


def get_policy(name: str) -> PolicyEntry:
    """The entry of ``name``, importing policy modules only until it is found (a
    simulation job then loads no compiled kernels of other families). A name
    ``path/to/file.py:ClassName`` loads that class (:mod:`schedsim.policies.plugins`)."""
    from schedsim.policies import plugins

    if plugins.is_reference(name):
        return load_reference(name)
    for module in POLICY_MODULES:
        if name in _POLICIES:
            return _POLICIES[name]
        importlib.import_module(module)
    if name in _POLICIES:
        return _POLICIES[name]
    for found in plugins.find_entry_points(name):
        return register_found(found)
    policies = all_policies()
    same = [known for known in policies if known.lower() == str(name).lower()]
    hint = f" (names are case-sensitive: did you mean {same[0]!r}?)" if same else ""
    raise InputError(f"unknown policy {name!r}{hint}; known policies: {', '.join(policies)} "
                     f"(or name a class in a file: path/to/file.py:ClassName)")


def make_policy(name: str, params: Mapping[str, Any], machine: Machine) -> Policy:
    """Build policy ``name`` with ``params`` (checked) for ``machine``."""
    return get_policy(name).make(params, machine)


# ----------------------------------------------------------------------------- plug-ins

PLUGIN_FAMILY = "plugin"
PLUGIN_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+-]*$")  # what run-file paths and rules accept
PROTOCOL = ("submit", "finish", "change", "schedule")


def load_reference(reference: str, base: str | Path | None = None) -> PolicyEntry:
    """The policy of ``path/to/file.py:ClassName`` (relative to ``base``, default the
    current directory) or ``package.module:ClassName``, checked and registered."""
    from schedsim.policies.plugins import find_reference

    return register_found(find_reference(reference, base))


def load_plugins(references: Iterable[str], base: str | Path | None = None) -> dict[str, str]:
    """Register a config's ``plugins:``: policy name -> its reference, file paths made
    absolute (a simulation job runs in another directory)."""
    from schedsim.policies.plugins import absolute

    return {load_reference(reference).name: reference
            for reference in absolute(references, base)}


def register_found(found: Any) -> PolicyEntry:
    """The entry of a policy found outside the package (``plugins.Found``): the one its
    module registered, else one built from the class's attributes (``name``,
    ``description``, ``settings_class``, ``needs``, ``takes``; docs/your-policy.md),
    checked and registered. A plug-in never takes the name of a policy of the package."""
    factory, source = found.factory, found.source
    for entry in _POLICIES.values():
        if entry.factory is factory:
            return entry
    name = getattr(factory, "name", None) or found.default_name
    if not isinstance(name, str) or not PLUGIN_NAME.match(name):
        raise InputError(f"policy {source}: name {name!r} must start with a letter and hold "
                         "only letters, digits and _ + -")
    missing = [m for m in PROTOCOL if not callable(getattr(factory, m, None))]
    if not callable(factory) or missing:
        raise InputError(f"policy {source}: {getattr(factory, '__name__', factory)!r} is not "
                         f"a policy class: it lacks {', '.join(missing) or 'a constructor'} "
                         "(schedsim.engine.Policy: submit, finish, change, schedule)")
    settings = getattr(factory, "settings_class", NoSettings)
    _check_settings(settings, source)
    doc = (getattr(factory, "__doc__", None) or "").strip().splitlines()
    owner = f"policy {source}"
    entry = PolicyEntry(
        name, PLUGIN_FAMILY, str(getattr(factory, "description", None) or
                                 (doc[0] if doc else name)), factory, settings,
        needs=check_features(getattr(factory, "needs", DEFAULT_NEEDS[0]), owner),
        takes=check_features(getattr(factory, "takes", DEFAULT_NEEDS[1]), owner),
        source=source)
    load_builtin()
    add_policy(entry)
    return entry


def _check_settings(settings: Any, source: str) -> None:
    params = getattr(settings, "__dataclass_params__", None)
    if not isinstance(settings, type) or params is None or not params.frozen:
        raise InputError(f"policy {source}: settings_class {settings!r} must be a frozen "
                         "dataclass (@dataclass(frozen=True)) whose fields use setting()")
    bare = [f.name for f in fields(settings)
            if f.default is MISSING and f.default_factory is MISSING]
    if bare:
        raise InputError(f"policy {source}: settings field {bare[0]!r} has no default; "
                         "declare it with setting(default, help)")
