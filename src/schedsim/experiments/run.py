"""Running one point: its workloads, its machine, every seed and inner value -> rows.

The machine comes from the point's machine description (size, unit, partitions,
speeds, background-load model); a workload file that says otherwise (a CWF
``AllocationUnit`` different from the machine's unit) is an error. Parameters a
point takes from another target (``chosen``) are read from their files first.
"""

from __future__ import annotations

import importlib.abc
import itertools
import json
import math
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.experiments.family import find_family
from schedsim.experiments.spec import MachineSpec, PointSpec
from schedsim.jobs import Job, RuntimeChange
from schedsim.machine import Machine


@dataclass
class SeedWorkload:
    """One seed's input of a point: jobs, elastic commands, and what rows record of it."""

    jobs: list[Job]
    changes: list[RuntimeChange] = field(default_factory=list)
    info: dict[str, float] = field(default_factory=dict)
    measured: tuple[int, ...] | None = None  # positions of the measured jobs (a month)


def build_machine(spec: MachineSpec) -> Machine:
    """The :class:`Machine` of a machine description."""
    return Machine(spec.procs, spec.unit, spec.partitions, spec.speeds)


def load_model(spec: MachineSpec, seed: int) -> Any:
    """The background-load model of the machine for one seed, or None (dedicated)."""
    if spec.load is None:
        return None
    from schedsim.loadmodel import make_load_model

    return make_load_model(spec.load.name, spec.load.params, build_machine(spec), seed)


def file_workload(spec: PointSpec, path: str) -> SeedWorkload:
    """A generated workload file; CWF files keep their commands and must match the unit.

    A file whose header gives a measured window (``MeasuredFrom``/``MeasuredTo``, a
    synthetic month) is run under the month protocol: only the jobs submitted in the
    window are measured, and the run stops once they have all started.
    """
    from schedsim.workloads.load import load_workload
    from schedsim.workloads.months import measured_window

    loaded = load_workload(path, procs=spec.machine.procs, records=False)
    if loaded.machine.unit not in (1, spec.machine.unit):
        raise InputError(f"{path}: AllocationUnit {loaded.machine.unit} differs from the "
                         f"machine's unit {spec.machine.unit}")
    info: dict[str, float] = {}
    if spec.workload_info:
        from schedsim.workloads.scaling import offered_load

        barr = loaded.header_value("Barr")
        info = {"offered_load": offered_load(loaded.jobs, spec.machine.procs),
                "barr": float(barr) if barr else math.nan}
    window = measured_window(loaded.header_value, path)
    if window is None:
        return SeedWorkload(loaded.jobs, loaded.changes, info)
    measured = tuple(i for i, job in enumerate(loaded.jobs) if window[0] <= job.submit < window[1])
    label = loaded.header_value("Month")  # a month cut from a log: YYYY-MM
    if label:
        info["month"] = float(label.replace("-", ""))
    return SeedWorkload(loaded.jobs, loaded.changes,
                        {**info, **month_info(loaded.jobs, measured, window, spec.machine.procs)},
                        measured)


def month_info(jobs: Sequence[Job], measured: Sequence[int], window: tuple[float, float],
               nodes: int) -> dict[str, float]:
    """What a month's rows record of its workload: jobs, demand and job size (GOAL Table 1).

    ``demand`` is the measured jobs' node-seconds over the machine's node-seconds in
    the month; ``job_nodehours_*`` the mean, median and maximum node-hours per job.
    """
    import numpy as np

    sizes = np.array([jobs[i].procs * jobs[i].runtime / 3600.0 for i in measured])
    span = window[1] - window[0]
    return {"month_jobs": float(len(measured)),
            "demand": float(sizes.sum() * 3600.0 / (nodes * span)) if span > 0 else math.nan,
            "job_nodehours_mean": float(sizes.mean()) if len(sizes) else math.nan,
            "job_nodehours_median": float(np.median(sizes)) if len(sizes) else math.nan,
            "job_nodehours_max": float(sizes.max()) if len(sizes) else math.nan}


