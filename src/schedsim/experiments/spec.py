"""Typed specifications passed between the workflow's stages.

A :class:`PointSpec` is everything one simulation job needs; a :class:`TargetSpec`
everything aggregation, the figure and the claims need about one target; a
:class:`WorkloadBatch` everything one workload job needs. All are
frozen dataclasses built by the planner (:mod:`schedsim.experiments.plan`) and
passed to the rules as canonical JSON (:func:`to_json`, :func:`point_from_json`,
:func:`target_from_json`, :func:`batch_from_json`), so that a stage never reads an
untyped dict whose keys depend on the target kind.

This module imports nothing heavy: the workflow imports it while building the DAG.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from schedsim.machinespec import LoadModelSpec as LoadModelSpec
from schedsim.machinespec import MachineSpec

RESULTS = "results"

# The kinds of target (experiments.kinds): a sweep of simulations, a table derived
# from other targets' tables, a worked example computed without a workload.
SWEEP, DERIVED, EXAMPLE = "sweep", "derived", "example"
KINDS = (SWEEP, DERIVED, EXAMPLE)


def canonical_json(data: Any) -> str:
    """Stable JSON text (sorted keys, no spaces): specs, parameters and metadata."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def fmt_value(value: Any) -> str:
    """A parameter value as it appears in a file name: 0.5 -> '0.5', 1.0 -> '1'."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{round(value, 10):g}"
    return str(value)


# ----------------------------------------------------------------------------- machine
# The machine description (MachineSpec, LoadModelSpec, parse_machine) is the simulator's
# (schedsim.machinespec); the specs name it here too.


# ----------------------------------------------------------------------------- points


@dataclass(frozen=True)
class TraceSpec:
    """A real log cut into ``segments`` consecutive parts (the replications), each
    scaled to the offered ``load`` (Shmueli & Feitelson's arrival-time scaling). A log
    read month by month is not a trace point: its months are workload files
    (:func:`schedsim.experiments.kinds.month_path`)."""

    name: str
    path: str
    load: float
    segments: int = 10
    max_jobs: int | None = None
    estimates: str = "requested"


@dataclass(frozen=True)
class PointSpec:
    """One simulation job: a target, a policy, its parameters; every seed runs inside.

    Rows of the run file carry, in this order: target, policy, point, the variant
    (column ``variant_column``), its ``labels``, the parameter ``columns`` (NaN
    where the policy does not take them), the parameters, the seed, workload
    information (``workload_info``) and the metrics.
    """

    family: str
    target: str
    policy: str
    point: str
    variant: str
    variant_column: str
    labels: Mapping[str, Any]
    machine: MachineSpec
    model: str
    seeds: tuple[int, ...]
    workloads: Mapping[str, str] = field(default_factory=dict)
    trace: TraceSpec | None = None
    fixed: Mapping[str, Any] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)
    chosen: Mapping[str, str] = field(default_factory=dict)
    inner: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    columns: tuple[str, ...] = ()
    workload_info: bool = False
    batches: tuple[int, ...] = ()  # (count, size, discard): batch means, one seed
    measure: str = "schedsim.experiments.measure"  # the family's measuring module

    @property
    def run_path(self) -> str:
        return f"{RESULTS}/runs/{self.target}/{self.policy}/{self.point}.parquet"

    @property
    def inputs(self) -> list[str]:
        """Files the point reads: workload files and the chosen-parameter files."""
        return list(dict.fromkeys([*self.workloads.values(), *self.chosen.values()]))


# ----------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class PanelSpec:
    """A group of workload variants drawn together, with the policies run on them."""

    name: str
    policies: tuple[str, ...]
    values: Mapping[str, Any] = field(default_factory=dict)
    chosen: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ChooseSpec:
    """A parameter this target chooses for others: the value of ``param`` with the
    lowest mean ``metric`` of ``policy`` (ties: the smallest value)."""

    param: str
    policy: str
    metric: str


@dataclass(frozen=True)
class FigureSpec:
    """The figure of a target: a registered figure name and what it draws.

    ``compare``: policy pairs (A, B) whose paired difference A - B the figure draws
    beside the paper's panels (the pairs the claims compare); ``compare_x``: instead,
    each curve minus its own value at this x (the reference point of a trend).
    """

    name: str
    metrics: tuple[str, ...] = ()
    compare: tuple[tuple[str, str], ...] = ()
    compare_x: float | None = None


@dataclass(frozen=True)
class TargetSpec:
    """What aggregation, the figure and the claims know about one target.

    ``module`` is the family's module, which registers its functions and figures.
    """

    family: str
    target: str
    kind: str
    figure: FigureSpec
    policies: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    variant_labels: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    variant_column: str = "variant"
    panels: tuple[PanelSpec, ...] = ()
    group_by: tuple[str, ...] = ()
    combine: tuple[str, ...] = ()
    sweep: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    x: str | None = None
    metrics: tuple[str, ...] = ()
    choose: ChooseSpec | None = None
    trace: str | None = None
    sources: tuple[str, ...] = ()
    function: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    policy_labels: Mapping[str, str] = field(default_factory=dict)
    seed_unit: str = "seeds"
    seed_labels: Mapping[str, str] = field(default_factory=dict)  # e.g. seed 1 is "2003-06"
    level: float = 0.95  # confidence level of the intervals (0.90 for batch means, IHAP)
    # metric -> largest relative half-width of its interval (IHAP: MRT 0.05)
    precision: Mapping[str, float] = field(default_factory=dict)
    module: str = ""
    reading: str = ""  # a sensitivity reading: this target is ``base`` run under it
    base: str = ""

    def show(self, policy: str) -> str:
        """The display name of a policy (``policy_labels``, else its own name)."""
        return str(self.policy_labels.get(policy, policy))


# ----------------------------------------------------------------------------- workloads


@dataclass(frozen=True)
class WorkloadBatch:
    """Every seed file of one workload variant, made by one job.

    ``name`` is ``<family>/<variant>``: the files are
    ``results/workloads/<name>/seed<N>.<ext>``, one per seed, each what
    ``schedsim generate <model> --jobs <jobs> --seed <N> --param KEY=VALUE ...`` writes.
    ``input`` is the log a month file is cut from ("" for a generated workload).
    """

    name: str
    ext: str
    model: str
    jobs: int
    params: Mapping[str, Any] = field(default_factory=dict)
    seeds: tuple[int, ...] = ()
    input: str = ""

    def path(self, seed: int) -> str:
        return f"{RESULTS}/workloads/{self.name}/seed{seed}.{self.ext}"

    @property
    def paths(self) -> list[str]:
        """The seed files, in the order of ``seeds``."""
        return [self.path(seed) for seed in self.seeds]


# ----------------------------------------------------------------------------- JSON


def to_json(spec: PointSpec | TargetSpec | WorkloadBatch) -> str:
    data = asdict(spec)
    machine = data.get("machine")
    if isinstance(machine, dict) and not machine.get("execution"):
        del machine["execution"]  # not stated: the spec of a machine without the key
    return canonical_json(data)


def point_from_json(text: str | Mapping[str, Any]) -> PointSpec:
    data = json.loads(text) if isinstance(text, str) else dict(text)
    data["machine"] = MachineSpec.of(data["machine"])
    data["seeds"] = tuple(int(s) for s in data["seeds"])
    data["inner"] = {k: tuple(v) for k, v in data.get("inner", {}).items()}
    data["columns"] = tuple(data.get("columns", ()))
    data["batches"] = tuple(int(b) for b in data.get("batches", ()))
    if data.get("trace"):
        data["trace"] = TraceSpec(**data["trace"])
    return PointSpec(**_known(PointSpec, data))


def target_from_json(text: str | Mapping[str, Any]) -> TargetSpec:
    data = json.loads(text) if isinstance(text, str) else dict(text)
    given = data["figure"]
    data["figure"] = FigureSpec(given["name"], tuple(given["metrics"]),
                                tuple((str(a), str(b)) for a, b in given.get("compare", ())),
                                given.get("compare_x"))
    data["panels"] = tuple(PanelSpec(p["name"], tuple(p["policies"]), p.get("values", {}),
                                     p.get("chosen", {})) for p in data.get("panels", ()))
    data["choose"] = ChooseSpec(**data["choose"]) if data.get("choose") else None
    data["sweep"] = {k: tuple(v) for k, v in data.get("sweep", {}).items()}
    for name in ("policies", "variants", "group_by", "combine", "metrics", "sources"):
        data[name] = tuple(data.get(name, ()))
    return TargetSpec(**_known(TargetSpec, data))


def batch_from_json(text: str | Mapping[str, Any]) -> WorkloadBatch:
    data = json.loads(text) if isinstance(text, str) else dict(text)
    data["seeds"] = tuple(int(s) for s in data.get("seeds", ()))
    return WorkloadBatch(**_known(WorkloadBatch, data))


def _known(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown field(s) {', '.join(unknown)}")
    return dict(data)
