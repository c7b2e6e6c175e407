"""Five-card evaluation and best five of 5, 6 or 7 cards (NY 9 NYCRR 5324.38(b); 58 Pa. Code 655a.6).

Both functions go through the fast integer evaluator (:mod:`shoe.hands.fast`) and turn its rank
number into a :class:`HandValue` (:func:`hand_value`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from shoe.cards import Card, CardError
from shoe.hands import tables as _t
from shoe.hands.categories import BY_STRENGTH, Category, HandValue
from shoe.hands.fast import rank5, rank_cards, rank_class

__all__ = ["best_hand", "evaluate5", "hand_value"]

_STRAIGHTS = (Category.STRAIGHT, Category.STRAIGHT_FLUSH, Category.ROYAL_FLUSH)


def _check(cards: Sequence[Card], sizes: tuple[int, ...]) -> tuple[Card, ...]:
    hand = tuple(cards)
    if len(hand) not in sizes:
        raise CardError(f"expected {' or '.join(map(str, sizes))} cards, got {len(hand)}")
    for c in hand:
        if not isinstance(c, Card):
            raise CardError(f"not a Card: {c!r}")
    if len({c.index for c in hand}) != len(hand):  # equal cards have equal indices (ints hash in C)
        raise CardError("duplicate card in " + " ".join(c.code for c in hand))
    return hand


def hand_value(rank: int, five: Sequence[Card]) -> HandValue:
    """The :class:`HandValue` of rank number ``rank`` (from :mod:`shoe.hands.fast`) made by the five
    cards ``five``; the cards are put most significant first.  Not checked against each other."""
    category, tiebreak = rank_class(rank)
    if category in _STRAIGHTS:
        ordered = sorted(five, reverse=True)
        if tiebreak == (5,):  # NY 5324.38(b)(1): in A-2-3-4-5 the ace plays low
            ordered = ordered[1:] + ordered[:1]
    else:
        counts: dict[int, int] = {}
        for c in five:
            counts[c.rank] = counts.get(c.rank, 0) + 1
        ordered = sorted(five, key=lambda c: (counts[c.rank], c.rank, c.suit), reverse=True)
    return HandValue(category, tiebreak, tuple(ordered))


def evaluate5(cards: Sequence[Card]) -> HandValue:
    """The value of exactly five distinct cards (NY 5324.38(b)(1)-(2))."""
    hand = _check(cards, (5,))
    return hand_value(rank5(*(c.index for c in hand)), hand)


def best_hand(cards: Sequence[Card]) -> HandValue:
    """The best five-card hand from 5, 6 or 7 distinct cards (NY 5324.38(e)(7): "the best possible
    five-card poker hand"; seven-card stud showdown, N.J.A.C. 13:47-20.35).

    Where several five-card subsets tie, the one with the highest cards by (rank, suit) is reported.
    """
    hand = tuple(cards)
    if len(hand) not in (5, 6, 7):
        raise CardError(f"expected 5 or 6 or 7 cards, got {len(hand)}")
    by_index: dict[int, Card] = {}
    for c in hand:
        if not isinstance(c, Card):
            raise CardError(f"not a Card: {c!r}")
        by_index[c.index] = c
    if len(by_index) != len(hand):
        raise CardError("duplicate card in " + " ".join(c.code for c in hand))
    # Card order is (rank, suit) and Card.index is (rank - 2) * 4 + suit: sorting the indices sorts the
    # cards, high first, without a Python-level comparison per pair.
    order = sorted(by_index, reverse=True)
    best = rank_cards(order)
    if len(order) > 5:
        for five in combinations(order, 5):
            if rank5(*five) == best:
                return _sorted_value(best, [by_index[i] for i in five])
        raise AssertionError("no five-card subset matches the best rank")  # pragma: no cover
    return _sorted_value(best, [by_index[i] for i in order])


def _sorted_value(rank: int, five: list[Card]) -> HandValue:
    """:func:`hand_value` of a valid rank number and five cards already sorted high to low (the same
    result: a straight's cards are then in order, and the sort by count is stable)."""
    strength, tiebreak = _t.CLASSES[rank]
    category = BY_STRENGTH[strength]
    if category in _STRAIGHTS:
        if tiebreak == (5,):  # NY 5324.38(b)(1): in A-2-3-4-5 the ace plays low
            five = five[1:] + five[:1]
    else:
        counts: dict[int, int] = {}
        for c in five:
            counts[c.rank] = counts.get(c.rank, 0) + 1
        five.sort(key=lambda c: counts[c.rank], reverse=True)
    return HandValue(category, tiebreak, tuple(five))
