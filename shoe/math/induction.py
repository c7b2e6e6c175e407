"""Exact backward induction for Mississippi stud over fold / 1x / 2x / 3x (NY 5324.38(e)(1)-(7)).

The final hand is the set of the two hole cards and three community cards, so a street's value
depends only on the set of cards seen and the total already wagered ``W`` (ante = 1): on 5th street
(4 cards, W = 3..7) betting b gives ``(W + b) * E[odds]`` and folding ``-W`` (NY 5324.38(e)(5)); on
4th street (3 cards, W = 2..4) and 3rd street (2 cards, W = 1) the value of a bet is the mean of the
next street's value over the cards still unseen.  Values are kept as exact integers scaled by the
number of continuations (``48``, ``48*49``, ``48*49*50`` on a full deck), so equal-EV actions are
found exactly and broken by the stated :class:`Ties` rule; every figure is an exact fraction.

Arrays are indexed by the colex number of a card set (:mod:`shoe.math.combos`); sums over the next
card are ``bincount`` over the drop-one index arrays.  All sums stay below 2**53, so the float
weights of ``bincount`` are exact and are checked back into int64.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from shoe.math.combos import IntArray, drop_one, subsets
from shoe.math.hands import LINES, line_of_hands

__all__ = ["ACTIONS", "Deck", "Solution", "Ties", "prepare", "solve"]

ACTIONS = ("fold", "1x", "2x", "3x")
"""Action codes 0..3: fold, or bet that many times the ante (NY 5324.38(e)(1),(3),(5))."""


class Ties(Enum):
    """How equal-EV actions are broken (the EV is the same; the wager and variance are not)."""

    PREFER_FOLD = "prefer-fold"  # the smallest wager among the best: fold < 1x < 2x < 3x
    PREFER_BET = "prefer-bet"  # the largest wager among the best


@dataclass(frozen=True)
class Deck:
    """What does not depend on the paytable: the deck's sets and final-hand lines (built once)."""

    cards: tuple[int, ...]
    sets2: IntArray
    sets3: IntArray
    sets4: IntArray
    down3: IntArray  # (C(n,3), 3): the 2-sets inside each 3-set
    down4: IntArray  # (C(n,4), 4): the 3-sets inside each 4-set
    count4: IntArray  # (C(n,4), lines): completions of each 4-set by line


def _bincount(index: IntArray, weights: IntArray | None, size: int) -> IntArray:
    if weights is None:
        return np.bincount(index, minlength=size).astype(np.int64)
    total = np.bincount(index, weights=weights.astype(np.float64), minlength=size)
    out = np.rint(total).astype(np.int64)
    if np.abs(total).max(initial=0.0) >= 2.0**53:  # pragma: no cover - a full deck stays far below
        raise OverflowError("a sum left the exact range of float64")
    return out


def prepare(cards: Sequence[int]) -> Deck:
    """The paytable-free tables of a deck (card indices 0..51, at least 5 distinct cards)."""
    cards = tuple(cards)
    n = len(cards)
    if n < 5 or len(set(cards)) != n or not all(0 <= c < 52 for c in cards):
        raise ValueError(f"a deck is at least 5 distinct card indices 0..51, not {cards!r}")
    lines = line_of_hands(cards)
    sets5 = subsets(n, 5)
    down5 = drop_one(sets5, n)
    sets4 = subsets(n, 4)
    count4 = _bincount((down5 * len(LINES) + lines[:, None]).ravel(), None, len(sets4) * len(LINES))
    sets3 = subsets(n, 3)
    return Deck(
        cards=cards,
        sets2=subsets(n, 2),
        sets3=sets3,
        sets4=sets4,
        down3=drop_one(sets3, n),
        down4=drop_one(sets4, n),
        count4=count4.reshape(len(sets4), len(LINES)),
    )


@dataclass(frozen=True)
class Solution:
    """Optimal play and its exact value.  ``act3[s2]``, ``act4[s3, W-2]``, ``act5[s4, W-3]`` are
    action codes (:data:`ACTIONS`); ``value3`` is in units of 1 / (r2 * r3 * r4) ante, where r2, r3,
    r4 are the numbers of cards unseen on 3rd, 4th and 5th street (50, 49, 48)."""

    deck: Deck
    odds: tuple[int, ...]
    ties: Ties
    act3: IntArray
    act4: IntArray
    act5: IntArray
    value3: IntArray
    value4: IntArray
    value5: IntArray


def _choose(values: IntArray, ties: Ties) -> tuple[IntArray, IntArray]:
    """Best action (last axis) and its value; ties broken by ``ties``."""
    if ties is Ties.PREFER_FOLD:
        act = values.argmax(axis=-1)
    else:
        act = values.shape[-1] - 1 - values[..., ::-1].argmax(axis=-1)
    return act, values.max(axis=-1)


def solve(deck: Deck, odds: Sequence[int], ties: Ties = Ties.PREFER_BET) -> Solution:
    """Optimal strategy for a paytable given as per-line odds (:func:`shoe.math.hands.line_odds`)."""
    n = len(deck.cards)
    r4, r3 = n - 4, n - 3
    pay = np.asarray(odds, dtype=np.int64)
    expect4 = deck.count4 @ pay  # sum over the r4 final cards of the odds, per 4-set
    bets = np.arange(4, dtype=np.int64)
    # 5th street, W = 3..7 (NY 5324.38(e)(5)): fold -W, bet b: (W + b) * E, both times r4.
    w5 = np.arange(3, 8, dtype=np.int64)
    vals5 = (w5[None, :, None] + bets[None, None, :]) * expect4[:, None, None]
    vals5[:, :, 0] = -w5[None, :] * r4
    act5, value5 = _choose(vals5, ties)
    # 4th street, W = 2..4 (NY 5324.38(e)(3)): a bet's value is the sum over the r3 next cards.
    n3 = len(deck.sets3)
    ahead4 = np.stack([_bincount(deck.down4.ravel(), np.repeat(value5[:, k], 4), n3) for k in range(5)], axis=1)
    vals4 = np.empty((n3, 3, 4), dtype=np.int64)
    for wi, w in enumerate((2, 3, 4)):
        vals4[:, wi, 0] = -w * r4 * r3
        for b in (1, 2, 3):
            vals4[:, wi, b] = ahead4[:, w + b - 3]
    act4, value4 = _choose(vals4, ties)
    # 3rd street, W = 1 (NY 5324.38(e)(1)).
    n2 = len(deck.sets2)
    ahead3 = np.stack([_bincount(deck.down3.ravel(), np.repeat(value4[:, k], 3), n2) for k in range(3)], axis=1)
    vals3 = np.empty((n2, 4), dtype=np.int64)
    vals3[:, 0] = -r4 * r3 * (n - 2)
    vals3[:, 1:] = ahead3
    act3, value3 = _choose(vals3, ties)
    return Solution(deck, tuple(int(x) for x in odds), ties, act3, act4, act5, value3, value4, value5)
