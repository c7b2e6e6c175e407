"""NY 9 NYCRR 5324.38 in play: (e) completion of a round (decisions, reveals, settlement) and (f) payout
odds and the cap, subsection by subsection.

The map of subsections to tests is in ``test_mississippi_coverage``.
"""

from __future__ import annotations

import pytest

from shoe.rules.errors import InvalidConfiguration, OutOfOrder
from shoe.rules.mississippi import (
    DecisionRecord,
    Outcome,
    RevealRecord,
    RoundState,
    SeatSettlement,
    StackRecord,
    TableConfig,
    new_round,
)
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, BaseHand, BasePaytable

from .test_mississippi_support import deal, full_round, ny_round, play_streets

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
