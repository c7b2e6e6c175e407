"""The one-pass read (protocols/reader.py) gives exactly what the separate steps give: ``Deframer.feed``, then
``Receiver.open`` on an authenticated link, then ``codec.decode``: the same messages, the same refusals and bad
frames in the same order, and the receiver's counter and refusal count the same, for any stream of honest,
corrupted, forged, replayed, plain and garbage frames cut at any points."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import auth, codec
from protocols import messages as m
from protocols.codes import MsgType
from protocols.examples import GOLDEN_HOST_NONCE, GOLDEN_KEY, GOLDEN_SHOE_NONCE
from protocols.fields import CardRead
from protocols.framing import BadFrame, Deframer, Frame, encode_frame
from protocols.reader import MessageReader
from tests.protocols.test_messages import ANY_MESSAGE

OTHER_KEY = bytes(range(32))
FIXED_SIZES = sorted({layout.struct.size for layout in codec._LAYOUTS.values() if not layout.rest})
"""Payload sizes of the fixed-size layouts: the lengths ``protocols.reader`` reads by a generated function."""
TYPES = sorted(codec._LAYOUTS)


def _sessions(key: bytes = GOLDEN_KEY) -> tuple[auth.Session, auth.Session]:
    host = auth.Session.start(key, GOLDEN_HOST_NONCE, GOLDEN_SHOE_NONCE, 7, host=True)
    shoe = auth.Session.start(key, GOLDEN_HOST_NONCE, GOLDEN_SHOE_NONCE, 7, host=False)
    return host, shoe


def _steps(frame: Frame, receiver: auth.Receiver | None) -> Any:
    """What the link does with a frame, step by step (``Link._open``, then ``codec.decode``)."""
    if receiver is not None:
        if frame.version != auth.FORMAT_AUTH:
            return ("plain frame", frame)
        if frame.msg_type == MsgType.HELLO_REPLY:
            return ("hello reply", frame)
        try:
            frame = receiver.open(frame)
        except auth.AuthError as exc:
            return ("refused", exc.refusal)
    elif frame.version == auth.FORMAT_AUTH:
        return ("sealed frame", frame)
    try:
        return ("message", frame.msg_type, frame.seq, codec.decode(frame))
    except codec.MessageError as exc:
        return ("malformed", exc.nak, str(exc))


def _bad(item: BadFrame) -> Any:
    return ("bad", item.kind, item.length, item.detail)


def _separate(chunks: list[bytes], receiver: auth.Receiver | None) -> list[Any]:
    deframer, out = Deframer(), []
    for chunk in chunks:
        for item in deframer.feed(chunk):
            out.append(_bad(item) if isinstance(item, BadFrame) else _steps(item, receiver))
    return out


def _one_pass(chunks: list[bytes], receiver: auth.Receiver | None) -> list[Any]:
    reader, out = MessageReader(), []
    for chunk in chunks:
        for item in reader.read(chunk, receiver):
            if isinstance(item, tuple):
                out.append(("message", *item))
            else:
                out.append(_bad(item) if isinstance(item, BadFrame) else _steps(item, receiver))
    return out


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[bytes], bool]:
    """Frames the shoe might send (and a line might make of them), cut into reads at random points."""
    authenticated = draw(st.booleans())
    _, shoe = _sessions()
    _, liar = _sessions(OTHER_KEY)
    wire = bytearray()
    for _ in range(draw(st.integers(1, 12))):
        message = draw(ANY_MESSAGE)
        seq = draw(st.integers(0, 0xFFFF))
        kinds = ["sealed", "sealed", "sealed", "plain", "other key", "replay", "garbage", "raw sealed", "raw plain"]
        kind = draw(st.sampled_from(kinds))
        if kind.startswith("raw"):
            # Checked frames of any type (a known one, or not) whose payload is any bytes, often of a fixed-size
            # layout's length: a byte out of a field's range, a type of another length, a format byte of the
            # other kind must be refused by the one pass exactly as by the separate steps.
            msg_type = draw(st.one_of(st.sampled_from(TYPES), st.integers(0, 255)))
            size = draw(st.one_of(st.sampled_from(FIXED_SIZES), st.integers(0, 24)))
            payload = draw(st.binary(min_size=size, max_size=size))
            if kind == "raw sealed":
                frame = shoe.out.seal(msg_type, seq, payload)
            else:
                frame = encode_frame(draw(st.sampled_from([1, 1, 2, 0])), msg_type, seq, payload)
        elif kind in {"sealed", "replay"}:
            if kind == "replay" and shoe.out.counter > 1:
                shoe.out.counter -= draw(st.integers(1, shoe.out.counter))
            frame = codec.encode_sealed(message, seq, shoe.out)
        elif kind == "plain":
            frame = codec.encode(message, seq)
        elif kind == "other key":
            frame = codec.encode_sealed(message, seq, liar.out)
        else:
            frame = draw(st.binary(max_size=30)) + b"\x00"
        if draw(st.integers(0, 4)) == 0 and len(frame) > 1:  # a corrupted byte, a lost delimiter, a flush
            at = draw(st.integers(0, len(frame) - 1))
            frame = frame[:at] + bytes((draw(st.integers(0, 255)),)) + frame[at + 1 :]
        if draw(st.integers(0, 9)) == 0:
            frame = b"\x00" + frame
        wire += frame
    if draw(st.booleans()):
        wire += draw(st.binary(max_size=10))  # a frame still arriving
    cuts = sorted(draw(st.lists(st.integers(0, len(wire)), max_size=6)))
    chunks = [bytes(wire[a:b]) for a, b in zip([0, *cuts], [*cuts, len(wire)], strict=True)]
    return chunks, authenticated


@settings(max_examples=1500, deadline=None)
@given(streams())
def test_one_pass_gives_what_the_separate_steps_give(stream: tuple[list[bytes], bool]) -> None:
    chunks, authenticated = stream
    old = _sessions()[0].into if authenticated else None
    new = _sessions()[0].into if authenticated else None
    assert _one_pass(chunks, new) == _separate(chunks, old)
    if old is not None and new is not None:
        assert (new.last, new.refused) == (old.last, old.refused)


def test_the_one_pass_takes_the_honest_frames_itself() -> None:
    """The fast path is the one taken (not everything left to the separate steps) and resynchronises after
    a corrupted frame at the next delimiter, as the deframer does."""
    host, shoe = _sessions()
    events = [m.CardReadEvent(1, 1, n, CardRead("As")) for n in (1, 2, 3)]
    frames = [codec.encode_sealed(e, 0, shoe.out) for e in events]
    broken = frames[1][:3] + bytes((frames[1][3] ^ 0x40,)) + frames[1][4:]
    items = MessageReader().read(frames[0] + broken + frames[2], host.into)
    assert items[0] == (int(MsgType.CARD_READ), 0, events[0])
    assert isinstance(items[1], BadFrame)
    assert items[2] == (int(MsgType.CARD_READ), 0, events[2])
    assert host.into.last == 3
    plain = MessageReader().read(encode_frame(1, int(MsgType.CARD_READ), 0, codec.encode_payload(events[0])), None)
    assert plain == [(int(MsgType.CARD_READ), 0, events[0])]


@settings(max_examples=300, deadline=None)
@given(ANY_MESSAGE, st.integers(0, 0xFFFF))
def test_fixed_layouts_are_read_by_their_generated_reader(message: m.Message, seq: int) -> None:
    """A message of a fixed-size layout is read by the one call generated for its body's length (not left to the
    general reader), plain and sealed, and gives what ``codec.decode`` gives; the counter moves once."""
    from protocols.reader import _PLAIN_READERS, _SEALED_READERS

    if codec._LAYOUTS[int(message.TYPE)].rest or message.TYPE == MsgType.HELLO_REPLY:
        return
    host, shoe = _sessions()
    plain, sealed = codec.encode(message, seq), codec.encode_sealed(message, seq, shoe.out)
    for wire, receiver in ((plain, None), (sealed, host.into)):
        (frame,) = Deframer().feed(wire)
        assert isinstance(frame, Frame)
        size = len(frame.payload) + 8
        table = _PLAIN_READERS if receiver is None else _SEALED_READERS
        assert table[size].__code__.co_filename.startswith("<read ")
        opened = frame if receiver is None else auth.Receiver(receiver.session, receiver.direction).open(frame)
        assert MessageReader().read(wire, receiver) == [(int(message.TYPE), seq, codec.decode(opened))]
    assert host.into.last == 1
