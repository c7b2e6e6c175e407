"""What every journal payload type shares (pure): the base struct, card codes, rules records.

:mod:`shoe.service.payloads` and :mod:`shoe.service.deck_payloads` build on it (``entries`` reads both).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import msgspec

__all__ = ["CardCode", "Payload", "Record"]

CardCode = Annotated[str, msgspec.Meta(pattern=r"^[2-9TJQKA][cdhs]$")]
Record = dict[str, Any]  # a rules record as shoe.service.codec writes it; its type is checked by RECORDS


class Payload(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    RECORDS: ClassVar[frozenset[str]] = frozenset()
    """The record tags this payload's ``record`` / ``records`` may hold."""
