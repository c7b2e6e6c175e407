"""The compiled layouts (protocols/codec.py) agree with the field codecs byte for byte: the same
message or the same refusal for any payload, the same bytes or the same error for any message."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols import codec
from protocols import messages as m
from tests.protocols.test_messages import ANY_MESSAGE

TYPES = st.sampled_from([int(cls.TYPE) for cls in m.ALL_MESSAGES])


def _generic(msg_type: int, payload: bytes) -> Any:
    try:
        return codec._decode_generic(codec._BY_TYPE[msg_type], payload)  # type: ignore[index]
    except codec.MessageError as exc:
        return ("refused", exc.nak, str(exc))


def _compiled(msg_type: int, payload: bytes) -> Any:
    try:
        return codec.decode_payload(msg_type, payload)
    except codec.MessageError as exc:
        return ("refused", exc.nak, str(exc))


@settings(max_examples=2000, deadline=None)
@given(msg_type=TYPES, payload=st.binary(max_size=40))
def test_any_payload_decodes_as_the_field_codecs_decode_it(msg_type: int, payload: bytes) -> None:
    assert _compiled(msg_type, payload) == _generic(msg_type, payload)


@settings(max_examples=1000, deadline=None)
@given(message=ANY_MESSAGE, cut=st.integers(0, 12), extra=st.binary(max_size=4))
def test_valid_truncated_and_extended_payloads_agree(message: m.Message, cut: int, extra: bytes) -> None:
    wire = codec._encode_generic(message)
    assert codec.encode_payload(message) == wire
    for payload in (wire, wire[: max(0, len(wire) - cut)], wire + extra):
        assert _compiled(int(message.TYPE), payload) == _generic(int(message.TYPE), payload)


@pytest.mark.parametrize(
    "message",
    [m.Dispense(2**32, 1), m.Dispense(1, 256), m.Scan(-1), m.StubReleased(1.5)],  # type: ignore[arg-type]
)
def test_a_value_that_does_not_fit_is_the_field_codecs_error(message: m.Message) -> None:
    with pytest.raises(Exception) as generic:
        codec._encode_generic(message)
    with pytest.raises(type(generic.value), match=str(generic.value).replace("(", r"\(").replace(")", r"\)")):
        codec.encode_payload(message)
