"""Figures from aggregated tables: one figure per target, PNG and PDF.

Panels mirror the paper's: (a), (b), (c) = one workload variant each (HRF:
light, middle, heavy load); LOS: one panel per metric (utilization, wait) and
one row per workload case. Every point carries its 95% confidence interval as an
error bar. Output is byte-reproducible: no creation date or software version is
written into the files, and both are written to a temporary file and renamed.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
from matplotlib.figure import Figure

from schedsim.experiments.common import write_bytes_atomic

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes

METRIC_COLORS = {"ATT": "#1b5e9e", "AWT": "#c2571a", "ART": "#2e8540"}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", ":", "-.")
PANEL_LETTERS = "abcdefghij"
STYLE = {"font.size": 9, "axes.titlesize": 9, "legend.fontsize": 8, "svg.hashsalt": "schedsim",
         "pdf.fonttype": 42}
PNG_DPI = 150
PNG_METADATA: dict[str, Any] = {"Software": None}
PDF_METADATA: dict[str, Any] = {"CreationDate": None, "Creator": None, "Producer": None}


def save(fig: Figure, png: str | Path, pdf: str | Path) -> None:
    """Write ``fig`` as PNG and PDF without timestamps or version strings."""
    for path, fmt, meta in ((png, "png", PNG_METADATA), (pdf, "pdf", PDF_METADATA)):
        buffer = io.BytesIO()
        kwargs: dict[str, Any] = {"dpi": PNG_DPI} if fmt == "png" else {}
        fig.savefig(buffer, format=fmt, metadata=meta, bbox_inches="tight", **kwargs)
        write_bytes_atomic(path, buffer.getvalue())


def panels(count: int, width: float = 4.3, height: float = 3.6) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(width * count, height), layout="constrained")
    return fig, list(fig.subplots(1, count, squeeze=False)[0])


def panel_title(letter_index: int, variant: str, labels: Mapping[str, Any]) -> str:
    extra = ", ".join(f"{k.replace('_', ' ')} {v:g} s" if isinstance(v, float) else f"{k} {v}"
                      for k, v in labels.items())
    return f"({PANEL_LETTERS[letter_index]}) {variant} load" + (f" ({extra})" if extra else "")


def errorbar(ax: Axes, x: Sequence[float], part: pd.DataFrame, metric: str,
             **style: Any) -> None:
    """Means with 95% CI error bars (no bar when the interval is undefined)."""
    mean = part[f"{metric}_mean"].to_numpy()
    half = part[f"{metric}_ci_half"].fillna(0.0).to_numpy()
    ax.errorbar(x, mean, yerr=half, capsize=2.5, linewidth=1.2, markersize=4, **style)


def dodge(values: pd.Series, index: int, count: int) -> float:
    """A small x offset per series so that error bars at the same x do not hide each other."""
    span = float(values.max() - values.min()) or 1.0
    return 0.012 * span * (index - (count - 1) / 2)


def outside_legend(fig: Figure, ax: Axes, columns: int) -> None:
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=columns, frameon=False)


# ----------------------------------------------------------------------------- kinds


def sweep_figure(table: pd.DataFrame, spec: Mapping[str, Any]) -> Figure:
    """ATT, AWT, ART vs the swept parameter; one panel per variant, one line per policy/metric."""
    x, column = spec["x"], spec["variant_column"]
    metrics = [m for m in METRIC_COLORS if f"{m}_mean" in table]
    variants = spec["variants"]
    with matplotlib.rc_context(STYLE):
        fig, axes = panels(len(variants))
        for index, (ax, variant) in enumerate(zip(axes, variants, strict=True)):
            for p_index, policy in enumerate(spec["policies"]):
                part = table[(table[column] == variant) & (table["policy"] == policy)]
                part = part.sort_values(x)
                shift = dodge(table[x], p_index, len(spec["policies"]))
                for metric in metrics:
                    errorbar(ax, part[x].to_numpy() + shift, part, metric,
                             color=METRIC_COLORS[metric],
                             marker=MARKERS[p_index % len(MARKERS)],
                             linestyle=LINESTYLES[p_index % len(LINESTYLES)],
                             label=f"{metric} {policy}")
            ax.set_title(panel_title(index, variant, spec["variant_labels"].get(variant, {})))
            ax.set_xlabel(x)
            ax.set_ylabel("time (s)")
            ax.grid(alpha=0.3)
        outside_legend(fig, axes[0], columns=2 * len(metrics))
        fig.suptitle(f"{spec['target']}: mean of {_seeds(table)} seeds, 95% CI", fontsize=9)
    return fig


def combined_figure(table: pd.DataFrame, spec: Mapping[str, Any]) -> Figure:
    """Combined ATT, AWT, ART per policy (bars with CIs); one panel per variant."""
    column, variants = spec["variant_column"], spec["variants"]
    policies = [p for p in spec["policies"] if p in set(table["policy"])]
    metrics = [m for m in METRIC_COLORS if f"{m}_mean" in table]
    width = 0.8 / len(metrics)
    with matplotlib.rc_context(STYLE):
        fig, axes = panels(len(variants), width=5.0, height=3.9)
        for index, (ax, variant) in enumerate(zip(axes, variants, strict=True)):
            part = table[table[column] == variant].set_index("policy").loc[policies]
            for m_index, metric in enumerate(metrics):
                xs = [i + (m_index - (len(metrics) - 1) / 2) * width for i in range(len(policies))]
                ax.bar(xs, part[f"{metric}_mean"], width=width, color=METRIC_COLORS[metric],
                       yerr=part[f"{metric}_ci_half"].fillna(0.0), capsize=2,
                       label=f"combined {metric}", error_kw={"linewidth": 0.8})
            ax.set_xticks(range(len(policies)), policies, rotation=45, ha="right")
            ax.set_title(panel_title(index, variant, spec["variant_labels"].get(variant, {})))
            ax.set_ylabel("time (s)")
            ax.grid(axis="y", alpha=0.3)
        outside_legend(fig, axes[0], columns=len(metrics))
        points = int(table["n_points"].max()) if "n_points" in table else 1
        fig.suptitle(f"{spec['target']}: mean over {points} parameter points and "
                     f"{_seeds(table)} seeds, 95% CI over seeds", fontsize=9)
    return fig


def example_figure(table: pd.DataFrame, spec: Mapping[str, Any]) -> Figure:
    """Gantt charts of the worked example's strategies (HRF paper, Fig. 3)."""
    strategies = list(dict.fromkeys(table["strategy"]))
    procs = int(spec.get("example_procs") or 3)
    with matplotlib.rc_context(STYLE):
        fig, axes = panels(len(strategies), width=3.6, height=2.6)
        for index, (ax, name) in enumerate(zip(axes, strategies, strict=True)):
            part = table[table["strategy"] == name]
            _gantt(ax, part, procs)
            chosen = " -- HRF's choice" if str(part["hrf_choice"].iloc[0]) == name else ""
            ax.set_title(f"({PANEL_LETTERS[index]}) strategy {name}: ATT "
                         f"{part['ATT'].iloc[0]:.2f} s (paper {part['paper_ATT'].iloc[0]:g})"
                         f"{chosen}")
        fig.suptitle(f"{spec['target']}: worked example, simulated by our engine", fontsize=9)
    return fig


