"""Seven-card stud betting: bring-in, first to act, fixed-limit actions, pot accounting, early end
(N.J.A.C. 13:47-20.35(b), (d), (e), (f)(1), (f)(2), (g)).

Every refused action is checked to leave the hand exactly as it was (``snapshot()`` before == after).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from shoe.cards import Card, parse_cards
from shoe.rules.stud import (
    ActionKind,
    AntePosted,
    BettingAction,
    LegalAction,
    Phase,
    PotAwarded,
    Street,
    StudHand,
    StudRuleViolation,
    StudTableConfig,
    default_action,
)
from shoe.rules.stud.dealing import bring_in_seat, first_to_act

CFG = StudTableConfig(ante=0, bring_in=100, small_bet=200, big_bet=400)
K = ActionKind


def refused(hand: StudHand, code: str, rule: str, call: Callable[..., object], *args: object) -> StudRuleViolation:
    """Call ``call(*args)``, expect a refusal with ``code`` citing ``rule``, and check nothing changed."""
    before = hand.snapshot()
    view = hand.public_view()
    with pytest.raises(StudRuleViolation) as info:
        call(*args)
    assert info.value.code == code, info.value
    assert info.value.rule == f"N.J.A.C. 13:47-20.35({rule})", info.value
    assert hand.snapshot() == before and hand.public_view() == view
    return info.value


def legal(hand: StudHand) -> list[tuple[str, int]]:
    return [(a.kind.value, a.amount) for a in hand.legal_actions()]


def third_street(seats: list[int], up: str, *, config: StudTableConfig = CFG) -> StudHand:
    """Deal 3rd street with the given up-cards (down cards are low spades/clubs not used elsewhere)."""
    ups = list(parse_cards(up))
    downs = [c for c in parse_cards("2s 3s 4s 5s 6s 7s 8s 9s 2c 3c 4c 5c 6c 7c 8c 9c") if c not in ups]
    hand = StudHand(config, seats)
    for card in downs[: 2 * len(seats)] + ups:
        hand.deal(card)
    return hand


def deal_up(hand: StudHand, up: str, burn: str = "Tc") -> None:
    hand.deal(Card.parse(burn), "burn")
    for card in parse_cards(up):
        hand.deal(card)


def test_njac_13_47_20_35_d_bring_in_lowest_up_card_suit_order() -> None:
    """(d) The lowest up-card brings it in; same rank: spades > hearts > diamonds > clubs, so clubs is lowest."""
    hand = third_street([1, 2, 3, 4], "2s 2h 2c 2d")
    assert hand.bring_in_seat == 3 and hand.first_to_act("3") == 3 and hand.to_act == 3
    assert hand.phase is Phase.BRING_IN
    assert bring_in_seat({1: Card.parse("2s"), 2: Card.parse("2h")}) == 2
    assert bring_in_seat({1: Card.parse("3h"), 2: Card.parse("3d")}) == 2
    assert bring_in_seat({1: Card.parse("3c"), 2: Card.parse("2s")}) == 2  # rank before suit
    assert bring_in_seat({1: Card.parse("Ac"), 2: Card.parse("Kd")}) == 2  # the ace is high


def test_njac_13_47_20_35_d_bring_in_may_bring_in_or_complete_only() -> None:
    """(d) The forced bet: the bring-in amount or a completion to the small bet; nothing else."""
    hand = third_street([1, 2, 3], "9h 5d Kc")
    assert hand.bring_in_seat == 2
    assert legal(hand) == [("bring-in", 100), ("complete", 200)]
    for kind in (K.FOLD, K.CHECK, K.CALL, K.BET, K.RAISE):
        refused(hand, "illegal-action", "d", hand.act, 2, kind)
    refused(hand, "out-of-turn", "d", hand.bring_in, 1)
    refused(hand, "wrong-amount", "d", hand.bring_in, 2, 150)
    refused(hand, "wrong-amount", "d", hand.complete, 2, 100)
    assert hand.can_bring_in(2) and hand.can_bring_in(2, 100) and hand.can_complete(2, 200)
    assert not hand.can_fold(2) and not hand.can_check(2) and not hand.can_bring_in(3)
    assert hand.verify_bring_in(2) == LegalAction(2, K.BRING_IN, 100, 100)
    with pytest.raises(StudRuleViolation) as info:
        hand.act(2, "dance")
    assert info.value.code == "unknown-action"
    record = hand.bring_in(2, 100)
    assert record == BettingAction(2, K.BRING_IN, Street.THIRD, 100, 100, 100)
    assert hand.phase is Phase.BET_THIRD and hand.pot == 100


def test_njac_13_47_20_35_e_action_clockwise_from_the_bring_in_fold_call_or_complete() -> None:
    """(e) After the forced bet, clockwise from the bring-in (wrapping past seat 8): fold, call or raise,
    where the raise of a bare bring-in is the completion to the small bet."""
    hand = third_street([2, 5, 7], "Ah 4c Kd")
    assert hand.bring_in_seat == 5
    hand.bring_in(5)
    assert hand.to_act == 7
    assert legal(hand) == [("call", 100), ("complete", 200), ("fold", 0)]
    err = refused(hand, "illegal-action", "e", hand.raise_bet, 7)
    assert "completion" in err.message
    refused(hand, "illegal-action", "e", hand.check, 7)
    refused(hand, "illegal-action", "e", hand.bet, 7)
    refused(hand, "illegal-action", "e", hand.bring_in, 7)
    refused(hand, "out-of-turn", "e", hand.call, 2)
    hand.call(7, 100)
    assert hand.to_act == 2  # wraps from seat 7 to seat 2
    hand.complete(2, 200)
    assert hand.to_act == 5 and legal(hand) == [("call", 100), ("raise", 300), ("fold", 0)]
    hand.call(5)
    hand.raise_bet(7, 300)  # to 400: a raise by the small bet
    assert legal(hand) == [("call", 200), ("raise", 400), ("fold", 0)]
    hand.call(2)
    hand.fold(5)
    assert hand.phase is Phase.DEAL_FOURTH
    assert hand.contributions == {2: 400, 5: 200, 7: 400} and hand.pot == 1000


def test_njac_13_47_20_35_e_round_complete_when_all_respond_bring_in_gets_no_option() -> None:
    """(e) "After the last player has responded to the most recent bet": when everyone calls the
    bring-in, the round ends without a further option for the bring-in."""
    hand = third_street([1, 2, 3], "9h 5d Kc")
    hand.bring_in(2)
    hand.call(3)
    assert hand.phase is Phase.BET_THIRD
    hand.call(1)
    assert hand.phase is Phase.DEAL_FOURTH and hand.to_act is None and hand.legal_actions() == ()
    refused(hand, "out-of-order", "f", hand.call, 2)


def test_njac_13_47_20_35_e_bring_in_completing_himself() -> None:
    """(d), (e) The bring-in may complete; then the others fold, call or raise by the small bet."""
    hand = third_street([1, 2, 3], "9h 5d Kc")
    hand.complete(2)
    assert hand.to_act == 3 and legal(hand) == [("call", 200), ("raise", 400), ("fold", 0)]
    hand.call(3)
    hand.call(1)
    assert hand.phase is Phase.DEAL_FOURTH and hand.pot == 600


def test_raise_cap_one_bet_and_three_raises() -> None:
    """(e), (g) with the posted cap (decision): a completion/bet and three raises per street."""
    hand = third_street([1, 2, 3], "9h 5d Kc")
    hand.bring_in(2)
    hand.complete(3)  # bet 1
    hand.raise_bet(1)  # raise 1
    hand.raise_bet(2)  # raise 2
    hand.raise_bet(3)  # raise 3: cap reached
    assert legal(hand) == [("call", 400), ("fold", 0)]
    err = refused(hand, "raise-cap", "e", hand.raise_bet, 1)
    assert "cap" in err.message
    hand.call(1)
    hand.call(2)
    assert hand.contributions == {1: 800, 2: 800, 3: 800}


def test_njac_13_47_20_35_f_1_highest_hand_showing_bets_or_checks() -> None:
    """(f)(1) The highest hand showing acts first and must bet or check: a fold is refused."""
    hand = third_street([1, 2, 3], "9h 5d Kc")
    hand.bring_in(2)
    hand.call(3)
    hand.call(1)
    deal_up(hand, "2d 5h 3h")  # seat 2 shows a pair of fives, seat 3 K-3, seat 1 9-2
    assert hand.first_to_act("4") == 2 and hand.to_act == 2
    assert legal(hand) == [("check", 0), ("bet", 200)]
    refused(hand, "illegal-action", "f", hand.fold, 2)
    refused(hand, "illegal-action", "f", hand.call, 2)
    refused(hand, "illegal-action", "f", hand.raise_bet, 2)
    refused(hand, "out-of-turn", "f", hand.check, 3)
    refused(hand, "wrong-amount", "f", hand.bet, 2, 400)
    hand.check(2)
    assert legal(hand) == [("check", 0), ("bet", 200), ("fold", 0)]


def test_njac_13_47_20_35_f_2_tie_for_highest_showing_goes_to_lowest_seat_no_suits() -> None:
    """(f)(2) Tied hands showing: the player closest to the dealer's left (lowest seat) acts first;
    suits never break the tie (seat 3's king of spades does not beat seat 2's king of hearts)."""
    hand = third_street([1, 2, 3], "9h 7c 7d")
    hand.bring_in(2)
    hand.call(3)
    hand.call(1)
    deal_up(hand, "2d Kh Ks")  # seat 2 K-7, seat 3 K-7 (spade K), seat 1 9-2
    assert hand.first_to_act("4") == 2
    c = parse_cards
    assert first_to_act({5: c("Ks 7d"), 7: c("Kh 7c"), 2: c("Kd 7h")}) == 2
    assert first_to_act({1: c("As Kd Qh Jc"), 8: c("5c 5d 2h 3s")}) == 8  # a pair beats high cards
    assert first_to_act({1: c("5s 5h 2c 3c"), 2: c("5c 5d 2h 4s")}) == 2  # kicker 4 beats 3
    assert first_to_act({1: c("2s 3s 4s 5s"), 2: c("6c 7d 8h 2h")}) == 2  # no four-card flush or straight


def test_njac_13_47_20_35_g_check_bet_call_raise_fold_on_later_streets() -> None:
    """(g) After the opener: check while nobody has bet, then fold, call or raise; big bet from 5th."""
    hand = third_street([1, 2, 3], "9h 5d Kc")
    hand.bring_in(2)
    hand.call(3)
    hand.call(1)
    deal_up(hand, "2d 5h 3h")
    hand.check(2)
    refused(hand, "illegal-action", "g", hand.call, 3)
    refused(hand, "illegal-action", "g", hand.raise_bet, 3)
    hand.bet(3, 200)
    assert legal(hand) == [("call", 200), ("raise", 400), ("fold", 0)]
    refused(hand, "illegal-action", "g", hand.check, 1)
    refused(hand, "illegal-action", "g", hand.bet, 1)
    refused(hand, "wrong-amount", "g", hand.call, 1, 100)
    refused(hand, "wrong-amount", "g", hand.fold, 1, 5)
    hand.raise_bet(1, 400)
    hand.call(2, 400)
    hand.call(3, 200)
    assert hand.phase is Phase.DEAL_FIFTH and hand.pot == 300 + 3 * 400
    deal_up(hand, "4d 6h 8h", burn="Jc")
    opener = hand.to_act
    assert opener == hand.first_to_act("5") == 2  # pair of fives showing
    assert legal(hand) == [("check", 0), ("bet", 400)]  # the big bet from 5th street
    hand.bet(2)
    assert legal(hand) == [("call", 400), ("raise", 800), ("fold", 0)]


def test_njac_13_47_20_35_g_fold_with_no_bet_is_allowed_after_the_opener() -> None:
    """(g) "each subsequent player ... may fold, call, raise or, if [no bet], check": a fold is legal."""
    hand = third_street([1, 2, 3], "9h 5d Kc")
    hand.bring_in(2)
    hand.call(3)
    hand.call(1)
    deal_up(hand, "2d 5h 3h")
    hand.check(2)
    hand.fold(3)
    assert hand.live_seats == (1, 2) and hand.folded_seats == (3,)
    hand.check(1)
    assert hand.phase is Phase.DEAL_FIFTH


def test_betting_actions_refused_while_dealing_and_after_the_end() -> None:
    """Out-of-order actions name the paragraph of the phase: (c) dealing, (i) after the end."""
    hand = StudHand(CFG, [1, 2])
    refused(hand, "out-of-order", "c", hand.bring_in, 1)
    refused(hand, "out-of-order", "c", hand.check, 1)
    hand = third_street([1, 2], "9h 5d")
    hand.bring_in(2)
    hand.fold(1)
    assert hand.phase is Phase.UNCONTESTED
    refused(hand, "out-of-order", "i", hand.call, 2)
    refused(hand, "out-of-order", "i", hand.deal, Card.parse("As"))
    assert hand.next_card is None and hand.to_act is None


def test_njac_13_47_20_35_b_ante_posted_by_every_player_and_pot_accounting() -> None:
    """(b) The posted ante from each player; contributions and the pot follow every action."""
    cfg = StudTableConfig(ante=25, bring_in=100, small_bet=200, big_bet=400)
    hand = third_street([1, 3, 6], "9h 5d Kc", config=cfg)
    assert [r for r in hand.records if isinstance(r, AntePosted)] == [AntePosted(s, 25) for s in (1, 3, 6)]
    assert hand.contributions == {1: 25, 3: 25, 6: 25} and hand.pot == 75
    hand.bring_in(3)
    hand.complete(6)
    hand.call(1)
    hand.fold(3)
    assert hand.contributions == {1: 225, 3: 125, 6: 225} and hand.pot == 575
    betting = [r for r in hand.records if isinstance(r, BettingAction)]
    assert sum(r.amount for r in betting) + 75 == hand.pot
    assert [(r.seat, r.kind, r.amount, r.to, r.street_bet) for r in betting] == [
        (3, K.BRING_IN, 100, 100, 100),
        (6, K.COMPLETE, 200, 200, 200),
        (1, K.CALL, 200, 200, 200),
        (3, K.FOLD, 0, 100, 200),
    ]


def test_hand_ends_early_when_all_but_one_fold() -> None:
    """(e), (g), (i) All but one fold: the last player takes the pot, no showdown, no cards shown."""
    hand = third_street(
        [1, 2, 3], "9h 5d Kc", config=StudTableConfig(ante=10, bring_in=100, small_bet=200, big_bet=400)
    )
    hand.bring_in(2)
    hand.complete(3)
    hand.fold(1)
    assert hand.phase is Phase.BET_THIRD
    hand.fold(2)
    assert hand.phase is Phase.UNCONTESTED and hand.finished
    assert hand.winners == (3,) and hand.pot_shares == {3: 330}
    assert hand.records[-1] == PotAwarded(3, 330, 0, True)
    view = hand.public_view()
    assert all(s.down_cards is None for s in view.seats)


def test_hand_ends_early_on_a_later_street() -> None:
    hand = third_street([1, 2, 3], "9h 5d Kc")
    hand.bring_in(2)
    hand.call(3)
    hand.call(1)
    deal_up(hand, "2d 5h 3h")
    hand.bet(2)
    hand.fold(3)
    hand.fold(1)
    assert hand.phase is Phase.UNCONTESTED and hand.pot_shares == {2: 500}


def test_default_action_checks_else_calls_else_brings_in() -> None:
    hand = third_street([1, 2, 3], "9h 5d Kc")
    assert hand.default_action() == LegalAction(2, K.BRING_IN, 100, 100)
    hand.bring_in(2)
    assert hand.default_action() == LegalAction(3, K.CALL, 100, 100)
    assert default_action(hand.legal_actions()).as_triplet() == (3, "call", 100)
    with pytest.raises(ValueError, match="no check"):
        default_action([LegalAction(1, K.FOLD, 0, 0)])


def test_act_accepts_script_names() -> None:
    hand = third_street([1, 2, 3], "9h 5d Kc")
    assert hand.can_act(2, "bring_in", 100) and hand.can_act(2, "BRING-IN")
    hand.act(2, "bring-in", 100)
    hand.act(3, "call", None)
    hand.act(1, K.CALL)
    assert hand.phase is Phase.DEAL_FOURTH
