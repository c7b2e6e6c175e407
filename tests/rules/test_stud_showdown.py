"""Seven-card stud showdown, split pots, odd chip, secrecy and a whole scripted hand
(N.J.A.C. 13:47-20.35(a), (i), (i)(1), (i)(2)).
"""

from __future__ import annotations

import pytest

from shoe.cards import Deck, parse_cards
from shoe.hands import Category
from shoe.rules.stud import (
    AntePosted,
    CardDealt,
    Phase,
    PotAwarded,
    StudHand,
    StudRuleViolation,
    StudTableConfig,
    Target,
    from_script,
    play,
)
from shoe.rules.stud.showdown import odd_chip_seat, settle_showdown, split_pot

CFG = StudTableConfig(ante=25, bring_in=100, small_bet=200, big_bet=400)

# Seats 2, 5, 7.  Down, down, up (3rd), then burn + one card per live seat for 4th-7th.
GOLDEN_SHOE = (
    "Ah Kd 2c  Ad Kc 3c  9s 4h Qd"  # 3rd street: seat 5 shows 4h -> bring-in
    "  2d 9h Kh 5c"  # 4th: burn 2d; seat 2 pairs nines showing
    "  2h 3d 4s"  # 5th: seat 7 folded on 4th
    "  2s Ac Ks"  # 6th: seat 5 shows K-K-4-4
    "  3h 7d 8c"  # 7th: face down
)
GOLDEN_ACTIONS = [
    [5, "bring-in", 100],
    [7, "call", 100],
    [2, "complete", 200],
    [5, "call", 100],
    [7, "call", 100],
    [2, "bet", 200],
    [5, "raise", 400],
    [7, "fold", 0],
    [2, "call", 200],
    [2, "check", 0],
    [5, "bet", 400],
    [2, "call", 400],
    [5, "bet", 400],
    [2, "raise", 800],
    [5, "call", 400],
    [5, "check", 0],
    [2, "check", 0],
]


def golden_hand() -> StudHand:
    return play(CFG, [2, 5, 7], parse_cards(GOLDEN_SHOE), GOLDEN_ACTIONS)


def test_njac_13_47_20_35_a_whole_hand_follows_the_procedure() -> None:
    """(a) A complete hand follows (b)-(i) in order: antes, deal, bring-in, four more streets, showdown."""
    hand = golden_hand()
    assert hand.phase is Phase.SHOWDOWN and hand.finished
    assert hand.bring_in_seat == 5
    assert [hand.first_to_act(s) for s in "34567"] == [5, 2, 2, 5, 5]
    assert hand.contributions == {2: 1825, 5: 1825, 7: 225} and hand.pot == 3875
    assert hand.winners == (5,) and hand.pot_shares == {5: 3875}
    assert hand.hand_category(5) is Category.FOUR_OF_A_KIND
    assert hand.hand_category(2) is Category.FULL_HOUSE
    assert hand.best_hand(7) is None  # three cards
    assert hand.cards(2) == parse_cards("Ah Ad 9s 9h 3d Ac 7d")
    assert hand.records[-1] == PotAwarded(5, 3875, 0, False)
    burns = [r.card.code for r in hand.records if isinstance(r, CardDealt) and r.target is Target.BURN]
    assert burns == ["2d", "2h", "2s", "3h"]
    assert StudHand.replay(CFG, [2, 5, 7], hand.records).snapshot() == hand.snapshot()


