"""The generic target kinds, as the planner sees them: each brings its points, its inputs
and a default figure (its table: the aggregate command; its choice: the choose command,
:mod:`schedsim.experiments.commands`).

* ``sweep``: policies x parameter grid x workload variants. Variants are the
  values of the family's variant axes (``variants:`` of the target, refined per
  panel); ``panels`` group variants with their own policies and chosen
  parameters. Parameters in ``inner`` run inside one simulation job; parameters
  in ``combine`` are averaged per seed before the interval (the HRF paper's
  "combined" metrics, sec. 6.3). A parameter goes only to the policies that take
  it; the others run once with the column empty. With ``trace:`` the workload is
  a real log cut into segments (the replications), scaled to each ``load``.
  ``choose:`` writes the best value of a parameter to ``results/chosen/<target>.json``
  for other targets' ``chosen:`` (a local rule; the dependent points take the file
  as an input).
* ``derived``: a table computed by a registered function from other targets'
  tables (``sources``), e.g. the LOS paper's Tables IV-VII.
* ``example``: a table computed by a registered function without any workload,
  e.g. the HRF paper's Table 1 example.

Config keys of a target are described once in workflow/schemas/config.schema.yaml.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedsim.errors import InputError
from schedsim.experiments.family import Family, Variant
from schedsim.experiments.spec import (
    DERIVED,
    EXAMPLE,
    RESULTS,
    SWEEP,
    ChooseSpec,
    FigureSpec,
    MachineSpec,
    PanelSpec,
    PointSpec,
    TargetSpec,
    TraceSpec,
    fmt_value,
)
from schedsim.machinespec import parse_machine
from schedsim.tables import SEEDS_SUFFIX

SWF_MONTH = "swf-month"  # the workload model of a month cut from a log
TRACE_MODEL = "trace"  # the "model" of a point that reads a real log

def table_path(target: str, seeds: bool = False) -> str:
    return f"{RESULTS}/tables/{target}{SEEDS_SUFFIX if seeds else ''}.csv"


def chosen_path(target: str) -> str:
    return f"{RESULTS}/chosen/{target}.json"


def workload_path(family: str, variant: str, seed: int, ext: str = "swf") -> str:
    return f"{RESULTS}/workloads/{family}/{variant}/seed{seed}.{ext}"


def month_path(ctx: Context, trace: Mapping[str, Any], month: str) -> str:
    """The file of one month of a log: ``results/workloads/<family>/<log>_<YYYY-MM>/seed1.swf``,
    cut once and read by every point that runs that month."""
    return workload_path(ctx.workload_family, f"{trace['name']}_{month}", 1)


def point_name(variant: str, params: Mapping[str, Any]) -> str:
    """``<variant>_<param><value>...`` in the order given, e.g. ``light_alpha0.5_threshold0.9``."""
    return "_".join([variant, *(f"{k}{fmt_value(v)}" for k, v in params.items())])


def policy_params(policy: str) -> set[str]:
    """The parameter names ``policy`` takes (unknown policy: InputError)."""
    from schedsim.policies.registry import get_policy

    return {s.name for s in get_policy(policy).specs()}


@dataclass(frozen=True)
class Context:
    """What planning a target sees: the whole config, the family and its section."""

    config: Mapping[str, Any]
    family: Family
    section: Mapping[str, Any]
    seeds: tuple[int, ...]
    base: Path
    planned: Mapping[str, TargetSpec]
    figures: frozenset[str]  # the figures a target may name: generic or registered
    workload_dir: str = ""  # workloads of a sensitivity reading that changes them

    @property
    def workload_family(self) -> str:
        """The directory under results/workloads/ of this context's workloads."""
        return self.workload_dir or self.family.name

    @property
    def module(self) -> str:
        return type(self.family).__module__

    def figure(self, raw: Mapping[str, Any], default: str) -> FigureSpec:
        """The target's figure: a generic one or one its family registers."""
        given = raw.get("figure") or {}
        name = given.get("name") or default
        if name not in self.figures:
            raise InputError(f"figure {name!r} is not a figure; known: "
                             f"{', '.join(sorted(self.figures))}")
        compare_x = given.get("compare_x")
        return FigureSpec(name, tuple(given.get("metrics") or ()),
                          tuple((str(a), str(b)) for a, b in given.get("compare") or ()),
                          float(compare_x) if compare_x is not None else None)


