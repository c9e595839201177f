"""The compiled hot loops hold their helpers' code, not calls to them.

The profile's functions (``schedsim.kernel.profile``) and the other small helpers are
declared ``forceinline``: LLVM inlines them into every caller, where they are optimized
with the caller's loop (docs/performance.md, "Inlined by LLVM"). A helper left as a call
makes the slack check's re-placement, most of a SLACK point's time, slower, and a call
of a function compiled with numba's reference counting would bring its atomic counts
into a loop compiled without them. The machine code of a cached kernel cannot be
inspected, so each is compiled here once more, uncached, with its own options.
"""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest

from schedsim.kernel import profile
from schedsim.policies.compiled import slack

_DEFINE = re.compile(r"^define [^@]*@(\S+?)\(", re.MULTILINE)
_CALL = re.compile(r"\bcall [^@]*@([\w.$]+)")


def _body(ir: str, name: str) -> str:
    """The LLVM IR of the compiled function named ``name`` (not its Python wrappers)."""
    for match in _DEFINE.finditer(ir):
        symbol = match.group(1)
        if symbol.startswith("_ZN") and f"{len(name)}{name}" in symbol:
            end = ir.index("\n}\n", match.start())
            return ir[match.start():end]
    raise AssertionError(f"no compiled function {name} in the IR")


def _calls(kernel, *args) -> list[str]:
    fresh = numba.jit(**kernel.targetoptions)(kernel.py_func)  # its options, no cache
    fresh(*args)
    (ir,) = fresh.inspect_llvm().values()
    return _CALL.findall(_body(ir, kernel.py_func.__name__))


def _profile_at(steps: int) -> tuple[np.ndarray, np.ndarray]:
    times = np.zeros(64)
    free = np.zeros(64, np.int64)
    times[:steps] = np.arange(steps) * 10.0
    free[:steps] = np.arange(steps) + 2
    return times, free


def test_the_slack_re_placement_inlines_the_profile_and_counts_no_references() -> None:
    times, free = _profile_at(3)
    sizes, estimates = np.array([2, 3, 4]), np.array([5.0, 6.0, 7.0])
    calls = _calls(slack._place_unchosen, times, free, 3, 0.0, sizes, estimates,
                   np.full(3, 100.0), np.zeros(3, np.bool_), np.zeros(3), 0, 3)
    assert not [c for c in calls if "schedsim6kernel7profile" in c], calls
    assert not [c for c in calls if c.startswith("NRT_")], calls


@pytest.mark.parametrize("name", ["place", "release"])
def test_a_profile_function_inlines_the_ones_it_calls_and_counts_no_references(
        name: str) -> None:
    times, free = _profile_at(3)
    args = (times, free, 3, 2, 5.0, 0.0) if name == "place" else (
        times, free, 3, 0.0, 5.0, 1, -1, -1)
    calls = _calls(getattr(profile, name), *args)
    assert not [c for c in calls if "schedsim6kernel7profile" in c], calls
    # numba gives a function compiled for a caller the caller's reference counting (its
    # _nrt flag) unless the function sets its own: these set it off, so that no caller,
    # whichever compiled them first, gets counts in its loop
    assert not [c for c in calls if c.startswith("NRT_")], calls
