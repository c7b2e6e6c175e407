"""What a route takes and gives: the request a handler is called with, its reply, the route record itself, and the
service the API serves (the shapes only; the table of routes is ``shoe.api.routes``).

Apart from the table because the table imports every route's module (the registry of actions and their request
types, the employees' routes): the request handler and the server need only these shapes to serve ``GET
/v1/status`` while ``shoed`` starts, and the table is imported by the first request that needs a route of it
(docs/perf/start.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from shoe.service import Role
from shoe.service.journal.feed import Held

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

    from shoe.api.metrics import ApiCounters

__all__ = ["ANY", "JSON", "Handler", "Reply", "Request", "Route", "Service", "StreamBody"]

JSON = "application/json"
StreamBody = Callable[[Callable[[bytes], None]], None]
ANY = (Role.DEALER, Role.TECHNICIAN, Role.TABLE_SYSTEM, Role.OBSERVER)
"""Any token; with no tokens configured such a request acts as the dealer (the first listed)."""


class Service(Protocol):
    """What the API needs of ``shoe.service.TableService`` (tests may pass anything shaped so)."""

    def health(self) -> dict[str, Any]: ...
    def submit(
        self,
        action: str,
        params: Mapping[str, Any] | msgspec.Struct | None,
        role: Role,
        by: Mapping[str, str] | None = None,
    ) -> dict[str, Any]: ...
    def round_view(self, role: Role) -> dict[str, Any] | None: ...
    def deck_view(self) -> dict[str, Any] | None: ...
    def shoe_counters(self) -> dict[str, Any]: ...
    def events_json_since(self, cursor: int, timeout: float) -> tuple[int, list[Held]]: ...
    @property
    def metrics_registry(self) -> CollectorRegistry: ...


@dataclass(frozen=True)
class Request:
    service: Service
    role: Role | None  # None on a route that needs no token
    params: msgspec.Struct | None  # the decoded body of a POST (its route's request type)
    query: Mapping[str, str]
    headers: Mapping[str, str]  # lower-case names
    stopping: threading.Event  # set when the server stops: long-lived streams end
    counters: ApiCounters  # the HTTP layer's own series, appended to /metrics
    client_gone: Callable[[], bool]  # True once the client has closed its end (a stream then ends)
    principal: Any = None  # shoe.api.auth.Principal: who asks (None on a route that needs no token)
    people: Any = None  # shoe.people.desk.People, when the server has the employees store
    client: str = ""  # the client's address (sign-in back-off is counted per address)
    report: Any = None  # shoe.api.report.ReportSummary: the server's summary of its service's journal
    starting: Any = None  # shoe.api.starting.Starting: the start's phase, when shoed serves before it is ready


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
    action: str | None = None  # the TableService.submit action it maps to (shoe.service.api.registry)
    request: Any = None  # the body's type (shoe.service.api.requests; open-round: a union, one per game)
    status: int = 200
    example: Mapping[str, Any] | None = None  # a valid body, shown in the OpenAPI document
