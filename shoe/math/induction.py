"""Exact backward induction for Mississippi stud over fold / 1x / 2x / 3x (NY 5324.38(e)(1)-(7)).

The final hand is the set of the two hole cards and three community cards, so a street's value
depends only on the set of cards seen and the total already wagered ``W`` (ante = 1): on 5th street
(4 cards, W = 3..7) betting b gives ``(W + b) * E[odds]`` and folding ``-W`` (NY 5324.38(e)(5)); on
4th street (3 cards, W = 2..4) and 3rd street (2 cards, W = 1) the value of a bet is the mean of the
next street's value over the cards still unseen.  Values are kept as exact integers scaled by the
number of continuations (``48``, ``48*49``, ``48*49*50`` on a full deck), so equal-EV actions are
found exactly and broken by the stated :class:`Ties` rule; every figure is an exact fraction.

Arrays are indexed by the nodes of a :class:`shoe.math.tree.Tree` (card sets, or classes of them
under a renaming of suits); sums over the next card are ``bincount`` over the tree's edges.  All
sums stay below 2**53, so the float weights of ``bincount`` are exact; they are rounded back into
int64 and the bound is checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

import numpy as np

from shoe.math.combos import IntArray
from shoe.math.tree import Edges, Tree

__all__ = ["ACTIONS", "Solution", "Ties", "edge_sum", "fifth_street", "fourth_street", "solve", "third_street"]

ACTIONS = ("fold", "1x", "2x", "3x")
"""Action codes 0..3: fold, or bet that many times the ante (NY 5324.38(e)(1),(3),(5))."""


class Ties(Enum):
    """How equal-EV actions are broken (the EV is the same; the wager and variance are not)."""

    PREFER_FOLD = "prefer-fold"  # the smallest wager among the best: fold < 1x < 2x < 3x
    PREFER_BET = "prefer-bet"  # the largest wager among the best


def edge_sum(edges: Edges, weights: IntArray, size: int) -> IntArray:
    """Per parent node: the sum over its edges of ``mult * weights[child]`` (exact, int64)."""
    w = edges.mult.astype(np.float64) * weights[edges.child].astype(np.float64)
    total = np.bincount(edges.parent, weights=w, minlength=size)
    if np.abs(total).max(initial=0.0) >= 2.0**53:  # pragma: no cover - a full deck stays far below
        raise OverflowError("a sum left the exact range of float64")
    return np.rint(total).astype(np.int64)


@dataclass(frozen=True, eq=False)  # holds numpy arrays: compared by identity
class Solution:
    """Optimal play and its exact value.  ``act3[node]``, ``act4[node, W-2]``, ``act5[node, W-3]``
    are action codes (:data:`ACTIONS`) for the total W already wagered; ``value3`` is in units of
    1 / (r2 * r3 * r4) ante, r2, r3, r4 being the cards unseen on 3rd, 4th and 5th street."""

    tree: Tree
    odds: tuple[int, ...]
    ties: Ties
    act3: IntArray
    act4: IntArray
    act5: IntArray
    value3: IntArray
    value4: IntArray  # (4th-street nodes, 3), units 1 / (r3 * r4)

    @property
    def value(self) -> Fraction:
        """Expected net per ante under optimal play, exactly."""
        r2, r3, r4 = self.tree.unseen
        total = int((self.tree.size2 * self.value3).sum())
        return Fraction(total, int(self.tree.size2.sum()) * r2 * r3 * r4)


def _choose(values: IntArray, ties: Ties) -> tuple[IntArray, IntArray]:
    """Best action (last axis) and its value; ties broken by ``ties``."""
    if ties is Ties.PREFER_FOLD:
        act = values.argmax(axis=-1)
    else:
        act = values.shape[-1] - 1 - values[..., ::-1].argmax(axis=-1)
    return act, values.max(axis=-1)


def fifth_street(tree: Tree, odds: Sequence[int], ties: Ties) -> tuple[IntArray, IntArray]:
    """5th street, W = 3..7 (NY 5324.38(e)(5)): fold -W, bet b: (W + b) * E, both times r4."""
    r4 = tree.unseen[2]
    expect4 = tree.count4 @ np.asarray(odds, dtype=np.int64)  # sum over the r4 final cards of the odds
    w5 = np.arange(3, 8, dtype=np.int64)
    vals5 = (w5[None, :, None] + np.arange(4, dtype=np.int64)[None, None, :]) * expect4[:, None, None]
    vals5[:, :, 0] = -w5[None, :] * r4
    return _choose(vals5, ties)


def fourth_street(tree: Tree, value5: IntArray, ties: Ties) -> tuple[IntArray, IntArray]:
    """4th street, W = 2..4 (NY 5324.38(e)(3)): a bet's value is the sum over the r3 next cards of
    the 5th-street ``value5`` (units r4) at the new total; folding loses W."""
    _, r3, r4 = tree.unseen
    m3 = tree.nodes[1]
    ahead4 = np.stack([edge_sum(tree.edges4, value5[:, k], m3) for k in range(5)], axis=1)
    vals4 = np.empty((m3, 3, 4), dtype=np.int64)
    for wi, w in enumerate((2, 3, 4)):
        vals4[:, wi, 0] = -w * r4 * r3
        for b in (1, 2, 3):
            vals4[:, wi, b] = ahead4[:, w + b - 3]
    return _choose(vals4, ties)


def third_street(tree: Tree, value4: IntArray, ties: Ties) -> tuple[IntArray, IntArray]:
    """3rd street, W = 1 (NY 5324.38(e)(1)), over the 4th-street ``value4`` (units r3 * r4)."""
    r2, r3, r4 = tree.unseen
    m2 = tree.nodes[0]
    ahead3 = np.stack([edge_sum(tree.edges3, value4[:, k], m2) for k in range(3)], axis=1)
    vals3 = np.empty((m2, 4), dtype=np.int64)
    vals3[:, 0] = -r4 * r3 * r2
    vals3[:, 1:] = ahead3
    return _choose(vals3, ties)


def solve(tree: Tree, odds: Sequence[int], ties: Ties = Ties.PREFER_BET) -> Solution:
    """Optimal strategy for a paytable given as per-line odds (:func:`shoe.math.hands.line_odds`)."""
    act5, value5 = fifth_street(tree, odds, ties)
    act4, value4 = fourth_street(tree, value5, ties)
    act3, value3 = third_street(tree, value4, ties)
    return Solution(tree, tuple(int(x) for x in odds), ties, act3, act4, act5, value3, value4)
