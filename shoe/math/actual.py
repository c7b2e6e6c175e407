"""The exact value of observed Mississippi stud decisions, from the induction's own tables (pure, numpy).

A decision on 3rd, 4th or 5th street is taken with a set of cards seen (2, 3 or 4) and a total ``W``
already wagered (ante = 1; NY 5324.38(e)(1),(3),(5)).  Folding is worth ``-W``; betting ``b`` is
worth the mean, over the cards still unseen, of the next node's optimal value at ``W + b`` (the
4th and 5th-street values of :func:`shoe.math.induction.solve`), or on 5th street of
``(W + b) x odds`` of the final hand.  So for every observed decision this module gives, exactly:

* ``gap``: the EV (per ante) it gave up against the optimal action (0 when it was optimal or tied);
* ``luck_var``: the variance, over the next card, of the value it led to (how far the next card can
  move the seat's result from its expectation); summed over a seat's round with the variance of its
  hole cards it is the variance of the round's result given the decisions taken;
* ``d_mean``, ``d_var``, ``p_beat``: for the difference ``D = value(observed) - value(optimal)``
  after the next card, its mean (``-gap``), variance and the chance that it is positive, given only
  what the seat had seen; and ``d_real``, ``beat``: the same with the card that really came.

A seat that "knows" the next community card (PA 655a.11(a)(3): hand information shared or a card
exposed) deviates from optimal play exactly when the card makes the deviation pay, so its
deviations beat optimal play far more often than the ``p_beat`` allow: :func:`collusion_test`.
Integer arithmetic decides optimality and ties exactly; the per-ante figures are floats.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb, erfc, sqrt

import numpy as np
import numpy.typing as npt

from shoe.hands import RANK_COUNT
from shoe.math.combos import IntArray, subsets
from shoe.math.hands import line_of_hands, rank_hands
from shoe.math.induction import Ties, fifth_street
from shoe.math.par import FULL_DECK, Par, analyse, tree_of
from shoe.math.tree import canonical

__all__ = ["Decisions", "Honesty", "Tables", "collusion_test", "evaluate", "next_values", "tables_for"]

FloatArray = npt.NDArray[np.float64]
_BINOM = np.array([[comb(p, j) for j in range(6)] for p in range(53)], dtype=np.int64)


def colex(cards: IntArray) -> IntArray:
    """Colex index of each row of distinct card indices 0..51 (any order within a row)."""
    s = np.sort(cards, axis=1)
    return sum(_BINOM[s[:, i], i + 1] for i in range(s.shape[1]))  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def _class_maps() -> tuple[IntArray, IntArray]:
    """For every 3- and 4-card set (by colex index): its suit-class node in the full deck's tree."""
    tree = tree_of(FULL_DECK)
    assert tree.codes is not None and tree.group is not None
    out = []
    for k in (3, 4):
        codes = canonical(subsets(52, k), tree.group, 52)
        out.append(np.searchsorted(tree.codes[k - 2], codes).astype(np.int64))
    return out[0], out[1]


_RANK_LINE = np.full(RANK_COUNT + 1, -1, dtype=np.int64)
"""The line of each hand rank number, filled as ranks are met (the settlement's classify_base, once per rank)."""


def _lines(hands: IntArray) -> IntArray:
    """:func:`shoe.math.hands.line_of_hands` of full-deck hands, classifying each rank number only once."""
    ranks = rank_hands(FULL_DECK, hands)
    new, first = np.unique(ranks, return_index=True)
    unknown = _RANK_LINE[new] < 0
    if unknown.any():
        _RANK_LINE[new[unknown]] = line_of_hands(FULL_DECK, hands[first[unknown]])
    return _RANK_LINE[ranks]


@dataclass(frozen=True, eq=False)  # holds numpy arrays: compared by identity
class Tables:
    """What evaluating decisions needs for one paytable (per-line ``odds``)."""

    par: Par
    value5: IntArray  # (5th-street nodes, W = 3..7), units 1/48 ante
    hole_var: float  # variance of the 3rd-street value over the 1,326 hands (ante^2)


