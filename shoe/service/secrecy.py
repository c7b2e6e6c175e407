"""The one place that decides what of a round may be shown: responses, events, views, log lines.

The same rule for every role (dealer, technician, observer, table system):

- a Mississippi stud hole card only once its seat is settled (a folded hand collected at the fold is
  never shown; a void round never shows its hands);
- a community card only once it is revealed;
- a seven-card stud down card only at the showdown, and only for the players in it; burn cards never;
  up cards and the common card as soon as they are dealt;
- free text (misdeal details, refusal messages) has anything that looks like a card code replaced.

The journal holds everything; what leaves the service goes through :func:`public_record`,
:func:`project` or the ``*_view`` functions here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

__all__ = ["CARD_CODE", "mississippi_view", "project", "public_record", "scrub_text", "stud_view"]

CARD_CODE = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs])+(?![A-Za-z0-9])")
"""One card code (``As``) or a run of them written together (``AsKd7c``, a deck), as a word of its own."""
HIDDEN = "??"
_CARD_KEYS = frozenset({"card", "cards", "community", "burns", "hole", "magic_card", "down", "showdown"})
_IDENTIFIER_KEYS = frozenset({"type", "kind", "line", "hand", "category", "code", "rule", "outcome", "state"})
"""Values that are fixed vocabulary, never free text: ``pair-6s-to-10s`` names a paytable line, not a card."""


def _public_value(key: str, value: object) -> object:
    return scrub_text(value) if isinstance(value, str) and key not in _IDENTIFIER_KEYS else value


@cache
def _identifiers() -> re.Pattern[str]:
    """Fixed vocabulary that contains a card-like word and stays readable: ``pair-6s-to-10s`` is a paytable line."""
    from shoe.rules.paytables import BaseHand

    names = sorted((h.value for h in BaseHand if CARD_CODE.search(h.value)), key=len, reverse=True)
    return re.compile("|".join(rf"(?<![A-Za-z0-9-]){re.escape(n)}(?![A-Za-z0-9-])" for n in names) or r"(?!)")


def scrub_text(text: str) -> str:
    """Replace every card code in free text, alone (``As``) or written together (``AsKd7c``).

    Paytable line names (``pair-6s-to-10s``) are vocabulary, not cards, and stay as they are.
    """
    parts = _identifiers().split(text)
    names = _identifiers().findall(text)
    out = [CARD_CODE.sub(HIDDEN, parts[0])]
    for name, part in zip(names, parts[1:], strict=True):
        out += [name, CARD_CODE.sub(HIDDEN, part)]
    return "".join(out)


def _count(value: object) -> int | None:
    return len(value) if isinstance(value, list | tuple) else None


def public_record(rec: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A journaled rules record (``codec.encode`` form) as anyone may see it."""
    if rec is None:
        return None
    kind = rec.get("type")
    out = {k: _public_value(k, v) for k, v in rec.items() if k not in _CARD_KEYS}
    if kind in ("StackRecord", "CommunityDealtRecord"):
        out["cards"] = _count(rec.get("cards"))
    elif kind == "RevealRecord":
        out["card"] = rec.get("card")
    elif kind == "SeatSettlement":  # the seat is settled now: its hand is shown
        out["cards"], out["community"] = rec.get("cards"), rec.get("community")
    elif kind == "TableSystemRecord":  # drawn by the system and announced: not a dealt card
        out["magic_card"] = rec.get("magic_card")
    elif kind == "CardDealt":
        up = bool(rec.get("face_up")) and rec.get("target") in ("seat", "common")
        out["card"] = rec.get("card") if up else None
    elif kind == "BurnsReshuffled":
        out["burns"] = _count(rec.get("burns"))
    return out


def _card_event(data: Mapping[str, Any]) -> dict[str, Any]:
    up = data.get("face") == "up" and data.get("target") in ("seat", "common")
    keys = ("target", "seat", "index", "dispense_id", "position", "face", "status", "street")
    event = {k: data.get(k) for k in keys if k in data}
    event["card"] = data.get("card") if up else None
    return event


def _settlement_event(data: Mapping[str, Any]) -> dict[str, Any]:
    if "record" in data:  # Mississippi: one seat, settled now
        rec = public_record(data["record"]) or {}
        return {"seat": data.get("seat"), **{k: v for k, v in rec.items() if k not in ("type", "kind")}}
    showdown = data.get("showdown")  # seven-card stud: the players in the showdown show their hands
    return {"awards": data.get("awards", []), "showdown": showdown, "uncontested": data.get("uncontested")}


