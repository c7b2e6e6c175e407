"""Protocol v1 messages as frozen structs, one per message type, with their payload layout.

Each class names its ``TYPE`` and one field codec per field (``LAYOUT``), in wire order.
See ``SPEC.md`` for the meaning of every field and the rules of the exchange.

The messages are frozen ``msgspec.Struct`` classes (they were frozen dataclasses): the same fields,
positional and keyword construction, defaults, equality, hash, repr and immutability, but built in C,
which is most of what decoding a frame costs in Python. ``msgspec.structs.replace`` and
``msgspec.structs.fields`` stand in for their ``dataclasses`` namesakes. A message holds only numbers,
text, bytes, enums and tuples of frozen values, so it never takes part in a reference cycle
(``gc=False``: the collector does not track messages).
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

from protocols.codes import DispensePhase, FaultCode, MsgType, NakCode, ShoeState
from protocols.fields import (
    BLOB,
    BOOL,
    CARD,
    CARD_READ,
    LOGGED_EVENT,
    STR,
    U8,
    U8_BOOL,
    U16,
    U32,
    CardRead,
    Enum8,
    Field,
    ListOf,
    LoggedEvent,
)


class Message(msgspec.Struct, frozen=True, gc=False):
    """Base of every message. Subclasses set ``TYPE`` and ``LAYOUT``."""

    TYPE: ClassVar[MsgType]
    LAYOUT: ClassVar[tuple[Field[Any], ...]] = ()
    APPENDED: ClassVar[int] = 0
    """How many of the last LAYOUT fields were appended within v1 (SPEC §7): absent from an older sender."""


# --- host requests ---------------------------------------------------------------------------------


class Identify(Message, frozen=True):
    TYPE = MsgType.IDENTIFY


class GetStatus(Message, frozen=True):
    TYPE = MsgType.GET_STATUS


class Dispense(Message, frozen=True):
    """Dispense one stack of ``cards`` cards under ``dispense_id`` (idempotent by id)."""

    TYPE = MsgType.DISPENSE
    LAYOUT = (U32, U8)
    dispense_id: int
    cards: int


class QueryDispense(Message, frozen=True):
    """Ask what became of ``dispense_id`` without ever moving a card."""

    TYPE = MsgType.QUERY_DISPENSE
    LAYOUT = (U32,)
    dispense_id: int


class ReleaseStub(Message, frozen=True):
    TYPE = MsgType.RELEASE_STUB


class Scan(Message, frozen=True):
    """Read one card the dealer passes across the reader, waiting at most ``timeout_ms``."""

    TYPE = MsgType.SCAN
    LAYOUT = (U16,)
    timeout_ms: int


class DeckCheck(Message, frozen=True):
    TYPE = MsgType.DECK_CHECK


class SelfTest(Message, frozen=True):
    TYPE = MsgType.SELF_TEST


class GetCounters(Message, frozen=True):
    TYPE = MsgType.GET_COUNTERS


class ReadEventLog(Message, frozen=True):
    TYPE = MsgType.READ_EVENT_LOG
    LAYOUT = (U32, U8)
    first_event: int
    max_events: int


class ClearFault(Message, frozen=True):
    """Clear one fault, or every clearable fault when ``code`` is 0."""

    TYPE = MsgType.CLEAR_FAULT
    LAYOUT = (U8,)
    code: int = 0


class Reset(Message, frozen=True):
    TYPE = MsgType.RESET


class EventAck(Message, frozen=True):
    """Cumulative acknowledgement: every event up to and including ``event_no`` arrived. No reply."""

    TYPE = MsgType.EVENT_ACK
    LAYOUT = (U32, U32)
    boot_id: int
    event_no: int


class FirmwareDigest(Message, frozen=True):
    """v1 addition (SPEC §12): the HMAC-SHA256 keyed by ``seed`` (4..64 bytes) over the firmware image."""

    TYPE = MsgType.FIRMWARE_DIGEST
    LAYOUT = (BLOB,)
    seed: bytes


class Hello(Message, frozen=True):
    """Start an authenticated session (v1.1, SPEC §13): the host's fresh 16-byte nonce. Always a plain frame."""

    TYPE = MsgType.HELLO
    LAYOUT = (BLOB,)
    host_nonce: bytes


