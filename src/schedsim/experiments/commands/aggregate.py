"""``aggregate``: a target's inputs -> ``results/tables/<target>.csv`` (mean and CI per
point) and its per-seed table."""

from __future__ import annotations

import argparse

from schedsim.aggregate import write_csv
from schedsim.experiments.commands.common import add_spec_arguments, target_spec
from schedsim.experiments.kinds import KINDS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_arguments(parser, point=False)
    parser.add_argument("--out", required=True, help="output CSV")
    parser.add_argument("--seeds-out", help="also write the per-seed table (CSV) the claims "
                        "use")
    parser.add_argument("inputs", nargs="*", help="run files (sweep) or source tables "
                        "(derived)")


def run(args: argparse.Namespace) -> int:
    spec = target_spec(args)
    table, seeds = KINDS[spec.kind].table(spec, args.inputs)
    write_csv(table, args.out)
    if args.seeds_out:
        write_csv(seeds, args.seeds_out)
    print(f"{spec.target}: {len(table)} rows from {len(args.inputs)} inputs")
    return 0
