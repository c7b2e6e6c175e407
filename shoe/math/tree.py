"""The game tree of Mississippi stud as three levels of card-set nodes (pure, numpy).

A node on 3rd, 4th and 5th street is a set of 2, 3 or 4 seen cards, or a class of such sets that
a renaming of suits maps onto each other (:mod:`shoe.math.suits`): every member of a class has the
same values and the same best actions, because the paytable never looks at which suit is which
(NY 5324.38(b)).  ``size2[i]`` is how many 2-card sets node i stands for; an edge ``(parent, child,
mult)`` says that ``mult`` of the unseen cards take one member of ``parent`` into ``child``;
``count4[j, line]`` counts the final cards that complete a member of 5th-street node j into each
line of :data:`shoe.math.hands.LINES`.

:func:`by_sets` builds the plain tree, one node per card set (1,326 / 22,100 / 270,725 nodes, all
2,598,960 final hands): the straightforward enumeration that the class tree is checked against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb

import numpy as np

from shoe.math.combos import IntArray, drop_one, subsets
from shoe.math.hands import LINES, line_of_hands

__all__ = ["Edges", "Tree", "by_sets", "canonical", "check_deck"]


def canonical(sets: IntArray, group: IntArray, n: int) -> IntArray:
    """The class code of each row of positions: the largest, over the suit renamings in ``group``,
    of the renamed positions sorted high to low and read as a number in base ``n``."""
    best = np.full(len(sets), -1, dtype=np.int64)
    for renaming in group:
        moved = -np.sort(-renaming[sets], axis=1)
        code = np.zeros(len(sets), dtype=np.int64)
        for j in range(sets.shape[1]):
            code = code * n + moved[:, j]
        np.maximum(best, code, out=best)
    return best


@dataclass(frozen=True, eq=False)  # holds numpy arrays: compared by identity
class Edges:
    parent: IntArray
    child: IntArray
    mult: IntArray


@dataclass(frozen=True, eq=False)  # holds numpy arrays: compared by identity
class Tree:
    cards: tuple[int, ...]
    size2: IntArray  # per 3rd-street node: the 2-card sets it stands for
    edges3: Edges  # 3rd-street node -> 4th-street node
    edges4: Edges  # 4th-street node -> 5th-street node
    count4: IntArray  # (5th-street nodes, lines)
    nodes: tuple[int, int, int]
    # The class tree (shoe.math.suits): each level's sorted canonical codes, and the suit renamings
    # that keep the deck (rows of position maps).  None for the plain tree (node = colex index).
    codes: tuple[IntArray, IntArray, IntArray] | None = None
    group: IntArray | None = None

    def node(self, positions: Sequence[int]) -> int:
        """The node of the set of deck ``positions`` (2, 3 or 4 of them)."""
        k = len(positions)
        if self.codes is None or self.group is None:
            return sum(comb(p, i + 1) for i, p in enumerate(sorted(positions)))
        code = int(canonical(np.asarray([positions], dtype=np.int32), self.group, len(self.cards))[0])
        level = self.codes[k - 2]
        at = int(np.searchsorted(level, code))
        if at >= len(level) or int(level[at]) != code:  # pragma: no cover - every set has a class
            raise AssertionError(f"no class for {positions}")
        return at

    @property
    def unseen(self) -> tuple[int, int, int]:
        """Cards unseen on 3rd, 4th and 5th street: 50, 49, 48 on a full deck."""
        n = len(self.cards)
        return n - 2, n - 3, n - 4


def check_deck(cards: Sequence[int]) -> tuple[int, ...]:
    deck = tuple(cards)
    if len(deck) < 5 or len(set(deck)) != len(deck) or not all(type(c) is int and 0 <= c < 52 for c in deck):
        raise ValueError(f"a deck is at least 5 distinct card indices 0..51, not {cards!r}")
    return deck


def _down(sets: IntArray, n: int) -> Edges:
    """Edges from each (k-1)-set to the k-sets containing it (one edge per pair, mult 1)."""
    rows, k = sets.shape
    child = np.repeat(np.arange(rows, dtype=np.int32), k)
    return Edges(drop_one(sets, n).ravel(), child, np.ones(rows * k, dtype=np.int32))


def by_sets(cards: Sequence[int]) -> Tree:
    """One node per card set: every 4-set's final cards counted through every 5-card hand."""
    deck = check_deck(cards)
    n = len(deck)
    sets5 = subsets(n, 5)
    lines = line_of_hands(deck, sets5)
    n4 = len(subsets(n, 4))
    index = (drop_one(sets5, n).astype(np.int64) * len(LINES) + lines[:, None]).ravel()
    count4 = np.bincount(index, minlength=n4 * len(LINES)).reshape(n4, len(LINES))
    sets2, sets3 = subsets(n, 2), subsets(n, 3)
    return Tree(
        cards=deck,
        size2=np.ones(len(sets2), dtype=np.int64),
        edges3=_down(sets3, n),
        edges4=_down(subsets(n, 4), n),
        count4=count4.astype(np.int64),
        nodes=(len(sets2), len(sets3), n4),
    )
