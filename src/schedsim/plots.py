"""Generic figures from aggregated tables: one figure per target, PNG and PDF.

``sweep``: one panel per workload variant, x = the swept parameter, one line per
policy and metric (ATT, AWT, ART). ``combined``: bars of the combined metrics per
policy, one panel per variant. ``grid``: one row per panel of the target, one
column per metric. ``table``: the table drawn (derived and example targets). A
family registers figures of its own with :func:`register_figure`; this module
never imports a family.

Every comparison is drawn as it is judged. Beside the paper-style panels, a figure
that compares policies draws the *paired difference* the claims test: per
replication, policy A minus policy B on the same workload (``figure.compare`` in the
config, pairs ``[A, B]``; default: every policy minus the first), or each curve minus
its own value at one x (``figure.compare_x``), with the paired interval of
:func:`schedsim.verdicts.paired` at the target's level. A filled marker is an interval
that excludes 0 (significant, as the verdicts count it); a hollow one includes 0.
Values the paper prints are overlaid as black stars where a family registers them
(:func:`register_paper_values`); families name their columns in the papers' words
(:func:`register_labels`).

Output is byte-reproducible: no creation date or software version is written into
the files, and each is written to a temporary file and renamed.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schedsim.atomic import write_bytes_atomic
from schedsim.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from schedsim.experiments.spec import PanelSpec, TargetSpec
    from schedsim.stats import Interval

METRIC_COLORS = {"ATT": "#1b5e9e", "AWT": "#c2571a", "ART": "#2e8540"}
COLORS = ("#1b5e9e", "#c2571a", "#2e8540", "#7b3294", "#b8860b", "#555555", "#d6604d",
          "#4393c3")
METRIC_LABELS = {"utilization": "mean utilization", "AWT": "mean wait (s)",
                 "slowdown": "slowdown", "BSLD": "mean bounded slowdown",
                 "max_wait": "maximum wait (s)", "ATT": "mean turnaround (s)",
                 "ART": "mean run time (s)", "MRT": "mean response time (s)"}
# Paired differences in colours of their own: a difference is not one of the policies.
DIFFERENCE_COLORS = ("#222222", "#9a6324", "#469990", "#f032e6", "#808000", "#e6194b",
                     "#4363d8", "#f58231")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", ":", "-.")
PANEL_LETTERS = "abcdefghijklmnopqrstuvwxyz"
STYLE = {"font.size": 9, "axes.titlesize": 9, "legend.fontsize": 8, "svg.hashsalt": "schedsim",
         "pdf.fonttype": 42}
PNG_DPI = 150
PNG_METADATA: dict[str, Any] = {"Software": None}
PDF_METADATA: dict[str, Any] = {"CreationDate": None, "Creator": None, "Producer": None}
SVG_METADATA: dict[str, Any] = {"Date": None, "Creator": None}
FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}
DIFFERENCE_GID = "paired-difference"  # gid of a difference panel: "<gid>:<metric>"
PAPER_STYLE = {"marker": "*", "color": "black", "s": 70, "zorder": 6}
MINUS = "\u2212"


def save(fig: Figure, png: str | Path, pdf: str | Path) -> None:
    """Write ``fig`` as PNG and PDF without timestamps or version strings."""
    save_one(fig, png, "png")
    save_one(fig, pdf, "pdf")


def save_one(fig: Figure, path: str | Path, fmt: str | None = None) -> None:
    """Write ``fig`` to ``path`` in ``fmt`` (default: by the file's extension, PNG, PDF or
    SVG) without timestamps or version strings, atomically."""
    fmt = fmt or picture_format(path)
    meta = {"png": PNG_METADATA, "pdf": PDF_METADATA, "svg": SVG_METADATA}[fmt]
    buffer = io.BytesIO()
    kwargs: dict[str, Any] = {"dpi": PNG_DPI} if fmt == "png" else {}
    fig.savefig(buffer, format=fmt, metadata=meta, bbox_inches="tight", **kwargs)
    write_bytes_atomic(path, buffer.getvalue())


def picture_format(path: str | Path) -> str:
    """``png``, ``pdf`` or ``svg`` by the file's extension (anything else: InputError)."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise InputError(f"{path}: give a file name ending in {', '.join(FORMATS)}")
    return fmt


def panels(count: int, width: float = 4.3, height: float = 3.6) -> tuple[Figure, list[Axes]]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * count, height), layout="constrained")
    return fig, list(fig.subplots(1, count, squeeze=False)[0])


