"""The package's compiled entry points compiled ahead of time: one library per code
version that a process loads without numba.

A process that loads numba and its cached kernels holds about 150 MB before it reads a
job: numba's modules, and LLVM's code, which sets up its compiler at the first compiled
call even when every kernel comes from the cache (docs/performance.md, "Where the 200
MB goes now"). For the run that needs no other compiled code, `schedsim simulate` with
FCFS, EASY or conservative backfilling on an SWF file, `schedsim compile` builds the
entry points of that run (:data:`ENTRY_POINTS`: the SWF scan, the runs, the text of the
schedule) into one extension module with numba's ahead-of-time compiler (``numba.pycc``),
from the same functions the JIT compiles: one implementation, compiled twice.

The library lives in the code version's cache directory (``schedsim.kernel.version``),
so it is never stale: an edit of any compiled module gives a new directory, where there
is no library until `schedsim compile` builds one again. A process that calls
:func:`use` (`schedsim simulate` does, when the library exists) gets its functions from
:func:`functions`; any other process, and any function not in the library, gets the JIT
kernel (``schedsim.kernel.cache``). Both give the same results
(``tests/test_ahead.py``).

numba's ahead-of-time functions convert their arguments without checking them (an
array of another type is read as if it had the declared one), so every call through
:func:`functions` checks each argument against the declared type first.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from schedsim.errors import InputError
from schedsim.kernel.version import cache_dir, saving_lock

# This file names schedsim.kernel.cache, so it counts in the code version
# (``version.compiled_code_files``): a change of ENTRY_POINTS gives a new library too.
LIBRARY = "schedsim_ahead"  # the extension module's name
_SCAN = "schedsim.workloads.swf_kernels"
_BACKFILL = "schedsim.policies.compiled.backfill"


@dataclass(frozen=True)
class Argument:
    """An entry point's argument: a scalar (``ndim`` 0) or a C-contiguous array of
    ``dtype`` and ``ndim``, which the function writes unless ``read_only``."""

    dtype: type
    ndim: int = 0
    read_only: bool = False

    def accepts(self, value: object) -> bool:
        if self.ndim == 0:
            if self.dtype is np.bool_:
                return isinstance(value, bool | np.bool_)
            if self.dtype is np.int64:
                return isinstance(value, int | np.integer) and not isinstance(value, bool)
            return isinstance(value, float | np.floating)
        return (isinstance(value, np.ndarray) and value.dtype == self.dtype
                and value.ndim == self.ndim and value.flags.c_contiguous
                and (self.read_only or value.flags.writeable))

    def __str__(self) -> str:
        name = np.dtype(self.dtype).name
        if self.ndim == 0:
            return name
        return f"a C-contiguous {self.ndim}-d {name} array" + (
            "" if self.read_only else ", writable")

    def numba_type(self) -> Any:
        from numba import types
        from numba.np.numpy_support import from_dtype

        scalar = from_dtype(np.dtype(self.dtype))
        if self.ndim == 0:
            return scalar
        return types.Array(scalar, self.ndim, "C", readonly=self.read_only)


BYTES = Argument(np.uint8, 1, read_only=True)
I8, F8, B1 = Argument(np.int64), Argument(np.float64), Argument(np.bool_)
I8_1, F8_1, B1_1 = Argument(np.int64, 1), Argument(np.float64, 1), Argument(np.bool_, 1)
I8_2, F8_2 = Argument(np.int64, 2), Argument(np.float64, 2)


@dataclass(frozen=True)
class EntryPoint:
    """A kernel of ``module`` compiled into the library for one signature."""

    module: str
    name: str
    arguments: tuple[Argument, ...]

    @property
    def symbol(self) -> str:
        """Its name in the library."""
        return f"{self.module.rsplit('.', 1)[-1]}__{self.name}"


ENTRY_POINTS = (
    EntryPoint(_SCAN, "modelled_lines", (BYTES,)),
    EntryPoint(_SCAN, "scan_block", (BYTES, I8, I8, I8, F8_2, I8_1, I8_1, I8_2, I8_2)),
    EntryPoint(_SCAN, "block_ok", (F8_2, I8, I8_1, I8_1, B1_1, F8)),
    EntryPoint(_SCAN, "value_ranges", (F8_2, I8, I8, F8_1, F8_1, B1_1, B1_1)),
    EntryPoint(_SCAN, "format_rows", (F8_2, I8_1, BYTES, I8_1)),
    EntryPoint(_BACKFILL, "fcfs_easy_run", (F8_1, F8_1, F8_1, I8_1, I8, B1)),
    EntryPoint(_BACKFILL, "conservative_run", (F8_1, F8_1, F8_1, I8_1, I8)),
)
"""What the library holds: the compiled functions that `schedsim simulate` with FCFS,
EASY or conservative backfilling calls on an SWF file, each with the one signature it
is called with."""

POLICIES = frozenset({"fcfs", "easy", "conservative"})
"""The policies whose whole `schedsim simulate` run the library holds."""


def library_path() -> Path:
    """Where this code version's library is (or would be)."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return cache_dir() / f"{LIBRARY}{suffix}"


