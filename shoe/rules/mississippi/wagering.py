"""Wagers, "no more bets", and PA's progressive lock-out and chip count.

NY 5324.38(c)(2): every ante is placed before "no more bets"; (c)(4): one betting position per
player.  PA (rules digest, after 670a.10(a)(2)(ii)): after "no more bets", when the Progressive
Payout wager is offered, the progressive system is locked against new progressive wagers and the
progressive chips are counted against the wagers the system accepted, before the first stack.
"""

from __future__ import annotations

from collections.abc import Mapping

from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi.core import RoundCore
from shoe.rules.mississippi.ledger import SeatLedger
from shoe.rules.mississippi.records import ChipCountRecord, NoMoreBetsRecord, ProgressiveLockRecord, WagerRecord
from shoe.rules.profiles import SideBet

__all__ = ["Wagering"]

SideWagers = Mapping[SideBet, int] | Mapping[str, int]


class Wagering:
    """Wagers, "no more bets", and PA's progressive lock-out and chip count."""

    def __init__(self, core: RoundCore) -> None:
        self._core = core

    # -- place_wagers -----------------------------------------------------------------------------

    def _side_bets(self, side: SideWagers | None) -> dict[SideBet, int]:
        rule = self._core.rules.wagers
        bets: dict[SideBet, int] = {}
        items: list[tuple[SideBet | str, int]] = list((side or {}).items())
        for key, amount in items:
            try:
                bet = key if isinstance(key, SideBet) else SideBet(key)
            except ValueError:
                raise RuleViolation(f"unknown side wager {key!r}", rule=rule, code="illegal-wager") from None
            if bet is SideBet.ENVY:
                raise RuleViolation(
                    "the Envy Bonus is not a wager: it rides on the Progressive wager", rule=rule, code="illegal-wager"
                )
            if bet not in self._core.table.offered or self._core.table.side is None:
                offered = ", ".join(sorted(b.value for b in self._core.table.offered)) or "none"
                raise RuleViolation(
                    f"side wager {bet.value} is not offered here (offered: {offered})", rule=rule, code="illegal-wager"
                )
            limits = self._core.table.side
            if type(amount) is not int:
                raise RuleViolation(f"{bet.value} wager {amount!r} is not whole cents", rule=rule, code="illegal-wager")
            if bet is SideBet.PROGRESSIVE and amount != limits.progressive_wager:
                raise RuleViolation(
                    f"a progressive wager is {limits.progressive_wager} cents, not {amount}",
                    rule=self._core.rules.progressive,
                    code="illegal-wager",
                )
            if bet is not SideBet.PROGRESSIVE and not limits.bonus_min <= amount <= limits.bonus_max:
                raise RuleViolation(
                    f"{bet.value} wager {amount} outside {limits.bonus_min}..{limits.bonus_max} cents",
                    rule=rule,
                    code="illegal-wager",
                )
            bets[bet] = amount
        return bets

    def verify_place_wagers(self, seat: int, ante: int, side: SideWagers | None = None) -> None:
        """Refuse a wager after "no more bets", off the table, or outside the limits."""
        self._core.check_step("wager", f"wager at seat {seat}", self._core.rules.no_more_bets)
        if type(seat) is not int or not 1 <= seat <= self._core.profile.max_seats:
            raise RuleViolation(
                f"no seat {seat!r} (seats 1 to {self._core.profile.max_seats})",
                rule=self._core.rules.seats,
                code="unknown-seat",
            )
        if type(ante) is not int or not self._core.table.min_ante <= ante <= self._core.table.max_ante:
            raise RuleViolation(
                f"ante {ante!r} at seat {seat} refused: the table takes "
                f"{self._core.table.min_ante} to {self._core.table.max_ante} cents",
                rule=self._core.rules.wagers,
                code="illegal-wager",
            )
        self._side_bets(side)

    def place_wagers(self, seat: int, ante: int, side: SideWagers | None = None) -> WagerRecord:
        """Place (or replace) a seat's ante and side wagers while the table is open."""
        self.verify_place_wagers(seat, ante, side)
        bets = self._side_bets(side)
        self._core.book.seats[seat] = SeatLedger(seat, ante, bets)
        side_rows = tuple(sorted(bets.items(), key=lambda kv: kv[0].value))
        return self._core.commit(WagerRecord(seat, ante, side_rows, self._core.rules.wagers), "wager")

    # -- no_more_bets -----------------------------------------------------------------------------

    def verify_no_more_bets(self) -> None:
        self._core.check_step("no_more_bets", "no more bets", self._core.rules.no_more_bets)
        if not self._core.book.seats:
            raise RuleViolation(
                "no more bets refused: no seat has placed an ante", rule=self._core.rules.wagers, code="no-wagers"
            )

    def no_more_bets(self) -> NoMoreBetsRecord:
        """Close wagering; the wagering seats, ascending, are the stack order (NY 5324.38(d)(2))."""
        self.verify_no_more_bets()
        self._core.book.dealing_seats = tuple(sorted(self._core.book.seats))
        total = sum(s.total_wagered for s in self._core.book.seats.values())
        return self._core.commit(
            NoMoreBetsRecord(self._core.book.dealing_seats, total, self._core.rules.no_more_bets), "no_more_bets"
        )

    # -- PA progressive lock-out and chip count ----------------------------------------------------

    @property
    def progressive_wagers_accepted(self) -> int:
        return sum(1 for s in self._core.book.seats.values() if SideBet.PROGRESSIVE in s.side)

    def verify_lock_progressive(self) -> None:
        rule = self._core.rules.progressive_lock or self._core.profile.regulation
        if not self._core.table.progressive_lockout:
            raise RuleViolation(
                "lock progressive refused: no progressive lock-out at this table (no Progressive wager offered)",
                rule=rule,
                code="not-applicable",
            )
        self._core.check_step("lock_progressive", "lock progressive", rule)

    def lock_progressive(self) -> ProgressiveLockRecord:
        """Lock the progressive system against new progressive wagers (before the first stack)."""
        self.verify_lock_progressive()
        record = ProgressiveLockRecord(self.progressive_wagers_accepted, self._core.rules.progressive_lock)
        return self._core.commit(record, "lock_progressive")

    def verify_count_progressive_chips(self, count: int) -> None:
        rule = self._core.rules.progressive_lock or self._core.profile.regulation
        self._core.check_step("count_progressive_chips", "progressive chip count", rule)
        expected = self.progressive_wagers_accepted
        if type(count) is not int or count != expected:
            raise RuleViolation(
                f"progressive chip count {count!r} refused: the system accepted {expected} progressive "
                f"{'wager' if expected == 1 else 'wagers'}; recount, or have the floor resolve it",
                rule=rule,
                code="chip-count-mismatch",
            )

    def count_progressive_chips(self, count: int) -> ChipCountRecord:
        """Record the verified count of progressive chips (must equal the wagers accepted)."""
        self.verify_count_progressive_chips(count)
        record = ChipCountRecord(count, self.progressive_wagers_accepted, self._core.rules.progressive_lock)
        return self._core.commit(record, "count_progressive_chips")
