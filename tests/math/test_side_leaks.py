"""PA side wagers and the value of a leak: exact figures checked against plain counting and a plain recursion."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest

from shoe.cards import Card, parse_cards
from shoe.hands import Category
from shoe.math import Ties, par_sheet
from shoe.math.hands import line_odds
from shoe.math.leaks import LEAKS, leak_values
from shoe.math.side import envy_per_player, five_card_bonus, five_card_counts, progressive, three_card_bonus
from shoe.rules.paytables import (
    MISSISSIPPI_MINIMUM,
    PROGRESSIVE_TABLES,
    THREE_CARD_BONUS_EXAMPLE,
    Basis,
    FixedSum,
    MeterShare,
    Odds,
    Paytable,
)
from tests.math.brute import Brute, line_of
from tests.math.test_induction import MIXED


def test_three_card_bonus_returns_what_its_table_pays() -> None:
    sheet = three_card_bonus(THREE_CARD_BONUS_EXAMPLE)
    counts = {
        "mini-royal": 4,
        "straight-flush": 44,
        "three-of-a-kind": 52,
        "straight": 720,
        "flush": 1096,
        "pair": 3744,
    }
    paid = sum(n * (1 + odds) for n, odds in zip(counts.values(), (50, 40, 30, 6, 3, 1), strict=True))
    assert sheet.rtp() == Fraction(paid, 22100)
    assert round(float(1 - sheet.rtp()) * 100, 2) == 7.10


def test_five_card_bonus_with_magic_card_and_lucky_bonus() -> None:
    assert sum(five_card_counts().values()) == 2_598_960 and five_card_counts()["royal-flush"] == 4
    table = Paytable("t", ((Category.ROYAL_FLUSH, MeterShare("meter", 100)), (Category.FLUSH, Odds(10))))
    sheet = five_card_bonus(table, FixedSum(2_500), Odds(2), stake=500, seats=6)
    flush = Fraction(5108, 2_598_960)
    assert sheet.fixed_rtp == flush * 11 + Fraction(5, 52) * 5 + Fraction(1, 6) * 2
    assert sheet.rtp({"meter": 1_000_000}, 500) == sheet.fixed_rtp + Fraction(4, 2_598_960) * 2_000


def test_progressive_pays_only_hands_played_out_and_breaks_even_on_the_meter() -> None:
    par = par_sheet(MISSISSIPPI_MINIMUM)
    sheet = progressive(PROGRESSIVE_TABLES["A"], par)
    shown = {o.name: Fraction(o.count, par.deals) for o in par.outcomes}
    fixed = sum(shown[h] * n for h, n in (("four-of-a-kind", 300), ("full-house", 50), ("flush", 40), ("straight", 30)))
    assert sheet.fixed_rtp == fixed + shown["three-of-a-kind"] * 9
    [meter] = sheet.meters
    assert meter.coefficient == shown["royal-flush"] + shown["straight-flush"] / 10
    be = sheet.break_even("meter", stake=100)
    assert be is not None and sheet.rtp({"meter": int(be) + 1}, 100) > 1 > sheet.rtp({"meter": int(be) - 1}, 100)
    assert Odds(300, Basis.FOR_ONE).for_one == 300  # "for 1": the stake is part of it
    envy = envy_per_player(par)
    assert envy["royal-flush"] == Fraction(4, 2_598_960)  # a royal is never folded under optimal play


class KnowsLast(Brute):
    """The plain recursion with the last community card seen before the 5th-street decision."""

    def best(self, seen: tuple[Card, ...], stakes: tuple[int, ...]) -> tuple[int, Fraction]:
        if len(seen) != 4:
            return super().best(seen, stakes)
        rest = [c for c in self.deck if c not in seen]
        total = Fraction(0)
        for card in rest:
            odds, w = self.odds[line_of((*seen, card))], sum(stakes)
            total += max([Fraction(-w), *(Fraction((w + b) * odds) for b in (1, 2, 3))])
        return 0, total / len(rest)


def test_leaks_match_a_plain_recursion_that_sees_the_card() -> None:
    deck = parse_cards(MIXED)
    odds = line_odds(MISSISSIPPI_MINIMUM)
    leaks = {x.name: x for x in leak_values(odds, Ties.PREFER_BET, cards=tuple(c.index for c in deck))}
    honest = Brute(deck, odds, prefer_bet=True)
    first = [
        max([Fraction(-1), *(honest.best((*hole, c1), (1, b))[1] for b in (1, 2, 3))])
        for hole in combinations(deck, 2)
        for c1 in deck
        if c1 not in hole
    ]
    assert leaks["first-community-early"].value == sum(first, Fraction(0)) / len(first)
    assert leaks["last-community-before-5th"].value == KnowsLast(deck, odds, prefer_bet=True).ev()
    assert leaks["last-community-before-5th"].gain == leaks["last-community-before-5th"].value - honest.ev()


@pytest.mark.parametrize("name", LEAKS[:3])
def test_a_leak_never_costs_the_player(name: str) -> None:
    found = {x.name: x for x in leak_values(line_odds(MISSISSIPPI_MINIMUM), hole_card=False)}
    assert found[name].gain > 0
    assert found["last-community-early"].value >= max(x.value for x in found.values())
