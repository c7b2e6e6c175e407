"""Codec tests: every v1 message round-trips (hypothesis), and malformed payloads get the right NAK code."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocols import codec
from protocols import messages as m
from protocols.cards import ALL_CODES, CardCodeError, byte_to_card, card_to_byte
from protocols.codes import MsgType, NakCode, ReadStatus, ShoeState
from protocols.fields import (
    BLOB,
    BOOL,
    CARD,
    CARD_READ,
    LOGGED_EVENT,
    STR,
    U8,
    U8_BOOL,
    U16,
    U32,
    CardRead,
    Enum8,
    Field,
    ListOf,
    LoggedEvent,
)
from protocols.framing import Deframer, Frame

u8, u16, u32 = st.integers(0, 0xFF), st.integers(0, 0xFFFF), st.integers(0, 0xFFFFFFFF)
text = st.text(max_size=40).filter(lambda s: len(s.encode()) <= 255)
card = st.sampled_from(ALL_CODES)
read = st.one_of(
    card.map(CardRead),
    st.sampled_from([s for s in ReadStatus if s is not ReadStatus.OK]).map(lambda s: CardRead(None, s)),
)
logged = st.builds(LoggedEvent, u8, st.binary(max_size=20))


def strategy_for_codec(codec_: Field[Any]) -> st.SearchStrategy[Any]:
    """Values for one field, derived from the field's own wire codec so the table cannot drift."""
    simple: dict[int, st.SearchStrategy[Any]] = {
        id(U8): u8,
        id(U16): u16,
        id(U32): u32,
        id(BOOL): st.booleans(),
        id(STR): text,
        id(CARD): card,
        id(CARD_READ): read,
        id(LOGGED_EVENT): logged,
        id(U8_BOOL): st.tuples(u8, st.booleans()),
        id(BLOB): st.binary(max_size=64),
    }
    if id(codec_) in simple:
        return simple[id(codec_)]
    if isinstance(codec_, Enum8):
        return st.sampled_from(list(codec_._enum))
    if isinstance(codec_, ListOf):
        return st.lists(strategy_for_codec(codec_._item), max_size=8).map(tuple)
    raise AssertionError(f"no strategy for {codec_!r}")


def strategy_for(cls: type[m.Message]) -> st.SearchStrategy[m.Message]:
    return st.builds(cls, *[strategy_for_codec(c) for c in cls.LAYOUT])


ANY_MESSAGE = st.one_of([strategy_for(cls) for cls in m.ALL_MESSAGES])


@given(ANY_MESSAGE, u16)
def test_every_message_round_trips(message: m.Message, seq: int) -> None:
    frames = Deframer().feed(codec.encode(message, seq))
    assert len(frames) == 1 and isinstance(frames[0], Frame)
    assert frames[0].seq == seq
    assert codec.decode(frames[0]) == message


def test_every_message_type_is_covered_once() -> None:
    types = [cls.TYPE for cls in m.ALL_MESSAGES]
    assert len(types) == len(set(types)) == len(MsgType)


@given(ANY_MESSAGE)
def test_trailing_bytes_are_ignored_for_forward_compatibility(message: m.Message) -> None:
    payload = codec.encode_payload(message) + b"\x99\x98"
    assert codec.decode_payload(message.TYPE, payload) == message


@pytest.mark.parametrize("cls", [c for c in m.ALL_MESSAGES if c.LAYOUT])
def test_truncated_payload_is_malformed(cls: type[m.Message]) -> None:
    with pytest.raises(codec.MessageError) as err:
        codec.decode_payload(cls.TYPE, b"")
    assert err.value.nak is NakCode.MALFORMED
    assert cls.__name__ in str(err.value)


def test_unknown_type_and_version() -> None:
    with pytest.raises(codec.MessageError) as err:
        codec.decode(Frame(1, 0x3E, 1, b""))
    assert err.value.nak is NakCode.UNKNOWN_MESSAGE
    with pytest.raises(codec.MessageError) as err:
        codec.decode(Frame(2, 0x01, 1, b""))
    assert err.value.nak is NakCode.UNSUPPORTED_VERSION


def test_invalid_enum_and_bool_are_malformed() -> None:
    status = codec.encode_payload(m.Status(ShoeState.IDLE, 0, 52, 0, 0, 0, 1, False, False))
    with pytest.raises(codec.MessageError, match="ShoeState"):
        codec.decode_payload(MsgType.STATUS, b"\x63" + status[1:])
    with pytest.raises(codec.MessageError, match="bool"):
        codec.decode_payload(MsgType.STATUS, status[:-1] + b"\x02")


def test_card_read_must_agree_with_status() -> None:
    with pytest.raises(ValueError):
        CardRead("As", ReadStatus.SMUDGED)
    with pytest.raises(ValueError):
        CardRead(None, ReadStatus.OK)
    bad = bytes([card_to_byte("As"), ReadStatus.SMUDGED])
    with pytest.raises(codec.MessageError):
        codec.decode_payload(MsgType.SCAN_RESULT, bad)


@given(card)
def test_card_byte_round_trip(code: str) -> None:
    assert byte_to_card(card_to_byte(code)) == code


def test_card_bytes_are_as_specified() -> None:
    assert card_to_byte("2c") == 0x00 and card_to_byte("2d") == 0x01
    assert card_to_byte("Td") == 0x21 and card_to_byte("As") == 0x33


@pytest.mark.parametrize("bad", ["", "A", "1s", "Ax", "as", "10s", "AsK"])
def test_bad_card_codes_named(bad: str) -> None:
    with pytest.raises(CardCodeError, match="not a card code"):
        card_to_byte(bad)


def test_bad_card_byte_named() -> None:
    with pytest.raises(CardCodeError, match="0x34"):
        byte_to_card(0x34)
