"""Card sets as numbers: every k-card subset of a deck of n cards in colexicographic order (pure, numpy).

A set of positions ``p0 < p1 < ... < p(k-1)`` (positions in the deck, 0..n-1) has the colex index
``C(p0, 1) + C(p1, 2) + ... + C(p(k-1), k)``; :func:`subsets` lists all ``C(n, k)`` sets in that
order, so row ``i`` has index ``i``.  :func:`drop_one` gives, for each k-set, the indices of the
k (k-1)-sets inside it: the backward induction sums a street's values over the cards still to come
with it (a k-set is reached from each of its (k-1)-subsets by one more card), and the forward pass
sends probability the other way along the same arrays.
"""

from __future__ import annotations

from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["IntArray", "binomials", "drop_one", "subsets"]

IntArray = npt.NDArray[np.signedinteger[Any]]
"""Card positions and set indices are int32 (they are many: 2,598,960 five-card sets); values int64."""


def binomials(n: int, k: int) -> IntArray:
    """``B[p, j] = C(p, j)`` for p in 0..n, j in 0..k (int64)."""
    return np.array([[comb(p, j) for j in range(k + 1)] for p in range(n + 1)], dtype=np.int64)


def subsets(n: int, k: int) -> IntArray:
    """All k-subsets of ``range(n)`` as rows of ascending positions, in colex order (shape C(n,k) x k)."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int32)
    if k > n:
        return np.zeros((0, k), dtype=np.int32)
    blocks = []
    smaller = subsets(n, k - 1)  # colex: all sets with top position p come after all with top < p
    for top in range(k - 1, n):
        count = comb(top, k - 1)  # the (k-1)-sets below ``top`` are the first C(top, k-1) rows
        block = np.empty((count, k), dtype=np.int32)
        block[:, : k - 1] = smaller[:count]
        block[:, k - 1] = top
        blocks.append(block)
    return np.concatenate(blocks)


def drop_one(sets: IntArray, n: int) -> IntArray:
    """For each row (a k-set of positions, ascending), the colex indices of its k (k-1)-subsets:
    column j is the set without its j-th position (shape rows x k).

    Without position j the positions before it keep their place and those after it move down one:
    ``sum(C(p_i, i + 1) for i < j) + sum(C(p_i, i) for i > j)``, two running sums."""
    rows, k = sets.shape
    b = binomials(n, k).astype(np.int32)
    before = np.zeros(rows, dtype=np.int32)
    columns = [np.ascontiguousarray(sets[:, i]) for i in range(k)]
    kept = [b[:, i + 1][columns[i]] for i in range(k)]  # C(p_i, i + 1): in place
    moved = [b[:, i][columns[i]] for i in range(k)]  # C(p_i, i): one place down
    after = np.zeros(rows, dtype=np.int32)
    tails = [after]
    for i in range(k - 1, 0, -1):
        after = after + moved[i]
        tails.append(after)
    tails.reverse()  # tails[j] = sum over i > j of moved[i]
    out = np.empty((rows, k), dtype=np.int32)
    for j in range(k):
        out[:, j] = before + tails[j]
        before = before + kept[j]
    return out
