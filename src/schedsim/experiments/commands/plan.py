"""``plan``: the workloads, points and targets a config defines (and the checks); and the
specs a step run by hand names with ``--config`` (:mod:`.common`)."""

from __future__ import annotations

import argparse
from typing import Any

from schedsim.errors import InputError
from schedsim.experiments import spec as specs
from schedsim.experiments.configcheck import config_problem, load_config_file, load_schema
from schedsim.experiments.plan import build_plan, find_point


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True)


def run(args: argparse.Namespace) -> int:
    plan = config_plan(args.config)
    print(f"{len(plan.workloads)} workloads, {len(plan.points)} points, "
          f"{len(plan.targets)} targets")
    for target, inputs in plan.inputs_of.items():
        print(f"{target}: {len(inputs)} inputs")
        for path in inputs:
            print(f"  {path}")
    return 0


def config_plan(path: str) -> Any:
    """The plan of a config file, checked as the workflow checks it (the schema, then the
    plan); every problem is one line naming the file."""
    config = load_config_file(path)
    problem = config_problem(config, load_schema())
    if problem:
        raise InputError(f"config {path}: {problem}")
    try:
        return build_plan(config)
    except (InputError, ValueError) as err:
        raise InputError(f"config {path}: {err}") from None


def point_of(args: argparse.Namespace) -> specs.PointSpec:
    if not (args.config and args.target and args.policy and args.point):
        raise InputError("give --spec, or --config with --target, --policy and --point")
    point = find_point(config_plan(args.config), args.target, args.policy, args.point)
    return specs.point_from_json(specs.to_json(point))  # key order as the workflow passes it


def batch_of(args: argparse.Namespace) -> specs.WorkloadBatch:
    if not (args.config and args.batch):
        raise InputError("give --spec, or --config with --batch")
    batches = config_plan(args.config).batches
    if args.batch not in batches:
        families = sorted({name.partition("/")[0] for name in batches})
        raise InputError(f"no workload batch {args.batch!r} in {args.config}; a batch is "
                         f"<family>/<variant>, families: {', '.join(families)} (every "
                         f"workload file: python -m schedsim.experiments plan --config "
                         f"{args.config})")
    return batches[args.batch]


def target_of(args: argparse.Namespace) -> specs.TargetSpec:
    if not (args.config and args.target):
        raise InputError("give --spec, or --config with --target")
    plan = config_plan(args.config)
    if args.target not in plan.targets:
        raise InputError(f"target {args.target} is not enabled in {args.config}; "
                         f"enabled: {', '.join(plan.targets)}")
    return plan.targets[args.target]
