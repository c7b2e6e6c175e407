"""Every final five-card hand of a deck, ranked once and sorted into paytable lines (pure, numpy).

The rank numbers come from the same tables as the table's own evaluator (:mod:`shoe.hands.tables`,
NY 5324.38(b)), looked up for all hands at once: the sum of the cards' keys finds a flush suit
(``key & 511``) or the no-flush rank (``key >> 9``), and a flush's rank-bit mask its rank.  Each rank
number is then sorted into a line by the settlement code's own :func:`shoe.rules.paytables.classify_base`
on a representative hand, so the math and ``settle`` cannot classify a hand differently.

The lines (:data:`LINES`) are the base paytable's ten lines (NY 5324.38(f)(1)) and the two losing
kinds below them; what a line pays is the paytable's business (:func:`line_odds`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shoe.cards import Card
from shoe.hands import RANK_COUNT, hand_value
from shoe.hands import tables as _t
from shoe.math.combos import IntArray
from shoe.rules.paytables import BaseHand, BasePaytable, classify_base

__all__ = ["HIGH_CARD", "LINES", "LOW_PAIR", "line_odds", "line_of_hands", "rank_hands"]

LOW_PAIR = "pair-2s-to-5s"
HIGH_CARD = "high-card"
LINES: tuple[str, ...] = (*(line.value for line in BaseHand), LOW_PAIR, HIGH_CARD)
"""Final-hand outcomes, best first: the ten base paytable lines, then a pair of 2s-5s and no pair."""


def rank_hands(deck: Sequence[int], hands: IntArray) -> IntArray:
    """Rank numbers (1..7462, higher better) of ``hands`` (rows of 5 positions into ``deck``)."""
    _t.build()
    cards = np.asarray(deck, dtype=np.int64)[hands]
    key = np.asarray(_t.CARD_KEY, dtype=np.int64)[cards].sum(axis=1)
    suit = np.asarray(_t.FLUSH_SUIT[5], dtype=np.int64)[key & _t.SUIT_MASK]
    rank_keys = np.array(sorted(_t.NO_FLUSH[5]), dtype=np.int64)
    rank_vals = np.array([_t.NO_FLUSH[5][k] for k in rank_keys.tolist()], dtype=np.int64)
    plain = rank_vals[np.searchsorted(rank_keys, key >> _t.SUIT_SHIFT)]
    bits = np.bitwise_or.reduce(np.asarray(_t.RANK_BIT, dtype=np.int64)[cards], axis=1)
    flush = np.asarray(_t.FLUSH, dtype=np.int64)[bits]
    return np.where(suit >= 0, flush, plain)


def _line_of(rank: int, five: Sequence[int]) -> int:
    value = hand_value(rank, [Card.from_index(i) for i in five])
    line = classify_base(value)
    if line is not None:
        return LINES.index(line.value)
    if value.category.value == "pair":
        return LINES.index(LOW_PAIR)
    return LINES.index(HIGH_CARD)


def line_of_hands(deck: Sequence[int], hands: IntArray) -> IntArray:
    """The line (index into :data:`LINES`) of each hand (rows of 5 positions into ``deck``)."""
    ranks = rank_hands(deck, hands)
    present, first = np.unique(ranks, return_index=True)
    table = np.zeros(RANK_COUNT + 1, dtype=np.int64)
    for rank, row in zip(present.tolist(), first.tolist(), strict=True):
        table[rank] = _line_of(rank, [deck[p] for p in hands[row].tolist()])
    return table[ranks]


def line_odds(paytable: BasePaytable) -> tuple[int, ...]:
    """What each line of :data:`LINES` pays per unit wagered, "to 1": the paytable's odds, 0 for a
    push (NY 5324.38(e)(7)(ii)), -1 for a line the table does not pay (the wager loses)."""
    out = []
    for name in LINES:
        odds = paytable.odds(BaseHand(name)) if name in {h.value for h in BaseHand} else None
        out.append(-1 if odds is None else odds)
    return tuple(out)
