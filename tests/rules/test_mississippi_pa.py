"""58 Pa. Code 655a.11 (a)-(g), (i)(1)-(3), (j), and the PA lock-out before the first stack.

Side wagers ((h), (i)(4)) are in ``test_pa_side_wagers``; the subsection map in
``test_mississippi_coverage``.
"""

from __future__ import annotations

import pytest

from shoe.cards import parse_cards
from shoe.rules.errors import IllegalAction, InvalidConfiguration, OutOfOrder, RuleViolation
from shoe.rules.mississippi import (
    DecisionRecord,
    ForfeitRecord,
    MisdealRecord,
    Outcome,
    RoundState,
    TableConfig,
    new_round,
)
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, BasePaytable
from shoe.rules.profiles import Irregularity, SideBet

from .test_mississippi_support import deal, full_round, pa_round, play_streets, settle_all


def test_pa_655a_11_a_1_only_dealer_and_player_see_the_cards() -> None:
    r = pa_round(side=None)
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    deal(r, {1: "AsKd", 2: "QhQd"})
    public = r.public_state()
    assert all(s.cards is None for s in public.seats)
    assert "As" not in repr(public) and "Qh" not in repr(public)


def test_pa_655a_11_a_2_cards_in_full_view_of_the_dealer() -> None:
    r = pa_round(side=None)
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    assert r.view(can_see_holes=True).seats[0].cards == ("As", "Kd")


def test_pa_655a_11_a_3_information_sharing_forfeits_all_wagers() -> None:
    r = pa_round()
    r.place_wagers(1, 500, {"progressive": 100, "three-card-bonus": 500})
    r.place_wagers(2, 500)
    deal(r, {1: "AsKd", 2: "QhQd"})
    r.decide(1, 2)
    record = r.forfeit_information_sharing(1)
    assert isinstance(record, ForfeitRecord) and record.rule == "PA 655a.11(a)(3)"
    assert dict(record.forfeited) == {"ante": 500, "3rd": 1000, "progressive": 100, "three-card-bonus": 500}
    assert record.total == 2100
    r.decide(2, 1)
    r.reveal(0, "2c")
    assert r.next_to_decide == 2  # seat 1 is out of the round
    with pytest.raises(IllegalAction, match="forfeited"):
        r.decide(1, 1)
    play_streets(r, {2: [1, 1, 1]}, "2c3d4h")
    assert [s.seat for s in settle_all(r)] == [2]
    seat1 = r.result().seats[0]
    assert seat1.outcome == "forfeit" and seat1.net == -1500
    assert {x.bet: x.net for x in seat1.side} == {"progressive": -100, "three-card-bonus": -500}


def test_pa_655a_11_a_3_forfeiture_only_before_the_last_reveal() -> None:
    r = pa_round(side=None)
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    play_streets(r, {1: [1, 1, 1]}, "2c3d4h")
    with pytest.raises(IllegalAction, match="forfeiture at seat 1 refused in state settlement"):
        r.forfeit_information_sharing(1)


def test_pa_655a_11_a_3_not_a_rule_in_ny() -> None:
    r = new_round("NY", TableConfig(500, 5000))
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    with pytest.raises(IllegalAction, match="NY has no information-sharing forfeiture") as err:
        r.forfeit_information_sharing(1)
    assert err.value.code == "not-applicable"


def test_pa_655a_11_b_3rd_street_asked_clockwise_from_the_dealers_left() -> None:
    r = pa_round(side=None)
    for seat in (2, 4, 6):
        r.place_wagers(seat, 500)
    deal(r, {2: "AsKd", 4: "QhQd", 6: "7c2d"})
    assert r.next_to_decide == 2
    with pytest.raises(OutOfOrder) as err:
        r.decide(6, 1)
    assert str(err.value) == "decision for seat 6 refused: seat 2 is next (PA 655a.11(b))"
    r.decide(2, 1)
    assert r.next_to_decide == 4


