"""HRF family: its figure the generic ones cannot draw, its columns' labels and the
paper's values drawn beside ours (``HrfFamily.figures_module``: only its figure jobs import
them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schedsim import plots
from schedsim.experiments.families.hrf import (
    F7,
    FAMILY_NAME,
    PAPER_MIDDLE_ATT,
    TABLE1_PROCS,
)
from schedsim.experiments.spec import TargetSpec
from schedsim.plots import (
    PANEL_LETTERS,
    STYLE,
    PaperValue,
    panels,
    register_figure,
    register_labels,
    register_paper_values,
)

if TYPE_CHECKING:
    import pandas as pd


# ----------------------------------------------------------------------------- figures

register_labels(FAMILY_NAME, {"alpha": "$\\alpha$", "threshold": "threshold",
                              "mean_interarrival": lambda v: f"mean inter-arrival {v:,.0f} s"})


@register_paper_values(F7)
def middle_load_values(spec: TargetSpec) -> list[PaperValue]:
    """Fig. 7b's combined ATT at middle load, as sec. 6.3 prints them."""
    return [PaperValue("ATT", value, policy, "middle", source="sec. 6.3, Fig. 7b")
            for policy, value in PAPER_MIDDLE_ATT.items()]


@register_figure("hrf-gantt")
def example_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """Gantt charts of the worked example's strategies (HRF paper, Fig. 3)."""
    import matplotlib

    strategies = list(dict.fromkeys(table["strategy"]))
    with matplotlib.rc_context(STYLE):
        fig, axes = panels(len(strategies), width=3.6, height=2.6)
        for index, (ax, name) in enumerate(zip(axes, strategies, strict=True)):
            part = table[table["strategy"] == name]
            _gantt(ax, part, TABLE1_PROCS)
            chosen = " -- HRF's choice" if str(part["hrf_choice"].iloc[0]) == name else ""
            ax.set_title(f"({PANEL_LETTERS[index]}) strategy {name}: ATT "
                         f"{part['ATT'].iloc[0]:.2f} s (paper {part['paper_ATT'].iloc[0]:g})"
                         f"{chosen}")
        plots.suptitle(fig, f"{spec.target}: worked example, simulated by our engine")
    return fig


def _gantt(ax: Any, part: pd.DataFrame, procs: int) -> None:
    """Boxes of jobs on processors; each job takes the lowest-numbered free processors."""
    free_at = [0.0] * procs
    for row in part.sort_values(["start", "job"]).itertuples(index=False):
        lanes = [p for p in range(procs) if free_at[p] <= row.start + 1e-9][: int(row.procs)]
        for lane in lanes:
            free_at[lane] = row.end
            ax.barh(lane, row.end - row.start, left=row.start, height=0.8, color="#9ecae1",
                    edgecolor="black", linewidth=0.6)
            ax.text((row.start + row.end) / 2, lane, row.job, ha="center", va="center")
    ax.set_yticks(range(procs), [f"P{p + 1}" for p in range(procs)])
    ax.set_xlabel("time (s)")
    ax.set_xlim(0, float(part["end"].max()) + 1)
    plots.integer_axis(ax, "x")  # the example's times are whole seconds
