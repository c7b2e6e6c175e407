"""The service's refusals carry a kind; the HTTP API alone maps kinds to statuses."""

from __future__ import annotations

import pytest

from shoe.api.errors import KIND_STATUS, service_status
from shoe.rules.errors import RuleViolation
from shoe.service.errors import BAD_INPUT_CODES, ErrorKind, ServiceError, from_rule


class Refusal(RuleViolation):
    """A refusal with any code (the rules engine's own class takes only its own codes)."""


def test_every_kind_has_the_status_clients_see() -> None:
    assert {kind.name: status for kind, status in KIND_STATUS.items()} == {
        "BAD_INPUT": 400,
        "FORBIDDEN": 403,
        "NOT_FOUND": 404,
        "CONFLICT": 409,
        "INTERNAL": 500,
        "UNAVAILABLE": 503,
    }


def test_a_service_error_knows_no_http_status() -> None:
    err = ServiceError("no-round", "no round is live: open one first", kind=ErrorKind.NOT_FOUND)
    assert not hasattr(err, "http_status")
    assert service_status(err) == 404
    assert ServiceError("out-of-order", "not now").kind is ErrorKind.CONFLICT  # the default: refused in this state


@pytest.mark.parametrize("code", sorted(BAD_INPUT_CODES))
def test_a_rule_refusing_the_values_is_a_bad_request(code: str) -> None:
    err = from_rule(Refusal("the values are wrong", rule="NY 5324.38", code=code))
    assert (err.kind, service_status(err), err.rule) == (ErrorKind.BAD_INPUT, 400, "NY 5324.38")


def test_a_rule_refusing_the_moment_is_a_conflict() -> None:
    err = from_rule(Refusal("deal after no-more-bets", rule="NY 5324.38(d)(2)", code="out-of-order"))
    assert (err.kind, service_status(err)) == (ErrorKind.CONFLICT, 409)
