"""Frames: COBS-encoded ``header | payload | CRC-32C``, each followed by one ``0x00`` delimiter.

Body layout (before COBS), all integers little-endian::

    offset 0  u8   protocol version (1)
    offset 1  u8   message type
    offset 2  u16  sequence number (requests 1..65535, a response echoes it, events use 0)
    offset 4  ...  payload (0..MAX_PAYLOAD bytes)
    last 4    u32  CRC-32C over every byte before it

The ``Deframer`` is incremental: feed it any bytes, it returns the frames completed so far and keeps the
rest. Garbage costs at most the frame it lands in: the next ``0x00`` resynchronises. Nothing here does
I/O or keeps time.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

import msgspec
from cobs import cobs

from protocols.crc import RESIDUE, crc32c

DELIMITER = b"\x00"
HEADER = struct.Struct("<BBH")
CRC = struct.Struct("<I")
MAX_PAYLOAD = 1024
MAX_BODY = HEADER.size + MAX_PAYLOAD + CRC.size
# COBS adds one byte per 254 and one at the start.
MAX_ENCODED = MAX_BODY + MAX_BODY // 254 + 1
MIN_BODY = HEADER.size + CRC.size


class Frame(msgspec.Struct, frozen=True, gc=False):
    """One checked frame: header fields and the raw payload, not yet decoded as a message.

    A frozen ``msgspec.Struct`` (immutable, compared and hashed by value, ``Frame(version=1, ...)`` in
    repr, as the frozen dataclass it was), because msgspec builds one in C: the frozen dataclass's
    ``__init__`` calls ``object.__setattr__`` by name per field, about a third of a decode.
    It holds only ints and bytes, so it never takes part in a reference cycle (``gc=False``).
    """

    version: int
    msg_type: int
    seq: int
    payload: bytes


class FrameErrorKind(Enum):
    """Why a run of bytes between delimiters was not a frame."""

    OVERSIZE = "oversize"
    COBS = "cobs"
    SHORT = "short"
    CRC = "crc"


class FrameError(ValueError):
    """Bytes that do not form a valid frame. ``kind`` says which check failed."""

    def __init__(self, kind: FrameErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class BadFrame:
    """A discarded run of bytes, reported by the deframer so the link can count and log it."""

    kind: FrameErrorKind
    length: int
    detail: str


Splitter = Callable[[bytes], tuple[int, int, int, bytes]]


_SPLITTERS: dict[int, Splitter] = {}
"""``_SPLITTERS[len(body)](body)`` is ``(version, msg_type, seq, payload)`` of a checked body, in one
``unpack_from``. A plain ``dict`` (a subclass with ``__missing__`` is not specialised by the interpreter and
cost twice as much a lookup), filled by :func:`decode_frame` the first time it checks a body of a length:
the deframer's fast path takes a length it does not hold yet (KeyError) that one time through it."""


def _splitter(size: int) -> Splitter:
    splitter = _SPLITTERS.get(size)
    if splitter is None:
        splitter = _SPLITTERS[size] = struct.Struct(f"<BBH{size - MIN_BODY}s{CRC.size}x").unpack_from
    return splitter


