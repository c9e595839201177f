"""The LOS paper's CWF workload generator (``lublin-los``).

Kumar, Shae, Jamjoom, "Scheduling batch and heterogeneous jobs with runtime
elasticity in a parallel processing environment", IPDPSW 2012 ("LOS paper"),
sec. IV-D with Tables I-II. It is the Lublin model (:mod:`schedsim.workloads.lublin`)
with the paper's constants and three changes:

* sizes (sec. IV-D): small with probability ``ps``, U{1, 2, 3} x 32 processors,
  else large, U{4, ..., 10} x 32, on a 320-processor machine;
* runtimes (Table I): the Lublin hyper-gamma with a1 4.2, b1 0.94, a2 312, b2 0.03,
  p = -0.0054 s + 0.78, s = the job size in processors (``p_size_unit``);
* arrivals (Table II): the Lublin arrival process with aarr 13.2303, anum 15.1737,
  bnum 0.9631, arar 1.0225, and ``barr`` as the load knob (paper: [0.4101, 0.6101]);

plus the heterogeneous and elastic extensions (sec. IV-D, last paragraphs):

* a job is dedicated with probability ``pd``; it asks to start at
  submit + max(1, round(Exp(mean ``dedicated_delay_mean``))) (start >= t + 1,
  sec. III "Constraints");
* one elastic control command per job at most: a time extension (``ET``) with
  probability ``pe``, else a reduction (``RT``) with probability ``pr``; the amount is
  max(1, round(Exp(mean ``extension_mean`` / ``reduction_mean``))) seconds, a
  reduction is clamped to runtime - 1 (no command when the runtime is 1 s); it is
  issued at submit + floor(U * runtime);
* the requested time (estimate) written for every job is its exact runtime.

Independent drand48 streams (arrivals, sizes, runtimes, dedicated/elastic draws)
are seeded from the one seed, so changing ``barr``, ``ps``, ``pd``, ``pe`` or ``pr``
leaves every other part of the workload unchanged (common random numbers). This
also lets :func:`find_barr_for_load` re-draw only the arrivals.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import exp, log
from typing import Any

from schedsim.errors import InputError
from schedsim.jobs import DEDICATED, Job, RuntimeChange
from schedsim.params import ParamSpec, parse_params
from schedsim.workloads.base import WorkloadModel, register
from schedsim.workloads.cwf import cwf_pieces
from schedsim.workloads.drand48 import Drand48
from schedsim.workloads.lublin import (
    CONSTANT_RANGES,
    ArrivalClock,
    ArrivalParams,
    RuntimeParams,
    changed_params,
    lublin_runtimes,
)

MODEL_NAME = "lublin-los"

# Stream k is seeded with srand48((seed + k * STREAM_STRIDE) mod 2^32).
ARRIVAL_STREAM, SIZE_STREAM, RUNTIME_STREAM, EXTRA_STREAM = range(4)
STREAM_STRIDE = 0x9E3779B9

DEFAULT_BARR = 0.5101  # middle of the paper's range [0.4101, 0.6101] (Table II)
PAPER_BARR_RANGE = (0.4101, 0.6101)
PAPER_MEAN_SIZES = {0.2: 180.84, 0.5: 139.35, 0.8: 89.72}  # LOS paper, sec. V


def _param_specs() -> tuple[ParamSpec, ...]:
    def lublin(name: str, default: float, source: str) -> ParamSpec:
        low, high, meaning = CONSTANT_RANGES[name]
        return ParamSpec(name, float, default, f"{meaning} ({source})", low=low, high=high)

    return (
        ParamSpec("processors", int, 320, "machine size M (LOS paper, sec. IV-A)",
                  low=1, high=2**20),
        ParamSpec("unit", int, 32, "allocation unit: sizes are multiples of it (sec. IV-A)",
                  low=1, high=2**20),
        ParamSpec("ps", float, 0.5, "P_S, probability of a small job (sec. IV-D)",
                  low=0.0, high=1.0),
        ParamSpec("small_min_units", int, 1, "smallest small job, in units", low=1, high=4096),
        ParamSpec("small_max_units", int, 3, "largest small job, in units", low=1, high=4096),
        ParamSpec("large_min_units", int, 4, "smallest large job, in units", low=1, high=4096),
        ParamSpec("large_max_units", int, 10, "largest large job, in units", low=1, high=4096),
        lublin("a1", 4.2, "Table I"), lublin("b1", 0.94, "Table I"),
        lublin("a2", 312.0, "Table I"), lublin("b2", 0.03, "Table I"),
        lublin("pa", -0.0054, "Table I"), lublin("pb", 0.78, "Table I"),
        ParamSpec("p_size_unit", str, "processors",
                  "size s in p = pa*s + pb: processors (Lublin's nodes) or units",
                  choices=("processors", "units")),
        lublin("aarr", 13.2303, "Table II"),
        ParamSpec("barr", float, DEFAULT_BARR,
                  "gamma on ln(inter-arrival s): scale, the load knob "
                  "(Table II: varied in [0.4101, 0.6101])", low=0.05, high=2.0),
        lublin("anum", 15.1737, "Table II"), lublin("bnum", 0.9631, "Table II"),
        lublin("arar", 1.0225, "Table II"),
        ParamSpec("start_hour", int, 0, "hour of day of time 0 (Lublin START)", low=0, high=23),
        ParamSpec("cyclic_day_start", int, 11, "Lublin CYCLIC_DAY_START", low=1, high=48),
        ParamSpec("too_much_time", float, 12.0, "cap on ln(runtime s) (Lublin)",
                  low=1.0, high=30.0),
        ParamSpec("too_much_arrive_time", float, 13.0, "cap on ln(inter-arrival s) (Lublin)",
                  low=1.0, high=30.0),
        ParamSpec("pd", float, 0.0, "P_D, probability of a dedicated job (sec. IV-D)",
                  low=0.0, high=1.0),
        ParamSpec("dedicated_delay_mean", float, 3600.0,
                  "mean of requested start - submit, s (exponential; our choice)",
                  low=1.0, high=1e7),
        ParamSpec("pe", float, 0.2, "P_E, probability of a time extension (sec. IV-D)",
                  low=0.0, high=1.0),
        ParamSpec("pr", float, 0.1, "P_R, probability of a time reduction (sec. IV-D)",
                  low=0.0, high=1.0),
        ParamSpec("extension_mean", float, 1800.0, "mean ET amount, s (exponential; our choice)",
                  low=1.0, high=1e7),
        ParamSpec("reduction_mean", float, 1800.0, "mean RT amount, s (exponential; our choice)",
                  low=1.0, high=1e7),
        ParamSpec("load", float, 0.0,
                  "target offered load; 0 = off, else barr is calibrated for this seed and "
                  "job count so that the workload's offered load is this (barr is ignored)",
                  low=0.0, high=1.0),
        ParamSpec("load_tolerance", float, 0.001,
                  "with load > 0: largest |offered load - load| accepted by the calibration",
                  low=1e-6, high=0.1),
    )


PARAMS = _param_specs()


@dataclass(frozen=True, slots=True)
class LosConfig:
    """Checked settings of one ``lublin-los`` run."""

    processors: int
    unit: int
    ps: float
    small_units: tuple[int, int]
    large_units: tuple[int, int]
    runtime: RuntimeParams
    p_in_units: bool
    arrival: ArrivalParams
    start_hour: int
    cyclic_day_start: int
    too_much_time: float
    too_much_arrive_time: float
    pd: float
    dedicated_delay_mean: float
    pe: float
    pr: float
    extension_mean: float
    reduction_mean: float

    @classmethod
    def from_values(cls, v: Mapping[str, Any]) -> LosConfig:
        config = cls(
            v["processors"], v["unit"], v["ps"],
            (v["small_min_units"], v["small_max_units"]),
            (v["large_min_units"], v["large_max_units"]),
            RuntimeParams(v["a1"], v["b1"], v["a2"], v["b2"], v["pa"], v["pb"]),
            v["p_size_unit"] == "units",
            ArrivalParams(v["aarr"], v["barr"], v["anum"], v["bnum"], v["arar"]),
            v["start_hour"], v["cyclic_day_start"], v["too_much_time"],
            v["too_much_arrive_time"], v["pd"], v["dedicated_delay_mean"], v["pe"], v["pr"],
            v["extension_mean"], v["reduction_mean"],
        )
        config.check()
        return config

    def check(self) -> None:
        """Cross-parameter checks that single ranges cannot express."""
        owner = f"generate {MODEL_NAME}"
        for label, (low, high) in (("small", self.small_units), ("large", self.large_units)):
            if low > high:
                raise InputError(f"{owner}: {label}_min_units={low} > {label}_max_units={high}; "
                                 f"allowed: {label}_min_units <= {label}_max_units")
        largest = max(self.small_units[1], self.large_units[1]) * self.unit
        if largest > self.processors:
            raise InputError(f"{owner}: jobs of up to {largest} processors do not fit "
                             f"processors={self.processors}; allowed: max units x unit <= "
                             f"processors")
        if self.pe + self.pr > 1:
            raise InputError(f"{owner}: pe={self.pe} + pr={self.pr} > 1; allowed: pe + pr "
                             f"in [0, 1] (at most one command per job)")


@dataclass(frozen=True, slots=True)
class LosWorkload:
    """A generated workload: jobs in submit order (ids 1..n) and elastic commands."""

    jobs: list[Job]
    changes: list[RuntimeChange]


def stream(seed: int, index: int) -> Drand48:
    """The drand48 stream ``index`` of a run with ``seed``."""
    return Drand48((seed + index * STREAM_STRIDE) & 0xFFFFFFFF)


# --------------------------------------------------------------------------------------
# The four independent parts
# --------------------------------------------------------------------------------------


def draw_arrivals(rng: Drand48, jobs: int, config: LosConfig) -> list[int]:
    """Submit times (s) from the Lublin arrival process with the paper's Table II constants."""
    clock = ArrivalClock.for_params(config.arrival, config.too_much_arrive_time,
                                    config.start_hour, config.cyclic_day_start)
    return clock.arrivals(rng, jobs).tolist()


