"""NY 9 NYCRR 5324.38, subsection by subsection (the map is in ``test_mississippi_coverage``)."""

from __future__ import annotations

import dataclasses

import pytest

from shoe.cards import parse_cards
from shoe.rules.errors import IllegalAction, IllegalWager, InvalidConfiguration, OutOfOrder, UnknownSeat
from shoe.rules.mississippi import (
    DecisionRecord,
    MisdealRecord,
    Outcome,
    RevealRecord,
    RoundState,
    SeatSettlement,
    StackRecord,
    TableConfig,
    new_round,
)
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, BaseHand, BasePaytable
from shoe.rules.profiles import Irregularity

from .test_mississippi_support import deal, full_round, ny_round, play_streets

# -- (a) equipment and layout ------------------------------------------------------------------


def test_ny_5324_38_a_1_six_betting_positions() -> None:
    r = ny_round()
    for seat in range(1, 7):
        r.place_wagers(seat, 500)
    with pytest.raises(UnknownSeat, match="no seat 7") as err:
        r.place_wagers(7, 500)
    assert err.value.rule == "NY 5324.38(a)(1)"


def test_ny_5324_38_a_2_i_ante_per_position() -> None:
    r = ny_round()
    r.place_wagers(2, 700)
    r.place_wagers(5, 900)
    assert {s.seat: s.ante for s in r.public_state().seats} == {2: 700, 5: 900}


def test_ny_5324_38_a_2_ii_street_wagers_in_layout_order() -> None:
    r = ny_round()
    (s,) = full_round(r, {3: 500}, {3: "KsKd"}, {3: [3, 2, 1]}, "2c7d9h")
    assert [(w.name, w.stake) for w in s.wagers] == [("ante", 500), ("3rd", 1500), ("4th", 1000), ("5th", 500)]


@pytest.mark.parametrize("multiple", [1, 2, 3])
def test_ny_5324_38_a_2_iii_a_bet_is_one_two_or_three_antes(multiple: int) -> None:
    r = ny_round()
    r.place_wagers(1, 600)
    deal(r, {1: "AsKd"})
    record = r.decide(1, multiple)
    assert record.amount == 600 * multiple


@pytest.mark.parametrize("multiple", [4, -1, 10, 1.5])
def test_ny_5324_38_a_2_iii_a_other_bets_refused(multiple: object) -> None:
    r = ny_round()
    r.place_wagers(1, 600)
    deal(r, {1: "AsKd"})
    with pytest.raises(IllegalWager, match="1, 2 or 3 times") as err:
        r.decide(1, multiple)  # type: ignore[arg-type]
    assert err.value.rule == "NY 5324.38(e)(1)"


def test_ny_5324_38_a_2_iii_b_payout_odds_published() -> None:
    table = ny_round().table.paytable.as_dict()
    assert table["royal-flush"] == 500 and table["pair-6s-to-10s"] == 0
    assert table == MISSISSIPPI_MINIMUM.as_dict()


def test_ny_5324_38_a_2_iv_three_community_areas_by_street() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    assert r.public_state().community == (None, None, None)
    r.decide(1, 1)
    assert r.reveal(0, "2c").rule == "NY 5324.38(e)(2)"
    r.decide(1, 1)
    assert r.reveal(1, "3c").rule == "NY 5324.38(e)(4)"
    r.decide(1, 1)
    assert r.reveal(2, "4c").rule == "NY 5324.38(e)(6)"


# -- (b) hand rankings -------------------------------------------------------------------------


def test_ny_5324_38_b_1_ace_low_only_in_the_wheel() -> None:
    (wheel,) = full_round(ny_round(), {1: 500}, {1: "As2d"}, {1: [1, 1, 1]}, "3c4h5s")
    assert (wheel.hand, wheel.line) == ("straight", BaseHand.STRAIGHT)
    assert wheel.net == 4 * 4 * 500
    (no_wrap,) = full_round(ny_round(), {1: 500}, {1: "KsAd"}, {1: [1, 1, 1]}, "2c3h4s")
    assert no_wrap.hand == "high-card" and no_wrap.outcome is Outcome.LOSE