def grid_of(rows: int, columns: int, width: float = 4.3,
            height: float = 3.2) -> tuple[Figure, list[list[Axes]]]:
    """A constrained figure of ``rows`` x ``columns`` panels."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * columns, height * rows), layout="constrained")
    return fig, [list(row) for row in fig.subplots(rows, columns, squeeze=False)]


# ----------------------------------------------------------------------------- names

LabelFn = Callable[[Any], "str | None"]
_LABELS: dict[str, dict[str, str | LabelFn]] = {}


def register_labels(family: str, labels: Mapping[str, str | LabelFn]) -> None:
    """How a family's columns read in its paper: a name (``"c_s": "$C_s$"``; a value is
    shown as ``name value``), or a function of the value giving the text (None hides it).
    The key ``panel`` names panels by their config name."""
    _LABELS.setdefault(family, {}).update(labels)


def name_of(spec: TargetSpec, column: str) -> str:
    """A column or metric in the paper's words (the family's, else the generic ones)."""
    given = _LABELS.get(spec.family, {}).get(column)
    if isinstance(given, str):
        return given
    return METRIC_LABELS.get(column, column.replace("_", " "))


def value_text(spec: TargetSpec, column: str, value: Any) -> str | None:
    """``column = value`` in the paper's words; None when the family hides it."""
    given = _LABELS.get(spec.family, {}).get(column)
    if callable(given):
        return given(value)
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{given if isinstance(given, str) else column.replace('_', ' ')} {shown}"


def show(spec: TargetSpec, policy: str) -> str:
    return spec.show(policy)


# ----------------------------------------------------------------------------- paper values


@dataclass(frozen=True)
class PaperValue:
    """A number the paper prints, drawn over our results: its metric and where it sits
    (policy, variant, x; empty or NaN where the paper's number is not tied to one)."""

    metric: str
    value: float
    policy: str = ""
    variant: str = ""
    x: float = math.nan
    source: str = ""


PaperFn = Callable[["TargetSpec"], Sequence[PaperValue]]
_PAPER: dict[str, PaperFn] = {}


def register_paper_values(*targets: str) -> Callable[[PaperFn], PaperFn]:
    """Decorator: ``fn(spec)`` gives the paper's printed values for these targets (and
    their sensitivity readings)."""
    def wrap(fn: PaperFn) -> PaperFn:
        for target in targets:
            _PAPER[target] = fn
        return fn
    return wrap


def paper_values(spec: TargetSpec) -> list[PaperValue]:
    found = _PAPER.get(spec.base or spec.target)
    return list(found(spec)) if found is not None else []


def draw_paper(ax: Axes, values: Sequence[PaperValue], positions: Mapping[str, float] | None,
               label: str) -> None:
    """The paper's values as black stars; ``positions`` maps a policy to its x (bars), else
    the value's own x is used."""
    xs, ys = [], []
    for value in values:
        x = positions.get(value.policy, math.nan) if positions is not None else value.x
        if not math.isnan(x):
            xs.append(x)
            ys.append(value.value)
    if xs:
        ax.scatter(xs, ys, label=label, **PAPER_STYLE)


# ----------------------------------------------------------------------------- differences


@dataclass(frozen=True)
class Difference:
    """One paired difference drawn: ``a`` minus ``b`` per replication (for ``compare_x``,
    a policy at ``x`` minus the same policy at the reference x), at one point."""

    label: str
    a: str
    b: str
    variant: str
    panel: str
    metric: str
    x: float
    interval: Interval
    where: tuple[tuple[str, Any], ...] = ()  # A's point: key column -> value

    @property
    def significant(self) -> bool:
        """The interval excludes 0 (the verdicts' ``_significant`` in either direction)."""
        return self.interval.low > 0 or self.interval.high < 0


def comparisons(spec: TargetSpec) -> list[tuple[str, str]]:
    """The policy pairs (A, B) whose A - B a figure draws: ``figure.compare``, else every
    policy minus the first (none with ``compare_x``)."""
    if spec.figure.compare_x is not None:
        return []
    if spec.figure.compare:
        return [tuple(pair) for pair in spec.figure.compare]  # type: ignore[misc]
    return [(policy, spec.policies[0]) for policy in spec.policies[1:]]


def seeds_of(table: pd.DataFrame, spec: TargetSpec) -> pd.DataFrame:
    """The per-seed table the figure command attaches (``table.attrs['seeds']``)."""
    seeds = table.attrs.get("seeds")
    if seeds is None:
        raise ValueError(f"{spec.target}: the figure draws paired differences and needs the "
                         "per-seed table (python -m schedsim.experiments figure --seeds)")
    return seeds


