"""The PAR sheet of a Mississippi stud paytable: exact figures under optimal play (pure).

The forward pass sends the ordered deals (``C(n,2) * (n-2)(n-3)(n-4)``, 155,937,600 on a full deck:
every starting hand and every ordered community sequence) down the optimal strategy of
:func:`shoe.math.induction.solve` and counts where they end: a final line (NY 5324.38(f)(1)) with
its total wager, or a fold on a street (NY 5324.38(e)(1),(3),(5)).  Every figure is an exact
fraction of those counts; :attr:`Par.ev` is checked against the backward induction's own value.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb, sqrt

import numpy as np

from shoe.math.combos import IntArray
from shoe.math.hands import LINES, line_odds
from shoe.math.induction import Deck, Solution, Ties, prepare, solve
from shoe.rules.paytables import BasePaytable

__all__ = ["FULL_DECK", "Outcome", "Par", "analyse", "par_sheet", "paytable_key"]

FULL_DECK: tuple[int, ...] = tuple(range(52))
STREETS = ("3rd", "4th", "5th")


@dataclass(frozen=True)
class Outcome:
    """One final outcome: a paytable line, or a fold on a street; ``by_wager`` maps the total
    wagered (in antes) to the number of deals that end here with it."""

    name: str
    odds: int | None  # "to 1" per unit wagered; None for a fold (the wagers are lost)
    by_wager: tuple[tuple[int, int], ...]

    @property
    def count(self) -> int:
        return sum(c for _, c in self.by_wager)

    @property
    def net(self) -> int:
        """Sum over the deals ending here of the net result in antes."""
        per = -1 if self.odds is None else self.odds
        return sum(per * w * c for w, c in self.by_wager)

    @property
    def net_squared(self) -> int:
        per = -1 if self.odds is None else self.odds
        return sum((per * w) ** 2 * c for w, c in self.by_wager)


@dataclass(frozen=True)
class Par:
    """Exact figures per ante under optimal play with the stated tie rule."""

    name: str
    odds: tuple[int, ...]
    ties: Ties
    deals: int
    outcomes: tuple[Outcome, ...]
    solution: Solution
    reach4: IntArray  # (C(n,3), 3): deals reaching each 3-set with W = 2..4 on 4th street
    reach5: IntArray  # (C(n,4), 5): deals reaching each 4-set with W = 3..7 on 5th street

    def probability(self, outcome: Outcome) -> Fraction:
        return Fraction(outcome.count, self.deals)

    def contribution(self, outcome: Outcome) -> Fraction:
        """The outcome's contribution to the expected value per ante."""
        return Fraction(outcome.net, self.deals)

    @property
    def ev(self) -> Fraction:
        """Expected net per ante (negative: the house's edge)."""
        return Fraction(sum(o.net for o in self.outcomes), self.deals)

    @property
    def house_edge(self) -> Fraction:
        return -self.ev

    @property
    def average_wager(self) -> Fraction:
        """Expected total wagered per round, in antes (ante plus the street bets made)."""
        return Fraction(sum(w * c for o in self.outcomes for w, c in o.by_wager), self.deals)

    @property
    def element_of_risk(self) -> Fraction:
        """House edge over the average total wager."""
        return self.house_edge / self.average_wager

    @property
    def std_dev(self) -> float:
        """Standard deviation of one round's net, in antes."""
        second = Fraction(sum(o.net_squared for o in self.outcomes), self.deals)
        return sqrt(second - self.ev**2)

    @property
    def hit_frequency(self) -> Fraction:
        """Probability that the round wins (a line paying more than 0)."""
        return Fraction(sum(o.count for o in self.outcomes if o.odds is not None and o.odds > 0), self.deals)


