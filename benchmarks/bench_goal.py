"""Speed of the goal-oriented search (not a timed test): compiled kernel against plain Python.

The GOAL paper's setting: HPC2N jobs as dual-CPU nodes (ceil(processors / 2), at most
64), exact run times, 64+64 nodes, node limit 4000. The same run with
``compiled: true`` and ``false`` must make the same number of placements; the
plain search is run on fewer jobs unless ``--full`` (it is about 20x slower).

The HPC2N log is looked for where the workflow looks (``traces.search`` of the config,
then resources/traces/); fetch it with ``python -m schedsim.traces fetch`` if absent.

Run: ``python benchmarks/bench_goal.py [--jobs N] [--first K] [--full]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

from schedsim.engine import simulate
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy
from schedsim.traces import TraceSettings, find
from schedsim.workloads.load import load_workload
from schedsim.workloads.months import dual_cpu_nodes

ROOT = Path(__file__).resolve().parents[1]


def hpc2n_path() -> Path | None:
    settings = TraceSettings.of(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
    return find(settings.log("HPC2N"), settings, ROOT)


def run(jobs: list, engine: str, node_limit: int) -> tuple[float, int, int, int]:
    machine = Machine(128, partitions=(64, 64))
    policy = make_policy("goal-oriented",
                         {"node_limit": node_limit, "compiled": engine == "compiled"}, machine)
    began = time.perf_counter()
    simulate(jobs, machine, policy)
    return time.perf_counter() - began, policy.searches, policy.nodes, policy.stopped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=2000, help="consecutive jobs simulated")
    parser.add_argument("--first", type=int, default=60000, help="index of the first job")
    parser.add_argument("--node-limit", type=int, default=4000)
    parser.add_argument("--full", action="store_true", help="plain Python on all the jobs too")
    args = parser.parse_args()
    path = hpc2n_path()
    if path is None:
        print("HPC2N log not found (traces.search, resources/traces/): skipped", file=sys.stderr)
        return 0
    log = load_workload(path, procs=240)
    part = dual_cpu_nodes(log.jobs[args.first:args.first + args.jobs])
    plain = part if args.full else part[: max(1, len(part) // 4)]
    run(part[:50], "compiled", args.node_limit)  # compile (or load the cached kernel) first
    for label, engine, jobs in (("compiled", "compiled", part), ("compiled", "compiled", plain),
                                ("python", "python", plain)):
        seconds, searches, nodes, stopped = run(jobs, engine, args.node_limit)
        print(f"{label:<9} {len(jobs):>6} jobs {seconds:8.2f} s  searches {searches:>6}  "
              f"placements {nodes:>10,}  ({nodes / seconds:>10,.0f}/s)  stopped {stopped}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
