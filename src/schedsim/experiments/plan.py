"""Config -> the plan: workloads to generate, points to simulate, targets to build.

The workflow builds the plan while it builds its DAG, so every mistake a plan can
see (an unknown policy, parameter or value, a target naming a missing source)
ends ``snakemake -n`` with one line, as the run itself would. This module imports
nothing heavy at load time.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.experiments.family import (
    FIGURES,
    enabled_families,
    get_family,
    load_part,
    table_function,
)
from schedsim.experiments.kinds import (
    KINDS,
    Context,
    check_policies,
    chosen_path,
)
from schedsim.experiments.reuse import Reuse, simulation_sources
from schedsim.experiments.spec import (
    RESULTS,
    SWEEP,
    PointSpec,
    TargetSpec,
    WorkloadBatch,
    to_json,
)
from schedsim.plots import figure_names
from schedsim.traces import DOWNLOAD_DIR, TraceLog, TraceSettings, find, reachable

READING_MARK = "@"  # results/tables/<target>@<reading>.csv


@dataclass(frozen=True)
class Reading:
    """A sensitivity reading: an open point read another way, and the targets rerun.

    ``targets`` maps each default target to its counterpart under the reading;
    ``claims`` overrides the family's claim settings under the reading (e.g. another
    tau for a relative response time, read from columns every run already has).
    """

    about: str
    targets: Mapping[str, str]
    claims: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Plan:
    """Everything the workflow needs: files to make and how to make them."""

    config: Mapping[str, Any] = field(default_factory=dict)
    workloads: dict[str, dict[str, Any]] = field(default_factory=dict)
    points: dict[str, PointSpec] = field(default_factory=dict)
    targets: dict[str, TargetSpec] = field(default_factory=dict)
    inputs_of: dict[str, list[str]] = field(default_factory=dict)
    claim_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)
    not_run: dict[str, str] = field(default_factory=dict)
    missing_logs: dict[str, list[str]] = field(default_factory=dict)  # target -> logs tried
    fetches: dict[str, TraceLog] = field(default_factory=dict)
    unreachable: dict[str, str | None] = field(default_factory=dict)
    readings: dict[str, dict[str, Reading]] = field(default_factory=dict)
    shared: dict[str, str] = field(default_factory=dict)  # point content -> its run file
    reuse: dict[str, Reuse] = field(default_factory=dict)  # run file -> rows it reuses
    plugins: dict[str, str] = field(default_factory=dict)  # policy of one's own -> reference

    @property
    def families(self) -> list[str]:
        return list(self.claim_settings)

    @property
    def choosing(self) -> dict[str, str]:
        """Target -> its chosen-parameter file, for targets that choose one."""
        return {t: chosen_path(t) for t, spec in self.targets.items() if spec.choose}

    def not_run_line(self, target: str, config_file: str, workdir: str = "") -> str:
        """One short line on why ``target`` is not run and, for a missing log, the command
        that fetches it (``config_file`` names its URL and checksum; ``workdir`` is where
        the run looks for ``resources/traces/``)."""
        logs = self.missing_logs.get(target)
        if not logs:
            return f"not run: {target}: {self.not_run[target]}"
        settings = TraceSettings.of(self.config)
        first = settings.log(logs[0])
        why = self.unreachable.get(first.url) or "not reachable"
        why = why.removeprefix(f"{first.url}: ")
        fallback = f" (or its fallback {', '.join(logs[1:])})" if logs[1:] else ""
        out = f"{workdir.rstrip('/')}/{first.download_path}" if workdir else first.download_path
        return (f"not run: {target}: log {logs[0]}{fallback} neither found nor fetchable "
                f"({why}); fetch it: python -m schedsim.traces fetch --config {config_file} "
                f"--log {logs[0]} --out {out}")

    @property
    def batches(self) -> dict[str, WorkloadBatch]:
        """The workload files grouped by variant: batch name -> its batch (one job each)."""
        return workload_batches(self.workloads)


def workload_batches(workloads: Mapping[str, Mapping[str, Any]]) -> dict[str, WorkloadBatch]:
    """``results/workloads/<family>/<variant>/seed<N>.<ext>`` files grouped by
    ``<family>/<variant>``, the seeds in increasing order.

    The files of one variant differ only by their seed; anything else is an error.
    """
    grouped: dict[str, list[tuple[int, WorkloadBatch]]] = {}
    for path, entry in workloads.items():
        seed, batch = _batch_of(path, entry)
        grouped.setdefault(batch.name, []).append((seed, batch))
    out = {}
    for name, members in grouped.items():
        if len({to_json(batch) for _, batch in members}) > 1:
            raise ValueError(f"{RESULTS}/workloads/{name}: its seed files differ in more "
                             f"than the seed (model, jobs, parameters or input)")
        out[name] = replace(members[0][1], seeds=tuple(sorted(s for s, _ in members)))
    return out


def _batch_of(path: str, entry: Mapping[str, Any]) -> tuple[int, WorkloadBatch]:
    """(seed, the one-seed-less batch) of one planned workload file."""
    prefix = f"{RESULTS}/workloads/"
    directory, _, file = path.rpartition("/")
    seed = int(entry["seed"])
    ext = file.rpartition(".")[2]
    if not directory.startswith(prefix) or file != f"seed{seed}.{ext}":
        raise ValueError(f"{path}: not a workload file "
                         f"{prefix}<family>/<variant>/seed{seed}.<ext>")
    return seed, WorkloadBatch(name=directory.removeprefix(prefix), ext=ext,
                               model=str(entry["model"]), jobs=int(entry["jobs"]),
                               params=dict(entry["params"]), input=str(entry.get("input", "")))


def seeds_of(config: Mapping[str, Any], section: Mapping[str, Any],
             family: str = "") -> tuple[int, ...]:
    """The family's seeds (its own ``seeds`` block, else the global one), each in the
    range every workload model takes (``workloads.base.SEED_RANGE``) and given once."""
    from schedsim.workloads.base import SEED_RANGE, check_seed

    own = section.get("seeds")
    block, where = (own, f"{family}.seeds") if own else (config.get("seeds") or {}, "seeds")
    values = block.get("values") or []
    if values:
        for index, value in enumerate(values):
            check_seed(value, f"{where}.values[{index}]")
            if value in values[:index]:
                raise InputError(f"{where}.values: seed {value} is given twice; give each "
                                 "seed once (a repeated seed is not a replication)")
        return tuple(values)
    start, count = block.get("start", 1), block.get("count", 20)
    check_seed(start, f"{where}.start")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InputError(f"{where}.count: {count!r} is not a positive integer")
    if start + count - 1 > SEED_RANGE[1]:
        raise InputError(f"{where}.count: the last seed, start + count - 1 = "
                         f"{start + count - 1}, is above the largest seed {SEED_RANGE[1]}")
    return tuple(range(start, start + count))


def build_plan(config: Mapping[str, Any], base: str | Path | None = None) -> Plan:
    """Files and jobs of every enabled family.

    ``base`` is the directory relative trace directories (``traces.search``) and the
    download directory are read from: the repository root in the workflow, the
    current directory by default.
    """
    from schedsim.policies.registry import load_plugins

    plan = Plan(config=config)
    root = Path(base) if base is not None else Path.cwd()
    seeds_of(config, {})  # the global seeds, checked even when every family has its own
    plan.plugins = load_plugins(config.get("plugins") or (), root)
    for name in enabled_families(config):
        section = config[name]
        family = get_family(name, section.get("module"))
        load_part(family, FIGURES)  # the figures its targets may name
        plan.modules[name] = type(family).__module__
        ctx = Context(config, family, section, seeds_of(config, section, name), root,
                      plan.targets, frozenset(figure_names()))
        _check_section(ctx)
        for target, raw in _targets(section):
            if target in plan.targets:
                raise ValueError(f"target {target} appears in two families")
            resolved = _resolve(ctx, target, raw, plan)
            if resolved is None:
                continue
            _plan_target(plan, ctx, target, resolved)
        plan.claim_settings[name] = dict(section.get("claims") or {})
        for reading, given in (section.get("sensitivity") or {}).items():
            if given.get("enabled", True):
                _plan_reading(plan, ctx, reading, given)
    if not plan.targets and not plan.not_run:
        enabled = ", ".join(enabled_families(config)) or "none"
        raise InputError(f"no target is enabled (families enabled: {enabled}): enable a "
                         "family (e.g. hrf: {enabled: true}) with at least one target")
    plan.reuse = simulation_sources(plan.points)
    return plan


def _check_section(ctx: Context) -> None:
    """The keys every enabled family section needs are there, and the policies it names
    outside its targets (``policy_params``, ``policy_labels``, a reading's
    ``policy_params``) are policies the family runs."""
    name = ctx.family.name
    missing = [key for key in ("machine", "jobs", "workload") if key not in ctx.section]
    if "model" not in (ctx.section.get("workload") or {}):
        missing.append("workload.model")
    if ctx.family.generated_workloads:
        if missing:
            raise InputError(f"{name}: missing key {missing[0]} (an enabled family needs "
                             "machine, jobs and workload.model)")
        # its errors named at the section's key
        ctx.family.machine(ctx.section).check_execution(f"{name}.machine")
    if ctx.family.options is not None:
        from schedsim.experiments.configcheck import value_problem

        problem = value_problem(ctx.section.get("options") or {}, ctx.family.options,
                                f"{name}.options")
        if problem is not None:
            raise InputError(problem.text)
    sections = [(f"{name}.policy_params", ctx.section.get("policy_params")),
                (f"{name}.policy_labels", ctx.section.get("policy_labels"))]
    sections += [(f"{name}.sensitivity.{reading}.policy_params", given.get("policy_params"))
                 for reading, given in (ctx.section.get("sensitivity") or {}).items()
                 if isinstance(given, Mapping)]
    for where, block in sections:
        check_policies(ctx, where, block or {})


def _plan_reading(plan: Plan, ctx: Context, reading: str, given: Mapping[str, Any]) -> None:
    """Plan the targets of one sensitivity reading (``sensitivity.<reading>`` of a family).

    A reading overrides policy parameters, workload parameters, keys of the machine
    description (the family's, and a target's own) or a target's ``args``; it reruns
    the targets it names, and the derived targets whose
    sources it all reruns. A point the reading leaves unchanged is not run again:
    the reading's table reads the default run file. Chosen parameters stay the
    ones chosen under the default reading. A named target that is disabled or not
    run is skipped; an unknown one is an error.
    """
    declared = ctx.section.get("targets") or {}
    unknown = [t for t in given.get("targets") or () if t not in declared]
    if unknown:
        raise ValueError(f"{ctx.family.name}.sensitivity.{reading}: unknown target(s) "
                         f"{', '.join(unknown)}; known: {', '.join(declared)}")
    rctx = _reading_context(ctx, reading, given)
    renamed: dict[str, str] = {}
    for target, raw in _reading_targets(plan, ctx.section, given):
        resolved = _resolve(rctx, target, raw, plan)
        if resolved is None:
            continue
        raw = dict(resolved)
        if raw.get("machine") and given.get("machine"):
            raw["machine"] = {**raw["machine"], **given["machine"]}
        if raw.get("sources"):
            raw["sources"] = [renamed[src] for src in raw["sources"]]
        args = (given.get("args") or {}).get(target)
        if args:
            raw["args"] = {**(raw.get("args") or {}), **args}
        name = renamed[target] = f"{target}{READING_MARK}{reading}"
        _plan_target(plan, rctx, name, raw, reuse_from=target)
        plan.targets[name] = replace(plan.targets[name], reading=reading, base=target)
    plan.readings.setdefault(ctx.family.name, {})[reading] = Reading(
        str(given.get("about", "")), renamed, dict(given.get("claims") or {}))


def _reading_context(ctx: Context, reading: str, given: Mapping[str, Any]) -> Context:
    """The family's context with the reading's policy and workload parameters and
    machine keys; changed workloads go to results/workloads/<family>@<reading>/."""
    section = ctx.section
    if given.get("machine"):
        section = {**section, "machine": {**section["machine"], **given["machine"]}}
    workload = dict(section["workload"])
    workload_params = dict(given.get("workload_params") or {})
    if workload_params:
        workload["params"] = {**(workload.get("params") or {}), **workload_params}
    policy_params = {p: dict(v) for p, v in (section.get("policy_params") or {}).items()}
    for policy, values in (given.get("policy_params") or {}).items():
        policy_params[policy] = {**policy_params.get(policy, {}), **values}
    return replace(ctx, section={**section, "workload": workload, "policy_params": policy_params},
                   workload_dir=f"{ctx.family.name}{READING_MARK}{reading}"
                   if workload_params else "")


def _reading_targets(plan: Plan, section: Mapping[str, Any],
                     given: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The planned targets a reading names, then the derived ones built only from them."""
    raws = dict(_targets(section))
    named = [t for t in given.get("targets") or () if t in plan.targets]
    derived = [t for t, raw in raws.items() if raw.get("kind", SWEEP) != SWEEP
               and raw.get("sources") and all(src in named for src in raw["sources"])
               and t in plan.targets]
    return [(t, raws[t]) for t in [*named, *derived]]


