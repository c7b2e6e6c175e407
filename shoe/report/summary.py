"""Theoretical against actual hold, and decision quality, from the rounds of a journal (pure).

For every settled Mississippi stud seat (``SeatRound``), in cents, with ``HE`` the house edge per ante
of the round's jurisdiction's paytable under optimal play (:mod:`shoe.math`):

* ``handle``: ante plus street bets; ``house win`` = - the seats' net; ``hold`` = win / handle;
* ``theo (optimal)`` = ante x HE; ``theo (observed)`` = ante x (HE + the EV the seat's decisions gave up,
  each valued exactly from the cards it had seen, :func:`shoe.math.actual.evaluate`);
* standard deviations: optimal, ante x the PAR sheet's per-round deviation; observed, ante x the square
  root of the hole cards' variance plus each decision's next-card variance (the variance of the
  result given the decisions taken); the difference ``(win - theo) / sd`` in each;
* per seat: decisions, deviations from optimal play, the EV given up, and
  :func:`shoe.math.actual.collusion_test` (PA 655a.11(a)(3): a seat that knew an unrevealed card).

Side wagers, void rounds, irregularities and other games are counted apart, never in the hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from math import sqrt
from typing import Any

import numpy as np

from shoe.math.actual import Decisions, Tables, collusion_test, evaluate, tables_for
from shoe.math.hands import line_odds
from shoe.math.side import envy_per_player, three_card_bonus
from shoe.report.groupings import GROUPINGS
from shoe.report.read import RoundInfo, SeatRound
from shoe.rules.paytables import THREE_CARD_BONUS_EXAMPLE
from shoe.rules.profiles import MississippiProfile, get_profile

__all__ = ["GROUPINGS", "Report", "build_report", "group_key"]

TEST = (
    "count test: of a seat's decisions that deviated from optimal play (next card known), how many the "
    "card that came made pay more than optimal play, against the exact tail of a sum of independent "
    "Bernoulli trials with each decision's chance given the cards the seat had seen; flagged below "
    "alpha / seats tested (Bonferroni). Also the gain test: the realised gain of those deviations over "
    "optimal play against its mean and variance (one-sided z, normal approximation)"
)


def group_key(by: str, info: RoundInfo, seat: int) -> str:
    if by == "table":
        return info.table
    if by == "seat":
        return f"seat {seat}"
    if by == "dealer":
        return info.dealer
    if info.opened is None:
        return "?"
    local = info.opened.astimezone()
    if by == "day":
        return f"{local:%Y-%m-%d}"
    if by == "shift":
        if 6 <= local.hour < 22:
            return f"{local:%Y-%m-%d} {'day' if local.hour < 14 else 'swing'}"
        start = local if local.hour >= 22 else local - timedelta(days=1)  # a night belongs to the day it starts
        return f"{start:%Y-%m-%d} night"
    return "all"


@dataclass
class Figures:
    """One row of the report (a group, or the total), cents."""

    key: str
    rounds: set[str] = field(default_factory=set)
    seat_rounds: int = 0
    handle: int = 0
    house_won: int = 0
    house_lost: int = 0
    theo_optimal: float = 0.0
    theo_observed: float = 0.0
    var_optimal: float = 0.0
    var_observed: float = 0.0
    ev_given_up: float = 0.0

    def add(self, rid: str, s: SeatRound, theo: tuple[float, float, float, float]) -> None:
        """One seat-round, with its paytable's house edge and sd per ante, its EV given up and variance."""
        he, sd, gap, var = theo
        self.rounds.add(rid)
        self.seat_rounds += 1
        self.handle += s.wagered
        self.house_won += max(-s.net, 0)
        self.house_lost += max(s.net, 0)
        self.theo_optimal += s.ante * he
        self.theo_observed += s.ante * (he + gap)
        self.var_optimal += (s.ante * sd) ** 2
        self.var_observed += s.ante**2 * var
        self.ev_given_up += s.ante * gap

    def row(self) -> dict[str, Any]:
        win = self.house_won - self.house_lost
        sd_o, sd_b = sqrt(self.var_optimal), sqrt(self.var_observed)
        return {
            "key": self.key,
            "rounds": len(self.rounds),
            "seat_rounds": self.seat_rounds,
            "handle": self.handle,
            "house_won": self.house_won,
            "house_lost": self.house_lost,
            "house_win": win,
            "hold_pct": 100 * win / self.handle if self.handle else None,
            "theo_optimal": round(self.theo_optimal),
            "theo_observed": round(self.theo_observed),
            "theo_hold_pct": 100 * self.theo_observed / self.handle if self.handle else None,
            "sd_optimal": round(sd_o),
            "sd_observed": round(sd_b),
            "z_optimal": (win - self.theo_optimal) / sd_o if sd_o else None,
            "z_observed": (win - self.theo_observed) / sd_b if sd_b else None,
            "ev_given_up": round(self.ev_given_up),
        }


@dataclass
class Report:
    data: dict[str, Any]


