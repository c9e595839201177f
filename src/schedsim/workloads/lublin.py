"""The Lublin & Feitelson rigid-job workload model (``lublin99``), bit-exact with ``m_lublin99.c``.

U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers: modeling
the characteristics of rigid jobs", JPDC 63(11):1105-1122, 2003 ("Lublin paper").
The reference program is the Parallel Workloads Archive's ``m_lublin99.c``; this
module re-implements its procedure (workload notes, sec. 1.2) so that for any seed
the job lines are identical to the reference output:

* arrivals (Lublin paper, sec. 5): ln(inter-arrival) ~ gamma(aarr * arar, barr),
  mapped through a daily cycle of 48 half-hour buckets whose weights are the
  gamma(anum, bnum) CDF differences (:func:`daily_weights`, :class:`ArrivalClock`);
* size (Lublin paper, sec. 3): serial with probability ``serial_prob``, else
  2^two-stage-uniform(ulow, umed, uhi, uprob), rounded to a power of two with
  probability ``pow2_prob`` (:func:`lublin_size`);
* runtime (Lublin paper, sec. 4): ln(runtime) ~ hyper-gamma(a1, b1, a2, b2, p) with
  p = pa * nodes + pb clipped to [0, 1] (:func:`lublin_runtime`);
* gamma variates as in Jain (1991), ch. 28, and the gamma CDF by the series /
  continued fraction of Numerical Recipes, ch. 6 (:func:`gamma_cdf`);
* all uniforms from ``drand48`` seeded with ``srand48(seed)``.

The draws that cost (gamma variates, runtimes, arrivals) are compiled, once, in
:mod:`schedsim.workloads.lublin_draws`; this module calls them on the stream's state.

Parameter names are the reference ``#define`` names in lower case. The typeless
("whole sample") set has plain names (``aarr``, ``a1``, ``serial_prob``); the typed
model's batch and interactive sets carry the reference suffixes ``_batch`` and
``_active`` (``aarr_batch``, ``a1_active``, ...). Only the set of the chosen mode
is used. :func:`generate_lublin` returns job records, :func:`format_lublin_swf`
prints them as the reference does, and the model registers as ``lublin99``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import ceil, exp, lgamma, log
from typing import Any, NamedTuple

import numpy as np

from schedsim.errors import InputError
from schedsim.jobs import BATCH, Job
from schedsim.params import ParamSpec, parse_params
from schedsim.workloads.base import WorkloadModel, register, text_pieces
from schedsim.workloads.drand48 import Drand48
from schedsim.workloads.lublin_draws import (
    BUCKETS,
    arrival_times,
    hyper_gamma_runtime,
    hyper_gamma_runtimes,
)

MODEL_NAME = "lublin99"

# Reference constants of m_lublin99.c (workload notes, sec. 1.3); the daily cycle's
# BUCKETS and SECONDS_IN_BUCKET are lublin_draws'.
HOURS_IN_DAY = 24
ITER_MAX = 1000  # gamma CDF iterations (Numerical Recipes, ch. 6)
EPS = 1e-10  # gamma CDF relative accuracy

INTERACTIVE_QUEUE = 0  # reference type ACTIVE, SWF queue 0
BATCH_QUEUE = 1  # reference type BATCH, SWF queue 1

REFERENCE_CONSTANTS: dict[str, dict[str, float]] = {
    "": {  # typeless ("whole sample")
        "serial_prob": 0.244, "pow2_prob": 0.576, "ulow": 0.8, "umed": 4.5, "uhi": 7.0,
        "uprob": 0.86, "a1": 4.2, "b1": 0.94, "a2": 312.0, "b2": 0.03, "pa": -0.0054,
        "pb": 0.78, "aarr": 10.2303, "barr": 0.4871, "anum": 8.1737, "bnum": 3.9631,
        "arar": 1.0225,
    },
    "_batch": {
        "serial_prob": 0.2927, "pow2_prob": 0.6686, "ulow": 1.2, "umed": 5.0, "uhi": 7.0,
        "uprob": 0.875, "a1": 6.57, "b1": 0.823, "a2": 639.1, "b2": 0.0156, "pa": -0.003,
        "pb": 0.6986, "aarr": 6.0415, "barr": 0.8531, "anum": 6.1271, "bnum": 5.2740,
        "arar": 1.0519,
    },
    "_active": {
        "serial_prob": 0.1541, "pow2_prob": 0.625, "ulow": 1.0, "umed": 3.0, "uhi": 5.5,
        "uprob": 0.705, "a1": 3.8351, "b1": 0.6605, "a2": 7.073, "b2": 0.6856,
        "pa": -0.0118, "pb": 0.9156, "aarr": 6.5510, "barr": 0.6621, "anum": 8.9186,
        "bnum": 3.6680, "arar": 0.9797,
    },
}

# (low, high, meaning) of each per-type constant.
CONSTANT_RANGES: dict[str, tuple[float, float, str]] = {
    "serial_prob": (0.0, 1.0, "probability of a serial (1-node) job"),
    "pow2_prob": (0.0, 1.0, "probability of a power-of-2 parallel job"),
    "ulow": (0.0, 24.0, "two-stage uniform on log2(nodes): lower end"),
    "umed": (0.0, 24.0, "two-stage uniform on log2(nodes): change point"),
    "uhi": (0.0, 24.0, "two-stage uniform on log2(nodes): upper end (log2 machine)"),
    "uprob": (0.0, 1.0, "two-stage uniform: probability of [ulow, umed]"),
    "a1": (1e-6, 10_000.0, "hyper-gamma on ln(runtime s): shape of gamma 1"),
    "b1": (1e-6, 100.0, "hyper-gamma on ln(runtime s): scale of gamma 1"),
    "a2": (1e-6, 10_000.0, "hyper-gamma on ln(runtime s): shape of gamma 2"),
    "b2": (1e-6, 100.0, "hyper-gamma on ln(runtime s): scale of gamma 2"),
    "pa": (-1.0, 1.0, "p = pa * nodes + pb: slope (size-runtime correlation)"),
    "pb": (-1.0, 2.0, "p = pa * nodes + pb: intercept"),
    "aarr": (0.01, 10_000.0, "gamma on ln(inter-arrival s): shape, before x arar"),
    "barr": (1e-6, 100.0, "gamma on ln(inter-arrival s): scale"),
    "anum": (0.01, 10_000.0, "daily cycle gamma (bucket units): shape"),
    "bnum": (1e-6, 1_000.0, "daily cycle gamma (bucket units): scale"),
    "arar": (0.01, 100.0, "arrive-rush-to-all ratio: shape multiplier of aarr"),
}

SET_LABELS = {"": "typeless", "_batch": "batch (typed)", "_active": "interactive (typed)"}


# --------------------------------------------------------------------------------------
# Parameter sets
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SizeParams:
    """Size model (Lublin paper, sec. 3): serial / power-of-2 / two-stage uniform."""

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float

    def max_nodes(self) -> int:
        """The largest size the model can draw (no clamp in the reference)."""
        plain = int(2.0**self.uhi + 0.5)
        pow2 = 2 ** max(0, ceil(self.uhi - 0.5))  # int(par + 0.5) for par < uhi
        return max(plain, pow2 if self.pow2_prob > 0 else 1)


@dataclass(frozen=True, slots=True)
class RuntimeParams:
    """Runtime model (Lublin paper, sec. 4): ln(runtime) ~ hyper-gamma, p = pa*n + pb."""

    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float


@dataclass(frozen=True, slots=True)
class ArrivalParams:
    """Arrival model (Lublin paper, sec. 5): ``aarr`` is before the ``arar`` factor."""

    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


@dataclass(frozen=True, slots=True)
class TypeParams:
    """All constants of one job type (typeless, batch or interactive)."""

    size: SizeParams
    runtime: RuntimeParams
    arrival: ArrivalParams


def type_params(values: Mapping[str, Any], suffix: str) -> TypeParams:
    """Collect the constants of one set (suffix ``""``, ``"_batch"`` or ``"_active"``)."""

    def pick(cls: type) -> Any:
        return cls(**{f: float(values[f + suffix]) for f in cls.__slots__})

    return TypeParams(pick(SizeParams), pick(RuntimeParams), pick(ArrivalParams))


# --------------------------------------------------------------------------------------
# Distributions (Jain 1991, ch. 28; Numerical Recipes, ch. 6)
# --------------------------------------------------------------------------------------


def gamma_cdf(x: float, shape: float, scale: float) -> float:
    """The gamma(shape, scale) CDF at x: regularized lower incomplete gamma P(shape, x/scale).

    Series for x/scale < shape + 1, continued fraction otherwise (Numerical
    Recipes, ch. 6), with the reference's ITER_MAX and EPS so that the daily-cycle
    weights match m_lublin99.c.
    """
    z = x / scale
    if z < shape + 1:
        return _gamma_series(z, shape)
    return 1 - _gamma_continued_fraction(z, shape)


def _gamma_prefactor(z: float, shape: float) -> float:
    return exp(-z + shape * log(z) - lgamma(shape))


def _gamma_series(z: float, shape: float) -> float:
    total = term = 1 / shape
    denominator = shape
    for _ in range(ITER_MAX):
        denominator += 1
        term *= z / denominator
        total += term
        if term < total * EPS:
            return total * _gamma_prefactor(z, shape)
    raise InputError(f"gamma CDF series did not converge for shape {shape}, x {z}")


def _gamma_continued_fraction(z: float, shape: float) -> float:
    """The continued fraction for Q(shape, z) by the Numerical Recipes recurrences."""
    previous = 0.0
    a_prev, a_cur, b_prev, b_cur, factor = 1.0, z, 0.0, 1.0, 1.0
    for n in range(1, ITER_MAX + 1):
        n_minus_shape = n - shape
        a_prev = (a_cur + a_prev * n_minus_shape) * factor
        b_prev = (b_cur + b_prev * n_minus_shape) * factor
        n_factor = n * factor
        a_cur = z * a_prev + n_factor * a_cur
        b_cur = z * b_prev + n_factor * b_cur
        if a_cur != 0.0:
            factor = 1 / a_cur
            estimate = b_cur * factor
            if abs((estimate - previous) / estimate) < EPS:
                return estimate * _gamma_prefactor(z, shape)
            previous = estimate
    raise InputError(f"gamma CDF continued fraction did not converge for shape {shape}, x {z}")


def two_stage_uniform(rng: Drand48, low: float, med: float, high: float, prob: float) -> float:
    """U(low, med) with probability ``prob``, else U(med, high); two draws."""
    if rng.random() <= prob:
        return rng.random() * (med - low) + low
    return rng.random() * (high - med) + med


# --------------------------------------------------------------------------------------
# Size and runtime (Lublin paper, secs. 3-4)
# --------------------------------------------------------------------------------------


def lublin_size(rng: Drand48, size: SizeParams) -> int:
    """Number of nodes: one uniform decides serial / power-of-2 / other (Lublin paper, sec. 3)."""
    u = rng.random()
    if u <= size.serial_prob:
        return 1
    log2_nodes = two_stage_uniform(rng, size.ulow, size.umed, size.uhi, size.uprob)
    if u <= size.serial_prob + size.pow2_prob:
        log2_nodes = int(log2_nodes + 0.5)
    return int(2.0**log2_nodes + 0.5)


def lublin_runtime(rng: Drand48, runtime: RuntimeParams, nodes: float, cap: float) -> int:
    """Runtime in whole seconds: ln(runtime) ~ hyper-gamma, redrawn while above ``cap``.

    p = pa * nodes + pb clipped to [0, 1] is the probability of gamma(a1, b1)
    (Lublin paper, sec. 4); the result is ``int(exp(hg))`` as in the reference.
    """
    seconds, rng.state = hyper_gamma_runtime(rng.state, float(nodes), runtime.pa, runtime.pb,
                                             runtime.a1, runtime.b1, runtime.a2, runtime.b2,
                                             cap)
    _check_runtime(seconds, cap)
    return int(seconds)


def lublin_runtimes(rng: Drand48, runtime: RuntimeParams, nodes: Sequence[float],
                    cap: float) -> np.ndarray:
    """:func:`lublin_runtime` for each job of ``nodes`` in turn (int64 seconds)."""
    seconds, rng.state = hyper_gamma_runtimes(rng.state, np.array(nodes, dtype=np.float64),
                                              runtime.pa, runtime.pb, runtime.a1, runtime.b1,
                                              runtime.a2, runtime.b2, cap)
    if len(seconds):
        _check_runtime(seconds[-1], cap)
    return seconds


def _check_runtime(seconds: int, cap: float) -> None:
    """Raise for the compiled draws' -1: the cap rejected every draw they made."""
    if seconds < 0:
        raise InputError(f"too_much_time={cap} rejects almost every runtime draw; raise it")


