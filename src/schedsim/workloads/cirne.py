"""Workload model ``cirne01``: Cirne & Berman's supercomputer workload, made moldable.

W. Cirne and F. Berman, "A comprehensive model of the supercomputer workload"
(WWC-4, 2001) gives a stream of rigid jobs (arrival, size, requested time,
accuracy, cancellation); their moldability model ("A model for moldable
supercomputer jobs", IPDPS 2001) turns every rigid job into a moldable one
described by Downey's (L, A, sigma). The HRF paper (sec. 6.1.2) uses this model,
site pattern ANL, "Downey mode", 200 jobs on 128 processors, at mean
inter-arrival times of about 2000, 1000 and 600 s per job.

Constants and rules: docs/workloads-cirne-hyperexp.md (restated in our own code).
Choices the sources leave open are listed in docs/deviations-workloads.md; the
file layout is defined in docs/formats-cirne.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.random import PCG64, Generator, SeedSequence

from schedsim import __version__
from schedsim.errors import InputError
from schedsim.jobs import Job
from schedsim.numbers import to_float, to_int
from schedsim.params import ParamSpec
from schedsim.speedup import DowneySpeedup, downey_speedup
from schedsim.workloads.base import WorkloadModel, register, text_pieces
from schedsim.workloads.swf import SwfTable, read_swf_file, read_swf_table

SECONDS_PER_DAY = 86_400

# Arrival-rate polynomials in the time of day x in [-0.5, 0.5] (x = 0 at noon),
# coefficients from x^13 down to x^0; per second, an arrival per 2.0 units of
# accumulated rate (docs/workloads-cirne-hyperexp.md, "ms[ap][0..13]").
ARRIVAL_POLYNOMIALS: dict[str, tuple[float, ...]] = {
    "anl": (0.0, 1.194417e02, 1.069567e03, 1.443500e01, -7.552833e02, -4.871500e01,
            1.960167e02, 1.491917e01, -2.248333e01, -1.554433e00, 1.041417e00,
            3.766833e-02, -1.102533e-02, 2.865167e-03),
    "ctc": (0.0, 0.0, 0.0, 0.0, 0.0, 4.234000e00, -4.303333e-01, -4.308500e00,
            1.407367e-01, 1.360200e00, -6.104667e-02, -1.605150e-01, 1.274250e-02,
            9.416833e-03),
    "kth": (-5.447167e02, -1.024067e03, 5.425500e02, 8.234333e02, -2.101833e02,
            -2.518833e02, 3.968167e01, 3.590000e01, -3.694167e00, -2.247000e00,
            1.383983e-01, 3.195833e-02, 3.734333e-04, 1.618433e-03),
    "sdsc": (0.0, 0.0, 0.0, -9.166000e01, 2.545000e01, 5.026500e01, -1.586583e01,
             -9.551333e00, 3.322000e00, 8.097167e-01, -2.601833e-01, -4.313167e-02,
             6.112500e-03, 3.543667e-03),
}
ORIGINAL_NODES = {"anl": 120, "ctc": 430, "kth": 100, "sdsc": 128}
ARRIVAL_THRESHOLD = 2.0

# Rigid job stream (docs/workloads-cirne-hyperexp.md).
NODES_UNILOG = (0.12, 0.20)
POW2_FRACTION = 0.75
REQTIME_UNILOG = (0.10, -0.75)
ACCURACY_GAMMA_SHAPE_SCALE = (0.6, 0.6)
ACCURACY_CLIP = (1e-5, 1.0)
CANCEL_PROBABILITY = 0.15

# Moldability, cookworkload "downey" (docs/workloads-cirne-hyperexp.md).
CMIN_UNILOG = (0.0692, 0.6279)
SIGMA_NORMAL_MEAN_SD = (1.209, 1.132)
A_JOINT_UNILOG = (0.009548, -0.01877, 0.07468, -0.009198)  # xyf, xf, yf, cf

BRACKET_STEPS = 60
BISECTION_STEPS = 40
STREAM_NAMES = ("arrival", "nodes", "reqtime", "accuracy", "cancel", "cmin", "sigma", "A")

PARAMS = (
    ParamSpec("pattern", str, "anl", "site pattern of the arrival rate (HRF paper sec. 6.1.2: anl)",
              choices=("anl", "ctc", "kth", "sdsc")),
    ParamSpec("procs", int, 128, "machine size; caps rigid sizes and moldable requests "
              "(HRF paper sec. 6.1.1: 128)", low=1, high=1_000_000),
    ParamSpec("mean_interarrival", float, 1000.0, "target mean inter-arrival time in s, "
              "measured over the generated jobs (HRF paper sec. 6.1.2: 2000, 1000, 600)",
              low=10.0, high=1e7),
    ParamSpec("k_sigma", float, 1.0, "multiplier of Downey's sigma (cookworkload default 1)",
              low=0.0, high=10.0),
)


def unilog(u: np.ndarray, logf: float, constf: np.ndarray | float) -> np.ndarray:
    """Inverse of Cirne's uniform-log CDF ``F(x) = logf log2(x) + constf``."""
    return np.exp2((u - constf) / logf)


