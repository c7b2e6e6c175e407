"""Seven-card stud: the highest hand showing acts first (N.J.A.C. 13:47-20.35, rules digest).

Only four of a kind, three of a kind, two pair, pair and high cards count among 1 to 4 up-cards; no
straights or flushes of fewer than five cards; suits never break ties.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shoe.cards import FULL_DECK, Card, CardError, Suit, parse_cards
from shoe.hands import Category, ShowingValue, showing_value


def sv(codes: str) -> ShowingValue:
    return showing_value(parse_cards(codes))


@pytest.mark.parametrize(
    ("codes", "category", "tiebreak"),
    [
        ("As", Category.HIGH_CARD, (14,)),
        ("9c9d9h9s", Category.FOUR_OF_A_KIND, (9,)),
        ("9c9d9h", Category.THREE_OF_A_KIND, (9,)),
        ("9c9d9hAs", Category.THREE_OF_A_KIND, (9, 14)),
        ("KsKd4c4h", Category.TWO_PAIR, (13, 4)),
        ("9c9dAh", Category.PAIR, (9, 14)),
        ("3c3dKhQs", Category.PAIR, (3, 13, 12)),
        ("AcKd", Category.HIGH_CARD, (14, 13)),
    ],
)
def test_nj_13_47_20_35_showing_categories(codes: str, category: Category, tiebreak: tuple[int, ...]) -> None:
    value = sv(codes)
    assert value.category is category and value.tiebreak == tiebreak


def test_nj_13_47_20_35_no_straights_or_flushes_showing() -> None:
    assert sv("5h6h7h8h").category is Category.HIGH_CARD
    assert sv("5h6h7h8h") < sv("2c2d3h4s")  # a "four-flush straight" loses to a pair of deuces
    assert sv("AhKhQhJh") < sv("2c2d")


def test_nj_13_47_20_35_showing_order() -> None:
    ranked = ["2c2d2h2s", "AcAdAh", "3c3d2h2s", "AcAd", "2c2dKs", "AcKdQhJs", "AcKd", "Ac", "Kc"]
    values = [sv(c) for c in ranked]
    assert values == sorted(values, reverse=True)
    assert sv("KcKd5h5s") > sv("KcKd4h4s")
    assert sv("QcQdAh") > sv("QcQdKh")


def test_nj_13_47_20_35_suits_never_break_ties_showing() -> None:
    """The tie goes to the player closest to the dealer's left, not to a suit."""
    assert sv("AsKs") == sv("AcKd")
    assert sv("9c9dAh") == sv("9h9sAc")
    assert not sv("AsKs") > sv("AcKd")


@given(st.lists(st.sampled_from(FULL_DECK), min_size=1, max_size=4, unique=True), st.permutations(list(Suit)))
def test_nj_13_47_20_35_showing_value_ignores_suits(cards: list[Card], perm: list[Suit]) -> None:
    renamed = [Card(c.rank, perm[c.suit]) for c in cards]
    assert showing_value(cards) == showing_value(renamed)
    assert sorted(showing_value(cards).cards) == sorted(cards)


def test_showing_value_rejects_bad_input() -> None:
    with pytest.raises(CardError):
        showing_value([])
    with pytest.raises(CardError):
        sv("AcKcQcJcTc")
    with pytest.raises(CardError, match="duplicate"):
        sv("AcAc")
