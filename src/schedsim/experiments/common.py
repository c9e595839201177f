"""Config section -> workloads, simulation points and targets; running one point.

Shared by every paper family (HRF and LOS now; IHAP, GOAL, SLACK plug in the
same way). A family section of the config lists its targets; each sweep target names
its policies and a ``sweep`` (parameter -> values). One simulation *point* is one
(target, policy, combination of the swept parameters not listed in ``inner``);
the parameters in ``inner`` and all seeds run inside the point (one Snakemake
job per point; the granularity is a config choice, see config/README.md).

This module imports nothing heavy at load time: the workflow imports it while
building the DAG.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import itertools
import json
import math
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from schedsim import __version__

FAMILY_MODULES: dict[str, str] = {
    "hrf": "schedsim.experiments.hrf",
    "los": "schedsim.experiments.los",
}
METRICS = ("ATT", "AWT", "ART", "BSLD", "max_wait", "utilization", "makespan")
RESULTS = "results"
TUNED_DIR = "tuned"  # runs whose parameters come from another target's table
TRACE_MODEL = "trace"  # the "model" of a point that reads a real log (spec["trace"])
SEEDS_SUFFIX = ".seeds"  # results/tables/<target>.seeds.csv: per-seed values of a target


# ----------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Variant:
    """A workload variant of a family (e.g. one HRF load): its name, model params, labels."""

    name: str
    params: Mapping[str, Any]
    labels: Mapping[str, Any]


@dataclass(frozen=True)
class Point:
    """One simulation job: a target, a policy, its swept parameters, all seeds inside."""

    family: str
    target: str
    policy: str
    point: str
    variant: Variant
    params: Mapping[str, Any]
    inner: Mapping[str, Sequence[Any]]
    fixed: Mapping[str, Any]

    @property
    def run_path(self) -> str:
        return f"{RESULTS}/runs/{self.target}/{self.policy}/{self.point}.parquet"


@dataclass
class Plan:
    """Everything the workflow needs: files to make and how to make them."""

    workloads: dict[str, dict[str, Any]] = field(default_factory=dict)
    points: dict[str, dict[str, Any]] = field(default_factory=dict)
    targets: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs_of: dict[str, list[str]] = field(default_factory=dict)
    claim_settings: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def families(self) -> list[str]:
        return list(self.claim_settings)


# ----------------------------------------------------------------------------- helpers


def fmt_value(value: Any) -> str:
    """A parameter value as it appears in a file name: 0.5 -> '0.5', 1.0 -> '1'."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{round(value, 10):g}"
    return str(value)


def point_name(variant: str, params: Mapping[str, Any]) -> str:
    """``<variant>_<param><value>...`` in the order given, e.g. ``light_alpha0.5_threshold0.9``."""
    return "_".join([variant, *(f"{k}{fmt_value(v)}" for k, v in params.items())])


def seeds_of(config: Mapping[str, Any], section: Mapping[str, Any]) -> list[int]:
    """The family's seeds (its own ``seeds`` block, else the global one)."""
    block = section.get("seeds") or config.get("seeds", {})
    values = block.get("values") or []
    if values:
        return [int(v) for v in values]
    start = int(block.get("start", 1))
    return list(range(start, start + int(block.get("count", 1))))


def workload_path(family: str, variant: str, seed: int, ext: str = "swf") -> str:
    return f"{RESULTS}/workloads/{family}/{variant}/seed{seed}.{ext}"


def canonical_json(data: Any) -> str:
    """Stable JSON text (sorted keys, no spaces): used in params and metadata."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def code_version(root: str | Path, exclude: Iterable[str] = ()) -> str:
    """Hash of every ``*.py`` under ``root`` (path and content), minus ``exclude`` (relative)."""
    root = Path(root)
    skip = set(exclude)
    files = [p for p in sorted(root.rglob("*.py"))
             if p.relative_to(root).as_posix() not in skip and "__pycache__" not in p.parts]
    return hash_files(root, files)


def hash_files(root: Path, files: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def module_path(root: Path, module: str) -> Path | None:
    """The file of ``schedsim.<...>`` module ``module`` under the package dir ``root``."""
    parts = module.split(".")[1:]
    for candidate in (root.joinpath(*parts).with_suffix(".py"),
                      root.joinpath(*parts, "__init__.py")):
        if parts and candidate.is_file():
            return candidate
    return root / "__init__.py" if not parts else None


def imported_modules(path: Path, package: str) -> set[str]:
    """``package.*`` modules that ``path`` imports anywhere (also inside functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == package)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == package:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def import_closure(root: str | Path, modules: Iterable[str]) -> list[Path]:
    """Files of ``modules``, of every package module they import (statically), and parents.

    Modules named only as strings (the registries' lazy imports) are not followed:
    pass them in ``modules``.
    """
    root = Path(root)
    package = root.name
    todo, seen = list(modules), set()
    files: set[Path] = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = module_path(root, module)
        if path is None:
            continue
        files.add(path)
        parts = module.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
        todo.extend(imported_modules(path, package))
    return sorted(files)


