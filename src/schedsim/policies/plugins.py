"""Finding policies outside the package: installed entry points and classes named by file.

This module finds the objects; the registry checks and registers them
(:func:`schedsim.policies.registry.register_found`), so the two never import each other.

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
* a config's ``plugins:`` list of such references
  (:func:`schedsim.policies.registry.load_plugins`).

Every error (a missing file or class, an import that fails, and in the registry a
settings class that is not a frozen dataclass or a name already taken) is one InputError
naming the reference.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from schedsim.errors import InputError

GROUP = "schedsim.policies"
MODULE_PREFIX = "schedsim_plugin_"


@dataclass(frozen=True)
class Found:
    """A policy found outside the package: the object, the name it goes by when it names
    none itself, and where it came from (for messages)."""

    factory: Any
    default_name: str
    source: str


def is_reference(name: str) -> bool:
    """Whether ``name`` names a class (``file.py:Class`` or ``module:Class``), not a policy."""
    return ":" in name


def find_reference(reference: str, base: str | Path | None = None) -> Found:
    """The object of ``file.py:ClassName`` (a path relative to ``base``, default the
    current directory) or ``package.module:ClassName``."""
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
    return Found(found, attribute, reference)


def find_entry_points(name: str | None = None) -> list[Found]:
    """The objects of the ``schedsim.policies`` entry points (only ``name``'s if given);
    an entry point's name must be the class's own ``name`` when it has one."""
    out = []
    for point in entry_points(group=GROUP):
        if name is not None and point.name != name:
            continue
        source = f"entry point {point.name} = {point.value}"
        try:
            found = point.load()
        except Exception as err:  # the plugin's own code: report it in one line
            raise InputError(f"policy {source}: cannot load it: {_one_line(err, None)}") \
                from None
        own = getattr(found, "name", None)
        if own is not None and own != point.name:
            raise InputError(f"policy {source}: the class calls itself {own!r}; name the "
                             "entry point the same")
        out.append(Found(found, point.name, source))
    return out


def absolute(references: Iterable[str], base: str | Path | None = None) -> list[str]:
    """A config's ``plugins:`` with file paths made absolute (relative to ``base``): a
    simulation job runs in another directory."""
    out = []
    for reference in references:
        where, _, attribute = str(reference).rpartition(":")
        out.append(f"{_resolve(where, base)}:{attribute}" if where.endswith(".py")
                   else str(reference))
    return out


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

