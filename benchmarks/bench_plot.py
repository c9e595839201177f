"""Whole-process speed of ``schedsim plot`` (not a timed test): a window of a long log.

The full HPC2N log (Parallel Workloads Archive, HPC2N-2002-2.1-cln, 202,876 jobs, 240
processors) is simulated once with EASY (``schedsim simulate``); then ``schedsim plot``
draws windows of its schedule: one day, one week and four weeks from day 400, each the
whole command (interpreter start, reading the 202,876-line schedule, placing the window's
jobs, drawing, writing the PNG). Every number is the best of ``--repeat`` runs, wall time
from outside and the child's own peak RSS (``bench_whole.timed``).

Run: ``python benchmarks/bench_plot.py --trace HPC2N-2002-2.1-cln.swf.gz [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_whole import best, schedsim, timed

WINDOWS = (("one day", "400d", "401d"), ("one week", "400d", "407d"),
           ("four weeks", "400d", "428d"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trace", type=Path, required=True, help="the HPC2N log (.swf.gz)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        tmp = Path(directory)
        schedule = tmp / "hpc2n-easy.swf"
        wall, rss = timed(schedsim("simulate", str(args.trace), "--policy", "easy",
                                   "--out", str(schedule)))
        print(f"schedule: `schedsim simulate --policy easy` {wall:.2f} s, {rss:.0f} MB\n")
        print(f"## schedsim plot on {args.trace.name}, best of {args.repeat}\n")
        print("| window | wall s | peak RSS MB |")
        print("|---|---:|---:|")
        for name, start, end in WINDOWS:
            wall, rss = best(schedsim("plot", str(schedule), "--start", start, "--end", end,
                                      "--out", str(tmp / "window.png")), args.repeat)
            print(f"| {name} ({start} .. {end}) | {wall:.2f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
