"""Numbered vocabularies of protocol v1: message types, states, faults, refusal codes.

Every number here is part of the wire format and is listed in ``SPEC.md``; never renumber.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, IntFlag

PROTOCOL_VERSION = 1
PROTOCOL_MINOR = 1
"""v1.1 (SPEC §13): authenticated frames, pairing, and dispense reports that carry the shoe's position."""


class MsgType(IntEnum):
    """Message type byte. 0x01-0x3F host requests, 0x40-0x7F shoe responses, 0x80-0xBF shoe events."""

    IDENTIFY = 0x01
    GET_STATUS = 0x02
    DISPENSE = 0x03
    RELEASE_STUB = 0x04
    SCAN = 0x05
    DECK_CHECK = 0x06
    SELF_TEST = 0x07
    GET_COUNTERS = 0x08
    READ_EVENT_LOG = 0x09
    CLEAR_FAULT = 0x0A
    RESET = 0x0B
    QUERY_DISPENSE = 0x0C
    FIRMWARE_DIGEST = 0x0D  # v1 addition: seeded HMAC over the firmware image (SPEC §12)
    HELLO = 0x0E  # v1.1: start an authenticated session (SPEC §13)
    PAIR = 0x0F  # v1.1: set (or rotate) the pairing key (SPEC §13)
    EVENT_ACK = 0x10

    IDENTITY = 0x41
    STATUS = 0x42
    DISPENSE_REPORT = 0x43
    STUB_RELEASED = 0x44
    SCAN_RESULT = 0x45
    DECK_REPORT = 0x46
    SELF_TEST_REPORT = 0x47
    COUNTERS = 0x48
    EVENT_LOG = 0x49
    OK = 0x4A
    FIRMWARE_DIGEST_REPORT = 0x4B  # v1 addition (SPEC §12)
    HELLO_REPLY = 0x4C  # v1.1 (SPEC §13)
    NAK = 0x7F

    CARD_READ = 0x81
    STACK_READY = 0x82
    STACK_TAKEN = 0x83
    FAULT_RAISED = 0x84
    FAULT_CLEARED = 0x85
    DECK_LOADED = 0x86  # v1 addition: cards were loaded (SPEC §3, §11)

    @property
    def is_request(self) -> bool:
        return self < 0x40

    @property
    def is_response(self) -> bool:
        return 0x40 <= self < 0x80

    @property
    def is_event(self) -> bool:
        return 0x80 <= self < 0xC0


class ShoeState(IntEnum):
    """The shoe's mechanism state, reported in STATUS."""

    BOOTING = 0
    IDLE = 1
    DISPENSING = 2
    STACK_IN_TRAY = 3
    SCANNING = 4
    STUB_RELEASED = 5
    FAULT = 6
    SELF_TEST = 7


class FaultCode(IntEnum):
    """Device faults. Bit ``code - 1`` of STATUS ``faults`` is set while the fault is active."""

    JAM = 1
    DOUBLE_FEED = 2
    MISFEED = 3
    DOOR_OPEN = 4
    SHOE_EMPTY = 5
    UNREADABLE_CARD = 6
    TAMPER = 7
    INTERNAL_ERROR = 8

    @property
    def flag(self) -> int:
        return 1 << (self - 1)


@dataclass(frozen=True)
class FaultInfo:
    """What a technician reads for a fault: a sentence and the next step."""

    text: str
    hint: str


FAULT_INFO: dict[FaultCode, FaultInfo] = {
    FaultCode.JAM: FaultInfo(
        "card jam in the feed path",
        "open the door, remove the jammed card without changing the order of the others, close the "
        "door, then clear the fault",
    ),
    FaultCode.DOUBLE_FEED: FaultInfo(
        "two cards were fed together",
        "the stack is not valid (misdeal); remove the cards from the tray, then clear the fault",
    ),
    FaultCode.MISFEED: FaultInfo(
        "the feeder did not pick a card",
        "check the cards sit flat against the feed roller, then clear the fault",
    ),
    FaultCode.DOOR_OPEN: FaultInfo("the shoe door is open", "close the door; the fault clears by itself"),
    FaultCode.SHOE_EMPTY: FaultInfo("no cards left to dispense", "load a shuffled, checked deck, then clear the fault"),
    FaultCode.UNREADABLE_CARD: FaultInfo(
        "a card could not be read after the automatic re-read",
        "identify the card on the dealer display with a technician's confirmation, or declare a misdeal",
    ),
    FaultCode.TAMPER: FaultInfo(
        "an output sensor was blocked while the shoe was idle",
        "remove any object from the output tray and the card path; security may need to review it",
    ),
    FaultCode.INTERNAL_ERROR: FaultInfo(
        "the shoe reported an internal error", "reset the shoe; if it repeats, call service"
    ),
}


def faults_from_flags(flags: int) -> tuple[FaultCode, ...]:
    """Decode the STATUS fault bitmask into fault codes, lowest first."""
    return tuple(code for code in FaultCode if flags & code.flag)


class NakCode(IntEnum):
    """Why the shoe refused a request (NAK)."""

    UNSUPPORTED_VERSION = 1
    UNKNOWN_MESSAGE = 2
    MALFORMED = 3
    BAD_STATE = 4
    FAULT_ACTIVE = 5
    BAD_ARGUMENT = 6
    STALE_DISPENSE_ID = 7
    BUSY = 8
    NOT_SUPPORTED = 9
    NOT_PAIRED = 10  # v1.1: HELLO to a shoe that holds no pairing key (SPEC §13)
    AUTH_REQUIRED = 11  # v1.1: a paired shoe refuses this plain frame, or has no session for an authenticated one


class ReadStatus(IntEnum):
    """Result of reading one card. ``OK`` carries a card identity; the others carry ``NO_CARD``."""

    OK = 0
    SMUDGED = 1
    MISALIGNED = 2
    FOREIGN_CARD = 3
    READER_FAULT = 4


class DispensePhase(IntEnum):
    """Where a dispense id stands, in DISPENSE_REPORT."""

    UNKNOWN = 0
    STARTED = 1
    IN_PROGRESS = 2
    COMPLETE = 3
    FAILED = 4


class Capability(IntFlag):
    """What a shoe can do, in IDENTITY."""

    DISPENSE = 0x0001
    SCAN = 0x0002
    DECK_CHECK = 0x0004
    TRAY_SENSOR = 0x0008
    EVENT_LOG = 0x0010
    SELF_TEST = 0x0020
    DECK_LOADED = 0x0040  # v1 addition: the shoe sends DECK_LOADED and DECK_REPORT names the back (§11)
    FIRMWARE_DIGEST = 0x0080  # v1 addition: the shoe answers FIRMWARE_DIGEST (§12)
    FAULT_INJECTION = 0x0100
    AUTH = 0x0200  # v1.1: HELLO, PAIR and authenticated frames (SPEC §13)
    DISPENSE_POSITION = 0x0400  # v1.1: DISPENSE_REPORT carries the counters and cards remaining (SPEC §6, §13)


class SelfTestComponent(IntEnum):
    """Parts checked by SELF_TEST."""

    FEEDER = 1
    READER = 2
    TRAY_SENSOR = 3
    DOOR_SENSOR = 4
    MEMORY = 5