def paired_differences(seeds: pd.DataFrame, spec: TargetSpec, metric: str) -> list[Difference]:
    """Every paired difference of ``metric`` the figure draws, in drawing order.

    A pair (A, B) is taken at every point of A; B's point is the one with the same
    variant and panel and the same value in every key column B's rows fill (a parameter
    B does not take is empty in its rows and not matched), as the claims pair them.
    ``compare_x`` pairs each point of a policy with the same point at that x.
    """
    if f"{metric}" not in seeds:
        return []
    if spec.figure.compare_x is not None:
        return curve_differences(seeds, spec, metric, float(spec.figure.compare_x))
    out = []
    for a, b in comparisons(spec):
        out.extend(_pair_differences(seeds, spec, metric, a, b))
    return out


def _keys(seeds: pd.DataFrame, spec: TargetSpec) -> list[str]:
    keys = [c for c in spec.group_by if c != "policy" and c in seeds]
    return keys + (["panel"] if "panel" in seeds and "panel" not in keys else [])


def _pair_differences(seeds: pd.DataFrame, spec: TargetSpec, metric: str, a: str,
                      b: str) -> list[Difference]:
    from schedsim.tables import per_seed, select
    from schedsim.verdicts import paired

    keys = _keys(seeds, spec)
    rows_a, rows_b = select(seeds, {"policy": a}), select(seeds, {"policy": b})
    if rows_a.empty or rows_b.empty:
        return []
    matched = [k for k in keys if rows_b[k].notna().any()]
    out = []
    for combo, part in rows_a.groupby(keys, dropna=False, sort=False):
        where = dict(zip(keys, combo if isinstance(combo, tuple) else (combo,), strict=True))
        theirs = per_seed(seeds, metric, {"policy": b, **{k: where[k] for k in matched}})
        if theirs.empty:
            continue
        ours = per_seed(seeds, metric, {"policy": a, **where})
        label = f"{show(spec, a)}{_point_note(spec, where)} {MINUS} {show(spec, b)}"
        out.append(Difference(label, a, b, str(where.get(spec.variant_column, "")),
                              str(where.get("panel", "")), metric, _x_of(part, spec),
                              paired(ours, theirs, spec.level), tuple(where.items())))
    return out


def _point_note(spec: TargetSpec, where: Mapping[str, Any]) -> str:
    """The swept parameters (other than x) that tell a point from its neighbours, e.g. the
    goal of a SLACK point: `` G2``."""
    parts = [value_text(spec, k, where[k]) for k, values in sorted(spec.sweep.items())
             if k != spec.x and len(values) > 1 and k in where and _present(where[k])]
    shown = ", ".join(p for p in parts if p)
    return f" ({shown})" if shown else ""


def _present(value: Any) -> bool:
    return not (isinstance(value, float) and math.isnan(value))


def curve_differences(seeds: pd.DataFrame, spec: TargetSpec, metric: str,
                      reference: float) -> list[Difference]:
    """Each point of every policy with the x column minus the same point at x = reference."""
    from schedsim.tables import per_seed, select
    from schedsim.verdicts import paired

    x = str(spec.x)
    keys = _keys(seeds, spec)
    if x not in keys:
        raise ValueError(f"{spec.target}: figure.compare_x needs x ({x}) to be a swept "
                         f"parameter of the target (swept: {', '.join(spec.sweep)})")
    out = []
    for policy in spec.policies:
        rows = select(seeds, {"policy": policy})
        if rows.empty or rows[x].isna().all():
            continue
        for combo, _ in rows.groupby(keys, dropna=False, sort=False):
            where = dict(zip(keys, combo if isinstance(combo, tuple) else (combo,), strict=True))
            base = per_seed(seeds, metric, {"policy": policy, **where, x: reference})
            if base.empty:
                continue
            ours = per_seed(seeds, metric, {"policy": policy, **where})
            out.append(Difference(show(spec, policy) + _point_note(spec, where), policy,
                                  policy, str(where.get(spec.variant_column, "")),
                                  str(where.get("panel", "")), metric, float(where[x]),
                                  paired(ours, base, spec.level), tuple(where.items())))
    return out


def _x_of(part: pd.DataFrame, spec: TargetSpec) -> float:
    x = spec.x
    if x is None or x not in part or part[x].isna().all():
        return math.nan
    return float(part[x].iloc[0])


