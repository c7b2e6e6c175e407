"""Messages to frames and back: the one place that knows both layouts.

``encode(message, seq)`` gives wire bytes; ``decode(frame)`` gives a message or raises
``MessageError`` carrying the NAK code a shoe would answer with.

Each message type's layout is compiled once, at import (:class:`Layout`): its field names
(no field list looked up per message) and its leading run of fixed-size fields (integers, bools,
one-byte enums, cards, card reads) as one ``struct.Struct`` with a converter per field, so that a
CARD_READ event decodes with one ``unpack_from`` and a table lookup for its card read instead of four
field-codec calls. Fields from the first variable-size one on (text, lists, blobs) use their codecs.
The fast path only ever takes a payload exactly as the field codecs would: anything it cannot take
(too short, a byte out of range, a value that does not fit) goes the generic way, which gives the one
error message.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, cast

from cobs import cobs

from protocols.auth import FORMAT_AUTH, Sender
from protocols.cards import ALL_CODES, NO_CARD, card_to_byte
from protocols.codes import PROTOCOL_VERSION, MsgType, NakCode, ReadStatus
from protocols.crc import crc32c
from protocols.fields import (
    BOOL,
    CARD,
    CARD_READ,
    U8,
    U16,
    U32,
    CardRead,
    Enum8,
    Field,
    ListOf,
    LoggedEvent,
    PayloadError,
)
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


_BOOLS = {0: False, 1: True}
_CARDS = dict(enumerate(ALL_CODES))


def _card_read_bytes(value: CardRead) -> int:
    return int(value.status) << 8 | (NO_CARD if value.card is None else card_to_byte(value.card))


def _fixed(field: Field[Any]) -> tuple[str, dict[int, Any] | None, Convert | None] | None:
    """``(struct code, decode table, encode converter)`` of a fixed-size field; None if variable.

    A decode table maps every valid raw value to its decoded one; a raw value missing from it (a bool
    byte of 2, an unknown enum number, a card byte over 51) is refused by the field codec."""
    simple = {id(U8): "B", id(U16): "H", id(U32): "I"}
    if id(field) in simple:
        return simple[id(field)], None, None
    if field is BOOL:
        return "B", _BOOLS, lambda value: 1 if value else 0
    if field is CARD:
        return "B", _CARDS, card_to_byte
    if field is CARD_READ:
        return "H", CARD_READS, _card_read_bytes
    if isinstance(field, Enum8):
        return "B", {int(m): m for m in field._enum}, int
    return None


class Layout:
    """One message class's compiled layout: field names, the fixed prefix's struct, and a decoder.

    ``decode`` is generated per class (:meth:`_compile`): one ``unpack_from``, a dict lookup per
    converted field, the list of card reads (STACK_READY, DISPENSE_REPORT) in one more ``unpack_from``,
    and one call of the message class. It raises only ``_FAST_ERRORS`` on a payload it does
    not take, and then :func:`_decode_generic` gives the answer.
    """

    def __init__(self, cls: type[Message]) -> None:
        self.cls = cls
        self.names: tuple[str, ...] = cls.__struct_fields__
        codes, tables, encoders = [], [], []
        for field in cls.LAYOUT:
            fixed = _fixed(field)
            if fixed is None:
                break
            codes.append(fixed[0])
            tables.append(fixed[1])
            encoders.append(fixed[2])
        self.fixed = len(codes)
        self.struct = struct.Struct("<" + "".join(codes))
        self.tables = tuple(tables)
        self.encoders = tuple(encoders)
        self.rest = cls.LAYOUT[self.fixed :]
        self.optional_from = len(cls.LAYOUT) - cls.APPENDED
        self.decode: Callable[[bytes], Message] = self._compile()
        self.encode: Callable[[Message], bytes] = self._compile_encode()

    def _compile_encode(self) -> Callable[[Message], bytes]:
        """:meth:`encode_fields` as one generated function: the fixed fields read by name into one ``pack``
        (no list, generator and ``zip`` per message), the rest as :meth:`encode_fields` does. The same bytes
        and the same errors by construction: the converters and the field codecs are the same objects."""
        rest = tuple(zip(self.names[self.fixed :], self.rest, strict=True))
        env: dict[str, Any] = {"pack": self.struct.pack, "rest": rest}
        values = []
        for index, (name, convert) in enumerate(zip(self.names, self.encoders, strict=False)):
            if convert is None:
                values.append(f"message.{name}")
            else:
                env[f"e{index}"] = convert
                values.append(f"e{index}(message.{name})")
        lines = [f"    head = pack({', '.join(values)})"]
        if self.rest:
            lines += [
                "    out = bytearray(head)",
                "    for name, codec in rest:",
                "        value = getattr(message, name)",
                "        if value is None:",
                "            break",
                "        codec.encode(value, out)",
                "    return bytes(out)",
            ]
        else:
            lines.append("    return head")
        source = "def encode(message):\n" + "\n".join(lines) + "\n"
        exec(compile(source, f"<encode payload {self.cls.__name__}>", "exec"), env)
        encode: Callable[[Message], bytes] = env["encode"]
        return encode

    def _compile(self) -> Callable[[bytes], Message]:
        cls, n = self.cls, self.fixed
        env: dict[str, Any] = {"cls": cls, "unpack_from": self.struct.unpack_from}
        raw = [f"v{i}" for i in range(n)]
        values = []
        for i, table in enumerate(self.tables):
            env[f"t{i}"] = table
            values.append(raw[i] if table is None else f"t{i}[v{i}]")
        if n and not self.rest and all(table is None for table in self.tables):
            unpack = self.struct.unpack_from
            return cast(Callable[[bytes], Message], lambda payload: cls(*unpack(payload)))
        lines = [f"    {', '.join(raw)}, = unpack_from(payload)"] if n else []
        card_reads = len(self.rest) == 1 and isinstance(self.rest[0], ListOf) and self.rest[0]._item is CARD_READ
        tail = _appended_tail(cls, self.rest)
        if tail is not None:
            # A list of card reads, then appended fixed-size fields (DISPENSE_REPORT's position): one more
            # ``unpack_from`` after the list, or the defaults when the payload ends with the list (an older shoe).
            env.update(size=self.struct.size, reads=CARD_READS.__getitem__, lists=_CARD_READ_LISTS,
                       tail=tail.unpack_from)  # fmt: skip
            appended = [f"a{i}" for i in range(len(cls.LAYOUT) - n - 1)]
            lines += [
                "    count = payload[size]",
                f"    v{n} = tuple(map(reads, lists[count](payload, size + 1)))",
                "    pos = size + 1 + 2 * count",
                "    if pos == len(payload):",
                f"        return cls({', '.join([*values, f'v{n}'])})",
                f"    {', '.join(appended)}, = tail(payload, pos)",
                f"    return cls({', '.join([*values, f'v{n}', *appended])})",
            ]
            source = "def decode(payload):\n" + "\n".join(lines) + "\n"
            exec(compile(source, f"<decode {cls.__name__}>", "exec"), env)
            tailed: Callable[[bytes], Message] = env["decode"]
            return tailed
        if self.rest and not (card_reads and not cls.APPENDED):
            env.update(rest=tuple(enumerate(self.rest, start=n)), size=self.struct.size, optional=self.optional_from)
            lines += [
                f"    values = [{', '.join(values)}]",
                "    pos, end = size, len(payload)",
                "    for index, codec in rest:",
                "        if pos == end and index >= optional:",
                "            break",
                "        value, pos = codec.decode(payload, pos)",
                "        values.append(value)",
                "    return cls(*values)",
            ]
        else:
            if card_reads:  # a u8 count, then that many (card, status) pairs: one u16 each
                env.update(size=self.struct.size, reads=CARD_READS.__getitem__, lists=_CARD_READ_LISTS)
                lines += [
                    "    count = payload[size]",
                    f"    v{n} = tuple(map(reads, lists[count](payload, size + 1)))",
                ]
                values.append(f"v{n}")
            lines.append(f"    return cls({', '.join(values)})")
        source = "def decode(payload):\n" + "\n".join(lines or ["    return cls()"]) + "\n"
        exec(compile(source, f"<decode {cls.__name__}>", "exec"), env)
        decode: Callable[[bytes], Message] = env["decode"]
        return decode

    def encode_fields(self, message: Message) -> bytes:
        """The payload of ``message`` field by field (:meth:`_compile_encode` generates ``encode`` from this)."""
        names = self.names
        values = [getattr(message, n) for n in names[: self.fixed]]
        head = self.struct.pack(*(v if c is None else c(v) for v, c in zip(values, self.encoders, strict=True)))
        if not self.rest:
            return head
        out = bytearray(head)
        for name, codec in zip(names[self.fixed :], self.rest, strict=True):
            value = getattr(message, name)
            if value is None:
                break  # an appended field left out: the payload ends as an older sender's does (SPEC §7)
            codec.encode(value, out)
        return bytes(out)


def _appended_tail(cls: type[Message], rest: tuple[Field[Any], ...]) -> struct.Struct | None:
    """The struct of the fields after a leading list of card reads when they are all appended, fixed-size and
    taken as they are (integers); None for any other layout."""
    if len(rest) < 2 or len(rest) - 1 != cls.APPENDED:
        return None
    if not (isinstance(rest[0], ListOf) and rest[0]._item is CARD_READ):
        return None
    codes = []
    for field in rest[1:]:
        fixed = _fixed(field)
        if fixed is None or fixed[1] is not None:
            return None
        codes.append(fixed[0])
    return struct.Struct("<" + "".join(codes))


_CARD_READ_LISTS = tuple(struct.Struct(f"<{count}H").unpack_from for count in range(256))
"""The unpacker of a list of ``count`` card reads, by count (a list has a u8 count)."""

_CRC_PACK = struct.Struct("<I").pack
_CARD_BYTES: dict[str | None, int] = {**{code: index for index, code in enumerate(ALL_CODES)}, None: NO_CARD}
_VALID_READ_CODES = frozenset(CARD_READS)


def _read_code(read: CardRead) -> int:
    """A valid card read's two wire bytes as one u16 (the inverse of CARD_READS), from its fields: a dict keyed by
    the read would hash and compare the frozen dataclass in Python, about ten times this. KeyError for a read no
    field codec takes."""
    code: int = read.status << 8 | _CARD_BYTES[read.card]
    if code not in _VALID_READ_CODES:
        raise KeyError(read)
    return code


def _frame_encoder(layout: Layout, *, sealed: bool = False) -> Callable[..., bytes] | None:
    """The whole frame of a message in one generated function: header and fixed fields in one ``pack``,
    the CRC, COBS, the delimiter. Only for layouts of fixed-size fields, optionally ending in a list of
    card reads (CARD_READ, STACK_READY, DISPENSE, EVENT_ACK...); None for the rest. It raises only
    ``_FAST_ERRORS`` on a value that does not fit, and then the generic path gives the one error.

    ``sealed``: ``encode(message, seq, counter, keyed)``, the authenticated frame of SPEC §13 (format 2, the
    counter after the header, the MAC of every body byte before it from ``keyed.copy()``, a keyed BLAKE2s
    state already fed the direction byte: ``auth.Sender``), the same bytes as ``auth.seal`` of the payload."""
    cls = layout.cls
    reads_list = len(layout.rest) == 1 and isinstance(layout.rest[0], ListOf) and layout.rest[0]._item is CARD_READ
    if layout.rest and not reads_list:
        return None
    head = "<BBHI" if sealed else "<BBH"
    env: dict[str, Any] = {"pack": struct.Struct(head + layout.struct.format.lstrip("<")).pack,
                           "crc": crc32c, "crc_pack": _CRC_PACK, "cobs_encode": cobs.encode,
                           "version": FORMAT_AUTH if sealed else PROTOCOL_VERSION, "msg_type": int(cls.TYPE),
                           "read_code": _read_code, "card": card_to_byte, "lists": _CARD_READ_PACKS}  # fmt: skip
    values = []
    for index, (name, field) in enumerate(zip(layout.names, cls.LAYOUT[: layout.fixed], strict=False)):
        if field is CARD:
            values.append(f"card(message.{name})")
        elif field is CARD_READ:
            values.append(f"read_code(message.{name})")
        else:
            values.append(f"message.{name}")
        del index
    counter = ", counter" if sealed else ""
    lines = [f"    body = pack(version, msg_type, seq{counter}{''.join(', ' + v for v in values)})"]
    if reads_list:
        name = layout.names[layout.fixed]
        lines += [
            f"    items = message.{name}",
            "    body += lists[len(items)](len(items), *[read_code(read) for read in items])",
        ]
    if sealed:
        lines += ["    mac = keyed.copy()", "    mac.update(body)", "    body += mac.digest()"]
    lines.append('    return cobs_encode(body + crc_pack(crc(body))) + b"\\x00"')
    args = "message, seq, counter, keyed" if sealed else "message, seq"
    source = f"def encode({args}):\n" + "\n".join(lines) + "\n"
    exec(compile(source, f"<encode {cls.__name__}{' sealed' if sealed else ''}>", "exec"), env)
    encoder: Callable[..., bytes] = env["encode"]
    return encoder


_CARD_READ_PACKS = tuple(struct.Struct(f"<B{count}H").pack for count in range(256))


_LAYOUTS: dict[int, Layout] = {int(cls.TYPE): Layout(cls) for cls in ALL_MESSAGES}
_BY_TYPE: dict[int, type[Message]] = {cls.TYPE: cls for cls in ALL_MESSAGES}
_DECODERS: dict[int, Callable[[bytes], Message]] = {t: layout.decode for t, layout in _LAYOUTS.items()}
_FRAME_ENCODERS: dict[type[Message], Callable[[Message, int], bytes]] = {
    layout.cls: encoder for layout in _LAYOUTS.values() if (encoder := _frame_encoder(layout)) is not None
}
_SEALED_ENCODERS: dict[type[Message], Callable[[Message, int, int, Any], bytes]] = {
    layout.cls: encoder for layout in _LAYOUTS.values() if (encoder := _frame_encoder(layout, sealed=True)) is not None
}


def _encode_generic(message: Message) -> bytes:
    out = bytearray()
    for name, codec in zip(message.__struct_fields__, message.LAYOUT, strict=True):
        value = getattr(message, name)
        if value is None:
            break  # an appended field left out (``Layout.encode``)
        codec.encode(value, out)
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
    fast = _FRAME_ENCODERS.get(type(message))
    if fast is not None:
        try:
            return fast(message, seq)
        except _FAST_ERRORS:
            pass  # a value that does not fit: the generic path raises the one error
    return encode_frame(PROTOCOL_VERSION, message.TYPE, seq, encode_payload(message))


def encode_sealed(message: Message, seq: int, sender: Sender) -> bytes:
    """Wire bytes of ``message`` sealed by ``sender`` (SPEC §13): the bytes of ``sender.seal`` of its payload,
    from one generated function where the layout allows (no payload built apart and copied in)."""
    fast = _SEALED_ENCODERS.get(type(message))
    if fast is not None:
        counter = sender.counter + 1  # ``Sender.next_counter``, without its call
        if counter > 0xFFFFFFFF:
            raise OverflowError("session counter exhausted: start a new session")
        try:
            encoded = fast(message, seq, counter, sender.keyed)
        except _FAST_ERRORS:
            pass  # nothing was sent: the generic path takes the same counter, or raises the error
        else:
            sender.counter = counter
            return encoded
    return sender.seal(message.TYPE, seq, encode_payload(message))


def decode(frame: Frame) -> Message:
    """The message in a checked frame, or ``MessageError`` (UNSUPPORTED_VERSION, UNKNOWN_MESSAGE, MALFORMED)."""
    if frame.version == PROTOCOL_VERSION:
        try:
            return _DECODERS[frame.msg_type](frame.payload)
        except _FAST_ERRORS:  # KeyError for an unknown type, or a payload the decoder does not take:
            return decode_payload(frame.msg_type, frame.payload)  # the one UNKNOWN_MESSAGE or MALFORMED error
    raise MessageError(
        NakCode.UNSUPPORTED_VERSION,
        f"frame is protocol version {frame.version}; this side speaks version {PROTOCOL_VERSION}",
    )


def logged(event: Event) -> LoggedEvent:
    """The event-log form of an event (type and payload), as READ_EVENT_LOG returns it."""
    return LoggedEvent(int(event.TYPE), encode_payload(event))


def message_type_name(msg_type: int) -> str:
    try:
        return MsgType(msg_type).name
    except ValueError:
        return f"0x{msg_type:02X}"
