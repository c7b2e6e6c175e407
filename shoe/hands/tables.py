"""Lookup tables for the fast integer evaluator (:mod:`shoe.hands.fast`), built lazily.

Hand rank numbers
    Every five-card hand falls in one of 7,462 tie classes.  Class ``r`` (1..7462) is the r-th
    weakest: 1 is 7-5-4-3-2 off-suit, 7462 a royal flush.  **Higher is better**; equal numbers are
    exact ties.  The order is NY 9 NYCRR 5324.38(b) (58 Pa. Code 655a.6): categories in the order of
    (b)(2), ace high, the ace low only in A-2-3-4-5 ((b)(1)), no wrap-around, no suit tie-breaks.

Card keys
    Card ``i`` (index ``(rank - 2) * 4 + suit``) has the key
    ``RANK_KEY[rank - 2] << 9 | SUIT_KEY[suit]``.  With the rank keys (0, 1, 5, 22, ... 1479181: the
    "SKPokerEval" keys of K. Shackleton) any two multisets of n ranks (n = 5, 6 or 7, no rank more
    than four times) have different sums, and with the suit keys (0, 1, 8, 57) the suit sum of n
    cards (< 512, so it never carries into the rank part) tells whether five or more of them share a
    suit, and which.  So one addition per card gives the key; ``key & 511`` finds the flush suit and
    ``key >> 9`` indexes the no-flush table.  :func:`build` checks both properties as it fills the
    tables and raises if either fails.

Everything here is a plain list or dict filled in place by :func:`build` on first use (~0.4 s).
"""

from __future__ import annotations

import threading
from itertools import combinations, combinations_with_replacement

__all__ = [
    "CARD_KEY",
    "CLASSES",
    "CLASS_NUMBER",
    "FLUSH",
    "FLUSH_SUIT",
    "NO_FLUSH",
    "RANK_BIT",
    "SUIT_BITS",
    "build",
    "is_built",
]

RANK_KEY = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
SUIT_KEY = (0, 1, 8, 57)
SUIT_SHIFT = 9
SUIT_MASK = (1 << SUIT_SHIFT) - 1

CARD_KEY: list[int] = [(RANK_KEY[i >> 2] << SUIT_SHIFT) | SUIT_KEY[i & 3] for i in range(52)]
"""Key of card index 0..51; add the keys of a hand's cards."""

RANK_BIT: list[int] = [1 << (i >> 2) for i in range(52)]
"""Rank bit of card index i (bit 0 = deuce .. bit 12 = ace)."""

SUIT_BITS: list[list[int]] = [[1 << (i >> 2) if i & 3 == s else 0 for i in range(52)] for s in range(4)]
"""``SUIT_BITS[s][i]``: the rank bit of card i if it is of suit s, else 0."""

# Filled in by build():
CLASSES: list[tuple[int, tuple[int, ...]]] = []
"""``CLASSES[r]`` is ``(category strength, tiebreak)`` of rank number r; ``CLASSES[0]`` is unused."""
CLASS_NUMBER: dict[tuple[int, tuple[int, ...]], int] = {}
"""Inverse of :data:`CLASSES`: ``(strength, tiebreak)`` to rank number."""
FLUSH: list[int] = []
"""``FLUSH[mask]``: rank number of the best flush or straight flush within a 13-bit rank mask of
five or more bits (0 for fewer bits)."""
FLUSH_SUIT: dict[int, list[int]] = {5: [], 6: [], 7: []}
"""``FLUSH_SUIT[n][suit_sum]``: the suit (0..3) held five or more times among n cards, else -1."""
NO_FLUSH: dict[int, dict[int, int]] = {5: {}, 6: {}, 7: {}}
"""``NO_FLUSH[n][rank_sum]``: rank number of the best non-flush five of n (5..7) cards."""

_RANKS_DESC = tuple(range(14, 1, -1))
# NY 5324.38(b)(1), (b)(2)(vi): straights by high card; A-2-3-4-5 (the wheel) is five-high, lowest.
_STRAIGHTS = (
    *((h, frozenset(range(h - 4, h + 1))) for h in range(14, 5, -1)),
    (5, frozenset((14, 2, 3, 4, 5))),
)


def is_built() -> bool:
    """Whether :func:`build` has run."""
    return bool(CLASSES)


def _all_classes() -> list[tuple[int, tuple[int, ...]]]:
    """All 7,462 (strength, tiebreak) classes, weakest first (NY 5324.38(b)(2) order)."""
    out: list[tuple[int, tuple[int, ...]]] = []
    straight_highs = {h for h, _ in _STRAIGHTS}
    for five in combinations(_RANKS_DESC, 5):
        if _straight_high(set(five)) == 0:
            out += [(0, five), (5, five)]  # high card, flush (b)(2)(v)
    for h in straight_highs:
        out += [(4, (h,)), (8, (h,))] if h != 14 else [(4, (14,)), (9, (14,))]
    for a in _RANKS_DESC:
        others = [r for r in _RANKS_DESC if r != a]
        out += [(1, (a, *ks)) for ks in combinations(others, 3)]  # pair (b)(2)(ix)
        out += [(3, (a, *ks)) for ks in combinations(others, 2)]  # three of a kind (b)(2)(vii)
        out += [(6, (a, b)) for b in others]  # full house (b)(2)(iv)
        out += [(7, (a, b)) for b in others]  # four of a kind (b)(2)(iii)
        for b in others:
            if b < a:  # two pair (b)(2)(viii): high pair, low pair, kicker
                out += [(2, (a, b, k)) for k in others if k != b]
    out.sort()
    return out