def _targets(section: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The enabled targets, in config order except that each comes after the targets it
    reads (``chosen``, ``sources``)."""
    enabled = [(t, raw or {}) for t, raw in (section.get("targets") or {}).items()
               if (raw or {}).get("enabled", True)]
    names = {t for t, _ in enabled}
    placed: list[tuple[str, Mapping[str, Any]]] = []
    pending = list(enabled)
    while pending:
        done = {t for t, _ in placed}
        ready = next((i for i, (_, raw) in enumerate(pending)
                      if _reads(raw) & names <= done), 0)  # a cycle: as given
        placed.append(pending.pop(ready))
    return placed


def _reads(raw: Mapping[str, Any]) -> set[str]:
    """The targets a target reads: where its chosen parameters come from, its sources."""
    panels = [p for p in raw.get("panels") or () if isinstance(p, Mapping)]
    chosen = [raw.get("chosen") or {}, *(p.get("chosen") or {} for p in panels)]
    return {str(source) for block in chosen if isinstance(block, Mapping)
            for source in block.values()} | {str(s) for s in raw.get("sources") or ()}


def _resolve(ctx: Context, target: str, raw: Mapping[str, Any],
             plan: Plan) -> Mapping[str, Any] | None:
    """The target's config with its real log resolved, or None when it cannot run.

    A target reading a log runs on the first of ``trace.name`` and its
    ``trace.fallback`` logs that is found (search directories, then the download
    directory) or, if none is, that can be fetched; otherwise it is not run, and
    ``plan.not_run`` says why and how to get the log. A derived target whose
    source is not run is not run either.
    """
    if raw.get("kind", SWEEP) != SWEEP:
        missing = [s for s in raw.get("sources") or () if s not in plan.targets]
        declared = ctx.section.get("targets") or {}
        elsewhere = {t for name in enabled_families(plan.config)
                     for t in plan.config[name].get("targets") or {}}
        for source in missing:
            if source not in declared and source not in elsewhere:
                raise InputError(f"{ctx.family.name}.targets.{target}: source {source!r} is "
                                 f"not a target of the {ctx.family.name} family (its "
                                 f"targets: {', '.join(declared)}) nor of another enabled "
                                 "family")
            plan.not_run[target] = f"its source {source} was not run"
        return None if missing else raw
    trace = raw.get("trace")
    if not trace:
        return raw
    chosen, reasons = _choose_log(ctx, trace, plan)
    if chosen is None:
        plan.not_run[target] = "; ".join(reasons)
        plan.missing_logs[target] = [trace["name"], *(trace.get("fallback") or [])]
        return None
    log, path = chosen
    note = log.name if log.name == trace["name"] else \
        f"{log.name} (fallback: {trace['name']} could be neither found nor fetched)"
    return {**raw, "trace": {**trace, "name": log.name, "path": str(path), "procs": log.procs,
                             "note": note}}


def _choose_log(ctx: Context, trace: Mapping[str, Any],
                plan: Plan) -> tuple[tuple[TraceLog, Path | str] | None, list[str]]:
    settings = TraceSettings.of(ctx.config)
    names = [trace["name"], *(trace.get("fallback") or [])]
    reasons = []
    for name in names:
        log = settings.log(name)
        found = find(log, settings, ctx.base)
        if found is not None:
            return (log, found), reasons
        why = plan.unreachable.setdefault(log.url, reachable(log.url, min(settings.timeout,
                                                                         10.0)))
        if why is None:
            plan.fetches[log.download_path] = log
            return (log, log.download_path), reasons
        where = ", ".join([*settings.search, DOWNLOAD_DIR])
        checksum = f" --sha256 {log.sha256}" if log.sha256 else ""
        reasons.append(f"log {name} ({log.file}) is not in {where} and cannot be fetched "
                       f"({why}); fetch it with `python -m schedsim.traces fetch --url "
                       f"{log.url} --out {log.download_path}{checksum}` or put the file in "
                       f"one of the search directories (traces.search)")
    return None, reasons


def _plan_target(plan: Plan, ctx: Context, target: str, raw: Mapping[str, Any],
                 reuse_from: str | None = None) -> None:
    """Plan one target; with ``reuse_from``, points equal to that target's are reused.
    Every error names the target."""
    try:
        _plan_target_unnamed(plan, ctx, target, raw, reuse_from)
    except (InputError, ValueError) as err:
        if target in str(err):
            raise
        raise type(err)(f"{ctx.family.name}.targets.{target}: {err}") from None


def _plan_target_unnamed(plan: Plan, ctx: Context, target: str, raw: Mapping[str, Any],
                         reuse_from: str | None) -> None:
    kind = KINDS[raw.get("kind", SWEEP)]
    spec = kind.target(ctx, target, raw)
    if spec.kind != SWEEP:
        table_function(spec)  # registered (ValueError: not)
    points = [_shared(plan, _reused(plan, point, reuse_from))
              for point in kind.points(ctx, spec, raw)]
    for point in points:
        check_point(point)
        plan.points[point.run_path] = point
    for path, workload in kind.workloads(ctx, spec, raw).items():
        if path not in plan.workloads:
            check_workload(workload)
            plan.workloads[path] = workload
    plan.targets[target] = spec
    plan.inputs_of[target] = kind.inputs(spec, points)


def _reused(plan: Plan, point: PointSpec, default_target: str | None) -> PointSpec:
    """The default target's point when ``point`` differs from it by the target only."""
    if default_target is None:
        return point
    same = replace(point, target=default_target)
    return same if plan.points.get(same.run_path) == same else point


def _shared(plan: Plan, point: PointSpec) -> PointSpec:
    """An earlier target's point when ``point`` differs from it by the target only: the
    simulation runs once, and both targets read its run file (e.g. GOAL-F3 and GOAL-F4
    share the goal-oriented runs)."""
    key = to_json(replace(point, target=""))
    first = plan.shared.setdefault(key, point.run_path)
    return plan.points.get(first, point)


def check_workload(entry: Mapping[str, Any]) -> None:
    """The workload model, its job count, seed and parameters, as ``generate`` will
    check them."""
    from schedsim.workloads.base import get_model

    model = get_model(str(entry["model"]))
    given = {key: str(value) for key, value in entry["params"].items()}  # as --param gives
    model.check(entry["jobs"], entry["seed"], given)


def check_point(point: PointSpec) -> None:
    """Raise InputError for an unknown policy, parameter or out-of-range value, or a
    machine the policy does not take (the workload's jobs are judged when it runs).

    Every value of the inner parameters is checked; a chosen parameter is checked
    when the run reads its file.
    """
    from schedsim.errors import InputError
    from schedsim.policies.registry import MACHINE_FEATURES, get_policy, machine_features

    entry = get_policy(point.policy)
    machine = point.machine
    try:
        entry.check_run(machine_features(machine.partitions, machine.speeds,
                                         machine.load is not None), scope=MACHINE_FEATURES)
    except InputError as err:
        raise InputError(f"{point.target}: {err}") from None
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
