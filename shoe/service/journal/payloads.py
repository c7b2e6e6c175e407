"""The typed payload of every journal entry (kind and sub-action) the service writes (pure).

The kinds and the rules for reading these are in :mod:`shoe.service.journal.entries`; this module holds the
sub-action enums (the tag values, as the first release wrote them) and one :class:`msgspec.Struct` per
(kind, sub-action), each forbidding unknown fields. A payload's ``record`` (``records``) is a rules
record as ``shoe.service.journal.codec`` writes it, of one of the tags its ``RECORDS`` names. Money is integer
cents; card codes are ``As``-style codes or ``None`` for a card not identified.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

import msgspec

from shoe.rules.mississippi.records import Outcome
from shoe.rules.profiles import Irregularity
from shoe.service.deck.payloads import DeckRef
from shoe.service.journal.payload_base import CardCode, Payload, Record
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

    known_dispense_id: int | None = None
    boot_id: int | None = None
    event_no: int | None = None
    shoe: ShoeRef | None = None


class NewJournal(Payload):
    marker_last_seq: int
    marker_first_hash: str | None


class ServiceStart(_Position, tag_field="event", tag=ServiceEvent.START.value, kw_only=True):
    pid: int
    open_round: str | None
    new_journal: NewJournal | None = None  # --new-journal overrode the lock file's marker
    program: ProgramCheck | None = None  # the software identity and its check at start


class ServiceStop(_Position, tag_field="event", tag=ServiceEvent.STOP.value, kw_only=True):
    open_round: str | None


# -- rounds ------------------------------------------------------------------------------------------


class SeatWager(Payload):
    ante: int
    side: dict[str, int]


class _Opened(Payload, tag_field="game"):
    jurisdiction: str
    table: dict[str, Any]  # the table's parameters as given (shoe.service.rounds.params)
    shoe: ShoeRef
    records: list[Record]
    deck: DeckRef | None = None  # the checked deck dealt from (absent in entries written before the deck cycle)


class MississippiOpened(_Opened, tag="mississippi-stud", kw_only=True):
    RECORDS = frozenset({"WagerRecord"})
    seats: dict[str, SeatWager]
    cards_remaining: int | None = None  # absent in entries written before it was added


class StudOpened(_Opened, tag="seven-card-stud", kw_only=True):
    RECORDS = frozenset({"AntePosted"})
    seats: list[int]
    stub_size: int
    cards_remaining: int | None = None  # the shoe's own count at the opening (None: it gave none; stub_size is 52)


class SeatClosed(Payload):
    outcome: Outcome
    net: int


class RoundClosed(Payload):
    outcome: Literal["complete", "void"]
    cause: Irregularity | None = None
    returned: int | None = None
    pot: int | None = None  # seven-card stud
    seats: dict[str, SeatClosed] = msgspec.field(default_factory=dict)  # none when the round could not be rebuilt


class CardEntry(Payload):
    RECORDS = frozenset({"CardDealt"})
    target: Literal["seat", "community", "burn", "common"]
    seat: int | None
    index: int  # in dealing order, from 1
    dispense_id: int | None  # None: a card the dealer turned over by hand (a Mississippi reveal)
    position: int | None
    card: CardCode | None  # None: not identified (``status`` says why)
    face: Face
    status: Literal["ok", "smudged", "misaligned", "foreign_card", "reader_fault"]
    community_index: int | None = None
    source: Source | None = None
    street: str | None = None  # seven-card stud: "3" .. "7"
    record: Record | None = None  # seven-card stud: the card's CardDealt, in the same entry
    known_dispense_id: int | None = None


class Reveal(Payload):
    RECORDS = frozenset({"RevealRecord"})
    index: int
    card: CardCode
    source: Source
    record: Record


class MississippiSettlement(Payload):
    RECORDS = frozenset({"SeatSettlement"})
    seat: int
    record: Record


class Award(Payload):
    seat: int
    amount: int
    odd_chips: int


class StudSettlement(Payload):
    RECORDS = frozenset({"PotAwarded"})
    uncontested: bool
    awards: list[Award]
    showdown: dict[str, list[CardCode]] | None  # the live seats' cards; None when uncontested
    pot: int
    records: list[Record]


# -- decisions ----------------------------------------------------------------------------------------


class _Decision(Payload, tag_field="action"):
    """The ``decision`` kind, by ``action``."""


class NoMoreBets(_Decision, tag=DecisionAction.NO_MORE_BETS.value):
    RECORDS = frozenset({"NoMoreBetsRecord"})
    record: Record


class LockProgressive(_Decision, tag=DecisionAction.LOCK_PROGRESSIVE.value):
    RECORDS = frozenset({"ProgressiveLockRecord"})
    record: Record


class ChipCount(_Decision, tag=DecisionAction.CHIP_COUNT.value):
    RECORDS = frozenset({"ChipCountRecord"})
    record: Record


class StackForSeat(_Decision, tag=DecisionAction.STACK_FOR_SEAT.value):
    target: Literal["seat", "burn", "common"]
    seat: int | None
    number: int
    size: int
    street: str | None = None  # seven-card stud
    face: Face | None = None  # seven-card stud: which way up the card will go


class ScanForCommunity(_Decision, tag=DecisionAction.SCAN_FOR_COMMUNITY.value):
    """A community card is about to be read by the shoe (SCAN): after a restart with no card entry for it,
    the reader may have taken the card already, and only the dealer can say which it is."""

    community_index: int


class StackDealt(_Decision, tag=DecisionAction.STACK_DEALT.value):
    RECORDS = frozenset({"StackRecord"})
    record: Record
    seat: int
    number: int | None
    dispense_id: int
    known_dispense_id: int


class ReleaseStub(_Decision, tag=DecisionAction.RELEASE_STUB.value):
    RECORDS = frozenset({"StubRecord"})
    count: int
    record: Record | None = None  # none between rounds
    source: Literal["reconciled"] | None = None  # the count recovered after a restart


class CommunityDealt(_Decision, tag=DecisionAction.COMMUNITY_DEALT.value):
    RECORDS = frozenset({"CommunityDealtRecord"})
    record: Record


class ProgressiveInputs(_Decision, tag=DecisionAction.PROGRESSIVE_INPUTS.value):
    RECORDS = frozenset({"TableSystemRecord"})
    record: Record


class Decide(_Decision, tag=DecisionAction.DECIDE.value):
    RECORDS = frozenset({"DecisionRecord"})
    record: Record
    seat: int
    multiple: int


class Forfeit(_Decision, tag=DecisionAction.FORFEIT.value):
    RECORDS = frozenset({"ForfeitRecord"})
    record: Record
    seat: int


class StudAction(_Decision, tag=DecisionAction.STUD_ACTION.value):
    RECORDS = frozenset({"BettingAction"})
    record: Record
    seat: int


class ReshuffleBurns(_Decision, tag=DecisionAction.RESHUFFLE_BURNS.value):
    RECORDS = frozenset({"BurnsReshuffled"})
    record: Record


# -- irregularities -----------------------------------------------------------------------------------


class _Irregularity(Payload, tag_field="action"):
    """The ``irregularity`` kind, by ``action``."""


class Paused(_Irregularity, tag=IrregularityAction.PAUSED.value):
    RECORDS = frozenset({"PauseRecord"})
    cause: Irregularity
    detail: str
    record: Record | None = None  # Mississippi; a stud hand's pause is the service's own


class Resumed(_Irregularity, tag=IrregularityAction.RESUMED.value):
    RECORDS = frozenset({"ResumeRecord"})
    record: Record | None = None


class Void(_Irregularity, tag=IrregularityAction.VOID.value):
    RECORDS = frozenset({"MisdealRecord"})
    cause: Irregularity
    detail: str
    record: Record | None = None  # Mississippi
    returned: dict[str, int] | None = None  # seven-card stud: each seat's chips, returned
    alarm: str | None = None  # the shoe alarm that voided the round
    dispense_id: int | None = None
    known_dispense_id: int | None = None


class UnjournaledDispense(_Irregularity, tag=IrregularityAction.UNJOURNALED_DISPENSE.value):
    cause: Irregularity
    detail: str
    dispense_id: int
    cards: list[CardCode | None] | None  # None: the shoe could not give them back
    known_dispense_id: int


# -- the shoe link and faults -------------------------------------------------------------------------


class Lost(_Position, tag_field="event", tag=LinkEvent.LOST.value, kw_only=True):
    reason: str


class Restored(Payload, tag_field="event", tag=LinkEvent.RESTORED.value):
    attempts: int


class Rebooted(Payload, tag_field="event", tag=LinkEvent.REBOOTED.value):
    old_boot_id: int | None
    new_boot_id: int


class Resynced(Payload, tag_field="event", tag=LinkEvent.RESYNCED.value):
    boot_id: int
    last_dispense_id: int
    event_counter: int
    known_dispense_id: int | None = None  # between rounds: the shoe's last dispense is known complete


class ShoePosition(Payload, tag_field="event", tag=LinkEvent.SHOE_POSITION.value):
    verdict: Literal["same", "ahead", "behind", "adopted"]
    serial: str | None
    last_dispense_id: int
    cards_counter: int
    stacks_counter: int
    detail: str | None = None
    # Which pairing the session runs on (SPEC §13): the key's identifier, never the key; None on a plain link
    # and on entries written before the link said so.
    authenticated: bool | None = None
    key_id: str | None = None


class StackRecovered(Payload, tag_field="event", tag=LinkEvent.STACK_RECOVERED.value):
    dispense_id: int
    cards: int
    journaled: int


class StubRecovered(Payload, tag_field="event", tag=LinkEvent.STUB_RECOVERED.value):
    count: int
    cards_at_open: int
    dispensed: int


class FaultRaised(_Position, tag_field="event", tag=FaultEvent.RAISED.value, kw_only=True):
    code: str  # the shoe's FaultCode name
    dispense_id: int | None = None


class FaultCleared(_Position, tag_field="event", tag=FaultEvent.CLEARED.value, kw_only=True):
    code: str


class Alarm(Payload, tag_field="event", tag=FaultEvent.ALARM.value):
    cause: str  # shoe-ahead-of-journal, cards-unjournaled, stack-unreconciled, or the shoe's discrepancy
    detail: str
    blocking: bool  # refuses new rounds until a technician acknowledges it
    dispense_id: int | None = None
    known_dispense_id: int | None = None
    unjournaled: int | None = None


# -- technician ----------------------------------------------------------------------------------------


class VerifyJournal(Payload, tag_field="action", tag=TechnicianAction.VERIFY_JOURNAL.value):
    ok: bool
    checked: int
    first_bad_seq: int | None
    problem: str | None


class ClearFault(Payload, tag_field="action", tag=TechnicianAction.CLEAR_FAULT.value):
    fault: str  # a FaultCode name, or "all"
    acknowledged: str | None = None  # the cause of the alarm it acknowledged (absent before 0.2)


class MaintenanceDispense(Payload, tag_field="action", tag=TechnicianAction.MAINTENANCE_DISPENSE.value):
    dispense_id: int
    known_dispense_id: int
    cards: list[CardCode | None]
    size: int | None = None
    failed: str | None = None  # the fault that ended the dispense
