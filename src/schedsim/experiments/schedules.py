"""One representative schedule per target: a chosen point, seed and window, simulated
once more, written as ``schedsim simulate`` writes a schedule and drawn by
``schedsim.gantt``.

A sweep target's ``schedule:`` block (config) names the policy, the values that pick one
of its points (variant axes such as ``load`` or ``ps``, swept parameters such as ``c_s``
or ``alpha``, inner ones included), the seed (a month or trace segment of targets that
read a log; default the first) and the window: ``start`` and ``end`` in seconds (or
``36h``, ``7d``) after the workload's first submission (``end`` null: to the last job).
Only the jobs submitted before the window's end are simulated: the engine is causal
(no decision before ``end`` depends on a later arrival), so the schedule inside the
window is the point's own, and its file says which jobs it holds. Planning checks the
block (:func:`plan_schedules`), so ``snakemake -n`` reports a block that picks no point
or several.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from schedsim.errors import InputError
from schedsim.experiments.spec import RESULTS, PointSpec, canonical_json, fmt_value

SCHEDULE_DIR = f"{RESULTS}/schedules"


@dataclass(frozen=True)
class ScheduleSpec:
    """The representative schedule of one target: its point, the inner parameter values,
    the seed and the window (seconds after the first submission; end None: to the last)."""

    target: str
    point: PointSpec
    inner: Mapping[str, Any]
    seed: int
    start: float
    end: float | None

    @property
    def swf(self) -> str:
        return f"{SCHEDULE_DIR}/{self.target}.swf"

    @property
    def png(self) -> str:
        return f"{SCHEDULE_DIR}/{self.target}.png"

    @property
    def inputs(self) -> list[str]:
        return self.point.inputs

    def caption(self) -> str:
        """What the picture shows, in one line."""
        values = {**self.point.labels, **self.point.params, **self.inner}
        shown = ", ".join(f"{k} {fmt_value(v)}" for k, v in sorted(values.items())
                          if k != "panel" and v not in ("", None))
        end = "the last job" if self.end is None else _duration(self.end)
        return (f"{self.point.policy} on {self.point.variant} ({shown}), "
                f"{_seed_name(self.point)} {self.seed}; from {_duration(self.start)} to {end} "
                "after the first submission")


def _duration(seconds: float) -> str:
    """``604800`` -> ``7 d``; ``5400`` -> ``1.5 h``; ``0`` -> ``0 s``."""
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} s"


def _seed_name(point: PointSpec) -> str:
    if point.model == "swf-month":
        return "month"
    if point.trace is not None:
        return "log segment"
    return "batch run, seed" if point.batches else "seed"


def to_json(spec: ScheduleSpec) -> str:
    return canonical_json(asdict(spec))


def from_json(text: str) -> ScheduleSpec:
    import json

    from schedsim.experiments.spec import point_from_json

    data = json.loads(text)
    return ScheduleSpec(data["target"], point_from_json(data["point"]), dict(data["inner"]),
                        int(data["seed"]), float(data["start"]),
                        None if data["end"] is None else float(data["end"]))


# ----------------------------------------------------------------------------- planning


def plan_schedules(config: Mapping[str, Any], plan: Any) -> dict[str, ScheduleSpec]:
    """Target -> its representative schedule, for every planned default target with a
    ``schedule:`` block (a block on a derived or example target is an error)."""
    out = {}
    for family in plan.families:
        for target, raw in ((config.get(family) or {}).get("targets") or {}).items():
            block = (raw or {}).get("schedule")
            if not block or target not in plan.targets:
                continue
            spec = plan.targets[target]
            if spec.kind != "sweep":
                raise ValueError(f"target {target}: schedule: a {spec.kind} target runs no "
                                 "simulation to draw (drop the block)")
            points = [plan.points[path] for path in plan.inputs_of[target]]
            out[target] = resolve(target, block, points)
    return out


def resolve(target: str, block: Mapping[str, Any], points: Sequence[PointSpec]) -> ScheduleSpec:
    """The one point, inner values, seed and window a ``schedule:`` block picks."""
    from schedsim.gantt import parse_time

    where = f"target {target}: schedule"
    policy = str(block["policy"])
    mine = [p for p in points if p.policy == policy]
    if not mine:
        raise ValueError(f"{where}: policy {policy} is not one the target runs "
                         f"({', '.join(sorted({p.policy for p in points}))})")
    values = dict(block.get("values") or {})
    chosen = [(p, inner) for p in mine if (inner := _match(p, values)) is not None]
    if len(chosen) != 1:
        known = "; ".join(_describe(p) for p in mine[:6]) + (
            f"; ... {len(mine)} points in all" if len(mine) > 6 else "")
        what = "no point" if not chosen else f"{len(chosen)} points"
        raise ValueError(f"{where}: values {values or '{}'} pick {what} of {policy}; give the "
                         f"values that pick one ({known})")
    point, inner = chosen[0]
    missing = [k for k in point.inner if k not in inner]
    if missing:
        raise ValueError(f"{where}: give {', '.join(missing)} in values (one of "
                         + "; ".join(f"{k}: {', '.join(fmt_value(v) for v in point.inner[k])}"
                                     for k in missing) + ")")
    seed = int(block.get("seed") or point.seeds[0])
    if seed not in point.seeds:
        raise ValueError(f"{where}: seed {seed} is not one of the point's "
                         f"{', '.join(str(s) for s in point.seeds)}")
    start = _seconds(block.get("start", 0), f"{where}.start", parse_time)
    end = block.get("end")
    end_s = None if end is None else _seconds(end, f"{where}.end", parse_time)
    if end_s is not None and not end_s > start:
        raise ValueError(f"{where}: end {end} must be after start {block.get('start', 0)}")
    return ScheduleSpec(target, point, inner, seed, start, end_s)


def _seconds(value: Any, option: str, parse: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{option}: {value!r} is not a time")
    if isinstance(value, int | float):
        return float(value)
    try:
        return parse(str(value), option)
    except InputError as err:
        raise ValueError(str(err)) from None


def _match(point: PointSpec, values: Mapping[str, Any]) -> dict[str, Any] | None:
    """The inner values ``values`` give when every value fits the point, else None."""
    inner = {}
    given = _values(point)
    for key, value in values.items():
        if key in point.inner:
            found = [v for v in point.inner[key] if _same(v, value)]
            if not found:
                return None
            inner[key] = found[0]
        elif key not in given or not _same(given[key], value):
            return None
    return inner


def _same(ours: Any, value: Any) -> bool:
    """Numbers within 1e-9, anything else as text (``true`` is ``True``)."""
    numbers = [v for v in (ours, value) if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) == 2:
        return abs(float(ours) - float(value)) < 1e-9
    return str(ours).lower() == str(value).lower()


def _values(point: PointSpec) -> dict[str, Any]:
    """The values that tell a point from the others: its variant, labels and parameters."""
    return {point.variant_column: point.variant, **point.labels, **point.params}


def _describe(point: PointSpec) -> str:
    values = {k: v for k, v in _values(point).items() if k != "panel"}
    inner = {k: f"one of {', '.join(fmt_value(x) for x in v)}" for k, v in point.inner.items()}
    return ", ".join(f"{k} {fmt_value(v)}" for k, v in {**values, **inner}.items()) or point.point


# ----------------------------------------------------------------------------- running


def write_schedule(spec: ScheduleSpec, swf: str, png: str) -> int:
    """Simulate the representative schedule, write its file and its picture; the number
    of jobs simulated."""
    from schedsim.atomic import write_text_atomic
    from schedsim.engine import simulate
    from schedsim.experiments.run import build_machine, load_model, point_workloads, read_chosen
    from schedsim.gantt import plot_schedule
    from schedsim.policies.registry import make_policy
    from schedsim.schedule_file import schedule_swf

    point = _one_seed(spec.point, spec.seed)
    workload = point_workloads(point)[spec.seed]
    first = min(job.submit for job in workload.jobs)
    end = math.inf if spec.end is None else first + spec.end
    jobs = [job for job in workload.jobs if job.submit < end]
    kept = {job.id for job in jobs}
    changes = [c for c in workload.changes if c.job_id in kept and c.time < end]
    machine = build_machine(point.machine)
    params = {**point.fixed, **point.params, **read_chosen(point.chosen), **spec.inner}
    policy = make_policy(point.policy, params, machine)
    schedule = simulate(jobs, machine, policy, changes,
                        load_model=load_model(point.machine, spec.seed))
    source = point.trace.path if point.trace is not None else point.workloads[str(spec.seed)]
    text = schedule_swf(schedule, source, point.policy)
    header = [f"; Representative: {spec.target}: {spec.caption()}",
              f"; Jobs: the {len(jobs)} jobs submitted before the window's end" if
              spec.end is not None else f"; Jobs: all {len(jobs)} jobs of the workload"]
    write_text_atomic(swf, "\n".join(header) + "\n" + text)
    plot_schedule(swf, png, first + spec.start, None if spec.end is None else end,
                  title=f"{spec.target}, {point.policy}")
    return len(jobs)


def _one_seed(point: PointSpec, seed: int) -> PointSpec:
    workloads = {str(seed): point.workloads[str(seed)]} if str(seed) in point.workloads else {}
    return replace(point, seeds=(seed,), workloads=workloads)