def draw_size(rng: Drand48, config: LosConfig) -> int:
    """Processors: small U{small units} x unit with probability ps, else large (sec. IV-D).

    Always two draws (class, then units), so the stream does not depend on ``ps``.
    """
    small = rng.random() < config.ps
    low, high = config.small_units if small else config.large_units
    units = low + int(rng.random() * (high - low + 1))
    return units * config.unit


def draw_sizes_and_runtimes(
    size_rng: Drand48, runtime_rng: Drand48, jobs: int, config: LosConfig
) -> list[tuple[int, int]]:
    """(processors, runtime s) per job; p = pa * s + pb (Table I), s per ``p_size_unit``."""
    sizes = [draw_size(size_rng, config) for _ in range(jobs)]
    s = [procs // config.unit for procs in sizes] if config.p_in_units else sizes
    runtimes = lublin_runtimes(runtime_rng, config.runtime, s, config.too_much_time)
    return list(zip(sizes, runtimes.tolist(), strict=True))


def exponential_seconds(rng: Drand48, mean: float) -> int:
    """max(1, round(Exp(mean))) whole seconds; one draw."""
    return max(1, int(-mean * log(1.0 - rng.random()) + 0.5))


def draw_extras(
    rng: Drand48, job: Job, config: LosConfig
) -> tuple[float | None, RuntimeChange | None]:
    """Requested start (dedicated jobs) and the elastic command of one job; always 5 draws."""
    dedicated = rng.random() < config.pd
    delay = exponential_seconds(rng, config.dedicated_delay_mean)
    command = rng.random()
    extension = exponential_seconds(rng, config.extension_mean)
    reduction = exponential_seconds(rng, config.reduction_mean)
    issue_time = job.submit + int(rng.random() * job.runtime)
    start = job.submit + delay if dedicated else None
    change = None
    if command < config.pe:
        change = RuntimeChange(issue_time, job.id, float(extension))
    elif command < config.pe + config.pr and job.runtime > 1:
        change = RuntimeChange(issue_time, job.id, -float(min(reduction, job.runtime - 1)))
    return start, change


# --------------------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------------------


def generate_los(jobs: int, seed: int, **params: Any) -> LosWorkload:
    """A ``lublin-los`` workload; ``params`` as the model's parameters."""
    if jobs <= 0:
        raise InputError(f"generate {MODEL_NAME}: jobs={jobs} must be a positive integer")
    values = parse_params(PARAMS, params, f"generate {MODEL_NAME}")
    return generate_from_config(jobs, seed, LosConfig.from_values(values))


def generate_from_config(jobs: int, seed: int, config: LosConfig) -> LosWorkload:
    submits = draw_arrivals(stream(seed, ARRIVAL_STREAM), jobs, config)
    shapes = draw_sizes_and_runtimes(stream(seed, SIZE_STREAM), stream(seed, RUNTIME_STREAM),
                                     jobs, config)
    extra_rng = stream(seed, EXTRA_STREAM)
    out_jobs: list[Job] = []
    changes: list[RuntimeChange] = []
    for job_id, (submit, (procs, runtime)) in enumerate(zip(submits, shapes, strict=True), 1):
        job = Job(id=job_id, submit=float(submit), runtime=float(runtime), procs=procs,
                  estimate=float(runtime))
        start, change = draw_extras(extra_rng, job, config)
        if start is not None:
            job.kind = DEDICATED
            job.requested_start = float(start)
        if change is not None:
            changes.append(change)
        out_jobs.append(job)
    return LosWorkload(out_jobs, changes)


def cwf_header(workload: LosWorkload, config: LosConfig, notes: Sequence[str]) -> list[str]:
    return [
        "; Version: 2",
        "; Computer: simulated BlueGene/P-like machine (LOS paper, sec. IV-A)",
        "; Information: Cloud Workload Format = SWF fields 1-18 + 19 requested start "
        "time, 20 request type, 21 amount",
        f"; MaxJobs: {len(workload.jobs)}",
        f"; MaxRecords: {len(workload.jobs) + len(workload.changes)}",
        f"; MaxNodes: {config.processors}",
        f"; MaxProcs: {config.processors}",
        f"; AllocationUnit: {config.unit}",
        f"; MaxRuntime: {int(exp(config.too_much_time))}",
        *(f"; Note: {note}" for note in notes),
    ]


def _generate_text(jobs: int, seed: int, values: Mapping[str, Any]) -> Iterator[str]:
    values, calibration = calibrated_values(jobs, seed, values)
    config = LosConfig.from_values(values)
    workload = generate_from_config(jobs, seed, config)
    notes = (f"schedsim {MODEL_NAME}, seed {seed}",
             f"parameters: {changed_params(values, PARAMS)}",
             "requested time (field 9) = exact runtime")
    return cwf_pieces(workload.jobs, workload.changes,
                      [*cwf_header(workload, config, notes), *calibration])


def calibrated_values(jobs: int, seed: int,
                      values: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``values`` with barr calibrated to ``load`` for this seed (when load > 0).

    Returns the values and the header lines recording the calibration
    (``; TargetLoad:``, ``; Barr:``, ``; OfferedLoad:``); none when load is 0.
    """
    target = values["load"]
    if target <= 0:
        return dict(values), []
    others = {k: v for k, v in values.items() if k not in ("barr", "load", "load_tolerance")}
    barr = find_barr_for_load(target, jobs=jobs, seeds=(seed,),
                              tolerance=values["load_tolerance"], **others)
    measured = measure_load(barr, jobs, (seed,), **others)
    return {**values, "barr": barr}, [f"; TargetLoad: {target:g}", f"; Barr: {barr:.10g}",
                                      f"; OfferedLoad: {measured:.10g}"]


MODEL = register(WorkloadModel(
    name=MODEL_NAME,
    description="LOS paper's Lublin variant: 320 procs in units of 32, dedicated jobs, "
                "elastic commands (CWF)",
    params=PARAMS,
    generate=_generate_text,
    file_format="cwf",
    source="Kumar, Shae, Jamjoom, IPDPSW 2012, sec. IV-D, Tables I-II",
))


# --------------------------------------------------------------------------------------
# Load calibration and mean size
# --------------------------------------------------------------------------------------


def offered_load(sizes_runtimes: Sequence[tuple[int, int]], submits: Sequence[int],
                 processors: int) -> float:
    """sum(size * runtime) / (processors * (last submit - first submit))."""
    span = submits[-1] - submits[0]
    if span <= 0:
        raise InputError("offered load needs at least two distinct submit times")
    work = sum(procs * runtime for procs, runtime in sizes_runtimes)
    return work / (processors * span)


def measure_load(barr: float, jobs: int, seeds: Iterable[int], **params: Any) -> float:
    """Mean offered load over ``seeds`` of ``jobs``-job workloads with this ``barr``."""
    loads = [_LoadProbe(jobs, seed, params).load(barr) for seed in seeds]
    return sum(loads) / len(loads)


class _LoadProbe:
    """Offered load as a function of barr for one seed: the work is drawn once."""

    def __init__(self, jobs: int, seed: int, params: Mapping[str, Any]) -> None:
        values = parse_params(PARAMS, params, f"find_barr_for_load {MODEL_NAME}")
        self.values = values
        config = LosConfig.from_values(values)
        self.jobs = jobs
        self.seed = seed
        self.processors = config.processors
        self.shapes = draw_sizes_and_runtimes(stream(seed, SIZE_STREAM),
                                              stream(seed, RUNTIME_STREAM), jobs, config)

    def load(self, barr: float) -> float:
        config = LosConfig.from_values({**self.values, "barr": barr})
        submits = draw_arrivals(stream(self.seed, ARRIVAL_STREAM), self.jobs, config)
        return offered_load(self.shapes, submits, self.processors)


def find_barr_for_load(
    target_load: float, ps: float = 0.5, jobs: int = 2000, seeds: Sequence[int] = (1, 2, 3),
    tolerance: float = 0.005, barr_range: tuple[float, float] = (0.2, 1.0),
    max_steps: int = 60, **params: Any,
) -> float:
    """The ``barr`` whose mean offered load over ``seeds`` is ``target_load`` (bisection).

    The load falls as barr grows (longer inter-arrivals, same work). Bisection on the
    measured load stops when it is within ``tolerance`` of the target, or the
    interval is narrower than 1e-6. Deterministic for given arguments.
    """
    if not 0.5 <= target_load <= 1.0:
        raise InputError(f"find_barr_for_load: target_load={target_load} is out of range; "
                         f"allowed: float in [0.5, 1]")
    probes = [_LoadProbe(jobs, seed, {**params, "ps": ps}) for seed in seeds]

    def load_at(barr: float) -> float:
        return sum(p.load(barr) for p in probes) / len(probes)

    low, high = barr_range
    if not load_at(low) >= target_load >= load_at(high):
        raise InputError(f"find_barr_for_load: target_load={target_load} is not reachable with "
                         f"barr in [{low}, {high}]")
    for _ in range(max_steps):
        middle = (low + high) / 2
        load = load_at(middle)
        if abs(load - target_load) <= tolerance or high - low < 1e-6:
            return middle
        low, high = (middle, high) if load > target_load else (low, middle)
    return (low + high) / 2


def expected_mean_size(ps: float, unit: int = 32, small_units: tuple[int, int] = (1, 3),
                       large_units: tuple[int, int] = (4, 10)) -> float:
    """n-bar in expectation: ps * mean small + (1 - ps) * mean large (processors)."""
    small = unit * (small_units[0] + small_units[1]) / 2
    large = unit * (large_units[0] + large_units[1]) / 2
    return ps * small + (1 - ps) * large


def mean_job_size(ps: float, jobs: int = 500, seeds: Iterable[int] = range(1, 11),
                  **params: Any) -> float:
    """n-bar measured: the mean job size (processors) over ``seeds`` runs of ``jobs`` jobs.

    The LOS paper (sec. V) reports 180.84 for P_S 0.2, 139.35 for 0.5, 89.72 for 0.8
    from single 500-job runs; see docs/workloads-lublin.md for the comparison.
    """
    values = parse_params(PARAMS, {**params, "ps": ps}, f"mean_job_size {MODEL_NAME}")
    config = LosConfig.from_values(values)
    total = count = 0
    for seed in seeds:
        rng = stream(seed, SIZE_STREAM)
        total += sum(draw_size(rng, config) for _ in range(jobs))
        count += jobs
    return total / count
