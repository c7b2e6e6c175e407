"""The optimal strategy as tables a person can read, and as a decision for given cards (pure).

A street's best action depends only on the set of cards seen and the total already wagered, and
never on which suits they are: the tables list one row per class of card sets under a renaming of
suits, written with a representative (``AsKs7h``: any ace and king of one suit with a seven of
another).  Folds and bets are the codes of :data:`shoe.math.induction.ACTIONS`; a ``.`` marks a
wager-so-far that optimal play never reaches with those cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from math import comb

import numpy as np

from shoe.cards import RANKS, Card
from shoe.math.combos import IntArray
from shoe.math.induction import ACTIONS
from shoe.math.par import Par

__all__ = ["StreetTable", "decision", "grid_3rd", "street_tables"]

_SUIT_LETTERS = "chds"  # canonical suit 3 is written s, then d, h, c (suits stand for a pattern)


def _colex(positions: Sequence[int]) -> int:
    return sum(comb(p, i + 1) for i, p in enumerate(sorted(positions)))


def decision(par: Par, seen: Sequence[Card], wagered: int) -> int:
    """The optimal action code (0 fold, else the multiple of the ante) with the cards ``seen`` (two
    hole cards, then the community cards turned so far) and ``wagered`` antes already on the layout."""
    deck = par.solution.deck
    where = {c: i for i, c in enumerate(deck.cards)}
    try:
        positions = [where[c.index] for c in seen]
    except KeyError as exc:
        raise ValueError(f"card {exc} is not in the analysed deck") from None
    if len(set(positions)) != len(positions):
        raise ValueError("a card is seen twice")
    index = _colex(positions)
    sol = par.solution
    if len(seen) == 2 and wagered == 1:
        return int(sol.act3[index])
    if len(seen) == 3 and 2 <= wagered <= 4:
        return int(sol.act4[index, wagered - 2])
    if len(seen) == 4 and 3 <= wagered <= 7:
        return int(sol.act5[index, wagered - 3])
    raise ValueError(f"no decision with {len(seen)} cards seen and {wagered} antes wagered")


@dataclass(frozen=True)
class StreetTable:
    """One street: the wagers so far (columns) and, per suit class, its cards and actions."""

    street: str
    wagered: tuple[int, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]


def _classes(deck: tuple[int, ...], sets: IntArray) -> tuple[IntArray, list[str]]:
    """Representative set index and label of each suit class of ``sets`` (rows of deck positions)."""
    cards = np.asarray(deck, dtype=np.int64)[sets]
    rank, suit = cards >> 2, cards & 3
    k = sets.shape[1]
    best = np.full(len(sets), -1, dtype=np.int64)
    for perm in permutations(range(4)):
        ids = -np.sort(-(rank * 4 + np.asarray(perm, dtype=np.int64)[suit]), axis=1)
        code = np.zeros(len(sets), dtype=np.int64)
        for j in range(k):
            code = code * 52 + ids[:, j]
        best = np.maximum(best, code)
    codes, first = np.unique(best, return_index=True)
    labels = []
    for packed in codes.tolist():
        cards_of: list[int] = []
        rest = packed
        for _ in range(k):
            rest, card = divmod(rest, 52)
            cards_of.append(card)
        labels.append("".join(RANKS[c >> 2] + _SUIT_LETTERS[c & 3] for c in reversed(cards_of)))
    order = np.argsort(-codes)  # strongest-looking first: by highest card, then the next
    return first[order], [labels[i] for i in order.tolist()]


def street_tables(par: Par) -> tuple[StreetTable, StreetTable, StreetTable]:
    """3rd, 4th and 5th street, one row per suit class (169, then up to 1,755 and 16,432 rows)."""
    sol, deck = par.solution, par.solution.deck
    out = []
    specs = (
        ("3rd", deck.sets2, sol.act3[:, None], np.ones((len(deck.sets2), 1), dtype=np.int64), (1,)),
        ("4th", deck.sets3, sol.act4, par.reach4, (2, 3, 4)),
        ("5th", deck.sets4, sol.act5, par.reach5, (3, 4, 5, 6, 7)),
    )
    for street, sets, act, reach, wagered in specs:
        reps, labels = _classes(deck.cards, sets)
        rows = tuple(
            (label, tuple(ACTIONS[int(a)] if r else "." for a, r in zip(act[rep], reach[rep], strict=True)))
            for rep, label in zip(reps.tolist(), labels, strict=True)
        )
        out.append(StreetTable(street, wagered, rows))
    return out[0], out[1], out[2]


def grid_3rd(par: Par) -> list[list[str]]:
    """3rd street as the usual 13 x 13 grid, ace first: a pair on the diagonal, suited above it
    (row = higher card), off-suit below it (column = higher card)."""
    deck = par.solution.deck
    if deck.cards != tuple(range(52)):
        raise ValueError("the grid needs the full 52-card deck")
    grid = [[""] * 13 for _ in range(13)]
    for i, hi in enumerate(range(14, 1, -1)):
        for j, lo in enumerate(range(14, 1, -1)):
            a, b = (hi, lo) if i <= j else (lo, hi)
            suited = i < j
            first = Card.parse(RANKS[a - 2] + "s")
            second = Card.parse(RANKS[b - 2] + ("s" if suited else "h"))
            grid[i][j] = ACTIONS[decision(par, (first, second), 1)]
    return grid
