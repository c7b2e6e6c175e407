"""Authenticated frames of protocol v1.1 (SPEC §13): a session key per handshake, a MAC and a counter per frame.

Pure functions and small state holders; nothing here does I/O or keeps time. Both sides use it:
the host's link (``drivers.link``) and the reference shoe (``drivers.emulator.device``).

An authenticated frame is a frame (``protocols.framing``) whose first body byte is ``FORMAT_AUTH`` (2)
and whose payload field holds ``counter:u32 | message payload | mac:8``. The MAC is keyed BLAKE2s with
an 8-byte digest over a direction byte and every body byte before the MAC; the CRC-32C after it is
unchanged. A receiver checks the CRC first (line noise: discarded as today), then the MAC and the
counter (forgery, rewriting, replay, reordering: refused and counted).
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any

from cobs import cobs

from protocols.crc import crc32c
from protocols.framing import CRC, DELIMITER, HEADER, MAX_PAYLOAD, Frame, encode_frame

FORMAT_PLAIN = 1
FORMAT_AUTH = 2
KEY_SIZE = 32
NONCE_SIZE = 16
MAC_SIZE = 8
COUNTER = struct.Struct("<I")
OVERHEAD = COUNTER.size + MAC_SIZE
"""Bytes an authenticated frame adds to the body of the same message sent plain."""
MAX_AUTH_PAYLOAD = MAX_PAYLOAD - OVERHEAD
SESSION_LABEL = b"shoe-link v1.1 session"
KEY_ID_LABEL = b"shoe-link v1.1 key id"
_BOOT = struct.Struct("<I")


class Direction(IntEnum):
    """The first byte MAC'd: a frame sealed for one direction never verifies in the other (no reflection)."""

    HOST_TO_SHOE = 0x01
    SHOE_TO_HOST = 0x02


class Refusal(Enum):
    """Why an authenticated frame was refused."""

    FORMAT = "format"  # not an authenticated frame, or too short to hold counter and MAC
    MAC = "mac"  # forged, rewritten, or sealed under another key or session
    REPLAY = "replay"  # a counter at or below the last accepted: replayed or reordered


class AuthError(ValueError):
    def __init__(self, refusal: Refusal, message: str) -> None:
        super().__init__(message)
        self.refusal = refusal


def check_key(key: bytes) -> bytes:
    if not isinstance(key, bytes) or len(key) != KEY_SIZE:
        raise ValueError(f"a pairing key is {KEY_SIZE} bytes")
    return key


def key_id(key: bytes) -> int:
    """A 32-bit name of the key (IDENTITY, logs, the pairing record): tells keys apart, reveals nothing of them."""
    digest = hashlib.blake2s(KEY_ID_LABEL, key=check_key(key), digest_size=4).digest()
    return int.from_bytes(digest, "little")


def session_key(key: bytes, host_nonce: bytes, shoe_nonce: bytes, boot_id: int) -> bytes:
    """The 32-byte key of one session: both sides' fresh nonces and the shoe's boot, under the pairing key."""
    if len(host_nonce) != NONCE_SIZE or len(shoe_nonce) != NONCE_SIZE:
        raise ValueError(f"a nonce is {NONCE_SIZE} bytes")
    data = SESSION_LABEL + host_nonce + shoe_nonce + _BOOT.pack(boot_id)
    return hashlib.blake2s(data, key=check_key(key), digest_size=32).digest()


def mac(session: bytes, direction: Direction, sealed: bytes) -> bytes:
    """The 8-byte MAC of the body bytes ``sealed`` (format .. payload, counter included)."""
    return hashlib.blake2s(bytes((direction,)) + sealed, key=session, digest_size=MAC_SIZE).digest()


def seal_body(session: bytes, direction: Direction, counter: int, msg_type: int, seq: int, *, payload: bytes) -> bytes:
    """The frame's payload field: ``counter | payload | mac``."""
    if len(payload) > MAX_AUTH_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds the {MAX_AUTH_PAYLOAD}-byte authenticated limit")
    inner = COUNTER.pack(counter) + payload
    tag = mac(session, direction, HEADER.pack(FORMAT_AUTH, msg_type, seq) + inner)
    return inner + tag


def seal(session: bytes, direction: Direction, counter: int, msg_type: int, seq: int, *, payload: bytes) -> bytes:
    """Wire bytes (COBS, delimiter) of one authenticated frame."""
    return encode_frame(
        FORMAT_AUTH, msg_type, seq, seal_body(session, direction, counter, msg_type, seq, payload=payload)
    )


