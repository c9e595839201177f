"""Config -> the plan: workloads to generate, points to simulate, targets to build.

The workflow builds the plan while it builds its DAG, so every mistake a plan can
see (an unknown policy, parameter or value, a target naming a missing source)
ends ``snakemake -n`` with one line, as the run itself would. This module imports
nothing heavy at load time.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedsim.experiments.family import enabled_families, get_family
from schedsim.experiments.kinds import (
    KINDS,
    Context,
    check_function,
    chosen_path,
    trace_file,
)
from schedsim.experiments.spec import SWEEP, PointSpec, TargetSpec


@dataclass
class Plan:
    """Everything the workflow needs: files to make and how to make them."""

    workloads: dict[str, dict[str, Any]] = field(default_factory=dict)
    points: dict[str, PointSpec] = field(default_factory=dict)
    targets: dict[str, TargetSpec] = field(default_factory=dict)
    inputs_of: dict[str, list[str]] = field(default_factory=dict)
    claim_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)

    @property
    def families(self) -> list[str]:
        return list(self.claim_settings)

    @property
    def choosing(self) -> dict[str, str]:
        """Target -> its chosen-parameter file, for targets that choose one."""
        return {t: chosen_path(t) for t, spec in self.targets.items() if spec.choose}


def seeds_of(config: Mapping[str, Any], section: Mapping[str, Any]) -> tuple[int, ...]:
    """The family's seeds (its own ``seeds`` block, else the global one)."""
    block = section.get("seeds") or config.get("seeds", {})
    values = block.get("values") or []
    if values:
        return tuple(int(v) for v in values)
    start = int(block.get("start", 1))
    return tuple(range(start, start + int(block.get("count", 1))))


def build_plan(config: Mapping[str, Any], base: str | Path | None = None) -> Plan:
    """Files and jobs of every enabled family.

    ``base`` is the directory relative trace paths (``traces:``) are read from:
    the repository root in the workflow, the current directory by default.
    """
    plan = Plan()
    root = Path(base) if base is not None else Path.cwd()
    for name in enabled_families(config):
        section = config[name]
        family = get_family(name, section.get("module"))
        plan.modules[name] = type(family).__module__
        ctx = Context(config, family, section, seeds_of(config, section), root, plan.targets)
        for target, raw in _targets(section):
            if target in plan.targets:
                raise ValueError(f"target {target} appears in two families")
            if not _plannable(ctx, target, raw, plan):
                continue
            _plan_target(plan, ctx, target, raw)
        plan.claim_settings[name] = dict(section.get("claims") or {})
    return plan


def _targets(section: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return [(t, raw or {}) for t, raw in (section.get("targets") or {}).items()
            if (raw or {}).get("enabled", True)]


def _plannable(ctx: Context, target: str, raw: Mapping[str, Any], plan: Plan) -> bool:
    """False for a target left out: a missing trace it may skip, a source not planned."""
    if raw.get("kind", SWEEP) != SWEEP:
        return all(s in plan.targets for s in raw.get("sources") or ())
    trace = raw.get("trace")
    if not trace:
        return True
    path = trace_file(ctx.config, trace["name"], ctx.base)
    if path is not None and path.is_file():
        return True
    if trace.get("missing", "fail") == "skip":
        return False
    where = f"traces.{trace['name']} = {path}" if path else f"no traces.{trace['name']}"
    raise ValueError(f"{target} needs the real log {trace['name']!r} but {where} is not a "
                     f"file (relative paths are read from {ctx.base}). Put the Parallel "
                     f"Workloads Archive file there and name it under `traces:`, or set "
                     f"{ctx.family.name}.targets.{target}.trace.missing: skip (or enabled: "
                     "false).")


def _plan_target(plan: Plan, ctx: Context, target: str, raw: Mapping[str, Any]) -> None:
    kind = KINDS[raw.get("kind", SWEEP)]
    spec = kind.target(ctx, target, raw)
    check_function(spec)
    points = kind.points(ctx, spec, raw)
    for point in points:
        check_point(point)
        plan.points[point.run_path] = point
    for path, workload in kind.workloads(ctx, spec, raw).items():
        plan.workloads.setdefault(path, workload)
    plan.targets[target] = spec
    plan.inputs_of[target] = kind.inputs(spec, points)


def check_point(point: PointSpec) -> None:
    """Raise InputError for an unknown policy, parameter or out-of-range value.

    Every value of the inner parameters is checked; a chosen parameter is checked
    when the run reads its file.
    """
    from schedsim.policies.registry import get_policy

    entry = get_policy(point.policy)
    base = {**point.fixed, **point.params}
    for combo in itertools.product(*point.inner.values()) if point.inner else [()]:
        entry.settings({**base, **dict(zip(point.inner, combo, strict=True))})


def find_point(plan: Plan, target: str, policy: str, point: str) -> PointSpec:
    """The spec of one point of a plan (for running a point by hand)."""
    path = f"results/runs/{target}/{policy}/{point}.parquet"
    if path not in plan.points:
        known = sorted(Path(p).stem for p in plan.points if f"/{target}/{policy}/" in p)
        raise KeyError(f"no point {point!r} of {target}/{policy}; known: " + ", ".join(known))
    return plan.points[path]
