"""Authenticated frames (SPEC §13): golden vectors, and every forged, replayed, reordered or rewritten frame refused."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import auth, codec
from protocols import messages as m
from protocols.examples import GOLDEN_BOOT_ID, GOLDEN_HOST_NONCE, GOLDEN_KEY, GOLDEN_SHOE_NONCE, golden_session
from protocols.fields import CardRead
from protocols.framing import Deframer, Frame, encode_frame
from tests.protocols.test_messages import ANY_MESSAGE

SESSION = golden_session()
H, S = auth.Direction.HOST_TO_SHOE, auth.Direction.SHOE_TO_HOST


def _frame(wire: bytes) -> Frame:
    (item,) = Deframer().feed(wire)
    assert isinstance(item, Frame)
    return item


def test_golden_vectors_are_fixed_bytes() -> None:
    """Written out by hand from SPEC §13.6: a change of the algorithm or layout fails here, not only in SPEC."""
    assert auth.key_id(GOLDEN_KEY) == 0xD53339D2
    assert SESSION.hex() == "6f6017045298a90f8cef47f8fc73f93a210ecc0863465a619aeca2901310e2f4"
    wire = auth.seal(SESSION, H, 2, m.Dispense.TYPE, 2, payload=codec.encode_payload(m.Dispense(1, 2)))
    assert wire.hex(" ") == "04 02 03 02 02 02 01 01 02 01 01 01 0e 02 fe 94 0e 56 67 5e 02 d5 48 ac ce d9 00"


def test_the_mac_is_keyed_blake2s_over_direction_and_body() -> None:
    """The SPEC's formula computed independently of protocols.auth."""
    session = hashlib.blake2s(
        b"shoe-link v1.1 session" + GOLDEN_HOST_NONCE + GOLDEN_SHOE_NONCE + GOLDEN_BOOT_ID.to_bytes(4, "little"),
        key=GOLDEN_KEY,
    ).digest()
    assert session == SESSION
    payload = codec.encode_payload(m.CardReadEvent(1, 1, 1, CardRead("As")))
    body = bytes((2, 0x81, 0, 0)) + (2).to_bytes(4, "little") + payload
    tag = hashlib.blake2s(b"\x02" + body, key=session, digest_size=8).digest()
    frame = _frame(auth.seal(session, S, 2, 0x81, 0, payload=payload))
    assert frame.payload == (2).to_bytes(4, "little") + payload + tag


def test_an_honest_stream_opens_in_order() -> None:
    host = auth.Session.start(GOLDEN_KEY, GOLDEN_HOST_NONCE, GOLDEN_SHOE_NONCE, 7, host=True)
    shoe = auth.Session.start(GOLDEN_KEY, GOLDEN_HOST_NONCE, GOLDEN_SHOE_NONCE, 7, host=False)
    for seq in range(1, 5):
        plain = shoe.into.open(_frame(host.out.seal(0x02, seq, b"")))
        assert (plain.version, plain.msg_type, plain.seq, plain.payload) == (1, 0x02, seq, b"")
    back = host.into.open(_frame(shoe.out.seal(0x4A, 4, b"")))
    assert back.msg_type == 0x4A


payloads = st.binary(max_size=40)
types = st.integers(0, 255)
seqs = st.integers(0, 0xFFFF)


@settings(max_examples=300, deadline=None)
@given(payloads, types, seqs, st.integers(1, 1000), st.data())
def test_any_rewritten_byte_is_refused(
    payload: bytes, msg_type: int, seq: int, counter: int, data: st.DataObject
) -> None:
    """A man in the middle changes any bit of the body and recomputes the CRC: the MAC refuses it."""
    body = bytearray(auth.seal_body(SESSION, S, counter, msg_type, seq, payload=payload))
    header = bytearray((auth.FORMAT_AUTH, msg_type, seq & 0xFF, seq >> 8))
    whole = header + body
    index = data.draw(st.integers(0, len(whole) - 1))
    flip = data.draw(st.integers(1, 255))
    whole[index] ^= flip
    if whole[0] != auth.FORMAT_AUTH:
        with pytest.raises(auth.AuthError):
            seq_field = int.from_bytes(whole[2:4], "little")
            auth.Receiver(SESSION, S).open(Frame(whole[0], whole[1], seq_field, bytes(whole[4:])))
        return
    forged = _frame(encode_frame(whole[0], whole[1], int.from_bytes(whole[2:4], "little"), bytes(whole[4:])))
    with pytest.raises(auth.AuthError) as refused:
        auth.Receiver(SESSION, S).open(forged)
    assert refused.value.refusal in (auth.Refusal.MAC, auth.Refusal.FORMAT)