def check_figure(spec: TargetSpec) -> None:
    """Raise ValueError for ``figure.compare`` / ``compare_x`` that do not fit the target:
    a pair naming a policy the target does not run, or an x that is not a swept value."""
    figure = spec.figure
    if not (figure.compare or figure.compare_x is not None):
        return
    where = f"target {spec.target}: figure"
    if spec.kind != SWEEP:
        raise ValueError(f"{where}.compare and compare_x draw paired differences of a sweep; "
                         f"a {spec.kind} target has none (drop them)")
    if figure.compare and figure.compare_x is not None:
        raise ValueError(f"{where}: give compare (policy pairs) or compare_x (a reference x), "
                         "not both")
    for a, b in figure.compare:
        unknown = [p for p in (a, b) if p not in spec.policies]
        if unknown or a == b:
            raise ValueError(f"{where}.compare [{a}, {b}]: each pair names two different "
                             f"policies the target runs ({', '.join(spec.policies)})")
    if figure.compare_x is not None:
        values = [float(v) for v in spec.sweep.get(str(spec.x), ()) if not isinstance(v, str)]
        if not any(abs(v - figure.compare_x) < 1e-9 for v in values):
            raise ValueError(f"{where}.compare_x={figure.compare_x:g}: must be one of the swept "
                             f"values of x = {spec.x} ({', '.join(f'{v:g}' for v in values)})"
                             if values else f"{where}.compare_x: x = {spec.x} is not a swept "
                             "parameter of the target")


# ----------------------------------------------------------------------------- sweep


