"""``[people] require_sign_in``: no dealer or technician action without an employee behind it, so that no step
of a round goes unattributed or past its approval (docs/people.md, "Requiring a person"). Through a real service
and its HTTP API: configuration tokens and the open loopback API are refused on the action routes and change
nothing; reading, the table system's service account and managing employees (the first one included) go on."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from shoe.service.config.settings import ConfigError, load_config
from tests.api.conftest import NY_SEATS
from tests.people.conftest import DEALER_CONFIG, TECH, Table

OPEN = {"game": "mississippi-stud", "jurisdiction": "NY", "seats": NY_SEATS}


def test_a_configuration_token_may_not_deal_and_changes_nothing(make_table: Callable[..., Table]) -> None:
    table = make_table(require_sign_in=True)
    before = len(table.entries())
    answer = table.call("POST", "/v1/rounds", OPEN, DEALER_CONFIG)
    assert answer.status == 401 and answer.error["code"] == "unauthorized", answer.body
    assert "requires a signed-in employee for dealer actions" in answer.error["message"]
    refused = table.call("POST", "/v1/maintenance/clear-fault", {}, TECH)
    assert refused.status == 401 and "technician actions" in refused.error["message"]
    assert len(table.entries()) == before and table.ok("GET", "/v1/round", token=DEALER_CONFIG)["round"] is None
    assert table.ok("GET", "/v1/status", token=DEALER_CONFIG)["service"]  # reading is not acting


def test_the_open_loopback_api_may_not_deal_either(make_table: Callable[..., Table]) -> None:
    table = make_table(open_api=True, require_sign_in=True)
    answer = table.call("POST", "/v1/rounds", OPEN, None)
    assert answer.status == 401 and "require_sign_in" in answer.error["message"]


def test_a_signed_in_dealer_deals_and_the_first_employee_is_added_with_the_config_token(
    make_table: Callable[..., Table],
) -> None:
    table = make_table(require_sign_in=True)
    table.add("d-101", "Dana Dealer", ["dealer"], "1001", "4321")  # managing people: the bootstrap stays open
    token = table.sign_in("1001", "4321")
    opened = table.ok("POST", "/v1/rounds", OPEN, token)
    assert all(e.data.get("by") == {"id": "d-101", "name": "Dana Dealer"} for e in table.entries(opened["round_id"]))


def test_without_the_switch_configuration_tokens_deal_as_before(table: Table) -> None:
    assert table.call("POST", "/v1/rounds", OPEN, DEALER_CONFIG).status == 201


def test_the_switch_is_a_boolean(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "shoed.toml"
    path.write_text('[people]\nrequire_sign_in = "yes"\n')
    with pytest.raises(ConfigError, match=r"\[people\] require_sign_in"):
        load_config(path, {}, environ={})
    path.write_text("[people]\nrequire_sign_in = true\n")
    assert load_config(path, {}, environ={}).require_sign_in is True
