"""Who gets the next card: dealing plans, burns, the common card and the burn reshuffle.

Pure functions and one small value class; the hand (``hand.py``) walks a plan one card at a time.

* (c) 3rd street: starting with the first player to the dealer's left, clockwise (ascending seats),
  two rounds face down and one round face up.  No burn precedes 3rd street: the text first burns
  before 4th street ((f)) and then "prior to each round" of (h).
* (f), (h) 4th to 7th street: burn one card, then one card to each live seat, clockwise from the
  dealer's left; face up on 4th to 6th, face down on 7th.
* (h) short stub: if the stub cannot give every live player a 7th card after the burn, burn and deal
  one common card face up.  If one card or none remains, the burn cards are shuffled (decision: with
  that one card), one is burnt and the common card is dealt.  The machine shows the reshuffle as a
  :attr:`Target.RESHUFFLE` step: the dealer shuffles, puts the reshuffled cards back in the shoe and
  calls ``reshuffle_burns()``; the shoe then reads the burn and the common card like any other card,
  and the machine accepts only cards from that reshuffled stub.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from shoe.cards import Card
from shoe.hands import ShowingValue, showing_value
from shoe.rules.stud.states import Street

__all__ = [
    "DealStep",
    "Target",
    "bring_in_seat",
    "clockwise_from",
    "first_to_act",
    "needs_common_card",
    "needs_reshuffle",
    "street_plan",
    "third_street_plan",
]


class Target(Enum):
    """Where the next card goes."""

    SEAT = "seat"
    BURN = "burn"
    COMMON = "common"
    RESHUFFLE = "reshuffle"  # not a card: the dealer reshuffles the burns into the stub


@dataclass(frozen=True, slots=True)
class DealStep:
    """One step of a dealing plan: a card for ``seat`` (or a burn / the common card), face up or down."""

    target: Target
    street: Street
    seat: int | None = None
    face_up: bool = False

    def __str__(self) -> str:
        face = "up" if self.face_up else "down"
        if self.target is Target.SEAT:
            return f"seat {self.seat} {face}"
        if self.target is Target.COMMON:
            return "common card up"
        return str(self.target.value)


def third_street_plan(seats: Iterable[int]) -> tuple[DealStep, ...]:
    """(c) Two rounds face down and one face up, clockwise from the dealer's left (ascending seats)."""
    order = sorted(seats)
    return tuple(DealStep(Target.SEAT, Street.THIRD, seat, face_up=(rnd == 2)) for rnd in range(3) for seat in order)


def needs_common_card(stub_remaining: int, live: int) -> bool:
    """(h) True when, after the burn, the stub cannot give each of ``live`` players a 7th card."""
    return stub_remaining - 1 < live


def needs_reshuffle(stub_remaining: int) -> bool:
    """(h) "If there is one or less cards remaining in the deck": the burn cards are reshuffled."""
    return stub_remaining <= 1


def street_plan(street: Street, live_seats: Iterable[int], stub_remaining: int) -> tuple[DealStep, ...]:
    """(f), (h) The plan for 4th to 7th street: a burn, then one card per live seat clockwise.

    On 7th street, when the stub is short, the plan is [reshuffle,] burn, common card face up.
    """
    if street is Street.THIRD:
        raise ValueError("3rd street has its own plan: third_street_plan()")
    order = sorted(live_seats)
    if street is Street.SEVENTH and needs_common_card(stub_remaining, len(order)):
        steps = [DealStep(Target.RESHUFFLE, street)] if needs_reshuffle(stub_remaining) else []
        steps += [DealStep(Target.BURN, street), DealStep(Target.COMMON, street, face_up=True)]
        return tuple(steps)
    face_up = street is not Street.SEVENTH
    return (DealStep(Target.BURN, street), *(DealStep(Target.SEAT, street, seat, face_up=face_up) for seat in order))


def clockwise_from(start: int, seats: Iterable[int], *, include_start: bool = True) -> tuple[int, ...]:
    """The seats in clockwise order (ascending, wrapping after the highest) beginning at ``start``.

    ``start`` need not be in ``seats``; with ``include_start=False`` it is left out.
    """
    order = sorted(set(seats))
    after = [s for s in order if s > start]
    before = [s for s in order if s < start]
    head = [start] if include_start and start in order else []
    return (*head, *after, *before)


def bring_in_seat(up_cards: dict[int, Card]) -> int:
    """(d) The seat with the lowest up-card: by rank (ace high), ties by suit, clubs lowest.

    ``Card`` orders by (rank, suit) with clubs < diamonds < hearts < spades, which is the order of (d).
    """
    if not up_cards:
        raise ValueError("no up-cards to compare")
    return min(up_cards, key=lambda seat: up_cards[seat])


def first_to_act(showing: dict[int, Sequence[Card]]) -> int:
    """(f)(1)-(2) The seat with the highest hand showing; a tie goes to the seat closest to the dealer's
    left (the lowest seat number).  Up-cards only; suits never break the tie.
    """
    if not showing:
        raise ValueError("no live seats")
    keys = {seat: _showing_key(showing_value(tuple(cards))) for seat, cards in showing.items()}
    best = max(keys.values())
    return min(seat for seat, key in keys.items() if key == best)


def _showing_key(value: ShowingValue) -> tuple[int, tuple[int, ...]]:
    """Compare showing hands by category and ranks only: the cards (and so suits) never decide."""
    return (value.strength, value.tiebreak)
