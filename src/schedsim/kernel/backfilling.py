"""The backfilling arithmetic in compiled form: the compiled twin of
:func:`schedsim.policies.backfill.shadow_and_extra` (the same comparisons, in the same
order)."""

from __future__ import annotations

import numpy as np

from schedsim.kernel.cache import kernel


@kernel
def shadow_and_extra(now, free, needed, ends, procs, count):
    """Shadow time and extra processors of a head job needing ``needed`` processors,
    over ``count`` (estimated end, processors) pairs of running jobs (ends at least
    ``now``; equal ends released together). (inf, -1) if it never fits."""
    if needed <= free:
        return now, free - needed
    order = np.argsort(ends[:count], kind="mergesort")
    available = free
    i = 0
    while i < count:
        end = ends[order[i]]
        while i < count and ends[order[i]] == end:
            available += procs[order[i]]
            i += 1
        if available >= needed:
            return end, available - needed
    return np.inf, -1
