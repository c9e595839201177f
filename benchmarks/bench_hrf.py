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
import sys
import tempfile
from functools import partial
from pathlib import Path

from bench_core import REPO
from bench_whole import interleaved, timed

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; best is kept")
    parser.add_argument("--alpha", type=float, default=1.2)
    parser.add_argument("--against", metavar="REV", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-hrf-") as name:
        tmp = Path(name)
        workloads = {}
        for seed in SEEDS:
            path = tmp / f"seed{seed}.swf"
            timed([sys.executable, "-m", "schedsim.cli", "generate", "cirne01", *WORKLOAD,
                   "--seed", str(seed), "--out", str(path)], REPO / "src")
            workloads[str(seed)] = str(path)
        print(f"HRF-F7 point heavy, alpha {args.alpha:g}: 20 workloads x 7 thresholds; "
              f"whole process, best of {args.repeat}, interleaved")
        interleaved({policy: partial(point_command, policy, args.alpha, workloads)
                     for policy in POLICIES}, args.against, args.repeat, tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
