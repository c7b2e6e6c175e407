"""Seven-card stud dealing: order, face, burns, common card, burn reshuffle (N.J.A.C. 13:47-20.35(c), (f), (h)).

Every refused card must leave the hand exactly as it was (``snapshot()`` before == after).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from shoe.cards import FULL_DECK, Card, Deck, parse_cards
from shoe.rules.stud import (
    BurnsReshuffled,
    CardDealt,
    DealStep,
    Phase,
    Street,
    StudHand,
    StudRuleViolation,
    StudTableConfig,
    Target,
)
from shoe.rules.stud.dealing import clockwise_from, needs_common_card, needs_reshuffle, street_plan

CFG = StudTableConfig(ante=0, bring_in=100, small_bet=200, big_bet=400)


def refused(hand: StudHand, code: str, rule: str, call: Callable[..., object], *args: object) -> StudRuleViolation:
    """Call ``call(*args)``, expect a refusal with ``code`` citing ``rule``, and check nothing changed."""
    before = hand.snapshot()
    with pytest.raises(StudRuleViolation) as info:
        call(*args)
    assert info.value.code == code, info.value
    assert info.value.rule == f"N.J.A.C. 13:47-20.35({rule})", info.value
    assert hand.snapshot() == before
    return info.value


def check_or_call_round(hand: StudHand) -> None:
    """Play the passive choice until the hand deals again or ends."""
    while hand.to_act is not None:
        action = hand.default_action()
        hand.act(action.seat, action.kind, action.amount)


def deal_street(hand: StudHand, cards: list[Card]) -> list[CardDealt]:
    """Deal from ``cards`` (popping the top) until the street's plan is complete."""
    out = []
    while hand.next_card is not None and hand.next_card.target is not Target.RESHUFFLE:
        out.append(hand.deal(cards.pop(0)))
    return out


def test_njac_13_47_20_35_c_two_down_one_up_clockwise_from_dealers_left() -> None:
    """(c) Two rounds face down, one face up, starting at the dealer's left (lowest seat), clockwise."""
    hand = StudHand(CFG, [7, 2, 5])
    assert hand.phase is Phase.DEAL_THIRD
    expected = [(seat, up) for up in (False, False, True) for seat in (2, 5, 7)]
    assert [(s.seat, s.face_up) for s in hand.dealing_order] == expected
    assert all(s.target is Target.SEAT and s.street is Street.THIRD for s in hand.dealing_order)
    cards = list(parse_cards("Ah Kd 2c Ad Kc 3c 9s 4h Qd"))
    records = deal_street(hand, cards)
    assert [(r.seat, r.face_up, r.card.code) for r in records] == [
        (2, False, "Ah"),
        (5, False, "Kd"),
        (7, False, "2c"),
        (2, False, "Ad"),
        (5, False, "Kc"),
        (7, False, "3c"),
        (2, True, "9s"),
        (5, True, "4h"),
        (7, True, "Qd"),
    ]
    assert hand.cards(2) == parse_cards("Ah Ad 9s")
    assert hand.up_cards(5) == parse_cards("4h") and hand.down_cards(5) == parse_cards("Kd Kc")
    assert hand.phase is Phase.BRING_IN and hand.next_card is None


def test_njac_13_47_20_35_c_refuses_a_card_for_the_wrong_seat_or_out_of_order() -> None:
    """(c) The next card has one destination; another target, a dealt card or a card during betting is refused."""
    hand = StudHand(CFG, [1, 2, 3])
    assert hand.next_card == DealStep(Target.SEAT, Street.THIRD, 1, face_up=False)
    refused(hand, "wrong-target", "c", hand.deal, Card.parse("As"), 2)
    refused(hand, "wrong-target", "c", hand.deal, Card.parse("As"), "burn")
    assert hand.can_deal(Card.parse("As"), 1) and not hand.can_deal(Card.parse("As"), 3)
    hand.deal(Card.parse("As"), 1)
    refused(hand, "unknown-card", "c", hand.deal, Card.parse("As"))
    refused(hand, "unknown-card", "c", hand.deal, "Kd")
    for card in parse_cards("Kd Qd Jd Td 9d 8d 7d 6d"):
        hand.deal(card)
    assert hand.phase is Phase.BRING_IN
    refused(hand, "out-of-order", "d", hand.deal, Card.parse("2c"))
    hand.bring_in(hand.bring_in_seat or 0)
    refused(hand, "out-of-order", "e", hand.deal, Card.parse("2c"))