def test_pa_655a_11_b_fold_without_side_wagers_collects_the_hand() -> None:
    r = pa_round()
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    deal(r, {1: "AsKd", 2: "7c2d"})
    fold = r.decide(1, 0)
    assert fold.forfeited == (("ante", 500),) and not fold.hand_kept


def test_pa_655a_11_b_fold_with_a_side_wager_keeps_the_hand_on_the_table() -> None:
    r = pa_round()
    r.place_wagers(1, 500, {"three-card-bonus": 500})
    deal(r, {1: "AsKd"})
    fold = r.decide(1, 0)
    assert fold.hand_kept and "PA 655a.11(h)" in fold.rule
    assert r.state is RoundState.FOURTH_STREET or r.next_to_decide is None


def test_pa_655a_11_c_first_reveal_after_every_3rd_street_wager() -> None:
    r = pa_round(side=None)
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    deal(r, {1: "AsKd", 2: "QhQd"})
    r.decide(1, 1)
    with pytest.raises(OutOfOrder, match="seat 2 has not decided") as err:
        r.reveal(0, "2c")
    assert err.value.rule == "PA 655a.11(c)"


def test_pa_655a_11_d_4th_street_fold_forfeits_ante_and_3rd() -> None:
    r = pa_round(side=None)
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    deal(r, {1: "AsKd", 2: "7c2d"})
    play_streets(r, {1: [1, 1, 1], 2: [3, 0, 0]}, "2c3d9h")
    fold = next(x for x in r.records if isinstance(x, DecisionRecord) and x.folded)
    assert fold.forfeited == (("ante", 500), ("3rd", 1500)) and fold.rule == "PA 655a.11(d)"


def test_pa_655a_11_e_second_reveal_after_4th_street() -> None:
    r = pa_round(side=None)
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    r.decide(1, 1)
    assert r.reveal(0, "2c").rule == "PA 655a.11(c)"
    r.decide(1, 1)
    assert r.reveal(1, "3c").rule == "PA 655a.11(e)"


def test_pa_655a_11_f_5th_street_fold_forfeits_ante_3rd_and_4th() -> None:
    r = pa_round(side=None)
    r.place_wagers(1, 500)
    r.place_wagers(2, 500)
    deal(r, {1: "AsKd", 2: "7c2d"})
    play_streets(r, {1: [1, 1, 1], 2: [1, 2, 0]}, "2c3d9h")
    fold = next(x for x in r.records if isinstance(x, DecisionRecord) and x.folded)
    assert fold.forfeited == (("ante", 500), ("3rd", 500), ("4th", 1000)) and fold.rule == "PA 655a.11(f)"


def test_pa_655a_11_g_third_reveal_after_5th_street() -> None:
    r = pa_round(side=None)
    r.place_wagers(1, 500)
    deal(r, {1: "AsKd"})
    play_streets(r, {1: [1, 1, 1]}, "2c3d9h")
    reveal = [x for x in r.records if x.kind == "reveal"][-1]
    assert reveal.rule == "PA 655a.11(g)" and r.state is RoundState.SETTLEMENT


def test_pa_655a_11_i_settled_from_the_dealers_right_one_player_at_a_time() -> None:
    r = pa_round(side=None)
    full = full_round(
        r, {1: 500, 2: 500, 5: 500}, {1: "AsAd", 2: "7c2d", 5: "8h8d"}, {s: [1, 1, 1] for s in (1, 2, 5)}, "Kc4d9h"
    )
    assert [(s.seat, s.outcome) for s in full] == [(5, Outcome.PUSH), (2, Outcome.LOSE), (1, Outcome.WIN)]
    assert all(s.rule == "PA 655a.11(i)" for s in full)


def test_pa_655a_11_i_1_losing_wagers_collected() -> None:
    (s,) = full_round(pa_round(side=None), {1: 500}, {1: "7c2d"}, {1: [1, 1, 1]}, "Kc4d9h")
    assert s.outcome is Outcome.LOSE and s.net == -2000


