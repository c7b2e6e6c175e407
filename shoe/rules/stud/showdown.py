"""(i) Showdown and settlement: best five of seven, exact ties split, the odd chip by highest card.

* Each player still in forms the best five-card hand from the seven cards he was dealt (with a common
  card, his six cards and the common card).  ``shoe.hands.best_hand`` decides; suits never break ties.
* Exact ties divide the pot equally.  The indivisible remainder (a few cents: fewer than the number of
  tied players, so never above the $1.00 of (i)) goes whole to one tied player: decision, the one
  holding the highest card by rank then suit (spades > hearts > diamonds > clubs) among all the cards
  he holds; if that card is the common card every tied player holds it, so the next highest decides,
  and so on (the players' own cards are all different, so this always ends).
* When all but one player fold, the last player takes the whole pot without a showdown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shoe.cards import Card
from shoe.hands import HandValue, best_hand
from shoe.rules.profiles import NJ_SEVEN_CARD_STUD as _NJ
from shoe.rules.profiles import StudProfile

__all__ = ["Settlement", "odd_chip_seat", "settle_showdown", "settle_uncontested", "split_pot"]


@dataclass(frozen=True, slots=True)
class Settlement:
    """Who won and what each seat is paid (cents); ``odd_chip_seat`` got ``odd_chips`` extra."""

    winners: tuple[int, ...]
    shares: Mapping[int, int]
    odd_chip_seat: int | None
    odd_chips: int
    hands: Mapping[int, HandValue]
    uncontested: bool


def odd_chip_seat(tied: Sequence[int], cards: Mapping[int, Sequence[Card]], profile: StudProfile = _NJ) -> int:
    """The tied seat holding the highest card by rank then suit (the profile's showdown suit order);
    ties on a shared card go further down."""
    suits = profile.showdown_suits_high_to_low

    def strength(card: Card) -> tuple[int, int]:
        return (card.rank, -suits.index(card.code[1]))

    return max(tied, key=lambda seat: sorted(map(strength, cards[seat]), reverse=True))


def split_pot(
    pot: int, winners: Sequence[int], cards: Mapping[int, Sequence[Card]], profile: StudProfile = _NJ
) -> tuple[dict[int, int], int | None, int]:
    """Divide ``pot`` equally among ``winners``; return (shares, odd-chip seat or None, odd chips)."""
    if not winners:
        raise ValueError("no winners to pay")
    share, rest = divmod(pot, len(winners))
    shares = dict.fromkeys(sorted(winners), share)
    if not rest:
        return shares, None, 0
    if rest > profile.odd_chip_max_cents:  # pragma: no cover - impossible with at most eight players
        raise ValueError(f"odd chips {rest} exceed the {profile.odd_chip_max_cents} cents of (i)")
    seat = odd_chip_seat(sorted(winners), cards, profile)
    shares[seat] += rest
    return shares, seat, rest


def settle_showdown(pot: int, cards: Mapping[int, Sequence[Card]], profile: StudProfile = _NJ) -> Settlement:
    """(i)(1)-(2) Evaluate every seat still in and divide the pot among the best hands."""
    hands = {seat: best_hand(tuple(hand)) for seat, hand in cards.items()}
    top = max(hands.values())
    winners = tuple(sorted(seat for seat, value in hands.items() if value == top))
    shares, seat, odd = split_pot(pot, winners, cards, profile)
    return Settlement(winners, shares, seat, odd, hands, uncontested=False)


def settle_uncontested(pot: int, seat: int) -> Settlement:
    """All but one folded: the last player takes the pot, no cards are shown."""
    return Settlement((seat,), {seat: pot}, None, 0, {}, uncontested=True)
