"""Card identities on the wire: one byte per card.

``index = rank_index * 4 + suit_index`` with ranks ``23456789TJQKA`` (0..12) and suits ``cdhs``
(0..3), so ``2c`` is 0 and ``As`` is 51. ``0xFF`` means "no card identity" (unreadable); the
accompanying reason byte says why. The text form used above the protocol is the two-character code
(``As``, ``Td``).
"""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NO_CARD = 0xFF
DECK_SIZE = 52

ALL_CODES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_INDEX_OF: dict[str, int] = {code: i for i, code in enumerate(ALL_CODES)}


class CardCodeError(ValueError):
    """A card code or card byte that names no card."""


def card_to_byte(code: str) -> int:
    """Return the wire byte for a card code such as ``"As"``."""
    try:
        return _INDEX_OF[code]
    except KeyError:
        raise CardCodeError(
            f"{code!r} is not a card code: use rank {RANKS} then suit {SUITS}, e.g. 'As' or 'Td'"
        ) from None


def byte_to_card(value: int) -> str:
    """Return the card code for a wire byte in 0..51."""
    if 0 <= value < DECK_SIZE:
        return ALL_CODES[value]
    raise CardCodeError(f"card byte 0x{value:02X} names no card (valid: 0x00..0x33, 0xFF = unreadable)")
