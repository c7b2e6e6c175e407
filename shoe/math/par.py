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
from math import sqrt

import numpy as np

from shoe.math.combos import IntArray
from shoe.math.hands import LINES, line_odds
from shoe.math.induction import Solution, Ties, solve
from shoe.math.suits import by_classes
from shoe.math.tree import Edges, Tree, by_sets
from shoe.rules.paytables import BasePaytable

__all__ = ["FULL_DECK", "Outcome", "Par", "analyse", "par_sheet", "paytable_key", "tree_of"]

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


@dataclass(frozen=True, eq=False)  # holds numpy arrays: compared by identity
class Par:
    """Exact figures per ante under optimal play with the stated tie rule."""

    name: str
    odds: tuple[int, ...]
    ties: Ties
    deals: int
    outcomes: tuple[Outcome, ...]
    solution: Solution
    reach4: IntArray  # (4th-street nodes, 3): deals reaching each node with W = 2..4
    reach5: IntArray  # (5th-street nodes, 5): deals reaching each node with W = 3..7

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


def _spread(edges: Edges, mass: IntArray, per: int, size: int) -> IntArray:
    """Per child node: the sum over its edges of ``mass[parent] * mult / per`` (exact, int64)."""
    w = mass[edges.parent].astype(np.float64) * edges.mult.astype(np.float64) / per
    return np.rint(np.bincount(edges.child, weights=w, minlength=size)).astype(np.int64)


def _forward(sol: Solution) -> tuple[list[Outcome], int, IntArray, IntArray]:
    tree = sol.tree
    r2, r3, r4 = tree.unseen
    _, m3, m4 = tree.nodes
    mass3 = tree.size2 * (r2 * r3 * r4)
    deals = int(mass3.sum())
    folds: list[dict[int, int]] = [{}, {}, {}]
    folded = int(mass3[sol.act3 == 0].sum())
    if folded:
        folds[0][1] = folded
    # 4th street: W = 1 + the 3rd-street bet.
    mass4 = np.stack([_spread(tree.edges3, np.where(sol.act3 == b, mass3, 0), r2, m3) for b in (1, 2, 3)], axis=1)
    for wi in range(3):
        folded = int(mass4[:, wi][sol.act4[:, wi] == 0].sum())
        if folded:
            folds[1][wi + 2] = folded
    # 5th street: W5 = W4 + the 4th-street bet, column W5 - 3.
    mass5 = np.zeros((m4, 5), dtype=np.int64)
    for wi in range(3):
        for b in (1, 2, 3):
            mass5[:, wi + b - 1] += _spread(tree.edges4, np.where(sol.act4[:, wi] == b, mass4[:, wi], 0), r3, m4)
    by_line: list[dict[int, int]] = [{} for _ in LINES]
    for k in range(5):
        w = k + 3
        folded = int(mass5[:, k][sol.act5[:, k] == 0].sum())
        if folded:
            folds[2][w] = folded
        per = mass5[:, k] // r4
        for b in (1, 2, 3):
            counts = np.where(sol.act5[:, k] == b, per, 0) @ tree.count4
            for li, c in enumerate(counts.tolist()):
                if c:
                    by_line[li][w + b] = by_line[li].get(w + b, 0) + int(c)
    outcomes = [Outcome(name, sol.odds[i], tuple(sorted(by_line[i].items()))) for i, name in enumerate(LINES)]
    outcomes += [Outcome(f"fold-{s}", None, tuple(sorted(folds[i].items()))) for i, s in enumerate(STREETS)]
    return outcomes, deals, mass4, mass5


@lru_cache(maxsize=4)
def tree_of(cards: tuple[int, ...] = FULL_DECK, plain: bool = False) -> Tree:
    """The deck's game tree, built once per process: by suit classes, or ``plain`` by card sets."""
    return by_sets(cards) if plain else by_classes(cards)


def _analyse(tree: Tree, odds: tuple[int, ...], ties: Ties, name: str) -> Par:
    sol = solve(tree, odds, ties)
    outcomes, deals, mass4, mass5 = _forward(sol)
    par = Par(name, sol.odds, ties, deals, tuple(outcomes), sol, mass4, mass5)
    if par.ev != sol.value or sum(o.count for o in outcomes) != deals:  # pragma: no cover - a bug guard
        raise AssertionError(f"forward pass disagrees with the induction: {par.ev} != {sol.value}")
    return par


@lru_cache(maxsize=32)
def analyse(
    odds: tuple[int, ...], ties: Ties = Ties.PREFER_BET, cards: tuple[int, ...] = FULL_DECK, plain: bool = False
) -> Par:
    """The PAR figures of per-line ``odds`` (cached in memory by odds, tie rule, deck and tree kind)."""
    return _analyse(tree_of(cards, plain), odds, ties, "")


def paytable_key(paytable: BasePaytable) -> str:
    """A short hash of what the paytable pays per line (its name is not part of it)."""
    text = ",".join(f"{line}={odds}" for line, odds in zip(LINES, line_odds(paytable), strict=True))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def par_sheet(paytable: BasePaytable, ties: Ties = Ties.PREFER_BET) -> Par:
    """The PAR sheet of a base paytable (NY 5324.38(f)(1)) on the 52-card deck."""
    par = analyse(line_odds(paytable), ties)
    return dataclasses.replace(par, name=paytable.name)