# --------------------------------------------------------------------------------------
# Arrivals (Lublin paper, sec. 5)
# --------------------------------------------------------------------------------------


def daily_weights(anum: float, bnum: float, cyclic_day_start: int) -> list[float]:
    """Relative arrival rate of each half-hour bucket (bucket 0 = 00:00), mean 1.

    Bucket (i - 1) mod 48 gets G(i + 0.5) - G(i - 0.5) for i = cyclic_day_start ..
    cyclic_day_start + 47, where G is the gamma(anum, bnum) CDF in bucket units.
    """
    return list(_daily_weights(anum, bnum, cyclic_day_start))


@lru_cache(maxsize=64)
def _daily_weights(anum: float, bnum: float, cyclic_day_start: int) -> tuple[float, ...]:
    """:func:`daily_weights`, computed once per parameters (each probe of the LOS load
    calibration starts a clock)."""
    weights = [0.0] * BUCKETS
    total = 0.0
    for i in range(cyclic_day_start, cyclic_day_start + BUCKETS):
        index = (i - 1) % BUCKETS
        weights[index] = gamma_cdf(i + 0.5, anum, bnum) - gamma_cdf(i - 0.5, anum, bnum)
        total += weights[index]
    mean = total / BUCKETS
    if not mean > 0:
        raise InputError(f"anum={anum}, bnum={bnum}: the daily cycle has no weight in any bucket")
    return tuple(w / mean for w in weights)


