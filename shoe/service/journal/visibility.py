"""Who may see which field of a journaled record or entry, and from which moment of the round: an allow-list.

Every rules record type the codec knows (:func:`shoe.service.journal.codec.record_types`) and every journal
entry kind the service writes declares each of its fields here. A field that is not declared is never
shown; a record type that is not declared shows only its ``type`` tag; an entry kind that is not
declared shows nothing of its payload. ``tests/service/test_visibility.py`` fails when a type, a kind
or a field has no declaration.

A field is shown from its :class:`Moment` on:

- ``ALWAYS``: vocabulary, numbers and counts, as they are (``text=True``: free text, card codes scrubbed);
- ``DEALT_FACE_UP``: a seven-card stud up card and the common card, once dealt face up;
- ``REVEALED``: a Mississippi community card, once revealed;
- ``SEAT_SETTLED``: a Mississippi hand, once its seat is settled (a folded hand, collected at the fold,
  never is: it is in no settlement);
- ``SHOWDOWN``: a seven-card stud down card, at the showdown, for the players in it;
- ``NEVER``: burn cards, the stub, a stack's cards (they show through the moment above), internals.

The moment is either a property of the record that carries the field (a ``RevealRecord`` is made at the
reveal, a ``SeatSettlement`` when the seat is settled, a stud ``settlement`` entry at the showdown) or,
where one record serves before and after (``CardDealt``), a predicate ``reached`` on its fields. Before
its moment a field is left out, ``null``, or only counted (:class:`Before`).

Roles: dealer, technician, observer and table system see the same today (every role stands at the
table); ``Visibility.roles`` holds per-role overrides for the roles to come (surveillance).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from shoe.rules.mississippi.records import (
    ChipCountRecord,
    CommunityDealtRecord,
    DecisionRecord,
    ForfeitRecord,
    MisdealRecord,
    NoMoreBetsRecord,
    PauseRecord,
    ProgressiveLockRecord,
    ResumeRecord,
    RevealRecord,
    SeatSettlement,
    SideResult,
    StackRecord,
    StubRecord,
    TableSystemRecord,
    WagerLine,
    WagerRecord,
)
from shoe.rules.stud.records import AntePosted, BettingAction, BurnsReshuffled, CardDealt, PotAwarded
from shoe.service.journal.entries import EntryKind
from shoe.service.journal.show import (
    ALWAYS,
    BOOT_ID,
    COUNTED,
    NESTED,
    NEVER,
    TEXT,
    Before,
    Moment,
    Show,
    entry_face_up,
    revealed,
)

if TYPE_CHECKING:  # shoe.service.errors imports the secrecy module, which imports this one
    from shoe.service.errors import Role

__all__ = ["ALWAYS", "NEVER", "PAYLOADS", "RECORDS", "TEXT", "VIEWS", "Before", "Moment", "Show", "Visibility"]


def _community_number(value: Any) -> Any:
    return value + 1 if type(value) is int else value


@dataclass(frozen=True)
class Visibility:
    """The declared fields of one record type or entry kind, the same for every role unless overridden."""

    fields: Mapping[str, Show]
    roles: Mapping[Role, Mapping[str, Show]] = field(default_factory=lambda: MappingProxyType({}))

    def rules(self, role: Role | None) -> Mapping[str, Show]:
        override = self.roles.get(role) if role is not None else None
        return self.fields if override is None else {**self.fields, **override}


def _v(**fields: Show) -> Visibility:
    return Visibility(MappingProxyType(fields))


_RULE = {"rule": ALWAYS, "kind": ALWAYS}
"""Every Mississippi record cites its rule and names its kind."""


def _face_up(data: Mapping[str, Any]) -> bool:
    return bool(data.get("face_up")) and data.get("target") in ("seat", "common")


RECORDS: Mapping[str, Visibility] = MappingProxyType(
    {
        # -- Mississippi stud (shoe.rules.mississippi.records) --
        WagerRecord.TAG: _v(seat=ALWAYS, ante=ALWAYS, side=ALWAYS, **_RULE),
        NoMoreBetsRecord.TAG: _v(seats=ALWAYS, total_wagered=ALWAYS, **_RULE),
        ProgressiveLockRecord.TAG: _v(wagers_accepted=ALWAYS, **_RULE),
        ChipCountRecord.TAG: _v(counted=ALWAYS, expected=ALWAYS, **_RULE),
        StackRecord.TAG: _v(seat=ALWAYS, number=ALWAYS, cards=COUNTED, **_RULE),  # the hand shows at its settlement
        StubRecord.TAG: _v(counted=ALWAYS, expected=ALWAYS, **_RULE),
        CommunityDealtRecord.TAG: _v(source=ALWAYS, count=ALWAYS, cards=COUNTED, **_RULE),  # each shows at its reveal
        DecisionRecord.TAG: _v(
            seat=ALWAYS, street=ALWAYS, multiple=ALWAYS, amount=ALWAYS, forfeited=ALWAYS, hand_kept=ALWAYS, **_RULE
        ),
        # stored 0-based (the rules engine's), shown as community card 1-3 like the API and the reveal entry
        RevealRecord.TAG: _v(index=Show(form=_community_number), card=Show(Moment.REVEALED), **_RULE),
        ForfeitRecord.TAG: _v(seat=ALWAYS, forfeited=ALWAYS, total=ALWAYS, **_RULE),
        # drawn by the table system and announced to the table: not a dealt card
        TableSystemRecord.TAG: _v(meters=ALWAYS, magic_card=ALWAYS, lucky_seat=ALWAYS, **_RULE),
        MisdealRecord.TAG: _v(
            cause=ALWAYS,
            detail=TEXT,
            remedy=ALWAYS,
            returned=ALWAYS,
            total_returned=ALWAYS,
            deck_removed=ALWAYS,
            security_alert=ALWAYS,
            prior=ALWAYS,
            **_RULE,
        ),
        PauseRecord.TAG: _v(reason=TEXT, prior=ALWAYS, **_RULE),
        ResumeRecord.TAG: _v(to=ALWAYS, **_RULE),
        SeatSettlement.TAG: _v(
            seat=ALWAYS,
            cards=Show(Moment.SEAT_SETTLED),
            community=Show(Moment.SEAT_SETTLED),
            hand=ALWAYS,
            line=ALWAYS,
            outcome=ALWAYS,
            wagers=NESTED,
            computed=ALWAYS,
            paid=ALWAYS,
            cap=ALWAYS,
            capped=ALWAYS,
            net=ALWAYS,
            side=NESTED,
            **_RULE,
        ),
        WagerLine.TAG: _v(name=ALWAYS, stake=ALWAYS, result=ALWAYS, computed=ALWAYS, paid=ALWAYS),
        SideResult.TAG: _v(
            bet=ALWAYS,
            stake=ALWAYS,
            result=ALWAYS,
            hand=ALWAYS,
            computed=ALWAYS,
            paid=ALWAYS,
            net=ALWAYS,
            paid_from=ALWAYS,
            requires_floorperson=ALWAYS,
            note=TEXT,
            rule=ALWAYS,
        ),
        # -- seven-card stud (shoe.rules.stud) --
        AntePosted.TAG: _v(seat=ALWAYS, amount=ALWAYS),
        CardDealt.TAG: _v(
            card=Show(Moment.DEALT_FACE_UP, Before.NULL, reached=_face_up),  # a down card shows at the showdown
            target=ALWAYS,
            street=ALWAYS,
            seat=ALWAYS,
            face_up=ALWAYS,
        ),
        BurnsReshuffled.TAG: _v(burns=COUNTED, stub_cards=ALWAYS),
        BettingAction.TAG: _v(seat=ALWAYS, kind=ALWAYS, street=ALWAYS, amount=ALWAYS, to=ALWAYS, street_bet=ALWAYS),
        PotAwarded.TAG: _v(seat=ALWAYS, amount=ALWAYS, odd_chips=ALWAYS, uncontested=ALWAYS),
    }
)
"""Each rules record type, by its journal tag (the class's ``TAG``, never its name), and its fields."""

_RECORD = Show(nested=True)
"""A payload's ``record``: shown by the record type's own declaration."""
_POSITION = {"known_dispense_id": ALWAYS, "boot_id": BOOT_ID, "event_no": ALWAYS, "shoe": ALWAYS}
"""The shoe's position the owner adds to service, link and fault entries (serial, last event)."""

_PROGRAM = {name: ALWAYS for name in ("result", "release", "manifest_sha256", "key_id", "files", "differences",
                                      "named")}  # fmt: skip
_FIRMWARE = {name: ALWAYS for name in ("cause", "seed", "firmware", "bootloader", "image_size", "hmac")}
"""Program and firmware verification (shoe.service.verify.payloads): identities, digests, file names."""

_DECK_CHECK = {name: ALWAYS for name in ("ok", "count", "back", "missing", "extra", "duplicates", "foreign",
                                         "unreadable", "checked_faces", "problems", "who")}  # fmt: skip
"""A deck check's fields (the ``deck`` entry and the deck view's ``check``): counts, faces of a refused deck."""

_BY = {"by": ALWAYS}
"""The employee an entry names: on every kind, shown to every role (an id and a name)."""

PAYLOADS: Mapping[str, Visibility] = MappingProxyType(
    {
        EntryKind.ROUND_OPENED: _v(**_BY,
            game=ALWAYS,
            jurisdiction=ALWAYS,
            table=ALWAYS,
            seats=ALWAYS,
            stub_size=ALWAYS,
            shoe=NEVER,
            cards_remaining=NEVER,
            records=NEVER,
            deck=ALWAYS,  # the deck's number and back design: no card
        ),
        EntryKind.ROUND_CLOSED: _v(**_BY, outcome=ALWAYS, cause=ALWAYS, seats=ALWAYS, returned=ALWAYS, pot=ALWAYS),
        EntryKind.CARD: _v(**_BY,
            card=Show(Moment.DEALT_FACE_UP, Before.NULL, reached=entry_face_up),
            target=ALWAYS,
            seat=ALWAYS,
            index=ALWAYS,
            dispense_id=ALWAYS,
            position=ALWAYS,
            face=ALWAYS,
            status=ALWAYS,
            street=ALWAYS,
            community_index=NEVER,
            source=NEVER,
            record=NEVER,
            known_dispense_id=NEVER,
        ),
        EntryKind.DECISION: _v(**_BY,
            action=ALWAYS,
            face=ALWAYS,  # stud's stack-for-seat: which way up the card will be dealt, not the card
            street=ALWAYS,
            seat=ALWAYS,
            multiple=ALWAYS,
            count=ALWAYS,
            number=ALWAYS,
            size=ALWAYS,
            target=ALWAYS,
            community_index=ALWAYS,  # which community card the reader is about to read, never the card
            dispense_id=ALWAYS,
            known_dispense_id=ALWAYS,
            source=ALWAYS,
            record=_RECORD,
        ),
        EntryKind.REVEAL: _v(**_BY,
            index=ALWAYS, card=Show(Moment.REVEALED, Before.NULL, reached=revealed), source=NEVER, record=NEVER
        ),
        EntryKind.SETTLEMENT: _v(**_BY,
            seat=ALWAYS,
            record=_RECORD,  # Mississippi: one seat, settled now
            awards=ALWAYS,
            uncontested=ALWAYS,
            showdown=Show(Moment.SHOWDOWN),  # stud: only the players in it
            pot=NEVER,
            records=NEVER,
        ),
        EntryKind.IRREGULARITY: _v(**_BY,
            action=ALWAYS, cause=TEXT, detail=TEXT, returned=ALWAYS, known_dispense_id=ALWAYS, record=_RECORD
        ),
        EntryKind.LINK: _v(**_BY,
            event=ALWAYS,
            reason=TEXT,
            attempts=ALWAYS,
            old_boot_id=BOOT_ID,
            new_boot_id=BOOT_ID,
            last_dispense_id=ALWAYS,
            event_counter=ALWAYS,
            dispense_id=ALWAYS,
            journaled=ALWAYS,
            count=ALWAYS,
            cards_at_open=ALWAYS,
            dispensed=ALWAYS,
            cards=NEVER,
            verdict=ALWAYS,  # the shoe's position at connect against the journal's (shoe-position)
            serial=ALWAYS,
            cards_counter=ALWAYS,
            stacks_counter=ALWAYS,
            authenticated=ALWAYS,  # the pairing a session ran on: its key's identifier, never the key
            key_id=ALWAYS,
            detail=TEXT,
            **_POSITION,
            **_FIRMWARE,
        ),
        EntryKind.FAULT: _v(**_BY,
            event=ALWAYS,
            code=ALWAYS,
            dispense_id=ALWAYS,
            cause=ALWAYS,  # an alarm (event "alarm"): why, what it says, whether it refuses rounds
            detail=TEXT,
            blocking=ALWAYS,
            unjournaled=ALWAYS,
            **_POSITION,
        ),
        EntryKind.TECHNICIAN: _v(**_BY,
            action=ALWAYS,
            ok=ALWAYS,
            checked=ALWAYS,
            first_bad_seq=ALWAYS,
            problem=TEXT,
            fault=ALWAYS,
            dispense_id=ALWAYS,
            known_dispense_id=ALWAYS,
            size=ALWAYS,
            failed=ALWAYS,
            acknowledged=ALWAYS,  # clear-fault: the alarm it acknowledged
            cards=NEVER,
        ),
        EntryKind.SERVICE: _v(**_BY, event=ALWAYS, pid=ALWAYS, open_round=ALWAYS, **_POSITION, program=ALWAYS,
                              detail=TEXT, **_PROGRAM),
        # The deck cycle: a deck check's faces name cards of a deck that failed and is never dealt from (an
        # accepted deck has none to name), in card order: never the load order (SPEC §9, §11).
        EntryKind.DECK: _v(**_BY, **_DECK_CHECK, event=ALWAYS, deck_no=ALWAYS, expected_back=ALWAYS, cause=ALWAYS),
        # Who did what: ids, names, roles and reasons; no payload has a credential to show.
        EntryKind.PEOPLE: _v(**_BY, action=ALWAYS, employee_id=ALWAYS, name=ALWAYS, roles=ALWAYS, unlocked=ALWAYS,
                             token_id=ALWAYS, label=TEXT, session_id=ALWAYS, reason=ALWAYS, failures=ALWAYS,
                             credential=ALWAYS, via=ALWAYS, operation=ALWAYS, client=ALWAYS, part=ALWAYS,
                             count=ALWAYS, reasons=ALWAYS, window_s=ALWAYS),
        # An approval's detail holds only what its step already shows (shoe/service/people/approval_payloads.py).
        EntryKind.APPROVAL: _v(**_BY, action=ALWAYS, request_id=ALWAYS, kind=ALWAYS, step=ALWAYS, needs=ALWAYS,
                               seat=ALWAYS, detail=ALWAYS, rule=ALWAYS, requested_by=ALWAYS, reason=ALWAYS,
                               cause=ALWAYS, round=ALWAYS, params=ALWAYS, inputs=ALWAYS, digest=ALWAYS),
    }
)
"""Each journal entry kind the service writes (:class:`~.entries.EntryKind`) and its payload's fields."""

VIEWS: Mapping[str, Visibility] = MappingProxyType(
    {
        "deck": _v(state=ALWAYS, deck_no=ALWAYS, count=ALWAYS, back=ALWAYS, expected_back=ALWAYS, backs=ALWAYS,
                   check=ALWAYS, emulator=ALWAYS, hint=ALWAYS, actions=ALWAYS),  # check: shown as "deck-check"
        "deck-check": _v(**_DECK_CHECK, at=ALWAYS),
        # GET /v1/shoe/counters: the shoe's lifetime COUNTERS (SPEC §3), counts only, shown as "shoe-counters-figures"
        "shoe-counters": _v(shoe=ALWAYS, read_at=ALWAYS, counters=ALWAYS),
        "shoe-counters-figures": _v(cards=ALWAYS, stacks=ALWAYS, jams=ALWAYS, misreads=ALWAYS, double_feeds=ALWAYS,
                                    misfeeds=ALWAYS, power_cycles=ALWAYS),
    }
)  # fmt: skip
"""The service's views that are not journal entries (GET /v1/deck and the ``deck`` event, GET /v1/shoe/counters),
field by field."""
