"""A round rebuilt from its journal entries, in dealing order (NY 5324.38(e)(8), PA 655a.11(j)). Pure.

``reconstruct_round`` gives one JSON-able dict in the journal's stored forms (a release's journal
reconstructs the same forever: tests/journal/test_release_fixtures.py); :mod:`shoe.journal.present`
turns it into what ``shoectl journal show`` prints. Cards come from ``card`` entries only, in seq
order, which is the order they were dealt.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from shoe.journal.chain import Entry

# Free-form entry kinds, each listed under its own heading.
EVENT_KINDS = {
    "decision": "decisions",
    "reveal": "reveals",
    "settlement": "settlements",
    "irregularity": "irregularities",
    "fault": "faults",
    "link": "links",
    "technician": "technician",
}
CARD_TARGETS = {"burn": "burns", "common": "common", "community": "community"}


def _card(entry: Entry) -> dict[str, Any]:
    d = entry.data
    keys = ("target", "seat", "index", "dispense_id", "position", "card", "face", "status")
    return {"seq": entry.seq, **{k: d.get(k) for k in keys}}


def _seat_key(seat: Any) -> tuple[int, str]:
    return (int(seat), "") if isinstance(seat, int) or str(seat).isdigit() else (1 << 30, str(seat))


def opened_seats(seats: Any) -> dict[str, Any]:
    """The ``round-opened`` entry's seats as ``{"1": wagers or None}``, in the order given.

    Mississippi stud journals a mapping, ``{"1": {"ante": 1000, "side": {...}}}``; seven-card stud a list
    of seat numbers, ``[1, 2, 4]`` (its antes are in ``records``). A list of objects with ``seat``
    (``[{"seat": 1, "ante": 1000}]``) is read too. Anything else gives no seats.
    """
    if isinstance(seats, Mapping):
        return {str(k): v for k, v in seats.items()}
    out: dict[str, Any] = {}
    if isinstance(seats, list):
        for item in seats:
            if isinstance(item, Mapping) and "seat" in item:
                out[str(item["seat"])] = {k: v for k, v in item.items() if k != "seat"} or None
            elif isinstance(item, int | str) and not isinstance(item, bool):
                out[str(item)] = None
    return out


def reconstruct_round(entries: Iterable[Entry]) -> dict[str, Any]:
    """The round's story from its entries (any order in, seq order out)."""
    result: dict[str, Any] = {
        "round_id": None,
        "game": None,
        "jurisdiction": None,
        "table": None,
        "opened": None,
        "closed": None,
        "first_seq": None,
        "last_seq": None,
        "dealing_order": [],
        "seats": [],
        "community": [],
        "common": [],
        "burns": [],
        **{name: [] for name in EVENT_KINDS.values()},
        "other": [],
    }
    seats: dict[str, dict[str, Any]] = {}
    wagers: dict[str, Any] = {}
    for entry in sorted(entries, key=lambda e: e.seq):
        if result["first_seq"] is None:
            result.update(round_id=entry.round_id, first_seq=entry.seq)
        result["last_seq"] = entry.seq
        event = {"seq": entry.seq, "ts": entry.ts, "data": entry.data}
        if entry.kind == "round-opened":
            d = entry.data
            result.update(game=d.get("game"), jurisdiction=d.get("jurisdiction"), table=d.get("table"), opened=entry.ts)
            wagers = opened_seats(d.get("seats"))
        elif entry.kind == "round-closed":
            result["closed"] = {**event, "outcome": entry.data.get("outcome")}
        elif entry.kind == "card":
            card = _card(entry)
            result["dealing_order"].append(card)
            if card["target"] == "seat":
                key = str(card["seat"])
                seats.setdefault(key, {"seat": card["seat"], "cards": []})["cards"].append(card)
            else:
                result[CARD_TARGETS.get(str(card["target"]), "other")].append(card)
        else:
            result[EVENT_KINDS.get(entry.kind, "other")].append({"kind": entry.kind, **event})
    for key in sorted(set(wagers) - set(seats), key=_seat_key):  # wagering seats that got no cards
        seats[key] = {"seat": int(key) if key.isdigit() else key, "cards": []}
    result["seats"] = [{**seat, "wagers": wagers.get(key)} for key, seat in seats.items()]
    return result


def card_text(card: dict[str, Any]) -> str:
    tags = [t for t in ("up" if card.get("face") == "up" else "", card.get("status") or "ok") if t and t != "ok"]
    return (card.get("card") or "??") + (f"({','.join(tags)})" if tags else "")
