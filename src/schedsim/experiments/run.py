"""Running one point: its workloads, its machine, every seed and inner value -> rows.

The machine comes from the point's machine description (size, unit, partitions,
speeds, background-load model); a workload file that says otherwise (a CWF
``AllocationUnit`` different from the machine's unit) is an error. Parameters a
point takes from another target (``chosen``) are read from their files first. How each
simulation runs and what its row holds is the point's measure's
(``schedsim.experiments.measure``, named by the family): the runner knows no family.
"""

from __future__ import annotations

import importlib.abc
import itertools
import json
import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedsim.errors import InputError
from schedsim.experiments.measure import MEASURE, Measure, SeedWorkload, find_measure
from schedsim.experiments.spec import MachineSpec, PointSpec
from schedsim.machine import Machine

if TYPE_CHECKING:
    from schedsim.experiments.reuse import SimulationKey


def build_machine(spec: MachineSpec) -> Machine:
    """The :class:`Machine` of a machine description."""
    return spec.machine()


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
    from schedsim.workloads.months import measured_window, month_info

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


def point_workloads(spec: PointSpec, seeds: Sequence[int] | None = None
                    ) -> dict[int, SeedWorkload]:
    """Seed -> the workload of that seed, for ``seeds`` (default: every seed of the
    point)."""
    seeds = spec.seeds if seeds is None else seeds
    if spec.trace is not None:
        workloads = {seed: workload for seed, workload in trace_workloads(spec).items()
                     if seed in seeds}
    else:
        workloads = {seed: file_workload(spec, spec.workloads[str(seed)]) for seed in seeds}
    machine = spec.machine
    if machine.execution and machine.load is None and not any(
            job.work is not None for workload in workloads.values() for job in workload.jobs):
        raise InputError(f"{spec.target}: machine.execution={machine.execution} applies to "
                         "jobs whose progress depends on their processors' rates (jobs with "
                         "work on processors with speeds, or any job under a background "
                         "load); these workloads have no job with work and the machine no "
                         "load (remove the key)")
    return workloads


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
                  measure: Measure = MEASURE) -> dict[str, float]:
    """One simulation -> the row's metrics, run and measured by ``measure``."""
    from schedsim.policies.registry import make_policy

    made = make_policy(policy, params, machine)
    return measure.metrics(measure.simulate(workload, machine, made, load), workload)


def simulate_batches(workload: SeedWorkload, machine: Machine, policy: str,
                     params: Mapping[str, Any], load: Any, batches: Sequence[int],
                     measure: Measure) -> list[dict[str, float]]:
    """One long simulation cut into batches of jobs in arrival order (batch means): the
    rows of the kept batches, each with its number under ``batch``, as ``measure``
    measures them."""
    from schedsim.policies.registry import make_policy

    count, size, _ = batches
    if len(workload.jobs) < count * size:
        raise InputError(f"batch means need {count} x {size} jobs; the workload has "
                         f"{len(workload.jobs)}")
    made = make_policy(policy, params, machine)
    schedule = measure.simulate(workload, machine, made, load)
    return measure.batch_rows(schedule, workload, machine, batches)


def check_fit(spec: PointSpec, workload: SeedWorkload, machine: Machine) -> None:
    """Refuse a workload or machine the point's policy does not take (its registry
    entry's needs), with the message the command line gives."""
    from schedsim.policies.registry import get_policy, run_features

    get_policy(spec.policy).check_run(run_features(workload.jobs, machine, workload.changes,
                                                   spec.machine.load is not None))


def run_point(spec: PointSpec, reused: Mapping[SimulationKey, Mapping[str, Any]] | None = None
              ) -> list[dict[str, Any]]:
    """All seeds (and inner parameter values) of one point: one row per simulation, or
    with ``spec.batches`` one row per kept batch (its number as the ``seed``).

    A simulation whose key (``reuse.simulation_keys``) is in ``reused`` is not run: its
    row is its results there under this point's header."""
    if spec.batches:
        return run_batched_point(spec)
    from schedsim.experiments.reuse import row_header, simulation_keys

    simulations = [(seed, combo) for seed in spec.seeds
                   for combo in itertools.product(*spec.inner.values())]
    keys = simulation_keys(spec) if reused else None
    results = [reused.get(key) for key in keys] if reused and keys else [None] * len(simulations)
    chosen = read_chosen(spec.chosen)
    machine = build_machine(spec.machine)
    measure = find_measure(spec.measure)
    to_run = dict.fromkeys(seed for (seed, _), found in zip(simulations, results, strict=True)
                           if found is None)
    workloads = point_workloads(spec, list(to_run)) if to_run else {}
    for workload in workloads.values():
        check_fit(spec, workload, machine)
    rows = []
    for (seed, combo), found in zip(simulations, results, strict=True):
        swept = {**spec.params, **chosen, **dict(zip(spec.inner, combo, strict=True))}
        if found is not None:
            rows.append({**row_header(spec, seed, swept), **found})
            continue
        workload = workloads[seed]
        metrics = simulate_once(workload, machine, spec.policy, {**spec.fixed, **swept},
                                load_model(spec.machine, seed), measure)
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
    check_fit(spec, workload, machine)
    swept = {**spec.params, **chosen}
    rows = []
    for batch in simulate_batches(workload, machine, spec.policy, {**spec.fixed, **swept},
                                  load_model(spec.machine, seed), spec.batches,
                                  find_measure(spec.measure)):
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
