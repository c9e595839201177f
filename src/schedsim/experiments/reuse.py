"""Points that run the same simulations as an earlier point, and their rows made from it.

A sweep may give a policy a parameter it does not read (the HRF grid's ``alpha`` for the
fair-share and greedy schemes, docs/deviations-hrf.md), or two targets may run the same
setting under different names (a lookahead sweep's default value and the comparison
that uses the default). Such a point's simulations are those of an earlier point, seed
for seed and value for value: same family, policy, machine, workload files, seeds and
resolved policy settings. The plan records the earlier point's run file
(``Plan.same_as``); the point's job then reads it and relabels its rows instead of
simulating again. The run file is the one the simulations would have written, byte for
byte (tests/test_reuse.py).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.experiments.spec import PointSpec, canonical_json, point_from_json

SimulationKey = tuple[str, ...]


def simulation_keys(point: PointSpec) -> tuple[SimulationKey, ...] | None:
    """What decides each of the point's simulations, in row order; None when that is not
    known before the run (parameters chosen by another target)."""
    if point.chosen:
        return None
    from schedsim.policies.registry import get_policy

    entry = get_policy(point.policy)
    common = canonical_json({"family": point.family, "policy": point.policy,
                             "machine": asdict(point.machine), "model": point.model,
                             "trace": asdict(point.trace) if point.trace else None,
                             "workload_info": point.workload_info,
                             "batches": list(point.batches)})
    settings = [repr(entry.settings({**point.fixed, **point.params,
                                     **dict(zip(point.inner, combo, strict=True))}))
                for combo in itertools.product(*point.inner.values())]
    return tuple((common, str(seed), point.workloads.get(str(seed), ""), combo_settings)
                 for seed in point.seeds for combo_settings in settings)


def equivalent_points(points: Mapping[str, PointSpec]) -> dict[str, str]:
    """Run file -> the run file of the first point (in plan order) that runs the same
    simulations, for every point that has one."""
    first: dict[tuple[SimulationKey, ...], str] = {}
    same_as = {}
    for path, point in points.items():
        keys = simulation_keys(point)
        if keys is None or point.batches:
            continue
        source = first.setdefault(keys, path)
        if source != path:
            same_as[path] = source
    return same_as


def _simulations(point: PointSpec) -> Iterator[tuple[int, dict[str, Any]]]:
    """(seed, swept parameters) of every simulation, in the order of the rows."""
    for seed in point.seeds:
        for combo in itertools.product(*point.inner.values()):
            yield seed, {**point.params, **dict(zip(point.inner, combo, strict=True))}


def row_header(point: PointSpec, seed: int, swept: Mapping[str, Any]) -> dict[str, Any]:
    """The leading fields of a row (spec.PointSpec): who ran what, before the results."""
    always = {name: math.nan for name in point.columns}
    return {"target": point.target, "policy": point.policy, "point": point.point,
            point.variant_column: point.variant, **point.labels, **always, **swept,
            "seed": int(seed)}


def rows_from_equivalent(point: PointSpec, path: str | Path) -> list[dict[str, Any]]:
    """The point's rows, made from the run file of an equivalent point (its results
    under this point's header). Raises InputError when the file's point does not run
    the same simulations, or its rows do not keep results apart from the header."""
    import pyarrow.parquet as pq

    if not Path(path).is_file():
        raise InputError(f"{path}: no such run file (--same-as names the run file of an "
                         "equivalent point, made first)")
    table = pq.read_table(path)
    metadata = table.schema.metadata or {}
    source = point_from_json(json.loads(metadata[b"schedsim.spec"].decode()))
    if source.batches or point.batches:
        raise InputError(f"{path}: batch-means points are not reused")
    keys = simulation_keys(point)
    if keys is None or simulation_keys(source) != keys:
        raise InputError(f"{path}: point {source.target}/{source.point} does not run the "
                         f"simulations of {point.target}/{point.point}")
    rows = []
    for stored, (seed, swept), (_, source_swept) in zip(
            table.to_pylist(), _simulations(point), _simulations(source), strict=True):
        source_header = row_header(source, seed, source_swept)
        _check_header(path, stored, source_header)
        results = {key: value for key, value in stored.items() if key not in source_header}
        rows.append({**row_header(point, seed, swept), **results})
    return rows


def _check_header(path: str | Path, stored: Mapping[str, Any],
                  header: Mapping[str, Any]) -> None:
    """A result stored under a header field's name would be lost in relabelling."""
    for key, value in header.items():
        kept = stored.get(key)
        same = kept == value or (isinstance(kept, float) and isinstance(value, float)
                                 and math.isnan(kept) and math.isnan(value))
        if not same:
            raise InputError(f"{path}: field {key} holds {kept!r}, not the header's "
                             f"{value!r}; the rows cannot be relabelled")
