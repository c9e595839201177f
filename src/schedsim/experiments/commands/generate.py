"""``generate``: every seed file of one workload variant (a batch), in one process."""

from __future__ import annotations

import argparse

from schedsim.experiments.commands.common import batch_spec
from schedsim.experiments.generate import generate_files


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spec", help="JSON batch spec (as the workflow passes it)")
    parser.add_argument("--config", help="config YAML (instead of --spec)")
    parser.add_argument("--batch", help="<family>/<variant>, with --config")
    parser.add_argument("--out", nargs="+", help="one file per seed, in the spec's seed order "
                        "(default: results/workloads/<family>/<variant>/seed<N>.<ext>)")


def run(args: argparse.Namespace) -> int:
    batch = batch_spec(args)
    paths = args.out or batch.paths
    generate_files(batch.model, batch.jobs, batch.params, batch.seeds, paths)
    print(f"{batch.name}: {len(paths)} files ({batch.model}, {batch.jobs} jobs each)")
    return 0
