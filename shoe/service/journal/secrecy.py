"""The one place that decides what of a round may be shown: responses, events, views, log lines.

The same rule for every role (dealer, technician, observer, table system):

- a Mississippi stud hole card only once its seat is settled (a folded hand collected at the fold is
  never shown; a void round never shows its hands);
- a community card only once it is revealed;
- a seven-card stud down card only at the showdown, and only for the players in it; burn cards never;
  up cards and the common card as soon as they are dealt;
- free text (misdeal details, refusal messages) has anything that looks like a card code replaced.

Which field shows from which moment is declared in :mod:`shoe.service.journal.visibility`, type by type
(rules records, views) and kind by kind (derived from the rule each journal payload field declares on
itself, :mod:`shoe.service.journal.show`): an allow-list, so a field nobody declared is never shown.

The journal holds everything; what leaves the service goes through :func:`public_record`,
:func:`public_payload`, :func:`project` or the ``*_view`` functions here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from shoe.rules.mississippi import MisdealRecord, SeatSettlement
from shoe.service.journal.visibility import PAYLOADS, RECORDS, VIEWS, Before

if TYPE_CHECKING:  # errors imports this module (scrub_text)
    from shoe.service.errors import Role
    from shoe.service.journal.visibility import Show

__all__ = [
    "CARD_CODE", "mississippi_view", "project", "public_payload", "public_record", "public_view", "scrub_text",
    "stud_view",
]  # fmt: skip

CARD_CODE = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs])+(?![A-Za-z0-9])")
"""One card code (``As``) or a run of them written together (``AsKd7c``, a deck), as a word of its own."""
HIDDEN = "??"
ROUND_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}")
"""A round id (``MS-04-20261201T091500Z-7c2d9c``, see ``rounds.new_round_id``): its hex tail may look like cards."""


@cache
def _scrubber() -> re.Pattern[str]:
    """Card codes, after the words that may look like them and stay readable: paytable lines, round ids."""
    from shoe.rules.paytables import BaseHand

    lines = sorted((re.escape(h.value) for h in BaseHand if CARD_CODE.search(h.value)), key=len, reverse=True)
    keep = "|".join(rf"(?<![A-Za-z0-9-]){n}(?![A-Za-z0-9-])" for n in [*lines, ROUND_ID.pattern])
    return re.compile(rf"(?P<keep>{keep})|{CARD_CODE.pattern}")


def scrub_text(text: str) -> str:
    """Replace every card code in free text, alone (``As``) or written together (``AsKd7c``).

    Paytable line names (``pair-6s-to-10s``) and round ids (``MS-04-20261201T091500Z-7c2d9c``) are
    vocabulary, not cards, and stay as they are.
    """
    return _scrubber().sub(lambda m: m.group() if m.lastgroup == "keep" else HIDDEN, text)


def _shown(rules: Mapping[str, Show], data: Mapping[str, Any], role: Role | None) -> dict[str, Any]:
    """The declared fields of ``data`` that are due, each as its rule shows it; undeclared fields never."""
    out: dict[str, Any] = {}
    for name, value in data.items():
        show = rules.get(name)
        if show is None or name == "type":
            continue
        if show.plain:
            out[name] = value
            continue
        if not show.due(data):
            if show.before is Before.NULL:
                out[name] = None
            elif show.before is Before.COUNT:
                out[name] = len(value) if isinstance(value, list | tuple) else None
            continue
        if show.nested:
            out[name] = _nested(value, role)
        elif show.form is not None:
            out[name] = show.form(value)
        else:
            out[name] = scrub_text(value) if show.text and isinstance(value, str) else value
    return out


def _nested(value: object, role: Role | None) -> object:
    if isinstance(value, Mapping):
        return public_record(value, role)
    if isinstance(value, list | tuple):
        return [public_record(v, role) if isinstance(v, Mapping) else v for v in value]
    return value


def public_record(rec: Mapping[str, Any] | None, role: Role | None = None) -> dict[str, Any] | None:
    """A journaled rules record (``codec.encode`` form) as ``role`` (any role: ``None``) may see it.

    Only the fields its type declares in :data:`shoe.service.journal.visibility.RECORDS`, from their moment on;
    a type that declares nothing shows only its tag.
    """
    if rec is None:
        return None
    tag = rec.get("type")
    declared = RECORDS.get(tag) if isinstance(tag, str) else None
    if declared is None:
        return {"type": tag if isinstance(tag, str) else None}
    return {"type": tag, **_shown(declared.rules(role), rec, role)}


def public_payload(kind: str, data: Mapping[str, Any], role: Role | None = None) -> dict[str, Any] | None:
    """A journal entry's payload as ``role`` may see it; ``None`` for a kind that declares nothing."""
    declared = PAYLOADS.get(kind)
    return None if declared is None else _shown(declared.rules(role), data, role)