def test_pa_655a_11_i_2_pair_of_6s_to_10s_pushes() -> None:
    (s,) = full_round(pa_round(side=None), {1: 500}, {1: "TcTd"}, {1: [2, 2, 2]}, "Kc4d9h")
    assert s.outcome is Outcome.PUSH and s.net == 0


def test_pa_655a_11_i_3_winning_wagers_paid_per_655a_12_a() -> None:
    (s,) = full_round(pa_round(side=None), {1: 500}, {1: "AcAd"}, {1: [1, 1, 1]}, "Kc4d9h")
    assert s.outcome is Outcome.WIN and s.net == 2000


def test_pa_655a_12_a_paytable_is_fixed() -> None:
    better = BasePaytable.from_mapping("better", {**MISSISSIPPI_MINIMUM.as_dict(), "flush": 7})
    with pytest.raises(InvalidConfiguration, match="the PA paytable is fixed") as err:
        new_round("PA", TableConfig(500, 5000, paytable=better))
    assert err.value.code == "paytable-fixed" and err.value.rule == "PA 655a.12(a)"


def test_pa_655a_12_b_cap() -> None:
    r = pa_round(side=None)
    (s,) = full_round(r, {1: 3000}, {1: "AsKs"}, {1: [3, 3, 3]}, "QsJsTs")
    assert s.capped and s.paid == 5_000_000 and s.computed == 15_000_000


def test_pa_655a_11_j_round_complete_after_all_settled() -> None:
    r = pa_round(side=None)
    full_round(r, {1: 500, 2: 500}, {1: "AsKd", 2: "7c2d"}, {1: [1, 1, 1], 2: [1, 1, 1]}, "Kc4d9h")
    assert r.state is RoundState.COMPLETE
    with pytest.raises(IllegalAction):
        r.settle_next()


def test_pa_progressive_lockout_and_chip_count_before_the_first_stack() -> None:
    r = pa_round()
    r.place_wagers(1, 500, {SideBet.PROGRESSIVE: 100})
    r.place_wagers(2, 500, {"progressive": 100})
    r.place_wagers(3, 500)
    r.no_more_bets()
    assert r.table.progressive_lockout
    assert not r.can_count_progressive_chips(2)
    assert r.lock_progressive().wagers_accepted == 2
    before = r.snapshot()
    with pytest.raises(RuleViolation, match="accepted 2 progressive wagers") as err:
        r.count_progressive_chips(1)
    assert err.value.code == "chip-count-mismatch" and r.snapshot() == before
    assert r.count_progressive_chips(2).counted == 2
    assert r.deal_stack(1, parse_cards("AsKd")).kind == "stack"


def test_the_chip_count_refusal_says_one_wager_in_the_singular() -> None:
    r = pa_round()
    r.place_wagers(1, 500, {SideBet.PROGRESSIVE: 100})
    r.place_wagers(2, 500)
    r.no_more_bets()
    r.lock_progressive()
    with pytest.raises(RuleViolation, match=r"accepted 1 progressive wager; recount"):
        r.count_progressive_chips(2)


def test_pa_stack_before_the_progressive_lockout_is_a_misdeal() -> None:
    r = pa_round()
    r.place_wagers(1, 500, {"progressive": 100})
    r.no_more_bets()
    record = r.deal_stack(1, parse_cards("AsKd"))
    assert isinstance(record, MisdealRecord) and record.cause is Irregularity.EARLY_STACK
    assert record.total_returned == 600


def test_pa_without_progressive_offered_needs_no_lockout() -> None:
    r = pa_round(side=None)
    r.place_wagers(1, 500)
    r.no_more_bets()
    with pytest.raises(IllegalAction, match="no progressive lock-out") as err:
        r.lock_progressive()
    assert err.value.code == "not-applicable"
    assert r.deal_stack(1, parse_cards("AsKd")).kind == "stack"