def _tables(jurisdiction: str) -> Tables:
    profile = get_profile("mississippi-stud", jurisdiction)
    assert isinstance(profile, MississippiProfile)
    return tables_for(line_odds(profile.paytable))


def build_report(rounds: Iterable[RoundInfo], by: str = "all", alpha: float = 0.001,
                 keep: Callable[[RoundInfo], bool] = lambda r: True) -> dict[str, Any]:  # fmt: skip
    """The report of ``rounds`` (those ``keep`` accepts), grouped ``by`` one of :data:`GROUPINGS`."""
    infos = [r for r in rounds if keep(r)]
    played = [r for r in infos if r.game == "mississippi-stud" and r.status == "complete"]
    seats = [(i, s) for i, r in enumerate(played) for s in r.seats]
    gap = np.zeros(len(seats))
    var = np.zeros(len(seats))
    per_seat: dict[int, dict[str, Any]] = {}
    tables: dict[str, Tables] = {}
    batches: dict[int, list[dict[str, list[Any]]]] = {}  # per paytable (by id of its Tables): 3 streets
    for n, (i, s) in enumerate(seats):
        info = played[i]
        t = tables.get(info.jurisdiction) or tables.setdefault(info.jurisdiction, _tables(info.jurisdiction))
        var[n] = t.hole_var
        if s.hole is None or s.forfeited:
            continue
        streets = batches.setdefault(
            id(t), [{"t": [t], "n": [], "seen": [], "w": [], "a": [], "x": []} for _ in range(3)]
        )
        w = 1
        for street, multiple in enumerate(s.decisions[:3]):
            seen = [*s.hole, *info.community[:street]]
            if len(seen) != street + 2 or min(seen) < 0:
                break  # a community card not identified: the decisions from here are not valued
            b = streets[street]
            b["n"].append(n)
            b["seen"].append(seen)
            b["w"].append(w)
            b["a"].append(multiple)
            b["x"].append(info.community[street] if street < len(info.community) else -1)
            w += multiple
            if multiple == 0:
                break
    seat_rows: dict[int, list[Any]] = {}
    for streets in batches.values():
        for street, b in enumerate(streets):
            if not b["n"]:
                continue
            rows = np.asarray(b["n"])
            d = evaluate(b["t"][0], np.asarray(b["seen"], dtype=np.int64).reshape(len(rows), street + 2),
                         np.asarray(b["w"], dtype=np.int64), np.asarray(b["a"], dtype=np.int64),
                         np.asarray(b["x"], dtype=np.int64))  # fmt: skip
            np.add.at(gap, rows, d.gap)
            np.add.at(var, rows, d.luck_var)
            deviated = d.best != np.asarray(b["a"])
            for k, n in enumerate(rows.tolist()):
                seat_rows.setdefault(seats[n][1].seat, []).append((d, k, bool(deviated[k])))
    groups: dict[str, Figures] = {}
    total = Figures("total")
    worst: dict[str, float] = {}
    per_ante = {j: (float(t.par.house_edge), t.par.std_dev) for j, t in tables.items()}  # Fractions: once
    series: dict[str, list[Any]] = {"opened": [], "handle": [], "win": [], "theo": [], "var": [], "net_antes": []}
    for n, (i, s) in enumerate(seats):
        info = played[i]
        he, sd = per_ante[info.jurisdiction]
        key = group_key(by, info, s.seat)
        theo = (he, sd, float(gap[n]), float(var[n]))
        groups.setdefault(key, Figures(key)).add(info.round_id, s, theo)
        total.add(info.round_id, s, theo)
        worst[info.round_id] = worst.get(info.round_id, 0.0) + s.ante * float(gap[n])
        series["opened"].append(info.opened)
        series["handle"].append(s.wagered)
        series["win"].append(-s.net)
        series["theo"].append(s.ante * (he + float(gap[n])))
        series["var"].append(s.ante**2 * float(var[n]))
        series["net_antes"].append(s.net / s.ante if s.ante else 0.0)
        seat = per_seat.setdefault(s.seat, {"seat": s.seat, "seat_rounds": 0, "ev_given_up": 0.0})
        seat["seat_rounds"] += 1
        seat["ev_given_up"] += s.ante * float(gap[n])
    tested = [x for x in seat_rows if any(dev for _, _, dev in seat_rows[x])]
    threshold = alpha / max(1, len(tested))
    for number, items in seat_rows.items():
        h = _seat_test(items)
        row = per_seat[number]
        row.update(decisions=len(items), deviations=sum(dev for _, _, dev in items), test=h,
                   flagged=h["p_count"] < threshold)  # fmt: skip
    for row in per_seat.values():
        row["ev_given_up"] = round(row["ev_given_up"])
    return {
        "by": by,
        "groups": [g.row() for _, g in sorted(groups.items())],
        "total": total.row(),
        "paytables": {j: {"house_edge_pct": 100 * float(t.par.house_edge), "std_dev_per_ante": t.par.std_dev,
                          "average_wager_antes": float(t.par.average_wager)} for j, t in sorted(tables.items())},
        "seats": [per_seat[k] for k in sorted(per_seat)],
        "test": {"description": TEST, "alpha": alpha, "seats_tested": len(tested), "threshold": threshold},
        "worst_rounds": [{"round_id": rid, "ev_given_up": round(v)} for rid, v in
                         sorted(worst.items(), key=lambda kv: -kv[1])[:10] if v > 0],
        "side_wagers": _side(played, tables),
        "apart": _apart(infos),
        "period": _period(infos),
        "series": series,  # per seat-round in order, for the plots (not printed)
    }  # fmt: skip