@pytest.mark.parametrize(
    ("hole", "community", "hand", "odds"),
    [
        ("AsKs", "QsJsTs", "royal-flush", 500),  # (b)(2)(i)
        ("9s8s", "7s6s5s", "straight-flush", 100),  # (b)(2)(ii)
        ("9s9h", "9d9c2s", "four-of-a-kind", 40),  # (b)(2)(iii)
        ("9s9h", "9d2c2s", "full-house", 10),  # (b)(2)(iv)
        ("As9s", "7s4s2s", "flush", 6),  # (b)(2)(v)
        ("Ts9h", "8d7c6s", "straight", 4),  # (b)(2)(vi)
        ("3s3h", "3dKcQs", "three-of-a-kind", 3),  # (b)(2)(vii)
        ("3s3h", "4d4cQs", "two-pair", 2),  # (b)(2)(viii)
        ("JsJh", "4d5c9s", "pair", 1),  # (b)(2)(ix), jacks or better
    ],
)
def test_ny_5324_38_b_2_each_hand_rank_pays_its_line(hole: str, community: str, hand: str, odds: int) -> None:
    """NY 5324.38(b)(2)(i) royal flush, (b)(2)(ii) straight flush, (b)(2)(iii) four of a kind,
    (b)(2)(iv) full house, (b)(2)(v) flush, (b)(2)(vi) straight, (b)(2)(vii) three of a kind,
    (b)(2)(viii) two pairs, (b)(2)(ix) pair: each is recognised and pays its (f)(1) line."""
    (s,) = full_round(ny_round(), {1: 500}, {1: hole}, {1: [1, 1, 1]}, community)
    assert s.hand == hand and s.outcome is Outcome.WIN
    assert s.net == odds * 4 * 500


# -- (c) wagers --------------------------------------------------------------------------------


@pytest.mark.parametrize("ante", [499, 50_001, 0, 500.0, "500"])
def test_ny_5324_38_c_1_wagers_within_table_limits_in_whole_cents(ante: object) -> None:
    with pytest.raises(IllegalWager, match="the table takes 500 to 50000 cents"):
        ny_round().place_wagers(1, ante)  # type: ignore[arg-type]


def test_ny_5324_38_c_2_no_wager_after_no_more_bets() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.no_more_bets()
    with pytest.raises(IllegalAction, match="wager at seat 2 refused") as err:
        r.place_wagers(2, 500)
    assert err.value.rule == "NY 5324.38(c)(2)"


def test_ny_5324_38_c_2_no_more_bets_needs_a_wager() -> None:
    with pytest.raises(IllegalAction, match="no seat has placed an ante"):
        ny_round().no_more_bets()


def test_ny_5324_38_c_3_bet_wagers_only_as_street_decisions() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    with pytest.raises(IllegalAction, match="decision for seat 1 refused in state open-for-wagers"):
        r.decide(1, 1)


def test_ny_5324_38_c_4_one_position_per_player_rewager_replaces() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.place_wagers(1, 800)
    assert [(s.seat, s.ante) for s in r.public_state().seats] == [(1, 800)]


def test_ny_5324_38_c_5_a_player_dealt_in_stays_until_settled() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    with pytest.raises(IllegalAction):
        r.place_wagers(1, 1000)
    assert r.public_state().seats[0].status == "dealt"


# -- (d) dealing -------------------------------------------------------------------------------


def test_ny_5324_38_d_1_dealing_starts_at_the_dealers_left_clockwise() -> None:
    r = ny_round()
    for seat in (5, 2, 6):
        r.place_wagers(seat, 500)
    assert r.no_more_bets().seats == (2, 5, 6)
    assert r.next_stack_seat == 2


def test_ny_5324_38_d_1_i_two_cards_each_face_down() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    assert r.public_state().seats[0].cards is None
    assert r.view(can_see_holes=True).seats[0].cards == ("As", "Kd")


def test_ny_5324_38_d_1_ii_three_community_cards_face_down() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    assert r.records[-1].kind == "community-dealt"
    assert r.view(can_see_holes=True).community == (None, None, None)


