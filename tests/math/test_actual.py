"""shoe.math.actual: each observed decision's exact EV against a plain recursion with the table's evaluator,
the variance decomposition against the PAR sheet, and the count test's exact tail."""

from __future__ import annotations

import random
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from shoe.cards import Card
from shoe.hands import evaluate5
from shoe.math.actual import _tail, collusion_test, evaluate, tables_for
from shoe.math.hands import line_odds
from shoe.math.suits import decode
from shoe.rules.paytables import MISSISSIPPI_MINIMUM, classify_base

ODDS = line_odds(MISSISSIPPI_MINIMUM)


@pytest.fixture(scope="module")
def tables():  # type: ignore[no-untyped-def]
    return tables_for(ODDS)


def _pays(five: list[int]) -> int:
    """Odds to 1 of a final hand through the settlement's own classification (-1: the wagers lose)."""
    line = classify_base(evaluate5([Card.from_index(i) for i in five]))
    odds = None if line is None else MISSISSIPPI_MINIMUM.odds(line)
    return -1 if odds is None else odds


def _fifth(seen: list[int], w: int) -> tuple[list[Fraction], list[list[Fraction]]]:
    """Q of fold/1x/2x/3x with 4 cards seen and w wagered, and the value after each next card."""
    rest = [c for c in range(52) if c not in seen]
    after = [[Fraction(-w)] + [Fraction((w + b) * _pays([*seen, x])) for b in (1, 2, 3)] for x in rest]
    return [sum((a[b] for a in after), Fraction(0)) / len(rest) for b in range(4)], after


def _fourth(seen: list[int], w: int) -> list[Fraction]:
    rest = [c for c in range(52) if c not in seen]
    q = [Fraction(-w)]
    cache = {x: _fifth([*seen, x], w + 1) for x in rest}  # the per-card values; W only scales them
    for b in (1, 2, 3):
        total = Fraction(0)
        for x in rest:
            q5, _ = cache[x]
            # the 5th-street Q at W' = w + b from the one at w + 1: fold -W', a bet (W' + k) x E
            e = q5[1] / (w + 2)
            total += max(Fraction(-(w + b)), *((w + b + k) * e for k in (1, 2, 3)))
        q.append(total / len(rest))
    return q


def test_fifth_street_values_and_next_card_figures_match_a_plain_evaluation(tables) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(7)
    for _ in range(6):
        cards = rng.sample(range(52), 5)
        seen, w, action = cards[:4], rng.randint(3, 7), rng.randrange(4)
        q, after = _fifth(seen, w)
        d = evaluate(tables, np.array([seen]), np.array([w]), np.array([action]), np.array([cards[4]]))
        best = max(range(4), key=lambda b: (q[b], b))  # ties: the largest wager
        assert d.best[0] == best
        assert d.gap[0] == pytest.approx(float(q[best] - q[action]), abs=1e-12)
        diffs = [a[action] - a[best] for a in after]
        mean = sum(diffs, Fraction(0)) / len(diffs)
        assert d.d_mean[0] == pytest.approx(float(mean), abs=1e-12)
        assert d.d_var[0] == pytest.approx(float(sum((x - mean) ** 2 for x in diffs) / len(diffs)), rel=1e-9, abs=1e-12)
        assert d.p_beat[0] == pytest.approx(sum(x > 0 for x in diffs) / len(diffs))
        taken = [a[action] for a in after]
        mt = sum(taken, Fraction(0)) / len(taken)
        assert d.luck_var[0] == pytest.approx(float(sum((x - mt) ** 2 for x in taken) / len(taken)), abs=1e-9)
        rest = [c for c in range(52) if c not in seen]
        assert d.d_real[0] == pytest.approx(float(diffs[rest.index(cards[4])]))


def test_fourth_street_values_match_a_plain_recursion(tables) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(11)
    for _ in range(2):
        cards = rng.sample(range(52), 4)
        seen, w = cards[:3], rng.randint(2, 4)
        q = _fourth(seen, w)
        for action in range(4):
            d = evaluate(tables, np.array([seen]), np.array([w]), np.array([action]), np.array([cards[3]]))
            best = max(range(4), key=lambda b: (q[b], b))
            assert d.best[0] == best
            assert d.gap[0] == pytest.approx(float(q[best] - q[action]), abs=1e-12)


def test_the_variance_given_optimal_decisions_adds_up_to_the_par_sheets(tables) -> None:  # type: ignore[no-untyped-def]
    """The hole cards' variance plus each street's next-card variance, weighted by how many of the
    155,937,600 ordered deals reach each (cards, wager) under optimal play, is exactly the PAR sheet's
    variance per round (9.8366^2): the decomposition the observed sd of the report rests on."""
    par = tables.par
    tree = par.solution.tree
    r2, r3, r4 = tree.unseen
    reach = [tree.size2[:, None] * (r2 * r3 * r4), par.reach4, par.reach5]
    total = tables.hole_var * par.deals
    for level, wagers in enumerate(((1,), (2, 3, 4), (3, 4, 5, 6, 7))):
        reps = decode(tree.codes[level], level + 2, 52).astype(np.int64)
        for wi, w in enumerate(wagers):
            mass = reach[level][:, wi]
            rows = np.flatnonzero(mass)
            seen, ws = reps[rows], np.full(len(rows), w)
            probe = evaluate(tables, seen, ws, np.zeros(len(rows), dtype=np.int64), np.full(len(rows), -1))
            d = evaluate(tables, seen, ws, probe.best, np.full(len(rows), -1))
            assert (d.gap == 0).all() and np.isnan(d.d_real).all()
            total += float((mass[rows] * d.luck_var).sum())
    assert total / par.deals == pytest.approx(par.std_dev**2, rel=1e-9)


def test_the_count_tail_is_exact() -> None:
    p = np.full(30, 0.2)
    for k in (0, 3, 6, 12, 30):
        exact = sum(comb(30, j) * 0.2**j * 0.8 ** (30 - j) for j in range(k, 31))
        assert _tail(p, k) == pytest.approx(exact, rel=1e-9)
    assert _tail(np.array([0.5, 0.25]), 2) == pytest.approx(0.125)


def test_deviations_that_always_pay_are_flagged_and_random_ones_are_not(tables) -> None:  # type: ignore[no-untyped-def]
    """On 5th street: a seat that knows the final card (3x on a win, fold a loss) against one that plays
    at random; the same deals."""
    rng = np.random.default_rng(5)
    deals = np.array([rng.permutation(52)[:5] for _ in range(600)])
    w = np.full(600, 4)
    probe = evaluate(tables, deals[:, :4], w, np.zeros(600, dtype=np.int64), deals[:, 4])
    pays = np.array([_pays(list(map(int, d))) for d in deals])
    knowing = np.where(pays > 0, 3, np.where(pays == 0, probe.best, 0))
    random_play = rng.integers(0, 4, 600)
    for actions, flagged in ((knowing, True), (random_play, False)):
        d = evaluate(tables, deals[:, :4], w, actions, deals[:, 4])
        h = collusion_test(d, d.best != actions)
        assert h.deviations > 50
        assert (h.p_count < 1e-6) is flagged, h
        assert (h.z_gain > 1) is flagged, h  # the gain test is weaker: rare big hands dominate its variance
