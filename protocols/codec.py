"""Messages to frames and back: the one place that knows both layouts.

``encode(message, seq)`` gives wire bytes; ``decode(frame)`` gives a message or raises
``MessageError`` carrying the NAK code a shoe would answer with.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from protocols.codes import PROTOCOL_VERSION, MsgType, NakCode
from protocols.fields import LoggedEvent, PayloadError
from protocols.framing import Frame, encode_frame
from protocols.messages import ALL_MESSAGES, Event, Message

_BY_TYPE: dict[int, type[Message]] = {cls.TYPE: cls for cls in ALL_MESSAGES}


class MessageError(ValueError):
    """A checked frame whose header or payload is not a valid v1 message."""

    def __init__(self, nak: NakCode, message: str) -> None:
        super().__init__(message)
        self.nak = nak


def encode_payload(message: Message) -> bytes:
    out = bytearray()
    for field, codec in zip(dataclasses.fields(message), message.LAYOUT, strict=True):
        codec.encode(getattr(message, field.name), out)
    return bytes(out)


def decode_payload(msg_type: int, payload: bytes) -> Message:
    """Decode a payload of a known type. Bytes after the last known field are ignored (SPEC §7).

    The last ``APPENDED`` fields of a class were appended within v1 and carry defaults; a payload that
    ends before them (an older shoe) decodes with those defaults.
    A payload that ends before an original field is MALFORMED.
    """
    cls = _BY_TYPE.get(msg_type)
    if cls is None:
        raise MessageError(NakCode.UNKNOWN_MESSAGE, f"message type 0x{msg_type:02X} is not in protocol v1")
    values: list[Any] = []
    pos = 0
    optional_from = len(cls.LAYOUT) - cls.APPENDED
    try:
        for index, codec in enumerate(cls.LAYOUT):
            if pos == len(payload) and index >= optional_from:
                break  # an older sender: this and later fields are appended ones, left at their defaults
            value, pos = codec.decode(payload, pos)
            values.append(value)
        return cls(*values)
    except (PayloadError, ValueError) as exc:
        raise MessageError(NakCode.MALFORMED, f"{cls.__name__}: {exc}") from exc


def encode(message: Message, seq: int = 0) -> bytes:
    """Wire bytes of ``message``. Requests need a sequence 1..65535; responses echo one; events use 0."""
    return encode_frame(PROTOCOL_VERSION, message.TYPE, seq, encode_payload(message))


def decode(frame: Frame) -> Message:
    if frame.version != PROTOCOL_VERSION:
        raise MessageError(
            NakCode.UNSUPPORTED_VERSION,
            f"frame is protocol version {frame.version}; this side speaks version {PROTOCOL_VERSION}",
        )
    return decode_payload(frame.msg_type, frame.payload)


def logged(event: Event) -> LoggedEvent:
    """The event-log form of an event (type and payload), as READ_EVENT_LOG returns it."""
    return LoggedEvent(int(event.TYPE), encode_payload(event))


def message_type_name(msg_type: int) -> str:
    try:
        return MsgType(msg_type).name
    except ValueError:
        return f"0x{msg_type:02X}"
