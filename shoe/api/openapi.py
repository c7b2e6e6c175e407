"""The OpenAPI 3.1 document of the table API, generated from the route table (``GET /v1/openapi.json``).

Every route in ``shoe.api.routes.ROUTES`` appears once, with the roles that may call it, its request
body and every error status it can answer, each with the error envelope schema. The request schemas
are ``msgspec.json.schema_components`` of the same ``shoe.service.api.requests`` types the server decodes
bodies into (ranges, patterns, lengths, no unknown field), so a schema-valid body is never refused
for its shape, and a schema-invalid one always is. The event stream is declared as
``text/event-stream`` with the schema of one event (OpenAPI 3.1: ``schema`` of a sequential media
type describes each item): ``id``, ``event`` and ``data``, one line of JSON.
"""

from __future__ import annotations

import functools
from typing import Any

from shoe.api.errors import STATUS_CODES, json_bytes
from shoe.api.routes import ROUTES, Route
from shoe.service.api.requests import body_required, schemas

__all__ = ["ERROR_STATUSES", "SERVICE_STATUSES", "build_document", "document_bytes"]

VERSION = "1.0.0"
# Statuses the service answers a refused action with (shoe.api.errors.KIND_STATUS of ServiceError.kind).
SERVICE_STATUSES: dict[int, str] = {
    400: "A value the rules refuse (a wager outside the limits, an unknown seat...); `rule` cites the regulation",
    403: "The role may not do this",
    404: "Nothing to act on (no round is open)",
    409: "Refused in the current state (out of turn, a round is live for maintenance; an event cursor ahead of "
    "the journal); `rule` cites the regulation where one applies",
    503: "The shoe or the service cannot do it now (a fault, a lost link; `starting` with `Retry-After: 1` while "
    "shoed starts); `hint` says what to do",
}
ERROR_STATUSES: dict[int, str] = {
    **SERVICE_STATUSES,
    400: "The request is malformed (not JSON, a missing or mistyped field, a bad cursor) or a value is refused",
    401: "No bearer token, or one the configuration does not hold (`WWW-Authenticate: Bearer`)",
    403: "The token's role may not do this, or the request's Host or Origin is not this server's",
    404: "No such path, or nothing to act on (no round is open)",
    405: "The path does not take this method (`Allow` lists those it does)",
    408: "The request did not arrive whole within the server's bound (docs/api.md, Bounds under a flood)",
    411: "A request body without Content-Length (chunked bodies are not accepted)",
    413: "The request body is over 64 KiB",
    415: "A POST without Content-Type: application/json (required with no body too)",
    500: "A bug: the message is fixed, the details are in the service log",
}
assert set(STATUS_CODES.values()) <= set(ERROR_STATUSES)

_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["error"],
    "additionalProperties": False,
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message", "rule"],
            "properties": {
                "code": {"type": "string", "description": "machine-readable, kebab-case", "examples": ["out-of-order"]},
                "message": {"type": "string", "description": "what was wrong, for a person"},
                "rule": {
                    "type": ["string", "null"],
                    "description": "the regulation the refusal rests on, when one applies",
                    "examples": ["NY 5324.38(e)(1)"],
                },
                "hint": {"type": "string", "description": "the next step, when the service has one (shoe faults)"},
            },
        }
    },
}
_OBJECT: dict[str, Any] = {"type": "object"}
SHOE_COUNTERS: dict[str, str] = {
    "cards": "cards dispensed",
    "stacks": "stacks completed",
    "jams": "jams",
    "misreads": "cards the reader could not identify",
    "double_feeds": "double feeds",
    "misfeeds": "misfeeds",
    "power_cycles": "power cycles",
}
"""The fields of a COUNTERS response (shoe.present.counters), each u32, lifetime, non-volatile."""
_SUCCESS_CONTENT: dict[str, dict[str, Any]] = {
    "/v1/status": {"application/json": {"schema": {
        "type": "object", "required": ["service", "shoe"],
        "description": "While shoed starts (shoe.api.starting) the service is `starting` and names its `step`; the "
        "journal is not read yet (`journal_seq` null) and the shoe not connected (`link` down). Every other route "
        "answers `503 starting` with `Retry-After: 1` until `state` is `ready`.",
        "properties": {
            "service": {
                "type": "object", "required": ["state", "step", "running"],
                "properties": {
                    "state": {"enum": ["starting", "ready", "stopped"]},
                    "step": {"type": "string", "description": "listening, journal-lock, loading, journal-and-shoe, "
                             "floor while starting; serving once ready"},
                    "running": {"type": "boolean"},
                    "journal_seq": {"type": ["integer", "null"]},
                },
            },
            "shoe": {"type": "object", "required": ["link"], "properties": {
                "link": {"enum": ["up", "down", "reconnecting"]}}},
        },
    }}},
    "/v1/round": {"application/json": {"schema": {
        "type": "object", "required": ["round"],
        "properties": {"round": {"type": ["object", "null"], "description": "null when no round is open"}},
    }}},
    "/v1/events": {"text/event-stream": {"schema": {
        "type": "object", "required": ["data", "event"],
        "description": "One Server-Sent Event: `id` is its cursor, `event` its type, `data` the event as one line "
        "of JSON (the same object for every role, secrecy-filtered). A `retry` frame opens the stream; a "
        "`: keep-alive` comment goes out after 15 s without an event.",
        "properties": {
            "id": {"type": "string", "pattern": "^[0-9]+$"},
            "event": {"type": "string"},
            "data": {"type": "string", "contentMediaType": "application/json",
                     "contentSchema": {"type": "object", "required": ["cursor", "type"]}},
            "retry": {"type": "integer", "minimum": 0},
        },
    }}},
    "/metrics": {"text/plain; version=0.0.4": {"schema": {"type": "string"}}},
    "/v1/shoe/counters": {"application/json": {"schema": {
        "type": "object", "required": ["shoe", "read_at", "counters"], "additionalProperties": False,
        "description": "The shoe's own lifetime, non-volatile counters (protocols/SPEC.md, COUNTERS), "
        "read from it for this request; /metrics has the service's since its start",
        "properties": {
            "shoe": {"type": ["string", "null"], "description": "the shoe's serial"},
            "read_at": {"type": "string", "format": "date-time"},
            "counters": {"type": "object", "additionalProperties": False, "required": list(SHOE_COUNTERS),
                         "properties": {name: {"type": "integer", "minimum": 0, "description": text}
                                        for name, text in SHOE_COUNTERS.items()}},
        },
    }}},
}  # fmt: skip
_EVENT_PARAMETERS: list[dict[str, Any]] = [
    {
        "name": "cursor",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 0},
        "description": "resume after this event id (default 0: everything the service still holds)",
    },
    {
        "name": "Last-Event-ID",
        "in": "header",
        "required": False,
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
        "description": "resume after this event id; wins over `cursor` (EventSource sends it on reconnection)",
    },
]


