"""Fuzzing the deframer and the codec (hypothesis): the short run CI does on every push.

Properties: any byte stream, cut into any chunks, never raises (``Deframer.feed`` documents no exception);
``pending`` never exceeds ``MAX_ENCODED``; the result does not depend on the chunking; every returned
``Frame`` re-encodes to bytes that decode to the same frame; valid frames after a delimiter are recovered
whatever noise surrounds them; ``codec.decode`` of any frame returns a message or raises
``codec.MessageError``. ``bench/fuzz.py`` runs the same checks for as long as you like (docs/fuzzing.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from cobs import cobs
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import codec
from protocols.codes import NakCode
from protocols.crc import crc32c
from protocols.framing import CRC, HEADER, MAX_ENCODED, MAX_PAYLOAD, BadFrame, Deframer, Frame, encode_frame
from protocols.messages import ALL_MESSAGES, Message
from tests.protocols.test_messages import ANY_MESSAGE

CI = settings(max_examples=300, deadline=timedelta(milliseconds=500))
"""The short run. The long one is ``bench/fuzz.py --seconds N``."""

u8, u16 = st.integers(0, 0xFF), st.integers(0, 0xFFFF)
cuts = st.lists(st.integers(0, 1 << 16), max_size=12)
noise = st.binary(max_size=300)
KNOWN_TYPES = sorted(cls.TYPE for cls in ALL_MESSAGES)


def raw_frame(version: int, msg_type: int, seq: int, payload: bytes) -> bytes:
    """Wire bytes built by hand, without ``encode_frame``'s payload limit: a peer need not respect it."""
    body = HEADER.pack(version, msg_type, seq) + payload
    return bytes(cobs.encode(body + CRC.pack(crc32c(body)))) + b"\x00"


def feed_in_chunks(data: bytes, cut_points: list[int]) -> list[Frame | BadFrame]:
    """Feed ``data`` cut at ``cut_points``; ``pending`` is checked after every chunk (bounded memory)."""
    deframer, out = Deframer(), []
    points = sorted({c % (len(data) + 1) for c in cut_points} | {0, len(data)})
    for a, b in itertools.pairwise(points):
        out += deframer.feed(memoryview(data)[a:b])
        assert deframer.pending <= MAX_ENCODED
    return out


def check_stream(data: bytes, cut_points: list[int]) -> list[Frame]:
    """Every property of one stream; returns the frames found."""
    out = feed_in_chunks(data, cut_points)
    assert out == Deframer().feed(data), "the result depends on how the bytes were chunked"
    frames = []
    for item in out:
        if isinstance(item, BadFrame):
            assert item.length > 0
            continue
        assert isinstance(item, Frame)
        assert Deframer().feed(encode_frame(item.version, item.msg_type, item.seq, item.payload)) == [item]
        check_codec(item)
        frames.append(item)
    return frames


def check_codec(frame: Frame) -> Message | None:
    """``codec.decode`` answers a message or ``MessageError``; a decoded message re-encodes to itself."""
    try:
        message = codec.decode(frame)
    except codec.MessageError as exc:
        assert isinstance(exc.nak, NakCode)
        return None
    assert isinstance(message, Message) and frame.msg_type == message.TYPE
    assert codec.decode_payload(message.TYPE, codec.encode_payload(message)) == message
    return message


frame_fields = st.tuples(st.just(1) | u8, st.sampled_from(KNOWN_TYPES) | u8, u16, st.binary(max_size=MAX_PAYLOAD))


@st.composite
def mutated_payloads(draw: st.DrawFn) -> tuple[int, bytes]:
    """A real message's payload with a few bytes changed and maybe cut short: reaches deeper than noise."""
    message = draw(ANY_MESSAGE)
    payload = bytearray(codec.encode_payload(message))
    for _ in range(draw(st.integers(0, 3)) if payload else 0):
        payload[draw(st.integers(0, len(payload) - 1))] = draw(u8)
    cut = draw(st.integers(0, len(payload)))
    return message.TYPE, bytes(payload[: cut if draw(st.booleans()) else len(payload)]) + draw(st.binary(max_size=4))


