"""NY 9 NYCRR 5324.38 (c) wagers and (d) dealing, subsection by subsection.

The map of subsections to tests is in ``test_mississippi_coverage``.
"""

from __future__ import annotations

import pytest

from shoe.cards import parse_cards
from shoe.rules.errors import IllegalAction, IllegalWager, OutOfOrder, UnknownSeat
from shoe.rules.mississippi import MisdealRecord, RoundState, StackRecord
from shoe.rules.profiles import Irregularity

from .test_mississippi_support import deal, ny_round

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