class ArrivalClock:
    """The arrival process of one job type (``calc_next_arrive`` of the reference).

    ``time`` is the next arrival in whole seconds; :meth:`advance` moves it on by one
    arrival, :meth:`arrivals` by many, with the compiled
    :func:`~schedsim.workloads.lublin_draws.arrival_times` (which says how).
    """

    __slots__ = ("bucket", "cap", "points", "remainder", "scale", "shape", "time", "weights")

    def __init__(self, weights: Sequence[float], shape: float, scale: float, cap: float,
                 start_hour: int) -> None:
        self.weights = np.array(weights, dtype=np.float64)
        self.shape = shape
        self.scale = scale
        self.cap = cap
        self.bucket = start_hour * BUCKETS // HOURS_IN_DAY
        self.points = 0.0
        self.remainder = 0.0
        self.time = 0

    @classmethod
    def for_params(
        cls, arrival: ArrivalParams, cap: float, start_hour: int, cyclic_day_start: int
    ) -> ArrivalClock:
        weights = _daily_weights(arrival.anum, arrival.bnum, cyclic_day_start)
        return cls(weights, arrival.aarr * arrival.arar, arrival.barr, cap, start_hour)

    def advance(self, rng: Drand48) -> None:
        """Move ``time`` to the next arrival of this type."""
        self.arrivals(rng, 1)

    def arrivals(self, rng: Drand48, count: int) -> np.ndarray:
        """The next ``count`` arrival times (s, int64); ``time`` is the last of them."""
        times, rng.state, self.bucket, self.points, self.remainder, self.time = arrival_times(
            rng.state, count, self.weights, self.shape, self.scale, self.cap, self.bucket,
            self.points, self.remainder, self.time)
        if len(times) < count:
            raise InputError(f"too_much_arrive_time={self.cap} rejects almost every arrival "
                             f"draw; raise it")
        return times


