"""The round's shared state and the primitives every part uses: refuse, record, void.

:class:`RoundCore` holds the profile, the table, the state machine (:class:`.flow.Flow`) and the
ledger, and does the three things every action ends with: refuse a step the table lacks
(:meth:`RoundCore.check_step`), commit a record and fire its trigger (:meth:`RoundCore.commit`), or
void the round (:meth:`RoundCore.misdeal`, rules digest "Irregularities").  The parts with one job
each (:mod:`.wagering`, :mod:`.dealing`, :mod:`.streets`, :mod:`.settling`, :mod:`.interrupts`,
:mod:`.views`) hold a reference to one core; the public class,
:class:`shoe.rules.mississippi.machine.MississippiRound`, delegates to them.
"""

from __future__ import annotations

from typing import TypeVar

from shoe.cards import Card, CardError
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi.flow import Flow
from shoe.rules.mississippi.ledger import Ledger, SeatLedger
from shoe.rules.mississippi.records import MisdealRecord, Record
from shoe.rules.mississippi.states import STREETS, RoundState, transition_table
from shoe.rules.mississippi.table import Table, TableConfig, resolve_table
from shoe.rules.profiles import Citations, CommunitySource, Irregularity, MississippiProfile

__all__ = ["CardInput", "RoundCore"]

R = TypeVar("R", bound=Record)

CardInput = Card | str | None
"""A card as the shoe or the dealer display gives it: a :class:`Card`, a code, or ``None`` (unreadable)."""


class RoundCore:
    """State and shared primitives of one Mississippi stud round."""

    def __init__(self, profile: MississippiProfile, config: TableConfig | Table) -> None:
        self.profile = profile
        self.table = config if isinstance(config, Table) else resolve_table(profile, config)
        self.flow = Flow(transition_table(profile.community_source, self.table.progressive_lockout))
        self.book = Ledger()

    # -- state -------------------------------------------------------------------------------------

    @property
    def state(self) -> RoundState:
        return self.flow.state

    @property
    def rules(self) -> Citations:
        return self.profile.rules

    @property
    def records(self) -> tuple[Record, ...]:
        """The audit trail: one frozen record per action taken, in order."""
        return tuple(self.book.records)

    @property
    def cap(self) -> int:
        """The aggregate payout cap per hand, in cents (NY 5324.38(f)(2), PA 655a.12(b))."""
        return self.table.cap

    def snapshot(self) -> tuple[object, ...]:
        """Everything the round holds, frozen and comparable (secret cards included: for tests and
        the journal, never for display)."""
        return (self.state, self.book.freeze())

    @property
    def expected_stub_count(self) -> int:
        """52 minus the cards dispensed by the shoe: two per stack, plus 3 with a shoe community source."""
        players = len(self.book.dealing_seats)
        shoe_community = self.profile.community_cards if self.profile.community_source is CommunitySource.SHOE else 0
        return self.profile.deck_size - self.profile.stack_size * players - shoe_community

    # -- refusals ----------------------------------------------------------------------------------

    def check_step(self, trigger: str, action: str, rule: str) -> None:
        """Refuse ``action`` unless the table allows ``trigger`` now (code ``paused`` or ``invalid-in-state``)."""
        if self.state is RoundState.PAUSED and trigger not in ("resume", "misdeal"):
            raise RuleViolation(
                f"{action} refused: the round is paused; resume or declare a misdeal", rule=rule, code="paused"
            )
        if not self.flow.allows(trigger):
            raise RuleViolation(f"{action} refused in state {self.state.value}", rule=rule, code="invalid-in-state")

    def seat(self, seat: int, rule: str, action: str) -> SeatLedger:
        """The ledger of a seat that placed a wager; refused with code ``unknown-seat`` otherwise."""
        if type(seat) is not int or not 1 <= seat <= self.profile.max_seats:
            raise RuleViolation(
                f"{action} refused: no seat {seat!r} (seats 1 to {self.profile.max_seats})",
                rule=self.rules.seats,
                code="unknown-seat",
            )
        entry = self.book.seats.get(seat)
        if entry is None:
            raise RuleViolation(f"{action} refused: seat {seat} placed no wager", rule=rule, code="unknown-seat")
        return entry

    # -- changes -----------------------------------------------------------------------------------

    def commit(self, record: R, trigger: str | None = None, *args: object) -> R:
        if trigger is not None:
            self.flow.fire(trigger, *args, rule=record.rule)
        self.book.records.append(record)
        return record

    def identify(self, card: object, seen: set[Card]) -> tuple[Card | None, Irregularity | None, str]:
        """Check one card against the deck and the cards already seen this round."""
        if card is None:
            return None, Irregularity.UNREADABLE_CARD, "a card could not be read"
        if isinstance(card, str):
            try:
                card = Card.parse(card)
            except CardError:
                return None, Irregularity.FOREIGN_CARD, f"card {card!r} is not in the loaded deck"
        if not isinstance(card, Card):
            return None, Irregularity.FOREIGN_CARD, f"{card!r} is not a card of the loaded deck"
        if card in seen:
            return None, Irregularity.DUPLICATE_CARD, f"card {card.code} was already dealt this round"
        return card, None, ""

    def misdeal(self, cause: Irregularity, detail: str) -> MisdealRecord:
        """Void the round: every wager placed is returned (rules digest, "Irregularities")."""
        row = self.profile.irregularity(cause)
        returned = tuple((s.seat, s.total_wagered) for _, s in sorted(self.book.seats.items()))
        prior = self.book.paused_from if self.state is RoundState.PAUSED else self.state
        record = MisdealRecord(
            cause=cause,
            detail=detail,
            remedy=row.remedy,
            returned=returned,
            total_returned=sum(c for _, c in returned),
            deck_removed=row.deck_removed,
            security_alert=row.security_alert,
            prior=prior or self.state,
            rule=self.rules.irregularity,
        )
        return self.commit(record, "misdeal")

    def finish_if_done(self) -> None:
        """Complete the round once no hand is left to settle (everyone folded, or all settled)."""
        if self.state in (*STREETS, RoundState.SETTLEMENT) and not self.book.pending_seats():
            self.flow.fire("finish", rule=self.rules.settlement)
