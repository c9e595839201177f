"""``choose``: a target's table -> ``results/chosen/<target>.json`` (its chosen
parameter)."""

from __future__ import annotations

import argparse

from schedsim.atomic import write_text_atomic
from schedsim.experiments import spec as specs
from schedsim.experiments.commands.common import add_spec_arguments, target_spec
from schedsim.experiments.kinds import choose


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_arguments(parser, point=False)
    parser.add_argument("--table", required=True, help="the target's table (CSV)")
    parser.add_argument("--out", required=True, help="output JSON")


def run(args: argparse.Namespace) -> int:
    spec = target_spec(args)
    chosen = choose(spec, args.table)
    write_text_atomic(args.out, specs.canonical_json(chosen) + "\n")
    print(f"{spec.target}: chose {chosen}")
    return 0
