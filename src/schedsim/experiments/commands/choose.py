"""``choose``: a target's table -> ``results/chosen/<target>.json`` (its chosen
parameter)."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import Any

from schedsim.atomic import write_text_atomic
from schedsim.experiments import spec as specs
from schedsim.experiments.commands.common import add_spec_arguments, target_spec


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


def choose(spec: specs.TargetSpec, table_csv: str | Path) -> dict[str, Any]:
    """The value ``spec.choose`` picks from the target's aggregated table (CSV).

    The row of ``choose.policy`` with the lowest mean ``choose.metric``; ties go to the
    smallest parameter value. Values are parsed from the CSV text as written.
    """
    rule = spec.choose
    if rule is None:
        raise ValueError(f"{spec.target} chooses no parameter")
    with open(table_csv, encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.DictReader(handle)
                if r.get("policy") == rule.policy and r.get(rule.param) not in (None, "")]
    if not rows:
        raise ValueError(f"{table_csv}: no row of {rule.policy} with a {rule.param} to "
                         "choose from")
    best = min(rows, key=lambda r: (float(r[f"{rule.metric}_mean"]), float(r[rule.param])))
    value = float(best[rule.param])
    return {rule.param: int(value) if value.is_integer() else value}