def difference_title(spec: TargetSpec, metric: str) -> str:
    if spec.figure.compare_x is not None:
        what = (f"minus its value at {name_of(spec, str(spec.x))} = "
                f"{spec.figure.compare_x:g}")
    else:
        what = "A " + MINUS + " B, paired"
    return f"{name_of(spec, metric)}: {what}"


def draw_difference_curves(ax: Axes, diffs: Sequence[Difference], spec: TargetSpec,
                           metric: str, styles: Mapping[str, Mapping[str, Any]] | None = None
                           ) -> None:
    """Each difference series against x with its paired interval; filled markers exclude 0."""
    ax.set_gid(f"{DIFFERENCE_GID}:{metric}")
    ax.axhline(0.0, color="black", linewidth=0.8)
    labels = list(dict.fromkeys(d.label for d in diffs))
    xs = sorted({d.x for d in diffs})
    for index, label in enumerate(labels):
        series = sorted((d for d in diffs if d.label == label), key=lambda d: d.x)
        style = dict((styles or {}).get(label) or _difference_style(index))
        shift = _dodge(xs, index, len(labels))
        _errorbar(ax, [d.x + shift for d in series], [d.interval for d in series], label,
                  style)
    set_x_ticks(ax, xs)
    _difference_axis(ax, spec, metric)


def draw_difference_forest(ax: Axes, diffs: Sequence[Difference], spec: TargetSpec,
                           metric: str, tick_labels: bool = True,
                           styles: Mapping[str, Mapping[str, Any]] | None = None) -> None:
    """One row per difference (no x): the mean and its paired interval, horizontally;
    each row in its label's colour of ``styles`` (:func:`styles_by_name`), else its own."""
    ax.set_gid(f"{DIFFERENCE_GID}:{metric}")
    ax.axvline(0.0, color="black", linewidth=0.8)
    for row, diff in enumerate(diffs):
        color = (styles[diff.label]["color"] if styles
                 else DIFFERENCE_COLORS[row % len(DIFFERENCE_COLORS)])
        style = {"color": color, "marker": "o"}
        _errorbar(ax, [diff.interval.mean], [diff.interval], diff.label, style,
                  horizontal=row)
    ax.set_yticks(range(len(diffs)), [d.label.replace(f" {MINUS} ", f"\n{MINUS} ")
                                      for d in diffs] if tick_labels else [""] * len(diffs))
    ax.set_ylim(len(diffs) - 0.5, -0.5)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    _difference_axis(ax, spec, metric, axis="x")


def _errorbar(ax: Axes, xs: Sequence[float], intervals: Sequence[Interval], label: str,
              style: Mapping[str, Any], horizontal: int | None = None) -> None:
    """Means with their paired intervals; hollow markers where the interval includes 0."""
    import numpy as np

    means = np.array([i.mean for i in intervals])
    errors = [np.array([i.mean - i.low for i in intervals]),  # NaN: no interval, no bar
              np.array([i.high - i.mean for i in intervals])]
    color = style.get("color", COLORS[0])
    common = {"capsize": 2.5, "linewidth": 1.1, "markersize": 5, "color": color,
              "marker": style.get("marker", "o"), "label": label}
    if horizontal is None:
        ax.errorbar(xs, means, yerr=errors, linestyle=style.get("linestyle", "-"), **common)
        points = list(zip(xs, means, strict=True))
    else:
        ax.errorbar(means, [horizontal] * len(means), xerr=errors, linestyle="none", **common)
        points = [(m, horizontal) for m in means]
    hollow = [p for p, i in zip(points, intervals, strict=True)
              if not (i.low > 0 or i.high < 0)]
    if hollow:
        ax.scatter([p[0] for p in hollow], [p[1] for p in hollow], s=26, facecolors="white",
                   edgecolors=color, marker=style.get("marker", "o"), zorder=5, linewidths=1.1)


def _difference_axis(ax: Axes, spec: TargetSpec, metric: str, axis: str = "y") -> None:
    name = "utilization" if metric == "utilization" else name_of(spec, metric)
    unit = " (percentage points)" if metric == "utilization" else \
        " (s)" if name.endswith("(s)") else ""
    (ax.set_ylabel if axis == "y" else ax.set_xlabel)(f"paired difference{unit}")
    _value_format(name, ax.yaxis if axis == "y" else ax.xaxis, difference=True)
    ax.grid(alpha=0.3)


def significance_note(spec: TargetSpec) -> str:
    return (f"lower rows: paired differences, {spec.level:.0%} CI over {spec.seed_unit}; "
            "filled marker = interval excludes 0")


