"""``claims``: tables -> ``results/claims.csv``, one caption snippet per target and one
sensitivity table per family."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from schedsim import claims
from schedsim.aggregate import write_csv
from schedsim.atomic import write_text_atomic
from schedsim.experiments.family import CLAIMS, get_family, load_part
from schedsim.tables import SEEDS_SUFFIX


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--modules", default="{}", help="JSON: family -> module")
    parser.add_argument("--settings", default="{}", help="JSON: family -> claim settings")
    parser.add_argument("--out", required=True, help="output CSV")
    parser.add_argument("--captions", help="directory for one <target>.rst per target")
    parser.add_argument("--not-run", default="{}", help="JSON: target -> why it was not run")
    parser.add_argument("--readings", default="{}", help="JSON: family -> reading -> {about, "
                        "targets: {default target: the reading's target}}")
    parser.add_argument("--sensitivity-dir", help="directory for <FAMILY>-sensitivity.csv")
    parser.add_argument("tables", nargs="*", help="aggregated tables (<target>.csv)")


def run(args: argparse.Namespace) -> int:
    modules = json.loads(args.modules)
    for name, module in modules.items():
        load_part(get_family(name, module), CLAIMS)  # registers the family's claims
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
