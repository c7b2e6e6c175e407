"""NY 9 NYCRR 5324.38 (a) equipment and layout, (b) hand rankings; and the NY profile.

The other subsections are in ``test_mississippi_ny_dealing`` ((c), (d)) and ``test_mississippi_ny_play``
((e), (f)); the map of subsections to tests is in ``test_mississippi_coverage``.
"""

from __future__ import annotations

import dataclasses

import pytest

from shoe.rules.errors import IllegalWager, UnknownSeat
from shoe.rules.mississippi import Outcome
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, BaseHand

from .test_mississippi_support import deal, full_round, ny_round

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


# -- the profile -------------------------------------------------------------------------------


def test_ny_profile_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        ny_round().profile.max_seats = 7  # type: ignore[misc]