@lru_cache(maxsize=8)
def tables_for(odds: tuple[int, ...], ties: Ties = Ties.PREFER_BET) -> Tables:
    par = analyse(odds, ties)
    _, value5 = fifth_street(par.solution.tree, odds, ties)
    sol, tree = par.solution, par.solution.tree
    v3 = sol.value3.astype(np.float64) / (50 * 49 * 48)
    w = tree.size2.astype(np.float64) / float(tree.size2.sum())
    mean = float((w * v3).sum())
    return Tables(par, value5, float((w * (v3 - mean) ** 2).sum()))


@dataclass(frozen=True, eq=False)
class Decisions:
    """Per decision (rows in the order given), in antes: see the module docstring."""

    best: IntArray
    gap: FloatArray
    luck_var: FloatArray
    d_mean: FloatArray
    d_var: FloatArray
    p_beat: FloatArray
    d_real: FloatArray  # NaN where the next card is not known
    beat: npt.NDArray[np.bool_]


def next_values(t: Tables, seen: IntArray, wagered: IntArray) -> tuple[IntArray, npt.NDArray[np.bool_], int]:
    """Per row and candidate next card x (0..51): the integer value of fold, 1x, 2x, 3x after x, shape
    (rows, 52, 4), with the mask of cards x that are unseen and the unit (values / unit = antes)."""
    rows, k = seen.shape
    xs = np.broadcast_to(np.arange(52, dtype=np.int64), (rows, 52))
    unseen = ~(seen[:, :, None] == np.arange(52)[None, None, :]).any(axis=1)
    grown = np.concatenate([np.repeat(seen[:, None, :], 52, axis=1), xs[:, :, None]], axis=2).reshape(-1, k + 1)
    ok = unseen.reshape(-1)
    grown = np.where(ok[:, None], grown, np.arange(k + 1)[None, :])  # distinct placeholder cards
    vals = np.zeros((rows * 52, 4), dtype=np.int64)
    w = np.repeat(wagered, 52)
    map3, map4 = _class_maps()
    sol = t.par.solution
    if k == 2:  # 3rd street, W = 1: the 4th-street value at 1 + b, units 1/(49 * 48)
        node = map3[colex(grown)]
        unit = 49 * 48
        for b in (1, 2, 3):
            vals[:, b] = sol.value4[node, w + b - 2]
    elif k == 3:  # 4th street: the 5th-street value at W + b, units 1/48
        node = map4[colex(grown)]
        unit = 48
        for b in (1, 2, 3):
            vals[:, b] = t.value5[node, w + b - 3]
    else:  # 5th street: (W + b) x the final hand's odds, units 1
        odds = np.asarray(t.par.odds, dtype=np.int64)[_lines(grown)]
        unit = 1
        for b in (1, 2, 3):
            vals[:, b] = (w + b) * odds
    vals[:, 0] = -w * unit
    return vals.reshape(rows, 52, 4), unseen, unit


def evaluate(t: Tables, seen: IntArray, wagered: IntArray, action: IntArray, nxt: IntArray) -> Decisions:
    """Evaluate decisions in blocks of 4,096 rows (memory stays bounded); see :func:`_evaluate`."""
    parts = [
        _evaluate(t, seen[i : i + 4096], wagered[i : i + 4096], action[i : i + 4096], nxt[i : i + 4096])
        for i in range(0, len(seen), 4096)
    ] or [_evaluate(t, seen, wagered, action, nxt)]
    return Decisions(*(np.concatenate([getattr(p, f) for p in parts]) for f in Decisions.__dataclass_fields__))