Strategies = dict[str, st.SearchStrategy[Any]]
STREAM: Strategies = {"data": st.binary(max_size=4096), "cut_points": cuts}
IN_NOISE: Strategies = {
    "frames": st.lists(frame_fields, max_size=4),
    "noises": st.lists(noise, min_size=5, max_size=5),
    "cut_points": cuts,
}
ENDLESS: Strategies = {"run": st.integers(0, 20_000), "chunk": st.integers(1, 4096), "fields": frame_fields}
ANY_FRAME: Strategies = {
    "frame": st.builds(Frame, st.just(1) | u8, st.sampled_from(KNOWN_TYPES) | u8, u16, st.binary(max_size=1100))
}
MUTATED: Strategies = {"typed": mutated_payloads(), "seq": u16}


@pytest.mark.timeout(120)
@CI
@given(**STREAM)
def test_any_stream_in_any_chunks(data: bytes, cut_points: list[int]) -> None:
    check_stream(data, cut_points)


@pytest.mark.timeout(120)
@CI
@given(**IN_NOISE)
def test_delimited_frames_are_recovered_from_noise(
    frames: list[tuple[int, int, int, bytes]], noises: list[bytes], cut_points: list[int]
) -> None:
    """Each frame follows a delimiter and is followed by noise then a delimiter: the noise costs only itself."""
    wire = noises[0] + b"\x00" + b"".join(raw_frame(*f) + n + b"\x00" for f, n in zip(frames, noises[1:], strict=False))
    assert check_stream(wire, cut_points) == [Frame(*f) for f in frames]


@pytest.mark.timeout(120)
@CI
@given(**ENDLESS)
def test_an_endless_run_stays_bounded_and_costs_one_bad_frame(
    run: int, chunk: int, fields: tuple[int, int, int, bytes]
) -> None:
    data = b"\x5a" * run + b"\x00" + raw_frame(*fields)
    out = feed_in_chunks(data, list(range(0, len(data), chunk)))
    bad = [i for i in out if isinstance(i, BadFrame)]
    assert out[len(bad) :] == [Frame(*fields)]
    assert [b.length for b in bad] == ([run] if run else [])


@pytest.mark.timeout(120)
@CI
@given(**ANY_FRAME)
def test_codec_decode_of_any_frame(frame: Frame) -> None:
    check_codec(frame)


@pytest.mark.timeout(120)
@CI
@given(**MUTATED)
def test_codec_decode_of_mutated_real_payloads(typed: tuple[int, bytes], seq: int) -> None:
    check_codec(Frame(1, typed[0], seq, typed[1]))


FUZZ_TARGETS: dict[str, tuple[Callable[..., None], Strategies]] = {
    "stream": (test_any_stream_in_any_chunks, STREAM),
    "frames-in-noise": (test_delimited_frames_are_recovered_from_noise, IN_NOISE),
    "endless-run": (test_an_endless_run_stays_bounded_and_costs_one_bad_frame, ENDLESS),
    "codec": (test_codec_decode_of_any_frame, ANY_FRAME),
    "codec-mutated": (test_codec_decode_of_mutated_real_payloads, MUTATED),
}
"""What ``bench/fuzz.py`` runs for longer: each test's inner function with its strategies, re-wrapped there."""


@pytest.mark.timeout(120)
@CI
@given(size=st.integers(MAX_PAYLOAD - 4, MAX_PAYLOAD + 8), fill=st.sampled_from([b"\x00", b"\x01", b"\xff"]))
def test_frames_near_the_size_limit_re_encode(size: int, fill: bytes) -> None:
    """A body over MAX_BODY (payloads of 1025-1028 bytes fit under MAX_ENCODED) is refused as oversize."""
    check_stream(raw_frame(1, 0x42, 7, fill * size), [])