def _gantt(ax: Axes, part: pd.DataFrame, procs: int) -> None:
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


# ----------------------------------------------------------------------------- LOS family

LOS_METRIC_LABELS = {"utilization": "mean utilization", "AWT": "mean wait (s)",
                     "slowdown": "slowdown", "BSLD": "mean bounded slowdown",
                     "max_wait": "max wait (s)"}
LOS_COLORS = ("#1b5e9e", "#c2571a", "#2e8540", "#7b3294", "#b8860b", "#555555")


def _policy_name(spec: Mapping[str, Any], policy: str) -> str:
    from schedsim.experiments.los import show

    return show(policy, spec.get("policy_labels"))


def _style(index: int) -> dict[str, Any]:
    return {"color": LOS_COLORS[index % len(LOS_COLORS)], "marker": MARKERS[index % len(MARKERS)],
            "linestyle": LINESTYLES[index % len(LINESTYLES)]}


def _flat_line(ax: Axes, xs: Sequence[float], part: pd.DataFrame, metric: str,
               name: str, style: Mapping[str, Any]) -> None:
    """A policy without the swept parameter: its mean as a line, its 95% CI as a band."""
    mean = float(part[f"{metric}_mean"].iloc[0])
    half = float(part[f"{metric}_ci_half"].fillna(0.0).iloc[0])
    lo, hi = min(xs), max(xs)
    ax.plot([lo, hi], [mean, mean], color=style["color"], linestyle=style["linestyle"],
            linewidth=1.2, label=f"{name} (no C_s)")
    ax.fill_between([lo, hi], [mean - half] * 2, [mean + half] * 2, color=style["color"],
                    alpha=0.15, linewidth=0)


