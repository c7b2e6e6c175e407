"""Fast integer hand evaluation on card indices (NY 9 NYCRR 5324.38(b); 58 Pa. Code 655a.6).

Arguments are card indices 0..51 (:attr:`shoe.cards.Card.index`, ``(rank - 2) * 4 + suit``).
Results are hand rank numbers 1..7462: **higher is better**, equal numbers tie exactly (suits never
break ties), 1 is 7-5-4-3-2 off-suit and 7462 a royal flush.  See :mod:`shoe.hands.tables`.

These functions do not validate their input (that is the object API's job, :func:`evaluate5` and
:func:`best_hand`): indices must be distinct ints 0..51.  An index of 52 or more raises
``IndexError``, a negative one silently names another card, and duplicated cards give a
meaningless number or ``KeyError``.  Tables are built on the first call (well under a second).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from shoe.hands import tables as _t
from shoe.hands.categories import BY_STRENGTH, Category

__all__ = [
    "RANK_COUNT",
    "category_of_rank",
    "rank5",
    "rank6",
    "rank7",
    "rank_cards",
    "rank_class",
]

RANK_COUNT = 7462
"""Number of distinct five-card hand values (tie classes)."""

_SHIFT = _t.SUIT_SHIFT
_MASK = _t.SUIT_MASK


# Module globals (3.11 caches global lookups); the tables are filled in place on first use.
_K = _t.CARD_KEY
_FS5 = _t.FLUSH_SUIT[5]
_FS6 = _t.FLUSH_SUIT[6]
_FS7 = _t.FLUSH_SUIT[7]
_NF5 = _t.NO_FLUSH[5]
_NF6 = _t.NO_FLUSH[6]
_NF7 = _t.NO_FLUSH[7]
_FL = _t.FLUSH
_RB = _t.RANK_BIT
_SB = _t.SUIT_BITS


def rank5(a: int, b: int, c: int, d: int, e: int, /) -> int:
    """Rank number (higher is better) of the five cards with indices a..e."""
    try:
        k = _K[a] + _K[b] + _K[c] + _K[d] + _K[e]
        if _FS5[k & _MASK] < 0:
            return _NF5[k >> _SHIFT]
        return _FL[_RB[a] | _RB[b] | _RB[c] | _RB[d] | _RB[e]]
    except (IndexError, KeyError):
        if _t.is_built():
            raise  # a bad argument, not a missing table
        _t.build()
        return rank5(a, b, c, d, e)


def rank6(a: int, b: int, c: int, d: int, e: int, f: int, /) -> int:  # noqa: PLR0917
    """Rank number (higher is better) of the best five of the six cards with indices a..f."""
    try:
        k = _K[a] + _K[b] + _K[c] + _K[d] + _K[e] + _K[f]
        s = _FS6[k & _MASK]
        if s < 0:
            return _NF6[k >> _SHIFT]
        m = _SB[s]
        return _FL[m[a] | m[b] | m[c] | m[d] | m[e] | m[f]]
    except (IndexError, KeyError):
        if _t.is_built():
            raise
        _t.build()
        return rank6(a, b, c, d, e, f)


def rank7(a: int, b: int, c: int, d: int, e: int, f: int, g: int, /) -> int:  # noqa: PLR0917
    """Rank number (higher is better) of the best five of the seven cards with indices a..g.

    With five or more cards of one suit no full house or four of a kind is possible, so the best
    hand is then the best flush or straight flush of that suit.
    """
    try:
        k = _K[a] + _K[b] + _K[c] + _K[d] + _K[e] + _K[f] + _K[g]
        s = _FS7[k & _MASK]
        if s < 0:
            return _NF7[k >> _SHIFT]
        m = _SB[s]
        return _FL[m[a] | m[b] | m[c] | m[d] | m[e] | m[f] | m[g]]
    except (IndexError, KeyError):
        if _t.is_built():
            raise
        _t.build()
        return rank7(a, b, c, d, e, f, g)


_BY_COUNT: dict[int, Callable[..., int]] = {5: rank5, 6: rank6, 7: rank7}


def rank_cards(indices: Sequence[int]) -> int:
    """Rank number of the best five of 5, 6 or 7 card indices."""
    try:
        fn = _BY_COUNT[len(indices)]
    except KeyError:
        raise ValueError(f"expected 5, 6 or 7 card indices, got {len(indices)}") from None
    return fn(*indices)


def rank_class(rank: int) -> tuple[Category, tuple[int, ...]]:
    """The (category, tiebreak) of a rank number 1..7462 (see :class:`shoe.hands.HandValue`)."""
    if type(rank) is not int or not 1 <= rank <= RANK_COUNT:
        raise ValueError(f"bad hand rank number {rank!r}: expected an int from 1 to {RANK_COUNT}")
    _t.build()
    strength, tiebreak = _t.CLASSES[rank]
    return BY_STRENGTH[strength], tiebreak


def category_of_rank(rank: int) -> Category:
    """The category of a rank number 1..7462."""
    return rank_class(rank)[0]
