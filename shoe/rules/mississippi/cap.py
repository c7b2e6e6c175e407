"""The aggregate payout cap per hand (NY 5324.38(f)(2), PA 655a.12(b); rules digest).

The cap is the greater of $50,000 and the most one player could win in one round betting the table
minimum: the minimum ante, 3x on every street, the top line of the paytable in use (a royal flush).
Decision (digest): it limits the base-game winnings of one hand; side wagers follow their own
tables.  When it bites, winnings are cut pro rata across that hand's wagers in whole cents, the
remainder going to the ante first.
"""

from __future__ import annotations

from collections.abc import Sequence

from shoe.rules.paytables import BasePaytable

__all__ = ["MAX_MULTIPLE", "aggregate_cap", "apportion"]

MAX_MULTIPLE = 3
"""The largest street bet, in antes (NY 5324.38(e)(1),(3),(5))."""

STREET_COUNT = 3


def aggregate_cap(min_ante: int, paytable: BasePaytable, floor_cents: int) -> int:
    """The cap in cents for a table whose minimum ante is ``min_ante``."""
    most_at_minimum = min_ante * (1 + STREET_COUNT * MAX_MULTIPLE) * paytable.top_odds
    return max(floor_cents, most_at_minimum)


def apportion(computed: Sequence[int], cap: int) -> tuple[int, ...]:
    """Cut ``computed`` winnings (ante first) to total at most ``cap``, pro rata, whole cents.

    Each wager gets ``floor(w * cap / total)``; the cents left go to the ante, then to the street
    bets in order, never above what that wager computed.  Uncut when the total fits.
    """
    total = sum(computed)
    if total <= cap:
        return tuple(computed)
    paid = [w * cap // total for w in computed]
    left = cap - sum(paid)
    for i, w in enumerate(computed):
        extra = min(left, w - paid[i])
        paid[i] += extra
        left -= extra
    return tuple(paid)
