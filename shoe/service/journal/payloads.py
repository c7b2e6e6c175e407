"""The typed payload of every journal entry (kind and sub-action) the service writes (pure).

The kinds and the rules for reading these are in :mod:`shoe.service.journal.entries`; this module holds the
sub-action enums (the tag values, as the first release wrote them) and one :class:`msgspec.Struct` per
(kind, sub-action), each forbidding unknown fields. A payload's ``record`` (``records``) is a rules
record as ``shoe.service.journal.codec`` writes it, of one of the tags its ``RECORDS`` names. Money is integer
cents; card codes are ``As``-style codes or ``None`` for a card not identified.

Each field of an entry's payload type declares who may see it, from which moment, on the field itself
(``Annotated[T, <rule>]``, the rules of :mod:`shoe.service.journal.show`); the secrecy allow-list
(:mod:`shoe.service.journal.visibility`) is derived from those declarations. A struct carried inside a field
(``ShoeRef``, ``NewJournal``, ``SeatWager``, ``SeatClosed``, ``Award``, ``DeckRef``) is shown whole or not at
all by that field's rule, and declares none of its own. A field marked "never shown so far" was in no
declaration before the rules moved onto the fields: it stays hidden until someone decides it may show.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

import msgspec

from shoe.rules.mississippi.records import Outcome
from shoe.rules.profiles import Irregularity
from shoe.service.deck.payloads import DeckRef
from shoe.service.journal.payload_base import CardCode, Payload, Record
from shoe.service.journal.show import (
    ALWAYS,
    BOOT_ID,
    NESTED,
    NEVER,
    TEXT,
    Before,
    Moment,
    Show,
    entry_face_up,
    revealed,
)
from shoe.service.verify.payloads import ProgramCheck

__all__ = ["DecisionAction", "FaultEvent", "IrregularityAction", "LinkEvent", "Payload", "ServiceEvent"]


class DecisionAction(StrEnum):
    NO_MORE_BETS = "no-more-bets"
    LOCK_PROGRESSIVE = "lock-progressive"
    CHIP_COUNT = "chip-count"
    STACK_FOR_SEAT = "stack-for-seat"  # announced before the shoe is asked for it
    SCAN_FOR_COMMUNITY = "scan-for-community"  # announced before the shoe's reader is asked for the card
    STACK_DEALT = "stack-dealt"
    RELEASE_STUB = "release-stub"
    COMMUNITY_DEALT = "community-dealt"
    PROGRESSIVE_INPUTS = "progressive-inputs"
    DECIDE = "decide"
    FORFEIT = "forfeit"
    STUD_ACTION = "stud-action"
    RESHUFFLE_BURNS = "reshuffle-burns"


class IrregularityAction(StrEnum):
    PAUSED = "paused"
    RESUMED = "resumed"
    VOID = "void"
    UNJOURNALED_DISPENSE = "unjournaled-dispense"


class LinkEvent(StrEnum):
    LOST = "lost"
    RESTORED = "restored"
    REBOOTED = "rebooted"
    RESYNCED = "resynced"
    SHOE_POSITION = "shoe-position"
    STACK_RECOVERED = "stack-recovered"
    STUB_RECOVERED = "stub-recovered"
    FIRMWARE = "firmware"  # the shoe's firmware digest at a connect (shoe.service.verify.payloads)


class FaultEvent(StrEnum):
    RAISED = "raised"
    CLEARED = "cleared"
    ALARM = "alarm"


class TechnicianAction(StrEnum):
    VERIFY_JOURNAL = "verify-journal"
    CLEAR_FAULT = "clear-fault"
    MAINTENANCE_DISPENSE = "maintenance-dispense"


class ServiceEvent(StrEnum):
    START = "start"
    STOP = "stop"
    PROGRAM_CHECK = "program-check"  # a periodic program check (shoe.service.verify.payloads)


Face = Literal["up", "down"]
Source = Literal["shoe", "dealer"]


class ShoeRef(Payload):
    serial: str | None  # the shoe's identity, as it reported it


class _Position(Payload):
    """The shoe's position the service adds to link, fault and service entries."""

    known_dispense_id: Annotated[int | None, ALWAYS] = None
    boot_id: Annotated[int | None, BOOT_ID] = None
    event_no: Annotated[int | None, ALWAYS] = None
    shoe: Annotated[ShoeRef | None, ALWAYS] = None


class NewJournal(Payload):
    marker_last_seq: int
    marker_first_hash: str | None


class ServiceStart(_Position, tag_field="event", tag=ServiceEvent.START.value, kw_only=True):
    pid: Annotated[int, ALWAYS]
    open_round: Annotated[str | None, ALWAYS]
    # --new-journal overrode the lock file's marker; never shown so far
    new_journal: Annotated[NewJournal | None, NEVER] = None
    program: Annotated[ProgramCheck | None, ALWAYS] = None  # the software identity and its check at start


class ServiceStop(_Position, tag_field="event", tag=ServiceEvent.STOP.value, kw_only=True):
    open_round: Annotated[str | None, ALWAYS]


# -- rounds ------------------------------------------------------------------------------------------


class SeatWager(Payload):
    ante: int
    side: dict[str, int]


class _Opened(Payload, tag_field="game"):
    jurisdiction: Annotated[str, ALWAYS]
    table: Annotated[dict[str, Any], ALWAYS]  # the table's parameters as given (shoe.service.rounds.params)
    shoe: Annotated[ShoeRef, NEVER]
    records: Annotated[list[Record], NEVER]
    # the checked deck dealt from, its number and back design: no card (absent in entries written before the
    # deck cycle)
    deck: Annotated[DeckRef | None, ALWAYS] = None


class MississippiOpened(_Opened, tag="mississippi-stud", kw_only=True):
    RECORDS = frozenset({"WagerRecord"})
    seats: Annotated[dict[str, SeatWager], ALWAYS]
    cards_remaining: Annotated[int | None, NEVER] = None  # absent in entries written before it was added


class StudOpened(_Opened, tag="seven-card-stud", kw_only=True):
    RECORDS = frozenset({"AntePosted"})
    seats: Annotated[list[int], ALWAYS]
    stub_size: Annotated[int, ALWAYS]
    # the shoe's own count at the opening (None: it gave none; stub_size is 52)
    cards_remaining: Annotated[int | None, NEVER] = None


class SeatClosed(Payload):
    outcome: Outcome
    net: int


class RoundClosed(Payload):
    outcome: Annotated[Literal["complete", "void"], ALWAYS]
    cause: Annotated[Irregularity | None, ALWAYS] = None
    returned: Annotated[int | None, ALWAYS] = None
    pot: Annotated[int | None, ALWAYS] = None  # seven-card stud
    # none when the round could not be rebuilt
    seats: Annotated[dict[str, SeatClosed], ALWAYS] = msgspec.field(default_factory=dict)


class CardEntry(Payload):
    RECORDS = frozenset({"CardDealt"})
    target: Annotated[Literal["seat", "community", "burn", "common"], ALWAYS]
    seat: Annotated[int | None, ALWAYS]
    index: Annotated[int, ALWAYS]  # in dealing order, from 1
    dispense_id: Annotated[int | None, ALWAYS]  # None: a card the dealer turned over by hand (a Mississippi reveal)
    position: Annotated[int | None, ALWAYS]
    # None: not identified (``status`` says why)
    card: Annotated[CardCode | None, Show(Moment.DEALT_FACE_UP, Before.NULL, reached=entry_face_up)]
    face: Annotated[Face, ALWAYS]
    status: Annotated[Literal["ok", "smudged", "misaligned", "foreign_card", "reader_fault"], ALWAYS]
    community_index: Annotated[int | None, NEVER] = None
    source: Annotated[Source | None, NEVER] = None
    street: Annotated[str | None, ALWAYS] = None  # seven-card stud: "3" .. "7"
    record: Annotated[Record | None, NEVER] = None  # seven-card stud: the card's CardDealt, in the same entry
    known_dispense_id: Annotated[int | None, NEVER] = None


class Reveal(Payload):
    RECORDS = frozenset({"RevealRecord"})
    index: Annotated[int, ALWAYS]
    card: Annotated[CardCode, Show(Moment.REVEALED, Before.NULL, reached=revealed)]
    source: Annotated[Source, NEVER]
    record: Annotated[Record, NEVER]


class MississippiSettlement(Payload):
    RECORDS = frozenset({"SeatSettlement"})
    seat: Annotated[int, ALWAYS]
    record: Annotated[Record, NESTED]  # one seat, settled now: shown by the SeatSettlement's own rules


class Award(Payload):
    seat: int
    amount: int
    odd_chips: int


class StudSettlement(Payload):
    RECORDS = frozenset({"PotAwarded"})
    uncontested: Annotated[bool, ALWAYS]
    awards: Annotated[list[Award], ALWAYS]
    # the live seats' cards, shown at the showdown: only the players in it; None when uncontested
    showdown: Annotated[dict[str, list[CardCode]] | None, Show(Moment.SHOWDOWN)]
    pot: Annotated[int, NEVER]
    records: Annotated[list[Record], NEVER]


# -- decisions ----------------------------------------------------------------------------------------


class _Decision(Payload, tag_field="action"):
    """The ``decision`` kind, by ``action``."""


class NoMoreBets(_Decision, tag=DecisionAction.NO_MORE_BETS.value):
    RECORDS = frozenset({"NoMoreBetsRecord"})
    record: Annotated[Record, NESTED]


class LockProgressive(_Decision, tag=DecisionAction.LOCK_PROGRESSIVE.value):
    RECORDS = frozenset({"ProgressiveLockRecord"})
    record: Annotated[Record, NESTED]


class ChipCount(_Decision, tag=DecisionAction.CHIP_COUNT.value):
    RECORDS = frozenset({"ChipCountRecord"})
    record: Annotated[Record, NESTED]


class StackForSeat(_Decision, tag=DecisionAction.STACK_FOR_SEAT.value):
    target: Annotated[Literal["seat", "burn", "common"], ALWAYS]
    seat: Annotated[int | None, ALWAYS]
    number: Annotated[int, ALWAYS]
    size: Annotated[int, ALWAYS]
    street: Annotated[str | None, ALWAYS] = None  # seven-card stud
    face: Annotated[Face | None, ALWAYS] = None  # seven-card stud: which way up the card will go


class ScanForCommunity(_Decision, tag=DecisionAction.SCAN_FOR_COMMUNITY.value):
    """A community card is about to be read by the shoe (SCAN): after a restart with no card entry for it,
    the reader may have taken the card already, and only the dealer can say which it is."""

    community_index: Annotated[int, ALWAYS]  # which community card the reader is about to read, never the card


class StackDealt(_Decision, tag=DecisionAction.STACK_DEALT.value):
    RECORDS = frozenset({"StackRecord"})
    record: Annotated[Record, NESTED]
    seat: Annotated[int, ALWAYS]
    number: Annotated[int | None, ALWAYS]
    dispense_id: Annotated[int, ALWAYS]
    known_dispense_id: Annotated[int, ALWAYS]


class ReleaseStub(_Decision, tag=DecisionAction.RELEASE_STUB.value):
    RECORDS = frozenset({"StubRecord"})
    count: Annotated[int, ALWAYS]
    record: Annotated[Record | None, NESTED] = None  # none between rounds
    source: Annotated[Literal["reconciled"] | None, ALWAYS] = None  # the count recovered after a restart


class CommunityDealt(_Decision, tag=DecisionAction.COMMUNITY_DEALT.value):
    RECORDS = frozenset({"CommunityDealtRecord"})
    record: Annotated[Record, NESTED]


class ProgressiveInputs(_Decision, tag=DecisionAction.PROGRESSIVE_INPUTS.value):
    RECORDS = frozenset({"TableSystemRecord"})
    record: Annotated[Record, NESTED]


class Decide(_Decision, tag=DecisionAction.DECIDE.value):
    RECORDS = frozenset({"DecisionRecord"})
    record: Annotated[Record, NESTED]
    seat: Annotated[int, ALWAYS]
    multiple: Annotated[int, ALWAYS]


class Forfeit(_Decision, tag=DecisionAction.FORFEIT.value):
    RECORDS = frozenset({"ForfeitRecord"})
    record: Annotated[Record, NESTED]
    seat: Annotated[int, ALWAYS]


class StudAction(_Decision, tag=DecisionAction.STUD_ACTION.value):
    RECORDS = frozenset({"BettingAction"})
    record: Annotated[Record, NESTED]
    seat: Annotated[int, ALWAYS]


class ReshuffleBurns(_Decision, tag=DecisionAction.RESHUFFLE_BURNS.value):
    RECORDS = frozenset({"BurnsReshuffled"})
    record: Annotated[Record, NESTED]


# -- irregularities -----------------------------------------------------------------------------------


class _Irregularity(Payload, tag_field="action"):
    """The ``irregularity`` kind, by ``action``."""


class Paused(_Irregularity, tag=IrregularityAction.PAUSED.value):
    RECORDS = frozenset({"PauseRecord"})
    cause: Annotated[Irregularity, TEXT]
    detail: Annotated[str, TEXT]
    record: Annotated[Record | None, NESTED] = None  # Mississippi; a stud hand's pause is the service's own


class Resumed(_Irregularity, tag=IrregularityAction.RESUMED.value):
    RECORDS = frozenset({"ResumeRecord"})
    record: Annotated[Record | None, NESTED] = None


class Void(_Irregularity, tag=IrregularityAction.VOID.value):
    RECORDS = frozenset({"MisdealRecord"})
    cause: Annotated[Irregularity, TEXT]
    detail: Annotated[str, TEXT]
    record: Annotated[Record | None, NESTED] = None  # Mississippi
    returned: Annotated[dict[str, int] | None, ALWAYS] = None  # seven-card stud: each seat's chips, returned
    alarm: Annotated[str | None, NEVER] = None  # the shoe alarm that voided the round; never shown so far
    dispense_id: Annotated[int | None, NEVER] = None  # never shown so far
    known_dispense_id: Annotated[int | None, ALWAYS] = None


class UnjournaledDispense(_Irregularity, tag=IrregularityAction.UNJOURNALED_DISPENSE.value):
    cause: Annotated[Irregularity, TEXT]
    detail: Annotated[str, TEXT]
    dispense_id: Annotated[int, NEVER]  # never shown so far
    cards: Annotated[list[CardCode | None] | None, NEVER]  # None: the shoe could not give them back; never shown
    known_dispense_id: Annotated[int, ALWAYS]


# -- the shoe link and faults -------------------------------------------------------------------------


class Lost(_Position, tag_field="event", tag=LinkEvent.LOST.value, kw_only=True):
    reason: Annotated[str, TEXT]


class Restored(Payload, tag_field="event", tag=LinkEvent.RESTORED.value):
    attempts: Annotated[int, ALWAYS]


class Rebooted(Payload, tag_field="event", tag=LinkEvent.REBOOTED.value):
    old_boot_id: Annotated[int | None, BOOT_ID]
    new_boot_id: Annotated[int, BOOT_ID]


class Resynced(Payload, tag_field="event", tag=LinkEvent.RESYNCED.value):
    boot_id: Annotated[int, BOOT_ID]
    last_dispense_id: Annotated[int, ALWAYS]
    event_counter: Annotated[int, ALWAYS]
    # between rounds: the shoe's last dispense is known complete
    known_dispense_id: Annotated[int | None, ALWAYS] = None


class ShoePosition(Payload, tag_field="event", tag=LinkEvent.SHOE_POSITION.value):
    verdict: Annotated[Literal["same", "ahead", "behind", "adopted"], ALWAYS]  # the shoe's position vs the journal's
    serial: Annotated[str | None, ALWAYS]
    last_dispense_id: Annotated[int, ALWAYS]
    cards_counter: Annotated[int, ALWAYS]
    stacks_counter: Annotated[int, ALWAYS]
    detail: Annotated[str | None, TEXT] = None
    # Which pairing the session runs on (SPEC §13): the key's identifier, never the key; None on a plain link
    # and on entries written before the link said so.
    authenticated: Annotated[bool | None, ALWAYS] = None
    key_id: Annotated[str | None, ALWAYS] = None


class StackRecovered(Payload, tag_field="event", tag=LinkEvent.STACK_RECOVERED.value):
    dispense_id: Annotated[int, ALWAYS]
    cards: Annotated[int, NEVER]
    journaled: Annotated[int, ALWAYS]


class StubRecovered(Payload, tag_field="event", tag=LinkEvent.STUB_RECOVERED.value):
    count: Annotated[int, ALWAYS]
    cards_at_open: Annotated[int, ALWAYS]
    dispensed: Annotated[int, ALWAYS]


class FaultRaised(_Position, tag_field="event", tag=FaultEvent.RAISED.value, kw_only=True):
    code: Annotated[str, ALWAYS]  # the shoe's FaultCode name
    dispense_id: Annotated[int | None, ALWAYS] = None


class FaultCleared(_Position, tag_field="event", tag=FaultEvent.CLEARED.value, kw_only=True):
    code: Annotated[str, ALWAYS]


class Alarm(Payload, tag_field="event", tag=FaultEvent.ALARM.value):
    # shoe-ahead-of-journal, cards-unjournaled, stack-unreconciled, or the shoe's discrepancy
    cause: Annotated[str, ALWAYS]
    detail: Annotated[str, TEXT]
    blocking: Annotated[bool, ALWAYS]  # refuses new rounds until a technician acknowledges it
    dispense_id: Annotated[int | None, ALWAYS] = None
    known_dispense_id: Annotated[int | None, ALWAYS] = None
    unjournaled: Annotated[int | None, ALWAYS] = None


# -- technician ----------------------------------------------------------------------------------------


class VerifyJournal(Payload, tag_field="action", tag=TechnicianAction.VERIFY_JOURNAL.value):
    ok: Annotated[bool, ALWAYS]
    checked: Annotated[int, ALWAYS]
    first_bad_seq: Annotated[int | None, ALWAYS]
    problem: Annotated[str | None, TEXT]


class ClearFault(Payload, tag_field="action", tag=TechnicianAction.CLEAR_FAULT.value):
    fault: Annotated[str, ALWAYS]  # a FaultCode name, or "all"
    acknowledged: Annotated[str | None, ALWAYS] = None  # the cause of the alarm it acknowledged (absent before 0.2)


class MaintenanceDispense(Payload, tag_field="action", tag=TechnicianAction.MAINTENANCE_DISPENSE.value):
    dispense_id: Annotated[int, ALWAYS]
    known_dispense_id: Annotated[int, ALWAYS]
    cards: Annotated[list[CardCode | None], NEVER]
    size: Annotated[int | None, ALWAYS] = None
    failed: Annotated[str | None, ALWAYS] = None  # the fault that ended the dispense
