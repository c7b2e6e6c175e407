"""The one error shape of the HTTP API: ``{"error": {"code": ..., "message": ..., "rule": ...}}``.

``ApiError`` is a refusal made by the HTTP layer itself (routing, authentication, the request
body); the service's own refusals arrive as ``shoe.service.ServiceError`` and are rendered the same
way, with the regulation they cite in ``rule``, at the status their kind maps to (``KIND_STATUS``).
A bug is answered ``500 internal`` with a fixed message: the traceback goes to the log, never into a body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shoe.service.errors import ErrorKind, ServiceError
from shoe.service.journal.feed import json_bytes

__all__ = ["KIND_STATUS", "STATUS_CODES", "ApiError", "envelope", "json_bytes", "service_status"]

# Every code the HTTP layer itself answers with, and its status (the OpenAPI document lists them).
STATUS_CODES: Mapping[str, int] = {
    "bad-request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "foreign-host": 403,
    "foreign-origin": 403,
    "cross-site": 403,
    "ambiguous-header": 403,
    "not-found": 404,
    "method-not-allowed": 405,
    "cursor-ahead": 409,
    "length-required": 411,
    "request-timeout": 408,
    "payload-too-large": 413,
    "unsupported-media-type": 415,
    "internal": 500,
    "unavailable": 503,
    "starting": 503,
}


KIND_STATUS: Mapping[ErrorKind, int] = {
    ErrorKind.BAD_INPUT: 400,
    ErrorKind.FORBIDDEN: 403,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.CONFLICT: 409,
    ErrorKind.INTERNAL: 500,
    ErrorKind.UNAVAILABLE: 503,
}
"""The HTTP status of each kind of service refusal (the service itself knows no statuses)."""
assert set(KIND_STATUS) == set(ErrorKind), "an error kind without its status"


def service_status(exc: ServiceError) -> int:
    """The status a service refusal is answered with."""
    return KIND_STATUS[exc.kind]


class ApiError(Exception):
    """A request refused before (or instead of) reaching the service."""

    def __init__(self, code: str, message: str, *, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.http_status = STATUS_CODES[code]
        self.headers = dict(headers or {})
        self.rule: str | None = None


def envelope(code: str, message: str, rule: str | None = None, hint: str | None = None) -> dict[str, Any]:
    """The error body every non-2xx response carries (``hint`` only when there is one)."""
    error: dict[str, Any] = {"code": code, "message": message, "rule": rule}
    if hint:
        error["hint"] = hint
    return {"error": error}