def test_ny_5324_38_d_2_stacks_in_seat_order() -> None:
    r = ny_round()
    for seat in (1, 2, 4):
        r.place_wagers(seat, 500)
    r.no_more_bets()
    before = r.snapshot()
    with pytest.raises(OutOfOrder) as err:
        r.deal_stack(4, parse_cards("AsKd"))
    assert str(err.value) == "stack for seat 4 refused: seat 1 is next (NY 5324.38(d)(2))"
    assert r.snapshot() == before
    for seat, cards in ((1, "AsKd"), (2, "2c3c"), (4, "9h9d")):
        record = r.deal_stack(seat, parse_cards(cards))
        assert isinstance(record, StackRecord) and record.seat == seat
    assert r.result().dealing_order == (1, 2, 4)


def test_ny_5324_38_d_2_no_stack_for_a_seat_without_a_wager() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.place_wagers(4, 500)
    r.no_more_bets()
    r.deal_stack(1, parse_cards("AsKd"))
    with pytest.raises(UnknownSeat, match="seat 3 placed no wager") as err:
        r.deal_stack(3, parse_cards("2c3c"))
    assert err.value.rule == "NY 5324.38(d)(2)"


def test_ny_5324_38_d_2_a_stack_of_three_cards_is_a_misdeal() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.no_more_bets()
    record = r.deal_stack(1, parse_cards("AsKd2c"))
    assert isinstance(record, MisdealRecord) and record.cause is Irregularity.BAD_STACK
    assert r.state is RoundState.MISDEAL


def test_ny_5324_38_d_2_a_stack_before_no_more_bets_is_a_misdeal() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    record = r.deal_stack(1, parse_cards("AsKd"))
    assert isinstance(record, MisdealRecord) and record.cause is Irregularity.EARLY_STACK
    assert record.returned == ((1, 500),)


def test_ny_5324_38_d_2_an_extra_stack_is_a_misdeal() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.no_more_bets()
    r.deal_stack(1, parse_cards("AsKd"))
    record = r.deal_stack(1, parse_cards("2c3c"))
    assert isinstance(record, MisdealRecord) and record.cause is Irregularity.EXTRA_STACK


def test_ny_5324_38_d_3_stub_removed_then_community_dealt_from_it() -> None:
    r = ny_round()
    for seat in (1, 3):
        r.place_wagers(seat, 500)
    r.no_more_bets()
    r.deal_stack(1, parse_cards("AsKd"))
    with pytest.raises(OutOfOrder, match="seat 3 has no stack yet") as err:
        r.release_stub(48)
    assert err.value.rule == "NY 5324.38(d)(3)"
    r.deal_stack(3, parse_cards("2c3c"))
    with pytest.raises(IllegalAction, match="community deal refused in state dealing-stacks"):
        r.deal_community()
    assert r.expected_stub_count == 48
    assert r.release_stub(48).kind == "stub-counted"
    assert r.deal_community().rule == "NY 5324.38(d)(3)"


def test_ny_5324_38_d_3_wrong_stub_count_is_a_misdeal_deck_removed() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.no_more_bets()
    r.deal_stack(1, parse_cards("AsKd"))
    record = r.release_stub(49)
    assert isinstance(record, MisdealRecord)
    assert record.cause is Irregularity.STUB_COUNT_WRONG and record.deck_removed
    assert "stub count 49, expected 50" in record.detail


# -- (e) completion of a round -----------------------------------------------------------------


def test_ny_5324_38_e_1_fold_forfeits_the_ante_and_the_hand_is_collected() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    deal(r, {1: "AsKd", 2: "7c2d"})
    r.decide(1, 1)
    fold = r.decide(2, 0)
    assert isinstance(fold, DecisionRecord) and fold.folded
    assert fold.forfeited == (("ante", 500),) and not fold.hand_kept
    assert fold.rule == "NY 5324.38(e)(1)"
    assert r.public_state().seats[1].status == "folded" and r.public_state().seats[1].cards is None