def make_streams(seed: int) -> dict[str, Generator]:
    """One independent PCG64 stream per quantity, spawned from ``seed``."""
    children = SeedSequence(seed).spawn(len(STREAM_NAMES))
    return {name: Generator(PCG64(child)) for name, child in zip(STREAM_NAMES, children,
                                                                 strict=True)}


def daily_rate(pattern: str) -> np.ndarray:
    """Arrival-rate units accumulated in each second of the day (index 0 = 00:00:00)."""
    time_of_day = np.arange(SECONDS_PER_DAY) / SECONDS_PER_DAY - 0.5
    return np.polyval(ARRIVAL_POLYNOMIALS[pattern], time_of_day)


def arrival_seconds(rate_day: np.ndarray, start_second: int, count: int,
                    multiplier: float) -> np.ndarray:
    """Seconds (from the start) of the first ``count`` arrivals of the fluid rate process.

    Cirne's rule (docs/workloads-cirne-hyperexp.md): every second add ``multiplier x
    rate``; each time the sum reaches 2, emit an arrival and subtract 2. So job j
    arrives at the first second where the running maximum of the cumulative rate
    reaches ``2 j / multiplier`` (the running maximum handles kth's slightly
    negative night rate). Computed in closed form over whole periodic days.
    """
    cumulative = np.cumsum(np.roll(rate_day, -start_second))
    running = np.maximum.accumulate(cumulative)
    per_day, peak = cumulative[-1], running[-1]
    later_days = np.maximum(running, peak - per_day)
    thresholds = ARRIVAL_THRESHOLD * np.arange(1, count + 1) / multiplier
    times = np.empty(count, dtype=np.int64)
    first_day = thresholds <= peak
    times[first_day] = np.searchsorted(running, thresholds[first_day], side="left")
    rest = thresholds[~first_day]
    days = np.maximum(1, np.ceil((rest - peak) / per_day)).astype(np.int64)
    offset = np.searchsorted(later_days, rest - days * per_day, side="left")
    times[~first_day] = days * SECONDS_PER_DAY + offset
    return times


@dataclass(frozen=True)
class Calibration:
    """Arrival times with the load knob's outcome.

    Attributes:
        submits: submit times in whole seconds, first = 0.
        rate_multiplier: factor applied to the pattern's arrival rate.
        stretch: residual factor applied to the times to hit the target exactly.
    """

    submits: np.ndarray
    rate_multiplier: float
    stretch: float


def mean_gap(times: np.ndarray) -> float:
    """Measured mean inter-arrival: (last - first) / (count - 1)."""
    return float(times[-1] - times[0]) / (len(times) - 1)


def calibrated_arrivals(rate_day: np.ndarray, start_second: int, count: int,
                        target_mean: float) -> Calibration:
    """Submit times (first = 0) whose measured mean inter-arrival is ``target_mean``.

    Step 1 scales the pattern's rate (keeping its 24-hour cycle): bisection on
    log(multiplier) for the measured ``(last - first) / (count - 1)`` closest to
    the target. The measured mean is a step function of the multiplier (a
    quiet night can make the last arrival jump by hours), so step 2 stretches
    the times by the small residual factor ``target / measured`` and rounds to
    whole seconds. See docs/deviations-workloads.md.
    """
    if count == 1:
        return Calibration(np.zeros(1, dtype=np.int64), 1.0, 1.0)
    nominal = ARRIVAL_THRESHOLD * SECONDS_PER_DAY / rate_day.sum() / target_mean
    multiplier, times = _bisect_multiplier(rate_day, start_second, count, target_mean, nominal)
    measured = mean_gap(times)
    stretch = target_mean / measured if measured > 0 else 1.0
    submits = np.rint((times - times[0]) * stretch).astype(np.int64)
    return Calibration(submits, multiplier, stretch)


