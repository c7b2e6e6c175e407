"""Who may see which field of a journaled record or entry, and from which moment of the round: an allow-list.

A field that is not declared is never shown; a record type that is not declared shows only its ``type``
tag; an entry kind that is not declared shows nothing of its payload.

- Journal entries (:data:`PAYLOADS`): each field of each payload type declares its rule where it is defined
  (``Annotated[T, <rule>]``, :mod:`shoe.service.journal.show`), and the kind's allow-list is derived here
  from the payload types of :func:`~.entries.payload_types`. Building it refuses a payload field without a
  rule, and one field name with two rules in one kind (secrecy reads one rule per kind and field), naming
  the struct and field.
- Rules records (:data:`RECORDS`, every type the codec knows: :func:`shoe.service.journal.codec.record_types`)
  and the service's views (:data:`VIEWS`) are declared here, field by field: the rules engine
  (``shoe.rules``) knows nothing of the service or its secrecy.

``tests/service/test_visibility.py`` fails when a type, a kind or a field has no declaration.

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
from shoe.service.journal.entries import EntryKind, payload_types
from shoe.service.journal.payload_base import Payload
from shoe.service.journal.show import (
    ALWAYS,
    COUNTED,
    NESTED,
    NEVER,
    TAG,
    TEXT,
    Before,
    Moment,
    Show,
    declared_rules,
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

_DECK_CHECK = {name: ALWAYS for name in ("ok", "count", "back", "missing", "extra", "duplicates", "foreign",
                                         "unreadable", "checked_faces", "problems", "who")}  # fmt: skip
"""The deck view's ``check``: a deck check's fields, shown as its ``checked`` entry shows them (counts, the faces of
a refused deck in card order: ``shoe.service.deck.payloads.DeckChecked``)."""


def payload_visibility(types: Mapping[tuple[EntryKind, str | None], type[Payload]]) -> dict[str, Visibility]:
    """Each entry kind's declared fields, from its payload types' own declarations (:mod:`.show`).

    A kind's fields are the union of its payload types' fields and their tag field (:data:`~.show.TAG`).
    Secrecy looks a field up by kind, so one field name must have one rule in every payload type of a kind:
    two rules raise :class:`TypeError` naming both types, as a field without a rule does (naming its type).
    """
    found: dict[EntryKind, dict[str, tuple[Show, type[Payload]]]] = {}
    for (kind, _), cls in types.items():
        rules = declared_rules(cls)
        tag = cls.__struct_config__.tag_field
        if tag is not None:
            rules[tag] = TAG
        declared = found.setdefault(kind, {})
        for name, show in rules.items():
            first, where = declared.setdefault(name, (show, cls))
            if first != show:
                raise TypeError(
                    f"the {kind.value!r} entries' field {name!r} has two visibility rules: {first} in "
                    f"{where.__module__}.{where.__qualname__}, {show} in {cls.__module__}.{cls.__qualname__} "
                    "(secrecy reads one rule per kind and field)"
                )
    return {kind: _v(**{name: show for name, (show, _) in declared.items()}) for kind, declared in found.items()}


PAYLOADS: Mapping[str, Visibility] = MappingProxyType(payload_visibility(payload_types()))
"""Each journal entry kind the service writes (:class:`~.entries.EntryKind`) and its payload's fields: derived
from the rule each payload type declares on each field (``shoe.service.journal.payloads`` and the others of
:func:`~.entries.payload_types`), never written here."""

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