# --------------------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------------------


class LublinJob(NamedTuple):
    """One generated job: SWF fields 1, 2, 4, 5 and 15 (queue 0 interactive, 1 batch)."""

    job_id: int
    submit: int
    runtime: int
    nodes: int
    queue: int


def _param_specs() -> tuple[ParamSpec, ...]:
    specs = [
        ParamSpec("typed", bool, True,
                  "true: batch + interactive sets (reference INCLUDE_JOBS_TYPE 1); "
                  "false: the typeless set"),
        ParamSpec("nodes", int, 128, "machine size written as MaxNodes; no job may be larger",
                  low=1, high=2**24),
        ParamSpec("start_hour", int, 0, "hour of day of time 0 (reference START)",
                  low=0, high=23),
        ParamSpec("cyclic_day_start", int, 11,
                  "first bucket index i of the daily-cycle gamma (reference CYCLIC_DAY_START)",
                  low=1, high=BUCKETS),
        ParamSpec("too_much_time", float, 12.0,
                  "cap on ln(runtime s); larger draws are redrawn (reference TOO_MUCH_TIME)",
                  low=1.0, high=30.0),
        ParamSpec("too_much_arrive_time", float, 13.0,
                  "cap on ln(inter-arrival s) (reference TOO_MUCH_ARRIVE_TIME)",
                  low=1.0, high=30.0),
    ]
    for suffix, constants in REFERENCE_CONSTANTS.items():
        for name, default in constants.items():
            low, high, meaning = CONSTANT_RANGES[name]
            specs.append(ParamSpec(name + suffix, float, default,
                                   f"{meaning} [{SET_LABELS[suffix]}]", low=low, high=high))
    return tuple(specs)


