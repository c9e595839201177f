"""Policies from outside the package: installed entry points and classes named by file.

A policy of one's own is a class (or any factory) behind the engine's ``Policy``
protocol (``submit``, ``finish``, ``change``, ``schedule``), built as
``cls(settings, machine)``. It describes itself with class attributes, all optional:

* ``name``: its policy name (default: the class name; an entry point's name must agree);
* ``description``: one line for ``schedsim policies`` (default: the docstring's first line);
* ``settings_class``: a frozen dataclass whose fields are declared with
  :func:`schedsim.policies.registry.setting` (default: no parameters);
* ``needs``, ``takes``: features of a run (:data:`schedsim.policies.registry.FEATURES`;
  default: rigid jobs, nothing else).

A module may instead register its classes itself with ``register_policy``.
It is found in one of three ways:

* an entry point of the group ``schedsim.policies`` of an installed package
  (``sjf-easy = "my_policy:ShortestJobFirst"``), by its name;
* a reference ``path/to/file.py:ClassName`` (a file, loaded once per process) or
  ``package.module:ClassName`` (an importable module), wherever a policy name is taken;
* a config's ``plugins:`` list of such references (:func:`load_plugins`).

Every error (a missing file or class, an import that fails, a settings class that is
not a frozen dataclass, a name already taken) is one InputError naming the reference.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import re
import sys
import traceback
from collections.abc import Iterable
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from schedsim.errors import InputError
from schedsim.policies import registry

GROUP = "schedsim.policies"
FAMILY = "plugin"
NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+-]*$")  # what run-file paths and rules accept
PROTOCOL = ("submit", "finish", "change", "schedule")
MODULE_PREFIX = "schedsim_plugin_"


def is_reference(name: str) -> bool:
    """Whether ``name`` names a class (``file.py:Class`` or ``module:Class``), not a policy."""
    return ":" in name


def load_reference(reference: str, base: str | Path | None = None) -> registry.PolicyEntry:
    """The policy of ``file.py:ClassName`` (a path relative to ``base``, default the
    current directory) or ``package.module:ClassName``, registered under its name."""
    where, _, attribute = reference.rpartition(":")
    if not where or not attribute:
        raise InputError(f"policy {reference!r}: name a class as path/to/file.py:ClassName "
                         "or package.module:ClassName")
    module = _load_file(reference, where, base) if where.endswith(".py") else \
        _import(reference, where)
    found = getattr(module, attribute, None)
    if found is None:
        classes = sorted(n for n, v in vars(module).items()
                         if isinstance(v, type) and v.__module__ == module.__name__)
        raise InputError(f"policy {reference!r}: {where} defines no {attribute}; its classes: "
                         f"{', '.join(classes) or '(none)'}")
    return register_class(found, attribute, reference)


def load_entry_point(name: str) -> registry.PolicyEntry | None:
    """The policy of the ``schedsim.policies`` entry point ``name``, or None."""
    for point in entry_points(group=GROUP):
        if point.name == name:
            return _from_entry_point(point)
    return None


def load_entry_points() -> None:
    """Register the policy of every ``schedsim.policies`` entry point."""
    for point in entry_points(group=GROUP):
        _from_entry_point(point)


def load_plugins(references: Iterable[str], base: str | Path | None = None
                 ) -> dict[str, str]:
    """Register a config's ``plugins:``: policy name -> its reference, file paths made
    absolute (a simulation job runs in another directory)."""
    out: dict[str, str] = {}
    for reference in references:
        where, _, attribute = str(reference).rpartition(":")
        if where.endswith(".py"):
            where = str(_resolve(where, base))
        resolved = f"{where}:{attribute}"
        entry = load_reference(resolved)
        out[entry.name] = resolved
    return out


def register_class(found: Any, default_name: str, source: str) -> registry.PolicyEntry:
    """The entry of a plugin class: the one its module registered, else one built from
    its attributes (module docstring), checked and registered."""
    for entry in registry.registered().values():
        if entry.factory is found:
            return entry
    name = getattr(found, "name", None) or default_name
    if not isinstance(name, str) or not NAME.match(name):
        raise InputError(f"policy {source}: name {name!r} must start with a letter and hold "
                         "only letters, digits and _ + -")
    missing = [m for m in PROTOCOL if not callable(getattr(found, m, None))]
    if not callable(found) or missing:
        raise InputError(f"policy {source}: {getattr(found, '__name__', found)!r} is not a "
                         f"policy class: it lacks {', '.join(missing) or 'a constructor'} "
                         "(schedsim.engine.Policy: submit, finish, change, schedule)")
    settings = getattr(found, "settings_class", registry.NoSettings)
    _check_settings(settings, source)
    doc = (getattr(found, "__doc__", None) or "").strip().splitlines()
    description = getattr(found, "description", None) or (doc[0] if doc else name)
    owner = f"policy {source}"
    entry = registry.PolicyEntry(
        name, FAMILY, str(description), found, settings,
        needs=registry.check_features(getattr(found, "needs", registry.DEFAULT_NEEDS[0]),
                                      owner),
        takes=registry.check_features(getattr(found, "takes", registry.DEFAULT_NEEDS[1]),
                                      owner),
        source=source)
    registry.load_builtin()  # a plugin never shadows a policy of the package
    registry.add_policy(entry)
    return entry


def _check_settings(settings: Any, source: str) -> None:
    params = getattr(settings, "__dataclass_params__", None)
    if not isinstance(settings, type) or params is None or not params.frozen:
        raise InputError(f"policy {source}: settings_class {settings!r} must be a frozen "
                         "dataclass (@dataclass(frozen=True)) whose fields use setting()")
    bare = [f.name for f in dataclasses.fields(settings)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    if bare:
        raise InputError(f"policy {source}: settings field {bare[0]!r} has no default; "
                         "declare it with setting(default, help)")


def _from_entry_point(point: EntryPoint) -> registry.PolicyEntry:
    source = f"entry point {point.name} = {point.value}"
    try:
        found = point.load()
    except Exception as err:  # the plugin's own code: report it in one line
        raise InputError(f"policy {source}: cannot load it: {_one_line(err, None)}") from None
    own = getattr(found, "name", None)
    if own is not None and own != point.name:
        raise InputError(f"policy {source}: the class calls itself {own!r}; name the entry "
                         "point the same")
    return register_class(found, point.name, source)


def _resolve(where: str, base: str | Path | None) -> Path:
    path = Path(where)
    return (path if path.is_absolute() else Path(base or Path.cwd()) / path).resolve()


def _load_file(reference: str, where: str, base: str | Path | None) -> ModuleType:
    """The module of a file, loaded once per process (under ``schedsim_plugin_<stem>``)."""
    path = _resolve(where, base)
    if not path.is_file():
        raise InputError(f"policy {reference!r}: no such file {path}")
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == str(path) and \
                module.__name__.startswith(MODULE_PREFIX):
            return module
    name = MODULE_PREFIX + re.sub(r"\W", "_", path.stem)
    taken = 1
    while name in sys.modules:
        taken += 1
        name = f"{MODULE_PREFIX}{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}_{taken}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # the plugin's own code: report it in one line
        del sys.modules[name]
        raise InputError(f"policy {reference!r}: cannot load {path}: "
                         f"{_one_line(err, path)}") from None
    return module


def _import(reference: str, module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except Exception as err:  # the plugin's own code: report it in one line
        raise InputError(f"policy {reference!r}: cannot import {module}: "
                         f"{_one_line(err, None)}") from None


def _one_line(err: BaseException, path: Path | None) -> str:
    """An exception as one line, with the plugin file's line where it was raised."""
    line = getattr(err, "lineno", None) if isinstance(err, SyntaxError) else None
    if line is None and path is not None:
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == str(path)]
        line = frames[-1].lineno if frames else None
    text = " ".join(str(err).split())
    return f"{'line ' + str(line) + ': ' if line else ''}{type(err).__name__}: {text}"


def plugin_file(module: str) -> Path | None:
    """The source file of a loaded module outside the package (for code versions)."""
    found = sys.modules.get(module)
    if found is None:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
    else:
        origin = getattr(found, "__file__", None)
    return Path(origin) if origin and origin.endswith(".py") else None

