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
from schedsim.parallel import ordered_map, process_count
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
    parser.add_argument("--processes", type=process_count, default=1,
                        help="processes that judge the claims and the readings (default 1)")
    parser.add_argument("tables", nargs="*", help="aggregated tables (<target>.csv)")


def run(args: argparse.Namespace) -> int:
    modules = json.loads(args.modules)
    for name, module in modules.items():
        load_part(get_family(name, module), CLAIMS)  # registers the family's claims
    tables = {Path(p).name[: -len(".csv")]: pd.read_csv(p) for p in args.tables}
    settings = json.loads(args.settings)
    readings = json.loads(args.readings)
    wanted = [t for t in tables if not t.endswith(SEEDS_SUFFIX) and "@" not in t]
    not_run = json.loads(args.not_run)

    def judged(family: str | None) -> pd.DataFrame:
        """Every claim (None), or one family's claims under each of its readings."""
        if family is None:
            return claims.evaluate(list(modules), tables, settings, not_run=not_run)
        return claims.sensitivity(family, tables, settings.get(family, {}),
                                  readings.get(family, {}))

    families = list(modules) if args.sensitivity_dir else []
    result, *sensitivity = ordered_map(judged, [None, *families], args.processes)
    write_csv(result, args.out)
    for family, table in zip(families, sensitivity, strict=True):
        write_csv(table, Path(args.sensitivity_dir) / f"{family.upper()}-sensitivity.csv")
    if args.captions:
        for target in wanted:
            write_text_atomic(Path(args.captions) / f"{target}.rst",
                              claims.caption_rst(result, target))
    counts = result["verdict"].value_counts().to_dict()
    print(f"{len(result)} claims: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return 0
