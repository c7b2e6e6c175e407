"""The OpenAPI document refuses what the service refuses for a new employee's badge, PIN and roles
(docs/people.md): a generated client that keeps to the document is never refused for them, and one that
breaks it always is.

Every combination of badge and PIN (absent, null, a value), for a dealer and a table-system account,
goes to a real service over HTTP; the document's schema for ``AddEmployee`` (JSON Schema 2020-12, as
OpenAPI 3.1 has it) must agree."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import jsonschema

from shoe.api.openapi import build_document
from tests.people.conftest import TECH, Table

ABSENT = object()
CHOICES = {"badge": (ABSENT, None, "5001"), "pin": (ABSENT, None, "2468"), "roles": (["dealer"], ["table-system"])}


def test_the_document_and_the_service_agree_on_every_badge_and_pin(make_table: Callable[..., Table]) -> None:
    table = make_table()
    document = build_document()
    schema = {**document["components"]["schemas"]["AddEmployee"], "$schema": "https://json-schema.org/draft/2020-12/schema"}
    validator = jsonschema.Draft202012Validator(schema)
    verdicts = []
    for n, (badge, pin, roles) in enumerate(itertools.product(*CHOICES.values())):
        body: dict[str, object] = {"id": f"d-{600 + n}", "name": f"Account {n}", "roles": roles}
        if badge is not ABSENT:
            body["badge"] = badge if badge is None else f"{badge}{n}"
        if pin is not ABSENT:
            body["pin"] = pin
        answer = table.call("POST", "/v1/people", body, TECH)
        verdicts.append((badge, pin, roles, validator.is_valid(body), answer.status))
        assert validator.is_valid(body) == (answer.status == 201), (body, answer.status, answer.body)
    # both absent or null (4 ways, either role), or both given to a dealer: 9 of the 18 are valid
    assert sum(valid for *_, valid, _status in verdicts) == 9, verdicts
