"""A plain recursive solver for Mississippi stud on a small deck: the check on shoe.math.

It walks the ordered deal (two hole cards, then each community card in turn) and every action on
every street, with the wagers as a list, the real evaluator and the settlement's own line
classification; nothing is pooled by card set and every value is a Fraction.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations

from shoe.cards import Card
from shoe.hands import Category, evaluate5
from shoe.math.hands import HIGH_CARD, LINES, LOW_PAIR
from shoe.rules.paytables import classify_base


def line_of(cards: Sequence[Card]) -> str:
    value = evaluate5(cards)
    line = classify_base(value)
    if line is not None:
        return line.value
    return LOW_PAIR if value.category is Category.PAIR else HIGH_CARD


class Brute:
    def __init__(self, deck: Sequence[Card], odds: Sequence[int], prefer_bet: bool) -> None:
        self.deck = tuple(deck)
        self.odds = dict(zip(LINES, odds, strict=True))
        self.prefer_bet = prefer_bet
        self.memo: dict[tuple[tuple[Card, ...], tuple[int, ...]], tuple[int, Fraction]] = {}

    def best(self, seen: tuple[Card, ...], stakes: tuple[int, ...]) -> tuple[int, Fraction]:
        """(action, value) on the street after ``seen``, with ``stakes`` (ante first) on the layout
        (remembered by the ordered history, so that playing every deal does not solve it again)."""
        known = self.memo.get((seen, stakes))
        if known is not None:
            return known
        values = [Fraction(-sum(stakes))]
        for b in (1, 2, 3):
            values.append(self.after(seen, (*stakes, b)))
        top = max(values)
        picks = [a for a, v in enumerate(values) if v == top]
        answer = (picks[-1] if self.prefer_bet else picks[0]), top
        self.memo[seen, stakes] = answer
        return answer

    def after(self, seen: tuple[Card, ...], stakes: tuple[int, ...]) -> Fraction:
        """Expected net once the stakes are down: the next community card, then decide or settle."""
        rest = [c for c in self.deck if c not in seen]
        total = Fraction(0)
        for card in rest:
            now = (*seen, card)
            if len(now) == 5:
                total += self.odds[line_of(now)] * sum(stakes)
            else:
                total += self.best(now, stakes)[1]
        return total / len(rest)

    def ev(self) -> Fraction:
        hands = list(combinations(self.deck, 2))
        return sum((self.best(h, (1,))[1] for h in hands), Fraction(0)) / len(hands)

    def play(self) -> tuple[dict[str, int], int, int]:
        """Every ordered deal played by this strategy: deals per outcome, sum of wagers, deal count."""
        ends: dict[str, int] = {}
        wagered = deals = 0
        for hole in combinations(self.deck, 2):
            rest = [c for c in self.deck if c not in hole]
            for c1 in rest:
                for c2 in rest:
                    for c3 in rest:
                        if len({c1, c2, c3}) < 3:
                            continue
                        outcome, stakes = self._deal(hole, (c1, c2, c3))
                        ends[outcome] = ends.get(outcome, 0) + 1
                        wagered += sum(stakes)
                        deals += 1
        return ends, wagered, deals

    def _deal(self, hole: tuple[Card, ...], community: tuple[Card, ...]) -> tuple[str, tuple[int, ...]]:
        seen: tuple[Card, ...] = hole
        stakes: tuple[int, ...] = (1,)
        for street, card in zip(("3rd", "4th", "5th"), community, strict=True):
            action, _ = self.best(seen, stakes)
            if action == 0:
                return f"fold-{street}", stakes
            stakes = (*stakes, action)
            seen = (*seen, card)
        return line_of(seen), stakes