def _seat_test(items: list[Any]) -> dict[str, Any]:
    parts: dict[int, tuple[Any, list[int], list[bool]]] = {}
    for d, k, dev in items:
        parts.setdefault(id(d), (d, [], []))
        parts[id(d)][1].append(k)
        parts[id(d)][2].append(dev)
    # one Decisions per street: select this seat's rows from each
    fields = Decisions.__dataclass_fields__
    chosen = [(d, np.asarray(ks), np.asarray(devs)) for d, ks, devs in parts.values()]
    merged = Decisions(*(np.concatenate([getattr(d, f)[ks] for d, ks, _ in chosen]) for f in fields))
    h = collusion_test(merged, np.concatenate([devs for _, _, devs in chosen]))
    return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in h.__dict__.items()}


def _side(played: list[RoundInfo], tables: dict[str, Tables]) -> list[dict[str, Any]]:
    rtp = {"three-card-bonus": float(three_card_bonus(THREE_CARD_BONUS_EXAMPLE).rtp())}
    out: dict[str, dict[str, Any]] = {}
    for info in played:
        for s in info.seats:
            for bet, stake, net in s.side:
                if stake == 0:
                    continue  # Envy rides on the Progressive wager (PA 655a.11(i)(4)): no stake of its own
                row = out.setdefault(bet, {"bet": bet, "wagers": 0, "handle": 0, "house_win": 0})
                row["wagers"] += 1
                row["handle"] += stake
                row["house_win"] -= net
    for bet, row in out.items():
        row["hold_pct"] = 100 * row["house_win"] / row["handle"] if row["handle"] else None
        row["theo"] = round(row["handle"] * (1 - rtp[bet])) if bet in rtp else None
    envy = _envy(played, tables)
    return [out[k] for k in sorted(out)] + ([envy] if envy else [])


def _envy(played: list[RoundInfo], tables: dict[str, Tables]) -> dict[str, Any] | None:
    """The Envy Bonus apart: its lines (one per Progressive bettor), those paid, what they paid, and the
    lines the sheet expects to be paid, priced as the engine pays (docs/rules-engine.md decision 8):
    per other player, the plain five-card odds of a royal or straight flush if that player has a side
    wager (the hand is kept on a fold), the showdown odds of optimal play if not (collected at a fold).
    """
    lines = won = paid = 0
    expected = 0.0
    for info in played:
        if not any(bet == "envy" for s in info.seats for bet, _, _ in s.side):
            continue
        par = (tables.get(info.jurisdiction) or _tables(info.jurisdiction)).par
        odds = envy_per_player(par)
        kept = float(odds["royal-flush"] + odds["straight-flush"])
        collected = float(odds["royal-flush-no-side-wager"] + odds["straight-flush-no-side-wager"])
        for s in info.seats:
            for bet, _, net in s.side:
                if bet != "envy":
                    continue
                lines += 1
                won += net > 0
                paid += max(net, 0)
                expected += sum(
                    kept if any(stake > 0 for _, stake, _ in other.side) else collected
                    for other in info.seats
                    if other.seat != s.seat and not other.forfeited
                )
    if not lines:
        return None
    return {"bet": "envy", "wagers": lines, "handle": 0, "house_win": -paid, "hold_pct": None, "theo": None,
            "paid_lines": won, "expected_paid_lines": round(expected, 6)}  # fmt: skip


def _apart(infos: list[RoundInfo]) -> dict[str, Any]:
    irregular: dict[str, int] = {}
    for info in infos:
        for action, count in info.irregularities.items():
            irregular[action] = irregular.get(action, 0) + count
    other: dict[str, int] = {}
    for info in infos:
        if info.game != "mississippi-stud":
            other[info.game] = other.get(info.game, 0) + 1
    mississippi = [r for r in infos if r.game == "mississippi-stud"]
    return {
        "void_rounds": sum(r.status == "void" for r in mississippi),
        "returned": sum(r.returned for r in mississippi),
        "open_rounds": sum(r.status == "open" for r in mississippi),
        "irregularities": irregular,
        "forfeits": sum(s.forfeited for r in mississippi for s in r.seats),
        "other_games": other,
    }


def _period(infos: list[RoundInfo]) -> dict[str, Any]:
    times = [r.opened for r in infos if isinstance(r.opened, datetime)]
    return {"first": min(times).isoformat() if times else None, "last": max(times).isoformat() if times else None}
