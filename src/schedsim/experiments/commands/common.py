"""What several stages share: the spec options and reading a spec from ``--spec``.

The workflow passes ``--spec`` (canonical JSON). ``--config`` with names is for running a
step by hand: the spec is then looked up in the plan of the config file by
:mod:`~schedsim.experiments.commands.plan`, imported by name here, so that a job's code
version (which follows static imports) does not cover the planner its rule never runs.
"""

from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Callable
from types import ModuleType
from typing import TypeVar

from schedsim.errors import InputError
from schedsim.experiments import spec as specs
from schedsim.experiments.family import get_family

PLAN_COMMAND = "schedsim.experiments.commands.plan"
Spec = TypeVar("Spec")


def add_spec_arguments(parser: argparse.ArgumentParser, point: bool) -> None:
    parser.add_argument("--spec", help="JSON spec (as the workflow passes it)")
    parser.add_argument("--config", help="config YAML (instead of --spec)")
    parser.add_argument("--target", help="target id, with --config")
    if point:
        parser.add_argument("--policy", help="policy name, with --config")
        parser.add_argument("--point", help="point name, with --config")


def _by_hand() -> ModuleType:
    return importlib.import_module(PLAN_COMMAND)


def _from_json(read: Callable[[str], Spec], text: str) -> Spec:
    try:
        return read(text)
    except json.JSONDecodeError as err:
        raise InputError(f"--spec: not JSON ({err}); the workflow passes the spec as "
                         "canonical JSON, by hand give --config with names") from None


def point_spec(args: argparse.Namespace) -> specs.PointSpec:
    if args.spec:
        return _from_json(specs.point_from_json, args.spec)
    return _by_hand().point_of(args)


def batch_spec(args: argparse.Namespace) -> specs.WorkloadBatch:
    if args.spec:
        return _from_json(specs.batch_from_json, args.spec)
    return _by_hand().batch_of(args)


def target_spec(args: argparse.Namespace) -> specs.TargetSpec:
    """The target, with its family's module imported (which registers its derived and
    example functions)."""
    spec = (_from_json(specs.target_from_json, args.spec) if args.spec
            else _by_hand().target_of(args))
    get_family(spec.family, spec.module or None)
    return spec
