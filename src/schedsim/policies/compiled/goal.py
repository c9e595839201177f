"""The goal-oriented search (``schedsim.policies.goal.Search``) compiled.

The same depth-bounded discrepancy search, node limit, placements and objective as
the pure-Python ``Search``, written over arrays with an explicit stack; tests check that
both return the same plan, placement for placement, and the same statistics. It runs
inside the Python engine, once per scheduling call (``GoalOriented.schedule``).

Profiles: one per partition, row p of ``times`` and ``free`` with ``length[p]`` steps in
use (``schedsim.kernel.profile``, whose functions work on the rows).
"""

from __future__ import annotations

import numpy as np

from schedsim.kernel.cache import kernel
from schedsim.kernel.profile import earliest, release, reserve

# search_kernel allocates the search's arrays and hands them to _search, which runs the
# whole search with the helpers below inlined into it (by LLVM: forceinline). _search and
# the helpers are compiled without numba's reference counting (its ``_nrt`` option, which
# numba's own string helpers also turn off for speed): with it, every call of an njit
# function with array arguments, and every inlined copy of one, counts each array up and
# down with atomic instructions (numba issue #2345), which took about 80% of the search's
# time; separate calls of the helpers, each passing every array as a struct of scalars,
# then took half of what was left. They only borrow arrays that search_kernel owns, so
# they must not allocate or return arrays.
_no_refcount = kernel(_nrt=False)
_inlined = kernel(_nrt=False, forceinline=True)

IDEA2, IDEA1 = 0, 1
PARTITION_FIRST, BEST_FIT_FIRST = 0, 1
TRADEOFF, HIERARCHICAL = 0, 1


@_inlined
def _earliest(times, free, length, p, procs, duration, not_before):
    """``profile.earliest`` on partition p's profile."""
    return earliest(times[p], free[p], length[p], procs, duration, not_before)


@_inlined
def _reserve(times, free, length, p, start, end, procs, at_start, at_end):
    """``profile.reserve`` on partition p's profile; the boundary steps' indices."""
    i, k, length[p] = reserve(times[p], free[p], length[p], start, end, procs, at_start,
                              at_end)
    return i, k


@_inlined
def _release(times, free, length, p, start, end, procs, at_start, at_end):
    """``profile.release`` on partition p's profile."""
    length[p] = release(times[p], free[p], length[p], start, end, procs, at_start, at_end)


@_inlined
def _better(objective, tw, x, best_tw, best_x):
    if objective == HIERARCHICAL:
        return tw < best_tw or (tw == best_tw and x < best_x)
    gain = 0.0
    if best_tw > 0:
        gain += (best_tw - tw) / best_tw
    elif tw != best_tw:
        return False
    if best_x > 0:
        gain += (best_x - x) / best_x
    elif x != best_x:
        return False
    return gain > 1e-12


@_inlined
def _fit_order(times, free, length, capacities, size, run, now, out, by_fit, starts, frees):
    """Partitions large enough for the job into ``out``; return how many. With
    ``by_fit``, sorted by (earliest start, free nodes at that start, index);
    ``starts`` and ``frees`` are scratch space of a slot per partition."""
    count = 0
    for p in range(capacities.shape[0]):
        if capacities[p] >= size:
            out[count] = p
            count += 1
    if by_fit:
        for c in range(count):
            start, at_start, _ = _earliest(times, free, length, out[c], size, run, now)
            starts[c] = start
            frees[c] = free[out[c], at_start]
        for a in range(1, count):  # insertion sort on the key
            b = a
            while b > 0 and (starts[b] < starts[b - 1] or (starts[b] == starts[b - 1] and (
                    frees[b] < frees[b - 1] or (frees[b] == frees[b - 1]
                                                and out[b] < out[b - 1])))):
                starts[b], starts[b - 1] = starts[b - 1], starts[b]
                frees[b], frees[b - 1] = frees[b - 1], frees[b]
                out[b], out[b - 1] = out[b - 1], out[b]
                b -= 1
    return count


