"""Independent pieces of one step spread over the processors the step was given.

A workflow step runs on one core unless its rule gives it more (``threads:``); the two
steps that end a reproduction, the claims and the summary page, run alone at its end,
so they take both cores of a 2-core machine for their independent pieces (the
families' judgements, the pictures). The pieces run in forked copies of the process:
nothing is sent to them but their index, and only their results come back, in order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

_WORK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def ordered_map(function: Callable[[Item], Result], items: Sequence[Item],
                processes: int) -> list[Result]:
    """``[function(item) for item in items]``, computed by up to ``processes`` forked
    processes (one, or a system without ``fork``: in this one). The same results in the
    same order whatever the count: the pieces must not depend on one another."""
    if processes <= 1 or len(items) <= 1 or not hasattr(os, "fork"):
        return [function(item) for item in items]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _WORK
    _WORK = (function, items)
    try:
        with ProcessPoolExecutor(min(processes, len(items)),
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_piece, range(len(items))))
    finally:
        _WORK = None


def _piece(index: int) -> Any:
    assert _WORK is not None  # set before the pool forked this process
    function, items = _WORK
    return function(items[index])


def process_count(text: str) -> int:
    """A ``--processes`` value: a whole number >= 1 (an argparse type)."""
    import argparse

    from schedsim.numbers import to_int

    try:
        count = to_int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a process count; allowed: a "
                                         "whole number >= 1")
    return count