def trace_workloads(spec: PointSpec) -> dict[int, SeedWorkload]:
    """A real log cut into segments (the point's seeds), each scaled to the point's load."""
    from schedsim.workloads.load import load_workload
    from schedsim.workloads.scaling import offered_load, scale_to_load, segments

    trace, procs = spec.trace, spec.machine.procs
    assert trace is not None
    log = load_workload(trace.path, procs=procs, estimates=trace.estimates)
    parts = segments(log.jobs, trace.segments, trace.max_jobs)
    return {seed: SeedWorkload(scale_to_load(parts[seed - 1], procs, trace.load), [],
                               {"offered_load": trace.load,
                                "natural_load": offered_load(parts[seed - 1], procs)})
            for seed in spec.seeds}


def point_workloads(spec: PointSpec) -> dict[int, SeedWorkload]:
    """Seed -> the workload of that seed, for every seed of the point."""
    if spec.trace is not None:
        return trace_workloads(spec)
    return {seed: file_workload(spec, spec.workloads[str(seed)]) for seed in spec.seeds}


def read_chosen(chosen: Mapping[str, str]) -> dict[str, Any]:
    """Parameter -> value, from the ``results/chosen/<target>.json`` files."""
    out: dict[str, Any] = {}
    for param, path in chosen.items():
        values = json.loads(Path(path).read_text(encoding="utf-8"))
        if param not in values:
            raise InputError(f"{path}: no value for {param}")
        out[param] = values[param]
    return out


def simulate_once(workload: SeedWorkload, machine: Machine, policy: str,
                  params: Mapping[str, Any], load: Any = None,
                  extra: Callable[[Any, Any], dict[str, float]] | None = None
                  ) -> dict[str, float]:
    """One simulation -> the summary metrics under the names used in tables.

    ``slowdown`` is the LOS paper's (mean wait + mean run) / mean run of the run;
    ``extra(schedule, policy)`` adds a family's own metrics (``Family.run_metrics``).
    """
    from schedsim.engine import simulate
    from schedsim.metrics import summarize
    from schedsim.policies.registry import make_policy

    if workload.measured is not None:
        return simulate_month(workload, machine, make_policy(policy, params, machine))
    made = make_policy(policy, params, machine)
    schedule = simulate(workload.jobs, machine, made, workload.changes, load_model=load)
    summary = summarize(schedule)
    return {"jobs": summary.jobs, "ATT": summary.mean_response, "AWT": summary.mean_wait,
            "ART": summary.mean_runtime, "BSLD": summary.mean_bounded_slowdown,
            "max_wait": summary.max_wait, "utilization": summary.utilization,
            "makespan": summary.makespan, "slowdown": summary.slowdown_of_means,
            **dedicated_timeliness(schedule),
            "elastic_running_share": elastic_running_share(schedule, workload.changes),
            **(extra(schedule, made) if extra is not None else {})}


def simulate_month(workload: SeedWorkload, machine: Machine, policy: Any) -> dict[str, float]:
    """The month protocol (GOAL paper, sec. 3.3): run until every measured job has
    started, then the monthly metrics over the measured jobs
    (:func:`schedsim.workloads.months.month_metrics`), under the table names
    (``AWT``, ``BSLD``, ``max_wait``, ``long_waits``, ``p1_jobs`` ...), plus the
    policy's search statistics when it keeps them (``search_*``)."""
    from schedsim.engine import simulate
    from schedsim.workloads.months import month_metrics

    assert workload.measured is not None
    schedule = simulate(workload.jobs, machine, policy, stop_when_started=workload.measured)
    runtime = [job.runtime for job in schedule.jobs]
    metrics = month_metrics([job.submit for job in schedule.jobs], schedule.start, runtime,
                            schedule.procs, schedule.partition, workload.measured,
                            len(machine.partitions))
    metrics["AWT"] = metrics.pop("mean_wait")
    metrics["BSLD"] = metrics.pop("mean_bsld")
    stats = getattr(policy, "search_statistics", None)
    return {**metrics, **({f"search_{k}": v for k, v in stats().items()} if stats else {})}


