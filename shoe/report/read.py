"""The rounds of a journal as the report needs them: one :class:`SeatRound` per seat of each round.

Read through the journal's own readers: :func:`shoe.journal.reconstruct.reconstruct_round` (cards in
dealing order, NY 5324.38(e)(8), PA 655a.11(j)) and :func:`shoe.journal.present.present_round`
(each seat's outcome, wagered and net, the community cards numbered 1-3: its parts ``_results`` and
``_community``, without the deep copy into shown forms that 10,000 rounds cannot afford), so the report reads every
journal ``journal show`` reads, the first release's included.  Only the stored forms are used; no card
leaves this module except into the report's figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from shoe.cards import Card, CardError
from shoe.journal import Entry, Journal
from shoe.journal.present import _community, _people, _results  # present_round's own parts, without its deep copy
from shoe.journal.reconstruct import reconstruct_round

__all__ = ["RoundInfo", "SeatRound", "read_rounds", "rounds_of"]


@dataclass
class SeatRound:
    """One Mississippi stud seat in one settled round (cents; cards as indices 0..51, -1 unknown)."""

    seat: int
    ante: int
    wagered: int  # the ante and the street bets
    net: int  # the player's net on them (negative: the house won)
    hole: tuple[int, int] | None  # None: not both cards readable
    decisions: list[int]  # multiples on 3rd, 4th, 5th street, in order (0 = fold)
    side: list[tuple[str, int, int]]  # (bet, stake, net) per side wager
    forfeited: bool = False


@dataclass
class RoundInfo:
    round_id: str
    table: str
    opened: datetime | None
    game: str
    jurisdiction: str
    status: str  # complete, void, open
    community: list[int] = field(default_factory=list)  # turned over, numbered 1-3 in order; -1 unknown
    seats: list[SeatRound] = field(default_factory=list)
    returned: int = 0  # cents returned in a void round
    irregularities: dict[str, int] = field(default_factory=dict)  # irregularity entries by action
    dealer: str = "no one signed in"  # the first employee the round's entries name: its dealer


def _card(code: Any) -> int:
    try:
        return Card.parse(str(code)).index if code else -1
    except CardError:
        return -1


def _table(round_id: str) -> str:
    """The table of a round id ``{table}-{YYYYmmddTHHMMSSZ}-{hex}`` (the service's form)."""
    parts = round_id.rsplit("-", 2)
    return parts[0] if len(parts) == 3 else round_id


def _time(ts: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(ts))
    except ValueError:
        return None


def _records(events: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    for event in events:
        data = event.get("data")
        record = data.get("record") if isinstance(data, Mapping) else None
        if isinstance(record, Mapping):
            yield record


def rounds_of(entries: list[Entry]) -> RoundInfo:
    """One round from its entries."""
    r = reconstruct_round(entries)
    results = _results(r)  # what present_round adds per seat (outcome, wagered, net, returned), uncopied
    p: dict[str, Any] = {
        "community_cards": _community(r),
        "seats": [{**seat, **results.get(str(seat["seat"]), {})} for seat in r["seats"]],
    }
    closed = (r.get("closed") or {}).get("outcome")
    info = RoundInfo(
        round_id=str(r["round_id"]),
        table=_table(str(r["round_id"])),
        opened=_time(r["opened"]),
        game=str(r.get("game") or "?"),
        jurisdiction=str(r.get("jurisdiction") or "?"),
        status="open" if r.get("closed") is None else ("void" if closed == "void" else "complete"),
    )
    people = _people(r)
    if people:
        info.dealer = f"{people[0]['name']} ({people[0]['id']})"
    for event in r["irregularities"]:
        action = str((event.get("data") or {}).get("action") or "other")
        info.irregularities[action] = info.irregularities.get(action, 0) + 1
    if info.game != "mississippi-stud":
        return info
    info.community = [_card(c.get("card")) for c in sorted(p["community_cards"], key=lambda c: c["number"])]
    decisions: dict[str, list[int]] = {}
    forfeits = set()
    for record in _records(r["decisions"]):
        if record.get("type") == "DecisionRecord" and type(record.get("multiple")) is int:
            decisions.setdefault(str(record.get("seat")), []).append(record["multiple"])
        elif record.get("type") == "ForfeitRecord":
            forfeits.add(str(record.get("seat")))
    sides: dict[str, list[tuple[str, int, int]]] = {}
    for record in _records(r["settlements"]):
        for line in record.get("side") or []:
            if isinstance(line, Mapping) and type(line.get("stake")) is int and type(line.get("net")) is int:
                sides.setdefault(str(record.get("seat")), []).append((str(line.get("bet")), line["stake"], line["net"]))
    for seat in p["seats"]:
        key = str(seat["seat"])
        if seat.get("returned"):
            info.returned += int(seat["returned"])
        if info.status != "complete" or not isinstance(seat.get("net"), int) or not str(key).isdigit():
            continue
        cards = [_card(c.get("card")) for c in seat["cards"]]
        wagers: Mapping[str, Any] = seat["wagers"] if isinstance(seat.get("wagers"), Mapping) else {}
        ante = int(wagers["ante"]) if type(wagers.get("ante")) is int else 0
        info.seats.append(SeatRound(
            seat=int(key), ante=ante, wagered=int(seat.get("wagered") or 0), net=int(seat["net"]),
            hole=(cards[0], cards[1]) if len(cards) == 2 and min(cards) >= 0 else None,
            decisions=decisions.get(key, []), side=sides.get(key, []), forfeited=key in forfeits,
        ))  # fmt: skip
    return info


def read_rounds(journal: Journal) -> Iterator[RoundInfo]:
    """Every round of the journal, in the order they were opened (entries of one round kept together)."""
    rounds: dict[str, list[Entry]] = {}
    order: list[str] = []
    for entry in journal.entries():
        if entry.round_id is None:
            continue
        if entry.round_id not in rounds:
            rounds[entry.round_id] = []
            order.append(entry.round_id)
        rounds[entry.round_id].append(entry)
        if entry.kind == "round-closed":
            yield rounds_of(rounds.pop(entry.round_id))
    for rid in order:
        if rid in rounds:
            yield rounds_of(rounds.pop(rid))
