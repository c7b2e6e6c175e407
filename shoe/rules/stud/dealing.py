"""Who gets the next card: dealing plans, burns, the common card and the burn reshuffle.

Pure functions and one small value class; the hand (``hand.py``) walks a plan one card at a time.
The plans are read from the hand's :class:`~shoe.rules.profiles.StudProfile` (its streets: burn and
faces; its dealing order; its bring-in suit order); the NJ profile's values give the rules below.

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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from shoe.cards import Card
from shoe.hands import ShowingValue, showing_key, showing_value
from shoe.rules.profiles import NJ_SEVEN_CARD_STUD as _NJ
from shoe.rules.profiles import Face, SeatOrder, StudProfile
from shoe.rules.stud.states import Street

__all__ = [
    "DealStep",
    "Target",
    "bring_in_seat",
    "cards_before_seventh",
    "clockwise_from",
    "dealing_order",
    "first_to_act",
    "highest_showing",
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


def dealing_order(seats: Iterable[int], order: SeatOrder = _NJ.deal_order) -> list[int]:
    """(c) The seats in the profile's dealing order: ascending is clockwise from the dealer's left."""
    return sorted(seats, reverse=order is SeatOrder.DESCENDING)


def third_street_plan(seats: Iterable[int], profile: StudProfile = _NJ) -> tuple[DealStep, ...]:
    """(c) One round per face of the profile's 3rd street (NJ: down, down, up), in dealing order."""
    spec = profile.streets[0]
    order = tuple(dealing_order(seats, profile.deal_order))
    return _rounds(Street.THIRD, spec.burn, tuple(face is Face.UP for face in spec.faces), order)


@lru_cache(maxsize=4096)
def _rounds(street: Street, burn: bool, ups: tuple[bool, ...], order: tuple[int, ...]) -> tuple[DealStep, ...]:
    """[burn,] then one round of cards per entry of ``ups`` (face up or down) to the seats in ``order``:
    a pure function of its arguments, so the plans (tuples of frozen steps) are shared by every hand
    that deals the same street to the same seats (at most 5 streets x 255 seat sets a profile)."""
    first = (DealStep(Target.BURN, street),) if burn else ()
    return (*first, *(DealStep(Target.SEAT, street, seat, face_up=up) for up in ups for seat in order))


@lru_cache(maxsize=8)
def _short(street: Street, reshuffle: bool) -> tuple[DealStep, ...]:
    """(h) [reshuffle,] burn, common card face up."""
    steps = [DealStep(Target.RESHUFFLE, street)] if reshuffle else []
    steps += [DealStep(Target.BURN, street), DealStep(Target.COMMON, street, face_up=True)]
    return tuple(steps)


def needs_common_card(stub_remaining: int, live: int) -> bool:
    """(h) True when, after the burn, the stub cannot give each of ``live`` players a 7th card."""
    return stub_remaining - 1 < live


def needs_reshuffle(stub_remaining: int) -> bool:
    """(h) "If there is one or less cards remaining in the deck": the burn cards are reshuffled."""
    return stub_remaining <= 1


def street_plan(
    street: Street, live_seats: Iterable[int], stub_remaining: int, profile: StudProfile = _NJ
) -> tuple[DealStep, ...]:
    """(f), (h) The plan for 4th to 7th street: the profile's burn, then its rounds in dealing order.

    On 7th street, when the stub is short, the plan is [reshuffle,] burn, common card face up.
    """
    if street is Street.THIRD:
        raise ValueError("3rd street has its own plan: third_street_plan()")
    spec = profile.streets[street - Street.THIRD]
    order = tuple(dealing_order(live_seats, profile.deal_order))
    if street is Street.SEVENTH and needs_common_card(stub_remaining, len(order)):
        return _short(street, needs_reshuffle(stub_remaining))
    return _rounds(street, spec.burn, tuple(face is Face.UP for face in spec.faces), order)


def cards_before_seventh(players: int, profile: StudProfile = _NJ) -> int:
    """(h) Cards 3rd to 6th street take from the stub with ``players`` in: the least stub that can reach
    7th street (NJ: 6 x players + 3)."""
    return sum(len(spec.faces) * players + spec.burn for spec in profile.streets[:-1])


def clockwise_from(start: int, seats: Iterable[int], *, include_start: bool = True) -> tuple[int, ...]:
    """The seats in clockwise order (ascending, wrapping after the highest) beginning at ``start``.

    ``start`` need not be in ``seats``; with ``include_start=False`` it is left out.
    """
    order = sorted(set(seats))
    after = [s for s in order if s > start]
    before = [s for s in order if s < start]
    head = [start] if include_start and start in order else []
    return (*head, *after, *before)


def bring_in_seat(up_cards: dict[int, Card], profile: StudProfile = _NJ) -> int:
    """(d) The seat with the lowest up-card: by rank (ace high), ties by the profile's suit order
    (NJ: spades, hearts, diamonds, clubs from high to low, so clubs are lowest)."""
    if not up_cards:
        raise ValueError("no up-cards to compare")
    suits = profile.bring_in_suits_high_to_low
    return min(up_cards, key=lambda seat: (up_cards[seat].rank, -suits.index(up_cards[seat].code[1])))


def first_to_act(showing: dict[int, Sequence[Card]]) -> int:
    """(f)(1)-(2) The seat with the highest hand showing; a tie goes to the seat closest to the dealer's
    left (the lowest seat number).  Up-cards only; suits never break the tie.

    Checks the cards (:func:`~shoe.hands.showing_value`); the hand, whose cards were checked as they
    were dealt, asks :func:`highest_showing` with their ranks.
    """
    if not showing:
        raise ValueError("no live seats")
    return _highest({seat: _showing_key(showing_value(tuple(cards))) for seat, cards in showing.items()})


def highest_showing(ranks: Mapping[int, Sequence[int]]) -> int:
    """(f)(1)-(2) :func:`first_to_act` from the ranks of each live seat's up-cards (1 to 4 distinct
    cards' ranks, not checked again)."""
    if not ranks:
        raise ValueError("no live seats")
    return _highest({seat: showing_key(r) for seat, r in ranks.items()})


def _highest(keys: Mapping[int, tuple[int, tuple[int, ...]]]) -> int:
    """The lowest seat among those with the highest key: (f)(2), the tie closest to the dealer's left."""
    best = max(keys.values())
    return min(seat for seat, key in keys.items() if key == best)


def _showing_key(value: ShowingValue) -> tuple[int, tuple[int, ...]]:
    """Compare showing hands by category and ranks only: the cards (and so suits) never decide."""
    return (value.strength, value.tiebreak)
