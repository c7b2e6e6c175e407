"""Value of the up-cards showing in seven-card stud, to decide who acts first (N.J.A.C. 13:47-20.35).

From 4th street on, the highest poker hand showing acts first.  Only four of a kind, three of a
kind, two pair, pair and high cards count: no straights or flushes of fewer than five cards, and
suits never break ties (a tie goes to the tied player closest to the dealer's left; that is the
caller's business).  Ranks are ace high.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from shoe.cards import Card, CardError
from shoe.hands.categories import Category

__all__ = ["ShowingValue", "showing_value"]

_SHAPES: dict[tuple[int, ...], Category] = {
    (4,): Category.FOUR_OF_A_KIND,
    (3,): Category.THREE_OF_A_KIND,
    (3, 1): Category.THREE_OF_A_KIND,
    (2, 2): Category.TWO_PAIR,
    (2,): Category.PAIR,
    (2, 1): Category.PAIR,
    (2, 1, 1): Category.PAIR,
}


@dataclass(frozen=True, order=True)
class ShowingValue:
    """Ordered by (category strength, tiebreak); equal values are ties (no suit tie-break), whatever
    the ``cards`` (the up-cards, most significant first).

    ``tiebreak`` lists ranks by (count, rank), most significant first, e.g. two pair K-K-4-4 is
    ``(13, 4)``, a pair of 9s with an ace showing is ``(9, 14)``.
    """

    strength: int
    tiebreak: tuple[int, ...]
    category: Category = field(compare=False)
    cards: tuple[Card, ...] = field(compare=False)

    def __post_init__(self) -> None:
        if self.strength != self.category.strength:
            raise ValueError("strength must equal category.strength")


def showing_value(up_cards: Sequence[Card]) -> ShowingValue:
    """Value of 1 to 4 up-cards (N.J.A.C. 13:47-20.35; rules digest, seven-card stud)."""
    cards = tuple(up_cards)
    if not 1 <= len(cards) <= 4 or not all(isinstance(c, Card) for c in cards):
        raise CardError(f"expected 1 to 4 up-cards, got {cards!r}")
    if len(set(cards)) != len(cards):
        raise CardError("duplicate card in " + " ".join(c.code for c in cards))
    counts: dict[int, int] = {}
    for c in cards:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    category = _SHAPES.get(shape, Category.HIGH_CARD)
    tiebreak = tuple(r for r, _ in groups)
    order = {r: i for i, r in enumerate(tiebreak)}
    ordered = tuple(sorted(cards, key=lambda c: (order[c.rank], -c.suit)))
    return ShowingValue(category.strength, tiebreak, category, ordered)
