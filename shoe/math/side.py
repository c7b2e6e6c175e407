"""PA side wagers as figures: returns, meter contributions, break-even meters (58 Pa. Code 655a.11-12; pure).

Every wager is priced per unit staked, from the very paytables that settle it
(:mod:`shoe.rules.paytables`, :mod:`shoe.rules.mississippi.side_wagers`): a "to 1" line returns the
stake plus its odds, a "for 1" line the stake times its odds, a losing line nothing.  ``rtp`` is the
expected amount returned per unit staked (1 = break-even), ``house_edge`` is ``1 - rtp``.

* Three Card Bonus (655a.11(i)(4)(ii), 655a.12(d)): the three community cards, never folded, all
  C(52, 3) = 22,100 sets.
* Five Card Hand Bonus (655a.11(i)(4)(iii)): the player's two cards and the three community cards, kept
  on a fold (655a.11(b)), all C(52, 5) sets; Magic Card with probability 5/52 (the system's Magic Card
  one of the five, drawn independently of the deal: an assumption) and Lucky Bonus with 1 / seats.
* Progressive Payout tables A-D (655a.12(c)): forfeited on a fold (655a.11(h)), so the hands that pay
  are the ones the base game's optimal strategy plays out (:class:`shoe.math.par.Par`); a meter line
  adds ``coefficient x meter / stake`` to the return, and the break-even meter is where rtp = 1.
* Envy Bonus (655a.11(i)(4)(i)(E)): a fixed sum per other player's royal or straight flush at the
  showdown (optimal play), so its value per unit is linear in the number of other players.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations

import numpy as np

from shoe.cards import FULL_DECK
from shoe.hands import Category, ThreeCardCategory, category_of_rank, evaluate3
from shoe.math.combos import subsets
from shoe.math.hands import rank_hands
from shoe.math.par import Par
from shoe.rules.paytables import FixedSum, MeterShare, Odds, Paytable

__all__ = [
    "MeterLine",
    "SideSheet",
    "envy_per_player",
    "five_card_bonus",
    "five_card_counts",
    "progressive",
    "three_card_bonus",
    "three_card_counts",
]


@dataclass(frozen=True)
class MeterLine:
    """A meter's share of the return: ``coefficient x meter amount / stake``."""

    meter: str
    coefficient: Fraction  # sum over its lines of probability x percent / 100


@dataclass(frozen=True)
class SideSheet:
    """One side wager's figures per unit staked; rows: (hand, pays, probability, contribution to rtp)."""

    name: str
    table: str
    rows: tuple[tuple[str, str, Fraction, Fraction], ...]
    fixed_rtp: Fraction  # the return from the fixed-odds lines (all of it for a table without meters)
    meters: tuple[MeterLine, ...] = ()
    notes: tuple[str, ...] = ()

    def rtp(self, meters: Mapping[str, int] | None = None, stake: int = 1) -> Fraction:
        """Expected return per unit staked with the given meter amounts (same unit as ``stake``)."""
        readings = meters or {}
        return self.fixed_rtp + sum(
            (m.coefficient * readings.get(m.meter, 0) / stake for m in self.meters), Fraction(0)
        )

    def break_even(self, meter: str, meters: Mapping[str, int] | None = None, stake: int = 1) -> Fraction | None:
        """The ``meter`` amount at which rtp = 1, the other meters as given; None if it has no line."""
        line = next((m for m in self.meters if m.meter == meter), None)
        if line is None or line.coefficient == 0:
            return None
        others = {k: v for k, v in (meters or {}).items() if k != meter}
        return (1 - self.rtp(others, stake)) * stake / line.coefficient


def _sheet(
    name: str, table: Paytable[Category] | Paytable[ThreeCardCategory], probs: Mapping[str, Fraction]
) -> SideSheet:
    rows: list[tuple[str, str, Fraction, Fraction]] = []
    fixed = Fraction(0)
    shares: dict[str, Fraction] = {}
    for category, p in probs.items():
        payout = next((v for k, v in table.entries if k.value == category), None)
        if isinstance(payout, Odds):
            back = p * payout.for_one
            fixed += back
            rows.append((category, str(payout), p, back))
        elif isinstance(payout, MeterShare):
            shares[payout.meter] = shares.get(payout.meter, Fraction(0)) + p * Fraction(payout.percent, 100)
            rows.append((category, str(payout), p, Fraction(0)))
        else:
            rows.append((category, "loses", p, Fraction(0)))
    meters = tuple(MeterLine(k, v) for k, v in shares.items())
    return SideSheet(name, table.name, tuple(rows), fixed, meters)


