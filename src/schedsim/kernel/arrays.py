"""Array access in compiled code: indices known to be non-negative, and copies between
arrays as plain loops.

numba adds a negative-index wraparound to every access of a signed index, and its slice
assignment (``target[a:b] = source[c:d]``) checks broadcasting at every element: the
copies below are several times faster (docs/performance.md, "Unsigned indices" and "A
loop of its own, the idle order, plain copies").
"""

from __future__ import annotations

import numpy as np

from schedsim.kernel.cache import kernel

# An index known to be non-negative, cast for array access: numba then skips the
# negative-index wraparound, whose compare-and-select in every access of the profile's
# scans made them about 1.8 times slower.
unsigned = np.uint64


@kernel(_nrt=False)
def copy_into(target, at, source, first, count):
    """``target[at:at + count] = source[first:first + count]`` (the ranges must not
    overlap, and both must hold ``count`` values)."""
    for i in range(count):
        target[unsigned(at + i)] = source[unsigned(first + i)]


@kernel(_nrt=False)
def gather_into(target, at, source, index):
    """``target[at:at + len(index)] = source[index]``, without the temporary array."""
    for i in range(index.shape[0]):
        target[unsigned(at + i)] = source[index[i]]


@kernel(_nrt=False)
def copy_skipping(target, source, skip):
    """``source`` without its positions ``skip`` (increasing), in order, to ``target``."""
    k = 0
    for q in range(source.shape[0]):
        if k < skip.shape[0] and skip[k] == q:
            k += 1
        else:
            target[unsigned(q - k)] = source[unsigned(q)]


@kernel(_nrt=False)
def fill_skipping(target, skip, source, first):
    """The reverse of :func:`copy_skipping`: ``source[first:]`` in order to the positions
    of ``target`` that ``skip`` (increasing) does not hold, up to ``len(skip) +
    len(source) - first``."""
    k = 0
    for q in range(source.shape[0] - first + skip.shape[0]):
        if k < skip.shape[0] and skip[k] == q:
            k += 1
        else:
            target[unsigned(q)] = source[unsigned(first + q - k)]