def test_njac_13_47_20_35_f_burn_then_fourth_card_up_to_players_not_folded() -> None:
    """(f) After 3rd street: burn the top card, then a 4th card face up to each player still in,
    starting with the first remaining player to the dealer's left."""
    hand = StudHand(CFG, [1, 3, 4, 6])
    cards = list(parse_cards("2c 3c 4c 5c 6c 7c 8c 9c Ks Kh Kd Kc"))  # up: Ks Kh Kd Kc -> bring-in 6
    deal_street(hand, cards)
    assert hand.bring_in_seat == 6
    hand.bring_in(6)
    hand.fold(1)  # the dealer's-left seat folds: the 4th street starts at seat 3
    hand.call(3)
    hand.call(4)
    assert hand.phase is Phase.DEAL_FOURTH
    assert [str(s) for s in hand.dealing_order] == ["burn", "seat 3 up", "seat 4 up", "seat 6 up"]
    refused(hand, "wrong-target", "f", hand.deal, Card.parse("2d"), 3)
    stub_before = hand.stub_remaining
    burn = hand.deal(Card.parse("2d"), "burn")
    assert burn.target is Target.BURN and burn.seat is None and not burn.face_up
    assert hand.burn_count == 1 and hand.stub_remaining == stub_before - 1
    deal_street(hand, list(parse_cards("3d 4d 5d")))
    assert hand.up_cards(3) == parse_cards("Kh 3d") and hand.up_cards(1) == parse_cards("Ks")
    assert len(hand.cards(1)) == 3
    assert hand.phase is Phase.BET_FOURTH


def test_njac_13_47_20_35_h_burn_before_each_street_two_up_then_one_down() -> None:
    """(h) 5th and 6th face up, 7th face down, a burn before each; 12 players' worth of stub is enough."""
    hand = StudHand(CFG, [1, 2])
    cards = list(Deck.shuffled("red", 7).cards)
    for street in Street:
        deal_street(hand, cards)
        plan = hand.dealing_order
        if street is not Street.THIRD:
            assert plan[0].target is Target.BURN
            assert [s.face_up for s in plan[1:]] == [street is not Street.SEVENTH] * 2
        check_or_call_round(hand)
    assert hand.phase is Phase.SHOWDOWN
    burns = [r for r in hand.records if isinstance(r, CardDealt) and r.target is Target.BURN]
    assert [b.street for b in burns] == [Street.FOURTH, Street.FIFTH, Street.SIXTH, Street.SEVENTH]
    for seat in (1, 2):
        assert len(hand.up_cards(seat)) == 4 and len(hand.down_cards(seat)) == 3
    assert hand.common_card is None
    assert hand.stub_remaining == 52 - 6 * 2 - 4 - 2


def play_to_seventh(seats: list[int], deck: list[Card], *, stub_size: int = 52, fold_third: int = 0) -> StudHand:
    hand = StudHand(CFG, seats, stub_size=stub_size)
    deal_street(hand, deck)
    folds = fold_third
    while hand.to_act is not None:
        seat = hand.to_act
        if folds and hand.can_fold(seat):
            hand.fold(seat)
            folds -= 1
            continue
        action = hand.default_action()
        hand.act(action.seat, action.kind, action.amount)
    for _ in (Street.FOURTH, Street.FIFTH, Street.SIXTH):
        deal_street(hand, deck)
        check_or_call_round(hand)
    assert hand.phase is Phase.DEAL_SEVENTH
    return hand


def test_njac_13_47_20_35_h_seven_players_get_a_common_card_without_reshuffle() -> None:
    """(h) 7 players: 45 cards dealt, 7 remain; after the burn 6 < 7, so burn and one common card up."""
    deck = list(Deck.shuffled("blue", 1).cards)
    hand = play_to_seventh(list(range(1, 8)), deck)
    assert hand.stub_remaining == 7
    assert [s.target for s in hand.dealing_order] == [Target.BURN, Target.COMMON]
    assert hand.dealing_order[1].face_up
    first = hand.first_to_act("6")
    hand.deal(deck.pop(0), "burn")
    common = deck.pop(0)
    refused(hand, "wrong-target", "h", hand.deal, common, 1)
    record = hand.deal(common, "common")
    assert record.target is Target.COMMON and record.face_up and record.seat is None
    assert hand.common_card == common
    assert hand.first_to_act("7") == first  # the up-cards did not change
    for seat in hand.seats:
        assert len(hand.cards(seat)) == 7 and hand.cards(seat)[-1] == common
        assert common not in hand.up_cards(seat)
    check_or_call_round(hand)
    assert hand.phase is Phase.SHOWDOWN and hand.winners
    assert hand.public_view().common_card == common


def test_njac_13_47_20_35_h_eight_players_reshuffle_burns_with_the_last_card() -> None:
    """(h) 8 players: 51 cards dealt, one remains: shuffle the burns (with that card), burn, common card."""
    deck = list(Deck.shuffled("red", 3).cards)
    hand = play_to_seventh(list(range(1, 9)), deck)
    assert len(deck) == 1 and hand.stub_remaining == 1 and hand.burn_count == 3
    assert [s.target for s in hand.dealing_order] == [Target.RESHUFFLE, Target.BURN, Target.COMMON]
    refused(hand, "out-of-order", "h", hand.deal, deck[0])
    assert hand.can_reshuffle_burns()
    burns = [r.card for r in hand.records if isinstance(r, CardDealt) and r.target is Target.BURN]
    record = hand.reshuffle_burns()
    assert record == BurnsReshuffled(tuple(burns), 1) and record.new_stub == 4
    assert hand.stub_remaining == 4 and hand.burn_count == 0
    refused(hand, "out-of-order", "h", hand.reshuffle_burns)
    dealt = hand.cards(1)[0]
    refused(hand, "unknown-card", "h", hand.deal, dealt)  # a player's card is not in the new stub
    hand.deal(burns[1], "burn")  # a reshuffled burn card is burnt again
    refused(hand, "unknown-card", "h", hand.deal, burns[1])
    hand.deal(deck[0], "common")  # the one card that was left is in the reshuffled stub
    assert hand.common_card == deck[0] and hand.stub_remaining == 2
    check_or_call_round(hand)
    assert hand.phase is Phase.SHOWDOWN
    assert all(len(hand.cards(seat)) == 7 for seat in hand.seats)