@kernel
def search_kernel(sizes, runs, submits, capacities, times, free, length, now, omega,
                  node_limit, tree, idea1_order, objective, tau):
    """The search over jobs in branching order; returns (best job order positions,
    partitions, starts, nodes, leaves, stopped)."""
    n = sizes.shape[0]
    parts = capacities.shape[0]
    head, tail = n, n + 1
    if n == 0:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty, np.empty(0), 0, 0, False
    nxt = np.empty(n + 2, dtype=np.int64)
    prv = np.empty(n + 2, dtype=np.int64)
    for i in range(n):
        nxt[i] = i + 1
        prv[i] = i - 1
    if n > 0:
        nxt[n - 1] = tail
        prv[0] = head
        nxt[head] = 0
        prv[tail] = n - 1
    else:
        nxt[head] = tail
        prv[tail] = head
    cur = np.empty(n + 1, dtype=np.int64)      # job position of the child being tried
    cur_k = np.empty(n + 1, dtype=np.int64)    # idea 1: index into the partition list
    ordinal = np.empty(n + 1, dtype=np.int64)  # children of this node seen so far
    plist = np.empty((n + 1, parts), dtype=np.int64)
    pcount = np.zeros(n + 1, dtype=np.int64)
    pl_pos = np.empty(n, dtype=np.int64)
    pl_part = np.empty(n, dtype=np.int64)
    pl_start = np.empty(n)
    pl_at_start = np.empty(n, dtype=np.int64)  # the placement's boundary indices
    pl_at_end = np.empty(n, dtype=np.int64)
    fit_starts = np.empty(parts)  # _fit_order's scratch space
    fit_frees = np.empty(parts, dtype=np.int64)
    best_pos = np.empty(n, dtype=np.int64)
    best_part = np.empty(n, dtype=np.int64)
    best_start = np.empty(n)
    forks_of = np.zeros(n, dtype=np.int64)  # idea 1: 1 for a job with two partitions
    nodes, leaves, stopped = _search(
        sizes, runs, submits, capacities, times, free, length, now, omega, node_limit, tree,
        idea1_order == BEST_FIT_FIRST, objective, tau, nxt, prv, cur, cur_k, ordinal, plist,
        pcount, pl_pos, pl_part, pl_start, pl_at_start, pl_at_end, fit_starts, fit_frees,
        best_pos, best_part, best_start, forks_of)
    return best_pos, best_part, best_start, nodes, leaves, stopped


