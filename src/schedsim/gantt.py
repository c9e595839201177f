"""Pictures of one schedule: a Gantt chart, the queue length and the utilization over time.

``schedsim plot SCHEDULE --out FILE.png`` draws any schedule ``schedsim simulate`` writes
(:mod:`schedsim.schedule_file`): every job as rectangles over its processors and its run
segments, a suspended job's segments hatched and joined by a dotted line across its
suspension, partitions separated and named; below, the number of waiting jobs
(submitted, not running: queued or suspended) and the share of busy processors. A time
window (``--start``, ``--end``) draws part of a long log; only the jobs that run in it
are placed, so a week of a 200,000-job log takes seconds.

Where the run did not name the processors (a plain machine), they are assigned for the
picture only: each run segment, in start order (an end frees its processors before a
start at the same instant), takes the lowest block of contiguous free processors of its
partition, or where no block is free the lowest-numbered free ones, beginning with the
segments running at the window's start in their start order. Segments that follow each
other without a gap (a time-slicing calendar ending and resuming a job at one instant)
are drawn as one. A
schedule that uses more processors than its partition has cannot be drawn so and is an
error. Output is byte-reproducible (``schedsim.plots.save``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from schedsim.errors import InputError
from schedsim.schedule_file import Processors, RunSegment, ScheduleData

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# A qualitative palette without the greys (tab20's colours), cycled over the jobs.
JOB_COLORS = ("#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728",
              "#ff9896", "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2",
              "#bcbd22", "#dbdb8d", "#17becf", "#9edae5")
PARTITION_COLOR = "#000000"
QUEUE_COLOR = "#c2571a"
BUSY_COLOR = "#1b5e9e"
LABELLED_JOBS = 40  # job numbers are written inside the rectangles up to this many jobs
EDGED_RECTANGLES = 3000  # rectangles get an outline up to this many
# SWF writes times with at most 6 decimals, wait and run time apart: a start computed as
# submit + wait may fall a few microseconds before the end (submit + wait + run) of the
# job whose processors it takes.
ROUNDING = 1e-4
UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_TIME = re.compile(r"^\s*(-?[0-9]+(?:\.[0-9]*)?)\s*([smhdw]?)\s*$")


def parse_time(text: str, option: str) -> float:
    """``"7d"`` -> 604800.0: a number of seconds, or of minutes, hours, days or weeks."""
    match = _TIME.match(text)
    if not match:
        raise InputError(f"{option}={text!r}: give seconds, or a number followed by m, h, d "
                         "or w (e.g. 3600, 36h, 7d)")
    return float(match.group(1)) * UNITS[match.group(2) or "s"]


@dataclass(frozen=True)
class Placed:
    """One run segment drawn: its job's position, time span, processors, and whether its
    job was ever suspended."""

    job: int
    start: float
    end: float
    processors: Processors
    suspended: bool


def window_of(data: ScheduleData, start: float | None, end: float | None) -> tuple[float, float]:
    """The window ``[start, end)``; an open side is the schedule's first submission or last
    end."""
    first = float(data.submit.min())
    last = float(np.nanmax(data.end))
    low = first if start is None else start
    high = last if end is None else end
    if not high > low:
        raise InputError(f"window [{low:g}, {high:g}) is empty: the end must be after the "
                         f"start (the schedule spans {first:g} .. {last:g} s)")
    return low, high


def place(data: ScheduleData, window: tuple[float, float]) -> list[Placed]:
    """The run segments that overlap ``window``, each on its processors (named by the run,
    else assigned: module docstring)."""
    low, high = window
    candidates = np.flatnonzero((data.start < high) & (data.end > low))
    segments = []
    for position in candidates.tolist():
        runs = _joined(data.segments(position))
        for start, end, named in runs:
            if start < high and end > low and end > start:
                segments.append((start, end, position, named, len(runs) > 1))
    segments.sort(key=lambda s: (s[0], s[2]))
    return _assign(data, segments, low)


def _joined(runs: list[RunSegment]) -> list[RunSegment]:
    """Run segments with those that follow each other without a gap on the same processors
    joined (a time-slicing calendar may end and resume a job at the same instant)."""
    out = [runs[0]]
    for start, end, named in runs[1:]:
        last_start, last_end, last_named = out[-1]
        if start <= last_end and named == last_named:
            out[-1] = (last_start, max(end, last_end), named)
        else:
            out.append((start, end, named))
    return out


def _assign(data: ScheduleData, segments: list[tuple[float, float, int, Processors, bool]],
            low: float) -> list[Placed]:
    """First fit over the segments in start order, ends before starts at one instant."""
    import heapq

    first_id = np.concatenate(([0], np.cumsum(data.partitions)[:-1]))
    free = [np.ones(size, bool) for size in data.partitions]
    running: list[tuple[float, int, int, Processors]] = []  # (end, order, partition, taken)
    placed = []
    for order, (start, end, position, named, suspended) in enumerate(segments):
        now = max(start, low)
        while running and running[0][0] <= now + ROUNDING:
            _, _, part, taken = heapq.heappop(running)
            _mark(free[part], taken, int(first_id[part]), True)
        part = int(data.partition[position])
        taken = named or _first_free(free[part], int(data.procs[position]), int(first_id[part]),
                                     data, position, now)
        _mark(free[part], taken, int(first_id[part]), False)
        heapq.heappush(running, (end, order, part, taken))
        placed.append(Placed(position, start, end, taken, suspended))
    return placed


def _mark(free: np.ndarray, taken: Processors, first_id: int, value: bool) -> None:
    """Mark the processors ``taken`` (global numbers) of one partition free or busy."""
    local = np.asarray(taken, dtype=np.int64) - first_id
    free[local[(local >= 0) & (local < len(free))]] = value


def _first_free(free: np.ndarray, count: int, first_id: int, data: ScheduleData,
                position: int, now: float) -> Processors:
    """The lowest block of ``count`` contiguous free processors, else the lowest free ones."""
    filled = np.concatenate(([0], np.cumsum(free)))
    blocks = np.flatnonzero(filled[count:] - filled[:-count] == count) if count <= len(free) \
        else np.zeros(0, np.int64)
    if len(blocks):
        return tuple(range(int(blocks[0]) + first_id, int(blocks[0]) + first_id + count))
    chosen = np.flatnonzero(free)[:count]
    if len(chosen) < count:
        raise InputError(f"{data.path}: at t={now:g} job {int(data.ids[position])} needs "
                         f"{count} processors of its partition, {len(np.flatnonzero(free))} "
                         "are free: the schedule uses more processors than the machine has "
                         "(give the machine size with --procs)")
    return tuple(int(p) + first_id for p in chosen)


def queue_and_busy(data: ScheduleData, window: tuple[float, float]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step functions over the window: times, waiting jobs (queued or suspended) and busy
    processors, each value holding from its time to the next."""
    low, high = window
    seg_start, seg_end, seg_procs, suspend, resume = _segment_arrays(data)
    inside = np.concatenate((data.submit, data.start, seg_start, seg_end))
    times = np.unique(np.concatenate(([low], inside[(inside > low) & (inside < high)])))
    submitted = np.searchsorted(np.sort(data.submit), times, side="right")
    started = np.searchsorted(np.sort(data.start), times, side="right")
    paused = (np.searchsorted(np.sort(suspend), times, side="right")
              - np.searchsorted(np.sort(resume), times, side="right"))
    busy = _running_sum(seg_start, seg_procs, times) - _running_sum(seg_end, seg_procs, times)
    return times, submitted - started + paused, busy


