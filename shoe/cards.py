"""Playing cards, card codes and decks.

Cards are written rank then suit (rules digest, "Conventions"): ranks ``23456789TJQKA``, suits
``cdhs``, e.g. ``As``, ``Td``, ``7c``.  Ranks run 2..14 with the ace high (NY 9 NYCRR
5324.38(b)(1)); the ace plays low only inside the hand evaluator (A-2-3-4-5), never here.

Suits are ordered clubs < diamonds < hearts < spades, the seven-card stud bring-in order of
N.J.A.C. 13:47-20.35 (rules digest).  The derived ordering of :class:`Card` is therefore
(rank, suit), which is exactly "lowest up-card by rank, ties broken by suit".  Suits never break
ties between poker hands (NY 5324.38(b)); that is the hand evaluator's business, not this module's.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import IntEnum

__all__ = [
    "FULL_DECK",
    "RANKS",
    "SUITS",
    "Card",
    "CardError",
    "Deck",
    "Suit",
    "deck_problems",
    "parse_cards",
]

RANKS = "23456789TJQKA"
SUITS = "cdhs"

_VALID_HINT = "a valid card code is a rank from '23456789TJQKA' then a suit from 'cdhs', e.g. 'As', 'Td'"


class Suit(IntEnum):
    """Card suit, in stud bring-in order: clubs lowest, spades highest (N.J.A.C. 13:47-20.35)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """The one-letter code: ``c``, ``d``, ``h`` or ``s``."""
        return SUITS[self.value]


class CardError(ValueError):
    """A card code, card or deck that is not valid.  The message names what was wrong."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One playing card.  ``rank`` is 2..14 (ace = 14); ordering is (rank, suit)."""

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        if type(self.rank) is not int or not 2 <= self.rank <= 14:
            raise CardError(f"bad card rank {self.rank!r}: a rank is an int from 2 to 14 (ace = 14)")
        if type(self.suit) is not Suit:
            try:
                object.__setattr__(self, "suit", Suit(self.suit))
            except ValueError:
                raise CardError(
                    f"bad card suit {self.suit!r}: a suit is a Suit or an int from 0 (clubs) to 3 (spades)"
                ) from None

    @classmethod
    def parse(cls, code: str) -> Card:
        """Parse a two-character code such as ``"As"``; raise :class:`CardError` naming a bad code."""
        try:
            return _BY_CODE[code]
        except (KeyError, TypeError):
            raise CardError(f"bad card code {code!r}: {_VALID_HINT}") from None

    @property
    def code(self) -> str:
        """The two-character code, e.g. ``"As"``."""
        return RANKS[self.rank - 2] + SUITS[self.suit]

    @property
    def index(self) -> int:
        """Position in :data:`FULL_DECK`: ``(rank - 2) * 4 + suit``, 0..51."""
        return (self.rank - 2) * 4 + self.suit

    @classmethod
    def from_index(cls, i: int) -> Card:
        """The card with :attr:`index` ``i`` (0..51)."""
        if type(i) is not int or not 0 <= i < 52:
            raise CardError(f"bad card index {i!r}: a card index is an int from 0 to 51")
        return FULL_DECK[i]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


FULL_DECK: tuple[Card, ...] = tuple(Card(r, Suit(s)) for r in range(2, 15) for s in range(4))
"""All 52 cards in index order (2c, 2d, 2h, 2s, 3c, ... As)."""

_BY_CODE: dict[str, Card] = {c.code: c for c in FULL_DECK}


def parse_cards(codes: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse ``"AsKd7c"`` (spaces and commas allowed) or an iterable of codes such as ``["As", "Kd"]``."""
    if isinstance(codes, str):
        text = codes.replace(",", " ").split()
        joined = "".join(text)
        if len(joined) % 2:
            raise CardError(f"bad card list {codes!r}: odd number of characters; {_VALID_HINT}")
        items: Iterable[str] = [joined[i : i + 2] for i in range(0, len(joined), 2)]
    else:
        items = codes
    return tuple(Card.parse(code) for code in items)


def deck_problems(codes: Iterable[str | Card]) -> list[str]:
    """Every problem with a would-be 52-card deck: unknown codes, duplicates, wrong count.

    An empty list means the deck is one complete standard deck.
    """
    problems: list[str] = []
    cards: list[Card] = []
    n = 0
    for item in codes:
        n += 1
        if isinstance(item, Card):
            cards.append(item)
        elif isinstance(item, str) and item in _BY_CODE:
            cards.append(_BY_CODE[item])
        else:
            problems.append(f"unknown card {item!r} at position {n}")
    for card, count in sorted(Counter(cards).items()):
        if count > 1:
            problems.append(f"duplicate card {card.code} ({count} times)")
    missing = sorted(set(FULL_DECK) - set(cards))
    if missing:
        problems.append("missing cards " + " ".join(c.code for c in missing))
    if n != 52:
        problems.append(f"wrong card count {n} (a deck has 52 cards)")
    return problems


@dataclass(frozen=True)
class Deck:
    """One physical deck: its ``identity`` (e.g. the back colour, ``"red"`` or ``"blue"``; two decks
    with different backs may alternate) and its cards in order, top card first."""

    identity: str
    cards: tuple[Card, ...]

    @classmethod
    def standard(cls, identity: str) -> Deck:
        """A new-deck-order deck (:data:`FULL_DECK` order)."""
        return cls(identity, FULL_DECK)

    @classmethod
    def shuffled(cls, identity: str, seed: int | str | bytes) -> Deck:
        """A deck shuffled by ``random.Random(seed)`` (reproducible; not for live play)."""
        cards = list(FULL_DECK)
        random.Random(seed).shuffle(cards)
        return cls(identity, tuple(cards))

    @classmethod
    def from_codes(cls, identity: str, codes: str | Iterable[str]) -> Deck:
        """A deck from card codes; raises :class:`CardError` naming every problem (bad codes,
        duplicates, count other than 52)."""
        items = _split_codes(codes)
        problems = deck_problems(items)
        if problems:
            raise CardError(f"deck {identity!r} is not valid: " + "; ".join(problems))
        return cls(identity, tuple(_BY_CODE[c] for c in items))

    def validate(self) -> list[str]:
        """Every problem with this deck (duplicates, unknown cards, count != 52); empty when valid."""
        return deck_problems(self.cards)

    def validate_strict(self) -> None:
        """Raise :class:`CardError` naming each problem found by :meth:`validate`."""
        problems = self.validate()
        if problems:
            raise CardError(f"deck {self.identity!r} is not valid: " + "; ".join(problems))

    @property
    def codes(self) -> tuple[str, ...]:
        """The card codes in order."""
        return tuple(c.code for c in self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)


def _split_codes(codes: str | Iterable[str]) -> list[str]:
    """Split a code string or iterable into code strings without validating them."""
    if isinstance(codes, str):
        joined = "".join(codes.replace(",", " ").split())
        return [joined[i : i + 2] for i in range(0, len(joined), 2)]
    return [str(c) for c in codes]
