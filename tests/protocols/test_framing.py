"""Framer tests in the pymodbus manner: whole, halves, byte by byte, garbage around, bad CRC, golden vectors."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocols.crc import CHECK_VALUE, crc32c
from protocols.framing import (
    MAX_ENCODED,
    MAX_PAYLOAD,
    BadFrame,
    Deframer,
    Frame,
    FrameError,
    FrameErrorKind,
    decode_frame,
    encode_frame,
)

FRAMES = [
    encode_frame(1, 0x01, 1),
    encode_frame(1, 0x03, 65535, b"\x07\x00\x00\x00\x02"),
    encode_frame(1, 0x82, 0, bytes(range(256)) * 3),
    encode_frame(1, 0x42, 9, b"\x00" * 40),
]


def frames_only(items: list[Frame | BadFrame]) -> list[Frame]:
    return [i for i in items if isinstance(i, Frame)]


def test_crc32c_check_value() -> None:
    assert crc32c(b"123456789") == CHECK_VALUE == 0xE3069283


def test_crc32c_golden_vectors() -> None:
    # RFC 3720 B.4 test vectors for iSCSI CRC-32C.
    assert crc32c(bytes(32)) == 0x8A9136AA
    assert crc32c(b"\xff" * 32) == 0x62A8AB43
    assert crc32c(bytes(range(32))) == 0x46DD794E


def test_golden_frame_bytes() -> None:
    assert encode_frame(1, 0x01, 1).hex(" ") == "04 01 01 01 05 76 eb c1 23 00"


def test_no_zero_inside_a_frame() -> None:
    for wire in FRAMES:
        assert wire.count(0) == 1 and wire.endswith(b"\x00")


@pytest.mark.parametrize("wire", FRAMES)
def test_whole(wire: bytes) -> None:
    out = Deframer().feed(wire)
    assert len(out) == 1 and isinstance(out[0], Frame)
    assert encode_frame(out[0].version, out[0].msg_type, out[0].seq, out[0].payload) == wire


@pytest.mark.parametrize("wire", FRAMES)
def test_halves(wire: bytes) -> None:
    d = Deframer()
    half = len(wire) // 2
    assert d.feed(wire[:half]) == []  # need more bytes is a normal answer
    assert d.pending == half
    assert len(frames_only(d.feed(wire[half:]))) == 1


def test_byte_by_byte_many_frames() -> None:
    d = Deframer()
    got: list[Frame] = []
    for b in b"".join(FRAMES):
        got += frames_only(d.feed(bytes([b])))
    assert [f.msg_type for f in got] == [0x01, 0x03, 0x82, 0x42]


def test_garbage_before_and_after_resynchronises() -> None:
    d = Deframer()
    out = d.feed(b"\x13\x37garbage\x00" + FRAMES[1] + b"\xde\xad\xbe\xef\x00" + FRAMES[0] + b"trailing")
    frames = frames_only(out)
    bad = [i for i in out if isinstance(i, BadFrame)]
    assert [f.msg_type for f in frames] == [0x03, 0x01]
    assert len(bad) == 2
    assert d.pending == len(b"trailing")


def test_garbage_glued_to_a_frame_costs_only_that_frame() -> None:
    """Why senders prefix 0x00 after (re)opening: noise with no delimiter merges with the next frame."""
    out = Deframer().feed(b"noise" + FRAMES[1] + FRAMES[0])
    assert [type(i) for i in out] == [BadFrame, Frame]


def test_garbage_without_delimiter_then_flush() -> None:
    d = Deframer()
    d.feed(b"noise with no delimiter")
    out = d.feed(b"\x00" + FRAMES[0])
    assert [type(i) for i in out] == [BadFrame, Frame]


def test_empty_runs_are_ignored() -> None:
    assert frames_only(Deframer().feed(b"\x00\x00\x00" + FRAMES[0])) != []
    assert Deframer().feed(b"\x00\x00") == []


def test_bad_crc_rejected_and_named() -> None:
    body = bytearray(FRAMES[1])
    body[3] ^= 0x01  # flip one bit inside the encoded block
    out = Deframer().feed(bytes(body))
    assert len(out) == 1 and isinstance(out[0], BadFrame)
    assert out[0].kind in (FrameErrorKind.CRC, FrameErrorKind.COBS)


def test_short_frame_rejected() -> None:
    with pytest.raises(FrameError) as err:
        decode_frame(b"\x03\x01\x02")
    assert err.value.kind is FrameErrorKind.SHORT


def test_oversize_run_dropped_with_bounded_memory() -> None:
    d = Deframer()
    for _ in range(20):
        d.feed(b"\x01" * 1000)
        assert d.pending <= MAX_ENCODED
    out = d.feed(b"\x00" + FRAMES[0])
    assert isinstance(out[0], BadFrame) and out[0].kind is FrameErrorKind.OVERSIZE
    assert isinstance(out[1], Frame)


def test_payload_limit_enforced_on_encode() -> None:
    encode_frame(1, 0x49, 1, bytes(MAX_PAYLOAD))
    with pytest.raises(ValueError, match="exceeds"):
        encode_frame(1, 0x49, 1, bytes(MAX_PAYLOAD + 1))


def test_every_single_bit_flip_is_detected() -> None:
    wire = FRAMES[1]
    for i in range(len(wire) - 1):
        for bit in range(8):
            corrupt = bytearray(wire)
            corrupt[i] ^= 1 << bit
            assert frames_only(Deframer().feed(bytes(corrupt) + b"\x00")) == [], (i, bit)


@given(
    msg_type=st.integers(0, 255),
    seq=st.integers(0, 0xFFFF),
    payload=st.binary(max_size=MAX_PAYLOAD),
    cuts=st.lists(st.integers(0, 2000), max_size=6),
    noise=st.binary(max_size=40),
)
def test_round_trip_through_arbitrary_chunking(
    msg_type: int, seq: int, payload: bytes, cuts: list[int], noise: bytes
) -> None:
    wire = noise + b"\x00" + encode_frame(1, msg_type, seq, payload)
    d = Deframer()
    got: list[Frame] = []
    points = sorted({c % (len(wire) + 1) for c in cuts} | {0, len(wire)})
    for a, b in itertools.pairwise(points):
        got += frames_only(d.feed(wire[a:b]))
    assert got == [Frame(1, msg_type, seq, payload)]


@given(st.binary(max_size=3000))
def test_deframer_never_raises_on_noise(noise: bytes) -> None:
    d = Deframer()
    d.feed(noise)
    assert d.pending <= MAX_ENCODED


def test_body_over_the_limit_is_refused_even_when_the_encoding_fits() -> None:
    """1,025-1,028-byte payloads COBS-encode under MAX_ENCODED; the body limit must still hold."""
    from cobs import cobs

    from protocols.framing import CRC, HEADER, MAX_BODY

    body = HEADER.pack(1, 0x42, 7) + b"\x00" * (MAX_PAYLOAD + 2)  # zeros: COBS adds one byte in all
    body += CRC.pack(crc32c(body))
    assert len(body) > MAX_BODY
    encoded = cobs.encode(body)
    assert len(encoded) <= MAX_ENCODED
    with pytest.raises(FrameError) as err:
        decode_frame(encoded)
    assert err.value.kind is FrameErrorKind.OVERSIZE
