"""Messages to frames and back: the one place that knows both layouts.

``encode(message, seq)`` gives wire bytes; ``decode(frame)`` gives a message or raises
``MessageError`` carrying the NAK code a shoe would answer with.

Each message type's layout is compiled once, at import (:class:`Layout`, issue 16): its field names
(no ``dataclasses.fields()`` per message) and its leading run of fixed-size fields (integers, bools,
one-byte enums, cards, card reads) as one ``struct.Struct`` with a converter per field, so that a
CARD_READ event decodes with one ``unpack_from`` and a table lookup for its card read instead of four
field-codec calls. Fields from the first variable-size one on (text, lists, blobs) use their codecs.
The fast path only ever takes a payload exactly as the field codecs would: anything it cannot take
(too short, a byte out of range, a value that does not fit) goes the generic way, which gives the one
error message.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable
from enum import IntEnum
from typing import Any

from protocols.cards import ALL_CODES, NO_CARD, card_to_byte
from protocols.codes import PROTOCOL_VERSION, MsgType, NakCode, ReadStatus
from protocols.fields import BOOL, CARD, CARD_READ, U8, U16, U32, CardRead, Enum8, Field, LoggedEvent, PayloadError
from protocols.framing import Frame, encode_frame
from protocols.messages import ALL_MESSAGES, Event, Message

Convert = Callable[[Any], Any]
_FAST_ERRORS = (struct.error, KeyError, ValueError, IndexError, TypeError, AttributeError)
"""What the fast path may raise on input it does not take; the generic path then decides."""


class MessageError(ValueError):
    """A checked frame whose header or payload is not a valid v1 message."""

    def __init__(self, nak: NakCode, message: str) -> None:
        super().__init__(message)
        self.nak = nak


def _card_reads() -> dict[int, CardRead]:
    """Every valid card read by its two wire bytes read as a little-endian u16 (``status << 8 | card``)."""
    table = {ReadStatus.OK << 8 | index: CardRead(code) for index, code in enumerate(ALL_CODES)}
    for status in ReadStatus:
        if status is not ReadStatus.OK:
            table[status << 8 | NO_CARD] = CardRead(None, status)
    return table


CARD_READS = _card_reads()
"""CardRead is frozen: one shared instance per valid read."""


def _bool(value: int) -> bool:
    if value > 1:
        raise ValueError("not a bool byte")
    return value == 1


def _card_read_bytes(value: CardRead) -> int:
    return int(value.status) << 8 | (NO_CARD if value.card is None else card_to_byte(value.card))


def _enum(enum: type[IntEnum]) -> Convert:
    return {int(m): m for m in enum}.__getitem__


def _fixed(field: Field[Any]) -> tuple[str, Convert | None, Convert | None] | None:
    """``(struct code, decode converter, encode converter)`` of a fixed-size field; None if variable."""
    simple = {id(U8): "B", id(U16): "H", id(U32): "I"}
    if id(field) in simple:
        return simple[id(field)], None, None
    if field is BOOL:
        return "B", _bool, lambda value: 1 if value else 0
    if field is CARD:
        return "B", dict(enumerate(ALL_CODES)).__getitem__, card_to_byte
    if field is CARD_READ:
        return "H", CARD_READS.__getitem__, _card_read_bytes
    if isinstance(field, Enum8):
        return "B", _enum(field._enum), int
    return None


class Layout:
    """One message class's compiled layout: field names, the fixed prefix's struct and converters."""

    def __init__(self, cls: type[Message]) -> None:
        self.cls = cls
        self.names = tuple(f.name for f in dataclasses.fields(cls))
        codes, decoders, encoders = [], [], []
        for field in cls.LAYOUT:
            fixed = _fixed(field)
            if fixed is None:
                break
            codes.append(fixed[0])
            decoders.append(fixed[1])
            encoders.append(fixed[2])
        self.fixed = len(codes)
        self.struct = struct.Struct("<" + "".join(codes))
        self.decoders = tuple(decoders)
        self.encoders = tuple(encoders)
        self.plain = all(d is None for d in decoders)
        self.rest = cls.LAYOUT[self.fixed :]
        self.optional_from = len(cls.LAYOUT) - cls.APPENDED

    def decode(self, payload: bytes) -> Message:
        if len(payload) < self.struct.size:
            raise ValueError("short: the generic path decides (appended fields left out, or MALFORMED)")
        raw = self.struct.unpack_from(payload)
        values = (
            list(raw) if self.plain else [v if c is None else c(v) for v, c in zip(raw, self.decoders, strict=True)]
        )
        if not self.rest:
            return self.cls(*values)
        pos = self.struct.size
        for index, codec in enumerate(self.rest, start=self.fixed):
            if pos == len(payload) and index >= self.optional_from:
                break
            value, pos = codec.decode(payload, pos)
            values.append(value)
        return self.cls(*values)

    def encode(self, message: Message) -> bytes:
        names = self.names
        values = [getattr(message, n) for n in names[: self.fixed]]
        head = self.struct.pack(*(v if c is None else c(v) for v, c in zip(values, self.encoders, strict=True)))
        if not self.rest:
            return head
        out = bytearray(head)
        for name, codec in zip(names[self.fixed :], self.rest, strict=True):
            codec.encode(getattr(message, name), out)
        return bytes(out)


_LAYOUTS: dict[int, Layout] = {int(cls.TYPE): Layout(cls) for cls in ALL_MESSAGES}
_BY_TYPE: dict[int, type[Message]] = {cls.TYPE: cls for cls in ALL_MESSAGES}


def _encode_generic(message: Message) -> bytes:
    out = bytearray()
    for field, codec in zip(dataclasses.fields(message), message.LAYOUT, strict=True):
        codec.encode(getattr(message, field.name), out)
    return bytes(out)


def encode_payload(message: Message) -> bytes:
    layout = _LAYOUTS.get(int(message.TYPE))
    if layout is not None and layout.cls is type(message):
        try:
            return layout.encode(message)
        except _FAST_ERRORS:
            pass  # the generic path raises the one PayloadError for a value that does not fit
    return _encode_generic(message)


def _decode_generic(cls: type[Message], payload: bytes) -> Message:
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


def decode_payload(msg_type: int, payload: bytes) -> Message:
    """Decode a payload of a known type. Bytes after the last known field are ignored (SPEC §7).

    The last ``APPENDED`` fields of a class were appended within v1 and carry defaults; a payload that
    ends before them (an older shoe) decodes with those defaults.
    A payload that ends before an original field is MALFORMED.
    """
    layout = _LAYOUTS.get(msg_type)
    if layout is None:
        raise MessageError(NakCode.UNKNOWN_MESSAGE, f"message type 0x{msg_type:02X} is not in protocol v1")
    try:
        return layout.decode(payload)
    except _FAST_ERRORS:
        return _decode_generic(layout.cls, payload)


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