def _evaluate(t: Tables, seen: IntArray, wagered: IntArray, action: IntArray, nxt: IntArray) -> Decisions:
    """Evaluate decisions taken with ``seen`` cards (rows of 2, 3 or 4 card indices, one street per call),
    ``wagered`` antes so far, the ``action`` taken (0 fold, else the multiple) and ``nxt``, the card
    that came next (the next community card; -1 where it is not known)."""
    rows = len(seen)
    if rows == 0:
        e = np.zeros(0)
        return Decisions(np.zeros(0, dtype=np.int64), e, e, e, e, e, e, np.zeros(0, dtype=bool))
    vals, unseen, unit = next_values(t, seen, wagered)
    r = 52 - seen.shape[1]
    sums = (vals * unseen[:, :, None]).sum(axis=1)  # exact: r x the EV of each action, in 1/unit
    best = sums.argmax(axis=1) if t.par.ties is Ties.PREFER_FOLD else 3 - sums[:, ::-1].argmax(axis=1)
    idx = np.arange(rows)
    gap = (sums[idx, best] - sums[idx, action]).astype(np.float64) / (r * unit)
    taken = vals[idx, :, action].astype(np.float64) / unit
    optimal = vals[idx, :, best].astype(np.float64) / unit
    m = unseen.astype(np.float64)
    mean_taken = (taken * m).sum(axis=1) / r
    luck_var = (((taken - mean_taken[:, None]) ** 2) * m).sum(axis=1) / r
    d = taken - optimal
    d_mean = (d * m).sum(axis=1) / r
    d_var = (((d - d_mean[:, None]) ** 2) * m).sum(axis=1) / r
    p_beat = ((d > 0) & unseen).sum(axis=1) / r
    known = nxt >= 0
    d_real = np.where(known, d[idx, np.where(known, nxt, 0)], np.nan)
    return Decisions(best, gap, luck_var, d_mean, d_var, p_beat, d_real, known & (d_real > 0))


@dataclass(frozen=True)
class Honesty:
    """The test of one seat's deviations from optimal play (see :func:`collusion_test`)."""

    deviations: int  # decisions other than the optimal action, with the next card known
    beat: int  # of which the card that came made them pay more than optimal play
    expected_beat: float
    p_count: float  # P(at least ``beat`` by luck): exact Poisson-binomial tail
    gain: float  # realised sum of D over the deviations (antes)
    expected_gain: float
    z_gain: float
    p_gain: float  # one-sided, normal approximation


def _tail(p: FloatArray, k: int) -> float:
    """P(K >= k) for K a sum of independent Bernoulli(p_i): exact, by dynamic programming."""
    if k <= 0:
        return 1.0
    dist = np.zeros(len(p) + 1)
    dist[0] = 1.0
    for i, q in enumerate(p.tolist()):
        dist[1 : i + 2] = dist[1 : i + 2] * (1 - q) + dist[: i + 1] * q
        dist[0] *= 1 - q
    return float(min(1.0, dist[k:].sum()))


def collusion_test(d: Decisions, deviated: npt.NDArray[np.bool_]) -> Honesty:
    """Did this seat's deviations beat optimal play more often, or by more, than luck allows?

    Over the decisions ``deviated`` (not the optimal action) whose next card is known: the count of
    those the next card made pay (``D > 0``) against the exact tail of the sum of independent
    Bernoulli(``p_beat``) (the count test, which flags), and the realised gain ``sum D`` against its
    mean ``sum -gap`` and variance ``sum d_var`` (a one-sided z test, normal approximation).  Under
    honest play each ``D`` has that mean, variance and chance given what the seat had seen, because the
    next card is then uniform over the unseen cards; a seat that saw it does not have them.
    """
    sel = deviated & ~np.isnan(d.d_real)
    p = d.p_beat[sel]
    beat = int(d.beat[sel].sum())
    gain, mean, var = float(d.d_real[sel].sum()), float(d.d_mean[sel].sum()), float(d.d_var[sel].sum())
    z = (gain - mean) / sqrt(var) if var > 0 else 0.0
    return Honesty(
        deviations=int(sel.sum()),
        beat=beat,
        expected_beat=float(p.sum()),
        p_count=_tail(p, beat),
        gain=gain,
        expected_gain=mean,
        z_gain=z,
        p_gain=0.5 * erfc(z / sqrt(2)) if var > 0 else 1.0,
    )
