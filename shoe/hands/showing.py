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
from shoe.hands.categories import BY_STRENGTH, Category

__all__ = ["ShowingValue", "showing_key", "showing_value"]

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
    strength, tiebreak = showing_key([c.rank for c in cards])
    order = {r: i for i, r in enumerate(tiebreak)}
    ordered = tuple(sorted(cards, key=lambda c: (order[c.rank], -c.suit)))
    return ShowingValue(strength, tiebreak, BY_STRENGTH[strength], ordered)


_KEYS: dict[tuple[int, ...], tuple[int, tuple[int, ...]]] = {}
""":func:`showing_key` by the ranks sorted high to low: at most 2,379 entries (the multisets of 1 to 4
ranks), each a pure function of its key, so an entry never goes stale."""


def showing_key(ranks: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """``(strength, tiebreak)`` of 1 to 4 up-card ranks (2..14), what :class:`ShowingValue` compares:
    equal keys are ties (N.J.A.C. 13:47-20.35; suits never count).

    Not checked (that is :func:`showing_value`'s job): the ranks of distinct valid cards, 1 to 4 of them.
    """
    ordered = tuple(sorted(ranks, reverse=True))
    key = _KEYS.get(ordered)
    if key is None:
        counts: dict[int, int] = {}
        for r in ordered:
            counts[r] = counts.get(r, 0) + 1
        groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
        category = _SHAPES.get(tuple(n for _, n in groups), Category.HIGH_CARD)
        key = _KEYS[ordered] = (category.strength, tuple(r for r, _ in groups))
    return key