def _forward(sol: Solution) -> tuple[list[Outcome], int, IntArray, IntArray]:
    deck = sol.deck
    n = len(deck.cards)
    r2, r3, r4 = n - 2, n - 3, n - 4
    deals = len(deck.sets2) * r2 * r3 * r4
    folds: list[dict[int, int]] = [{}, {}, {}]
    n_fold3 = int((sol.act3 == 0).sum())
    if n_fold3:
        folds[0][1] = n_fold3 * r2 * r3 * r4
    # 4th street: each 3-set is reached from its three 2-sets (which two cards were the hole cards).
    via = sol.act3[deck.down3]  # (n3, 3) the 3rd-street bet of each way in
    n3 = len(deck.sets3)
    index = (np.arange(n3)[:, None] * 3 + np.maximum(via, 1) - 1)[via > 0]
    mass4 = np.bincount(index, minlength=n3 * 3).reshape(n3, 3).astype(np.int64) * (r3 * r4)
    for wi in range(3):
        folded = int(mass4[:, wi][sol.act4[:, wi] == 0].sum())
        if folded:
            folds[1][wi + 2] = folded
    # 5th street: each 4-set from its four 3-sets; W5 = W4 + bet, index W5 - 3.
    n4 = len(deck.sets4)
    mass5 = np.zeros((n4, 5), dtype=np.int64)
    for wi in range(3):
        came = mass4[deck.down4, wi] // r3  # (n4, 4)
        bet = sol.act4[deck.down4, wi]
        for b in (1, 2, 3):
            mass5[:, wi + b - 1] += np.where(bet == b, came, 0).sum(axis=1)
    by_line: list[dict[int, int]] = [{} for _ in LINES]
    for k in range(5):
        w = k + 3
        folded = int(mass5[:, k][sol.act5[:, k] == 0].sum())
        if folded:
            folds[2][w] = folded
        per = mass5[:, k] // r4
        for b in (1, 2, 3):
            counts = np.where(sol.act5[:, k] == b, per, 0) @ deck.count4
            for li, c in enumerate(counts.tolist()):
                if c:
                    by_line[li][w + b] = by_line[li].get(w + b, 0) + int(c)
    outcomes = [Outcome(name, sol.odds[i], tuple(sorted(by_line[i].items()))) for i, name in enumerate(LINES)]
    outcomes += [Outcome(f"fold-{s}", None, tuple(sorted(folds[i].items()))) for i, s in enumerate(STREETS)]
    return outcomes, deals, mass4, mass5


@lru_cache(maxsize=4)
def _deck(cards: tuple[int, ...]) -> Deck:
    return prepare(cards)


@lru_cache(maxsize=32)
def analyse(
    odds: tuple[int, ...], ties: Ties = Ties.PREFER_BET, cards: tuple[int, ...] = FULL_DECK, name: str = ""
) -> Par:
    """The PAR figures of per-line ``odds`` (cached in memory by odds, tie rule and deck)."""
    sol = solve(_deck(cards), odds, ties)
    outcomes, deals, mass4, mass5 = _forward(sol)
    par = Par(name, sol.odds, ties, deals, tuple(outcomes), sol, mass4, mass5)
    n = len(cards)
    backward = Fraction(int(sol.value3.sum()), comb(n, 2) * (n - 2) * (n - 3) * (n - 4))
    if par.ev != backward or sum(o.count for o in outcomes) != deals:  # pragma: no cover - a bug guard
        raise AssertionError(f"forward pass disagrees with the induction: {par.ev} != {backward}")
    return par


def paytable_key(paytable: BasePaytable) -> str:
    """A short hash of what the paytable pays per line (its name is not part of it)."""
    text = ",".join(f"{line}={odds}" for line, odds in zip(LINES, line_odds(paytable), strict=True))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def par_sheet(paytable: BasePaytable, ties: Ties = Ties.PREFER_BET) -> Par:
    """The PAR sheet of a base paytable (NY 5324.38(f)(1)) on the 52-card deck."""
    par = analyse(line_odds(paytable), ties)
    return dataclasses.replace(par, name=paytable.name)
