"""A reconstructed round as an auditor reads it: ``shoectl journal show --round`` (text and ``--json``).

:func:`~shoe.journal.reconstruct.reconstruct_round` gives the round in its **stored** forms (what the
journal holds, unchanged across releases); :func:`present_round` gives the **shown** forms, the same
in the text and in ``--json`` (docs/journal.md, "Stored forms and shown forms"):

- a boot id is stored as the shoe's integer and shown as 8 lower-case hex digits (``bc0d06ec``);
- community cards are numbered 1, 2, 3, the layout's 3rd, 4th and 5th street, everywhere shown.
  The ``reveal`` entry and the API already count so; a ``RevealRecord``'s stored ``index`` is the
  rules engine's 0-based one and is shown plus one;
- each seat gets its result: ``outcome`` and ``folded_on`` (the street of a fold), ``wagered`` (cents
  on the ante and street bets; stud: the chips put in the pot), ``net`` (cents won or lost on them,
  as the ``round-closed`` entry has it), ``side_results`` (each side wager: bet, result, net) and, in
  a void round, ``returned``;
- times are stored in UTC (ISO 8601, ``Z``); the text shows them in local time with the zone.

Pure: no I/O. NY 5324.38(e)(8), PA 655a.11(j): the round in dealing order, every card and wager.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from protocols.bootid import BOOT_ID_KEYS, boot_id_text
from shoe.journal.reconstruct import EVENT_KINDS, card_text

__all__ = ["local_time", "present_round", "round_text"]

STREETS = {3: "3rd", 4: "4th", 5: "5th", 6: "6th", 7: "7th"}
COMMUNITY_STREETS = ("3rd", "4th", "5th")
"""Mississippi stud community card n (1-based) is turned over on the street COMMUNITY_STREETS[n - 1]."""


def shown(value: Any) -> Any:
    """``value`` (an entry's data, at any depth) in its shown forms: boot ids in hex, reveal indexes 1-based."""
    if isinstance(value, list):
        return [shown(v) for v in value]
    if not isinstance(value, Mapping):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in BOOT_ID_KEYS and type(item) is int:
            out[key] = boot_id_text(item)
        else:
            out[key] = shown(item)
    if out.get("type") == "RevealRecord" and type(out.get("index")) is int:
        out["index"] += 1  # the engine's 0-based index, stored as it was: community card n is shown as n
    return out


def present_round(r: Mapping[str, Any]) -> dict[str, Any]:
    """``r`` (from ``reconstruct_round``) in its shown forms, with each seat's result and the community
    cards numbered 1-3; what ``shoectl journal show --round`` prints."""
    out: dict[str, Any] = copy.deepcopy(dict(r))
    for name in (*EVENT_KINDS.values(), "other"):
        out[name] = [{**e, "data": shown(e["data"])} for e in out[name]]
    if out.get("closed"):
        out["closed"] = {**out["closed"], "data": shown(out["closed"].get("data"))}
    results = _results(r)
    out["seats"] = [{**seat, **results.get(str(seat["seat"]), {})} for seat in out["seats"]]
    out["community_cards"] = _community(r)
    out["people"] = _people(r)
    return out


def _people(r: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Who caused the round's entries (their ``by``): id, name and how many, in order of first act."""
    found: dict[str, dict[str, Any]] = {}
    for name in (*EVENT_KINDS.values(), "other"):
        for e in r.get(name) or ():
            by = e["data"].get("by") if isinstance(e.get("data"), Mapping) else None
            if isinstance(by, Mapping) and isinstance(by.get("id"), str):
                person = found.setdefault(by["id"], {"id": by["id"], "name": by.get("name"), "entries": 0,
                                                     "first_seq": e["seq"]})  # fmt: skip
                person["entries"] += 1
                person["first_seq"] = min(person["first_seq"], e["seq"])
    return sorted(found.values(), key=lambda p: p["first_seq"])


def _results(r: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per seat: outcome, wagered, net, folded_on, returned (None where the journal does not say)."""
    closed = (r.get("closed") or {}).get("data") or {}
    closing: Mapping[str, Any] = closed["seats"] if isinstance(closed.get("seats"), Mapping) else {}
    put_in, folded = _bets(r)
    returned = _returned(r)
    awards = _awards(r)
    results = {}
    for seat in r["seats"]:
        key = str(seat["seat"])
        row: Mapping[str, Any] = closing[key] if isinstance(closing.get(key), Mapping) else {}
        settled = _settlement(r, key)
        outcome = row.get("outcome") or settled.get("outcome")
        net = row.get("net") if row.get("net") is not None else settled.get("net")
        wagered = _ante(seat.get("wagers")) + put_in.get(key, 0)
        if r.get("game") == "seven-card-stud":
            ante = (r.get("table") or {}).get("ante")
            wagered = put_in.get(key, 0) + (ante if type(ante) is int else 0)
            if isinstance(net, int) and key in awards:
                wagered = awards[key] - net  # what the pot paid, less the net: exact whatever the antes were
        results[key] = {
            "outcome": outcome,
            "folded_on": folded.get(key),
            "wagered": wagered,
            "net": net,
            "returned": returned.get(key),
            "side_results": _side(settled),
        }
    return results


def _ante(wagers: Any) -> int:
    """The ante of the ``round-opened`` entry's wagers (side wagers are settled apart: ``side``)."""
    ante = wagers.get("ante") if isinstance(wagers, Mapping) else None
    return ante if type(ante) is int else 0


def _side(record: Mapping[str, Any]) -> list[str]:
    """A settled seat's side wagers as ``bet result net`` (``three-card-bonus win +500``)."""
    lines = []
    for line in record.get("side") or []:
        if isinstance(line, Mapping):
            lines.append(f"{line.get('bet')} {line.get('result')} {_cents(line.get('net'), signed=True)}")
    return lines


def _records(r: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
    records = []
    for event in r[name]:
        data = event.get("data")
        record = data.get("record") if isinstance(data, Mapping) else None
        if isinstance(record, Mapping):
            records.append(record)
    return records


def _bets(r: Mapping[str, Any]) -> tuple[dict[str, int], dict[str, str]]:
    """Cents bet after the deal per seat, and the street each folded seat folded on."""
    bets: dict[str, int] = {}
    folded: dict[str, str] = {}
    for record in _records(r, "decisions"):
        seat, street, amount = str(record.get("seat")), record.get("street"), record.get("amount")
        if record.get("type") not in ("DecisionRecord", "BettingAction"):
            continue
        if type(amount) is int:
            bets[seat] = bets.get(seat, 0) + amount
        if record.get("multiple") == 0 or record.get("kind") == "fold":
            label = STREETS.get(int(str(street)), str(street)) if str(street).isdigit() else "?"
            folded[seat] = f"{label} street"
    return bets, folded


def _returned(r: Mapping[str, Any]) -> dict[str, int]:
    for record in _records(r, "irregularities"):
        if record.get("type") == "MisdealRecord" and isinstance(record.get("returned"), list):
            return {str(seat): cents for seat, cents in record["returned"]}
    return {}


def _awards(r: Mapping[str, Any]) -> dict[str, int]:
    awards: dict[str, int] = {}
    for event in r["settlements"]:
        for award in (event.get("data") or {}).get("awards") or []:
            if isinstance(award, Mapping) and type(award.get("amount")) is int:
                key = str(award.get("seat"))
                awards[key] = awards.get(key, 0) + award["amount"]
    return awards


def _settlement(r: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    for record in _records(r, "settlements"):
        if str(record.get("seat")) == key:
            return record
    return {}


def _community(r: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Community cards numbered 1-3 (3rd/4th/5th street): the reveal entries' own (1-based) number,
    else the order the cards were turned over."""
    reveals = [e for e in r["reveals"] if isinstance(e.get("data"), Mapping)]
    cards = []
    for n, card in enumerate(r["community"], 1):
        reveal = next((e for e in reveals if e["data"].get("card") == card.get("card")), None)
        number = reveal["data"].get("index") if reveal is not None else None
        number = number if type(number) is int and 1 <= number <= 3 else n
        street = COMMUNITY_STREETS[number - 1] if 1 <= number <= 3 else None
        source = reveal["data"].get("source") if reveal else None
        cards.append({"number": number, "street": street, "card": card.get("card"), "face": card.get("face"),
                      "status": card.get("status"), "seq": card.get("seq"), "source": source})  # fmt: skip
    return cards


def local_time(ts: Any) -> str:
    """A stored UTC time (``2026-12-01T09:13:02.695766Z``) in local time with its zone, to the millisecond."""
    if not isinstance(ts, str):
        return "?"
    try:
        moment = datetime.fromisoformat(ts).astimezone()
    except ValueError:
        return ts
    offset = moment.strftime("%z")
    return (
        f"{moment:%Y-%m-%d %H:%M:%S}.{moment.microsecond // 1000:03d} {moment.tzname()} (UTC{offset[:3]}:{offset[3:]})"
    )


def _free(data: Any) -> str:
    if not isinstance(data, dict):
        return json.dumps(data)
    return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, separators=(',', ':'))}" for k, v in data.items())


def _cents(value: Any, signed: bool = False) -> str:
    if type(value) is not int:
        return "-"
    return f"{value:+d}" if signed and value else str(value)


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [
            cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def round_text(r: Mapping[str, Any]) -> str:
    """The presented round (:func:`present_round`) for people: aligned columns, local times."""
    closed = r["closed"]
    lines = [
        f"round {r['round_id']}: {r['game'] or '?'}, {r['jurisdiction'] or '?'}; "
        f"entries {r['first_seq']}-{r['last_seq']}",
        f"  opened  {local_time(r['opened']) if r['opened'] else '(no round-opened entry)'}",
        f"  closed  {local_time(closed['ts'])}: {closed['outcome'] or '?'}" if closed else "  closed  not closed",
    ]
    if r["seats"]:
        rows = [["seat", "cards", "outcome", "wagered", "net", "returned", "side wagers", "wagers at the open"]]
        for seat in r["seats"]:
            outcome = seat.get("outcome") or "?"
            if seat.get("folded_on"):
                outcome = f"FOLDED {seat['folded_on']}" if outcome in ("fold", "?") else f"{outcome} (folded)"
            rows.append([
                str(seat["seat"]),
                " ".join(card_text(c) for c in seat["cards"]) or "(no cards)",
                outcome,
                _cents(seat.get("wagered")),
                _cents(seat.get("net"), signed=True),
                _cents(seat.get("returned")),
                ", ".join(seat.get("side_results") or []) or "-",
                _free(seat["wagers"] or {}) or "-",
            ])  # fmt: skip
        lines += [
            "seats in dealing order (cents; wagered and net: the ante and street bets, stud: the pot):",
            *_table(rows, right={0, 3, 4, 5}),
        ]
    else:
        lines.append("seats: none")
    if r.get("community_cards"):
        rows = [["card", "street", "", "entry"]]
        for c in r["community_cards"]:
            rows.append([str(c["number"]), f"{c['street'] or '?'} street", card_text(c), f"#{c['seq']}"])
        lines += ["community cards (1, 2, 3: turned over on 3rd, 4th, 5th street):", *_table(rows, right={0})]
    for name, label in (("common", "common card"), ("burns", "burns")):
        if r[name]:
            lines.append(f"{label}: {' '.join(card_text(c) for c in r[name])}")
    for name in (*EVENT_KINDS.values(), "other"):
        if r[name]:
            lines.append(f"{name}:")
            for e in r[name]:
                kind = f"{e['kind']} " if name == "other" else ""
                lines.append(f"  #{e['seq']:<5} {local_time(e['ts'])}  {kind}{_free(e['data'])}")
    if not r["irregularities"]:
        lines.append("irregularities: none")
    if r.get("people"):
        acts = [f"{p['name']} ({p['id']}), {p['entries']} {'entry' if p['entries'] == 1 else 'entries'}"
                for p in r["people"]]
        lines.append("people: " + "; ".join(acts))
    lines.append(
        "(9h(up) = dealt face up; a card's status other than ok follows it in brackets; ?? = not identified; "
        "times are local, the journal stores UTC; boot ids in hex)"
    )
    return "\n".join(lines)
