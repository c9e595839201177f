"""Speed of the SLACK policies (not a timed test): one W1 run, whole process.

W1 of the thesis (Jin 2009, sec. 5): 10,000 typeless Lublin99 jobs on 128 processors with
aarr 10.23 (arar 1, our reading of the thesis's alpha), seed 71. ``schedsim generate``
writes it once; then ``schedsim simulate`` runs each policy on it, timed from outside
(wall time and the child's peak RSS), exactly as a user would run it. With ``--against
REV`` each policy runs instead in the working tree and in a temporary worktree of git
revision REV, run by run interleaved (best of ``--repeat``), and the schedules are
compared.

Run: ``python benchmarks/bench_slack.py [--jobs N] [--seed S] [--aarr A] [--policies ...]
[--against REV [--repeat 3]]``.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from bench_whole import interleaved

POLICIES = ("conservative", "slack-backfill", "scojo-conservative", "scojo-slack")


def run(args: list[str]) -> tuple[float, float]:
    began = time.perf_counter()
    command = str(Path(sys.executable).parent / "schedsim")  # the console script
    subprocess.run([command, *args], check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - began,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


def simulate_command(workload: Path, policy: str, out: Path) -> list[str]:
    return [sys.executable, "-m", "schedsim.cli", "simulate", str(workload), "--policy",
            policy, "--procs", "128", "--estimates", "exact", "--out", str(out)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=71)
    parser.add_argument("--aarr", type=float, default=10.23)
    parser.add_argument("--policies", nargs="+", default=list(POLICIES), choices=POLICIES)
    parser.add_argument("--against", metavar="REV", default=None)
    parser.add_argument("--repeat", type=int, default=3, help="with --against: runs per case")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workload = Path(tmp) / "w1.swf"
        wall, _ = run(["generate", "lublin99", "--jobs", str(args.jobs), "--seed",
                       str(args.seed), "--param", "typed=false", "--param",
                       f"aarr={args.aarr}", "--param", "arar=1", "--out", str(workload)])
        print(f"W1: {args.jobs:,} jobs, aarr {args.aarr}, seed {args.seed}; generated in "
              f"{wall:.2f} s")
        if args.against is not None:
            interleaved({policy: partial(simulate_command, workload, policy)
                         for policy in args.policies}, args.against, args.repeat, Path(tmp),
                        suffix=".swf")
            return 0
        print("| policy | whole process (s) | peak RSS (MB, largest so far) |")
        print("|---|---:|---:|")
        for policy in args.policies:
            wall, rss = run(["simulate", str(workload), "--policy", policy, "--procs", "128",
                             "--estimates", "exact", "--out", str(Path(tmp) / "out.swf")])
            print(f"| {policy} | {wall:.2f} | {rss:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