def encode_frame(version: int, msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """Return the wire bytes of one frame, delimiter included."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds the {MAX_PAYLOAD}-byte limit")
    body = HEADER.pack(version, msg_type, seq) + payload
    body += CRC.pack(crc32c(body))
    return bytes(cobs.encode(body)) + DELIMITER


def decode_frame(encoded: bytes) -> Frame:
    """Decode one frame given its COBS bytes without the delimiter. Raises ``FrameError``."""
    if len(encoded) > MAX_ENCODED:
        raise FrameError(FrameErrorKind.OVERSIZE, f"{len(encoded)} bytes exceed the {MAX_ENCODED} limit")
    try:
        body = cobs.decode(encoded)
    except cobs.DecodeError as exc:
        raise FrameError(FrameErrorKind.COBS, f"not valid COBS: {exc}") from exc
    if len(body) > MAX_BODY:
        raise FrameError(FrameErrorKind.OVERSIZE, f"{len(body)}-byte body exceeds the {MAX_BODY}-byte limit")
    if len(body) < HEADER.size + CRC.size:
        raise FrameError(FrameErrorKind.SHORT, f"{len(body)}-byte body is shorter than header and CRC")
    (received,) = CRC.unpack_from(body, len(body) - CRC.size)
    computed = crc32c(memoryview(body)[: -CRC.size])
    if received != computed:
        raise FrameError(FrameErrorKind.CRC, f"CRC mismatch: frame says 0x{received:08X}, bytes give 0x{computed:08X}")
    return Frame(*_splitter(len(body))(body))


_REFUSED = (cobs.DecodeError, KeyError)
"""What the deframer's checked path raises on a run it does not take; decode_frame then says why."""


class Deframer:
    """Incremental frame extractor. ``feed(bytes)`` returns completed frames and bad runs, in order.

    An empty run (two delimiters in a row) is ignored, so a sender may prefix a frame with ``0x00``
    to flush whatever partial bytes the other side holds. A run longer than ``max_encoded`` is
    dropped as it grows (memory stays bounded) and reported once when its delimiter arrives.
    """

    def __init__(self, max_encoded: int = MAX_ENCODED) -> None:
        self._max = max_encoded
        self._buffer = bytearray()
        self._overflowed = 0

    @property
    def pending(self) -> int:
        """Bytes held while waiting for a delimiter ("need more bytes" is the normal answer)."""
        return len(self._buffer)

    def reset(self) -> None:
        """Forget partial bytes, e.g. after the link was reopened."""
        self._buffer.clear()
        self._overflowed = 0

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame | BadFrame]:
        if not self._overflowed:
            return self._feed_runs(data)
        out: list[Frame | BadFrame] = []
        buf = bytes(data)
        start = 0
        while True:
            end = buf.find(0, start)
            self._append(buf[start:] if end < 0 else buf[start:end])
            if end < 0:
                return out
            self._complete(out)
            start = end + 1

    def _feed_runs(self, data: bytes | bytearray | memoryview) -> list[Frame | BadFrame]:
        """The usual case, nothing overflowing: split at the delimiters once, decode each run.

        A run that passes every check of :func:`decode_frame` (size, COBS, body length, CRC: the CRC over
        the whole body, its own CRC included, must give :data:`RESIDUE`) becomes a frame right here;
        anything else goes through :func:`decode_frame` again for its one error message.
        """
        return self._frames(self._split(data))

    def _frames(self, runs: Iterable[bytes]) -> list[Frame | BadFrame]:
        """The frames and bad runs of ``runs`` (split at the delimiters), as :meth:`feed` gives them."""
        out: list[Frame | BadFrame] = []
        append = out.append
        checked = min(self._max, MAX_ENCODED)
        cobs_decode, crc, splitters, refused = cobs.decode, crc32c, _SPLITTERS, _REFUSED
        for encoded in runs:
            if len(encoded) <= checked:
                try:
                    body = cobs_decode(encoded)
                    if crc(body) == RESIDUE:
                        append(Frame(*splitters[len(body)](body)))
                        continue
                except refused:
                    pass
            if (item := self._not_taken(encoded)) is not None:
                append(item)
        return out

    def _split(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """The runs ``data`` completes (the bytes held from before first); what follows the last delimiter, the
        start of a frame still arriving, is held."""
        if self._buffer:
            buf = bytes(self._buffer) + bytes(data)
            self._buffer.clear()
        else:
            buf = bytes(data)
        runs = buf.split(DELIMITER)
        tail = runs.pop()
        if tail:
            self._append(tail)
        return runs

    def _not_taken(self, encoded: bytes) -> Frame | BadFrame | None:
        """A run the fast check did not take: nothing for an empty one (two delimiters in a row: a flush, not a
        frame; its CRC of 0 never checks), else its frame or its one error, from :func:`decode_frame`."""
        if not encoded:
            return None
        if len(encoded) > self._max:
            return BadFrame(FrameErrorKind.OVERSIZE, len(encoded), "run exceeded the frame limit")
        try:
            return decode_frame(encoded)
        except FrameError as exc:
            return BadFrame(exc.kind, len(encoded), str(exc))

    def _append(self, chunk: bytes) -> None:
        if self._overflowed:
            self._overflowed += len(chunk)
            return
        if len(self._buffer) + len(chunk) > self._max:
            self._overflowed = len(self._buffer) + len(chunk)
            self._buffer.clear()
            return
        self._buffer += chunk

    def _complete(self, out: list[Frame | BadFrame]) -> None:
        if self._overflowed:
            out.append(BadFrame(FrameErrorKind.OVERSIZE, self._overflowed, "run exceeded the frame limit"))
            self._overflowed = 0
            return
        if not self._buffer:
            return
        encoded = bytes(self._buffer)
        self._buffer.clear()
        try:
            out.append(decode_frame(encoded))
        except FrameError as exc:
            out.append(BadFrame(exc.kind, len(encoded), str(exc)))
