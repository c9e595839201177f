"""``figure``: a target's table -> PNG and PDF."""

from __future__ import annotations

import argparse

import pandas as pd

from schedsim.experiments.commands.common import add_spec_arguments, target_spec
from schedsim.experiments.family import FIGURES, get_family, load_part
from schedsim.plots import target_figure


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_spec_arguments(parser, point=False)
    parser.add_argument("--table", required=True)
    parser.add_argument("--seeds", help="the per-seed table, for figures that draw each seed "
                        "(table.attrs['seeds'])")
    parser.add_argument("--png", required=True)
    parser.add_argument("--pdf", required=True)


def run(args: argparse.Namespace) -> int:
    spec = target_spec(args)
    load_part(get_family(spec.family), FIGURES)
    table = pd.read_csv(args.table)
    if args.seeds:
        table.attrs["seeds"] = pd.read_csv(args.seeds)
    target_figure(table, spec, args.png, args.pdf)
    return 0
