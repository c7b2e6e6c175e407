"""A schemathesis check of our own, loaded by tests/api/schemathesis_run.py (``SCHEMATHESIS_HOOKS``).

schemathesis's ``positive_data_acceptance`` wants every schema-valid request answered 2xx/404/409;
a schema-valid wager below the table minimum is the rules engine's ``400 illegal-wager`` with the rule
it cites, which is right. What the document promises is narrower and checked here instead: a body the
document allows is never refused by the typed edge (``400 bad-request``). In the stateful phase a
link may carry a value the answer did not have (``next_to_decide`` is null between streets): such a
body is not one the document allows, so the body is checked against the document's schema first.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import schemathesis


def _schema_valid(case: Any) -> bool:
    operation = case.operation
    document = operation.schema.raw_schema
    media = (operation.definition.raw.get("requestBody") or {}).get("content", {}).get("application/json")
    if media is None:
        return True
    schema = {**media["schema"], "components": document["components"]}
    return jsonschema.Draft202012Validator(schema).is_valid(case.body)


@schemathesis.check
def edge_accepts_schema_valid_bodies(ctx: Any, response: Any, case: Any) -> bool | None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    try:
        code = response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = None
    if code == "bad-request" and _schema_valid(case):
        raise AssertionError(f"the edge refused a schema-valid request: {response.text[:300]}")
    return None
