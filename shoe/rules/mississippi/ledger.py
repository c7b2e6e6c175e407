"""The mutable book of one round: seats, wagers, cards seen.  Only the round changes it, and only
after every check has passed, so a refused action leaves it untouched."""

from __future__ import annotations

from dataclasses import dataclass, field

from shoe.cards import Card
from shoe.rules.mississippi.records import Record, SeatSettlement
from shoe.rules.mississippi.states import RoundState
from shoe.rules.profiles import SideBet

__all__ = ["HAND_KEEPING_BETS", "Ledger", "SeatLedger"]

HAND_KEEPING_BETS = frozenset({SideBet.PROGRESSIVE, SideBet.THREE_CARD_BONUS, SideBet.FIVE_CARD_HAND_BONUS})
"""PA 655a.11(b): with any of these a folded hand stays on the table until settlement."""


@dataclass
class SeatLedger:
    seat: int
    ante: int
    side: dict[SideBet, int]
    hole: tuple[Card, ...] = ()
    bets: list[int] = field(default_factory=list)
    folded_on: int | None = None  # street 3, 4 or 5
    hand_kept: bool = False  # a folded hand left on the table (PA 655a.11(b))
    forfeited: bool = False  # PA 655a.11(a)(3)
    settlement: SeatSettlement | None = None

    @property
    def dealt(self) -> bool:
        return bool(self.hole)

    @property
    def live(self) -> bool:
        """Dealt, not folded, not forfeited: still deciding or waiting for settlement."""
        return self.dealt and self.folded_on is None and not self.forfeited

    @property
    def pending(self) -> bool:
        """Has wagers left for the settlement pass (NY 5324.38(e)(7), PA 655a.11(i))."""
        if self.settlement is not None or self.forfeited or not self.dealt:
            return False
        return self.folded_on is None or self.hand_kept

    @property
    def stakes(self) -> tuple[int, ...]:
        """Ante then the street bets placed."""
        return (self.ante, *self.bets)

    @property
    def total_wagered(self) -> int:
        return self.ante + sum(self.bets) + sum(self.side.values())

    def freeze(self) -> tuple[object, ...]:
        return (
            self.seat,
            self.ante,
            tuple(sorted((k.value, v) for k, v in self.side.items())),
            self.hole,
            tuple(self.bets),
            self.folded_on,
            self.hand_kept,
            self.forfeited,
            self.settlement,
        )


@dataclass
class Ledger:
    seats: dict[int, SeatLedger] = field(default_factory=dict)
    stack_order: list[int] = field(default_factory=list)  # seats in the order their stacks came
    stacks: list[tuple[Card, ...]] = field(default_factory=list)
    community_known: tuple[Card, ...] = ()  # shoe source only: dispensed, not yet shown
    community_dealt: bool = False
    revealed: list[Card] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    paused_from: RoundState | None = None
    meters: dict[str, int] = field(default_factory=dict)
    magic_card: Card | None = None
    lucky_seat: int | None = None
    dealing_seats: tuple[int, ...] = ()  # fixed at no more bets: the wagering seats, ascending

    def seen(self) -> set[Card]:
        """Every card identified this round: stacks, the shoe's community stack, reveals."""
        cards: set[Card] = set(self.community_known) | set(self.revealed)
        for stack in self.stacks:
            cards.update(stack)
        return cards

    def next_stack_seat(self) -> int | None:
        for seat in self.dealing_seats:
            if not self.seats[seat].dealt:
                return seat
        return None

    def dealt_seats(self) -> list[SeatLedger]:
        return [self.seats[s] for s in self.stack_order]

    def pending_seats(self) -> list[SeatLedger]:
        return [s for s in self.dealt_seats() if s.pending]

    def freeze(self) -> tuple[object, ...]:
        return (
            tuple(s.freeze() for _, s in sorted(self.seats.items())),
            tuple(self.stack_order),
            tuple(self.stacks),
            self.community_known,
            self.community_dealt,
            tuple(self.revealed),
            tuple(self.records),
            self.paused_from,
            tuple(sorted(self.meters.items())),
            self.magic_card,
            self.lucky_seat,
            self.dealing_seats,
        )