def _segment_arrays(data: ScheduleData) -> tuple[np.ndarray, ...]:
    """Every run segment's start, end and processors (the jobs' single segments vectorized),
    and the suspension and resumption instants."""
    single = np.ones(len(data.ids), bool)
    extra_start, extra_end, extra_procs, suspend, resume = [], [], [], [], []
    for position, runs in data.runs.items():
        if len(runs) == 1:
            continue
        single[position] = False
        for index, (start, end, _) in enumerate(runs):
            extra_start.append(start)
            extra_end.append(end)
            extra_procs.append(int(data.procs[position]))
            if index:
                resume.append(start)
            if index < len(runs) - 1:
                suspend.append(end)
    return (np.concatenate((data.start[single], np.array(extra_start, float))),
            np.concatenate((data.end[single], np.array(extra_end, float))),
            np.concatenate((data.procs[single], np.array(extra_procs, np.int64))),
            np.array(suspend, float), np.array(resume, float))


def _running_sum(times: np.ndarray, weights: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Sum of ``weights`` whose time is at or before each of ``at``."""
    order = np.argsort(times, kind="stable")
    cumulative = np.concatenate(([0], np.cumsum(weights[order])))
    return cumulative[np.searchsorted(times[order], at, side="right")]


# ----------------------------------------------------------------------------- drawing


Scale = tuple[float, float]  # (origin, seconds per unit) of the time axis


def _at(time: Any, scale: Scale) -> Any:
    """A time (or an array of them) on the drawn axis."""
    return (time - scale[0]) / scale[1]


def time_unit(span: float) -> tuple[str, float]:
    """(name, seconds) of the unit the time axis is drawn in for a window of ``span`` s."""
    if span > 3 * 86400:
        return "days", 86400.0
    if span > 3 * 3600:
        return "hours", 3600.0
    if span > 3 * 60:
        return "minutes", 60.0
    return "s", 1.0


def schedule_figure(data: ScheduleData, window: tuple[float, float],
                    title: str = "") -> Figure:
    """The Gantt chart over ``window``, with the queue length and utilization below."""
    import matplotlib
    from matplotlib.figure import Figure

    from schedsim.plots import STYLE

    placed = place(data, window)
    if not placed:
        raise InputError(f"{data.path}: no job runs in the window [{window[0]:g}, "
                         f"{window[1]:g}) s (the schedule spans {float(data.submit.min()):g}"
                         f" .. {float(np.nanmax(data.end)):g} s)")
    unit, seconds = time_unit(window[1] - window[0])
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(11.0, 7.2), layout="constrained")
        gantt, queue, busy = fig.subplots(3, 1, sharex=True, height_ratios=[5, 1.2, 1.2])
        scale = (window[0], seconds)  # the axis: time from the window's start, in unit
        _draw_jobs(gantt, data, placed, window, scale)
        _draw_partitions(gantt, data, window, scale)
        _draw_load(queue, busy, data, window, scale)
        busy.set_xlabel(f"time ({unit} from {_clock(window[0])}, the window's start)")
        gantt.set_xlim(0.0, _at(window[1], scale))
        jobs = len({p.job for p in placed})
        fig.suptitle(f"{title or data.path}: {jobs:,} jobs in [{_clock(window[0])}, "
                     f"{_clock(window[1])})", fontsize=9)
    return fig


def _draw_jobs(ax: Any, data: ScheduleData, placed: Sequence[Placed],
               window: tuple[float, float], scale: Scale) -> None:
    from matplotlib.collections import LineCollection, PolyCollection

    low, high = window
    boxes: dict[bool, list[np.ndarray]] = {False: [], True: []}
    colors: dict[bool, list[str]] = {False: [], True: []}
    for segment in placed:
        left, right = _at(max(segment.start, low), scale), _at(min(segment.end, high), scale)
        for first, count in _blocks(segment.processors):
            boxes[segment.suspended].append(np.array(
                [(left, first), (right, first), (right, first + count), (left, first + count)]))
            colors[segment.suspended].append(JOB_COLORS[segment.job % len(JOB_COLORS)])
    edge = sum(len(b) for b in boxes.values()) <= EDGED_RECTANGLES
    for suspended, polygons in boxes.items():
        if polygons:
            ax.add_collection(PolyCollection(
                polygons, facecolors=colors[suspended], edgecolors="#333333" if edge else "none",
                linewidths=0.3 if edge else 0.0, hatch="////" if suspended else None))
    gaps = _suspensions(placed, scale)
    if gaps:
        ax.add_collection(LineCollection(gaps, colors="#333333", linestyles=":",
                                         linewidths=1.0))
    jobs = {p.job for p in placed}
    if len(jobs) <= LABELLED_JOBS:
        for segment in placed:
            left = _at(max(segment.start, low), scale)
            right = _at(min(segment.end, high), scale)
            first, count = _blocks(segment.processors)[0]
            ax.text((left + right) / 2, first + count / 2, str(int(data.ids[segment.job])),
                    ha="center", va="center", fontsize=6, clip_on=True)
    ax.set_ylim(0, data.machine)
    ax.set_ylabel("processor")
    ax.set_title(_legend_text(placed, data), fontsize=8)


def _blocks(processors: Processors) -> list[tuple[int, int]]:
    """Contiguous runs of processor numbers as (first, count)."""
    out: list[tuple[int, int]] = []
    for number in sorted(processors):
        if out and out[-1][0] + out[-1][1] == number:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((number, 1))
    return out


def _suspensions(placed: Sequence[Placed], scale: Scale) -> list[list[tuple[float, float]]]:
    """A dotted line per suspension, from a segment's end to the job's next segment."""
    by_job: dict[int, list[Placed]] = {}
    for segment in placed:
        if segment.suspended:
            by_job.setdefault(segment.job, []).append(segment)
    lines = []
    for segments in by_job.values():
        segments.sort(key=lambda s: s.start)
        for before, after in pairwise(segments):
            y_before = min(before.processors) + 0.5
            y_after = min(after.processors) + 0.5
            lines.append([(_at(before.end, scale), y_before), (_at(after.start, scale), y_after)])
    return lines


def _legend_text(placed: Sequence[Placed], data: ScheduleData) -> str:
    suspended = len({p.job for p in placed if p.suspended})
    named = any(data.runs.get(p.job, [(0, 0, ())])[0][2] for p in placed)
    where = ("processors as the run named them" if named else
             "processors assigned for the picture (a free block first)")
    extra = f"; {suspended} suspended jobs hatched, dotted while suspended" if suspended else ""
    return f"jobs as rectangles over {where}{extra}"


def _draw_partitions(ax: Any, data: ScheduleData, window: tuple[float, float],
                     scale: Scale) -> None:
    edge = 0
    for index, size in enumerate(data.partitions):
        if len(data.partitions) > 1:
            ax.text(_at(window[1], scale), edge + size / 2, f" partition {index + 1}\n ({size})",
                    ha="left", va="center", fontsize=7)
            if edge:
                ax.axhline(edge, color=PARTITION_COLOR, linewidth=1.4)
        edge += size


def _draw_load(queue: Any, busy: Any, data: ScheduleData, window: tuple[float, float],
               scale: Scale) -> None:
    times, waiting, used = queue_and_busy(data, window)
    steps = _at(np.append(times, window[1]), scale)
    queue.stairs(waiting, steps, color=QUEUE_COLOR, linewidth=1.0)
    queue.set_ylabel("waiting jobs")
    queue.set_ylim(0, max(1, int(waiting.max())) * 1.1)
    share = used / data.machine
    busy.stairs(share, steps, color=BUSY_COLOR, fill=True, alpha=0.5, linewidth=0.8)
    mean = float(np.sum(share * np.diff(steps)) / (steps[-1] - steps[0]))
    busy.set_ylim(0, 1.05)
    busy.set_ylabel("busy share")
    busy.set_title(f"utilization over the window: {mean:.1%}", fontsize=8, loc="right")
    queue.grid(alpha=0.3)
    busy.grid(alpha=0.3)


def _clock(value: float) -> str:
    """Seconds as ``3d 04:05:06`` (or ``04:05:06`` under a day)."""
    total = math.floor(value)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    clock = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{days}d {clock}" if days else clock


def plot_schedule(path: str, out: str, start: float | None = None, end: float | None = None,
                  procs: int | None = None, title: str = "") -> int:
    """Read the schedule ``path`` and write its picture over ``[start, end)`` to ``out``
    (PNG, PDF or SVG by the extension); the number of jobs drawn."""
    from schedsim.plots import picture_format, save_one
    from schedsim.schedule_file import read_schedule

    picture_format(out)
    data = read_schedule(path, procs)
    window = window_of(data, start, end)
    fig = schedule_figure(data, window, title)
    save_one(fig, out)
    return len({p.job for p in place(data, window)})
