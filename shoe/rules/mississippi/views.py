"""What may be shown, and the round's result.

:meth:`Views.public_state` never shows a seat's cards before that seat is settled (a folded hand
is collected face down and never shown), nor a community card before its reveal.
:meth:`Views.view` with ``can_see_holes=True`` (surveillance, the journal) adds every dealt
hand, still never an unrevealed community card.  :meth:`Views.result` is what ``shoectl play``
prints: per seat ``cards``, ``hand``, ``outcome``, ``net`` and ``side``, plus the dealing and
settlement orders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shoe.hands import evaluate5
from shoe.rules.mississippi.core import RoundCore
from shoe.rules.mississippi.dealing import Dealing
from shoe.rules.mississippi.ledger import SeatLedger
from shoe.rules.mississippi.records import MisdealRecord, Outcome, SeatSettlement, SideResult
from shoe.rules.mississippi.settling import Settling
from shoe.rules.mississippi.states import TERMINAL
from shoe.rules.mississippi.streets import Streets
from shoe.rules.profiles import SideBet

__all__ = ["PublicView", "RoundResult", "SeatResult", "SeatView", "Views"]


@dataclass(frozen=True)
class SeatView:
    seat: int
    ante: int
    bets: tuple[int, ...]
    side: tuple[tuple[str, int], ...]
    status: str  # "waiting", "dealt", "folded", "forfeited", "settled"
    cards: tuple[str, ...] | None  # None: not shown


@dataclass(frozen=True)
class PublicView:
    game: str
    jurisdiction: str
    state: str
    seats: tuple[SeatView, ...]
    community: tuple[str | None, ...]  # one entry per community card dealt; None while face down
    next_stack_seat: int | None
    next_to_decide: int | None
    next_to_settle: int | None
    cap: int


@dataclass(frozen=True)
class SeatResult:
    seat: int
    cards: tuple[str, ...]
    hand: str | None
    outcome: str | None  # None while the seat is still in play
    net: int  # base game: ante + street bets, cents
    side: tuple[SideResult, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "cards": list(self.cards),
            "hand": self.hand,
            "outcome": self.outcome,
            "net": self.net,
            "side": {
                r.bet: {"result": r.result.value, "net": r.net, "paid": r.paid, "note": r.note} for r in self.side
            },
        }


@dataclass(frozen=True)
class RoundResult:
    game: str
    jurisdiction: str
    state: str
    dealing_order: tuple[int, ...]
    settlement_order: tuple[int, ...]
    community: tuple[str, ...]
    seats: tuple[SeatResult, ...]
    misdeal: MisdealRecord | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "jurisdiction": self.jurisdiction,
            "state": self.state,
            "dealing_order": list(self.dealing_order),
            "settlement_order": list(self.settlement_order),
            "community": list(self.community),
            "seats": {str(s.seat): s.as_dict() for s in self.seats},
            "misdeal": None
            if self.misdeal is None
            else {
                "cause": self.misdeal.cause.value,
                "detail": self.misdeal.detail,
                "returned": self.misdeal.total_returned,
            },
        }


def _status(entry: SeatLedger) -> str:
    if entry.settlement is not None:
        return "settled"
    if entry.forfeited:
        return "forfeited"
    if entry.folded_on is not None:
        return "folded"
    return "dealt" if entry.dealt else "waiting"


class Views:
    """What may be shown of the round, and its result."""

    def __init__(self, core: RoundCore, dealing: Dealing, streets: Streets, settling: Settling) -> None:
        self._core = core
        self._dealing = dealing
        self._streets = streets
        self._settling = settling

    def view(self, *, can_see_holes: bool = False) -> PublicView:
        """The table as a role may see it; see the module docstring for what is never shown."""
        book = self._core.book
        seats = tuple(
            SeatView(
                e.seat,
                e.ante,
                tuple(e.bets),
                tuple(sorted((k.value, v) for k, v in e.side.items())),
                _status(e),
                tuple(c.code for c in e.hole) if e.dealt and (can_see_holes or e.settlement is not None) else None,
            )
            for _, e in sorted(book.seats.items())
        )
        shown: list[str | None] = [c.code for c in book.revealed]
        if book.community_dealt:
            shown += [None] * (self._core.profile.community_cards - len(shown))
        return PublicView(
            self._core.profile.game,
            self._core.profile.jurisdiction,
            self._core.state.value,
            seats,
            tuple(shown),
            self._dealing.next_stack_seat,
            self._streets.next_to_decide,
            self._settling.next_to_settle,
            self._core.table.cap,
        )

    def public_state(self) -> PublicView:
        """What players and the operational log may see."""
        return self.view(can_see_holes=False)

    def _seat_result(self, entry: SeatLedger, misdeal: MisdealRecord | None) -> SeatResult:
        shown = self._core.state in TERMINAL or entry.settlement is not None
        cards = tuple(c.code for c in entry.hole) if shown else ()
        hand = None
        if shown and entry.dealt and len(self._core.book.revealed) == self._core.profile.community_cards:
            hand = evaluate5((*entry.hole, *self._core.book.revealed)).category.value
        stakes = sum(entry.stakes)
        if misdeal is not None:
            return SeatResult(entry.seat, cards, hand, Outcome.VOID.value, 0, ())
        settled: SeatSettlement | None = entry.settlement
        if settled is not None:
            return SeatResult(entry.seat, cards, hand, settled.outcome.value, settled.net, settled.side)
        if entry.forfeited:
            side = tuple(
                SideResult(
                    b.value, a, Outcome.FORFEIT, "", 0, 0, -a, "tray", False, "", self._core.rules.information_sharing
                )
                for b, a in sorted(entry.side.items(), key=lambda kv: kv[0].value)
            )
            return SeatResult(entry.seat, cards, hand, Outcome.FORFEIT.value, -stakes, side)
        if entry.folded_on is not None:
            return SeatResult(entry.seat, cards, hand, Outcome.FOLD.value, -stakes, self._folded_side(entry))
        return SeatResult(entry.seat, cards, hand, None, 0, ())

    def _folded_side(self, entry: SeatLedger) -> tuple[SideResult, ...]:
        """A folded hand not (yet) settled: only its lost Progressive wager is known."""
        amount = entry.side.get(SideBet.PROGRESSIVE)
        if amount is None or entry.hand_kept:
            return ()
        rule = self._core.rules.fold_with_side_wagers
        return (
            SideResult(SideBet.PROGRESSIVE.value, amount, Outcome.FOLD, "", 0, 0, -amount, "tray", False, "", rule),
        )

    def result(self) -> RoundResult:
        """The round's outcome per seat, as far as it has gone (complete after the last settlement).

        Cards and hands appear for settled seats, and for every seat once the round is over (complete
        or void): this is the journal's and ``shoectl play``'s summary, not a live table view."""
        book = self._core.book
        misdeal = next((r for r in book.records if isinstance(r, MisdealRecord)), None)
        settled = tuple(r.seat for r in book.records if isinstance(r, SeatSettlement))
        return RoundResult(
            self._core.profile.game,
            self._core.profile.jurisdiction,
            self._core.state.value,
            tuple(book.stack_order),
            settled,
            tuple(c.code for c in book.revealed),
            tuple(self._seat_result(e, misdeal) for _, e in sorted(book.seats.items())),
            misdeal,
        )
