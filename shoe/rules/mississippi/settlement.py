"""Base-game settlement of one hand: ante and street bets (NY 5324.38(e)(7),(f); PA 655a.11(i)(1)-(3)).

Pure functions of a hand value and the stakes.  The paytable is "to 1": a winning wager gets its
stake back plus ``stake * odds``; a pair of 6s-10s is a push (stakes back, nothing paid, NY
5324.38(e)(7)(ii)); anything below loses.  Winnings are limited by the aggregate cap
(:mod:`.cap`).  Side wagers are settled after the base wagers (:mod:`.side_wagers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shoe.hands import HandValue
from shoe.rules.mississippi.cap import apportion
from shoe.rules.mississippi.records import Outcome, WagerLine
from shoe.rules.paytables import BaseHand, BasePaytable, classify_base

__all__ = ["WAGER_NAMES", "BaseResult", "settle_base", "unplayed_base"]

WAGER_NAMES = ("ante", "3rd", "4th", "5th")
"""The base wagers, in layout order (NY 5324.38(a)(2)(i)-(ii))."""


@dataclass(frozen=True)
class BaseResult:
    line: BaseHand | None
    outcome: Outcome
    wagers: tuple[WagerLine, ...]
    computed: int  # winnings per the paytable
    paid: int  # winnings after the cap
    capped: bool
    net: int


def settle_base(hand: HandValue, stakes: Sequence[int], paytable: BasePaytable, cap: int) -> BaseResult:
    """Settle a live hand's ``stakes`` (ante first, then the street bets) against ``paytable``."""
    line = classify_base(hand)
    odds = None if line is None else paytable.odds(line)
    names = WAGER_NAMES[: len(stakes)]
    if odds is None:
        wagers = tuple(WagerLine(n, s, Outcome.LOSE, 0, 0) for n, s in zip(names, stakes, strict=True))
        return BaseResult(line, Outcome.LOSE, wagers, 0, 0, False, -sum(stakes))
    if odds == 0:
        wagers = tuple(WagerLine(n, s, Outcome.PUSH, 0, 0) for n, s in zip(names, stakes, strict=True))
        return BaseResult(line, Outcome.PUSH, wagers, 0, 0, False, 0)
    computed = tuple(s * odds for s in stakes)
    paid = apportion(computed, cap)
    wagers = tuple(WagerLine(n, s, Outcome.WIN, c, p) for n, s, c, p in zip(names, stakes, computed, paid, strict=True))
    return BaseResult(line, Outcome.WIN, wagers, sum(computed), sum(paid), paid != computed, sum(paid))


def unplayed_base(stakes: Sequence[int], outcome: Outcome) -> BaseResult:
    """A hand that folded (stakes forfeited at the fold) or forfeited (PA 655a.11(a)(3))."""
    names = WAGER_NAMES[: len(stakes)]
    wagers = tuple(WagerLine(n, s, outcome, 0, 0) for n, s in zip(names, stakes, strict=True))
    return BaseResult(None, outcome, wagers, 0, 0, False, -sum(stakes))