def available() -> bool:
    """Whether `schedsim compile` has built the library of this code version."""
    return library_path().is_file()


class _Checked:
    """An ahead-of-time function that checks its arguments first (module docstring)."""

    def __init__(self, entry: EntryPoint, function: Any) -> None:
        self.entry, self.function = entry, function

    def __call__(self, *values: object) -> Any:
        arguments = self.entry.arguments
        if len(values) != len(arguments):
            raise TypeError(f"{self.entry.name}: {len(values)} arguments, "
                            f"the library's takes {len(arguments)}")
        for position, (value, argument) in enumerate(zip(values, arguments, strict=True)):
            if not argument.accepts(value):
                got = type(value).__name__
                if isinstance(value, np.ndarray):
                    layout = "C-contiguous" if value.flags.c_contiguous else "strided"
                    got = (f"a {layout} {value.ndim}-d {value.dtype} array"
                           + ("" if value.flags.writeable else ", read-only"))
                raise TypeError(f"{self.entry.name}: argument {position} is {got}; the "
                                f"library's takes {argument}")
        return self.function(*values)


class _Functions:
    """A module's entry points from the library; its other names from the module."""

    def __init__(self, module: str, library: ModuleType) -> None:
        self._module = module
        self._found = {entry.name: _Checked(entry, getattr(library, entry.symbol))
                       for entry in ENTRY_POINTS if entry.module == module}

    def __getattr__(self, name: str) -> Any:
        found = self._found.get(name)
        if found is not None:
            return found
        return getattr(importlib.import_module(self._module), name)


_in_use: dict[str, _Functions] | None = None


def use() -> None:
    """Run this process's calls of the entry points on the library (which must exist)."""
    global _in_use
    path = library_path()
    spec = importlib.util.spec_from_file_location(LIBRARY, path)
    if spec is None or spec.loader is None:
        raise InputError(f"{path}: not a library; `schedsim compile` builds it")
    library = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(library)
    except ImportError as err:
        raise InputError(f"{path}: cannot be loaded ({err}); remove it and run "
                         "`schedsim compile` again") from None
    _in_use = {module: _Functions(module, library)
               for module in {entry.module for entry in ENTRY_POINTS}}


def functions(module: str) -> Any:
    """The compiled functions of ``module``: the library's where :func:`use` was called
    and it holds them, else the module's own (JIT-compiled, cached)."""
    if _in_use is not None and module in _in_use:
        return _in_use[module]
    return importlib.import_module(module)


def build() -> Path:
    """Build this code version's library, unless it is there; its path. The compiler runs
    in a process of its own, on a cache of its own (numba links a kernel into the library
    from its compiled IR, which a kernel loaded from the disk cache does not have); the
    library is written whole or not at all."""
    target = library_path()
    with saving_lock(target.parent):
        if target.is_file():
            return target
        with tempfile.TemporaryDirectory(dir=target.parent, prefix="ahead-") as work:
            env = {**os.environ, "SCHEDSIM_CACHE_DIR": str(Path(work) / "jit")}
            done = subprocess.run(_compiler_command(work), env=env, capture_output=True,
                                  text=True, check=False)
            built = Path(work) / target.name
            if done.returncode != 0 or not built.is_file():
                lines = (done.stderr or done.stdout).strip().splitlines()[-3:]
                raise InputError("building the ahead-of-time library failed: "
                                 + " | ".join(lines) + " (it needs numba.pycc and a C "
                                 "compiler, cc)")
            os.replace(built, target)
    return target


def _compiler_command(directory: str) -> list[str]:
    return [sys.executable, "-m", __name__, directory]


def _compile_into(directory: str) -> None:
    """numba's ahead-of-time compiler: every entry point into ``directory``."""
    from numba.core.typing import signature
    from numba.pycc import CC

    compiler = CC(LIBRARY)
    compiler.output_dir = directory
    # pycc's default target: the architecture's generic CPU, not this machine's. A cache
    # directory shared by machines of one architecture (a cluster's home directory) then
    # serves them all; numba's JIT cache checks the CPU of each entry, this library could
    # not. Neither uses fast-math, so the results are the same bit for bit.
    for entry in ENTRY_POINTS:
        dispatcher = getattr(importlib.import_module(entry.module), entry.name)
        types = tuple(argument.numba_type() for argument in entry.arguments)
        dispatcher.compile(types)
        returned = dispatcher.overloads[types].signature.return_type
        compiler.export(entry.symbol, signature(returned, *types))(dispatcher.py_func)
    compiler.compile()


if __name__ == "__main__":
    _compile_into(sys.argv[1])
