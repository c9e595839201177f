"""Plot the main distributions of the lublin99 and lublin-los generators.

Writes docs/img/lublin99.png and docs/img/lublin-los.png (small PNGs, matplotlib Agg).
Usage: python scripts/plot_workloads_lublin.py [OUTDIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from schedsim.workloads.lublin import generate_lublin
from schedsim.workloads.lublin_los import generate_los, measure_load

JOBS = 10_000
SEED = 1
DPI = 70


def hour_of_day(submits: np.ndarray, start_hour: int = 0) -> np.ndarray:
    return ((submits / 3600.0) + start_hour) % 24


def plot_lublin99(path: Path) -> None:
    fig, axes = plt.subplots(2, 2, figsize=(8, 5.5))
    for typed, color in ((False, "tab:blue"), (True, "tab:orange")):
        jobs = generate_lublin(JOBS, SEED, typed=typed)
        label = "typed" if typed else "typeless"
        nodes = np.array([j.nodes for j in jobs])
        runtime = np.array([j.runtime for j in jobs])
        submit = np.array([j.submit for j in jobs], dtype=float)
        bins = np.arange(0, 8.01, 0.25)
        axes[0, 0].hist(np.log2(nodes), bins=bins, histtype="step", color=color, label=label)
        axes[0, 1].hist(np.log10(runtime), bins=50, histtype="step", color=color, label=label)
        gaps = np.diff(submit)
        axes[1, 0].hist(np.log10(gaps[gaps > 0]), bins=50, histtype="step", color=color,
                        label=label)
        axes[1, 1].hist(hour_of_day(submit), bins=48, range=(0, 24), histtype="step",
                        color=color, label=label, density=True)
    titles = ("size: log2(nodes)", "runtime: log10(s)", "inter-arrival: log10(s)",
              "arrivals by hour of day")
    for ax, title in zip(axes.flat, titles, strict=True):
        ax.set_title(title, fontsize=9)
        ax.tick_params(labelsize=8)
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(f"lublin99, {JOBS} jobs, seed {SEED}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def plot_lublin_los(path: Path) -> None:
    fig, axes = plt.subplots(2, 2, figsize=(8, 5.5))
    for ps, color in ((0.2, "tab:red"), (0.5, "tab:green"), (0.8, "tab:purple")):
        jobs = generate_los(JOBS, SEED, ps=ps).jobs
        sizes = np.array([j.procs for j in jobs])
        axes[0, 0].hist(sizes, bins=np.arange(16, 337, 32), histtype="step", color=color,
                        label=f"ps {ps}")
    jobs = generate_los(JOBS, SEED, ps=0.5).jobs
    sizes = np.array([j.procs for j in jobs])
    runtime = np.array([j.runtime for j in jobs])
    for low, high, color in ((32, 96, "tab:blue"), (128, 320, "tab:orange")):
        chosen = (sizes >= low) & (sizes <= high)
        axes[0, 1].hist(np.log10(runtime[chosen]), bins=50, histtype="step", color=color,
                        label=f"{low}-{high} procs")
    submit = np.array([j.submit for j in jobs], dtype=float)
    axes[1, 0].hist(hour_of_day(submit), bins=48, range=(0, 24), color="tab:gray")
    barrs = np.linspace(0.46, 0.61, 11)
    for ps, color in ((0.2, "tab:red"), (0.5, "tab:green"), (0.8, "tab:purple")):
        loads = [measure_load(b, 2000, (1, 2, 3), ps=ps) for b in barrs]
        axes[1, 1].plot(barrs, loads, color=color, marker=".", label=f"ps {ps}")
    axes[1, 1].set_yscale("log")
    axes[1, 1].axhspan(0.5, 1.0, color="0.9")
    titles = ("size (processors) by ps", "runtime log10(s), ps 0.5", "arrivals by hour of day",
              "offered load vs barr (2000 jobs, 3 seeds)")
    for ax, title in zip(axes.flat, titles, strict=True):
        ax.set_title(title, fontsize=9)
        ax.tick_params(labelsize=8)
    axes[0, 0].legend(fontsize=8)
    axes[0, 1].legend(fontsize=8)
    axes[1, 1].legend(fontsize=8)
    fig.suptitle(f"lublin-los, {JOBS} jobs, seed {SEED}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/img")
    out.mkdir(parents=True, exist_ok=True)
    plot_lublin99(out / "lublin99.png")
    plot_lublin_los(out / "lublin-los.png")
    for name in ("lublin99.png", "lublin-los.png"):
        print(f"{out / name}: {(out / name).stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
