"""``summary``: claims and figures -> one self-contained HTML page."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from schedsim.atomic import write_text_atomic
from schedsim.parallel import process_count
from schedsim.summary import Pictures, summary_html


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--claims", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--not-run", default="{}", help="JSON: target -> why it was not run")
    parser.add_argument("--sensitivity", nargs="*", default=[],
                        help="sensitivity tables (<FAMILY>-sensitivity.csv)")
    parser.add_argument("--lead", nargs="*", default=[],
                        help="targets drawn first (every policy on the real logs)")
    parser.add_argument("--tables", nargs="*", default=[],
                        help="tables shown as tables, not as their figure (<target>.csv)")
    parser.add_argument("--schedules", nargs="*", default=[],
                        help="representative schedule pictures (<target>.png)")
    parser.add_argument("--schedule-captions", default="{}",
                        help="JSON: target -> what its representative schedule shows")
    parser.add_argument("--processes", type=process_count, default=1,
                        help="processes that reduce the pictures (default 1)")
    parser.add_argument("figures", nargs="*", help="figure PNGs (<target>.png)")


def run(args: argparse.Namespace) -> int:
    claims_table = pd.read_csv(args.claims, keep_default_na=False)
    sensitivity = {Path(p).stem: pd.read_csv(p, keep_default_na=False)
                   for p in args.sensitivity}
    pictures = Pictures({Path(p).stem: Path(p) for p in args.figures},
                        {Path(p).stem: pd.read_csv(p) for p in args.tables},
                        {Path(p).stem: Path(p) for p in args.schedules},
                        json.loads(args.schedule_captions))
    page = summary_html(claims_table, pictures, json.loads(args.not_run), sensitivity,
                        args.lead, args.processes)
    write_text_atomic(args.out, page)
    print(f"{args.out}: {len(page.encode('utf-8')) / 1e6:.2f} MB")
    return 0
