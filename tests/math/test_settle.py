"""The PAR sheet and the real settlement agree to the cent on sampled rounds.

Each sampled deal is played through the rules engine (shoe.rules.mississippi: wagers, stacks,
reveals, decisions, settlement) with the optimal strategy's decisions; the seat's settled net must
equal the PAR sheet's line for that ending (its odds x the total wagered x the ante, or the stakes
lost on a fold), and the PAR sheet must count that ending with that total wager.
"""

from __future__ import annotations

import random

import pytest

from shoe.cards import FULL_DECK, Card, parse_cards
from shoe.hands import rank5
from shoe.math import Par, Ties, par_sheet
from shoe.math.hands import LINES, _line_of
from shoe.math.strategy import decision
from shoe.rules.mississippi import DecisionRecord, TableConfig, new_round
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, BasePaytable
from tests.rules.test_mississippi_support import full_round

ANTE = 500  # cents; ten units of a royal flush stay under the $50,000 cap (NY 5324.38(f)(2))
BETTER = BasePaytable.from_mapping("ny-better", {**MISSISSIPPI_MINIMUM.as_dict(), "straight": 5, "flush": 8})


def plan(par: Par, cards: tuple[Card, ...]) -> tuple[list[int], str, int]:
    """The strategy's decisions for this deal, the PAR sheet's ending and the total wagered."""
    hole, community = cards[:2], cards[2:]
    decisions, wagered = [], 1
    for street in range(3):
        action = decision(par, (*hole, *community[:street]), wagered)
        decisions.append(action)
        if action == 0:
            return [*decisions, 0, 0][:3], f"fold-{('3rd', '4th', '5th')[street]}", wagered
        wagered += action
    idx = [c.index for c in cards]
    return decisions, LINES[_line_of(rank5(*idx), idx)], wagered


def deals(seed: int, n: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    picked = [tuple(rng.sample(FULL_DECK, 5)) for _ in range(n)]
    # Rare endings on purpose: a royal flush, a wheel straight, quads, a full house from a pair.
    picked += [parse_cards(c) for c in ("AsKsQsJsTs", "Ah2c3d4s5h", "9c9d9h9s2c", "QhQd2s2c2h")]
    return picked


@pytest.mark.parametrize(("paytable", "ties"), [(MISSISSIPPI_MINIMUM, Ties.PREFER_BET), (BETTER, Ties.PREFER_FOLD)])
def test_par_lines_and_settlement_agree_to_the_cent(paytable: BasePaytable, ties: Ties) -> None:
    par = par_sheet(paytable, ties)
    by_name = {o.name: o for o in par.outcomes}
    seen = set()
    for cards in deals(15, 400):
        decisions, ending, wagered = plan(par, cards)
        r = new_round("NY", TableConfig(ANTE, 50_000, paytable=paytable))
        hole = cards[0].code + cards[1].code
        community = "".join(c.code for c in cards[2:])
        settled = full_round(r, {1: ANTE}, {1: hole}, {1: decisions}, community)
        folds = [rec for rec in r.records if isinstance(rec, DecisionRecord) and rec.folded]
        # A fold is collected at once (NY 5324.38(e)(1),(3),(5)): its net is what went to the tray.
        net = settled[0].net if settled else -sum(amount for _, amount in folds[0].forfeited)
        outcome = by_name[ending]
        per_unit = -1 if outcome.odds is None else outcome.odds
        assert net == per_unit * wagered * ANTE, (cards, decisions, ending)
        assert bool(folds) == (outcome.odds is None)
        assert dict(outcome.by_wager).get(wagered, 0) > 0, (ending, wagered)
        seen.add(ending)
    assert {"fold-3rd", "fold-4th", "fold-5th", "royal-flush", "pair-6s-to-10s", "high-card"} <= seen