@lru_cache(maxsize=1)
def three_card_counts() -> dict[str, int]:
    """Three-card categories over all 22,100 community sets."""
    counts = {c.value: 0 for c in ThreeCardCategory}
    for three in combinations(FULL_DECK, 3):
        counts[evaluate3(three).category.value] += 1
    return counts


@lru_cache(maxsize=1)
def five_card_counts() -> dict[str, int]:
    """Five-card categories over all 2,598,960 sets (NY 5324.38(b); 655a.6)."""
    ranks = rank_hands(tuple(range(52)), subsets(52, 5))
    present, counts = np.unique(ranks, return_counts=True)
    out = {c.value: 0 for c in Category}
    for rank, n in zip(present.tolist(), counts.tolist(), strict=True):
        out[category_of_rank(rank).value] += n
    return out


def _probs(counts: Mapping[str, int]) -> dict[str, Fraction]:
    total = sum(counts.values())
    return {k: Fraction(v, total) for k, v in counts.items()}


def three_card_bonus(table: Paytable[ThreeCardCategory]) -> SideSheet:
    return _sheet("three-card-bonus", table, _probs(three_card_counts()))


def five_card_bonus(
    table: Paytable[Category], magic_card: Odds | FixedSum, lucky_bonus: Odds | FixedSum, *, stake: int, seats: int
) -> SideSheet:
    """The Five Card Hand Bonus plus its Magic Card (5/52) and Lucky Bonus (1/seats) lines, per unit of
    ``stake`` (cents; a fixed sum is divided by it)."""
    sheet = _sheet("five-card-hand-bonus", table, _probs(five_card_counts()))
    extras = []
    for name, amount, p in (
        ("magic-card-bonus", magic_card, Fraction(5, 52)),
        ("lucky-bonus", lucky_bonus, Fraction(1, seats)),
    ):
        per_unit = Fraction(amount.cents, stake) if isinstance(amount, FixedSum) else Fraction(amount.for_one - 1)
        extras.append((name, str(amount), p, p * per_unit))
    notes = ("magic card: one of the five cards with probability 5/52; lucky seat: 1/seats (assumptions)",)
    fixed = sheet.fixed_rtp + sum((e[3] for e in extras), Fraction(0))
    return SideSheet(sheet.name, sheet.table, (*sheet.rows, *extras), fixed, sheet.meters, notes)


def _showdown_probs(par: Par) -> dict[str, Fraction]:
    """Final categories that reach the showdown under the base game's optimal play (folds lose)."""
    counts = {c.value: 0 for c in Category}
    for o in par.outcomes:
        if o.odds is None:
            continue
        name = o.name if o.name in counts else ("pair" if o.name.startswith("pair-") else "high-card")
        counts[name] += o.count
    folded = sum(o.count for o in par.outcomes if o.odds is None)
    probs = {k: Fraction(v, par.deals) for k, v in counts.items()}
    probs["folded"] = Fraction(folded, par.deals)
    return probs


def progressive(table: Paytable[Category], par: Par) -> SideSheet:
    """A Progressive Payout table, with the hands the optimal base strategy plays to the showdown."""
    sheet = _sheet("progressive", table, _showdown_probs(par))
    note = f"folded hands lose the wager (655a.11(h)); optimal base play, ties {par.ties.value}"
    return SideSheet(sheet.name, sheet.table, sheet.rows, sheet.fixed_rtp, sheet.meters, (note,))


def envy_per_player(par: Par) -> dict[str, Fraction]:
    """Probability that one other player is the holder of an Envy Bonus Qualifying Hand at settlement
    (PA 655a.11(i)(4)(i)(E)), as the rules engine pays it (docs/rules-engine.md, decision 8).

    A hand is on the table at settlement when it is live or folded and kept for a side wager (655a.11(h):
    a fold keeps the Three Card and Five Card payouts, so the hand is still judged): such a player holds
    a royal / straight flush with the plain five-card odds, whatever the base play (``royal-flush``,
    ``straight-flush``: 4 and 36 in C(52, 5)). A player with no side wager who folds is collected at
    the fold and holds nothing: only the hands optimal base play keeps to the showdown count
    (``...-no-side-wager``). The Envy Bonus expected per other player is ``p_royal x royal sum +
    p_straight_flush x straight-flush sum``.
    """
    probs = _showdown_probs(par)
    hands = Fraction(1, math.comb(52, 5))
    return {
        "royal-flush": 4 * hands,
        "straight-flush": 36 * hands,
        "royal-flush-no-side-wager": probs["royal-flush"],
        "straight-flush-no-side-wager": probs["straight-flush"],
    }
