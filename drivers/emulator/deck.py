"""What the dealer loads into an emulated shoe: ``DeckLoad``, a shuffled deck, its back, its faults.

One spec for every access path (SPEC §11): in process ``EmulatedShoe.load_deck(DeckLoad(...))``; on a
pty or TCP emulator the control socket of ``shoectl emulate`` (``drivers/emulator/control.py``),
whose line is the query form below; behind the fake pyusb backend the same ``EmulatedShoe``.

Query form (``DeckLoad.from_query``): ``seed=7&back=blue&short=1&extra=0&duplicate=0&foreign=0``,
or ``order=AsKd...`` for an explicit order, and ``mid_round=1`` to load on top of cards still in the
shoe. The faults, applied to the shuffled 52 in this order:

- ``short=n``: the bottom n cards are left out (a short deck: n missing).
- ``duplicate=n``: the bottom n cards are replaced by copies of the top n (n duplicates, n missing).
- ``foreign=n``: the n cards above the bottom are cards of another back (``foreign_back``).
- ``extra=n``: n more cards of the same back, copies of cards from the top, at the bottom (n extra).
- ``mid_round``: the load goes on top of the cards the shoe still holds instead of being refused.

A deck's order is secret (SPEC §9): nothing here logs it.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl

from drivers.emulator.config import check_deck, parse_deck
from protocols.cards import ALL_CODES

DEFAULT_BACK = "red"


@dataclass(frozen=True, slots=True)
class LoadedCard:
    """One physical card as loaded: its face and whether its back differs from the deck's."""

    code: str
    foreign: bool = False


@dataclass(frozen=True)
class DeckLoad:
    """A deck the dealer loads. ``seed`` None shuffles from the OS; ``order`` overrides the shuffle."""

    seed: int | None = None
    order: tuple[str, ...] | None = None
    back: str = DEFAULT_BACK
    short: int = 0
    extra: int = 0
    duplicate: int = 0
    foreign: int = 0
    foreign_back: str = "foreign"
    mid_round: bool = False

    def __post_init__(self) -> None:
        if self.order is not None:
            object.__setattr__(self, "order", tuple(self.order))
            check_deck(self.order, "order")
        for name in ("short", "extra", "duplicate", "foreign"):
            value = getattr(self, name)
            if not 0 <= value <= 52:
                raise ValueError(f"deck option {name!r}: {value!r} is outside 0..52")
        if self.short + self.duplicate + self.foreign > 52:
            raise ValueError("deck options short + duplicate + foreign exceed the 52 cards of a deck")
        for name in ("back", "foreign_back"):
            if not getattr(self, name) or len(getattr(self, name).encode()) > 255:
                raise ValueError(f"deck option {name!r} must be 1..255 bytes")
        if self.foreign and self.foreign_back == self.back:
            raise ValueError("deck option 'foreign_back' must differ from 'back'")

    def cards(self) -> list[LoadedCard]:
        """The cards in load order, top first, faults applied."""
        if self.order is not None:
            codes = list(self.order)
        else:
            codes = list(ALL_CODES)
            random.Random(self.seed).shuffle(codes)
        cards = [LoadedCard(code) for code in codes]
        if self.short:
            cards = cards[: len(cards) - self.short]
        for i in range(self.duplicate):
            cards[len(cards) - 1 - i] = LoadedCard(cards[i].code)
        end = len(cards) - self.duplicate
        for i in range(self.foreign):
            position = end - 1 - i
            cards[position] = LoadedCard(cards[position].code, foreign=True)
        cards.extend(LoadedCard(cards[i % len(cards)].code) for i in range(self.extra) if cards)
        return cards

    @classmethod
    def from_query(cls, query: str) -> DeckLoad:
        """Parse ``"seed=7&back=blue&short=1"``; ValueError names the key and the valid keys."""
        valid = ", ".join(f.name for f in dataclasses.fields(cls))
        kwargs: dict[str, object] = {}
        for key, raw in parse_qsl(query.strip().lstrip("?"), keep_blank_values=True):
            if key not in _KINDS:
                raise ValueError(f"unknown deck option {key!r}; valid keys: {valid}")
            if key in kwargs:
                raise ValueError(f"deck option {key!r} given twice")
            try:
                kwargs[key] = _KINDS[key](raw)
            except ValueError as exc:
                raise ValueError(f"deck option {key!r}: {exc}") from None
        return cls(**kwargs)  # type: ignore[arg-type]


def _int(raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{raw!r} is not an integer") from None


def _bool(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{raw!r} is not a boolean (1/0)")


def _seed(raw: str) -> int | None:
    return None if raw.lower() in ("", "none") else _int(raw)


_KINDS: dict[str, Callable[[str], object]] = {
    "seed": _seed,
    "order": parse_deck,
    "back": str,
    "short": _int,
    "extra": _int,
    "duplicate": _int,
    "foreign": _int,
    "foreign_back": str,
    "mid_round": _bool,
}
