"""Cards, card codes and decks (rules digest "Conventions"; stud suit order N.J.A.C. 13:47-20.35)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shoe.cards import FULL_DECK, RANKS, SUITS, Card, CardError, Deck, Suit, deck_problems, parse_cards


def test_full_deck_is_52_cards_in_index_order() -> None:
    assert len(FULL_DECK) == 52 == len(set(FULL_DECK))
    assert [c.index for c in FULL_DECK] == list(range(52))
    assert FULL_DECK[0].code == "2c" and FULL_DECK[-1].code == "As"
    assert all(Card.from_index(i) is FULL_DECK[i] for i in range(52))


def test_codes_rank_then_suit() -> None:
    """Rules digest: ranks 23456789TJQKA, suits cdhs, rank first."""
    assert Card.parse("As") == Card(14, Suit.SPADES)
    assert Card.parse("Td") == Card(10, Suit.DIAMONDS)
    assert Card.parse("7c") == Card(7, Suit.CLUBS)
    assert str(Card(12, Suit.HEARTS)) == "Qh" == Card(12, Suit.HEARTS).code
    assert repr(Card.parse("2c")) == "Card(2c)"
    assert Suit.HEARTS.letter == "h"


def test_nj_13_47_20_35_bring_in_order_rank_then_suit_clubs_lowest() -> None:
    """N.J.A.C. 13:47-20.35: lowest by rank (ace high), ties by suit: clubs < diamonds < hearts < spades."""
    assert Card.parse("2s") < Card.parse("3c")
    assert Card.parse("Kc") < Card.parse("Kd") < Card.parse("Kh") < Card.parse("Ks") < Card.parse("Ac")
    assert min(parse_cards("4h 4c 9s 4d")) == Card.parse("4c")


@given(st.integers(0, 51))
def test_code_index_round_trips(i: int) -> None:
    card = Card.from_index(i)
    assert Card.parse(card.code) == card
    assert Card.parse(str(card)) is card
    assert Card(card.rank, card.suit).index == i
    assert parse_cards(card.code) == (card,)


@given(st.lists(st.sampled_from(FULL_DECK), max_size=10))
def test_parse_cards_round_trips(cards: list[Card]) -> None:
    joined = "".join(c.code for c in cards)
    assert parse_cards(joined) == tuple(cards)
    assert parse_cards(" ".join(c.code for c in cards)) == tuple(cards)
    assert parse_cards([c.code for c in cards]) == tuple(cards)


VALID = {r + s for r in RANKS for s in SUITS}


@given(st.text(max_size=4).filter(lambda t: t not in VALID))
def test_bad_code_raises_card_error_naming_it(code: str) -> None:
    with pytest.raises(CardError) as info:
        Card.parse(code)
    assert repr(code) in str(info.value)
    assert "e.g. 'As'" in str(info.value)


@pytest.mark.parametrize("code", ["as", "AS", "1c", "10h", "A", "", "Ax", "ZZ", " As"])
def test_bad_codes(code: str) -> None:
    with pytest.raises(CardError, match="bad card code"):
        Card.parse(code)


def test_card_error_is_value_error_and_bad_fields() -> None:
    assert issubclass(CardError, ValueError)
    with pytest.raises(CardError, match="rank"):
        Card(15, Suit.CLUBS)
    with pytest.raises(CardError, match="suit"):
        Card(5, 7)  # type: ignore[arg-type]
    assert Card(5, 2).suit is Suit.HEARTS  # type: ignore[arg-type]
    with pytest.raises(CardError, match="index"):
        Card.from_index(52)
    with pytest.raises(CardError, match="odd number"):
        parse_cards("AsK")
    with pytest.raises(CardError, match="'1x'"):
        parse_cards("As1x")


def test_deck_standard_and_seeded_shuffle() -> None:
    red = Deck.standard("red")
    assert red.cards == FULL_DECK and red.validate() == [] and len(red) == 52
    a, b = Deck.shuffled("blue", 42), Deck.shuffled("blue", 42)
    assert a == b and a.identity == "blue"
    assert a.cards != FULL_DECK and sorted(a) == list(FULL_DECK)
    assert Deck.shuffled("blue", 43).cards != a.cards
    a.validate_strict()


def test_deck_from_codes() -> None:
    shuffled = Deck.shuffled("red", 1)
    assert Deck.from_codes("red", shuffled.codes) == shuffled
    assert Deck.from_codes("red", "".join(shuffled.codes)) == shuffled
    with pytest.raises(CardError) as info:
        Deck.from_codes("red", ["As", "As", "1x"])
    message = str(info.value)
    assert "'red'" in message and "unknown card '1x'" in message
    assert "duplicate card As" in message and "wrong card count 3" in message


def test_deck_validate_names_each_problem() -> None:
    cards = list(FULL_DECK)
    cards[5] = cards[0]  # 2c twice, 3d missing
    deck = Deck("blue", tuple(cards))
    problems = deck.validate()
    assert problems == ["duplicate card 2c (2 times)", "missing cards 3d"]
    with pytest.raises(CardError) as info:
        deck.validate_strict()
    assert "'blue'" in str(info.value) and "duplicate card 2c" in str(info.value) and "3d" in str(info.value)
    short = Deck("red", FULL_DECK[:51])
    assert short.validate() == ["missing cards As", "wrong card count 51 (a deck has 52 cards)"]
    assert deck_problems([*FULL_DECK, "Xx"]) == [
        "unknown card 'Xx' at position 53",
        "wrong card count 53 (a deck has 52 cards)",
    ]
