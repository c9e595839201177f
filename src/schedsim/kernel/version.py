"""The code version of the package's compiled code and the directory that holds it,
without importing numba (a process that runs only ahead-of-time compiled code,
``schedsim.kernel.ahead``, never loads it).

The *code version* is a hash of every module that defines compiled functions (those
that import ``schedsim.kernel.cache``) and of every package module those import, with
the numba and Python versions: an edit of any of them gives a new directory, so nothing
compiled from the old code is ever loaded (``schedsim.kernel.cache`` has the reasons).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import importlib.metadata
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from schedsim.sources import PACKAGE_DIR, module_path

MARKER = "schedsim.kernel.cache"  # a module importing this defines compiled functions
_IMPORT = re.compile(r"^\s*(?:from\s+(schedsim(?:\.\w+)*)\s+import\s+([^#\n]+)"
                     r"|import\s+(schedsim(?:\.\w+)*))", re.MULTILINE)

LOCK_FILE = "saving.lock"
"""The file of a cache directory whose ``flock`` a save holds."""


def _numba_version() -> str:
    """numba's version, from its installed metadata (importing numba takes 60 MB)."""
    try:
        return importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:  # not installed as a distribution
        import numba

        return str(numba.__version__)


def _imports(text: str) -> set[str]:
    """``schedsim`` modules a source text imports (anywhere in it; a name imported
    from a package may be a module)."""
    found: set[str] = set()
    for match in _IMPORT.finditer(text):
        package, names, plain = match.groups()
        if plain:
            found.add(plain)
            continue
        found.add(package)
        for name in names.replace("(", " ").replace(")", " ").split(","):
            name = name.split(" as ")[0].strip()
            if name.isidentifier():
                found.add(f"{package}.{name}")
    return found


def compiled_code_files() -> list[Path]:
    """The files of every module that defines compiled functions and of every package
    module they import, transitively (packages' ``__init__`` files included)."""
    texts = {path: path.read_text(encoding="utf-8") for path in PACKAGE_DIR.rglob("*.py")}
    todo = [path for path, text in texts.items() if MARKER in text]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for module in _imports(texts.get(path) or path.read_text(encoding="utf-8")):
            found = module_path(PACKAGE_DIR, module)
            if found is not None and found not in seen:
                todo.append(found)
    return sorted(seen)


@functools.cache
def code_version() -> str:
    """A hash of the text of :func:`compiled_code_files` and of the numba and Python
    versions (numba's own index also checks the latter)."""
    digest = hashlib.sha256(f"{_numba_version()} {sys.version}".encode())
    for path in compiled_code_files():
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _roots() -> list[Path]:
    given = os.environ.get("SCHEDSIM_CACHE_DIR")
    if given:
        return [Path(given)]
    user = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "schedsim"
    return [PACKAGE_DIR / "__pycache__" / "compiled", user]


@functools.cache
def cache_dir() -> Path:
    """The directory of this code version's compiled functions (created, writable)."""
    failures = []
    for root in _roots():
        path = root / code_version()
        try:
            path.mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=path).close()
        except OSError as err:
            failures.append(f"{path}: {err.strerror or err}")
            continue
        return path
    raise OSError("no writable directory for compiled code: " + "; ".join(failures))


@contextlib.contextmanager
def saving_lock(directory: str | Path) -> Iterator[None]:
    """Hold the exclusive lock of a cache directory, waiting while another process (or
    another open of the lock file) holds it."""
    descriptor = os.open(os.path.join(directory, LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock
