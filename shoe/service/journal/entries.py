"""The journal's schema: every entry kind the service writes, and the typed payload of each (pure).

An entry is ``(kind, data)``. :class:`EntryKind` names the kinds (the strings are the journal's, as the
first release wrote them: never change one). A kind whose entries differ by a sub-action names it in a
tag field of the payload, an enum of its values: ``decision`` and ``irregularity`` and ``technician``
by ``action``, ``link``, ``fault``, ``service`` and ``deck`` by ``event``, ``round-opened`` by ``game``. Each
(kind, sub-action) has one :class:`msgspec.Struct` payload (:mod:`shoe.service.journal.payloads`) that forbids
unknown fields; a payload's
``record`` (and ``records``) is a rules record as ``shoe.service.journal.codec`` writes it, of the types the
payload names (``RECORDS``). :func:`check_entry` raises :class:`shoe.journal.JournalDataError` naming the
kind and the field when data does not fit; ``docs/journal.md`` ("Entry kinds and payloads") lists the
same table, checked against this module by ``tests/journal/test_entries_doc.py``.

``known_dispense_id``: the last dispense id the journal then knew complete (the shoe's position the
service checks at every connect, ``shoe.service.rounds.recovery``). It is a typed field of exactly the
payloads in :data:`KNOWN_DISPENSE_ID` (a stack dealt or a card with its record, a void that accounts
for a stack, an unjournaled stack, a maintenance dispense, an alarm about a dispense, the position the
service adds to link, fault and service entries); :func:`known_dispense_id` reads it from those only.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Union

import msgspec

from shoe.journal import JournalDataError
from shoe.service.deck import payloads as dp
from shoe.service.journal import payloads as p
from shoe.service.journal.codec import CodecError, decode_record
from shoe.service.journal.codec import tag_of as record_tag
from shoe.service.journal.payloads import (
    DecisionAction,
    FaultEvent,
    IrregularityAction,
    LinkEvent,
    Payload,
    ServiceEvent,
    TechnicianAction,
)
from shoe.service.people import approval_payloads as ap
from shoe.service.people import payloads as pp
from shoe.service.verify import payloads as ip

__all__ = [
    "KNOWN_DISPENSE_ID",
    "DecisionAction",
    "EntryKind",
    "FaultEvent",
    "IrregularityAction",
    "LinkEvent",
    "ServiceEvent",
    "TechnicianAction",
    "check_entry",
    "known_dispense_id",
    "known_dispense_id_of",
    "parse_entry",
    "payload_types",
]


class EntryKind(StrEnum):
    SERVICE = "service"  # the service started or stopped
    ROUND_OPENED = "round-opened"
    ROUND_CLOSED = "round-closed"
    CARD = "card"  # one card, in dealing order
    DECISION = "decision"  # a dealer's or player's step, or a stack announced / dealt
    REVEAL = "reveal"  # a Mississippi community card turned over
    SETTLEMENT = "settlement"
    IRREGULARITY = "irregularity"  # pause, resume, void, a stack the journal never saw
    LINK = "link"  # the shoe link and the shoe's position
    FAULT = "fault"  # a shoe fault raised or cleared, an alarm
    TECHNICIAN = "technician"  # maintenance between rounds
    DECK = "deck"  # a deck loaded, checked, released (the deck cycle, shoe.service.deck.cycle)
    PEOPLE = "people"  # employees managed, signed in and out, refused (docs/people.md)
    APPROVAL = "approval"  # a step awaiting a second person's approval, and its fate


_TAGGED: Mapping[EntryKind, tuple[str, tuple[type[Payload], ...]]] = {
    EntryKind.SERVICE: ("event", (p.ServiceStart, p.ServiceStop, ip.ProgramCheckEntry)),
    EntryKind.ROUND_OPENED: ("game", (p.MississippiOpened, p.StudOpened)),
    EntryKind.DECISION: ("action", (p.NoMoreBets, p.LockProgressive, p.ChipCount, p.StackForSeat,
                                    p.ScanForCommunity, p.StackDealt,
                                    p.ReleaseStub, p.CommunityDealt, p.ProgressiveInputs, p.Decide, p.Forfeit,
                                    p.StudAction, p.ReshuffleBurns)),
    EntryKind.IRREGULARITY: ("action", (p.Paused, p.Resumed, p.Void, p.UnjournaledDispense)),
    EntryKind.LINK: ("event", (p.Lost, p.Restored, p.Rebooted, p.Resynced, p.ShoePosition, p.StackRecovered,
                               p.StubRecovered, ip.FirmwareCheck)),
    EntryKind.FAULT: ("event", (p.FaultRaised, p.FaultCleared, p.Alarm)),
    EntryKind.TECHNICIAN: ("action", (p.VerifyJournal, p.ClearFault, p.MaintenanceDispense)),
    EntryKind.DECK: ("event", (dp.DeckLoadedEntry, dp.DeckChecked, dp.DeckReleased, dp.DeckUnchecked)),
    EntryKind.PEOPLE: ("action", pp.PEOPLE_PAYLOADS),
    EntryKind.APPROVAL: ("action", ap.APPROVAL_PAYLOADS),
}  # fmt: skip
_PLAIN: Mapping[EntryKind, tuple[tuple[str | None, type[Payload]], ...]] = {
    EntryKind.ROUND_CLOSED: ((None, p.RoundClosed),),
    EntryKind.CARD: ((None, p.CardEntry),),
    EntryKind.REVEAL: ((None, p.Reveal),),
    # no tag field: a seven-card stud settlement is the one with ``records``
    EntryKind.SETTLEMENT: (("mississippi-stud", p.MississippiSettlement), ("seven-card-stud", p.StudSettlement)),
}
_UNIONS: Mapping[EntryKind, Any] = {kind: Union[classes] for kind, (_, classes) in _TAGGED.items()}  # noqa: UP007


def tag_of(cls: type[Payload]) -> str | None:
    """The sub-action a payload type stands for (``None`` for a kind without sub-actions)."""
    tag = cls.__struct_config__.tag
    return tag if isinstance(tag, str) else None


def payload_types() -> dict[tuple[EntryKind, str | None], type[Payload]]:
    """Every (kind, sub-action) and its payload type: the sub-action is the tag's value, the game for the two
    settlements (told apart by their fields), ``None`` for a kind with one payload type."""
    out: dict[tuple[EntryKind, str | None], type[Payload]] = {}
    for kind, (_, classes) in _TAGGED.items():
        out.update({(kind, tag_of(cls)): cls for cls in classes})
    for kind, variants in _PLAIN.items():
        out.update({(kind, game): cls for game, cls in variants})
    return out


_BY_TAG: Mapping[EntryKind, Mapping[object, type[Payload]]] = {
    kind: {tag_of(cls): cls for cls in classes} for kind, (_, classes) in _TAGGED.items()
}


KNOWN_DISPENSE_ID: frozenset[tuple[EntryKind, str | None]] = frozenset(
    key for key, cls in payload_types().items() if "known_dispense_id" in cls.__struct_fields__
)
"""The (kind, sub-action) payloads that carry ``known_dispense_id``."""


_KINDS: Mapping[object, EntryKind] = {k.value: k for k in EntryKind}
"""Each kind by its text: a dict lookup where ``EntryKind(kind)`` is a Python-level call of the enum's type, for every
entry appended."""


def _kind(kind: str) -> EntryKind:
    found = _KINDS.get(kind) if isinstance(kind, str) else None
    if found is None:
        kinds = ", ".join(k.value for k in EntryKind)
        raise JournalDataError(f"unknown entry kind {kind!r} (kinds: {kinds}): nothing was written")
    return found


def _type_of(kind: EntryKind, data: Mapping[str, Any]) -> type[Payload] | None:
    if kind in _TAGGED:
        field, classes = _TAGGED[kind]
        return next((c for c in classes if tag_of(c) == data.get(field)), None)
    plain = _PLAIN[kind]
    if kind is EntryKind.SETTLEMENT:
        return plain[1][1] if "records" in data else plain[0][1]
    return plain[0][1]


def parse_entry(kind: str, data: Mapping[str, Any]) -> Payload:
    """``data`` as the typed payload of ``kind``; :class:`JournalDataError` naming the kind and field if not."""
    k = _kind(kind)
    if not isinstance(data, Mapping):
        raise JournalDataError(f"a {k.value!r} entry's data must be a mapping, not {type(data).__name__}")
    tagged = _TAGGED.get(k)
    # The one payload type its tag names (a tagged union converts by looking the tag up anyway, at far more
    # cost per call); an unknown or missing tag goes to the union, whose refusal names the tag.
    tag = data.get(tagged[0]) if tagged else None
    target: Any = (isinstance(tag, str) and _BY_TAG[k].get(tag)) or _UNIONS.get(k) or _type_of(k, data)
    what = f"{k.value!r} entry"
    if k in _TAGGED and isinstance(data.get(_TAGGED[k][0]), str):
        what = f"{k.value!r} entry ({_TAGGED[k][0]} {data[_TAGGED[k][0]]!r})"
    try:
        payload: Payload = msgspec.convert(dict(data), target)
    except (msgspec.ValidationError, TypeError) as exc:
        raise JournalDataError(f"the {what} does not fit its type: {exc}; nothing was written") from None
    for path, record in _records(payload):
        try:
            tag = record_tag(type(decode_record(record)))
        except (CodecError, ValueError, TypeError, KeyError) as exc:  # a bad card code, enum value, field
            raise JournalDataError(f"the {what}: {path} is not a rules record ({exc}); nothing was written") from None
        if tag not in payload.RECORDS:
            allowed = ", ".join(sorted(payload.RECORDS)) or "none"
            raise JournalDataError(f"the {what}: {path} is a {tag}, not one of {allowed}; nothing was written")
    return payload


def _records(payload: Payload) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    record = getattr(payload, "record", None)
    if record is not None:
        out.append(("$.record", record))
    out += [(f"$.records[{i}]", r) for i, r in enumerate(getattr(payload, "records", None) or ())]
    return out


def check_entry(kind: str, data: Mapping[str, Any]) -> None:
    """Raise :class:`JournalDataError` (naming the kind and the field) if ``data`` does not fit ``kind``."""
    parse_entry(kind, data)


def known_dispense_id_of(payload: Payload) -> int | None:
    """The ``known_dispense_id`` a checked payload carries: only the types of :data:`KNOWN_DISPENSE_ID` have it."""
    value = getattr(payload, "known_dispense_id", None)
    return value if type(value) is int else None


def known_dispense_id(kind: str, data: Mapping[str, Any]) -> int | None:
    """The ``known_dispense_id`` of an entry whose payload type declares it (:data:`KNOWN_DISPENSE_ID`)."""
    try:
        k = EntryKind(kind)
    except ValueError:
        return None
    cls = _type_of(k, data)
    if cls is None or "known_dispense_id" not in cls.__struct_fields__:
        return None
    value = data.get("known_dispense_id")
    return value if type(value) is int else None
