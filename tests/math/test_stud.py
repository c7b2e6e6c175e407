"""Seven-card stud showdown table: the simulated hands follow the exact seven-card distribution."""

from __future__ import annotations

import random
from math import comb, sqrt

from shoe.hands import Category, category_of_rank
from shoe.math.stud import SEVEN_CARD_COUNTS, deal_showdown, showdown_table


def test_the_exact_seven_card_counts_cover_every_set() -> None:
    assert sum(SEVEN_CARD_COUNTS.values()) == comb(52, 7)


def test_each_simulated_hand_follows_the_exact_distribution() -> None:
    rng = random.Random(13)
    tally = dict.fromkeys(Category, 0)
    for _ in range(3000):
        for rank in deal_showdown(rng, 2):
            tally[category_of_rank(rank)] += 1
    n = sum(tally.values())
    for cat, count in SEVEN_CARD_COUNTS.items():
        p = count / comb(52, 7)
        assert abs(tally[cat] / n - p) <= 5 * sqrt(p * (1 - p) / n) + 1e-9, cat


def test_eight_players_share_a_seventh_street_card_and_the_winner_gets_stronger() -> None:
    assert len(deal_showdown(random.Random(1), 8)) == 8
    table = showdown_table([2, 8], rounds=1000, seed=3)
    pair = next(r for r in table["rows"] if r["category"] == "pair")["probability"]
    assert pair[0] > pair[1]
    assert all(abs(sum(r["probability"][i] for r in table["rows"]) - 1) < 1e-12 for i in range(2))