def simulation_code_version(root: str | Path, policy: str, model: str) -> str:
    """Hash of the code one simulation point runs: its policy, workload model and runner.

    Falls back to the hash of the whole package when the policy or model is not
    registered (yet).
    """
    from schedsim.errors import InputError
    from schedsim.policies.registry import get_policy
    from schedsim.workloads.base import get_model

    try:
        roots = [get_policy(policy).factory.__module__]
        if model != TRACE_MODEL:
            roots.append(get_model(model).generate.__module__)
    except InputError:
        return code_version(root)
    return hash_files(Path(root), import_closure(root, [*roots, __name__]))


def workload_code_version(root: str | Path, model: str) -> str:
    """Hash of the code ``schedsim generate MODEL`` runs."""
    from schedsim.errors import InputError
    from schedsim.workloads.base import get_model

    try:
        roots = [get_model(model).generate.__module__, "schedsim.cli"]
    except InputError:
        return code_version(root)
    return hash_files(Path(root), import_closure(root, roots))


def git_commit() -> str:
    """The commit of the source tree this package runs from, or 'unknown'."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 else "unknown"


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- families


class SweepFamily:
    """A paper family whose targets are policy x parameter sweeps over workload variants.

    Subclasses set ``name`` and implement :meth:`variants` (and may override the
    per-target hooks). The config section has ``enabled``, ``procs``, ``jobs``,
    ``workload`` (model and params), ``policy_params``, ``targets`` and ``claims``.
    """

    name = ""
    variant_column = "variant"
    workload_ext = "swf"
    example_targets: tuple[str, ...] = ()

    def variants(self, section: Mapping[str, Any]) -> list[Variant]:
        raise NotImplementedError

    def example_table(self, target: str) -> Any:
        """The table (DataFrame) of an example target, computed without runs."""
        raise NotImplementedError(f"{self.name}: no example target {target}")

    def target_kind(self, target: str, spec: Mapping[str, Any]) -> str:
        """'example' (computed without runs), 'combined' or 'sweep'."""
        if target in self.example_targets:
            return "example"
        return "combined" if spec.get("combine") else "sweep"

    def targets(self, section: Mapping[str, Any]) -> list[str]:
        return [t for t, spec in section.get("targets", {}).items() if spec.get("enabled", True)]

    def plan_targets(self, config: Mapping[str, Any], section: Mapping[str, Any],
                     base: Path) -> list[str]:
        """The targets to plan (a family may drop some, e.g. for a missing trace)."""
        return self.targets(section)

    def plan_target(self, config: Mapping[str, Any], section: Mapping[str, Any], target: str,
                    seeds: Sequence[int], base: Path) -> tuple[dict[str, dict[str, Any]],
                                                               list[str]]:
        """Point specs (run path -> spec) of ``target`` and the aggregate step's inputs."""
        specs = {point.run_path: point_spec(point, section, seeds, self.variant_column,
                                            self.workload_ext)
                 for point in self.points(section, target)}
        return specs, list(specs)

    def derived_table(self, spec: Mapping[str, Any], inputs: Sequence[str]) -> Any:
        """The table of a target computed from other targets' tables (``spec['sources']``)."""
        raise NotImplementedError(f"{self.name}: no derived target {spec['target']}")

    def points(self, section: Mapping[str, Any], target: str) -> list[Point]:
        spec = section["targets"][target]
        if self.target_kind(target, spec) == "example":
            return []
        self.check_sweep(target, spec)
        sweep = dict(spec["sweep"])
        inner = {k: list(sweep[k]) for k in spec.get("inner", [])}
        outer = {k: list(v) for k, v in sweep.items() if k not in inner}
        fixed = section.get("policy_params", {})
        out = []
        for policy in spec["policies"]:
            for variant in self.variants(section):
                for combo in itertools.product(*outer.values()):
                    params = dict(zip(outer, combo, strict=True))
                    out.append(Point(self.name, target, policy, point_name(variant.name, params),
                                     variant, params, inner, dict(fixed.get(policy, {}))))
        return out

    def check_sweep(self, target: str, spec: Mapping[str, Any]) -> None:
        """Raise ValueError for a sweep target that cannot run."""
        if not spec.get("policies") or not spec.get("sweep"):
            raise ValueError(f"{self.name}: target {target} is enabled but has no policies "
                             "or no sweep; set them or set enabled: false")
        unknown = [k for k in [*spec.get("inner", []), *spec.get("combine", [])]
                   if k not in spec["sweep"]]
        if unknown:
            raise ValueError(f"{self.name}: target {target}: inner/combine name parameters "
                             f"that are not swept: {', '.join(unknown)}")

    def target_spec(self, section: Mapping[str, Any], target: str) -> dict[str, Any]:
        """What aggregate and figure need to know about ``target``."""
        spec = section["targets"][target]
        sweep = list(spec.get("sweep", {}))
        combine = list(spec.get("combine", []))
        variants = self.variants(section)
        return {
            "family": self.name, "target": target, "kind": self.target_kind(target, spec),
            "policies": list(spec.get("policies", [])),
            "variants": [v.name for v in variants],
            "variant_labels": {v.name: dict(v.labels) for v in variants},
            "variant_column": self.variant_column,
            "group_by": ["policy", self.variant_column, *[p for p in sweep if p not in combine]],
            "combine": combine, "sweep": {k: list(v) for k, v in spec.get("sweep", {}).items()},
            "x": spec.get("x") or next((p for p in sweep if len(spec["sweep"][p]) > 1), None),
            "metrics": list(METRICS), "procs": section.get("procs"),
        }

    def workload_spec(self, section: Mapping[str, Any], variant: Variant) -> dict[str, Any]:
        workload = section["workload"]
        params = {**workload.get("params", {}), **variant.params}
        return {"model": workload["model"], "jobs": int(section["jobs"]),
                "params": dict(sorted(params.items()))}


