"""``benchmarks``: per-rule totals of the ``benchmark:`` files
(docs/performance-pipeline.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from schedsim.errors import InputError
from schedsim.experiments.usage import step_usage


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", nargs="?", default="results/benchmarks")
    parser.add_argument("--logs", default="logs", help="the steps' logs: a step run by the "
                        "worker has its CPU time and memory on its log's last line")
    parser.add_argument("--by-family", action="store_true",
                        help="one row per (family, reading) instead of per rule and target")


def run(args: argparse.Namespace) -> int:
    """Markdown table: per rule (first directory level) jobs, wall and CPU seconds, max RSS."""
    root = Path(args.directory)
    frames = []
    for path in sorted(root.rglob("*.tsv")):
        frame = pd.read_csv(path, sep="\t")
        usage = step_usage(Path(args.logs) / path.relative_to(root).with_suffix(".log"))
        if usage is not None:  # Snakemake measured only the command that waited
            frame["cpu_time"], frame["max_rss"] = usage
        frame["rule"] = path.relative_to(root).parts[0]
        frame["group"] = "/".join(path.relative_to(root).with_suffix("").parts[:2])
        frames.append(frame)
    if not frames:
        raise InputError(f"{root}: no benchmark files")
    data = pd.concat(frames, ignore_index=True)
    if args.by_family:
        return _by_family(data)
    print("| rule / target | jobs | wall s (sum) | wall s (mean) | wall s (max) | CPU s (sum) "
          "| max RSS MB |")
    print("|---|---|---|---|---|---|---|")
    for key, part in [*data.groupby("rule", sort=True), *data.groupby("group", sort=True)]:
        print(f"| {key} | {len(part)} | {part['s'].sum():.1f} | {part['s'].mean():.2f} | "
              f"{part['s'].max():.2f} | {part['cpu_time'].sum():.1f} | "
              f"{pd.to_numeric(part['max_rss'], errors='coerce').max():.0f} |")
    return 0


def benchmark_family(group: str) -> tuple[str, str]:
    """(family, reading) of a benchmark group ``rule/name``: a target ``HRF-F7@x`` or a
    workload family ``los@x`` names both; the claims and the report belong to all."""
    rule, _, name = group.partition("/")
    if not name or name == rule:
        return "all", "default"
    name, _, reading = name.partition("@")
    family = name.split("-", 1)[0].lower()
    return family, reading or "default"


def _by_family(data: Any) -> int:
    """Markdown table: per (family, reading) jobs and summed wall and CPU seconds."""
    keys = data["group"].map(benchmark_family)
    data = data.assign(family=[k[0] for k in keys], reading=[k[1] for k in keys])
    print("| family | reading | jobs | wall s (sum) | CPU s (sum) |")
    print("|---|---|---:|---:|---:|")
    for (family, reading), part in data.groupby(["family", "reading"], sort=True):
        print(f"| {family} | {reading} | {len(part)} | {part['s'].sum():.1f} | "
              f"{part['cpu_time'].sum():.1f} |")
    print(f"| all | all | {len(data)} | {data['s'].sum():.1f} | {data['cpu_time'].sum():.1f} |")
    return 0