# ----------------------------------------------------------------------------- axes


def set_x_ticks(ax: Axes, values: Sequence[float]) -> None:
    """Ticks at the x values the target ran (up to 12 of them); more integer values get
    integer ticks."""
    finite = sorted({float(v) for v in values if not math.isnan(float(v))})
    if not finite:
        return
    if len(finite) <= 12:
        ax.set_xticks(finite, [f"{v:g}" for v in finite])
    elif all(v.is_integer() for v in finite):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 5, 10]))


def integer_axis(ax: Axes, axis: str = "y") -> None:
    """Integer ticks only (counts)."""
    from matplotlib.ticker import MaxNLocator

    (ax.yaxis if axis == "y" else ax.xaxis).set_major_locator(MaxNLocator(integer=True))


def _value_format(metric_name: str, axis: Any, difference: bool = False) -> None:
    """Seconds with thousands separators; utilization as a percentage (a difference of
    utilizations in percentage points)."""
    from matplotlib.ticker import FuncFormatter, PercentFormatter

    if metric_name == "utilization":
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:g}") if difference
                                 else PercentFormatter(xmax=1.0, decimals=0))
    elif metric_name.endswith("(s)"):
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if abs(v) >= 1000
                                               else f"{v:g}"))


def metric_axis(ax: Axes, spec: TargetSpec, metric: str) -> None:
    """The y axis of a metric: its name; utilization as a percentage, seconds with
    thousands separators."""
    ax.set_ylabel(name_of(spec, metric))
    _value_format("utilization" if metric == "utilization" else name_of(spec, metric),
                  ax.yaxis)


def outside_legend(fig: Figure, axes: Sequence[Axes], columns: int | None = None,
                   where: str = "outside lower center") -> None:
    """One legend for the figure, outside the panels, each label once."""
    found: dict[str, Any] = {}
    for ax in axes:
        handles, labels = ax.get_legend_handles_labels()
        for handle, label in zip(handles, labels, strict=True):
            found.setdefault(label, handle)
    if found:
        fig.legend(list(found.values()), list(found), loc=where, frameon=False,
                   ncols=columns or min(len(found), 4))


def errorbar(ax: Axes, x: Sequence[float], part: pd.DataFrame, metric: str,
             **style: Any) -> None:
    """Means with their CI error bars (no bar when the interval is undefined)."""
    mean = part[f"{metric}_mean"].to_numpy()
    half = part[f"{metric}_ci_half"].fillna(0.0).to_numpy()
    ax.errorbar(x, mean, yerr=half, capsize=2.5, linewidth=1.2, markersize=4, **style)


def _dodge(xs: Sequence[float], index: int, count: int) -> float:
    """A small x offset per series so that error bars at the same x do not hide each other."""
    span = (max(xs) - min(xs)) if len(xs) > 1 else 1.0
    return 0.012 * (span or 1.0) * (index - (count - 1) / 2)


def dodge(values: pd.Series, index: int, count: int) -> float:
    return _dodge([float(v) for v in values.dropna()] or [0.0], index, count)


def styles_by_name(names: Iterable[str], differences: bool = False
                   ) -> dict[str, dict[str, Any]]:
    """One style per name for a whole figure, whose one legend lists each name once: the
    names in the order first seen (panels with names of their own never draw two alike).
    ``differences``: the paired differences' styles, else the policies'."""
    style = _difference_style if differences else _style
    return {name: style(index) for index, name in enumerate(dict.fromkeys(names))}


def _style(index: int) -> dict[str, Any]:
    return {"color": COLORS[index % len(COLORS)], "marker": MARKERS[index % len(MARKERS)],
            "linestyle": LINESTYLES[index % len(LINESTYLES)]}


def _difference_style(index: int) -> dict[str, Any]:
    return {"color": DIFFERENCE_COLORS[index % len(DIFFERENCE_COLORS)],
            "marker": MARKERS[index % len(MARKERS)],
            "linestyle": LINESTYLES[index % len(LINESTYLES)]}


def suptitle(fig: Figure, text: str) -> None:
    """The figure's title, wrapped to the figure's width (each line of ``text`` apart)."""
    import textwrap

    width = max(75, int(fig.get_figwidth() * 15))
    fig.suptitle("\n".join(textwrap.fill(line, width) for line in text.split("\n")),
                 fontsize=9)


def letter(index: int) -> str:
    return f"({PANEL_LETTERS[index % len(PANEL_LETTERS)]})"


