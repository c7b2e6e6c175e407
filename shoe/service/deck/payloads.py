"""The typed payloads of the ``deck`` journal entry kind (pure): a deck loaded, checked, released.

The deck cycle (docs/service.md, "The deck cycle") journals every load and check before the
service's deck state changes (docs/journal.md, "Journal before state"). ``event`` is the tag field.
Card faces here are those of a deck check (missing, duplicate, foreign cards, in card order, never the
load order: SPEC §9, §11); ``who`` says where the fact came from: ``shoe`` (its DECK_LOADED event),
``status`` (STATUS polled: an older shoe, or the shoe's cards found at a connect), ``shoed`` (the
automatic check on load) or the role that asked (``dealer``).
Each field declares who may see it, on itself (``Annotated[T, <rule>]``, :mod:`shoe.service.journal.show`):
all of a deck's facts show to every role.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

import msgspec

from shoe.service.journal.payload_base import CardCode, Payload
from shoe.service.journal.show import ALWAYS

__all__ = ["DeckChecked", "DeckEvent", "DeckLoadedEntry", "DeckRef", "DeckReleased", "DeckUnchecked"]

Count = Annotated[int, msgspec.Meta(ge=0, le=0xFFFF)]


class DeckEvent(StrEnum):
    LOADED = "loaded"
    CHECKED = "checked"
    RELEASED = "released"
    UNCHECKED = "unchecked"


class DeckRef(Payload):
    """The deck a round is dealt from, in its ``round-opened`` entry."""

    deck_no: int  # its ``loaded`` entry's number
    back: str


class DeckLoadedEntry(Payload, tag_field="event", tag=DeckEvent.LOADED.value):
    deck_no: Annotated[int, msgspec.Meta(ge=1), ALWAYS]  # decks journaled so far, this one included
    count: Annotated[Count | None, ALWAYS]  # the cards the shoe senses (None: it cannot count)
    back: Annotated[str, ALWAYS]  # the back design the shoe read ("" when it cannot read backs)
    who: Annotated[str, ALWAYS]


class DeckChecked(Payload, tag_field="event", tag=DeckEvent.CHECKED.value):
    deck_no: Annotated[int, msgspec.Meta(ge=1), ALWAYS]
    ok: Annotated[bool, ALWAYS]
    count: Annotated[Count | None, ALWAYS]
    back: Annotated[str, ALWAYS]
    expected_back: Annotated[str | None, ALWAYS]  # None: any back (no alternation configured, or the first deck)
    # The faces a check names are of a deck that failed and is never dealt from (an accepted deck has none to
    # name), in card order: never the load order (SPEC §9, §11). Shown to every role.
    missing: Annotated[list[CardCode], ALWAYS]
    extra: Annotated[Count, ALWAYS]
    duplicates: Annotated[list[CardCode], ALWAYS]
    foreign: Annotated[list[CardCode], ALWAYS]
    unreadable: Annotated[Count, ALWAYS]
    checked_faces: Annotated[bool, ALWAYS]  # False: an older shoe without DECK_CHECK, only the count was compared
    problems: Annotated[list[str], ALWAYS]
    who: Annotated[str, ALWAYS]


class DeckReleased(Payload, tag_field="event", tag=DeckEvent.RELEASED.value):
    count: Annotated[Count, ALWAYS]  # the cards the shoe presented (a stub, or a refused deck)
    who: Annotated[str, ALWAYS]


class DeckUnchecked(Payload, tag_field="event", tag=DeckEvent.UNCHECKED.value):
    """A checked deck loses cards outside a round: it is no longer the deck its check found, and no round
    is dealt from it until it is checked again (or replaced). Journaled before the shoe moves."""

    deck_no: Annotated[int, msgspec.Meta(ge=1), ALWAYS]
    # a technician's dispense; STATUS counted otherwise
    cause: Annotated[Literal["maintenance-dispense", "count-differs"], ALWAYS]
    # the cards the shoe held when the deck was unchecked (None: it cannot count)
    count: Annotated[Count | None, ALWAYS]
    who: Annotated[str, ALWAYS]
