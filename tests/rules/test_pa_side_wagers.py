"""PA side wagers: 58 Pa. Code 655a.11(h), (i)(4) and the 655a.12 tables (rules digest)."""

from __future__ import annotations

import dataclasses

import pytest

from shoe.cards import Card
from shoe.hands import Category, ThreeCardCategory
from shoe.rules.errors import IllegalAction, IllegalWager, InvalidConfiguration
from shoe.rules.mississippi import (
    MississippiRound,
    Outcome,
    SeatSettlement,
    SideResult,
    SideWagerConfig,
    TableConfig,
    new_round,
)
from shoe.rules.paytables import PROGRESSIVE_TABLES, THREE_CARD_BONUS_EXAMPLE, Basis, MeterShare, Odds
from shoe.rules.profiles import SideBet

from .test_mississippi_support import ENVY, FIVE_CARD, PA_SIDE, deal, pa_round, play_streets, settle_all

PROG = {"progressive": 100}


def side(settlement: SeatSettlement, bet: str) -> SideResult:
    return next(x for x in settlement.side if x.bet == bet)


def play(
    r: MississippiRound,
    seats: dict[int, tuple[str, dict[str, int], list[int]]],
    community: str,
    *,
    magic: str = "2s",
    lucky: int = 6,
    meters: dict[str, int] | None = None,
) -> dict[int, SeatSettlement]:
    for seat, (_, bets, _) in seats.items():
        r.place_wagers(seat, 500, bets)
    deal(r, {seat: hole for seat, (hole, _, _) in seats.items()})
    play_streets(r, {seat: d for seat, (_, _, d) in seats.items()}, community)
    r.record_table_system(meters=meters or {}, magic_card=magic, lucky_seat=lucky)
    return {s.seat: s for s in settle_all(r)}


# -- 655a.11(h): a fold keeps Envy, Three Card and Five Card eligibility ------------------------------


def test_pa_655a_11_h_fold_loses_the_progressive_wager() -> None:
    r = pa_round()
    out = play(r, {1: ("9h8h", PROG, [0, 0, 0])}, "ThJhQh")  # a folded straight flush
    assert out[1].outcome is Outcome.FOLD and out[1].net == -500
    prog = side(out[1], "progressive")
    assert prog.result is Outcome.FOLD and prog.net == -100 and prog.rule == "PA 655a.11(h)"
    fold = next(x for x in r.records if x.kind == "decision")
    assert ("progressive", 100) in fold.forfeited  # type: ignore[union-attr]


def test_pa_655a_11_h_folded_hand_keeps_envy_eligibility() -> None:
    out = play(pa_round(), {1: ("2c7d", PROG, [0, 0, 0]), 2: ("9h8h", {}, [1, 1, 1])}, "ThJhQh")
    envy = side(out[1], "envy")
    assert envy.result is Outcome.WIN and envy.net == ENVY.straight_flush and "seat 2" in envy.note


def test_pa_655a_11_h_folded_hand_keeps_three_card_bonus() -> None:
    out = play(pa_round(), {1: ("2c7d", {"three-card-bonus": 500}, [0, 0, 0])}, "ThJhQh")
    three = side(out[1], "three-card-bonus")
    assert three.hand == "straight-flush" and three.net == 40 * 500


def test_pa_655a_11_h_folded_hand_keeps_five_card_bonus() -> None:
    out = play(pa_round(), {1: ("2h7h", {"five-card-hand-bonus": 500}, [0, 0, 0])}, "ThJhQh")
    five = side(out[1], "five-card-hand-bonus")
    assert five.hand == "flush" and five.net == 10 * 500


def test_pa_655a_11_h_ny_fold_collects_everything_at_once() -> None:
    r = new_round("NY", TableConfig(500, 5000))
    r.place_wagers(1, 500)
    deal(r, {1: "2c7d"})
    assert not r.decide(1, 0).hand_kept
    assert r.state.value == "complete"


# -- 655a.11(i)(4): after the Mississippi Stud wager, the side wagers in order ----------------------


def test_pa_655a_11_i_4_side_wagers_after_the_base_in_order() -> None:
    bets = {"progressive": 100, "three-card-bonus": 500, "five-card-hand-bonus": 500}
    out = play(pa_round(), {1: ("AsAd", bets, [1, 1, 1])}, "AhAcKs")
    assert [x.bet for x in out[1].side] == [
        "progressive",
        "envy",
        "three-card-bonus",
        "five-card-hand-bonus",
        "magic-card-bonus",
        "lucky-bonus",
    ]


def test_pa_655a_11_i_4_i_A_only_a_winning_hand_is_paid() -> None:
    out = play(pa_round(), {1: ("AsAd", PROG, [1, 1, 1])}, "Kh7c2s")  # a pair: below trips
    prog = side(out[1], "progressive")
    assert prog.result is Outcome.LOSE and prog.net == -100


