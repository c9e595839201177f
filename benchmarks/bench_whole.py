"""Whole-process speed of ``schedsim simulate`` (not a timed test), as a user times it.

1. The full HPC2N log (Parallel Workloads Archive, HPC2N-2002-2.1-cln, 202,876 jobs, 240
   processors from its header, exact estimates): ``schedsim simulate`` with FCFS, EASY and
   conservative, each the whole command (interpreter start, reading, simulation,
   writing), beside a lean single-purpose EASY/FCFS loop run on the same (uncompressed)
   input in the same run, when one is given (``--lean``; skipped with a message
   otherwise).
2. EASY on ``lublin99`` workloads of 10,000, 100,000 and 1,000,000 jobs (seed 1, 128
   processors from the file's header, requested estimates): wall time, peak RSS, the
   memory per job above that of a 100-job run (the start-up: Python, numpy, numba and
   the cached kernels), and the growth of time per 10x jobs; with ``--against REV`` the
   same for git revision REV (a temporary worktree), run by run interleaved with the
   working tree's, so that both are measured in one sitting. The working tree runs twice:
   on its JIT-compiled kernels (a cache directory of its own, without the ahead-of-time
   library) and on the library `schedsim compile` builds (another cache directory), which
   `schedsim simulate` uses for these runs without loading numba (schedsim.kernel.ahead).
3. With ``--phases``, where the largest of those runs spends its time (a profile of the
   command in its own process): start-up and imports, reading the bytes, the compiled
   scan, cleaning, the simulation, the metrics, formatting and writing the schedule.

Every number is the best of ``--repeat`` runs, wall time from outside and the child's
own peak RSS (``os.wait4``).

Run: ``python benchmarks/bench_whole.py --trace HPC2N-2002-2.1-cln.swf.gz
[--lean lean_sim.py] [--repeat 3] [--sizes 10000 100000 1000000] [--against REV]
[--phases]``.
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
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from bench_core import REPO, worktree

POLICIES = ("fcfs", "easy", "conservative")
START_UP_JOBS = 100  # a run this small costs what starting costs


@dataclass(frozen=True)
class Code:
    """The code a run uses: a tree's ``src`` (None: the installed package) and the
    compiled-code cache directory (None: the user's)."""

    src: Path | None = None
    cache: Path | None = None

    def env(self) -> dict[str, str] | None:
        if self.src is None and self.cache is None:
            return None
        extra = {"PYTHONPATH": str(self.src)} if self.src is not None else {}
        if self.cache is not None:
            extra["SCHEDSIM_CACHE_DIR"] = str(self.cache)
        return dict(os.environ, **extra)


def timed(command: list[str], code: Code | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one run of ``command`` with ``code``."""
    env = None if code is None else code.env()
    began = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"failed ({child.returncode}): {' '.join(command)}")
    return wall, usage.ru_maxrss / 1024


def same_output(path: Path) -> bytes:
    """What two trees must agree on: a run file's rows and columns (without the metadata
    that names the commit), any other file's bytes."""
    if path.suffix != ".parquet":
        return path.read_bytes()
    import pyarrow.parquet as pq

    return repr(pq.read_table(path).replace_schema_metadata(None).to_pydict()).encode()


def interleaved(cases: dict[str, Callable[[Path], list[str]]], revision: str | None,
                repeat: int, tmp: Path, suffix: str = ".parquet") -> None:
    """Print, per case, the best wall time of ``repeat`` runs of its command (given the
    output file it writes) in the working tree and, with ``revision``, in a temporary
    worktree of it: run by run interleaved, each tree with its own compiled-code cache
    (filled by a first, unmeasured round), and whether the trees' outputs are the same."""
    with ExitStack() as stack:
        trees = {"tree": REPO / "src"}
        if revision is not None:
            trees[revision] = stack.enter_context(worktree(revision)) / "src"
        caches = {name: tmp / f"cache-{index}" for index, name in enumerate(trees)}
        print("| case | " + " | ".join(f"{name} s" for name in trees) + " | same output |")
        print("|---|" + "---:|" * len(trees) + "---|")
        for case, command in cases.items():
            fastest: dict[str, float] = {}
            outputs = {name: tmp / f"{case}-{index}{suffix}"
                       for index, name in enumerate(trees)}
            for round_ in range(repeat + 1):  # round 0 fills the caches
                for name, src in trees.items():
                    wall, _ = timed(command(outputs[name]), Code(src, caches[name]))
                    if round_:
                        fastest[name] = min(fastest.get(name, wall), wall)
            same = len({same_output(path) for path in outputs.values()}) == 1
            print(f"| {case} | " + " | ".join(f"{fastest[name]:.2f}" for name in trees)
                  + f" | {'yes' if same else 'NO'} |")


def best(command: list[str], repeat: int) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of the fastest of ``repeat`` runs: a run that
    compiles the kernels (an empty cache, or a checkout the cache does not know yet) is
    neither its time nor its memory."""
    return min(timed(command) for _ in range(repeat))


def schedsim(*args: str) -> list[str]:
    return [sys.executable, "-m", "schedsim.cli", *args]


def trace_part(trace: Path, lean: Path | None, repeat: int, tmp: Path,
               codes: dict[str, Code]) -> None:
    plain = tmp / "hpc2n.swf"
    with gzip.open(trace, "rb") if trace.suffix == ".gz" else open(trace, "rb") as src, \
            open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    with open(plain) as text:  # the header line only: a child's peak RSS counts this
        # process's at its start (Linux keeps the larger), so it must not hold the file
        procs = next(line.split(":")[1].split()[0] for line in text
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
        for name, code in codes.items():
            command = schedsim("simulate", str(plain), "--policy", policy, "--estimates",
                               "exact", "--out", str(tmp / "out.swf"))
            timed(command, code)  # a first run may compile: not counted
            wall, rss = min(timed(command, code) for _ in range(repeat))
            rows.append((f"schedsim simulate --policy {policy} ({name})", wall, rss))
    for name, wall, rss in rows:
        ratio = f"{wall / lean_easy:.2f}" if lean_easy else "-"
        print(f"| {name} | {wall:.2f} | {rss:.0f} | {ratio} |")


def generate(jobs: int, tmp: Path) -> Path:
    workload = tmp / f"lublin{jobs}.swf"
    subprocess.run(schedsim("generate", "lublin99", "--jobs", str(jobs), "--seed", "1",
                            "--out", str(workload)), check=True, stdout=subprocess.DEVNULL)
    return workload


def scaling_part(sizes: list[int], repeat: int, tmp: Path, trees: dict[str, Code]) -> None:
    """EASY on lublin99 files of ``sizes`` jobs with each code (name -> code), runs of the
    codes interleaved."""
    print(f"\n## EASY on lublin99 workloads (seed 1), best of {repeat}\n")
    print("| jobs | code | wall s | peak RSS MB | bytes/job above start-up | "
          "time x per 10x jobs |")
    print("|---:|---|---:|---:|---:|---:|")
    floor: dict[str, float] = {}
    previous: dict[str, tuple[int, float]] = {}
    for jobs in [START_UP_JOBS, *sizes]:
        workload = generate(jobs, tmp)
        if jobs == START_UP_JOBS:  # a tree's first run may compile its kernels: not timed
            for code in trees.values():
                timed(schedsim("simulate", str(workload), "--policy", "easy", "--out",
                               str(tmp / "out.swf")), code)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for _ in range(repeat):
            for name, code in trees.items():
                runs[name].append(timed(schedsim("simulate", str(workload), "--policy",
                                                 "easy", "--out", str(tmp / "out.swf")), code))
        for name, measured in runs.items():
            wall, rss = min(w for w, _ in measured), max(r for _, r in measured)
            floor.setdefault(name, rss)
            per_job = f"{(rss - floor[name]) * 2**20 / jobs:.0f}" if jobs > START_UP_JOBS \
                else "(start-up)"
            growth = "-"
            if name in previous and jobs == 10 * previous[name][0]:
                growth = f"{wall / previous[name][1]:.1f}"
            print(f"| {jobs:,} | {name} | {wall:.2f} | {rss:.0f} | {per_job} | {growth} |")
            previous[name] = (jobs, wall)
        workload.unlink()


# The profiled child: the command as ``schedsim`` runs it, under cProfile, and the
# cumulative seconds of the functions that make up each phase.
_PHASES = """
import cProfile, pstats, sys, time
began = time.perf_counter()
import schedsim.cli as cli
imported = time.perf_counter() - began
profile = cProfile.Profile()
profile.runcall(cli.main, sys.argv[1:])
stats = pstats.Stats(profile).stats
def seconds(module, name):
    return sum(s[3] for (path, _, function), s in stats.items()
               if function == name and path.endswith(module))
print("imports", imported)
for phase, module, name in [
        ("reading the bytes", "inputs.py", "read_input"),
        ("scan (with numba's import and cached kernels)", "swf.py", "read_swf_table"),
        ("cleaning", "columns.py", "clean"),
        ("simulation", "backfill.py", "simulate_columns"),
        ("metrics", "metrics.py", "summarize_columns"),
        ("formatting and writing the schedule", "atomic.py", "write_all_or_none")]:
    print(phase, seconds(module, name))
"""


def phases_part(jobs: int, tmp: Path) -> None:
    """Where one run of EASY on ``jobs`` lublin99 jobs spends its time."""
    workload = generate(jobs, tmp)
    command = [sys.executable, "-c", _PHASES, "simulate", str(workload), "--policy", "easy",
               "--out", str(tmp / "out.swf")]
    began = time.perf_counter()
    lines = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - began
    print(f"\n## Phases of EASY on {jobs:,} lublin99 jobs (one profiled run, wall "
          f"{wall:.2f} s)\n")
    print("| phase | s |")
    print("|---|---:|")
    for line in lines.splitlines():
        phase, _, seconds = line.rpartition(" ")
        print(f"| {phase} | {float(seconds):.2f} |")
    workload.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, help="the HPC2N log (.swf or .swf.gz)")
    parser.add_argument("--lean", type=Path, help="a lean EASY/FCFS loop: "
                        "lean.py INPUT.swf MAXPROCS easy|fcfs OUT")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--against", metavar="REV", default=None,
                        help="measure the lublin99 runs of git revision REV as well")
    parser.add_argument("--phases", action="store_true",
                        help="profile the largest lublin99 run by phase")
    args = parser.parse_args()
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        ahead = Code(REPO / "src", tmp / "cache-ahead")
        subprocess.run(schedsim("compile"), env=ahead.env(), check=True,
                       stdout=subprocess.DEVNULL)
        trees = {"working tree, JIT": Code(REPO / "src", tmp / "cache-jit"),
                 "working tree, ahead-of-time": ahead}
        if args.trace is not None:
            trace_part(args.trace, args.lean, args.repeat, tmp, trees)
        else:
            print("(no --trace: the HPC2N part is skipped)")
        if args.against is not None:
            trees[args.against] = Code(stack.enter_context(worktree(args.against)) / "src")
        if args.sizes:
            scaling_part(args.sizes, args.repeat, tmp, trees)
        if args.phases and args.sizes:
            phases_part(max(args.sizes), tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
