"""The game tree by suit classes: card sets that a renaming of suits maps onto each other are one node.

The paytable never looks at which suit is which (NY 5324.38(b): suits never rank), so two sets of
seen cards that differ only by a renaming of suits have the same values and best actions.  On a full
deck that leaves 169 / 1,755 / 16,432 nodes on 3rd / 4th / 5th street instead of 1,326 / 22,100 /
270,725, and 788,736 final hands to rank instead of 2,598,960.  A renaming is used only when it maps
the deck onto itself, so a reduced deck keeps just the symmetry it really has.

Each level is built from the representatives of the one before: a representative plus each unseen
card, named by its class (:func:`shoe.math.tree.canonical`), counted per (parent, child) pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

import numpy as np

from shoe.math.combos import IntArray, subsets
from shoe.math.hands import LINES, line_of_hands
from shoe.math.tree import Edges, Tree, canonical, check_deck

__all__ = ["by_classes", "decode", "suit_group"]

FINAL_BLOCK = 2048
"""Fourth-street representatives whose completions are ranked together (a full deck has 16,432 of them)."""


def suit_group(deck: tuple[int, ...]) -> IntArray:
    """The suit renamings that map ``deck`` onto itself, as position maps (one row each)."""
    where = {c: i for i, c in enumerate(deck)}
    rows = []
    for perm in permutations(range(4)):
        moved = [where.get((c >> 2) * 4 + perm[c & 3]) for c in deck]
        if all(m is not None for m in moved):
            rows.append([m for m in moved if m is not None])
    return np.unique(np.asarray(rows, dtype=np.int32), axis=0)  # suits absent from the deck: one map


def decode(codes: IntArray, k: int, n: int) -> IntArray:
    """Representatives (rows of k positions, high to low) of class codes."""
    out = np.empty((len(codes), k), dtype=np.int32)
    rest = codes.astype(np.int64)
    for j in range(k - 1, -1, -1):
        out[:, j] = rest % n
        rest = rest // n
    return out


def _grow(reps: IntArray, group: IntArray, n: int) -> tuple[IntArray, Edges, IntArray]:
    """Children of each representative by one unseen card: (child codes, edges, child representatives)."""
    m, k = reps.shape
    extra = np.tile(np.arange(n, dtype=np.int32), m)
    parent = np.repeat(np.arange(m, dtype=np.int32), n)
    fresh = ~(reps[parent] == extra[:, None]).any(axis=1)
    parent, extra = parent[fresh], extra[fresh]
    grown = np.concatenate([reps[parent], extra[:, None]], axis=1)
    codes, child = np.unique(canonical(grown, group, n), return_inverse=True)
    pairs, mult = np.unique(parent.astype(np.int64) * len(codes) + child, return_counts=True)
    edges = Edges((pairs // len(codes)).astype(np.int32), (pairs % len(codes)).astype(np.int32), mult)
    return codes, edges, decode(codes, k + 1, n)


def by_classes(cards: Sequence[int]) -> Tree:
    """The class tree of a deck (card indices 0..51)."""
    deck = check_deck(cards)
    n = len(deck)
    group = suit_group(deck)
    codes2, size2 = np.unique(canonical(subsets(n, 2), group, n), return_counts=True)
    reps2 = decode(codes2, 2, n)
    codes3, edges3, reps3 = _grow(reps2, group, n)
    codes4, edges4, reps4 = _grow(reps3, group, n)
    # The final card: no classes needed, each representative's completions are ranked as they are, a block of
    # representatives at a time (all at once, a full deck's 788,736 hands and their temporaries took ~120 MiB
    # at the peak, which shoed's report kept as resident memory afterwards).
    m4 = len(reps4)
    count4 = np.empty((m4, len(LINES)), dtype=np.int64)
    for low in range(0, m4, FINAL_BLOCK):
        block = reps4[low : low + FINAL_BLOCK]
        size = len(block)
        extra = np.tile(np.arange(n, dtype=np.int32), size)
        node = np.repeat(np.arange(size, dtype=np.int64), n)
        fresh = ~(block[node] == extra[:, None]).any(axis=1)
        hands = np.concatenate([block[node[fresh]], extra[fresh, None]], axis=1)
        lines = line_of_hands(deck, hands)
        counts = np.bincount(node[fresh] * len(LINES) + lines, minlength=size * len(LINES))
        count4[low : low + size] = counts.reshape(size, len(LINES))
    return Tree(
        cards=deck,
        size2=size2.astype(np.int64),
        edges3=edges3,
        edges4=edges4,
        count4=count4.astype(np.int64),
        nodes=(len(codes2), len(codes3), m4),
        codes=(codes2, codes3, codes4),
        group=group,
    )