def _bisect_multiplier(rate_day: np.ndarray, start_second: int, count: int,
                       target_mean: float, nominal: float) -> tuple[float, np.ndarray]:
    """Rate multiplier (and its arrivals) whose measured mean gap is closest to the target."""
    found: dict[float, np.ndarray] = {}

    def gap(log_m: float) -> float:
        times = arrival_seconds(rate_day, start_second, count, math.exp(log_m))
        found[log_m] = times
        return mean_gap(times)

    low = high = math.log(nominal)
    for _ in range(BRACKET_STEPS):
        if gap(low) >= target_mean:
            break
        low -= 0.5
    for _ in range(BRACKET_STEPS):
        if gap(high) <= target_mean:
            break
        high += 0.5
    for _ in range(BISECTION_STEPS):
        middle = 0.5 * (low + high)
        if gap(middle) > target_mean:
            low = middle
        else:
            high = middle
    best = min(found, key=lambda log_m: (abs(mean_gap(found[log_m]) - target_mean), log_m))
    return math.exp(best), found[best]


def rigid_sizes(rng: Generator, count: int, max_nodes: int) -> np.ndarray:
    """Rigid sizes: ceil(UniLog(0.12, 0.20)), 75% rounded to a power of 2, capped."""
    nodes = np.maximum(1.0, np.ceil(unilog(rng.random(count), *NODES_UNILOG)))
    exponent = np.log2(nodes)
    whole = np.floor(exponent)
    rounded = np.exp2(whole + (exponent - whole > 0.5))
    nodes = np.where(rng.random(count) < POW2_FRACTION, rounded, nodes)
    return np.minimum(nodes, max_nodes).astype(np.int64)


def requested_times(rng: Generator, count: int) -> np.ndarray:
    """Requested times: max(1, ceil(UniLog(0.10, -0.75))) s (k = 1)."""
    return np.maximum(1.0, np.ceil(unilog(rng.random(count), *REQTIME_UNILOG)))


def execution_times(streams: Mapping[str, Generator], reqtime: np.ndarray) -> np.ndarray:
    """Run time of each rigid job on its original size.

    Completed jobs: max(1, ceil(reqtime x accuracy)), accuracy ~ Gamma(0.6, 0.6)
    clipped to [1e-5, 1]. Cancelled jobs (probability 0.15): U{1..reqtime}, the
    cookworkload rule for jobs that never ran.
    """
    count = len(reqtime)
    accuracy = np.clip(streams["accuracy"].gamma(*ACCURACY_GAMMA_SHAPE_SCALE, size=count),
                       *ACCURACY_CLIP)
    completed = np.maximum(1.0, np.ceil(reqtime * accuracy))
    cancelled = streams["cancel"].random(count) < CANCEL_PROBABILITY
    uniform = np.floor(streams["cancel"].random(count) * reqtime) + 1.0
    return np.where(cancelled, uniform, completed)


