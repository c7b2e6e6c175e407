"""What a leak is worth: the player's exact optimal EV when a card is seen before the decision it
should not inform (pure).  This turns card secrecy (NY 5324.38(d)(3): community cards dealt face
down; PA 655a.11(a)(3): no sharing of hand information) into money per ante.

Leaks, each solved exactly by the same induction with the extra card known:

* ``first-community-early``: the first community card seen before the 3rd-street decision;
* ``last-community-early``: the third community card seen from the start, so one card more is known
  at every decision (the worst single community card: 3 cards on 3rd street, 4 on 4th, all 5 on 5th);
* ``last-community-before-5th``: the third community card seen before the 5th-street decision;
* ``other-hole-card``: one hole card of another seat seen (a known dead card; 51 cards left): the
  game solved on each of the 13 possible 51-card decks (one per rank; the suit does not matter).

``value`` is the EV per ante with the leak under optimal play; ``gain`` is what the leak adds to the
honest EV (the house's loss per ante of the leaking player's action).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from shoe.math.combos import IntArray
from shoe.math.induction import Ties, edge_sum, fourth_street
from shoe.math.par import FULL_DECK, analyse, tree_of
from shoe.math.tree import Edges, Tree

__all__ = ["LEAKS", "Leak", "leak_values"]

LEAKS = ("first-community-early", "last-community-early", "last-community-before-5th", "other-hole-card")


@dataclass(frozen=True)
class Leak:
    name: str
    seen: str
    value: Fraction
    gain: Fraction


def _sizes(size2: IntArray, edges: Edges, k: int, nodes: int) -> IntArray:
    """Card sets per node on the next level: each k-set is reached from its k (k-1)-subsets."""
    reached = np.bincount(edges.child, weights=size2[edges.parent].astype(np.float64) * edges.mult, minlength=nodes)
    sizes: IntArray = np.rint(reached).astype(np.int64) // k
    return sizes


def _best(values: IntArray) -> IntArray:
    best: IntArray = values.max(axis=-1)
    return best


def _known_final(tree: Tree, odds: Sequence[int]) -> IntArray:
    """5th street knowing the final card, W = 3..7: per final card, 3x on a win, any bet on a push
    (0), fold on a loss (-W); summed over the r4 final cards (units r4)."""
    pay = np.asarray(odds, dtype=np.int64)
    out = np.empty((tree.nodes[2], 5), dtype=np.int64)
    for k, w in enumerate(range(3, 8)):
        per_line = np.where(pay > 0, (w + 3) * pay, np.where(pay == 0, 0, -w))
        out[:, k] = tree.count4 @ per_line
    return out


def leak_values(
    odds: Sequence[int], ties: Ties = Ties.PREFER_BET, *, hole_card: bool = True, cards: tuple[int, ...] = FULL_DECK
) -> list[Leak]:
    """Every leak of :data:`LEAKS` (``hole_card=False`` skips the 13 extra solves; full deck only)."""
    odds = tuple(odds)
    honest = analyse(odds, ties, cards)
    tree = tree_of(cards)
    r2, r3, r4 = tree.unseen
    size3 = _sizes(tree.size2, tree.edges3, 3, tree.nodes[1])
    sets3 = comb(len(tree.cards), 3)
    out = []

    def per_three(v3: IntArray) -> Fraction:  # v3 in units r3 * r4, per 3rd-street node of 3 known cards
        return Fraction(int((size3 * v3).sum()), sets3 * r3 * r4)

    # The first community card seen at 3rd street: 3 known cards, then the honest 4th street.
    v4 = honest.solution.value4
    first = np.maximum(-r3 * r4, _best(v4))  # W = 1 + b for b = 1..3 is column b - 1; folding now costs 1
    out.append(Leak(LEAKS[0], "1st community card before the 3rd-street decision", per_three(first), Fraction(0)))
    # The last community card seen from the start: 3, 4, then 5 known cards.
    final = _known_final(tree, odds)
    m4 = tree.nodes[2]
    v4_known = np.empty((m4, 3), dtype=np.int64)
    for wi, w in enumerate((2, 3, 4)):
        v4_known[:, wi] = np.maximum(-w * r4, final[:, wi : wi + 3].max(axis=1))  # W + b = 3..7 -> k = wi..wi+2
    ahead = np.stack([edge_sum(tree.edges4, v4_known[:, k], tree.nodes[1]) for k in range(3)], axis=1)
    early = np.maximum(-r3 * r4, ahead.max(axis=1))
    out.append(Leak(LEAKS[1], "3rd community card before the 3rd-street decision", per_three(early), Fraction(0)))
    # The last community card seen before the 5th-street decision: the honest 3rd and 4th streets above it.
    _, value4 = fourth_street(tree, final, ties)
    ahead3 = np.stack([edge_sum(tree.edges3, value4[:, k], tree.nodes[0]) for k in range(3)], axis=1)
    v3 = np.maximum(-r2 * r3 * r4, ahead3.max(axis=1))
    late = Fraction(int((tree.size2 * v3).sum()), int(tree.size2.sum()) * r2 * r3 * r4)
    out.append(Leak(LEAKS[2], "3rd community card before the 5th-street decision", late, Fraction(0)))
    if hole_card and cards == FULL_DECK:
        values = [analyse(odds, ties, tuple(c for c in FULL_DECK if c != rank * 4)).ev for rank in range(13)]
        out.append(Leak(LEAKS[3], "one hole card of another seat", sum(values, Fraction(0)) / 13, Fraction(0)))
    return [Leak(x.name, x.seen, x.value, x.value - honest.ev) for x in out]
