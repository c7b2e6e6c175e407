"""Seven-card stud: the highest hand showing acts first (N.J.A.C. 13:47-20.35, rules digest).

Only four of a kind, three of a kind, two pair, pair and high cards count among 1 to 4 up-cards; no
straights or flushes of fewer than five cards; suits never break ties.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shoe.cards import FULL_DECK, Card, CardError, Suit, parse_cards
from shoe.hands import Category, ShowingValue, showing_key, showing_value
from shoe.rules.stud.dealing import first_to_act, highest_showing


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


def _multisets(n: int, low: int = 2) -> list[tuple[int, ...]]:
    """Every multiset of ``n`` ranks, each rank at most four times (high to low)."""
    if n == 0:
        return [()]
    return [(r, *rest) for r in range(low, 15) for rest in _multisets(n - 1, r) if (r, *rest).count(r) <= 4]


def test_nj_13_47_20_35_showing_key_is_what_showing_value_compares_for_every_rank_multiset() -> None:
    """The hand picks the opener from the up-cards' ranks (``showing_key``); for every multiset
    of 1 to 4 ranks, in every order, the key must be the showing value's (strength, tiebreak)."""
    count = 0
    for n in range(1, 5):
        for ranks in _multisets(n):
            cards = [Card(r, Suit(ranks[:i].count(r))) for i, r in enumerate(ranks)]
            value = showing_value(cards)
            for order in {ranks, ranks[::-1], ranks[1:] + ranks[:1]}:
                assert showing_key(order) == (value.strength, value.tiebreak), ranks
            count += 1
    assert count == 13 + 91 + 455 + 1820  # C(13 + n - 1, n) multisets of n ranks


@given(
    st.lists(st.sampled_from(FULL_DECK), min_size=32, max_size=32, unique=True),
    st.integers(1, 8),
    st.integers(1, 4),
)
def test_nj_13_47_20_35_f_highest_showing_picks_the_same_seat_as_first_to_act(
    deck: list[Card], players: int, up: int
) -> None:
    showing = {seat: deck[(seat - 1) * 4 : (seat - 1) * 4 + up] for seat in range(1, players + 1)}
    ranks = {seat: [c.rank for c in cards] for seat, cards in showing.items()}
    assert highest_showing(ranks) == first_to_act(showing)
