"""Plot the main distributions of the cirne01 and hyperexp workload models.

Writes docs/img/cirne01.png and docs/img/hyperexp.png (small PNGs, Agg backend).
Usage: python scripts/plot_workloads_models.py [--out-dir docs/img] [--seed 1]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes

from schedsim.params import parse_params
from schedsim.speedup import downey_speedup
from schedsim.workloads import cirne, hyperexp

SAMPLE_JOBS = 20_000
DPI = 72


def _ccdf(ax: Axes, values: np.ndarray, label: str) -> None:
    ordered = np.sort(values)
    tail = 1.0 - np.arange(len(ordered)) / len(ordered)
    ax.loglog(ordered, tail, label=label, lw=1)


def _arrivals_by_hour(ax: Axes) -> None:
    for pattern in cirne.ARRIVAL_POLYNOMIALS:
        rate = cirne.daily_rate(pattern)
        per_hour = rate.reshape(24, 3600).sum(axis=1) / cirne.ARRIVAL_THRESHOLD
        ax.plot(range(24), per_hour, label=pattern, lw=1)
    ax.set(title="arrivals per hour (k = 1)", xlabel="hour of day", ylabel="jobs")
    ax.legend(fontsize=6)


def _speedup_curves(ax: Axes) -> None:
    procs = np.arange(1, 129)
    for a, sigma in ((64, 0.0), (64, 0.5), (64, 1.0), (64, 2.0), (16, 1.0)):
        ax.plot(procs, [downey_speedup(int(n), a, sigma) for n in procs], lw=1,
                label=f"A={a}, s={sigma}")
    ax.set(title="Downey S(n)", xlabel="n", ylabel="S(n)")
    ax.legend(fontsize=6)


def plot_cirne(out: Path, seed: int) -> None:
    params = parse_params(cirne.PARAMS, {"mean_interarrival": 1000}, "plot")
    jobs = cirne.generate_cirne_jobs(SAMPLE_JOBS, seed, params)
    models = [j.speedup for j in jobs]
    length = np.array([m.work_L for m in models])
    avg = np.array([m.avg_parallelism_A for m in models])
    sigma = np.array([m.sigma for m in models])
    fig, axes = plt.subplots(2, 3, figsize=(9, 5.2))
    _arrivals_by_hour(axes[0, 0])
    _speedup_curves(axes[0, 1])
    _ccdf(axes[0, 2], length, "L (sequential)")
    _ccdf(axes[0, 2], np.array([j.runtime for j in jobs]), "T(procs)")
    axes[0, 2].set(title="run time CCDF", xlabel="s")
    axes[0, 2].legend(fontsize=6)
    axes[1, 0].hist(np.log2(avg), bins=40)
    axes[1, 0].set(title="A (avg. parallelism)", xlabel="log2 A")
    axes[1, 1].hist(sigma, bins=40)
    axes[1, 1].set(title="sigma", xlabel="sigma")
    axes[1, 2].hist([j.procs for j in jobs], bins=32)
    axes[1, 2].set(title="procs = min(128, max useful)", xlabel="processors")
    fig.suptitle(f"cirne01, pattern anl, {SAMPLE_JOBS} jobs, seed {seed}", fontsize=9)
    _save(fig, out / "cirne01.png")


def plot_hyperexp(out: Path, seed: int) -> None:
    fig, axes = plt.subplots(2, 2, figsize=(7, 5.2))
    for cv in (1.0, 4.0):
        jobs = hyperexp.generate_hyperexp_jobs(SAMPLE_JOBS, seed,
                                               parse_params(hyperexp.PARAMS, {"cv_demand": cv,
                                                                             "cv_arrival": cv},
                                                            "plot"))
        _ccdf(axes[0, 0], np.array([j.work for j in jobs]), f"CVs = {cv:g}")
        _ccdf(axes[0, 1], np.diff([j.submit for j in jobs]), f"CVa = {cv:g}")
    axes[0, 0].set(title="service demand CCDF (D = 16)", xlabel="BPU-s")
    axes[0, 1].set(title="inter-arrival CCDF (U = 0.8)", xlabel="s")
    for ax in axes[0]:
        ax.legend(fontsize=6)
    axes[1, 0].hist([j.procs for j in jobs], bins=np.arange(0.5, 33.5))
    axes[1, 0].set(title="Pmax ~ U{1..32}", xlabel="Pmax")
    load = hyperexp.BackgroundLoad.from_seed(64, seed)
    values = np.concatenate([load.redraw() for _ in range(500)]) * 100
    axes[1, 1].hist(values, bins=np.arange(-0.5, 31.5))
    axes[1, 1].set(title="background load U{0..30} %", xlabel="%")
    fig.suptitle(f"hyperexp, {SAMPLE_JOBS} jobs, seed {seed}", fontsize=9)
    _save(fig, out / "hyperexp.png")


def _save(fig: plt.Figure, path: Path) -> None:
    for ax in fig.axes:
        ax.title.set_fontsize(8)
        ax.tick_params(labelsize=6)
        ax.xaxis.label.set_fontsize(7)
        ax.yaxis.label.set_fontsize(7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    print(f"{path}: {path.stat().st_size // 1024} KB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=Path("docs/img"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    plot_cirne(args.out_dir, args.seed)
    plot_hyperexp(args.out_dir, args.seed)


if __name__ == "__main__":
    main()
