"""A faithful re-implementation of the POSIX ``drand48`` / ``srand48`` generator.

The 48-bit linear congruential generator of POSIX (The Open Group, ``drand48``):

    X_{n+1} = (a * X_n + c) mod 2^48,   a = 0x5DEECE66D,  c = 0xB,

and ``drand48()`` returns ``X_{n+1} / 2^48`` in [0, 1). ``srand48(seed)`` sets the
high 32 bits of X_0 to the low 32 bits of ``seed`` and the low 16 bits to 0x330E.

glibc builds the double by putting the 48 state bits into the mantissa of a
number in [1, 2) and subtracting 1; that is exactly ``X / 2^48`` (48 bits fit in
a double), so ``x * 2**-48`` reproduces it bit for bit.

This is the generator of the reference program ``m_lublin99.c`` (workload notes,
sec. 1.2), so the Lublin generator needs it to reproduce the reference output.
The hot paths (:meth:`Drand48.random` and :meth:`Drand48.sum_log`) keep the
state in a local variable and do no other work.
"""

from __future__ import annotations

from functools import reduce
from math import log
from operator import add

import numpy as np

MULTIPLIER = 0x5DEECE66D
INCREMENT = 0xB
MASK_48 = (1 << 48) - 1
SEED_LOW_BITS = 0x330E
SCALE = 2.0**-48

# sum_log() steps this many states at once with numpy (jump-ahead tables) when the
# count is at least VECTOR_MIN; below that a plain loop is faster.
VECTOR_BLOCK = 512
VECTOR_MIN = 24


def seed_state(seed: int) -> int:
    """The 48-bit state that ``srand48(seed)`` sets: (low 32 bits of seed) << 16 | 0x330E."""
    return ((seed & 0xFFFFFFFF) << 16) | SEED_LOW_BITS


def jump_tables(length: int) -> tuple[np.ndarray, np.ndarray]:
    """(a_k, c_k) for k = 1..length with X_{n+k} = (a_k * X_n + c_k) mod 2^48."""
    multipliers, increments = [], []
    a_k, c_k = 1, 0
    for _ in range(length):
        a_k = (a_k * MULTIPLIER) & MASK_48
        c_k = (c_k * MULTIPLIER + INCREMENT) & MASK_48
        multipliers.append(a_k)
        increments.append(c_k)
    return np.array(multipliers, dtype=np.uint64), np.array(increments, dtype=np.uint64)


_JUMP_A, _JUMP_C = jump_tables(VECTOR_BLOCK)
_MASK_U64 = np.uint64(MASK_48)


class Drand48:
    """One drand48 stream. ``Drand48(seed)`` is ``srand48(seed)``; ``random()`` is ``drand48()``."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed_state(seed)

    def random(self) -> float:
        """The next value in [0, 1), exactly as ``drand48()``."""
        self.state = x = (self.state * MULTIPLIER + INCREMENT) & MASK_48
        return x * SCALE

    def sum_log(self, count: int) -> float:
        """``sum(log(drand48()) for _ in range(count))`` added left to right.

        The sum is accumulated in the same order as a C loop ``acc += log(u)``, so
        the result is bit-identical to it. A zero draw (probability 2^-48 per draw)
        gives ``-inf`` in C; here it raises ``ValueError`` from ``math.log``.
        Long sums compute the states with numpy (uint64 arithmetic wraps modulo
        2^64, a multiple of 2^48) but keep ``math.log`` and the left-to-right sum.
        """
        if count >= VECTOR_MIN:
            return self._sum_log_vector(count)
        x = self.state
        acc = 0.0
        for _ in range(count):
            x = (x * MULTIPLIER + INCREMENT) & MASK_48
            acc += log(x * SCALE)
        self.state = x
        return acc

    def _sum_log_vector(self, count: int) -> float:
        acc = 0.0
        x = self.state
        while count > 0:
            block = min(count, VECTOR_BLOCK)
            states = (_JUMP_A[:block] * np.uint64(x) + _JUMP_C[:block]) & _MASK_U64
            acc = reduce(add, map(log, (states * SCALE).tolist()), acc)
            x = int(states[-1])
            count -= block
        self.state = x
        return acc

    def uniform_ints(self, count: int) -> list[int]:
        """The next ``count`` raw 48-bit states (for tests and diagnostics)."""
        out = []
        for _ in range(count):
            self.state = (self.state * MULTIPLIER + INCREMENT) & MASK_48
            out.append(self.state)
        return out