def test_ny_5324_38_e_1_decisions_in_seat_order() -> None:
    r = ny_round()
    for seat in (1, 2, 3):
        r.place_wagers(seat, 500)
    deal(r, {1: "AsKd", 2: "QhQd", 3: "7c2d"})
    before = r.snapshot()
    with pytest.raises(OutOfOrder, match="decision for seat 3 refused: seat 1 is next"):
        r.decide(3, 1)
    assert r.snapshot() == before


def test_ny_5324_38_e_2_first_reveal_waits_for_every_3rd_street_decision() -> None:
    r = ny_round()
    for seat in (1, 2):
        r.place_wagers(seat, 500)
    deal(r, {1: "AsKd", 2: "QhQd"})
    r.decide(1, 1)
    with pytest.raises(OutOfOrder, match="seat 2 has not decided on 3rd street") as err:
        r.reveal(0, "2c")
    assert err.value.rule == "NY 5324.38(e)(2)"
    r.decide(2, 1)
    revealed = r.reveal(0, "2c")
    assert isinstance(revealed, RevealRecord) and revealed.card.code == "2c"
    assert r.state is RoundState.FOURTH_STREET


def test_ny_5324_38_e_3_4th_street_fold_forfeits_ante_and_3rd() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    deal(r, {1: "AsKd", 2: "7c2d"})
    r.decide(1, 1)
    r.decide(2, 2)
    r.reveal(0, "3h")
    r.decide(1, 1)
    fold = r.decide(2, 0)
    assert fold.forfeited == (("ante", 500), ("3rd", 1000)) and fold.rule == "NY 5324.38(e)(3)"


def test_ny_5324_38_e_4_second_reveal_after_4th_street() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    r.decide(1, 1)
    r.reveal(0, "3h")
    with pytest.raises(OutOfOrder, match="seat 1 has not decided on 4th street") as err:
        r.reveal(1, "4h")
    assert err.value.rule == "NY 5324.38(e)(4)"


def test_ny_5324_38_e_5_5th_street_fold_forfeits_ante_3rd_and_4th() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    deal(r, {1: "AsKd", 2: "7c2d"})
    play_streets(r, {1: [1, 1, 1], 2: [1, 3, 0]}, "3h4h5h")
    fold = next(rec for rec in r.records if isinstance(rec, DecisionRecord) and rec.folded)
    assert fold.forfeited == (("ante", 500), ("3rd", 500), ("4th", 1500))
    assert fold.rule == "NY 5324.38(e)(5)"
    assert r.result().seats[1].net == -2500


def test_ny_5324_38_e_6_third_reveal_then_settlement() -> None:
    r = ny_round()
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    play_streets(r, {1: [1, 1, 1]}, "3h4h5h")
    assert r.state is RoundState.SETTLEMENT
    assert r.public_state().community == ("3h", "4h", "5h")


def test_ny_5324_38_e_7_settlement_from_the_dealers_right_counterclockwise() -> None:
    r = ny_round()
    settled = full_round(
        r,
        {1: 500, 3: 500, 6: 500},
        {1: "AsKd", 3: "QhQd", 6: "7c2d"},
        {1: [1, 1, 1], 3: [1, 1, 1], 6: [1, 1, 1]},
        "3h4h9s",
    )
    assert [s.seat for s in settled] == [6, 3, 1]
    assert r.result().settlement_order == (6, 3, 1)


def test_ny_5324_38_e_7_i_losing_wagers_collected() -> None:
    (s,) = full_round(ny_round(), {1: 500}, {1: "AsKd"}, {1: [1, 2, 3]}, "3h4h9s")
    assert s.outcome is Outcome.LOSE and s.net == -(500 + 500 + 1000 + 1500)
    assert all(w.result is Outcome.LOSE and w.paid == 0 for w in s.wagers)


@pytest.mark.parametrize("pair", ["6", "7", "8", "9", "T"])
def test_ny_5324_38_e_7_ii_pair_of_6s_to_10s_is_a_push(pair: str) -> None:
    (s,) = full_round(ny_round(), {1: 500}, {1: f"{pair}s{pair}d"}, {1: [3, 3, 3]}, "2h3hKs")
    assert s.outcome is Outcome.PUSH and s.net == 0 and s.line is BaseHand.SIXES_TO_TENS


