"""Exhaustive checks over all 2,598,960 five-card hands and all seven-card fast paths.

NY 9 NYCRR 5324.38(b)(2) (58 Pa. Code 655a.6): category frequencies, the 7,462 distinct hand values,
and the whole ordering cross-checked against the naive evaluator in ``_naive.py``.
"""

from __future__ import annotations

import random
from array import array
from collections import Counter
from itertools import chain, combinations, pairwise

import numpy as np
import pytest

from shoe.cards import FULL_DECK, Card, Suit
from shoe.hands import (
    RANK_COUNT,
    Category,
    best_hand,
    category_of_rank,
    evaluate5,
    rank5,
    rank6,
    rank7,
    rank_class,
)

from ._naive import naive_key

EXPECTED = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.THREE_OF_A_KIND: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}


@pytest.fixture(scope="module")
def all_ranks() -> array[int]:
    """rank5 of every five-card hand, in ``combinations(range(52), 5)`` order."""
    return array("H", (rank5(*h) for h in combinations(range(52), 5)))


@pytest.fixture(scope="module")
def representatives(all_ranks: array[int]) -> dict[int, tuple[int, ...]]:
    """One hand (card indices) per rank number: the first one met."""
    reps: dict[int, tuple[int, ...]] = {}
    for r, h in zip(all_ranks, combinations(range(52), 5), strict=True):
        if r not in reps:
            reps[r] = h
    return reps


def test_ny_5324_38_b_2_category_counts_of_all_2598960_hands(all_ranks: array[int]) -> None:
    """Each category of NY 5324.38(b)(2) occurs exactly as often as combinatorics says."""
    assert len(all_ranks) == 2_598_960
    per_rank = Counter(all_ranks)
    counts: Counter[Category] = Counter()
    for r, n in per_rank.items():
        counts[category_of_rank(r)] += n
    assert dict(counts) == EXPECTED


def test_ny_5324_38_b_7462_distinct_hand_values(all_ranks: array[int]) -> None:
    """Ties only where NY 5324.38(b) allows them: 7,462 distinct values, rank numbers 1..7462."""
    assert set(all_ranks) == set(range(1, RANK_COUNT + 1))


def test_ny_5324_38_b_whole_ordering_matches_naive_evaluator(representatives: dict[int, tuple[int, ...]]) -> None:
    """The 7,462 classes sorted by rank number are strictly increasing under the naive evaluator,
    which reads NY 5324.38(b)(1)-(2) literally: same order, no two classes merged."""
    keys = [naive_key([FULL_DECK[i] for i in representatives[r]]) for r in range(1, RANK_COUNT + 1)]
    assert all(a < b for a, b in pairwise(keys))
    assert len(set(keys)) == RANK_COUNT


