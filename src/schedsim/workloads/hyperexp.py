"""Workload model ``hyperexp`` and the non-dedicated heterogeneous machine of the IHAP paper.

IHAP paper (Chhabra & Singh), sec. 4 and Table 1:

* arrivals with rate lambda and inter-arrival coefficient of variation CVa
  (sec. 4.2; Table 1: CVa = 1, Poisson); above 1 we use a two-stage
  hyper-exponential with balanced means (docs/workloads-cirne-hyperexp.md);
* maximum parallelism Pmax ~ U{1..32} (sec. 4.2, Table 1);
* service demand d_j ~ 2-stage hyper-exponential, mean D = 16, CVs = 4
  (sec. 4.2, Table 1), balanced means (docs/workloads-cirne-hyperexp.md); d_j is the
  total work "in a dedicated environment, independent of how many processors
  are used", d_j = t_j x p_j (sec. 4.2); we count it in BPU-seconds;
* utilization = lambda x D / number of processors (eq. 9), 64 processors
  (sec. 4.1, Table 1).

The machine (sec. 4.1): 64 single-processor computers, the first 32 of 1 BPU,
the next 32 of 2 BPU, each with a background (local) load drawn from the
discrete uniform U[0%, 30%] (sec. 4.3), seen by the scheduler at arrival and
departure events. File layout: docs/formats-cirne.md; open choices:
docs/deviations-workloads.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.random import PCG64, Generator, SeedSequence

from schedsim import __version__
from schedsim.errors import InputError
from schedsim.jobs import ColumnJobs, Job, JobFields
from schedsim.machine import Machine
from schedsim.params import ParamSpec
from schedsim.workloads.base import WorkloadModel, register, text_pieces
from schedsim.workloads.swf import SwfTable, format_number, read_swf_file, read_swf_table

STREAM_NAMES = ("arrival", "pmax", "demand")
TIME_DECIMALS = 9

PARAMS = (
    ParamSpec("utilization", float, 0.8, "target utilization = arrival rate x D / capacity "
              "(IHAP paper eq. 9; sec. 5.2 uses 0.8)", low=0.01, high=2.0),
    ParamSpec("cv_arrival", float, 1.0, "inter-arrival CV: 1 Poisson, > 1 balanced-means H2 "
              "(IHAP paper Table 1: 1)", low=1.0, high=20.0),
    ParamSpec("demand_mean", float, 16.0, "mean service demand D in BPU-seconds "
              "(IHAP paper Table 1: 16)", low=1e-3, high=1e9),
    ParamSpec("cv_demand", float, 4.0, "service-demand CV, balanced-means H2; 1 = exponential "
              "(IHAP paper Table 1: 4)", low=1.0, high=20.0),
    ParamSpec("pmax", int, 32, "Pmax ~ U{1..pmax} (IHAP paper sec. 4.2, Table 1: 32)",
              low=1, high=1_000_000),
    ParamSpec("procs", int, 64, "processors in the cluster (IHAP paper sec. 4.1, Table 1: 64)",
              low=1, high=1_000_000),
    ParamSpec("util_basis", str, "processors", "denominator of eq. 9: processors (as printed) "
              "or bpus (total BPUs of ihap_machine: first half 1 BPU, second half 2 BPU)",
              choices=("processors", "bpus")),
)


# ----------------------------------------------------------------------------- distributions

def h2_balanced(mean: float, cv: float) -> tuple[float, float, float]:
    """Balanced-means two-stage hyper-exponential with the given mean and CV >= 1.

    Returns ``(p1, mu1, mu2)``: with probability ``p1`` an exponential of rate
    ``mu1``, otherwise of rate ``mu2``; ``p1 = (1 + sqrt((c^2 - 1) / (c^2 + 1))) / 2``,
    ``mu_i = 2 p_i / mean``, so each branch contributes ``mean / 2``
    (docs/workloads-cirne-hyperexp.md). ``cv = 1`` gives ``p1 = 1/2`` and equal rates,
    i.e. the exponential distribution.
    """
    if not (mean > 0 and cv >= 1):
        raise ValueError(f"h2_balanced: need mean > 0 and cv >= 1, got mean={mean}, cv={cv}")
    scv = cv * cv
    p1 = 0.5 * (1.0 + math.sqrt((scv - 1.0) / (scv + 1.0)))
    return p1, 2.0 * p1 / mean, 2.0 * (1.0 - p1) / mean


def draw_h2(branch_rng: Generator, size_rng: Generator, mean: float, cv: float,
            count: int) -> np.ndarray:
    """``count`` balanced-means H2 variates; branch choice and size from separate streams."""
    p1, mu1, mu2 = h2_balanced(mean, cv)
    first = branch_rng.random(count) < p1
    unit = size_rng.standard_exponential(count)
    return unit / np.where(first, mu1, mu2)


def split_stream(rng_seed: SeedSequence) -> tuple[Generator, Generator]:
    """Two independent generators (branch choice, exponential size) from one seed sequence."""
    branch, size = rng_seed.spawn(2)
    return Generator(PCG64(branch)), Generator(PCG64(size))


# ----------------------------------------------------------------------------- machine

def ihap_machine(slow_procs: int = 32, fast_procs: int = 32, fast_speed: float = 2.0) -> Machine:
    """The IHAP paper's cluster (sec. 4.1): ``slow_procs`` of 1 BPU, then ``fast_procs`` faster.

    Processor numbers 0..slow_procs-1 are Type I (1 BPU), the rest Type II
    (``fast_speed`` BPU; the paper: "twice faster", 2 BPU).
    """
    if slow_procs < 0 or fast_procs < 0 or slow_procs + fast_procs < 1:
        raise InputError(f"ihap_machine: slow_procs={slow_procs}, fast_procs={fast_procs} "
                         "must be >= 0 with a positive sum")
    if not fast_speed > 0:
        raise InputError(f"ihap_machine: fast_speed={fast_speed} must be > 0")
    speeds = (1.0,) * slow_procs + (float(fast_speed),) * fast_procs
    return Machine(procs=slow_procs + fast_procs, speeds=speeds)


def eq9_capacity(procs: int, basis: str) -> float:
    """Denominator of eq. 9 (IHAP paper).

    ``processors``: ``procs`` as printed. ``bpus``: the total BPUs of
    ``ihap_machine`` with ``procs`` split in half (96 for 64).
    """
    if basis == "processors":
        return float(procs)
    slow = procs // 2
    return float(sum(ihap_machine(slow, procs - slow).speeds))


class BackgroundLoad:
    """Per-processor local load of a non-dedicated cluster (IHAP paper sec. 4.3).

    Each processor's load is drawn independently from the discrete uniform
    distribution on {0, step, 2 step, ..., max} percent (default 0, 1, ..., 30 %:
    the paper's U[0%, 30%] on a 1 % grid, our choice). The engine calls
    :meth:`redraw` at every job arrival and departure event, the only moments the
    scheduler learns the load (sec. 4.3). Loads are fractions (0.07 = 7 %).
    """

    def __init__(self, procs: int, rng: Generator, max_percent: int = 30,
                 step_percent: int = 1) -> None:
        if procs < 1:
            raise InputError(f"BackgroundLoad: procs={procs} must be >= 1")
        if not (1 <= step_percent <= max_percent <= 99 and max_percent % step_percent == 0):
            raise InputError(f"BackgroundLoad: need 1 <= step_percent <= max_percent <= 99 with "
                             f"step dividing max; got step={step_percent}, max={max_percent}")
        self.procs = procs
        self.rng = rng
        self.grid = tuple(k / 100.0 for k in range(0, max_percent + 1, step_percent))
        self.loads: tuple[float, ...] = ()
        self.redraw()

    @classmethod
    def from_seed(cls, procs: int, seed: int, max_percent: int = 30,
                  step_percent: int = 1) -> BackgroundLoad:
        """A BackgroundLoad with its own PCG64 generator seeded with ``seed``."""
        return cls(procs, Generator(PCG64(seed)), max_percent, step_percent)

    def redraw(self) -> tuple[float, ...]:
        """Draw a new load for every processor; return and keep it in ``loads``."""
        picks = self.rng.integers(0, len(self.grid), size=self.procs)
        self.loads = tuple(self.grid[int(k)] for k in picks)
        return self.loads

    def computing_power(self, speeds: Sequence[float]) -> tuple[float, ...]:
        """Per processor ``CP_k = BPU_k x (1 - Local_load_k)`` (IHAP paper eq. 6)."""
        if len(speeds) != self.procs:
            raise ValueError(f"BackgroundLoad: {len(speeds)} speeds for {self.procs} processors")
        return tuple(s * (1.0 - u) for s, u in zip(speeds, self.loads, strict=True))

    def available_power(self, speeds: Sequence[float]) -> float:
        """Total computing power left for parallel jobs, the numerator of eq. 7."""
        return math.fsum(self.computing_power(speeds))


# ----------------------------------------------------------------------------- generation

def arrival_rate(params: Mapping[str, Any]) -> float:
    """lambda = utilization x capacity / D (IHAP paper eq. 9 solved for the rate)."""
    capacity = eq9_capacity(params["procs"], params["util_basis"])
    return params["utilization"] * capacity / params["demand_mean"]


def _check(params: Mapping[str, Any]) -> None:
    if params["pmax"] > params["procs"]:
        raise InputError(f"generate hyperexp: parameter pmax={params['pmax']} is invalid; "
                         f"allowed: int in [1, procs={params['procs']}]")


def _rounded(values: np.ndarray) -> np.ndarray:
    return np.round(values, TIME_DECIMALS)


def generate_hyperexp_jobs(jobs: int, seed: int, params: Mapping[str, Any]) -> ColumnJobs:
    """``jobs`` jobs with ``work`` (BPU-seconds) and ``procs = Pmax``; times on a 1e-9 s grid.

    Independent streams per quantity (arrivals, Pmax, demands), so changing the
    utilization only rescales the inter-arrival times of the same jobs.
    """
    _check(params)
    arrival_seq, pmax_seq, demand_seq = SeedSequence(seed).spawn(len(STREAM_NAMES))
    gaps = draw_h2(*split_stream(arrival_seq), 1.0 / arrival_rate(params),
                   params["cv_arrival"], jobs)
    submits = _rounded(np.concatenate(([0.0], np.cumsum(gaps[1:]))))
    pmax = Generator(PCG64(pmax_seq)).integers(1, params["pmax"] + 1, size=jobs)
    demand = draw_h2(*split_stream(demand_seq), params["demand_mean"], params["cv_demand"], jobs)
    runtimes = _rounded(demand / pmax)
    return _jobs(np.arange(1, jobs + 1, dtype=np.int64), submits, runtimes, pmax)


def _jobs(ids: np.ndarray, submit: np.ndarray, runtime: np.ndarray, pmax: np.ndarray
          ) -> ColumnJobs:
    """Jobs of ``procs = Pmax`` with ``work`` = run time x Pmax BPU-seconds and exact
    estimates, held as columns (``jobs.ColumnJobs``)."""
    runtime = np.asarray(runtime, np.float64)
    pmax = np.asarray(pmax, np.int64)
    return ColumnJobs(JobFields(np.asarray(ids, np.int64), np.asarray(submit, np.float64),
                                runtime, pmax, runtime, runtime * pmax))


def measured_utilization(jobs: Sequence[Job], capacity: float) -> float:
    """Sum of work / (capacity x (last submit - first submit)), eq. 9 measured."""
    span = jobs[-1].submit - jobs[0].submit
    total = math.fsum(job.work or 0.0 for job in jobs)
    return total * (len(jobs) - 1) / len(jobs) / (capacity * span)


# ----------------------------------------------------------------------------- SWF text

def _header(jobs: Sequence[Job], seed: int, params: Mapping[str, Any]) -> list[str]:
    settings = " ".join(f"{name}={params[name]}" for name in sorted(params))
    return [
        "; Version: 2.2",
        "; Computer: synthetic",
        "; Information: IHAP paper workload (Chhabra & Singh, sec. 4): H2 service demand, "
        "Pmax ~ U{1..pmax}",
        f"; Conversion: schedsim {__version__} generate hyperexp seed={seed} {settings}",
        f"; MaxJobs: {len(jobs)}",
        f"; MaxRecords: {len(jobs)}",
        f"; MaxNodes: {params['procs']}",
        f"; MaxProcs: {params['procs']}",
        f"; Note: arrival rate {arrival_rate(params)!r} jobs/s (eq. 9)",
        "; Note: field 8 = Pmax; service demand (work, BPU-seconds) = field 4 x field 8; "
        "field 4 = run time on Pmax processors of 1 BPU (docs/formats-cirne.md)",
    ]


def _job_line(job: Job) -> str:
    submit = f"{job.submit:.{TIME_DECIMALS}f}"
    runtime = f"{job.runtime:.{TIME_DECIMALS}f}"
    fields = [str(job.id), submit, "-1", runtime, str(job.procs), "-1", "-1", str(job.procs),
              runtime, "-1", "1"] + ["-1"] * 7
    return " ".join(fields)


def format_hyperexp_swf(jobs: Sequence[Job], seed: int, params: Mapping[str, Any]) -> str:
    """The whole SWF text of a hyperexp workload."""
    return "".join(hyperexp_swf_pieces(jobs, seed, params))


def hyperexp_swf_pieces(jobs: Sequence[Job], seed: int, params: Mapping[str, Any]
                        ) -> Iterator[str]:
    """:func:`format_hyperexp_swf` in pieces (``base.text_pieces``)."""
    return text_pieces(_header(jobs, seed, params), map(_job_line, jobs))


def generate(jobs: int, seed: int, params: Mapping[str, Any]) -> Iterator[str]:
    """WorkloadModel entry point: the SWF text of ``jobs`` hyperexp jobs, in pieces."""
    return hyperexp_swf_pieces(generate_hyperexp_jobs(jobs, seed, params), seed, params)


def hyperexp_jobs(table: SwfTable) -> ColumnJobs:
    """The jobs of a hyperexp file's table (``swf.read_swf_table``): ``procs = Pmax`` =
    field 8, run time on Pmax processors of 1 BPU = field 4, ``work = field 4 x field 8``
    BPU-seconds (docs/formats-cirne.md)."""
    columns = table.columns
    pmax, runtime = columns.column(_PMAX), columns.column(_RUNTIME)
    bad = np.flatnonzero((pmax < 1) | (runtime < 0))
    if bad.size:
        row = int(bad[0])
        raise InputError(f"{table.path}:{int(table.line_numbers[row])}: a hyperexp job needs "
                         f"field 8 (Pmax) >= 1 and field 4 (run time) >= 0, got "
                         f"{format_number(pmax[row])} and {format_number(runtime[row])}")
    return _jobs(columns.fields[_ID], columns.column(_SUBMIT), runtime, pmax)


_ID, _SUBMIT, _RUNTIME, _PMAX = 0, 1, 3, 7


def parse_hyperexp_swf(text: str, source: str = "<text>") -> ColumnJobs:
    """:func:`hyperexp_jobs` of hyperexp SWF text."""
    return hyperexp_jobs(read_swf_table(text.encode("utf-8"), source))


def read_hyperexp_swf(path: str | Path) -> ColumnJobs:
    """:func:`hyperexp_jobs` of a hyperexp SWF file (the SWF reader: ``workloads.load``)."""
    return hyperexp_jobs(read_swf_file(path))


MODEL = register(WorkloadModel(
    name="hyperexp",
    description="IHAP paper workload: Poisson/H2 arrivals, Pmax ~ U{1..pmax}, "
                "H2 service demand (BPU-seconds)",
    params=PARAMS,
    generate=generate,
    file_format="swf",
    source="A. Chhabra, G. Singh, IHAP paper, sec. 4 and Table 1",
))