def test_ny_5324_38_e_7_ii_pair_of_5s_loses() -> None:
    (s,) = full_round(ny_round(), {1: 500}, {1: "5s5d"}, {1: [1, 1, 1]}, "2h3hKs")
    assert s.outcome is Outcome.LOSE


def test_ny_5324_38_e_7_iii_winning_wagers_paid_per_the_paytable() -> None:
    (s,) = full_round(ny_round(), {1: 500}, {1: "KsKd"}, {1: [3, 2, 1]}, "Kh2c7d")  # trips, 3 to 1
    assert s.outcome is Outcome.WIN
    assert [(w.stake, w.paid) for w in s.wagers] == [(500, 1500), (1500, 4500), (1000, 3000), (500, 1500)]
    assert s.net == s.paid == 10_500


def test_ny_5324_38_e_8_records_reconstruct_each_hand() -> None:
    r = ny_round()
    full_round(r, {1: 500, 2: 500}, {1: "AsKd", 2: "QhQd"}, {1: [1, 1, 1], 2: [0, 0, 0]}, "3h4h9s")
    stacks = {rec.seat: rec.cards for rec in r.records if isinstance(rec, StackRecord)}
    reveals = [rec.card.code for rec in r.records if isinstance(rec, RevealRecord)]
    assert {s: "".join(c.code for c in cards) for s, cards in stacks.items()} == {1: "AsKd", 2: "QhQd"}
    assert reveals == ["3h", "4h", "9s"]
    settled = [rec for rec in r.records if isinstance(rec, SeatSettlement)]
    assert [c.code for c in settled[0].cards + settled[0].community] == ["As", "Kd", "3h", "4h", "9s"]


# -- (f) payout odds and the cap -----------------------------------------------------------------


def test_ny_5324_38_f_1_better_paytable_accepted() -> None:
    better = BasePaytable.from_mapping("better", {**MISSISSIPPI_MINIMUM.as_dict(), "royal-flush": 1000})
    r = new_round("NY", TableConfig(500, 50_000, paytable=better))
    (s,) = full_round(r, {1: 500}, {1: "AsKs"}, {1: [1, 1, 1]}, "QsJsTs")
    assert s.net == 1000 * 2000


@pytest.mark.parametrize(("line", "odds"), [("flush", 5), ("pair-6s-to-10s", None), ("royal-flush", 499)])
def test_ny_5324_38_f_1_paytable_below_the_minimum_refused_naming_the_entry(line: str, odds: int | None) -> None:
    entries = MISSISSIPPI_MINIMUM.as_dict()
    if odds is None:
        del entries[line]
    else:
        entries[line] = odds
    worse = BasePaytable.from_mapping("worse", entries)
    with pytest.raises(InvalidConfiguration, match=f"{line} pays") as err:
        new_round("NY", TableConfig(500, 50_000, paytable=worse))
    assert err.value.code == "paytable-below-minimum" and err.value.rule == "NY 5324.38(f)(1)"


def test_ny_5324_38_f_2_cap_is_50000_or_the_most_won_at_the_table_minimum() -> None:
    assert ny_round(min_ante=500).cap == 5_000_000  # $5 x 10 x 500 = $25,000 < $50,000
    assert ny_round(min_ante=2_500).cap == 2_500 * 10 * 500  # $125,000


def test_ny_5324_38_f_2_cap_limits_one_hands_winnings_pro_rata() -> None:
    r = ny_round(min_ante=500, max_ante=50_000)
    (s,) = full_round(r, {1: 2_000}, {1: "AsKs"}, {1: [3, 3, 3]}, "QsJsTs")
    assert s.computed == 2_000 * 10 * 500 and s.capped
    assert s.paid == s.net == 5_000_000
    assert [w.paid for w in s.wagers] == [500_000, 1_500_000, 1_500_000, 1_500_000]


def test_ny_profile_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        ny_round().profile.max_seats = 7  # type: ignore[misc]