def test_njac_13_47_20_35_a_script_object_as_shoectl_play_reads_it() -> None:
    """(a) The JSON script of ``shoectl play``; without "actions" everyone checks or calls."""
    script = {
        "game": "seven-card-stud",
        "jurisdiction": "NJ",
        "table": {"ante": 25, "bring_in": 100, "small_bet": 200, "big_bet": 400},
        "shoe": GOLDEN_SHOE.split(),
        "seats": [2, 5, 7],
        "actions": GOLDEN_ACTIONS,
    }
    assert from_script(script).snapshot() == golden_hand().snapshot()
    passive = dict(script)
    del passive["actions"]
    rest = parse_cards("2d 9h Kh 5c 2h 3d 4s Jd 2s Ac Ks Js 3h 7d 8c Ts")
    passive["shoe"] = GOLDEN_SHOE.split()[:9] + [c.code for c in rest]
    hand = from_script(passive)
    assert hand.phase is Phase.SHOWDOWN and hand.pot == 3 * (25 + 100 + 0)
    assert hand.winners == (5,)
    with pytest.raises(StudRuleViolation) as info:
        from_script({**script, "game": "mississippi-stud"})
    assert info.value.code == "bad-config"
    with pytest.raises(StudRuleViolation) as info:
        from_script({**script, "actions": [[7, "call", 100]]})
    assert info.value.code == "out-of-turn" and "actions[0]" in str(info.value)
    with pytest.raises(StudRuleViolation) as info:
        from_script({**script, "shoe": ["Ah", "Zz"]})
    assert info.value.code == "unknown-card" and "shoe[1]" in str(info.value)


def test_script_stops_when_the_shoe_runs_out() -> None:
    hand = play(CFG, [1, 2], parse_cards("Ah Kd 2c"))
    assert hand.phase is Phase.DEAL_THIRD and hand.next_card is not None and hand.next_card.seat == 2


def tied_straights_hand() -> StudHand:
    """Seats 1 and 2 both make a six-high straight; seat 3 brings in and folds on 4th street."""
    shoe = (
        "2c 2d Kc  3c 3d Kd  4c 4d 2h"  # 3rd: seat 3 shows 2h -> bring-in
        "  7c 5d 5h Ks"  # 4th: seat 3 shows K high and opens
        "  7d 6d 6h"  # 5th: seats 1 and 2 tie showing (6-5-4): seat 1 first
        "  7h Jh Js"  # 6th
        "  7s 9s 9c"  # 7th
    )
    actions = [
        [3, "bring-in", 100],
        [1, "call", 100],
        [2, "call", 100],
        [3, "check", 0],
        [1, "bet", 200],
        [2, "call", 200],
        [3, "fold", 0],
    ]
    return play(
        StudTableConfig(ante=25, bring_in=100, small_bet=200, big_bet=400), [1, 2, 3], parse_cards(shoe), actions
    )


def test_njac_13_47_20_35_i_2_split_pot_odd_chip_to_highest_card_by_suit() -> None:
    """(i)(2) Exact tie: the pot is divided equally; the indivisible cent goes to the tied player holding
    the highest card by suit (decision: highest by rank, then suit, of all his cards): Js beats Jh."""
    hand = tied_straights_hand()
    assert hand.phase is Phase.SHOWDOWN
    assert hand.first_to_act("5") == 1 and hand.first_to_act("6") == 1
    assert hand.pot == 775 and hand.winners == (1, 2)
    assert hand.best_hand(1) == hand.best_hand(2)
    assert hand.pot_shares == {1: 387, 2: 388}
    assert sum(hand.pot_shares.values()) == hand.pot
    assert [r for r in hand.records if isinstance(r, PotAwarded)] == [
        PotAwarded(1, 387, 0, False),
        PotAwarded(2, 388, 1, False),
    ]
    settlement = hand.settlement
    assert settlement is not None and settlement.odd_chip_seat == 2 and settlement.odd_chips == 1


def test_njac_13_47_20_35_i_2_three_way_split_and_shared_common_card() -> None:
    """(i)(2) Three-way split of 1000: 333 each, the odd cent to the highest card; when the highest card
    is the common card every tied player holds it, and the next highest card decides."""
    c = parse_cards
    cards = {1: c("As Kh 2c"), 4: c("As Kd 3c"), 6: c("As Qs 4c")}
    assert odd_chip_seat([1, 4, 6], cards) == 1
    shares, seat, odd = split_pot(1000, [6, 1, 4], cards)
    assert shares == {1: 334, 4: 333, 6: 333} and seat == 1 and odd == 1
    assert split_pot(999, [6, 1, 4], cards) == ({1: 333, 4: 333, 6: 333}, None, 0)
    with pytest.raises(ValueError, match="no winners"):
        split_pot(10, [], cards)