def downey_parameters(streams: Mapping[str, Generator], count: int,
                      k_sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Per job (A, sigma).

    c_min ~ ceil(UniLog), sigma ~ k_sigma max(0, Normal), A ~ JointUniLog(c_min).
    """
    c_min = np.maximum(1.0, np.ceil(unilog(streams["cmin"].random(count), *CMIN_UNILOG)))
    sigma = k_sigma * np.maximum(0.0, streams["sigma"].normal(*SIGMA_NORMAL_MEAN_SD, size=count))
    xyf, xf, yf, cf = A_JOINT_UNILOG
    log_cmin = np.log2(c_min)
    avg = unilog(streams["A"].random(count), yf + xyf * log_cmin, cf + xf * log_cmin)
    return np.maximum(1.0, avg), sigma


def sequential_times(nodes: np.ndarray, exec_times: np.ndarray, avg: np.ndarray,
                     sigma: np.ndarray) -> list[int]:
    """L = max(1, ceil(S(n; A, sigma) x exec time)) on the rigid size n."""
    return [max(1, math.ceil(downey_speedup(int(n), float(a), float(s)) * float(t)))
            for n, t, a, s in zip(nodes, exec_times, avg, sigma, strict=True)]


def moldable_job(job_id: int, submit: float, speedup: DowneySpeedup, machine: int) -> Job:
    """A moldable Job; procs = min(machine, largest useful size), exact estimate."""
    procs = min(machine, speedup.max_useful_procs)
    runtime = speedup.runtime(procs)
    return Job(id=job_id, submit=submit, runtime=runtime, procs=procs, estimate=runtime,
               speedup=speedup)


@dataclass(frozen=True)
class CirneWorkload:
    """Generated jobs plus the arrival calibration that produced their submit times."""

    jobs: list[Job]
    calibration: Calibration


def build_cirne_workload(jobs: int, seed: int, params: Mapping[str, Any]) -> CirneWorkload:
    """Generate ``jobs`` moldable jobs (checked ``params`` as in ``PARAMS``)."""
    streams = make_streams(seed)
    start = int(streams["arrival"].integers(0, SECONDS_PER_DAY))
    calibration = calibrated_arrivals(daily_rate(params["pattern"]), start, jobs,
                                      params["mean_interarrival"])
    nodes = rigid_sizes(streams["nodes"], jobs, params["procs"])
    exec_times = execution_times(streams, requested_times(streams["reqtime"], jobs))
    avg, sigma = downey_parameters(streams, jobs, params["k_sigma"])
    lengths = sequential_times(nodes, exec_times, avg, sigma)
    models = [DowneySpeedup(float(lengths[i]), float(avg[i]), float(sigma[i]))
              for i in range(jobs)]
    made = [moldable_job(i + 1, float(calibration.submits[i]), models[i], params["procs"])
            for i in range(jobs)]
    return CirneWorkload(made, calibration)


def generate_cirne_jobs(jobs: int, seed: int, params: Mapping[str, Any]) -> list[Job]:
    """The moldable jobs of :func:`build_cirne_workload`."""
    return build_cirne_workload(jobs, seed, params).jobs


def measured_mean_interarrival(jobs: list[Job]) -> float:
    """(last submit - first submit) / (jobs - 1); 0 for a single job."""
    if len(jobs) < 2:
        return 0.0
    return (jobs[-1].submit - jobs[0].submit) / (len(jobs) - 1)


# ----------------------------------------------------------------------------- SWF output

def _header(workload: CirneWorkload, seed: int, params: Mapping[str, Any]) -> list[str]:
    jobs, calibration = workload.jobs, workload.calibration
    settings = " ".join(f"{name}={params[name]}" for name in sorted(params))
    return [
        "; Version: 2.2",
        "; Computer: synthetic",
        f"; Information: Cirne-Berman 2001 workload model, pattern {params['pattern']}, "
        "moldable jobs with Downey speedup",
        f"; Conversion: schedsim {__version__} generate cirne01 seed={seed} {settings}",
        f"; MaxJobs: {len(jobs)}",
        f"; MaxRecords: {len(jobs)}",
        f"; MaxNodes: {params['procs']}",
        f"; MaxProcs: {params['procs']}",
        f"; Note: measured mean inter-arrival {measured_mean_interarrival(jobs):.3f} s "
        f"(target {params['mean_interarrival']}; rate multiplier "
        f"{calibration.rate_multiplier:.6g}, residual stretch {calibration.stretch:.6f})",
        "; Note: fields 4 and 9 = ceil(L / S(field 8)); the Downey lines are authoritative "
        "(docs/formats-cirne.md)",
        "; DowneyColumns: job L A sigma",
    ]


def _downey_line(job: Job) -> str:
    model = job.speedup
    assert isinstance(model, DowneySpeedup)
    return (f"; Downey: {job.id} {int(model.work_L)} {model.avg_parallelism_A!r} "
            f"{model.sigma!r}")


def _job_line(job: Job) -> str:
    seconds = max(1, math.ceil(job.runtime))
    fields = [job.id, int(job.submit), -1, seconds, job.procs, -1, -1, job.procs, seconds,
              -1, 1, -1, -1, -1, -1, -1, -1, -1]
    return " ".join(str(f) for f in fields)


def format_moldable_swf(workload: CirneWorkload, seed: int, params: Mapping[str, Any]) -> str:
    """The whole SWF text: header, one '; Downey:' line per job, then the job lines."""
    return "".join(moldable_swf_pieces(workload, seed, params))


def moldable_swf_pieces(workload: CirneWorkload, seed: int, params: Mapping[str, Any]
                        ) -> Iterator[str]:
    """:func:`format_moldable_swf` in pieces (``base.text_pieces``)."""
    lines = itertools.chain(map(_downey_line, workload.jobs), map(_job_line, workload.jobs))
    return text_pieces(_header(workload, seed, params), lines)


def generate(jobs: int, seed: int, params: Mapping[str, Any]) -> Iterator[str]:
    """WorkloadModel entry point: the SWF text of ``jobs`` cirne01 jobs, in pieces."""
    return moldable_swf_pieces(build_cirne_workload(jobs, seed, params), seed, params)


# ----------------------------------------------------------------------------- SWF input

DOWNEY = "Downey:"


def moldable_jobs(table: SwfTable) -> list[Job]:
    """The moldable jobs of a cirne01 file's table (``swf.read_swf_table``): each job line's
    id, submit time and processors (field 8), and its speedup model from its header line
    ``; Downey: job L A sigma``, which is authoritative (docs/formats-cirne.md)."""
    models: dict[int, DowneySpeedup] = {}
    for line, number in zip(table.header.lines, table.header.numbers, strict=True):
        if line.strip().startswith(DOWNEY):
            job, model = _downey_line_model(line.strip()[len(DOWNEY):], f"{table.path}:{number}")
            models[job] = model
    return [_read_job(f"{table.path}:{number}", row, models) for row, number in zip(
        table.columns.rows().tolist(), table.line_numbers.tolist(), strict=True)]


def _downey_line_model(text: str, where: str) -> tuple[int, DowneySpeedup]:
    parts = text.split()
    if len(parts) != 4:
        raise InputError(f"{where}: a Downey line needs 4 fields (job L A sigma), found "
                         f"{len(parts)}")
    try:
        job = to_int(parts[0])
        length, avg, sigma = (to_float(p) for p in parts[1:])
    except ValueError:
        raise InputError(f"{where}: a Downey line has a field that is not a number: "
                         f"{text.strip()!r}") from None
    if not (length > 0 and avg >= 1 and sigma >= 0) or math.isinf(length + avg + sigma):
        raise InputError(f"{where}: Downey fields need finite L > 0, A >= 1, sigma >= 0; "
                         f"got L={length}, A={avg}, sigma={sigma}")
    return job, DowneySpeedup(length, avg, sigma)


def _read_job(where: str, values: list[float], models: Mapping[int, DowneySpeedup]) -> Job:
    job_id, procs = int(values[0]), int(values[7])
    if job_id not in models:
        raise InputError(f"{where}: job {job_id} has no '; Downey:' line")
    if procs < 1:
        raise InputError(f"{where}: field 8 (requested processors)={procs} must be >= 1")
    speedup = models[job_id]
    runtime = speedup.runtime(procs)
    return Job(id=job_id, submit=values[1], runtime=runtime, procs=procs, estimate=runtime,
               speedup=speedup)


def parse_moldable_swf(text: str, source: str = "<text>") -> list[Job]:
    """:func:`moldable_jobs` of cirne01 SWF text."""
    return moldable_jobs(read_swf_table(text.encode("utf-8"), source))


def read_moldable_swf(path: str | Path) -> list[Job]:
    """:func:`moldable_jobs` of a cirne01 SWF file (the SWF reader: ``workloads.load``)."""
    return moldable_jobs(read_swf_file(path))


MODEL = register(WorkloadModel(
    name="cirne01",
    description="Cirne-Berman 2001 rigid stream made moldable (Downey L, A, sigma); "
                "HRF paper sec. 6.1.2",
    params=PARAMS,
    generate=generate,
    file_format="swf",
    source="W. Cirne, F. Berman, WWC-4 2001 and IPDPS 2001; HRF paper (CF'15) sec. 6.1",
))
