"""Base-game settlement: paytable lines, push, the aggregate cap and its pro-rata cut."""

from __future__ import annotations

import pytest

from shoe.cards import parse_cards
from shoe.hands import best_hand
from shoe.rules.errors import InvalidConfiguration
from shoe.rules.mississippi import Outcome
from shoe.rules.mississippi.cap import aggregate_cap, apportion
from shoe.rules.mississippi.settlement import settle_base, unplayed_base
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, BaseHand, BasePaytable, Basis, FixedSum, Odds, classify_base


def hand(codes: str):  # type: ignore[no-untyped-def]
    return best_hand(parse_cards(codes))


@pytest.mark.parametrize(
    ("codes", "line"),
    [
        ("JsJd2c5h9s", BaseHand.JACKS_OR_BETTER),
        ("AsAd2c5h9s", BaseHand.JACKS_OR_BETTER),
        ("TsTd2c5h9s", BaseHand.SIXES_TO_TENS),
        ("6s6d2c5h9s", BaseHand.SIXES_TO_TENS),
        ("5s5d2c7h9s", None),
        ("As2d7c9hKs", None),
    ],
)
def test_pairs_split_into_jacks_or_better_push_and_lose(codes: str, line: BaseHand | None) -> None:
    assert classify_base(hand(codes)) is line


def test_settle_base_win_push_lose() -> None:
    stakes = (500, 1500, 1000, 500)
    win = settle_base(hand("KsKdKc2h7s"), stakes, MISSISSIPPI_MINIMUM, 5_000_000)
    assert win.outcome is Outcome.WIN and win.net == 3 * sum(stakes) and not win.capped
    push = settle_base(hand("8s8d2c5h9s"), stakes, MISSISSIPPI_MINIMUM, 5_000_000)
    assert push.outcome is Outcome.PUSH and push.net == 0
    lose = settle_base(hand("8s7d2c5hKs"), stakes, MISSISSIPPI_MINIMUM, 5_000_000)
    assert lose.outcome is Outcome.LOSE and lose.net == -sum(stakes)


def test_unplayed_base_forfeits_the_stakes() -> None:
    fold = unplayed_base((500, 1000), Outcome.FOLD)
    assert fold.net == -1500 and [w.name for w in fold.wagers] == ["ante", "3rd"]


def test_aggregate_cap() -> None:
    assert aggregate_cap(500, MISSISSIPPI_MINIMUM, 5_000_000) == 5_000_000
    assert aggregate_cap(1_000, MISSISSIPPI_MINIMUM, 5_000_000) == 5_000_000
    assert aggregate_cap(1_001, MISSISSIPPI_MINIMUM, 5_000_000) == 1_001 * 5_000


def test_apportion_remainder_goes_to_the_ante_first() -> None:
    assert apportion((10, 30, 30, 30), 50) == (5, 15, 15, 15)
    assert apportion((7, 7, 7), 10) == (4, 3, 3)
    assert apportion((1, 1, 1, 1), 3) == (1, 1, 1, 0)
    assert apportion((100, 200), 1_000) == (100, 200)


def test_odds_conventions() -> None:
    assert Odds(500).returned(100) == 50_100 and Odds(500).winnings(100) == 50_000
    assert Odds(300, Basis.FOR_ONE).returned(100) == 30_000
    assert Odds(300, Basis.FOR_ONE).winnings(100) == 29_900
    assert str(Odds(9, Basis.FOR_ONE)) == "9 for 1"
    with pytest.raises(InvalidConfiguration):
        Odds(0, Basis.FOR_ONE)
    with pytest.raises(InvalidConfiguration):
        FixedSum(-1)
    with pytest.raises(InvalidConfiguration):
        BasePaytable.from_mapping("bad", {"flush": -1})