_ROUND = "$response.body#/round"
_NY_ROUND = {"game": "mississippi-stud", "jurisdiction": "NY",
             "seats": [{"seat": 1, "ante": 1000}, {"seat": 3, "ante": 500}]}  # fmt: skip
_STUD_HAND = {"game": "seven-card-stud", "seats": [1, 2, 3],
              "table": {"bring_in": 100, "small_bet": 200, "big_bet": 400}}  # fmt: skip
_LINKS: dict[str, dict[str, dict[str, Any]]] = {
    # A round's walk, as a client follows it: each answer links to the steps that may come next, with
    # the values the answer gives (the seat to decide, the card to reveal, a stud seat's legal action).
    # Clients (and schemathesis's stateful phase) reach decisions, reveals, settlement and approvals.
    "openRound": {"NoMoreBets": {"operationId": "noMoreBets"}, "Deal": {"operationId": "deal"},
                  "Round": {"operationId": "getRound"}, "Void": {"operationId": "void"}},
    "noMoreBets": {"Lock": {"operationId": "lockProgressive"}, "Deal": {"operationId": "deal"}},
    "lockProgressive": {"ChipCount": {"operationId": "chipCount",
                                      "requestBody": {"count": "$response.body#/record/wagers_accepted"}}},
    "chipCount": {"Deal": {"operationId": "deal"}},
    "deal": {"ReleaseStub": {"operationId": "releaseStub"}, "Round": {"operationId": "getRound"},
             "ReshuffleBurns": {"operationId": "reshuffleBurns"}},
    "releaseStub": {"Round": {"operationId": "getRound"}, "LoadDeck": {"operationId": "loadDeck"}},
    "getRound": {
        "Decide": {"operationId": "decide", "requestBody": {"seat": f"{_ROUND}/next_to_decide", "multiple": 1}},
        "Fold": {"operationId": "decide", "requestBody": {"seat": f"{_ROUND}/next_to_decide", "multiple": 0}},
        "Reveal": {"operationId": "reveal", "requestBody": {"index": f"{_ROUND}/next_reveal"}},
        "StudAction": {"operationId": "studAction", "requestBody": {
            "seat": f"{_ROUND}/legal_actions/0/seat", "action": f"{_ROUND}/legal_actions/0/action",
            "amount": f"{_ROUND}/legal_actions/0/amount"}},
        "Settle": {"operationId": "settle"},
        "Deal": {"operationId": "deal"},
        "Approvals": {"operationId": "listApprovals"},
        "Void": {"operationId": "void", "requestBody": {"cause": "the floor voids the round"}},
    },
    "decide": {"Round": {"operationId": "getRound"}},
    "reveal": {"Round": {"operationId": "getRound"}},
    "studAction": {"Round": {"operationId": "getRound"}},
    "reshuffleBurns": {"Deal": {"operationId": "deal"}},
    "settle": {"Round": {"operationId": "getRound"}, "Approvals": {"operationId": "listApprovals"},
               "ReleaseStub": {"operationId": "releaseStub"}},
    "void": {"LoadDeck": {"operationId": "loadDeck"}, "ReleaseStub": {"operationId": "releaseStub"}},
    "getDeck": {"LoadDeck": {"operationId": "loadDeck"}, "ReleaseStub": {"operationId": "releaseStub"},
                "OpenRound": {"operationId": "openRound"},
                "OpenNyRound": {"operationId": "openRound", "requestBody": _NY_ROUND},
                "OpenStudHand": {"operationId": "openRound", "requestBody": _STUD_HAND}},
    "loadDeck": {"OpenNyRound": {"operationId": "openRound", "requestBody": _NY_ROUND},
                 "OpenStudHand": {"operationId": "openRound", "requestBody": _STUD_HAND}},
    "listApprovals": {
        "Approve": {"operationId": "approve", "requestBody": {"id": "$response.body#/approvals/0/id"}},
        "Reject": {"operationId": "reject", "requestBody": {"id": "$response.body#/approvals/0/id"}},
    },
}  # fmt: skip
"""OpenAPI links of each operation's success answer, by ``operationId``."""


