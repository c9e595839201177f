"""IHAP family: its figure the generic ones cannot draw and its columns' labels
(``IhapFamily.figures_module``: only its figure jobs import them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schedsim import plots
from schedsim.experiments.families.ihap import (
    FAMILY_NAME,
)
from schedsim.experiments.spec import TargetSpec
from schedsim.plots import COLORS, LINESTYLES, MARKERS, STYLE, register_figure, register_labels
from schedsim.tables import select

if TYPE_CHECKING:
    import pandas as pd


AXIS_NAMES = {"utilization": "utilization (eq. 9)", "cva": "inter-arrival CV (CVa)",
              "cvs": "service-demand CV (CVs)"}


# ----------------------------------------------------------------------------- figure


register_labels(FAMILY_NAME, {**AXIS_NAMES, "MRT": "mean response time (s)",
                              "power": "computing power per job (BPU)"})


@register_figure("ihap-mrt")
def mrt_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """MRT with its interval and the mean computing power per job, one line per policy,
    against the target's axis (a point whose MRT misses the precision limit is ringed);
    below, IHAP's paired differences to HAP and MAP over the batches (``figure.compare``)."""
    import matplotlib

    x = spec.x or "utilization"
    metrics = list(spec.figure.metrics) or ["MRT", "power"]
    limit = spec.precision.get("MRT")
    seeds = plots.seeds_of(table, spec)
    with matplotlib.rc_context(STYLE):
        fig, grid = plots.grid_of(2, len(metrics), width=4.4, height=3.2)
        for index, metric in enumerate(metrics):
            ax, diff_ax = grid[0][index], grid[1][index]
            for number, policy in enumerate(spec.policies):
                rows = select(table, {"policy": policy}).sort_values(x)
                if rows.empty:
                    continue
                mean = rows[f"{metric}_mean"]
                ax.errorbar(rows[x], mean, yerr=[mean - rows[f"{metric}_ci_low"],
                                                 rows[f"{metric}_ci_high"] - mean],
                            color=COLORS[number % len(COLORS)],
                            marker=MARKERS[number % len(MARKERS)],
                            linestyle=LINESTYLES[number % len(LINESTYLES)], markersize=4,
                            capsize=2, label=spec.show(policy))
                flag = f"{metric}_precise"
                if flag in rows and not rows[flag].all():
                    bad = rows[~rows[flag].astype(bool)]
                    ax.scatter(bad[x], bad[f"{metric}_mean"], s=140, facecolors="none",
                               edgecolors="red", linewidths=1.2, zorder=5,
                               label=(f"relative error > {limit:.0%}" if limit else
                                      "imprecise"))
            ax.set_title(f"{plots.letter(index)} {plots.name_of(spec, metric)}", fontsize=9)
            plots.metric_axis(ax, spec, metric)
            plots.set_x_ticks(ax, list(table[x].dropna()))
            ax.grid(alpha=0.3)
            diffs = plots.paired_differences(seeds, spec, metric)
            plots.draw_difference_curves(diff_ax, diffs, spec, metric)
            diff_ax.set_title(f"{plots.letter(len(metrics) + index)} "
                              f"{plots.difference_title(spec, metric)}", fontsize=9)
            diff_ax.set_xlabel(plots.name_of(spec, x))
        plots.outside_legend(fig, [ax for row in grid for ax in row])
        plots.suptitle(fig, f"{spec.target}: mean of {plots.replications(table)} {spec.seed_unit}, "
                     f"{spec.level:.0%} CI; "
                     f"{plots.significance_note(spec)}")
    return fig