_DECISIONS = {"decide": "decision", "stud-action": "decision"}
"""Players' decisions are ``decision`` events; the dealer's steps keep their action's name."""
_TYPES = {
    ("fault", "raised"): "shoe-fault",
    ("fault", "cleared"): "shoe-fault-cleared",
    ("link", "lost"): "link-lost",
    ("link", "restored"): "link-restored",
    ("link", "resynced"): "link-resynced",
    ("link", "rebooted"): "shoe-rebooted",
    ("irregularity", "paused"): "round-paused",
    ("irregularity", "resumed"): "round-resumed",
    ("irregularity", "void"): "irregularity",
}


def project(seq: int, ts: str, kind: str, round_id: str | None, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The events one journal entry makes visible (possibly none), secrecy-filtered."""
    base: dict[str, Any] = {"cursor": seq, "ts": ts, "round_id": round_id}
    body: dict[str, Any]
    if kind == "card":
        if (data.get("record") or {}).get("type") != "CardDealt":
            return []  # Mississippi: the stack entry announces the stack; the reveal shows a community card
        return [{**base, "type": "stack-dealt", **_card_event(data)}]
    if kind == "decision":
        action = str(data.get("action"))
        body = {k: v for k, v in data.items() if k != "record" and k not in _CARD_KEYS}
        body["record"] = public_record(data.get("record"))
        return [{**base, "type": _DECISIONS.get(action, action), **body}]
    if kind == "reveal":
        shown = (data.get("record") or {}).get("type") == "RevealRecord"
        return [{**base, "type": "reveal", "index": data.get("index"), "card": data.get("card") if shown else None}]
    if kind == "settlement":
        return [{**base, "type": "settlement", **_settlement_event(data)}]
    if kind == "round-opened":
        opened = ("game", "jurisdiction", "table", "seats", "stub_size")
        return [{**base, "type": "round-opened", **{k: data[k] for k in opened if k in data}}]
    if kind == "round-closed":
        closed = ("outcome", "cause", "seats", "returned", "pot")
        body = {k: data[k] for k in closed if k in data}
        return [{**base, "type": "round-closed", **body}]
    event_type = _TYPES.get((kind, str(data.get("event"))), kind)
    body = {k: _public_value(k, v) for k, v in data.items() if k not in _CARD_KEYS}
    body.pop("record", None)
    if "record" in data:
        body["record"] = public_record(data["record"])
    return [{**base, **body, "type": event_type}]


def mississippi_view(r: Any, meta: Mapping[str, Any]) -> dict[str, Any]:
    """A Mississippi stud round as anyone may see it (``r`` is a ``MississippiRound``)."""
    view = r.public_state()
    seats = {
        str(s.seat): {
            "ante": s.ante,
            "bets": list(s.bets),
            "side": dict(s.side),
            "status": s.status,
            "cards": list(s.cards) if s.cards is not None and s.status == "settled" else None,
        }
        for s in view.seats
    }
    revealed = [c for c in view.community if c is not None]
    settled = [public_record(_rec(x)) for x in r.records if type(x).__name__ == "SeatSettlement"]
    misdeal = next((x for x in r.records if type(x).__name__ == "MisdealRecord"), None)
    deciding = view.next_to_decide
    street = r.street
    return {
        **meta,
        "state": view.state,
        "paused": view.state == "paused",
        "seats": seats,
        "community": [*revealed, *([None] * (len(view.community) - len(revealed)))],
        "next_stack_seat": view.next_stack_seat,
        "next_to_decide": deciding,
        "legal_decisions": [0, *r.profile.bet_multiples] if deciding is not None else [],
        "next_reveal": len(revealed) + 1 if street is not None and deciding is None else None,
        "next_to_settle": view.next_to_settle,
        "cap": view.cap,
        "settled": settled,
        "misdeal": None if misdeal is None else {"cause": misdeal.cause.value, "detail": scrub_text(misdeal.detail)},
    }


def _rec(record: Any) -> dict[str, Any]:
    from shoe.service.codec import encode_record

    return encode_record(record)


def stud_view(hand: Any, meta: Mapping[str, Any]) -> dict[str, Any]:
    """A seven-card stud hand as anyone may see it (``hand`` is a ``StudHand``)."""
    public = hand.public_view().as_dict()
    step = hand.next_card
    legal = [{"seat": a.seat, "action": a.kind.value, "amount": a.amount, "to": a.to} for a in hand.legal_actions()]
    return {
        **meta,
        **public,
        "state": hand.phase.value,
        "next_card": None if step is None else {"target": step.target.value, "seat": step.seat, "up": step.face_up},
        "legal_actions": legal,
    }