def dedicated_timeliness(schedule: Any) -> dict[str, float]:
    """Share of dedicated jobs started at their requested time, and their mean lateness.

    A dedicated job is on time when it starts within 1 s of its ``requested_start``
    (it may not start earlier); lateness is ``start - requested_start`` in seconds.
    NaN for both when the workload has no dedicated job.
    """
    late = [start - job.requested_start for job, start in zip(schedule.jobs, schedule.start,
                                                              strict=True)
            if job.requested_start is not None]
    if not late:
        return {"dedicated_on_time": math.nan, "dedicated_lateness": math.nan}
    return {"dedicated_on_time": sum(1 for x in late if x <= ON_TIME_SLACK) / len(late),
            "dedicated_lateness": math.fsum(late) / len(late)}


ON_TIME_SLACK = 1.0  # seconds


def elastic_running_share(schedule: Any, changes: Sequence[RuntimeChange]) -> float:
    """Share of elastic commands issued while their job was running (NaN: no command).

    The others reach a job that is still waiting (or already done, or not yet arrived).
    """
    if not changes:
        return math.nan
    index = {job.id: i for i, job in enumerate(schedule.jobs)}
    running = 0
    for command in changes:
        i = index.get(command.job_id)
        if i is not None and schedule.start[i] <= command.time < schedule.end[i]:
            running += 1
    return running / len(changes)


def simulate_batches(workload: SeedWorkload, machine: Machine, policy: str,
                     params: Mapping[str, Any], load: Any,
                     batches: Sequence[int]) -> list[dict[str, float]]:
    """One long simulation cut into batches of jobs in arrival order (batch means, the
    IHAP paper's 31 batches of 7000 jobs, the first discarded): the metrics of each kept
    batch, with its number under ``batch``.

    ``power`` is the mean computing power a job received over its run (work / run time
    in BPUs; processors for a job without work); ``MRT`` the mean response time. Every
    row also carries the whole run's utilization in processors (busy processor-seconds
    over processors x span) and in computing power (work done over the machine's BPUs x
    span).
    """
    import numpy as np

    from schedsim.engine import simulate
    from schedsim.metrics import job_table
    from schedsim.policies.registry import make_policy

    count, size, discard = batches
    jobs = workload.jobs
    if len(jobs) < count * size:
        raise InputError(f"batch means need {count} x {size} jobs; the workload has "
                         f"{len(jobs)}")
    made = make_policy(policy, params, machine)
    if _compiled_adaptive(made, load, workload):
        from schedsim.policies.adaptive_kernel import simulate_adaptive

        start, end, procs = simulate_adaptive(jobs, machine, made, load)
        runtime = end - start
    else:
        schedule = simulate(jobs, machine, made, workload.changes, load_model=load)
        table = job_table(schedule)
        start, end, procs, runtime = (table[name] for name in ("start", "end", "procs",
                                                               "runtime"))
    submit = np.array([job.submit for job in jobs], dtype=float)
    wait = start - submit
    response = end - submit
    order = np.lexsort((np.arange(len(jobs)), submit))
    work = np.array([job.work if job.work is not None else job.runtime * job.procs
                     for job in jobs], dtype=float)
    power = work / np.maximum(runtime, 1e-12)
    span = float(np.nanmax(end) - submit.min())
    speeds = machine.speeds or (1.0,) * machine.procs
    utilization = {"util_procs": float((runtime * procs).sum()) / (machine.procs * span),
                   "util_power": float(work.sum()) / (sum(speeds) * span)}
    rows = []
    for batch in range(discard, count):
        part = order[batch * size:(batch + 1) * size]
        rows.append({"batch": float(batch + 1), "MRT": float(response[part].mean()),
                     "AWT": float(wait[part].mean()),
                     "max_wait": float(wait[part].max()),
                     "power": float(power[part].mean()),
                     "procs_per_job": float(procs[part].mean()), **utilization})
    return rows


