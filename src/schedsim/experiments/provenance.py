"""What code a result depends on, and the metadata stored with every run file.

A rule reruns when the *meaning* of the code it runs changes: each module is
hashed by its syntax tree with docstrings removed (comments are not in the tree),
so editing a comment or a docstring reruns nothing. A rule depends on the modules
its entry points import, statically and transitively (imports inside functions
included); modules imported by name (a command's module, policies, workload models,
a family's parts) are passed as extra entry points by the caller
(:func:`command_code`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from schedsim import __version__
from schedsim.experiments.spec import canonical_json
from schedsim.sources import PACKAGE_DIR, module_path


@functools.lru_cache(maxsize=1024)
def _parse_cached(path: str, mtime_ns: int, size: int) -> ast.Module:
    """A module's syntax tree, parsed once per file version in a process (a workflow asks
    for the code versions of many rules that share most of their modules)."""
    return ast.parse(Path(path).read_text(encoding="utf-8"))


def meaning(path: Path) -> str:
    """The module's syntax tree without docstrings, as text (line numbers left out)."""
    stat = path.stat()
    return _meaning_cached(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=1024)
def _meaning_cached(path: str, mtime_ns: int, size: int) -> str:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))  # a copy: docstrings go
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value,
                                                                           str):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


def hash_modules(root: Path, files: Iterable[Path],
                 outside: Mapping[str, Path] | None = None) -> str:
    """The meaning of package files (named by their path under ``root``) and of modules
    outside the package (named by their module name)."""
    digest = hashlib.sha256()
    named = [(path.relative_to(root).as_posix(), path) for path in sorted(files)]
    named += sorted((f"<{module}>", path) for module, path in (outside or {}).items())
    for name, path in named:
        digest.update(name.encode() + b"\0")
        digest.update(meaning(path).encode() + b"\0")
    return digest.hexdigest()[:16]


def imported_modules(path: Path, package: str) -> set[str]:
    """``package.*`` modules that ``path`` imports anywhere (also inside functions)."""
    stat = path.stat()
    return set(_imports_cached(str(path), stat.st_mtime_ns, stat.st_size, package))


@functools.lru_cache(maxsize=1024)
def _imports_cached(path: str, mtime_ns: int, size: int, package: str) -> frozenset[str]:
    found: set[str] = set()
    for node in ast.walk(_parse_cached(path, mtime_ns, size)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == package)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == package:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return frozenset(found)


def import_closure(root: Path, modules: Iterable[str]) -> list[Path]:
    """Files of ``modules``, of every package module they import (statically), and parents."""
    package = root.name
    todo, seen = list(modules), set()
    files: set[Path] = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = module_path(root, module)
        if path is None:
            continue
        files.add(path)
        parts = module.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
        todo.extend(imported_modules(path, package))
    return sorted(files)


def code_version(modules: Iterable[str], root: Path = PACKAGE_DIR) -> str:
    """Hash of the meaning of ``modules`` and everything they import. A module outside
    the package (a policy of one's own: a file, an installed plugin) counts with its
    file and the package modules it imports."""
    inside, outside = [], {}
    for module in modules:
        if module.split(".")[0] == root.name:
            inside.append(module)
            continue
        from schedsim.policies.plugins import plugin_file

        path = plugin_file(module)
        if path is None:
            raise ValueError(f"code version: no source file for module {module}")
        outside[module] = path
        inside.extend(imported_modules(path, root.name))
    return hash_modules(root, import_closure(root, inside), outside)


def command_entry_points(command: str, modules: Iterable[str] = ()) -> tuple[str, ...]:
    """The entry points of a job that runs ``python -m schedsim.experiments <command>``:
    the command line (:mod:`~schedsim.experiments.cli`), the command's own module (which
    the command line imports by name) and ``modules``, what the command imports by name
    (a family's parts, a policy, a workload model, a family's measure)."""
    from schedsim.experiments.cli import module_name

    return ("schedsim.experiments.cli", module_name(command), *modules)


def command_code(command: str, modules: Iterable[str] = (), root: Path = PACKAGE_DIR) -> str:
    """The code version of a job of ``command`` (:func:`command_entry_points`)."""
    return code_version(command_entry_points(command, modules), root)


def policy_module(policy: str) -> str:
    from schedsim.policies.registry import get_policy

    return get_policy(policy).factory.__module__


def model_module(model: str) -> str:
    from schedsim.workloads.base import get_model

    return get_model(model).generate.__module__


def git_commit() -> str:
    """The commit of the source tree this package runs from, or 'unknown'."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=PACKAGE_DIR, capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def provenance(spec_json: str, code: str, seeds: Iterable[int]) -> dict[str, str]:
    """Metadata stored with every run file."""
    return {"schedsim.spec": spec_json, "schedsim.version": __version__,
            "schedsim.code_version": code, "schedsim.git_commit": git_commit(),
            "schedsim.seeds": canonical_json(list(seeds))}
