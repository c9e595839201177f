"""The package's structure: no import circle anywhere in ``src/schedsim``, and compiled code
that can never be served stale from numba's disk cache."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "schedsim"


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere (in functions and under
    ``TYPE_CHECKING`` too); ``from package import name`` counts the name's module when
    it is one, else the package."""
    modules = {module_name(path, root): path for path in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                for alias in node.names:
                    child = f"{base}.{alias.name}"
                    found.add(child if child in modules else base)
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle, each as the path of modules that closes it (Tarjan's strongly
    connected components of more than one module, or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_of_the_package_is_in_an_import_circle() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_check_finds_a_circle(tmp_path: Path) -> None:
    """The check itself can fail: two modules that import each other (one inside a
    function) are a circle."""
    root = tmp_path / "schedsim"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "a.py").write_text("from schedsim.sub import b\n")
    (root / "sub" / "b.py").write_text("def f():\n    from . import a\n")
    (root / "c.py").write_text("import schedsim.sub.a\n")
    assert cycles(import_graph(root)) == [["schedsim.sub.a", "schedsim.sub.b"]]


# -- compiled code is never stale ---------------------------------------------------------------
RUNS = {
    # a function cached in policies/compiled/slack.py; the helper edited is in kernel/profile.py
    "kernel/profile.py": textwrap.dedent("""
        import numpy as np
        from schedsim.policies.compiled.slack import fair_start
        times, free = np.array([0.0, 100.0]), np.array([2, 6])
        print(fair_start(times, free, 2, np.array([4]), np.array([50.0]), np.array([np.nan]),
                         0.0, 2, 10.0, True)[0])
    """),
    # a policy's whole run cached in policies/compiled/backfill.py; the engine edited
    "kernel/loop.py": textwrap.dedent("""
        import numpy as np
        from schedsim.policies.compiled.backfill import fcfs_easy_run
        submit, runtime = np.array([0.0, 1.0, 2.0]), np.array([100.0, 50.0, 20.0])
        print(fcfs_easy_run(submit, runtime, runtime.copy(), np.array([4, 4, 2]), 6, True)[0])
    """),
}
EDITS = {
    "kernel/profile.py": ("        start = max(times[unsigned(i)], not_before)\n",
                          "        start = max(times[unsigned(i)], not_before) + 1000.0\n"),
    "kernel/loop.py": ("    now = eng.now\n    eng.free[partition] -= procs\n",
                       "    now = eng.now + 1000.0\n    eng.free[partition] -= procs\n"),
}


def run_copy(src: Path, cache: Path, script: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(src), "SCHEDSIM_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.parametrize("edited, before", [("kernel/profile.py", "100.0"),
                                            ("kernel/loop.py", "[  0. 100.   2.]")])
def test_an_edit_of_a_helper_in_another_file_is_never_served_from_the_cache(
        tmp_path: Path, edited: str, before: str) -> None:
    """In a copy of the package with a warm cache, a helper in another file than the
    cached function is edited (the profile's earliest start moved 1,000 s later; the
    engine starting jobs 1,000 s late): the next run compiles the new code and shows the
    new behaviour, where numba's own cache would serve the old machine code."""
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "schedsim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    cache = tmp_path / "cache"
    script = RUNS[edited]
    assert run_copy(src, cache, script) == before
    assert run_copy(src, cache, script) == before  # warm: loaded from the cache
    path = src / "schedsim" / edited
    text = path.read_text(encoding="utf-8")
    old, new = EDITS[edited]
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert run_copy(src, cache, script) != before