def _error_statuses(route: Route) -> list[int]:
    statuses = [500]
    if route.path != "/v1/status":  # 503 starting (Retry-After: 1) on every other route while shoed starts
        statuses.append(503)
    if route.roles:
        statuses += [401, 403]
    if route.method == "POST":
        statuses += [400, 411, 413, 415]
    if route.action is not None:
        statuses += list(SERVICE_STATUSES)
    if route.path == "/v1/events":
        statuses += [400, 409]
    if route.path == "/v1/shoe/counters":
        statuses += [503]  # the shoe cannot answer now (the link is down)
    if route.tag == "people":  # shoe/api/people_routes.py: credentials, lockout, no such employee, taken, journal down
        statuses += [400, 401, 403, 404, 409, 503]
    return sorted(set(statuses))


def _operation(route: Route) -> dict[str, Any]:
    roles = ", ".join(r.value for r in route.roles) or "anyone, no token needed"
    op: dict[str, Any] = {
        "operationId": route.operation_id,
        "summary": route.summary,
        "tags": [route.tag],
        "description": f"Roles: {roles}." + (f" Service action `{route.action}`." if route.action else ""),
        "security": [{"bearer": []}] if route.roles else [],
    }
    if route.request is not None:
        (schema,), _ = schemas((route.request,))
        media: dict[str, Any] = {"schema": schema}
        if route.example is not None:
            media["example"] = dict(route.example)
        elif not body_required(route.request):
            media["example"] = {}
        # Required even for an action of no field: every POST must say Content-Type: application/json
        # (the cross-origin defence, shoe.api.origin), and a body-less request has no content type, so
        # the contract is a JSON body, ``{}`` when there is nothing to say.
        op["requestBody"] = {
            "required": True,
            "description": "a JSON object (`{}` when the action takes no field): every POST is application/json",
            "content": {"application/json": media},
        }
    if route.path == "/v1/events":
        op["parameters"] = _EVENT_PARAMETERS
    content = _SUCCESS_CONTENT.get(route.path, {"application/json": {"schema": _OBJECT}})
    responses: dict[str, Any] = {str(route.status): {"description": "OK", "content": content}}
    if route.operation_id in _LINKS:
        responses[str(route.status)]["links"] = _LINKS[route.operation_id]
    for status in _error_statuses(route):
        responses[str(status)] = {"$ref": f"#/components/responses/E{status}"}
    op["responses"] = responses
    return op


_BOTH_OR_NEITHER = {
    "anyOf": [
        {"properties": {"badge": {"type": "null"}, "pin": {"type": "null"}}},
        {
            "properties": {
                "badge": {"not": {"type": "null"}},  # the type's own schema says which strings
                "pin": {"not": {"type": "null"}},
                "roles": {"not": {"contains": {"const": "table-system"}}},
            },
            "required": ["badge", "pin"],
        },
    ]
}
"""A new employee's badge and PIN come together or not at all, and never to a table-system account (a service:
tokens only); shoe.people.desk refuses the rest. Rules across fields, which the type cannot say, so the
document says them beside the type's own schema."""


def _request_components() -> dict[str, Any]:
    kinds = tuple(dict.fromkeys(r.request for r in ROUTES if r.request is not None))
    _, components = schemas(kinds)
    if "AddEmployee" in components:
        components["AddEmployee"] = {**components["AddEmployee"], **_BOTH_OR_NEITHER}
    return components


def build_document() -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for route in ROUTES:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route)
    error_content = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Card shoe table service",
            "version": VERSION,
            "description": "One table's rounds, its shoe and its event stream. No response, event or log line "
            "shows a hole card before its seat is settled or a community card before its reveal, to any role. "
            "See docs/api.md.",
        },
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}],
        "tags": [{"name": t} for t in dict.fromkeys(r.tag for r in ROUTES)],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "a token from the config"}
            },
            "schemas": {"Error": _ERROR_SCHEMA, **_request_components()},
            "responses": {
                f"E{status}": {"description": text, "content": error_content}
                for status, text in sorted(ERROR_STATUSES.items())
            },
        },
    }


@functools.cache
def document_bytes() -> bytes:
    return json_bytes(build_document())