@pytest.mark.slow
def test_ny_5324_38_b_every_hand_in_its_naive_class(
    all_ranks: array[int], representatives: dict[int, tuple[int, ...]]
) -> None:
    """Every one of the 2,598,960 hands has the naive key of its rank class's representative, so
    with the test above the fast evaluator orders all hands exactly as the naive one does.

    The naive evaluator reads two facts of a hand: its ranks, and whether all five suits are one
    (NY 5324.38(b)(2) uses suits for flushes only). Hands alike in both facts get one naive key, so
    the hands are grouped by those facts (7,462 groups) and each group must carry one rank number
    only, whose class has the naive key of the group's first hand; a hand ranked apart from the others
    of its group fails the first check, a whole group ranked wrong the second. That
    ``naive_key`` reads nothing else is checked on every hand of a random sample below."""
    hands = np.fromiter(chain.from_iterable(combinations(range(52), 5)), dtype=np.int8).reshape(-1, 5)
    ranks, suits = (hands // 4).astype(np.int64), hands % 4
    one_suit = (suits == suits[:, :1]).all(axis=1)
    group = (ranks * 13 ** np.arange(5)).sum(axis=1) + one_suit * 13**5  # rows are sorted, so are their ranks
    fast = np.frombuffer(all_ranks, dtype=np.uint16).astype(np.int64)
    groups, first = np.unique(group, return_index=True)
    assert len(groups) == RANK_COUNT
    pairs = np.unique(group * (RANK_COUNT + 1) + fast)
    split = groups[np.bincount(np.searchsorted(groups, pairs // (RANK_COUNT + 1))) > 1]
    assert split.size == 0, f"hands alike in ranks and suitedness ranked apart, e.g. {hands[group == split[0]][:4]}"
    rep_key = {r: naive_key([FULL_DECK[i] for i in h]) for r, h in representatives.items()}
    bad = [
        (int(fast[i]), [str(FULL_DECK[c]) for c in hands[i]])
        for i in first
        if naive_key([FULL_DECK[c] for c in hands[i]]) != rep_key[int(fast[i])]
    ]
    assert bad == []


def test_the_naive_key_reads_only_ranks_and_suitedness() -> None:
    """What the grouping above relies on, hand by hand: 10,000 random hands, each with the naive key
    of the same ranks in other suits (one suit again for a flush, mixed suits otherwise)."""
    rng = random.Random(53243)
    for _ in range(10_000):
        hand = rng.sample(FULL_DECK, 5)
        flush = len({c.suit for c in hand}) == 1
        while True:  # the same ranks, each card in a random suit, no card twice
            if flush:
                suit = Suit(rng.randrange(4))
                other = [Card(c.rank, suit) for c in hand]
            else:
                other = [Card(c.rank, Suit(rng.randrange(4))) for c in hand]
            if len(set(other)) == 5 and (len({c.suit for c in other}) == 1) == flush:
                break
        assert naive_key(other) == naive_key(hand), (hand, other)


def test_ny_5324_38_b_pairwise_agreement_on_random_sample() -> None:
    """On 100,000 random pairs of hands, fast and naive evaluators agree on win/lose/tie."""
    rng = random.Random(532438)
    for _ in range(100_000):
        h1 = rng.sample(FULL_DECK, 5)
        h2 = rng.sample(FULL_DECK, 5)
        r1, r2 = (rank5(*(c.index for c in h)) for h in (h1, h2))
        k1, k2 = naive_key(h1), naive_key(h2)
        assert (r1 > r2) - (r1 < r2) == (k1 > k2) - (k1 < k2), (h1, h2)


def test_ny_5324_38_b_rank7_and_rank6_are_best_of_subsets() -> None:
    """NY 5324.38(e)(7) "best possible five-card hand": rank7/rank6 equal the best rank5 of the
    subsets, on 20,000 random seven-card hands (flush-heavy ones included)."""
    rng = random.Random(20)
    for n in range(20_000):
        if n % 4:
            cards = rng.sample(range(52), 7)
        else:  # force five or more of one suit
            suit = rng.randrange(4)
            flushy = rng.sample([i for i in range(52) if i % 4 == suit], rng.choice((5, 6, 7)))
            rest = [i for i in range(52) if i not in flushy]
            cards = flushy + rng.sample(rest, 7 - len(flushy))
            rng.shuffle(cards)
        assert rank7(*cards) == max(rank5(*f) for f in combinations(cards, 5))
        assert rank6(*cards[:6]) == max(rank5(*f) for f in combinations(cards[:6], 5))


def test_ny_5324_38_b_object_api_agrees_with_rank_numbers() -> None:
    """evaluate5 and best_hand report the category and tiebreak of the rank number."""
    rng = random.Random(7)
    for _ in range(3_000):
        cards = rng.sample(FULL_DECK, 7)
        value = best_hand(cards)
        assert (value.category, value.tiebreak) == rank_class(rank7(*(c.index for c in cards)))
        assert evaluate5(value.cards) == value
        assert set(value.cards) <= set(cards)
