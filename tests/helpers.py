"""Small builders for hand-computed schedule tests."""

from __future__ import annotations

from collections.abc import Sequence

from schedsim.engine import Schedule, simulate
from schedsim.jobs import Job
from schedsim.machine import Machine
from schedsim.policies.registry import make_policy

JobSpec = tuple[float, float, int] | tuple[float, float, int, float]


def make_jobs(specs: Sequence[JobSpec]) -> list[Job]:
    """Jobs from (submit, runtime, procs[, estimate]) tuples; ids 1, 2, ..."""
    jobs = []
    for number, spec in enumerate(specs, start=1):
        submit, runtime, procs = spec[0], spec[1], spec[2]
        estimate = spec[3] if len(spec) > 3 else runtime
        jobs.append(Job(number, submit, runtime, procs, estimate))
    return jobs


def run(policy: str, procs: int, specs: Sequence[tuple], **params: object) -> Schedule:
    machine = Machine(procs)
    return simulate(make_jobs(specs), machine, make_policy(policy, params, machine), check=True)


def starts(policy: str, procs: int, specs: Sequence[tuple]) -> list[float]:
    return list(run(policy, procs, specs).start)


def cli_run(argv: list[str]) -> tuple[int, str]:
    """``schedsim`` in this process: its exit code and what it wrote to stderr."""
    import contextlib
    import io

    from schedsim.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    return code, err.getvalue()


def drawn_differences(fig: object) -> dict[str, list[list[tuple[str, float, float, float,
                                                                   float]]]]:
    """What a figure's paired-difference panels draw, read back from the artists: per
    panel gid (``paired-difference:<metric>``), one list per drawn series of its points
    (label, x, mean, low, high) in drawing order.

    A curve panel draws vertical error bars (x drawn slightly dodged per series), a forest
    panel horizontal ones (x is NaN there); a point without an interval (one replication)
    reads as NaN bounds.
    """
    import math

    from matplotlib.container import ErrorbarContainer

    from schedsim.plots import DIFFERENCE_GID

    found: dict[str, list[list[tuple[str, float, float, float, float]]]] = {}
    for ax in fig.axes:  # type: ignore[attr-defined]
        gid = ax.get_gid() or ""
        if not gid.startswith(DIFFERENCE_GID):
            continue
        for container in ax.containers:
            if not isinstance(container, ErrorbarContainer):
                continue
            data_line, _, bars = container.lines
            horizontal = container.has_xerr and not container.has_yerr
            xs, ys = data_line.get_xdata(), data_line.get_ydata()
            series = []
            for x, y, segment in zip(xs, ys, bars[0].get_segments(), strict=True):
                ends = [float(point[0] if horizontal else point[1]) for point in segment]
                low, high = (min(ends), max(ends)) if not any(map(math.isnan, ends)) \
                    else (math.nan, math.nan)
                series.append((container.get_label(), math.nan if horizontal else float(x),
                               float(x if horizontal else y), low, high))
            found.setdefault(gid, []).append(series)
    return found