PARAMS = _param_specs()


@dataclass(frozen=True, slots=True)
class LublinConfig:
    """Checked settings of one ``lublin99`` run."""

    typed: bool
    nodes: int
    start_hour: int
    cyclic_day_start: int
    too_much_time: float
    too_much_arrive_time: float
    interactive: TypeParams
    batch: TypeParams

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> LublinConfig:
        typed = bool(values["typed"])
        interactive = type_params(values, "_active" if typed else "")
        batch = type_params(values, "_batch" if typed else "")
        config = cls(typed, int(values["nodes"]), int(values["start_hour"]),
                     int(values["cyclic_day_start"]), float(values["too_much_time"]),
                     float(values["too_much_arrive_time"]), interactive, batch)
        config.check()
        return config

    def active_sets(self) -> dict[str, TypeParams]:
        if self.typed:
            return {"_active": self.interactive, "_batch": self.batch}
        return {"": self.interactive}

    def check(self) -> None:
        """Cross-parameter checks that single ranges cannot express."""
        owner = f"generate {MODEL_NAME}"
        for suffix, params in self.active_sets().items():
            size = params.size
            if not size.ulow <= size.umed <= size.uhi:
                raise InputError(
                    f"{owner}: parameters ulow{suffix}={size.ulow}, umed{suffix}={size.umed}, "
                    f"uhi{suffix}={size.uhi} must satisfy ulow <= umed <= uhi")
            if size.max_nodes() > self.nodes:
                raise InputError(
                    f"{owner}: uhi{suffix}={size.uhi} allows jobs of {size.max_nodes()} nodes "
                    f"> nodes={self.nodes}; allowed: uhi with 2^uhi <= nodes")


def generate_lublin(jobs: int, seed: int, **params: Any) -> list[LublinJob]:
    """``jobs`` Lublin99 jobs for ``srand48(seed)``; ``params`` as the model's parameters."""
    if jobs <= 0:
        raise InputError(f"generate {MODEL_NAME}: jobs={jobs} must be a positive integer")
    values = parse_params(PARAMS, params, f"generate {MODEL_NAME}")
    return generate_from_config(jobs, seed, LublinConfig.from_values(values))


def generate_from_config(jobs: int, seed: int, config: LublinConfig) -> list[LublinJob]:
    """The reference main loop: arrival (type, time), then size, then runtime, per job."""
    rng = Drand48(seed)
    clocks = _start_clocks(rng, config)
    sets = {INTERACTIVE_QUEUE: config.interactive, BATCH_QUEUE: config.batch}
    cap = config.too_much_time
    out: list[LublinJob] = []
    for job_id in range(1, jobs + 1):
        queue = _next_queue(clocks, config.typed)
        clock = clocks[queue]
        submit = clock.time
        clock.advance(rng)
        params = sets[queue]
        nodes = lublin_size(rng, params.size)
        runtime = lublin_runtime(rng, params.runtime, nodes, cap)
        out.append(LublinJob(job_id, submit, runtime, nodes, queue))
    return out