class Pair(Message, frozen=True):
    """Set the shoe's 32-byte pairing key (v1.1, SPEC §13): plain only while unpaired or its door is open,
    authenticated (a rotation) at any time."""

    TYPE = MsgType.PAIR
    LAYOUT = (BLOB,)
    key: bytes

    def __repr__(self) -> str:  # a key never goes into a log line
        return "Pair(key=<redacted>)"


# --- shoe responses --------------------------------------------------------------------------------


class Identity(Message, frozen=True):
    """``minor``, ``auth`` and ``key_id`` are appended in v1.1 (SPEC §13): a v1.0 shoe omits them (None).

    ``auth``: 0 the shoe does not authenticate (v1.0), 1 it can but holds no key, 2 it is paired with the
    key named ``key_id`` (``protocols.auth.key_id``).
    """

    TYPE = MsgType.IDENTITY
    LAYOUT = (STR, STR, STR, U8, U16, U32, U8, U8, U32)
    APPENDED = 3
    model: str
    serial: str
    firmware: str
    protocol_version: int
    capabilities: int
    boot_id: int
    minor: int | None = None
    auth: int | None = None
    key_id: int | None = None

    AUTH_NONE: ClassVar[int] = 0
    AUTH_UNPAIRED: ClassVar[int] = 1
    AUTH_PAIRED: ClassVar[int] = 2


class Status(Message, frozen=True):
    TYPE = MsgType.STATUS
    LAYOUT = (Enum8(ShoeState), U16, U16, U32, U32, U32, U32, BOOL, BOOL)
    state: ShoeState
    faults: int
    cards_remaining: int
    last_dispense_id: int
    active_dispense_id: int
    event_counter: int
    boot_id: int
    tray_occupied: bool
    door_open: bool

    UNKNOWN_REMAINING: ClassVar[int] = 0xFFFF


class DispenseReport(Message, frozen=True):
    """The last five fields are appended in v1.1 by a shoe with Capability.DISPENSE_POSITION (SPEC §6, §13):
    its COUNTERS ``cards`` and ``stacks`` and STATUS's ``cards_remaining``, ``last_dispense_id`` and
    ``active_dispense_id`` when it answers (STARTED: before the stack moves). None: an older shoe.
    The encoder stops at the first None, so a report built without them is sent as v1.0 sends it."""

    TYPE = MsgType.DISPENSE_REPORT
    LAYOUT = (U32, Enum8(DispensePhase), BOOL, U8, ListOf(CARD_READ), U32, U32, U16, U32, U32)
    APPENDED = 5
    dispense_id: int
    phase: DispensePhase
    replayed: bool
    fault: int
    cards: tuple[CardRead, ...]
    cards_total: int | None = None
    stacks: int | None = None
    cards_remaining: int | None = None
    last_dispense_id: int | None = None
    active_dispense_id: int | None = None

    @property
    def positioned(self) -> bool:
        return self.active_dispense_id is not None


class StubReleased(Message, frozen=True):
    TYPE = MsgType.STUB_RELEASED
    LAYOUT = (U8,)
    count: int


class ScanResult(Message, frozen=True):
    TYPE = MsgType.SCAN_RESULT
    LAYOUT = (CARD_READ,)
    read: CardRead


class DeckReport(Message, frozen=True):
    """Deck check: how many cards the shoe holds, which identities, which appear twice, unreadable.

    ``back`` and ``foreign`` are appended v1 fields (SPEC §7, §11): the loaded deck's back design
    ("" when the shoe cannot read backs) and the faces of cards of another design (not in
    ``present``). An older shoe omits them; they decode as "" and ().
    """

    TYPE = MsgType.DECK_REPORT
    LAYOUT = (U8, ListOf(CARD), ListOf(CARD), U8, STR, ListOf(CARD))
    APPENDED = 2
    count: int
    present: tuple[str, ...]
    duplicates: tuple[str, ...]
    unreadable: int
    back: str = ""
    foreign: tuple[str, ...] = ()


