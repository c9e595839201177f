"""LOS family: its figure the generic ones cannot draw and its columns' labels
(``LosFamily.figures_module``: only its figure jobs import them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from schedsim import plots
from schedsim.experiments.families.los import (
    FAMILY_NAME,
    show,
)
from schedsim.experiments.spec import TargetSpec
from schedsim.plots import COLORS, STYLE, panels, register_figure, register_labels

if TYPE_CHECKING:
    import pandas as pd


PAPER_TABLE_NAMES = {"LOS-T4": "Table IV", "LOS-T5": "Table V", "LOS-T6": "Table VI",
                     "LOS-T7": "Table VII"}


# ----------------------------------------------------------------------------- figures

PANEL_NAMES = {"cs": "", "ps0.5": "", "ps0.8": "", "batch": "batch",
               "heterogeneous": "heterogeneous", "elastic-batch": "batch",
               "elastic-heterogeneous": "heterogeneous"}

register_labels(FAMILY_NAME, {
    "c_s": "$C_s$", "ps": "$P_S$", "load": "load",
    "pd": lambda v: f"$P_D$ {float(v):g}" if float(v) else None,
    "elastic": lambda v: "elastic" if str(v).lower() == "true" else None,
    "panel": lambda name: PANEL_NAMES.get(str(name), str(name)),
    "AWT": "mean job waiting time (s)", "slowdown": "slowdown"})


@register_figure("los-improvement")
def improvement_figure(table: pd.DataFrame, spec: TargetSpec) -> Any:
    """LOS paper Tables IV-VII as bars: our maximum % improvement (95% CI) beside the paper's."""
    import matplotlib

    baselines = list(spec.args["baselines"])
    width = 0.8 / (2 * len(baselines))
    with matplotlib.rc_context(STYLE):
        fig, (ax,) = panels(1, width=6.4, height=3.6)
        for b_index, baseline in enumerate(baselines):
            ours = table[f"{baseline}_ours"].to_numpy()
            low = (ours - table[f"{baseline}_ci_low"].to_numpy()).clip(min=0)
            high = (table[f"{baseline}_ci_high"].to_numpy() - ours).clip(min=0)
            xs = [i + (2 * b_index - len(baselines) + 0.5) * width for i in range(len(table))]
            name = show(baseline, spec.policy_labels)
            ax.bar(xs, ours, width=width, color=COLORS[b_index], label=f"ours vs {name}",
                   yerr=[low, high], capsize=2, error_kw={"linewidth": 0.8})
            ax.bar([x + width for x in xs], table[f"{baseline}_paper"], width=width,
                   color="white", edgecolor=COLORS[b_index], hatch="//",
                   label=f"paper ({PAPER_TABLE_NAMES[spec.base or spec.target]}) vs {name}")
        ax.set_xticks(range(len(table)), list(table["metric"]))
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_ylabel("maximum % improvement over the loads")
        ax.grid(axis="y", alpha=0.3)
        fig.legend(loc="outside lower center", ncols=2, frameon=False)
        plots.suptitle(fig, f"{spec.target}: {show(spec.args['policy'], spec.policy_labels)} over "
                     f"{' and '.join(show(b, spec.policy_labels) for b in baselines)} "
                     f"({spec.sources[0]}, panel {spec.args['panel']}); bars: 95% CI at the "
                     "load of the maximum")
    return fig
