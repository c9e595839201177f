"""``aggregate``: a target's inputs -> ``results/tables/<target>.csv`` (mean and CI per
point) and its per-seed table."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from schedsim.aggregate import aggregate_runs, write_csv
from schedsim.experiments.commands.common import add_spec_arguments, target_spec
from schedsim.experiments.family import table_function
from schedsim.experiments.spec import DERIVED, EXAMPLE, SWEEP, TargetSpec


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_arguments(parser, point=False)
    parser.add_argument("--out", required=True, help="output CSV")
    parser.add_argument("--seeds-out", help="also write the per-seed table (CSV) the claims "
                        "use")
    parser.add_argument("inputs", nargs="*", help="run files (sweep) or source tables "
                        "(derived)")


def run(args: argparse.Namespace) -> int:
    spec = target_spec(args)
    table, seeds = target_table(spec, args.inputs)
    write_csv(table, args.out)
    if args.seeds_out:
        write_csv(seeds, args.seeds_out)
    print(f"{spec.target}: {len(table)} rows from {len(args.inputs)} inputs")
    return 0


def target_table(spec: TargetSpec, inputs: Sequence[str]) -> tuple[Any, Any]:
    """The target's table and its per-seed table: a sweep's run files aggregated, or the
    registered function of a derived target (of its source tables) or of an example (of
    nothing), whose table is its own per-seed table."""
    if spec.kind == SWEEP:
        return aggregate_runs(spec, inputs)
    if spec.kind == DERIVED:
        tables = {Path(p).name[: -len(".csv")]: pd.read_csv(p) for p in inputs}
        table = table_function(spec)(spec, tables)
    elif spec.kind == EXAMPLE:
        table = table_function(spec)(spec)
    else:
        raise ValueError(f"{spec.target}: unknown kind {spec.kind!r}; known: "
                         f"{SWEEP}, {DERIVED}, {EXAMPLE}")
    return table, table