def _next_queue(clocks: dict[int, ArrivalClock], typed: bool) -> int:
    """The type whose next arrival is earlier; interactive on ties (reference ``arrive``)."""
    if typed and clocks[BATCH_QUEUE].time < clocks[INTERACTIVE_QUEUE].time:
        return BATCH_QUEUE
    return INTERACTIVE_QUEUE


def _start_clocks(rng: Drand48, config: LublinConfig) -> dict[int, ArrivalClock]:
    """``arrive_init``: the first arrival of batch, then of interactive, in both modes.

    In typeless mode the batch clock still consumes its draws, as in the reference,
    and is then never chosen (the reference sets its time to ULONG_MAX).
    """
    clocks = {}
    for queue, params in ((BATCH_QUEUE, config.batch), (INTERACTIVE_QUEUE, config.interactive)):
        clock = ArrivalClock.for_params(params.arrival, config.too_much_arrive_time,
                                        config.start_hour, config.cyclic_day_start)
        clock.advance(rng)
        clocks[queue] = clock
    return clocks


# --------------------------------------------------------------------------------------
# SWF output
# --------------------------------------------------------------------------------------


def swf_job_line(job: LublinJob) -> str:
    """One job exactly as the reference prints it (``%5d %7lu -1 %7lu %3d ...``)."""
    return (f"{job.job_id:5d} {job.submit:7d} -1 {job.runtime:7d} {job.nodes:3d} "
            f"-1 -1 -1 -1 -1 1 -1 -1 -1 {job.queue} -1 -1 -1")


def format_lublin_swf(
    records: list[LublinJob], nodes: int = 128, too_much_time: float = 12.0,
    notes: tuple[str, ...] = (),
) -> str:
    """The reference header (MaxNodes = ``nodes``), extra ``; Note:`` lines, the job lines."""
    return "".join(lublin_swf_pieces(records, nodes, too_much_time, notes))


def lublin_swf_pieces(records: list[LublinJob], nodes: int, too_much_time: float,
                      notes: tuple[str, ...]) -> Iterator[str]:
    """:func:`format_lublin_swf` in pieces (``base.text_pieces``)."""
    header = [
        "; Version: 2",
        "; Acknowledge: Uri Lublin, Hebrew University",
        "; Information: http://www.cs.huji.ac.il/labs/parallel/workload",
        f"; MaxJobs: {len(records)}",
        f"; MaxRecords: {len(records)}",
        f"; MaxNodes: {nodes}",
        f"; MaxRuntime: {int(exp(too_much_time))}",
        *(f"; Note: {note}" for note in notes),
    ]
    return text_pieces(header, map(swf_job_line, records))


def changed_params(values: Mapping[str, Any], specs: tuple[ParamSpec, ...]) -> str:
    """``name=value`` for every parameter that differs from its default, for the header."""
    changed = [f"{s.name}={_show(values[s.name])}" for s in specs if values[s.name] != s.default]
    return " ".join(changed) if changed else "all defaults"


def _show(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def records_to_jobs(records: list[LublinJob]) -> list[Job]:
    """The records as engine jobs; the estimate is the exact runtime (the model has none)."""
    return [Job(id=r.job_id, submit=float(r.submit), runtime=float(r.runtime), procs=r.nodes,
                estimate=float(r.runtime), kind=BATCH, queue=r.queue) for r in records]


def _generate_text(jobs: int, seed: int, values: Mapping[str, Any]) -> Iterator[str]:
    config = LublinConfig.from_values(values)
    records = generate_from_config(jobs, seed, config)
    notes = (f"schedsim {MODEL_NAME}, srand48 seed {seed}, "
             f"{'typed' if config.typed else 'typeless'}",
             f"parameters: {changed_params(values, PARAMS)}")
    return lublin_swf_pieces(records, config.nodes, config.too_much_time, notes)


MODEL = register(WorkloadModel(
    name=MODEL_NAME,
    description="Lublin & Feitelson rigid jobs (JPDC 2003), bit-exact with m_lublin99.c",
    params=PARAMS,
    generate=_generate_text,
    file_format="swf",
    source="Lublin & Feitelson, JPDC 63(11):1105-1122, 2003; PWA m_lublin99.c",
))
