"""The JSON record ``shoectl play`` prints: the finished (or void) round, cards included.

This is a scripted test tool whose whole point is to show the round, so the record names the cards;
nothing here logs them.  Keys common to both games (docs/play-scripts.md):

``game``, ``jurisdiction``, ``state``, ``dealing_order`` (seats in the order they received their
first stack or card), ``settlement_order``, ``seats`` (keyed by seat number as a string: ``cards``,
``hand``, ``outcome`` win/push/lose/fold/void, ``net`` cents on the ante and street bets, ``side``),
``misdeal`` (null, or why the round is void) and ``shoe`` (what was taken from the shoe: counts).
Seven-card stud adds ``bring_in``, ``first_to_act`` ("4" to "7"), ``common_card``, ``winners``,
``pot``, ``pot_shares`` and ``odd_chip``.
"""

from __future__ import annotations

from typing import Any

from shoe.play.source import Tally
from shoe.play.stud import StudPlay
from shoe.rules.mississippi import MisdealRecord, MississippiRound, Outcome, SeatSettlement
from shoe.rules.profiles import IRREGULARITIES
from shoe.rules.stud import CardDealt, PotAwarded, Street

__all__ = ["mississippi_record", "stud_record"]

RETURNED = "misdeal: wager returned"


def mississippi_record(rnd: MississippiRound, tally: Tally) -> dict[str, Any]:
    result = rnd.result()
    data = result.as_dict()
    views = {view.seat: view for view in rnd.view(can_see_holes=True).seats}
    settled = {r.seat: r for r in rnd.records if isinstance(r, SeatSettlement)}
    for key, seat in data["seats"].items():
        view = views[int(key)]
        seat["ante"] = view.ante
        seat["bets"] = list(view.bets)
        for line in settled[view.seat].side if view.seat in settled else ():
            seat["side"][line.bet].update(
                stake=line.stake, hand=line.hand, paid_from=line.paid_from, floorperson=line.requires_floorperson
            )
        if result.misdeal is not None:
            seat["side"] = {
                bet: {"result": Outcome.VOID.value, "net": 0, "paid": stake, "note": RETURNED}
                for bet, stake in view.side
            }
    data["misdeal"] = None if result.misdeal is None else _mississippi_misdeal(result.misdeal)
    data["shoe"] = tally.as_dict()
    return data


def _mississippi_misdeal(misdeal: MisdealRecord) -> dict[str, Any]:
    return {
        "cause": misdeal.cause.value,
        "detail": misdeal.detail,
        "remedy": misdeal.remedy.value,
        "returned": misdeal.total_returned,
        "returned_by_seat": {str(seat): cents for seat, cents in misdeal.returned},
        "deck_removed": misdeal.deck_removed,
        "security_alert": misdeal.security_alert,
        "rule": misdeal.rule,
    }


def stud_record(play: StudPlay, tally: Tally) -> dict[str, Any]:
    hand, void = play.hand, play.void
    records = hand.records
    first_cards = [r.seat for r in records if isinstance(r, CardDealt) and r.seat is not None]
    shares = {} if void is not None else hand.pot_shares
    seats: dict[str, Any] = {}
    for seat in hand.seats:
        contributed = hand.contributions[seat]
        paid = contributed if void is not None else shares.get(seat, 0)
        category = None if void is not None else hand.hand_category(seat)
        seats[str(seat)] = {
            "seat": seat,
            "cards": [r.card.code for r in records if isinstance(r, CardDealt) and r.seat == seat],
            "hand": None if category is None else category.value,
            "outcome": _stud_outcome(play, seat),
            "net": paid - contributed,
            "side": {},
            "contributed": contributed,
            "paid": paid,
        }
    settlement = None if void is not None else hand.settlement
    odd = None
    if settlement is not None and settlement.odd_chip_seat is not None:
        odd = {"seat": settlement.odd_chip_seat, "cents": settlement.odd_chips}
    common = hand.common_card
    return {
        "game": "seven-card-stud",
        "jurisdiction": "NJ",
        "state": "misdeal" if void is not None else hand.phase.value,
        "dealing_order": list(dict.fromkeys(first_cards)),
        "settlement_order": [] if void is not None else [r.seat for r in records if isinstance(r, PotAwarded)],
        "bring_in": hand.bring_in_seat,
        "first_to_act": {str(int(s)): hand.first_to_act(s) for s in Street if s is not Street.THIRD},
        "common_card": None if common is None else common.code,
        "winners": [] if void is not None else list(hand.winners),
        "pot": hand.pot,
        "pot_shares": {str(seat): cents for seat, cents in sorted(shares.items())},
        "odd_chip": odd,
        "seats": seats,
        "misdeal": None if void is None else _stud_misdeal(play),
        "shoe": tally.as_dict(),
    }


def _stud_outcome(play: StudPlay, seat: int) -> str:
    hand = play.hand
    if play.void is not None:
        return Outcome.VOID.value
    if seat in hand.folded_seats:
        return Outcome.FOLD.value
    return Outcome.WIN.value if seat in hand.winners else Outcome.LOSE.value


def _stud_misdeal(play: StudPlay) -> dict[str, Any]:
    assert play.void is not None
    row = next(r for r in IRREGULARITIES if r.event is play.void.cause)
    contributions = play.hand.contributions
    return {
        "cause": play.void.cause.value,
        "detail": play.void.detail,
        "remedy": row.remedy.value,
        "returned": sum(contributions.values()),
        "returned_by_seat": {str(seat): cents for seat, cents in sorted(contributions.items())},
        "deck_removed": row.deck_removed,
        "security_alert": row.security_alert,
        "rule": "rules digest: irregularities",
    }
