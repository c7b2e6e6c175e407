"""The decode fast paths answer exactly what the checked slow paths answer.

- ``Deframer.feed`` builds a frame itself when a run passes every check (one CRC call over the whole
  body against the residue, one unpack per body length); any other run goes to ``decode_frame``. For any
  run the deframer's answer is ``decode_frame``'s frame, or a ``BadFrame`` with its kind and message.
- ``codec.decode`` calls the generated decoder of the frame's type; for any frame its answer is the
  field codecs' message or their refusal (the same NAK code and text).
- Messages and frames stay immutable, hashable values (frozen msgspec structs, as the frozen dataclasses
  they were).
"""

from __future__ import annotations

import struct
from typing import Any

import msgspec
import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import codec
from protocols import messages as m
from protocols.crc import RESIDUE, crc32c
from protocols.fields import CardRead
from protocols.framing import (
    CRC,
    HEADER,
    MAX_BODY,
    BadFrame,
    Deframer,
    Frame,
    FrameError,
    FrameErrorKind,
    decode_frame,
)
from tests.protocols.test_messages import ANY_MESSAGE

u8, u16 = st.integers(0, 0xFF), st.integers(0, 0xFFFF)
EDGES = st.sampled_from([0, 1, 2, 5, 51, 52, 0xFE, 0xFF])
"""Bytes at the edges of the fields' ranges: a bool of 2, the last and first non-card, an unknown enum."""


def _body(version: int, msg_type: int, seq: int, payload: bytes) -> bytes:
    body = HEADER.pack(version, msg_type, seq) + payload
    return body + CRC.pack(crc32c(body))


@st.composite
def runs(draw: st.DrawFn) -> bytes:
    """One run between delimiters: noise, a valid frame, or a valid frame with a few bytes changed."""
    kind = draw(st.sampled_from(["noise", "valid", "mutated", "cobs-of-noise"]))
    if kind == "noise":
        return draw(st.binary(min_size=1, max_size=1200).filter(lambda b: 0 not in b))
    if kind == "cobs-of-noise":
        return bytes(cobs.encode(draw(st.binary(max_size=MAX_BODY + 8))))
    body = bytearray(_body(draw(st.just(1) | u8), draw(u8), draw(u16), draw(st.binary(max_size=60))))
    if kind == "mutated":
        for _ in range(draw(st.integers(1, 3))):
            body[draw(st.integers(0, len(body) - 1))] ^= draw(st.integers(1, 0xFF))
        body = body[: draw(st.integers(0, len(body)))]
    return bytes(cobs.encode(bytes(body)))


def _slow(run: bytes) -> Frame | BadFrame:
    try:
        return decode_frame(run)
    except FrameError as exc:
        return BadFrame(exc.kind, len(run), str(exc))


@settings(max_examples=800, deadline=None)
@given(run=runs())
def test_the_deframer_answers_what_decode_frame_answers(run: bytes) -> None:
    assert Deframer().feed(run + b"\x00") == [_slow(run)]


@pytest.mark.parametrize("size", [0, 1, 3, 4, 7])
def test_a_body_too_short_for_header_and_crc_is_short_even_when_its_crc_checks(size: int) -> None:
    """A body of under 8 bytes can still give the residue (any 4+ bytes ending in their CRC do)."""
    data = bytes(range(1, size - 3)) if size >= 4 else b""
    body = data + CRC.pack(crc32c(data)) if size >= 4 else bytes(range(1, size + 1))
    (item,) = Deframer().feed(bytes(cobs.encode(body)) + b"\x00")
    assert isinstance(item, BadFrame) and item.kind is FrameErrorKind.SHORT, item


def test_a_body_over_the_limit_is_oversize_even_when_its_crc_checks() -> None:
    body = _body(1, 0x81, 0, bytes(MAX_BODY - 7))
    assert crc32c(body) == RESIDUE and len(body) == MAX_BODY + 1
    (item,) = Deframer(max_encoded=4096).feed(bytes(cobs.encode(body)) + b"\x00")
    assert isinstance(item, BadFrame) and item.kind is FrameErrorKind.OVERSIZE, item


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=64))
def test_any_bytes_followed_by_their_crc_give_the_residue(data: bytes) -> None:
    assert crc32c(data + struct.pack("<I", crc32c(data))) == RESIDUE


def _answer(frame: Frame) -> Any:
    try:
        return codec.decode(frame)
    except codec.MessageError as exc:
        return ("refused", exc.nak, str(exc))


def _generic(frame: Frame) -> Any:
    cls = codec._BY_TYPE.get(frame.msg_type)
    if frame.version != 1 or cls is None:
        return _answer(frame)  # the version and type checks are not a fast path
    try:
        return codec._decode_generic(cls, frame.payload)
    except codec.MessageError as exc:
        return ("refused", exc.nak, str(exc))


@st.composite
def frames(draw: st.DrawFn) -> Frame:
    message = draw(ANY_MESSAGE)
    payload = bytearray(codec.encode_payload(message))
    for _ in range(draw(st.integers(0, 3)) if payload else 0):
        payload[draw(st.integers(0, len(payload) - 1))] = draw(EDGES | u8)
    payload = payload[: draw(st.integers(0, len(payload)))] + draw(st.binary(max_size=3))
    return Frame(draw(st.just(1) | u8), int(message.TYPE), draw(u16), bytes(payload))


@settings(max_examples=800, deadline=None)
@given(frame=frames())
def test_codec_decode_answers_what_the_field_codecs_answer(frame: Frame) -> None:
    assert _answer(frame) == _generic(frame)


@settings(max_examples=500, deadline=None)
@given(message=ANY_MESSAGE, seq=u16)
def test_feed_then_decode_round_trips_every_message(message: m.Message, seq: int) -> None:
    (frame,) = Deframer().feed(codec.encode(message, seq))
    assert isinstance(frame, Frame) and frame.seq == seq
    assert codec.decode(frame) == message


def test_messages_and_frames_stay_frozen_hashable_values() -> None:
    message = m.CardReadEvent(7, 1234, 2, CardRead("Td"))
    frame = Frame(1, 0x81, 0, b"")
    for value, name in ((message, "position"), (frame, "seq")):
        with pytest.raises(AttributeError):
            setattr(value, name, 3)
        assert hash(value) == hash(msgspec.structs.replace(value))
    assert msgspec.structs.replace(message, position=3) == m.CardReadEvent(7, 1234, 3, CardRead("Td"))
    assert repr(frame) == "Frame(version=1, msg_type=129, seq=0, payload=b'')"
    assert m.DeckReport(52, (), (), 0) == m.DeckReport(count=52, present=(), duplicates=(), unreadable=0, back="")


@settings(max_examples=60, deadline=None)
@given(message=ANY_MESSAGE)
def test_every_single_byte_change_decodes_as_the_field_codecs_decode_it(message: m.Message) -> None:
    """Each byte of a real payload set to each of its 256 values: a bool of 2, an unknown enum, a card
    byte of 52 all reach the fast decoder at the very field that must refuse them."""
    payload = codec.encode_payload(message)
    for position in range(min(len(payload), 24)):
        for value in range(256):
            changed = payload[:position] + bytes([value]) + payload[position + 1 :]
            frame = Frame(1, int(message.TYPE), 0, changed)
            assert _answer(frame) == _generic(frame), (position, value)