def family(name: str) -> SweepFamily:
    """The family object registered under ``name``."""
    if name not in FAMILY_MODULES:
        raise KeyError(f"unknown experiment family {name!r}; known: {', '.join(FAMILY_MODULES)}")
    return importlib.import_module(FAMILY_MODULES[name]).FAMILY


def enabled_families(config: Mapping[str, Any]) -> list[str]:
    """Families with a config section whose ``enabled`` is true (and code that exists)."""
    return [name for name in FAMILY_MODULES
            if isinstance(config.get(name), Mapping) and config[name].get("enabled", False)]


# ----------------------------------------------------------------------------- plan


def build_plan(config: Mapping[str, Any], base: str | Path | None = None) -> Plan:
    """Files and jobs of every enabled family.

    ``base`` is the directory relative trace paths (``traces:``) are read from:
    the repository root in the workflow, the current directory by default.
    """
    plan = Plan()
    root = Path(base) if base is not None else Path.cwd()
    for name in enabled_families(config):
        fam, section = family(name), config[name]
        seeds = seeds_of(config, section)
        _plan_workloads(plan, fam, section, seeds)
        for target in fam.plan_targets(config, section, root):
            if target in plan.targets:
                raise ValueError(f"target {target} appears in two families")
            plan.targets[target] = fam.target_spec(section, target)
            points, inputs = fam.plan_target(config, section, target, seeds, root)
            points, inputs = _route_tuned(points, inputs)
            plan.points.update(points)
            plan.runs_of[target] = inputs
        plan.claim_settings[name] = dict(section.get("claims", {}))
    return plan


def tuned_path(run_path: str) -> str:
    """Where a run whose parameters are read from another target's table goes."""
    path = PurePosixPath(run_path)
    return str(path.parent / TUNED_DIR / path.name)


