"""Generic figures from aggregated tables: one figure per target, PNG and PDF.

``sweep``: one panel per workload variant, x = the swept parameter, one line per
policy and metric (ATT, AWT, ART). ``combined``: bars of the combined metrics per
policy, one panel per variant. ``grid``: one row per panel of the target, one
column per metric. ``table``: the table drawn (derived and example targets). A
family registers figures of its own with :func:`register_figure`; this module
never imports a family. Every point carries its 95% confidence interval.
Output is byte-reproducible: no creation date or software version is written
into the files, and both are written to a temporary file and renamed.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedsim.atomic import write_bytes_atomic

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from schedsim.experiments.spec import PanelSpec, TargetSpec

METRIC_COLORS = {"ATT": "#1b5e9e", "AWT": "#c2571a", "ART": "#2e8540"}
COLORS = ("#1b5e9e", "#c2571a", "#2e8540", "#7b3294", "#b8860b", "#555555")
METRIC_LABELS = {"utilization": "mean utilization", "AWT": "mean wait (s)",
                 "slowdown": "slowdown", "BSLD": "mean bounded slowdown",
                 "max_wait": "max wait (s)", "ATT": "mean turnaround (s)",
                 "ART": "mean run time (s)"}
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
    from matplotlib.figure import Figure

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


def sweep_figure(table: pd.DataFrame, spec: TargetSpec) -> Figure:
    """ATT, AWT, ART vs the swept parameter; one panel per variant, one line per policy/metric."""
    import matplotlib

    x, column = str(spec.x), spec.variant_column
    metrics = [m for m in METRIC_COLORS if f"{m}_mean" in table]
    variants = spec.variants
    with matplotlib.rc_context(STYLE):
        fig, axes = panels(len(variants))
        for index, (ax, variant) in enumerate(zip(axes, variants, strict=True)):
            for p_index, policy in enumerate(spec.policies):
                part = table[(table[column] == variant) & (table["policy"] == policy)]
                part = part.sort_values(x)
                shift = dodge(table[x], p_index, len(spec.policies))
                for metric in metrics:
                    errorbar(ax, part[x].to_numpy() + shift, part, metric,
                             color=METRIC_COLORS[metric],
                             marker=MARKERS[p_index % len(MARKERS)],
                             linestyle=LINESTYLES[p_index % len(LINESTYLES)],
                             label=f"{metric} {policy}")
            ax.set_title(panel_title(index, variant, spec.variant_labels.get(variant, {})))
            ax.set_xlabel(x)
            ax.set_ylabel("time (s)")
            ax.grid(alpha=0.3)
        outside_legend(fig, axes[0], columns=2 * len(metrics))
        fig.suptitle(f"{spec.target}: mean of {_seeds(table)} seeds, 95% CI", fontsize=9)
    return fig


def combined_figure(table: pd.DataFrame, spec: TargetSpec) -> Figure:
    """Combined ATT, AWT, ART per policy (bars with CIs); one panel per variant."""
    import matplotlib

    column, variants = spec.variant_column, spec.variants
    policies = [p for p in spec.policies if p in set(table["policy"])]
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
            ax.set_title(panel_title(index, variant, spec.variant_labels.get(variant, {})))
            ax.set_ylabel("time (s)")
            ax.grid(axis="y", alpha=0.3)
        outside_legend(fig, axes[0], columns=len(metrics))
        points = int(table["n_points"].max()) if "n_points" in table else 1
        fig.suptitle(f"{spec.target}: mean over {points} parameter points and "
                     f"{_seeds(table)} seeds, 95% CI over seeds", fontsize=9)
    return fig


# ----------------------------------------------------------------------------- grid


def grid_figure(table: pd.DataFrame, spec: TargetSpec) -> Figure:
    """One row of panels per panel of the target, one column per metric, x = ``spec.x``.

    One line per policy with its 95% CI; a policy without the x parameter (its x
    column empty) is drawn as a flat line with its CI as a band. A chosen
    parameter's value is named in the legend; a target that chooses a parameter
    marks the chosen value.
    """
    import matplotlib

    metrics = list(spec.figure.metrics) or ["AWT"]
    rows = list(spec.panels)
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(4.6 * len(metrics), 3.4 * len(rows)), layout="constrained")
        grid = fig.subplots(len(rows), len(metrics), squeeze=False)
        for r_index, panel in enumerate(rows):
            part = table[table["panel"].astype(str) == panel.name] if "panel" in table \
                else table
            for c_index, metric in enumerate(metrics):
                ax = grid[r_index][c_index]
                _grid_lines(ax, part, panel.policies, metric, spec)
                letter = PANEL_LETTERS[(r_index * len(metrics) + c_index) % len(PANEL_LETTERS)]
                ax.set_title(f"({letter}) {_panel_title(panel, spec)}: "
                             f"{METRIC_LABELS.get(metric, metric)}")
                ax.set_xlabel(str(spec.x))
                ax.grid(alpha=0.3)
                ax.legend(frameon=False)
        on_log = f" on the log {spec.trace}" if spec.trace else ""
        fig.suptitle(f"{spec.target}{on_log}: mean of {_seeds(table)} {spec.seed_unit}, "
                     "95% CI", fontsize=9)
    return fig


def _panel_title(panel: PanelSpec, spec: TargetSpec) -> str:
    """The panel's name and the variant labels its variants share (but the x column)."""
    labels = [dict(v) for v in spec.variant_labels.values()
              if v.get("panel", panel.name) == panel.name]
    shared = {k: val for k, val in (labels[0] if labels else {}).items()
              if k not in ("panel", spec.x) and all(other.get(k) == val for other in labels)}
    values = ", ".join(f"{k} {val:g}" if isinstance(val, float) else f"{k} {val}"
                       for k, val in shared.items())
    return f"{panel.name}" + (f" ({values})" if values else "")


