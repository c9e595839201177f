"""The packing dynamic programs of LOS: Basic_DP and Reservation_DP.

LOS (Shmueli & Feitelson, JSSPP 2003 / JPDC 2005) picks, from the first ``L``
waiting jobs, the set that keeps the most processors busy now (LOS paper,
sec. III-A; docs/deviations-los.md):

* **Basic_DP**: a 0/1 knapsack whose weight and value are both the job size:
  maximise the summed size subject to ``sum size <= capacity``.
* **Reservation_DP**: the same with a reservation ("freeze"): every job that is
  still running at the freeze end time (shadow time) has a *frozen size* equal
  to its size, else 0, and the frozen sizes must fit in the freeze end capacity
  (extra processors): ``sum frozen <= extra`` (LOS paper, Algorithm 1,
  lines 12-20).

:func:`packing_dp` solves the general case of any number of freezes (each a
further constraint of the same kind); Hybrid-LOS and LOS-D use two (the head's
reservation and the dedicated jobs' one).

Ties: among sets of equal utilisation, the one with jobs nearer the head of the
queue wins (docs/deviations-los.md): the set is reconstructed from the *last*
candidate backwards and a candidate is left out whenever an optimal set without
it exists. Equivalently, comparing the take/leave vectors of all optimal sets
read from the last candidate to the first, the smallest one is chosen.

Implementation: instead of a table ``util[i][j][x]`` we keep, after each
candidate ``i``, the set of reachable states ``(sum size, sum frozen_1, ...)``
as the bits of one Python integer (a multi-dimensional bitset in mixed radix).
Adding a candidate is one shift, one or, one and. Sizes are in units of the
machine's allocation unit, so on the LOS paper's machine (320 processors in
units of 32) a state space has at most 11 x 21 bits.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache


def basic_dp(sizes: Sequence[int], capacity: int) -> list[int]:
    """Basic_DP: positions of the candidates to start (LOS paper, sec. III-A).

    Maximises ``sum sizes[chosen] <= capacity``; ties prefer earlier positions.
    """
    return packing_dp(sizes, capacity, ())


def reservation_dp(
    sizes: Sequence[int], capacity: int, frozen: Sequence[int], extra: int
) -> list[int]:
    """Reservation_DP: Basic_DP with ``sum frozen[chosen] <= extra`` as well.

    ``frozen[i]`` is the size candidate ``i`` still holds at the freeze end time
    (LOS paper, Algorithm 1, lines 16-17: ``frenum``; ``extra`` is ``frec_b``).
    """
    return packing_dp(sizes, capacity, ((frozen, extra),))


def packing_dp(
    sizes: Sequence[int], capacity: int,
    freezes: Sequence[tuple[Sequence[int], int]],
) -> list[int]:
    """Best packing under the capacity and any number of freeze constraints.

    ``freezes`` holds ``(frozen_sizes, limit)`` pairs, one frozen size per
    candidate. Returns the chosen positions in increasing order.
    """
    limits = tuple(max(0, limit) for _, limit in freezes)
    usable = _usable(sizes, capacity, freezes, limits)
    if not usable:
        return []
    if _all_fit(usable, sizes, capacity, freezes, limits):
        return usable
    return _solve(usable, sizes, capacity, freezes, limits)


def _usable(
    sizes: Sequence[int], capacity: int,
    freezes: Sequence[tuple[Sequence[int], int]], limits: tuple[int, ...],
) -> list[int]:
    """Positions of the candidates that fit on their own (the others never can)."""
    columns = [(frozen, limit) for (frozen, _), limit in zip(freezes, limits, strict=True)]
    if len(columns) == 1:  # a reservation (Reservation_DP): written out, the usual case
        frozen, limit = columns[0]
        return [position for position, size in enumerate(sizes)
                if 0 < size <= capacity and frozen[position] <= limit]
    return [position for position, size in enumerate(sizes)
            if 0 < size <= capacity and all(frozen[position] <= limit
                                            for frozen, limit in columns)]


def _all_fit(
    usable: list[int], sizes: Sequence[int], capacity: int,
    freezes: Sequence[tuple[Sequence[int], int]], limits: tuple[int, ...],
) -> bool:
    if sum(sizes[p] for p in usable) > capacity:
        return False
    return all(sum(frozen[p] for p in usable) <= limit
               for (frozen, _), limit in zip(freezes, limits, strict=True))


def _solve(
    usable: list[int], sizes: Sequence[int], capacity: int,
    freezes: Sequence[tuple[Sequence[int], int]], limits: tuple[int, ...],
) -> list[int]:
    strides, size_stride = _strides(limits)
    valid = _valid_states(capacity, limits)
    full_row = capacity * size_stride
    shifts = []
    reach = 1  # the empty set: every sum 0
    history = [reach]
    for position in usable:
        shift = sizes[position] * size_stride
        for (frozen, _), stride in zip(freezes, strides, strict=True):
            shift += frozen[position] * stride
        reach = (reach | (reach << shift)) & valid
        history.append(reach)
        shifts.append(position)
        if reach >> full_row:
            break  # every processor used: later candidates can only tie, and lose ties
    best = (reach.bit_length() - 1) // size_stride
    return _walk_back(shifts, history, best, sizes, freezes, limits, strides, size_stride)


def _walk_back(
    positions: list[int], history: list[int], best: int, sizes: Sequence[int],
    freezes: Sequence[tuple[Sequence[int], int]], limits: tuple[int, ...],
    strides: tuple[int, ...], size_stride: int,
) -> list[int]:
    """Reconstruct the optimal set that leaves out the latest candidates possible."""
    budgets = list(limits)
    target = best
    chosen = []
    for i in range(len(positions) - 1, -1, -1):
        row = (history[i] >> (target * size_stride)) & _box(tuple(budgets), strides)
        if row:
            continue  # an optimal set without this candidate exists: leave it out
        position = positions[i]
        chosen.append(position)
        target -= sizes[position]
        for k, (frozen, _) in enumerate(freezes):
            budgets[k] -= frozen[position]
    chosen.reverse()
    return chosen


def _strides(limits: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """Bit strides of the freeze sums, and of the size sum (most significant).

    A field must hold the sum of two in-range values (``2 * limit``) so that a
    shift never carries into the next field before the mask removes it.
    """
    strides = []
    stride = 1
    for limit in limits:
        strides.append(stride)
        stride *= 2 * limit + 1
    return tuple(strides), stride


@lru_cache(maxsize=4096)
def _valid_states(capacity: int, limits: tuple[int, ...]) -> int:
    """Mask of the states with size sum <= capacity and every freeze sum <= its limit."""
    strides, size_stride = _strides(limits)
    return _repeat(_box(limits, strides), capacity + 1, size_stride)


@lru_cache(maxsize=65536)
def _box(budgets: tuple[int, ...], strides: tuple[int, ...]) -> int:
    """Mask, within one size row, of the freeze sums ``<= budgets`` (all of them)."""
    mask = 1
    for budget, stride in zip(budgets, strides, strict=True):
        mask = _repeat(mask, budget + 1, stride)
    return mask


def _repeat(pattern: int, count: int, stride: int) -> int:
    """``pattern`` copied ``count`` times, ``stride`` bits apart (pattern < 2**stride)."""
    return pattern * (((1 << (count * stride)) - 1) // ((1 << stride) - 1))
