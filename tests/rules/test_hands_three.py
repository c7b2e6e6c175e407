"""Three-card hand ranks for the PA Three Card Bonus (58 Pa. Code 655a.12; rules digest): mini royal,
straight flush, three of a kind, straight, flush, pair, high card.  A-2-3 is the lowest straight."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from shoe.cards import FULL_DECK, CardError, parse_cards
from shoe.hands import ThreeCardCategory, ThreeCardValue, evaluate3

T = ThreeCardCategory


def ev3(codes: str) -> ThreeCardValue:
    return evaluate3(parse_cards(codes))


def test_pa_655a_12_three_card_counts_of_all_22100_hands() -> None:
    """Rules digest reference numbers: straight flush 48 (4 of them A-K-Q), trips 52, straight 720,
    flush 1,096, pair 3,744."""
    values = [evaluate3(h) for h in combinations(FULL_DECK, 3)]
    counts = Counter(v.category for v in values)
    assert len(values) == 22_100
    assert counts[T.MINI_ROYAL] == 4
    assert counts[T.STRAIGHT_FLUSH] + counts[T.MINI_ROYAL] == 48
    assert counts[T.THREE_OF_A_KIND] == 52
    assert counts[T.STRAIGHT] == 720
    assert counts[T.FLUSH] == 1_096
    assert counts[T.PAIR] == 3_744
    assert counts[T.HIGH_CARD] == 22_100 - 48 - 52 - 720 - 1_096 - 3_744
    # every class is a distinct value; suits never break ties
    by_key = {v.key for v in values}
    assert len(by_key) == len(set(values))


def test_pa_655a_12_three_card_category_order_straight_beats_flush() -> None:
    assert [c.value for c in T] == [
        "mini-royal",
        "straight-flush",
        "three-of-a-kind",
        "straight",
        "flush",
        "pair",
        "high-card",
    ]
    assert [c.strength for c in T] == list(range(6, -1, -1))
    ordered = [ev3(h) for h in ("AhKhQh", "4s3s2s", "2c2d2h", "Ac2d3h", "Kc9c2c", "AcAdKh", "AcKdJh")]
    assert ordered == sorted(ordered, reverse=True)
    assert ev3("2c3d4h") > ev3("AcKcJc")  # straight beats flush with three cards


def test_pa_655a_12_a_2_3_is_the_lowest_straight() -> None:
    assert ev3("Ac2d3h").category is T.STRAIGHT
    assert ev3("Ac2d3h").tiebreak == (3,)
    assert ev3("Ac2d3h") < ev3("2c3d4h") < ev3("AcKdQh")
    assert [c.code for c in ev3("Ac2d3h").ordered] == ["3h", "2d", "Ac"]
    assert ev3("Ac2c3c").category is T.STRAIGHT_FLUSH
    assert ev3("Ac2c3c") < ev3("2c3c4c")


def test_pa_655a_12_no_wrap_around() -> None:
    assert ev3("KcAd2h").category is T.HIGH_CARD
    assert ev3("KcAc2c").category is T.FLUSH


def test_pa_655a_12_mini_royal_is_ace_king_queen_suited() -> None:
    assert ev3("QsAsKs").category is T.MINI_ROYAL
    assert ev3("QsAsKs") == ev3("AdKdQd")
    assert ev3("QsAsKd").category is T.STRAIGHT
    assert ev3("KsQsJs").category is T.STRAIGHT_FLUSH


def test_pa_655a_12_three_card_tiebreaks() -> None:
    assert ev3("AcAdKh") > ev3("AcAd9h") > ev3("KcKdAh")
    assert ev3("9c9d5h").tiebreak == (9, 5)
    assert ev3("5c9d9h").ordered[2].code == "5c"
    assert ev3("AcJd9h") > ev3("AcJd8h")
    assert ev3("AcJc9c").tiebreak == (14, 11, 9)
    assert ev3("AsJd9h") == ev3("AcJh9d")  # suits never break ties


def test_evaluate3_rejects_bad_input() -> None:
    with pytest.raises(CardError):
        evaluate3(parse_cards("AsKs"))
    with pytest.raises(CardError, match="duplicate"):
        evaluate3(parse_cards("AsAsKs"))
