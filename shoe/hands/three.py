"""Three-card hand ranks, for the PA Three Card Bonus on the community cards (58 Pa. Code 655a.12).

Best first: mini royal (A-K-Q suited), straight flush, three of a kind, straight, flush, pair, high
card.  With three cards a straight beats a flush.  A-2-3 is a straight, the lowest one; A-K-Q is the
highest; there is no wrap-around (K-A-2).  Suits never break ties.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from shoe.cards import Card, CardError

__all__ = ["ThreeCardCategory", "ThreeCardValue", "evaluate3"]


class ThreeCardCategory(Enum):
    """Three-card categories, best first (58 Pa. Code 655a.12 Three Card Bonus; rules digest)."""

    MINI_ROYAL = "mini-royal"
    STRAIGHT_FLUSH = "straight-flush"
    THREE_OF_A_KIND = "three-of-a-kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    PAIR = "pair"
    HIGH_CARD = "high-card"

    @property
    def strength(self) -> int:
        """0 for high card up to 6 for a mini royal."""
        return _STRENGTH3[self]


_STRENGTH3: dict[ThreeCardCategory, int] = {c: i for i, c in enumerate(reversed(ThreeCardCategory))}


@dataclass(frozen=True, eq=False)
class ThreeCardValue:
    """Value of a three-card hand, totally ordered by (category strength, tiebreak); equal == tie.

    ``tiebreak``: straights by high card (A-2-3 is ``(3,)``), trips ``(rank,)``, pair
    ``(pair, kicker)``, flush and high card the three ranks highest first.  ``ordered`` is the
    cards, most significant first.
    """

    category: ThreeCardCategory
    tiebreak: tuple[int, ...]
    ordered: tuple[Card, ...]

    @property
    def key(self) -> tuple[int, tuple[int, ...]]:
        """The comparison key: ``(category.strength, tiebreak)``."""
        return (_STRENGTH3[self.category], self.tiebreak)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ThreeCardValue):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __lt__(self, other: ThreeCardValue) -> bool:
        return self.key < other.key

    def __le__(self, other: ThreeCardValue) -> bool:
        return self.key <= other.key

    def __gt__(self, other: ThreeCardValue) -> bool:
        return self.key > other.key

    def __ge__(self, other: ThreeCardValue) -> bool:
        return self.key >= other.key


def evaluate3(cards: Sequence[Card]) -> ThreeCardValue:
    """The three-card value of exactly three distinct cards."""
    hand = tuple(cards)
    if len(hand) != 3 or not all(isinstance(c, Card) for c in hand):
        raise CardError(f"expected 3 cards, got {hand!r}")
    if len(set(hand)) != 3:
        raise CardError("duplicate card in " + " ".join(c.code for c in hand))
    a, b, c = sorted(hand, key=lambda x: (x.rank, x.suit), reverse=True)
    flush = a.suit == b.suit == c.suit
    ranks = (a.rank, b.rank, c.rank)
    cat: ThreeCardCategory
    if a.rank == c.rank:
        return ThreeCardValue(ThreeCardCategory.THREE_OF_A_KIND, (a.rank,), (a, b, c))
    if a.rank == b.rank:
        return ThreeCardValue(ThreeCardCategory.PAIR, (a.rank, c.rank), (a, b, c))
    if b.rank == c.rank:
        return ThreeCardValue(ThreeCardCategory.PAIR, (b.rank, a.rank), (b, c, a))
    high = 0
    ordered = (a, b, c)
    if a.rank - c.rank == 2:
        high = a.rank
    elif ranks == (14, 3, 2):
        high, ordered = 3, (b, c, a)
    if high:
        if flush:
            cat = ThreeCardCategory.MINI_ROYAL if high == 14 else ThreeCardCategory.STRAIGHT_FLUSH
        else:
            cat = ThreeCardCategory.STRAIGHT
        return ThreeCardValue(cat, (high,), ordered)
    cat = ThreeCardCategory.FLUSH if flush else ThreeCardCategory.HIGH_CARD
    return ThreeCardValue(cat, ranks, ordered)
