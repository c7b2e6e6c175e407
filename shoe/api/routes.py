"""The route table, as data: method, path, handler, the roles that may call it, the body it takes.

The action routes (every ``POST``) are derived from the service's one registry of actions
(``shoe.service.api.registry.ACTIONS``: path, role, request type, summary, tag, success status); the
``GET`` routes are declared here. The server dispatches on the table, the OpenAPI document is
generated from it and the tests walk it, so a route cannot exist in one place and be missing from
another (tests/api/test_registry.py).  Paths are fixed strings (the table
has one round at a time: no path parameters).  ``roles`` is in order of preference: with no tokens
configured the caller holds every role and acts as the first one listed; an empty tuple is a route
that needs no token. The shapes (``Request``, ``Reply``, ``Route``) are ``shoe.api.exchange``'s, re-exported
here: this table imports every route's module, and is imported by the first request that needs a route of it,
not before ``shoed``'s first status.
"""

from __future__ import annotations

from collections.abc import Mapping

from shoe.api.errors import json_bytes
from shoe.api.exchange import ANY, JSON, Handler, Reply, Request, Route, Service, StreamBody
from shoe.api.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from shoe.api.metrics import render
from shoe.service import Role
from shoe.service.api.registry import ACTIONS, Action

__all__ = ["ANY", "JSON", "ROUTES", "Handler", "Reply", "Request", "Route", "Service", "StreamBody", "find"]


def _json(value: object, status: int = 200, headers: Mapping[str, str] | None = None) -> Reply:
    return Reply(status=status, body=json_bytes(value), headers=headers or {})


def _status(req: Request) -> Reply:
    health = req.service.health()
    phase = req.starting.view() if req.starting is not None else {"state": "ready", "step": "serving"}
    if isinstance(health.get("service"), dict):  # shoe.api.starting: the same two fields from the start on
        health["service"] = {**health["service"], **phase}
    return _json(health)


def _round(req: Request) -> Reply:
    assert req.role is not None
    return _json({"round": req.service.round_view(req.role)})


def _deck(req: Request) -> Reply:
    return _json(req.service.deck_view())


def _shoe_counters(req: Request) -> Reply:
    return _json(req.service.shoe_counters())


def _submit(action: str, status: int = 200, headers: Mapping[str, str] | None = None) -> Handler:
    def handler(req: Request) -> Reply:
        assert req.role is not None
        by = getattr(req.principal, "by", None)  # the employee, named by every entry this causes
        answer = req.service.submit(action, req.params, req.role, by) if by else req.service.submit(
            action, req.params, req.role)  # fmt: skip
        if "awaiting_approval" in answer:  # the step waits for a second person (shoe.service.people.approvals)
            return _json(answer, 202)
        return _json(answer, status, headers)

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


def _report(req: Request) -> Reply:
    from shoe.api.report import journal_report

    body, seq = journal_report(req.service, dict(req.query), req.report)
    return Reply(body=body, headers={"Report-Journal-Seq": str(seq)} if seq else {})


TECHNICIAN, SYSTEM = Role.TECHNICIAN, Role.TABLE_SYSTEM


def _action_route(action: Action) -> Route:
    """The ``POST`` route of one registry action (shoe/service/api/registry.py)."""
    handler = _submit(action.name, action.status, action.headers)
    return Route(
        "POST",
        action.path,
        handler,
        (action.role,),
        action.operation_id,
        action.summary,
        action.tag,
        action.name,
        action.request,
        action.status,
        action.example,
    )


def _people_routes() -> tuple[Route, ...]:
    from shoe.api.approval_routes import APPROVAL_ROUTES  # import this module's Route: loaded once it exists
    from shoe.api.people_routes import PEOPLE_ROUTES

    return PEOPLE_ROUTES + APPROVAL_ROUTES


ROUTES: tuple[Route, ...] = (
    Route("GET", "/v1/status", _status, ANY, "getStatus", "Service and shoe status", "status"),
    Route("GET", "/v1/round", _round, ANY, "getRound", "The current round, secrecy-filtered", "round"),
    Route("GET", "/v1/deck", _deck, ANY, "getDeck", "The deck in the shoe: its state, check, what to do now", "deck"),
    Route(
        "GET",
        "/v1/shoe/counters",
        _shoe_counters,
        (TECHNICIAN,),
        "getShoeCounters",
        "The shoe's lifetime counters (COUNTERS), read from the shoe now",
        "status",
    ),
    *(_action_route(action) for action in ACTIONS),
    Route("GET", "/v1/events", _events, ANY, "getEvents", "The event stream (Server-Sent Events)", "events"),
    Route("GET", "/v1/openapi.json", _openapi, (), "getOpenApi", "This OpenAPI document", "meta"),
    Route("GET", "/metrics", _metrics, ANY, "getMetrics", "Prometheus metrics (text format 0.0.4)", "meta"),
    Route("GET", "/v1/report", _report, (SYSTEM,), "getReport", "Hold against theory, from the journal", "report"),
    *_people_routes(),
)

_BY_PATH: dict[str, dict[str, Route]] = {}
for _route in ROUTES:
    _BY_PATH.setdefault(_route.path, {})[_route.method] = _route


def find(path: str) -> Mapping[str, Route] | None:
    """The routes at ``path`` by method, or ``None`` when nothing lives there."""
    return _BY_PATH.get(path.rstrip("/") or "/")
