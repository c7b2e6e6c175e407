"""Field codecs: how each kind of message field is laid out in a payload (little-endian).

A message class lists one codec per dataclass field, in order; ``protocols.messages`` does the rest.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Generic, TypeVar

from protocols.cards import NO_CARD, byte_to_card, card_to_byte
from protocols.codes import ReadStatus

T = TypeVar("T")
E = TypeVar("E", bound=IntEnum)


class PayloadError(ValueError):
    """A payload that does not decode as its message type says it should."""


@dataclass(frozen=True, slots=True)
class CardRead:
    """One card as the reader saw it: ``card`` is a code such as ``"As"``, or None when unreadable."""

    card: str | None
    status: ReadStatus = ReadStatus.OK

    def __post_init__(self) -> None:
        if (self.card is None) != (self.status is not ReadStatus.OK):
            raise ValueError(f"card {self.card!r} does not agree with read status {self.status.name}")


@dataclass(frozen=True, slots=True)
class LoggedEvent:
    """An event as stored in the shoe's log: its message type and encoded payload."""

    msg_type: int
    payload: bytes


class Field(Generic[T]):
    """Encodes one value into a payload and decodes it back from an offset."""

    def encode(self, value: T, out: bytearray) -> None:
        raise NotImplementedError

    def decode(self, buf: bytes, pos: int) -> tuple[T, int]:
        raise NotImplementedError


def _need(buf: bytes, pos: int, size: int, what: str) -> None:
    if pos + size > len(buf):
        raise PayloadError(f"payload ends at byte {len(buf)} inside {what} (needs {pos + size})")


class _Int(Field[int]):
    def __init__(self, fmt: str, name: str) -> None:
        self._s = struct.Struct("<" + fmt)
        self._name = name

    def encode(self, value: int, out: bytearray) -> None:
        try:
            out += self._s.pack(value)
        except struct.error as exc:
            raise PayloadError(f"{value!r} does not fit a {self._name}") from exc

    def decode(self, buf: bytes, pos: int) -> tuple[int, int]:
        _need(buf, pos, self._s.size, self._name)
        return int(self._s.unpack_from(buf, pos)[0]), pos + self._s.size


U8 = _Int("B", "u8")
U16 = _Int("H", "u16")
U32 = _Int("I", "u32")


class _Bool(Field[bool]):
    def encode(self, value: bool, out: bytearray) -> None:
        out.append(1 if value else 0)

    def decode(self, buf: bytes, pos: int) -> tuple[bool, int]:
        _need(buf, pos, 1, "bool")
        if buf[pos] > 1:
            raise PayloadError(f"bool byte 0x{buf[pos]:02X} is neither 0 nor 1")
        return buf[pos] == 1, pos + 1


BOOL = _Bool()


class Enum8(Field[E]):
    """An IntEnum carried as one byte; an unknown number is a payload error."""

    def __init__(self, enum: type[E]) -> None:
        self._enum = enum

    def encode(self, value: E, out: bytearray) -> None:
        out.append(int(value))

    def decode(self, buf: bytes, pos: int) -> tuple[E, int]:
        _need(buf, pos, 1, self._enum.__name__)
        try:
            return self._enum(buf[pos]), pos + 1
        except ValueError:
            raise PayloadError(f"{buf[pos]} is not a {self._enum.__name__}") from None


class _Str(Field[str]):
    """UTF-8 text, u8 byte length first (at most 255 bytes)."""

    def encode(self, value: str, out: bytearray) -> None:
        raw = value.encode("utf-8")
        if len(raw) > 255:
            raise PayloadError(f"text of {len(raw)} bytes exceeds 255")
        out.append(len(raw))
        out += raw

    def decode(self, buf: bytes, pos: int) -> tuple[str, int]:
        _need(buf, pos, 1, "text length")
        size = buf[pos]
        _need(buf, pos + 1, size, "text")
        try:
            return buf[pos + 1 : pos + 1 + size].decode("utf-8"), pos + 1 + size
        except UnicodeDecodeError as exc:
            raise PayloadError(f"text is not UTF-8: {exc}") from exc


STR = _Str()


class _Blob(Field[bytes]):
    """Raw bytes, u16 length first."""

    def encode(self, value: bytes, out: bytearray) -> None:
        U16.encode(len(value), out)
        out += value

    def decode(self, buf: bytes, pos: int) -> tuple[bytes, int]:
        size, pos = U16.decode(buf, pos)
        _need(buf, pos, size, "blob")
        return bytes(buf[pos : pos + size]), pos + size


BLOB = _Blob()


class _CardRead(Field[CardRead]):
    """Two bytes: card (0..51, 0xFF none) and read status."""

    def encode(self, value: CardRead, out: bytearray) -> None:
        out.append(NO_CARD if value.card is None else card_to_byte(value.card))
        out.append(int(value.status))

    def decode(self, buf: bytes, pos: int) -> tuple[CardRead, int]:
        _need(buf, pos, 2, "card read")
        raw, status_byte = buf[pos], buf[pos + 1]
        try:
            status = ReadStatus(status_byte)
            card = None if raw == NO_CARD else byte_to_card(raw)
            return CardRead(card, status), pos + 2
        except ValueError as exc:
            raise PayloadError(f"card read 0x{raw:02X}/0x{status_byte:02X}: {exc}") from exc


CARD_READ = _CardRead()


class _Card(Field[str]):
    """One card identity byte (0..51)."""

    def encode(self, value: str, out: bytearray) -> None:
        out.append(card_to_byte(value))

    def decode(self, buf: bytes, pos: int) -> tuple[str, int]:
        _need(buf, pos, 1, "card")
        try:
            return byte_to_card(buf[pos]), pos + 1
        except ValueError as exc:
            raise PayloadError(str(exc)) from exc


CARD = _Card()


class ListOf(Field[tuple[T, ...]]):
    """A u8 count followed by that many items."""

    def __init__(self, item: Field[T]) -> None:
        self._item = item

    def encode(self, value: tuple[T, ...], out: bytearray) -> None:
        if len(value) > 255:
            raise PayloadError(f"list of {len(value)} items exceeds 255")
        out.append(len(value))
        for item in value:
            self._item.encode(item, out)

    def decode(self, buf: bytes, pos: int) -> tuple[tuple[T, ...], int]:
        count, pos = U8.decode(buf, pos)
        items: list[T] = []
        for _ in range(count):
            item, pos = self._item.decode(buf, pos)
            items.append(item)
        return tuple(items), pos


class _Logged(Field[LoggedEvent]):
    def encode(self, value: LoggedEvent, out: bytearray) -> None:
        out.append(value.msg_type)
        BLOB.encode(value.payload, out)

    def decode(self, buf: bytes, pos: int) -> tuple[LoggedEvent, int]:
        msg_type, pos = U8.decode(buf, pos)
        payload, pos = BLOB.decode(buf, pos)
        return LoggedEvent(msg_type, payload), pos


LOGGED_EVENT = _Logged()


class _Pair(Field[tuple[int, bool]]):
    """A (u8, bool) pair, e.g. a self-test component and its result."""

    def encode(self, value: tuple[int, bool], out: bytearray) -> None:
        U8.encode(value[0], out)
        BOOL.encode(value[1], out)

    def decode(self, buf: bytes, pos: int) -> tuple[tuple[int, bool], int]:
        number, pos = U8.decode(buf, pos)
        ok, pos = BOOL.decode(buf, pos)
        return (number, ok), pos


U8_BOOL = _Pair()
