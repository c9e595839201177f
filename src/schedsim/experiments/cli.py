"""``python -m schedsim.experiments``: the commands the workflow rules call.

Subcommands:

* ``plan``       list the workloads, points and targets a config defines (and check them);
* ``generate``   every seed file of one workload variant (a batch), in one process;
* ``run-point``  run one point (all seeds inside) -> parquet, one row per simulation
  (``--same-as``: relabel the rows of an equivalent point's run file instead);
* ``aggregate``  a target's inputs -> ``results/tables/<target>.csv`` (+ per-seed table);
* ``choose``     a target's table -> ``results/chosen/<target>.json`` (its chosen parameter);
* ``figure``     a target's table -> PNG and PDF;
* ``claims``     tables -> ``results/claims.csv`` and one caption snippet per target;
* ``schedule``   a target's representative schedule -> its SWF file and its picture;
* ``summary``    claims and figures -> one self-contained HTML page;
* ``benchmarks`` per-rule totals of the ``benchmark:`` files (docs/performance-pipeline.md).

A workload batch, point or target is given either as ``--spec JSON`` (what the
rules pass) or by ``--config FILE`` plus its names (for running by hand). Errors
in the input end with exit code 2 and one line.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from schedsim.atomic import run_stopping_on_signals
from schedsim.errors import InputError
from schedsim.experiments import spec as specs
from schedsim.experiments.family import get_family


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _spec_args(parser: argparse.ArgumentParser, point: bool) -> None:
    parser.add_argument("--spec", help="JSON spec (as the workflow passes it)")
    parser.add_argument("--config", help="config YAML (instead of --spec)")
    parser.add_argument("--target", help="target id, with --config")
    if point:
        parser.add_argument("--policy", help="policy name, with --config")
        parser.add_argument("--point", help="point name, with --config")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m schedsim.experiments",
                     description="Experiment steps of the reproduction workflow.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    plan = sub.add_parser("plan", help="list workloads, points and targets of a config")
    plan.add_argument("--config", required=True)
    gen = sub.add_parser("generate", help="every seed file of one workload variant")
    gen.add_argument("--spec", help="JSON batch spec (as the workflow passes it)")
    gen.add_argument("--config", help="config YAML (instead of --spec)")
    gen.add_argument("--batch", help="<family>/<variant>, with --config")
    gen.add_argument("--out", nargs="+", help="one file per seed, in the spec's seed order "
                     "(default: results/workloads/<family>/<variant>/seed<N>.<ext>)")
    run = sub.add_parser("run-point", help="simulate one point, all seeds")
    _spec_args(run, point=True)
    run.add_argument("--code-version", default="unknown", help="stored in the metadata")
    run.add_argument("--out", required=True, help="output parquet")
    run.add_argument("--plugin", action="append", default=[], metavar="FILE.py:CLASS",
                     help="a policy of one's own to load first (repeatable)")
    run.add_argument("--same-as", default="",
                     help="run file of a point that runs the same simulations: its rows are "
                          "relabelled instead of simulating again")
    agg = sub.add_parser("aggregate", help="a target's table (mean and 95%% CI per point)")
    _spec_args(agg, point=False)
    agg.add_argument("--out", required=True, help="output CSV")
    agg.add_argument("--seeds-out", help="also write the per-seed table (CSV) the claims use")
    agg.add_argument("inputs", nargs="*", help="run files (sweep) or source tables (derived)")
    cho = sub.add_parser("choose", help="the parameter a target chooses for others")
    _spec_args(cho, point=False)
    cho.add_argument("--table", required=True, help="the target's table (CSV)")
    cho.add_argument("--out", required=True, help="output JSON")
    fig = sub.add_parser("figure", help="draw a target's figure")
    _spec_args(fig, point=False)
    fig.add_argument("--table", required=True)
    fig.add_argument("--seeds", help="the per-seed table, for figures that draw each seed "
                     "(table.attrs['seeds'])")
    fig.add_argument("--png", required=True)
    fig.add_argument("--pdf", required=True)
    cla = sub.add_parser("claims", help="check every claim of the given families")
    cla.add_argument("--modules", default="{}", help="JSON: family -> module")
    cla.add_argument("--settings", default="{}", help="JSON: family -> claim settings")
    cla.add_argument("--out", required=True, help="output CSV")
    cla.add_argument("--captions", help="directory for one <target>.rst per target")
    cla.add_argument("--not-run", default="{}", help="JSON: target -> why it was not run")
    cla.add_argument("--readings", default="{}", help="JSON: family -> reading -> {about, "
                     "targets: {default target: the reading's target}}")
    cla.add_argument("--sensitivity-dir", help="directory for <FAMILY>-sensitivity.csv")
    cla.add_argument("tables", nargs="*", help="aggregated tables (<target>.csv)")
    bench = sub.add_parser("benchmarks", help="per-rule totals of Snakemake benchmark files")
    bench.add_argument("directory", nargs="?", default="results/benchmarks")
    bench.add_argument("--logs", default="logs", help="the steps' logs: a step run by the "
                       "worker has its CPU time and memory on its log's last line")
    bench.add_argument("--by-family", action="store_true",
                       help="one row per (family, reading) instead of per rule and target")
    sch = sub.add_parser("schedule", help="a target's representative schedule and picture")
    sch.add_argument("--spec", required=True, help="JSON schedule spec (as the rule passes it)")
    sch.add_argument("--swf", required=True, help="output schedule (SWF)")
    sch.add_argument("--png", required=True, help="output picture")
    summ = sub.add_parser("summary", help="claims and figures as one HTML page")
    summ.add_argument("--claims", required=True)
    summ.add_argument("--out", required=True)
    summ.add_argument("--not-run", default="{}", help="JSON: target -> why it was not run")
    summ.add_argument("--sensitivity", nargs="*", default=[],
                      help="sensitivity tables (<FAMILY>-sensitivity.csv)")
    summ.add_argument("--lead", nargs="*", default=[],
                      help="targets drawn first (every policy on the real logs)")
    summ.add_argument("--tables", nargs="*", default=[],
                      help="tables shown as tables, not as their figure (<target>.csv)")
    summ.add_argument("--schedules", nargs="*", default=[],
                      help="representative schedule pictures (<target>.png)")
    summ.add_argument("--schedule-captions", default="{}",
                      help="JSON: target -> what its representative schedule shows")
    summ.add_argument("figures", nargs="*", help="figure PNGs (<target>.png)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run_stopping_on_signals(f"schedsim experiments {args.command}",
                                       lambda: COMMANDS[args.command](args))
    except (InputError, KeyError, ValueError, FileNotFoundError) as err:
        print(f"schedsim experiments {args.command}: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`
        return 0


# ----------------------------------------------------------------------------- specs


def _plan(path: str) -> Any:
    """The plan of a config file, checked as the workflow checks it (the schema, then the
    plan); every problem is one line naming the file."""
    from schedsim.experiments.configcheck import config_problem, load_config_file, load_schema
    from schedsim.experiments.plan import build_plan

    config = load_config_file(path)
    problem = config_problem(config, load_schema())
    if problem:
        raise InputError(f"config {path}: {problem}")
    try:
        return build_plan(config)
    except (InputError, ValueError) as err:
        raise InputError(f"config {path}: {err}") from None


def _point_spec(args: argparse.Namespace) -> specs.PointSpec:
    if args.spec:
        return specs.point_from_json(args.spec)
    if not (args.config and args.target and args.policy and args.point):
        raise InputError("give --spec, or --config with --target, --policy and --point")
    from schedsim.experiments.plan import find_point

    point = find_point(_plan(args.config), args.target, args.policy, args.point)
    return specs.point_from_json(specs.to_json(point))  # key order as the workflow passes it


def _batch_spec(args: argparse.Namespace) -> specs.WorkloadBatch:
    if args.spec:
        return specs.batch_from_json(args.spec)
    if not (args.config and args.batch):
        raise InputError("give --spec, or --config with --batch")
    batches = _plan(args.config).batches
    if args.batch not in batches:
        families = sorted({name.partition("/")[0] for name in batches})
        raise InputError(f"no workload batch {args.batch!r} in {args.config}; a batch is "
                         f"<family>/<variant>, families: {', '.join(families)} (every "
                         f"workload file: python -m schedsim.experiments plan --config "
                         f"{args.config})")
    return batches[args.batch]


def _target_spec(args: argparse.Namespace) -> specs.TargetSpec:
    if args.spec:
        spec = specs.target_from_json(args.spec)
    else:
        if not (args.config and args.target):
            raise InputError("give --spec, or --config with --target")
        plan = _plan(args.config)
        if args.target not in plan.targets:
            raise InputError(f"target {args.target} is not enabled in {args.config}; "
                             f"enabled: {', '.join(plan.targets)}")
        spec = plan.targets[args.target]
    get_family(spec.family, spec.module or None)  # registers its functions and figures
    return spec


# ----------------------------------------------------------------------------- commands


def cmd_plan(args: argparse.Namespace) -> int:
    plan = _plan(args.config)
    print(f"{len(plan.workloads)} workloads, {len(plan.points)} points, "
          f"{len(plan.targets)} targets")
    for target, inputs in plan.inputs_of.items():
        print(f"{target}: {len(inputs)} inputs")
        for path in inputs:
            print(f"  {path}")
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from schedsim.experiments.generate import generate_files

    batch = _batch_spec(args)
    paths = args.out or batch.paths
    generate_files(batch.model, batch.jobs, batch.params, batch.seeds, paths)
    print(f"{batch.name}: {len(paths)} files ({batch.model}, {batch.jobs} jobs each)")
    return 0


def cmd_run_point(args: argparse.Namespace) -> int:
    from schedsim.experiments.provenance import provenance
    from schedsim.experiments.reuse import rows_from_equivalent
    from schedsim.experiments.run import run_point, write_rows_parquet
    from schedsim.policies.registry import load_reference
    from schedsim.progress import compile_notice

    for reference in args.plugin:
        load_reference(reference)
    spec = _point_spec(args)
    with compile_notice("schedsim experiments run-point"):
        rows = rows_from_equivalent(spec, args.same_as) if args.same_as else run_point(spec)
    write_rows_parquet(rows, args.out, provenance(specs.to_json(spec), args.code_version,
                                                  spec.seeds))
    print(f"{spec.target} {spec.policy} {spec.point}: {len(rows)} simulations")
    return 0


def cmd_aggregate(args: argparse.Namespace) -> int:
    from schedsim.aggregate import write_csv
    from schedsim.experiments.kinds import KINDS

    spec = _target_spec(args)
    table, seeds = KINDS[spec.kind].table(spec, args.inputs)
    write_csv(table, args.out)
    if args.seeds_out:
        write_csv(seeds, args.seeds_out)
    print(f"{spec.target}: {len(table)} rows from {len(args.inputs)} inputs")
    return 0


def cmd_choose(args: argparse.Namespace) -> int:
    from schedsim.atomic import write_text_atomic
    from schedsim.experiments.kinds import choose

    spec = _target_spec(args)
    chosen = choose(spec, args.table)
    write_text_atomic(args.out, specs.canonical_json(chosen) + "\n")
    print(f"{spec.target}: chose {chosen}")
    return 0


def cmd_figure(args: argparse.Namespace) -> int:
    import pandas as pd

    from schedsim.plots import target_figure

    spec = _target_spec(args)
    table = pd.read_csv(args.table)
    if args.seeds:
        table.attrs["seeds"] = pd.read_csv(args.seeds)
    target_figure(table, spec, args.png, args.pdf)
    return 0


def cmd_claims(args: argparse.Namespace) -> int:
    import pandas as pd

    from schedsim import claims
    from schedsim.aggregate import write_csv
    from schedsim.atomic import write_text_atomic
    from schedsim.experiments.kinds import SEEDS_SUFFIX

    modules = json.loads(args.modules)
    for name, module in modules.items():
        get_family(name, module)  # imports the module, which registers its claims
    tables = {Path(p).name[: -len(".csv")]: pd.read_csv(p) for p in args.tables}
    settings = json.loads(args.settings)
    readings = json.loads(args.readings)
    wanted = [t for t in tables if not t.endswith(SEEDS_SUFFIX) and "@" not in t]
    result = claims.evaluate(list(modules), tables, settings, not_run=json.loads(args.not_run))
    write_csv(result, args.out)
    if args.sensitivity_dir:
        for family in modules:
            table = claims.sensitivity(family, tables, settings.get(family, {}),
                                       readings.get(family, {}))
            write_csv(table, Path(args.sensitivity_dir) / f"{family.upper()}-sensitivity.csv")
    if args.captions:
        for target in wanted:
            write_text_atomic(Path(args.captions) / f"{target}.rst",
                              claims.caption_rst(result, target))
    counts = result["verdict"].value_counts().to_dict()
    print(f"{len(result)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return 0


def cmd_schedule(args: argparse.Namespace) -> int:
    from schedsim.experiments.schedules import from_json, write_schedule

    spec = from_json(args.spec)
    jobs = write_schedule(spec, args.swf, args.png)
    print(f"{spec.target}: {jobs} jobs simulated; {spec.caption()}")
    return 0


def cmd_summary(args: argparse.Namespace) -> int:
    import pandas as pd

    from schedsim.atomic import write_text_atomic
    from schedsim.summary import Pictures, summary_html

    claims_table = pd.read_csv(args.claims, keep_default_na=False)
    sensitivity = {Path(p).stem: pd.read_csv(p, keep_default_na=False)
                   for p in args.sensitivity}
    pictures = Pictures({Path(p).stem: Path(p) for p in args.figures},
                        {Path(p).stem: pd.read_csv(p) for p in args.tables},
                        {Path(p).stem: Path(p) for p in args.schedules},
                        json.loads(args.schedule_captions))
    page = summary_html(claims_table, pictures, json.loads(args.not_run), sensitivity,
                        args.lead)
    write_text_atomic(args.out, page)
    print(f"{args.out}: {len(page.encode('utf-8')) / 1e6:.2f} MB")
    return 0


def cmd_benchmarks(args: argparse.Namespace) -> int:
    """Markdown table: per rule (first directory level) jobs, wall and CPU seconds, max RSS."""
    import pandas as pd

    from schedsim.experiments.usage import step_usage

    root = Path(args.directory)
    frames = []
    for path in sorted(root.rglob("*.tsv")):
        frame = pd.read_csv(path, sep="\t")
        usage = step_usage(Path(args.logs) / path.relative_to(root).with_suffix(".log"))
        if usage is not None:  # Snakemake measured only the command that waited
            frame["cpu_time"], frame["max_rss"] = usage
        frame["rule"] = path.relative_to(root).parts[0]
        frame["group"] = "/".join(path.relative_to(root).with_suffix("").parts[:2])
        frames.append(frame)
    if not frames:
        raise InputError(f"{root}: no benchmark files")
    data = pd.concat(frames, ignore_index=True)
    if args.by_family:
        return _benchmarks_by_family(data)
    print("| rule / target | jobs | wall s (sum) | wall s (mean) | wall s (max) | CPU s (sum) "
          "| max RSS MB |")
    print("|---|---|---|---|---|---|---|")
    for key, part in [*data.groupby("rule", sort=True), *data.groupby("group", sort=True)]:
        print(f"| {key} | {len(part)} | {part['s'].sum():.1f} | {part['s'].mean():.2f} | "
              f"{part['s'].max():.2f} | {part['cpu_time'].sum():.1f} | "
              f"{pd.to_numeric(part['max_rss'], errors='coerce').max():.0f} |")
    return 0


def benchmark_family(group: str) -> tuple[str, str]:
    """(family, reading) of a benchmark group ``rule/name``: a target ``HRF-F7@x`` or a
    workload family ``los@x`` names both; the claims and the report belong to all."""
    rule, _, name = group.partition("/")
    if not name or name == rule:
        return "all", "default"
    name, _, reading = name.partition("@")
    family = name.split("-", 1)[0].lower()
    return family, reading or "default"


def _benchmarks_by_family(data: Any) -> int:
    """Markdown table: per (family, reading) jobs and summed wall and CPU seconds."""
    keys = data["group"].map(benchmark_family)
    data = data.assign(family=[k[0] for k in keys], reading=[k[1] for k in keys])
    print("| family | reading | jobs | wall s (sum) | CPU s (sum) |")
    print("|---|---|---:|---:|---:|")
    for (family, reading), part in data.groupby(["family", "reading"], sort=True):
        print(f"| {family} | {reading} | {len(part)} | {part['s'].sum():.1f} | "
              f"{part['cpu_time'].sum():.1f} |")
    print(f"| all | all | {len(data)} | {data['s'].sum():.1f} | {data['cpu_time'].sum():.1f} |")
    return 0


COMMANDS = {"plan": cmd_plan, "generate": cmd_generate, "run-point": cmd_run_point,
            "aggregate": cmd_aggregate, "choose": cmd_choose, "figure": cmd_figure,
            "claims": cmd_claims, "schedule": cmd_schedule, "summary": cmd_summary,
            "benchmarks": cmd_benchmarks}
