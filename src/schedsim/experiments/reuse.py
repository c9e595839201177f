"""Simulations an earlier point already runs, and the rows made from its run file.

A sweep may give a policy a parameter it does not read (the HRF grid's ``alpha`` for the
fair-share and greedy schemes, docs/deviations-hrf.md), two targets may run the same
setting under different names (a lookahead sweep's default value and the comparison
that uses the default), or one target's grid may cross another's (HRF-F7's thresholds
at alpha 1.0 are HRF-F6's points, its threshold 0.9 HRF-F5's). A simulation is decided
by the family, policy, machine, workload file, seed and resolved policy settings
(:func:`simulation_keys`); each one runs in the first point (in plan order) that has it.
The plan records, for every later point that has some, the run files of the points that
run them (``Plan.reuse``); the point's job reads their rows, relabels them, and
simulates only the rest. Its run file is the one that simulating everything would have
written, byte for byte (tests/test_reuse.py).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
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


@dataclass(frozen=True)
class Reuse:
    """Where a point's rows come from besides its own simulations."""

    sources: tuple[str, ...]  # run files of earlier points, in the order first needed
    simulates: bool  # the point still runs some of its simulations itself


def simulation_sources(points: Mapping[str, PointSpec]) -> dict[str, Reuse]:
    """Run file -> the run files of earlier points (in plan order) that run some of its
    simulations, for every point that has such simulations."""
    runs_in: dict[SimulationKey, str] = {}
    reuse = {}
    for path, point in points.items():
        keys = simulation_keys(point)
        if keys is None or point.batches:
            continue
        owners = [runs_in.setdefault(key, path) for key in keys]
        sources = tuple(dict.fromkeys(owner for owner in owners if owner != path))
        if sources:
            reuse[path] = Reuse(sources, simulates=path in owners)
    return reuse


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


def reusable_results(point: PointSpec,
                     paths: Sequence[str | Path]) -> dict[SimulationKey, dict[str, Any]]:
    """The results (a row without its header) of the point's simulations that the run
    files of earlier points hold. Raises InputError for a point whose simulations are
    not reused (chosen parameters, batch means), a missing file, or a file that holds
    none of the point's simulations or whose rows do not keep results apart from the
    header."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    keys = simulation_keys(point)
    if keys is None or point.batches:
        raise InputError(f"{_name(point)}: a point with chosen parameters or "
                         "batch means is always simulated (no --rows-from)")
    wanted = set(keys)
    found: dict[SimulationKey, dict[str, Any]] = {}
    for path in paths:
        if not Path(path).is_file():
            raise InputError(f"{path}: no such run file (--rows-from names the run file of an "
                             "earlier point, made first)")
        try:
            table = pq.read_table(path)
        except pa.ArrowInvalid as err:
            raise InputError(f"{path}: not a run file (a parquet file that run-point "
                             f"wrote): {err}") from None
        spec_json = (table.schema.metadata or {}).get(b"schedsim.spec")
        if spec_json is None:
            raise InputError(f"{path}: not a run file (no schedsim.spec in its metadata)")
        source = point_from_json(json.loads(spec_json.decode()))
        source_keys = simulation_keys(source)
        held = [] if source_keys is None or source.batches else [
            (stored, seed, swept, key) for stored, (seed, swept), key in zip(
                table.to_pylist(), _simulations(source), source_keys, strict=True)
            if key in wanted]
        if not held:
            raise InputError(f"{path}: point {_name(source)} runs none of the simulations "
                             f"of {_name(point)}")
        for stored, seed, swept, key in held:
            header = row_header(source, seed, swept)
            _check_header(path, stored, header)
            found.setdefault(key, {k: v for k, v in stored.items() if k not in header})
    return found


def _name(point: PointSpec) -> str:
    return f"{point.target}/{point.policy}/{point.point}"


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
