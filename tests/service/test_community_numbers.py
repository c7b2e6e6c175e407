"""Community cards have one number everywhere: 1, 2, 3, the layout's 3rd, 4th and
5th street. The API takes ``{"index": 1}`` for the first; its refusals name the same numbers (they
said "community card index 0" for the API's 1). Through the real service, journal and emulated shoe."""

from __future__ import annotations

from typing import Any

import pytest

from shoe.service import ServiceError

from .conftest import OBS, D


def _to_reveals(table_factory: Any) -> Any:
    service = table_factory().start()
    service.submit("open-round", {"game": "mississippi-stud", "jurisdiction": "NY",
                                  "table": {"min_ante": 100, "max_ante": 10_000},
                                  "seats": [{"seat": 1, "ante": 500}, {"seat": 2, "ante": 500}]}, D)  # fmt: skip
    for action in ("no-more-bets", "deal", "release-stub"):
        service.submit(action, {}, D)
    return service


def _refusal(service: Any, index: int) -> str:
    with pytest.raises(ServiceError) as refused:
        service.submit("reveal", {"index": index}, D)
    assert refused.value.code == "out-of-order"
    return refused.value.message


def test_a_reveal_before_the_decisions_names_the_card_as_the_api_does(table_factory: Any) -> None:
    service = _to_reveals(table_factory)
    message = _refusal(service, 1)
    assert "community card 1 (3rd street)" in message and "seat 1 has not decided" in message
    assert "index" not in message and "card 0" not in message


def test_a_reveal_out_of_order_names_both_cards_one_based(table_factory: Any) -> None:
    service = _to_reveals(table_factory)
    for seat in (1, 2):
        service.submit("decide", {"seat": seat, "multiple": 1}, D)
    message = _refusal(service, 2)
    assert "reveal of community card 2 (4th street) refused: community card 1 (3rd street) is next" in message
    reply = service.submit("reveal", {"index": 1}, D)
    assert reply["index"] == 1
    for seat in (1, 2):
        service.submit("decide", {"seat": seat, "multiple": 1}, D)
    assert "community card 3 (5th street) refused: community card 2 (4th street) is next" in _refusal(service, 3)
    assert service.round_view(OBS)["next_reveal"] == 2