@_no_refcount
def _search(sizes, runs, submits, capacities, times, free, length, now, omega, node_limit, tree,
            by_fit, objective, tau, nxt, prv, cur, cur_k, ordinal, plist, pcount, pl_pos,
            pl_part, pl_start, pl_at_start, pl_at_end, fit_starts, fit_frees, best_pos,
            best_part, best_start, forks_of):
    """search_kernel's search on the arrays it allocated; fills ``best_pos``,
    ``best_part`` and ``best_start`` with the best plan and returns (nodes, leaves,
    stopped). Iterations -1 ... n-1 as in ``Search``: the last one under idea 1 only,
    and only over paths on which a job with two partitions is left for depth n-1."""
    n = sizes.shape[0]
    parts = capacities.shape[0]
    head, tail = n, n + 1
    best_tw = 0.0
    best_x = 0.0
    have_best = False
    nodes = 0
    leaves = 0
    stopped = False
    excess = 0.0
    expansion = 0.0
    forks = 0  # unplaced jobs with two partitions large enough (idea 1)
    for j in range(n):
        fits = 0
        for p in range(parts):
            if capacities[p] >= sizes[j]:
                fits += 1
        forks_of[j] = 1 if tree == IDEA1 and fits > 1 else 0
        forks += forks_of[j]
    deepest = n - 1 if forks > 0 else n - 2
    for k in range(-1, max(deepest + 1, 0)):
        d = 0
        cur[0] = nxt[head]
        ordinal[0] = 0
        _settle(0, tree, cur, cur_k, pcount, plist, nxt, times, free, length, capacities,
                sizes, runs, now, by_fit, tail, fit_starts, fit_frees)
        while True:
            if d == n:
                leaves += 1
                x = expansion / n
                if not have_best or _better(objective, excess, x, best_tw, best_x):
                    best_tw, best_x, have_best = excess, x, True
                    for i in range(n):
                        best_pos[i] = pl_pos[i]
                        best_part[i] = pl_part[i]
                        best_start[i] = pl_start[i]
                backtrack = True
            else:
                # the next child at depth d allowed in iteration k; in iteration n-1, a job
                # is placed above depth n-1 only if a job with two partitions is left after it
                if k == n - 1 and d < k:
                    while cur[d] != tail and forks == forks_of[cur[d]]:
                        cur[d] = nxt[cur[d]]
                        _settle(d, tree, cur, cur_k, pcount, plist, nxt, times, free, length,
                                capacities, sizes, runs, now, by_fit, tail, fit_starts,
                                fit_frees)
                if cur[d] != tail and d == k and ordinal[d] == 0:
                    _advance(d, tree, cur, cur_k, pcount, plist, nxt, times, free, length,
                             capacities, sizes, runs, now, by_fit, tail, fit_starts, fit_frees)
                    ordinal[d] += 1
                backtrack = cur[d] == tail or (d > k and ordinal[d] > 0)
            if backtrack:
                d -= 1
                if d < 0:
                    break
                # undo the placement at depth d, then move on to the next child there
                j = pl_pos[d]
                _release(times, free, length, pl_part[d], pl_start[d], pl_start[d] + runs[j],
                         sizes[j], pl_at_start[d], pl_at_end[d])
                wait = pl_start[d] - submits[j]
                excess -= max(0.0, wait - omega)
                expansion -= max(1.0, (wait + runs[j]) / max(runs[j], tau))
                nxt[prv[j]] = j
                prv[nxt[j]] = j
                forks += forks_of[j]
                _advance(d, tree, cur, cur_k, pcount, plist, nxt, times, free, length,
                         capacities, sizes, runs, now, by_fit, tail, fit_starts, fit_frees)
                ordinal[d] += 1
                continue
            if nodes >= node_limit and have_best:
                stopped = True
                break
            j = cur[d]
            if tree == IDEA2:
                part = -1
                start = 0.0
                best_free = 0
                at_start = at_end = 0
                for p in range(parts):
                    if capacities[p] >= sizes[j]:
                        s, s_step, e_step = _earliest(times, free, length, p, sizes[j], runs[j],
                                                      now)
                        f = free[p, s_step]
                        if part < 0 or s < start or (s == start and f < best_free):
                            part, start, best_free = p, s, f
                            at_start, at_end = s_step, e_step
            else:
                part = plist[d, cur_k[d]]
                start, at_start, at_end = _earliest(times, free, length, part, sizes[j],
                                                    runs[j], now)
            pl_at_start[d], pl_at_end[d] = _reserve(times, free, length, part, start,
                                                    start + runs[j], sizes[j], at_start, at_end)
            wait = start - submits[j]
            excess += max(0.0, wait - omega)
            expansion += max(1.0, (wait + runs[j]) / max(runs[j], tau))
            nodes += 1
            pl_pos[d], pl_part[d], pl_start[d] = j, part, start
            nxt[prv[j]] = nxt[j]
            prv[nxt[j]] = prv[j]
            forks -= forks_of[j]
            d += 1
            cur[d] = nxt[head]
            ordinal[d] = 0
            _settle(d, tree, cur, cur_k, pcount, plist, nxt, times, free, length, capacities,
                    sizes, runs, now, by_fit, tail, fit_starts, fit_frees)
        if stopped:
            break
    return nodes, leaves, stopped


@_inlined
def _settle(d, tree, cur, cur_k, pcount, plist, nxt, times, free, length, capacities,
            sizes, runs, now, by_fit, tail, fit_starts, fit_frees):
    """Idea 1: give depth d's current job its partition list, moving past jobs that fit
    no partition."""
    if tree != IDEA1:
        return
    while cur[d] != tail:
        j = cur[d]
        pcount[d] = _fit_order(times, free, length, capacities, sizes[j], runs[j], now,
                               plist[d], by_fit, fit_starts, fit_frees)
        cur_k[d] = 0
        if pcount[d] > 0:
            return
        cur[d] = nxt[cur[d]]


@_inlined
def _advance(d, tree, cur, cur_k, pcount, plist, nxt, times, free, length, capacities,
             sizes, runs, now, by_fit, tail, fit_starts, fit_frees):
    """Move depth d's cursor to its next child (idea 1: the next partition, or the next
    job with its partition list)."""
    if tree == IDEA1:
        cur_k[d] += 1
        if cur_k[d] < pcount[d]:
            return
    cur[d] = nxt[cur[d]]
    _settle(d, tree, cur, cur_k, pcount, plist, nxt, times, free, length, capacities,
            sizes, runs, now, by_fit, tail, fit_starts, fit_frees)
