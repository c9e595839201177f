"""Speed and memory of FCFS, EASY and conservative backfilling.

Workloads: (a) the full KTH-SP2 log (requested-time estimates, 100 processors),
(b) a synthetic workload on 128 processors at offered load about 0.8, at
10,000 and 100,000 jobs (to show that time grows linearly with the jobs).

Every case runs in a fresh process so that peak memory (max RSS) is its own.
Only the simulation is timed (loading and cleaning are reported apart).

    python benchmarks/bench_core.py [--repeat 3] [--traces DIR_WITH_KTH_SP2]

With ``--against REV`` it times instead the WHOLE process, as a user runs it
(``python -m schedsim.cli simulate KTH --policy P --out ...``: interpreter start,
imports, loading, simulation, writing), for the working tree and for git
revision REV checked out with ``git worktree add`` in a temporary directory (run
with ``PYTHONPATH=<worktree>/src``). Runs of the two trees are interleaved; the
best wall time of ``--repeat`` runs of each is printed with their ratio.

    python benchmarks/bench_core.py --against HEAD --repeat 10
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from schedsim.engine import simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy
from schedsim.workloads.load import load_workload

POLICIES = ("fcfs", "easy", "conservative")


def synthetic(n: int, procs: int = 128, load: float = 0.8, seed: int = 1) -> list[Job]:
    """Poisson arrivals, power-of-two-biased sizes, exponential run times,
    estimates 1-3x the run time; mean inter-arrival set for the offered load."""
    rng = np.random.default_rng(seed)
    sizes = np.where(rng.random(n) < 0.5, 2 ** rng.integers(0, 8, n),
                     rng.integers(1, procs + 1, n))
    runtimes = np.maximum(1, rng.exponential(3000.0, n).round())
    mean_gap = float((sizes * runtimes).mean()) / (procs * load)
    submits = np.cumsum(rng.exponential(mean_gap, n)).round()
    factors = rng.uniform(1.0, 3.0, n)
    return [Job(i + 1, float(s), float(r), int(p), float(round(r * f)))
            for i, (s, r, p, f) in enumerate(zip(submits, runtimes, sizes, factors, strict=True))]


def _case(args: tuple[str, str, int, str]) -> dict[str, float | str | int]:
    policy_name, workload, n, traces = args
    start = time.perf_counter()
    if workload == "KTH-SP2":
        loaded = load_workload(Path(traces) / "KTH-SP2-1996-2.swf.gz")
        jobs, machine = loaded.jobs, loaded.machine
    else:
        jobs, machine = synthetic(n), Machine(128)
    load_s = time.perf_counter() - start
    policy = make_policy(policy_name, {}, machine)
    start = time.perf_counter()
    simulate(jobs, machine, policy)
    sim_s = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"policy": policy_name, "workload": workload, "jobs": len(jobs),
            "load_s": load_s, "sim_s": sim_s, "jobs_per_s": len(jobs) / sim_s,
            "peak_mb": peak_mb}


REPO = Path(__file__).resolve().parents[1]
KTH = "KTH-SP2-1996-2.swf.gz"


@contextmanager
def worktree(revision: str) -> Iterator[Path]:
    """A temporary ``git worktree`` of ``revision`` (removed afterwards)."""
    with tempfile.TemporaryDirectory(prefix="bench-core-") as tmp:
        path = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet",
                        str(path), revision], check=True)
        try:
            yield path
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                            str(path)], check=True)


def whole_process_seconds(src: Path, trace: Path, policy: str, out: Path) -> float:
    """Wall time of one ``python -m schedsim.cli simulate`` run with ``src`` first on
    the import path."""
    env = dict(os.environ, PYTHONPATH=str(src))
    command = [sys.executable, "-m", "schedsim.cli", "simulate", str(trace),
               "--policy", policy, "--out", str(out)]
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def compare_whole_process(revision: str, traces: Path, repeat: int) -> None:
    """Best-of-``repeat`` whole-process time of the working tree and of ``revision``,
    interleaved run by run."""
    trace = traces / KTH
    if not trace.exists():
        raise SystemExit(f"{trace} not found (give --traces)")
    print(f"whole process, KTH-SP2, best of {repeat}, interleaved; {revision} vs working tree")
    print(f"{'policy':<13}{revision + ' s':>12}{'tree s':>10}{'ratio':>8}")
    with worktree(revision) as base, tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "schedule.swf"
        for policy in POLICIES:
            times: dict[str, list[float]] = {"base": [], "tree": []}
            for _ in range(repeat):
                times["base"].append(whole_process_seconds(base / "src", trace, policy, out))
                times["tree"].append(whole_process_seconds(REPO / "src", trace, policy, out))
            old, new = min(times["base"]), min(times["tree"])
            print(f"{policy:<13}{old:>12.3f}{new:>10.3f}{new / old:>8.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; best is kept")
    parser.add_argument("--traces", default=str(REPO.parent / "shared" / "traces"))
    parser.add_argument("--against", metavar="REV", default=None,
                        help="time the whole process against git revision REV instead")
    args = parser.parse_args()
    if args.against is not None:
        compare_whole_process(args.against, Path(args.traces), args.repeat)
        return
    cases = []
    if (Path(args.traces) / "KTH-SP2-1996-2.swf.gz").exists():
        cases += [(p, "KTH-SP2", 0, args.traces) for p in POLICIES]
    else:
        print(f"KTH-SP2 not found under {args.traces}: skipping the trace cases")
    cases += [(p, "synthetic", n, args.traces) for p in POLICIES for n in (10_000, 100_000)]
    ctx = mp.get_context("spawn")
    print(f"{'policy':<13}{'workload':<11}{'jobs':>8}{'sim s':>9}{'jobs/s':>10}{'peak MB':>9}")
    for case in cases:
        with ctx.Pool(1, maxtasksperchild=1) as pool:
            runs = [pool.apply(_case, (case,)) for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r["sim_s"])
        print(f"{best['policy']:<13}{best['workload']:<11}{best['jobs']:>8}"
              f"{best['sim_s']:>9.3f}{best['jobs_per_s']:>10.0f}{best['peak_mb']:>9.0f}")


if __name__ == "__main__":
    main()