def test_pa_655a_11_i_4_i_B_C_floorperson_validates_every_progressive_win() -> None:
    """PA 655a.11(i)(4)(i)(B) the system light is verified, (i)(4)(i)(C) a floorperson validates."""
    out = play(pa_round(), {1: ("AsAd", PROG, [1, 1, 1])}, "AhKc2s")  # trips: 9 for 1
    prog = side(out[1], "progressive")
    assert prog.requires_floorperson and "verify the progressive light" in prog.note


def test_pa_655a_11_i_4_i_D_paid_per_the_table_only_the_highest_hand() -> None:
    out = play(pa_round(), {1: ("AsAd", PROG, [1, 1, 1])}, "AhAcKs")  # four of a kind: 300 for 1, not trips too
    prog = side(out[1], "progressive")
    assert (prog.hand, prog.paid, prog.net, prog.paid_from) == ("four-of-a-kind", 30_000, 29_900, "tray")


def test_pa_655a_11_i_4_i_D_meter_percentage_not_paid_from_the_tray() -> None:
    out = play(pa_round(), {1: ("AsKs", PROG, [1, 1, 1])}, "QsJsTs", meters={"meter": 12_345_678})
    prog = side(out[1], "progressive")
    assert prog.paid == 12_345_678 and prog.paid_from == "documentation" and prog.requires_floorperson
    assert "not paid from the table tray" in prog.note


def test_pa_655a_11_i_4_i_D_meter_reading_missing_is_flagged() -> None:
    out = play(pa_round(), {1: ("9s8s", PROG, [1, 1, 1])}, "7s6s5s")  # 10% of the meter, no reading
    prog = side(out[1], "progressive")
    assert prog.paid is None and prog.net is None and "reading required" in prog.note


@pytest.mark.parametrize("table", ["A", "B", "C", "D"])
def test_pa_655a_12_progressive_tables_a_to_d(table: str) -> None:
    paytable = PROGRESSIVE_TABLES[table]
    assert paytable.payout(Category.FULL_HOUSE) == Odds(50, Basis.FOR_ONE)
    assert paytable.payout(Category.TWO_PAIR) is None
    trips = paytable.payout(Category.THREE_OF_A_KIND)
    assert isinstance(trips, Odds) and trips.for_one == (10 if table == "C" else 9)
    royal = paytable.payout(Category.ROYAL_FLUSH)
    assert isinstance(royal, MeterShare) and royal.percent == 100


def test_pa_655a_11_i_4_i_E_envy_per_other_qualifying_hand_not_own() -> None:
    out = play(
        pa_round(),
        {1: ("AhKh", PROG, [1, 1, 1]), 2: ("9s8s", PROG, [1, 1, 1]), 3: ("2c3d", PROG, [1, 1, 1])},
        "QhJhTh",  # seat 1 a royal flush, seat 2 a straight
        meters={"meter": 1_000_000},
    )
    assert side(out[1], "envy").net == 0  # its own royal flush does not count
    assert side(out[2], "envy").net == ENVY.royal_flush
    assert side(out[3], "envy").net == ENVY.royal_flush


def test_pa_655a_11_i_4_i_E_multiple_envy_bonuses() -> None:
    out = play(
        pa_round(),
        {1: ("AhKh", PROG, [1, 1, 1]), 2: ("9h8h", {}, [1, 1, 1]), 3: ("2c3d", PROG, [1, 1, 1])},
        "QhJhTh",
        meters={"meter": 1_000_000},
    )
    assert side(out[3], "envy").net == ENVY.royal_flush + ENVY.straight_flush
    assert side(out[1], "envy").net == ENVY.straight_flush
    assert not any(x.bet == "envy" for x in out[2].side)  # no progressive wager: no Envy


def test_pa_655a_11_i_4_ii_three_card_bonus_on_the_community_cards() -> None:
    out = play(pa_round(), {1: ("2c7d", {"three-card-bonus": 500}, [1, 1, 1])}, "AhKhQh")
    three = side(out[1], "three-card-bonus")
    assert three.hand == "mini-royal" and three.net == 50 * 500 and three.paid == 51 * 500


def test_pa_655a_11_i_4_ii_three_card_bonus_loses_on_high_card() -> None:
    out = play(pa_round(), {1: ("2c7d", {"three-card-bonus": 500}, [1, 1, 1])}, "AhKh9c")
    assert side(out[1], "three-card-bonus").result is Outcome.LOSE


def test_three_card_bonus_example_table() -> None:
    assert THREE_CARD_BONUS_EXAMPLE.as_dict() == {
        "mini-royal": "50 to 1",
        "straight-flush": "40 to 1",
        "three-of-a-kind": "30 to 1",
        "straight": "6 to 1",
        "flush": "3 to 1",
        "pair": "1 to 1",
    }
    assert THREE_CARD_BONUS_EXAMPLE.payout(ThreeCardCategory.HIGH_CARD) is None


