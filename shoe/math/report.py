"""The PAR sheet and the strategy as plain data (dicts of str, int, float, lists) for any printer.

Exact fractions are given as ``"p/q"`` strings next to their decimal value, so that a reader can
check the arithmetic and a printer can round as it likes.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from shoe.math.leaks import Leak
from shoe.math.par import Par, paytable_key
from shoe.math.side import SideSheet
from shoe.math.strategy import grid_3rd, street_tables
from shoe.rules.paytables import BasePaytable

__all__ = ["leaks_data", "par_data", "side_data", "strategy_data"]

TIES_MEANING = {
    "prefer-bet": "among equal-EV actions the largest wager (fold < 1x < 2x < 3x); the published convention",
    "prefer-fold": "among equal-EV actions the smallest wager (fold < 1x < 2x < 3x)",
}


def _exact(x: Fraction) -> dict[str, Any]:
    return {"value": float(x), "exact": f"{x.numerator}/{x.denominator}"}


def _pays(odds: int | None) -> str:
    if odds is None:
        return "loses"
    return {0: "push", -1: "loses"}.get(odds, f"{odds} to 1")


def par_data(par: Par, paytable: BasePaytable, *, jurisdiction: str, regulation: str, rule: str) -> dict[str, Any]:
    """Everything the PAR sheet prints, per ante (one unit), under optimal play."""
    outcomes = [
        {
            "outcome": o.name,
            "pays": _pays(o.odds),
            "deals": o.count,
            "probability": float(par.probability(o)),
            "contribution": float(par.contribution(o)),
            "by_total_wager": {str(w): c for w, c in o.by_wager},
        }
        for o in par.outcomes
    ]
    pushes = sum(o.count for o in par.outcomes if o.odds == 0)
    folds = sum(o.count for o in par.outcomes if o.odds is None)
    return {
        "game": "mississippi-stud",
        "jurisdiction": jurisdiction,
        "regulation": regulation,
        "paytable": {"name": paytable.name, "hash": paytable_key(paytable), "rule": rule, "pays": paytable.as_dict()},
        "method": "exact backward induction over fold/1x/2x/3x on every street; every starting hand and every "
        f"ordered community sequence ({par.deals:,} deals), no sampling",
        "ties": {"rule": par.ties.value, "meaning": TIES_MEANING[par.ties.value]},
        "house_edge": _exact(par.house_edge),
        "ev_per_ante": _exact(par.ev),
        "average_total_wager": _exact(par.average_wager),
        "element_of_risk": _exact(par.element_of_risk),
        "std_dev_per_round": par.std_dev,
        "hit_frequency": _exact(par.hit_frequency),
        "push_frequency": _exact(Fraction(pushes, par.deals)),
        "fold_frequency": _exact(Fraction(folds, par.deals)),
        "deals": par.deals,
        "outcomes": outcomes,
        "notes": [
            "per ante of one unit; the aggregate payout cap (NY 5324.38(f)(2)) is left out: it binds only when "
            "10 x ante x the top odds exceeds the cap",
            "contribution: the outcome's share of the expected net per ante; the contributions add up to the EV",
        ],
    }


def strategy_data(par: Par) -> dict[str, Any]:
    """The optimal strategy: 3rd street as a 13 x 13 grid and every street as one row per suit class."""
    third, fourth, fifth = street_tables(par)
    ranks = "AKQJT98765432"
    return {
        "ties": {"rule": par.ties.value, "meaning": TIES_MEANING[par.ties.value]},
        "reading": "a row is a class of card sets under a renaming of suits, written with one member: AsKs7h is "
        "any ace and king of one suit with a seven of another. Columns: the total already wagered, in antes "
        "(ante 1 plus the bets so far); '.' = optimal play never gets there with these cards.",
        "grid_3rd": {
            "reading": "row = first card, column = second card: a pair on the diagonal, suited above it, off-suit "
            "below it",
            "ranks": list(ranks),
            "rows": grid_3rd(par),
        },
        "streets": [
            {"street": t.street, "wagered": list(t.wagered), "rows": [[label, *acts] for label, acts in t.rows]}
            for t in (third, fourth, fifth)
        ],
    }


def _pct(x: Fraction) -> str:
    return f"{float(x) * 100:.4f}%"


def side_data(
    sheets: list[SideSheet], envy: dict[str, Fraction] | None, *, stake: int, meters: dict[str, int]
) -> dict[str, Any]:
    """PA side wagers as titled tables (rows of strings) plus the exact figures."""
    tables = []
    for sheet in sheets:
        rows = [[h, pays, f"{float(p):.8f}", f"{float(c):.6f}"] for h, pays, p, c in sheet.rows]
        notes = list(sheet.notes)
        figures = {"fixed_rtp": _exact(sheet.fixed_rtp)}
        mine = {m.meter for m in sheet.meters}
        readings = {k: v for k, v in meters.items() if k in mine}
        if sheet.meters:
            for m in sheet.meters:
                be = sheet.break_even(m.meter, readings, stake)
                figures[f"meter:{m.meter}"] = {
                    "coefficient": float(m.coefficient),
                    "break_even_cents": None if be is None else float(be),
                }
                shown = "none" if be is None else f"${float(be) / 100:,.2f}"
                others = {k: v for k, v in readings.items() if k != m.meter}
                notes.append(
                    f"meter {m.meter!r}: adds {float(m.coefficient):.6g} x meter / stake to the return; break-even "
                    f"(rtp 100%) at {shown} for a ${stake / 100:.2f} wager"
                    + (f", other meters at {others} cents" if others else ", other meters at 0")
                )
        rtp = sheet.rtp(readings, stake)
        figures["rtp"] = _exact(rtp)
        title = f"{sheet.name} ({sheet.table}): return {_pct(rtp)}, house edge {_pct(1 - rtp)}"
        if sheet.meters:
            title += f" with meters {readings or 'at 0'} (fixed lines alone: {_pct(sheet.fixed_rtp)})"
        tables.append(
            {
                "title": title,
                "head": ["hand", "pays", "probability", "return"],
                "rows": rows,
                "notes": notes,
                "figures": figures,
            }
        )
    if envy is not None:
        rows = [
            [str(k), f"{k * float(envy['royal-flush']):.10f}", f"{k * float(envy['straight-flush']):.10f}"]
            for k in range(1, 6)
        ]
        tables.append(
            {
                "title": "envy bonus: expected qualifying hands of the other players, per round",
                "head": ["other players", "royal flushes", "straight flushes"],
                "rows": rows,
                "notes": [
                    "the Envy Bonus pays its fixed sums per qualifying hand: expected value per round = royal "
                    "flushes x the royal sum + straight flushes x the straight-flush sum",
                    "each other player with a side wager holds a hand at settlement even after a fold (PA "
                    "655a.11(h), docs/rules-engine.md decision 8): the plain five-card odds above",
                    "another player with no side wager who folds is collected at the fold: per such player "
                    f"{float(envy['royal-flush-no-side-wager']):.10f} royal and "
                    f"{float(envy['straight-flush-no-side-wager']):.10f} straight flushes (optimal base play)",
                ],
                "figures": {k: _exact(v) for k, v in envy.items()},
            }
        )
    return {"tables": tables}


def leaks_data(leaks: list[Leak], honest: Fraction) -> dict[str, Any]:
    rows = [
        [x.name, x.seen, f"{float(x.value):+.6f}", f"{float(x.gain):+.6f}", f"{float(x.gain) * 100:+.2f}%"]
        for x in leaks
    ]
    return {
        "tables": [
            {
                "title": f"what a leak is worth: the player's exact optimal EV per ante (honest: {float(honest):+.6f})",
                "head": ["leak", "seen", "EV per ante", "gain per ante", "gain"],
                "rows": rows,
                "notes": [
                    "security: the gain is what the house loses per ante each time a player acts on the leak "
                    "(NY 5324.38(d)(3) community cards face down; PA 655a.11(a)(3) no sharing of hand information)"
                ],
                "figures": {x.name: {"value": _exact(x.value), "gain": _exact(x.gain)} for x in leaks},
            }
        ]
    }
