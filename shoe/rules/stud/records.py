"""Frozen records of everything that happened in a hand, in order: the audit trail.

Each successful action returns one record and appends it to ``StudHand.records``; the end of the hand
appends one :class:`PotAwarded` per seat paid.  ``StudHand.replay()`` rebuilds a hand from them.
Each record's ``TAG`` is the journal's name for it (``shoe.service.journal.codec``): set once, kept when the
class is renamed.
Card identities in these records are secret during the hand: they belong in the journal, never in an
operational log.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from shoe.cards import Card
from shoe.rules.stud.dealing import Target
from shoe.rules.stud.states import Street

__all__ = [
    "ActionKind",
    "AntePosted",
    "BettingAction",
    "BurnsReshuffled",
    "CardDealt",
    "PotAwarded",
    "Record",
]


class ActionKind(Enum):
    """The betting actions; the values are the names used by scripts and the CLI."""

    BRING_IN = "bring-in"
    COMPLETE = "complete"
    CHECK = "check"
    BET = "bet"
    CALL = "call"
    RAISE = "raise"
    FOLD = "fold"

    @classmethod
    def parse(cls, name: str | ActionKind) -> ActionKind:
        """Accept ``"bring-in"``, ``"bring_in"``, ``"BRING_IN"`` or the member itself."""
        if isinstance(name, ActionKind):
            return name
        key = str(name).strip().lower().replace("_", "-")
        for kind in cls:
            if kind.value == key:
                return kind
        raise ValueError(f"unknown action {name!r}; actions: {', '.join(k.value for k in cls)}")


@dataclass(frozen=True, slots=True)
class AntePosted:
    """(b) A seat's ante, taken when the hand starts."""

    TAG: ClassVar[str] = "AntePosted"

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class CardDealt:
    """One card read by the shoe and placed: to a seat, to the burn pile, or as the common card."""

    TAG: ClassVar[str] = "CardDealt"

    card: Card
    target: Target
    street: Street
    seat: int | None
    face_up: bool


@dataclass(frozen=True, slots=True)
class BurnsReshuffled:
    """(h) The burn cards (and ``stub_cards`` cards left in the stub) shuffled into a new stub."""

    TAG: ClassVar[str] = "BurnsReshuffled"

    burns: tuple[Card, ...]
    stub_cards: int

    @property
    def new_stub(self) -> int:
        """How many cards the shoe holds after the reshuffle."""
        return len(self.burns) + self.stub_cards


@dataclass(frozen=True, slots=True)
class BettingAction:
    """A betting action.  ``amount`` is the chips the seat put in with this action (0 for check and
    fold); ``to`` is the seat's total for the street afterwards; ``street_bet`` the bet to match after.
    """

    TAG: ClassVar[str] = "BettingAction"

    seat: int
    kind: ActionKind
    street: Street
    amount: int
    to: int
    street_bet: int


@dataclass(frozen=True, slots=True)
class PotAwarded:
    """(i) A share of the pot paid to a seat; ``odd_chips`` is the indivisible remainder included."""

    TAG: ClassVar[str] = "PotAwarded"

    seat: int
    amount: int
    odd_chips: int
    uncontested: bool


Record = AntePosted | CardDealt | BurnsReshuffled | BettingAction | PotAwarded
"""Any entry of the audit trail."""
