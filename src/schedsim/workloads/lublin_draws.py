"""The random draws of the Lublin model, compiled, on a drand48 state.

U. Lublin and D. G. Feitelson, JPDC 63(11):1105-1122, 2003 ("Lublin paper"), as the
reference program ``m_lublin99.c`` draws them: gamma variates as in Jain (1991),
ch. 28, the hyper-gamma runtime (Lublin paper, sec. 4) and the arrival process with
its daily cycle (sec. 5). These are the only implementation: the Python model
(:mod:`schedsim.workloads.lublin`, :mod:`schedsim.workloads.lublin_los`) calls them
on a :class:`~schedsim.workloads.drand48.Drand48`'s state.

Each function takes the 48-bit state and returns the state after its draws with
its result; the draws are made in the reference's order and every double is
computed with the same operations in the same order as there (``log``, ``exp`` and
``**`` are the C library's, compiled and interpreted alike), so the results are
bit-identical to the reference's. A draw that a cap rejects ``MAX_REJECTIONS``
times in a row gives up and says so in its result (the Python caller raises).
"""

from __future__ import annotations

from math import exp, log

import numpy as np

from schedsim.kernel.cache import kernel
from schedsim.workloads.drand48 import SCALE, lcg_next, lcg_sum_log

BUCKETS = 48  # half-hour buckets of the daily cycle (reference)
SECONDS_IN_BUCKET = 1800
MAX_REJECTIONS = 100_000  # guard against a cap that rejects (almost) every draw


@kernel
def beta_below_one(state: int, alpha: float, beta: float) -> tuple[float, int]:
    """Beta(alpha, beta) for alpha, beta < 1 by rejection (Jain 1991, ch. 28): pairs
    u1^(1/alpha), u2^(1/beta) until their sum is at most 1."""
    inv_alpha = 1 / alpha
    inv_beta = 1 / beta
    while True:
        state = lcg_next(state)
        x = (state * SCALE) ** inv_alpha
        state = lcg_next(state)
        y = (state * SCALE) ** inv_beta
        if x + y <= 1:
            return x / (x + y), state


@kernel
def gamma_variate(state: int, shape: float, scale: float) -> tuple[float, int]:
    """Gamma(shape, scale) as in m_lublin99.c: the integer part of the shape as a sum of
    exponentials, the fraction d as Beta(d, 1 - d) x Exp(1) (Jain 1991, ch. 28).

    Draw order: ``floor(shape)`` uniforms, then the beta rejection pairs, then one
    uniform for the exponential.
    """
    whole = int(shape)
    value = 0.0
    if shape >= 1:
        log_sum, state = lcg_sum_log(state, whole)
        value += -log_sum * scale
    fraction = shape - whole
    if fraction > 0:
        beta, state = beta_below_one(state, fraction, 1 - fraction)
        state = lcg_next(state)
        value += scale * beta * -log(state * SCALE)
    return value, state


@kernel
def hyper_gamma_runtime(state: int, nodes: float, pa: float, pb: float, a1: float, b1: float,
                        a2: float, b2: float, cap: float) -> tuple[int, int]:
    """Runtime in whole seconds of a job of ``nodes``, ``int(exp(hg))`` (Lublin paper,
    sec. 4): with p = pa * nodes + pb clipped to [0, 1], one uniform picks
    gamma(a1, b1) when it is <= p, else gamma(a2, b2); hg above ``cap`` is drawn again
    (uniform and gamma). -1 when ``MAX_REJECTIONS`` draws were all above it."""
    p = pa * nodes + pb
    p = 1.0 if p > 1 else (0.0 if p < 0 else p)
    for _ in range(MAX_REJECTIONS):
        state = lcg_next(state)
        if state * SCALE <= p:
            log_runtime, state = gamma_variate(state, a1, b1)
        else:
            log_runtime, state = gamma_variate(state, a2, b2)
        if log_runtime <= cap:
            return int(exp(log_runtime)), state
    return -1, state


@kernel
def hyper_gamma_runtimes(state: int, nodes: np.ndarray, pa: float, pb: float, a1: float,
                         b1: float, a2: float, b2: float,
                         cap: float) -> tuple[np.ndarray, int]:
    """:func:`hyper_gamma_runtime` for each job of ``nodes`` (float64) in turn, from one
    stream; -1 for a job and every later one when the cap rejected too many draws."""
    runtimes = np.full(len(nodes), -1, np.int64)
    for index in range(len(nodes)):
        runtimes[index], state = hyper_gamma_runtime(state, nodes[index], pa, pb, a1, b1, a2,
                                                     b2, cap)
        if runtimes[index] < 0:
            break
    return runtimes, state


@kernel
def capped_gamma(state: int, shape: float, scale: float,
                 cap: float) -> tuple[float, int, bool]:
    """Gamma(shape, scale) redrawn while above ``cap``; False after ``MAX_REJECTIONS``."""
    for _ in range(MAX_REJECTIONS):
        value, state = gamma_variate(state, shape, scale)
        if value <= cap:
            return value, state, True
    return 0.0, state, False


@kernel
def arrival_times(state: int, count: int, weights: np.ndarray, shape: float, scale: float,
                  cap: float, bucket: int, points: float, remainder: float,
                  time: int) -> tuple[np.ndarray, int, int, float, float, int]:
    """The next ``count`` arrivals of one job type (``calc_next_arrive`` of the reference).

    The clock is (``bucket``, ``points``, ``remainder``, ``time``). Each arrival draws
    g ~ gamma(shape, scale) below ``cap``, adds e^g / 1800 points, pays the weight of
    every bucket the points cover (1800 s each) and keeps the fractional remainder,
    exactly as the reference, including the truncation of the accumulated time to an
    integer after every step. Returns the arrival times (fewer than ``count`` when the
    cap rejected ``MAX_REJECTIONS`` draws in a row), the state and the clock after them.
    """
    times = np.empty(count, np.int64)
    for index in range(count):
        log_gap, state, drawn = capped_gamma(state, shape, scale, cap)
        if not drawn:
            return times[:index], state, bucket, points, remainder, time
        points = points + exp(log_gap) / SECONDS_IN_BUCKET
        gap = 0.0
        while points > weights[bucket]:
            points -= weights[bucket]
            bucket = (bucket + 1) % BUCKETS
            gap += SECONDS_IN_BUCKET
        new_remainder = points / weights[bucket]
        gap += SECONDS_IN_BUCKET * (new_remainder - remainder)
        remainder = new_remainder
        time = int(time + gap)
        times[index] = time
    return times, state, bucket, points, remainder, time
