"""A step's CPU time and memory on its log's last line, when it ran in a child of the step
worker (:mod:`schedsim.experiments.worker`), where Snakemake's ``benchmark:`` files,
which measure the command's own process tree, cannot see them."""

from __future__ import annotations

import re
from pathlib import Path

from schedsim.experiments.client import USAGE_LINE

__all__ = ["USAGE_LINE", "USAGE_PATTERN", "step_usage"]
USAGE_PATTERN = re.compile(r"^schedsim worker: ([\d.]+) s user, ([\d.]+) s system, "
                           r"([\d.]+) MB peak RSS$")


def step_usage(log: Path) -> tuple[float, float] | None:
    """(CPU seconds, peak RSS MB) from the last line of a step's log; None when the step
    did not run in the worker (or the log is missing)."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = USAGE_PATTERN.match(text.rstrip("\n").rsplit("\n", 1)[-1])
    if found is None:
        return None
    user, system, rss = map(float, found.groups())
    return user + system, rss