@settings(max_examples=200, deadline=None)
@given(payloads, types, seqs, st.integers(1, 1000))
def test_a_frame_sealed_otherwise_is_refused(payload: bytes, msg_type: int, seq: int, counter: int) -> None:
    """Another key, another session (nonce, boot), the other direction, or a plain frame: all refused."""
    wire = auth.seal(SESSION, S, counter, msg_type, seq, payload=payload)
    other_key = auth.session_key(bytes(32 * [7]), GOLDEN_HOST_NONCE, GOLDEN_SHOE_NONCE, GOLDEN_BOOT_ID)
    other_nonce = auth.session_key(GOLDEN_KEY, bytes(16), GOLDEN_SHOE_NONCE, GOLDEN_BOOT_ID)
    other_boot = auth.session_key(GOLDEN_KEY, GOLDEN_HOST_NONCE, GOLDEN_SHOE_NONCE, GOLDEN_BOOT_ID + 1)
    for session in (other_key, other_nonce, other_boot):
        with pytest.raises(auth.AuthError):
            auth.Receiver(session, S).open(_frame(wire))
    with pytest.raises(auth.AuthError):
        auth.Receiver(SESSION, H).open(_frame(wire))  # reflected
    with pytest.raises(auth.AuthError):
        auth.Receiver(SESSION, S).open(_frame(encode_frame(1, msg_type, seq, payload)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=20))
def test_replayed_and_reordered_frames_are_refused(order: list[int]) -> None:
    """Ten honest frames delivered in any order, with repeats: exactly the increasing ones are accepted."""
    sender = auth.Sender(SESSION, S)
    frames = [_frame(sender.seal(0x81, 0, bytes([i]))) for i in range(10)]
    receiver = auth.Receiver(SESSION, S)
    accepted, highest = [], -1
    for index in order:
        try:
            plain = receiver.open(frames[index])
        except auth.AuthError as exc:
            assert exc.refusal is auth.Refusal.REPLAY
            assert index <= highest
            continue
        assert index > highest
        highest = index
        accepted.append(plain.payload[0])
    assert accepted == sorted(set(accepted))
    assert receiver.refused == len(order) - len(accepted)


def test_key_checks() -> None:
    with pytest.raises(ValueError):
        auth.key_id(b"short")
    with pytest.raises(ValueError):
        auth.session_key(GOLDEN_KEY, b"x", GOLDEN_SHOE_NONCE, 1)
    assert "redacted" in repr(m.Pair(GOLDEN_KEY)) and GOLDEN_KEY.hex() not in repr(m.Pair(GOLDEN_KEY))


def test_a_sender_seals_the_bytes_of_the_spec() -> None:
    """The sender's reused keyed state gives exactly ``seal``'s bytes (the golden vectors' function)."""
    sender = auth.Sender(SESSION, H)
    for counter in range(1, 4):
        payload = bytes([counter]) * counter
        assert sender.seal(0x03, counter, payload) == auth.seal(SESSION, H, counter, 0x03, counter, payload=payload)


@settings(max_examples=300, deadline=None)
@given(ANY_MESSAGE, st.integers(0, 0xFFFF), st.integers(0, 50))
def test_a_message_sealed_in_one_step_is_the_seal_of_its_payload(message: m.Message, seq: int, skip: int) -> None:
    """``codec.encode_sealed`` (one generated function per layout) gives ``auth.seal``'s bytes of the payload, with
    the sender's next counter; a message that does not fit raises what the payload's encoder raises, using none."""
    sender = auth.Sender(SESSION, H, counter=skip)
    try:
        payload = codec.encode_payload(message)
    except Exception as exc:  # a value out of range: the same error, and the counter not used
        with pytest.raises(type(exc)):
            codec.encode_sealed(message, seq, sender)
        assert sender.counter == skip
        return
    wire = codec.encode_sealed(message, seq, sender)
    assert sender.counter == skip + 1
    assert wire == auth.seal(SESSION, H, skip + 1, message.TYPE, seq, payload=payload)
    assert auth.Receiver(SESSION, H).open(_frame(wire)).payload == payload


def test_the_one_step_seal_covers_the_dispense_path() -> None:
    """The messages a dispense sends each way take the generated path (no payload built apart)."""
    for cls in (m.Dispense, m.QueryDispense, m.EventAck, m.CardReadEvent, m.StackReady):
        assert cls in codec._SEALED_ENCODERS, cls.__name__
