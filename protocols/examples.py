"""Example frames for SPEC.md §10 and the golden vectors of §13: ``python -m protocols.examples`` prints both."""

from __future__ import annotations

from protocols import auth, codec
from protocols import messages as m
from protocols.codes import DispensePhase, FaultCode, ShoeState
from protocols.fields import CardRead

EXAMPLES: tuple[tuple[str, m.Message, int], ...] = (
    ("host asks for identity, seq 1", m.Identify(), 1),
    (
        "shoe identity",
        m.Identity("CS-200", "SN0001", "1.4.2", 1, 0x003F, 0x1234ABCD),
        1,
    ),
    ("host asks for status, seq 2", m.GetStatus(), 2),
    (
        "idle shoe, 52 cards, nothing dispensed yet",
        m.Status(ShoeState.IDLE, 0, 52, 0, 0, 0, 0x1234ABCD, False, False),
        2,
    ),
    ("dispense id 1, two cards, seq 3", m.Dispense(1, 2), 3),
    ("dispense 1 started", m.DispenseReport(1, DispensePhase.STARTED, False, 0, ()), 3),
    ("event 1: dispense 1, card 1 is As", m.CardReadEvent(1, 1, 1, CardRead("As")), 0),
    ("event 2: dispense 1, card 2 is Td", m.CardReadEvent(2, 1, 2, CardRead("Td")), 0),
    ("event 3: stack 1 ready", m.StackReady(3, 1, (CardRead("As"), CardRead("Td"))), 0),
    ("host acknowledges events up to 3", m.EventAck(0x1234ABCD, 3), 0),
    ("event 4: jam during dispense 2", m.FaultRaised(4, FaultCode.JAM, 2), 0),
    ("event 5: the dealer loaded 52 cards with a blue back (§11)", m.DeckLoaded(5, 52, "blue"), 0),
    ("host asks for a deck check, seq 4", m.DeckCheck(), 4),
    (
        "deck report: 4 cards of a blue deck, 2c twice, As, a red-backed Kd (§11)",
        m.DeckReport(4, ("2c", "As"), ("2c",), 0, "blue", ("Kd",)),
        4,
    ),
    (
        "host asks for the firmware digest with seed 00112233 (§12), seq 5",
        m.FirmwareDigest(bytes.fromhex("00112233")),
        5,
    ),
    (
        "firmware digest: HMAC-SHA256 keyed by the seed over the 16384-byte image (§12)",
        m.FirmwareDigestReport(bytes.fromhex("00112233"), bytes(range(32)), "1.4.2", "boot-2.1", 16384),
        5,
    ),
)


GOLDEN_KEY = bytes(range(32))
GOLDEN_HOST_NONCE = bytes(range(0x10, 0x20))
GOLDEN_SHOE_NONCE = bytes(range(0x20, 0x30))
GOLDEN_BOOT_ID = 0x1234ABCD

GOLDEN: tuple[tuple[str, auth.Direction, int, m.Message, int], ...] = (
    ("host: IDENTIFY, counter 1, seq 1", auth.Direction.HOST_TO_SHOE, 1, m.Identify(), 1),
    ("host: DISPENSE id 1 of 2 cards, counter 2, seq 2", auth.Direction.HOST_TO_SHOE, 2, m.Dispense(1, 2), 2),
    (
        "shoe: the HELLO's reply, counter 1, seq 0x0100",
        auth.Direction.SHOE_TO_HOST,
        1,
        m.HelloReply(GOLDEN_BOOT_ID, GOLDEN_SHOE_NONCE, auth.key_id(GOLDEN_KEY)),
        0x0100,
    ),
    (
        "shoe: CARD_READ event 1, card As, counter 2",
        auth.Direction.SHOE_TO_HOST,
        2,
        m.CardReadEvent(1, 1, 1, CardRead("As")),
        0,
    ),
    (
        "shoe: DISPENSE_REPORT STARTED with its position (v1.1), counter 3, seq 2",
        auth.Direction.SHOE_TO_HOST,
        3,
        m.DispenseReport(1, DispensePhase.STARTED, False, 0, (), 0, 0, 52, 0, 0),
        2,
    ),
)


def golden_session() -> bytes:
    return auth.session_key(GOLDEN_KEY, GOLDEN_HOST_NONCE, GOLDEN_SHOE_NONCE, GOLDEN_BOOT_ID)


def golden_table() -> str:
    """The golden vectors of SPEC §13: the key, the session key, and authenticated frames."""
    session = golden_session()
    lines = [
        f"- pairing key `K` = `{GOLDEN_KEY.hex()}` (bytes 00..1f); key id = `0x{auth.key_id(GOLDEN_KEY):08X}`",
        f"- host nonce = `{GOLDEN_HOST_NONCE.hex()}`, shoe nonce = `{GOLDEN_SHOE_NONCE.hex()}`, "
        f"boot id = `0x{GOLDEN_BOOT_ID:08X}`",
        f"- session key = `{session.hex()}`",
        "",
        "| what | direction | counter | message | MAC | wire bytes (hex) |",
        "|---|---|---|---|---|---|",
    ]
    for what, direction, counter, message, seq in GOLDEN:
        body = auth.seal_body(session, direction, counter, message.TYPE, seq, payload=codec.encode_payload(message))
        wire = auth.seal(session, direction, counter, message.TYPE, seq, payload=codec.encode_payload(message))
        tag = body[-auth.MAC_SIZE :].hex(" ")
        lines.append(f"| {what} | 0x{direction:02X} | {counter} | `{message!r}` | `{tag}` | `{wire.hex(' ')}` |")
    return "\n".join(lines)


def table() -> str:
    lines = ["| what | message | wire bytes (hex) |", "|---|---|---|"]
    for what, message, seq in EXAMPLES:
        lines.append(f"| {what} | `{message!r}` | `{codec.encode(message, seq).hex(' ')}` |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
    print()
    print(golden_table())
