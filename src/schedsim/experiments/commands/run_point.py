"""``run-point``: one point, all seeds inside -> parquet, one row per simulation
(``--rows-from``: the simulations an earlier point's run file holds are relabelled, not
run again)."""

from __future__ import annotations

import argparse

from schedsim.experiments import spec as specs
from schedsim.experiments.commands.common import add_spec_arguments, point_spec
from schedsim.experiments.provenance import provenance
from schedsim.experiments.reuse import reusable_results
from schedsim.experiments.run import run_point, write_rows_parquet
from schedsim.policies.registry import load_reference
from schedsim.progress import compile_notice


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_arguments(parser, point=True)
    parser.add_argument("--code-version", default="unknown", help="stored in the metadata")
    parser.add_argument("--out", required=True, help="output parquet")
    parser.add_argument("--plugin", action="append", default=[], metavar="FILE.py:CLASS",
                        help="a policy of one's own to load first (repeatable)")
    parser.add_argument("--rows-from", action="append", default=[], metavar="RUN_FILE",
                        help="run file of an earlier point: the simulations of this point "
                             "it holds are relabelled instead of run again (repeatable)")


def run(args: argparse.Namespace) -> int:
    for reference in args.plugin:
        load_reference(reference)
    spec = point_spec(args)
    with compile_notice("schedsim experiments run-point"):
        reused = reusable_results(spec, args.rows_from) if args.rows_from else None
        rows = run_point(spec, reused)
    write_rows_parquet(rows, args.out, provenance(specs.to_json(spec), args.code_version,
                                                  spec.seeds))
    print(f"{spec.target} {spec.policy} {spec.point}: {len(rows)} simulations")
    return 0