class SelfTestReport(Message, frozen=True):
    TYPE = MsgType.SELF_TEST_REPORT
    LAYOUT = (BOOL, ListOf(U8_BOOL))
    passed: bool
    results: tuple[tuple[int, bool], ...]


class Counters(Message, frozen=True):
    TYPE = MsgType.COUNTERS
    LAYOUT = (U32, U32, U32, U32, U32, U32, U32)
    cards: int
    stacks: int
    jams: int
    misreads: int
    power_cycles: int
    double_feeds: int
    misfeeds: int


class EventLog(Message, frozen=True):
    TYPE = MsgType.EVENT_LOG
    LAYOUT = (U32, BOOL, ListOf(LOGGED_EVENT))
    boot_id: int
    more: bool
    events: tuple[LoggedEvent, ...]


class Ok(Message, frozen=True):
    TYPE = MsgType.OK


class Nak(Message, frozen=True):
    TYPE = MsgType.NAK
    LAYOUT = (Enum8(NakCode), STR)
    code: NakCode
    detail: str


class FirmwareDigestReport(Message, frozen=True):
    """The answer to FIRMWARE_DIGEST (SPEC §12): the seed echoed, the 32-byte HMAC, the firmware identity,
    the bootloader's version, the image's size in bytes."""

    TYPE = MsgType.FIRMWARE_DIGEST_REPORT
    LAYOUT = (BLOB, BLOB, STR, STR, U32)
    seed: bytes
    hmac: bytes
    firmware: str
    bootloader: str
    image_size: int


class HelloReply(Message, frozen=True):
    """The answer to HELLO, sealed under the new session (SPEC §13): the boot and the shoe's fresh nonce."""

    TYPE = MsgType.HELLO_REPLY
    LAYOUT = (U32, BLOB, U32)
    boot_id: int
    shoe_nonce: bytes
    key_id: int


# --- shoe events (reliable: numbered, acknowledged, re-sent) ---------------------------------------


class Event(Message, frozen=True):
    """Base of events; ``event_no`` counts from 1 at each boot."""

    event_no: int


class CardReadEvent(Event, frozen=True):
    TYPE = MsgType.CARD_READ
    LAYOUT = (U32, U32, U8, CARD_READ)
    dispense_id: int
    position: int
    read: CardRead


class StackReady(Event, frozen=True):
    TYPE = MsgType.STACK_READY
    LAYOUT = (U32, U32, ListOf(CARD_READ))
    dispense_id: int
    cards: tuple[CardRead, ...]


class StackTaken(Event, frozen=True):
    TYPE = MsgType.STACK_TAKEN
    LAYOUT = (U32, U32)
    dispense_id: int


class FaultRaised(Event, frozen=True):
    TYPE = MsgType.FAULT_RAISED
    LAYOUT = (U32, Enum8(FaultCode), U32)
    code: FaultCode
    dispense_id: int


class FaultCleared(Event, frozen=True):
    TYPE = MsgType.FAULT_CLEARED
    LAYOUT = (U32, Enum8(FaultCode))
    code: FaultCode


class DeckLoaded(Event, frozen=True):
    """Cards were loaded (v1 addition, SPEC §11): ``count`` the shoe senses now (0xFFFF unknown), ``back``
    the deck's back design ("" when the shoe cannot read it). Sent by shoes with Capability.DECK_LOADED."""

    TYPE = MsgType.DECK_LOADED
    LAYOUT = (U32, U16, STR)
    count: int
    back: str = ""

    UNKNOWN_COUNT: ClassVar[int] = 0xFFFF


ALL_MESSAGES: tuple[type[Message], ...] = (
    Identify, GetStatus, Dispense, QueryDispense, ReleaseStub, Scan, DeckCheck, SelfTest, GetCounters,
    ReadEventLog, ClearFault, Reset, EventAck, FirmwareDigest, Hello, Pair,
    Identity, Status, DispenseReport, StubReleased, ScanResult, DeckReport, SelfTestReport, Counters,
    EventLog, Ok, Nak, FirmwareDigestReport, HelloReply,
    CardReadEvent, StackReady, StackTaken, FaultRaised, FaultCleared, DeckLoaded,
)  # fmt: skip