def _grid_lines(ax: Axes, part: pd.DataFrame, policies: Sequence[str], metric: str,
                spec: TargetSpec) -> None:
    x = str(spec.x)
    xs = sorted(float(v) for v in part[x].dropna().unique()) if x in part else []
    for p_index, policy in enumerate(policies):
        rows = part[part["policy"] == policy]
        if rows.empty or not xs:
            continue
        style = _style(p_index)
        name = spec.show(policy) + _chosen_note(rows, spec)
        if rows[x].notna().any():
            rows = rows.sort_values(x)
            shift = dodge(part[x], p_index, len(policies))
            errorbar(ax, rows[x].to_numpy() + shift, rows, metric, label=name, **style)
        else:
            _flat_line(ax, xs, rows, metric, f"{name} (no {x})", style)
    if spec.choose is not None and spec.choose.param == x:
        best = _best(part, spec)
        if best is not None:
            ax.axvline(best, color="grey", linestyle=":", linewidth=1,
                       label=f"chosen {x} = {best:g} (lowest mean {spec.choose.metric})")


def _chosen_note(rows: pd.DataFrame, spec: TargetSpec) -> str:
    chosen = [p for panel in spec.panels for p in panel.chosen if p in rows and p != spec.x]
    values = [f"{p} = {rows[p].dropna().iloc[0]:g}" for p in dict.fromkeys(chosen)
              if rows[p].notna().any()]
    return f" ({', '.join(values)})" if values else ""


def _best(part: pd.DataFrame, spec: TargetSpec) -> float | None:
    rule = spec.choose
    assert rule is not None
    rows = part[(part["policy"] == rule.policy) & part[rule.param].notna()]
    if rows.empty:
        return None
    rows = rows.sort_values([f"{rule.metric}_mean", rule.param], kind="stable")
    return float(rows[rule.param].iloc[0])


def _style(index: int) -> dict[str, Any]:
    return {"color": COLORS[index % len(COLORS)], "marker": MARKERS[index % len(MARKERS)],
            "linestyle": LINESTYLES[index % len(LINESTYLES)]}


def _flat_line(ax: Axes, xs: Sequence[float], part: pd.DataFrame, metric: str,
               name: str, style: Mapping[str, Any]) -> None:
    """A policy without the x parameter: its mean as a line, its 95% CI as a band."""
    mean = float(part[f"{metric}_mean"].iloc[0])
    half = float(part[f"{metric}_ci_half"].fillna(0.0).iloc[0])
    lo, hi = min(xs), max(xs)
    ax.plot([lo, hi], [mean, mean], color=style["color"], linestyle=style["linestyle"],
            linewidth=1.2, label=name)
    ax.fill_between([lo, hi], [mean - half] * 2, [mean + half] * 2, color=style["color"],
                    alpha=0.15, linewidth=0)


# ----------------------------------------------------------------------------- table


def table_figure(table: pd.DataFrame, spec: TargetSpec) -> Figure:
    """The table itself, drawn (the default figure of derived and example targets)."""
    import matplotlib

    shown = table.drop(columns=[c for c in ("target",) if c in table])
    cells = [[_cell(v) for v in row] for row in shown.itertuples(index=False)]
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(min(1.3 * len(shown.columns) + 1, 20), 0.3 * len(cells) + 1.0),
                     layout="constrained")
        ax = fig.subplots()
        ax.axis("off")
        drawn = ax.table(cellText=cells, colLabels=list(shown.columns), loc="center")
        drawn.auto_set_font_size(False)
        drawn.set_fontsize(7)
        fig.suptitle(f"{spec.target}", fontsize=9)
    return fig


def _cell(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _seeds(table: pd.DataFrame) -> str:
    counts = sorted(set(int(n) for n in table["n_seeds"])) if "n_seeds" in table else []
    return "/".join(str(c) for c in counts) or "?"


# ----------------------------------------------------------------------------- registry

FigureFn = Callable[["pd.DataFrame", "TargetSpec"], Any]
_FIGURES: dict[str, FigureFn] = {"sweep": sweep_figure, "combined": combined_figure,
                                 "grid": grid_figure, "table": table_figure}


def register_figure(name: str) -> Callable[[FigureFn], FigureFn]:
    """Decorator: a family's own figure, for targets whose ``figure.name`` is ``name``."""
    def wrap(fn: FigureFn) -> FigureFn:
        _FIGURES[name] = fn
        return fn
    return wrap


def figure_names() -> list[str]:
    return sorted(_FIGURES)


def target_figure(table: pd.DataFrame, spec: TargetSpec, png: str | Path,
                  pdf: str | Path) -> None:
    """Draw the figure ``spec.figure.name`` of one target and save PNG and PDF.

    A family's own figures are registered when its module is imported (the
    caller imports it).
    """
    if spec.figure.name not in _FIGURES:
        raise ValueError(f"{spec.target}: unknown figure {spec.figure.name!r}; known: "
                         f"{', '.join(figure_names())}")
    save(_FIGURES[spec.figure.name](table, spec), png, pdf)