def cs_sweep_figure(table: pd.DataFrame, spec: Mapping[str, Any]) -> Figure:
    """LOS paper Figs. 5-6: utilization and wait vs C_s; policies without C_s as bands."""
    from schedsim.experiments.los import best_cs

    metrics, xs = spec["figure_metrics"], spec["sweep"]["c_s"]
    best = best_cs(table, spec["cs_policy"], spec.get("cs_metric", "AWT"))
    panel = spec["panels"][0]
    with matplotlib.rc_context(STYLE):
        fig, axes = panels(len(metrics))
        for index, (ax, metric) in enumerate(zip(axes, metrics, strict=True)):
            for p_index, policy in enumerate(spec["policies"]):
                part = table[table["policy"] == policy].sort_values("c_s")
                name, style = _policy_name(spec, policy), _style(p_index)
                if part["c_s"].notna().any():
                    errorbar(ax, part["c_s"].to_numpy(), part, metric, label=name, **style)
                else:
                    _flat_line(ax, xs, part, metric, name, style)
            ax.axvline(best, color="grey", linestyle=":", linewidth=1,
                       label=f"best C_s = {best} (lowest mean {spec.get('cs_metric', 'AWT')})")
            ax.set_title(f"({PANEL_LETTERS[index]}) {LOS_METRIC_LABELS.get(metric, metric)}")
            ax.set_xlabel("maximum skip count C_s")
            ax.grid(alpha=0.3)
        outside_legend(fig, axes[0], columns=len(spec["policies"]) + 1)
        fig.suptitle(f"{spec['target']}: load {table['load'].iloc[0]:g}, P_S {panel['ps']:g}; "
                     f"mean of {_seeds(table)} seeds, 95% CI", fontsize=9)
    return fig


def _panel_name(panel: Mapping[str, Any]) -> str:
    if "ps" not in panel:
        return str(panel["name"])
    text = f"P_S {panel['ps']:g}" + (f", P_D {panel['pd']:g}" if panel["pd"] else "")
    text += ", elastic" if panel["elastic"] else ""
    return text if panel["name"] == f"ps{panel['ps']:g}" else f"{panel['name']}: {text}"


def load_sweep_figure(table: pd.DataFrame, spec: Mapping[str, Any]) -> Figure:
    """LOS paper Figs. 1, 7-11: metrics vs offered load; one row of panels per workload case."""
    metrics, rows = spec["figure_metrics"], spec["panels"]
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(4.6 * len(metrics), 3.4 * len(rows)), layout="constrained")
        grid = fig.subplots(len(rows), len(metrics), squeeze=False)
        for r_index, panel in enumerate(rows):
            part = table[table["panel"].astype(str) == str(panel["name"])]
            for c_index, metric in enumerate(metrics):
                ax = grid[r_index][c_index]
                _load_lines(ax, part, panel["policies"], metric, spec)
                letter = PANEL_LETTERS[r_index * len(metrics) + c_index]
                ax.set_title(f"({letter}) {_panel_name(panel)}: "
                             f"{LOS_METRIC_LABELS.get(metric, metric)}")
                ax.set_xlabel("offered load")
                ax.grid(alpha=0.3)
                ax.legend(frameon=False)
        what = "trace segments" if spec["kind"] == "trace-sweep" else "seeds"
        fig.suptitle(f"{spec['target']}: mean of {_seeds(table)} {what}, 95% CI", fontsize=9)
    return fig


