"""Speed of one HRF point (not a timed test): the whole process, as the workflow runs it.

The HRF-F7 point with the most allocation work: heavy load (mean inter-arrival 600 s),
alpha 1.2, the seven thresholds 0.4-1.0 of the figure, 20 Cirne01 workloads of 200
moldable jobs on 128 processors (the ``hrf`` section of config/config.yaml), the budget
read literally (``budget_includes_initial`` false): 140 simulations, in which HRF runs
Algorithm 1 about 42,000 times. Each policy's point runs as
``python -m schedsim.experiments run-point``, exactly as the ``simulate`` rule runs it,
timed from outside; with ``--against REV`` the same for git revision REV (a temporary
worktree), run by run interleaved, each tree with its own compiled-code cache (filled
by a first, unmeasured run), and the two run files compared.

Run: ``python benchmarks/bench_hrf.py [--repeat 3] [--alpha 1.2] [--against REV]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path

from bench_core import REPO, worktree
from bench_whole import timed

POLICIES = ("HRFFcfs", "HRFBf")
SEEDS = range(1, 21)
THRESHOLDS = [0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
WORKLOAD = ("--jobs", "200", "--param", "mean_interarrival=600", "--param", "pattern=anl",
            "--param", "k_sigma=1.0", "--param", "procs=128")


def point_command(policy: str, alpha: float, workloads: dict[str, str], out: Path
                  ) -> list[str]:
    spec = {"batches": [], "chosen": {}, "columns": [], "family": "hrf",
            "fixed": {"budget_includes_initial": False}, "inner": {"threshold": THRESHOLDS},
            "labels": {"mean_interarrival": 600.0},
            "machine": {"load": None, "partitions": [], "procs": 128, "speeds": [],
                        "unit": 1},
            "measure": "schedsim.experiments.measure", "model": "cirne01",
            "params": {"alpha": alpha}, "point": f"heavy_alpha{alpha:g}", "policy": policy,
            "seeds": list(SEEDS), "target": "HRF-BENCH", "trace": None, "variant": "heavy",
            "variant_column": "load", "workload_info": False, "workloads": workloads}
    return [sys.executable, "-m", "schedsim.experiments", "run-point", "--spec",
            json.dumps(spec), "--code-version", "bench", "--out", str(out)]


def same_rows(path: Path) -> bytes:
    """A run file's rows and columns, without the metadata that names the commit."""
    import pyarrow.parquet as pq

    return repr(pq.read_table(path).replace_schema_metadata(None).to_pydict()).encode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; best is kept")
    parser.add_argument("--alpha", type=float, default=1.2)
    parser.add_argument("--against", metavar="REV", default=None)
    args = parser.parse_args()
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-hrf-")))
        trees = {"tree": REPO / "src"}
        if args.against is not None:
            trees[args.against] = stack.enter_context(worktree(args.against)) / "src"
        workloads = {}
        for seed in SEEDS:
            path = tmp / f"seed{seed}.swf"
            timed([sys.executable, "-m", "schedsim.cli", "generate", "cirne01", *WORKLOAD,
                   "--seed", str(seed), "--out", str(path)], REPO / "src")
            workloads[str(seed)] = str(path)
        caches = {name: tmp / f"cache-{index}" for index, name in enumerate(trees)}
        print(f"HRF-F7 point heavy, alpha {args.alpha:g}: 20 workloads x 7 thresholds; "
              f"whole process, best of {args.repeat}, interleaved")
        print("| policy | " + " | ".join(f"{name} s" for name in trees) + " | same rows |")
        print("|---|" + "---:|" * len(trees) + "---|")
        for policy in POLICIES:
            best: dict[str, float] = {}
            for round_ in range(args.repeat + 1):  # round 0 fills the caches
                for name, src in trees.items():
                    os.environ["SCHEDSIM_CACHE_DIR"] = str(caches[name])
                    out = tmp / f"{policy}-{caches[name].name}.parquet"
                    wall, _ = timed(point_command(policy, args.alpha, workloads, out), src)
                    if round_:
                        best[name] = min(best.get(name, wall), wall)
            rows = {same_rows(tmp / f"{policy}-{caches[name].name}.parquet")
                    for name in trees}
            print(f"| {policy} | " + " | ".join(f"{best[name]:.2f}" for name in trees)
                  + f" | {'yes' if len(rows) == 1 else 'NO'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
