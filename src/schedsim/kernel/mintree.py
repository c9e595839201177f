"""A minimum segment tree over positions ``0 .. n - 1``: set a position's value, and find
the first position from a given one whose value is at most a limit, each in O(log n).

A policy that scans its queue in arrival order for the first job that fits (the IHAP
paper's fit-processors-first-served, sec. 4) keeps there, per job number (the compiled
engine numbers jobs in arrival order), the job's smallest need while it waits and
:data:`ABSENT` otherwise: the scan of a long queue at every call becomes one search.

The tree is one array: ``tree[1]`` the root, ``tree[i]`` the minimum of ``tree[2 i]`` and
``tree[2 i + 1]``, the leaves ``tree[leaves + p]`` for position ``p``, where ``leaves``
(``len(tree) // 2``) is a power of two at least ``n``.
"""

from __future__ import annotations

import numpy as np

from schedsim.kernel.cache import kernel

ABSENT = np.iinfo(np.int64).max  # the value of a position that holds nothing


@kernel
def new_tree(n):
    """A tree of ``n`` positions (at least one), every one :data:`ABSENT`."""
    leaves = 1
    while leaves < n:
        leaves *= 2
    return np.full(2 * leaves, ABSENT, np.int64)


@kernel(_nrt=False)
def set_value(tree, position, value):
    """``position`` holds ``value`` (:data:`ABSENT`: nothing)."""
    node = len(tree) // 2 + position
    tree[node] = value
    node //= 2
    while node >= 1:
        tree[node] = min(tree[2 * node], tree[2 * node + 1])
        node //= 2


@kernel(_nrt=False)
def first_at_most(tree, start, limit):
    """The first position from ``start`` on whose value is at most ``limit``, or -1."""
    leaves = len(tree) // 2
    if start >= leaves:
        return -1
    node = leaves + start
    while tree[node] > limit:
        # on to the subtree right after this one's range: up while a right child
        while node % 2 == 1:
            node //= 2
        if node == 0:
            return -1
        node += 1
    while node < leaves:  # down to the leftmost leaf within the limit
        node = 2 * node if tree[2 * node] <= limit else 2 * node + 1
    return node - leaves
