"""Downey's speedup model for moldable jobs.

A. B. Downey, "A model for speedup of parallel programs", UCB/CSD-97-933 (1997);
used by the HRF paper (sec. 2.2) and by the Cirne-Berman moldable workload model
(docs/workloads-cirne-hyperexp.md). A job has an average parallelism ``A`` (>= 1) and
a variance of parallelism ``sigma`` (>= 0); its speedup on ``n`` processors is
``S(n)``, with ``S(1) = 1``, ``S`` non-decreasing and ``S(n) <= min(n, A)``.

``L`` is the sequential run time: the HRF paper (sec. 2.2) defines
``S(n) = L / T(n)`` with ``L`` "the job running on one processor", and since
``S(1) = 1`` we have ``T(1) = L``. The run time on ``n`` processors is
``T(n) = L / S(n)`` (HRF paper, sec. 2.2), kept as a real number here (Cirne's
tools round it up to whole seconds; see docs/deviations-workloads.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np


def downey_speedup(n: float, avg_parallelism: float, sigma: float) -> float:
    """Downey's speedup ``S(n; A, sigma)`` on ``n >= 1`` processors.

    Low variance (``sigma <= 1``), Downey 1997 / docs/workloads-cirne-hyperexp.md::

        S(n) = A n / (A + sigma (n - 1) / 2)              1 <= n <= A
        S(n) = A n / (sigma (A - 1/2) + n (1 - sigma/2))  A <= n <= 2A - 1
        S(n) = A                                          n >= 2A - 1

    High variance (``sigma >= 1``)::

        S(n) = n A (sigma + 1) / (sigma (n + A - 1) + A)  1 <= n <= A + A sigma - sigma
        S(n) = A                                          n >= A + A sigma - sigma

    Both regimes agree at ``sigma = 1``.
    """
    _check_downey(avg_parallelism, sigma)
    if n < 1:
        raise ValueError(f"downey_speedup: n={n} must be >= 1")
    if n == 1:
        return 1.0  # exact; the formulas give 1 up to rounding
    if sigma <= 1.0:
        return _low_variance(n, avg_parallelism, sigma)
    return _high_variance(n, avg_parallelism, sigma)


def _low_variance(n: float, a: float, sigma: float) -> float:
    if n <= a:
        return a * n / (a + sigma * (n - 1.0) / 2.0)
    if n <= 2.0 * a - 1.0:
        return a * n / (sigma * (a - 0.5) + n * (1.0 - sigma / 2.0))
    return a


def _high_variance(n: float, a: float, sigma: float) -> float:
    if n <= a + a * sigma - sigma:
        return n * a * (sigma + 1.0) / (sigma * (n + a - 1.0) + a)
    return a


def downey_max_useful(avg_parallelism: float, sigma: float) -> int:
    """Smallest processor count at which ``S`` reaches its maximum ``A``.

    ``ceil(2A - 1)`` for ``sigma <= 1``, else ``ceil(A + A sigma - sigma)``
    (docs/workloads-cirne-hyperexp.md, Cirne's ``downeymaxnodes``). More processors
    than this never shorten the run time.
    """
    _check_downey(avg_parallelism, sigma)
    if sigma <= 1.0:
        edge = 2.0 * avg_parallelism - 1.0
    else:
        edge = avg_parallelism + avg_parallelism * sigma - sigma
    return max(1, math.ceil(edge))


def _check_downey(avg_parallelism: float, sigma: float) -> None:
    if not avg_parallelism >= 1.0:
        raise ValueError(f"Downey model: A={avg_parallelism} must be >= 1")
    if not sigma >= 0.0:
        raise ValueError(f"Downey model: sigma={sigma} must be >= 0")


@dataclass(frozen=True, slots=True)
class DowneySpeedup:
    """A moldable job's run time model ``T(n) = L / S(n; A, sigma)`` (HRF paper, sec. 2.2).

    Attributes:
        work_L: sequential run time ``L`` in seconds (``T(1) = L``).
        avg_parallelism_A: Downey's average parallelism ``A`` (>= 1).
        sigma: Downey's variance of parallelism ``sigma`` (>= 0).
    """

    work_L: float
    avg_parallelism_A: float
    sigma: float

    def __post_init__(self) -> None:
        if not self.work_L > 0.0:
            raise ValueError(f"DowneySpeedup: L={self.work_L} must be > 0")
        _check_downey(self.avg_parallelism_A, self.sigma)

    def speedup(self, procs: int) -> float:
        """``S(procs)``."""
        return downey_speedup(procs, self.avg_parallelism_A, self.sigma)

    def runtime(self, procs: int) -> float:
        """Run time on ``procs`` processors: ``L / S(procs)``."""
        return self.work_L / self.speedup(procs)

    def runtimes(self, unit: int, count: int) -> tuple[float, ...]:
        """``T(unit), T(2 unit), ..., T(count unit)``, each equal to :meth:`runtime`."""
        return downey_runtimes(self.work_L, self.avg_parallelism_A, self.sigma, unit, count)

    @property
    def max_useful_procs(self) -> int:
        """Processor count beyond which the run time no longer falls."""
        return downey_max_useful(self.avg_parallelism_A, self.sigma)


@lru_cache(maxsize=1 << 16)
def downey_runtimes(work: float, avg_parallelism: float, sigma: float, unit: int,
                    count: int) -> tuple[float, ...]:
    """``L / S(n)`` for ``n = unit, 2 unit, ..., count unit``, computed on arrays.

    Bit-identical to ``L / downey_speedup(n, A, sigma)`` one size at a time: every
    element goes through the same IEEE operations in the same order (numpy applies
    each operator element-wise, with no fusion). Cached: a moldable job's table is
    asked for at every threshold and by every policy run on the same workload.
    """
    _check_downey(avg_parallelism, sigma)
    n = np.arange(1, count + 1, dtype=np.float64) * unit
    a = avg_parallelism
    if sigma <= 1.0:
        speedup = np.where(
            n <= a, a * n / (a + sigma * (n - 1.0) / 2.0),
            np.where(n <= 2.0 * a - 1.0, a * n / (sigma * (a - 0.5) + n * (1.0 - sigma / 2.0)),
                     a))
    else:
        speedup = np.where(n <= a + a * sigma - sigma,
                           n * a * (sigma + 1.0) / (sigma * (n + a - 1.0) + a), a)
    speedup[n == 1.0] = 1.0
    return tuple((work / speedup).tolist())