class Sweep:
    """``kind: sweep`` (see the module docstring)."""

    name = SWEEP

    def target(self, ctx: Context, target: str, raw: Mapping[str, Any]) -> TargetSpec:
        panels = self.panels(ctx, target, raw)
        sweep = {k: tuple(v) for k, v in (raw.get("sweep") or {}).items()}
        combine = tuple(raw.get("combine") or ())
        self._check(target, raw, sweep, panels)
        policies = tuple(dict.fromkeys(p for panel in panels for p in panel.policies))
        check_policies(ctx, target, policies)
        chosen = [p for panel in panels for p in panel.chosen]
        choose = self._choose(raw, panels)
        check_params(ctx, target, [*sweep, *chosen, *([choose.param] if choose else [])],
                     policies)
        variants = {v.name: v for v in self.target_variants(ctx, target, raw, panels)}
        params = [p for p in dict.fromkeys([*sweep, *chosen]) if p not in combine]
        group_by = ("policy", ctx.family.variant_column,
                    *dict.fromkeys([*ctx.family.param_columns, *params]))
        trace = (raw.get("trace") or {}).get("note")
        months = tuple((raw.get("trace") or {}).get("months") or ())
        figure = ctx.figure(raw, "combined" if combine else "sweep")
        columns = {*group_by, *(k for v in variants.values() for k in v.labels)}
        check_columns(target, {**({"x": [raw["x"]]} if raw.get("x") else {}),
                               "figure.metrics": figure.metrics,
                               "choose.metric": [choose.metric] if choose else []},
                      {"x": sorted(columns), "figure.metrics": ctx.family.metrics,
                       "choose.metric": ctx.family.metrics})
        spec = TargetSpec(
            family=ctx.family.name, module=ctx.module, target=target, kind=SWEEP,
            figure=figure, policies=policies,
            variants=tuple(variants), variant_column=ctx.family.variant_column,
            variant_labels={n: dict(v.labels) for n, v in variants.items()},
            panels=panels, group_by=group_by, combine=combine, sweep=sweep,
            x=raw.get("x") or self._default_x(sweep, raw, panels),
            metrics=ctx.family.metrics, choose=choose, trace=trace,
            policy_labels=dict(ctx.section.get("policy_labels") or {}),
            seed_unit=("months" if months else "trace segments" if trace else
                       "batches" if ctx.section.get("batches") else "seeds"),
            seed_labels={str(i): m for i, m in enumerate(months, start=1)},
            level=float(ctx.section.get("level", 0.95)),
            precision={m: float(v) for m, v in (ctx.section.get("precision") or {}).items()})
        check_figure(spec)
        return spec

    def panels(self, ctx: Context, target: str, raw: Mapping[str, Any]) -> tuple[PanelSpec, ...]:
        given = raw.get("panels") or [{"name": (raw.get("trace") or {}).get("name", ""),
                                       "policies": raw.get("policies") or []}]
        out = []
        for panel in given:
            chosen = {**(raw.get("chosen") or {}), **(panel.get("chosen") or {})}
            for param, source in chosen.items():
                self._check_source(ctx, target, param, source)
            out.append(PanelSpec(str(panel.get("name", "")),
                                 tuple(panel.get("policies") or raw.get("policies") or ()),
                                 dict(panel.get("variants") or {}), dict(chosen)))
        return tuple(out)

    @staticmethod
    def _check_source(ctx: Context, target: str, param: str, source: str) -> None:
        found = ctx.planned.get(source)
        if found is None or found.choose is None or found.choose.param != param:
            raise ValueError(f"{target}: chosen {param} from {source}, which is not a planned "
                             f"target choosing {param} (enable it, give it `choose: {{param: "
                             f"{param}}}`, or drop `chosen`)")

    @staticmethod
    def _check(target: str, raw: Mapping[str, Any], sweep: Mapping[str, Any],
               panels: Sequence[PanelSpec]) -> None:
        if raw.get("machine"):
            parse_machine(raw["machine"], f"{target}.machine")
        if not any(panel.policies for panel in panels):
            raise ValueError(f"target {target} is enabled but has no policies; set them or "
                             "set enabled: false")
        unknown = [k for k in [*(raw.get("inner") or []), *(raw.get("combine") or [])]
                   if k not in sweep]
        if unknown:
            raise ValueError(f"target {target}: inner/combine name parameters that are not "
                             f"swept: {', '.join(unknown)}")

    @staticmethod
    def _default_x(sweep: Mapping[str, Sequence[Any]], raw: Mapping[str, Any],
                   panels: Sequence[PanelSpec]) -> str | None:
        swept = next((p for p, v in sweep.items() if len(v) > 1), None)
        if swept is not None:
            return swept
        axes = {**(raw.get("variants") or {}), **{k: v for p in panels for k, v in
                                                  p.values.items()}}
        return next((a for a, v in axes.items() if isinstance(v, list) and len(v) > 1),
                    "load" if raw.get("trace") and not raw["trace"].get("months") else None)

    @staticmethod
    def _choose(raw: Mapping[str, Any], panels: Sequence[PanelSpec]) -> ChooseSpec | None:
        given = raw.get("choose")
        if not given:
            return None
        param = given["param"]
        ours = [p for panel in panels for p in panel.policies]
        policy = given.get("policy") or next((p for p in ours if param in policy_params(p)),
                                             None)
        if policy is None or policy not in ours or param not in policy_params(policy):
            raise ValueError(f"choose {param}: no policy of the target takes {param}"
                             if policy is None else f"choose {param}: the policy {policy} "
                             f"is not one of the target's that take {param}")
        return ChooseSpec(param, policy, given.get("metric", "AWT"))

    def target_variants(self, ctx: Context, target: str, raw: Mapping[str, Any],
                        panels: Sequence[PanelSpec]) -> list[Variant]:
        """Every variant of the target's panels; the axes they name are the family's."""
        axes = ctx.family.axes
        given = {"variants": raw.get("variants") or {},
                 **{f"panels[{i}].variants": panel.values for i, panel in enumerate(panels)}}
        for where, values in given.items():
            unknown = [axis for axis in values if axes is not None and axis not in axes]
            if unknown:
                raise InputError(f"{target}: unknown variant axis {unknown[0]!r}; the "
                                 f"{ctx.family.name} family's axes: "
                                 f"{', '.join(axes or ()) or '(none)'}")
            if axes:
                check_axis_values(f"{target}.{where}", values, axes)
        try:
            return [v for panel in panels for v in self.panel_variants(ctx, raw, panel)]
        except (KeyError, TypeError, ValueError) as err:
            if isinstance(err, InputError):
                raise
            detail = f"no value for {err}" if isinstance(err, KeyError) else str(err)
            raise InputError(f"{target}: its variants ({raw.get('variants') or {}}, panels "
                             f"{[dict(p.values) for p in panels]}): {detail}") from None

    def panel_variants(self, ctx: Context, raw: Mapping[str, Any],
                       panel: PanelSpec) -> list[Variant]:
        values = {**(raw.get("variants") or {}), **panel.values}
        trace = raw.get("trace")
        if trace and trace.get("months"):
            return [Variant(trace["name"], {}, {"panel": panel.name})]
        if trace:
            return [Variant(f"{trace['name']}_load{fmt_value(float(load))}", {},
                            {"load": float(load), "panel": panel.name})
                    for load in trace["loads"]]
        return ctx.family.variants(ctx.section, values, panel.name)

    def points(self, ctx: Context, spec: TargetSpec, raw: Mapping[str, Any]) -> list[PointSpec]:
        sweep = dict(spec.sweep)
        inner_names = list(raw.get("inner") or [])
        out: dict[str, PointSpec] = {}
        for panel in spec.panels:
            for variant in self.panel_variants(ctx, raw, panel):
                for policy in panel.policies:
                    for point in self._policy_points(ctx, spec, raw, panel, variant, policy,
                                                     sweep, inner_names):
                        if point.run_path in out:
                            raise ValueError(f"{spec.target} runs {policy} twice on "
                                             f"{variant.name}")
                        out[point.run_path] = point
        return list(out.values())

    def _policy_points(self, ctx: Context, spec: TargetSpec, raw: Mapping[str, Any],
                       panel: PanelSpec, variant: Variant, policy: str,
                       sweep: Mapping[str, Sequence[Any]],
                       inner_names: Sequence[str]) -> list[PointSpec]:
        takes = policy_params(policy)
        outer = {k: v for k, v in sweep.items() if k not in inner_names and k in takes}
        inner = {k: tuple(sweep[k]) for k in inner_names if k in takes}
        chosen = {k: chosen_path(src) for k, src in panel.chosen.items() if k in takes}
        dropped = [k for k in [*sweep, *panel.chosen] if k not in takes]
        columns = tuple(dict.fromkeys([*ctx.family.param_columns, *dropped]))
        common = self._workload_fields(ctx, raw, variant)
        points = []
        for combo in itertools.product(*outer.values()):
            params = dict(zip(outer, combo, strict=True))
            points.append(PointSpec(
                family=ctx.family.name, target=spec.target, policy=policy,
                point=point_name(variant.name, params), variant=variant.name,
                variant_column=ctx.family.variant_column, labels=dict(variant.labels),
                fixed=dict((ctx.section.get("policy_params") or {}).get(policy, {})),
                params=params, chosen=chosen, inner=inner, columns=columns,
                batches=batch_shape(ctx.section), measure=ctx.family.measure, **common))
        return points

    def _workload_fields(self, ctx: Context, raw: Mapping[str, Any],
                         variant: Variant) -> dict[str, Any]:
        trace = raw.get("trace")
        if raw.get("machine"):
            machine = MachineSpec.of(raw["machine"])
        elif trace and not trace.get("months"):
            machine = MachineSpec(int(trace["procs"]))
        else:
            machine = ctx.family.machine(ctx.section)
        machine.check_execution("machine")  # a target's or a reading's machine
        if trace and trace.get("months"):
            return self._month_fields(ctx, trace, machine)
        if trace:
            segments = int(trace.get("segments", 10))
            path = str(trace["path"])
            return {"machine": machine, "model": TRACE_MODEL,
                    "seeds": tuple(range(1, segments + 1)),
                    "workloads": {str(s): path for s in range(1, segments + 1)},
                    "trace": TraceSpec(trace["name"], path, float(variant.labels["load"]),
                                       segments, trace.get("max_jobs"),
                                       trace.get("estimates", "requested")),
                    "workload_info": True}
        fam = ctx.family
        return {"machine": machine, "model": ctx.section["workload"]["model"],
                "seeds": ctx.seeds, "workload_info": fam.workload_info,
                "workloads": {str(s): workload_path(ctx.workload_family, variant.name, s,
                                                    fam.workload_ext) for s in ctx.seeds}}

    @staticmethod
    def _month_fields(ctx: Context, trace: Mapping[str, Any],
                      machine: MachineSpec) -> dict[str, Any]:
        """A log read month by month: seed i is the i-th month, a file cut once from the
        log (:meth:`month_workloads`) and shared by every point that runs it."""
        months = list(trace["months"])
        return {"machine": machine, "model": SWF_MONTH,
                "seeds": tuple(range(1, len(months) + 1)),
                "workloads": {str(seed): month_path(ctx, trace, month)
                              for seed, month in enumerate(months, start=1)},
                "workload_info": True}

    @staticmethod
    def month_workloads(ctx: Context, trace: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """The month files of a ``trace.months`` target: path -> their generation."""
        out = {}
        for month in trace["months"]:
            params = {"log": str(trace["path"]), "month": str(month),
                      "conversion": trace.get("conversion", "none"),
                      "node_cap": int(trace.get("node_cap") or 0),
                      "estimates": trace.get("estimates", "exact")}
            out[month_path(ctx, trace, month)] = {
                "model": SWF_MONTH, "jobs": 1, "params": dict(sorted(params.items())),
                "seed": 1, "input": str(trace["path"])}
        return out

    def inputs(self, spec: TargetSpec, points: Sequence[PointSpec]) -> list[str]:
        return [p.run_path for p in points]

    def workloads(self, ctx: Context, spec: TargetSpec,
                  raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """Workload files of the target's variants (none for a trace, one per month for a
        log read month by month): path -> generation."""
        trace = raw.get("trace")
        if trace and trace.get("months"):
            return self.month_workloads(ctx, trace)
        if trace:
            return {}
        fam, out = ctx.family, {}
        for panel in spec.panels:
            for variant in self.panel_variants(ctx, raw, panel):
                generation = fam.workload(ctx.section, variant)
                for seed in ctx.seeds:
                    path = workload_path(ctx.workload_family, variant.name, seed,
                                         fam.workload_ext)
                    out[path] = {**generation, "seed": seed}
        return out


def batch_shape(section: Mapping[str, Any]) -> tuple[int, ...]:
    """(count, size, discard) of a family's ``batches`` block, or () without one."""
    given = section.get("batches")
    if not given:
        return ()
    return (int(given["count"]), int(given["size"]), int(given.get("discard", 1)))


# ----------------------------------------------------------------------------- derived, example


class Computed:
    """A target computed by a registered function: no simulation, no workload."""

    def points(self, ctx: Context, spec: TargetSpec, raw: Mapping[str, Any]) -> list[PointSpec]:
        return []

    def workloads(self, ctx: Context, spec: TargetSpec,
                  raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        return {}


class Derived(Computed):
    """``kind: derived``: a registered function of other targets' tables."""

    name = DERIVED

    def target(self, ctx: Context, target: str, raw: Mapping[str, Any]) -> TargetSpec:
        spec = TargetSpec(family=ctx.family.name, module=ctx.module, target=target,
                          kind=DERIVED, figure=ctx.figure(raw, "table"),
                          sources=tuple(raw["sources"]), function=raw["function"],
                          args=dict(raw.get("args") or {}),
                          policy_labels=dict(ctx.section.get("policy_labels") or {}))
        check_figure(spec)
        return spec

    def inputs(self, spec: TargetSpec, points: Sequence[PointSpec]) -> list[str]:
        return [path for source in spec.sources
                for path in (table_path(source), table_path(source, seeds=True))]


class Example(Computed):
    """``kind: example``: a registered function, no workload."""

    name = EXAMPLE

    def target(self, ctx: Context, target: str, raw: Mapping[str, Any]) -> TargetSpec:
        spec = TargetSpec(family=ctx.family.name, module=ctx.module, target=target,
                          kind=EXAMPLE, figure=ctx.figure(raw, "table"),
                          function=raw["function"], args=dict(raw.get("args") or {}))
        check_figure(spec)
        return spec

    def inputs(self, spec: TargetSpec, points: Sequence[PointSpec]) -> list[str]:
        return []


KINDS: dict[str, Sweep | Derived | Example] = {k.name: k for k in (Sweep(), Derived(), Example())}


# ----------------------------------------------------------------------------- checks


def check_policies(ctx: Context, where: str, policies: Iterable[str]) -> None:
    """Every policy is registered, and of a policy family that runs on the family's
    workloads (``Family.policy_families``)."""
    from schedsim.policies.registry import PLUGIN_FAMILY, get_policy

    accepted = ctx.family.policy_families
    for name in policies:
        entry = get_policy(name)
        if accepted is not None and entry.family not in (*accepted, PLUGIN_FAMILY):
            raise InputError(f"{where}: policy {name} is a {entry.family} policy; the "
                             f"{ctx.family.name} family runs {' and '.join(accepted)} policies "
                             "(schedsim policies lists them)")


def family_params(ctx: Context) -> set[str]:
    """The parameters some policy the family runs takes, and its parameter columns."""
    from schedsim.policies.registry import all_policies

    accepted = ctx.family.policy_families
    return {spec.name for entry in all_policies().values()
            if accepted is None or entry.family in accepted
            for spec in entry.specs()} | set(ctx.family.param_columns)


def check_params(ctx: Context, target: str, names: Iterable[str],
                 policies: Sequence[str]) -> None:
    """Every parameter a target sweeps, chooses or takes from another target is one that
    one of its policies takes, or at least one the family's policies take (a parameter
    none of the target's policies takes gives an empty column, as SLACK-T4 keeps
    SLACK-F17's layout and shares its runs): a misspelt name is an error."""
    takes = {name for policy in policies for name in policy_params(policy)}
    unknown = [name for name in names if name not in takes]
    if not unknown:
        return
    known = family_params(ctx)
    for name in unknown:
        if name not in known:
            raise InputError(f"{target}: parameter {name!r} is taken by none of its policies "
                             f"({', '.join(policies)}) nor by any policy of the "
                             f"{ctx.family.name} family; their parameters: "
                             f"{', '.join(sorted(known)) or '(none)'}")


def check_axis_values(where: str, values: Mapping[str, Any],
                      axes: Mapping[str, Mapping[str, Any]]) -> None:
    """Each axis value (or list of values) is of its axis's JSON schema."""
    from schedsim.experiments.configcheck import value_problem

    schema = {"type": "object", "properties": {
        axis: {"anyOf": [one, {"type": "array", "items": one, "minItems": 1}]}
        for axis, one in axes.items()}}
    problem = value_problem(values, schema, where)
    if problem is not None:
        raise InputError(problem.text)


def check_columns(target: str, given: Mapping[str, Sequence[str]],
                  allowed: Mapping[str, Sequence[str]]) -> None:
    """Each key's names are among the columns it may name (``x``: the target's table's,
    metrics: the family's)."""
    for key, names in given.items():
        for name in names:
            if name not in allowed[key]:
                raise InputError(f"{target}: {key} {name!r} is not one of "
                                 f"{', '.join(allowed[key])}")
