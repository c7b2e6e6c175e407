"""What every journal payload type shares (pure): the base struct, card codes, rules records.

:mod:`shoe.service.journal.payloads` and :mod:`shoe.service.deck.payloads` build on it (``entries`` reads both).
Every field declares its visibility rule (:mod:`shoe.service.journal.show`); ``by``'s is declared here, once.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import msgspec

from shoe.service.journal.show import ALWAYS

__all__ = ["Actor", "CardCode", "Payload", "Record"]

CardCode = Annotated[str, msgspec.Meta(pattern=r"^[2-9TJQKA][cdhs]$")]
Record = dict[str, Any]  # a rules record as shoe.service.journal.codec writes it; its type is checked by RECORDS


class Actor(msgspec.Struct, forbid_unknown_fields=True):
    """The employee who caused an entry (docs/people.md): their id and name, never a credential."""

    id: str
    name: str


class Payload(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    RECORDS: ClassVar[frozenset[str]] = frozenset()
    """The record tags this payload's ``record`` / ``records`` may hold."""
    by: Annotated[Actor | None, ALWAYS] = None
    """Who did it: every entry an action of a signed-in employee (or an employee's token) causes names them;
    absent for configuration-file tokens, an open loopback API and what the shoe or the service does alone."""
