"""Speed of one IHAP point (not a timed test): the whole process, as the workflow runs it.

One ``hyperexp`` workload of 217,000 jobs (31 batches of 7000; utilization, CVa and CVs
from the command line, Table 1's defaults otherwise) is generated once; then, for each
policy, ``python -m schedsim.experiments run-point`` runs the point exactly as the
``simulate`` rule does, timed from outside (wall time and the child's peak RSS). The
engine's plain run on the first ``--engine-jobs`` jobs is timed beside it, so that the
compiled run's gain is measured in the same session. With ``--against REV`` each
policy's point runs instead in the working tree and in a temporary worktree of git
revision REV, run by run interleaved (best of ``--repeat``), and the run files are
compared.

Run: ``python benchmarks/bench_ihap.py [--utilization U] [--cva C] [--cvs C]
[--against REV [--repeat 3]]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from bench_whole import interleaved

from schedsim.engine import simulate
from schedsim.loadmodel import UniformLoads
from schedsim.policies.registry import make_policy
from schedsim.workloads.hyperexp import PARAMS, generate, ihap_machine, read_hyperexp_swf

POLICIES = ("MAP", "HAP", "IHAP", "IHAP-FCFS")
BATCHES = (31, 7000, 1)


def point_spec(policy: str, workload: Path) -> dict:
    machine = ihap_machine()
    return {"batches": list(BATCHES), "chosen": {}, "columns": [], "family": "ihap",
            "fixed": {}, "inner": {}, "labels": {}, "machine": {
                "load": {"name": "uniform", "params": {"max_percent": 30}}, "partitions": [],
                "procs": machine.procs, "speeds": list(machine.speeds), "unit": 1},
            "measure": "schedsim.experiments.families.ihap_measure",
            "model": "hyperexp", "params": {}, "point": "bench", "policy": policy,
            "seeds": [1], "target": "IHAP-BENCH", "trace": None, "variant": "bench",
            "variant_column": "workload", "workload_info": False,
            "workloads": {"1": str(workload)}}


def point_command(policy: str, workload: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "schedsim.experiments", "run-point", "--spec",
            json.dumps(point_spec(policy, workload)), "--code-version", "bench",
            "--out", str(out)]


def whole_process(policy: str, workload: Path, out: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one run-point process."""
    began = time.perf_counter()
    subprocess.run(point_command(policy, workload, out), check=True)
    wall = time.perf_counter() - began
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--utilization", type=float, default=0.8)
    parser.add_argument("--cva", type=float, default=1.0)
    parser.add_argument("--cvs", type=float, default=4.0)
    parser.add_argument("--engine-jobs", type=int, default=20_000,
                        help="jobs of the engine's plain run (0: skip it)")
    parser.add_argument("--against", metavar="REV", default=None)
    parser.add_argument("--repeat", type=int, default=3, help="with --against: runs per case")
    args = parser.parse_args()
    params = {**{p.name: p.default for p in PARAMS}, "utilization": args.utilization,
              "cv_arrival": args.cva, "cv_demand": args.cvs}
    jobs = BATCHES[0] * BATCHES[1]
    with tempfile.TemporaryDirectory() as tmp:
        workload = Path(tmp) / "workload.swf"
        began = time.perf_counter()
        workload.write_text("".join(generate(jobs, 1, params)))
        print(f"workload: {jobs:,} jobs, utilization {args.utilization}, CVa {args.cva}, "
              f"CVs {args.cvs}; generated in {time.perf_counter() - began:.2f} s")
        if args.against is not None:
            interleaved({policy: partial(point_command, policy, workload)
                         for policy in POLICIES}, args.against, args.repeat, Path(tmp))
            return 0
        print("| policy | whole process (s) | peak RSS (MB, largest so far) |")
        print("|---|---:|---:|")
        for policy in POLICIES:
            wall, rss = whole_process(policy, workload, Path(tmp) / f"{policy}.parquet")
            print(f"| {policy} | {wall:.2f} | {rss:.0f} |")
        if args.engine_jobs:
            part = read_hyperexp_swf(workload)[:args.engine_jobs]
            machine = ihap_machine()
            print(f"\nengine (plain Python), first {len(part):,} jobs, simulation only:")
            for policy in POLICIES:
                began = time.perf_counter()
                simulate(part, machine, make_policy(policy, {}, machine),
                         load_model=UniformLoads(machine.procs, 1))
                print(f"  {policy}: {time.perf_counter() - began:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
