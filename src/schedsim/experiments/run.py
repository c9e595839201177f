"""Running one point: its workloads, its machine, every seed and inner value -> rows.

The machine comes from the point's machine description (size, unit, partitions,
speeds, background-load model); a workload file that says otherwise (a CWF
``AllocationUnit`` different from the machine's unit) is an error. Parameters a
point takes from another target (``chosen``) are read from their files first.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.experiments.spec import MachineSpec, PointSpec
from schedsim.jobs import Job, RuntimeChange
from schedsim.machine import Machine


@dataclass
class SeedWorkload:
    """One seed's input of a point: jobs, elastic commands, and what rows record of it."""

    jobs: list[Job]
    changes: list[RuntimeChange] = field(default_factory=list)
    info: dict[str, float] = field(default_factory=dict)


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
    """A generated workload file; CWF files keep their commands and must match the unit."""
    from schedsim.workloads.load import load_workload

    loaded = load_workload(path, procs=spec.machine.procs)
    if loaded.machine.unit not in (1, spec.machine.unit):
        raise InputError(f"{path}: AllocationUnit {loaded.machine.unit} differs from the "
                         f"machine's unit {spec.machine.unit}")
    info: dict[str, float] = {}
    if spec.workload_info:
        from schedsim.workloads.scaling import offered_load

        barr = loaded.header_value("Barr")
        info = {"offered_load": offered_load(loaded.jobs, spec.machine.procs),
                "barr": float(barr) if barr else math.nan}
    return SeedWorkload(loaded.jobs, loaded.changes, info)


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
                  params: Mapping[str, Any], load: Any = None) -> dict[str, float]:
    """One simulation -> the summary metrics under the names used in tables.

    ``slowdown`` is the LOS paper's (mean wait + mean run) / mean run of the run.
    """
    from schedsim.engine import simulate
    from schedsim.metrics import summarize
    from schedsim.policies.registry import make_policy

    schedule = simulate(workload.jobs, machine, make_policy(policy, params, machine),
                        workload.changes, load_model=load)
    summary = summarize(schedule)
    return {"jobs": summary.jobs, "ATT": summary.mean_response, "AWT": summary.mean_wait,
            "ART": summary.mean_runtime, "BSLD": summary.mean_bounded_slowdown,
            "max_wait": summary.max_wait, "utilization": summary.utilization,
            "makespan": summary.makespan, "slowdown": summary.slowdown_of_means,
            **dedicated_timeliness(schedule),
            "elastic_running_share": elastic_running_share(schedule, workload.changes)}


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


def run_point(spec: PointSpec) -> list[dict[str, Any]]:
    """All seeds (and inner parameter values) of one point: one row per simulation."""
    chosen = read_chosen(spec.chosen)
    always = {name: math.nan for name in spec.columns}
    machine = build_machine(spec.machine)
    rows = []
    for seed, workload in point_workloads(spec).items():
        for combo in itertools.product(*spec.inner.values()):
            swept = {**spec.params, **chosen, **dict(zip(spec.inner, combo, strict=True))}
            metrics = simulate_once(workload, machine, spec.policy, {**spec.fixed, **swept},
                                    load_model(spec.machine, seed))
            rows.append({"target": spec.target, "policy": spec.policy, "point": spec.point,
                         spec.variant_column: spec.variant, **spec.labels, **always, **swept,
                         "seed": int(seed), **workload.info, **metrics})
    return rows


def write_rows_parquet(rows: Sequence[Mapping[str, Any]], path: str | Path,
                       metadata: Mapping[str, str]) -> None:
    """Rows -> parquet (pyarrow, no pandas) with ``metadata``, written atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from schedsim.atomic import write_bytes_atomic

    table = pa.Table.from_pylist(list(rows))
    table = table.replace_schema_metadata({k.encode(): v.encode() for k, v in metadata.items()})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    write_bytes_atomic(path, sink.getvalue().to_pybytes())
