"""The deck cycle's v1 addition (SPEC §11): DECK_LOADED, and DECK_REPORT's appended fields."""

from __future__ import annotations

from protocols import codec
from protocols import messages as m
from protocols.codes import Capability, MsgType
from protocols.framing import Deframer, Frame


def _roundtrip(message: m.Message, seq: int = 0) -> m.Message:
    frames = Deframer().feed(codec.encode(message, seq))
    assert len(frames) == 1
    frame = frames[0]
    assert isinstance(frame, Frame)
    return codec.decode(frame)


def test_deck_loaded_round_trips_as_an_event() -> None:
    event = m.DeckLoaded(7, 52, "blue")
    assert _roundtrip(event) == event
    assert MsgType.DECK_LOADED.is_event


def test_deck_report_carries_back_and_foreign_cards() -> None:
    report = m.DeckReport(53, ("2c", "As"), ("2c",), 0, "red", ("Kd",))
    assert _roundtrip(report, 4) == report


def test_an_older_shoes_deck_report_decodes_with_the_appended_fields_empty() -> None:
    old_payload = bytes([52, 0, 0, 0])  # count, present [], duplicates [], unreadable: the v1.0 layout
    report = codec.decode_payload(MsgType.DECK_REPORT, old_payload)
    assert report == m.DeckReport(52, (), (), 0, "", ())


def test_a_payload_cut_inside_the_original_fields_is_still_malformed() -> None:
    try:
        codec.decode_payload(MsgType.DECK_REPORT, bytes([52, 0]))
    except codec.MessageError as exc:
        assert exc.nak.name == "MALFORMED"
    else:
        raise AssertionError("a cut DECK_REPORT decoded")


def test_the_capability_bit_is_published() -> None:
    assert int(Capability.DECK_LOADED) == 0x0040