def _load_lines(ax: Axes, part: pd.DataFrame, policies: Sequence[str], metric: str,
                spec: Mapping[str, Any]) -> None:
    for p_index, policy in enumerate(policies):
        rows = part[part["policy"] == policy].sort_values("load")
        if rows.empty:
            continue
        name = _policy_name(spec, policy)
        if rows["c_s"].notna().any():
            name += f" (C_s = {int(rows['c_s'].dropna().iloc[0])})"
        shift = dodge(part["load"], p_index, len(policies))
        errorbar(ax, rows["load"].to_numpy() + shift, rows, metric, label=name,
                 **_style(p_index))


def improvement_figure(table: pd.DataFrame, spec: Mapping[str, Any]) -> Figure:
    """LOS paper Tables IV-VII as bars: our maximum % improvement (95% CI) beside the paper's."""
    baselines = spec["baselines"]
    width = 0.8 / (2 * len(baselines))
    with matplotlib.rc_context(STYLE):
        fig, (ax,) = panels(1, width=6.4, height=3.8)
        for b_index, baseline in enumerate(baselines):
            ours = table[f"{baseline}_ours"].to_numpy()
            low = (ours - table[f"{baseline}_ci_low"].to_numpy()).clip(min=0)
            high = (table[f"{baseline}_ci_high"].to_numpy() - ours).clip(min=0)
            xs = [i + (2 * b_index - len(baselines) + 0.5) * width for i in range(len(table))]
            name = _policy_name(spec, baseline)
            ax.bar(xs, ours, width=width, color=LOS_COLORS[b_index], label=f"ours vs {name}",
                   yerr=[low, high], capsize=2, error_kw={"linewidth": 0.8})
            ax.bar([x + width for x in xs], table[f"{baseline}_paper"], width=width,
                   color="white", edgecolor=LOS_COLORS[b_index], hatch="//",
                   label=f"paper vs {name}")
        ax.set_xticks(range(len(table)), list(table["metric"]))
        ax.axhline(0, color="black", linewidth=0.6)
        ax.set_ylabel("maximum % improvement over the loads")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(frameon=False)
        fig.suptitle(f"{spec['target']}: {_policy_name(spec, spec['policy'])} over "
                     f"{' and '.join(_policy_name(spec, b) for b in baselines)} "
                     f"({spec['sources'][0]}, panel {spec['panel']}); bars: 95% CI at the "
                     "load of the maximum", fontsize=9)
    return fig


def _seeds(table: pd.DataFrame) -> str:
    counts = sorted(set(int(n) for n in table["n_seeds"])) if "n_seeds" in table else []
    return "/".join(str(c) for c in counts) or "?"


FIGURE_KINDS: dict[str, Callable[[pd.DataFrame, Mapping[str, Any]], Figure]] = {
    "sweep": sweep_figure,
    "combined": combined_figure,
    "example": example_figure,
    "cs-sweep": cs_sweep_figure,
    "load-sweep": load_sweep_figure,
    "trace-sweep": load_sweep_figure,
    "improvement": improvement_figure,
}


def target_figure(table: pd.DataFrame, spec: Mapping[str, Any], png: str | Path,
                  pdf: str | Path) -> None:
    """Draw the figure of one target (kind from ``spec['kind']``) and save PNG and PDF."""
    save(FIGURE_KINDS[spec["kind"]](table, spec), png, pdf)
