"""Five-card hand categories and hand values (NY 9 NYCRR 5324.38(b); 58 Pa. Code 655a.6).

Tie-break rules (same category): the :attr:`HandValue.tiebreak` tuple lists card ranks in the order
in which they decide, and tuples compare lexicographically.  Suits never break ties.

==================  ============================================  ==============================
category            tiebreak                                      source
==================  ============================================  ==============================
royal flush         ``(14,)`` (all royal flushes tie)             NY 5324.38(b)(2)(i)
straight flush      ``(high card,)``; A-2-3-4-5 is ``(5,)``       NY 5324.38(b)(1), (b)(2)(ii)
four of a kind      ``(quad rank, kicker)``                       NY 5324.38(b)(2)(iii)
full house          ``(trips rank, pair rank)``                   NY 5324.38(b)(2)(iv)
flush               the five ranks, highest first                 NY 5324.38(b)(2)(v)
straight            ``(high card,)``; A-2-3-4-5 is ``(5,)``       NY 5324.38(b)(1), (b)(2)(vi)
three of a kind     ``(trips rank, kicker, kicker)``              NY 5324.38(b)(2)(vii)
two pair            ``(high pair, low pair, kicker)``             NY 5324.38(b)(2)(viii)
pair                ``(pair rank, kicker, kicker, kicker)``       NY 5324.38(b)(2)(ix)
high card           the five ranks, highest first                 NY 5324.38(b)(1)
==================  ============================================  ==============================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from shoe.cards import Card
from shoe.hands import tables as _tables

__all__ = ["Category", "HandValue"]


class Category(Enum):
    """The permissible poker hands, highest first (NY 5324.38(b)(2)(i)-(ix)), plus high card.

    The values are the names used everywhere (API, journal, CLI).
    """

    ROYAL_FLUSH = "royal-flush"
    STRAIGHT_FLUSH = "straight-flush"
    FOUR_OF_A_KIND = "four-of-a-kind"
    FULL_HOUSE = "full-house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three-of-a-kind"
    TWO_PAIR = "two-pair"
    PAIR = "pair"
    HIGH_CARD = "high-card"

    @property
    def strength(self) -> int:
        """0 for high card up to 9 for a royal flush (NY 5324.38(b)(2) order)."""
        return _STRENGTH[self]

    @classmethod
    def from_strength(cls, strength: int) -> Category:
        """The category with the given :attr:`strength` (0..9)."""
        return BY_STRENGTH[strength]


BY_STRENGTH: tuple[Category, ...] = tuple(reversed(Category))
"""Categories indexed by strength: ``BY_STRENGTH[0]`` is high card, ``BY_STRENGTH[9]`` royal flush."""

_STRENGTH: dict[Category, int] = {c: i for i, c in enumerate(BY_STRENGTH)}


@dataclass(frozen=True, eq=False)
class HandValue:
    """The value of a five-card poker hand.

    Totally ordered by (category strength, tiebreak); two values are equal exactly when the hands
    tie (NY 5324.38(b): suits never break ties), whatever the ``cards``.  ``cards`` are the five
    cards used, most significant first (e.g. the quads before the kicker; a wheel ends with its ace).
    """

    category: Category
    tiebreak: tuple[int, ...]
    cards: tuple[Card, ...]

    @property
    def key(self) -> tuple[int, tuple[int, ...]]:
        """The comparison key: ``(category.strength, tiebreak)``."""
        return (_STRENGTH[self.category], self.tiebreak)

    @property
    def rank(self) -> int:
        """The rank number 1..7462 of this value (higher is better; see :mod:`shoe.hands.fast`)."""
        _tables.build()
        return _tables.CLASS_NUMBER[(_STRENGTH[self.category], self.tiebreak)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.category is other.category and self.tiebreak == other.tiebreak

    def __hash__(self) -> int:
        return hash((self.category, self.tiebreak))

    def __lt__(self, other: HandValue) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key < other.key

    def __le__(self, other: HandValue) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key <= other.key

    def __gt__(self, other: HandValue) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key > other.key

    def __ge__(self, other: HandValue) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return self.key >= other.key

    def __str__(self) -> str:
        return f"{self.category.value} {' '.join(c.code for c in self.cards)}"
