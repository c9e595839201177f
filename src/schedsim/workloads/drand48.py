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

The mechanism is written once, as compiled functions over the 48-bit state
(:func:`lcg_next`, :func:`lcg_sum_log`): the Lublin draws
(:mod:`schedsim.workloads.lublin_draws`) run them compiled, and :class:`Drand48`
calls them on its state, :func:`lcg_next` interpreted (a compiled call from Python
costs more than the step). Compiled, the state is an int64 whose products wrap
modulo 2^64, a multiple of 2^48, so the masked state is the same as with Python's
exact integers; ``log`` is the C library's in both.
"""

from __future__ import annotations

from math import log

from schedsim.kernel.cache import kernel

MULTIPLIER = 0x5DEECE66D
INCREMENT = 0xB
MASK_48 = (1 << 48) - 1
SEED_LOW_BITS = 0x330E
SCALE = 2.0**-48


def seed_state(seed: int) -> int:
    """The 48-bit state that ``srand48(seed)`` sets: (low 32 bits of seed) << 16 | 0x330E."""
    return ((seed & 0xFFFFFFFF) << 16) | SEED_LOW_BITS


@kernel
def lcg_next(state: int) -> int:
    """The state after ``state``: (a * X + c) mod 2^48; ``drand48()`` is it times 2^-48."""
    return (state * MULTIPLIER + INCREMENT) & MASK_48


@kernel
def lcg_sum_log(state: int, count: int) -> tuple[float, int]:
    """(sum of log(drand48()) over the next ``count`` draws, the state after them).

    The logs are added left to right from 0.0, as the C loop ``acc += log(u)`` of the
    reference does, so the sum is bit-identical to it. A zero draw (probability 2^-48)
    adds ``-inf``, as in C (interpreted, ``math.log`` raises ValueError instead).
    """
    acc = 0.0
    for _ in range(count):
        state = lcg_next(state)
        acc += log(state * SCALE)
    return acc, state


_step = lcg_next.py_func


class Drand48:
    """One drand48 stream. ``Drand48(seed)`` is ``srand48(seed)``; ``random()`` is ``drand48()``."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed_state(seed)

    def random(self) -> float:
        """The next value in [0, 1), exactly as ``drand48()``."""
        self.state = x = _step(self.state)
        return x * SCALE

    def sum_log(self, count: int) -> float:
        """``sum(log(drand48()) for _ in range(count))``, added left to right."""
        acc, self.state = lcg_sum_log(self.state, count)
        return acc

    def uniform_ints(self, count: int) -> list[int]:
        """The next ``count`` raw 48-bit states (for tests and diagnostics)."""
        out = []
        for _ in range(count):
            self.state = _step(self.state)
            out.append(self.state)
        return out
