"""Adaptive space sharing on a non-dedicated heterogeneous cluster: MAP, HAP and IHAP.

A. Chhabra, G. Singh, "A Modified Adaptive Space-Sharing Policy for Non-dedicated
Heterogeneous Cluster Systems", sec. 3 (eq. 2-8). Each policy sizes a job's partition
from the load of the system, then picks processors:

* partition size PS = max(1, ceil(N / (W + f R + 1) + 1/2)) (eq. 2, 5, 7), W the
  waiting jobs (the one being sized included), R the running jobs, f = 0.5;
* a processor k has a weight w_k: MAP 1 - u_k (processors), HAP and IHAP the available
  computing power CP_k = b_k (1 - u_k) (eq. 6, BPUs); N is 64 processors (MAP), the
  machine's 96 BPUs (HAP) or the sum of CP_k (IHAP);
* the target min(PS, Pmax) (eq. 3, 8), Pmax the job's maximum parallelism, "the maximum
  number of processors that can be effectively utilized" (sec. 4.2): the job gets idle
  processors in the order (-w_k, -b_k, k) until their weights reach PS or it holds Pmax
  processors, whichever comes first; it fits when the idle processors allow that (their
  weights reach PS, or at least Pmax are idle). ``pmax_unit: bpus`` (HAP and IHAP)
  reads eq. 8 as printed instead: tau = min(PS, Pmax) BPUs, the processors' weights
  must reach tau, however many processors that takes.

MAP and HAP serve jobs first come, first served; IHAP fit-processors-first-served (a job
that does not fit is passed over for the next one that does). Loads are integer percents
(the engine's view), so the arithmetic is exact: weights are integers in 1/100 of a
speed unit. Open points (docs/deviations-ihap.md): ``capacity`` (O2), ``pmax_unit`` (O3),
``rounding`` (O4), ``selection`` (the ablation "IHAP with FCFS").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from schedsim.engine import Decision, EngineView, Start
from schedsim.jobs import Job, job_column, unmade_fields
from schedsim.kernel.whole import Outcome, job_columns, schedule_of
from schedsim.machine import EQUAL_SPLIT, Machine
from schedsim.policies.base import QueuePolicy
from schedsim.policies.registry import register_policy, setting
from schedsim.schedule import Schedule

if TYPE_CHECKING:
    from schedsim.loadmodel import UniformLoads

FCFS, FPFS = "fcfs", "fpfs"
AS_PRINTED, NEAREST = "as_printed", "nearest"
AVAILABLE, NOMINAL = "available", "nominal"
PROCESSORS, BPUS = "processors", "bpus"
PERCENT = 100


@dataclass(frozen=True)
class AdaptiveSettings:
    """Settings of MAP, HAP and IHAP (IHAP paper, sec. 3 and 5; docs/deviations-ihap.md)."""

    f: float = setting(0.5, "weight of the running jobs in the partition size (eq. 2, "
                       "sec. 5.1: 0.5)", low=0.0)
    capacity: str = setting(AVAILABLE, "MAP and HAP: a processor counts in the fit test with "
                            "its loaded capacity (available) or its full one (nominal); "
                            "IHAP always uses its available power (O2)",
                            choices=(AVAILABLE, NOMINAL))
    rounding: str = setting(AS_PRINTED, "the partition size: ceil(x + 1/2) as printed, or x "
                            "rounded to nearest, halves up (O4)", choices=(AS_PRINTED, NEAREST))
    sized_job_waits: bool = setting(True, "W of the partition size counts the job being "
                                    "sized (O1; false: the other waiting jobs only)")
    selection: str = setting("", "fcfs: stop at the first job that does not fit; fpfs: pass "
                             "it over (empty: the policy's own, FCFS for MAP and HAP, FPFS "
                             "for IHAP)", choices=("", FCFS, FPFS))
    compiled: bool = setting(True, "run the compiled path where it models the run (jobs with "
                             "work on one partition, under uniform background loads or "
                             "none); false: the Python policy in the engine, the same "
                             "schedule, slower")


@dataclass(frozen=True)
class BPUSettings(AdaptiveSettings):
    """Settings of the policies that size partitions in BPUs (HAP, IHAP): MAP's and the
    unit of Pmax (O3)."""

    pmax_unit: str = setting(PROCESSORS, "the cap Pmax of eq. 8: processors (sec. 4.2, 'the "
                             "maximum number of processors that can be effectively "
                             "utilized': the job takes processors until their power reaches "
                             "PS or it holds Pmax of them), or bpus (eq. 8 as printed: "
                             "tau = min(PS, Pmax) BPUs) (O3)", choices=(PROCESSORS, BPUS))


class AdaptivePolicy(QueuePolicy[AdaptiveSettings]):
    """The common sizing, fit and allocation rule; subclasses set the weights."""

    selection = FCFS
    kind = "MAP"  # the weights and N of the compiled path (KINDS)

    def __init__(self, settings: AdaptiveSettings, machine: Machine) -> None:
        super().__init__(settings, machine)
        speeds = machine.speeds or (1.0,) * machine.procs
        self.scale = _speed_scale(speeds)
        self.speeds = [round(s * self.scale) for s in speeds]  # integers, 1/scale units
        self.f = Fraction(settings.f).limit_denominator(1000)
        self.order = settings.selection or self.selection
        # MAP sizes in processors: its cap is Pmax processors, with no setting
        self.pmax_unit = (settings.pmax_unit if isinstance(settings, BPUSettings)
                          else PROCESSORS)
        self._loads: Sequence[float] | None = None
        self._weights: tuple[list[int], Fraction] = ([], Fraction(0))

    # -- the policy's unit ------------------------------------------------------------
    def weights(self, percents: Sequence[int]) -> list[int]:
        """w_k in 1/(scale x 100) units of the policy's unit, per processor."""
        raise NotImplementedError

    def numerator(self, percents: Sequence[int]) -> Fraction:
        """N of the partition size, in the policy's unit."""
        raise NotImplementedError

    def unit(self) -> int:
        """How many weight units make one unit of the policy (processor or BPU)."""
        return self.scale * PERCENT

    # -- eq. 2-8 ----------------------------------------------------------------------
    def partition_size(self, numerator: Fraction, waiting: int, running: int) -> int:
        """PS = max(1, ceil(N / (W + f R + 1) + 1/2)) (or rounded to nearest, O4); ``waiting``
        counts the job being sized (``sized_job_waits: false`` takes it out, O1).

        In integers: with N = a/b and f = c/d, x + 1/2 = (2 a d + b D) / (2 b D) where
        D = d (W + 1) + c R."""
        a, b = numerator.numerator, numerator.denominator
        c, d = self.f.numerator, self.f.denominator
        if not self.settings.sized_job_waits:
            waiting -= 1
        den = d * (waiting + 1) + c * running
        top, bottom = 2 * a * d + b * den, 2 * b * den
        if self.settings.rounding == NEAREST:
            return max(1, top // bottom)
        return max(1, -(-top // bottom))

    def cap(self, size: int, pmax: int) -> tuple[int, int]:
        """A job's target (eq. 3, 8): the weight its processors must reach (in weight
        units) and the most processors it takes (O3). ``pmax_unit: processors``: PS, and
        Pmax processors; ``bpus``: min(PS, Pmax) in the policy's unit, and no limit on
        the count (more than the machine has)."""
        if self.pmax_unit == BPUS:
            return min(size, pmax) * self.unit(), self.machine.procs + 1
        return size * self.unit(), pmax

    @staticmethod
    def fits(need: int, most: int, idle_weight: int, idle_count: int) -> bool:
        """Whether the idle processors hold a job's target: their weights reach ``need``
        or ``most`` of them are idle."""
        return idle_weight >= need or idle_count >= most

    def allocate(self, need: int, most: int, idle: Sequence[int], weights: Sequence[int],
                 idle_weight: int | None = None) -> tuple[int, ...]:
        """Idle processors in the order (-w, -b, k) until their weights reach ``need`` or
        they are ``most``; () if the idle processors do not hold that
        (``idle_weight``: their sum, when the caller has it)."""
        if idle_weight is None:
            idle_weight = sum(weights[k] for k in idle)
        if not self.fits(need, most, idle_weight, len(idle)):
            return ()
        chosen, total = [], 0
        for k in sorted(idle, key=lambda k: (-weights[k], -self.speeds[k], k)):
            chosen.append(k)
            total += weights[k]
            if total >= need or len(chosen) == most:
                return tuple(chosen)
        return ()

    def simulate_compiled(self, jobs: Sequence[Job], load_model: object = None
                          ) -> Schedule | None:
        """The whole run on the compiled engine (``policies.compiled.adaptive``: the
        engine's schedule, ``tests/test_compiled_conformance.py``), or None where it does not
        model the run: jobs without work, several partitions, a load model other than
        :class:`~schedsim.loadmodel.UniformLoads` (whose generator the run consumes as
        the engine would)."""
        from schedsim.loadmodel import UniformLoads

        machine = self.machine
        if (self.queue or len(machine.partitions) > 1 or not jobs
                or not _all_with_work(jobs)
                or not (load_model is None or isinstance(load_model, UniformLoads))):
            return None
        from schedsim.policies.compiled import adaptive

        cols = job_columns(jobs, machine.unit)
        procs = job_column(jobs, "procs", np.int64)
        pmax = procs if cols.in_order else procs[cols.order]
        speed = np.array(machine.speeds or (1.0,) * machine.procs, np.float64)
        loads = (draw_loads(load_model, 2 * len(jobs) + 1, machine.procs)
                 if load_model is not None else np.zeros((0, machine.procs), np.int8))
        constants = adaptive.AdaptiveConstants(
            KINDS[self.kind], self.settings.capacity == NOMINAL, self.order == FPFS,
            self.settings.rounding == NEAREST, self.f.numerator, self.f.denominator,
            self.settings.sized_job_waits, self.scale, self.pmax_unit == BPUS)
        found, _ = adaptive.adaptive_run(cols.submit, cols.work, pmax, speed,
                                         np.array(self.speeds, np.int64), loads,
                                         machine.execution == EQUAL_SPLIT, constants)
        return schedule_of(Outcome.of(found), cols, machine, jobs)

    def schedule(self, view: EngineView) -> list[Decision]:
        weights, numerator = self._weighed(view.loads)
        idle = set(view.free_processors())
        idle_weight = sum(weights[k] for k in idle)
        waiting, running = len(self.queue), len(view.running)
        size = self.partition_size(numerator, waiting, running)
        decisions: list[Decision] = []
        started: set[int] = set()
        for job in self.queue:
            need, most = self.cap(size, job.procs)
            fits = self.fits(need, most, idle_weight, len(idle))
            chosen = self.allocate(need, most, sorted(idle), weights, idle_weight) if fits else ()
            if not chosen:
                if self.order == FCFS:
                    break
                continue
            decisions.append(Start(job, len(chosen), 0, tuple(sorted(chosen))))
            idle.difference_update(chosen)
            idle_weight -= sum(weights[k] for k in chosen)
            started.add(id(job))
            waiting, running = waiting - 1, running + 1
            size = self.partition_size(numerator, waiting, running)
        if started:
            self.queue = [job for job in self.queue if id(job) not in started]
        return decisions


    def _weighed(self, loads: Sequence[float]) -> tuple[list[int], Fraction]:
        """Weights and N for the view's loads, recomputed only when the engine has drawn
        new loads (it replaces its list then)."""
        if loads is not self._loads:
            percents = _percents(loads, self.machine.procs)
            self._loads, self._weights = loads, (self.weights(percents),
                                                 self.numerator(percents))
        return self._weights


class MAP(AdaptivePolicy):
    """Modified adaptive policy (eq. 2-3): processors, FCFS."""

    def weights(self, percents: Sequence[int]) -> list[int]:
        if self.settings.capacity == NOMINAL:
            return [self.unit()] * len(percents)
        return [self.scale * (PERCENT - u) for u in percents]

    def numerator(self, percents: Sequence[int]) -> Fraction:
        return Fraction(len(percents))


class HAP(AdaptivePolicy):
    """Heterogeneous adaptive policy (eq. 5): BPUs, FCFS."""

    kind = "HAP"

    def weights(self, percents: Sequence[int]) -> list[int]:
        if self.settings.capacity == NOMINAL:
            return [b * PERCENT for b in self.speeds]
        return [b * (PERCENT - u) for b, u in zip(self.speeds, percents, strict=True)]

    def numerator(self, percents: Sequence[int]) -> Fraction:
        return Fraction(sum(self.speeds), self.scale)


class IHAP(AdaptivePolicy):
    """Improved heterogeneous adaptive policy (eq. 6-8): available computing power,
    fit-processors-first-served."""

    selection = FPFS
    kind = "IHAP"

    def weights(self, percents: Sequence[int]) -> list[int]:
        return [b * (PERCENT - u) for b, u in zip(self.speeds, percents, strict=True)]

    def numerator(self, percents: Sequence[int]) -> Fraction:
        return Fraction(sum(self.weights(percents)), self.unit())


def _all_with_work(jobs: Sequence[Job]) -> bool:
    """Whether every job has work and wants at least one processor."""
    fields = unmade_fields(jobs)
    if fields is not None:
        return fields.work is not None and bool((fields.procs >= 1).all())
    return all(job.work is not None and job.procs >= 1 for job in jobs)


KINDS = {"MAP": 0, "HAP": 1, "IHAP": 2}  # policies.compiled.adaptive: MAP/HAP/IHAP_KIND
_ROWS_PER_DRAW = 8192


def draw_loads(load: UniformLoads, rows: int, procs: int) -> np.ndarray:
    """``rows`` successive redraws of ``load`` as integer percents (the same stream as
    ``rows`` calls of its ``redraw``)."""
    background = load.background
    levels = len(background.grid)
    step = round(background.grid[1] * PERCENT) if levels > 1 else 0
    out = np.empty((rows, procs), dtype=np.int8)
    for first in range(0, rows, _ROWS_PER_DRAW):
        count = min(_ROWS_PER_DRAW, rows - first)
        picks = background.rng.integers(0, levels, size=(count, procs))
        out[first:first + count] = picks * step
    return out


def _speed_scale(speeds: Sequence[float]) -> int:
    """The smallest of 1, 10, 100, 1000 that makes every speed an integer."""
    for scale in (1, 10, 100, 1000):
        if all(abs(s * scale - round(s * scale)) < 1e-9 for s in speeds):
            return scale
    raise ValueError(f"processor speeds {sorted(set(speeds))[:5]} need more than three "
                     "decimals")


def _percents(loads: Sequence[float], procs: int) -> list[int]:
    """The engine's loads as integer percents (0 on a dedicated machine)."""
    if not loads:
        return [0] * procs
    out = [round(u * PERCENT) for u in loads]
    if any(abs(u * PERCENT - p) > 1e-6 for u, p in zip(loads, out, strict=True)):
        raise ValueError("adaptive policies take loads in whole percents")
    return out


def _register(name: str, cls: type[AdaptivePolicy], description: str) -> None:
    settings = AdaptiveSettings if cls is MAP else BPUSettings
    register_policy(name, "ihap", description, settings)(cls)


_register("MAP", MAP, "modified adaptive partitioning, processors, FCFS (IHAP paper, eq. 2-3)")
_register("HAP", HAP, "heterogeneous adaptive partitioning, BPUs, FCFS (IHAP paper, eq. 5)")
_register("IHAP", IHAP, "improved heterogeneous adaptive partitioning, available computing "
          "power, fit-processors-first-served (IHAP paper, eq. 6-8)")


class IHAPFCFS(IHAP):
    """The ablation "IHAP with FCFS": IHAP's sizing and fit, first come first served."""

    selection = FCFS


_register("IHAP-FCFS", IHAPFCFS, "IHAP's partition sizes served first come, first served "
          "(the ablation that separates IHAP's two changes)")
