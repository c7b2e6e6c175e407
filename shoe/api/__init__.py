"""The table service's HTTP API, versioned under ``/v1``, served by ``shoed``.

Stdlib only (``http.server``): JSON bodies, Server-Sent Events for the event stream, Prometheus text
for ``/metrics``, and an OpenAPI 3.1 document at ``/v1/openapi.json`` generated from the route table.

| module | job |
|---|---|
| ``routes`` | the route table as data: method, path, handler, roles, body fields |
| ``exchange`` | what a route takes and gives (``Request``, ``Reply``, ``Route``, ``Service``), apart from the table |
| ``server`` | ``ApiServer(service, host, port, tokens=...)``, ``serve(service, config)`` |
| ``handler`` | one request: route, authenticate, check the body, call the service, answer, log |
| ``auth`` | bearer tokens to roles; the loopback-only rule for a configuration without tokens |
| ``schema`` | request body fields, checked before the service sees them |
| ``sse`` | ``GET /v1/events``: id/event/data frames, resume with ``Last-Event-ID`` or ``?cursor=`` |
| ``metrics`` | the Prometheus text exposition format 0.0.4 |
| ``openapi`` | the OpenAPI document, from the route table |
| ``errors`` | the error envelope ``{"error": {"code", "message", "rule"}}`` |

Roles come from the bearer token (``tokens`` in the service configuration maps each token to one
role).  With no tokens configured, which only a loopback bind allows, every request holds every role.
Card secrecy is the service's: every body and event the API sends comes from ``TableService``
views that are already filtered, and the request log never carries a body.

See ``docs/api.md`` for every endpoint with curl examples.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shoe.api.auth import InsecureBind
    from shoe.api.errors import ApiError
    from shoe.api.handler import MAX_BODY
    from shoe.api.openapi import build_document
    from shoe.api.routes import ROUTES, Route
    from shoe.api.server import ApiServer, serve

__all__ = ["MAX_BODY", "ROUTES", "ApiError", "ApiServer", "InsecureBind", "Route", "build_document", "serve"]

_HOME = {"InsecureBind": "auth", "ApiError": "errors", "MAX_BODY": "handler", "build_document": "openapi",
         "ROUTES": "routes", "Route": "routes", "ApiServer": "server", "serve": "server"}  # fmt: skip


def __getattr__(name: str) -> Any:
    """The package's names, each imported from its module when first asked for: ``shoed`` imports
    ``shoe.api.starting`` and the server before its first status, and the route table (every route's module)
    only after it (docs/perf/start.md)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
