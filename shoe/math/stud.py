"""Seven-card stud (N.J.A.C. 13:47-20.35): a pot game, so no house edge; the showdown hand frequencies.

The players bet against each other and the house banks no wager, so the cards give the house no
edge to compute.  What a table-games department can still use is how strong the winning hand is:
:func:`showdown_table` deals seeded rounds in which every player stays to the showdown and counts
the winning hand's category per table size.  Eight players need 56 cards: then, as is usual when the
deck runs short, the seventh-street card is one community card shared by all (an assumption stated
in the output).  Any one player's own hand has the exact seven-card distribution of
:data:`SEVEN_CARD_COUNTS` (out of C(52, 7) = 133,784,560), a check on the simulation.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from math import comb, sqrt
from typing import Any

from shoe.hands import Category, category_of_rank, rank_cards

__all__ = ["DEFAULT_ROUNDS", "SEVEN_CARD_COUNTS", "deal_showdown", "showdown_table"]

DEFAULT_ROUNDS = 20_000
Z95 = 1.959964

SEVEN_CARD_COUNTS: dict[Category, int] = {
    Category.ROYAL_FLUSH: 4_324,
    Category.STRAIGHT_FLUSH: 37_260,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}
"""The best five of seven random cards, by category (the standard enumeration of all C(52,7) sets)."""


def deal_showdown(rng: random.Random, players: int) -> list[int]:
    """One round to the showdown: each player's rank number (higher is better)."""
    if players * 7 <= 52:
        cards = rng.sample(range(52), players * 7)
        return [rank_cards(cards[i * 7 : i * 7 + 7]) for i in range(players)]
    cards = rng.sample(range(52), players * 6 + 1)  # six each, then one shared seventh-street card
    shared = cards[-1]
    return [rank_cards([*cards[i * 6 : i * 6 + 6], shared]) for i in range(players)]


def showdown_table(players: Iterable[int], *, rounds: int = DEFAULT_ROUNDS, seed: int = 0) -> dict[str, Any]:
    """Per table size, the probability that the showdown is won with each category (seeded)."""
    sizes = list(players)
    counts: dict[int, dict[Category, int]] = {}
    for p in sizes:
        rng = random.Random(f"stud-showdown:{seed}:{p}")
        tally = dict.fromkeys(Category, 0)
        for _ in range(rounds):
            tally[category_of_rank(max(deal_showdown(rng, p)))] += 1
        counts[p] = tally
    worst = max(
        (sqrt(c / rounds * (1 - c / rounds) / rounds) for t in counts.values() for c in t.values()), default=0.0
    )
    total = comb(52, 7)
    return {
        "game": "seven-card-stud",
        "no_house_edge": "Seven-card stud is a pot game (N.J.A.C. 13:47-20.35): players bet against each other and the "
        "house banks no wager, so there is no house edge and no PAR sheet. Shown instead: how often the showdown is "
        "won with each hand, every player staying to the end.",
        "method": f"seeded simulation, seed {seed}, {rounds:,} rounds per table size; with 8 players (56 cards) the "
        "seventh-street card is one shared community card (an assumption: the usual rule when the deck runs short)",
        "interval": f"95% confidence: each probability within +/-{Z95 * worst:.4f} (normal approximation, "
        f"{Z95} x the largest standard error); one player's own hand, exact: see 'any_hand'",
        "players": sizes,
        "rounds": rounds,
        "seed": seed,
        "rows": [
            {
                "category": cat.value,
                "probability": [counts[p][cat] / rounds for p in sizes],
                "any_hand": SEVEN_CARD_COUNTS[cat] / total,
            }
            for cat in Category
        ],
    }