def public_view(name: str, data: Mapping[str, Any], role: Role | None = None) -> dict[str, Any]:
    """One of the service's views (:data:`shoe.service.journal.visibility.VIEWS`): only its declared fields."""
    return _shown(VIEWS[name].rules(role), data, role)


_DECISIONS = {"decide": "decision", "stud-action": "decision"}
"""Players' decisions are ``decision`` events; the dealer's steps keep their action's name."""
_TYPES = {
    ("fault", "raised"): "shoe-fault",
    ("fault", "cleared"): "shoe-fault-cleared",
    ("fault", "alarm"): "shoe-alarm",
    ("link", "lost"): "link-lost",
    ("link", "restored"): "link-restored",
    ("link", "resynced"): "link-resynced",
    ("link", "rebooted"): "shoe-rebooted",
    ("irregularity", "paused"): "round-paused",
    ("irregularity", "resumed"): "round-resumed",
    ("irregularity", "void"): "irregularity",
    ("deck", "loaded"): "deck-loaded",  # the journal's facts; the ``deck`` event carries the deck view
    ("deck", "checked"): "deck-checked",
    ("deck", "released"): "deck-released",
}


def project(
    seq: int, ts: str, kind: str, round_id: str | None, data: Mapping[str, Any], *, role: Role | None = None
) -> list[dict[str, Any]]:
    """The events one journal entry makes visible (possibly none), secrecy-filtered."""
    base: dict[str, Any] = {"cursor": seq, "ts": ts, "round_id": round_id}
    body = public_payload(kind, data, role)
    if body is None:  # a kind with no declaration: that it happened, nothing of what it holds
        return [{**base, "type": kind}]
    if kind == "card":
        record = data.get("record")
        if not isinstance(record, Mapping) or record.get("type") != "CardDealt":
            return []  # Mississippi: the stack entry announces the stack; the reveal shows a community card
        return [{**base, "type": "stack-dealt", **body}]
    if kind == "decision":
        action = str(data.get("action"))
        return [{**base, "type": _DECISIONS.get(action, action), **body, "record": body.get("record")}]
    if kind == "settlement":
        record = body.pop("record", None)
        if record is not None:  # Mississippi: one seat, settled now
            shown = {k: v for k, v in record.items() if k not in ("type", "kind")}
            return [{**base, "type": "settlement", "seat": body.get("seat"), **shown}]
        stud = {
            "awards": body.get("awards", []),
            "showdown": body.get("showdown"),
            "uncontested": body.get("uncontested"),
        }
        return [{**base, "type": "settlement", **stud}]
    if kind in ("reveal", "round-opened", "round-closed"):
        return [{**base, "type": kind, **body}]
    return [{**base, **body, "type": _TYPES.get((kind, str(data.get("event"))), kind)}]


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
    settled = [public_record(_rec(x)) for x in r.records if isinstance(x, SeatSettlement)]
    misdeal = next((x for x in r.records if isinstance(x, MisdealRecord)), None)
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
    from shoe.service.journal.codec import encode_record

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
