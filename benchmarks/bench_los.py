"""Speed of the LOS family (not a timed test).

1. LOS with L = 50 on the full KTH-SP2 log (100 processors, unit 1): target < 60 s.
2. LOS, Delayed-LOS, Hybrid-LOS (and the -E variants with elastic commands) on the
   LOS paper's machine, 320 processors in units of 32, with a ``lublin-los``
   workload: target >= 5,000 jobs/s.

Run: ``python benchmarks/bench_los.py [--jobs N] [--seed S]``. Times are wall-clock
for ``simulate`` only (workload generation and loading excluded).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from schedsim.engine import simulate
from schedsim.jobs import Job, RuntimeChange
from schedsim.machine import Machine
from schedsim.metrics import summarize
from schedsim.policies.registry import make_policy

KTH = Path(__file__).resolve().parents[2] / "shared" / "traces" / "KTH-SP2-1996-2.swf.gz"


def timed_run(name: str, machine: Machine, jobs: list[Job],
              changes: list[RuntimeChange]) -> tuple[float, float]:
    """Seconds taken, and the mean wait of the schedule."""
    policy = make_policy(name, {}, machine)
    began = time.perf_counter()
    schedule = simulate(jobs, machine, policy, changes)
    seconds = time.perf_counter() - began
    return seconds, summarize(schedule).mean_wait


def report(label: str, jobs: int, seconds: float, mean_wait: float) -> None:
    print(f"{label:<40} {jobs:>7} jobs {seconds:8.2f} s {jobs / seconds:>9,.0f} jobs/s "
          f"mean wait {mean_wait:>10.0f} s")


def bench_kth() -> None:
    if not KTH.exists():
        print(f"KTH-SP2 log not found at {KTH}: skipped")
        return
    from schedsim.workloads.load import load_workload

    workload = load_workload(KTH)
    for name in ("easy", "LOS", "Delayed-LOS"):
        seconds, wait = timed_run(name, workload.machine, workload.jobs, [])
        report(f"KTH-SP2 {workload.machine.procs} procs, {name}", len(workload.jobs),
               seconds, wait)


def bench_paper_machine(jobs: int, seed: int, barr: float | None) -> None:
    from schedsim.workloads.lublin_los import generate_los

    machine = Machine(320, 32)
    cases = (
        ("batch", {"pe": 0.0, "pr": 0.0}, ("easy", "LOS", "Delayed-LOS")),
        ("heterogeneous P_D 0.5", {"pd": 0.5, "pe": 0.0, "pr": 0.0},
         ("EASY-D", "LOS-D", "Hybrid-LOS")),
        ("elastic P_D 0.5", {"pd": 0.5}, ("EASY-DE", "LOS-DE", "Hybrid-LOS-E")),
    )
    load_knob = {} if barr is None else {"barr": barr}
    for label, params, names in cases:
        workload = generate_los(jobs, seed, **params, **load_knob)
        for name in names:
            seconds, wait = timed_run(name, machine, workload.jobs, workload.changes)
            report(f"320/32 {label}, {name}", jobs, seconds, wait)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--barr", type=float, default=None,
                        help="lublin-los load knob (default: the model's; larger = lighter)")
    parser.add_argument("--skip-kth", action="store_true")
    args = parser.parse_args()
    if not args.skip_kth:
        bench_kth()
    bench_paper_machine(args.jobs, args.seed, args.barr)


if __name__ == "__main__":
    main()
