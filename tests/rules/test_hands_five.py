"""Five-card hand ranks of NY 9 NYCRR 5324.38(b) (same as 58 Pa. Code 655a.6), one rule per test."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shoe.cards import FULL_DECK, Card, CardError, Suit, parse_cards
from shoe.hands import (
    RANK_COUNT,
    Category,
    HandValue,
    best_hand,
    category_of_rank,
    evaluate5,
    hand_value,
    rank5,
    rank_cards,
    rank_class,
)

from ._naive import naive_best_key, naive_category, naive_key


def ev(codes: str) -> HandValue:
    return evaluate5(parse_cards(codes))


def best(codes: str) -> HandValue:
    return best_hand(parse_cards(codes))


# --- (b)(2): categories and their order -------------------------------------------------------


@pytest.mark.parametrize(
    ("codes", "category"),
    [
        ("AsKsQsJsTs", Category.ROYAL_FLUSH),  # (b)(2)(i)
        ("9h8h7h6h5h", Category.STRAIGHT_FLUSH),  # (b)(2)(ii)
        ("5d4d3d2dAd", Category.STRAIGHT_FLUSH),  # (b)(1) + (b)(2)(ii)
        ("7c7d7h7sKd", Category.FOUR_OF_A_KIND),  # (b)(2)(iii)
        ("QcQdQh4s4d", Category.FULL_HOUSE),  # (b)(2)(iv)
        ("Ac9c7c4c2c", Category.FLUSH),  # (b)(2)(v)
        ("Tc9d8h7s6c", Category.STRAIGHT),  # (b)(2)(vi)
        ("8c8d8hKs2c", Category.THREE_OF_A_KIND),  # (b)(2)(vii)
        ("JcJd4h4s9c", Category.TWO_PAIR),  # (b)(2)(viii)
        ("6c6dAh9s2c", Category.PAIR),  # (b)(2)(ix)
        ("AcJd8h6s3c", Category.HIGH_CARD),
    ],
)
def test_ny_5324_38_b_2_categories(codes: str, category: Category) -> None:
    assert ev(codes).category is category


def test_ny_5324_38_b_2_category_order_and_names() -> None:
    """(b)(2) lists the hands highest first; strength runs 9 (royal flush) down to 0 (high card)."""
    assert [c.strength for c in Category] == list(range(9, -1, -1))
    assert [c.value for c in Category][:3] == ["royal-flush", "straight-flush", "four-of-a-kind"]
    hands = ["AsKsQsJsTs", "9h8h7h6h5h", "2c2d2h2s3d", "2c2d2h3s3d", "Ac9c7c4c2c"]
    hands += ["6c5d4h3s2c", "2c2d2hKsQd", "2c2d3h3sAd", "2c2dAhKsQd", "AcKdQhJs9c"]
    values = [ev(h) for h in hands]
    assert values == sorted(values, reverse=True)
    assert len(set(values)) == len(values)


def test_ny_5324_38_b_2_i_royal_flush_is_ace_high_straight_flush_and_best() -> None:
    assert ev("TdJdQdKdAd").category is Category.ROYAL_FLUSH
    assert ev("TdJdQdKdAd").rank == RANK_COUNT
    assert ev("AhKhQhJhTh") == ev("AcKcQcJcTc")  # all royal flushes tie


# --- (b)(1): ace high, ace low only in A-2-3-4-5, no wrap-around --------------------------------


def test_ny_5324_38_b_1_ace_is_high() -> None:
    assert ev("Ac7d5h4s2c") > ev("KcQdJh9s8c")
    assert ev("AcAd5h4s2c") > ev("KcKdQhJs9c")


def test_ny_5324_38_b_1_wheel_is_a_straight() -> None:
    value = ev("Ac2d3h4s5c")
    assert value.category is Category.STRAIGHT
    assert value.tiebreak == (5,)
    assert [c.rank for c in value.cards] == [5, 4, 3, 2, 14]  # the ace plays low, last


def test_ny_5324_38_b_2_vi_wheel_is_lowest_straight() -> None:
    """(b)(2)(vi): A-2-3-4-5 is the lowest-ranking straight, A-K-Q-J-10 the highest."""
    wheel, six_high, broadway = ev("Ac2d3h4s5c"), ev("2c3d4h5s6c"), ev("AcKdQhJsTc")
    assert wheel < six_high < broadway
    assert wheel > ev("AcKdQhJs9c")  # still beats any three of a kind or less
    assert wheel > ev("AcAdAhKsQc")


def test_ny_5324_38_b_1_steel_wheel_is_lowest_straight_flush() -> None:
    assert ev("Ah2h3h4h5h") < ev("2h3h4h5h6h")
    assert ev("Ah2h3h4h5h") > ev("AcAdAhAsKc")


@pytest.mark.parametrize("codes", ["QcKdAh2s3c", "KcAd2h3s4c", "JcQdKhAs2c"])
def test_ny_5324_38_b_1_no_wrap_around(codes: str) -> None:
    """(b)(1): the ace "may not be combined with any other sequence of cards"."""
    assert ev(codes).category is Category.HIGH_CARD


def test_ny_5324_38_b_1_no_wrap_around_straight_flush() -> None:
    assert ev("QhKhAh2h3h").category is Category.FLUSH


# --- tie-breaks within a category --------------------------------------------------------------


def test_ny_5324_38_b_2_iii_four_of_a_kind_by_quad_rank_then_kicker() -> None:
    assert ev("3c3d3h3s2c") > ev("2c2d2h2sAc")
    assert ev("9c9d9h9sKc") > ev("9c9d9h9sQc")  # shared quads (community cards): kicker decides
    assert ev("9c9d9h9sKc").tiebreak == (9, 13)


def test_ny_5324_38_b_2_iv_full_house_by_trips_then_pair() -> None:
    assert ev("3c3d3h2s2c") > ev("2c2d2hAsAc")
    assert ev("QcQdQhAsAc") > ev("QcQdQhKsKc")
    assert ev("QcQdQh4s4d").tiebreak == (12, 4)


def test_ny_5324_38_b_2_v_flush_by_ranks_in_order() -> None:
    assert ev("Ac9c7c4c2c") > ev("KcQcJc9c7c")
    assert ev("AdKd7d4d3d") > ev("AcKc7c4c2c")  # fifth card decides
    assert ev("Ac9c7c4c2c").tiebreak == (14, 9, 7, 4, 2)


def test_ny_5324_38_b_2_vi_straight_by_high_card() -> None:
    assert ev("7c6d5h4s3c") > ev("6c5d4h3s2c")
    assert ev("Tc9d8h7s6c").tiebreak == (10,)


def test_ny_5324_38_b_2_vii_three_of_a_kind_by_rank_then_kickers() -> None:
    assert ev("3c3d3h2s4c") > ev("2c2d2hAsKc")
    assert ev("8c8d8hKs3c") > ev("8c8d8hQsJc")
    assert ev("8c8d8hKs3c") > ev("8c8d8hKs2c")


def test_ny_5324_38_b_2_viii_two_pair_by_high_pair_low_pair_kicker() -> None:
    assert ev("KcKd2h2s3c") > ev("QcQdJhJsAc")  # high pair first
    assert ev("KcKd5h5s3c") > ev("KcKd4h4sAc")  # then low pair
    assert ev("KcKd5h5s4c") > ev("KcKd5h5s3c")  # then kicker
    assert ev("JcJd4h4s9c").tiebreak == (11, 4, 9)


def test_ny_5324_38_b_2_ix_pair_by_rank_then_kickers_in_order() -> None:
    assert ev("3c3d4h5s6c") > ev("2c2dAhKsQc")
    assert ev("6c6dAh9s2c") > ev("6c6dKhQsJc")
    assert ev("6c6dAh9s3c") > ev("6c6dAh9s2c")
    assert ev("6c6dAh9s2c").tiebreak == (6, 14, 9, 2)


def test_ny_5324_38_b_high_card_by_ranks_in_order() -> None:
    assert ev("AcJd8h6s3c") > ev("AcJd8h6s2c")
    assert ev("AcJd8h6s3c") < ev("AcQd8h6s3c")


def test_ny_5324_38_b_suits_never_break_ties() -> None:
    """NY 5324.38(b) ranks hands by rank only: hands differing only in suits are equal."""
    a, b = ev("AsKdQh9c7c"), ev("AcKsQd9h7h")
    assert a == b and not a < b and not a > b and hash(a) == hash(b)
    assert a.cards != b.cards
    assert ev("AsKsQs9s7s") == ev("AhKhQh9h7h")


# --- best five of 5, 6 or 7 (NY 5324.38(e)(7)) -------------------------------------------------


def test_ny_5324_38_e_7_best_five_card_hand_from_seven() -> None:
    value = best("AsKs2s3s4s5s9d")
    assert value.category is Category.STRAIGHT_FLUSH and value.tiebreak == (5,)
    assert best("7c7d7h2s2d3c3h").tiebreak == (7, 3)  # two pairs available: the higher pair
    assert best("KcKdKhQsQdQc2h").tiebreak == (13, 12)  # two trips: full house kings over queens
    assert best("9c9d9h9sAdAcAh").tiebreak == (9, 14)  # quads with an ace kicker
    assert best("2c3d4h5s6c7d8h").tiebreak == (8,)
    assert best("AcKdQh9s8s7c2d").cards == parse_cards("AcKdQh9s8s")


def test_ny_5324_38_e_7_best_hand_of_six_and_five() -> None:
    assert best("AsKsQsJsTs9s") == ev("AsKsQsJsTs")
    assert best("2c2d5h7s9c") == ev("2c2d5h7s9c")


def test_best_hand_rejects_bad_input() -> None:
    with pytest.raises(CardError):
        best_hand(parse_cards("AsKs"))
    with pytest.raises(CardError, match="duplicate"):
        best_hand(parse_cards("AsAsKsQsJs"))
    with pytest.raises(CardError):
        evaluate5(parse_cards("AsKsQsJsTs9s"))
    with pytest.raises(CardError):
        evaluate5(["As", "Ks", "Qs", "Js", "Ts"])  # type: ignore[list-item]


# --- fast integer path -------------------------------------------------------------------------


def test_rank_numbers_are_higher_is_better() -> None:
    assert rank5(*(c.index for c in parse_cards("7c5d4h3s2c"))) == 1
    assert rank5(*(c.index for c in parse_cards("AsKsQsJsTs"))) == RANK_COUNT
    assert category_of_rank(1) is Category.HIGH_CARD
    assert rank_class(RANK_COUNT) == (Category.ROYAL_FLUSH, (14,))
    with pytest.raises(ValueError, match="rank number"):
        rank_class(0)
    with pytest.raises(ValueError, match="5, 6 or 7"):
        rank_cards([1, 2, 3])
    with pytest.raises(IndexError):
        rank5(0, 1, 2, 3, 52)


def test_hand_value_round_trip() -> None:
    for codes in ("AsKsQsJsTs", "Ac2d3h4s5c", "KcKd5h5s3c", "2c3d4h5s7c"):
        v = ev(codes)
        assert hand_value(v.rank, v.cards) == v
        assert hand_value(v.rank, v.cards).cards == v.cards


# --- properties --------------------------------------------------------------------------------

hands7 = st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=7, unique=True)
suit_perms = st.permutations(list(Suit))


@settings(max_examples=300, deadline=None)
@given(hands7)
def test_ny_5324_38_e_7_best_of_seven_is_max_of_21_fives_by_naive_evaluator(cards: list[Card]) -> None:
    value = best_hand(cards)
    assert naive_key(value.cards) == naive_best_key(cards)
    assert value == max(evaluate5(five) for five in combinations(cards, 5))
    assert value.category.value == naive_category(value.cards)


@settings(max_examples=300, deadline=None)
@given(hands7, hands7, suit_perms)
def test_ny_5324_38_b_ordering_invariant_under_suit_permutation(a: list[Card], b: list[Card], perm: list[Suit]) -> None:
    """Suits have no rank in NY 5324.38(b): renaming suits changes no value and no comparison."""

    def rename(cards: list[Card]) -> list[Card]:
        return [Card(c.rank, perm[c.suit]) for c in cards]

    va, vb = best_hand(a), best_hand(b)
    wa, wb = best_hand(rename(a)), best_hand(rename(b))
    assert va == wa and vb == wb
    assert (va < vb) == (wa < wb) and (va == vb) == (wa == wb)
    assert evaluate5(a[:5]) == evaluate5(rename(a[:5]))


def _reported_five(cards: list[Card]) -> tuple[Card, ...]:
    """The five cards best_hand reports, by its definition: of the best subsets, the first in the
    combinations of the cards sorted high to low, put in hand_value's order."""
    hand = sorted(cards, reverse=True)
    best = max(rank5(*(c.index for c in five)) for five in combinations(hand, 5))
    first = next(five for five in combinations(hand, 5) if rank5(*(c.index for c in five)) == best)
    return hand_value(best, first).cards


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=5, max_size=7, unique=True))
def test_ny_5324_38_e_7_best_hand_reports_the_highest_best_five_in_order(cards: list[Card]) -> None:
    """The evaluator sorts by card index and orders the five without hand_value's sorts: the cards reported
    (which five, and in which order: quads before the kicker, a wheel's ace last) must not change."""
    assert best_hand(cards).cards == _reported_five(cards)


def test_ny_5324_38_b_1_best_hand_reports_wheels_straights_and_full_houses_in_order() -> None:
    rng = random.Random(16)
    for codes in ("As 2d 3h 4c 5s Kd Kh", "5h 4h 3h 2h Ah 9c 9d", "9s 9h 9d 4c 4d 4h Ac", "Ts Js Qs Ks As 2c 2d"):
        cards = list(parse_cards(codes))
        for _ in range(5):
            rng.shuffle(cards)
            assert best_hand(cards).cards == _reported_five(cards)