def _straight_high(present: set[int] | frozenset[int]) -> int:
    """High card of the best straight among the ranks present, 0 if none (5 for the wheel)."""
    for high, run in _STRAIGHTS:
        if run <= present:
            return high
    return 0


def best_no_flush(counts: dict[int, int]) -> tuple[int, tuple[int, ...]]:
    """(strength, tiebreak) of the best five-card hand, ignoring flushes, from rank counts of 5..7
    cards (NY 5324.38(b)(2)(iii)-(ix) and (b)(1)): four of a kind > full house > straight > three of
    a kind > two pair > pair > high card."""
    present = sorted(counts, reverse=True)
    quads = [r for r in present if counts[r] >= 4]
    trips = [r for r in present if counts[r] >= 3]
    pairs = [r for r in present if counts[r] >= 2]
    if quads:
        q = quads[0]
        return 7, (q, next(r for r in present if r != q))
    if trips and len(pairs) >= 2:
        t = trips[0]
        return 6, (t, next(r for r in pairs if r != t))
    high = _straight_high(set(present))
    if high:
        return 4, (high,)
    if trips:
        t = trips[0]
        return 3, (t, *[r for r in present if r != t][:2])
    if len(pairs) >= 2:
        hp, lp = pairs[0], pairs[1]
        return 2, (hp, lp, next(r for r in present if r not in (hp, lp)))
    if pairs:
        p = pairs[0]
        return 1, (p, *[r for r in present if r != p][:3])
    return 0, tuple(present[:5])


def _flush_class(mask: int) -> tuple[int, tuple[int, ...]]:
    """(strength, tiebreak) of the best hand within one suit's rank mask (5+ bits)."""
    present = {r for r in range(2, 15) if mask >> (r - 2) & 1}
    high = _straight_high(present)
    if high:
        return (9, (14,)) if high == 14 else (8, (high,))  # NY 5324.38(b)(2)(i)-(ii)
    return 5, tuple(sorted(present, reverse=True)[:5])  # (b)(2)(v)


def _no_flush_tables(number: dict[tuple[int, tuple[int, ...]], int]) -> dict[int, dict[int, int]]:
    """``NO_FLUSH``: five cards by :func:`best_no_flush`; six and seven from the table below them.

    Every multiset of n ranks with no rank more than four times, as a sorted tuple of rank indexes
    (``combinations_with_replacement`` yields them in C, one at a time; a rank five times is skipped).
    The best five of n cards (n = 6, 7) is the best five of one of the n-1-card multisets left after
    taking one card away (one not among the best five), and a higher rank number is a better hand: so
    ``NO_FLUSH[n][key]`` is the largest ``NO_FLUSH[n - 1][key - RANK_KEY[r]]`` over the ranks r held. A
    few lookups a multiset instead of classifying it: the build took 0.8 s, most of it here, at
    start. tests/rules/test_hands_tables.py holds the result to :func:`best_no_flush` on every multiset.
    """
    out: dict[int, dict[int, int]] = {}
    key_of = RANK_KEY.__getitem__
    for n in (5, 6, 7):
        table: dict[int, int] = {}
        below = out.get(n - 1)
        for held in combinations_with_replacement(range(13), n):
            if any(held[i] == held[i + 4] for i in range(n - 4)):
                continue  # a rank five times or more: no such hand
            key = sum(map(key_of, held))
            if key in table:  # pragma: no cover - the rank keys are checked here
                raise AssertionError(f"rank key collision for ranks {held}")
            if below is None:
                counts: dict[int, int] = {}
                for r in held:
                    counts[r + 2] = counts.get(r + 2, 0) + 1
                table[key] = number[best_no_flush(counts)]
            else:
                table[key] = max([below[key - key_of(r)] for r in held])
        out[n] = table
    return out


_LOCK = threading.Lock()


def build() -> None:
    """Fill every table (idempotent, thread-safe)."""
    with _LOCK:
        if not CLASSES:
            _build()


def _build() -> None:
    classes = _all_classes()
    number = {c: i + 1 for i, c in enumerate(classes)}
    if len(number) != 7462:  # pragma: no cover - guards the enumeration above
        raise AssertionError(f"expected 7462 hand classes, got {len(number)}")
    flush = [0] * 8192
    for mask in range(8192):
        if mask.bit_count() >= 5:
            flush[mask] = number[_flush_class(mask)]
    no_flush = _no_flush_tables(number)
    flush_suit: dict[int, list[int]] = {}
    for n in (5, 6, 7):
        suits = [-2] * (SUIT_MASK + 1)
        for a in range(n + 1):
            for b in range(n + 1 - a):
                for c in range(n + 1 - a - b):
                    per_suit = (a, b, c, n - a - b - c)
                    total = sum(k * x for k, x in zip(SUIT_KEY, per_suit, strict=True))
                    suit = next((s for s in range(4) if per_suit[s] >= 5), -1)
                    if suits[total] not in (-2, suit):  # pragma: no cover - the suit keys are checked here
                        raise AssertionError(f"suit key collision for {per_suit}")
                    suits[total] = suit
        flush_suit[n] = [-1 if s == -2 else s for s in suits]
    FLUSH[:] = flush
    for n in (5, 6, 7):  # fill in place: the evaluators hold these very objects
        NO_FLUSH[n].update(no_flush[n])
        FLUSH_SUIT[n][:] = flush_suit[n]
    CLASS_NUMBER.update(number)
    CLASSES[:] = [(0, ()), *classes]  # set last: is_built() reads it