def test_pa_655a_11_i_4_iii_A_five_card_bonus_needs_a_winning_hand() -> None:
    out = play(pa_round(), {1: ("2c7d", {"five-card-hand-bonus": 500}, [1, 1, 1])}, "AhKh9c")
    assert side(out[1], "five-card-hand-bonus").result is Outcome.LOSE


def test_pa_655a_11_i_4_iii_B_floorperson_for_500_for_1() -> None:
    out = play(pa_round(), {1: ("9s8s", {"five-card-hand-bonus": 500}, [1, 1, 1])}, "7s6s5s")
    five = side(out[1], "five-card-hand-bonus")
    assert five.requires_floorperson and five.paid == 500 * 500


def test_pa_655a_11_i_4_iii_C_game_account_but_meter_share_documented() -> None:
    out = play(pa_round(), {1: ("AsKs", {"five-card-hand-bonus": 500}, [1, 1, 1])}, "QsJsTs", meters={"meter": 7})
    five = side(out[1], "five-card-hand-bonus")
    assert five.paid_from == "documentation" and five.paid == 7
    flush = play(pa_round(), {1: ("2s7s", {"five-card-hand-bonus": 500}, [1, 1, 1])}, "QsJs9s")
    assert side(flush[1], "five-card-hand-bonus").paid_from == "game-account"


def test_pa_655a_11_i_4_iii_magic_card_and_lucky_bonus() -> None:
    """PA 655a.11(i)(4)(iii): "settle any Magic Card or Lucky Bonus payouts" (modelling: side_wagers)."""
    out = play(
        pa_round(),
        {2: ("2c7d", {"five-card-hand-bonus": 500}, [1, 1, 1]), 3: ("3c8d", {"five-card-hand-bonus": 500}, [1, 1, 1])},
        "AhKh9c",
        magic="Kh",  # a community card: every Five Card bettor gets it
        lucky=3,
    )
    for seat in (2, 3):
        assert side(out[seat], "magic-card-bonus").net == 2_500
    assert side(out[2], "lucky-bonus").net == 0
    assert side(out[3], "lucky-bonus").net == 2 * 500


def test_five_card_bonus_needs_the_system_draw_before_settlement() -> None:
    r = pa_round()
    r.place_wagers(1, 500, {"five-card-hand-bonus": 500})
    deal(r, {1: "2c7d"})
    play_streets(r, {1: [1, 1, 1]}, "AhKh9c")
    before = r.snapshot()
    with pytest.raises(IllegalAction, match="Magic Card and Lucky seat") as err:
        r.settle_next()
    assert err.value.code == "system-input-required" and r.snapshot() == before
    r.record_table_system(magic_card=Card.parse("As"), lucky_seat=1)
    assert r.settle_next().seat == 1
    with pytest.raises(IllegalAction):
        r.record_table_system(lucky_seat=2)


# -- configuration -------------------------------------------------------------------------------


def test_side_wagers_not_offered_in_ny() -> None:
    with pytest.raises(InvalidConfiguration, match="not offered in NY"):
        new_round("NY", TableConfig(500, 5000, side=SideWagerConfig(frozenset({SideBet.PROGRESSIVE}))))
    r = new_round("NY", TableConfig(500, 5000))
    with pytest.raises(IllegalWager, match="not offered here"):
        r.place_wagers(1, 500, {"progressive": 100})


def test_envy_amounts_have_no_default() -> None:
    config = SideWagerConfig(frozenset({SideBet.PROGRESSIVE, SideBet.ENVY}))
    with pytest.raises(InvalidConfiguration, match="Envy Bonus offered but its amounts are not set") as err:
        new_round("PA", TableConfig(500, 5000, side=config))
    assert err.value.code == "configuration-required"


def test_five_card_tables_have_no_default() -> None:
    config = SideWagerConfig(frozenset({SideBet.FIVE_CARD_HAND_BONUS}))
    with pytest.raises(InvalidConfiguration, match="Five Card Hand Bonus offered"):
        new_round("PA", TableConfig(500, 5000, side=config))
    ok = dataclasses.replace(config, five_card=FIVE_CARD)
    assert new_round("PA", TableConfig(500, 5000, side=ok)).table.offered == {SideBet.FIVE_CARD_HAND_BONUS}


def test_progressive_table_must_be_a_to_d() -> None:
    with pytest.raises(InvalidConfiguration, match="progressive table 'E' unknown"):
        new_round("PA", TableConfig(500, 5000, side=dataclasses.replace(PA_SIDE, progressive_table="E")))


@pytest.mark.parametrize(
    ("bets", "match"),
    [
        ({"progressive": 500}, "a progressive wager is 100 cents"),
        ({"envy": 100}, "not a wager"),
        ({"three-card-bonus": 50}, "outside 100..10000"),
        ({"bogus": 100}, "unknown side wager"),
    ],
)
def test_side_wager_limits(bets: dict[str, int], match: str) -> None:
    with pytest.raises(IllegalWager, match=match):
        pa_round().place_wagers(1, 500, bets)
