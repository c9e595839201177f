"""Seconds to generate 100,000 lublin99 jobs as SWF text (target: under 5 s).

Usage: python benchmarks/bench_lublin.py [JOBS]
"""

from __future__ import annotations

import sys
import time

from schedsim.workloads.base import get_model

TARGET_SECONDS = 5.0


def time_generation(jobs: int, typed: bool, seed: int = 1) -> float:
    model = get_model("lublin99")
    start = time.perf_counter()
    model.run(jobs, seed, {"typed": typed})
    return time.perf_counter() - start


def main() -> None:
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    for typed in (True, False):
        seconds = time_generation(jobs, typed)
        mode = "typed (default)" if typed else "typeless"
        verdict = "ok" if seconds < TARGET_SECONDS else "SLOW"
        print(f"lublin99 {mode:15s} {jobs} jobs: {seconds:.2f} s ({verdict}, target "
              f"< {TARGET_SECONDS:g} s)")


if __name__ == "__main__":
    main()