def open_frame(session: bytes, direction: Direction, frame: Frame) -> tuple[int, Frame]:
    """``(counter, plain frame)`` of an authenticated frame whose MAC checks; ``AuthError`` otherwise.

    The plain frame has format 1 and the message payload, as a v1.0 frame of the same message would.
    The counter is not judged here (``Receiver`` does).
    """
    body = frame.payload
    if frame.version != FORMAT_AUTH or len(body) < OVERHEAD:
        raise AuthError(Refusal.FORMAT, "not an authenticated frame")
    inner, tag = body[:-MAC_SIZE], body[-MAC_SIZE:]
    want = mac(session, direction, HEADER.pack(FORMAT_AUTH, frame.msg_type, frame.seq) + inner)
    if not hmac.compare_digest(tag, want):
        raise AuthError(Refusal.MAC, "MAC does not check")
    (counter,) = COUNTER.unpack_from(inner)
    return counter, Frame(FORMAT_PLAIN, frame.msg_type, frame.seq, inner[COUNTER.size :])


def _keyed(session: bytes, direction: Direction) -> Any:
    """A BLAKE2s state keyed with the session and fed the direction byte: each frame ``copy()``s it, so the
    key block is compressed once per session, not once per frame."""
    state = hashlib.blake2s(key=session, digest_size=MAC_SIZE)
    state.update(bytes((direction,)))
    return state


_HEAD = struct.Struct("<BBHI")  # format, type, seq, counter: the sealed body's fixed start
_HEADER_PACK = HEADER.pack
_SAME = hmac.compare_digest
_COUNTED: dict[int, Any] = {}
"""``_COUNTED[len(field)](field)`` is ``(counter, message payload)`` of an authenticated payload field, in one
``unpack_from``; built the first time a length is seen (:func:`_counted`)."""


def _counted(size: int) -> Any:
    unpack = _COUNTED[size] = struct.Struct(f"<I{size - OVERHEAD}s{MAC_SIZE}x").unpack_from
    return unpack


@dataclass
class Sender:
    """One direction's sealing side: the session key and the next counter (1 first, +1 per frame)."""

    session: bytes
    direction: Direction
    counter: int = 0

    def __post_init__(self) -> None:
        self.keyed = _keyed(self.session, self.direction)
        """The keyed state fed the direction byte: a frame's MAC starts from its ``copy()``."""

    def next_counter(self) -> int:
        """The counter of the next frame (1 first); OverflowError once the session has used them all."""
        if self.counter >= 0xFFFFFFFF:
            raise OverflowError("session counter exhausted: start a new session")
        self.counter += 1
        return self.counter

    def seal(self, msg_type: int, seq: int, payload: bytes) -> bytes:
        """The same bytes as :func:`seal`, with the keyed state reused."""
        if len(payload) > MAX_AUTH_PAYLOAD:
            raise ValueError(f"payload of {len(payload)} bytes exceeds the {MAX_AUTH_PAYLOAD}-byte authenticated limit")
        sealed = _HEAD.pack(FORMAT_AUTH, msg_type, seq, self.next_counter()) + payload
        state = self.keyed.copy()
        state.update(sealed)
        body = sealed + state.digest()
        return bytes(cobs.encode(body + CRC.pack(crc32c(body)))) + DELIMITER


@dataclass
class Receiver:
    """One direction's checking side: accepts a frame whose MAC checks and whose counter is above the last.

    Counters may skip (a frame lost on the line); they never repeat or go back (a replay, a reorder).
    """

    session: bytes
    direction: Direction
    last: int = 0
    refused: int = 0

    def __post_init__(self) -> None:
        self._state = _keyed(self.session, self.direction)
        self.keyed = self._state
        """The keyed state fed the direction byte (read by ``protocols.reader``'s one-pass check)."""

    def open(self, frame: Frame) -> Frame:
        body = frame.payload
        if frame.version != FORMAT_AUTH or len(body) < OVERHEAD:
            self.refused += 1
            raise AuthError(Refusal.FORMAT, "not an authenticated frame")
        msg_type, seq = frame.msg_type, frame.seq
        state = self._state.copy()
        state.update(_HEADER_PACK(FORMAT_AUTH, msg_type, seq) + body[:-MAC_SIZE])  # one update: half the calls
        if not _SAME(body[-MAC_SIZE:], state.digest()):
            self.refused += 1
            raise AuthError(Refusal.MAC, "MAC does not check")
        counted = _COUNTED.get(len(body)) or _counted(len(body))
        counter, payload = counted(body)
        plain = Frame(FORMAT_PLAIN, msg_type, seq, payload)
        if counter <= self.last:
            self.refused += 1
            raise AuthError(Refusal.REPLAY, f"counter {counter} is not above {self.last}")
        self.last = counter
        return plain


@dataclass
class Session:
    """Both directions of one session, from one side's point of view (``host`` or shoe)."""

    out: Sender
    into: Receiver

    @classmethod
    def start(cls, key: bytes, host_nonce: bytes, shoe_nonce: bytes, boot_id: int, *, host: bool) -> Session:
        k = session_key(key, host_nonce, shoe_nonce, boot_id)
        mine, theirs = Direction.HOST_TO_SHOE, Direction.SHOE_TO_HOST
        if not host:
            mine, theirs = theirs, mine
        return cls(Sender(k, mine), Receiver(k, theirs))