def _compiled_adaptive(policy: Any, load: Any, workload: SeedWorkload) -> bool:
    """Whether the run can go through the compiled MAP/HAP/IHAP kernel (the same
    schedule as the engine's: tests/test_adaptive_kernel.py)."""
    from schedsim.loadmodel import UniformLoads
    from schedsim.policies.adaptive import AdaptivePolicy

    return (isinstance(policy, AdaptivePolicy) and isinstance(load, UniformLoads)
            and not workload.changes and all(job.work is not None for job in workload.jobs))


def run_point(spec: PointSpec) -> list[dict[str, Any]]:
    """All seeds (and inner parameter values) of one point: one row per simulation, or
    with ``spec.batches`` one row per kept batch (its number as the ``seed``)."""
    if spec.batches:
        return run_batched_point(spec)
    from schedsim.experiments.reuse import row_header

    chosen = read_chosen(spec.chosen)
    machine = build_machine(spec.machine)
    family = find_family(spec.family)
    extra = family.run_metrics if family is not None else None
    rows = []
    for seed, workload in point_workloads(spec).items():
        for combo in itertools.product(*spec.inner.values()):
            swept = {**spec.params, **chosen, **dict(zip(spec.inner, combo, strict=True))}
            metrics = simulate_once(workload, machine, spec.policy, {**spec.fixed, **swept},
                                    load_model(spec.machine, seed), extra)
            rows.append({**row_header(spec, seed, swept), **workload.info, **metrics})
    return rows


def run_batched_point(spec: PointSpec) -> list[dict[str, Any]]:
    """A batch-means point: one seed, one long run, one row per kept batch."""
    if len(spec.seeds) != 1 or spec.inner:
        raise InputError(f"{spec.target}: batch means take one seed and no inner parameters "
                         f"(seeds {list(spec.seeds)}, inner {sorted(spec.inner)})")
    chosen = read_chosen(spec.chosen)
    always = {name: math.nan for name in spec.columns}
    machine = build_machine(spec.machine)
    (seed, workload), = point_workloads(spec).items()
    swept = {**spec.params, **chosen}
    rows = []
    for batch in simulate_batches(workload, machine, spec.policy, {**spec.fixed, **swept},
                                  load_model(spec.machine, seed), spec.batches):
        number = int(batch.pop("batch"))
        rows.append({"target": spec.target, "policy": spec.policy, "point": spec.point,
                     spec.variant_column: spec.variant, **spec.labels, **always, **swept,
                     "seed": number, "run_seed": int(seed), **workload.info, **batch})
    return rows


def write_rows_parquet(rows: Sequence[Mapping[str, Any]], path: str | Path,
                       metadata: Mapping[str, str]) -> None:
    """Rows -> parquet (pyarrow, no pandas) with ``metadata``, written atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from schedsim.atomic import write_bytes_atomic

    with _pandas_hidden_from_pyarrow():
        table = pa.Table.from_pylist(list(rows))
    table = table.replace_schema_metadata({k.encode(): v.encode() for k, v in metadata.items()})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    write_bytes_atomic(path, sink.getvalue().to_pybytes())


class _NoPandas(importlib.abc.MetaPathFinder):
    """An import finder that refuses pandas."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if fullname == "pandas" or fullname.startswith("pandas."):
            raise ImportError(f"{fullname} is not used here")


@contextmanager
def _pandas_hidden_from_pyarrow() -> Iterator[None]:
    """pyarrow imports pandas, when installed, on its first conversion of Python values
    (about 0.2 s, paid by every simulation job); the rows are plain numbers and strings,
    so the first conversion is made with pandas unimportable and pyarrow goes on without
    it. A process that already imported pandas keeps it."""
    if "pandas" in sys.modules:
        yield
        return
    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