def _route_tuned(points: dict[str, dict[str, Any]],
                 inputs: list[str]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Move runs with ``derived`` parameters to ``.../<policy>/tuned/<point>.parquet``.

    A separate rule (``simulate_tuned``) makes them, so that a cluster profile can
    group them apart from the runs their tables come from: a Snakemake group
    must never depend on itself through a job outside it.
    """
    moved = {path: tuned_path(path) for path, spec in points.items() if spec.get("derived")}
    if not moved:
        return points, inputs
    return ({moved.get(p, p): spec for p, spec in points.items()},
            [moved.get(p, p) for p in inputs])


def _plan_workloads(plan: Plan, fam: SweepFamily, section: Mapping[str, Any],
                    seeds: Sequence[int]) -> None:
    for variant in fam.variants(section):
        spec = fam.workload_spec(section, variant)
        for seed in seeds:
            path = workload_path(fam.name, variant.name, seed, fam.workload_ext)
            plan.workloads[path] = {**spec, "seed": seed}


def point_spec(point: Point, section: Mapping[str, Any], seeds: Sequence[int],
               variant_column: str = "variant", ext: str = "swf") -> dict[str, Any]:
    """Everything ``run-point`` needs, as plain JSON-able data."""
    return {
        "family": point.family, "target": point.target, "policy": point.policy,
        "point": point.point, "variant": point.variant.name,
        "variant_column": variant_column,
        "labels": dict(point.variant.labels), "procs": int(section["procs"]),
        "model": section["workload"]["model"], "fixed": dict(point.fixed),
        "params": dict(point.params), "inner": {k: list(v) for k, v in point.inner.items()},
        "seeds": list(seeds),
        "workloads": {str(s): workload_path(point.family, point.variant.name, s, ext)
                      for s in seeds},
    }


def find_point(config: Mapping[str, Any], target: str, policy: str, point: str) -> dict[str, Any]:
    """The spec of one point from a config (for running a point by hand)."""
    plan = build_plan(config)
    path = f"{RESULTS}/runs/{target}/{policy}/{point}.parquet"
    if path not in plan.points:
        path = tuned_path(path)
    if path not in plan.points:
        known = sorted(p for p in plan.points if f"/{target}/{policy}/" in p)
        raise KeyError(f"no point {point!r} of {target}/{policy}; known: "
                       + ", ".join(Path(k).stem for k in known))
    return plan.points[path]


# ----------------------------------------------------------------------------- running


@dataclass
class LoadedWorkload:
    """One seed's input of a point: jobs, elastic commands, machine, and what to record."""

    jobs: list[Any]
    changes: list[Any]
    machine: Any
    info: dict[str, float] = field(default_factory=dict)


def read_jobs(model: str, path: str) -> list[Any]:
    """Jobs of a workload file written by ``model`` (moldable readers where needed)."""
    if model == "cirne01":
        from schedsim.workloads.cirne import read_moldable_swf

        return read_moldable_swf(path)
    from schedsim.workloads.load import load_workload

    return load_workload(path).jobs


def read_workload(spec: Mapping[str, Any], path: str) -> LoadedWorkload:
    """The generated workload file of a point: CWF files keep commands and their unit.

    With ``spec['workload_info']`` the row also records the file's offered load and
    the ``barr`` its header names (``lublin-los`` load calibration), else NaN.
    """
    from schedsim.machine import Machine

    procs = int(spec["procs"])
    if not path.endswith(".cwf"):
        return LoadedWorkload(read_jobs(spec["model"], path), [], Machine(procs))
    from schedsim.workloads.cwf import read_cwf
    from schedsim.workloads.scaling import offered_load

    jobs, changes, header = read_cwf(path)
    loaded = LoadedWorkload(jobs, changes, Machine(procs, unit=header.allocation_unit() or 1))
    if spec.get("workload_info"):
        barr = header.header_value("Barr")
        loaded.info = {"offered_load": offered_load(jobs, procs),
                       "barr": float(barr) if barr else math.nan}
    return loaded


def trace_workloads(spec: Mapping[str, Any]) -> dict[int, LoadedWorkload]:
    """A real log cut into segments (the point's "seeds"), each scaled to the point's load.

    ``spec['trace']``: path, estimates (requested or exact), segments, max_jobs, load.
    """
    from schedsim.workloads.load import load_workload
    from schedsim.workloads.scaling import offered_load, scale_to_load, segments

    trace = spec["trace"]
    procs = int(spec["procs"])
    log = load_workload(trace["path"], procs=procs, estimates=trace["estimates"])
    parts = segments(log.jobs, int(trace["segments"]), trace.get("max_jobs"))
    out = {}
    for seed in spec["seeds"]:
        part = parts[int(seed) - 1]
        out[int(seed)] = LoadedWorkload(scale_to_load(part, procs, float(trace["load"])), [],
                                        log.machine,
                                        {"offered_load": float(trace["load"]),
                                         "natural_load": offered_load(part, procs)})
    return out


def point_workloads(spec: Mapping[str, Any]) -> dict[int, LoadedWorkload]:
    """Seed -> the workload of that seed, for every seed of the point."""
    if spec.get("trace"):
        return trace_workloads(spec)
    return {int(seed): read_workload(spec, spec["workloads"][str(seed)])
            for seed in spec["seeds"]}


def resolve_derived(derived: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Parameters taken from another target's aggregated table (e.g. the best C_s).

    Each entry: ``table`` (CSV), ``where`` (column -> value the rows must have),
    ``argmin`` (column minimised), ``column`` (the value taken). Ties go to the
    smallest value of ``column``.
    """
    import csv

    out: dict[str, Any] = {}
    for name, rule in derived.items():
        with open(rule["table"], encoding="utf-8", newline="") as handle:
            rows = [r for r in csv.DictReader(handle)
                    if all(_same(r.get(k), v) for k, v in rule["where"].items())
                    and r.get(rule["column"]) not in (None, "")]
        if not rows:
            raise ValueError(f"{rule['table']}: no row with {rule['where']} to choose "
                             f"{name} from")
        best = min(rows, key=lambda r: (float(r[rule["argmin"]]), float(r[rule["column"]])))
        value = float(best[rule["column"]])
        out[name] = int(value) if value.is_integer() else value
    return out


def _same(text: str | None, value: Any) -> bool:
    if text is None:
        return False
    if isinstance(value, bool) or not isinstance(value, int | float):
        return text == str(value)
    try:
        return abs(float(text) - float(value)) < 1e-9
    except ValueError:
        return False


def simulate_once(jobs: Sequence[Any], procs: int, policy: str, params: Mapping[str, Any],
                  changes: Sequence[Any] = (), machine: Any = None) -> dict[str, float]:
    """One simulation -> the summary metrics under the names used in tables.

    ``slowdown`` is the LOS paper's (mean wait + mean run) / mean run of the run.
    """
    from schedsim.engine import simulate
    from schedsim.machine import Machine
    from schedsim.metrics import summarize
    from schedsim.policies.registry import make_policy

    machine = machine if machine is not None else Machine(procs)
    summary = summarize(simulate(jobs, machine, make_policy(policy, params, machine), changes))
    return {"jobs": summary.jobs, "ATT": summary.mean_response, "AWT": summary.mean_wait,
            "ART": summary.mean_runtime, "BSLD": summary.mean_bounded_slowdown,
            "max_wait": summary.max_wait, "utilization": summary.utilization,
            "makespan": summary.makespan, "slowdown": summary.slowdown_of_means}


def run_point(spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """All seeds (and inner parameter values) of one point: one row per simulation.

    ``spec['derived']`` parameters are read from their tables first;
    ``spec['columns']`` names columns every row has (NaN when not set).
    """
    inner = spec["inner"]
    derived = resolve_derived(spec.get("derived", {}))
    always = {name: math.nan for name in spec.get("columns", [])}
    rows = []
    for seed, workload in point_workloads(spec).items():
        for combo in itertools.product(*inner.values()):
            swept = {**spec["params"], **derived, **dict(zip(inner, combo, strict=True))}
            metrics = simulate_once(workload.jobs, spec["procs"], spec["policy"],
                                    {**spec["fixed"], **swept}, workload.changes,
                                    workload.machine)
            rows.append({"target": spec["target"], "policy": spec["policy"],
                         "point": spec["point"], spec["variant_column"]: spec["variant"],
                         **spec["labels"], **always, **swept, "seed": int(seed),
                         **workload.info, **metrics})
    return rows


def provenance(spec: Mapping[str, Any], code: str) -> dict[str, str]:
    """Metadata stored with every run file."""
    return {"schedsim.spec": canonical_json(spec), "schedsim.version": __version__,
            "schedsim.code_version": code, "schedsim.git_commit": git_commit(),
            "schedsim.seeds": canonical_json(list(spec.get("seeds", [])))}


def write_rows_parquet(rows: list[dict[str, Any]], path: str | Path,
                       metadata: Mapping[str, str]) -> None:
    """Rows -> parquet (pyarrow, no pandas) with ``metadata``; temp file + rename."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    table = table.replace_schema_metadata({k.encode(): v.encode() for k, v in metadata.items()})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    write_bytes_atomic(path, sink.getvalue().to_pybytes())