def replications(table: pd.DataFrame) -> str:
    counts = sorted(set(int(n) for n in table["n_seeds"])) if "n_seeds" in table else []
    return "/".join(str(c) for c in counts) or "?"


def ordered(spec: TargetSpec, labels: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Labels in a fixed order: the family's registered names first, in their order, then
    the others by name (a spec read from JSON has its keys sorted, one planned from the
    config has them in config order: the title must not depend on which)."""
    known = list(_LABELS.get(spec.family, {}))
    rank = {name: index for index, name in enumerate(known)}
    return sorted(labels.items(), key=lambda item: (rank.get(item[0], len(known)), item[0]))


def variant_title(spec: TargetSpec, variant: str, skip: Sequence[str] = ()) -> str:
    """A variant by its labels in the paper's words (labels in ``skip`` left out)."""
    labels = spec.variant_labels.get(variant, {})
    parts = [value_text(spec, k, v) for k, v in ordered(spec, labels)
             if k not in ("panel", *skip)]
    shown = ", ".join(p for p in parts if p)
    return shown or variant


# ----------------------------------------------------------------------------- sweep


def sweep_figure(table: pd.DataFrame, spec: TargetSpec) -> Figure:
    """ATT, AWT, ART vs the swept parameter, one panel per variant; below, one row per
    metric of the paired differences."""
    import matplotlib

    x, column = str(spec.x), spec.variant_column
    metrics = [m for m in METRIC_COLORS if f"{m}_mean" in table]
    variants = spec.variants
    seeds = seeds_of(table, spec)
    with matplotlib.rc_context(STYLE):
        fig, grid = grid_of(1 + len(metrics), len(variants), width=4.3, height=3.0)
        for index, variant in enumerate(variants):
            ax = grid[0][index]
            for p_index, policy in enumerate(spec.policies):
                part = table[(table[column] == variant) & (table["policy"] == policy)]
                part = part.sort_values(x)
                shift = dodge(table[x], p_index, len(spec.policies))
                for metric in metrics:
                    errorbar(ax, part[x].to_numpy() + shift, part, metric,
                             color=METRIC_COLORS[metric],
                             marker=MARKERS[p_index % len(MARKERS)],
                             linestyle=LINESTYLES[p_index % len(LINESTYLES)],
                             label=f"{metric} {show(spec, policy)}")
            ax.set_title(f"{letter(index)} {variant} load ({variant_title(spec, variant)})")
            ax.set_ylabel("time (s)")
            _value_format("(s)", ax.yaxis)
            set_x_ticks(ax, sorted(table[x].dropna().unique()))
            ax.grid(alpha=0.3)
            for m_index, metric in enumerate(metrics):
                diff_ax = grid[1 + m_index][index]
                diffs = [d for d in paired_differences(seeds, spec, metric)
                         if d.variant == variant]
                draw_difference_curves(diff_ax, diffs, spec, metric,
                                       _policy_styles(spec, metric))
                diff_ax.set_title(f"{letter(len(variants) * (1 + m_index) + index)} "
                                  f"{difference_title(spec, metric)}")
            grid[-1][index].set_xlabel(name_of(spec, x))
        outside_legend(fig, grid[0], columns=2 * len(metrics))
        suptitle(fig, f"{spec.target}: mean of {replications(table)} {spec.seed_unit}, "
                     f"{spec.level:.0%} CI; {significance_note(spec)}")
    return fig


def _policy_styles(spec: TargetSpec, metric: str) -> dict[str, dict[str, Any]]:
    """The difference curve of a policy drawn as its line in the top row."""
    return {show(spec, p): {"color": METRIC_COLORS.get(metric, COLORS[0]),
                            "marker": MARKERS[i % len(MARKERS)],
                            "linestyle": LINESTYLES[i % len(LINESTYLES)]}
            for i, p in enumerate(spec.policies)}


# ----------------------------------------------------------------------------- combined


def combined_figure(table: pd.DataFrame, spec: TargetSpec) -> Figure:
    """Combined ATT, AWT, ART per policy (bars with CIs), one panel per variant; below, one
    row per metric of the paired differences; the paper's printed values as stars."""
    import matplotlib

    column, variants = spec.variant_column, spec.variants
    policies = [p for p in spec.policies if p in set(table["policy"])]
    metrics = [m for m in METRIC_COLORS if f"{m}_mean" in table]
    seeds = seeds_of(table, spec)
    paper = paper_values(spec)
    width = 0.8 / len(metrics)
    with matplotlib.rc_context(STYLE):
        fig, grid = grid_of(1 + len(metrics), len(variants), width=5.0, height=3.3)
        for index, variant in enumerate(variants):
            ax = grid[0][index]
            part = table[table[column] == variant].set_index("policy").loc[policies]
            for m_index, metric in enumerate(metrics):
                offset = (m_index - (len(metrics) - 1) / 2) * width
                xs = [i + offset for i in range(len(policies))]
                ax.bar(xs, part[f"{metric}_mean"], width=width, color=METRIC_COLORS[metric],
                       yerr=part[f"{metric}_ci_half"].fillna(0.0), capsize=2,
                       label=f"combined {metric}", error_kw={"linewidth": 0.8})
                draw_paper(ax, [v for v in paper if v.metric == metric and v.variant == variant],
                           {p: i + offset for i, p in enumerate(policies)},
                           f"paper ({paper[0].source})" if paper else "paper")
            ax.set_xticks(range(len(policies)), [show(spec, p) for p in policies],
                          rotation=45, ha="right")
            ax.set_title(f"{letter(index)} {variant} load ({variant_title(spec, variant)})")
            ax.set_ylabel("time (s)")
            _value_format("(s)", ax.yaxis)
            ax.grid(axis="y", alpha=0.3)
            for m_index, metric in enumerate(metrics):
                diff_ax = grid[1 + m_index][index]
                diffs = [d for d in paired_differences(seeds, spec, metric)
                         if d.variant == variant]
                draw_difference_forest(diff_ax, diffs, spec, metric, tick_labels=index == 0)
                diff_ax.set_title(f"{letter(len(variants) * (1 + m_index) + index)} "
                                  f"{difference_title(spec, metric)}")
        outside_legend(fig, grid[0])
        points = int(table["n_points"].max()) if "n_points" in table else 1
        suptitle(fig, f"{spec.target}: mean over {points} parameter points and "
                     f"{replications(table)} {spec.seed_unit}, {spec.level:.0%} CI over "
                     f"{spec.seed_unit}; {significance_note(spec)}")
    return fig


# ----------------------------------------------------------------------------- grid


def grid_figure(table: pd.DataFrame, spec: TargetSpec) -> Figure:
    """Per panel of the target: a row of metrics against ``spec.x`` (one line per policy
    with its CI; a policy without the x parameter as a flat line with its CI as a band;
    a chosen parameter named in the legend; a target that chooses a parameter marks the
    chosen value), and below it the row of the paired differences."""
    import matplotlib

    metrics = list(spec.figure.metrics) or ["AWT"]
    rows = list(spec.panels)
    seeds = seeds_of(table, spec)
    policy_styles = styles_by_name(policy for panel in rows for policy in panel.policies)
    all_diffs = {metric: paired_differences(seeds, spec, metric) for metric in metrics}
    difference_styles = styles_by_name(
        (d.label for diffs in all_diffs.values() for d in diffs), differences=True)
    with matplotlib.rc_context(STYLE):
        fig, grid = grid_of(2 * len(rows), len(metrics), width=4.8, height=3.1)
        count = 0
        for r_index, panel in enumerate(rows):
            part = table[table["panel"].astype(str) == panel.name] if "panel" in table \
                else table
            for c_index, metric in enumerate(metrics):
                ax, diff_ax = grid[2 * r_index][c_index], grid[2 * r_index + 1][c_index]
                _grid_lines(ax, part, panel.policies, metric, spec, policy_styles)
                ax.set_title(f"{letter(count)} {_panel_title(panel, spec)}: "
                             f"{name_of(spec, metric)}")
                metric_axis(ax, spec, metric)
                ax.grid(alpha=0.3)
                diffs = [d for d in all_diffs[metric] if d.panel in ("", panel.name)]
                draw_difference_curves(diff_ax, diffs, spec, metric, difference_styles)
                diff_ax.set_title(f"{letter(count + len(metrics))} "
                                  f"{difference_title(spec, metric)}")
                diff_ax.set_xlabel(name_of(spec, str(spec.x)))
                count += 1
            count += len(metrics)
        outside_legend(fig, [ax for row in grid for ax in row], columns=3)
        on_log = f" on the log {spec.trace}" if spec.trace else ""
        suptitle(fig, f"{spec.target}{on_log}: mean of {replications(table)} {spec.seed_unit}, "
                     f"{spec.level:.0%} CI; {significance_note(spec)}")
    return fig


def _panel_title(panel: PanelSpec, spec: TargetSpec) -> str:
    """The panel's name and the variant labels its variants share (but the x column)."""
    labels = [dict(v) for v in spec.variant_labels.values()
              if v.get("panel", panel.name) == panel.name]
    shared = {k: val for k, val in (labels[0] if labels else {}).items()
              if k not in ("panel", spec.x) and all(other.get(k) == val for other in labels)}
    parts = [value_text(spec, k, val) for k, val in ordered(spec, shared)]
    named = value_text(spec, "panel", panel.name) if "panel" in _LABELS.get(spec.family, {}) \
        else panel.name
    text = ", ".join(p for p in parts if p)
    if named and text:
        return f"{named} ({text})"
    return named or text or spec.target


def _grid_lines(ax: Axes, part: pd.DataFrame, policies: Sequence[str], metric: str,
                spec: TargetSpec, styles: Mapping[str, dict[str, Any]]) -> None:
    x = str(spec.x)
    xs = sorted(float(v) for v in part[x].dropna().unique()) if x in part else []
    for p_index, policy in enumerate(policies):
        rows = part[part["policy"] == policy]
        if rows.empty or not xs:
            continue
        style = styles[policy]
        name = show(spec, policy) + _chosen_note(rows, spec)
        if rows[x].notna().any():
            rows = rows.sort_values(x)
            shift = dodge(part[x], p_index, len(policies))
            errorbar(ax, rows[x].to_numpy() + shift, rows, metric, label=name, **style)
        else:
            _flat_line(ax, xs, rows, metric, f"{name} (no {name_of(spec, x)})", style)
    set_x_ticks(ax, xs)
    if spec.choose is not None and spec.choose.param == x:
        best = _best(part, spec)
        if best is not None:
            ax.axvline(best, color="grey", linestyle=":", linewidth=1,
                       label=f"chosen {name_of(spec, x)} = {best:g} (lowest mean "
                             f"{spec.choose.metric} of {show(spec, spec.choose.policy)})")


def _chosen_note(rows: pd.DataFrame, spec: TargetSpec) -> str:
    chosen = [p for panel in spec.panels for p in panel.chosen if p in rows and p != spec.x]
    values = [f"{name_of(spec, p)} = {rows[p].dropna().iloc[0]:g}" for p in dict.fromkeys(chosen)
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


def _flat_line(ax: Axes, xs: Sequence[float], part: pd.DataFrame, metric: str,
               name: str, style: Mapping[str, Any]) -> None:
    """A policy without the x parameter: its mean as a line, its CI as a band."""
    mean = float(part[f"{metric}_mean"].iloc[0])
    half = float(part[f"{metric}_ci_half"].fillna(0.0).iloc[0])
    lo, hi = min(xs), max(xs)
    ax.plot([lo, hi], [mean, mean], color=style["color"], linestyle=style["linestyle"],
            linewidth=1.2, label=name)
    ax.fill_between([lo, hi], [mean - half] * 2, [mean + half] * 2, color=style["color"],
                    alpha=0.15, linewidth=0)


# ----------------------------------------------------------------------------- table


def table_figure(table: pd.DataFrame, spec: TargetSpec) -> Figure:
    """The table itself, drawn (the default figure of derived and example targets; the
    summary page shows the table as HTML instead)."""
    import matplotlib

    shown = table.drop(columns=[c for c in ("target",) if c in table])
    cells = [[_cell(v) for v in row] for row in shown.itertuples(index=False)]
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(min(1.3 * len(shown.columns) + 1, 20), 0.3 * len(cells) + 1.0),
                     layout="constrained")
        ax = fig.subplots()
        ax.axis("off")
        drawn = ax.table(cellText=cells, colLabels=[c.replace("_", " ") for c in shown.columns],
                         loc="center")
        drawn.auto_set_font_size(False)
        drawn.set_fontsize(7)
        suptitle(fig, f"{spec.target}")
    return fig


def _cell(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


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
    caller imports it). Figures that draw paired differences read the per-seed table
    from ``table.attrs['seeds']``.
    """
    save(draw(table, spec), png, pdf)


def draw(table: pd.DataFrame, spec: TargetSpec) -> Figure:
    """The figure ``spec.figure.name`` of one target (not saved)."""
    if spec.figure.name not in _FIGURES:
        raise ValueError(f"{spec.target}: unknown figure {spec.figure.name!r}; known: "
                         f"{', '.join(figure_names())}")
    return _FIGURES[spec.figure.name](table, spec)
