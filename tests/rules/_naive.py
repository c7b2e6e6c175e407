"""A deliberately naive five-card evaluator, written separately from shoe.hands, for cross-checks.

It follows the wording of NY 9 NYCRR 5324.38(b) literally: test each category from the top of the
(b)(2) list down, and break ties by the full list of ranks ordered by (multiplicity, rank).  It
knows nothing of rank numbers, lookup tables or the production tiebreak tuples.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from shoe.cards import Card

# Category order of NY 5324.38(b)(2) (i)..(ix), then "no hand"; index 0 is the best.
ORDER = (
    "royal-flush",
    "straight-flush",
    "four-of-a-kind",
    "full-house",
    "flush",
    "straight",
    "three-of-a-kind",
    "two-pair",
    "pair",
    "high-card",
)


def naive_category(cards: Sequence[Card]) -> str:
    assert len(cards) == 5
    ranks = sorted(c.rank for c in cards)
    same_suit = len({c.suit for c in cards}) == 1
    distinct = len(set(ranks)) == 5
    consecutive = distinct and (ranks[4] - ranks[0] == 4 or ranks == [2, 3, 4, 5, 14])
    shape = sorted(Counter(ranks).values())
    if same_suit and ranks == [10, 11, 12, 13, 14]:
        return "royal-flush"
    if same_suit and consecutive:
        return "straight-flush"
    if shape == [1, 4]:
        return "four-of-a-kind"
    if shape == [2, 3]:
        return "full-house"
    if same_suit:
        return "flush"
    if consecutive:
        return "straight"
    if shape == [1, 1, 3]:
        return "three-of-a-kind"
    if shape == [1, 2, 2]:
        return "two-pair"
    if shape == [1, 1, 1, 2]:
        return "pair"
    return "high-card"


def naive_key(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """A sort key: bigger is better, equal means a tie."""
    category = naive_category(cards)
    counts = Counter(c.rank for c in cards)
    ranks = sorted((c.rank for c in cards), key=lambda r: (counts[r], r), reverse=True)
    if category in ("royal-flush", "straight-flush", "straight") and sorted(ranks) == [2, 3, 4, 5, 14]:
        ranks = [5, 4, 3, 2, 1]  # the ace plays low only here (NY 5324.38(b)(1))
    return (len(ORDER) - ORDER.index(category), tuple(ranks))


def naive_best_key(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """Best naive key over every five-card subset."""
    from itertools import combinations

    return max(naive_key(five) for five in combinations(cards, 5))
