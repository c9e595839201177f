"""Compiled functions, and an on-disk cache that can never serve stale code.

Every compiled function of the package is declared with :func:`kernel` (numba's
``njit`` with ``cache=True``). numba keys its on-disk cache to the file of the cached
function alone, so a change to a helper in another file, a constant imported from
another module, or a policy's decision function compiled into the shared event loop,
would leave the old machine code in use (numba issue 1833). Here the cache of every
compiled function of the package lives in a directory named after the *code version*
of the compiled code: a hash of every module that defines compiled functions and of
every package module those import (``schedsim.kernel.version``, which computes it
without importing numba). An edit of any of them gives a new directory, so nothing
compiled from the old code is ever loaded; a fresh clone fills its cache once.

The modules that define compiled functions are found by what they import (this module),
so a new compiled module needs nothing registered by hand. The cache lives in the
package's ``__pycache__/compiled/<code version>/`` or, where the package is not
writable, under ``$XDG_CACHE_HOME/schedsim`` (``~/.cache/schedsim``);
``SCHEDSIM_CACHE_DIR`` sets the root explicitly. Old versions' directories are left in
place (a running process may still use one); removing the root is always safe.

Saving is one step per directory. numba's own save (``IndexDataCacheFile.save``) reads
a function's index, takes the first data-file number the index does not name, writes
the index and then the data file, with no lock: two processes saving overloads of one
function at once (two jobs of the workflow compiling a fresh code version do) can both
take the same number, and the index can then name, for one signature, a data file that
holds another signature's machine code (numba issues 4807 and 10128). Signatures that
differ only in array layout or record type have the same machine-level ABI, so loading
that would run the wrong code silently. Every save into a directory of this module
(every cache file numba makes there: the kernels and the ``overload`` functions with
``cache`` in their ``jit_options``) therefore holds the directory's exclusive lock
(``fcntl.flock`` on its ``version.LOCK_FILE``) from reading the index to writing it, and
writes the data file before the index entry that names it. Readers take no lock: both
files are replaced whole (numba writes a temporary file and renames it), an index names
only data files written before it, and a number, once in the index, is never given to
another signature (numba empties an index only when a dispatcher is recompiled, which
the package never does), so a reader never pairs an entry with a missing or foreign data file.
Saves into other directories (numba code outside the package) are numba's, unchanged.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Any

from numba import njit
from numba.core import caching

from schedsim.kernel import version
from schedsim.kernel.version import PACKAGE_DIR, code_version, saving_lock

# numba's cache implementation class (``CacheImpl``; ``_CacheImpl`` before 0.63)
_CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl

_LOCKED_DIRECTORIES: set[str] = set()  # what cache_dir() gave numba in this process

KERNELS: list[Any] = []
"""Every compiled function of the package, in the order they were declared."""


@functools.cache
def cache_dir() -> Path:
    """The directory of this code version's compiled functions (``version.cache_dir``),
    whose saves in this process hold its lock."""
    path = version.cache_dir()
    _LOCKED_DIRECTORIES.add(str(path))
    return path


def kernel(*args: Any, **options: Any) -> Any:
    """``numba.njit`` with the code-versioned disk cache: the decorator of every compiled
    function of the package (options as numba's, e.g. ``forceinline=True``)."""
    compiled = njit(*args, cache=True, **options)
    if args and callable(args[0]):
        KERNELS.append(compiled)
        return compiled

    def declare(function: Any) -> Any:
        dispatcher = compiled(function)
        KERNELS.append(dispatcher)
        return dispatcher

    return declare


def load_cached_kernels() -> int:
    """Load into this process every compiled version of every kernel that the disk cache
    holds for this code (what earlier processes compiled), without compiling anything;
    the number loaded. A process that forks children (the workflow's worker,
    schedsim.experiments.worker) calls it so that each child finds them in memory."""
    loaded = 0
    for dispatcher in KERNELS:
        cache = dispatcher._cache
        codegen = dispatcher.targetctx.codegen()
        for key in cache._cache_file._load_index():
            signature, magic, hashes = key
            if (signature in dispatcher.overloads or magic != codegen.magic_tuple()
                    or hashes != cache._index_key(signature, codegen)[2]):
                continue
            dispatcher.compile(signature)  # found in the cache: loaded, not compiled
            loaded += 1
    return loaded


class _CodeVersionLocator(caching._CacheLocator):
    """numba's cache locator for the package's functions: :func:`cache_dir`, with the
    code version as the source stamp and the module path in the file names."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._path = str(cache_dir())
        relative = Path(py_file).resolve().relative_to(PACKAGE_DIR).with_suffix("")
        self._name = f"{'.'.join(relative.parts)}-{py_func.__code__.co_firstlineno}"

    def get_cache_path(self) -> str:
        return self._path

    def get_source_stamp(self) -> str:
        return code_version()

    def get_disambiguator(self) -> str:
        return self._name

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _CodeVersionLocator | None:
        if not Path(py_file).resolve().is_relative_to(PACKAGE_DIR):
            return None
        return cls(py_func, py_file)


if _CodeVersionLocator not in _CACHE_IMPL._locator_classes:
    _CACHE_IMPL._locator_classes.insert(0, _CodeVersionLocator)


_NUMBA_SAVE = getattr(caching.IndexDataCacheFile.save, "__wrapped__",
                      caching.IndexDataCacheFile.save)


@functools.wraps(_NUMBA_SAVE)
def _save_entry(self: caching.IndexDataCacheFile, key: Any, data: Any) -> None:
    """numba's ``IndexDataCacheFile.save``, as one step under the directory's lock and
    with the data file written before the index names it, in :func:`cache_dir`;
    numba's own elsewhere."""
    if self._cache_path not in _LOCKED_DIRECTORIES:
        _NUMBA_SAVE(self, key, data)
        return
    with saving_lock(self._cache_path):
        overloads = self._load_index()
        data_name = overloads.get(key)
        if data_name is None:
            taken = set(overloads.values())
            numbered = (self._data_name(number) for number in itertools.count(1))
            data_name = next(name for name in numbered if name not in taken)
        self._save_data(data_name, data)
        if overloads.get(key) != data_name:
            self._save_index({**overloads, key: data_name})


caching.IndexDataCacheFile.save = _save_entry
