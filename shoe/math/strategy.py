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

import numpy as np

from shoe.cards import RANKS, Card
from shoe.math.induction import ACTIONS
from shoe.math.par import Par
from shoe.math.suits import decode

__all__ = ["StreetTable", "decision", "grid_3rd", "street_tables"]


def decision(par: Par, seen: Sequence[Card], wagered: int) -> int:
    """The optimal action code (0 fold, else the multiple of the ante) with the cards ``seen`` (two
    hole cards, then the community cards turned so far) and ``wagered`` antes already on the layout."""
    tree = par.solution.tree
    where = {c: i for i, c in enumerate(tree.cards)}
    try:
        positions = [where[c.index] for c in seen]
    except KeyError:
        raise ValueError("a card seen is not in the analysed deck") from None
    if len(set(positions)) != len(positions):
        raise ValueError("a card is seen twice")
    sol = par.solution
    if len(seen) == 2 and wagered == 1:
        return int(sol.act3[tree.node(positions)])
    if len(seen) == 3 and 2 <= wagered <= 4:
        return int(sol.act4[tree.node(positions), wagered - 2])
    if len(seen) == 4 and 3 <= wagered <= 7:
        return int(sol.act5[tree.node(positions), wagered - 3])
    raise ValueError(f"no decision with {len(seen)} cards seen and {wagered} antes wagered")


@dataclass(frozen=True)
class StreetTable:
    """One street: the wagers so far (columns) and, per suit class, its cards and actions."""

    street: str
    wagered: tuple[int, ...]
    rows: tuple[tuple[str, tuple[str, ...]], ...]


def street_tables(par: Par) -> tuple[StreetTable, StreetTable, StreetTable]:
    """3rd, 4th and 5th street, one row per suit class (169, 1,755 and 16,432 rows on a full deck),
    the highest cards first."""
    sol, tree = par.solution, par.solution.tree
    if tree.codes is None:
        raise ValueError("strategy tables need the class tree (shoe.math.suits)")
    n = len(tree.cards)
    specs = (
        ("3rd", sol.act3[:, None], np.ones((tree.nodes[0], 1), dtype=np.int64), (1,)),
        ("4th", sol.act4, par.reach4, (2, 3, 4)),
        ("5th", sol.act5, par.reach5, (3, 4, 5, 6, 7)),
    )
    out = []
    for level, (street, act, reach, wagered) in enumerate(specs):
        reps = decode(tree.codes[level], level + 2, n)
        rows = []
        for node in range(tree.nodes[level] - 1, -1, -1):
            label = "".join(Card.from_index(tree.cards[p]).code for p in reps[node].tolist())
            rows.append(
                (label, tuple(ACTIONS[int(a)] if r else "." for a, r in zip(act[node], reach[node], strict=True)))
            )
        out.append(StreetTable(street, wagered, tuple(rows)))
    return out[0], out[1], out[2]


def grid_3rd(par: Par) -> list[list[str]]:
    """3rd street as the usual 13 x 13 grid, ace first: a pair on the diagonal, suited above it
    (row = higher card), off-suit below it (column = higher card)."""
    if par.solution.tree.cards != tuple(range(52)):
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
