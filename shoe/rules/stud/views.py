"""What the table may see: a public view that never shows a face-down card before the showdown.

* Up-cards, the common card, each seat's chips in the pot, whose turn it is and the legal actions are
  public.
* Face-down cards are shown as a count only.  At the showdown (i), the down cards of the players in the
  showdown are shown; a folded seat's down cards and the burn cards are never shown, and a hand won
  uncontested is never shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from shoe.cards import Card
from shoe.hands import Category
from shoe.rules.stud.betting import LegalAction
from shoe.rules.stud.states import Phase, Street

__all__ = ["PublicView", "SeatView"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the table sees it.  ``down_cards`` is None until the showdown shows them."""

    seat: int
    folded: bool
    up_cards: tuple[Card, ...]
    down_count: int
    contributed: int
    down_cards: tuple[Card, ...] | None = None
    category: Category | None = None

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: card codes, category name."""
        return {
            "seat": self.seat,
            "folded": self.folded,
            "up": [c.code for c in self.up_cards],
            "down": None if self.down_cards is None else [c.code for c in self.down_cards],
            "down_count": self.down_count,
            "contributed": self.contributed,
            "category": None if self.category is None else self.category.value,
        }


@dataclass(frozen=True, slots=True)
class PublicView:
    """The whole table as the players may see it."""

    phase: Phase
    street: Street | None
    seats: tuple[SeatView, ...]
    common_card: Card | None
    pot: int
    to_act: int | None
    bring_in_seat: int | None
    burn_count: int
    stub_remaining: int
    legal_actions: tuple[LegalAction, ...] = ()
    winners: tuple[int, ...] = ()
    pot_shares: Mapping[int, int] = field(default_factory=dict)

    def seat(self, seat: int) -> SeatView:
        """The view of one seat."""
        for view in self.seats:
            if view.seat == seat:
                return view
        raise KeyError(seat)

    def as_dict(self) -> dict[str, object]:
        """JSON-ready (no Card or Enum objects)."""
        return {
            "phase": self.phase.value,
            "street": None if self.street is None else self.street.label,
            "seats": [s.as_dict() for s in self.seats],
            "common_card": None if self.common_card is None else self.common_card.code,
            "pot": self.pot,
            "to_act": self.to_act,
            "bring_in_seat": self.bring_in_seat,
            "burn_count": self.burn_count,
            "stub_remaining": self.stub_remaining,
            "legal_actions": [list(a.as_triplet()) for a in self.legal_actions],
            "winners": list(self.winners),
            "pot_shares": {str(k): v for k, v in sorted(self.pot_shares.items())},
        }