def test_njac_13_47_20_35_i_1_highest_five_card_hand_from_seven_wins() -> None:
    """(i)(1) Best five of seven; suits never break a tie between hands (only the odd chip)."""
    c = parse_cards
    s = settle_showdown(100, {1: c("As Ks Qs Js 9s 2d 3d"), 2: c("Ah Ad Ac Kd 7c 2h 3h")})
    assert s.winners == (1,) and s.hands[1].category is Category.FLUSH
    s = settle_showdown(100, {1: c("Ts Js Qs Ks As 2d 3d"), 2: c("Ah Ad Ac Kd Kc 2h 3h")})
    assert s.winners == (1,) and s.hands[1].category is Category.ROYAL_FLUSH
    s = settle_showdown(101, {3: c("Ah Kh 9c 8d 4s 3c 2d"), 8: c("Ac Kc 9h 8s 4d 3h 2s")})
    assert s.winners == (3, 8) and s.odd_chip_seat == 3 and s.shares == {3: 51, 8: 50}  # Ah beats Ac


def test_njac_13_47_20_35_i_public_view_never_shows_down_cards_before_showdown() -> None:
    """(i) Face-down cards stay secret until the showdown; then only the players still in show them;
    burn cards are never shown."""
    cfg = StudTableConfig(ante=0, bring_in=100, small_bet=200, big_bet=400)
    hand = StudHand(cfg, [1, 2, 3])
    deck = list(Deck.shuffled("red", 11).cards)
    while not hand.finished:
        view = hand.public_view()
        text = repr(view.as_dict()) + repr(view)
        for seat in hand.seats:
            assert view.seat(seat).down_cards is None
            assert view.seat(seat).down_count == len(hand.down_cards(seat))
            assert view.seat(seat).up_cards == hand.up_cards(seat)
            for card in hand.down_cards(seat):
                assert card.code not in text
        for record in hand.records:
            if isinstance(record, CardDealt) and record.target is Target.BURN:
                assert record.card.code not in text
        if hand.next_card is not None:
            hand.deal(deck.pop(0))
        elif hand.to_act == 3 and hand.can_fold(3):
            hand.fold(3)
        else:
            action = hand.default_action()
            hand.act(action.seat, action.kind, action.amount)
    view = hand.public_view()
    assert view.phase is Phase.SHOWDOWN
    for seat in (1, 2):
        assert view.seat(seat).down_cards == hand.down_cards(seat)
        assert view.seat(seat).category is hand.hand_category(seat)
    assert view.seat(3).folded and view.seat(3).down_cards is None and view.seat(3).category is None
    for card in hand.down_cards(3):
        assert card.code not in repr(view.as_dict())
    assert view.as_dict()["pot_shares"] == {str(k): v for k, v in hand.pot_shares.items()}
    with pytest.raises(KeyError):
        view.seat(8)


def test_card_records_are_frozen() -> None:
    hand = golden_hand()
    record = hand.records[0]
    assert isinstance(record, AntePosted) and record == AntePosted(2, 25)
    with pytest.raises(AttributeError):
        record.seat = 3  # type: ignore[misc]
    for each in hand.records:
        assert hash(each) == hash(each)  # frozen dataclasses: hashable, immutable


def test_script_refusals_name_their_position_and_a_missing_card_is_not_the_end_of_the_shoe() -> None:
    """The script prefixes each refusal with its position (no per-card context manager does it any more);
    ``None`` in the shoe is a bad card there, not the shoe running out."""
    with pytest.raises(StudRuleViolation) as info:
        play(CFG, [1, 2], ["Ah", "Kd", "Ah"])
    assert info.value.code == "unknown-card" and str(info.value).startswith("shoe[2] Ah: Ah is not in the stub")
    with pytest.raises(StudRuleViolation) as info:
        play(CFG, [1, 2], ["Ah", None])
    assert info.value.code == "unknown-card" and str(info.value).startswith("shoe[1]: bad card code None")
    with pytest.raises(StudRuleViolation) as info:
        play(CFG, [1, 2], parse_cards("Ah Kd 2c 3c 4d 5d"), [[1, "call", 100], [2, "bring-in", None]])
    assert info.value.code == "illegal-action" and str(info.value).startswith("actions[0] [1, 'call', 100]: ")
