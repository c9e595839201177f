"""Whole-process speed of ``schedsim simulate`` (not a timed test), as a user times it.

1. The full HPC2N log (Parallel Workloads Archive, HPC2N-2002-2.1-cln, 202,876 jobs, 240
   processors from its header, exact estimates): ``schedsim simulate`` with FCFS, EASY and
   conservative, each the whole command (interpreter start, reading, simulation,
   writing), beside a lean single-purpose EASY/FCFS loop run on the same (uncompressed)
   input in the same run, when one is given (``--lean``; skipped with a message
   otherwise).
2. EASY on ``lublin99`` workloads of 10,000, 100,000 and 1,000,000 jobs (seed 1): wall
   time, peak RSS, and the growth of time per 10x jobs.

Every number is the best of ``--repeat`` runs, wall time from outside and the child's
own peak RSS (``os.wait4``).

Run: ``python benchmarks/bench_whole.py --trace HPC2N-2002-2.1-cln.swf.gz
[--lean lean_sim.py] [--repeat 3] [--sizes 10000 100000 1000000]``.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POLICIES = ("fcfs", "easy", "conservative")


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one run of ``command``."""
    began = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"failed ({child.returncode}): {' '.join(command)}")
    return wall, usage.ru_maxrss / 1024


def best(command: list[str], repeat: int) -> tuple[float, float]:
    runs = [timed(command) for _ in range(repeat)]
    return min(w for w, _ in runs), max(r for _, r in runs)


def schedsim(*args: str) -> list[str]:
    return [sys.executable, "-m", "schedsim.cli", *args]


def trace_part(trace: Path, lean: Path | None, repeat: int, tmp: Path) -> None:
    plain = tmp / "hpc2n.swf"
    with gzip.open(trace, "rb") if trace.suffix == ".gz" else open(trace, "rb") as src, \
            open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    procs = next(line.split(":")[1].split()[0] for line in plain.read_text().splitlines()
                 if line.lstrip("; ").startswith("MaxProcs"))
    print(f"## {trace.name} ({procs} processors, exact estimates), best of {repeat}\n")
    print("| command | wall s | peak RSS MB | x lean EASY |")
    print("|---|---:|---:|---:|")
    lean_easy = None
    rows = []
    if lean is not None and lean.exists():
        for policy in ("easy", "fcfs"):
            wall, rss = best([sys.executable, str(lean), str(plain), procs, policy,
                              str(tmp / "lean.txt")], repeat)
            lean_easy = wall if policy == "easy" else lean_easy
            rows.append((f"lean loop, {policy}", wall, rss))
    else:
        print(f"(no lean loop: {lean or 'none given'}; run with --lean PATH for the yardstick)\n")
    for policy in POLICIES:
        wall, rss = best(schedsim("simulate", str(plain), "--policy", policy, "--estimates",
                                  "exact", "--out", str(tmp / "out.swf")), repeat)
        rows.append((f"schedsim simulate --policy {policy}", wall, rss))
    for name, wall, rss in rows:
        ratio = f"{wall / lean_easy:.2f}" if lean_easy else "-"
        print(f"| {name} | {wall:.2f} | {rss:.0f} | {ratio} |")


def scaling_part(sizes: list[int], repeat: int, tmp: Path) -> None:
    print(f"\n## EASY on lublin99 workloads (seed 1), best of {repeat}\n")
    print("| jobs | wall s | peak RSS MB | time x per 10x jobs |")
    print("|---:|---:|---:|---:|")
    previous: tuple[int, float] | None = None
    for jobs in sizes:
        workload = tmp / f"lublin{jobs}.swf"
        subprocess.run(schedsim("generate", "lublin99", "--jobs", str(jobs), "--seed", "1",
                                "--out", str(workload)), check=True, stdout=subprocess.DEVNULL)
        wall, rss = best(schedsim("simulate", str(workload), "--policy", "easy", "--out",
                                  str(tmp / "out.swf")), repeat)
        growth = "-"
        if previous is not None and jobs == 10 * previous[0]:
            growth = f"{wall / previous[1]:.1f}"
        print(f"| {jobs:,} | {wall:.2f} | {rss:.0f} | {growth} |")
        previous = (jobs, wall)
        workload.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, help="the HPC2N log (.swf or .swf.gz)")
    parser.add_argument("--lean", type=Path, help="a lean EASY/FCFS loop: "
                        "lean.py INPUT.swf MAXPROCS easy|fcfs OUT")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory)
        if args.trace is not None:
            trace_part(args.trace, args.lean, args.repeat, tmp)
        else:
            print("(no --trace: the HPC2N part is skipped)")
        if args.sizes:
            scaling_part(args.sizes, args.repeat, tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
