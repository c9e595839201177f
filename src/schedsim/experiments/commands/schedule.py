"""``schedule``: a target's representative schedule -> its SWF file and its picture."""

from __future__ import annotations

import argparse

from schedsim.experiments.schedules import from_json, write_schedule


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spec", required=True, help="JSON schedule spec (as the rule passes "
                        "it)")
    parser.add_argument("--swf", required=True, help="output schedule (SWF)")
    parser.add_argument("--png", required=True, help="output picture")


def run(args: argparse.Namespace) -> int:
    spec = from_json(args.spec)
    jobs = write_schedule(spec, args.swf, args.png)
    print(f"{spec.target}: {jobs} jobs simulated; {spec.caption()}")
    return 0
