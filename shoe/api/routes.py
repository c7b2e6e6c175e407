"""The route table, as data: method, path, handler, the roles that may call it, the body it takes.

The server dispatches on it, the OpenAPI document is generated from it and the tests walk it, so a
route cannot exist in one place and be missing from another.  Paths are fixed strings (the table
has one round at a time: no path parameters).  ``roles`` is in order of preference: with no tokens
configured the caller holds every role and acts as the first one listed; an empty tuple is a route
that needs no token.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from prometheus_client import CollectorRegistry

from shoe.api.errors import json_bytes
from shoe.api.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from shoe.api.metrics import ApiCounters, render
from shoe.api.schema import Field
from shoe.service import Role

__all__ = ["JSON", "ROUTES", "Reply", "Request", "Route", "Service", "find"]

JSON = "application/json"
StreamBody = Callable[[Callable[[bytes], None]], None]


class Service(Protocol):
    """What the API needs of ``shoe.service.TableService`` (tests may pass anything shaped so)."""

    def health(self) -> dict[str, Any]: ...
    def submit(self, action: str, params: Mapping[str, Any], role: Role) -> dict[str, Any]: ...
    def round_view(self, role: Role) -> dict[str, Any] | None: ...
    def events_since(self, cursor: int, timeout: float) -> tuple[int, list[dict[str, Any]]]: ...
    @property
    def metrics_registry(self) -> CollectorRegistry: ...


@dataclass(frozen=True)
class Request:
    service: Service
    role: Role | None  # None on a route that needs no token
    params: Mapping[str, Any]
    query: Mapping[str, str]
    headers: Mapping[str, str]  # lower-case names
    stopping: threading.Event  # set when the server stops: long-lived streams end
    counters: ApiCounters  # the HTTP layer's own series, appended to /metrics
    client_gone: Callable[[], bool]  # True once the client has closed its end (a stream then ends)


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = JSON
    headers: Mapping[str, str] = field(default_factory=dict)
    stream: StreamBody | None = None  # a streaming body (SSE): called with a write function


Handler = Callable[[Request], Reply]


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    handler: Handler
    roles: tuple[Role, ...]
    operation_id: str
    summary: str
    tag: str
    action: str | None = None  # the TableService.submit action it maps to
    fields: tuple[Field, ...] = ()
    open_body: bool = False
    status: int = 200


def _json(value: object, status: int = 200, headers: Mapping[str, str] | None = None) -> Reply:
    return Reply(status=status, body=json_bytes(value), headers=headers or {})


def _status(req: Request) -> Reply:
    return _json(req.service.health())


def _round(req: Request) -> Reply:
    assert req.role is not None
    return _json({"round": req.service.round_view(req.role)})


def _submit(action: str, status: int = 200, headers: Mapping[str, str] | None = None) -> Handler:
    def handler(req: Request) -> Reply:
        assert req.role is not None
        return _json(req.service.submit(action, req.params, req.role), status, headers)

    handler.__name__ = f"submit_{action.replace('-', '_')}"
    return handler


def _events(req: Request) -> Reply:
    from shoe.api.sse import event_stream

    return event_stream(req)


def _openapi(_: Request) -> Reply:
    from shoe.api.openapi import document_bytes

    return Reply(body=document_bytes())


def _metrics(req: Request) -> Reply:
    text = render(req.service.metrics_registry) + req.counters.render()
    return Reply(body=text.encode("utf-8"), content_type=METRICS_CONTENT_TYPE)


DEALER, TECHNICIAN, OBSERVER, SYSTEM = Role.DEALER, Role.TECHNICIAN, Role.OBSERVER, Role.TABLE_SYSTEM
ANY = (DEALER, TECHNICIAN, SYSTEM, OBSERVER)  # any token; with no tokens configured such a request acts as the dealer
SEAT = Field("seat", ("integer",), "the seat number")


def _act(
    path: str, action: str, summary: str, *fields: Field, roles: tuple[Role, ...] = (DEALER,), tag: str = "round"
) -> Route:
    op = "".join(w.capitalize() for w in action.split("-"))
    return Route("POST", path, _submit(action), roles, op[0].lower() + op[1:], summary, tag, action, fields)


ROUTES: tuple[Route, ...] = (
    Route("GET", "/v1/status", _status, ANY, "getStatus", "Service and shoe status", "status"),
    Route("GET", "/v1/round", _round, ANY, "getRound", "The current round, secrecy-filtered", "round"),
    Route(
        "POST",
        "/v1/rounds",
        _submit("open-round", 201, {"Location": "/v1/round"}),
        (DEALER,),
        "openRound",
        "Open a round with the seats' wagers",
        "round",
        "open-round",
        (
            Field("game", ("string",), "the game, e.g. mississippi-stud or seven-card-stud"),
            Field("jurisdiction", ("string",), "the rules profile, e.g. NY, PA, NJ"),
            Field("table", ("string", "object"), "the table: its name or its configuration", required=False),
            Field("seats", ("array",), "the wagering seats, each {seat, ante, ...}", items={"type": "object"}),
        ),
        status=201,
    ),
    _act("/v1/round/no-more-bets", "no-more-bets", "Close wagering"),
    _act("/v1/round/progressive/lock", "lock-progressive", "Lock the progressive wagers (PA)"),
    _act(
        "/v1/round/progressive/chip-count",
        "chip-count",
        "Record the progressive chip count (PA)",
        Field("count", ("integer",), "progressive chips counted in the drop"),
    ),
    _act("/v1/round/deal", "deal", "Deal every wagering seat's stack from the shoe"),
    _act("/v1/round/release-stub", "release-stub", "Release and count the stub"),
    _act(
        "/v1/round/decisions",
        "decide",
        "A seat's street decision",
        SEAT,
        Field("multiple", ("integer",), "1, 2 or 3 times the ante; 0 folds"),
    ),
    _act(
        "/v1/round/reveal",
        "reveal",
        "Reveal the next community card",
        Field("index", ("integer",), "the community card's position: 1, 2 or 3"),
        Field(
            "card",
            ("string",),
            "the card's code when the dealer enters it; omitted, the shoe's reader scans it",
            required=False,
        ),
    ),
    _act("/v1/round/settle", "settle", "Settle every seat, in descending seat order"),
    _act("/v1/round/void", "void", "Void the round (misdeal)", Field("cause", ("string",), "why the round is void")),
    _act("/v1/round/forfeit", "forfeit", "A seat forfeits for sharing information (PA)", SEAT),
    _act(
        "/v1/round/stud-actions",
        "stud-action",
        "A seven-card stud player's action",
        SEAT,
        Field("action", ("string",), "bring-in, complete, bet, raise, call, check or fold"),
        Field("amount", ("integer",), "the amount, where the action takes one", required=False),
    ),
    Route(
        "POST",
        "/v1/table-system/progressive-inputs",
        _submit("progressive-inputs"),
        (SYSTEM,),
        "progressiveInputs",
        "The table-game system's progressive meters and draws (PA)",
        "table-system",
        "progressive-inputs",
        open_body=True,
    ),
    _act(
        "/v1/maintenance/dispense",
        "maintenance-dispense",
        "Test dispense (refused while a round is live)",
        Field("stacks", ("integer",), "how many stacks"),
        Field("size", ("integer",), "cards per stack"),
        roles=(TECHNICIAN,),
        tag="maintenance",
    ),
    _act(
        "/v1/maintenance/clear-fault",
        "clear-fault",
        "Clear a shoe fault (refused while a round is live)",
        Field("fault", ("string", "integer"), "the fault to clear; all when omitted", required=False),
        roles=(TECHNICIAN,),
        tag="maintenance",
    ),
    _act(
        "/v1/maintenance/verify-journal",
        "verify-journal",
        "Verify the journal's chain",
        roles=(TECHNICIAN,),
        tag="maintenance",
    ),
    Route("GET", "/v1/events", _events, ANY, "getEvents", "The event stream (Server-Sent Events)", "events"),
    Route("GET", "/v1/openapi.json", _openapi, (), "getOpenApi", "This OpenAPI document", "meta"),
    Route("GET", "/metrics", _metrics, ANY, "getMetrics", "Prometheus metrics (text format 0.0.4)", "meta"),
)

_BY_PATH: dict[str, dict[str, Route]] = {}
for _route in ROUTES:
    _BY_PATH.setdefault(_route.path, {})[_route.method] = _route


def find(path: str) -> Mapping[str, Route] | None:
    """The routes at ``path`` by method, or ``None`` when nothing lives there."""
    return _BY_PATH.get(path.rstrip("/") or "/")