def test_njac_13_47_20_35_h_reshuffle_when_no_card_remains() -> None:
    """(h) "one or less cards remaining": with a 51-card stub and 8 players nothing remains; the three
    burns alone are reshuffled, and a card never seen is not in the new stub."""
    deck = list(Deck.shuffled("red", 4).cards)
    missing = deck.pop()  # the shoe was loaded with 51 cards
    hand = play_to_seventh(list(range(1, 9)), deck, stub_size=51)
    assert hand.stub_remaining == 0
    record = hand.reshuffle_burns()
    assert record.stub_cards == 0 and record.new_stub == 3
    refused(hand, "unknown-card", "h", hand.deal, missing)
    hand.deal(record.burns[2])
    hand.deal(record.burns[0])
    assert hand.common_card == record.burns[0] and hand.stub_remaining == 1


def test_njac_13_47_20_35_h_eight_seats_one_fold_leaves_seven_live_common_card() -> None:
    """(h) 8 dealt in, one folds on 3rd street: 48 cards dealt, 4 remain, 3 after the burn < 7 live."""
    deck = list(Deck.shuffled("red", 5).cards)
    hand = play_to_seventh(list(range(1, 9)), deck, fold_third=1)
    assert len(hand.live_seats) == 7 and hand.stub_remaining == 4
    assert [s.target for s in hand.dealing_order] == [Target.BURN, Target.COMMON]
    hand.deal(deck.pop(0))
    hand.deal(deck.pop(0))
    folded = hand.folded_seats[0]
    assert hand.common_card is not None and hand.common_card not in hand.cards(folded)


def test_njac_13_47_20_35_h_six_players_get_their_own_seventh_card() -> None:
    """(h) 6 players: 13 cards remain before 7th street, enough for a burn and six cards face down."""
    deck = list(Deck.shuffled("red", 6).cards)
    hand = play_to_seventh(list(range(1, 7)), deck)
    assert hand.stub_remaining == 13
    assert [s.target for s in hand.dealing_order] == [Target.BURN] + [Target.SEAT] * 6
    assert not any(s.face_up for s in hand.dealing_order)


@pytest.mark.parametrize(
    ("remaining", "live", "common", "reshuffle"),
    [
        (8, 7, False, False),
        (7, 7, True, False),
        (2, 7, True, False),
        (1, 8, True, True),
        (0, 8, True, True),
        (2, 2, True, False),
        (3, 2, False, False),
    ],
)
def test_njac_13_47_20_35_h_common_card_and_reshuffle_thresholds(
    remaining: int, live: int, common: bool, reshuffle: bool
) -> None:
    """(h) A common card when burn + one card each does not fit; reshuffle at one card or none."""
    assert needs_common_card(remaining, live) is common
    plan = street_plan(Street.SEVENTH, range(1, live + 1), remaining)
    assert (plan[-1].target is Target.COMMON) is common
    assert (plan[0].target is Target.RESHUFFLE) is (common and reshuffle)
    assert needs_reshuffle(remaining) is (remaining <= 1)


def test_njac_13_47_20_35_h_no_common_card_before_seventh_street() -> None:
    """(h) The short-stub rule concerns the seventh card only; the stub size must reach 7th street."""
    assert street_plan(Street.SIXTH, [1, 2], 3)[-1].target is Target.SEAT
    with pytest.raises(StudRuleViolation) as info:
        StudHand(CFG, range(1, 9), stub_size=50)
    assert info.value.code == "short-stub" and info.value.rule.endswith("(h)")
    with pytest.raises(ValueError, match="3rd street"):
        street_plan(Street.THIRD, [1, 2], 52)


def test_clockwise_order_wraps_after_the_highest_seat() -> None:
    assert clockwise_from(5, [2, 5, 7]) == (5, 7, 2)
    assert clockwise_from(5, [2, 5, 7], include_start=False) == (7, 2)
    assert clockwise_from(4, [2, 5, 7]) == (5, 7, 2)
    assert clockwise_from(8, [1, 8]) == (8, 1)


def test_full_deck_is_the_card_universe() -> None:
    """Every one of the 52 cards can be dealt once and only once in a hand."""
    hand = StudHand(CFG, [1, 2])
    assert all(hand.can_deal(card) for card in FULL_DECK)
