"""HRF's Algorithm 1 (``schedsim.policies.moldable.highest_revenue_first``) compiled.

HRF paper, sec. 5: every change of the queue reruns Algorithm 1, so an HRF run calls it
tens of thousands of times, each time handing out up to ``alpha x m`` allocation steps
one at a time; in Python that was 60% of an HRF-F7 point at alpha 1.2. Here the jobs'
run-time tables are rows of one array that the policy keeps across calls, and a call
passes the rows of the queue in queue order. The considering jobs wait in the compiled
engine's event heap (``schedsim.kernel.events``) with the entry ``(T_i(x_i + 1) -
T_i(x_i), queue position)``: its order, time then key, is the Python function's tuple
order, so every step goes to the same job (tested equal to the Python function,
``tests/test_moldable.py``).
"""

from __future__ import annotations

import numpy as np

from schedsim.kernel import events
from schedsim.kernel.cache import kernel


@kernel
def highest_revenue_first_rows(runtimes, lengths, rows, extra_steps, min_revenue):
    """``highest_revenue_first`` of the tables ``runtimes[r, :lengths[r]]`` for ``r`` in
    ``rows`` (the queue's order): the extra steps given to each."""
    n = rows.shape[0]
    steps = np.zeros(n, np.int64)
    times = np.empty(n, np.float64)
    keys = np.empty(n, np.int64)
    jobs = np.empty(n, np.int64)
    size = 0
    for q in range(n):
        r = rows[q]
        if lengths[r] > 1 and runtimes[r, 0] - runtimes[r, 1] > min_revenue:
            size = events.push(times, keys, jobs, size, runtimes[r, 1] - runtimes[r, 0], q, q)
    while extra_steps > 0 and size > 0:
        q = jobs[0]
        size = events.pop(times, keys, jobs, size)
        steps[q] += 1
        extra_steps -= 1
        r, k = rows[q], steps[q]
        if k + 1 < lengths[r] and runtimes[r, k] - runtimes[r, k + 1] > min_revenue:
            size = events.push(times, keys, jobs, size, runtimes[r, k + 1] - runtimes[r, k],
                               q, q)
    return steps
